// The scan cursor of scan.go. A row read through grocksdb costs four cgo
// calls (valid, key, value, next) and four Go allocations; here one call
// copies as many rows as fit into a Go buffer, so a scan crosses into C
// once per buffer instead of four times per row.

#include <stdlib.h>
#include <string.h>

#include "cursor.h"

// A cursor owns its iterator and its read options, which the iterator
// points to for its whole life, and the upper bound those options point
// to, held in the cursor's own allocation: no Go memory is referenced after
// a call returns, so nothing needs pinning.
struct telha_cursor {
	rocksdb_readoptions_t *options;
	rocksdb_iterator_t *it;
	char upper[];
};

void telha_cursor_close(telha_cursor *c) {
	// The iterator goes first: it points into the options.
	rocksdb_iter_destroy(c->it);
	rocksdb_readoptions_destroy(c->options);
	free(c);
}

// row_room is the room the row under a valid iterator takes in a buffer.
static size_t row_room(const rocksdb_iterator_t *it) {
	size_t klen, vlen;
	rocksdb_iter_key(it, &klen);
	rocksdb_iter_value(it, &vlen);
	return klen + vlen + TELHA_SLOT;
}

// telha_cursor_open creates the iterator of one range, with
// prefix_same_as_start inside one scope or total_order_seek across scopes
// (never both), on snapshot when not NULL, bounded above by upper when
// has_upper, and seeks it to lower. A range with no row, or a seek that
// fails, frees everything before returning.
telha_open telha_cursor_open(rocksdb_t *db, rocksdb_column_family_handle_t *family,
                             const rocksdb_snapshot_t *snapshot, int one_scope,
                             const char *lower, size_t lower_len,
                             const char *upper, size_t upper_len, int has_upper) {
	telha_open r = {0};
	telha_cursor *c = malloc(sizeof *c + upper_len);
	if (c == NULL) {
		r.oom = 1;
		return r;
	}
	c->options = rocksdb_readoptions_create();
	if (snapshot != NULL) {
		rocksdb_readoptions_set_snapshot(c->options, snapshot);
	}
	if (one_scope) {
		rocksdb_readoptions_set_prefix_same_as_start(c->options, 1);
	} else {
		rocksdb_readoptions_set_total_order_seek(c->options, 1);
	}
	if (has_upper) {
		memcpy(c->upper, upper, upper_len);
		rocksdb_readoptions_set_iterate_upper_bound(c->options, c->upper, upper_len);
	}
	c->it = rocksdb_create_iterator_cf(db, c->options, family);
	rocksdb_iter_seek(c->it, lower, lower_len);
	if (!rocksdb_iter_valid(c->it)) {
		rocksdb_iter_get_error(c->it, &r.err);
		telha_cursor_close(c);
		return r;
	}
	r.cursor = c;
	r.first = row_room(c->it);
	return r;
}

// telha_cursor_fill copies rows into buf, cap bytes, from the front: key,
// then value. For row i it writes a slot at buf + cap - (i+1)*TELHA_SLOT
// holding the end offsets of the key and of the value. It stops at the
// first row that does not fit between the rows and the slots, or at the end
// of the range or an error, which free the cursor. cap must be below
// 2^32, so that every offset fits its slot.
telha_fill telha_cursor_fill(telha_cursor *c, char *buf, size_t cap) {
	telha_fill r = {0};
	size_t used = 0;    // row bytes written from the front
	size_t slots = cap; // where the slots begin, growing down
	while (rocksdb_iter_valid(c->it)) {
		size_t klen, vlen;
		const char *k = rocksdb_iter_key(c->it, &klen);
		const char *v = rocksdb_iter_value(c->it, &vlen);
		if (klen + vlen + TELHA_SLOT > slots - used) {
			r.need = klen + vlen + TELHA_SLOT;
			return r;
		}
		memcpy(buf + used, k, klen);
		uint32_t ends[2];
		ends[0] = (uint32_t)(used + klen);
		memcpy(buf + ends[0], v, vlen);
		used += klen + vlen;
		ends[1] = (uint32_t)used;
		slots -= TELHA_SLOT;
		memcpy(buf + slots, ends, TELHA_SLOT);
		r.rows++;
		rocksdb_iter_next(c->it);
	}
	rocksdb_iter_get_error(c->it, &r.err);
	telha_cursor_close(c);
	r.done = 1;
	return r;
}

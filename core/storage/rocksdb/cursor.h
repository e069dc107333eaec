// The scan cursor: one RocksDB iterator with the read options and the upper
// bound it points to, owned together and freed together, read many rows per
// call from Go. See cursor.c.

#ifndef TELHA_CURSOR_H
#define TELHA_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include <rocksdb/c.h>

// TELHA_SLOT is the size of the slot that telha_cursor_fill writes at the
// back of its buffer for each row: the end offsets of its key and of its
// value, as two native-endian uint32.
#define TELHA_SLOT 8

typedef struct telha_cursor telha_cursor;

// telha_open is what telha_cursor_open found at the range's lower bound.
typedef struct {
	// cursor is positioned at the range's first row; NULL when the range
	// is empty or the seek failed, and then nothing is left to free.
	telha_cursor *cursor;
	// first is the room the first row takes in a buffer, slot included.
	size_t first;
	// err is RocksDB's message when the seek failed, to free with
	// rocksdb_free; NULL otherwise.
	char *err;
	// oom is set when the cursor could not be allocated.
	int oom;
} telha_open;

// telha_fill is what one telha_cursor_fill call did.
typedef struct {
	// rows is how many rows the call copied.
	size_t rows;
	// need is the room the next row takes, slot included, when the call
	// stopped because that row did not fit; 0 otherwise.
	size_t need;
	// done is set when the call reached the end of the range or an error,
	// and freed the cursor.
	int done;
	// err is RocksDB's message when the iterator failed, to free with
	// rocksdb_free; NULL otherwise.
	char *err;
} telha_fill;

telha_open telha_cursor_open(rocksdb_t *db, rocksdb_column_family_handle_t *family,
                             const rocksdb_snapshot_t *snapshot, int one_scope,
                             const char *lower, size_t lower_len,
                             const char *upper, size_t upper_len, int has_upper);

telha_fill telha_cursor_fill(telha_cursor *c, char *buf, size_t cap);

void telha_cursor_close(telha_cursor *c);

#endif

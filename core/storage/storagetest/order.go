package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// testByteOrder writes random keys of every layout, in random order, by
// every kind of write, with overwrites and deletes mixed in, and demands
// that every family reads back sorted by bytes.Compare with exactly the
// model's rows, whole and per tenant.
func testByteOrder(t *testing.T, h Harness) {
	const sets = 20
	rng := newRand(t)
	e := open(t, h)
	vs := make([]*values, sets)
	for i := range vs {
		vs[i] = randomValues(rng)
	}
	fx := newFixture(t, []scope{systemScope, tenantA, tenantC}, vs...)
	var rows []row
	for _, cf := range allFamilies {
		rows = append(rows, fx.rows[cf]...)
	}
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })

	m := model{}
	var written []storage.Key
	for len(rows) > 0 {
		n := min(len(rows), 1+rng.IntN(20))
		var b storage.Batch
		for _, r := range rows[:n] {
			b.Put(r.key, r.value)
			written = append(written, r.key)
		}
		rows = rows[n:]
		// Now and then overwrite or delete a row written earlier.
		if k := written[rng.IntN(len(written))]; rng.IntN(4) == 0 {
			b.Delete(k)
		} else if rng.IntN(4) == 0 {
			b.Put(k, fmt.Appendf(nil, "rewritten %d", rng.Uint64()))
		}
		m.apply(&b)
		var err error
		if rng.IntN(2) == 0 {
			err = writers[rng.IntN(len(writers))].write(e, &b)
		} else {
			err = applyOneByOne(e, &b)
		}
		must(t, err)
	}

	want := m.tables()
	checkTables(t, "full families", e, want)
	for _, s := range []scope{tenantA, tenantC} {
		for _, cf := range allFamilies {
			var own []storage.KV
			for _, kv := range want[cf] {
				if s.owns(kv.Key) {
					own = append(own, kv)
				}
			}
			for _, d := range diffRows(cf, own, mustScan(t, e, storage.TenantAll(s.tenant, cf))) {
				t.Errorf("TenantAll(%s, %s): %s", s.name, cf, d)
			}
		}
	}
	for _, k := range written {
		v, err := e.Get(k)
		want, present := m[k]
		switch {
		case !present && !errors.Is(err, storage.ErrNotFound):
			t.Errorf("Get deleted %s = %q, %v; want ErrNotFound", k, v, err)
		case present && (err != nil || !bytes.Equal(v, want)):
			t.Errorf("Get %s = %q, %v; want %q", k, v, err, want)
		}
	}
}

// applyOneByOne applies a batch's mutations with Put and Delete.
func applyOneByOne(e storage.Engine, b *storage.Batch) error {
	for _, mu := range b.All() {
		var err error
		if mu.Kind == storage.MutationPut {
			err = e.Put(mu.Key, mu.Value)
		} else {
			err = e.Delete(mu.Key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// testValues checks value semantics: empty values are values, not absence;
// Put copies its argument; Get and Scan return slices the caller owns,
// which stay valid and distinct after the loop moves on.
func testValues(t *testing.T, h Harness) {
	e := open(t, h)
	nilValue, emptyValue := nodeKey(1), nodeKey(2)
	must(t, e.Put(nilValue, nil))
	must(t, e.Put(emptyValue, []byte{}))
	for _, k := range []storage.Key{nilValue, emptyValue} {
		if v := mustGet(t, e, k); len(v) != 0 {
			t.Errorf("Get %s = %q, want an empty value", k, v)
		}
	}
	checkAbsent(t, e, nodeKey(3))
	must(t, e.Delete(nodeKey(3))) // deleting an absent key is no error

	reused := nodeKey(4)
	buf := []byte("original")
	must(t, e.Put(reused, buf))
	buf[0] = 'X'
	got := mustGet(t, e, reused)
	if string(got) != "original" {
		t.Errorf("after changing the caller's buffer, Get = %q, want %q: Put kept the caller's slice", got, "original")
	}
	got[0] = 'Y'
	if got := mustGet(t, e, reused); string(got) != "original" {
		t.Errorf("after changing a returned value, Get = %q, want %q: Get returned the engine's own slice", got, "original")
	}
	must(t, e.Put(reused, []byte("second")))
	if got := mustGet(t, e, reused); string(got) != "second" {
		t.Errorf("after an overwrite, Get = %q, want %q", got, "second")
	}

	large := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	must(t, e.Put(nodeKey(5), large))
	if got := mustGet(t, e, nodeKey(5)); !bytes.Equal(got, large) {
		t.Errorf("a 1 MiB value came back as %d different bytes", len(got))
	}

	// Rows collected without copying must stay intact and distinct.
	id := uuid.UUID{15: 0x77}
	m := model{}
	for i := range 100 {
		k := storage.NodeVersionKey(tenantA.tenant, id, storage.Timestamp(i), 0)
		m[k] = fmt.Appendf(nil, "value %d", i)
		must(t, e.Put(k, m[k]))
	}
	r := storage.NodeHistory(tenantA.tenant, id)
	rows := mustScan(t, e, r)
	for _, d := range diffRows(storage.NodeVersions, m.rows(storage.NodeVersions), rows) {
		t.Errorf("rows kept across a scan: %s", d)
	}
	for _, kv := range rows {
		kv.Key[len(kv.Key)-1] ^= 0xff
		kv.Value[0] = 'Z'
	}
	for _, d := range diffRows(storage.NodeVersions, m.rows(storage.NodeVersions), mustScan(t, e, r)) {
		t.Errorf("after changing yielded rows: %s: Scan yielded the engine's own slices", d)
	}
}

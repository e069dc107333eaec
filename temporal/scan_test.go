package temporal

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// versionID names one version record.
func versionID(v Version) string {
	return fmt.Sprintf("%s/%s/%d/%d", v.Kind, v.ID, v.Valid.Start, v.TxStart)
}

// drain pages through a scan with page size n and returns the version ids.
func drain(t *testing.T, n int, next func(cursor Cursor, limit int) (Page, error), between func()) []string {
	t.Helper()
	var out []string
	var cursor Cursor
	for pages := 0; ; pages++ {
		p, err := next(cursor, n)
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		if len(p.Versions) > n {
			t.Fatalf("page %d holds %d > %d versions", pages, len(p.Versions), n)
		}
		for _, v := range p.Versions {
			out = append(out, versionID(v))
		}
		if p.Done {
			return out
		}
		cursor = p.Next
		if between != nil {
			between()
		}
	}
}

func seedGraph(t *testing.T, s *Store, scope storage.TenantScope, nodes int) {
	t.Helper()
	for i := range nodes {
		id := storagetest.ID(i)
		assertNode(t, s, scope, id, Interval{storage.Timestamp(i), Forever}, name("a"))
		if i%3 == 0 {
			assertNode(t, s, scope, id, Interval{storage.Timestamp(i + 5), storage.Timestamp(i + 20)}, name("b"))
		}
		if i > 0 {
			assertEdge(t, s, scope, storagetest.ID(10_000+i), storagetest.ID(i-1), id, "NEXT", Interval{storage.Timestamp(i), Forever})
		}
	}
}

func sameList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d versions, want %d", what, len(got), len(want))
	}
	seen := make(map[string]bool, len(got))
	for i := range got {
		if seen[got[i]] {
			t.Fatalf("%s: duplicate %s", what, got[i])
		}
		seen[got[i]] = true
		if got[i] != want[i] {
			t.Fatalf("%s: [%d] = %s, want %s", what, i, got[i], want[i])
		}
	}
}

// TestPaginationNoDuplicateNoGap pages through both global scans while
// other writers land rows before and after the cursor; the paged result
// equals the one-shot result taken before the writes.
func TestPaginationNoDuplicateNoGap(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scopes := storagetest.TenantScopes(t, 2)
		seedGraph(t, s, scopes[0], 60)
		seedGraph(t, s, scopes[1], 10)
		scope := scopes[0]
		txAll := s.Clock().Last()
		at := AsOf{Valid: 40, Tx: txAll}
		validAt := func(c Cursor, n int) (Page, error) { return s.ValidAt(scope, at, c, n) }
		changed := func(c Cursor, n int) (Page, error) { return s.ChangedBetween(scope, 1010, txAll, c, n) }
		wantValid := drain(t, 1_000_000, validAt, nil)
		wantChanged := drain(t, 1_000_000, changed, nil)
		if len(wantValid) != 41+40 { // nodes 0..40 and edges 1..40 start by 40
			t.Fatalf("valid at 40: %d versions, want 81", len(wantValid))
		}
		// Concurrent writers: corrections of already-seen and not-yet-seen
		// nodes, and new nodes, in this tenant and the other one.
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					id := storagetest.ID((i*7 + w) % 80)
					if _, err := s.AssertNode(scopes[w], NodeFact{ID: id, Valid: Interval{storage.Timestamp(i % 50), Forever}, Props: name("late")}); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		// Between pages, also write synchronously, so that writes land
		// between pages on every engine regardless of scheduling.
		k := 0
		between := func() {
			k++
			assertNode(t, s, scope, storagetest.ID(k%70), Interval{storage.Timestamp(k % 45), Forever}, name("between"))
		}
		for _, n := range []int{1, 7, 50} {
			sameList(t, fmt.Sprintf("valid at, pages of %d", n), drain(t, n, validAt, between), wantValid)
			sameList(t, fmt.Sprintf("changed between, pages of %d", n), drain(t, n, changed, between), wantChanged)
		}
		close(stop)
		wg.Wait()
	})
}

func TestChangedBetween(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scope := storagetest.TenantScope(t)
		tx1 := assertNode(t, s, scope, idA, always(), name("a1"))
		tx2 := assertNode(t, s, scope, idB, always(), name("b1"))
		tx3 := assertNode(t, s, scope, idA, Interval{10, 20}, name("a2")) // new version + 2 remainders
		tx4 := assertNode(t, s, scope, idC, always(), name("c1"))
		cases := []struct {
			from, to storage.Timestamp
			want     map[storage.Timestamp]int // versions per tx
		}{
			{tx1, tx4, map[storage.Timestamp]int{tx1: 1, tx2: 1, tx3: 3, tx4: 1}},
			{tx2, tx3, map[storage.Timestamp]int{tx2: 1, tx3: 3}},
			{tx3, tx3, map[storage.Timestamp]int{tx3: 3}},
			{tx4 + 1, Forever, map[storage.Timestamp]int{}},
			{tx3, tx2, map[storage.Timestamp]int{}},
		}
		for _, c := range cases {
			got := map[storage.Timestamp]int{}
			var prev storage.Timestamp = Forever
			for _, n := range []int{1, 100} {
				clear(got)
				prev = Forever
				var cursor Cursor
				for {
					p, err := s.ChangedBetween(scope, c.from, c.to, cursor, n)
					if err != nil {
						t.Fatal(err)
					}
					for _, v := range p.Versions {
						if v.TxStart > prev {
							t.Errorf("[%d, %d]: tx %d after %d: not latest first", c.from, c.to, v.TxStart, prev)
						}
						prev = v.TxStart
						got[v.TxStart]++
					}
					if p.Done {
						break
					}
					cursor = p.Next
				}
				if len(got) != len(c.want) {
					t.Errorf("[%d, %d] pages of %d: %v, want %v", c.from, c.to, n, got, c.want)
				}
				for tx, k := range c.want {
					if got[tx] != k {
						t.Errorf("[%d, %d] pages of %d: tx %d has %d versions, want %d", c.from, c.to, n, tx, got[tx], k)
					}
				}
			}
		}
	})
}

// TestForeignCursors passes the cursor of every tenant-wide scan to every
// other one: another kind of scan, the same kind with other parameters, the
// same scan in another tenant. Each must fail with ErrBadCursor and read
// nothing; only the scan that made a cursor resumes with it.
func TestForeignCursors(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scopes := storagetest.TenantScopes(t, 2)
		for _, scope := range scopes {
			seedGraph(t, s, scope, 10)
		}
		last := s.Clock().Last()
		type scanCall struct {
			name string
			call func(Cursor) (Page, error)
		}
		var scans []scanCall
		for i, scope := range scopes {
			scans = append(scans,
				scanCall{fmt.Sprintf("ValidAt(tenant %d, 5, now)", i), func(c Cursor) (Page, error) { return s.ValidAt(scope, Current(5), c, 1) }},
				scanCall{fmt.Sprintf("ValidAt(tenant %d, 5, %d)", i, last), func(c Cursor) (Page, error) { return s.ValidAt(scope, AsOf{Valid: 5, Tx: last}, c, 1) }},
				scanCall{fmt.Sprintf("ValidAt(tenant %d, 6, now)", i), func(c Cursor) (Page, error) { return s.ValidAt(scope, Current(6), c, 1) }},
				scanCall{fmt.Sprintf("ChangedBetween(tenant %d, 0, %d)", i, last), func(c Cursor) (Page, error) { return s.ChangedBetween(scope, 0, last, c, 1) }},
				scanCall{fmt.Sprintf("ChangedBetween(tenant %d, 1, %d)", i, last), func(c Cursor) (Page, error) { return s.ChangedBetween(scope, 1, last, c, 1) }},
				scanCall{fmt.Sprintf("ChangedBetween(tenant %d, %d, 0)", i, last), func(c Cursor) (Page, error) { return s.ChangedBetween(scope, last, 0, c, 1) }},
			)
		}
		for _, producer := range scans {
			first, err := producer.call(Cursor{})
			if err != nil {
				t.Fatalf("%s: %v", producer.name, err)
			}
			if first.Done {
				if first.Next != (Cursor{}) {
					t.Errorf("%s: a done page with a cursor", producer.name)
				}
				continue
			}
			for _, taker := range scans {
				p, err := taker.call(first.Next)
				switch {
				case taker.name == producer.name && err != nil:
					t.Errorf("%s resumed with its own cursor: %v", taker.name, err)
				case taker.name != producer.name && (!errors.Is(err, ErrBadCursor) || len(p.Versions) != 0 || p.Done):
					t.Errorf("%s resumed with a cursor of %s: %d versions, done %t, %v; want ErrBadCursor",
						taker.name, producer.name, len(p.Versions), p.Done, err)
				}
			}
		}
	})
}

package ledger

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// tenantEntry is an erasure entry of every family of scope, with made-up
// counts.
func tenantEntry(t testing.TB, scope storage.TenantScope) Entry {
	t.Helper()
	en, err := NewEntry(KindTenant, scope, uuid.Nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range storage.TenantRanges(scope) {
		en.Add(r, uint64(i), uint64(100*i))
	}
	return en
}

func TestCommitReadReplay(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		scopes := storagetest.TenantScopes(t, 2)
		a, b := scopes[0], scopes[1]
		e := env.Engine
		for _, s := range scopes {
			if err := e.Put(storage.NodeVersionKey(s, storagetest.ID(1), 0, 0), []byte("row")); err != nil {
				t.Fatal(err)
			}
		}
		en := tenantEntry(t, a)
		var work storage.Batch
		storage.AddTenantDeletion(&work, a)
		if err := Commit(e, &work, &en); err != nil {
			t.Fatal(err)
		}
		if work.Len() != len(storage.Families()) {
			t.Errorf("Commit changed the caller's batch: %d mutations", work.Len())
		}
		if _, err := e.Get(storage.NodeVersionKey(a, storagetest.ID(1), 0, 0)); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("the committed deletion did not delete: %v", err)
		}
		got, err := Get(e, en.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, got, en)
		en.Verified = time.Now().UTC().Truncate(time.Microsecond)
		if err := MarkVerified(e, en); err != nil {
			t.Fatal(err)
		}
		var all []Entry
		for got, err := range Entries(e) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, got)
		}
		if len(all) != 1 {
			t.Fatalf("%d entries, want 1", len(all))
		}
		checkEqual(t, all[0], en)
		if _, err := Get(e, uuid.New()); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get of an unknown id: %v", err)
		}

		// Replay on a store that still holds the rows deletes exactly them
		// and records the entry.
		fresh := storage.NewMemoryEngine()
		for _, s := range scopes {
			if err := fresh.Put(storage.NodeVersionKey(s, storagetest.ID(1), 0, 0), []byte("row")); err != nil {
				t.Fatal(err)
			}
		}
		var file bytes.Buffer
		if n, err := WriteFile(&file, e); err != nil || n != 1 {
			t.Fatalf("WriteFile = %d, %v", n, err)
		}
		read, err := ReadFile(bytes.NewReader(file.Bytes()))
		if err != nil || len(read) != 1 {
			t.Fatalf("ReadFile = %v, %v", read, err)
		}
		checkEqual(t, read[0], en)
		if err := Replay(fresh, read[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := fresh.Get(storage.NodeVersionKey(a, storagetest.ID(1), 0, 0)); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("replay did not delete: %v", err)
		}
		if _, err := fresh.Get(storage.NodeVersionKey(b, storagetest.ID(1), 0, 0)); err != nil {
			t.Errorf("replay deleted another tenant's row: %v", err)
		}
		if _, err := Get(fresh, en.ID); err != nil {
			t.Errorf("replay did not record the entry: %v", err)
		}
	})
}

// TestReplayConfinement replays entity entries whose stored bounds leave
// the tenant they name: another tenant's range, the system prefix, a
// half-nil scope, an upper bound past the scope. Each is ErrBadEntry and
// deletes nothing. (A tenant entry is refused before its bounds are
// rebuilt unless it is exactly the whole tenant: TestTenantEntryCoverage.)
func TestReplayConfinement(t *testing.T) {
	scopes := storagetest.TenantScopes(t, 2)
	a, b := scopes[0], scopes[1]
	rowOf := func(s storage.TenantScope) storage.Key { return storage.NodeVersionKey(s, storagetest.ID(1), 0, 0) }
	ofB := storage.TenantAll(b, storage.NodeVersions)
	lowerB, upperB := ofB.Bounds()
	ofA := storage.TenantAll(a, storage.NodeVersions)
	lowerA, upperA := ofA.Bounds()
	half := bytes.Clone(lowerA)
	clear(half[16:32])
	cases := []struct {
		name         string
		lower, upper []byte
	}{
		{"another tenant's range", lowerB, upperB},
		{"from this tenant into the next", lowerA, append(bytes.Clone(upperA), 0xff)},
		{"the system prefix", make([]byte, storage.ScopeLen), upperA},
		{"a half-nil scope", half, upperA},
		{"no upper bound", lowerA, nil},
		{"a lower bound shorter than a scope", lowerA[:8], upperA},
	}
	for _, c := range cases {
		e := storage.NewMemoryEngine()
		for _, s := range scopes {
			if err := e.Put(rowOf(s), []byte("row")); err != nil {
				t.Fatal(err)
			}
		}
		en, err := NewEntry(KindEntity, a, storagetest.ID(1))
		if err != nil {
			t.Fatal(err)
		}
		en.Deletions = []Deletion{{Family: storage.NodeVersions, Lower: c.lower, Upper: c.upper}}
		if err := Replay(e, en); !errors.Is(err, ErrBadEntry) {
			t.Errorf("replay of %s = %v, want ErrBadEntry", c.name, err)
		}
		var work storage.Batch
		if err := Commit(e, &work, &en); !errors.Is(err, ErrBadEntry) {
			t.Errorf("commit of %s = %v, want ErrBadEntry", c.name, err)
		}
		for _, s := range scopes {
			if _, err := e.Get(rowOf(s)); err != nil {
				t.Errorf("replay of %s deleted a row: %v", c.name, err)
			}
		}
	}
}

// TestTenantEntryCoverage forges tenant entries that name tenant a
// without erasing all of it, with valid checksums: no deletion, a's
// node_versions alone, every family but one, one family's range narrowed
// to one entity, the families out of order, another tenant's bounds.
// Replay, Commit and a ledger file holding one refuse each with
// ErrBadEntry, and nothing is deleted.
func TestTenantEntryCoverage(t *testing.T) {
	scopes := storagetest.TenantScopes(t, 2)
	a, b := scopes[0], scopes[1]
	full := tenantEntry(t, a)
	forge := map[string]func(en *Entry){
		"no deletion":        func(en *Entry) { en.Deletions = nil },
		"node_versions only": func(en *Entry) { en.Deletions = en.Deletions[:1] },
		"all but the last family": func(en *Entry) {
			en.Deletions = en.Deletions[:len(en.Deletions)-1]
		},
		"one family narrowed to one entity": func(en *Entry) {
			r := storage.NodeHistory(a, storagetest.ID(1))
			lower, upper := r.Bounds()
			en.Deletions[0].Lower, en.Deletions[0].Upper = lower, upper
		},
		"families out of order": func(en *Entry) {
			en.Deletions[0], en.Deletions[1] = en.Deletions[1], en.Deletions[0]
		},
		"another tenant's bounds": func(en *Entry) { en.Deletions = tenantEntry(t, b).Deletions },
	}
	for name, f := range forge {
		e := storage.NewMemoryEngine()
		row := storage.NodeVersionKey(a, storagetest.ID(1), 0, 0)
		if err := e.Put(row, []byte("row")); err != nil {
			t.Fatal(err)
		}
		en := full
		en.Deletions = slices.Clone(full.Deletions)
		f(&en)
		if err := Replay(e, en); !errors.Is(err, ErrBadEntry) {
			t.Errorf("%s: Replay = %v, want ErrBadEntry", name, err)
		}
		var work storage.Batch
		if err := Commit(e, &work, &en); !errors.Is(err, ErrBadEntry) {
			t.Errorf("%s: Commit = %v, want ErrBadEntry", name, err)
		}
		if _, err := e.Get(row); err != nil {
			t.Errorf("%s: the tenant's row is gone: %v", name, err)
		}
		v, err := encode(&en)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(bytes.NewReader(fileOf(v))); !errors.Is(err, ErrBadEntry) {
			t.Errorf("%s: a ledger file holding the entry, its checksums right: %v, want ErrBadEntry", name, err)
		}
	}
}

// TestDeployment checks the deployment id: created once, durably, then
// read back the same by every reader; Commit names it in the entries it
// writes, and a checkpoint (a copy of the rows) keeps it.
func TestDeployment(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		if _, ok, err := ReadDeployment(e); ok || err != nil {
			t.Fatalf("a new store has a deployment id: %v, %v", ok, err)
		}
		id, err := Deployment(e)
		if err != nil || id == uuid.Nil {
			t.Fatalf("Deployment = %s, %v", id, err)
		}
		for range 3 {
			if again, err := Deployment(e); err != nil || again != id {
				t.Fatalf("Deployment again = %s, %v; want %s", again, err, id)
			}
		}
		en := tenantEntry(t, storagetest.TenantScope(t))
		var work storage.Batch
		if err := Commit(e, &work, &en); err != nil {
			t.Fatal(err)
		}
		got, err := Get(e, en.ID)
		if err != nil || got.Deployment != id || en.Deployment != id {
			t.Errorf("the committed entry names deployment %s (the caller's %s), %v; want %s", got.Deployment, en.Deployment, err, id)
		}
	})
}

// firstUseRace is an engine on which another process creates the
// deployment id between this process's read and its write.
type firstUseRace struct {
	storage.Engine
	other uuid.UUID
	raced bool
}

func (e *firstUseRace) WriteDurable(b *storage.Batch) error {
	if !e.raced {
		e.raced = true
		var theirs storage.Batch
		key := storage.SystemScope{}.DeploymentSecretKey(deploymentRow, storage.MinTimestamp, storage.MinTimestamp)
		theirs.Put(key, append([]byte{deploymentVersion}, e.other[:]...))
		if err := e.Engine.WriteDurable(&theirs); err != nil {
			return err
		}
	}
	return e.Engine.WriteDurable(b)
}

// TestDeploymentFirstUseRace: of two processes' first uses of a store,
// one id wins, and the process that lost reads the winner's.
func TestDeploymentFirstUseRace(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := &firstUseRace{Engine: env.Engine, other: storagetest.ID(7)}
		if id, err := Deployment(e); err != nil || id != e.other {
			t.Errorf("Deployment after losing the race = %s, %v; want the winner's %s", id, err, e.other)
		}
		n := 0
		for _, err := range env.Engine.Scan(storage.SystemScope{}.DeploymentSecretVersions(deploymentRow)) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 1 {
			t.Errorf("%d versions of the deployment id, want the winner's alone", n)
		}
	})
}

func TestNewEntryRefuses(t *testing.T) {
	s := storagetest.TenantScope(t)
	for _, c := range []struct {
		name   string
		kind   Kind
		scope  storage.TenantScope
		entity uuid.UUID
	}{
		{"no kind", 0, s, uuid.Nil},
		{"an unknown kind", KindRedaction + 1, s, storagetest.ID(1)},
		{"the zero scope", KindTenant, storage.TenantScope{}, uuid.Nil},
		{"a tenant erasure with an entity", KindTenant, s, storagetest.ID(1)},
		{"an entity erasure without one", KindEntity, s, uuid.Nil},
		{"a redaction without a blob", KindRedaction, s, uuid.Nil},
	} {
		if _, err := NewEntry(c.kind, c.scope, c.entity); err == nil {
			t.Errorf("NewEntry of %s succeeded", c.name)
		}
	}
}

// TestReadFileRefusesDamage cuts, flips and extends a ledger file: every
// change is ErrBadEntry.
func TestReadFileRefusesDamage(t *testing.T) {
	e := storage.NewMemoryEngine()
	for range 3 {
		var work storage.Batch
		if err := Commit(e, &work, new(tenantEntry(t, storagetest.TenantScope(t)))); err != nil {
			t.Fatal(err)
		}
	}
	var file bytes.Buffer
	if _, err := WriteFile(&file, e); err != nil {
		t.Fatal(err)
	}
	good := file.Bytes()
	if got, err := ReadFile(bytes.NewReader(good)); err != nil || len(got) != 3 {
		t.Fatalf("ReadFile = %d entries, %v", len(got), err)
	}
	for cut := 0; cut < len(good); cut += 37 {
		if _, err := ReadFile(bytes.NewReader(good[:cut])); !errors.Is(err, ErrBadEntry) {
			t.Errorf("a file cut at %d of %d: %v, want ErrBadEntry", cut, len(good), err)
		}
	}
	for at := 0; at < len(good); at += 11 {
		bad := bytes.Clone(good)
		bad[at] ^= 0x40
		if _, err := ReadFile(bytes.NewReader(bad)); !errors.Is(err, ErrBadEntry) {
			t.Errorf("a file with byte %d flipped: %v, want ErrBadEntry", at, err)
		}
	}
	if _, err := ReadFile(bytes.NewReader(append(bytes.Clone(good), 0))); !errors.Is(err, ErrBadEntry) {
		t.Errorf("a file with a byte after its trailer: %v, want ErrBadEntry", err)
	}
}

func checkEqual(t *testing.T, got, want Entry) {
	t.Helper()
	a, err := encode(&got)
	if err != nil {
		t.Fatal(err)
	}
	b, err := encode(&want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("entry %+v, want %+v", got, want)
	}
}

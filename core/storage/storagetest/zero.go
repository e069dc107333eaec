package storagetest

import (
	"errors"
	"fmt"
	"go/token"
	"path/filepath"
	"reflect"
	"testing"

	"telha.dev/core/storage"
)

// testNilAndZero calls every method of engines and snapshots that were
// never opened: a nil pointer of the engine's type and of its snapshot's,
// and the zero value of each where the type is exported, so that a caller
// can make one (var e rocksdb.Engine). None may panic. A nil pointer
// refuses every call with ErrNotOpen. A zero engine either does the same
// or is a working, empty engine (the zero MemoryEngine is). A zero
// snapshot has no engine to read: it refuses every call with ErrNotOpen.
func testNilAndZero(t *testing.T, h Harness) {
	e := open(t, h)
	engineType := reflect.TypeOf(e)
	snap, err := e.Snapshot()
	must(t, err)
	snapType := reflect.TypeOf(snap)
	must(t, snap.Close())

	if engineType.Kind() == reflect.Pointer {
		checkNotOpenEngine(t, "nil "+engineType.String(), reflect.Zero(engineType).Interface().(storage.Engine))
		if zero, ok := zeroOf(engineType).(storage.Engine); ok {
			checkZeroEngine(t, "zero "+engineType.Elem().String(), zero)
		}
	}
	if snapType.Kind() == reflect.Pointer {
		checkNotOpenSnapshot(t, "nil "+snapType.String(), reflect.Zero(snapType).Interface().(storage.Snapshot))
		if zero, ok := zeroOf(snapType).(storage.Snapshot); ok {
			checkNotOpenSnapshot(t, "zero "+snapType.Elem().String(), zero)
		}
	}
}

// zeroOf returns a pointer to a new zero value of the struct *T, or nil if
// callers outside T's package cannot write one.
func zeroOf(ptr reflect.Type) any {
	elem := ptr.Elem()
	if elem.Kind() != reflect.Struct || !token.IsExported(elem.Name()) {
		return nil
	}
	return reflect.New(elem).Interface()
}

// engineCall is one method call on an engine, returning its error.
type engineCall struct {
	name string
	call func(e storage.Engine, dir string) error
}

// engineCalls calls every Engine method once, Close last.
var engineCalls = []engineCall{
	{"Get", func(e storage.Engine, _ string) error { _, err := e.Get(nodeKey(1)); return err }},
	{"Scan", func(e storage.Engine, _ string) error {
		_, err := scanAll(e, storage.TenantAll(tenantA.tenant, storage.NodeVersions))
		return err
	}},
	{"Put", func(e storage.Engine, _ string) error { return e.Put(nodeKey(1), []byte("x")) }},
	{"Delete", func(e storage.Engine, _ string) error { return e.Delete(nodeKey(2)) }},
	{"Write", func(e storage.Engine, _ string) error {
		var b storage.Batch
		b.Put(nodeKey(3), nil)
		return e.Write(&b)
	}},
	{"WriteDurable", func(e storage.Engine, _ string) error {
		var b storage.Batch
		b.Put(nodeKey(4), nil)
		return e.WriteDurable(&b)
	}},
	{"DeleteRange", func(e storage.Engine, _ string) error {
		return e.DeleteRange(storage.TenantAll(tenantB.tenant, storage.NodeVersions))
	}},
	{"Snapshot", func(e storage.Engine, _ string) error {
		s, err := e.Snapshot()
		if err == nil {
			err = s.Close()
		}
		return err
	}},
	{"Checkpoint", func(e storage.Engine, dir string) error { return e.Checkpoint(filepath.Join(dir, "checkpoint")) }},
	{"Close", func(e storage.Engine, _ string) error { return e.Close() }},
}

// safeCall runs f, turning a panic into an error that matches no sentinel.
func safeCall(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f()
}

// checkNotOpenEngine demands ErrNotOpen from every method, twice over, and
// that Checkpoint creates nothing.
func checkNotOpenEngine(t *testing.T, what string, e storage.Engine) {
	for range 2 {
		for _, c := range engineCalls {
			dir := t.TempDir()
			if err := safeCall(func() error { return c.call(e, dir) }); !errors.Is(err, storage.ErrNotOpen) {
				t.Errorf("%s: %s = %v, want ErrNotOpen", what, c.name, err)
			}
			if matches, _ := filepath.Glob(filepath.Join(dir, "*")); len(matches) != 0 {
				t.Errorf("%s: %s created %v", what, c.name, matches)
			}
		}
	}
}

// checkZeroEngine accepts a zero engine that refuses everything with
// ErrNotOpen, or one that works like a fresh engine until it is closed.
func checkZeroEngine(t *testing.T, what string, e storage.Engine) {
	if err := safeCall(func() error { _, err := e.Get(nodeKey(1)); return err }); errors.Is(err, storage.ErrNotOpen) {
		checkNotOpenEngine(t, what, e)
		return
	} else if !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("%s: Get = %v, want ErrNotOpen, or ErrNotFound from a working empty engine", what, err)
	}
	dir := t.TempDir()
	for _, c := range engineCalls {
		if err := safeCall(func() error { return c.call(e, dir) }); err != nil && !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("%s works as an empty engine, but %s = %v", what, c.name, err)
		}
	}
	for _, c := range engineCalls {
		if err := safeCall(func() error { return c.call(e, t.TempDir()) }); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("%s after Close: %s = %v, want ErrClosed", what, c.name, err)
		}
	}
}

// checkNotOpenSnapshot demands ErrNotOpen from every Snapshot method.
func checkNotOpenSnapshot(t *testing.T, what string, s storage.Snapshot) {
	for range 2 {
		for name, call := range map[string]func() error{
			"Get": func() error { _, err := s.Get(nodeKey(1)); return err },
			"Scan": func() error {
				_, err := scanAll(s, storage.TenantAll(tenantA.tenant, storage.NodeVersions))
				return err
			},
			"Close": s.Close,
		} {
			if err := safeCall(call); !errors.Is(err, storage.ErrNotOpen) {
				t.Errorf("%s: %s = %v, want ErrNotOpen", what, name, err)
			}
		}
	}
}

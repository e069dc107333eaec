package etcd_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/cluster"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
)

// checkpointOf writes rows in several families of a new engine and
// checkpoints it; it returns the checkpoint and what it holds.
func checkpointOf(t *testing.T) (dir string, want map[storage.ColumnFamily][]storage.KV) {
	t.Helper()
	e := etcdtest.Engine(t)
	s := storagetest.TenantScope(t)
	putNodes(t, e, s, 7)
	for _, k := range []storage.Key{
		storage.TraceKey(s, uuid.Max),
		storage.SystemScope{}.JobKey(storage.JobQueued, 1, 2, uuid.Max),
	} {
		if err := e.Put(k, []byte("row")); err != nil {
			t.Fatal(err)
		}
	}
	dir = filepath.Join(t.TempDir(), "checkpoint")
	if err := e.Checkpoint(dir); err != nil {
		t.Fatal(err)
	}
	return dir, allRows(t, e)
}

// allRows reads every family of r.
func allRows(t testing.TB, r storage.Reader) map[storage.ColumnFamily][]storage.KV {
	t.Helper()
	out := map[storage.ColumnFamily][]storage.KV{}
	for _, cf := range storage.Families() {
		if rows := mustRows(t, r, storage.SystemScope{}.FullFamily(cf)); len(rows) > 0 {
			out[cf] = rows
		}
	}
	return out
}

// checkHolds fails unless r holds exactly want.
func checkHolds(t testing.TB, what string, r storage.Reader, want map[storage.ColumnFamily][]storage.KV) {
	t.Helper()
	got := allRows(t, r)
	for _, cf := range storage.Families() {
		if !sameRows(got[cf], want[cf]) {
			t.Errorf("%s: %s holds %d rows, want %d", what, cf, len(got[cf]), len(want[cf]))
		}
	}
}

// copyDir copies a checkpoint directory, so that a test can damage it.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// checkRefused restores dir into the empty namespace of cfg and fails
// unless the restore fails with want and leaves the namespace empty and
// openable (no restore marker).
func checkRefused(t testing.TB, cfg etcd.Config, dir string, want error) {
	t.Helper()
	if e, err := etcd.Restore(cfg, dir); !errors.Is(err, want) {
		if err == nil {
			e.Close()
		}
		t.Errorf("Restore = %v, want %v", err, want)
	}
	e, err := etcd.Open(cfg)
	if err != nil {
		t.Fatalf("after the refused restore the namespace does not open: %v", err)
	}
	defer e.Close()
	if rows := allRows(t, e); len(rows) != 0 {
		t.Errorf("after the refused restore the namespace holds rows of %d families", len(rows))
	}
}

// TestRestoreRefusesDamage damages a checkpoint in every way a file can be
// damaged: each restore fails with ErrBadCheckpoint and writes nothing.
func TestRestoreRefusesDamage(t *testing.T) {
	good, _ := checkpointOf(t)
	db := func(dir string) string { return filepath.Join(dir, "etcd.db") }
	manifest := func(dir string) string { return filepath.Join(dir, "CHECKPOINT") }
	edit := func(path string, f func([]byte) []byte) func(string) error {
		return func(dir string) error {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(path, f(data), 0o600)
		}
	}
	damages := map[string]func(dir string) error{
		"database removed":   func(dir string) error { return os.Remove(db(dir)) },
		"manifest removed":   func(dir string) error { return os.Remove(manifest(dir)) },
		"database truncated": func(dir string) error { return os.Truncate(db(dir), 4096) },
		"checksum cut short": func(dir string) error { fi, _ := os.Stat(db(dir)); return os.Truncate(db(dir), fi.Size()-1) },
		"database emptied":   func(dir string) error { return os.Truncate(db(dir), 0) },
		"a bit flipped": func(dir string) error {
			return edit(db(dir), func(b []byte) []byte { b[len(b)/2] ^= 1; return b })(dir)
		},
		"checksum flipped": func(dir string) error {
			return edit(db(dir), func(b []byte) []byte { b[len(b)-1] ^= 1; return b })(dir)
		},
		"bytes appended":       func(dir string) error { return edit(db(dir), func(b []byte) []byte { return append(b, 0) })(dir) },
		"manifest not JSON":    func(dir string) error { return os.WriteFile(manifest(dir), []byte("{"), 0o600) },
		"manifest of format 2": func(dir string) error { return os.WriteFile(manifest(dir), []byte(`{"format":2}`), 0o600) },
		"manifest bad namespace": func(dir string) error {
			return os.WriteFile(manifest(dir), []byte(`{"format":1,"namespace":"a b"}`), 0o600)
		},
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			dir := copyDir(t, good)
			if err := damage(dir); err != nil {
				t.Fatal(err)
			}
			checkRefused(t, etcdtest.Config(t), dir, etcd.ErrBadCheckpoint)
		})
	}
}

// TestRestoreRefusesForeignRows checkpoints a namespace holding a row that
// is not a Telha key, written behind the engine's back: the restore fails
// with ErrBadCheckpoint before it writes any row.
func TestRestoreRefusesForeignRows(t *testing.T) {
	for name, key := range map[string]string{
		"short key":           "\x01short",
		"unknown node layout": "\x01" + string(make([]byte, 40)),
		"bad job state":       "\x0c" + string(make([]byte, 32)) + "\xee" + string(make([]byte, 25)),
	} {
		t.Run(name, func(t *testing.T) {
			cfg := etcdtest.Config(t)
			e := openConfig(t, cfg)
			putNodes(t, e, storagetest.TenantScope(t), 3)
			ctx := context.Background()
			if _, err := rawClient(t, cfg).Put(ctx, cfg.Namespace+key, "foreign"); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "checkpoint")
			if err := e.Checkpoint(dir); err != nil {
				t.Fatal(err)
			}
			checkRefused(t, etcdtest.Config(t), dir, etcd.ErrBadCheckpoint)
		})
	}
}

// TestRestoreValueTooLarge restores into a cluster whose request limit is
// below a value of the checkpoint: ErrValueTooLarge, nothing written.
func TestRestoreValueTooLarge(t *testing.T) {
	e := etcdtest.Engine(t)
	s := storagetest.TenantScope(t)
	if err := e.Put(nodeKey(s, uuid.Nil, 0), make([]byte, 64*1024)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "checkpoint")
	if err := e.Checkpoint(dir); err != nil {
		t.Fatal(err)
	}
	small := etcdtest.Config(t)
	small.MaxRequestBytes = 32 * 1024
	checkRefused(t, small, dir, storage.ErrValueTooLarge)
}

// TestRestoreTarget restores into a namespace that holds rows (refused,
// the rows intact) and into one that holds an interrupted restore (which
// Open refuses and Restore clears and redoes).
func TestRestoreTarget(t *testing.T) {
	dir, want := checkpointOf(t)

	busy := etcdtest.Config(t)
	owner := openConfig(t, busy)
	own := putNodes(t, owner, storagetest.TenantScope(t), 2)
	r, err := etcd.Restore(busy, dir)
	if err == nil {
		r.Close()
	}
	wantErr(t, "Restore into a namespace with rows", err, etcd.ErrNotEmpty)
	if rows := mustRows(t, owner, own); len(rows) != 2 {
		t.Errorf("the refused restore left %d of the namespace's 2 rows", len(rows))
	}

	interrupted := etcdtest.Config(t)
	ctx := context.Background()
	raw := rawClient(t, interrupted)
	if _, err := raw.Put(ctx, interrupted.Namespace+"\x00restore-in-progress", ""); err != nil {
		t.Fatal(err)
	}
	stray := storage.TraceKey(storagetest.TenantScope(t), uuid.Max)
	if _, err := raw.Put(ctx, interrupted.Namespace+"\x0b"+string(stray.Bytes()), "half restored"); err != nil {
		t.Fatal(err)
	}
	_, err = etcd.Open(interrupted)
	wantErr(t, "Open of an interrupted restore", err, etcd.ErrRestoreIncomplete)
	e, err := etcd.Restore(interrupted, dir)
	if err != nil {
		t.Fatalf("Restore over an interrupted restore: %v", err)
	}
	defer e.Close()
	checkHolds(t, "the restore over an interrupted one", e, want)
	reopened := openConfig(t, interrupted)
	checkHolds(t, "the restored namespace, reopened", reopened, want)
}

// TestRestoreIntoNewCluster is the disaster recovery: a checkpoint of the
// shared cluster, restored into the empty namespace of a new cluster that
// has never seen it, survives that cluster's restart.
func TestRestoreIntoNewCluster(t *testing.T) {
	dir, want := checkpointOf(t)
	cfg := cluster.Config{Dir: t.TempDir(), Members: 1}
	c, err := cluster.Start(cfg, cluster.InProcess())
	if err != nil {
		t.Fatal(err)
	}
	e, err := etcd.Restore(etcdtest.EngineConfig(c, ""), dir)
	if err != nil {
		c.Stop()
		t.Fatal(err)
	}
	checkHolds(t, "the new cluster", e, want)
	e.Close()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if c, err = cluster.Start(cfg, cluster.InProcess()); err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	e = openConfig(t, etcdtest.EngineConfig(c, ""))
	checkHolds(t, "the new cluster after a restart", e, want)
}

// TestCheckpointSkipsDeadMember lists an endpoint where nothing listens
// first: the engine works, and its checkpoint comes from the next member.
func TestCheckpointSkipsDeadMember(t *testing.T) {
	cfg := etcdtest.Config(t)
	cfg.Endpoints = append([]string{deadEndpoint(t)}, cfg.Endpoints...)
	cfg.Timeout = 2 * time.Second
	e := openConfig(t, cfg)
	putNodes(t, e, storagetest.TenantScope(t), 3)
	want := allRows(t, e)
	dir := filepath.Join(t.TempDir(), "checkpoint")
	if err := e.Checkpoint(dir); err != nil {
		t.Fatal(err)
	}
	r, err := etcd.Restore(etcdtest.Config(t), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checkHolds(t, "the checkpoint", r, want)
}

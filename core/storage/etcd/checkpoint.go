package etcd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"telha.dev/core/durable"
	"telha.dev/core/storage"
)

// A checkpoint is a directory of two files:
//
//	etcd.db     the cluster's database as one member streamed it (etcd's
//	            maintenance snapshot, what `etcdctl snapshot save` writes):
//	            a bbolt file followed by the SHA-256 of its bytes
//	CHECKPOINT  a JSON manifest: the format version, the engine's
//	            namespace, and a cluster revision the database is at least
//	            at
//
// The database holds the whole cluster, every namespace in it; Restore
// loads the manifest's namespace only. See Restore, and docs/distributed.md
// for restoring a whole cluster with etcd's own tools.
const (
	snapshotFile     = "etcd.db"
	manifestFile     = "CHECKPOINT"
	checkpointFormat = 1
)

// ErrBadCheckpoint reports a directory that is not a whole checkpoint of
// this engine: a file missing, a manifest of another format, or damage (a
// database whose checksum does not match, truncated or changed, or a row
// that is not a Telha key), which also wraps storage.ErrCorrupt.
var ErrBadCheckpoint = errors.New("not a valid etcd engine checkpoint")

// manifest is the CHECKPOINT file.
type manifest struct {
	Format    int    `json:"format"`
	Namespace string `json:"namespace"`
	// Revision is the cluster revision of a linearizable read made just
	// before the snapshot, through the member that sent it: the database
	// holds every write acknowledged up to it, and perhaps a few more.
	Revision    int64  `json:"revision"`
	EtcdVersion string `json:"etcdVersion"`
	Created     string `json:"created"`
}

// Checkpoint writes a consistent copy of the cluster to dir, which must not
// exist: etcd's maintenance snapshot of one member, taken after a
// linearizable read through that member, so that it holds every write
// acknowledged before the call. A member that fails is skipped for the
// next endpoint. The transfer may take long for a large cluster; it fails
// only when no data arrives for Config.Timeout. The copy opens with
// Restore.
func (e *Engine) Checkpoint(dir string) (err error) {
	if err := e.ready(); err != nil {
		return fmt.Errorf("etcd engine: checkpoint %s: %w", dir, err)
	}
	if err := e.enter(); err != nil {
		return fmt.Errorf("etcd engine: checkpoint %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("etcd engine: checkpoint: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
			err = fmt.Errorf("etcd engine: checkpoint %s: %w", dir, err)
		}
	}()
	var errs []error
	for _, endpoint := range e.cfg.Endpoints {
		m, err := e.snapshotFrom(endpoint, filepath.Join(dir, snapshotFile))
		if err == nil {
			return writeManifest(dir, m)
		}
		if e.closed.Load() {
			return storage.ErrClosed
		}
		errs = append(errs, fmt.Errorf("from %s: %w", endpoint, err))
	}
	return errors.Join(errs...)
}

// snapshotFrom streams the database of the member at endpoint to path.
func (e *Engine) snapshotFrom(endpoint, path string) (manifest, error) {
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{endpoint},
		DialTimeout: e.cfg.Timeout,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return manifest{}, err
	}
	defer client.Close()
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()

	// A linearizable read through this member returns once the member has
	// applied every write acknowledged before it; the snapshot comes after.
	readCtx, readCancel := context.WithTimeout(ctx, e.cfg.Timeout)
	resp, err := client.Get(readCtx, e.keys.meta(restoreMarker), clientv3.WithCountOnly())
	readCancel()
	if err != nil {
		return manifest{}, e.classify("linearizable read", err)
	}
	m := manifest{
		Format:    checkpointFormat,
		Namespace: e.cfg.Namespace,
		Revision:  resp.Header.Revision,
		Created:   time.Now().UTC().Format(time.RFC3339Nano),
	}

	// The transfer must make progress: each read re-arms the watchdog.
	watchdog := time.AfterFunc(e.cfg.Timeout, cancel)
	defer watchdog.Stop()
	snap, err := client.SnapshotWithVersion(ctx)
	if err != nil {
		return m, e.classify("maintenance snapshot", err)
	}
	defer snap.Snapshot.Close()
	m.EtcdVersion = snap.Version
	if err := writeSnapshot(path, progress{snap.Snapshot, func() { watchdog.Reset(e.cfg.Timeout) }}); err != nil {
		return m, e.classify("maintenance snapshot", err)
	}
	return m, nil
}

// progress is a reader that calls tick after each read.
type progress struct {
	r    io.Reader
	tick func()
}

func (p progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.tick()
	return n, err
}

// writeSnapshot copies a snapshot stream to path through a temporary file,
// checks its checksum and syncs it, so that path is absent or whole.
func writeSnapshot(path string, r io.Reader) error {
	part := path + ".part"
	f, err := os.OpenFile(part, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(part)
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	if _, err := verifySnapshot(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(part, path)
}

// verifySnapshot reads a snapshot and checks that it ends with the SHA-256
// of what precedes it, as etcd sends it. It returns the length of the
// database before the checksum.
func verifySnapshot(r io.Reader) (int64, error) {
	h := sha256.New()
	// Hash everything but the last sha256.Size bytes, kept in tail.
	var tail []byte
	buf := make([]byte, 64*1024)
	var n int64
	for {
		k, err := r.Read(buf)
		tail = append(tail, buf[:k]...)
		if over := len(tail) - sha256.Size; over > 0 {
			h.Write(tail[:over])
			n += int64(over)
			tail = append(tail[:0], tail[over:]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	// A bbolt database is a whole number of pages, so its length is a
	// multiple of 512, which etcd's own check relies on too.
	if len(tail) != sha256.Size || n%512 != 0 || !bytes.Equal(h.Sum(nil), tail) {
		return 0, fmt.Errorf("%w: %w: %s: the database's SHA-256 checksum does not match (truncated or damaged)", ErrBadCheckpoint, storage.ErrCorrupt, snapshotFile)
	}
	return n, nil
}

// writeManifest writes the CHECKPOINT file of dir, durably, and syncs
// dir's parent, so that a checkpoint that returned survives a crash: the
// database file was synced and renamed into dir before.
func writeManifest(dir string, m manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := durable.WriteFile(filepath.Join(dir, manifestFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return durable.Sync(filepath.Dir(dir))
}

// readManifest reads and checks the CHECKPOINT file of dir.
func readManifest(dir string) (manifest, error) {
	var m manifest
	data, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return m, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%w: %s: %w", ErrBadCheckpoint, manifestFile, err)
	}
	if m.Format != checkpointFormat {
		return m, fmt.Errorf("%w: %s: format %d, want %d", ErrBadCheckpoint, manifestFile, m.Format, checkpointFormat)
	}
	if err := validNamespace(m.Namespace); err != nil {
		return m, fmt.Errorf("%w: %s: %w", ErrBadCheckpoint, manifestFile, err)
	}
	return m, nil
}

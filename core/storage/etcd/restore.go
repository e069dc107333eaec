package etcd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/pkg/v3/traceutil"
	"go.etcd.io/etcd/server/v3/lease"
	"go.etcd.io/etcd/server/v3/storage/backend"
	"go.etcd.io/etcd/server/v3/storage/mvcc"
	"go.uber.org/zap"

	"telha.dev/core/storage"
)

// Restore loads the checkpoint in dir into the namespace cfg.Namespace of
// the cluster at cfg.Endpoints, and returns an engine on it. The checkpoint
// may come from another namespace or another cluster; only the rows of the
// namespace it was taken from are loaded, at their latest revision in the
// checkpoint, each checked to be a Telha key.
//
// The target namespace must be empty. Restore marks it as being restored
// before the first row and clears the mark after the last, so that a
// restore that is interrupted (a crash, ErrUnavailable) leaves a namespace
// that Open refuses with ErrRestoreIncomplete; run Restore again, which
// clears such a namespace and starts over.
//
// Every row is checked before any is written: a damaged checkpoint, or one
// holding a row that is not a Telha key, fails with ErrBadCheckpoint (and
// storage.ErrCorrupt for damage), and one holding a value too large for the
// target cluster's limits with storage.ErrValueTooLarge, leaving the
// namespace as it was.
func Restore(cfg Config, dir string) (*Engine, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("etcd engine: restore %s: %w", dir, err)
	}
	db, err := extractDatabase(filepath.Join(dir, snapshotFile))
	if err != nil {
		return nil, fmt.Errorf("etcd engine: restore %s: %w", dir, err)
	}
	defer os.Remove(db)
	e, err := open(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcd engine: restore %s: %w", dir, err)
	}
	if err := e.restore(db, keyspace{ns: []byte(m.Namespace)}); err != nil {
		_ = e.Close()
		return nil, fmt.Errorf("etcd engine: restore %s into namespace %q: %w", dir, cfg.Namespace, err)
	}
	return e, nil
}

// extractDatabase checks the checksum of a snapshot file and copies the
// database before it to a temporary file, which the caller removes: etcd's
// storage opens a database for writing.
func extractDatabase(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	}
	defer f.Close()
	n, err := verifySnapshot(f)
	if err != nil {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp("", "telha-restore-*.db")
	if err != nil {
		return "", err
	}
	if _, err := io.CopyN(tmp, f, n); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// restore loads the rows of namespace src in the database at db into the
// engine's namespace. It checks every row before it writes any.
func (e *Engine) restore(db string, src keyspace) error {
	rows, closeDB := openRows(db, src)
	defer closeDB()
	if err := rows(e.checkRow); err != nil {
		return err
	}
	if err := e.prepareRestore(); err != nil {
		return err
	}
	w := restoreWriter{e: e}
	if err := rows(w.add); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	return e.writeMeta(clientv3.OpDelete(e.keys.meta(restoreMarker)))
}

// checkRow refuses a row that is not a Telha key of its family, or too
// large for the engine's cluster.
func (e *Engine) checkRow(cf storage.ColumnFamily, key, value []byte) error {
	if _, err := storage.Decode(cf, key); err != nil {
		return fmt.Errorf("%w: %w: %s row %x: %w", ErrBadCheckpoint, storage.ErrCorrupt, cf, key, err)
	}
	if requestLen(opLen(len(e.keys.ns)+1+len(key), len(value), false)) > e.cfg.MaxRequestBytes {
		return fmt.Errorf("%s row %x: %d-byte value: %w", cf, key, len(value), storage.ErrValueTooLarge)
	}
	return nil
}

// prepareRestore checks that the namespace is empty, or holds an
// interrupted restore, which it clears; then it marks the namespace.
func (e *Engine) prepareRestore() error {
	start, end := e.keys.all()
	ctx, cancel := e.callContext()
	defer cancel()
	resp, err := e.client.Get(ctx, start, clientv3.WithRange(end), clientv3.WithCountOnly())
	if err != nil {
		return e.classify("count the namespace's keys", err)
	}
	if resp.Count > 0 {
		restoring, _, err := e.readMarker()
		if err != nil {
			return err
		}
		if !restoring {
			return fmt.Errorf("%w: %d keys", ErrNotEmpty, resp.Count)
		}
		if err := e.writeMeta(clientv3.OpDelete(start, clientv3.WithRange(end))); err != nil {
			return err
		}
	}
	return e.writeMeta(clientv3.OpPut(e.keys.meta(restoreMarker), ""))
}

// writeMeta applies one operation on the engine's metadata.
func (e *Engine) writeMeta(op clientv3.Op) error {
	ctx, cancel := e.callContext()
	defer cancel()
	if _, err := e.client.Txn(ctx).Then(op).Commit(); err != nil {
		return e.classify("write the restore marker", err)
	}
	return nil
}

// restoreWriter writes rows in transactions of at most restoreTxnOps
// operations and restoreTxnBytes bytes, or the cluster's limits if lower.
// A restore need not be one transaction (the marker guards it), and etcd
// applies requests one at a time: a transaction of thousands of rows holds
// up every other client, and on a slow disk outlasts the server's own
// request timeout.
type restoreWriter struct {
	e     *Engine
	ops   []clientv3.Op
	bytes int // the encoded length of ops
}

// The largest restore transaction, below the cluster's limits.
const (
	restoreTxnOps   = 256
	restoreTxnBytes = 256 * 1024
)

// add writes a row checked by checkRow, flushing the rows before it when
// it would not fit their transaction.
func (w *restoreWriter) add(cf storage.ColumnFamily, key, value []byte) error {
	etcdKey := string(w.e.keys.ns) + string(byte(cf)) + string(key)
	n := opLen(len(etcdKey), len(value), false)
	maxOps := min(w.e.cfg.MaxTxnOps, restoreTxnOps)
	maxBytes := min(w.e.cfg.MaxRequestBytes, max(restoreTxnBytes, requestLen(n)))
	if len(w.ops) == maxOps || requestLen(w.bytes+n) > maxBytes {
		if err := w.flush(); err != nil {
			return err
		}
	}
	w.ops = append(w.ops, clientv3.OpPut(etcdKey, string(value)))
	w.bytes += n
	return nil
}

func (w *restoreWriter) flush() error {
	if len(w.ops) == 0 {
		return nil
	}
	ctx, cancel := w.e.callContext()
	defer cancel()
	if _, err := w.e.client.Txn(ctx).Then(w.ops...).Commit(); err != nil {
		return w.e.classify(fmt.Sprintf("write %d restored rows", len(w.ops)), err)
	}
	w.ops, w.bytes = w.ops[:0], 0
	return nil
}

// restorePage is how many rows a read of the database returns at a time.
const restorePage = 4096

// openRows opens the database at db with etcd's own storage code, which
// resolves revisions and deletions as a member does when it starts. Each
// call of rows visits every row of every family of namespace src, at the
// database's latest revision, in key order. closeDB releases the database.
func openRows(db string, src keyspace) (rows func(visit func(storage.ColumnFamily, []byte, []byte) error) error, closeDB func()) {
	lg := zap.NewNop()
	be := backend.NewDefaultBackend(lg, db)
	kv := mvcc.NewStore(lg, be, &lease.FakeLessor{}, mvcc.StoreConfig{})
	closeDB = func() {
		kv.Close()
		be.Close()
	}
	rows = func(visit func(storage.ColumnFamily, []byte, []byte) error) error {
		// Families are bytes 1 to 13 after the namespace: [ns‖1, ns‖14).
		start := append(bytes.Clone(src.ns), byte(storage.NodeVersions))
		end := append(bytes.Clone(src.ns), byte(storage.LastFamily)+1)
		for {
			txn := kv.Read(mvcc.ConcurrentReadTxMode, traceutil.TODO())
			res, err := txn.Range(context.Background(), start, end, mvcc.RangeOptions{Limit: restorePage})
			txn.End()
			if err != nil {
				return fmt.Errorf("read the checkpoint's database: %w", err)
			}
			for _, row := range res.KVs {
				cf := storage.ColumnFamily(row.Key[len(src.ns)])
				if err := visit(cf, row.Key[len(src.ns)+1:], row.Value); err != nil {
					return err
				}
			}
			if len(res.KVs) < restorePage {
				return nil
			}
			start = append(bytes.Clone(res.KVs[len(res.KVs)-1].Key), 0)
		}
	}
	return rows, closeDB
}

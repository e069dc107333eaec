package rocksdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// crashRounds is how many times TestCrashDurability kills a writer.
const crashRounds = 20

// crashScope is the tenant every crash batch writes to; it must be the same
// in the parent and its children.
var crashScope, _ = storage.NewTenantScope(
	uuid.MustParse("0190a000-0000-7000-8000-00000000c0de"),
	uuid.MustParse("0190a000-0000-7000-8000-00000000beef"),
)

// crashBatch is the batch of id: four rows in four families, as a tombstone
// cascade or an edge write would touch them, each value naming id.
func crashBatch(id uint64) (keys []storage.Key, values [][]byte) {
	var entity, neighbour uuid.UUID
	binary.BigEndian.PutUint64(entity[8:], id)
	entity[0] = 1
	binary.BigEndian.PutUint64(neighbour[8:], id)
	neighbour[0] = 2
	t := storage.Timestamp(id)
	keys = []storage.Key{
		storage.NodeVersionKey(crashScope, entity, t, t),
		storage.AdjacencyOutKey(crashScope, entity, 7, t, t, neighbour),
		storage.AdjacencyInKey(crashScope, neighbour, 7, t, t, entity),
		storage.TxTimeIndexKey(crashScope, t, t, entity, storage.IndexNode),
	}
	for i, k := range keys {
		values = append(values, fmt.Appendf(nil, "%d %d %s %s", id, i, k.Family(), bytes.Repeat([]byte{'v'}, 64)))
	}
	return keys, values
}

// crashChild writes durable batches from id extra on, printing "ack <id>"
// once each WriteDurable returns, until it is killed.
func crashChild(t *testing.T, path, extra string) {
	first, err := strconv.ParseUint(extra, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	// SyncWrites is off: only WriteDurable's own sync makes the acks true.
	e, err := Open(Config{Path: path, MemtableSize: testMemtableSize})
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("ready\n")
	var b storage.Batch
	for id := first; ; id++ {
		b.Reset()
		keys, values := crashBatch(id)
		for i, k := range keys {
			b.Put(k, values[i])
		}
		if err := e.WriteDurable(&b); err != nil {
			t.Fatal(err)
		}
		// One write(2) of a short line: the parent sees it whole or not at all.
		os.Stdout.WriteString("ack " + strconv.FormatUint(id, 10) + "\n")
	}
}

// TestCrashDurability kills a child that writes durable batches at a random
// moment, reopens the store and checks that every acknowledged batch is
// there whole, and that no batch is there in part.
func TestCrashDurability(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	cfg := createStore(t)
	// landed holds the batches that must be in the store: the acknowledged
	// ones, and any in-flight one that a reopen has found.
	landed := make(map[uint64]bool)
	for round := range crashRounds {
		first := uint64(round+1) * 1_000_000
		c := startChild(t, "crash", cfg.Path, strconv.FormatUint(first, 10))
		c.waitFor(t, "ready")
		time.Sleep(time.Duration(rng.Int64N(int64(60 * time.Millisecond))))
		if err := c.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		roundAcks := readAcks(t, c)
		_ = c.cmd.Wait() // killed: the error is expected
		for _, id := range roundAcks {
			landed[id] = true
		}
		inFlight := first + uint64(len(roundAcks))
		if checkCrashStore(t, cfg, landed, inFlight) {
			landed[inFlight] = true
		}
		t.Logf("round %d: %d batches acknowledged", round, len(roundAcks))
	}
}

// readAcks reads the child's "ack <id>" lines to the end of its output.
// The scanner would yield a final line without its newline too, but the
// child writes each line with one write(2) of under PIPE_BUF bytes, so a
// line is never cut.
func readAcks(t *testing.T, c *child) []uint64 {
	t.Helper()
	var ids []uint64
	for c.out.Scan() {
		line := c.out.Text()
		id, ok := strings.CutPrefix(line, "ack ")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			t.Fatalf("bad ack line %q", line)
		}
		ids = append(ids, n)
	}
	if err := c.out.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return ids
}

// checkCrashStore reopens the store and checks that every landed batch is
// there whole, and no other batch but inFlight, which may be there whole.
// It reports whether inFlight is there.
func checkCrashStore(t *testing.T, cfg Config, landed map[uint64]bool, inFlight uint64) bool {
	t.Helper()
	e, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for id := range landed {
		keys, values := crashBatch(id)
		for i, k := range keys {
			got, err := e.Get(k)
			if err != nil || !bytes.Equal(got, values[i]) {
				t.Fatalf("landed batch %d: row %d (%s) = %q, %v", id, i, k.Family(), got, err)
			}
		}
	}
	// Each family holds one row per batch present; the four must agree.
	families := []storage.ColumnFamily{storage.NodeVersions, storage.AdjacencyOut, storage.AdjacencyIn, storage.TxTimeIndex}
	var present map[uint64]bool
	for _, cf := range families {
		ids := make(map[uint64]bool)
		for kv, err := range e.Scan(storage.TenantAll(crashScope, cf)) {
			if err != nil {
				t.Fatal(err)
			}
			idText, _, _ := bytes.Cut(kv.Value, []byte(" "))
			id, err := strconv.ParseUint(string(idText), 10, 64)
			if err != nil {
				t.Fatalf("%s row %x: value %q", cf, kv.Key, kv.Value)
			}
			ids[id] = true
		}
		if present == nil {
			present = ids
		} else if len(ids) != len(present) {
			t.Fatalf("%s holds %d batches, %s %d: a batch landed in part", cf, len(ids), families[0], len(present))
		}
		for id := range ids {
			if !present[id] {
				t.Fatalf("batch %d is in %s only in part", id, cf)
			}
		}
	}
	for id := range present {
		if !landed[id] && id != inFlight {
			t.Fatalf("batch %d present but never written", id)
		}
	}
	return present[inFlight]
}

package rocksdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb/rocksdbtest"
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

// crashWriters is how many goroutines of a crash child write at once, so
// that their durable writes share log syncs.
const crashWriters = 8

// crashIDs returns the batch id that writer w of a child starting at first
// writes in its turn n (from 0).
func crashID(first uint64, w, n int) uint64 { return first + uint64(n*crashWriters+w) }

// crashChild writes batches from crashWriters goroutines, writer w the ids
// crashID(first, w, 0), crashID(first, w, 1) and so on, printing "ack <id>"
// once each write returns, until it is killed. extra is "first durable":
// durable 1 writes with WriteDurable, 0 with Write under SyncWrites false,
// whose acknowledgements a power loss may take back.
func crashChild(t *testing.T, path, extra string) {
	firstText, durableText, _ := strings.Cut(extra, " ")
	first, err := strconv.ParseUint(firstText, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	// SyncWrites is off: only WriteDurable's own sync makes the acks true.
	e, err := Open(Config{Path: path, MemtableSize: testMemtableSize})
	if err != nil {
		t.Fatal(err)
	}
	write := e.Write
	if durableText == "1" {
		write = e.WriteDurable
	}
	os.Stdout.WriteString("ready\n")
	for w := range crashWriters {
		go func() {
			for n := 0; ; n++ {
				id := crashID(first, w, n)
				if err := write(batchOf(id)); err != nil {
					fmt.Fprintf(os.Stderr, "writer %d: %v\n", w, err)
					os.Exit(3)
				}
				// One write(2) of a short line: the parent sees it whole or not at all.
				os.Stdout.WriteString("ack " + strconv.FormatUint(id, 10) + "\n")
			}
		}()
	}
	select {} // until killed
}

// crashRound runs a crash child from id first on the store at cfg.Path,
// writing durably or not, kills it after up to 60 ms, and cuts the store's
// logs back to what the child synced, as a power loss would. It returns the
// ids the child acknowledged, and the ids of the writes in flight when it
// died, one per writer.
func crashRound(t *testing.T, cfg Config, pl *rocksdbtest.PowerLoss, rng *rand.Rand, first uint64, durable bool) (acked, inFlight []uint64) {
	t.Helper()
	c := startChild(t, "crash", cfg.Path, fmt.Sprintf("%d %d", first, map[bool]int{false: 0, true: 1}[durable]), pl.Arm(t)...)
	c.waitFor(t, "ready")
	time.Sleep(time.Duration(rng.Int64N(int64(60 * time.Millisecond))))
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	acked = readAcks(t, c)
	_ = c.cmd.Wait() // killed: the error is expected
	dropped, syncs := pl.Cut(t)
	t.Logf("%d batches acknowledged, %d log syncs; the power loss dropped %d bytes", len(acked), syncs, dropped)
	turns := make([]int, crashWriters) // acknowledged writes per writer
	for _, id := range acked {
		turns[(id-first)%crashWriters]++
	}
	for w, n := range turns {
		inFlight = append(inFlight, crashID(first, w, n))
	}
	return acked, inFlight
}

// TestCrashDurability kills a child whose eight goroutines write durable
// batches at a random moment, cuts the logs back to their last sync as a
// power loss would (rocksdbtest), reopens the store and checks that every
// acknowledged batch is there whole, and that no batch is there in part:
// concurrent WriteDurable calls, which share log syncs, each return only
// once their own batch is synced.
func TestCrashDurability(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	cfg := createStore(t)
	pl := rocksdbtest.New(t, cfg.Path)
	// landed holds the batches that must be in the store: the acknowledged
	// ones, and any in-flight one that a reopen has found.
	landed := make(map[uint64]bool)
	for round := range crashRounds {
		first := uint64(round+1) * 1_000_000
		acked, inFlight := crashRound(t, cfg, pl, rng, first, true)
		for _, id := range acked {
			landed[id] = true
		}
		for _, id := range checkCrashStore(t, cfg, landed, inFlight) {
			landed[id] = true
		}
	}
}

// TestPowerLossCatchesUnsyncedAcks is the check of the check above: a child
// that acknowledges writes made under SyncWrites false, which no sync
// covers, loses acknowledged batches to the simulated power loss.
func TestPowerLossCatchesUnsyncedAcks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := createStore(t)
	pl := rocksdbtest.New(t, cfg.Path)
	acked, _ := crashRound(t, cfg, pl, rng, 1_000_000, false)
	if len(acked) == 0 {
		t.Fatal("the child acknowledged nothing before it was killed")
	}
	e, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	lost := 0
	for _, id := range acked {
		keys, _ := crashBatch(id)
		if _, err := e.Get(keys[0]); errors.Is(err, storage.ErrNotFound) {
			lost++
		}
	}
	if lost == 0 {
		t.Fatalf("all %d unsynced acknowledged batches survived the power loss: the simulation drops nothing", len(acked))
	}
	t.Logf("%d of %d unsynced acknowledged batches lost", lost, len(acked))
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
// there whole, and no other batch but those in flight, which may be there
// whole. It returns the batches in flight that are there.
func checkCrashStore(t *testing.T, cfg Config, landed map[uint64]bool, inFlight []uint64) []uint64 {
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
	var found []uint64
	for id := range present {
		switch {
		case landed[id]:
		case slices.Contains(inFlight, id):
			found = append(found, id)
		default:
			t.Fatalf("batch %d present but never written", id)
		}
	}
	return found
}

package rocksdb

import (
	"fmt"
	"strconv"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// Defaults for the zero fields of Config.
const (
	// DefaultBlockCacheSize is the block cache shared by all families.
	DefaultBlockCacheSize = 256 << 20

	// DefaultMemtableSize is RocksDB's own default write buffer size.
	DefaultMemtableSize = 64 << 20

	// MaxMemtableSize is the largest MemtableSize Open accepts. Each of the
	// 14 families allocates its memtable's prefix bloom, a tenth of it, when
	// the store opens: larger memtables would allocate gigabytes before the
	// first write, and RocksDB clips them at 64 GiB without a word.
	MaxMemtableSize = 1 << 30
)

// Config says where a store lives and how it writes.
type Config struct {
	// Path is the store's directory.
	Path string

	// CreateIfMissing creates a new store, with all its families, when Path
	// is missing or an empty directory. It never adds a family to an
	// existing store and never writes into a foreign directory.
	CreateIfMissing bool

	// SyncWrites makes Put, Delete, Write and DeleteRange return only once
	// the write-ahead log is on stable storage. WriteDurable always does.
	SyncWrites bool

	// BlockCacheSize is the capacity in bytes of the one block cache that
	// all families share; 0 means DefaultBlockCacheSize.
	BlockCacheSize uint64

	// VerifyKeys makes Open read every key of every family and refuse the
	// store, with storage.ErrCorrupt naming the row, if one is not a key
	// the key authority could have built (storage.CheckKeyBytes). It costs
	// a full scan: meant for opening a checkpoint or a restored copy, so
	// that a bad row is found there rather than by a later sweep.
	VerifyKeys bool

	// ReadOnly opens an existing store for reading alone: nothing in its
	// directory is written, created or deleted (no lock, no new log or
	// MANIFEST, no sync mark), so that a checkpoint or a backup read this
	// way stays byte for byte what it was. Every write, compaction and
	// checkpoint returns ErrReadOnly. Damage is refused as Open refuses it.
	// It excludes CreateIfMissing (ErrBadConfig).
	ReadOnly bool

	// MemtableSize is the write buffer of each family in bytes; 0 means
	// DefaultMemtableSize. Open refuses more than MaxMemtableSize with
	// ErrBadConfig. Each memtable carries a prefix bloom of a tenth
	// of this size, allocated when the memtable is, so small stores (tests)
	// open faster with a smaller value.
	MemtableSize uint64
}

// The per-family options (docs/design.md, Engines).
const (
	bloomBitsPerKey     = 10
	memtablePrefixBloom = 0.1
)

// prefixExtractor fixes the prefix to the scope, so that prefix blooms and
// prefix iteration work per tenant.
var prefixExtractor = "prefix_extractor=rocksdb.FixedPrefix." + strconv.Itoa(storage.ScopeLen)

// pointLookup reports whether cf is read mostly by point lookups and so
// also gets whole-key bloom filtering; the other families are scanned and
// rely on the prefix bloom alone.
func pointLookup(cf storage.ColumnFamily) bool {
	return cf == storage.NodeVersions || cf == storage.EdgeVersions || cf == storage.Vectors
}

// options holds the RocksDB option objects of one Open. RocksDB copies them
// at open, so they are released as soon as Open returns.
type options struct {
	db    *grocksdb.Options
	point *grocksdb.Options // families with whole-key filtering
	scan  *grocksdb.Options // families with prefix filtering only
}

// dbOptions are the database options that the C API cannot set, set
// through an options string:
//
//   - track_and_verify_wals_in_manifest records in the MANIFEST the size of
//     each write-ahead log once it is closed and synced, so that a closed
//     log later cut short, or missing, is reported as corruption instead of
//     being replayed short (the open log is not tracked: see syncMark);
//   - avoid_flush_during_recovery keeps recovery from flushing what it
//     replays and retiring the logs it replayed, so that a store Open
//     refuses after recovery (see syncMark) still holds its damaged log,
//     for Repair to read and report from.
func dbOptions(trackLogs bool) string {
	return "track_and_verify_wals_in_manifest=" + strconv.FormatBool(trackLogs) + ";avoid_flush_during_recovery=true"
}

// headerInfoLog is the highest info log level (HEADER_LEVEL): RocksDB
// writes to its LOG file only the options it dumps when it opens the store
// or creates a family, never during operation. The LOG lives on the
// store's device, and librocksdb 7.8 built with assertions (Debian's)
// aborts the process when a log file is written after a write to it failed
// (WritableFileWriter::Append asserts sync_without_flush_called_): on a
// full device, the LOG failed first and its next message killed the
// process. The engine reports what the LOG's warnings would have said
// through its errors. (A level above this one would write nothing at all,
// but RocksDB then fails to write the store's OPTIONS file.)
const headerInfoLog = grocksdb.InfoLogLevel(5)

func newOptions(cfg Config, mode openMode) (*options, error) {
	cacheSize := cfg.BlockCacheSize
	if cacheSize == 0 {
		cacheSize = DefaultBlockCacheSize
	}
	memtable := cfg.MemtableSize
	if memtable == 0 {
		memtable = DefaultMemtableSize
	}
	cache := grocksdb.NewLRUCache(cacheSize)
	defer cache.Destroy() // the table options keep their own reference

	db := grocksdb.NewDefaultOptions()
	defer db.Destroy()
	db.SetCreateIfMissing(mode.create)
	db.SetCreateIfMissingColumnFamilies(mode.create || mode.createFamilies)
	db.SetInfoLogLevel(headerInfoLog)
	db.SetKeepLogFileNum(1) // RocksDB still creates an empty LOG at every open
	db.SetWALRecoveryMode(mode.recovery)
	db.SetParanoidChecks(true)
	o := &options{}
	var err error
	extra := dbOptions(mode.trackLogs)
	if o.db, err = grocksdb.GetOptionsFromString(db, extra); err != nil {
		return nil, fmt.Errorf("database options %q: %w", extra, err)
	}
	if o.point, err = familyOptions(cache, memtable, true); err != nil {
		o.destroy()
		return nil, err
	}
	if o.scan, err = familyOptions(cache, memtable, false); err != nil {
		o.destroy()
		return nil, err
	}
	return o, nil
}

// familyOptions builds the options of one column family.
func familyOptions(cache *grocksdb.Cache, memtable uint64, wholeKey bool) (*grocksdb.Options, error) {
	table := grocksdb.NewDefaultBlockBasedTableOptions()
	defer table.Destroy() // the options copy the table options
	table.SetBlockCache(cache)
	table.SetFilterPolicy(grocksdb.NewBloomFilterFull(bloomBitsPerKey))
	table.SetWholeKeyFiltering(wholeKey)

	o := grocksdb.NewDefaultOptions()
	defer o.Destroy()
	o.SetBlockBasedTableFactory(table)
	o.SetWriteBufferSize(memtable)
	o.SetMemTablePrefixBloomSizeRatio(memtablePrefixBloom)

	// Setting the extractor through grocksdb's SetPrefixExtractor would leave
	// it owned twice (by the options and by grocksdb), and Destroy would free
	// it twice. Built from a string, it belongs to the options alone.
	fo, err := grocksdb.GetOptionsFromString(o, prefixExtractor)
	if err != nil {
		return nil, fmt.Errorf("family options %q: %w", prefixExtractor, err)
	}
	return fo, nil
}

// forFamily returns the options of cf.
func (o *options) forFamily(cf storage.ColumnFamily) *grocksdb.Options {
	if pointLookup(cf) {
		return o.point
	}
	return o.scan
}

func (o *options) destroy() {
	for _, opts := range []*grocksdb.Options{o.db, o.point, o.scan} {
		if opts != nil {
			opts.Destroy()
		}
	}
}

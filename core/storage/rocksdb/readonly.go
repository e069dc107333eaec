package rocksdb

import (
	"fmt"

	"github.com/linxGnu/grocksdb"
)

// openReadOnly opens the existing store at cfg.Path for reading alone
// (Config.ReadOnly). It checks what Open checks, writing nothing: damaged
// logs and a store that recovers to less than its sync mark are refused as
// Open refuses them. RocksDB's read-only open takes no lock and writes no
// file; it replays the logs into memory only.
func openReadOnly(cfg Config) (*Engine, error) {
	if cfg.CreateIfMissing {
		return nil, fmt.Errorf("open %s: %w: ReadOnly with CreateIfMissing", cfg.Path, ErrBadConfig)
	}
	if _, err := checkStore(cfg); err != nil {
		return nil, err
	}
	logs, err := scanLogs(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
	}
	if err := checkLogs(logs); err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
	}
	ms, err := readMark(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
	}
	st, err := openStore(cfg, openMode{readOnly: true, recovery: grocksdb.TolerateCorruptedTailRecordsRecovery, trackLogs: true})
	if err != nil {
		return nil, err
	}
	if latest := st.db.GetLatestSequenceNumber(); ms.marked && latest < ms.seq {
		err := lostWrites(cfg.Path, logs, ms.seq, latest, st.orphans(cfg.Path))
		st.close()
		return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
	}
	if cfg.VerifyKeys {
		if err := st.verify(true); err != nil {
			st.close()
			return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
		}
	}
	return newEngine(cfg, st.db, st.handles, st.families, nil), nil
}

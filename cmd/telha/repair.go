package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"telha.dev/core/storage/rocksdb"
	"telha.dev/lifecycle"
)

// repairCommand makes a damaged store open again, dropping what cannot be
// read, and says what it dropped and from where. Open refuses a damaged
// store; running this is the operator's decision to accept the loss. A
// path that holds no store of ours is bad input (exit 2); a store in use,
// or a repair that fails, is an operational error (exit 1). It works on a
// RocksDB store's files, so it has -data of its own, not the store flags.
func repairCommand(fs *pflag.FlagSet) runner {
	dataDir := fs.String("data", "", "directory of the RocksDB store to repair")
	return func(in *invocation) error {
		if *dataDir == "" {
			return in.usagef("missing -data DIR")
		}
		return repair(in, *dataDir)
	}
}

// repair repairs the store at dataDir, then opens it as every command does.
func repair(in *invocation, dataDir string) error {
	if err := lifecycle.CheckOutsideCheckpoints(dataDir); err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	rep, err := rocksdb.Repair(dataDir)
	if err != nil {
		return err // its errors say "repair" and the path
	}
	if _, err := io.WriteString(in.stdout, describeRepair(dataDir, rep)); err != nil {
		return err
	}
	// The repaired store opens: finish what a crash interrupted in it, as
	// every command does when it opens a store.
	s, err := openStore("repair", dataDir, false, in.progressLines())
	if err != nil {
		return err
	}
	return s.close(nil)
}

// describeRepair renders a report for the operator, one fact a line.
func describeRepair(dir string, rep rocksdb.RepairReport) string {
	var b strings.Builder
	if rep.Damage == nil && rep.DroppedWrites == 0 && rep.DroppedBatches == 0 && !rep.Rebuilt {
		fmt.Fprintf(&b, "%s: no damage found; nothing dropped; the store ends at sequence number %d\n", dir, rep.Sequence)
		return b.String()
	}
	if rep.Damage != nil {
		fmt.Fprintf(&b, "damage: %v\n", rep.Damage)
	}
	if rep.SkippedDamage {
		b.WriteString("kept: every readable batch after the damage (table files already held writes made after it, so the store cannot go back to the point of the damage)\n")
	}
	if rep.DroppedBatches > 0 || rep.DroppedWrites > 0 {
		fmt.Fprintf(&b, "dropped: %d writes", rep.DroppedWrites)
		if rep.DroppedWrites > 0 {
			fmt.Fprintf(&b, " (sequence numbers %d to %d)", rep.FirstDropped, rep.FirstDropped+rep.DroppedWrites-1)
		}
		if rep.DroppedBatches > 0 {
			fmt.Fprintf(&b, " in at least %d batches", rep.DroppedBatches)
		}
		if rep.From != "" {
			fmt.Fprintf(&b, ", from %s", rep.From)
			if rep.Offset >= 0 {
				fmt.Fprintf(&b, " at offset %d", rep.Offset)
			}
		}
		b.WriteString("\n")
	}
	if rep.Rebuilt {
		fmt.Fprintf(&b, "rebuilt: the MANIFEST, from the table files\n")
		for _, f := range rep.Lost {
			fmt.Fprintf(&b, "set aside, unreadable: %s\n", f)
		}
	}
	fmt.Fprintf(&b, "%s: repaired; the store ends at sequence number %d and opens\n", dir, rep.Sequence)
	return b.String()
}

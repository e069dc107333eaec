package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"telha.dev/core/storage/rocksdb"
)

const repairUsage = "usage: telha repair -data DIR"

// repair makes a damaged store open again, dropping what cannot be read,
// and says what it dropped and from where. Open refuses a damaged store;
// running this is the operator's decision to accept the loss. A path that
// holds no store of ours is bad input (exit 2); a store in use, or a repair
// that fails, is an operational error (exit 1).
func repair(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("repair", flag.ContinueOnError)
	dataDir := fs.String("data", "", "directory of the RocksDB store to repair")
	if err := parseFlags(fs, args, repairUsage, stdout); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return usagef("repair: unexpected argument %q (%s)", fs.Arg(0), repairUsage)
	case *dataDir == "":
		return usagef("repair: missing -data DIR (%s)", repairUsage)
	}
	rep, err := rocksdb.Repair(*dataDir)
	switch {
	case errors.Is(err, rocksdb.ErrBadPath), errors.Is(err, rocksdb.ErrNotExist), errors.Is(err, rocksdb.ErrNotStore),
		errors.Is(err, rocksdb.ErrMissingFamily), errors.Is(err, rocksdb.ErrUnexpectedFamily):
		return usageError{err} // Repair's errors say "repair" and the path
	case err != nil:
		return err
	}
	_, err = io.WriteString(stdout, describeRepair(*dataDir, rep))
	return err
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

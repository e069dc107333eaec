package ledger

import (
	"fmt"
	"iter"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Commit writes work and the entry en in one durable batch: the deletion
// and its record land together or not at all. work is not changed: its
// mutations and conditions are copied, so the entry's key never reaches
// the caller. en must be consistent (its kind, scope and entity) and every
// deletion must lie inside its tenant (Entry.Ranges). An entry that names
// no deployment is given e's (Deployment), in en too. The batch advances
// the tenant's generation (storage.WriteInvalidating), so that every
// process drops what it caches of the tenant before its next request; a
// condition of work that fails is storage.ErrConflict, with nothing
// applied.
func Commit(e storage.Engine, work *storage.Batch, en *Entry) error {
	if err := work.Err(); err != nil {
		return fmt.Errorf("commit ledger entry %s: %w", en.ID, err)
	}
	if en.Deployment == uuid.Nil {
		id, err := Deployment(e)
		if err != nil {
			return fmt.Errorf("commit ledger entry %s: %w", en.ID, err)
		}
		en.Deployment = id
	}
	err := storage.WriteInvalidating(e, en.Scope, func(b *storage.Batch) error {
		b.Append(work)
		return put(b, en)
	})
	if err != nil {
		return fmt.Errorf("commit ledger entry %s: %w", en.ID, err)
	}
	return nil
}

// put adds the row of en to b, after checking en.
func put(b *storage.Batch, en *Entry) error {
	if _, err := en.Ranges(); err != nil {
		return err
	}
	v, err := encode(en)
	if err != nil {
		return err
	}
	if _, err := decode(v); err != nil {
		return err
	}
	b.Put(entryKey(en), v)
	return b.Err()
}

// entryKey is the key of en's row.
func entryKey(en *Entry) storage.Key {
	return storage.SystemScope{}.LedgerEntryKey(en.ID, storage.TimestampOf(en.Recorded))
}

// MarkVerified records that the verification scan of en found its ranges
// empty, at en.Verified, which must be set, and which members, if any,
// have not yet rewritten their files (en.Pending). The write is durable.
func MarkVerified(e storage.Engine, en Entry) error {
	if en.Verified.IsZero() {
		return fmt.Errorf("mark ledger entry %s verified: %w: no verification time", en.ID, ErrBadEntry)
	}
	var b storage.Batch
	if err := put(&b, &en); err != nil {
		return fmt.Errorf("mark ledger entry %s verified: %w", en.ID, err)
	}
	if err := e.WriteDurable(&b); err != nil {
		return fmt.Errorf("mark ledger entry %s verified: %w", en.ID, err)
	}
	return nil
}

// Entries yields every entry of the ledger of r, in the order they were
// made. A row that does not decode, or whose key and value disagree,
// yields ErrBadEntry and ends the sequence: a damaged ledger is not read
// past, since a restore that skipped an entry would bring erased rows back.
func Entries(r storage.Reader) iter.Seq2[Entry, error] {
	return entries(r, storage.SystemScope{}.LedgerEntries())
}

func entries(r storage.Reader, rg storage.ScanRange) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		for kv, err := range r.Scan(rg) {
			if err != nil {
				yield(Entry{}, fmt.Errorf("read the erasure ledger: %w", err))
				return
			}
			en, err := decodeRow(kv)
			if !yield(en, err) || err != nil {
				return
			}
		}
	}
}

// decodeRow decodes one ledger row and checks its key against its value.
func decodeRow(kv storage.KV) (Entry, error) {
	p, err := storage.DecodeSource(kv.Key)
	if err != nil || !p.Scope.IsSystem() {
		return Entry{}, fmt.Errorf("erasure ledger row %x: %w: key: %v", kv.Key, ErrBadEntry, err)
	}
	en, err := decode(kv.Value)
	if err != nil {
		return Entry{}, fmt.Errorf("erasure ledger row %s: %w", p.Source, err)
	}
	if en.ID != p.Source || storage.TimestampOf(en.Recorded) != p.TxStart {
		return Entry{}, fmt.Errorf("erasure ledger row %s: %w: the key names entry %s of %s, the value %s of %s",
			p.Source, ErrBadEntry, p.Source, p.TxStart, en.ID, storage.TimestampOf(en.Recorded))
	}
	return en, nil
}

// Get returns the entry id of the ledger of r, or ErrNotFound.
func Get(r storage.Reader, id uuid.UUID) (Entry, error) {
	for en, err := range entries(r, storage.SystemScope{}.LedgerEntryHistory(id)) {
		return en, err
	}
	return Entry{}, fmt.Errorf("erasure ledger entry %s: %w", id, ErrNotFound)
}

// Replay applies en to e again, for a store restored from a copy older
// than the erasure: one durable batch deletes every range of the entry,
// rebuilt from its stored bounds and checked to lie inside its tenant
// (Entry.Ranges), and writes the entry into e's ledger. Replaying an entry
// twice deletes nothing more. An entry that fails its checks deletes
// nothing and returns ErrBadEntry.
//
// A redaction is not a set of deletions: its chunks are rewritten and its
// blocklist row written by their owner, against whatever the restored
// store holds of the blob. Replay refuses it (ErrNotDeletion); the caller
// adds those rows to a batch and writes them with the entry by Commit.
func Replay(e storage.Engine, en Entry) error {
	if en.Kind == KindRedaction {
		return fmt.Errorf("replay ledger entry %s: %w", en.ID, ErrNotDeletion)
	}
	rs, err := en.Ranges()
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	var b storage.Batch
	for _, r := range rs {
		b.DeleteRange(r)
	}
	if err := put(&b, &en); err != nil {
		return fmt.Errorf("replay ledger entry %s: %w", en.ID, err)
	}
	if err := e.WriteDurable(&b); err != nil {
		return fmt.Errorf("replay ledger entry %s: %w", en.ID, err)
	}
	return nil
}

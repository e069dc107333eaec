// Package sources gives the sources, spans and traces families their
// meaning: the documents a tenant's facts were taken from, the passages
// that produced each fact, and the record of what queries returned.
//
// # Documents
//
// A document is canonical text: valid UTF-8, nothing more and nothing less.
// Telha does not normalize (no Unicode normalization, no line-ending
// rewriting): it refuses what is not canonical with ErrNotCanonical, so the
// bytes ingested are the bytes hashed and the bytes read back. Its blob id
// is the first 16 bytes of the blake3-256 hash of those bytes (BlobID), so
// `b3sum` of a file names its blob, and ingesting the same text again
// changes nothing.
//
// A blob is stored in chunks of ChunkSize bytes, rows of the sources
// family at dense chunk indexes from 0 (storage.SourceChunkKey); the last
// chunk holds the remainder, and the empty document is one empty chunk.
// Chunk 0 also holds the blob's header: its length, chunk size, ingest
// time and full hash. Ingest writes chunk 0 last and durably, so a blob
// exists once its header does, whole; a crash before leaves only chunks
// that no reader sees and the next ingest overwrites. Reading streams the
// chunks in order from one snapshot (Store.Open), holding one chunk at a
// time, and checks the hash at the end.
//
// # Provenance
//
// A span is a byte range [Start, End) of a blob's canonical text. Record
// stores, for one span, the facts (node and edge versions) asserted from
// it, under the span's key and, for each fact, under the fact shape of the
// spans family, in one batch. Facts answers "which facts came from this
// source, or this range of it" with a scan of that source's spans alone;
// Passages answers "which passages does this fact come from" with a scan
// of that fact's rows alone.
//
// # Redaction
//
// A redaction takes byte ranges out of a blob, for good. Ranges are in
// the ORIGINAL text's coordinates, those spans use, which no redaction
// changes: the current text is the original less the union of every range
// redacted so far, and ranges that overlap or touch each other or earlier
// ones merge. Each end of a range must lie inside the original text and on
// a UTF-8 character boundary of it, so that the current text stays
// canonical; an empty, inverted, out-of-bounds or mid-character range is
// ErrBadRange (an end inside an earlier redaction, whose bytes are gone,
// cannot be checked, and the merge absorbs it).
//
// Chunk i keeps covering the original window [i*ChunkSize,
// (i+1)*ChunkSize), less its redacted bytes: a redaction rewrites only the
// chunks its ranges overlap, and a chunk may shrink to nothing. Chunk 0
// keeps the original header. Reads stream what is left (ReadRange takes
// original offsets and returns what is left of the passage) and check it
// against the post-redaction hash.
//
// The redaction record, at the reserved slot of the blob's id
// (storage.RedactionRecordKey), holds the merged ranges, the erasure-ledger
// entry of every redaction and of the deletion, the hash of the current
// text, the original hash (retired: the blob id still addresses the blob,
// but its text no longer hashes to it), the original length, and whether
// the blob was deleted. Deleting a blob deletes every chunk row and marks
// the record deleted; reading, redacting or deleting it again is
// ErrDeleted.
//
// This package plans (PlanRedaction, PlanDelete) and never commits: the
// tenant lifecycle adds a plan to the batch that writes its erasure-ledger
// entry (RedactionPlan.AddTo), commits it durably, compacts the key ranges
// it touched and reports, or erases, the facts whose spans overlap the
// ranges (RedactionPlan.Overlapping). AddReplay re-applies a ledger entry
// to a restored store. Plans of one blob must not race; AddTo refuses one
// whose blob changed since (ErrBadPlan).
//
// # Blocklist
//
// Every redaction or deletion blocklists the text the blob held before it
// (the original at the first one, each intermediate text after): a row at
// storage.BlocklistKey of the text's keyed digest, keyed blake3 under a
// per-deployment secret. Ingest computes the keyed digest of what it reads
// and refuses a blocklisted text with ErrBlocklisted, before it writes
// anything. The secret is 32 bytes from crypto/rand, created on first use
// in the system namespace and reached only through the facade
// telha.dev/core/storage/system/blocklist, which hands out digests, never
// the secret: whoever reads a blocklist row cannot test a guess of the
// erased text against it.
//
// Blocklist rows live in the tenant's own scope, so a tenant export
// carries them, but they only work in a deployment with the same secret:
// restored elsewhere they refuse nothing. A replay of the erasure ledger
// (AddReplay) blocklists the text under the local secret too wherever the
// blob is there to digest, and the original text of a blob whose record
// survives is refused anyway, with ErrRedacted.
//
// # Traces
//
// Tracing is opt-in: nothing is recorded unless the caller records a
// Trace, the ids a graph or vector query returned with its as-of time and
// parameters. Traces are listed per tenant in the order of their ids
// (UUIDv7, so in the order they were recorded) and read by id.
package sources

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
// # Traces
//
// Tracing is opt-in: nothing is recorded unless the caller records a
// Trace, the ids a graph or vector query returned with its as-of time and
// parameters. Traces are listed per tenant in the order of their ids
// (UUIDv7, so in the order they were recorded) and read by id.
package sources

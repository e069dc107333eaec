// Package vector stores embeddings per (tenant, node, model) with valid and
// transaction time, and answers k-nearest-neighbour queries as of a time
// within one tenant and one model: exactly from the store for any time,
// and from an in-memory index, exactly or approximately, for "now".
//
// Models are deployment-global and live in the registry of
// telha.dev/core/storage/system/models; this package re-exports its types
// so that callers need one import. Every key and range comes from the typed
// constructors of telha.dev/core/storage: a tenant's search can only ever
// see its own rows.
//
// # As-of rule
//
// A vector version is written at (valid start, tx start) and lasts until
// the next version of the same (node, model). Read as of (valid V, tx T),
// the visible version is the one with the latest valid start at or before
// V, among versions with tx start at or before T; on a tie of valid start,
// the latest tx start wins (a correction). A tombstone version hides the
// vector from its valid start on.
//
// # The in-memory index
//
// The Stores over one engine share, per (tenant, model) that has been
// searched, the head of every node (its version as of Latest) and the
// live heads' vectors in one contiguous float32 matrix. A query reads
// "now" when its time is at or after the valid start and the tx start of
// every node's head in its tenant and model (Latest always does); then
// every node's visible version is its head, and the matrix answers it.
// Any other time is read from the store.
//
// Loading is lazy, per tenant and model: the first search (or Warm) scans
// the tenant's vectors family once. Opening a Store reads nothing, which
// keeps the start of a multi-tenant deployment independent of its size,
// and keeps tenants that are never searched out of memory. After that the
// index follows every write made through a Store over the engine: Put,
// Delete, Write and WriteDurable apply their rows once the engine has
// them (a row later than the node's head becomes the head; a row at the
// head's own key or a deleted row is settled by reading the node back, so
// concurrent writers agree with the engine's order). Rows added by Stage
// are also recorded until a Store sees them written, so that a batch
// written straight to the engine is noticed by the next search. storage.WipeTenant drops the
// tenant's indexes (storage.OnWipe); a failed write drops the indexes it
// touched; the Close of the last Store over the engine drops them all. A
// dropped index is loaded again when next searched.
//
// Other processes on the same store (replicas on one etcd cluster) are
// followed through two counters in the store, read at the start of every
// search of "now" (one scan of the tenant's counters): the tenant's
// generation, which every wipe, erasure and import advances (the tenant's
// indexes are dropped when another process moved it), and the sequence of the
// tenant's vector writes under the model, which every write through a
// Store advances in its own batch (storage.ReadVectorsSequence): an index
// that does not hold every write up to the sequence is dropped and loaded
// again. So a search that starts after a write or an erasure returned,
// through any process, sees it; the price is a load of the index (one scan
// of the tenant's vectors family, and the graph built again in the
// background) after each burst of another process's writes. Rows written
// straight to the engine do not advance the sequence: another process sees
// them once a write through a Store does. On an engine that keeps a write
// stamp (storage.WriteStamper: RocksDB, whose one process holds the store,
// and MemoryEngine) the scan of the counters, and the scan of the model's
// definition, are skipped while the stamp is unchanged since they were
// last read: nothing was written, so they would find the same. On etcd
// every search reads them.
//
// The exact search of the matrix returns what the store path returns, bit
// for bit: the same nodes, order and distances. It measures each row with
// a float32 SIMD kernel and computes the float64 reference distance only
// for a row that a proven error bound cannot exclude (see kernel.go).
// Once the approximate graph holds int8 codes of the rows (below), it
// measures the codes first and reads the float32 row only where their
// proven interval cannot exclude it: a quarter of the bytes, which makes
// a scan of a matrix larger than the caches several times faster.
//
// # The approximate index
//
// Approximate searches walk an HNSW graph (vector/internal/hnsw) over the
// matrix's slots, measured by the batch kernels of vector/internal/kernel
// (AVX-512 with the rows ahead prefetched, where the CPU has it), built
// in the background by the first approximate search (or by Warm) and
// extended as vectors are written. Where the CPU has AVX-512 (of any
// dimension), the walk measures an int8 copy of each
// row (one scale per row, kernel.Quantize): 128 bytes where the row is
// 512, so a quarter of the cache misses that a walk waits on. Its
// distances are approximate; the ef candidates it finds are measured
// again from their float32 rows before any is chosen, so the answer's
// distances stay exact and the recall is that of the float32 walk within
// the tests' 0.02 (BENCHMARKS.md measures it). The graph is built from
// the float32 rows. A filter is applied
// during the walk; a search whose filter allows few vectors for its width,
// or fewer than one in 2M, is answered by scanning them exactly (the
// plan, Options.ExactBelow). Vectors the graph does not hold
// yet are scanned exactly, and every hit carries its exact distance.
//
// # Concurrency
//
// Searches take no lock. A search finds its index in a sync.Map and reads
// the view that the index's writers published last (an atomic pointer):
// a snapshot of each matrix's headers, which share its arrays. The writers (loading, applying a write, the graph builder,
// compaction) take the index's mutex, one at a time, and publish a new
// view as they release it. A view never changes under its searches, and
// the writer goes on without copying the index: rows, norms, node ids and
// int8 codes are only appended, past every view's length; the slot table
// that translates filters only gains buckets (a dead slot stays until the
// table is rebuilt), which a view's lookups pass over; the graph's link
// and count words are stored and loaded atomically, and a link to a node
// the view does not hold is skipped (internal/hnsw); and the live set, the
// one array changed in place, is copied before the first change after a
// publication (a copy of one bit a slot, about 12 KB at 100,000 vectors).
// A search so sees one state of its index from start to end: a node whose
// vector a write replaces is at its old slot or at its new one, never at
// both or at neither. The one wait left is for this process's own
// writes: a search that reads the tenant's counters after a write of this
// process reached the engine, and before the write reached the index,
// waits for that write to be applied (inflight.go), where it would
// otherwise take the index to be behind another process's write and load
// it all again. AppendSearch answers into the caller's slice and
// allocates nothing. Nothing that searches write is shared but pooled
// scratch and a Filter's cached translation (an atomic pointer), so
// searches scale with cores until they share out the memory bandwidth
// that their random reads of the matrix take.
//
// Memory: a 128-dimension vector takes its 512 bytes in the matrix, 132
// for its int8 copy and scale, and about 200 more for its id, version,
// norm and graph links (the package benchmark reports the measured
// figure); MemoryStats reports the total.
package vector

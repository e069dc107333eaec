// Package jobs is Telha's durable job queue: one queue per tenant, plus the
// system queue for deployment-wide maintenance, all stored in the jobs
// column family.
//
// # Life of a job
//
// Enqueue writes a job in state queued. Claim moves the first queued job to
// leased and hands the worker a Lease that expires after
// Options.LeaseDuration unless the worker renews it with Heartbeat. Complete
// moves it to completed. Fail moves it to failed, where it waits out an
// exponential backoff before Claim promotes it back to queued; once its
// attempts reach MaxAttempts it goes to dead instead. The reaper (Store.Reap)
// finds leases whose worker went away, across every tenant and the system
// queue, and returns them to queued (or dead, when the attempts are spent).
// Completed and dead jobs stay, for inspection, until Queue.Purge deletes
// them.
//
// Every state change is one atomic batch: the delete of the old state's key
// and the put of the new state's key, whose value carries the lease record.
// A crash therefore leaves each job in exactly one state.
//
// # Order
//
// Claims take the highest Priority first and, within a priority, the oldest
// job first (FIFO). The key layout sorts its priority byte ascending, so the
// queue stores 255-p: Priority 255 is byte 0 and sorts first. A job keeps its
// creation time for life, so a retried job keeps its place in line.
//
// # Concurrency
//
// Every state change is conditional on the job still holding, in its old
// state, the value the change was decided on (jobqueue.JobMove.Was), and a
// new job on its key being free: the engine applies the batch only if that
// holds (storage.Batch.RequireValue), or refuses it with
// storage.ErrConflict. So of two processes sharing one store (replicas on
// one etcd cluster) that decide to move one job at once, one wins: a
// claim that loses claims the next job, a heartbeat, completion or
// failure that loses is ErrLeaseLost (another process, such as a reaper,
// took the job), a reap that loses leaves the job to the winner. A job is
// leased to one worker at a time and completed once.
//
// Within one process each Queue decides its state changes (enqueue,
// claim, heartbeat, complete, fail, reap) under a mutex, and marks the jobs
// a change writes as moving until its write has landed, so that its own
// goroutines never race for one job: a claim steps over moving jobs, and an
// operation on one job waits until that job is not moving. The mutex is not
// held while the engine writes, so the durable writes of concurrent changes
// overlap and share the engine's log syncs; each operation still returns
// only once its own write is durable. The Store hands out exactly one Queue
// per tenant so that the mutex is shared by all of that tenant's workers.
// Queues of different tenants do not contend.
//
// A Queue remembers where its last claim was (a cursor, so that claims do
// not walk over the rows of every job claimed before) and the earliest
// backoff end among failed jobs. Both follow this process's writes; jobs
// that another process queued before the cursor, or failed with an
// earlier backoff end, are looked for at least once a second.
//
// Work survives a crash: a job leased by a dead process stays leased until
// its lease expires, and the reaper of the next process returns it to the
// queue. Delivery is therefore at least once; a worker whose lease was lost
// learns it from ErrLeaseLost (or ErrWrongOwner, once another worker holds
// the job) and must not assume its result was recorded.
//
// # Isolation
//
// A tenant queue reads and writes only keys built from its TenantScope, so
// tenants never see each other's jobs, even with equal job ids. System jobs
// live under the reserved system scope and are reached only through
// telha.dev/core/storage/system/jobqueue; this package never names that
// scope.
package jobs

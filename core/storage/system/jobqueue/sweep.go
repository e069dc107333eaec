package jobqueue

import (
	"fmt"

	"telha.dev/core/storage"
)

// LeasedJob is a leased job found by the reaper's sweep, in a tenant's queue
// or in the system queue. Scope is decoded output: IsSystem reports a system
// job, whose moves go through WriteJobs; a tenant job is addressed with
// storage.NewTenantScope(Scope.Tenant, Scope.Organization) like any other.
type LeasedJob struct {
	Scope storage.KeyScope
	JobAddr
	Value []byte
}

// SweepLeases scans the whole jobs family, every tenant and the system
// scope, and returns the leased jobs whose value the expired predicate
// accepts. This is one of the exceptions to tenant confinement
// (docs/design.md): the reaper must find abandoned leases without a tenant
// registry, and only this entry point may cross scopes. The cost is one pass over the family, so the
// reaper runs it periodically, not per claim.
//
// The sweep crosses rows of every tenant, which it did not write: a row
// whose key does not decode is stepped over and returned in bad, so that
// one damaged row cannot stop the reaper of every tenant. Only an engine
// error ends the sweep.
//
// The sweep takes no lock: a lease may be renewed or completed between the
// sweep and the reaper's move, so the caller re-reads each job before moving
// it.
func SweepLeases(r storage.Reader, expired func(value []byte) bool) (leased []LeasedJob, bad []BadRow, err error) {
	for kv, err := range r.Scan(storage.SystemScope{}.FullFamily(storage.Jobs)) {
		if err != nil {
			return nil, nil, fmt.Errorf("sweep job leases: %w", err)
		}
		p, err := storage.DecodeJob(kv.Key)
		if err != nil {
			bad = append(bad, BadRow{Key: kv.Key, Cause: err})
			continue
		}
		if p.State == storage.JobLeased && expired(kv.Value) {
			leased = append(leased, LeasedJob{Scope: p.Scope, JobAddr: JobAddr{Priority: p.Priority, Created: p.Created, ID: p.ID}, Value: kv.Value})
		}
	}
	return leased, bad, nil
}

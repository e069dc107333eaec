package replicas

import (
	"cmp"
	"slices"

	"github.com/anishathalye/porcupine"
)

// The sequential models that histories are checked against, one per kind
// of object, each partitioned by object so that porcupine checks each
// object's history alone (a history is linearizable if and only if each
// object's is, for objects that no operation spans).
//
// An operation whose outcome is unknown (the engine reported the cluster
// unavailable: the write may have been applied) gets an infinite return
// time, so that porcupine may place it anywhere after its call, the end of
// the history included, where it changes nothing that was observed. Reads
// that failed, and claims that found no job or whose outcome is unknown,
// are left out of histories: they observe nothing the models could check
// (a claim that found nothing is allowed at any time, since liveness is
// not what is checked here).

// op is one operation of a history, as a replica records it.
type op struct {
	Client int
	Kind   string // write, read (a register); claim, complete (a job); provision (a name)
	Key    string // the object: a register's node, a job, a name
	In     string // the value written; the owner of a claim or completion; the scope provisioned
	Out    string // the value read ("" for none); ok or lost; ok, taken or exists
	// Call and Return are wall-clock nanoseconds of the machine, which every
	// process of the test shares.
	Call, Return int64
	Unknown      bool // the outcome is unknown
}

// The kinds of objects, by the first letter of their partitions.
const (
	registerObject = "register"
	jobObject      = "job"
	nameObject     = "name"
)

// object returns the kind of object an operation acts on.
func object(kind string) string {
	switch kind {
	case "write", "read":
		return registerObject
	case "claim", "complete":
		return jobObject
	}
	return nameObject
}

// step is the sequential specification of one kind of object: whether
// the operation, with its output, is legal in state, and the state after.
// Every object starts in state "": a register holding no value, a job
// queued, a name that no tenant holds.
type step func(state string, o op) (bool, string)

// registerStep: a node's current value. A write sets it; a read returns it.
func registerStep(state string, o op) (bool, string) {
	if o.Kind == "write" {
		return true, o.In
	}
	return o.Out == state, state
}

// jobStep: a job queued (""), leased to an owner ("leased:" owner), or
// completed. A claim leases a queued job to its owner; a completion that
// reports ok completes the job leased to its owner; one that reports the
// lease lost finds it leased to no one else's claim of this owner; one of
// unknown outcome completes it if it was leased to its owner.
func jobStep(state string, o op) (bool, string) {
	leased := "leased:" + o.In
	switch {
	case o.Kind == "claim":
		return state == "", leased
	case o.Unknown && state == leased:
		return true, "completed"
	case o.Unknown:
		return true, state
	case o.Out == "ok":
		return state == leased, "completed"
	}
	return state != leased, state // lost
}

// nameStep: the scope that holds a name, "" for none. A provisioning that
// reports ok takes a free name; one that reports it taken finds it held by
// another scope; one of unknown outcome takes it if it was free. The
// scopes are new, so a scope that exists already is never legal.
func nameStep(state string, o op) (bool, string) {
	switch {
	case o.Unknown && state == "":
		return true, o.In
	case o.Unknown:
		return true, state
	case o.Out == "ok":
		return state == "", o.In
	case o.Out == "taken":
		return state != "" && state != o.In, state
	}
	return false, state
}

// steps are the models of the objects.
var steps = map[string]step{registerObject: registerStep, jobObject: jobStep, nameObject: nameStep}

// model is the porcupine model of a history of every object, built from
// the steps: partitioned by object, each partition checked with the step
// of its kind.
func model(steps map[string]step) porcupine.Model {
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			byObject := make(map[[2]string][]porcupine.Operation)
			for _, h := range history {
				o := h.Input.(op)
				k := [2]string{object(o.Kind), o.Key}
				byObject[k] = append(byObject[k], h)
			}
			keys := make([][2]string, 0, len(byObject))
			for k := range byObject {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
			out := make([][]porcupine.Operation, len(keys))
			for i, k := range keys {
				out[i] = byObject[k]
			}
			return out
		},
		Init: func() any { return "" },
		Step: func(state, input, _ any) (bool, any) {
			o := input.(op)
			return steps[object(o.Kind)](state.(string), o)
		},
	}
}

// operations turns recorded ops into porcupine's, an unknown outcome's
// return at the end of time.
func operations(ops []op) []porcupine.Operation {
	out := make([]porcupine.Operation, len(ops))
	for i, o := range ops {
		ret := o.Return
		if o.Unknown {
			ret = 1<<63 - 1
		}
		out[i] = porcupine.Operation{ClientId: o.Client, Input: o, Call: o.Call, Output: nil, Return: ret}
	}
	return out
}

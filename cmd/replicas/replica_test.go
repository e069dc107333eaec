package replicas

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/graph"
	"telha.dev/lifecycle"
	"telha.dev/sources"
	"telha.dev/temporal"
	"telha.dev/vector"
)

// TestMain runs the tests, the etcd members of ProcessCluster and the
// replicas the tests start.
func TestMain(m *testing.M) { etcdtest.Main(m) }

func init() { storagetest.RegisterChild("replica", replicaMain) }

// callTimeout bounds one command of a replica.
const callTimeout = 2 * time.Minute

// vectorModel is the embedding model of the tests, registered by the
// parent (models are deployment-wide).
const vectorModel = "replicas-test"

// replica is one process of the deployment: every subsystem opened on one
// engine, for one tenant.
type replica struct {
	e       storage.Engine
	scope   storage.TenantScope
	graph   *graph.Graph
	vectors *vector.Store
	sources *sources.Store
}

// replicaMain serves the commands of a replica on the engine and tenant of
// args (etcdtest.ChildArgs); see do. With one more argument, "fault", its
// engine drops every batch's conditions (faultyEngine): the injected fault
// the linearizability check must catch.
func replicaMain(args []string) error {
	e, scope, rest, err := etcdtest.OpenChild(args)
	if err != nil {
		return err
	}
	defer e.Close()
	var eng storage.Engine = e
	if len(rest) > 0 && rest[0] == "fault" {
		eng = &faultyEngine{Engine: e}
	}
	r := &replica{e: eng, scope: scope, graph: graph.Open(eng, graph.Options{}), vectors: vector.New(eng), sources: sources.Open(eng, sources.Options{})}
	defer r.vectors.Close()
	return storagetest.ServeCommands(r.do)
}

// do runs one command:
//
//	provision SCOPE NAME   answers ok, taken or exists
//	ingest TEXT            ingests a document; answers its blob id, or
//	                       blocklisted
//	delete BLOB            deletes the document (lifecycle.DeleteSource)
//	redact BLOB START END  redacts one range; answers ok or bad-plan
//	read BLOB              answers the document's text, checked against
//	                       its hash
//	node ID VALUE          asserts node ID with property v = VALUE, and an
//	                       edge to itself of type "self"
//	get ID                 answers the node's v now, or absent
//	neighbors ID           answers the node's edges of type "self" now
//	vector ID X,Y          puts the node's vector
//	search X,Y             answers the nearest node (exact search), or none
//	erase ID               erases the node (lifecycle.EraseEntity)
//	erase-tenant           erases the tenant (lifecycle.EraseTenant)
//	export FILE            exports the tenant into FILE
//	import FILE            imports FILE into the tenant, provisioned and
//	                       empty
//	run DIR SECONDS CLIENTS PROCESS
//	                       records a history (history_test.go)
func (r *replica) do(cmd []string) (string, error) {
	if len(cmd) == 0 {
		return "", errors.New("no command")
	}
	arg := func(i int) string {
		if i < len(cmd) {
			return cmd[i]
		}
		return ""
	}
	id := func(i int) uuid.UUID { u, _ := uuid.Parse(arg(i)); return u }
	switch cmd[0] {
	case "provision":
		s, err := storagetest.ParseScope(arg(1))
		if err != nil {
			return "", err
		}
		_, err = lifecycle.Provision(r.e, s, arg(2))
		switch {
		case errors.Is(err, lifecycle.ErrNameTaken):
			return "taken", nil
		case errors.Is(err, lifecycle.ErrExists):
			return "exists", nil
		}
		return "ok", err
	case "ingest":
		b, _, err := r.sources.IngestBytes(r.scope, []byte(arg(1)))
		if errors.Is(err, sources.ErrBlocklisted) {
			return "blocklisted", nil
		}
		return b.ID.String(), err
	case "delete":
		_, err := lifecycle.DeleteSource(r.e, r.scope, id(1), lifecycle.RedactOptions{})
		return "ok", err
	case "redact":
		start, _ := strconv.ParseUint(arg(2), 10, 64)
		end, _ := strconv.ParseUint(arg(3), 10, 64)
		_, err := lifecycle.Redact(r.e, r.scope, id(1), []storage.BlobRange{{Start: start, End: end}}, lifecycle.RedactOptions{})
		if errors.Is(err, sources.ErrBadPlan) {
			return "bad-plan", nil
		}
		return "ok", err
	case "read":
		br, err := r.sources.Open(r.scope, id(1))
		if err != nil {
			return "", err
		}
		text, err := io.ReadAll(br)
		return string(text), errors.Join(err, br.Close())
	case "node":
		return "", r.node(id(1), arg(2))
	case "get":
		v, err := r.graph.Store().CurrentNode(r.scope, id(1))
		if errors.Is(err, temporal.ErrNotFound) {
			return "absent", nil
		}
		if err != nil {
			return "", err
		}
		return v.Props["v"].Str, nil
	case "neighbors":
		ns, err := r.graph.Neighbors(r.scope, id(1), graph.Out, temporal.Current(storage.TimestampOf(time.Now())), "self")
		return strconv.Itoa(len(ns)), err
	case "vector":
		v, err := parseVector(arg(2))
		if err != nil {
			return "", err
		}
		return "", r.vectors.Put(r.scope, id(1), vectorModel, 0, storage.TimestampOf(time.Now()), v)
	case "search":
		v, err := parseVector(arg(1))
		if err != nil {
			return "", err
		}
		hits, err := r.vectors.Search(r.scope, vector.Query{Model: vectorModel, Vector: v, K: 1, At: vector.Latest})
		if err != nil || len(hits) == 0 {
			return "none", err
		}
		return hits[0].Node.String(), nil
	case "erase":
		_, err := lifecycle.EraseEntity(r.e, r.scope, id(1), lifecycle.EraseOptions{})
		return "ok", err
	case "erase-tenant":
		_, err := lifecycle.EraseTenant(r.e, r.scope, lifecycle.EraseOptions{})
		return "ok", err
	case "export":
		f, err := os.Create(arg(1))
		if err != nil {
			return "", err
		}
		_, err = lifecycle.Export(r.e, r.scope, f, lifecycle.Options{})
		return "ok", errors.Join(err, f.Close())
	case "import":
		f, err := os.Open(arg(1))
		if err != nil {
			return "", err
		}
		defer f.Close()
		_, err = lifecycle.Import(r.e, r.scope, f, lifecycle.Options{})
		return "ok", err
	case "run":
		return r.run(cmd[1:])
	}
	return "", fmt.Errorf("unknown command %q", cmd)
}

// node asserts node id with property v and an edge to itself.
func (r *replica) node(id uuid.UUID, value string) error {
	always := temporal.Interval{Start: 0, End: temporal.Forever}
	if _, err := r.graph.Store().AssertNode(r.scope, temporal.NodeFact{ID: id, Valid: always, Props: temporal.Properties{"v": temporal.String(value)}}); err != nil {
		return err
	}
	_, err := r.graph.Store().AssertEdge(r.scope, temporal.EdgeFact{ID: uuid.NewSHA1(id, []byte("self")), From: id, To: id, Type: "self", Valid: always})
	return err
}

func parseVector(s string) ([]float32, error) {
	var v []float32
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(f, 32)
		if err != nil {
			return nil, fmt.Errorf("vector %q: %w", s, err)
		}
		v = append(v, float32(x))
	}
	return v, nil
}

// faultyEngine drops the conditions of every batch it writes: an engine
// without compare-and-set, as every engine was before conditional
// batches. The linearizability check must catch what it lets through.
type faultyEngine struct {
	storage.Engine
}

func (f *faultyEngine) Write(b *storage.Batch) error { return f.Engine.Write(unconditional(b)) }

func (f *faultyEngine) WriteDurable(b *storage.Batch) error {
	return f.Engine.WriteDurable(unconditional(b))
}

// unconditional returns b's mutations without its conditions.
func unconditional(b *storage.Batch) *storage.Batch {
	var out storage.Batch
	for _, m := range b.All() {
		switch m.Kind {
		case storage.MutationPut:
			out.Put(m.Key, m.Value)
		case storage.MutationDelete:
			out.Delete(m.Key)
		default:
			out.DeleteRange(m.Range)
		}
	}
	return &out
}

// start starts n replicas of tenant scope on cfg's namespace.
func start(t *testing.T, cfg etcd.Config, scope storage.TenantScope, n int, extra ...string) []*storagetest.Child {
	t.Helper()
	var out []*storagetest.Child
	for range n {
		args := append(etcdtest.ChildArgs(cfg, scope), extra...)
		out = append(out, storagetest.StartChild(t, "replica", args...))
	}
	return out
}

// call runs one command of c, failing the test on an error.
func call(t *testing.T, c *storagetest.Child, fields ...string) string {
	t.Helper()
	out, err := c.Call(callTimeout, fields...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// callAll runs one command on every replica at once and returns their
// answers in order.
func callAll(t *testing.T, cs []*storagetest.Child, fields func(i int) []string) []string {
	t.Helper()
	out := make([]string, len(cs))
	errs := make(chan error, len(cs))
	for i, c := range cs {
		go func() {
			var err error
			out[i], err = c.Call(callTimeout, fields(i)...)
			errs <- err
		}()
	}
	for range cs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	return out
}

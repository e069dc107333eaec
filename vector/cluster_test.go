package vector_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/vector"
)

// Several processes on one etcd namespace, each a child process of this
// test binary with a Store of its own, and so in-memory indexes of its
// own: what one process writes or wipes, another's next search sees.

func init() { storagetest.RegisterChild("vector", vectorChild) }

// clusterModel is the model of the tests, registered by the parent.
const clusterModel = "cluster-test"

// vectorChild serves a vector.Store on the engine and tenant of args
// (etcdtest.ChildArgs):
//
//	put NODE TX X,Y        puts the node's vector, valid from 0 on
//	search METHOD K X,Y    searches as of Latest (exact, approximate);
//	                       answers the nodes, nearest first
//	wipe                   wipes the tenant (storage.WipeTenant)
func vectorChild(args []string) error {
	e, scope, _, err := etcdtest.OpenChild(args)
	if err != nil {
		return err
	}
	defer e.Close()
	s := vector.New(e)
	defer s.Close()
	return storagetest.ServeCommands(func(cmd []string) (string, error) {
		switch {
		case len(cmd) == 4 && cmd[0] == "put":
			node, err := uuid.Parse(cmd[1])
			if err != nil {
				return "", err
			}
			tx, err := strconv.ParseInt(cmd[2], 10, 64)
			if err != nil {
				return "", err
			}
			v, err := parseVector(cmd[3])
			if err != nil {
				return "", err
			}
			return "", s.Put(scope, node, clusterModel, 0, storage.Timestamp(tx), v)
		case len(cmd) == 4 && cmd[0] == "search":
			method := map[string]vector.Method{"exact": vector.Exact, "approximate": vector.Approximate}[cmd[1]]
			k, err := strconv.Atoi(cmd[2])
			if err != nil {
				return "", err
			}
			v, err := parseVector(cmd[3])
			if err != nil {
				return "", err
			}
			hits, err := s.Search(scope, vector.Query{Model: clusterModel, Vector: v, K: k, At: vector.Latest, Method: method})
			var nodes []string
			for _, h := range hits {
				nodes = append(nodes, h.Node.String())
			}
			return strings.Join(nodes, " "), err
		case len(cmd) == 1 && cmd[0] == "wipe":
			return "", storage.WipeTenant(e, scope)
		}
		return "", fmt.Errorf("unknown command %q", cmd)
	})
}

func parseVector(s string) ([]float32, error) {
	var v []float32
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(f, 32)
		if err != nil {
			return nil, err
		}
		v = append(v, float32(x))
	}
	return v, nil
}

// searchChild runs one search through c and returns the nodes it found.
func searchChild(t *testing.T, c *storagetest.Child, method string, k int, v string) []string {
	t.Helper()
	out, err := c.Call(time.Minute, "search", method, strconv.Itoa(k), v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(out)
}

// Process b's index of a tenant and model is loaded (by a search) before
// process a writes a vector; b's next search, exact or approximate, finds
// it: the write advanced the sequence b's index is validated against.
// Then b wipes the tenant, and a's next search, whose index held the
// vector, finds nothing: the wipe advanced the tenant's generation.
func TestVectorWrittenThroughAnotherProcess(t *testing.T) {
	cfg := etcdtest.Config(t)
	registerModel(t, cfg)
	scope := storagetest.TenantScope(t)
	a := storagetest.StartChild(t, "vector", etcdtest.ChildArgs(cfg, scope)...)
	b := storagetest.StartChild(t, "vector", etcdtest.ChildArgs(cfg, scope)...)
	first, second := uuid.New(), uuid.New()
	call := func(c *storagetest.Child, fields ...string) {
		t.Helper()
		if _, err := c.Call(time.Minute, fields...); err != nil {
			t.Fatal(err)
		}
	}
	call(a, "put", first.String(), "1", "1,0")
	for _, method := range []string{"exact", "approximate"} {
		if got := searchChild(t, b, method, 2, "1,0"); len(got) != 1 || got[0] != first.String() {
			t.Fatalf("b's first %s search: %v, want the first node", method, got)
		}
	}
	call(a, "put", second.String(), "2", "0.9,0.1")
	for _, method := range []string{"exact", "approximate"} {
		if got := searchChild(t, b, method, 2, "1,0"); len(got) != 2 || got[1] != second.String() {
			t.Errorf("b's %s search after a's second write: %v, want both nodes", method, got)
		}
	}
	// a's own index holds both; b's wipe empties it for a's next search.
	if got := searchChild(t, a, "exact", 2, "1,0"); len(got) != 2 {
		t.Fatalf("a's search: %v, want both nodes", got)
	}
	call(b, "wipe")
	for _, method := range []string{"exact", "approximate"} {
		if got := searchChild(t, a, method, 2, "1,0"); len(got) != 0 {
			t.Errorf("a's %s search after b wiped the tenant: %v, want nothing", method, got)
		}
	}
}

// registerModel registers the tests' model, deployment-wide, through an
// engine of the test's.
func registerModel(t *testing.T, cfg etcd.Config) {
	t.Helper()
	e, err := etcd.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := vector.New(e)
	defer s.Close()
	if _, err := s.RegisterModel(clusterModel, 2, vector.L2, 1); err != nil {
		t.Fatal(err)
	}
}

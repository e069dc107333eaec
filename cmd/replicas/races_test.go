package replicas

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/vector"
)

// Six processes provision six tenants under one name at once: one gets
// it, the others find it taken. Then six provision one scope under six
// names at once: one provisions it, the others find it exists. Each
// round on a name and a scope no one has held.
func TestOneNameOneTenant(t *testing.T) {
	const n = 6
	cfg := etcdtest.Config(t)
	rs := start(t, cfg, storagetest.TenantScope(t), n)
	for round := range 3 {
		name := "acme-" + strings.Repeat("x", round)
		scopes := storagetest.TenantScopes(t, n)
		got := callAll(t, rs, func(i int) []string { return []string{"provision", storagetest.FormatScope(scopes[i]), name} })
		if ok := count(got, "ok"); ok != 1 || count(got, "taken") != n-1 {
			t.Errorf("round %d, one name: %v, want one ok and the rest taken", round, got)
		}
		scope := storagetest.FormatScope(storagetest.TenantScope(t))
		got = callAll(t, rs, func(i int) []string {
			return []string{"provision", scope, "name-" + string(rune('a'+round)) + string(rune('a'+i))}
		})
		if ok := count(got, "ok"); ok != 1 || count(got, "exists") != n-1 {
			t.Errorf("round %d, one scope: %v, want one ok and the rest exists", round, got)
		}
	}
}

// Four processes of four tenants, on a store that has no blocklist secret
// yet, each ingest one text and delete it at once, so that each creates
// the secret, or finds it, and blocklists the text under it. A new
// process of each tenant, which reads the secret afresh, must find the
// text blocklisted: every process used the one secret that won.
func TestOneBlocklistSecret(t *testing.T) {
	const n = 4
	cfg := etcdtest.Config(t)
	scopes := storagetest.TenantScopes(t, n)
	var rs []*storagetest.Child
	for _, s := range scopes {
		rs = append(rs, start(t, cfg, s, 1)...)
	}
	const text = "a passage every tenant deletes"
	blobs := callAll(t, rs, func(int) []string { return []string{"ingest", text} })
	callAll(t, rs, func(i int) []string { return []string{"delete", blobs[i]} })
	for i, s := range scopes {
		fresh := start(t, cfg, s, 1)[0]
		if got := call(t, fresh, "ingest", text); got != "blocklisted" {
			t.Errorf("tenant %d: the deleted text ingested again by a new process: %q", i, got)
		}
	}
}

// Four processes redact four ranges of one blob at once. Whichever land,
// each landed over the state it was planned from: the text read back (and
// checked against the hash its record holds) is the original without
// exactly the ranges whose redactions answered ok. Redactions planned from
// one state cannot both land; those that found it changed are bad-plan.
func TestRedactionsOfOneBlob(t *testing.T) {
	const original = "0123456789abcdefghijklmnopqrstuvwxyz"
	cfg := etcdtest.Config(t)
	rs := start(t, cfg, storagetest.TenantScope(t), 4)
	blob := call(t, rs[0], "ingest", original)
	ranges := [][2]int{{2, 4}, {10, 12}, {18, 20}, {26, 28}}
	got := callAll(t, rs, func(i int) []string {
		return []string{"redact", blob, strconv.Itoa(ranges[i][0]), strconv.Itoa(ranges[i][1])}
	})
	want := []byte(original)
	for i := len(ranges) - 1; i >= 0; i-- {
		if got[i] == "ok" {
			want = slices.Delete(want, ranges[i][0], ranges[i][1])
		}
	}
	if count(got, "ok")+count(got, "bad-plan") != len(rs) || count(got, "ok") == 0 {
		t.Fatalf("redactions: %v, want ok or bad-plan, at least one ok", got)
	}
	if text := call(t, rs[0], "read", blob); text != string(want) {
		t.Errorf("after redactions %v: the blob reads %q, want %q", got, text, want)
	}
	t.Logf("redactions at once: %v", got)
}

// What one process writes, another process's next request sees, through
// every cache: a node read (no cache), its typed neighbours (the edge type
// cache), a nearest-neighbour search (the in-memory vector index). An
// erasure of the node through the first process, then of the whole
// tenant, is seen by the other's next requests.
func TestWritesAndErasuresSeenByOtherProcesses(t *testing.T) {
	cfg := etcdtest.Config(t)
	registerModel(t, cfg)
	rs := start(t, cfg, storagetest.TenantScope(t), 2)
	a, b := rs[0], rs[1]
	x, y := uuid.NewString(), uuid.NewString()
	call(t, a, "node", x, "one")
	call(t, a, "vector", x, "1,0")
	for _, c := range [][2]string{{"get", "one"}, {"neighbors", "1"}, {"search", x}} {
		args := []string{c[0], x}
		if c[0] == "search" {
			args = []string{"search", "1,0"}
		}
		if out := call(t, b, args...); out != c[1] {
			t.Fatalf("b: %v = %q, want %q", args, out, c[1])
		}
	}
	call(t, a, "erase", x)
	for _, c := range [][2]string{{"get", "absent"}, {"neighbors", "0"}, {"search", "none"}} {
		args := []string{c[0], x}
		if c[0] == "search" {
			args = []string{"search", "1,0"}
		}
		if out := call(t, b, args...); out != c[1] {
			t.Errorf("b after a erased the node: %v = %q, want %q", args, out, c[1])
		}
	}
	call(t, a, "node", y, "two")
	call(t, a, "vector", y, "0,1")
	if out := call(t, b, "search", "1,0"); out != y {
		t.Errorf("b's search after a wrote another node: %q, want it", out)
	}
	call(t, a, "erase-tenant")
	if out := call(t, b, "search", "0,1"); out != "none" {
		t.Errorf("b's search after a erased the tenant: %q, want none", out)
	}
	if out := call(t, b, "get", y); out != "absent" {
		t.Errorf("b's read after a erased the tenant: %q, want absent", out)
	}
}

// An import through one process is seen by another's next search, whose
// index of the tenant was loaded while the tenant was empty: the import's
// last batch advanced the tenant's generation.
func TestImportSeenByOtherProcesses(t *testing.T) {
	cfg := etcdtest.Config(t)
	registerModel(t, cfg)
	from := start(t, cfg, storagetest.TenantScope(t), 1)[0]
	node := uuid.NewString()
	call(t, from, "node", node, "exported")
	call(t, from, "vector", node, "1,0")
	file := filepath.Join(t.TempDir(), "tenant.telha")
	call(t, from, "export", file)

	to := storagetest.TenantScope(t)
	rs := start(t, cfg, to, 2)
	a, b := rs[0], rs[1]
	if out := call(t, a, "provision", storagetest.FormatScope(to), "imported"); out != "ok" {
		t.Fatalf("provision the target: %s", out)
	}
	if out := call(t, b, "search", "1,0"); out != "none" {
		t.Fatalf("b's search of the empty tenant: %q", out)
	}
	call(t, a, "import", file)
	if out := call(t, b, "search", "1,0"); out != node {
		t.Errorf("b's search after a imported the tenant: %q, want the imported node", out)
	}
	if out := call(t, b, "get", node); out != "exported" {
		t.Errorf("b's read after the import: %q", out)
	}
}

// registerModel registers the tests' model, deployment-wide.
func registerModel(t *testing.T, cfg etcd.Config) {
	t.Helper()
	e, err := etcd.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := vector.New(e)
	defer s.Close()
	if _, err := s.RegisterModel(vectorModel, 2, vector.L2, 1); err != nil {
		t.Fatal(err)
	}
}

func count(answers []string, want string) int {
	n := 0
	for _, a := range answers {
		if a == want {
			n++
		}
	}
	return n
}

package authority_test

import (
	"slices"
	"strings"
	"testing"

	"telha.dev/analyzers/authority"
)

func TestRoot(t *testing.T) {
	root, ok := authority.Default.Root(pkg("telha.dev/core/storage/rocksdb", "rocksdb", "telha.dev/core", "/src/telha/core/storage/rocksdb/engine.go"))
	if !ok || root != "/src/telha" {
		t.Errorf("Root = %q, %v; want /src/telha", root, ok)
	}
	root, ok = authority.Default.Root(pkg("telha.dev/core/storage/etcd/cluster", "cluster", "telha.dev/core/storage/etcd", "/r/core/storage/etcd/cluster/c.go"))
	if !ok || root != "/r" {
		t.Errorf("Root of the etcd module = %q, %v; want /r", root, ok)
	}
}

func TestContains(t *testing.T) {
	const repo = "/src/telha"
	tests := []struct {
		name string
		pkg  authority.Package
		want bool
	}{
		{"the authority", pkg("telha.dev/core/storage", "storage", "telha.dev/core", repo+"/core/storage/key.go"), true},
		{"below it", pkg("telha.dev/core/storage/rocksdb", "rocksdb", "telha.dev/core", repo+"/core/storage/rocksdb/engine.go"), true},
		{"its in-package tests", pkg("telha.dev/core/storage", "storage", "telha.dev/core", repo+"/core/storage/key.go", repo+"/core/storage/key_test.go"), true},
		{"its external tests", pkg("telha.dev/core/storage_test", "storage_test", "telha.dev/core", repo+"/core/storage/x_test.go"), true},
		{"cgo files elsewhere do not place it", pkg("telha.dev/core/storage/rocksdb", "rocksdb", "telha.dev/core", "/root/.cache/go-build/ab/x.cgo1.go", repo+"/core/storage/rocksdb/engine.go"), true},
		{"the nested etcd module", pkg("telha.dev/core/storage/etcd", "etcd", "telha.dev/core/storage/etcd", repo+"/core/storage/etcd/engine.go"), true},
		{"below the etcd module", pkg("telha.dev/core/storage/etcd/cluster", "cluster", "telha.dev/core/storage/etcd", repo+"/core/storage/etcd/cluster/cluster.go"), true},
		{"the etcd module's external tests", pkg("telha.dev/core/storage/etcd_test", "etcd_test", "telha.dev/core/storage/etcd", repo+"/core/storage/etcd/engine_test.go"), true},

		{"the module outside the tree", pkg("telha.dev/core", "core", "telha.dev/core", repo+"/core/core.go"), false},
		{"a path that begins like the tree", pkg("telha.dev/core/storagex", "storagex", "telha.dev/core", repo+"/core/storagex/x.go"), false},
		{"a module named below the tree, elsewhere", pkg("telha.dev/core/storage/contrib", "contrib", "telha.dev/core/storage/contrib", repo+"/contrib/contrib.go"), false},
		{"a module named below the tree, inside its directory", pkg("telha.dev/core/storage/contrib", "contrib", "telha.dev/core/storage/contrib", repo+"/core/storage/contrib/contrib.go"), false},
		{"the etcd module's path, elsewhere", pkg("telha.dev/core/storage/etcd", "etcd", "telha.dev/core/storage/etcd", repo+"/graph/etcd/engine.go"), false},
		{"the authority's path in another module", pkg("telha.dev/core/storage", "storage", "telha.dev/graph", repo+"/core/storage/key.go"), false},
		{"the authority's path and module, elsewhere", pkg("telha.dev/core/storage", "storage", "telha.dev/core", repo+"/graph/storage/key.go"), false},
		{"only cgo files, elsewhere", pkg("telha.dev/core/storage/rocksdb", "rocksdb", "telha.dev/core", "/root/.cache/go-build/ab/x.cgo1.go"), false},
		{"no module", pkg("telha.dev/core/storage", "storage", "", repo+"/core/storage/key.go"), false},
		{"testdata", pkg("telha.dev/core/storage/testdata/x", "x", "telha.dev/core", repo+"/core/storage/testdata/x/x.go"), false},
		{"an underscore directory", pkg("telha.dev/core/storage/_x", "x", "telha.dev/core", repo+"/core/storage/_x/x.go"), false},
		{"a dot directory", pkg("telha.dev/core/storage/.x", "x", "telha.dev/core", repo+"/core/storage/.x/x.go"), false},
		{"vendor", pkg("telha.dev/core/storage/vendor/x", "x", "telha.dev/core", repo+"/core/storage/vendor/x/x.go"), false},
		{"a _test directory is not an external test", pkg("telha.dev/core/storage_test", "storage_test", "telha.dev/core", repo+"/core/storage_test/x_test.go"), false},
		{"a _test package with a non-test file", pkg("telha.dev/core/storage_test", "storage_test", "telha.dev/core", repo+"/core/storage/x.go"), false},
		{"a _test path of a package not named _test", pkg("telha.dev/core/storage_test", "storage", "telha.dev/core", repo+"/core/storage/x_test.go"), false},
		{"a directory that ends like the tree", pkg("telha.dev/core/storage", "storage", "telha.dev/core", "/src/mycore/storage/key.go"), false},
	}
	for _, tt := range tests {
		if got := authority.Default.Contains(tt.pkg); got != tt.want {
			t.Errorf("%s: Contains(%+v) = %v, want %v", tt.name, tt.pkg, got, tt.want)
		}
	}
}

func pkg(path, name, module string, files ...string) authority.Package {
	return authority.Package{Path: path, Name: name, Module: module, Files: files}
}

func TestIsBinding(t *testing.T) {
	for path, want := range map[string]bool{
		"github.com/linxGnu/grocksdb":         true,
		"github.com/linxGnu/grocksdb/sub":     true,
		"go.etcd.io/etcd/client/v3":           true,
		"go.etcd.io/etcd/server/v3/embed":     true,
		"go.etcd.io/etcd/api/v3/etcdserverpb": true,
		"go.etcd.io/bbolt":                    true,
		"go.etcd.io/raft/v3":                  true,
		"github.com/linxGnu/grocksdbx":        false,
		"go.etcd.io/etcdx":                    false,
		"telha.dev/core/storage":              false,
	} {
		if got := authority.Default.IsBinding(path); got != want {
			t.Errorf("IsBinding(%q) = %v, want %v", path, got, want)
		}
	}
}

// base is a valid configuration: the authority and the module of jobs.
const base = "authority telha.dev/core core storage\nmodule telha.dev/jobs jobs\n"

func TestParseGrants(t *testing.T) {
	c, err := authority.Parse(base + "grant telha.dev/jobs/kernel asm SIMD kernels in AVX2 # reviewed\ngrant telha.dev/jobs/kernel unsafe aligned loads of float32 slices\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []authority.Grant{
		{Package: "telha.dev/jobs/kernel", Capability: authority.Asm, Reason: "SIMD kernels in AVX2"},
		{Package: "telha.dev/jobs/kernel", Capability: authority.Unsafe, Reason: "aligned loads of float32 slices"},
	}
	if !slices.Equal(c.Grants, want) {
		t.Errorf("Grants = %+v, want %+v", c.Grants, want)
	}
}

// TestHolds places packages by module and directory: the identity that
// facades and grants rely on.
func TestHolds(t *testing.T) {
	const repo = "/src/telha"
	c, err := authority.Parse(base + "module telha.dev jobsroot\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ip   string
		tree bool
		pkg  authority.Package
		want bool
	}{
		{"the module's root", "telha.dev/jobs", false, pkg("telha.dev/jobs", "jobs", "telha.dev/jobs", repo+"/jobs/jobs.go"), true},
		{"its external tests", "telha.dev/jobs", false, pkg("telha.dev/jobs_test", "jobs_test", "telha.dev/jobs", repo+"/jobs/x_test.go"), true},
		{"a package of the tree", "telha.dev/jobs", true, pkg("telha.dev/jobs/reaper", "reaper", "telha.dev/jobs", repo+"/jobs/reaper/r.go"), true},
		{"a package below, not the tree", "telha.dev/jobs", false, pkg("telha.dev/jobs/reaper", "reaper", "telha.dev/jobs", repo+"/jobs/reaper/r.go"), false},
		{"a package of a tree inside the module", "telha.dev/jobs/reaper", true, pkg("telha.dev/jobs/reaper/x", "x", "telha.dev/jobs", repo+"/jobs/reaper/x/x.go"), true},
		{"a module telha.dev holding jobs/", "telha.dev/jobs", true, pkg("telha.dev/jobs", "jobs", "telha.dev", repo+"/jobsroot/jobs/jobs.go"), false},
		{"a module of its own below", "telha.dev/jobs", true, pkg("telha.dev/jobs/contrib", "contrib", "telha.dev/jobs/contrib", repo+"/jobs/contrib/c.go"), false},
		{"a path that begins like it", "telha.dev/jobs", true, pkg("telha.dev/jobsx", "jobsx", "telha.dev/jobsx", repo+"/jobsx/x.go"), false},
		{"the module, elsewhere", "telha.dev/jobs", true, pkg("telha.dev/jobs", "jobs", "telha.dev/jobs", repo+"/graph/jobs.go"), false},
		{"testdata of the module", "telha.dev/jobs", true, pkg("telha.dev/jobs/testdata/x", "x", "telha.dev/jobs", repo+"/jobs/testdata/x/x.go"), false},
		{"a module no line names", "telha.dev/graph", true, pkg("telha.dev/graph", "graph", "telha.dev/graph", repo+"/graph/g.go"), false},
	}
	for _, tt := range tests {
		if got := c.Holds(tt.ip, tt.tree, tt.pkg, repo); got != tt.want {
			t.Errorf("%s: Holds(%q, %v, %+v, %q) = %v, want %v", tt.name, tt.ip, tt.tree, tt.pkg, repo, got, tt.want)
		}
	}
	// The root decides between two repositories laid out alike; without
	// one, the layout alone does.
	other := pkg("telha.dev/jobs", "jobs", "telha.dev/jobs", "/elsewhere/jobs/jobs.go")
	if c.Holds("telha.dev/jobs", true, other, repo) {
		t.Error("the jobs module of another repository is held with the root of this one")
	}
	if !c.Holds("telha.dev/jobs", true, other, "") {
		t.Error("without a root, a module laid out as authority.conf says is not held")
	}
}

func TestIsFixture(t *testing.T) {
	for dir, want := range map[string]bool{
		"analyzers/testdata":                true,
		"analyzers/bytekey/testdata":        true,
		"analyzers/bytekey/testdata/src":    true,
		"analyzers/internal/marks/testdata": true,
		"cmd/telhavet/testdata/bypass":      true,
		"analyzers/bytekey":                 false,
		"cmd/telha/testdata":                false,
		"lifecycle/testdata":                false,
	} {
		if got := authority.Default.IsFixture(dir); got != want {
			t.Errorf("IsFixture(%q) = %v, want %v", dir, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{
		"",
		"# only a comment\n",
		"authority telha.dev/core core\n",
		"authority telha.dev/core /abs storage\n",
		"authority telha.dev/core ../core storage\n",
		"authority telha.dev/core core storage/../x\n",
		"frobnicate x\n",
		"binding\n",
		base + "module telha.dev/jobs /abs\n",
		base + "module telha.dev/jobs jobs\nmodule telha.dev/jobs other\n",
		base + "module telha.dev/jobs jobs\nmodule telha.dev/other jobs\n",
		base + "module telha.dev/jobs\n",
		base + "grant telha.dev/jobs unsafe\n",                                    // no reason
		base + "grant telha.dev/jobs unsafe needed\n",                             // a one-word reason
		base + "grant telha.dev/jobs sorcery SIMD kernels need it\n",              // no such capability
		base + "grant telha.dev/nowhere unsafe SIMD kernels need it\n",            // no module holds it
		base + "grant telha.dev/core/storage/x unsafe the authority needs none\n", // in the authority
		base + "grant telha.dev/jobs/k unsafe SIMD kernels\ngrant telha.dev/jobs/k unsafe again, twice\n",
		base + "fixtures\n",
		base + "fixtures ../up\n",
		base + "fixtures a/[b\n",
	} {
		if _, err := authority.Parse(text); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", text)
		} else if !strings.Contains(err.Error(), "authority.conf") {
			t.Errorf("Parse(%q): error %q does not name the file", text, err)
		}
	}
}

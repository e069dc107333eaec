package authority_test

import (
	"strings"
	"testing"

	"telha.dev/analyzers/authority"
)

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
	} {
		if _, err := authority.Parse(text); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", text)
		} else if !strings.Contains(err.Error(), "authority.conf") {
			t.Errorf("Parse(%q): error %q does not name the file", text, err)
		}
	}
}

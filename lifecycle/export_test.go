package lifecycle

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/tenants"
)

// An export imported into an empty store of every engine kind and
// exported again gives the same file, byte for byte: the same rows, in
// every family. This is how a tenant moves between engines.
func TestRoundTripAcrossEngines(t *testing.T) {
	a, b := scopeN(t, 1), scopeN(t, 2)
	storagetest.EachEngine(t, func(t *testing.T, src *storagetest.Env) {
		provision(t, src.Engine, a, "acme")
		provision(t, src.Engine, b, "beta")
		fill(t, src.Engine, a, 50, 40)
		fill(t, src.Engine, b, 7, 10)
		file := export(t, src.Engine, a)
		st, err := readExport(bytes.NewReader(file), a, Options{}.ticker("verify"), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, cf := range st.Families {
			if want := uint64(len(rowsOf(t, src.Engine, a)[cf])); st.Rows[i] != want || want == 0 {
				t.Fatalf("export holds %d %s rows, the store %d", st.Rows[i], cf, want)
			}
		}
		storagetest.EachEngine(t, func(t *testing.T, dst *storagetest.Env) {
			provision(t, dst.Engine, a, "acme")
			imported, err := Import(dst.Engine, a, bytes.NewReader(file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(imported.Rows, st.Rows) || imported.Bytes != int64(len(file)) {
				t.Fatalf("import stats %+v, export %+v", imported, st)
			}
			again := export(t, dst.Reopen(t), a)
			if !bytes.Equal(again, file) {
				t.Fatalf("export after import differs: %d bytes, first %d", len(again), len(file))
			}
		})
	})
}

// An import into another scope of the same store holds the same rows
// under the new scope, temporal index values included; the source and the
// other tenants are untouched.
func TestImportUnderAnotherScope(t *testing.T) {
	a, b, c := scopeN(t, 1), scopeN(t, 2), scopeN(t, 3)
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		provision(t, e, a, "acme")
		provision(t, e, b, "beta")
		provision(t, e, c, "copy")
		fill(t, e, a, 20, 0)
		fill(t, e, b, 5, 0)
		fileA, fileB := export(t, e, a), export(t, e, b)
		if _, err := Import(e, c, bytes.NewReader(fileA), Options{}); err != nil {
			t.Fatal(err)
		}
		assertRescoped(t, e, a, c)
		src, dst := rowsOf(t, e, a), rowsOf(t, e, c)
		if cf := storage.ValidTimeIndex; bytes.Equal(dst[cf][0].Value, src[cf][0].Value) {
			t.Fatal("the index value still names the source scope")
		}
		if !bytes.Equal(export(t, e, a), fileA) || !bytes.Equal(export(t, e, b), fileB) {
			t.Fatal("the import changed the source or another tenant")
		}
	})
}

// zeroScope is the zero TenantScope, which is no scope.
var zeroScope storage.TenantScope

func TestImportRefusesTarget(t *testing.T) {
	a, b := scopeN(t, 1), scopeN(t, 2)
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		provision(t, e, a, "acme")
		fill(t, e, a, 3, 0)
		file := export(t, e, a)
		for _, tt := range []struct {
			name  string
			setup func()
			to    storage.TenantScope
			want  error
		}{
			{"zero scope", nil, zeroScope, tenants.ErrNilScope},
			{"not provisioned", nil, b, tenants.ErrUnknownTenant},
			{"not empty", nil, a, ErrTargetNotEmpty},
			{"erasing", func() {
				provision(t, e, b, "beta")
				if err := tenants.SetState(e, b, tenants.Erasing); err != nil {
					t.Fatal(err)
				}
			}, b, ErrNotActive},
		} {
			t.Run(tt.name, func(t *testing.T) {
				if tt.setup != nil {
					tt.setup()
				}
				if _, err := Import(e, tt.to, bytes.NewReader(file), Options{}); !errors.Is(err, tt.want) {
					t.Fatalf("import = %v, want %v", err, tt.want)
				}
			})
		}
		if _, err := Export(e, b, &bytes.Buffer{}, Options{}); !errors.Is(err, ErrNotActive) {
			t.Fatalf("export of an erasing tenant = %v, want ErrNotActive", err)
		}
		if _, err := Export(e, zeroScope, &bytes.Buffer{}, Options{}); !errors.Is(err, tenants.ErrNilScope) {
			t.Fatalf("export of the zero scope = %v, want ErrNilScope", err)
		}
		if _, err := Import(nil, a, bytes.NewReader(file), Options{}); !errors.Is(err, storage.ErrNotOpen) {
			t.Fatalf("import without an engine = %v, want storage.ErrNotOpen", err)
		}
	})
}

// A scope the registry does not hold is exported with no name, and its
// export imports like any other.
func TestExportUnregistered(t *testing.T) {
	a := scopeN(t, 1)
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		fill(t, env.Engine, a, 2, 0)
		x, err := newExportReader(bytes.NewReader(export(t, env.Engine, a)))
		if err != nil || x.header.Name != "" || x.header.Scope != a {
			t.Fatalf("header %+v, %v; want scope %s and no name", x, err, a)
		}
	})
}

// Long work reports progress: now and then, and once at the end of each
// phase with the whole count.
func TestProgress(t *testing.T) {
	a, b := scopeN(t, 1), scopeN(t, 2)
	e := storage.NewMemoryEngine()
	defer e.Close()
	provision(t, e, a, "acme")
	provision(t, e, b, "copy")
	fill(t, e, a, 600, 0) // 9000 rows
	var calls []string
	var last uint64
	opt := Options{ProgressEvery: time.Nanosecond, Progress: func(phase string, rows uint64, _ int64) {
		calls = append(calls, phase)
		last = rows
	}}
	var buf bytes.Buffer
	if _, err := Export(e, a, &buf, opt); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(e, b, bytes.NewReader(buf.Bytes()), opt); err != nil {
		t.Fatal(err)
	}
	want := []string{"export", "export", "export", "verify", "verify", "verify", "import", "import", "import"}
	if !slices.Equal(calls, want) || last != 9000 {
		t.Fatalf("progress calls %v, last count %d; want %v and 9000", calls, last, want)
	}
}

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
)

// engineFixture is a store with one provisioned tenant, acme, for the
// tests that run every command on each engine.
type engineFixture struct {
	name  string
	flags []string // the store flags that name it
	// outputs is a directory for the files a command would write; a
	// refused command must leave it empty.
	outputs string
	// stranger is a scope the registry does not hold.
	stranger string
}

// fixtures returns a RocksDB store and an etcd namespace (of the shared
// test cluster), each with acme provisioned through the CLI.
func fixtures(t *testing.T) []engineFixture {
	t.Helper()
	for _, env := range []string{envData, envEndpoints, envNamespace} {
		t.Setenv(env, "")
	}
	cfg := etcdtest.Config(t)
	fxs := []engineFixture{
		{name: "rocksdb", flags: []string{"-data", filepath.Join(t.TempDir(), "store")}},
		{name: "etcd", flags: []string{"-etcd", strings.Join(cfg.Endpoints, ","), "-namespace", cfg.Namespace}},
	}
	scope := lifecycle.FormatScope(storagetest.TenantScope(t))
	for i := range fxs {
		fxs[i].outputs = t.TempDir()
		fxs[i].stranger = lifecycle.FormatScope(storagetest.TenantScope(t))
		mustTelha(t, append(append([]string{"tenant", "provision"}, fxs[i].flags...), "-scope", scope, "-name", "acme")...)
	}
	return fxs
}

// validArgs are, per command, flags and arguments that make the rest of
// its invocation valid, so that one mistake at a time is what is refused.
func validArgs(c *command, fx engineFixture) []string {
	out := func(name string) string { return filepath.Join(fx.outputs, name) }
	switch c.path {
	case "tenant provision":
		return []string{"-name", "other"}
	case "tenant export":
		return []string{"-o", out("export")}
	case "tenant import", "source put":
		return []string{out("input")}
	case "entity erase", "source get", "source facts", "source delete":
		return []string{"-id", uuid.NewString()}
	case "source redact":
		return []string{"-id", uuid.NewString(), "-range", "0:1"}
	case "checkpoint":
		return []string{"-to", out("ckpt")}
	case "ledger export":
		return []string{"-o", out("ledger")}
	case "key revoke":
		return []string{"-id", uuid.NewString()}
	case "debug keys":
		return []string{"-family", "node_versions"}
	case "debug decode-key":
		return []string{"node_versions", "00"}
	case "restore":
		return []string{"-from", out("ckpt"), "-data", out("restored"), "-ledger", out("ledger")}
	case "cluster":
		return []string{"-data", out("cluster")}
	case "repair":
		return []string{"-data", out("repaired")}
	}
	return nil
}

// mistake is one common mistake: the arguments after the command's path
// and the words its one line on stderr must hold.
type mistake struct {
	args []string
	want string
}

// specificMistakes are the mistakes of each command beyond those every
// command of its kind shares (commonMistakes).
func specificMistakes(c *command, fx engineFixture, base []string) []mistake {
	with := func(args ...string) []string { return append(slices.Clone(base), args...) }
	store := fx.flags
	switch c.path {
	case "demo":
		if fx.name == "etcd" {
			return []mistake{{with("-force"), "-etcd excludes -data and -force"}}
		}
		return []mistake{{[]string{"-data"}, "flag needs an argument"}}
	case "cluster":
		return []mistake{{nil, "-data is required"}, {[]string{"-data", fx.outputs, "-members", "x"}, "invalid argument"}}
	case "repair":
		return []mistake{{nil, "missing -data DIR"}}
	case "tenant provision":
		return []mistake{{append(slices.Clone(store), "-scope", "x:y", "-name", "ok"), `"x:y"`},
			{append(slices.Clone(store), "-scope", fx.stranger), "missing -name"}}
	case "tenant list", "ledger list":
		return []mistake{{with("extra"), `unexpected argument "extra"`}}
	case "debug layout":
		return []mistake{{with("extra"), `takes no arguments, not "extra"`}}
	case "tenant erase":
		return []mistake{{append(slices.Clone(store), "-scope", "nobody", "-yes"), "unknown tenant"}}
	case "tenant export":
		return []mistake{{append(slices.Clone(store), "-scope", "acme"), "missing -o FILE"}}
	case "tenant import", "source put":
		return []mistake{{append(slices.Clone(store), "-scope", "acme"), "missing FILE"}}
	case "tenant verify":
		return []mistake{{append(slices.Clone(store), "-scope", "nobody"), "unknown tenant"}}
	case "entity erase":
		return []mistake{{append(slices.Clone(store), "-scope", "acme", "-id", "x"), "not a non-nil UUID"}}
	case "source get", "source facts":
		return []mistake{{append(slices.Clone(store), "-scope", "acme"), "missing -id"}, {append(slices.Clone(store), "-scope", "acme", "-id", "x"), "is not a blob id"}}
	case "source redact":
		return []mistake{{append(slices.Clone(store), "-scope", "acme", "-id", uuid.NewString()), "missing -range"},
			{with("-range", "5"), "is not START:END"}}
	case "source delete":
		return []mistake{{with("-range", "0:1"), "-range is for source redact"}}
	case "checkpoint":
		return []mistake{{store, "-to"}}
	case "restore":
		return []mistake{{nil, "all required"}}
	case "ledger export":
		return []mistake{{store, "-o"}}
	case "debug decode-key":
		return []mistake{{[]string{"nodes", "00"}, `unknown column family "nodes"`}, {[]string{"node_versions"}, "want <family> <hex>"},
			{[]string{"node_versions", "zz"}, "bad hex"}}
	case "serve":
		return []mistake{{with("-tls-cert", "cert.pem"), "give both a TLS certificate and its key"},
			{with("-listen", "127.0.0.1:x"), "bad server configuration"}}
	case "key create":
		return []mistake{{append(slices.Clone(store), "-scope", fx.stranger), "unknown tenant"}, {with("-expires", "x"), "invalid argument"}}
	case "key list":
		return []mistake{{with("extra"), `unexpected argument "extra"`}}
	case "key revoke":
		return []mistake{{store, "missing -id KEY_ID"}, {with("-id", "x"), `"x" is not a key id`}}
	case "debug keys":
		return []mistake{{append(slices.Clone(store), "-scope", "acme"), "missing -family"}, {with("-limit", "0"), "-limit 0"},
			{with("-after", "zz"), "bad hex"}}
	}
	return nil
}

// commonMistakes are the mistakes every command of its kind can make:
// an unknown flag; for a command of the store kit, no store, or two; no
// -scope; a bad -o; a scope the registry does not hold, and no -yes
// without a terminal, for a destroying command.
func commonMistakes(c *command, fx engineFixture, valid []string) []mistake {
	var scope []string
	if c.scope {
		scope = []string{"-scope", "acme"}
	}
	var store []string
	if c.store != storeNone {
		store = fx.flags
	}
	base := slices.Concat(store, scope, valid)
	ms := []mistake{{append(slices.Clone(base), "-bogus"), "flag provided but not defined: -bogus"}}
	if c.store != storeNone && c.store != storeDemo {
		ms = append(ms, mistake{slices.Concat(scope, valid), "missing -data DIR (or -etcd ENDPOINTS)"},
			mistake{slices.Concat(base, []string{"-data", fx.outputs, "-etcd", "127.0.0.1:1"}), "-etcd excludes -data"})
	}
	if c.scope {
		ms = append(ms, mistake{slices.Concat(store, valid), "missing -scope TENANT:ORG|NAME"})
	}
	if c.output != "" {
		ms = append(ms, mistake{append(slices.Clone(base), "-o", "yaml"), "want -o table or -o json"})
	}
	if c.define != nil && definesFlag(c, "unregistered") {
		unknown := slices.Concat(store, []string{"-scope", fx.stranger}, valid)
		ms = append(ms, mistake{append(slices.Clone(unknown), "-yes"), "is not in the tenant registry"},
			mistake{base, "pass -yes"})
	}
	return append(ms, specificMistakes(c, fx, base)...)
}

// definesFlag reports whether command c defines the flag name of its own.
func definesFlag(c *command, name string) bool {
	root := newRoot(nil, nil)
	cmd, _, err := root.Find(strings.Fields(c.path))
	return err == nil && cmd.Flags().Lookup(name) != nil
}

// TestEveryCommand runs every command of the table with -h (exit 0, its
// usage on stdout) and with each of its common mistakes (exit 2, one line
// on stderr, nothing written), on RocksDB and on etcd.
func TestEveryCommand(t *testing.T) {
	fxs := fixtures(t)
	// Standard input is not a terminal: a destroying command wants -yes.
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	terminal = devNull
	defer func() { terminal = os.Stdin }()

	for _, fx := range fxs {
		for i := range commandTable {
			c := &commandTable[i]
			if c.hidden || (fx.name == "etcd" && c.store == storeNone) {
				continue
			}
			path := strings.Fields(c.path)
			var store []string
			if c.store != storeNone {
				store = fx.flags
			}
			for _, h := range []string{"-h", "--help"} {
				code, out, errOut := telha(t, slices.Concat(path, store, []string{h})...)
				if code != exitOK || !strings.HasPrefix(out, "usage: telha "+c.synopsis+"\n") || errOut != "" {
					t.Errorf("%s: telha %s %s: exit %d, stdout %q, stderr %q; want exit 0 and the usage", fx.name, c.path, h, code, out, errOut)
				}
			}
			ms := commonMistakes(c, fx, validArgs(c, fx))
			if len(specificMistakes(c, fx, nil)) == 0 {
				t.Errorf("%s: no common mistakes of its own in specificMistakes", c.path)
			}
			for _, m := range ms {
				args := slices.Concat(path, m.args)
				code, out, errOut := telha(t, args...)
				if code != exitUsage || out != "" || !strings.Contains(errOut, m.want) || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "telha: ") {
					t.Errorf("%s: telha %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q",
						fx.name, strings.Join(args, " "), code, out, errOut, m.want)
				}
			}
		}
		if entries, err := os.ReadDir(fx.outputs); err != nil || len(entries) != 0 {
			t.Errorf("%s: the refused commands wrote %v (%v)", fx.name, entries, err)
		}
		if out := mustTelha(t, slices.Concat([]string{"ledger", "list"}, fx.flags, []string{"-o", "json"})...); strings.TrimSpace(out) != "[]" {
			t.Errorf("%s: the refused commands wrote ledger entries: %s", fx.name, out)
		}
		if out := mustTelha(t, slices.Concat([]string{"tenant", "list"}, fx.flags)...); strings.Count(out, "\n") != 2 || !strings.Contains(out, "acme ") {
			t.Errorf("%s: the refused commands changed the registry:\n%s", fx.name, out)
		}
	}
}

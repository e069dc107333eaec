package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
)

// TestStoreKitOnEtcd runs the tenant, source, ledger and checkpoint
// commands against a namespace of an etcd cluster, named by flags and then
// by the environment, as they run against RocksDB.
func TestStoreKitOnEtcd(t *testing.T) {
	cfg := etcdtest.Config(t)
	endpoints := strings.Join(cfg.Endpoints, ",")
	store := []string{"-etcd", endpoints, "-namespace", cfg.Namespace}
	on := func(args ...string) []string { return slices.Concat(args, store) }
	scope := lifecycle.FormatScope(storagetest.TenantScope(t))

	mustTelha(t, on("tenant", "provision", "-scope", scope, "-name", "acme")...)
	tenants := telhaJSON[[]tenantRow](t, exitOK, on("tenant", "list")...)
	if len(tenants) != 1 || tenants[0].Name != "acme" || tenants[0].Scope != scope {
		t.Fatalf("tenant list on etcd: %+v", tenants)
	}
	doc := writeDoc(t, t.TempDir(), "doc.txt", "acme's notes on etcd\n")
	blob := strings.TrimSpace(mustTelha(t, on("source", "put", "-scope", "acme", doc)...))
	if got := mustTelha(t, on("source", "get", "-scope", "acme", "-id", blob)...); got != "acme's notes on etcd\n" {
		t.Errorf("source get on etcd: %q", got)
	}
	export := filepath.Join(t.TempDir(), "acme.telha")
	mustTelha(t, on("tenant", "export", "-scope", "acme", "-o", export)...)
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	if out := mustTelha(t, on("checkpoint", "-to", ckpt)...); !strings.Contains(out, "etcd "+endpoints) {
		t.Errorf("checkpoint on etcd says %q", out)
	}

	// The environment stands in for the flags.
	t.Setenv(envEndpoints, endpoints)
	t.Setenv(envNamespace, cfg.Namespace)
	t.Setenv(envData, "")
	r := telhaJSON[erasureReport](t, exitOK, "tenant", "erase", "-scope", "acme", "-yes")
	if r.Rows == 0 || r.Verified == nil || r.Scope != scope {
		t.Errorf("tenant erase on etcd: %+v", r)
	}
	entries := telhaJSON[[]ledgerRow](t, exitOK, "ledger", "list")
	if len(entries) != 1 || entries[0].Kind != "tenant" || entries[0].Scope != scope {
		t.Errorf("ledger list on etcd: %+v", entries)
	}
	if v := telhaJSON[familyReport](t, exitOK, "tenant", "verify", "-scope", scope); v.Rows != 0 || v.State != "erased" {
		t.Errorf("tenant verify on etcd after the erasure: %+v", v)
	}
	t.Setenv(envData, t.TempDir())
	if code, _, errOut := telha(t, "tenant", "list"); code != exitUsage || !strings.Contains(errOut, "TELHA_DATA and TELHA_ETCD_ENDPOINTS are both set") {
		t.Errorf("both environment variables: exit %d, %q", code, errOut)
	}
}

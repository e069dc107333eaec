package cluster

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLayout checks what a cluster directory may hold: a new one gets a
// layout that a restart reads back; a restart that asks for other members,
// ports or limits, and a damaged layout, are refused with ErrLayout.
func TestLayout(t *testing.T) {
	dir := t.TempDir()
	created, err := loadOrCreateLayout(Config{Dir: dir, Port: 40000})
	if err != nil {
		t.Fatal(err)
	}
	if len(created.Members) != DefaultMembers || created.MaxTxnOps != DefaultMaxTxnOps || created.MaxRequestBytes != DefaultMaxRequestBytes {
		t.Fatalf("new layout %+v, want the defaults", created)
	}
	for i, m := range created.Members {
		if m.ClientPort != 40000+2*i || m.PeerPort != 40000+2*i+1 {
			t.Errorf("member %d: ports %d and %d, want %d and %d", i, m.ClientPort, m.PeerPort, 40000+2*i, 40000+2*i+1)
		}
	}
	again, err := loadOrCreateLayout(Config{Dir: dir})
	if err != nil || again.Token != created.Token || again.initialCluster() != created.initialCluster() {
		t.Fatalf("restart read %+v, %v; want the layout it created", again, err)
	}
	for name, cfg := range map[string]Config{
		"other members":       {Dir: dir, Members: 5},
		"other port":          {Dir: dir, Port: 41000},
		"other txn limit":     {Dir: dir, MaxTxnOps: 10},
		"other request limit": {Dir: dir, MaxRequestBytes: 10},
		"other election":      {Dir: dir, ElectionTimeout: 5 * time.Second},
		"even members":        {Dir: t.TempDir(), Members: 2},
		"too many members":    {Dir: t.TempDir(), Members: 9},
		"ports past 65535":    {Dir: t.TempDir(), Port: 65531},
	} {
		if _, err := loadOrCreateLayout(cfg); !errors.Is(err, ErrLayout) {
			t.Errorf("%s: %v, want ErrLayout", name, err)
		}
	}
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]Config{
		"a directory of other files": {Dir: foreign},
		"a file":                     {Dir: file},
		"a path under a file":        {Dir: filepath.Join(file, "cluster")},
	} {
		if _, err := loadOrCreateLayout(cfg); !errors.Is(err, ErrLayout) {
			t.Errorf("%s: %v, want ErrLayout", name, err)
		}
	}
	if entries, _ := os.ReadDir(foreign); len(entries) != 1 {
		t.Errorf("a refused directory of other files holds %d entries, want its 1", len(entries))
	}
	for name, content := range map[string]string{
		"not JSON":                   "{",
		"no members":                 `{"token":"t","members":[],"maxTxnOps":1,"maxRequestBytes":1}`,
		"no token":                   `{"members":[{"name":"m","clientPort":1,"peerPort":2}],"maxTxnOps":1,"maxRequestBytes":1,"electionMs":1000}`,
		"election timeout too short": `{"token":"t","members":[{"name":"m","clientPort":1,"peerPort":2}],"maxTxnOps":1,"maxRequestBytes":1,"electionMs":5}`,
	} {
		damaged := t.TempDir()
		if err := os.WriteFile(filepath.Join(damaged, layoutFile), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := loadOrCreateLayout(Config{Dir: damaged}); !errors.Is(err, ErrLayout) {
			t.Errorf("%s: %v, want ErrLayout", name, err)
		}
	}
}

// TestFreePorts checks that a layout without a port gets distinct ports.
func TestFreePorts(t *testing.T) {
	l, err := loadOrCreateLayout(Config{Dir: t.TempDir(), Members: 5})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, m := range l.Members {
		for _, p := range []int{m.ClientPort, m.PeerPort} {
			if p == 0 || seen[p] {
				t.Errorf("port %d given twice or zero", p)
			}
			seen[p] = true
		}
	}
}

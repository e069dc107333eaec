package main

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// TestJSONOutput runs every command of the table that prints data with
// -o json and decodes its output into the type its entry documents,
// refusing unknown fields; each case checks what the value says.
func TestJSONOutput(t *testing.T) {
	dir, kept, gone, node := erasureStore(t)
	doc := writeDoc(t, t.TempDir(), "doc.txt", "kept's notes: alice knows bob\n")
	blob := strings.TrimSpace(mustTelha(t, "source", "put", "-data", dir, "-scope", "kept", doc))

	checked := map[string]bool{}
	check := func(path string, v any, ok bool, what string) {
		t.Helper()
		c := entry(path)
		if c == nil {
			t.Fatalf("%s: not in the table", path)
		}
		if got := strings.TrimPrefix(fmt.Sprintf("%T", v), "main."); strings.ReplaceAll(got, "main.", "") != c.output {
			t.Errorf("%s prints a %s, its entry documents a %s", path, got, c.output)
		}
		if !ok {
			t.Errorf("%s -o json: %s: %+v", path, what, v)
		}
		checked[path] = true
	}

	tenants := telhaJSON[[]tenantRow](t, exitOK, "tenant", "list", "-data", dir)
	check("tenant list", tenants, len(tenants) == 2 && tenants[0].Scope != "" && tenants[0].State == "active" && !tenants[0].Provisioned.IsZero(), "want kept and gone, active")

	v := telhaJSON[familyReport](t, exitError, "tenant", "verify", "-data", dir, "-scope", "kept")
	check("tenant verify", v, v.Scope == kept && v.Name == "kept" && v.Rows > 0 && len(v.Families) == 13, "want kept's rows in 13 families")

	facts := telhaJSON[[]factRow](t, exitOK, "source", "facts", "-data", dir, "-scope", "kept", "-id", blob)
	check("source facts", facts, facts != nil && len(facts) == 0, "want an empty list: no facts were recorded")

	page := telhaJSON[keyPage](t, exitOK, "debug", "keys", "-data", dir, "-scope", "gone", "-family", "node_versions", "-limit", "30")
	check("debug keys", page, len(page.Keys) == 30 && page.Next == page.Keys[29].Hex && strings.HasPrefix(page.Keys[0].Key, "node_versions "), "want a page of 30 and its next")
	rest := telhaJSON[keyPage](t, exitOK, "debug", "keys", "-data", dir, "-scope", "gone", "-family", "node_versions", "-after", page.Next)
	if len(rest.Keys) != 20 || rest.Next != "" || rest.Keys[0].Hex <= page.Next {
		t.Errorf("debug keys -after: %d keys, next %q; want the other 20 and no next", len(rest.Keys), rest.Next)
	}

	b, err := hex.DecodeString(page.Keys[0].Hex)
	if err != nil {
		t.Fatal(err)
	}
	k := telhaJSON[keyRow](t, exitOK, "debug", "decode-key", "node_versions", hex.EncodeToString(b))
	check("debug decode-key", k, k == page.Keys[0], "want the key debug keys listed")

	red := telhaJSON[redactionReport](t, exitOK, "source", "redact", "-data", dir, "-scope", "kept", "-id", blob, "-range", "0:4", "-yes")
	check("source redact", red, !red.DryRun && red.Ledger != "" && len(red.Ranges) == 1 && red.Ranges[0] == "0:4" && red.Facts != nil, "want the redaction of 0:4")
	del := telhaJSON[redactionReport](t, exitOK, "source", "delete", "-data", dir, "-scope", "kept", "-id", blob, "-yes")
	check("source delete", del, del.Deleted && del.Ledger != "", "want the deletion")

	created := strings.Fields(mustTelha(t, "key", "create", "-data", dir, "-scope", "kept", "-name", "ci"))
	keys := telhaJSON[[]apiKeyRow](t, exitOK, "key", "list", "-data", dir)
	check("key list", keys, len(keys) == 1 && keys[0].ID == created[1] && keys[0].Scope == kept && keys[0].Name == "ci" && keys[0].Revoked == nil && keys[0].Expires == nil, "want kept's key ci, live")
	mustTelha(t, "key", "revoke", "-data", dir, "-id", keys[0].ID)
	if keys := telhaJSON[[]apiKeyRow](t, exitOK, "key", "list", "-data", dir); len(keys) != 1 || keys[0].Revoked == nil {
		t.Errorf("key list after revoke: %+v, want the key revoked", keys)
	}

	en := telhaJSON[erasureReport](t, exitOK, "entity", "erase", "-data", dir, "-scope", "gone", "-id", node.String(), "-yes")
	check("entity erase", en, en.Kind == "entity" && en.Entity == node.String() && en.Rows > 0 && en.Verified != nil && len(en.Families) > 0, "want the entity's rows")
	te := telhaJSON[erasureReport](t, exitOK, "tenant", "erase", "-data", dir, "-scope", "gone", "-yes")
	check("tenant erase", te, te.Kind == "tenant" && te.Scope == gone && te.Rows > 0 && te.Verified != nil, "want the tenant's rows")

	entries := telhaJSON[[]ledgerRow](t, exitOK, "ledger", "list", "-data", dir)
	check("ledger list", entries, len(entries) == 4 && entries[0].Kind == "redaction" && entries[0].Ranges[0] == "0:4" &&
		entries[1].Deleted && entries[2].Kind == "entity" && entries[3].Kind == "tenant" && entries[3].Scope == gone && entries[3].Verified != nil, "want the four erasures, oldest first")

	for _, c := range commandTable {
		if c.output != "" && !checked[c.path] {
			t.Errorf("%s prints a %s, which TestJSONOutput does not decode", c.path, c.output)
		}
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"telha.dev/core/storage"
	"telha.dev/lifecycle"
	"telha.dev/server"
)

// The types below are what the commands print with -o json, one JSON
// value on stdout, and what their default table shows. Their fields, and
// the JSON names, are the documented output: a script may rely on them.
// Scopes are written TENANT:ORG, ids as UUIDs, times as RFC 3339, byte
// counts as keys and values together.

// tenantRow is one tenant (telha tenant list prints a []tenantRow).
type tenantRow struct {
	Name        string    `json:"name"`  // display name; "" for none
	State       string    `json:"state"` // active, importing, erasing, erased
	Scope       string    `json:"scope"` // TENANT:ORG
	Provisioned time.Time `json:"provisioned"`
	Changed     time.Time `json:"changed"` // the last change of state
}

func tenantRowOf(t lifecycle.Tenant) tenantRow {
	return tenantRow{Name: t.Name, State: t.State.String(), Scope: lifecycle.FormatScope(t.Scope), Provisioned: t.Provisioned, Changed: t.Changed}
}

// apiKeyRow is one API key of the tenant API, never its token (telha key
// list prints a []apiKeyRow).
type apiKeyRow struct {
	ID      string     `json:"id"`    // the key's public id
	Scope   string     `json:"scope"` // TENANT:ORG
	Name    string     `json:"name"`  // its label; "" for none
	Created time.Time  `json:"created"`
	Expires *time.Time `json:"expires,omitempty"` // absent: never
	Revoked *time.Time `json:"revoked,omitempty"` // absent: not revoked
}

func apiKeyRowOf(k server.Key) apiKeyRow {
	r := apiKeyRow{ID: k.ID.String(), Scope: lifecycle.FormatScope(k.Scope), Name: k.Name, Created: k.Created}
	if !k.Expires.IsZero() {
		r.Expires = &k.Expires
	}
	if !k.Revoked.IsZero() {
		r.Revoked = &k.Revoked
	}
	return r
}

// familyRow is what one column family holds, or would lose.
type familyRow struct {
	Family string `json:"family"` // a column family: node_versions, ...
	Rows   uint64 `json:"rows"`
	Bytes  uint64 `json:"bytes"`
}

// familyReport is a tenant's rows per family (telha tenant verify).
type familyReport struct {
	Scope    string      `json:"scope"`
	Name     string      `json:"name"`  // "" if none
	State    string      `json:"state"` // "unregistered" if the registry does not hold it
	Families []familyRow `json:"families"`
	Rows     uint64      `json:"rows"`  // over every family
	Bytes    uint64      `json:"bytes"` // over every family
}

// erasureReport is what an erasure did, or with -dry-run would do
// (telha tenant erase, telha entity erase).
type erasureReport struct {
	Kind     string      `json:"kind"` // tenant or entity
	Scope    string      `json:"scope"`
	Entity   string      `json:"entity,omitempty"` // the entity of an entity erasure
	DryRun   bool        `json:"dry_run"`          // nothing was changed
	Families []familyRow `json:"families"`         // what goes, per family
	Rows     uint64      `json:"rows"`
	Bytes    uint64      `json:"bytes"`
	Ledger   string      `json:"ledger_entry,omitempty"` // the ledger entry's id; "" in a dry run
	Verified *time.Time  `json:"verified,omitempty"`     // when no row was found left
	Pending  []string    `json:"pending,omitempty"`      // etcd members that have not rewritten their files
}

// factRow is one fact asserted from a passage of a document (telha
// source facts prints a []factRow).
type factRow struct {
	Start uint64 `json:"start"` // the passage's bytes [start, end) of the original text
	End   uint64 `json:"end"`
	Text  string `json:"text,omitempty"` // the passage, shortened to 60 bytes
	Fact  string `json:"fact"`           // the fact: kind, id, valid and transaction start
}

// redactionReport is what a redaction or a deletion of a document did,
// or with -dry-run would do (telha source redact, telha source delete).
type redactionReport struct {
	Blob     string      `json:"blob"`
	Scope    string      `json:"scope"`
	DryRun   bool        `json:"dry_run"`
	Deleted  bool        `json:"deleted"` // the whole blob (source delete)
	Ranges   []string    `json:"ranges"`  // START:END of the original text
	Families []familyRow `json:"families,omitempty"`
	Rows     uint64      `json:"rows"`
	Bytes    uint64      `json:"bytes"`
	Ledger   string      `json:"ledger_entry,omitempty"`
	Facts    []factRow   `json:"facts"`            // asserted from the bytes taken out
	Erased   []string    `json:"erased,omitempty"` // with -erase-facts: "node ID" or "edge ID", erased
	Pending  []string    `json:"pending,omitempty"`
}

// ledgerRow is one entry of the erasure ledger (telha ledger list prints
// a []ledgerRow).
type ledgerRow struct {
	ID       string     `json:"id"`
	Kind     string     `json:"kind"` // tenant, entity or redaction
	Scope    string     `json:"scope"`
	Entity   string     `json:"entity,omitempty"` // the entity, or the blob of a redaction
	Recorded time.Time  `json:"recorded"`
	Verified *time.Time `json:"verified,omitempty"` // absent while unfinished
	Rows     uint64     `json:"rows"`
	Bytes    uint64     `json:"bytes"`
	Ranges   []string   `json:"ranges,omitempty"` // of a redaction
	Deleted  bool       `json:"deleted,omitempty"`
	Pending  []string   `json:"pending,omitempty"`
}

// ledgerRows are the rows of the ledger's entries. (The entries' type is
// the ledger facade's, which only telha.dev/lifecycle imports: it is
// inferred here, not named.)
func ledgerRows(r storage.Reader) ([]ledgerRow, error) {
	entries, err := lifecycle.LedgerEntries(r)
	if err != nil {
		return nil, err
	}
	out := make([]ledgerRow, 0, len(entries))
	for _, en := range entries {
		rows, n := en.Rows()
		r := ledgerRow{ID: en.ID.String(), Kind: en.Kind.String(), Scope: lifecycle.FormatScope(en.Scope),
			Recorded: en.Recorded.UTC(), Rows: rows, Bytes: n, Pending: en.Pending}
		if en.Entity != [16]byte{} {
			r.Entity = en.Entity.String()
		}
		if !en.Verified.IsZero() {
			v := en.Verified.UTC()
			r.Verified = &v
		}
		if en.Redaction != nil {
			r.Deleted = en.Redaction.Deleted
			for _, rg := range en.Redaction.Ranges {
				r.Ranges = append(r.Ranges, fmt.Sprintf("%d:%d", rg.Start, rg.End))
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// keyRow is one key (telha debug decode-key prints one).
type keyRow struct {
	Family string `json:"family"`
	Hex    string `json:"hex"` // the key's bytes
	Key    string `json:"key"` // the key decoded: its kind, scope and fields
}

// keyPage is one page of a tenant's keys (telha debug keys).
type keyPage struct {
	Keys []keyRow `json:"keys"`
	// Next is the -after of the next page: the hex of the page's last
	// key; "" when the page is the last.
	Next string `json:"next,omitempty"`
}

// familyRows turns counts into rows and their totals.
func familyRows(counts []lifecycle.FamilyCount) (rows []familyRow, total, bytes uint64) {
	rows = make([]familyRow, 0, len(counts))
	for _, c := range counts {
		rows = append(rows, familyRow{Family: c.Family.String(), Rows: c.Rows, Bytes: c.Bytes})
		total += c.Rows
		bytes += c.Bytes
	}
	return rows, total, bytes
}

// printFamilies prints family rows as a table.
func printFamilies(w io.Writer, rows []familyRow) {
	for _, r := range rows {
		fmt.Fprintf(w, "%-17s %10d rows %14d bytes\n", r.Family, r.Rows, r.Bytes)
	}
}

// print writes v as JSON with -o json, and otherwise calls table.
func (in *invocation) print(v any, table func(io.Writer) error) error {
	if in.format == "json" {
		enc := json.NewEncoder(in.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	return table(in.stdout)
}

package main

import (
	"errors"
	"fmt"
	"strings"

	"telha.dev/core/storage"
	"telha.dev/lifecycle"
	"telha.dev/sources"
	"telha.dev/temporal"
)

// provenance ingests one short document per tenant, records the passage
// each tenant's alice -> bob edge and alice were asserted from, and shows
// acme's edge traced back to its passage.
func (d *demoRun) provenance() error {
	d.section("provenance: one source document per tenant")
	s := sources.Open(d.eng, sources.Options{})
	store := d.graph.Store()
	for ti, scope := range d.scopes {
		doc := demoNotes(ti)
		blob, _, err := s.IngestBytes(scope, []byte(doc))
		if err != nil {
			return fmt.Errorf("ingest %s's notes: %w", demoTenants[ti].name, err)
		}
		edge, err := store.EdgeHistory(scope, edgeID(0, 1))
		if err != nil || len(edge) == 0 {
			return fmt.Errorf("history of %s's alice -> bob: %d versions, %w", demoTenants[ti].name, len(edge), err)
		}
		alice, err := store.CurrentNode(scope, people[0].id)
		if err != nil {
			return fmt.Errorf("%s's alice: %w", demoTenants[ti].name, err)
		}
		start := uint64(strings.Index(doc, demoClaim))
		span := sources.Span{Source: blob.ID, Start: start, End: start + uint64(len(demoClaim))}
		if err := s.Record(scope, span, factOf(edge[0]), factOf(alice)); err != nil {
			return fmt.Errorf("record %s's passage: %w", demoTenants[ti].name, err)
		}
		d.printf("%-8s blob %s (%d bytes): bytes [%d, %d) assert the alice -> bob edge and alice\n",
			demoTenants[ti].name, blob.ID, blob.Len, span.Start, span.End)
	}
	passages, err := s.Passages(d.scopes[0], edgeID(0, 1))
	if err != nil {
		return err
	}
	for _, p := range passages {
		text, err := s.ReadRange(d.scopes[0], p.Span.Source, int64(p.Span.Start), int64(p.Span.End))
		if err != nil {
			return err
		}
		d.printf("acme's alice -> bob comes from %q, bytes [%d, %d) of blob %s\n", text, p.Span.Start, p.Span.End, p.Span.Source)
		d.printf("(telha source facts -data DIR -scope %s:%s -id %s lists them all)\n", demoTenants[0].id, demoOrg, p.Span.Source)
	}
	return nil
}

// demoClaim is the passage of each tenant's notes that asserts the alice
// -> bob edge and alice.
const demoClaim = "alice knows bob"

// demoNotes is the source document of tenant ti.
func demoNotes(ti int) string {
	return fmt.Sprintf("Staff notes of %s: %s; bob knows carol.\n", demoTenants[ti].name, demoClaim)
}

// redaction takes globex's claim out of its notes for good
// (lifecycle.Redact): the facts asserted from it are reported, the notes
// read without it, the original notes are refused from then on, and acme's
// copy of the same sentence is untouched.
func (d *demoRun) redaction() error {
	d.section("redaction: globex's claim taken out of its notes, for good")
	s := sources.Open(d.eng, sources.Options{})
	const ti = 1 // globex
	scope, doc := d.scopes[ti], demoNotes(ti)
	blob, _, err := s.IngestBytes(scope, []byte(doc))
	if err != nil {
		return err
	}
	start := uint64(strings.Index(doc, demoClaim))
	red, err := lifecycle.Redact(d.eng, scope, blob.ID, []storage.BlobRange{{Start: start, End: start + uint64(len(demoClaim))}}, lifecycle.RedactOptions{})
	if err != nil {
		return fmt.Errorf("redact globex's claim: %w", err)
	}
	facts := 0
	for _, p := range red.Overlapping {
		facts += len(p.Facts)
	}
	d.printf("globex   redacted %v from blob %s (ledger entry %s); %d facts were asserted from it\n",
		red.Entry.Redaction.Ranges, blob.ID, red.Entry.ID, facts)
	if len(red.Entry.Pending) > 0 {
		d.printf("globex   verified through a quorum; members %s, down, have not rewritten their files yet: the next demo run once they are back finishes it\n",
			strings.Join(red.Entry.Pending, ", "))
	}
	text, err := s.ReadRange(scope, blob.ID, 0, blob.Len)
	if err != nil {
		return err
	}
	d.printf("globex   notes now read %q\n", text)
	if _, _, err := s.IngestBytes(scope, []byte(doc)); !errors.Is(err, sources.ErrBlocklisted) {
		return fmt.Errorf("ingest of globex's original notes after the redaction: %v, want it refused as blocklisted", err)
	}
	d.printf("globex   ingesting the original notes again is refused: blocklisted\n")
	acme := demoNotes(0)
	text, err = s.ReadRange(d.scopes[0], sources.BlobID([]byte(acme)), 0, int64(len(acme)))
	if err != nil {
		return err
	}
	d.printf("acme     notes still read %q\n", text)
	return nil
}

// factOf names version v as a fact of the sources store.
func factOf(v temporal.Version) sources.Fact {
	kind := storage.IndexNode
	if v.Kind == temporal.EntityEdge {
		kind = storage.IndexEdge
	}
	return sources.Fact{Kind: kind, ID: v.ID, ValidStart: v.Valid.Start, TxStart: v.TxStart}
}

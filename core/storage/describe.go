package storage

import (
	"bytes"
	"fmt"
)

// DecodedKey is the typed content of a key of any family: one of the *Parts
// types of this package. It renders itself for operators.
type DecodedKey interface {
	fmt.Stringer
	keyScope() KeyScope
}

func (p VersionParts) keyScope() KeyScope       { return p.Scope }
func (p AdjacencyParts) keyScope() KeyScope     { return p.Scope }
func (p TemporalIndexParts) keyScope() KeyScope { return p.Scope }
func (p VectorParts) keyScope() KeyScope        { return p.Scope }
func (p SchemaParts) keyScope() KeyScope        { return p.Scope }
func (p SourceParts) keyScope() KeyScope        { return p.Scope }
func (p SpanParts) keyScope() KeyScope          { return p.Scope }
func (p TraceParts) keyScope() KeyScope         { return p.Scope }
func (p JobParts) keyScope() KeyScope           { return p.Scope }
func (p BitmapParts) keyScope() KeyScope        { return p.Scope }

// Decode decodes key bytes of family cf into their typed parts.
func Decode(cf ColumnFamily, b []byte) (DecodedKey, error) {
	switch cf {
	case NodeVersions:
		return decodeAs(DecodeNodeVersion, b)
	case EdgeVersions:
		return decodeAs(DecodeEdgeVersion, b)
	case AdjacencyOut:
		return decodeAs(DecodeAdjacencyOut, b)
	case AdjacencyIn:
		return decodeAs(DecodeAdjacencyIn, b)
	case ValidTimeIndex:
		return decodeAs(DecodeValidTimeIndex, b)
	case TxTimeIndex:
		return decodeAs(DecodeTxTimeIndex, b)
	case Vectors:
		return decodeAs(DecodeVector, b)
	case Schema:
		return decodeAs(DecodeSchema, b)
	case Sources:
		return decodeAs(DecodeSource, b)
	case Spans:
		return decodeAs(DecodeSpan, b)
	case Traces:
		return decodeAs(DecodeTrace, b)
	case Jobs:
		return decodeAs(DecodeJob, b)
	case BitmapIndex:
		return decodeAs(DecodeBitmap, b)
	}
	return nil, fmt.Errorf("decode key: %w %d", ErrUnknownFamily, uint8(cf))
}

func decodeAs[P DecodedKey](decode func([]byte) (P, error), b []byte) (DecodedKey, error) {
	p, err := decode(b)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// DescribeKey renders key bytes of family cf readably, for operator forensics
// (`telha debug decode-key`).
func DescribeKey(cf ColumnFamily, b []byte) (string, error) {
	p, err := Decode(cf, b)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

// ParseKey turns key bytes that this authority produced earlier, such as the
// primary key stored as a temporal index value, back into a Key of scope s.
// The bytes must decode as a key of family cf and carry exactly the scope s,
// so the result is a key the typed constructors could have built for s.
func ParseKey(s TenantScope, cf ColumnFamily, b []byte) (Key, error) {
	if s.IsZero() {
		return Key{}, fmt.Errorf("parse %s key: %w", cf, ErrInvalidKey)
	}
	p, err := Decode(cf, b)
	if err != nil {
		return Key{}, fmt.Errorf("parse key: %w", err)
	}
	if !p.keyScope().Is(s) {
		return Key{}, fmt.Errorf("parse %s key of scope %s for scope %s: %w", cf, p.keyScope(), s, ErrOutOfRange)
	}
	k := Key{family: cf, n: uint8(len(b))}
	copy(k.b[:], b)
	return k, nil
}

func (p VersionParts) String() string {
	// Of the two version families only edge_versions holds a system shape
	// (the deployment secret); a system key of node_versions is no
	// layout's, and is rendered as one.
	what := "id"
	switch {
	case p.Scope.IsSystem() && p.Family == EdgeVersions:
		what = "deployment_secret"
	case p.Scope.IsSystem():
		what = "id(no system layout)"
	}
	return fmt.Sprintf("%s scope=%s %s=%s valid_start=%s tx_start=%s", p.Family, p.Scope, what, p.ID, p.ValidStart, p.TxStart)
}

func (p AdjacencyParts) String() string {
	anchor, neighbor := "from", "to"
	if p.Family == AdjacencyIn {
		anchor, neighbor = "to", "from"
	}
	return fmt.Sprintf("%s scope=%s %s=%s edge_type=%016x valid_start=%s tx_start=%s %s=%s",
		p.Family, p.Scope, anchor, p.Anchor, uint64(p.EdgeType), p.ValidStart, p.TxStart, neighbor, p.Neighbor)
}

func (p TemporalIndexParts) String() string {
	times := fmt.Sprintf("valid_start=%s tx_start=%s", p.ValidStart, p.TxStart)
	if p.Family == TxTimeIndex {
		times = fmt.Sprintf("tx_start=%s valid_start=%s", p.TxStart, p.ValidStart)
	}
	return fmt.Sprintf("%s scope=%s %s id=%s kind=%s", p.Family, p.Scope, times, p.ID, p.Kind)
}

func (p VectorParts) String() string {
	return fmt.Sprintf("%s scope=%s node=%s model=%016x valid_start=%s tx_start=%s",
		p.Family, p.Scope, p.Node, uint64(p.Model), p.ValidStart, p.TxStart)
}

func (p SchemaParts) String() string {
	what := "label"
	if p.Scope.IsSystem() {
		what = "vector_model"
	}
	return fmt.Sprintf("%s scope=%s %s=%016x tx_start=%s", p.Family, p.Scope, what, p.Hash, p.TxStart)
}

func (p SourceParts) String() string {
	if p.Redaction {
		return fmt.Sprintf("%s scope=%s id=%s slot=redaction (redaction record or blocklist row)", p.Family, p.Scope, p.Source)
	}
	if p.Scope.IsSystem() {
		return fmt.Sprintf("%s scope=%s ledger_entry=%s recorded_at=%s", p.Family, p.Scope, p.Source, p.TxStart)
	}
	return fmt.Sprintf("%s scope=%s blob=%s chunk=%d", p.Family, p.Scope, p.Source, p.Chunk)
}

func (p SpanParts) String() string {
	if p.Scope.IsSystem() {
		return fmt.Sprintf("%s scope=%s counter_owner=%s counter=%d counter_id=%d", p.Family, p.Scope, p.Source, p.Start, p.End)
	}
	if p.ByFact {
		return fmt.Sprintf("%s scope=%s fact=%s source=%s start=%d end=%d", p.Family, p.Scope, p.Fact, p.Source, p.Start, p.End)
	}
	return fmt.Sprintf("%s scope=%s source=%s start=%d end=%d", p.Family, p.Scope, p.Source, p.Start, p.End)
}

func (p TraceParts) String() string {
	what := "query"
	if p.Scope.IsSystem() {
		what = "tenant_record"
	}
	return fmt.Sprintf("%s scope=%s %s=%s", p.Family, p.Scope, what, p.Query)
}

func (p JobParts) String() string {
	return fmt.Sprintf("%s scope=%s state=%s priority=%d created=%s id=%s",
		p.Family, p.Scope, p.State, p.Priority, p.Created, p.ID)
}

func (p BitmapParts) String() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s scope=%s label=%016x kind=%s", p.Family, p.Scope, uint64(p.Label), p.Kind)
	switch p.Kind {
	case BitmapIDMap:
		fmt.Fprintf(&b, " row=%d", p.Row)
	case BitmapRevMap:
		fmt.Fprintf(&b, " id=%s", p.ID)
	case BitmapPosting:
		fmt.Fprintf(&b, " property=%016x bucket=%016x", uint64(p.Property), uint64(p.Bucket))
	case BitmapPropCounter:
		fmt.Fprintf(&b, " property=%016x", uint64(p.Property))
	}
	return b.String()
}

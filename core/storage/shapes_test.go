package storage

import (
	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// keyShape draws random keys of one key shape together with the parts they
// must decode to. It builds them with the shape's setter; the golden files
// pin the function forms, which wrap the setters.
type keyShape struct {
	name   string
	family ColumnFamily
	system bool // built under SystemScope: the drawn tenant scope is not used
	set    func(t *rapid.T, s TenantScope, k *Key) DecodedKey
}

// draw draws a key of the shape, set into a Key that held another key
// before (or none), so that every property also checks that a setter leaves
// nothing behind of the key it overwrites.
func (sh keyShape) draw(t *rapid.T, s TenantScope) (Key, DecodedKey) {
	k := genUsedKey.Draw(t, "used")
	p := sh.set(t, s, &k)
	return k, p
}

// genUsedKey draws what a reused Key may hold: nothing, a longest tenant
// key, a system key, a key a setter refused (an unknown job state, the
// reserved source slot), or a key from the zero scope.
var genUsedKey = rapid.Custom(func(t *rapid.T) (k Key) {
	switch rapid.IntRange(0, 5).Draw(t, "usedKind") {
	case 1:
		k.SetAdjacencyOut(genScope.Draw(t, "usedScope"), genID.Draw(t, "usedFrom"), EdgeTypeHash(genHash.Draw(t, "usedEdgeType")),
			genTime.Draw(t, "usedValid"), genTime.Draw(t, "usedTx"), genID.Draw(t, "usedTo"))
	case 2:
		p := drawJob(t)
		k.SetSystemJob(SystemScope{}, p.State, p.Priority, p.Created, p.ID)
	case 3:
		p := drawJob(t)
		k.SetJob(genScope.Draw(t, "usedScope"), JobDead+1, p.Priority, p.Created, p.ID)
	case 4:
		k.SetSource(genScope.Draw(t, "usedScope"), genID.Draw(t, "usedSource"), MaxTimestamp)
	case 5:
		k.SetAdjacencyIn(TenantScope{}, genID.Draw(t, "usedTo"), EdgeTypeHash(genHash.Draw(t, "usedEdgeType")),
			genTime.Draw(t, "usedValid"), genTime.Draw(t, "usedTx"), genID.Draw(t, "usedFrom"))
	}
	return k
})

func keyScopeOf(s TenantScope) KeyScope {
	return KeyScope{Tenant: s.Tenant(), Organization: s.Organization()}
}

var keyShapes = []keyShape{
	{"NodeVersionKey", NodeVersions, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		id, v, x := genID.Draw(t, "id"), genTime.Draw(t, "valid"), genTime.Draw(t, "tx")
		k.SetNodeVersion(s, id, v, x)
		return VersionParts{Family: NodeVersions, Scope: keyScopeOf(s), ID: id, ValidStart: v, TxStart: x}
	}},
	{"EdgeVersionKey", EdgeVersions, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		id, v, x := genID.Draw(t, "id"), genTime.Draw(t, "valid"), genTime.Draw(t, "tx")
		k.SetEdgeVersion(s, id, v, x)
		return VersionParts{Family: EdgeVersions, Scope: keyScopeOf(s), ID: id, ValidStart: v, TxStart: x}
	}},
	{"AdjacencyOutKey", AdjacencyOut, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		from, to, et := genID.Draw(t, "from"), genID.Draw(t, "to"), EdgeTypeHash(genHash.Draw(t, "edgeType"))
		v, x := genTime.Draw(t, "valid"), genTime.Draw(t, "tx")
		k.SetAdjacencyOut(s, from, et, v, x, to)
		return AdjacencyParts{
			Family: AdjacencyOut, Scope: keyScopeOf(s), Anchor: from, EdgeType: et, ValidStart: v, TxStart: x, Neighbor: to,
		}
	}},
	{"AdjacencyInKey", AdjacencyIn, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		to, from, et := genID.Draw(t, "to"), genID.Draw(t, "from"), EdgeTypeHash(genHash.Draw(t, "edgeType"))
		v, x := genTime.Draw(t, "valid"), genTime.Draw(t, "tx")
		k.SetAdjacencyIn(s, to, et, v, x, from)
		return AdjacencyParts{
			Family: AdjacencyIn, Scope: keyScopeOf(s), Anchor: to, EdgeType: et, ValidStart: v, TxStart: x, Neighbor: from,
		}
	}},
	{"ValidTimeIndexKey", ValidTimeIndex, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		v, x, id, kind := genTime.Draw(t, "valid"), genTime.Draw(t, "tx"), genID.Draw(t, "id"), genIndexKind.Draw(t, "kind")
		k.SetValidTimeIndex(s, v, x, id, kind)
		return TemporalIndexParts{
			Family: ValidTimeIndex, Scope: keyScopeOf(s), ValidStart: v, TxStart: x, ID: id, Kind: kind,
		}
	}},
	{"TxTimeIndexKey", TxTimeIndex, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		x, v, id, kind := genTime.Draw(t, "tx"), genTime.Draw(t, "valid"), genID.Draw(t, "id"), genIndexKind.Draw(t, "kind")
		k.SetTxTimeIndex(s, x, v, id, kind)
		return TemporalIndexParts{
			Family: TxTimeIndex, Scope: keyScopeOf(s), ValidStart: v, TxStart: x, ID: id, Kind: kind,
		}
	}},
	{"VectorKey", Vectors, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		node, model := genID.Draw(t, "node"), ModelID(genHash.Draw(t, "model"))
		v, x := genTime.Draw(t, "valid"), genTime.Draw(t, "tx")
		k.SetVector(s, node, model, v, x)
		return VectorParts{Family: Vectors, Scope: keyScopeOf(s), Node: node, Model: model, ValidStart: v, TxStart: x}
	}},
	{"SchemaKey", Schema, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		label, x := genHash.Draw(t, "label"), genTime.Draw(t, "tx")
		k.SetSchema(s, LabelHash(label), x)
		return SchemaParts{Family: Schema, Scope: keyScopeOf(s), Hash: label, TxStart: x}
	}},
	{"EdgeTypeKey", Schema, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		h, x := EdgeTypeHash(genHash.Draw(t, "edgeType")), genTime.Draw(t, "tx")
		k.SetEdgeType(s, h, x)
		return SchemaParts{Family: Schema, Scope: keyScopeOf(s), Hash: uint64(refEdgeTypeLabel(h)), TxStart: x}
	}},
	{"SystemScope.VectorModelKey", Schema, true, func(t *rapid.T, _ TenantScope, k *Key) DecodedKey {
		model, x := genHash.Draw(t, "model"), genTime.Draw(t, "tx")
		k.SetVectorModel(SystemScope{}, ModelID(model), x)
		return SchemaParts{Family: Schema, Hash: model, TxStart: x}
	}},
	{"SourceKey", Sources, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		id, x := genID.Draw(t, "source"), genTime.Draw(t, "tx")
		if x == MaxTimestamp { // the reserved slot: SourceKey refuses it
			x--
		}
		k.SetSource(s, id, x)
		return SourceParts{Family: Sources, Scope: keyScopeOf(s), Source: id, TxStart: x}
	}},
	{"RedactionRecordKey", Sources, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		blob := genID.Draw(t, "blob")
		k.SetRedactionRecord(s, blob)
		return SourceParts{Family: Sources, Scope: keyScopeOf(s), Source: blob, Redaction: true}
	}},
	{"BlocklistKey", Sources, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		digest := rapid.SliceOfN(rapid.Byte(), 0, 100).Draw(t, "digest")
		k.SetBlocklist(s, digest)
		return SourceParts{Family: Sources, Scope: keyScopeOf(s), Source: refBlocklistID(digest), Redaction: true}
	}},
	{"SpanKey", Spans, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		id, start, end := genID.Draw(t, "source"), genHash.Draw(t, "start"), genHash.Draw(t, "end")
		k.SetSpan(s, id, start, end)
		return SpanParts{Family: Spans, Scope: keyScopeOf(s), Source: id, Start: start, End: end}
	}},
	{"TraceKey", Traces, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		id := genID.Draw(t, "query")
		k.SetTrace(s, id)
		return TraceParts{Family: Traces, Scope: keyScopeOf(s), Query: id}
	}},
	{"JobKey", Jobs, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		p := drawJob(t)
		p.Scope = keyScopeOf(s)
		k.SetJob(s, p.State, p.Priority, p.Created, p.ID)
		return p
	}},
	{"SystemScope.JobKey", Jobs, true, func(t *rapid.T, _ TenantScope, k *Key) DecodedKey {
		p := drawJob(t)
		k.SetSystemJob(SystemScope{}, p.State, p.Priority, p.Created, p.ID)
		return p
	}},
	{"BitmapAllocKey", BitmapIndex, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		label := LabelHash(genHash.Draw(t, "label"))
		k.SetBitmapAlloc(s, label)
		return BitmapParts{Family: BitmapIndex, Scope: keyScopeOf(s), Label: label, Kind: BitmapAlloc}
	}},
	{"BitmapIDMapKey", BitmapIndex, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		label, row := LabelHash(genHash.Draw(t, "label")), rapid.Uint32().Draw(t, "row")
		k.SetBitmapIDMap(s, label, row)
		return BitmapParts{Family: BitmapIndex, Scope: keyScopeOf(s), Label: label, Kind: BitmapIDMap, Row: row}
	}},
	{"BitmapRevMapKey", BitmapIndex, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		label, id := LabelHash(genHash.Draw(t, "label")), genID.Draw(t, "id")
		k.SetBitmapRevMap(s, label, id)
		return BitmapParts{Family: BitmapIndex, Scope: keyScopeOf(s), Label: label, Kind: BitmapRevMap, ID: id}
	}},
	{"BitmapPostingKey", BitmapIndex, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		label, prop, bucket := LabelHash(genHash.Draw(t, "label")), PropertyHash(genHash.Draw(t, "property")), BucketHash(genHash.Draw(t, "bucket"))
		k.SetBitmapPosting(s, label, prop, bucket)
		return BitmapParts{
			Family: BitmapIndex, Scope: keyScopeOf(s), Label: label, Kind: BitmapPosting, Property: prop, Bucket: bucket,
		}
	}},
	{"BitmapPropCounterKey", BitmapIndex, false, func(t *rapid.T, s TenantScope, k *Key) DecodedKey {
		label, prop := LabelHash(genHash.Draw(t, "label")), PropertyHash(genHash.Draw(t, "property"))
		k.SetBitmapPropCounter(s, label, prop)
		return BitmapParts{Family: BitmapIndex, Scope: keyScopeOf(s), Label: label, Kind: BitmapPropCounter, Property: prop}
	}},
}

func drawJob(t *rapid.T) JobParts {
	return JobParts{
		Family: Jobs, State: genState.Draw(t, "state"), Priority: rapid.Uint8().Draw(t, "priority"),
		Created: genTime.Draw(t, "created"), ID: genID.Draw(t, "job"),
	}
}

// genShape draws any key shape, tenant or system.
var genShape = rapid.SampledFrom(keyShapes)

// tenantShapes returns the tenant shapes of family cf, or of every family
// when cf is 0.
func tenantShapes(cf ColumnFamily) []keyShape {
	var out []keyShape
	for _, sh := range keyShapes {
		if !sh.system && (cf == 0 || sh.family == cf) {
			out = append(out, sh)
		}
	}
	return out
}

var shapesByFamily = func() map[ColumnFamily]*rapid.Generator[keyShape] {
	m := make(map[ColumnFamily]*rapid.Generator[keyShape])
	for _, cf := range Families() {
		m[cf] = rapid.SampledFrom(tenantShapes(cf))
	}
	return m
}()

// drawKeyOf draws a key of scope s in family cf, of any of the family's
// tenant shapes.
func drawKeyOf(t *rapid.T, s TenantScope, cf ColumnFamily) Key {
	k, _ := shapesByFamily[cf].Draw(t, "shape").draw(t, s)
	return k
}

// entityKeys holds, for each family whose keys put an entity id right after
// the scope, a builder of a random key of that entity.
var entityKeys = map[ColumnFamily]func(t *rapid.T, s TenantScope, id uuid.UUID) Key{
	NodeVersions: func(t *rapid.T, s TenantScope, id uuid.UUID) Key {
		return NodeVersionKey(s, id, genTime.Draw(t, "valid"), genTime.Draw(t, "tx"))
	},
	EdgeVersions: func(t *rapid.T, s TenantScope, id uuid.UUID) Key {
		return EdgeVersionKey(s, id, genTime.Draw(t, "valid"), genTime.Draw(t, "tx"))
	},
	AdjacencyOut: func(t *rapid.T, s TenantScope, id uuid.UUID) Key {
		return AdjacencyOutKey(s, id, EdgeTypeHash(genHash.Draw(t, "edgeType")), genTime.Draw(t, "valid"), genTime.Draw(t, "tx"), genID.Draw(t, "to"))
	},
	AdjacencyIn: func(t *rapid.T, s TenantScope, id uuid.UUID) Key {
		return AdjacencyInKey(s, id, EdgeTypeHash(genHash.Draw(t, "edgeType")), genTime.Draw(t, "valid"), genTime.Draw(t, "tx"), genID.Draw(t, "from"))
	},
	Vectors: func(t *rapid.T, s TenantScope, id uuid.UUID) Key {
		return VectorKey(s, id, ModelID(genHash.Draw(t, "model")), genTime.Draw(t, "valid"), genTime.Draw(t, "tx"))
	},
	Sources: func(t *rapid.T, s TenantScope, id uuid.UUID) Key { return sourceRow(s, id, genTime.Draw(t, "tx")) },
	Spans: func(t *rapid.T, s TenantScope, id uuid.UUID) Key {
		return SpanKey(s, id, genHash.Draw(t, "start"), genHash.Draw(t, "end"))
	},
	Traces: func(t *rapid.T, s TenantScope, id uuid.UUID) Key { return TraceKey(s, id) },
}

// sourceRow is the sources row of id at tx time x, where MaxTimestamp
// stands for the reserved redaction slot that takes its place.
func sourceRow(s TenantScope, id uuid.UUID, x Timestamp) Key {
	if x == MaxTimestamp {
		return RedactionRecordKey(s, id)
	}
	return SourceKey(s, id, x)
}

// drawBitmapKey draws a bitmap_index key of any kind for label and, where
// the kind has one, property.
func drawBitmapKey(t *rapid.T, s TenantScope, label LabelHash, property PropertyHash) (Key, BitmapKind) {
	kind := rapid.SampledFrom([]BitmapKind{BitmapAlloc, BitmapIDMap, BitmapRevMap, BitmapPosting, BitmapPropCounter}).Draw(t, "kind")
	switch kind {
	case BitmapIDMap:
		return BitmapIDMapKey(s, label, rapid.Uint32().Draw(t, "row")), kind
	case BitmapRevMap:
		return BitmapRevMapKey(s, label, genID.Draw(t, "id")), kind
	case BitmapPosting:
		return BitmapPostingKey(s, label, property, BucketHash(genHash.Draw(t, "bucket"))), kind
	case BitmapPropCounter:
		return BitmapPropCounterKey(s, label, property), kind
	}
	return BitmapAllocKey(s, label), kind
}

// reencode builds the key that parts p decode from, through the typed
// constructors. ok is false only for system rows of families that have no
// system constructor; decoders accept those bytes for forensics.
func reencode(p DecodedKey) (k Key, ok bool) {
	ks := p.keyScope()
	if ks.IsSystem() {
		switch p := p.(type) {
		case JobParts:
			return SystemScope{}.JobKey(p.State, p.Priority, p.Created, p.ID), true
		case SchemaParts:
			return SystemScope{}.VectorModelKey(ModelID(p.Hash), p.TxStart), true
		}
		return Key{}, false
	}
	// A half-nil scope leaves s zero and every constructor below returns the
	// invalid Key, which no decoded input can equal.
	s, _ := NewTenantScope(ks.Tenant, ks.Organization)
	switch p := p.(type) {
	case VersionParts:
		if p.Family == EdgeVersions {
			return EdgeVersionKey(s, p.ID, p.ValidStart, p.TxStart), true
		}
		return NodeVersionKey(s, p.ID, p.ValidStart, p.TxStart), true
	case AdjacencyParts:
		if p.Family == AdjacencyIn {
			return AdjacencyInKey(s, p.Anchor, p.EdgeType, p.ValidStart, p.TxStart, p.Neighbor), true
		}
		return AdjacencyOutKey(s, p.Anchor, p.EdgeType, p.ValidStart, p.TxStart, p.Neighbor), true
	case TemporalIndexParts:
		if p.Family == TxTimeIndex {
			return TxTimeIndexKey(s, p.TxStart, p.ValidStart, p.ID, p.Kind), true
		}
		return ValidTimeIndexKey(s, p.ValidStart, p.TxStart, p.ID, p.Kind), true
	case VectorParts:
		return VectorKey(s, p.Node, p.Model, p.ValidStart, p.TxStart), true
	case SchemaParts:
		return SchemaKey(s, LabelHash(p.Hash), p.TxStart), true
	case SourceParts:
		if p.Redaction {
			return RedactionRecordKey(s, p.Source), true
		}
		return SourceKey(s, p.Source, p.TxStart), true
	case SpanParts:
		return SpanKey(s, p.Source, p.Start, p.End), true
	case TraceParts:
		return TraceKey(s, p.Query), true
	case JobParts:
		return JobKey(s, p.State, p.Priority, p.Created, p.ID), true
	case BitmapParts:
		switch p.Kind {
		case BitmapIDMap:
			return BitmapIDMapKey(s, p.Label, p.Row), true
		case BitmapRevMap:
			return BitmapRevMapKey(s, p.Label, p.ID), true
		case BitmapPosting:
			return BitmapPostingKey(s, p.Label, p.Property, p.Bucket), true
		case BitmapPropCounter:
			return BitmapPropCounterKey(s, p.Label, p.Property), true
		}
		return BitmapAllocKey(s, p.Label), true
	}
	return Key{}, true
}

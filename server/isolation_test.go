package server

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
	_ "telha.dev/server/gen/telha/v1" // registers the descriptors
)

// methods returns every RPC of package telha.v1, from the descriptors
// the generated code registers: an RPC added to a .proto is in the
// isolation tests without a line here.
func methods(t *testing.T) []protoreflect.MethodDescriptor {
	t.Helper()
	var out []protoreflect.MethodDescriptor
	protoregistry.GlobalFiles.RangeFilesByPackage("telha.v1", func(f protoreflect.FileDescriptor) bool {
		for i := range f.Services().Len() {
			s := f.Services().Get(i)
			for j := range s.Methods().Len() {
				out = append(out, s.Methods().Get(j))
			}
		}
		return true
	})
	if len(out) == 0 {
		t.Fatal("no RPC in package telha.v1")
	}
	return out
}

// procedure is the HTTP path of method, without the leading slash.
func procedure(m protoreflect.MethodDescriptor) string {
	return string(m.Parent().FullName()) + "/" + string(m.Name())
}

// hostile returns requests for m in Connect's JSON that name the ids of
// another tenant in every string field, with values of every kind that a
// handler could mistake for a scope: each id alone, and extremes for the
// numbers. A field named model names testModel in the requests of small
// numbers, so that the vector calls get past the model and search.
func hostile(t *testing.T, m protoreflect.MethodDescriptor, ids []uuid.UUID) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		for _, extreme := range []bool{false, true} {
			msg := dynamicpb.NewMessage(m.Input())
			fill(msg, id.String(), extreme)
			if f := m.Input().Fields().ByName("model"); f != nil && !extreme {
				msg.Set(f, protoreflect.ValueOfString(testModel))
			}
			b, err := protojson.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	return append(out, `{}`, `{"id":"00000000-0000-0000-0000-000000000000"}`)
}

// fill sets every field of msg: strings to s, bytes to a marker, numbers
// to small or (extreme) out-of-range values, lists to one such element,
// maps to one entry, messages of package telha.v1 filled the same way
// (timestamps stay absent: now, for most calls).
func fill(msg protoreflect.Message, s string, extreme bool) {
	fields := msg.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		switch {
		case f.IsMap():
			msg.Mutable(f).Map().Set(protoreflect.ValueOfString(s).MapKey(), scalar(f.MapValue(), s, extreme))
		case f.Message() != nil && f.Message().ParentFile().Package() != "telha.v1":
		case f.Message() != nil && f.IsList():
			l := msg.Mutable(f).List()
			e := l.NewElement()
			fill(e.Message(), s, extreme)
			l.Append(e)
		case f.Message() != nil:
			fill(msg.Mutable(f).Message(), s, extreme)
		case f.IsList():
			msg.Mutable(f).List().Append(scalar(f, s, extreme))
		default:
			msg.Set(f, scalar(f, s, extreme))
		}
	}
}

// scalar is the value fill gives a field of f's kind.
func scalar(f protoreflect.FieldDescriptor, s string, extreme bool) protoreflect.Value {
	switch f.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(s)
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte("WRITTEN-BY-ANOTHER-TENANT"))
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(extreme)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if extreme {
			return protoreflect.ValueOfInt32(-1 << 31)
		}
		return protoreflect.ValueOfInt32(1)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if extreme {
			return protoreflect.ValueOfUint32(1<<32 - 1)
		}
		return protoreflect.ValueOfUint32(1)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if extreme {
			return protoreflect.ValueOfInt64(-1 << 63)
		}
		return protoreflect.ValueOfInt64(1)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if extreme {
			return protoreflect.ValueOfUint64(1<<64 - 1)
		}
		return protoreflect.ValueOfUint64(1)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(1)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(1)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(1)
	}
	return f.Default()
}

// answerHolds reports whether the answer body (Connect's JSON of m's
// output, or an error) holds marker anywhere, its bytes fields decoded.
func answerHolds(t *testing.T, m protoreflect.MethodDescriptor, body []byte, marker string) bool {
	t.Helper()
	if bytes.Contains(body, []byte(marker)) {
		return true
	}
	msg := dynamicpb.NewMessage(m.Output())
	if err := protojson.Unmarshal(body, msg); err != nil {
		return false // an error answer: its text was checked above
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b, []byte(marker))
}

// For every RPC, tenant A's token with tenant B's ids returns nothing of
// B and changes none of B's or C's rows; a request without a valid token
// is unauthenticated; and no request reaches the system namespace: after
// the whole run its rows are the same but the counters that the
// authority keeps for A's own writes (its transaction clock).
func TestIsolationEveryRPC(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a, b, c := w.tenants[0], w.tenants[1], w.tenants[2]
		before := map[*tenant][]byte{b: tenantRows(t, env.Engine, b.scope), c: tenantRows(t, env.Engine, c.scope)}
		system := storagetest.SystemRows(t, env.Engine)
		bIDs := append(slices.Clone(b.nodes), b.edge, b.source, b.trace, b.job, c.nodes[0])
		calls := 0
		for _, m := range methods(t) {
			for _, body := range hostile(t, m, bIDs) {
				calls++
				code, out := w.call(t, a.token, procedure(m), body)
				for _, other := range []*tenant{b, c} {
					if answerHolds(t, m, out, other.marker) {
						t.Errorf("%s %s with A's token = %d %s: holds %s's data", procedure(m), body, code, out, other.name)
					}
				}
				if code == http.StatusInternalServerError {
					t.Errorf("%s %s = 500 %s: hostile input must be refused, not fail", procedure(m), body, out)
				}
				for _, tok := range []string{"", "garbage", "telha_" + uuid.New().String(), a.token + "x", otherSecret(b.token)} {
					if code, out := w.call(t, tok, procedure(m), body); code != http.StatusUnauthorized || !bytes.Contains(out, []byte(`"unauthenticated"`)) {
						t.Errorf("%s with token %q = %d %s, want 401 unauthenticated", procedure(m), tok, code, out)
					}
				}
			}
		}
		t.Logf("%d hostile calls over %d RPCs", calls, len(methods(t)))
		for tn, rows := range before {
			if !bytes.Equal(tenantRows(t, env.Engine, tn.scope), rows) {
				t.Errorf("the rows of %s changed under A's hostile calls", tn.name)
			}
		}
		checkSystemRows(t, system, storagetest.SystemRows(t, env.Engine))
	})
}

// checkSystemRows fails unless after holds the rows of before, the same,
// but counters (the spans family's system rows), which the authority
// moves for a tenant's own writes.
func checkSystemRows(t *testing.T, before, after []storagetest.SystemRow) {
	t.Helper()
	index := func(rows []storagetest.SystemRow) map[string]storagetest.SystemRow {
		m := make(map[string]storagetest.SystemRow, len(rows))
		for _, r := range rows {
			m[r.Family.String()+string(r.Key)] = r
		}
		return m
	}
	was, is := index(before), index(after)
	for k, r := range is {
		old, ok := was[k]
		if r.Family != storage.Spans && (!ok || !bytes.Equal(old.Value, r.Value)) {
			t.Errorf("a request wrote the system row %s %x", r.Family, r.Key)
		}
	}
	for k, r := range was {
		if _, ok := is[k]; !ok {
			t.Errorf("a request deleted the system row %s %x", r.Family, r.Key)
		}
	}
}

// A revoked key, an expired key, and a key of an erased tenant are
// refused on the next request; the other tenants' keys still work.
func TestDeadKeys(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a, b, c := w.tenants[0], w.tenants[1], w.tenants[2]
		get := func(tn *tenant, token string) int {
			code, _ := w.call(t, token, "telha.v1.TemporalService/GetNode", `{"id":"`+tn.nodes[0].String()+`"}`)
			return code
		}
		short, shortToken, err := CreateKey(env.Engine, a.name, "short", 300*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if code := get(a, shortToken); code != http.StatusOK {
			t.Fatalf("a fresh key = %d, want 200", code)
		}
		if _, err := RevokeKey(env.Engine, a.key.ID.String()); err != nil {
			t.Fatal(err)
		}
		if code := get(a, a.token); code != http.StatusUnauthorized {
			t.Errorf("a revoked key = %d, want 401", code)
		}
		wait(time.Until(short.Expires) + 10*time.Millisecond)
		if code := get(a, shortToken); code != http.StatusUnauthorized {
			t.Errorf("an expired key = %d, want 401", code)
		}
		if _, err := lifecycle.EraseTenant(env.Engine, c.scope, lifecycle.EraseOptions{}); err != nil {
			t.Fatal(err)
		}
		if code := get(c, c.token); code != http.StatusUnauthorized {
			t.Errorf("a key of an erased tenant = %d, want 401", code)
		}
		keys, err := ListKeys(env.Engine)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k.Scope == c.scope {
				t.Errorf("the erasure of %s left its key %s", c.name, k.ID)
			}
		}
		if code := get(b, b.token); code != http.StatusOK {
			t.Errorf("another tenant's key = %d, want 200", code)
		}
	})
}

// otherSecret returns token with one character of its secret changed.
func otherSecret(token string) string {
	i := len(token) - 10
	c := byte('A')
	if token[i] == c {
		c = 'B'
	}
	return token[:i] + string(c) + token[i+1:]
}

// A tenant cannot name another tenant's scope in what it sends: fields
// and headers that read like a tenant (in a body, which Connect's JSON
// refuses or ignores, or in headers the server never reads) leave the
// write in the caller's own tenant, and B's rows unchanged.
func TestSmuggledScope(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a, b := w.tenants[0], w.tenants[1]
		before := tenantRows(t, env.Engine, b.scope)
		id := uuid.New()
		for _, body := range []string{
			fmt.Sprintf(`{"id":%q,"value":"c211Z2dsZWQ=","scope":%q}`, id, b.scope),
			fmt.Sprintf(`{"id":%q,"value":"c211Z2dsZWQ=","tenant":%q,"organization":%q}`, id, b.scope.Tenant(), b.scope.Organization()),
		} {
			req, err := http.NewRequest(http.MethodPost, w.http.URL+"/telha.v1.TemporalService/PutNode", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+a.token)
			for _, h := range []string{"X-Telha-Tenant", "X-Telha-Scope", "Telha-Tenant", "X-Tenant-Id"} {
				req.Header.Set(h, b.scope.String())
			}
			resp, err := w.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest {
				t.Errorf("PutNode %s = %d, want 200 (the field ignored) or 400 (refused)", body, resp.StatusCode)
			}
		}
		if !bytes.Equal(tenantRows(t, env.Engine, b.scope), before) {
			t.Errorf("a write with B's scope smuggled into A's request changed B's rows")
		}
		if code, _ := w.call(t, b.token, "telha.v1.TemporalService/GetNode", fmt.Sprintf(`{"id":%q}`, id)); code != http.StatusNotFound {
			t.Errorf("B's GetNode of the smuggled node = %d, want 404", code)
		}
	})
}

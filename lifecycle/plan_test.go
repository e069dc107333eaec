package lifecycle

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// TestPlans: a plan changes nothing and counts what the erasure it plans
// then takes: an entity's rows as its ledger entry records them, a
// tenant's as Verify counts them; a document's plan names the passages
// its deletion overlaps; what the erasure refuses, the plan refuses.
func TestPlans(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		scopes := storagetest.TenantScopes(t, 2)
		g := newGraph(t, env.Engine, scopes[0], "plan-marker")
		before := dump(t, env.Engine, scopes[0])

		entity, err := PlanEntityErasure(env.Engine, g.scope, g.a)
		mustDo(t, err)
		tenant, err := PlanTenantErasure(env.Engine, g.scope)
		mustDo(t, err)
		doc, err := PlanSourceDeletion(env.Engine, g.scope, g.doc)
		mustDo(t, err)
		if !bytes.Equal(dump(t, env.Engine, scopes[0]), before) {
			t.Fatal("planning changed the tenant")
		}
		if rows, _ := doc.Rows(); rows == 0 || len(doc.Overlapping) == 0 {
			t.Errorf("the document's plan: %d rows, %d passages", rows, len(doc.Overlapping))
		}
		counts, err := Verify(env.Engine, g.scope)
		mustDo(t, err)
		var vRows, vBytes uint64
		for _, c := range counts {
			vRows, vBytes = vRows+c.Rows, vBytes+c.Bytes
		}
		if rows, n := tenant.Rows(); rows != vRows || n != vBytes || len(tenant.Families) == 0 {
			t.Errorf("the tenant's plan: %d rows, %d bytes; Verify counts %d, %d", rows, n, vRows, vBytes)
		}

		er, err := EraseEntity(env.Engine, g.scope, g.a, EraseOptions{})
		mustDo(t, err)
		pRows, pBytes := entity.Rows()
		eRows, eBytes := er.Entry.Rows()
		if pRows != eRows || pBytes != eBytes {
			t.Errorf("the entity's plan: %d rows, %d bytes; its erasure took %d, %d", pRows, pBytes, eRows, eBytes)
		}
		if _, err := PlanEntityErasure(env.Engine, g.scope, g.a); !errors.Is(err, ErrNotFound) {
			t.Errorf("planning the erased entity again: %v, want ErrNotFound", err)
		}
		if _, err := PlanEntityErasure(env.Engine, g.scope, uuid.Nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("planning the nil id: %v, want ErrNotFound", err)
		}
		if _, err := PlanTenantErasure(env.Engine, zeroScope); !errors.Is(err, storage.ErrNilScope) {
			t.Errorf("planning the zero scope: %v", err)
		}
		if _, err := PlanSourceDeletion(env.Engine, scopes[1], g.doc); err == nil {
			t.Error("planning the deletion of another tenant's document: no error")
		}
	})
}

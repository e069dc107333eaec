package storage

import (
	"reflect"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// Drawing keys of the table's shapes.

// genShape draws any key shape, tenant or system, derived ones included.
var genShape = rapid.SampledFrom(keyShapes)

// tenantShapes returns the tenant shapes of family cf, or of every family
// when cf is 0.
func tenantShapes(cf ColumnFamily) []keyShape {
	var out []keyShape
	for _, sh := range keyShapes {
		if !sh.system && (cf == 0 || sh.layout.Family == cf) {
			out = append(out, sh)
		}
	}
	return out
}

var shapesByFamily = func() map[ColumnFamily]*rapid.Generator[keyShape] {
	m := make(map[ColumnFamily]*rapid.Generator[keyShape])
	for _, cf := range Families() {
		if shapes := tenantShapes(cf); len(shapes) > 0 { // else TestLayoutTableComplete says so
			m[cf] = rapid.SampledFrom(shapes)
		}
	}
	return m
}()

// drawKeyOf draws a key of scope s in family cf, of any of the family's
// tenant shapes: a valid one, unless s is the zero scope.
func drawKeyOf(t *rapid.T, s TenantScope, cf ColumnFamily) Key {
	for {
		if k, _ := shapesByFamily[cf].Draw(t, "shape").drawKey(t, s); k.Valid() || s.IsZero() {
			return k
		}
	}
}

// drawEntityKey draws a key of scope s in family cf, which is keyed by
// entity, for entity id: a direct shape whose first argument after the
// scope is the id. The key is valid unless s is the zero scope.
func drawEntityKey(t *rapid.T, s TenantScope, cf ColumnFamily, id uuid.UUID) Key {
	var shapes []keyShape
	for _, sh := range tenantShapes(cf) {
		if !sh.derived() {
			shapes = append(shapes, sh)
		}
	}
	sh := rapid.SampledFrom(shapes).Draw(t, "entityShape")
	for {
		a := sh.draw(t, s)
		a[1] = reflect.ValueOf(id)
		if k := sh.key(a); k.Valid() || s.IsZero() {
			return k
		}
	}
}

func keyScopeOf(s TenantScope) KeyScope {
	return KeyScope{Tenant: s.Tenant(), Organization: s.Organization()}
}

// systemConstructors reports whether the table has a constructor of
// system keys in family cf: whether the family holds system rows, read from
// the constructors rather than from the layouts' Scope.
func systemConstructors(cf ColumnFamily) bool {
	for _, sh := range keyShapes {
		if sh.system && sh.layout.Family == cf {
			return true
		}
	}
	return false
}

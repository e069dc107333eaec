package storage

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// TestLastFamily keeps LastFamily the last family: every bound over the
// families says it, so a family added after it without moving it would be
// outside every table and loop.
func TestLastFamily(t *testing.T) {
	if last, lastFamily := declaredFamilies(t); last != lastFamily {
		t.Fatalf("family.go declares %s after %s, LastFamily; set LastFamily = %s and name it in familyNames", last, lastFamily, last)
	}
	fams := Families()
	if got := fams[len(fams)-1]; got != LastFamily {
		t.Fatalf("Families ends with %s, want LastFamily (%s)", got, LastFamily)
	}
	if len(fams) != int(LastFamily) {
		t.Fatalf("%d families, want %d (NodeVersions to LastFamily)", len(fams), LastFamily)
	}
	for _, cf := range fams {
		if familyNames[cf] == "" {
			t.Errorf("family %d has no name in familyNames", uint8(cf))
		}
		if !cf.Valid() {
			t.Errorf("family %s is not Valid", cf)
		}
	}
	if (LastFamily + 1).Valid() {
		t.Errorf("LastFamily+1 is Valid: a family was added after LastFamily")
	}
}

// declaredFamilies reads, from the source, the iota block of family.go
// that declares NodeVersions: the name of its last family constant, and
// the name LastFamily is set to. A constant added after LastFamily's value
// is invisible to every loop over the families, so only the source shows
// it.
func declaredFamilies(t *testing.T) (last, lastFamily string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "family.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST || gd.Specs[0].(*ast.ValueSpec).Names[0].Name != "NodeVersions" {
			continue
		}
		for i, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			switch {
			case vs.Names[0].Name == "LastFamily":
				if id, ok := vs.Values[0].(*ast.Ident); ok {
					lastFamily = id.Name
				}
			case i == 0 || len(vs.Values) == 0:
				last = vs.Names[0].Name
			}
		}
		return last, lastFamily
	}
	t.Fatal("family.go has no const block that starts with NodeVersions")
	return "", ""
}

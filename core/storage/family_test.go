package storage

import "testing"

// TestLastFamily keeps LastFamily the last family: every bound over the
// families says it, so a family added after it without moving it would be
// outside every table and loop.
func TestLastFamily(t *testing.T) {
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

package capability

import (
	"slices"
	"testing"
)

func TestSwigFiles(t *testing.T) {
	got := swigFiles([]string{"/p/a.c", "/p/wrap.swig", "/p/x.s", "/p/wrap.swigcxx", "/p/swig.go"})
	if want := []string{"wrap.swig", "wrap.swigcxx"}; !slices.Equal(got, want) {
		t.Errorf("swigFiles = %q, want %q", got, want)
	}
}

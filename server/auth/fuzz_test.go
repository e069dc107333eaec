package auth

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseAuthorization: the header parser never panics, refuses with
// errNoBearer, and what it accepts is the value's token, visible ASCII.
func FuzzParseAuthorization(f *testing.F) {
	f.Add("Bearer telha_0123456789abcdef0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Add("bearer x")
	f.Add("Basic dXNlcjpwYXNz")
	f.Add("Bearer  x")
	f.Add("Bearer x\x00")
	f.Fuzz(func(t *testing.T, h string) {
		tok, err := ParseAuthorization([]string{h})
		if err != nil {
			if !errors.Is(err, errNoBearer) || tok != "" {
				t.Fatalf("ParseAuthorization(%q) = %q, %v", h, tok, err)
			}
			return
		}
		if tok == "" || !strings.HasSuffix(h, tok) || strings.ContainsAny(tok, " \t\r\n") || len(h) > maxHeaderLen {
			t.Fatalf("ParseAuthorization(%q) accepted %q", h, tok)
		}
	})
}

func TestParseAuthorization(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   string
	}{
		{[]string{"Bearer abc"}, "abc"},
		{[]string{"BEARER abc"}, "abc"},
		{nil, ""},
		{[]string{"Bearer abc", "Bearer def"}, ""},
		{[]string{"Bearer "}, ""},
		{[]string{"Bearer a b"}, ""},
		{[]string{"Token abc"}, ""},
		{[]string{"Bearer " + strings.Repeat("a", maxHeaderLen)}, ""},
	} {
		got, err := ParseAuthorization(tc.values)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("ParseAuthorization(%q) = %q, %v; want %q", tc.values, got, err, tc.want)
		}
	}
}

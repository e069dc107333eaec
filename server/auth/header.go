package auth

import (
	"errors"
	"strings"
)

// errNoBearer reports an Authorization header that is not one bearer
// credential.
var errNoBearer = errors.New("no bearer credential")

// maxHeaderLen bounds the Authorization header we read: a token is far
// shorter, and nothing longer is parsed at all.
const maxHeaderLen = 512

// ParseAuthorization returns the token of an Authorization header value
// of the form "Bearer TOKEN": the scheme case-insensitive (RFC 9110), one
// space, a token of visible ASCII without spaces. Anything else, several
// values joined, or a value longer than maxHeaderLen, is errNoBearer.
func ParseAuthorization(values []string) (string, error) {
	if len(values) != 1 {
		return "", errNoBearer
	}
	h := values[0]
	const scheme = "bearer "
	if len(h) > maxHeaderLen || len(h) <= len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return "", errNoBearer
	}
	tok := h[len(scheme):]
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c >= 0x7f {
			return "", errNoBearer
		}
	}
	return tok, nil
}

package credentials

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"
)

// SecretLen is the length of a token's secret in bytes.
const SecretLen = 32

// tokenPrefix starts every token, so that a secret scanner can find one.
const tokenPrefix = "telha_"

// TokenLen is the length of a token in characters.
var TokenLen = len(tokenPrefix) + 32 + 1 + base64.RawURLEncoding.EncodedLen(SecretLen)

// Token is a parsed API token: the public key id and the secret. Its
// Format prints no part of the secret.
type Token struct {
	ID     uuid.UUID
	secret [SecretLen]byte
}

// newToken returns a token with a fresh random id and secret.
func newToken() (Token, error) {
	var t Token
	var raw [16 + SecretLen]byte
	if _, err := io.ReadFull(rand.Reader, raw[:]); err != nil {
		return Token{}, fmt.Errorf("new token: %w", err)
	}
	t.ID = uuid.UUID(raw[:16])
	t.secret = [SecretLen]byte(raw[16:])
	return t, nil
}

// String returns the token as the client sends it. It is the only way
// the secret leaves the package, and Create calls it once.
func (t Token) reveal() string {
	return tokenPrefix + hex.EncodeToString(t.ID[:]) + "_" + base64.RawURLEncoding.EncodeToString(t.secret[:])
}

// Format prints the key id and withholds the secret, whatever the verb.
func (t Token) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, "credentials.Token(%s, secret withheld)", t.ID)
}

// digest is the stored hash of the token: SHA-256 of a domain string, the
// key id and the secret. The secret has 256 bits of entropy, so a fast
// hash is enough: nobody can search that space offline.
func (t Token) digest() [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte("telha/credential/v1"))
	h.Write(t.ID[:])
	h.Write(t.secret[:])
	return [sha256.Size]byte(h.Sum(nil))
}

// ParseToken parses a token. Anything but the exact form (prefix, 32
// lowercase hex digits, "_", 43 base64url characters decoding to 32
// bytes) is ErrMalformed; ParseToken never panics.
func ParseToken(s string) (Token, error) {
	if len(s) != TokenLen || !strings.HasPrefix(s, tokenPrefix) {
		return Token{}, ErrMalformed
	}
	rest := s[len(tokenPrefix):]
	idHex, secret := rest[:32], rest[32:]
	if secret[0] != '_' {
		return Token{}, ErrMalformed
	}
	var t Token
	if strings.ToLower(idHex) != idHex {
		return Token{}, ErrMalformed
	}
	if _, err := hex.Decode(t.ID[:], []byte(idHex)); err != nil {
		return Token{}, ErrMalformed
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(secret[1:])
	if err != nil || len(raw) != SecretLen {
		return Token{}, ErrMalformed
	}
	t.secret = [SecretLen]byte(raw)
	return t, nil
}

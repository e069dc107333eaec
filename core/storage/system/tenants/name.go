package tenants

import "fmt"

// MaxNameLen is the longest display name, in bytes.
const MaxNameLen = 63

// CheckName returns nil if name may be a tenant's display name: 1 to 63
// bytes of lowercase ASCII letters, digits, '.', '_' and '-', starting with
// a letter or a digit. The alphabet has no ':' and no space, so a name is
// never read as a TENANT:ORG pair of UUIDs, and it is safe on a command
// line and in a file name.
func CheckName(name string) error {
	if name == "" || len(name) > MaxNameLen {
		return fmt.Errorf("tenant name %q: want 1..%d bytes: %w", name, MaxNameLen, ErrInvalidName)
	}
	for i := range len(name) {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '.' || c == '_' || c == '-') && i > 0:
		default:
			return fmt.Errorf("tenant name %q: byte %d (%q): want a-z, 0-9, and '.', '_' or '-' after the first: %w",
				name, i, c, ErrInvalidName)
		}
	}
	return nil
}

package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"telha.dev/core/storage"
)

// decodeKey renders one key. The hex may carry a 0x prefix and spaces, as
// pasted from logs or a hex dump.
func decodeKey(*pflag.FlagSet) runner {
	return func(in *invocation) error {
		if len(in.args) != 2 {
			return in.usagef("want <family> <hex>, got %d arguments", len(in.args))
		}
		cf, err := parseFamily(in, in.args[0])
		if err != nil {
			return err
		}
		b, err := parseHex(in, in.args[1])
		if err != nil {
			return err
		}
		s, err := storage.DescribeKey(cf, b)
		if err != nil {
			return usagef("debug decode-key: %v", err)
		}
		row := keyRow{Family: cf.String(), Hex: hex.EncodeToString(b), Key: s}
		return in.print(row, func(w io.Writer) error {
			_, err := fmt.Fprintln(w, row.Key)
			return err
		})
	}
}

// parseFamily parses a column family's name, and refuses any other word
// with the list of them.
func parseFamily(in *invocation, name string) (storage.ColumnFamily, error) {
	cf, err := storage.ParseColumnFamily(name)
	if err != nil {
		return cf, usagef("%s: %v; want one of %s", in.name(), err, familyList())
	}
	return cf, nil
}

// parseHex parses key bytes in hex, with an optional 0x and spaces.
func parseHex(in *invocation, s string) ([]byte, error) {
	text := strings.TrimPrefix(strings.Join(strings.Fields(s), ""), "0x")
	b, err := hex.DecodeString(text)
	if err != nil {
		return nil, usagef("%s: bad hex: %v; want the key's bytes in hex, as telha debug keys prints them", in.name(), err)
	}
	return b, nil
}

// debugLayout prints the key layout document.
func debugLayout(*pflag.FlagSet) runner {
	return func(in *invocation) error {
		if len(in.args) != 0 {
			return in.usagef("takes no arguments, not %q", in.args[0])
		}
		_, err := io.WriteString(in.stdout, storage.LayoutDoc())
		return err
	}
}

func familyList() string {
	var names []string
	for _, cf := range storage.Families() {
		names = append(names, cf.String())
	}
	return strings.Join(names, ", ")
}

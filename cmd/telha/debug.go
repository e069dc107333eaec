package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"telha.dev/core/storage"
)

const debugUsage = `usage:
  telha debug decode-key <family> <hex>   render one key readably
  telha debug layout                      print the key layout document (docs/key-layout.md)`

func debug(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usagef("debug: missing subcommand (decode-key or layout)")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		_, err := fmt.Fprintln(stdout, debugUsage)
		if err != nil {
			return err
		}
		return errHelp
	case "decode-key":
		return decodeKey(args[1:], stdout)
	case "layout":
		if len(args) != 1 {
			return usagef("debug layout takes no arguments")
		}
		_, err := io.WriteString(stdout, storage.LayoutDoc())
		return err
	}
	return usagef("debug: unknown subcommand %q (want decode-key or layout)", args[0])
}

// decodeKey renders one key. The hex may carry a 0x prefix and spaces, as
// pasted from logs or a hex dump.
func decodeKey(args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return usagef("debug decode-key: want <family> <hex>, got %d arguments", len(args))
	}
	cf, err := storage.ParseColumnFamily(args[0])
	if err != nil {
		return usagef("debug decode-key: %v (families: %s)", err, familyList())
	}
	text := strings.TrimPrefix(strings.Join(strings.Fields(args[1]), ""), "0x")
	b, err := hex.DecodeString(text)
	if err != nil {
		return usagef("debug decode-key: bad hex: %v", err)
	}
	s, err := storage.DescribeKey(cf, b)
	if err != nil {
		return usagef("debug decode-key: %v", err)
	}
	_, err = fmt.Fprintln(stdout, s)
	return err
}

func familyList() string {
	var names []string
	for _, cf := range storage.Families() {
		names = append(names, cf.String())
	}
	return strings.Join(names, ", ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

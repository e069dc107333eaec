package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"telha.dev/lifecycle"
	"telha.dev/server"
)

const keyUsage = `usage:
  telha key create -data DIR -scope TENANT:ORG|NAME [-name LABEL] [-expires DURATION]  print a new API token, once, on the last line
  telha key list -data DIR                   list the keys (never their tokens)
  telha key revoke -data DIR -id KEY_ID       revoke a key from its next request on`

// keyCommand runs telha key create|list|revoke over telha.dev/server's
// credential functions.
func keyCommand(args []string, stdout, stderr io.Writer) (err error) {
	if len(args) == 0 {
		return usagef("key: missing subcommand; %s", oneLine(keyUsage))
	}
	sub := args[0]
	flags := flag.NewFlagSet("key "+sub, flag.ContinueOnError)
	dataDir := flags.String("data", "", "directory of the embedded RocksDB store")
	var scope, name, id *string
	var expires *time.Duration
	switch sub {
	case "create":
		scope = flags.String("scope", "", "the tenant: TENANT:ORG or its display name")
		name = flags.String("name", "", "a label for the key")
		expires = flags.Duration("expires", 0, "how long the key is valid (0: until revoked)")
	case "list":
	case "revoke":
		id = flags.String("id", "", "the key id, as telha key list prints it")
	case "help", "-h", "-help", "--help":
		_, err := fmt.Fprintln(stdout, keyUsage)
		return err
	default:
		return usagef("key: unknown subcommand %q; %s", sub, oneLine(keyUsage))
	}
	if err := parseFlags(flags, args[1:], keyUsage, stdout); err != nil {
		return err
	}
	if flags.NArg() != 0 {
		return usagef("key %s: unexpected argument %q", sub, flags.Arg(0))
	}
	st, err := openStore("key "+sub, *dataDir, false, stderr)
	if err != nil {
		return err
	}
	defer func() { err = st.close(err) }()
	switch sub {
	case "create":
		k, token, err := server.CreateKey(st, *scope, *name, *expires)
		if err != nil {
			return keyError("key create", err)
		}
		fmt.Fprintf(stdout, "key %s for tenant %s; the token, shown once:\n%s\n", k.ID, lifecycle.FormatScope(k.Scope), token)
	case "list":
		keys, err := server.ListKeys(st)
		if err != nil {
			return fmt.Errorf("key list: %w", err)
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY ID\tTENANT\tNAME\tCREATED\tEXPIRES\tREVOKED")
		for _, k := range keys {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, lifecycle.FormatScope(k.Scope), k.Name, when(k.Created), when(k.Expires), when(k.Revoked))
		}
		return tw.Flush()
	case "revoke":
		k, err := server.RevokeKey(st, *id)
		if err != nil {
			return keyError("key revoke", err)
		}
		fmt.Fprintf(stdout, "revoked key %s of tenant %s\n", k.ID, lifecycle.FormatScope(k.Scope))
	}
	return nil
}

// keyError marks a refusal of the operator's input (exit status 2).
func keyError(cmd string, err error) error {
	if errors.Is(err, server.ErrBadKey) || errors.Is(err, server.ErrUnknownTenant) {
		return usagef("%s: %w", cmd, err)
	}
	return fmt.Errorf("%s: %w", cmd, err)
}

// when prints a time of a key, "-" for none.
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

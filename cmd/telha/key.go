package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"telha.dev/lifecycle"
	"telha.dev/server"
)

// keyCreate creates an API key of the tenant API for a tenant and prints
// its token, alone on the last line of stdout: the only time it is shown.
func keyCreate(fs *pflag.FlagSet) runner {
	name := fs.String("name", "", "a label for the key")
	expires := fs.Duration("expires", 0, "how long the key is valid (0: until revoked)")
	return func(in *invocation) (err error) {
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		k, token, err := server.CreateKey(s.Engine, in.scope, *name, *expires)
		if err != nil {
			return keyError(in.name(), err)
		}
		_, err = fmt.Fprintf(in.stdout, "key %s for tenant %s; the token, shown once:\n%s\n", k.ID, lifecycle.FormatScope(k.Scope), token)
		return err
	}
}

// keyList lists the API keys, never their tokens.
func keyList(*pflag.FlagSet) runner {
	return func(in *invocation) (err error) {
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		keys, err := server.ListKeys(s.Engine)
		if err != nil {
			return fmt.Errorf("key list: %w", err)
		}
		rows := make([]apiKeyRow, 0, len(keys))
		for _, k := range keys {
			rows = append(rows, apiKeyRowOf(k))
		}
		return in.print(rows, func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "KEY ID\tTENANT\tNAME\tCREATED\tEXPIRES\tREVOKED")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Scope, r.Name, when(&r.Created), when(r.Expires), when(r.Revoked))
			}
			return tw.Flush()
		})
	}
}

// keyRevoke revokes a key: its token authenticates no request from the
// next one on.
func keyRevoke(fs *pflag.FlagSet) runner {
	id := fs.String("id", "", "the key id, as telha key list prints it")
	return func(in *invocation) (err error) {
		if *id == "" {
			return in.usagef("missing -id KEY_ID; telha key list prints the ids")
		}
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		k, err := server.RevokeKey(s.Engine, *id)
		if err != nil {
			return keyError(in.name(), err)
		}
		_, err = fmt.Fprintf(in.stdout, "revoked key %s of tenant %s\n", k.ID, lifecycle.FormatScope(k.Scope))
		return err
	}
}

// keyError marks a refusal of the operator's input (exit status 2).
func keyError(cmd string, err error) error {
	if errors.Is(err, server.ErrBadKey) || errors.Is(err, server.ErrUnknownTenant) {
		return usagef("%s: %w", cmd, err)
	}
	return fmt.Errorf("%s: %w", cmd, err)
}

// when prints a time of a key, "-" for none.
func when(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

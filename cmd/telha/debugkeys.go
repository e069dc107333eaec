package main

import (
	"encoding/hex"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"telha.dev/core/storage"
	"telha.dev/lifecycle"
)

// debugKeys lists the keys of a tenant in one family, decoded, a page at
// a time: -limit keys after -after (the hex of the last key of the page
// before, which the page prints as its next).
func debugKeys(fs *pflag.FlagSet) runner {
	family := fs.String("family", "", "the column family: "+familyList())
	limit := fs.Int("limit", 100, "the most keys in a page")
	after := fs.String("after", "", "the hex of the key the page starts after (the next of the page before)")
	return func(in *invocation) (err error) {
		if *family == "" {
			return in.usagef("missing -family F; want one of %s", familyList())
		}
		cf, err := parseFamily(in, *family)
		if err != nil {
			return err
		}
		if *limit < 1 {
			return in.usagef("-limit %d: want 1 or more", *limit)
		}
		var cursor []byte
		if *after != "" {
			if cursor, err = parseHex(in, *after); err != nil {
				return err
			}
		}
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		t, _, err := resolveTenant(in.name(), s, in.scope)
		if err != nil {
			return err
		}
		rg := storage.TenantAll(t.Scope, cf)
		if cursor != nil {
			k, err := storage.ParseKey(t.Scope, cf, cursor)
			if err != nil {
				return usagef("debug keys: -after: %v; want the next of a page of this tenant and family", err)
			}
			if rg, err = rg.After(k); err != nil {
				return usagef("debug keys: -after: %v", err)
			}
		}
		page := keyPage{Keys: []keyRow{}}
		for kv, err := range s.Scan(rg) {
			if err != nil {
				return fmt.Errorf("debug keys: %w", err)
			}
			if len(page.Keys) == *limit {
				page.Next = page.Keys[len(page.Keys)-1].Hex
				break
			}
			text, err := storage.DescribeKey(cf, kv.Key)
			if err != nil {
				text = "undecodable: " + err.Error()
			}
			page.Keys = append(page.Keys, keyRow{Family: cf.String(), Hex: hex.EncodeToString(kv.Key), Key: text})
		}
		return in.print(page, func(w io.Writer) error {
			for _, k := range page.Keys {
				fmt.Fprintf(w, "%s  %s\n", k.Hex, k.Key)
			}
			if page.Next != "" {
				fmt.Fprintf(w, "more: telha debug keys %s -scope %s -family %s -after %s\n", in.loc.flags(), lifecycle.FormatScope(t.Scope), cf, page.Next)
			}
			return nil
		})
	}
}

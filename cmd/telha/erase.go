package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/pflag"

	"telha.dev/lifecycle"
)

// tenantErase erases a tenant physically (lifecycle.EraseTenant), after
// the checks and the confirmation of destroy.go.
func tenantErase(fs *pflag.FlagSet) runner {
	d := defineDestruction(fs)
	return func(in *invocation) error { return d.erase(in, uuid.Nil) }
}

// entityErase erases one entity of a tenant physically
// (lifecycle.EraseEntity), after the checks and the confirmation of
// destroy.go.
func entityErase(fs *pflag.FlagSet) runner {
	d := defineDestruction(fs)
	id := fs.String("id", "", "the entity's id (a UUID)")
	return func(in *invocation) error {
		entity, err := uuid.Parse(*id)
		switch {
		case *id == "":
			return in.usagef("missing -id UUID")
		case err != nil || entity == uuid.Nil:
			return in.usagef("-id %q is not a non-nil UUID; want the entity's id, as telha debug keys lists it", *id)
		}
		return d.erase(in, entity)
	}
}

// erase is the run of tenant erase (entity is uuid.Nil) and entity erase:
// the checks, the dry run or the confirmation, the erasure and its report.
func (d *destruction) erase(in *invocation, entity uuid.UUID) (err error) {
	s, t, desc, err := d.open(in)
	if err != nil {
		return err
	}
	defer func() { err = s.close(err) }()
	kind, id := "tenant", ""
	plan := func() (lifecycle.Plan, error) { return lifecycle.PlanTenantErasure(s.Engine, t.Scope) }
	erase := func(o lifecycle.EraseOptions) (lifecycle.Erasure, error) {
		return lifecycle.EraseTenant(s.Engine, t.Scope, o)
	}
	if entity != uuid.Nil {
		kind, id = "entity", entity.String()
		plan = func() (lifecycle.Plan, error) { return lifecycle.PlanEntityErasure(s.Engine, t.Scope, entity) }
		erase = func(o lifecycle.EraseOptions) (lifecycle.Erasure, error) {
			return lifecycle.EraseEntity(s.Engine, t.Scope, entity, o)
		}
	}
	scope := lifecycle.FormatScope(t.Scope)
	what := erasureWhat(kind, scope, id)
	if d.dryRun || !d.yes {
		p, err := plan()
		if err != nil {
			return fmt.Errorf("%s: %w", in.name(), err)
		}
		if d.dryRun {
			return in.printErasure(erasureOf(kind, scope, id, p))
		}
		rows, n := p.Rows()
		if err := d.confirm(in, t, fmt.Sprintf("erase %s: %d rows, %d bytes", what, rows, n)); err != nil {
			return err
		}
	}
	if in.format != "json" {
		fmt.Fprintf(in.stdout, "erasing %s (%s)\n", what, desc)
	}
	progress, end := in.stepProgress()
	er, err := erase(lifecycle.EraseOptions{Progress: progress})
	end()
	if err != nil {
		return err
	}
	if err := in.printErasure(erasureDone(kind, scope, id, er)); err != nil {
		return err
	}
	return pendingOf(in.name(), er)
}

// erasureWhat names what an erasure of kind takes out, for a message.
func erasureWhat(kind, scope, entity string) string {
	if kind == "entity" {
		return fmt.Sprintf("entity %s of tenant %s", entity, scope)
	}
	return "tenant " + scope
}

// erasureOf is the report of a dry run.
func erasureOf(kind, scope, entity string, plan lifecycle.Plan) erasureReport {
	fams, rows, n := familyRows(plan.Families)
	return erasureReport{Kind: kind, Scope: scope, Entity: entity, DryRun: true, Families: fams, Rows: rows, Bytes: n}
}

// erasureDone is the report of an erasure done.
func erasureDone(kind, scope, entity string, er lifecycle.Erasure) erasureReport {
	fams, rows, n := familyRows(deletedPerFamily(er))
	r := erasureReport{Kind: kind, Scope: scope, Entity: entity, Families: fams, Rows: rows, Bytes: n,
		Ledger: er.Entry.ID.String(), Pending: er.Entry.Pending}
	if !er.Entry.Verified.IsZero() {
		v := er.Entry.Verified.UTC()
		r.Verified = &v
	}
	return r
}

// deletedPerFamily sums the deletions of an erasure's ledger entry per
// family, in family order, leaving out families with no row.
func deletedPerFamily(er lifecycle.Erasure) []lifecycle.FamilyCount {
	var out []lifecycle.FamilyCount
	for _, d := range er.Entry.Deletions {
		if d.Rows == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Family == d.Family {
			out[n-1].Rows += d.Rows
			out[n-1].Bytes += d.Bytes
			continue
		}
		out = append(out, lifecycle.FamilyCount{Family: d.Family, Rows: d.Rows, Bytes: d.Bytes})
	}
	return out
}

// printErasure prints an erasure's report: one line of what was done (or,
// in a dry run, would be), then the rows per family.
func (in *invocation) printErasure(r erasureReport) error {
	return in.print(r, func(w io.Writer) error {
		what := erasureWhat(r.Kind, r.Scope, r.Entity)
		if r.DryRun {
			fmt.Fprintf(w, "dry run: erasing %s would delete %d rows, %d bytes; nothing was changed\n", what, r.Rows, r.Bytes)
		} else {
			verified := ""
			if r.Verified != nil {
				verified = " " + r.Verified.Format(time.RFC3339)
			}
			fmt.Fprintf(w, "erased %s: %d rows, %d bytes; verified%s; ledger entry %s\n", what, r.Rows, r.Bytes, verified, r.Ledger)
		}
		printFamilies(w, r.Families)
		return nil
	})
}

// errRowsRemain is the failure of a verification that counted rows.
var errRowsRemain = errors.New("rows remain")

// tenantVerify prints the rows of a tenant per family; it fails unless
// every count is zero.
func tenantVerify(*pflag.FlagSet) runner {
	return func(in *invocation) (err error) {
		s, t, known, err := in.openTenant()
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		desc := describeState(t, known)
		counts, err := lifecycle.Verify(s.Engine, t.Scope)
		if err != nil {
			return err
		}
		fams, rows, n := familyRows(counts)
		r := familyReport{Scope: lifecycle.FormatScope(t.Scope), Name: t.Name, State: "unregistered", Families: fams, Rows: rows, Bytes: n}
		if known {
			r.State = t.State.String()
		}
		err = in.print(r, func(w io.Writer) error {
			fmt.Fprintf(w, "tenant %s (%s)\n", r.Scope, desc)
			printFamilies(w, r.Families)
			if rows == 0 {
				fmt.Fprintln(w, "no row remains")
			}
			return nil
		})
		if err != nil {
			return err
		}
		if rows != 0 {
			return fmt.Errorf("tenant verify %s: %d rows (%d bytes) remain: %w", r.Scope, rows, n, errRowsRemain)
		}
		return nil
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"telha.dev/analyzers/inventory"
)

// vetRun is one run of go vet with telhavet as its vet tool: go vet builds
// and caches every package and its facts, and runs one telhavet process
// per package, so the work and the memory follow the packages that
// changed, not the size of the tree.
type vetRun struct {
	tool  string   // the telhavet executable
	dir   string   // where go vet runs
	build build    // the build configuration
	flags []string // vet tool flags: analyzer selection and settings
	pkgs  []string // package patterns or import paths
	trace bool     // print the command, and go vet's (go vet -x)
	// cache replays the run while nothing it depends on changed; nil to
	// run go vet every time.
	cache *resultCache
}

// results is what vet runs found, merged.
type results struct {
	diags   []diagnostic
	errors  []analyzerError
	records map[string]inventory.Record // by import path
	failed  []string                    // the errors of go vet runs that failed
	seen    map[string]bool             // diagnostics already merged
	// neverAnalyzed describes the files that no build configuration
	// analyzed.
	neverAnalyzed []string
}

// A diagnostic is one finding.
type diagnostic struct {
	Package  string          // the package ID, "p [p.test]"
	Analyzer string          // the analyzer's name
	Posn     string          // file:line:column
	Message  string          //
	Raw      json.RawMessage // as go vet gave it, for -json
	file     string
	line     int
	col      int
}

// An analyzerError is an analyzer that failed on a package.
type analyzerError struct {
	Package, Analyzer, Err string
}

func newResults() *results {
	return &results{records: make(map[string]inventory.Record), seen: make(map[string]bool)}
}

// run merges into res what go vet reports: replayed from r.cache if it
// holds the run's results, else from go vet, then stored in r.cache unless
// the run failed.
func (r vetRun) run(res *results) error {
	if r.cache == nil {
		_, err := r.vet(res)
		return err
	}
	name, inputs, err := r.cache.key(r)
	if err != nil {
		r.tracef("# build %s: no result cache: %v", r.build, err)
		_, err := r.vet(res)
		return err
	}
	if out, ok := r.cache.load(name, inputs); ok {
		replayed := newResults()
		if err := replayed.decode(bytes.NewReader(out)); err == nil {
			r.tracef("# build %s: go vet's results replayed from %s", r.build, filepath.Join(r.cache.dir, name))
			res.merge(replayed)
			return nil
		}
	}
	part := newResults()
	out, err := r.vet(part)
	if err != nil {
		return err
	}
	res.merge(part)
	if len(part.failed) == 0 && len(part.errors) == 0 {
		if err := r.cache.store(name, inputs, out); err != nil {
			r.tracef("# build %s: results not stored: %v", r.build, err)
		}
	}
	return nil
}

// tracef prints a line of the -x trace.
func (r vetRun) tracef(format string, args ...any) {
	if r.trace {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}

// vet runs go vet, merges what it reports into res and returns its
// standard output.
func (r vetRun) vet(res *results) ([]byte, error) {
	args := append([]string{"vet", "-vettool=" + r.tool, "-json"}, r.build.flags()...)
	if r.trace {
		args = append(args, "-x")
	}
	args = append(append(args, r.flags...), r.pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), r.build.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if r.trace {
		r.tracef("%s go %s", strings.Join(r.build.env, " "), strings.Join(args, " "))
		cmd.Stderr = io.MultiWriter(&stderr, os.Stderr)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("go vet: %w", err)
	}
	var out bytes.Buffer
	decodeErr := res.decode(io.TeeReader(stdout, &out))
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return nil, fmt.Errorf("go vet: %w", err)
		}
		msg := strings.TrimSpace(stderr.String())
		if r.build.String() != "default" {
			msg = fmt.Sprintf("in build %s:\n%s", r.build, msg)
		}
		res.failed = append(res.failed, msg)
	}
	if decodeErr != nil {
		return nil, fmt.Errorf("reading go vet -json output: %w", decodeErr)
	}
	return out.Bytes(), nil
}

// decode merges the stream of JSON trees that go vet -json writes, one per
// package: {"pkg ID": {"analyzer": [diagnostics] or {"error": "..."}}}.
func (res *results) decode(r io.Reader) error {
	dec := json.NewDecoder(r)
	for {
		var tree map[string]map[string]json.RawMessage
		if err := dec.Decode(&tree); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		for pkg, byAnalyzer := range tree {
			for analyzer, raw := range byAnalyzer {
				if err := res.add(pkg, analyzer, raw); err != nil {
					return err
				}
			}
		}
	}
}

// add merges the output of one analyzer on one package.
func (res *results) add(pkg, analyzer string, raw json.RawMessage) error {
	var failure struct {
		Err string `json:"error"`
	}
	if json.Unmarshal(raw, &failure) == nil && failure.Err != "" {
		res.errors = append(res.errors, analyzerError{pkg, analyzer, failure.Err})
		return nil
	}
	var diags []json.RawMessage
	if err := json.Unmarshal(raw, &diags); err != nil {
		return fmt.Errorf("%s: %s: %w", pkg, analyzer, err)
	}
	for _, d := range diags {
		var fields struct {
			Posn    string `json:"posn"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(d, &fields); err != nil {
			return fmt.Errorf("%s: %s: %w", pkg, analyzer, err)
		}
		if analyzer == inventory.Name {
			var rec inventory.Record
			if err := json.Unmarshal([]byte(fields.Message), &rec); err != nil {
				return fmt.Errorf("%s: inventory: %w", pkg, err)
			}
			res.records[rec.Pkg] = merged(res.records[rec.Pkg], rec)
			continue
		}
		diag := diagnostic{Package: pkg, Analyzer: analyzer, Posn: fields.Posn, Message: fields.Message, Raw: d}
		diag.file, diag.line, diag.col = splitPosn(fields.Posn)
		res.addDiagnostic(diag)
	}
	return nil
}

// addDiagnostic adds a finding, unless the same finding came from another
// build or variant.
func (res *results) addDiagnostic(d diagnostic) {
	key := d.Analyzer + "\x00" + d.Posn + "\x00" + d.Message
	if res.seen[key] {
		return
	}
	res.seen[key] = true
	res.diags = append(res.diags, d)
}

// merge adds the results of another vet run.
func (res *results) merge(other *results) {
	for _, d := range other.diags {
		res.addDiagnostic(d)
	}
	res.errors = append(res.errors, other.errors...)
	for pkg, rec := range other.records {
		res.records[pkg] = merged(res.records[pkg], rec)
	}
	res.failed = append(res.failed, other.failed...)
}

// runAll runs vet runs at the same time, each into results of its own, and
// merges their results in order.
func runAll(runs []vetRun) (*results, error) {
	parts := make([]*results, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		parts[i] = newResults()
		wg.Go(func() { errs[i] = r.run(parts[i]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	res := newResults()
	for _, part := range parts {
		res.merge(part)
	}
	return res, nil
}

// merged returns the record of a package analyzed in several variants
// (with and without its tests) or builds: the files any saw, the files all
// left out.
func merged(old, rec inventory.Record) inventory.Record {
	if old.Pkg == "" {
		return rec
	}
	old.Files = append(old.Files, rec.Files...)
	old.Imports = append(old.Imports, rec.Imports...)
	var ignored []string
	for _, f := range old.Ignored {
		if slices.Contains(rec.Ignored, f) {
			ignored = append(ignored, f)
		}
	}
	old.Ignored = ignored
	return old
}

// splitPosn splits "file:line:col" (the file may hold colons).
func splitPosn(posn string) (file string, line, col int) {
	file = posn
	if i := strings.LastIndexByte(file, ':'); i >= 0 {
		if n, err := strconv.Atoi(file[i+1:]); err == nil {
			col, file = n, file[:i]
		}
	}
	if i := strings.LastIndexByte(file, ':'); i >= 0 {
		if n, err := strconv.Atoi(file[i+1:]); err == nil {
			line, file = n, file[:i]
		}
	}
	return file, line, col
}

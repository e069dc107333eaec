// Command telhavet is the static-analysis gate of Telha Core: one binary
// that runs the Telha rules (no raw engine iterators, no keys or ranges built
// from bytes, no system scope outside core/storage), the go vet suite and
// staticcheck's default checks.
//
// Usage:
//
//	telhavet [flags] [packages]
//	go vet -vettool=$(command -v telhavet) [vet flags] [packages]
//	telhavet help [analyzer]
//	telhavet rules
//
// "telhavet rules" prints the names of the Telha rules, one per line, for
// scripts: go vet selects them with -NAME flags.
//
// Run directly, telhavet drives go vet with itself as the vet tool, so
// that the go command's build and vet caches make a run cost what changed
// since the last one, and each package is analyzed in a process of its
// own. It adds what go vet alone does not do:
//
//   - at the root of a go.work workspace, "./..." stands for every
//     workspace module, where plain go vet fails;
//   - the packages of workspace modules that analyzed code imports are
//     analyzed too, even where ./... does not look (testdata, vendor, "_"
//     and "." directories);
//   - the build configurations of the workspace's telhavet.builds file are
//     analyzed beside the default one, for the files it leaves out, and the
//     run fails naming every .go file that no configuration analyzed; their
//     results are replayed from a cache in $GOCACHE/telhavet while the
//     workspace and the go environment are unchanged (see resultCache);
//   - the modules of the key authority must be where authority.conf places
//     them, relative to the go.work root;
//   - a replace directive that puts a directory in a module's place must
//     name a workspace module (auditReplaces);
//   - runs on the same go command cache take turns (lockRuns), where
//     concurrent go vet runs can lose each other's findings.
//
// Run by go vet, it speaks go vet's unit protocol; there, a -NAME flag per
// Telha rule (telhavet rules) selects the Telha rules alone.
//
// Flags of the direct mode:
//
//	-json        print the findings as JSON on standard output
//	-sarif       print the findings as SARIF 2.1.0 on standard output
//	-telha-only  run the Telha rules only
//	-test=false  leave out the findings in test files
//	-c=N         display the offending line with N lines of context
//	-x           print the go vet commands, and go vet's own (one vet tool
//	             run per package analyzed, none for a package it reuses)
//	-NAME.FLAG   set the flag FLAG of the analyzer NAME
//
// Staticcheck's //lint:ignore directives silence staticcheck's checks only:
// nothing silences a Telha rule or a vet pass.
//
// The exit status is 0 when there is nothing to report, 1 when packages fail
// to load or build, an analyzer fails or a file is never analyzed, 2 for bad
// flags, and 3 when there are findings, also with -json, so that a gate
// cannot pass by changing the output format.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis/unitchecker"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/inventory"
	"telha.dev/analyzers/suite"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("telhavet: ")
	if len(os.Args) == 2 && os.Args[1] == "rules" {
		fmt.Println(strings.Join(telhaRules(), "\n"))
		return
	}
	if unitMode(os.Args[1:]) {
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(vetToolMemoryLimit)
		}
		os.Args = append(os.Args[:1], unitArgs(os.Args[1:])...)
		unitchecker.Main(bundle()...) // never returns; with a malformed authority.conf every rule fails
	}
	if authority.Err != nil {
		log.Fatal(authority.Err) // compiled in: rebuild telhavet once authority.conf is fixed
	}
	os.Exit(run(os.Args[1:]))
}

// vetToolMemoryLimit is the soft memory limit of telhavet as go vet's
// tool, unless GOMEMLIMIT sets another: go vet runs one tool process per
// package, GOMAXPROCS of them at once, and most of a process's peak is
// garbage (syntax, types and SSA of the package, facts of its
// dependencies) that a collection at this size frees. On the workspace and
// the synthetic ones of tools/scalegen, it lowers the largest tool process
// from 270 MB to 210 MB for about a sixth more CPU time when every package
// is analyzed, and changes nothing when results are replayed from the cache.
const vetToolMemoryLimit = 128 << 20

// unitMode reports whether to hand over to the unit checker: go vet drives
// a vet tool by asking for its version (-V=full) and flags (-flags), then
// passing the flags and one configuration file per package. "telhavet help
// [analyzer]" goes there too, for the unit checker's list of analyzers and
// their documentation.
func unitMode(args []string) bool {
	for _, a := range args {
		switch strings.TrimPrefix(a, "-") {
		case "-V=full", "V=full", "-flags", "flags":
			return true
		}
	}
	return len(args) > 0 && (args[0] == "help" || strings.HasSuffix(args[len(args)-1], ".cfg"))
}

// options are the flags of the direct mode.
type options struct {
	json, sarif, telhaOnly, tests, trace bool
	context                              int
	patterns                             []string
	analyzerFlags                        []string // -NAME.FLAG=value settings for the vet tool
}

// parseFlags parses the direct mode's command line.
func parseFlags(args []string) (*options, error) {
	fs := flag.NewFlagSet("telhavet", flag.ContinueOnError)
	o := new(options)
	fs.BoolVar(&o.json, "json", false, "print the findings as JSON on standard output")
	fs.BoolVar(&o.sarif, "sarif", false, "print the findings as SARIF 2.1.0 on standard output")
	fs.BoolVar(&o.telhaOnly, "telha-only", false, "run only the Telha rules")
	fs.BoolVar(&o.tests, "test", true, "report findings in test files too")
	fs.IntVar(&o.context, "c", -1, "display the offending line with this many lines of context")
	fs.BoolVar(&o.trace, "x", false, "print the go vet commands, and go vet's own")
	for _, a := range bundle() {
		a.Flags.VisitAll(func(f *flag.Flag) {
			fs.Var(f.Value, a.Name+"."+f.Name, f.Usage)
		})
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: telhavet [flags] [packages]\n"+
			"       go vet -vettool=$(command -v telhavet) [packages]\n"+
			"       telhavet help [analyzer]\n"+
			"       telhavet rules\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.json && o.sarif {
		fmt.Fprintln(fs.Output(), "-json and -sarif exclude each other")
		return nil, errors.New("-json and -sarif")
	}
	fs.Visit(func(f *flag.Flag) {
		if strings.Contains(f.Name, ".") {
			o.analyzerFlags = append(o.analyzerFlags, "-"+f.Name+"="+f.Value.String())
		}
	})
	o.patterns = fs.Args()
	if len(o.patterns) == 0 {
		o.patterns = []string{"."}
	}
	return o, nil
}

// run is the direct mode: it analyzes the packages named by args through
// go vet, prints the findings and returns the exit status.
func run(args []string) int {
	o, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	res, root, err := analyze(o)
	if err != nil {
		log.Print(err)
		return 1
	}
	var failures []string
	failures = append(failures, res.failed...)
	for _, e := range res.errors {
		failures = append(failures, fmt.Sprintf("%s: %s failed: %s", e.Package, e.Analyzer, e.Err))
	}
	failures = append(failures, res.neverAnalyzed...)
	exit := 0
	for _, f := range failures {
		log.Print(f)
		exit = 1
	}
	diags := res.diags
	if !o.tests {
		diags = withoutTests(diags)
	}
	sortDiagnostics(diags)
	switch {
	case o.json:
		err = printJSON(os.Stdout, diags, res.errors)
	case o.sarif:
		err = printSARIF(os.Stdout, root, diags, bundle(), failures)
	default:
		err = printText(os.Stderr, diags, o.context)
	}
	if err != nil {
		log.Print(err)
		return 1
	}
	if exit == 0 && len(diags) > 0 {
		exit = 3
	}
	return exit
}

// analyze runs go vet over the packages of o in every build configuration
// of the workspace, and over the workspace packages that analyzed code
// imports, until every file is analyzed or no configuration is left. It
// returns the results and the workspace root.
func analyze(o *options) (*results, string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
	tool, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	ws, err := findWorkspace(dir)
	if err != nil {
		return nil, "", err
	}
	if err := ws.audit(authority.Default); err != nil {
		return nil, "", err
	}
	if err := ws.auditReplaces(authority.Default); err != nil {
		return nil, "", err
	}
	patterns, err := ws.expandPatterns(dir, o.patterns)
	if err != nil {
		return nil, "", err
	}
	builds, err := readBuilds(ws.root)
	if err != nil {
		return nil, "", err
	}
	files, err := ws.sourceFiles(dir, patterns)
	if err != nil {
		return nil, "", err
	}

	flags := []string{"-" + inventory.Name + ".report"}
	if o.telhaOnly {
		for _, a := range suite.Analyzers {
			flags = append(flags, "-"+a.Name)
		}
		flags = append(flags, "-"+inventory.Name)
	}
	flags = append(flags, o.analyzerFlags...)

	unlock, err := lockRuns(ws.env["GOCACHE"], o.trace)
	if err != nil {
		return nil, "", err
	}
	defer unlock()

	// The first pass of every build at once: the packages asked for in the
	// default build, and in each other build the packages likely to hold
	// files the default build leaves out. The other builds' runs are
	// replayed from the result cache while the workspace is unchanged; the
	// default build's go vet replays its own cache at the cost the gate is
	// measured against.
	cache := newResultCache(ws, tool)
	first := make([]vetRun, len(builds))
	for i, b := range builds {
		first[i] = vetRun{tool: tool, dir: dir, build: b, flags: flags, pkgs: patterns, trace: o.trace}
		if i > 0 {
			first[i].pkgs = ws.likelyPackages(b, files)
			first[i].cache = cache
		}
	}
	res, err := runAll(slices.DeleteFunc(slices.Clone(first), func(r vetRun) bool { return len(r.pkgs) == 0 }))
	if err != nil {
		return nil, "", err
	}
	// Then, build by build, what is still missing: imported packages that
	// ./... does not reach, and files still unseen.
	for i, b := range builds {
		tried := make(map[string]bool)
		for _, p := range first[i].pkgs {
			tried[p] = true
		}
		for pass := 1; ; pass++ {
			pkgs, err := ws.nextPackages(dir, b, res, files, tried)
			if err != nil {
				return nil, "", err
			}
			if len(pkgs) == 0 {
				break
			}
			r := first[i]
			r.flags, r.pkgs = passFlags(flags, pass), pkgs
			if err := r.run(res); err != nil {
				return nil, "", err
			}
			for _, p := range pkgs {
				tried[p] = true
			}
		}
	}
	res.diags = slices.DeleteFunc(res.diags, func(d diagnostic) bool { return !ws.asked(dir, patterns, d) })
	for _, f := range res.unseen(files) {
		hint := buildLine(f)
		if hint == "" {
			hint = "no //go:build line: is its package broken?"
		}
		res.neverAnalyzed = append(res.neverAnalyzed, fmt.Sprintf(
			"%s: never analyzed (%s): add a build configuration that includes it to %s", f, hint, buildsFile))
	}
	return res, ws.root, nil
}

// passFlags returns the vet tool flags of a pass of the driver over one
// build. Each pass after the first sets -telhainventory.pass, which puts
// its results in a cache partition of their own: go vet caches the
// analysis of a package without telling whether it was analyzed in full
// or only for the facts its importers need, so a package that an earlier
// run analyzed only as a dependency would replay an empty result if
// analyzed again with the same flags.
func passFlags(flags []string, pass int) []string {
	if pass == 0 {
		return flags
	}
	return append(slices.Clip(flags), fmt.Sprintf("-%s.pass=%d", inventory.Name, pass))
}

// telhaRules returns the names of the Telha rules.
func telhaRules() []string {
	var names []string
	for _, a := range suite.Analyzers {
		names = append(names, a.Name)
	}
	return names
}

// withoutTests drops the findings in test files and external test packages.
func withoutTests(diags []diagnostic) []diagnostic {
	var out []diagnostic
	for _, d := range diags {
		if !strings.HasSuffix(d.file, "_test.go") {
			out = append(out, d)
		}
	}
	return out
}

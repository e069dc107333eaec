package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// storeHelp says what STORE stands for in a synopsis.
const storeHelp = `STORE is -data DIR (an embedded RocksDB store) or -etcd ENDPOINTS [-namespace NS]
(an etcd cluster, comma-separated endpoints); TELHA_DATA and TELHA_ETCD_ENDPOINTS
(and TELHA_ETCD_NAMESPACE) stand in for a flag not given.`

// exitHelp is the exit status table (exit.go).
const exitHelp = `Exit status: 0 done; 1 an operation failed (running it again may work); 2 the input
was refused, one line on stderr, nothing written; 3 an erasure done and verified
while members of an etcd cluster were down (the next command finishes it).`

// groupShort says what the commands of a group are for.
var groupShort = map[string]string{
	"tenant": "the tenant lifecycle: provision, list, export, import, erase, verify",
	"source": "source documents: ingest, read, list facts, redact, delete",
	"entity": "one entity of a tenant",
	"ledger": "the erasure ledger",
	"debug":  "look inside a store and its key layout",
}

// help prints the help of cmd on its output: for a command of the table,
// its usage line, its flags and what it does; for a group (telha, telha
// tenant), the usage lines of the commands in it.
func help(cmd *cobra.Command, _ []string) {
	w := cmd.OutOrStdout()
	path := strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), "telha"), " ")
	if c := entry(path); c != nil {
		fmt.Fprintf(w, "usage: telha %s\n", c.synopsis)
		printFlags(w, cmd.Flags())
		fmt.Fprintf(w, "\n%s.\n", c.short)
		if c.store != storeNone {
			fmt.Fprintf(w, "\n%s\n", c.store.help())
		}
		return
	}
	if !isGroup(path) {
		// cobra's own commands: help, completion
		fmt.Fprintf(w, "usage: %s\n", cmd.UseLine())
		printFlags(w, cmd.Flags())
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.Short+"\n\n"+cmd.Long))
		return
	}
	if path != "" {
		fmt.Fprintf(w, "usage:\n%s", synopses(path))
		return
	}
	fmt.Fprintf(w, "usage:\n%s\n%s\n\n%s\n\nRun telha COMMAND -h for a command's flags.\n", commandList(), storeHelp, exitHelp)
}

// commandList is every command's usage line and what it does: the top of
// telha -h, the package doc and the README's CLI section are this text.
func commandList() string {
	return synopses("") +
		"  telha completion bash|zsh|fish|powershell\n      print a shell completion script\n" +
		"  telha --version\n      print the module version and VCS revision\n"
}

// isGroup reports whether path names a group of the table: "" or the
// first words of some entry's path.
func isGroup(path string) bool {
	for _, c := range commandTable {
		if path == "" || strings.HasPrefix(c.path, path+" ") {
			return true
		}
	}
	return false
}

// synopses lists the usage lines of the visible commands under the group
// path, each with what it does.
func synopses(path string) string {
	var b strings.Builder
	for _, c := range commandTable {
		if c.hidden || (path != "" && !strings.HasPrefix(c.path, path+" ")) {
			continue
		}
		fmt.Fprintf(&b, "  telha %s\n      %s\n", c.synopsis, c.short)
	}
	return b.String()
}

// printFlags prints the flags of fs as the Go flag package does, one
// dash each: "  -data string\n    \tdirectory of the RocksDB store".
func printFlags(w io.Writer, fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		name, usage := pflag.UnquoteUsage(f)
		line := "  -" + f.Name
		if f.Shorthand != "" {
			line = "  -" + f.Shorthand + ", -" + f.Name
		}
		if name != "" {
			line += " " + name
		}
		switch f.DefValue {
		case "", "false", "0", "[]":
		default:
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, usage)
	})
}

// revision is the VCS revision that make build stamps with -ldflags -X:
// the go command embeds none in workspace mode (go.work), where every
// build of this repository runs.
var revision string

// version is the module version of this build and its VCS revision,
// from the build information the go command embeds, or else revision.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(no build information)"
	}
	v := info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		rev = revision
	}
	if rev == "" {
		return v + " (no VCS revision)"
	}
	return fmt.Sprintf("%s (revision %s%s)", v, rev, modified)
}

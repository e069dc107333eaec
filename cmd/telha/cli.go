package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The command table (commands.go) is turned into a cobra command tree
// here: dispatch, -h/--help, `telha help`, completion and suggestions all
// come from it, so that a command exists in one place. Flags may come
// anywhere on the line; they are spelled -name, as in the Go flag package
// and this repository's documents, or --name.

// command is one entry of the command table.
type command struct {
	// path is the words after telha: "tenant erase".
	path string
	// synopsis is the usage line after "telha ", every flag but -h, -q
	// and -o: "tenant erase STORE -scope TENANT:ORG|NAME [-yes]".
	synopsis string
	// short says in one line what the command does.
	short string
	// store says whether the command takes the store flags (STORE), and
	// which engines it works on.
	store storeUse
	// scope says the command takes -scope TENANT:ORG|NAME, required.
	scope bool
	// output names the documented type the command prints with -o json
	// (output.go); empty for a command that prints no data.
	output string
	// nargs is the number of arguments after the flags; argsName names
	// them in the message for a missing one. A negative nargs leaves the
	// check to the command.
	nargs    int
	argsName string
	// hidden keeps the command out of the help and the completion.
	hidden bool
	// raw passes the arguments to the command unparsed.
	raw bool
	// define defines the command's own flags on fs and returns the
	// function that runs it.
	define func(fs *pflag.FlagSet) runner
}

// runner runs a command once its flags are parsed.
type runner func(in *invocation) error

// invocation is one run of a command: its parsed flags and arguments,
// the kit's flags and its output streams.
type invocation struct {
	cmd            *command
	args           []string
	flags          *pflag.FlagSet
	stdout, stderr io.Writer
	loc            location // the store flags (store.go)
	scope          string   // -scope
	format         string   // -o: table or json
	quiet          bool     // -q
}

// name is the command's name in messages: "tenant erase".
func (in *invocation) name() string { return in.cmd.path }

// usage is the command's usage line, for messages.
func (in *invocation) usage() string { return "usage: telha " + in.cmd.synopsis }

// usagef is a refusal of in's input: "CMD: MESSAGE (usage: telha ...)".
func (in *invocation) usagef(format string, args ...any) error {
	return usagef("%s: %s (%s)", in.name(), fmt.Sprintf(format, args...), in.usage())
}

// set reports whether the command line set the flag name.
func (in *invocation) set(name string) bool { return in.flags.Changed(name) }

// run executes one invocation and returns its exit status. An error is
// reported as a single line on stderr.
func run(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	code := exitStatus(err)
	if code != exitOK {
		fmt.Fprintf(stderr, "telha: %s\n", eachFactOnce(oneNotation(oneLine(err.Error()))))
	}
	return code
}

// dispatch runs the command args name through the cobra tree.
func dispatch(args []string, stdout, stderr io.Writer) error {
	root := newRoot(stdout, stderr)
	if len(args) == 0 || args[0] != memberCommand {
		args = longFlags(args)
	}
	root.SetArgs(args)
	return root.Execute()
}

// longFlags rewrites -name and -name=value to --name for pflag, which
// reads a single dash as one-letter flags; a word after "--" is left, and
// so is a negative number.
func longFlags(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && isLetter(a[1]) && isLetter(a[2]) {
			a = "-" + a
		}
		out = append(out, a)
	}
	return out
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// newRoot builds the command tree from the table.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "telha",
		Short:         "the Telha Core operator CLI",
		Version:       version(),
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE:          groupRun(""),

		SuggestionsMinimumDistance: 2,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("telha {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(help)
	root.CompletionOptions.HiddenDefaultCmd = false
	groups := map[string]*cobra.Command{"": root}
	for i := range commandTable {
		c := &commandTable[i]
		parent := groupOf(groups, c.path)
		parent.AddCommand(newCobra(c, stdout, stderr))
	}
	return root
}

// groupOf returns the command of the words of path before its last,
// making the groups on the way: "tenant" for "tenant erase".
func groupOf(groups map[string]*cobra.Command, path string) *cobra.Command {
	words := strings.Fields(path)
	parent := groups[""]
	for i := 1; i < len(words); i++ {
		name := strings.Join(words[:i], " ")
		g, ok := groups[name]
		if !ok {
			g = &cobra.Command{
				Use:   words[i-1],
				Short: groupShort[name],
				Args:  cobra.ArbitraryArgs,
				RunE:  groupRun(name),

				SuggestionsMinimumDistance: 2,
			}
			parent.AddCommand(g)
			groups[name] = g
		}
		parent = g
	}
	return parent
}

// groupRun refuses a group (telha, telha tenant) run without a known
// subcommand, suggesting the nearest ones.
func groupRun(name string) func(*cobra.Command, []string) error {
	what, label := "command", ""
	if name != "" {
		what, label = "subcommand", name+": "
	}
	return func(cmd *cobra.Command, args []string) error {
		var subs []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() && c.Name() != "help" {
				subs = append(subs, c.Name())
			}
		}
		want := fmt.Sprintf("want the %s %s (telha %s -h says more)", what, orList(subs), strings.TrimSpace(name))
		switch {
		case len(args) == 0:
			return usagef("%smissing %s; %s", label, what, want)
		case args[0] == "help":
			return cmd.Help()
		}
		msg := fmt.Sprintf("%sunknown %s %q", label, what, args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			return usagef("%s; did you mean %s?", msg, orList(s))
		}
		return usagef("%s; %s", msg, want)
	}
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// progressLines is where the command's progress goes: stderr, or nowhere
// with -q.
func (in *invocation) progressLines() io.Writer {
	if in.quiet {
		return io.Discard
	}
	return in.stderr
}

// newCobra makes the cobra command of table entry c.
func newCobra(c *command, stdout, stderr io.Writer) *cobra.Command {
	words := strings.Fields(c.path)
	in := &invocation{cmd: c, stdout: stdout, stderr: stderr}
	cc := &cobra.Command{
		Use:                words[len(words)-1],
		Short:              c.short,
		Hidden:             c.hidden,
		DisableFlagParsing: c.raw,
		Args:               cobra.ArbitraryArgs,
	}
	fs := cc.Flags()
	fs.SortFlags = true
	if c.store != storeNone {
		in.loc.define(fs, c)
	}
	if c.scope {
		fs.StringVar(&in.scope, "scope", "", "the tenant: TENANT:ORG (two UUIDs) or its display name")
	}
	if c.output != "" {
		fs.StringVarP(&in.format, "output", "o", "table", "the output: table, or json: one "+c.output+" (its fields: cmd/telha/output.go)")
	}
	fs.BoolVarP(&in.quiet, "quiet", "q", false, "print no progress on stderr")
	runFn := c.define(fs)
	cc.RunE = func(cmd *cobra.Command, args []string) error {
		in.args, in.flags = args, fs
		if err := in.check(); err != nil {
			return err
		}
		return runFn(in)
	}
	return cc
}

// check applies the rules every command shares: the store flags, -scope,
// -o and the number of arguments.
func (in *invocation) check() error {
	c := in.cmd
	if c.store != storeNone {
		if err := in.loc.check(in); err != nil {
			return err
		}
	}
	if c.scope && in.scope == "" {
		return in.usagef("missing -scope TENANT:ORG|NAME")
	}
	in.scope = scopeArg(in.scope)
	if c.output != "" && in.format != "table" && in.format != "json" {
		return in.usagef("-o %q: want -o table or -o json", in.format)
	}
	switch {
	case c.nargs < 0:
	case len(in.args) > c.nargs:
		return in.usagef("unexpected argument %q", in.args[c.nargs])
	case len(in.args) < c.nargs:
		return in.usagef("missing %s; want one %s after the flags", c.argsName, c.argsName)
	}
	return nil
}

// flagError makes pflag's refusal of a flag one line that says the
// command and its usage, as the Go flag package words it.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		msg = "flag provided but not defined: -" + strings.TrimPrefix(msg, "unknown flag: --")
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		_, flag, _ := strings.Cut(msg, " in ")
		msg = "flag provided but not defined: " + flag
	}
	path := strings.TrimPrefix(cmd.CommandPath(), "telha ")
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if others := siblingsWith(cmd, name); len(others) > 0 {
			msg += fmt.Sprintf("; -%s is for %s", name, orList(others))
		}
	}
	if c := entry(path); c != nil {
		return usagef("%s: %s (usage: telha %s)", path, msg, c.synopsis)
	}
	return usagef("%s: %s", path, msg)
}

// siblingsWith names the commands beside cmd in its group that define
// the flag name: "source redact" for -range.
func siblingsWith(cmd *cobra.Command, name string) []string {
	if !cmd.HasParent() {
		return nil
	}
	var out []string
	for _, c := range cmd.Parent().Commands() {
		if c != cmd && c.Flags().Lookup(name) != nil {
			out = append(out, strings.TrimPrefix(c.CommandPath(), "telha "))
		}
	}
	return out
}

// entry returns the table entry of path, or nil.
func entry(path string) *command {
	i := slices.IndexFunc(commandTable, func(c command) bool { return c.path == path })
	if i < 0 {
		return nil
	}
	return &commandTable[i]
}

// eachFactOnce drops from an error's chain of "context: context: cause"
// each context that an earlier one already says: "source redact: redact
// blob B of T:O: redact blob B: blob B: no such blob" is printed "source
// redact: redact blob B of T:O: no such blob".
func eachFactOnce(msg string) string {
	parts := strings.Split(msg, ": ")
	kept := parts[:0:0]
	for i, p := range parts {
		said := false
		for _, k := range kept {
			said = said || (i < len(parts)-1 && strings.Contains(k, p))
		}
		if !said {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ": ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Command golangci-lint is golangci-lint v2 with the telhavet module plugin
// linked in, so that editors show the Telha rules next to the usual linters.
//
// The upstream way to build such a binary, "golangci-lint custom", clones
// golangci-lint from git; this package builds the same thing from the Go
// module proxy alone. It mirrors golangci-lint's cmd/golangci-lint/main.go
// and adds the plugin import. Build it outside the workspace, from the
// repository root:
//
//	cd tools/golangci && GOWORK=off go build -o ../../bin/golangci-lint .
//
// To move to another golangci-lint release, change the version in go.mod
// (keeping golang.org/x/tools at the version that release builds with) and
// compare this file with the release's cmd/golangci-lint/main.go.
package main

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	_ "telha.dev/analyzers/plugin" // registers the telhavet linter
)

// golangciModule is the module whose release this binary is.
const golangciModule = "github.com/golangci/golangci-lint/v2"

func main() {
	info := createBuildInfo()

	if err := commands.Execute(info); err != nil {
		_, _ = fmt.Fprintf(os.Stderr, "The command is terminated due to an error: %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}

// createBuildInfo differs from upstream in one respect: the version is that
// of the golangci-lint module linked in, marked "-telha" and the hash of this
// executable, rather than that of the main module (this one, which has no
// version), so that "golangci-lint version" and editors report the release
// actually running, and so that golangci-lint's cache, which it keys by
// version, forgets its results when the Telha rules change.
func createBuildInfo() commands.BuildInfo {
	info := commands.BuildInfo{
		Commit:    "?",
		Version:   "unknown",
		GoVersion: "unknown",
		Date:      "(unknown)",
	}

	buildInfo, available := debug.ReadBuildInfo()
	if !available {
		return info
	}

	info.GoVersion = buildInfo.GoVersion

	for _, dep := range buildInfo.Deps {
		if dep.Path == golangciModule {
			info.Version = strings.TrimPrefix(dep.Version, "v") + "-telha" + executableHash()
			info.Commit = fmt.Sprintf("(mod sum: %q)", dep.Sum)
		}
	}

	var revision, modified string
	for _, setting := range buildInfo.Settings {
		switch setting.Key {
		case "vcs.time":
			info.Date = setting.Value
		case "vcs.revision":
			revision = setting.Value
		case "vcs.modified":
			modified = setting.Value
		}
	}
	if revision != "" {
		info.Commit = fmt.Sprintf("(telha %s, modified: %s, %s)", revision, cmp.Or(modified, "?"), info.Commit)
	}

	return info
}

// executableHash returns "+" and the first 12 hex digits of the SHA-256
// of this executable, or "" if it cannot be read.
func executableHash() string {
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return fmt.Sprintf("+%x", h.Sum(nil)[:6])
}

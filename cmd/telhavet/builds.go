package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	gobuild "go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// buildsFile is the file, at the root of the workspace (beside go.work, or
// the main module's go.mod), that lists the build configurations the gate
// analyzes besides the default one.
const buildsFile = "telhavet.builds"

// A build is a build configuration: environment settings and build tags.
type build struct {
	env  []string // GOOS=..., GOARCH=..., CGO_ENABLED=...
	tags string   // comma-separated
}

// String returns the build as written in telhavet.builds, or "default".
func (b build) String() string {
	parts := slices.Clone(b.env)
	if b.tags != "" {
		parts = append(parts, "tags="+b.tags)
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, " ")
}

// flags returns the go command flags of the build.
func (b build) flags() []string {
	if b.tags == "" {
		return nil
	}
	return []string{"-tags=" + b.tags}
}

// buildSettings are the environment variables a build may set.
var buildSettings = []string{"GOOS", "GOARCH", "CGO_ENABLED", "GOARM", "GOAMD64", "GOEXPERIMENT"}

// readBuilds returns the default build followed by those of the
// telhavet.builds file in dir, if there is one. Each line of the file is
// one build: space-separated NAME=VALUE settings of buildSettings and
// tags=a,b; "#" starts a comment.
func readBuilds(dir string) ([]build, error) {
	builds := []build{{}}
	name := filepath.Join(dir, buildsFile)
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return builds, nil
	}
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(string(data), "\n") {
		if hash := strings.IndexByte(line, '#'); hash >= 0 {
			line = line[:hash]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		var b build
		for _, f := range fields {
			key, value, ok := strings.Cut(f, "=")
			switch {
			case !ok || value == "":
				return nil, fmt.Errorf("%s:%d: %q is not NAME=VALUE", name, i+1, f)
			case key == "tags":
				b.tags = value
			case slices.Contains(buildSettings, key):
				b.env = append(b.env, f)
			default:
				return nil, fmt.Errorf("%s:%d: unknown setting %s (want tags or one of %s)", name, i+1, key, strings.Join(buildSettings, ", "))
			}
		}
		builds = append(builds, b)
	}
	return builds, nil
}

// builds returns the packages among pkgs that build b compiles with one of
// the files: those whose build constraints admit such a file.
func (b build) builds(dir string, pkgs, files []string) ([]string, error) {
	if len(pkgs) == 0 {
		return nil, nil
	}
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles"}, b.flags()...)
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), b.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in build %s: %w: %s", b, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var built []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath, Dir                              string
			GoFiles, CgoFiles, TestGoFiles, XTestGoFiles []string
		}
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list in build %s: %w", b, err)
		}
		for _, name := range slices.Concat(p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles) {
			if slices.Contains(files, filepath.Join(p.Dir, name)) {
				built = append(built, p.ImportPath)
				break
			}
		}
	}
	return built, nil
}

// context returns the go/build context of the build: the default one of
// the environment with the build's settings.
func (b build) context() gobuild.Context {
	ctx := gobuild.Default
	for _, setting := range b.env {
		key, value, _ := strings.Cut(setting, "=")
		switch key {
		case "GOOS":
			ctx.GOOS = value
		case "GOARCH":
			ctx.GOARCH = value
		case "CGO_ENABLED":
			ctx.CgoEnabled = value == "1"
		}
	}
	if b.tags != "" {
		ctx.BuildTags = strings.Split(b.tags, ",")
	}
	return ctx
}

// likelyPackages returns the packages that hold a file of files that the
// default build leaves out and b compiles, by their names and build
// constraints, without running the go command, so that the driver can
// analyze them in b while it analyzes the default build. It is a guess
// (the go command's environment files, cgo and other settings are not
// read): the files that it misses are found by go list after the default
// build, as before.
func (ws *workspace) likelyPackages(b build, files []string) []string {
	def, ctx := gobuild.Default, b.context()
	var pkgs []string
	for _, f := range files {
		dir, name := filepath.Split(f)
		inDefault, err := def.MatchFile(dir, name)
		if err != nil || inDefault {
			continue
		}
		if inBuild, err := ctx.MatchFile(dir, name); err != nil || !inBuild {
			continue
		}
		if p, ok := ws.importPath(filepath.Dir(f)); ok {
			pkgs = append(pkgs, p)
		}
	}
	slices.Sort(pkgs)
	return slices.Compact(pkgs)
}

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/modfile"
)

// A resultCache keeps what go vet printed for each run over a build of
// telhavet.builds, and replays it, without starting the go command, while
// nothing the run depends on has changed.
//
// go vet's own cache makes such a run cheap but not free: before it
// replays a package's result, the go command loads the package graph of
// the build and hashes every file of every dependency, the standard
// library included; for the darwin build of this repository that is 1.4 s
// of CPU, more than half of what the whole default build's replay costs.
// The result cache keys a run on inputs that are cheap to hash and cover
// everything the run depends on:
//
//   - the question: the telhavet executable (its analyzers), the directory,
//     the build, the vet tool flags and the packages;
//   - the go command's environment (go env): the Go version and GOROOT,
//     which fix the standard library, GOFLAGS, GOEXPERIMENT, the module
//     cache, the C toolchain and its flags;
//   - the content of every file of the workspace modules (with -overlay
//     or -modfile in GOFLAGS the cache is off), of go.work and
//     go.work.sum, of the workspace's vendor directory and of the
//     directories that replace directives name: the packages of the build
//     and those of their dependencies that are neither in the standard
//     library nor in the module cache, whose content the module versions
//     in the go.mod and go.sum files fix.
//
// Any change in the workspace therefore runs go vet again (which analyzes
// again only what changed). C headers outside the workspace are not
// followed, as go's own cache does not follow them.
//
// There is one entry per question, overwritten when its inputs change, and
// entries not used for maxAge are removed, at most once per trimInterval,
// as the go command trims its cache. An entry is written to a temporary
// file and renamed into place, so that concurrent runs read a whole entry
// or none.
type resultCache struct {
	dir  string // where the entries are: $GOCACHE/telhavet
	tool string // the telhavet executable
	ws   *workspace

	once   sync.Once
	toolID []byte // hash of the executable
	inputs []byte // hash of the go environment and the workspace's files
	err    error
}

const (
	// resultHeader starts every entry; the hash of its inputs follows.
	resultHeader = "telhavet go vet results v1\n"
	trimInterval = 24 * time.Hour
	maxAge       = 5 * 24 * time.Hour
	// touchAge is how old an entry's modification time may grow before a
	// replay sets it again, to keep it from being trimmed.
	touchAge = time.Hour
)

// newResultCache returns the result cache of the workspace, in the go
// command's cache directory, or nil if the go command's cache is off.
func newResultCache(ws *workspace, tool string) *resultCache {
	gocache := ws.env["GOCACHE"]
	if gocache == "" || gocache == "off" {
		return nil
	}
	return &resultCache{dir: filepath.Join(gocache, "telhavet"), tool: tool, ws: ws}
}

// key returns the name of the entry of run r and the hash of the inputs it
// must hold, hashing the executable and the inputs once per telhavet run.
func (c *resultCache) key(r vetRun) (name string, inputs []byte, err error) {
	c.once.Do(func() {
		c.toolID, c.err = hashFile(c.tool)
		if c.err == nil {
			c.inputs, c.err = c.hashInputs()
		}
	})
	if c.err != nil {
		return "", nil, c.err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s%x\n%q\n%q\n%q\n%q\n", resultHeader, c.toolID, r.dir, r.build.String(), r.flags, r.pkgs)
	return hex.EncodeToString(h.Sum(nil)), c.inputs, nil
}

// load returns the go vet output stored under name for these inputs.
func (c *resultCache) load(name string, inputs []byte) ([]byte, bool) {
	path := filepath.Join(c.dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	out, ok := bytes.CutPrefix(data, []byte(resultHeader+hex.EncodeToString(inputs)+"\n"))
	if !ok {
		return nil, false
	}
	if info, err := os.Stat(path); err == nil && time.Since(info.ModTime()) > touchAge {
		now := time.Now()
		os.Chtimes(path, now, now) // a failure only lets the entry be trimmed earlier
	}
	return out, true
}

// store stores the go vet output out under name, if the inputs, hashed
// again, are those hashed before go vet ran: a file edited during the run
// may or may not have been seen by go vet.
func (c *resultCache) store(name string, inputs, out []byte) error {
	now, err := c.hashInputs()
	if err != nil {
		return err
	}
	if !bytes.Equal(now, inputs) {
		return errors.New("the workspace changed during the run")
	}
	if err := os.MkdirAll(c.dir, 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.dir, "tmp-")
	if err != nil {
		return err
	}
	_, err = io.WriteString(f, resultHeader+hex.EncodeToString(inputs)+"\n")
	if err == nil {
		_, err = f.Write(out)
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(c.dir, name))
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return c.trim(time.Now())
}

// trim removes the entries, and the temporary files of runs that died,
// not used for maxAge, unless it did so less than trimInterval ago.
func (c *resultCache) trim(now time.Time) error {
	stamp := filepath.Join(c.dir, "trim.txt")
	if info, err := os.Stat(stamp); err == nil && now.Sub(info.ModTime()) < trimInterval {
		return nil
	}
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || e.Name() == "trim.txt" || e.Name() == runLockName || now.Sub(info.ModTime()) < maxAge {
			continue
		}
		os.Remove(filepath.Join(c.dir, e.Name())) // gone already, or in use: the next trim
	}
	return os.WriteFile(stamp, []byte(now.Format(time.RFC3339)+"\n"), 0o666)
}

// hashInputs hashes the go environment and every file of the workspace
// that a build can read outside the standard library and the module cache.
func (c *resultCache) hashInputs() ([]byte, error) {
	if flags := c.ws.env["GOFLAGS"]; strings.Contains(flags, "-overlay") || strings.Contains(flags, "-modfile") {
		return nil, fmt.Errorf("GOFLAGS=%q replaces files with others that the result cache does not hash", flags)
	}
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(c.ws.env)) {
		if k != "GOGCCFLAGS" { // it names a new temporary directory each time
			fmt.Fprintf(h, "env %s=%q\n", k, c.ws.env[k])
		}
	}
	files, err := c.ws.inputFiles()
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(h, "missing %q\n", name)
			continue
		}
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "file %q %d\n", name, len(data))
		h.Write(data)
	}
	return h.Sum(nil), nil
}

// inputFiles returns, sorted, the files of the workspace modules, of the
// directories that their replace directives and go.work's name, of the
// workspace's vendor directory, and go.work and go.work.sum. Directories
// whose names start with "." are left out: no import path reaches them.
func (ws *workspace) inputFiles() ([]string, error) {
	var dirs, files []string
	if ws.work {
		gowork := filepath.Join(ws.root, "go.work")
		files = append(files, gowork, gowork+".sum")
		dirs = append(dirs, filepath.Join(ws.root, "vendor"))
		replaced, err := replacedDirs(gowork, true)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, replaced...)
	}
	for _, m := range ws.modules {
		replaced, err := replacedDirs(filepath.Join(m.dir, "go.mod"), false)
		if err != nil {
			return nil, err
		}
		dirs = append(append(dirs, m.dir), replaced...)
	}
	slices.Sort(dirs)
	var walked []string
	for _, dir := range dirs {
		if slices.ContainsFunc(walked, func(outer string) bool { return within(dir, outer) }) {
			continue
		}
		walked = append(walked, dir)
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			switch {
			case errors.Is(err, fs.ErrNotExist) && path == dir:
				files = append(files, path) // hashed as missing
				return nil
			case err != nil:
				return err
			case d.IsDir() && path != dir && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			case d.Type()&fs.ModeSymlink != 0:
				info, err := os.Stat(path)
				if err == nil && info.IsDir() {
					return fmt.Errorf("%s: a symbolic link to a directory, which the result cache does not follow", path)
				}
				files = append(files, path)
			case d.Type().IsRegular():
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// replacedDirs returns the directories that the replace directives of a
// go.mod or go.work file name, made absolute.
func replacedDirs(name string, work bool) ([]string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var replace []*modfile.Replace
	if work {
		f, err := modfile.ParseWork(name, data, nil)
		if err != nil {
			return nil, err
		}
		replace = f.Replace
	} else {
		f, err := modfile.Parse(name, data, nil)
		if err != nil {
			return nil, err
		}
		replace = f.Replace
	}
	var dirs []string
	for _, r := range replace {
		if r.New.Version != "" {
			continue // a module version, from the module cache
		}
		dir := filepath.FromSlash(r.New.Path)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(name), dir)
		}
		dirs = append(dirs, dir)
	}
	return dirs, nil
}

// hashFile returns the SHA-256 hash of a file's content.
func hashFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("hashing %s: %w", name, err)
	}
	return h.Sum(nil), nil
}

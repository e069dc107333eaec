package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/cluster"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/lifecycle"
)

// Every command that uses a store opens it here, and only here: the
// store flags (STORE: -data DIR, or -etcd ENDPOINTS with -namespace, or
// the environment) are one kit that every command of the table shares;
// the path of a RocksDB store is checked before anything is created; the
// store is opened, or created where the command may create one (tenant
// provision, source put); open errors are classified once, here; and
// lifecycle.Resume runs before the command reads or writes anything, so
// that every command, reads included, first finishes the erasures and
// redactions a crash interrupted and undoes the imports it cut short. A
// RocksDB store the command created is removed again if the command fails:
// a refused command leaves nothing behind.

// storeUse says whether a command takes the store flags, and which.
type storeUse int

const (
	storeNone storeUse = iota // no store flags
	storeAny                  // RocksDB or etcd
	storeDemo                 // RocksDB (default ./telha-data) or etcd (default namespace telha-demo/)
)

// The environment variables that stand in for a store flag not given.
const (
	envData      = "TELHA_DATA"
	envEndpoints = "TELHA_ETCD_ENDPOINTS"
	envNamespace = "TELHA_ETCD_NAMESPACE"
)

// defaultNamespace is the etcd namespace of a store when -namespace is
// not given; demoNamespace (demo_engine.go) is the demo's.
const defaultNamespace = "telha/"

// help says what STORE means for a command of this use.
func (u storeUse) help() string {
	if u == storeDemo {
		return storeHelp + "\nThe demo's -data defaults to ./telha-data, its -namespace to " + demoNamespace + "."
	}
	return storeHelp
}

// location is where the store flags say the store is: a RocksDB
// directory, or a namespace of an etcd cluster.
type location struct {
	dir       string
	endpoints string
	namespace string
}

// define defines the store flags on fs.
func (l *location) define(fs *pflag.FlagSet, c *command) {
	ns, dir := defaultNamespace, ""
	if c.store == storeDemo {
		ns, dir = demoNamespace, "./telha-data"
	}
	fs.StringVar(&l.dir, "data", dir, "directory of the RocksDB store (or "+envData+")")
	fs.StringVar(&l.endpoints, "etcd", "", "comma-separated endpoints of an etcd cluster to use instead of RocksDB (or "+envEndpoints+")")
	fs.StringVar(&l.namespace, "namespace", ns, "with -etcd: the store's key prefix in the cluster (or "+envNamespace+")")
}

// check completes the store flags from the environment and refuses a
// combination that names no store, or two.
func (l *location) check(in *invocation) error {
	dataSet, etcdSet := in.set("data"), in.set("etcd")
	if !dataSet && !etcdSet {
		envDir, envEtcd := os.Getenv(envData), os.Getenv(envEndpoints)
		switch {
		case envDir != "" && envEtcd != "":
			return in.usagef("%s and %s are both set; give -data DIR or -etcd ENDPOINTS", envData, envEndpoints)
		case envEtcd != "":
			l.endpoints, etcdSet = envEtcd, true
		case envDir != "":
			l.dir, dataSet = envDir, true
		}
	}
	if ns := os.Getenv(envNamespace); ns != "" && !in.set("namespace") {
		l.namespace = ns
	}
	switch {
	case dataSet && etcdSet && in.cmd.store == storeDemo:
		return in.usagef("-etcd excludes -data and -force; give one of -data and -etcd")
	case dataSet && etcdSet:
		return in.usagef("-etcd excludes -data; give one of them")
	case etcdSet:
		l.dir = ""
		for _, ep := range strings.Split(l.endpoints, ",") {
			if strings.TrimSpace(ep) == "" {
				return in.usagef("-etcd %q: want comma-separated HOST:PORT endpoints, none empty", l.endpoints)
			}
		}
		for i := range len(l.namespace) {
			if c := l.namespace[i]; c < 0x21 || c > 0x7e {
				return in.usagef("-namespace %q: want printable ASCII without spaces", l.namespace)
			}
		}
	case in.set("namespace"):
		return in.usagef("-namespace is for -etcd; a RocksDB store (-data) has none")
	case l.dir == "":
		return in.usagef("missing -data DIR (or -etcd ENDPOINTS)")
	}
	return nil
}

// etcd reports whether the store is an etcd cluster's.
func (l location) etcd() bool { return l.endpoints != "" }

// String names the store for messages: its directory, or "etcd
// ENDPOINTS namespace NS".
func (l location) String() string {
	if l.etcd() {
		return fmt.Sprintf("etcd %s namespace %s", l.endpoints, l.namespace)
	}
	return l.dir
}

// store is the store a command opened.
type store struct {
	storage.Engine
	loc location
	// dir is the RocksDB store's directory, "" on etcd.
	dir string
	// created says the command created the store: the directory was
	// missing (made) or empty.
	created, made bool
}

// open opens the store the store flags of in name, creating a RocksDB
// store if create and it is missing or empty, and resumes it.
func (in *invocation) open(create bool) (*store, error) {
	if in.loc.etcd() {
		return openEtcd(in.name(), in.loc, in.progressLines())
	}
	s, err := openStore(in.name(), in.loc.dir, create, in.progressLines())
	if s != nil {
		s.loc = in.loc
	}
	return s, err
}

// openEtcd opens the namespace of the etcd cluster at loc, with the
// limits `telha cluster` gives its members, and resumes it. A cluster
// that does not answer is an operation that failed, not refused input.
func openEtcd(cmd string, loc location, stderr io.Writer) (*store, error) {
	e, err := etcd.Open(etcd.Config{
		Endpoints:       strings.Split(loc.endpoints, ","),
		Namespace:       loc.namespace,
		MaxTxnOps:       cluster.DefaultMaxTxnOps,
		MaxRequestBytes: cluster.DefaultMaxRequestBytes,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	s := &store{Engine: e, loc: loc}
	if err := resume(cmd, e, stderr); err != nil {
		return nil, s.close(err)
	}
	return s, nil
}

// openStore opens the RocksDB store at dir for the command cmd (its name,
// for messages and progress lines on stderr), creating it if create and it
// is missing or empty, and runs lifecycle.Resume on it.
func openStore(cmd, dir string, create bool, stderr io.Writer) (*store, error) {
	state, err := checkDataDir(cmd, dir, create)
	if err != nil {
		return nil, err
	}
	e, err := rocksdb.Open(rocksdb.Config{Path: dir, CreateIfMissing: create})
	if err != nil {
		return nil, openError(cmd, dir, err)
	}
	s := &store{Engine: e, loc: location{dir: dir}, dir: dir, created: state != dirExisting, made: state == dirMissing}
	if err := resume(cmd, e, stderr); err != nil {
		return nil, s.close(err)
	}
	return s, nil
}

// close closes the store and returns err, the command's result, joined
// with a failure to close; a store the command created is removed when err
// is not nil.
func (s *store) close(err error) error {
	if closeErr := s.Engine.Close(); closeErr != nil && err == nil {
		err = fmt.Errorf("close the store: %w", closeErr)
	}
	if err != nil && s.created {
		err = errors.Join(err, removeCreated(s.dir, s.made))
	}
	return err
}

// resume runs lifecycle.Resume on e, printing its progress lines as cmd's.
func resume(cmd string, e storage.Engine, stderr io.Writer) error {
	if _, err := lifecycle.Resume(e, lifecycle.EraseOptions{Progress: progressTo(cmd, stderr)}); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return nil
}

// openError classifies a failure of rocksdb.Open: a path that holds no
// store of ours, or a store that is damaged (telha repair is for those), is
// refused input; a store in use or a full device is an operation that
// failed.
func openError(cmd, dir string, err error) error {
	switch {
	case errors.Is(err, rocksdb.ErrLocked), errors.Is(err, storage.ErrNoSpace):
		return fmt.Errorf("%s: %w", cmd, err)
	case errors.Is(err, storage.ErrCorrupt):
		return usagef("%s: the store at %s is damaged (telha repair -data %s makes it open, reporting what it drops): %w", cmd, dir, dir, err)
	}
	return usagef("%s: unusable data directory: %w", cmd, err)
}

// dirState is what a command finds at -data before it opens the store.
type dirState int

const (
	dirExisting dirState = iota // a directory with files in it
	dirEmpty                    // an empty directory
	dirMissing                  // nothing
)

// checkDataDir refuses a -data that cannot hold the store: not a
// directory, a checkpoint or a path inside one
// (lifecycle.CheckOutsideCheckpoints: no command writes into one), not writable (a read-only file system, no
// permission), or missing when the command does not create one; a
// directory to create needs a writable parent directory.
func checkDataDir(cmd, dir string, create bool) (dirState, error) {
	if dir == "" {
		return 0, usagef("%s: missing -data DIR", cmd)
	}
	if err := lifecycle.CheckOutsideCheckpoints(dir); err != nil {
		return 0, fmt.Errorf("%s: %w", cmd, err)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !create:
		return 0, usagef("%s: no store at %s", cmd, dir)
	case errors.Is(err, fs.ErrNotExist):
		if err := checkWritableParent(dir); err != nil {
			return 0, usagef("%s: cannot create a store at %s: %v", cmd, dir, err)
		}
		return dirMissing, nil
	case err != nil:
		return 0, usagef("%s: unusable data directory: %v", cmd, err)
	case !fi.IsDir():
		return 0, usagef("%s: no store at %s: not a directory", cmd, dir)
	}
	if err := writable(dir); err != nil {
		return 0, usagef("%s: unusable data directory %s: %v", cmd, dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, usagef("%s: unusable data directory: %v", cmd, err)
	}
	if len(entries) == 0 {
		return dirEmpty, nil
	}
	return dirExisting, nil
}

// checkNewPath refuses an output path (a checkpoint, an export, a ledger
// file) that exists, whose parent is not a writable directory, or that
// lies inside the store at dataDir or inside a checkpoint.
func checkNewPath(cmd, flag, path, dataDir string) error {
	if path == "" {
		return usagef("%s: missing %s", cmd, flag)
	}
	if _, err := os.Lstat(path); err == nil {
		return usagef("%s: %s %s exists; it is never overwritten", cmd, flag, path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return usagef("%s: %s %s: %v", cmd, flag, path, err)
	}
	if err := checkWritableParent(path); err != nil {
		return usagef("%s: %s %s: %v", cmd, flag, path, err)
	}
	if err := lifecycle.CheckOutsideCheckpoints(path); err != nil {
		return fmt.Errorf("%s: %s: %w", cmd, flag, err)
	}
	if inside, err := lifecycle.Within(path, dataDir); err != nil || inside {
		return usagef("%s: %s %s lies inside the store %s (%v)", cmd, flag, path, dataDir, err)
	}
	return nil
}

// checkWritableParent checks that the parent of path is a directory this
// process may create files in.
func checkWritableParent(path string) error {
	parent := filepath.Dir(filepath.Clean(path))
	fi, err := os.Stat(parent)
	switch {
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", parent)
	}
	return writable(parent)
}

// accessWrite is W_OK of access(2) (unistd.h), which package syscall does
// not name.
const accessWrite = 0x2

// writable checks that this process may create files in dir: the file
// system is not read-only and the permissions allow it.
func writable(dir string) error {
	if err := syscall.Access(dir, accessWrite); err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	return nil
}

// removeCreated removes the store a failed command created at dir: the
// directory itself if the command made it, and otherwise what it put in
// the directory, which was empty.
func removeCreated(dir string, made bool) error {
	if made {
		return os.RemoveAll(dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, de := range entries {
		errs = append(errs, os.RemoveAll(filepath.Join(dir, de.Name())))
	}
	return errors.Join(errs...)
}

// progressTo prints the progress lines of cmd on w (stderr); a line that
// names cmd already is not prefixed with it again.
func progressTo(cmd string, w io.Writer) func(string, ...any) {
	return func(format string, args ...any) {
		line := oneNotation(fmt.Sprintf(format, args...))
		if !strings.HasPrefix(line, cmd+":") {
			line = cmd + ": " + line
		}
		fmt.Fprintf(w, "telha: %s\n", line)
	}
}

// resolveTenant resolves -scope, TENANT:ORG or a display name, in the
// registry of r, and describes the tenant for a message (describeState).
func resolveTenant(cmd string, r storage.Reader, arg string) (lifecycle.Tenant, string, error) {
	t, known, err := lifecycle.Lookup(r, arg)
	if err != nil {
		return lifecycle.Tenant{}, "", fmt.Errorf("%s: %w", cmd, err)
	}
	return t, describeState(t, known), nil
}

// openTenant opens the store and looks -scope up in its registry, for a
// command on one tenant, registered (known) or not; on success the caller
// closes the store.
func (in *invocation) openTenant() (*store, lifecycle.Tenant, bool, error) {
	s, err := in.open(false)
	if err != nil {
		return nil, lifecycle.Tenant{}, false, err
	}
	t, known, err := lifecycle.Lookup(s.Engine, in.scope)
	if err != nil {
		return nil, t, false, s.close(fmt.Errorf("%s: %w", in.name(), err))
	}
	return s, t, known, nil
}

// describeState describes a tenant for a message: its name and state, or
// that the registry does not hold it.
func describeState(t lifecycle.Tenant, known bool) string {
	switch {
	case !known:
		return "not in the tenant registry"
	case t.Name == "":
		return t.State.String()
	}
	return fmt.Sprintf("%q, %s", t.Name, t.State)
}

// flags are the store flags that name l, for a command to suggest:
// "-data DIR" or "-etcd ENDPOINTS -namespace NS".
func (l location) flags() string {
	if l.etcd() {
		return fmt.Sprintf("-etcd %s -namespace %s", l.endpoints, l.namespace)
	}
	return "-data " + l.dir
}

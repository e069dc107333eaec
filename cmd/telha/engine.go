package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/cluster"
)

// demoNamespace keeps the demo's keys apart from anything else the etcd
// cluster holds; the namespace is the demo's alone.
const demoNamespace = "telha-demo/"

// openDemoStore opens the demo's store and says where it is and what the
// demo found in it: the embedded RocksDB store in dataDir, which the demo
// marks as its own when it creates it and refuses when it did not, unless
// force; or, when endpoints is set, the namespace demoNamespace of the etcd
// cluster at those comma-separated endpoints. Either is resumed
// (lifecycle.Resume) before the demo uses it; the function returned closes
// it, keeping the demo's error.
func openDemoStore(flags *flag.FlagSet, dataDir, endpoints string, force bool, stderr io.Writer) (storage.Engine, string, dataDirState, func(error) error, error) {
	if endpoints != "" {
		if isSet(flags, "data") || isSet(flags, "force") {
			return nil, "", 0, nil, usagef("demo: -etcd excludes -data and -force (%s)", demoUsage)
		}
		return openDemoEtcd(endpoints, stderr)
	}
	state, err := inspectDataDir(dataDir)
	if err != nil {
		return nil, "", 0, nil, usagef("demo: unusable data directory: %v", err)
	}
	if state == foreignDir && !force {
		return nil, "", 0, nil, usagef("demo: %s holds data the demo did not create; pass -force to wipe the demo tenants in it", dataDir)
	}
	s, err := openStore("demo", dataDir, state == newDir, stderr)
	if err != nil {
		return nil, "", 0, nil, err
	}
	if state == newDir {
		if err := writeMarker(dataDir); err != nil {
			return nil, "", 0, nil, s.close(fmt.Errorf("demo: mark the new store: %w", err))
		}
	}
	return s, dataDir, state, s.close, nil
}

// isSet reports whether the command line set the flag name.
func isSet(flags *flag.FlagSet, name string) bool {
	set := false
	flags.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// openDemoEtcd opens the demo's namespace of the etcd cluster at
// endpoints, with the limits `telha cluster` gives its members, and
// resumes it. The namespace is new to the demo until it holds a demo
// tenant.
func openDemoEtcd(endpoints string, stderr io.Writer) (storage.Engine, string, dataDirState, func(error) error, error) {
	e, err := etcd.Open(etcd.Config{
		Endpoints:       strings.Split(endpoints, ","),
		Namespace:       demoNamespace,
		MaxTxnOps:       cluster.DefaultMaxTxnOps,
		MaxRequestBytes: cluster.DefaultMaxRequestBytes,
	})
	if err != nil {
		return nil, "", 0, nil, fmt.Errorf("demo: %w", err)
	}
	closeEngine := func(err error) error { return errors.Join(err, e.Close()) }
	if err := resume("demo", e, stderr); err != nil {
		return nil, "", 0, nil, closeEngine(err)
	}
	state := newDir
	for _, t := range demoTenants {
		scope, err := storage.NewTenantScope(t.id, demoOrg)
		if err != nil {
			return nil, "", 0, nil, closeEngine(err)
		}
		for _, err := range e.Scan(storage.TenantAll(scope, storage.NodeVersions)) {
			if err != nil {
				return nil, "", 0, nil, closeEngine(fmt.Errorf("demo: %w", err))
			}
			state = demoDir
			break
		}
	}
	return e, "etcd " + endpoints, state, closeEngine, nil
}

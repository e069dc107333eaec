package main

import (
	"fmt"

	"telha.dev/core/storage"
)

// demoNamespace keeps the demo's keys apart from anything else the etcd
// cluster holds; the namespace is the demo's alone.
const demoNamespace = "telha-demo/"

// openDemoStore opens the demo's store and says where it is and what the
// demo found in it: the embedded RocksDB store at -data, which the demo
// marks as its own when it creates it and refuses when it did not, unless
// force; or, with -etcd, the namespace (demoNamespace unless -namespace)
// of the etcd cluster. Either is opened by the store kit (store.go) and
// resumed before the demo uses it; the function returned closes it,
// keeping the demo's error.
func openDemoStore(in *invocation, force bool) (storage.Engine, string, dataDirState, func(error) error, error) {
	if in.loc.etcd() {
		if in.set("force") {
			return nil, "", 0, nil, in.usagef("-etcd excludes -data and -force; -force is for a RocksDB store")
		}
		return openDemoEtcd(in)
	}
	dataDir := in.loc.dir
	state, err := inspectDataDir(dataDir)
	if err != nil {
		return nil, "", 0, nil, usagef("demo: unusable data directory: %v", err)
	}
	if state == foreignDir && !force {
		return nil, "", 0, nil, usagef("demo: %s holds data the demo did not create; pass -force to wipe the demo tenants in it", dataDir)
	}
	s, err := in.open(state == newDir)
	if err != nil {
		return nil, "", 0, nil, err
	}
	if state == newDir {
		if err := writeMarker(dataDir); err != nil {
			return nil, "", 0, nil, s.close(fmt.Errorf("demo: mark the new store: %w", err))
		}
	}
	return s.Engine, dataDir, state, s.close, nil
}

// openDemoEtcd opens the demo's namespace of the etcd cluster. The
// namespace is new to the demo until it holds a demo tenant.
func openDemoEtcd(in *invocation) (storage.Engine, string, dataDirState, func(error) error, error) {
	s, err := in.open(false)
	if err != nil {
		return nil, "", 0, nil, err
	}
	state := newDir
	for _, t := range demoTenants {
		scope, err := storage.NewTenantScope(t.id, demoOrg)
		if err != nil {
			return nil, "", 0, nil, s.close(err)
		}
		for _, err := range s.Scan(storage.TenantAll(scope, storage.NodeVersions)) {
			if err != nil {
				return nil, "", 0, nil, s.close(fmt.Errorf("demo: %w", err))
			}
			state = demoDir
			break
		}
	}
	return s.Engine, "etcd " + in.loc.endpoints, state, s.close, nil
}

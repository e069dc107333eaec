package main

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/cluster"
	"telha.dev/core/storage/rocksdb"
)

// defaultDataDir is the demo's RocksDB store when neither -data nor -etcd
// is given.
const defaultDataDir = "./telha-data"

// demoNamespace keeps the demo's keys apart from anything else the etcd
// cluster holds.
const demoNamespace = "telha-demo/"

// openDemoEngine opens the demo's store: an embedded RocksDB store in
// dataDir, or, when endpoints is set, the namespace demoNamespace of the
// etcd cluster at those comma-separated endpoints, with the limits `telha
// cluster` gives its members. It says where the store is, and whether it
// already holds the demo's tenants.
func openDemoEngine(dataDir, endpoints string) (eng storage.Engine, where string, reused bool, err error) {
	switch {
	case endpoints != "" && dataDir != "":
		return nil, "", false, usagef("demo: -data and -etcd exclude each other")
	case endpoints == "":
		dataDir = cmp.Or(dataDir, defaultDataDir)
		reused := storeExists(dataDir)
		eng, err := rocksdb.Open(rocksdb.Config{Path: dataDir, CreateIfMissing: true})
		if err != nil {
			return nil, "", false, usagef("demo: unusable data directory: %v", err)
		}
		return eng, dataDir, reused, nil
	}
	e, err := etcd.Open(etcd.Config{
		Endpoints:       strings.Split(endpoints, ","),
		Namespace:       demoNamespace,
		MaxTxnOps:       cluster.DefaultMaxTxnOps,
		MaxRequestBytes: cluster.DefaultMaxRequestBytes,
	})
	if err != nil {
		return nil, "", false, fmt.Errorf("demo: %w", err)
	}
	where = "etcd " + endpoints
	reused, err = holdsDemoTenants(e)
	if err != nil {
		return nil, "", false, errors.Join(fmt.Errorf("demo: %w", err), e.Close())
	}
	return e, where, reused, nil
}

// holdsDemoTenants reports whether any demo tenant has a node version in e.
func holdsDemoTenants(e storage.Engine) (bool, error) {
	for _, t := range demoTenants {
		scope, err := storage.NewTenantScope(t.id, demoOrg)
		if err != nil {
			return false, err
		}
		for _, err := range e.Scan(storage.TenantAll(scope, storage.NodeVersions)) {
			return true, err
		}
	}
	return false, nil
}

// Package cluster runs an etcd cluster on one machine, for `telha cluster`,
// for tests, and for anyone who wants a replicated store without an etcd
// installation: each member is an embedded etcd server
// (go.etcd.io/etcd/server/v3/embed), run as a child process (Processes) or
// inside the calling process (InProcess).
//
// A cluster lives in one directory: cluster.json, its layout (member
// names, ports, token, limits), written once when the cluster is created;
// and per member a data directory member-N and a log member-N.log. The
// layout fixes each member's ports, so a member restarts with the address
// its peers know. Members listen on the loopback interface only, without
// TLS or authentication: the cluster is for one machine.
//
// The package's API names no etcd type, so that its callers outside the
// key authority (cmd/telha) never import etcd.
package cluster

// Package replicas tests a deployment of several processes on one etcd
// cluster, the way stateless replicas of a service and an operator's CLI
// share one store: each process is a child process of the test binary
// (storagetest.StartChild) with its own memory, caches and clocks, so
// that nothing but the store keeps them in agreement.
//
// The tests race processes for what must be one in the deployment (a
// tenant name, the blocklist secret, one redaction of a blob), check that
// an erasure through one process is seen by every other's next request,
// and record histories of node registers, job claims and tenant
// provisioning from several processes while members of the cluster are
// killed with SIGKILL and restarted, then check each history for
// linearizability with porcupine (github.com/anishathalye/porcupine)
// against small sequential models (models_test.go). The package holds no
// code but its tests.
package replicas

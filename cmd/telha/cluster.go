package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"telha.dev/core/storage/etcd/cluster"
)

// memberCommand is the hidden subcommand that `telha cluster` runs, once
// per member, in a child process of its own.
const memberCommand = "cluster-member"

// clusterRetention is how much history `telha cluster` keeps: a snapshot or
// a paused scan older than this reads a compacted revision.
const clusterRetention = time.Hour

// clusterCommand runs an etcd cluster of member processes on loopback until
// SIGINT or SIGTERM, then stops the members cleanly. Once every member
// serves, it prints one line on stdout, "endpoints HOST:PORT,...", and
// nothing else; a member that exits on its own is reported on stderr.
// It holds a lock on its directory while it runs (lockClusterDir): a
// second telha cluster on it is refused, saying which process runs it.
func clusterCommand(fs *pflag.FlagSet) runner {
	dir := fs.String("data", "", "directory of the cluster, created if missing")
	members := fs.Int("members", 0, "number of members of a new cluster (default 3)")
	port := fs.Int("port", 0, "first port: member i serves clients on P+2i, peers on P+2i+1 (default: free ports)")
	return func(in *invocation) error {
		if *dir == "" {
			return in.usagef("-data is required; it names the cluster's directory")
		}
		return runCluster(in, *dir, *members, *port)
	}
}

// runCluster runs the cluster in dir until a signal stops it.
func runCluster(in *invocation, dir string, members, port int) (err error) {
	unlock, err := lockClusterDir(dir)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unlock()) }()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// Signals are caught before the members start, so that one that
	// arrives while they start still stops them cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	c, err := cluster.Start(cluster.Config{
		Dir:                 dir,
		Members:             members,
		Port:                port,
		CompactionRetention: clusterRetention,
	}, cluster.Processes(func(args []string) *exec.Cmd {
		return exec.Command(self, append([]string{memberCommand}, args...)...)
	}))
	if errors.Is(err, cluster.ErrLayout) {
		return usagef("cluster: %v", err)
	}
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if _, err := fmt.Fprintf(in.stdout, "endpoints %s\n", strings.Join(c.Endpoints(), ",")); err != nil {
		return errors.Join(err, c.Stop())
	}
	for {
		select {
		case <-ctx.Done():
			if err := c.Stop(); err != nil {
				return fmt.Errorf("cluster: stop: %w", err)
			}
			return nil
		case exit := <-c.Exits():
			fmt.Fprintf(in.stderr, "telha: cluster: %v\n", exit)
		}
	}
}

// memberMain is the hidden subcommand: one member of `telha cluster`.
// Its arguments are the member's own, passed unparsed.
func memberMain(*pflag.FlagSet) runner {
	return func(in *invocation) error {
		return cluster.MemberMain(in.args, in.stdout)
	}
}

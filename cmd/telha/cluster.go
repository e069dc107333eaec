package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"telha.dev/core/storage/etcd/cluster"
)

// memberCommand is the hidden subcommand that `telha cluster` runs, once
// per member, in a child process of its own.
const memberCommand = "cluster-member"

// clusterRetention is how much history `telha cluster` keeps: a snapshot or
// a paused scan older than this reads a compacted revision.
const clusterRetention = time.Hour

const clusterUsage = "usage: telha cluster -data DIR [-members 3] [-port P]"

// clusterCommand runs an etcd cluster of member processes on loopback until
// SIGINT or SIGTERM, then stops the members cleanly. Once every member
// serves, it prints one line on stdout, "endpoints HOST:PORT,...", and
// nothing else; a member that exits on its own is reported on stderr.
func clusterCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	dir := fs.String("data", "", "directory of the cluster, created if missing")
	members := fs.Int("members", 0, "number of members of a new cluster (default 3)")
	port := fs.Int("port", 0, "first port: member i serves clients on P+2i, peers on P+2i+1 (default: free ports)")
	if err := parseFlags(fs, args, clusterUsage, stdout); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return usagef("cluster: unexpected argument %q (%s)", fs.Arg(0), clusterUsage)
	case *dir == "":
		return usagef("cluster: -data is required (%s)", clusterUsage)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// Signals are caught before the members start, so that one that
	// arrives while they start still stops them cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	c, err := cluster.Start(cluster.Config{
		Dir:                 *dir,
		Members:             *members,
		Port:                *port,
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
	if _, err := fmt.Fprintf(stdout, "endpoints %s\n", strings.Join(c.Endpoints(), ",")); err != nil {
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
			fmt.Fprintf(stderr, "telha cluster: %v\n", exit)
		}
	}
}

// memberMain is the hidden subcommand: one member of `telha cluster`.
func memberMain(args []string, stdout io.Writer) error {
	return cluster.MemberMain(args, stdout)
}

package cluster

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os/signal"
	"path/filepath"
	"syscall"

	"go.etcd.io/etcd/server/v3/embed"
)

// RunMember runs member i of the cluster in dir, as laid out when the
// cluster was created, until ctx is done, then stops it cleanly. It calls
// ready once the member has joined its cluster and serves clients. A member
// whose data directory exists restarts from it.
func RunMember(ctx context.Context, dir string, i int, ready func()) error {
	l, err := readLayout(dir)
	if err != nil {
		return err
	}
	if i < 0 || i >= len(l.Members) {
		return fmt.Errorf("%w: no member %d in %s", ErrLayout, i, dir)
	}
	cfg := l.embedConfig(dir, i)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("start %s: %w", cfg.Name, err)
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
		ready()
	case err := <-e.Err():
		return fmt.Errorf("%s failed before it was ready: %w", cfg.Name, err)
	case <-ctx.Done():
		return nil
	}
	select {
	case err := <-e.Err():
		if ctx.Err() != nil {
			return nil // an error of the shutdown asked for
		}
		return fmt.Errorf("%s failed: %w", cfg.Name, err)
	case <-ctx.Done():
		return nil
	}
}

// embedConfig is the configuration of member i.
func (l layout) embedConfig(dir string, i int) *embed.Config {
	m := l.Members[i]
	cfg := embed.NewConfig()
	cfg.Name = m.Name
	cfg.Dir = filepath.Join(dir, m.Name)
	client, peer := mustURL(loopbackURL(m.ClientPort)), mustURL(loopbackURL(m.PeerPort))
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = l.initialCluster()
	cfg.InitialClusterToken = l.Token
	cfg.ClusterState = embed.ClusterStateFlagNew // ignored once the data directory exists
	cfg.ElectionMs, cfg.TickMs = uint(l.ElectionMs), uint(l.ElectionMs/10)
	cfg.MaxTxnOps = uint(l.MaxTxnOps)
	cfg.MaxRequestBytes = uint(l.MaxRequestBytes)
	if l.CompactionRetention != "" {
		cfg.AutoCompactionMode = embed.CompactorModePeriodic
		cfg.AutoCompactionRetention = l.CompactionRetention
	}
	cfg.UnsafeNoFsync = l.UnsafeNoFsync
	cfg.EnableGRPCGateway = false
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{l.logPath(dir, i)}
	return cfg
}

// logPath is member i's log file, beside its data directory.
func (l layout) logPath(dir string, i int) string {
	return filepath.Join(dir, l.Members[i].Name+".log")
}

func mustURL(s string) url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err) // built from a port number only
	}
	return *u
}

// readyLine is what a member process prints on its standard output once it
// serves.
const readyLine = "ready"

// MemberMain is the body of a member process: it parses the arguments a
// process Launcher gives it, runs the member, prints readyLine on stdout
// once it serves, and stops it cleanly on SIGINT or SIGTERM.
func MemberMain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("member", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", "", "the cluster's directory")
	index := fs.Int("member", -1, "the member's index")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("member: %w", err)
	}
	if *dir == "" || *index < 0 || fs.NArg() != 0 {
		return errors.New("member: usage: -dir DIR -member INDEX")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return RunMember(ctx, *dir, *index, func() { fmt.Fprintln(stdout, readyLine) })
}

// memberArgs are the arguments MemberMain parses for member i of dir.
func memberArgs(dir string, i int) []string {
	return []string{"-dir", dir, "-member", fmt.Sprint(i)}
}

package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Timeouts of the supervisor. A member starts in seconds; the margin is
// for a loaded machine.
const (
	startTimeout = 2 * time.Minute
	stopTimeout  = 30 * time.Second
)

// Cluster is a running cluster of etcd members on this machine, started by
// Start. Its methods are safe for concurrent use.
type Cluster struct {
	dir      string
	layout   layout
	launcher Launcher

	mu      sync.Mutex
	members []*running // nil for a member that is not running
	exits   chan error
}

// Start starts every member of the cluster in cfg.Dir with launcher,
// creating the cluster if cfg.Dir holds none, and returns once every member
// serves. A cluster that exists restarts from its data, with the ports it
// was created with.
func Start(cfg Config, launcher Launcher) (*Cluster, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: no directory", ErrLayout)
	}
	l, err := loadOrCreateLayout(cfg)
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		dir:      cfg.Dir,
		layout:   l,
		launcher: launcher,
		members:  make([]*running, len(l.Members)),
		exits:    make(chan error, len(l.Members)),
	}
	for i := range l.Members {
		if err := c.launch(i); err != nil {
			return nil, errors.Join(err, c.Stop())
		}
	}
	// A new cluster's members become ready together, once a quorum has
	// started: wait for them after starting all.
	for i := range l.Members {
		if err := c.waitReady(i); err != nil {
			return nil, errors.Join(err, c.Stop())
		}
	}
	return c, nil
}

// launch starts member i and watches for its exit.
func (c *Cluster) launch(i int) error {
	r, err := c.launcher.launch(c.dir, c.layout, i)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.members[i] = r
	c.mu.Unlock()
	go func() {
		<-r.done
		c.mu.Lock()
		unexpected := c.members[i] == r
		if unexpected {
			c.members[i] = nil // reported here, not again by Stop
		}
		c.mu.Unlock()
		if unexpected {
			select {
			case c.exits <- fmt.Errorf("%s exited: %v", c.layout.Members[i].Name, r.err):
			default: // nobody reads; the member's log has the cause
			}
		}
	}()
	return nil
}

// waitReady waits until member i serves, or fails with its log's tail.
func (c *Cluster) waitReady(i int) error {
	c.mu.Lock()
	r := c.members[i]
	c.mu.Unlock()
	name := c.layout.Members[i].Name
	select {
	case <-r.ready:
		return nil
	case <-r.done:
		return fmt.Errorf("%s exited before it served: %v%s", name, r.err, c.logTail(i))
	case <-time.After(startTimeout):
		return fmt.Errorf("%s did not serve within %v%s", name, startTimeout, c.logTail(i))
	}
}

// logTail returns the end of member i's log, for an error message.
func (c *Cluster) logTail(i int) string {
	const tail = 2048
	data, err := os.ReadFile(c.layout.logPath(c.dir, i))
	if err != nil || len(data) == 0 {
		return ""
	}
	if len(data) > tail {
		data = data[len(data)-tail:]
	}
	return fmt.Sprintf("; the end of its log %s:\n%s", c.layout.logPath(c.dir, i), bytes.TrimSpace(data))
}

// Endpoints returns the client address, HOST:PORT, of every member.
func (c *Cluster) Endpoints() []string { return c.layout.endpoints() }

// Limits returns the members' limits on operations per transaction and on
// request size, which an engine's configuration must not exceed.
func (c *Cluster) Limits() (maxTxnOps, maxRequestBytes int) {
	return c.layout.MaxTxnOps, c.layout.MaxRequestBytes
}

// Exits reports the members that exit without Stop or Kill: crashed, or
// killed from outside. Such a member counts as stopped; Restart starts it
// again.
func (c *Cluster) Exits() <-chan error { return c.exits }

// Stop stops every running member cleanly, killing one that does not stop
// within a time limit, and waits for them all.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	members := c.members
	c.members = make([]*running, len(members))
	c.mu.Unlock()
	for _, r := range members {
		if r != nil {
			r.stop()
		}
	}
	var errs []error
	for i, r := range members {
		if r == nil {
			continue
		}
		select {
		case <-r.done:
		case <-time.After(stopTimeout):
			r.kill()
			<-r.done
			errs = append(errs, fmt.Errorf("%s did not stop within %v and was killed", c.layout.Members[i].Name, stopTimeout))
			continue
		}
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.layout.Members[i].Name, r.err))
		}
	}
	return errors.Join(errs...)
}

// Kill stops member i at once: a child process receives SIGKILL, as in a
// crash; an in-process member stops cleanly. It returns once the member
// has exited.
func (c *Cluster) Kill(i int) error {
	c.mu.Lock()
	r := c.members[i]
	c.members[i] = nil
	c.mu.Unlock()
	if r == nil {
		return fmt.Errorf("%s is not running", c.layout.Members[i].Name)
	}
	r.kill()
	<-r.done
	return nil
}

// Restart starts member i again from its data directory, after Kill, and
// waits until it serves, which takes a quorum of running members.
func (c *Cluster) Restart(i int) error {
	c.mu.Lock()
	running := c.members[i] != nil
	c.mu.Unlock()
	if running {
		return fmt.Errorf("%s is running", c.layout.Members[i].Name)
	}
	if err := c.launch(i); err != nil {
		return err
	}
	return c.waitReady(i)
}

// MemberIDs returns the etcd id of every member, by index, in hex as
// etcdctl prints it and the engine names the members it could not
// defragment (etcd.Engine.CompactRanges). It asks the running members,
// which must hold a quorum.
func (c *Cluster) MemberIDs(ctx context.Context) ([]string, error) {
	client, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return nil, err
	}
	defer client.Close()
	list, err := client.MemberList(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the members: %w", err)
	}
	ids := make([]string, len(c.layout.Members))
	for _, m := range list.Members {
		for i, member := range c.layout.Members {
			if m.Name == member.Name {
				ids[i] = fmt.Sprintf("%x", m.ID)
			}
		}
	}
	for i, id := range ids {
		if id == "" {
			return nil, fmt.Errorf("the cluster lists no member named %s", c.layout.Members[i].Name)
		}
	}
	return ids, nil
}

// Leader returns the index of the member that is the leader now, as the
// running members report it.
func (c *Cluster) Leader(ctx context.Context) (int, error) {
	client, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return -1, err
	}
	defer client.Close()
	var errs []error
	for i, endpoint := range c.Endpoints() {
		status, err := client.Status(ctx, endpoint)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if status.Leader != 0 && status.Leader == status.Header.MemberId {
			return i, nil
		}
	}
	return -1, fmt.Errorf("no member reports itself leader: %w", errors.Join(errs...))
}

package cluster

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"telha.dev/core/durable"
)

// Config describes a cluster of etcd members on this machine.
type Config struct {
	// Dir holds the cluster: its layout file, and per member a data
	// directory and a log file. Required.
	Dir string

	// Members is the number of members, odd so that a majority is
	// meaningful: 1, 3 or 5. Default 3. A cluster of 3 survives the loss of
	// one member; of 5, two.
	Members int

	// Port is the first port: member i serves clients on Port+2i and its
	// peers on Port+2i+1, on the loopback address. 0 picks free ports.
	Port int

	// MaxTxnOps and MaxRequestBytes are the members' limits on operations
	// per transaction and request size; give the engine the same values.
	// Default DefaultMaxTxnOps and DefaultMaxRequestBytes.
	MaxTxnOps       int
	MaxRequestBytes int

	// ElectionTimeout is how long a follower waits without hearing from the
	// leader before it calls an election; the leader's heartbeat is a tenth
	// of it. A longer timeout survives a loaded machine without spurious
	// elections, at the price of a longer outage when the leader dies.
	// Default DefaultElectionTimeout, etcd's own default.
	ElectionTimeout time.Duration

	// CompactionRetention is how much history the members keep: every
	// retention period they compact away the revisions older than it, so
	// that the store does not grow without bound. A snapshot or a paused
	// scan older than it reads ErrCompacted. 0 keeps every revision.
	CompactionRetention time.Duration

	// UnsafeNoFsync stops the members from syncing their logs: a write is
	// still acknowledged by a majority, but only into their page caches, so
	// a machine that loses power loses it. For test clusters whose members
	// share one machine and are never killed, where syncs would only slow
	// every write; never for data that matters.
	UnsafeNoFsync bool
}

// Defaults of Config. Telha's batches (a job purge, a tombstone cascade)
// hold up to about a thousand mutations, well over etcd's default of 128
// operations per transaction.
const (
	DefaultMembers         = 3
	DefaultMaxTxnOps       = 4096
	DefaultMaxRequestBytes = 1536 * 1024
	DefaultElectionTimeout = time.Second
)

// host is the address members listen on: the loopback interface only.
const host = "127.0.0.1"

// layoutFile is the name of the layout file in Config.Dir.
const layoutFile = "cluster.json"

// layout is what a cluster is made of, written once when the cluster is
// created and read by every member at every start, so that a member
// restarts with the addresses its peers know it by.
type layout struct {
	Token           string         `json:"token"`
	Members         []memberLayout `json:"members"`
	MaxTxnOps       int            `json:"maxTxnOps"`
	MaxRequestBytes int            `json:"maxRequestBytes"`
	// ElectionMs is etcd's --election-timeout.
	ElectionMs int `json:"electionMs"`
	// CompactionRetention is etcd's --auto-compaction-retention in
	// periodic mode, empty for none.
	CompactionRetention string `json:"compactionRetention,omitempty"`
	// UnsafeNoFsync is etcd's --unsafe-no-fsync.
	UnsafeNoFsync bool `json:"unsafeNoFsync,omitempty"`
}

type memberLayout struct {
	Name       string `json:"name"`
	ClientPort int    `json:"clientPort"`
	PeerPort   int    `json:"peerPort"`
}

// ErrLayout reports a cluster directory that cannot be used: its layout
// file is unreadable or disagrees with the Config, or it holds files but no
// layout (it is not a cluster, and Start writes nothing into it).
var ErrLayout = errors.New("cluster layout")

// readLayout reads the layout of the cluster in dir. A missing layout file
// is fs.ErrNotExist.
func readLayout(dir string) (layout, error) {
	var l layout
	data, err := os.ReadFile(filepath.Join(dir, layoutFile))
	if errors.Is(err, fs.ErrNotExist) {
		return l, err
	}
	if err != nil {
		return l, fmt.Errorf("%w: %w", ErrLayout, err)
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return l, fmt.Errorf("%w: %s: %w", ErrLayout, filepath.Join(dir, layoutFile), err)
	}
	if l.ElectionMs == 0 {
		l.ElectionMs = int(DefaultElectionTimeout.Milliseconds()) // a layout from before the setting
	}
	if len(l.Members) == 0 || l.Token == "" || l.MaxTxnOps <= 0 || l.MaxRequestBytes <= 0 || l.ElectionMs < 10 {
		return l, fmt.Errorf("%w: %s is incomplete", ErrLayout, filepath.Join(dir, layoutFile))
	}
	return l, nil
}

// loadOrCreateLayout returns the layout of the cluster in cfg.Dir, creating
// the directory and the layout when the directory is missing or empty. An
// existing layout must agree with the members, port and limits cfg asks
// for, where cfg sets them.
func loadOrCreateLayout(cfg Config) (layout, error) {
	l, err := readLayout(cfg.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return createLayout(cfg)
	case err != nil:
		return l, err
	}
	for _, c := range []struct {
		name      string
		want, got int
	}{
		{"members", cfg.Members, len(l.Members)},
		{"port", cfg.Port, l.Members[0].ClientPort},
		{"max txn ops", cfg.MaxTxnOps, l.MaxTxnOps},
		{"max request bytes", cfg.MaxRequestBytes, l.MaxRequestBytes},
		{"election timeout (ms)", int(cfg.ElectionTimeout.Milliseconds()), l.ElectionMs},
	} {
		if c.want != 0 && c.want != c.got {
			return l, fmt.Errorf("%w: the cluster in %s has %s %d, not %d", ErrLayout, cfg.Dir, c.name, c.got, c.want)
		}
	}
	return l, nil
}

func createLayout(cfg Config) (layout, error) {
	if entries, err := os.ReadDir(cfg.Dir); len(entries) > 0 {
		return layout{}, fmt.Errorf("%w: %s holds files but no %s: not a cluster directory", ErrLayout, cfg.Dir, layoutFile)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return layout{}, fmt.Errorf("%w: %w", ErrLayout, err)
	}
	n := cmp.Or(cfg.Members, DefaultMembers)
	if n < 1 || n%2 == 0 || n > 7 {
		return layout{}, fmt.Errorf("%w: %d members; a cluster has 1, 3, 5 or 7", ErrLayout, n)
	}
	ports, err := choosePorts(cfg.Port, 2*n)
	if err != nil {
		return layout{}, err
	}
	var token [8]byte
	_, _ = rand.Read(token[:])
	l := layout{
		Token:           "telha-" + hex.EncodeToString(token[:]),
		MaxTxnOps:       cmp.Or(cfg.MaxTxnOps, DefaultMaxTxnOps),
		MaxRequestBytes: cmp.Or(cfg.MaxRequestBytes, DefaultMaxRequestBytes),
		ElectionMs:      int(cmp.Or(cfg.ElectionTimeout, DefaultElectionTimeout).Milliseconds()),
		UnsafeNoFsync:   cfg.UnsafeNoFsync,
	}
	if cfg.CompactionRetention > 0 {
		l.CompactionRetention = cfg.CompactionRetention.String()
	}
	for i := range n {
		l.Members = append(l.Members, memberLayout{Name: fmt.Sprintf("member-%d", i), ClientPort: ports[2*i], PeerPort: ports[2*i+1]})
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return l, fmt.Errorf("%w: %w", ErrLayout, err)
	}
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return l, err
	}
	return l, durable.WriteFile(filepath.Join(cfg.Dir, layoutFile), append(data, '\n'), 0o600)
}

// choosePorts returns n ports: first, first+1, ... when first is not 0,
// else n ports that are free now. A free port may be taken by another
// process before a member binds it; the member then fails to start, with
// the cause in its log.
func choosePorts(first, n int) ([]int, error) {
	ports := make([]int, n)
	if first != 0 {
		if first < 1 || first+n-1 > 65535 {
			return nil, fmt.Errorf("%w: ports %d to %d are not valid", ErrLayout, first, first+n-1)
		}
		for i := range ports {
			ports[i] = first + i
		}
		return ports, nil
	}
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for i := range ports {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("choose a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// endpoint returns member i's client address, HOST:PORT.
func (l layout) endpoint(i int) string {
	return net.JoinHostPort(host, strconv.Itoa(l.Members[i].ClientPort))
}

// endpoints returns every member's client address.
func (l layout) endpoints() []string {
	out := make([]string, len(l.Members))
	for i := range out {
		out[i] = l.endpoint(i)
	}
	return out
}

// initialCluster is etcd's --initial-cluster: name=peerURL for every member.
func (l layout) initialCluster() string {
	parts := make([]string, len(l.Members))
	for i, m := range l.Members {
		parts[i] = m.Name + "=" + loopbackURL(m.PeerPort)
	}
	return strings.Join(parts, ",")
}

// loopbackURL is the plain-HTTP URL of a port on the loopback address.
func loopbackURL(port int) string { return "http://" + net.JoinHostPort(host, strconv.Itoa(port)) }

package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/pflag"

	"telha.dev/core/durable"
	"telha.dev/core/storage"
	"telha.dev/graph"
	"telha.dev/jobs"
	"telha.dev/lifecycle"
	"telha.dev/temporal"
	"telha.dev/vector"
	"telha.dev/vector/bitmap"
)

// The demo's fixed identities: three tenants that share every logical id,
// so that the isolation check is meaningful.
var (
	demoOrg     = uuid.MustParse("0190a000-0000-7000-8000-00000000000f")
	demoTenants = []struct {
		name string
		id   uuid.UUID
	}{
		{"acme", uuid.MustParse("0190a000-0000-7000-8000-0000000000a1")},
		{"globex", uuid.MustParse("0190a000-0000-7000-8000-0000000000a2")},
		{"initech", uuid.MustParse("0190a000-0000-7000-8000-0000000000a3")},
	}
	people = []struct {
		name string
		id   uuid.UUID
	}{
		{"alice", uuid.MustParse("0190a000-0000-7000-8000-000000000001")},
		{"bob", uuid.MustParse("0190a000-0000-7000-8000-000000000002")},
		{"carol", uuid.MustParse("0190a000-0000-7000-8000-000000000003")},
		{"dave", uuid.MustParse("0190a000-0000-7000-8000-000000000004")},
	}
	names = map[uuid.UUID]string{}
)

func init() {
	for _, p := range people {
		names[p.id] = p.name
	}
}

const demoModel = "demo-embed"

func day(s string) storage.Timestamp {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err) // fixed literals only
	}
	return storage.TimestampOf(t)
}

// demoMarker is the file the demo writes into a store it creates. A store
// without it belongs to someone else: the demo, which wipes its three
// tenants on every run, refuses it unless told -force.
const demoMarker = "TELHA-DEMO"

// demoCommand builds a small three-tenant knowledge graph and shows the
// main read paths against it, in an embedded RocksDB store or in a
// namespace of an etcd cluster.
func demoCommand(fs *pflag.FlagSet) runner {
	force := fs.Bool("force", false, "use a store the demo did not create (its demo tenants are wiped)")
	return func(in *invocation) (err error) {
		return demo(in, *force)
	}
}

// demo runs the demo.
func demo(in *invocation, force bool) (err error) {
	stdout := in.stdout
	eng, store, state, closeStore, err := openDemoStore(in, force)
	if err != nil {
		return err
	}
	defer func() { err = closeStore(err) }()

	d := &demoRun{out: stdout, eng: eng}
	for _, t := range demoTenants {
		scope, err := storage.NewTenantScope(t.id, demoOrg)
		if err != nil {
			return err
		}
		d.scopes = append(d.scopes, scope)
	}
	switch state {
	case newDir:
		d.printf("created a new store at %s\n", store)
	case demoDir:
		d.printf("reusing the store at %s: resetting the three demo tenants\n", store)
	case foreignDir:
		d.printf("using the store at %s, which the demo did not create (-force): resetting the three demo tenants\n", store)
	}

	d.index = bitmap.New(eng, bitmap.Options{})
	d.graph = graph.Open(eng, graph.Options{Indexers: []temporal.Indexer{d.index}})
	d.vectors = vector.New(eng)
	if state != newDir {
		if err := d.resetTenants(); err != nil {
			return err
		}
	}
	if err := d.provisionTenants(); err != nil {
		return err
	}
	for _, step := range []func() error{d.build, d.correction, d.history, d.traversal, d.isolation, d.knn, d.jobQueue, d.provenance, d.redaction} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// dataDirState is what the demo finds in its data directory.
type dataDirState int

const (
	newDir     dataDirState = iota // missing or empty: the demo creates a store
	demoDir                        // a store the demo created
	foreignDir                     // anything else
)

// inspectDataDir classifies dir without writing to it; rocksdb.Open then
// decides whether a store in it is usable.
func inspectDataDir(dir string) (dataDirState, error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newDir, nil
	case err != nil:
		return 0, err
	case len(entries) == 0:
		return newDir, nil
	}
	if _, err := os.Stat(filepath.Join(dir, demoMarker)); err == nil {
		return demoDir, nil
	}
	return foreignDir, nil
}

// writeMarker records durably that the demo created the store in dir.
func writeMarker(dir string) error {
	return durable.CreateFile(filepath.Join(dir, demoMarker), []byte("created by telha demo, which wipes its three tenants on every run\n"), 0o644)
}

type demoRun struct {
	out     io.Writer
	eng     storage.Engine
	scopes  []storage.TenantScope
	graph   *graph.Graph
	index   *bitmap.Index
	vectors *vector.Store
	// beforeCorrection is the tx time of the first assertion, for the
	// as-of read "as known before the correction".
	beforeCorrection storage.Timestamp
}

func (d *demoRun) printf(format string, args ...any) { fmt.Fprintf(d.out, format, args...) }

func (d *demoRun) section(title string) { d.printf("\n== %s\n", title) }

// resetTenants wipes the demo tenants (storage.WipeTenant), after the
// subsystems are open, so that they hear of it. The embedding-model
// registry is deployment-global and registration is idempotent, so it
// stays.
func (d *demoRun) resetTenants() error {
	for _, scope := range d.scopes {
		if err := storage.WipeTenant(d.eng, scope); err != nil {
			return fmt.Errorf("reset tenant %s: %w", scope, err)
		}
	}
	return nil
}

// provisionTenants registers the demo tenants in the tenant registry,
// unless an earlier run did. A demo tenant that is being erased or was
// erased, or a demo name that another tenant holds, stops the demo.
func (d *demoRun) provisionTenants() error {
	for i, scope := range d.scopes {
		name := demoTenants[i].name
		_, err := lifecycle.Provision(d.eng, scope, name)
		if errors.Is(err, lifecycle.ErrExists) {
			t, gerr := lifecycle.Get(d.eng, scope)
			if gerr != nil {
				return fmt.Errorf("provision demo tenant %s: %w", name, gerr)
			}
			if t.State == lifecycle.Active && t.Name == name {
				continue
			}
			return usagef("demo: the demo tenant %s is %s as %q in this store; use another -data", name, t.State, t.Name)
		}
		if errors.Is(err, lifecycle.ErrNameTaken) {
			return usagef("demo: %v; use another -data", err)
		}
		if err != nil {
			return fmt.Errorf("provision demo tenant %s: %w", name, err)
		}
	}
	return nil
}

// build writes the same four people in every tenant, with a KNOWS chain
// alice -> bob -> carol -> dave. Only globex's alice also knows dave
// directly, so traversals differ between tenants.
func (d *demoRun) build() error {
	d.section("building a three-tenant knowledge graph")
	store := d.graph.Store()
	cities := []string{"Lisbon", "Porto", "Lisbon", "Braga"}
	for ti, scope := range d.scopes {
		for i, p := range people {
			tx, err := store.AssertNode(scope, temporal.NodeFact{
				ID:     p.id,
				Valid:  temporal.Interval{Start: day("2024-01-01"), End: temporal.Forever},
				Labels: []string{"Person"},
				Props: temporal.Properties{
					"name":   temporal.String(p.name),
					"city":   temporal.String(cities[i]),
					"tenant": temporal.String(demoTenants[ti].name),
				},
			})
			if err != nil {
				return fmt.Errorf("assert %s: %w", p.name, err)
			}
			if ti == 0 && i == 0 {
				d.beforeCorrection = tx
			}
		}
		edges := [][2]int{{0, 1}, {1, 2}, {2, 3}}
		if ti == 1 {
			edges = append(edges, [2]int{0, 3})
		}
		for _, e := range edges {
			_, err := store.AssertEdge(scope, temporal.EdgeFact{
				ID:    edgeID(e[0], e[1]),
				From:  people[e[0]].id,
				To:    people[e[1]].id,
				Type:  "KNOWS",
				Valid: temporal.Interval{Start: day("2024-01-01"), End: temporal.Forever},
			})
			if err != nil {
				return fmt.Errorf("assert edge %s->%s: %w", people[e[0]].name, people[e[1]].name, err)
			}
		}
		d.printf("%-8s 4 people, %d KNOWS edges\n", demoTenants[ti].name, len(edges))
	}
	return nil
}

// edgeID derives a stable edge id from its endpoints' positions.
func edgeID(from, to int) uuid.UUID {
	return uuid.MustParse(fmt.Sprintf("0190a000-0000-7000-8000-0000000e%02d%02d", from, to))
}

// correction records that acme's alice moved to Porto on 2024-06-01 and
// shows the as-of reads before and after it.
func (d *demoRun) correction() error {
	d.section("as-of reads before and after a correction (acme, alice)")
	acme, alice := d.scopes[0], people[0].id
	july := day("2024-07-01")
	show := func(label string, a temporal.AsOf) error {
		v, err := d.graph.Store().NodeAsOf(acme, alice, a)
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		d.printf("%-44s city=%s\n", label, v.Props["city"].Str)
		return nil
	}
	if err := show("valid 2024-07-01, as known now:", temporal.Current(july)); err != nil {
		return err
	}
	_, err := d.graph.Store().AssertNode(acme, temporal.NodeFact{
		ID:     alice,
		Valid:  temporal.Interval{Start: day("2024-06-01"), End: temporal.Forever},
		Labels: []string{"Person"},
		Props:  temporal.Properties{"name": temporal.String("alice"), "city": temporal.String("Porto"), "tenant": temporal.String("acme")},
	})
	if err != nil {
		return fmt.Errorf("correct alice: %w", err)
	}
	d.printf("-- corrected: alice lives in Porto from 2024-06-01\n")
	if err := show("valid 2024-07-01, as known now:", temporal.Current(july)); err != nil {
		return err
	}
	if err := show("valid 2024-07-01, as known before the fix:", temporal.AsOf{Valid: july, Tx: d.beforeCorrection}); err != nil {
		return err
	}
	return show("valid 2024-03-01, as known now:", temporal.Current(day("2024-03-01")))
}

func (d *demoRun) history() error {
	d.section("history of acme's alice, latest first")
	versions, err := d.graph.Store().NodeHistory(d.scopes[0], people[0].id)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	for _, v := range versions {
		end := "open"
		if v.TxEnd != temporal.Forever {
			end = "superseded"
		}
		validEnd := "forever"
		if v.Valid.End != temporal.Forever {
			validEnd = v.Valid.End.Time().Format(time.DateOnly)
		}
		d.printf("valid [%s, %s) city=%-7s tx %s (%s)\n",
			v.Valid.Start.Time().Format(time.DateOnly), validEnd, v.Props["city"].Str, v.TxStart, end)
	}
	return nil
}

// twoHop returns the names reached from alice within two KNOWS hops.
func (d *demoRun) twoHop(scope storage.TenantScope) ([]string, error) {
	visits, _, err := d.graph.KHop(scope, people[0].id, temporal.Current(day("2024-07-01")),
		graph.Traversal{Direction: graph.Out, Types: []string{"KNOWS"}, MaxDepth: 2, MaxVisited: 100})
	if err != nil {
		return nil, fmt.Errorf("two-hop traversal: %w", err)
	}
	var reached []string
	for _, v := range visits[1:] {
		reached = append(reached, fmt.Sprintf("%s@%d", names[v.Node], v.Depth))
	}
	return reached, nil
}

func (d *demoRun) traversal() error {
	d.section("two-hop traversal from alice over KNOWS (acme)")
	reached, err := d.twoHop(d.scopes[0])
	if err != nil {
		return err
	}
	d.printf("reached: %s\n", strings.Join(reached, ", "))
	return nil
}

// isolation reads the same logical ids in every tenant and shows that each
// tenant sees only its own data.
func (d *demoRun) isolation() error {
	d.section("isolation: the same logical ids in three tenants")
	for i, scope := range d.scopes {
		v, err := d.graph.Store().NodeAsOf(scope, people[0].id, temporal.Current(day("2024-07-01")))
		if err != nil {
			return fmt.Errorf("read alice in %s: %w", demoTenants[i].name, err)
		}
		reached, err := d.twoHop(scope)
		if err != nil {
			return err
		}
		owner := v.Props["tenant"].Str
		if owner != demoTenants[i].name {
			return fmt.Errorf("isolation broken: tenant %s read alice of %s", demoTenants[i].name, owner)
		}
		d.printf("%-8s alice.tenant=%-8s city=%-7s two hops: %s\n",
			demoTenants[i].name, owner, v.Props["city"].Str, strings.Join(reached, ", "))
	}
	return nil
}

// knn registers an embedding model, stores one vector per person, and runs
// a kNN query filtered by the bitmap index to people living in Lisbon.
func (d *demoRun) knn() error {
	d.section("vectors: model registry and a filtered kNN query (acme)")
	clock := d.graph.Store().Clock()
	registered, err := clock.Next()
	if err != nil {
		return fmt.Errorf("register model: %w", err)
	}
	model, err := d.vectors.RegisterModel(demoModel, 4, vector.Cosine, registered)
	if err != nil {
		return fmt.Errorf("register model: %w", err)
	}
	d.printf("model %s: dimension %d, metric %s\n", model.Name, model.Dimension, model.Metric)
	acme := d.scopes[0]
	embeddings := [][]float32{{1, 0, 0, 0}, {0.9, 0.1, 0, 0}, {0.7, 0.7, 0, 0}, {0, 0, 1, 0}}
	tx, err := clock.Next()
	if err != nil {
		return fmt.Errorf("put vectors: %w", err)
	}
	for i, p := range people {
		if err := d.vectors.Put(acme, p.id, demoModel, day("2024-01-01"), tx, embeddings[i]); err != nil {
			return fmt.Errorf("put vector of %s: %w", p.name, err)
		}
	}
	lisbon, err := d.index.Equal(d.eng, acme, "Person", "city", temporal.String("Lisbon"))
	if err != nil {
		return fmt.Errorf("bitmap query: %w", err)
	}
	d.printf("bitmap: Person.city = Lisbon -> %s\n", nameList(lisbon))
	query := vector.Query{Model: demoModel, Vector: []float32{1, 0.05, 0, 0}, K: 2, At: vector.Latest}
	if err := d.nearest("2 nearest, everyone:", acme, query); err != nil {
		return err
	}
	query.Filter = &vector.Filter{IDs: lisbon}
	return d.nearest("2 nearest, city = Lisbon:", acme, query)
}

func (d *demoRun) nearest(label string, scope storage.TenantScope, q vector.Query) error {
	hits, err := d.vectors.Search(scope, q)
	if err != nil {
		return fmt.Errorf("knn: %w", err)
	}
	var found []string
	for _, h := range hits {
		found = append(found, fmt.Sprintf("%s (%.4f)", names[h.Node], h.Distance))
	}
	d.printf("%-26s %s\n", label, strings.Join(found, ", "))
	return nil
}

func nameList(ids []uuid.UUID) string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, names[id])
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// jobQueue runs a durable job queue round trip with one worker goroutine.
func (d *demoRun) jobQueue() error {
	d.section("jobs: a durable queue round trip (acme)")
	store, err := jobs.NewStore(d.eng, jobs.Options{Durable: true})
	if err != nil {
		return err
	}
	q, err := store.Tenant(d.scopes[0])
	if err != nil {
		return err
	}
	job, err := q.Enqueue([]byte("reindex alice"), jobs.EnqueueOptions{Priority: jobs.PriorityHigh})
	if err != nil {
		return fmt.Errorf("enqueue: %w", err)
	}
	d.printf("enqueued %q (%s)\n", job.Payload, job.State)
	done := make(chan error, 1)
	go func() {
		lease, err := q.Claim("worker-1")
		if err != nil {
			done <- fmt.Errorf("claim: %w", err)
			return
		}
		d.printf("worker-1 claimed %q, attempt %d\n", lease.Payload, lease.Attempts)
		done <- q.Complete(lease)
	}()
	if err := <-done; err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	job, err = q.Get(job.Ref)
	if err != nil {
		return fmt.Errorf("get job: %w", err)
	}
	d.printf("job is %s after %d attempt(s)\n", job.State, job.Attempts)
	if job.State != jobs.Completed {
		return errors.New("job did not complete")
	}
	return nil
}

package vector

import (
	"time"

	"telha.dev/vector/internal/hnsw"
	"telha.dev/vector/internal/kernel"
)

// The approximate graph of a matrix is built lazily: the first approximate
// search of a matrix creates an empty graph and starts a builder goroutine,
// and is itself answered exactly (the whole matrix is the graph's tail).
// The builder inserts the tail's slots in steps of about builderStep, each
// under the index's lock, so writes go on between steps (searches go on
// throughout, on the view each step publishes); a slot added later (a
// write) restarts it. Until the builder has caught up, approximate
// searches walk the graph for the slots it holds and scan the rest
// exactly, so a fresh write is never missed.

// builderStep is how long the builder holds the index's lock at a time:
// a write waits at most about this long behind it, and searches see the
// nodes it inserted when it publishes its view at the end of the step.
const builderStep = 2 * time.Millisecond

// startGraph gives mx an empty graph of shape cfg under metric and starts
// its builder. Must hold ix.mu.
func (ix *index) startGraph(mx *matrix, metric Metric, cfg hnsw.Config) {
	g := hnsw.New(cfg)
	mx.ann = &ann{metric: metric, cfg: cfg, build: g, graph: &g.View, quantized: kernel.Int8Fast(mx.dim)}
	ix.grew(mx)
}

// grew starts the builder of mx if mx has a graph that lacks some slots
// and no builder is running. Must hold ix.mu.
func (ix *index) grew(mx *matrix) {
	a := mx.ann
	if a == nil || a.building || a.graph.Len() == mx.slots() {
		return
	}
	a.building = true
	go func() {
		for ix.extend(mx, a, builderStep) {
		}
	}()
}

// extend inserts slots of mx into the graph a for about budget, and
// reports whether slots remain. It stops for good (and reports false) when
// a is no longer the graph of mx, or mx no longer a matrix of the index:
// a reload, a compaction, a metric change, a wipe or a Close replaced them.
func (ix *index) extend(mx *matrix, a *ann, budget time.Duration) bool {
	ix.mu.Lock()
	defer ix.unlock()
	if ix.dropped || !ix.loaded || ix.mats[mx.dim] != mx || mx.ann != a {
		a.building = false
		return false
	}
	start := time.Now()
	for a.graph.Len() < mx.slots() {
		a.add(mx)
		if time.Since(start) >= budget {
			return true
		}
	}
	a.building = false
	return false
}

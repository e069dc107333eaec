package hnsw

// walk is the scratch space of one search or insert, pooled per graph.
type walk struct {
	seen     visited
	frontier nearest
	results  farthest
	entries  []item
	found    []item
	chosen   []item
	prune    []item
	kept     []item
}

func (g *Graph) walk() *walk {
	w, _ := g.scratch.Get().(*walk)
	if w == nil {
		w = new(walk)
	}
	return w
}

// Search returns up to k allowed nodes nearest to the point that query
// measures, nearest first (ties by id). ef (raised to k) is the width of
// the walk on level 0: wider finds more of the true nearest, more slowly.
// allow filters during the walk; nil allows every node.
func (g *Graph) Search(query func(id uint32) float64, k, ef int, allow func(id uint32) bool) []Result {
	if g.top < 0 || k < 1 {
		return nil
	}
	w := g.walk()
	defer g.scratch.Put(w)
	ep := item{d: measure(query, g.entry), id: g.entry}
	for l := g.top; l > 0; l-- {
		ep = g.greedy(ep, query, l)
	}
	w.entries = append(w.entries[:0], ep)
	w.found = g.searchLevel(w, w.entries, query, max(ef, k), 0, allow, w.found[:0])
	out := make([]Result, 0, min(k, len(w.found)))
	for _, it := range w.found[:min(k, len(w.found))] {
		out = append(out, Result{ID: it.id, Distance: it.d})
	}
	return out
}

// greedy walks level l from ep to a local minimum of query.
func (g *Graph) greedy(ep item, query func(uint32) float64, l int) item {
	for moved := true; moved; {
		moved = false
		for _, n := range g.links(ep.id, l) {
			if it := (item{d: measure(query, n), id: n}); it.before(ep) {
				ep, moved = it, true
			}
		}
	}
	return ep
}

// searchLevel is the beam search of the paper on level l, with hnswlib's
// filter rule: every reached node may be explored, only allowed ones are
// results, and the walk stops when the nearest unexplored node is farther
// than the farthest of ef results. It appends the results to dst, nearest
// first.
func (g *Graph) searchLevel(w *walk, entries []item, query func(uint32) float64, ef, l int, allow func(uint32) bool, dst []item) []item {
	w.seen.reset(g.Len())
	w.frontier = w.frontier[:0]
	w.results.reset()
	for _, e := range entries {
		if !w.seen.visit(e.id) {
			continue
		}
		w.frontier.push(e)
		if allow == nil || allow(e.id) {
			w.results.push(e)
			if w.results.len() > ef {
				w.results.pop()
			}
		}
	}
	for w.frontier.len() > 0 {
		c := w.frontier.pop()
		if w.results.full(ef) && w.results.root().before(c) {
			break
		}
		for _, n := range g.links(c.id, l) {
			if !w.seen.visit(n) {
				continue
			}
			it := item{d: measure(query, n), id: n}
			if w.results.full(ef) && !it.before(w.results.root()) {
				continue
			}
			w.frontier.push(it)
			if allow == nil || allow(n) {
				w.results.push(it)
				if w.results.len() > ef {
					w.results.pop()
				}
			}
		}
	}
	return w.results.drain(dst)
}

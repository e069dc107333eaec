package vector

import (
	"math"
	"testing"

	"telha.dev/core/storage"
)

// TestScans: the plan scans when the filter allows few vectors for the
// search's width, or fewer than one in 2M, and always walks when
// ExactBelow is negative.
func TestScans(t *testing.T) {
	for _, tc := range []struct {
		name              string
		opts              Options
		allowed, live, ef int
		want              bool
	}{
		{"unfiltered at the default width", Options{ExactBelow: DefaultExactBelow}, 100_000, 100_000, 64, false},
		{"unfiltered, small matrix", Options{ExactBelow: DefaultExactBelow}, 4000, 4000, 64, true},
		{"unfiltered, width beyond the scan's cost", Options{ExactBelow: DefaultExactBelow}, 100_000, 100_000, 2048, true},
		{"10% at ef 10 walks", Options{ExactBelow: DefaultExactBelow}, 10_000, 100_000, 10, false},
		{"10% at ef 64 walks", Options{ExactBelow: DefaultExactBelow}, 10_000, 100_000, 64, false},
		{"10% at ef 256 scans", Options{ExactBelow: DefaultExactBelow}, 10_000, 100_000, 256, true},
		{"1% scans at any width", Options{ExactBelow: DefaultExactBelow}, 1000, 100_000, 10, true},
		{"below one in 2M scans", Options{ExactBelow: 1, M: 16}, 3000, 100_000, 10, true},
		{"above one in 2M walks", Options{ExactBelow: 1, M: 16}, 3200, 100_000, 10, false},
		{"one in 2M of M = 4", Options{ExactBelow: 1, M: 4}, 12_000, 100_000, 10, true},
		{"negative always walks", Options{ExactBelow: -1}, 10, 100_000, 64, false},
	} {
		if got := tc.opts.scans(tc.allowed, tc.live, tc.ef); got != tc.want {
			t.Errorf("%s: scans(%d, %d, %d) = %t, want %t", tc.name, tc.allowed, tc.live, tc.ef, got, tc.want)
		}
	}
}

// TestPlannedFilterRecall: with the plan on, filters of 1%, 10%, 50% and
// 100% of 4,000 clustered vectors meet recall@10 0.99 at width 128,
// whichever path each takes (at ExactBelow 100, the 1% filter is scanned
// and the others walk), every hit a candidate with its exact distance.
func TestPlannedFilterRecall(t *testing.T) {
	f := newANNFixture(t, storage.NewMemoryEngine(), 4000, Cosine)
	f.s.opts.ExactBelow, f.s.opts.EfSearch = 100, 128
	if err := f.s.Warm(f.scope, "ann"); err != nil {
		t.Fatal(err)
	}
	queries, _ := clusteredVectors(50, 16, 2)
	for _, tc := range []struct {
		name     string
		mod, rem int
	}{{"all", 1, 0}, {"1pct", 100, 7}, {"10pct", 10, 3}, {"50pct", 2, 0}} {
		filter := &Filter{}
		for i, id := range f.ids {
			if i%tc.mod == tc.rem {
				filter.IDs = append(filter.IDs, id)
			}
		}
		r := f.recallAgainstExact(t, queries, filter)
		t.Logf("filter %s: recall@10 %.4f", tc.name, r)
		if r < 0.99 {
			t.Errorf("filter %s: recall@10 %.4f, want at least 0.99", tc.name, r)
		}
	}
}

// TestDense: a filter is walked as dense from a quarter of the graph's
// nodes on.
func TestDense(t *testing.T) {
	for _, tc := range []struct {
		allowed, nodes int
		want           bool
	}{{0, 0, true}, {24, 100, false}, {25, 100, true}, {50, 100, true}, {10, 100, false}, {100, 100, true}} {
		if got := dense(tc.allowed, tc.nodes); got != tc.want {
			t.Errorf("dense(%d, %d) = %t, want %t", tc.allowed, tc.nodes, got, tc.want)
		}
	}
}

// TestWalkWidth: a sparse walk is 2.5 times wider than ef, or a quarter
// of nodes/allowed times; a filtered walk on codes keeps k more; widths
// stop at the graph's nodes, whatever k.
func TestWalkWidth(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		ef, k, allowed, nodes int
		filtered, quantized   bool
		want                  int
	}{
		{"unfiltered", 64, 10, 100_000, 100_000, false, true, 64},
		{"dense filter on codes", 10, 10, 50_000, 100_000, true, true, 20},
		{"dense filter on rows", 10, 10, 50_000, 100_000, true, false, 10},
		{"10% on codes", 10, 10, 10_000, 100_000, true, true, 35},
		{"10% on rows", 16, 10, 10_000, 100_000, true, false, 40},
		{"5% on codes", 10, 10, 5000, 100_000, true, true, 60},
		{"dead nodes, unfiltered", 10, 10, 10_000, 100_000, false, true, 25},
		{"huge k", math.MaxInt, math.MaxInt, 10, 1000, true, true, 2000},
		{"nothing allowed", 10, 10, 0, 100, true, false, 100},
	} {
		if got := walkWidth(tc.ef, tc.k, tc.allowed, tc.nodes, tc.filtered, tc.quantized); got != tc.want {
			t.Errorf("%s: walkWidth(%d, %d, %d, %d, %t, %t) = %d, want %d", tc.name, tc.ef, tc.k, tc.allowed, tc.nodes, tc.filtered, tc.quantized, got, tc.want)
		}
	}
}

package sources

import (
	"cmp"
	"iter"
	"slices"
	"sort"

	"telha.dev/core/storage"
)

// This file is the arithmetic of redacted ranges (merging, what a chunk
// keeps, cutting text); the values that record them are in redaction.go.

// mergeRanges returns rs sorted, with ranges that overlap or touch merged
// into one. It does not check them.
func mergeRanges(rs []storage.BlobRange) []storage.BlobRange {
	out := slices.Clone(rs)
	slices.SortFunc(out, func(a, b storage.BlobRange) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r.Start <= merged[n-1].End {
			merged[n-1].End = max(merged[n-1].End, r.End)
			continue
		}
		merged = append(merged, r)
	}
	return slices.Clip(merged)
}

// firstFrom returns the index of the first range of the merged ranges rs
// that ends after off.
func firstFrom(rs []storage.BlobRange, off uint64) int {
	return sort.Search(len(rs), func(i int) bool { return rs[i].End > off })
}

// removed returns the number of bytes of [lo, hi) that the merged ranges rs
// take out.
func removed(rs []storage.BlobRange, lo, hi uint64) uint64 {
	var n uint64
	for _, r := range rs[firstFrom(rs, lo):] {
		if r.Start >= hi {
			break
		}
		n += min(r.End, hi) - max(r.Start, lo)
	}
	return n
}

// kept yields the pieces of [lo, hi) that the merged ranges rs leave, in
// order.
func kept(rs []storage.BlobRange, lo, hi uint64) iter.Seq[storage.BlobRange] {
	return func(yield func(storage.BlobRange) bool) {
		at := lo
		for _, r := range rs[firstFrom(rs, lo):] {
			if r.Start >= hi {
				break
			}
			if r.Start > at && !yield(storage.BlobRange{Start: at, End: r.Start}) {
				return
			}
			at = max(at, r.End)
		}
		if at < hi {
			yield(storage.BlobRange{Start: at, End: hi})
		}
	}
}

// cut returns the text of [lo, hi) that the merged ranges after leave,
// given text, what the merged ranges before left of it, where before is a
// subset of after.
func cut(text []byte, before, after []storage.BlobRange, lo, hi uint64) []byte {
	out := make([]byte, 0, len(text))
	pos := 0
	for piece := range kept(before, lo, hi) {
		for k := range kept(after, piece.Start, piece.End) {
			off := pos + int(k.Start-piece.Start)
			out = append(out, text[off:off+int(k.End-k.Start)]...)
		}
		pos += int(piece.End - piece.Start)
	}
	return out
}

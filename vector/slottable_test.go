package vector

import (
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// TestSlotTableSnapshots runs random moves, deletes and re-adds of a few
// nodes through a matrix, taking snapshots as it goes: the writer's find
// gives each node's live slot, and every snapshot, however many changes
// (rebuilds of the table included) came after it, still finds exactly
// the slots live when it was taken.
func TestSlotTableSnapshots(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mx := newMatrix(1)
		nodes := make([]uuid.UUID, rapid.IntRange(1, 40).Draw(t, "nodes"))
		for i := range nodes {
			nodes[i] = uuid.New()
		}
		want := make(map[uuid.UUID]uint32) // the live slot of each node
		type snap struct {
			mx   *matrix
			live map[uuid.UUID]uint32
		}
		var snaps []snap
		for range rapid.IntRange(0, 400).Draw(t, "ops") {
			node := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "node")]
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0, 1: // put: a new slot, the old one killed
				if slot, ok := want[node]; ok {
					mx.kill(slot)
				}
				want[node] = uint32(mx.slots())
				mx.add(node, version{}, []float32{1})
			case 2: // delete
				if slot, ok := want[node]; ok {
					mx.kill(slot)
					delete(want, node)
				}
			case 3:
				live := make(map[uuid.UUID]uint32, len(want))
				for k, v := range want {
					live[k] = v
				}
				snaps = append(snaps, snap{mx: mx.snapshot(), live: live})
			}
		}
		for i, s := range append(snaps, snap{mx: mx, live: want}) {
			for _, node := range nodes {
				slot, ok := s.mx.find(node)
				wslot, wok := s.live[node]
				if ok != wok || slot != wslot {
					t.Fatalf("state %d: find(%s) = %d, %t; want %d, %t", i, node, slot, ok, wslot, wok)
				}
			}
			if s.mx.nlive != len(s.live) || s.mx.live.count(uint32(s.mx.slots())) != len(s.live) {
				t.Fatalf("state %d: %d live (%d bits), want %d", i, s.mx.nlive, s.mx.live.count(uint32(s.mx.slots())), len(s.live))
			}
		}
	})
}

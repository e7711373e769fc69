package sched

import "sort"

// arenaAlign is the alignment of every arena buffer: a cache line, which is
// also the widest vector load.
const arenaAlign = 64

// placeBuffers is the buffers stage: it computes every arena buffer's live
// range over the plan's kernels in their final order and places the arena
// buffers so that buffers live at the same time never overlap.
func placeBuffers(s *scheduler) error {
	s.liveness()
	s.placeArena()
	return nil
}

// liveness computes each arena buffer's live range [First, Last] over the
// plan's kernels: from the kernel that writes it to the last kernel that
// reads it directly or through an alias or a tuple.
func (s *scheduler) liveness() {
	for _, b := range s.plan.Buffers {
		b.First, b.Last = -1, -1
	}
	touch := func(b *Buffer, i int) {
		var visit func(b *Buffer)
		visit = func(b *Buffer) {
			switch b.Kind {
			case Tuple:
				for _, e := range b.Elems {
					visit(e)
				}
				return
			case Alias:
				r, _ := b.Root()
				visit(r)
				return
			}
			if b.First < 0 || i < b.First {
				b.First = i
			}
			if i > b.Last {
				b.Last = i
			}
		}
		visit(b)
	}
	for i, k := range s.plan.Kernels {
		touch(k.Out, i)
		for _, b := range k.In {
			touch(b, i)
		}
	}
}

// placeArena gives every arena buffer an offset such that buffers whose live
// ranges overlap do not overlap in memory. Buffers are placed largest first,
// each at the lowest aligned offset that fits between the buffers already
// placed that are live at the same time (best fit in address order).
func (s *scheduler) placeArena() {
	var arena []*Buffer
	for _, b := range s.plan.Buffers {
		if b.Kind == Arena && b.First >= 0 {
			arena = append(arena, b)
			s.plan.IntermediateBytes += b.Size()
		}
	}
	sort.SliceStable(arena, func(i, j int) bool { return arena[i].Size() > arena[j].Size() })
	var placed []*Buffer
	for _, b := range arena {
		size := roundUp(b.Size(), arenaAlign)
		var conflicts []*Buffer
		for _, p := range placed {
			if p.First <= b.Last && b.First <= p.Last {
				conflicts = append(conflicts, p)
			}
		}
		sort.Slice(conflicts, func(i, j int) bool { return conflicts[i].Offset < conflicts[j].Offset })
		off := 0
		for _, c := range conflicts {
			if off+size <= c.Offset {
				break
			}
			if end := c.Offset + roundUp(c.Size(), arenaAlign); end > off {
				off = end
			}
		}
		b.Offset = off
		placed = append(placed, b)
		if end := off + size; end > s.plan.ArenaBytes {
			s.plan.ArenaBytes = end
		}
	}
	s.plan.LowerBoundBytes = lowerBound(arena, len(s.plan.Kernels))
}

// lowerBound is the largest total size of arena buffers live during any one
// kernel: no placement can use less memory.
func lowerBound(arena []*Buffer, kernels int) int {
	best := 0
	for i := 0; i < kernels; i++ {
		total := 0
		for _, b := range arena {
			if b.First <= i && i <= b.Last {
				total += roundUp(b.Size(), arenaAlign)
			}
		}
		best = max(best, total)
	}
	return best
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

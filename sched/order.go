package sched

// order is the ordering stage: it reorders the plan's kernels to keep the peak of live arena bytes
// low: a greedy list schedule that, among the kernels whose inputs are all
// computed, runs the one that frees the most bytes net of what it allocates
// (its output, unless it goes to the caller), ties going to the original
// order. Kernels with side effects keep their relative order.
func order(s *scheduler) error {
	ks := s.plan.Kernels
	n := len(ks)
	if n < 3 {
		return nil
	}
	producer := map[*Buffer]int{}
	for i, k := range ks {
		for _, b := range leafRoots(k.Out) {
			producer[b] = i
		}
	}
	deps := make([][]int, n)  // kernels each kernel waits for
	users := make([][]int, n) // kernels waiting for each kernel
	readers := map[*Buffer]int{}
	lastEffect := -1
	for i, k := range ks {
		seen := map[int]bool{}
		for _, in := range k.In {
			for _, b := range leafRoots(in) {
				readers[b]++
				if p, ok := producer[b]; ok && p != i && !seen[p] {
					seen[p] = true
					deps[i] = append(deps[i], p)
					users[p] = append(users[p], i)
				}
			}
		}
		if k.Root.Op.HasSideEffect() {
			if lastEffect >= 0 && !seen[lastEffect] {
				deps[i] = append(deps[i], lastEffect)
				users[lastEffect] = append(users[lastEffect], i)
			}
			lastEffect = i
		}
	}
	waiting := make([]int, n)
	for i := range ks {
		waiting[i] = len(deps[i])
	}
	remaining := map[*Buffer]int{}
	for b, c := range readers {
		remaining[b] = c
	}
	done := make([]bool, n)
	out := make([]*Kernel, 0, n)
	for len(out) < n {
		best, bestGain := -1, 0
		for i := range ks {
			if done[i] || waiting[i] > 0 {
				continue
			}
			gain := s.freedBy(ks[i], remaining) - arenaBytes(ks[i].Out)
			if best < 0 || gain > bestGain {
				best, bestGain = i, gain
			}
		}
		k := ks[best]
		done[best] = true
		out = append(out, k)
		for _, in := range k.In {
			for _, b := range leafRoots(in) {
				remaining[b]--
			}
		}
		for _, u := range users[best] {
			waiting[u]--
		}
	}
	s.plan.Kernels = out
	return nil
}

// freedBy is the arena bytes whose last remaining reader is k.
func (s *scheduler) freedBy(k *Kernel, remaining map[*Buffer]int) int {
	freed := 0
	counted := map[*Buffer]bool{}
	for _, in := range k.In {
		for _, b := range leafRoots(in) {
			if b.Kind == Arena && !counted[b] && remaining[b] == readsOf(k, b) {
				freed += b.Size()
			}
			counted[b] = true
		}
	}
	return freed
}

// readsOf counts how many of k's inputs resolve to buffer b.
func readsOf(k *Kernel, b *Buffer) int {
	n := 0
	for _, in := range k.In {
		for _, r := range leafRoots(in) {
			if r == b {
				n++
			}
		}
	}
	return n
}

// arenaBytes is the arena memory a kernel's output takes (0 for outputs in
// the caller's memory).
func arenaBytes(b *Buffer) int {
	total := 0
	for _, r := range leafRoots(b) {
		if r.Kind == Arena {
			total += r.Size()
		}
	}
	return total
}

// leafRoots resolves a buffer to the buffers that own its memory: tuples to
// their elements, aliases to what they alias.
func leafRoots(b *Buffer) []*Buffer {
	switch b.Kind {
	case Tuple:
		var out []*Buffer
		for _, e := range b.Elems {
			out = append(out, leafRoots(e)...)
		}
		return out
	case Alias:
		r, _ := b.Root()
		return []*Buffer{r}
	}
	return []*Buffer{b}
}

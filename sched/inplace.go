package sched

// reuseInPlace is the in-place stage. A loop kernel writes its result over
// an input it is the last to read, when the input has the output's size and
// element width and the loop reads it only at the position it writes (its
// maps lay the output's index onto the same place in memory): the output then aliases the input. And each
// result the runtime may write over a parameter (Plan.Aliases) is marked
// InPlace when that is safe (writesAfterLastRead).
func reuseInPlace(s *scheduler) error {
	s.liveness()
	for i, k := range s.plan.Kernels {
		if k.Kind != Loop || k.Loop == nil || k.Out.Kind != Arena {
			continue
		}
		for in, b := range k.In {
			root, off := b.Root()
			if root.Kind != Arena || off != 0 || root.Last != i || b.Size() != k.Out.Size() ||
				root.Size() != b.Size() || b.Shape.Elem.ByteSize() != k.Out.Shape.Elem.ByteSize() ||
				!readsAtOutputIndex(k, in) {
				continue
			}
			k.Out.Kind, k.Out.Of, k.Out.Offset = Alias, root, 0
			break
		}
	}
	for i := range s.plan.Aliases {
		a := &s.plan.Aliases[i]
		a.InPlace = s.writesAfterLastRead(a.Result, a.Param)
	}
	return nil
}

// noInPlace replaces the in-place stage when it is disabled: no result is
// written over a parameter.
func noInPlace(s *scheduler) error {
	for i := range s.plan.Aliases {
		s.plan.Aliases[i].InPlace = false
	}
	return nil
}

// readsAtOutputIndex reports whether a loop kernel reads input `in` only at
// the position it writes: each map the loop reads it through, laid over the
// input's row-major storage, is the output's own row-major position.
func readsAtOutputIndex(k *Kernel, in int) bool {
	if in >= len(k.Maps) || len(k.Maps[in]) == 0 || k.Loop == nil {
		return false
	}
	for _, m := range k.Maps[in] {
		acc, ok := access(m, in, k.In[in].Shape)
		if !ok || acc.Offset != 0 || !acc.IsLinear(k.Loop.Dims) {
			return false
		}
	}
	return true
}

// writesAfterLastRead reports whether result leaf r may be written over
// parameter leaf p: the kernel producing r runs after every kernel that
// reads p, or is that last reader and reads p only at the position it
// writes (a loop through maps that lay its output index onto the same
// place, one value through the identity map).
func (s *scheduler) writesAfterLastRead(r, p int) bool {
	producer, lastRead := -1, -1
	for ki, k := range s.plan.Kernels {
		for _, in := range k.In {
			for _, b := range leafRoots(in) {
				if b.Kind == Param && b.Param == p {
					lastRead = ki
				}
			}
		}
		for _, b := range leafRoots(k.Out) {
			if b.Kind == Result && b.Result == r {
				producer = ki
			}
		}
	}
	if producer < 0 || producer < lastRead {
		return false
	}
	if producer > lastRead {
		return true
	}
	k := s.plan.Kernels[producer]
	reads := func(in int) bool {
		for _, l := range leafRoots(k.In[in]) {
			if l.Kind == Param && l.Param == p {
				return true
			}
		}
		return false
	}
	switch {
	case k.Kind == Copy && len(k.Values) == 0 && len(k.In) == 1:
		// A parameter passed through: the copy of its own memory.
		root, off := k.In[0].Root()
		return root.Kind == Param && root.Param == p && off == 0 && k.In[0].Size() == root.Size()
	case k.Kind == Loop && k.Loop != nil:
		for in := range k.In {
			if reads(in) && !readsAtOutputIndex(k, in) {
				return false
			}
		}
		return true
	case len(k.Values) == 1 && len(k.Inputs) == len(k.In) && k.Root.Shape.IsArray():
		// One value (a dynamic-update-slice, a scatter, an elementwise op
		// run generically) reading the parameter only at the index it
		// writes: it never reads an element after writing over it.
		v := k.Root
		for i, a := range v.Args {
			in := indexOfValue(k.Inputs, a)
			if in < 0 || !reads(in) {
				continue
			}
			m, ok := operandMap(v, i, identityMap(v.Shape.Dims))
			if !ok || !isIdentityMap(m) || !sameDims(a.Shape.Dims, v.Shape.Dims) ||
				a.Shape.Elem.ByteSize() != v.Shape.Elem.ByteSize() || !a.Shape.HasDefaultLayout() || !v.Shape.HasDefaultLayout() {
				return false
			}
		}
		return true
	}
	return false
}

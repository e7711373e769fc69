package ir

// Clone returns a copy of the module whose computations and instructions are
// new objects, so that their shapes and attributes can be changed without
// touching m. Literals and the pointed-to attribute structures (windows,
// dimension numbers, …) are shared: treat them as immutable and replace
// them rather than edit them.
func (m *Module) Clone() *Module {
	out := &Module{Name: m.Name, Attributes: append([]RawAttribute(nil), m.Attributes...), StackFrames: m.StackFrames}
	if m.EntryLayout != nil {
		l := cloneProgramShape(*m.EntryLayout)
		out.EntryLayout = &l
	}
	comps := make(map[*Computation]*Computation, len(m.Computations))
	ins := map[*Instruction]*Instruction{}
	for _, c := range m.Computations {
		nc := &Computation{Name: c.Name, IsEntry: c.IsEntry, ExecutionThread: c.ExecutionThread}
		comps[c] = nc
		for _, in := range c.Instructions {
			n := *in
			n.Shape = in.Shape.Clone()
			n.Parent = nc
			ins[in] = &n
			nc.Instructions = append(nc.Instructions, &n)
		}
		nc.Parameters = make([]*Instruction, len(c.Parameters))
		for i, p := range c.Parameters {
			nc.Parameters[i] = ins[p]
		}
		nc.Root = ins[c.Root]
		out.Computations = append(out.Computations, nc)
		if c == m.Entry {
			out.Entry = nc
		}
	}
	comp := func(c *Computation) *Computation {
		if c == nil {
			return nil
		}
		if n, ok := comps[c]; ok {
			return n
		}
		return c
	}
	list := func(cs []*Computation) []*Computation {
		if cs == nil {
			return nil
		}
		out := make([]*Computation, len(cs))
		for i, c := range cs {
			out[i] = comp(c)
		}
		return out
	}
	instrs := func(xs []*Instruction) []*Instruction {
		if xs == nil {
			return nil
		}
		out := make([]*Instruction, len(xs))
		for i, x := range xs {
			if n, ok := ins[x]; ok {
				out[i] = n
			} else {
				out[i] = x
			}
		}
		return out
	}
	for _, n := range ins {
		n.Operands = instrs(n.Operands)
		n.ControlPredecessors = instrs(n.ControlPredecessors)
		n.ToApply, n.Condition, n.Body = comp(n.ToApply), comp(n.Condition), comp(n.Body)
		n.Select, n.Scatter, n.Calls = comp(n.Select), comp(n.Scatter), comp(n.Calls)
		n.Branches, n.CalledComputations = list(n.Branches), list(n.CalledComputations)
		n.Raw = append([]RawAttribute(nil), n.Raw...)
	}
	return out
}

func cloneProgramShape(p ProgramShape) ProgramShape {
	return ProgramShape{Parameters: cloneShapes(p.Parameters), ParameterNames: append([]string(nil), p.ParameterNames...), Result: p.Result.Clone()}
}

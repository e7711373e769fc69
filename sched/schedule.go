package sched

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// Options configure Schedule.
type Options struct {
	// NoFusion keeps every value in a kernel of its own (for debugging and
	// for differential tests of the fusion itself).
	NoFusion bool
	// Threads is the number of workers big kernels may be split across.
	Threads int
}

// Schedule plans the entry function of an optimised program, and the region
// functions the runtime runs as subplans of it.
func Schedule(p *ssa.Program, opts Options) (*Plan, error) {
	if opts.Threads <= 0 {
		opts.Threads = 1
	}
	return scheduleFunc(p.Entry, opts)
}

// scheduleFunc plans one function: it assigns buffers, groups values into
// kernels, orders the kernels and places the arena buffers.
func scheduleFunc(f *ssa.Func, opts Options) (*Plan, error) {
	pl := &Plan{Func: f, Values: map[*ssa.Value]*Buffer{}, Subplans: map[*ssa.Func]*Plan{}}
	s := &scheduler{plan: pl, opts: opts}
	leaf := 0
	for i, prm := range f.Params {
		b := s.paramBuffer(prm.Shape, i, &leaf)
		pl.Params = append(pl.Params, b)
		pl.Values[prm] = b
	}
	groups, epilogues := fuse(f, opts.NoFusion)
	for _, v := range f.Values {
		if s.bindWithoutKernel(v) {
			continue
		}
		if g, ok := groups[v]; ok {
			if err := s.addKernel(g, epilogues[v]); err != nil {
				return nil, err
			}
		}
	}
	s.assignResults(f.Root)
	if err := s.subplans(); err != nil {
		return nil, err
	}
	s.order()
	s.liveness()
	s.reuseInPlace()
	s.placeArena()
	return pl, nil
}

type scheduler struct {
	plan *Plan
	opts Options
}

func (s *scheduler) newBuffer(kind BufferKind, shape ir.Shape) *Buffer {
	b := &Buffer{ID: len(s.plan.Buffers), Kind: kind, Shape: shape, First: -1, Last: -1}
	s.plan.Buffers = append(s.plan.Buffers, b)
	return b
}

// paramBuffer makes the buffer of a parameter; tuple parameters become tuples
// of leaf parameter buffers numbered depth first.
func (s *scheduler) paramBuffer(shape ir.Shape, _ int, leaf *int) *Buffer {
	if shape.IsTuple() {
		t := s.newBuffer(Tuple, shape)
		for _, e := range shape.Tuple {
			t.Elems = append(t.Elems, s.paramBuffer(e, 0, leaf))
		}
		return t
	}
	b := s.newBuffer(Param, shape)
	b.Param = *leaf
	*leaf++
	return b
}

// outputBuffer makes fresh arena storage for a value of the given shape.
func (s *scheduler) outputBuffer(shape ir.Shape) *Buffer {
	if shape.IsTuple() {
		t := s.newBuffer(Tuple, shape)
		for _, e := range shape.Tuple {
			t.Elems = append(t.Elems, s.outputBuffer(e))
		}
		return t
	}
	return s.newBuffer(Arena, shape)
}

// bindWithoutKernel gives v its buffer if v needs no kernel: parameters
// (bound already), constants, tuples, tuple elements and reshapes that keep
// the bytes. It reports whether v was handled.
func (s *scheduler) bindWithoutKernel(v *ssa.Value) bool {
	switch {
	case v.Op == ssa.OpParameter:
		return true
	case v.Op == ssa.OpConstant && v.Attrs.Literal != nil:
		b := s.newBuffer(Constant, v.Shape)
		b.Literal = v.Attrs.Literal
		s.plan.Values[v] = b
		return true
	case v.Op == ssa.OpTuple:
		t := s.newBuffer(Tuple, v.Shape)
		for _, a := range v.Args {
			t.Elems = append(t.Elems, s.plan.Values[a])
		}
		s.plan.Values[v] = t
		return true
	case v.Op == ssa.OpGetTupleElement:
		s.plan.Values[v] = s.plan.Values[v.Args[0]].Elems[v.Attrs.TupleIndex]
		return true
	case isByteReinterpretation(v):
		of, ok := s.plan.Values[v.Args[0]]
		if !ok {
			return true // computed only inside the kernels that read it
		}
		b := s.newBuffer(Alias, v.Shape)
		b.Of = of
		s.plan.Values[v] = b
		return true
	}
	return false
}

// needsNoKernel mirrors bindWithoutKernel's cases.
func needsNoKernel(v *ssa.Value) bool {
	return v.Op == ssa.OpParameter || (v.Op == ssa.OpConstant && v.Attrs.Literal != nil) ||
		v.Op == ssa.OpTuple || v.Op == ssa.OpGetTupleElement || isByteReinterpretation(v)
}

// isByteReinterpretation reports whether v's result has exactly its
// operand's bytes: a reshape or bitcast between default-layout arrays of the
// same element type and size.
func isByteReinterpretation(v *ssa.Value) bool {
	if v.Op != ssa.OpReshape && v.Op != ssa.OpBitcast {
		return false
	}
	a := v.Args[0].Shape
	return a.IsArray() && v.Shape.IsArray() && a.Elem == v.Shape.Elem &&
		a.HasDefaultLayout() && v.Shape.HasDefaultLayout() && a.ElementCount() == v.Shape.ElementCount() &&
		a.IsStatic() && v.Shape.IsStatic()
}

// addKernel creates the kernel of one group of values.
func (s *scheduler) addKernel(g []*ssa.Value, stages []EpilogueStage) error {
	root := g[len(g)-1]
	k := &Kernel{Kind: kindOf(root), Root: root, Values: g, Parallel: 1}
	if stages != nil {
		k.Epilogue = stages
		for _, v := range g {
			switch v.Op {
			case ssa.OpDot:
				k.Kind, k.Main = Dot, v
			case ssa.OpConvolution:
				k.Kind, k.Main = Conv, v
			}
		}
	}
	inGroup := map[*ssa.Value]bool{}
	for _, v := range g {
		inGroup[v] = true
	}
	seen := map[*ssa.Value]bool{}
	for _, v := range g {
		for _, a := range v.Args {
			if inGroup[a] || seen[a] {
				continue
			}
			seen[a] = true
			b, ok := s.plan.Values[a]
			if !ok {
				return fmt.Errorf("sched: %v (%s) reads %v (%s), which has no buffer", v, v.Op, a, a.Op)
			}
			k.Inputs = append(k.Inputs, a)
			k.In = append(k.In, b)
		}
	}
	k.Out = s.outputBuffer(root.Shape)
	s.plan.Values[root] = k.Out
	if k.Kind == Loop || (k.Kind == Reduce && len(g) > 1) {
		lp, err := buildLoop(k)
		if err != nil {
			k.Kind = Generic
		} else {
			k.Loop = lp
		}
	}
	s.plan.Kernels = append(s.plan.Kernels, k)
	return nil
}

// kindOf is the kernel kind that executes a single value.
func kindOf(v *ssa.Value) KernelKind {
	switch {
	case v.Op == ssa.OpDot:
		return Dot
	case v.Op == ssa.OpConvolution:
		return Conv
	case v.Op == ssa.OpReduce:
		return Reduce
	case v.Op == ssa.OpSoftmax:
		return Softmax
	case v.Op == ssa.OpLayerNorm:
		return LayerNorm
	case v.Op == ssa.OpWhile:
		return While
	case v.Op == ssa.OpConditional:
		return Conditional
	case v.Op == ssa.OpCopy:
		return Copy
	case v.Op.IsElementwise() && v.Op != ssa.OpMap,
		v.Op == ssa.OpBroadcast, v.Op == ssa.OpTranspose, v.Op == ssa.OpIota,
		v.Op == ssa.OpReshape, v.Op == ssa.OpSlice, v.Op == ssa.OpConstant:
		return Loop
	}
	return Generic
}

// assignResults turns the root's leaf buffers into the caller's result
// buffers, adding a copy kernel for any leaf whose memory the caller does
// not own: parameters, constants, aliases and leaves repeated in the root.
func (s *scheduler) assignResults(root *ssa.Value) {
	var leaves []*Buffer
	var collect func(b *Buffer)
	collect = func(b *Buffer) {
		if b.Kind == Tuple {
			for _, e := range b.Elems {
				collect(e)
			}
			return
		}
		leaves = append(leaves, b)
	}
	collect(s.plan.Values[root])
	taken := map[*Buffer]bool{}
	for i, b := range leaves {
		if b.Kind == Arena && !taken[b] {
			b.Kind, b.Result = Result, i
			taken[b] = true
			s.plan.Results = append(s.plan.Results, b)
			continue
		}
		out := s.newBuffer(Result, b.Shape)
		out.Result = i
		s.plan.Kernels = append(s.plan.Kernels, &Kernel{Kind: Copy, Root: root, In: []*Buffer{b}, Out: out, Parallel: 1})
		s.plan.Results = append(s.plan.Results, out)
	}
}

// subplans schedules the functions of while and conditional kernels.
func (s *scheduler) subplans() error {
	for _, k := range s.plan.Kernels {
		if k.Kind != While && k.Kind != Conditional {
			continue
		}
		for _, g := range k.Root.Funcs {
			if _, done := s.plan.Subplans[g]; done {
				continue
			}
			sp, err := scheduleFunc(g, s.opts)
			if err != nil {
				return fmt.Errorf("region %s: %w", g.Name, err)
			}
			s.plan.Subplans[g] = sp
		}
	}
	return nil
}

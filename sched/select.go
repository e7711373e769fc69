package sched

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// selectKernels is the select stage: it gives every value its buffer —
// parameters, constants, tuples, aliases for reshapes that keep the bytes,
// a fresh arena buffer for each kernel's result — binds each kernel's inputs
// and output, decides how each kernel runs (decide), turns the root's
// leaves into the caller's result buffers and schedules the subplans.
func selectKernels(s *scheduler) error {
	pl, f := s.plan, s.plan.Func
	leaf := 0
	for _, prm := range f.Params {
		b := s.paramBuffer(prm.Shape, &leaf)
		pl.Params = append(pl.Params, b)
		pl.Values[prm] = b
	}
	byRoot := make(map[*ssa.Value]*Kernel, len(pl.Kernels))
	for _, k := range pl.Kernels {
		byRoot[k.Root] = k
	}
	for _, v := range f.Values {
		if s.bindWithoutKernel(v) {
			continue
		}
		k, ok := byRoot[v]
		if !ok {
			continue
		}
		if err := s.bind(k); err != nil {
			return err
		}
		s.decide(k)
	}
	s.assignResults(f.Root)
	s.dequantWeights()
	return s.subplans()
}

// paramBuffer makes the buffer of a parameter; tuple parameters become tuples
// of leaf parameter buffers numbered depth first.
func (s *scheduler) paramBuffer(shape ir.Shape, leaf *int) *Buffer {
	if shape.IsTuple() {
		t := s.newBuffer(Tuple, shape)
		for _, e := range shape.Tuple {
			t.Elems = append(t.Elems, s.paramBuffer(e, leaf))
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

// bind sets a kernel's inputs (the values it reads from outside, with their
// buffers) and gives its root a fresh output buffer.
func (s *scheduler) bind(k *Kernel) error {
	inGroup := make(map[*ssa.Value]bool, len(k.Values))
	for _, v := range k.Values {
		inGroup[v] = true
	}
	seen := map[*ssa.Value]bool{}
	for _, v := range k.Values {
		for _, a := range v.Args {
			if inGroup[a] || seen[a] {
				continue
			}
			seen[a] = true
			b, ok := s.plan.Values[a]
			if !ok {
				return fmt.Errorf("%v (%s) reads %v (%s), which has no buffer", v, v.Op, a, a.Op)
			}
			k.Inputs = append(k.Inputs, a)
			k.In = append(k.In, b)
		}
	}
	k.Out = s.outputBuffer(k.Root.Shape)
	s.plan.Values[k.Root] = k.Out
	return nil
}

// decide records how kernel k runs: the loop program of a loop or of a
// reduction that computes its operand (and the maps it reads its inputs
// through), the GEMM of a dot, the algorithm of a convolution, the reducer
// of a reduction.
func (s *scheduler) decide(k *Kernel) {
	k.Parallel = 1
	if k.Kind == Loop || (k.Kind == Reduce && len(k.Values) > 1) {
		lp, maps, err := buildLoop(k, s.cls)
		if err != nil {
			k.Kind = Generic
		} else {
			k.Loop, k.Maps = lp, maps
		}
	}
	switch k.Kind {
	case Dot:
		if k.Gemm != nil {
			s.packB(k)
		}
	case Conv:
		k.Conv = convPlanOf(k.Main)
		if k.Conv != nil && len(k.Main.Args) == 2 && slices.Contains(k.Values, k.Main.Args[1]) {
			_, k.Conv.Weights, _, k.Conv.Scale, _ = weightScale(k.Main, s.plan.Func.Users())
		}
	case Reduce:
		if len(k.Root.Funcs) == 1 {
			k.Reducer, _ = standardReducer(k.Root.Funcs[0])
		}
	}
}

// packB decides whether a dot kernel's B is packed once at compile time:
// a constant, read dense and whole, of an unbatched float32 or narrow
// product. A narrow floating B that is not packed is widened with A for the
// float32 GEMM when it is binary16 or A has few rows (GemmPlan.Widen).
func (s *scheduler) packB(k *Kernel) {
	g := k.Gemm
	b, ok := s.plan.Values[g.B.Value]
	if !ok {
		return
	}
	root, _ := b.Root()
	bt := g.B.Value.Shape.Elem
	g.PackB = (k.Main.Shape.Elem == ir.F32 || g.Narrow) && g.Batch == 1 && root.Kind == Constant && g.K > 0 && g.N > 0
	if g.Narrow && !g.PackB {
		g.Widen = bt == ir.F16 || bt == ir.BF16 && g.M < NarrowPackRows
	}
}

// assignResults turns the root's leaf buffers into the caller's result
// buffers: an arena buffer becomes the result, and so does the arena buffer
// a leaf aliases whole (a reshape of a kernel's output: the kernel then
// writes the result). A copy kernel fills every other leaf whose memory the
// caller does not own: parameters, constants, parts of buffers and leaves
// repeated in the root.
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
		if root, off := b.Root(); b.Kind == Alias && root.Kind == Arena && off == 0 && root.Size() == b.Size() && !taken[root] {
			out := s.newBuffer(Result, b.Shape)
			out.Result = i
			root.Kind, root.Of, root.Offset = Alias, out, 0
			taken[root], taken[out] = true, true
			s.plan.Results = append(s.plan.Results, out)
			continue
		}
		out := s.newBuffer(Result, b.Shape)
		out.Result = i
		s.plan.Kernels = append(s.plan.Kernels, &Kernel{Kind: Copy, Root: root, In: []*Buffer{b}, Out: out, Parallel: 1})
		s.plan.Results = append(s.plan.Results, out)
	}
}

// subplans schedules the functions of while and conditional kernels; a
// while body may write each state element over the old one (its plan's
// aliases pair result leaf i with parameter leaf i).
func (s *scheduler) subplans() error {
	for _, k := range s.plan.Kernels {
		if k.Kind != While && k.Kind != Conditional {
			continue
		}
		for i, g := range k.Root.Funcs {
			if _, done := s.plan.Subplans[g]; done {
				continue
			}
			var role funcRole
			if k.Kind == While && i == 1 {
				role.aliases = stateAliases(g)
			}
			sp, err := scheduleFunc(g, s.opts, role)
			if err != nil {
				return fmt.Errorf("region %s: %w", g.Name, err)
			}
			s.plan.Subplans[g] = sp
		}
	}
	return nil
}

// stateAliases pairs each array leaf of a while body's result with the
// parameter leaf of the same index.
func stateAliases(body *ssa.Func) []ResultAlias {
	n := 0
	for _, p := range body.Params {
		n += countLeaves(p.Shape)
	}
	aliases := make([]ResultAlias, n)
	for i := range aliases {
		aliases[i] = ResultAlias{Result: i, Param: i}
	}
	return aliases
}

func countLeaves(s ir.Shape) int {
	if !s.IsTuple() {
		return 1
	}
	n := 0
	for _, e := range s.Tuple {
		n += countLeaves(e)
	}
	return n
}

package sched

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// maxFusedOps bounds the program of one fused loop (the runtime evaluates
// at most this many ops per element).
const maxFusedOps = 64

// fusion is the fusion stage: it groups f's values into kernels (fuse) and
// creates the plan's kernels, in f's order, each with its kind, its values
// and, for dots and convolutions, the fused epilogue.
func fusion(s *scheduler) error { s.makeKernels(false); return nil }

// noFusion replaces the fusion stage when it is disabled: every value that
// needs a kernel gets one of its own.
func noFusion(s *scheduler) error { s.makeKernels(true); return nil }

func (s *scheduler) makeKernels(noFuse bool) {
	f := s.plan.Func
	groups, epilogues, gemms, attns := fuse(f, s.cls, noFuse)
	for _, v := range f.Values {
		g, ok := groups[v]
		if !ok || needsNoKernel(v) {
			continue
		}
		k := &Kernel{Kind: kindOf(v, s.cls), Root: v, Values: g, Parallel: 1}
		if k.Kind == Dot || k.Kind == Conv {
			k.Main = v
		}
		if st := epilogues[v]; st != nil {
			k.Epilogue = st
			for _, w := range g {
				switch w.Op {
				case ssa.OpDot:
					k.Kind, k.Main = Dot, w
				case ssa.OpConvolution:
					k.Kind, k.Main = Conv, w
				}
			}
		}
		if a := attns[v]; a != nil {
			k.Kind, k.Attn = Attention, a
		}
		if k.Kind == Dot {
			k.Gemm = gemms[v]
			if k.Gemm == nil {
				k.Gemm, _ = gemmOperands(k.Main, s.cls, true)
			}
		}
		s.plan.Kernels = append(s.plan.Kernels, k)
	}
}

// fuser decides the kernels of one function. It visits values from the
// last to the first, so that every value is seen after all its users: a
// value becomes the root of a kernel when some user reads it from memory
// (or it is the function's result), and each new kernel then absorbs the
// producers it can compute on the fly.
type fuser struct {
	f       *ssa.Func
	cls     classes
	users   map[*ssa.Value][]*ssa.Value
	groupOf map[*ssa.Value]*group // the kernel computing each value as its root
	// inside[v] lists the kernels that compute v internally (fused, not
	// materialised).
	inside map[*ssa.Value][]*group
	noFuse bool
}

type group struct {
	root    *ssa.Value
	members map[*ssa.Value]bool
	stages  []EpilogueStage // Dot kernels: the fused epilogue, in order
	gemm    *GemmPlan       // Dot kernels: how the GEMM reads its operands
	attn    *AttentionPlan  // Attention kernels
}

// fuse returns the kernels of f: for each kernel root, the values it
// computes, in f's order (root last), and the epilogues and GEMM plans of
// dot kernels. With noFuse every value that needs a kernel gets one of its
// own.
func fuse(f *ssa.Func, cls classes, noFuse bool) (map[*ssa.Value][]*ssa.Value, map[*ssa.Value][]EpilogueStage, map[*ssa.Value]*GemmPlan, map[*ssa.Value]*AttentionPlan) {
	fu := &fuser{f: f, cls: cls, users: f.Users(), groupOf: map[*ssa.Value]*group{}, inside: map[*ssa.Value][]*group{}, noFuse: noFuse}
	for i := len(f.Values) - 1; i >= 0; i-- {
		v := f.Values[i]
		if needsNoKernel(v) || !fu.materialised(v) {
			continue
		}
		g := &group{root: v, members: map[*ssa.Value]bool{v: true}}
		fu.groupOf[v] = g
		if noFuse {
			continue
		}
		if v.Op == ssa.OpDot {
			if plan, inside := fu.matchAttention(v); plan != nil {
				g.attn = plan
				for _, w := range inside {
					fu.absorb(g, w)
				}
				continue
			}
			fu.readOperandsInPlace(g, v)
			continue
		}
		if v.Op == ssa.OpConvolution {
			fu.absorbWeightScale(g, v)
		}
		if dot, stages, through, ok := matchEpilogue(v, fu.users); ok {
			fu.absorb(g, dot)
			if dot.Op == ssa.OpDot {
				fu.readOperandsInPlace(g, dot)
			} else {
				fu.absorbWeightScale(g, dot)
			}
			for _, r := range through {
				fu.absorb(g, r)
			}
			for _, st := range stages {
				if st.Value != v {
					fu.absorb(g, st.Value)
				}
				if st.Extra != nil {
					fu.absorb(g, st.Extra)
				}
				for _, a := range st.Value.Args {
					if a.Op == ssa.OpBroadcast && a != st.Operand {
						fu.absorb(g, a) // the bias or zero broadcast: read through, never materialised
					}
				}
			}
			g.stages = stages
			continue
		}
		switch {
		case kindOf(v, fu.cls) == Loop:
			fu.growLoop(g)
		case fusibleReduce(v) && fu.fusibleIntoLoop(v.Args[0]) && (fu.cheapToRecompute(v.Args[0]) || len(fu.users[v.Args[0]]) == 1):
			// Input fusion: the reduce computes its operand on the fly.
			fu.absorb(g, v.Args[0])
			if !fu.loopDerives(g) {
				delete(g.members, v.Args[0])
				fu.inside[v.Args[0]] = fu.inside[v.Args[0]][:len(fu.inside[v.Args[0]])-1]
				break
			}
			fu.growLoop(g)
		}
	}
	kernels := map[*ssa.Value][]*ssa.Value{}
	epilogues := map[*ssa.Value][]EpilogueStage{}
	gemms := map[*ssa.Value]*GemmPlan{}
	attns := map[*ssa.Value]*AttentionPlan{}
	for _, v := range f.Values {
		for _, g := range fu.inside[v] {
			kernels[g.root] = append(kernels[g.root], v)
		}
		if g, ok := fu.groupOf[v]; ok {
			kernels[v] = append(kernels[v], v)
			if g.stages != nil {
				epilogues[v] = g.stages
			}
			if g.gemm != nil {
				gemms[v] = g.gemm
			}
			if g.attn != nil {
				attns[v] = g.attn
			}
		}
	}
	return kernels, epilogues, gemms, attns
}

// materialised reports whether v must be computed into a buffer: it is the
// function's result, a user reads it outside any kernel that computes it,
// or it has side effects.
func (fu *fuser) materialised(v *ssa.Value) bool {
	if v == fu.f.Root || v.Op.HasSideEffect() {
		return true
	}
	for _, u := range fu.users[v] {
		switch {
		case isByteReinterpretation(u):
			// A reshape that keeps the bytes is free: it aliases v when
			// something reads it from memory, and is computed inside the
			// kernels that absorbed it otherwise.
			if fu.materialised(u) || !fu.computesInside(u, v) {
				return true
			}
		case needsNoKernel(u):
			return true // a tuple or tuple element holds v's buffer
		case !fu.computesInside(u, v):
			return true
		}
	}
	return false
}

// computesInside reports whether the kernel that computes user u (as root
// or inside) also computes v inside it.
func (fu *fuser) computesInside(u, v *ssa.Value) bool {
	for _, g := range fu.kernelsOf(u) {
		if !g.members[v] || g.root == v {
			return false
		}
	}
	return len(fu.kernelsOf(u)) > 0
}

func (fu *fuser) kernelsOf(v *ssa.Value) []*group {
	gs := fu.inside[v]
	if g, ok := fu.groupOf[v]; ok {
		gs = append(append([]*group(nil), gs...), g)
	}
	return gs
}

// growLoop absorbs into a loop kernel the producers it can compute on the
// fly: elementwise and index-mapping values whose every user is already in
// the kernel, and cheap data movement (broadcasts, iotas, transposes,
// slices) even when other kernels read it too. A producer joins only if the
// loop program still derives (every access strided) and stays small.
func (fu *fuser) growLoop(g *group) {
	for changed := true; changed; {
		changed = false
		for m := range g.members {
			if m.Op == ssa.OpReduce {
				continue // its operand joins explicitly; its init is read from memory
			}
			for _, a := range m.Args {
				if g.members[a] || !fu.fusibleIntoLoop(a) {
					continue
				}
				if !fu.cheapToRecompute(a) && (!fu.allUsersIn(a, g) || fu.repeated(g, a)) {
					continue
				}
				g.members[a] = true
				if !fu.loopDerives(g) {
					delete(g.members, a)
					continue
				}
				delete(g.members, a)
				fu.absorb(g, a)
				changed = true
			}
		}
	}
}

// readOperandsInPlace decides how dot kernel g's GEMM reads its operands
// and computes inside the kernel the values it reads through (transposes
// and reshapes to the heads' layout, a scale by a splat), which then need
// no memory of their own.
func (fu *fuser) readOperandsInPlace(g *group, dot *ssa.Value) {
	plan, chain := gemmOperands(dot, fu.cls, false)
	g.gemm = plan
	for _, c := range chain {
		fu.absorb(g, c)
	}
}

// repeated reports whether a loop computing v inside kernel g would compute
// each of v's elements more than once: v has fewer elements than the index
// space the loop runs over, so it is read through a broadcast. Arithmetic
// is then left to a kernel over v's own elements (batch-norm's
// per-channel rsqrt once per channel, not once per pixel).
func (fu *fuser) repeated(g *group, v *ssa.Value) bool {
	return v.Shape.ElementCount() < loopRoot(g.root).Shape.ElementCount()
}

// absorb makes v part of kernel g (computed inside it).
func (fu *fuser) absorb(g *group, v *ssa.Value) {
	if !g.members[v] {
		g.members[v] = true
		fu.inside[v] = append(fu.inside[v], g)
	}
}

func (fu *fuser) allUsersIn(v *ssa.Value, g *group) bool {
	for _, u := range fu.users[v] {
		if !g.members[u] {
			return false
		}
	}
	return true
}

// loopDerives checks that the group's loop program can be built.
func (fu *fuser) loopDerives(g *group) bool {
	k := &Kernel{Root: g.root}
	for _, v := range fu.f.Values {
		if g.members[v] {
			k.Values = append(k.Values, v)
		}
	}
	seen := map[*ssa.Value]bool{}
	for _, v := range k.Values {
		for _, a := range v.Args {
			if !g.members[a] && !seen[a] {
				seen[a] = true
				k.Inputs = append(k.Inputs, a)
			}
		}
	}
	lp, _, err := buildLoop(k, fu.cls)
	return err == nil && len(lp.Ops) <= maxFusedOps
}

// fusibleReduce reports whether a reduce can compute its operand inside its
// kernel: one float32 operand folded by a standard reducer.
func fusibleReduce(v *ssa.Value) bool {
	if v.Op != ssa.OpReduce || len(v.Args) != 2 || v.Shape.Elem != ir.F32 || len(v.Funcs) != 1 {
		return false
	}
	_, ok := standardReducer(v.Funcs[0])
	return ok
}

// fusibleIntoLoop reports whether v can be computed inside a loop kernel:
// a reshape that keeps the bytes, or any value of an elementwise, movement
// or generator class.
func (fu *fuser) fusibleIntoLoop(v *ssa.Value) bool {
	if isByteReinterpretation(v) {
		return true
	}
	if needsNoKernel(v) {
		return false
	}
	return kindOf(v, fu.cls) == Loop
}

// cheapToRecompute reports whether recomputing v in every kernel that reads
// it costs no arithmetic: movement (a loop reads through it by its strides)
// and generators (computed from the index).
func (fu *fuser) cheapToRecompute(v *ssa.Value) bool {
	c := fu.cls.of(v)
	return c == Movement || c == Generator
}

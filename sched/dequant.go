package sched

// Weight-only int8: the pattern JAX emits for int8 weights with a scale per
// output channel,
//
//	w = convert(w_s8) · broadcast(scale)      (f32, the scale along N)
//	y = dot(x, w)                              (f32)
//
// with w_s8 and scale constants. The select stage marks the loop that
// dequantises the weights and the dots that read them with one
// DequantPlan: the runtime packs the int8 weights with their scales once,
// the loop writes nothing and the dots (with their bias and activation
// epilogue) multiply by the int8 weights, widened in registers, each
// column's sum scaled once — the dequantised dot reassociated, within its
// rounding.

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// DequantPlan is a matrix of int8 weights scaled per column, op(W)·diag(s)
// (k×n), which the dots reading it multiply by directly.
type DequantPlan struct {
	K, N int
	// Weights is the constant int8 W, read from element WeightsOffset with
	// leading dimension LDW, transposed when TransW.
	Weights       *Buffer
	WeightsOffset int
	TransW        bool
	LDW           int
	// Scale is the constant float32 buffer of the n column scales, from
	// element ScaleOffset; or, when nil, ScaleScalar is the one scale of
	// every column.
	Scale       *Buffer
	ScaleOffset int
	ScaleScalar *ir.Literal
}

// String prints the plan for dumps: dequant-s8(k=768 n=3072 tw).
func (d *DequantPlan) String() string {
	s := fmt.Sprintf("dequant-s8(k=%d n=%d", d.K, d.N)
	if d.TransW {
		s += " tw"
	}
	return s + ")"
}

// throughReshapes follows byte-keeping reshapes down to the value they
// reinterpret.
func throughReshapes(v *ssa.Value) *ssa.Value {
	for (v.Op == ssa.OpReshape || v.Op == ssa.OpBitcast) && len(v.Args) == 1 && v.Shape.Elem == v.Args[0].Shape.Elem &&
		v.Shape.IsArray() && v.Args[0].Shape.IsArray() && v.Shape.HasDefaultLayout() && v.Args[0].Shape.HasDefaultLayout() {
		v = v.Args[0]
	}
	return v
}

// dequantWeights finds the dequantising loops whose every reader is a dot
// that can take the int8 weights, and marks the loop and its dots.
func (s *scheduler) dequantWeights() {
	for _, k := range s.plan.Kernels {
		if k.Kind != Loop || k.Loop == nil {
			continue
		}
		readers := s.dequantReaders(k)
		if readers == nil {
			continue
		}
		if d := dequantOf(k, readers[0].Gemm); d != nil {
			k.Dequant = d
			for _, r := range readers {
				r.Dequant = d
			}
		}
	}
}

// dequantReaders returns the kernels that read loop kernel k's value
// (directly or through reshapes), provided there are some and every one is
// a float32 dot of static shapes whose GEMM plan reads the value whole as
// its unbatched, unscaled B of one shape, with an epilogue of a bias and
// an activation at most; nil otherwise.
func (s *scheduler) dequantReaders(k *Kernel) []*Kernel {
	v := k.Root
	if root, _ := k.Out.Root(); root.Kind != Arena || v.Shape.Elem != ir.F32 {
		return nil // a result must be written
	}
	var readers []*Kernel
	for _, r := range s.plan.Kernels {
		reads := false
		for _, in := range r.Inputs {
			if throughReshapes(in) == v {
				reads = true
			}
		}
		if !reads {
			continue
		}
		g := r.Gemm
		if r.Kind != Dot || g == nil || g.Narrow || r.Main.Shape.Elem != ir.F32 || g.A.Value.Shape.Elem != ir.F32 ||
			throughReshapes(g.B.Value) != v || throughReshapes(g.A.Value) == v || g.Batch != 1 || g.Alpha != 1 ||
			g.B.Offset != 0 || g.B.Value.Shape.ElementCount() != g.K*g.N {
			return nil
		}
		if f := readers; len(f) > 0 && (f[0].Gemm.K != g.K || f[0].Gemm.N != g.N || f[0].Gemm.TransB != g.TransB) {
			return nil
		}
		if r.Root.Shape.IsDynamic() || slices.ContainsFunc(r.Inputs, func(in *ssa.Value) bool { return in.Shape.IsDynamic() }) {
			return nil // sized at run time: each size has its own plan
		}
		for _, st := range r.Epilogue {
			switch st.Kind {
			case EpilogueBias, EpilogueReLU, EpilogueGelu:
			default:
				return nil
			}
		}
		readers = append(readers, r)
	}
	return readers
}

// dequantOf recognises loop kernel k as convert(w_s8)·scale with constant
// w_s8 and scale (a scalar, or one per column of op(B) as the dots of g
// read it), or returns nil.
func dequantOf(k *Kernel, g *GemmPlan) *DequantPlan {
	lp := k.Loop
	if len(lp.Ops) < 3 || len(lp.Ops) > 4 {
		return nil
	}
	// The loop's index space as [rows, cols] of op(B): [K, N], or [N, K]
	// when the dots read B transposed.
	var dims []int
	for _, n := range lp.Dims {
		if n != 1 {
			dims = append(dims, n)
		}
	}
	rows, cols := g.K, g.N
	if g.TransB {
		rows, cols = g.N, g.K
	}
	if len(dims) != 2 || dims[0] != rows || dims[1] != cols {
		return nil
	}
	// Two strides per access, over the two non-unit dimensions.
	strides := func(a *Access) (int, int) {
		var s []int
		for i, n := range lp.Dims {
			if n != 1 {
				s = append(s, a.Strides[i])
			}
		}
		return s[0], s[1]
	}
	mul := lp.Ops[len(lp.Ops)-1]
	if mul.Op != ssa.OpMultiply || len(mul.Args) != 2 {
		return nil
	}
	var w, scale *LoopOp
	for _, a := range mul.Args {
		op := &lp.Ops[a]
		switch {
		case op.Op == ssa.OpConvert && op.Type == ir.F32 && lp.Ops[op.Args[0]].Op == ssa.OpParameter && lp.Ops[op.Args[0]].Type == ir.S8:
			w = &lp.Ops[op.Args[0]]
		case op.Type == ir.F32 && (op.Op == ssa.OpParameter || op.Op == ssa.OpConstant):
			scale = op
		}
	}
	if w == nil || scale == nil {
		return nil
	}
	d := &DequantPlan{K: g.K, N: g.N, Weights: k.In[w.Access.Input], WeightsOffset: w.Access.Offset}
	if root, _ := d.Weights.Root(); root.Kind != Constant {
		return nil
	}
	// W(p, j) at sp·p + sj·j: row-major W (sj = 1) or Wᵀ (sp = 1).
	s0, s1 := strides(w.Access)
	sp, sj := s0, s1
	if g.TransB {
		sp, sj = s1, s0
	}
	switch {
	case sj == 1 && sp >= g.N:
		d.LDW = sp
	case sp == 1 && sj >= g.K:
		d.TransW, d.LDW = true, sj
	default:
		return nil
	}
	if scale.Op == ssa.OpConstant {
		d.ScaleScalar = scale.Scalar
		return d
	}
	d.Scale, d.ScaleOffset = k.In[scale.Access.Input], scale.Access.Offset
	if root, _ := d.Scale.Root(); root.Kind != Constant {
		return nil
	}
	t0, t1 := strides(scale.Access)
	tp, tj := t0, t1
	if g.TransB {
		tp, tj = t1, t0
	}
	if tp != 0 || (tj != 1 && g.N > 1) {
		return nil
	}
	return d
}

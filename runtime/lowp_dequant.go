package runtime

// Weight-only int8: the pattern JAX emits for int8 weights with a scale per
// output channel,
//
//	w = convert(w_s8) · broadcast(scale)      (f32, the scale along N)
//	y = dot(x, w)                              (f32)
//
// with w_s8 and scale known at compile time, runs on GemmF32S8: the
// weights stay int8 (packed once with their scales), the product widens
// them in registers and scales each column's sum once — the dequantised
// dot reassociated, within its rounding. The loop that would dequantise the
// weights into memory does nothing; the dots that read them (with their
// bias and activation epilogue) take the packed int8 weights instead.

import (
	"fmt"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// lowpState is what the narrow-type paths decided while compiling one
// module: the dequantised weights whose dots run on the int8 weights.
type lowpState struct {
	dequant map[*ssa.Value]*kiln.PackedS8Weights
}

// dequantStep is the dequantising loop, left to the dots that read its
// weights in int8.
type dequantStep struct{}

func (dequantStep) name() string      { return "dequantize-deferred" }
func (dequantStep) exec(*frame) error { return nil }

// throughReshapes follows byte-keeping reshapes down to the value they
// reinterpret.
func throughReshapes(v *ssa.Value) *ssa.Value {
	for (v.Op == ssa.OpReshape || v.Op == ssa.OpBitcast) && len(v.Args) == 1 && v.Shape.Elem == v.Args[0].Shape.Elem &&
		v.Shape.IsArray() && v.Args[0].Shape.IsArray() && v.Shape.HasDefaultLayout() && v.Args[0].Shape.HasDefaultLayout() {
		v = v.Args[0]
	}
	return v
}

// dequantReaders returns the kernels of plan that read value v (directly
// or through reshapes), provided every one is a float32 dot whose GEMM plan
// reads v whole as its unbatched, unscaled B, with an epilogue GemmF32S8
// applies.
func dequantReaders(plan *sched.Plan, v *ssa.Value) ([]*sched.Kernel, bool) {
	var readers []*sched.Kernel
	for _, k := range plan.Kernels {
		reads := false
		for _, in := range k.Inputs {
			if throughReshapes(in) == v {
				reads = true
			}
		}
		if !reads {
			continue
		}
		gp := k.Gemm
		if k.Kind != sched.Dot || gp == nil || k.Main.Shape.Elem != ir.F32 || gp.A.Value.Shape.Elem != ir.F32 ||
			throughReshapes(gp.B.Value) != v || throughReshapes(gp.A.Value) == v || gp.Batch != 1 || gp.Alpha != 1 ||
			gp.B.Offset != 0 || gp.B.Value.Shape.ElementCount() != gp.K*gp.N {
			return nil, false
		}
		for _, st := range k.Epilogue {
			switch st.Kind {
			case sched.EpilogueBias, sched.EpilogueReLU, sched.EpilogueGelu:
			default:
				return nil, false
			}
		}
		readers = append(readers, k)
	}
	return readers, len(readers) > 0
}

// dequantLoop recognises a Loop kernel computing convert(w_s8)·scale with
// constant w_s8 and scale, read only by dots that can take it in int8, and
// packs the weights for them.
func (c *compiler) dequantLoop(plan *sched.Plan, k *sched.Kernel) step {
	lp := k.Loop
	v := k.Root
	if lp == nil || v.Shape.Elem != ir.F32 || len(lp.Ops) < 3 || len(lp.Ops) > 4 || v == plan.Func.Root {
		return nil
	}
	readers, ok := dequantReaders(plan, v)
	if !ok {
		return nil
	}
	g := readers[0].Gemm.GemmShape
	for _, r := range readers[1:] {
		if r.Gemm.K != g.K || r.Gemm.N != g.N || r.Gemm.TransB != g.TransB {
			return nil
		}
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
	strides := func(a *sched.Access) (int, int) {
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
	var w, scale *sched.LoopOp
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
	wBuf := k.In[w.Access.Input]
	wl := c.loc(wBuf)
	if wl.kind != sched.Constant || w.Access.Offset != 0 {
		return nil
	}
	// W(p, j) at sp·p + sj·j: row-major W (sj = 1) or Wᵀ (sp = 1).
	s0, s1 := strides(w.Access)
	sp, sj := s0, s1
	if g.TransB {
		sp, sj = s1, s0
	}
	var transW bool
	var ldw int
	switch {
	case sj == 1 && sp >= g.N:
		ldw = sp
	case sp == 1 && sj >= g.K:
		transW, ldw = true, sj
	default:
		return nil
	}
	sc := make([]float32, g.N)
	switch scale.Op {
	case ssa.OpConstant:
		var f [1]float64
		ops.LoadFloats(f[:], scale.Scalar.Bytes(), ir.F32, 0)
		for i := range sc {
			sc[i] = float32(f[0])
		}
	default:
		sl := c.loc(k.In[scale.Access.Input])
		if sl.kind != sched.Constant {
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
		copy(sc, ops.Elems[float32](sl.data)[scale.Access.Offset:scale.Access.Offset+g.N])
	}
	wData := ops.Elems[int8](wl.data)
	if c.lowp.dequant == nil {
		c.lowp.dequant = map[*ssa.Value]*kiln.PackedS8Weights{}
	}
	c.lowp.dequant[v] = kiln.PackS8Weights(transW, g.K, g.N, wData, ldw, sc)
	c.notePacked(c.lowp.dequant[v].Bytes())
	return dequantStep{}
}

// s8WeightsStep is a float32 dot of int8 weights (GemmF32S8).
type s8WeightsStep struct {
	g       sched.GemmShape
	a, c    loc
	aOff    int // A's first element
	lda     int
	w       *kiln.PackedS8Weights
	bias    loc
	hasBias bool
	act     kiln.Activation
}

// s8WeightsDot compiles a dot whose B the dequantising loop left in int8.
func (c *compiler) s8WeightsDot(k *sched.Kernel) (step, error) {
	gp := k.Gemm
	if k.Kind != sched.Dot || gp == nil {
		return nil, nil
	}
	w, ok := c.lowp.dequant[throughReshapes(gp.B.Value)]
	if !ok {
		return nil, nil
	}
	g := gp.GemmShape
	if g.Batch != 1 || g.K != w.K() || g.N != w.N() {
		return nil, fmt.Errorf("dot of int8 weights: shape %+v does not match the packed %d×%d weights", g, w.K(), w.N())
	}
	s := &s8WeightsStep{g: g, a: c.loc(inputBuffer(k, gp.A.Value)), aOff: gp.A.Offset, c: c.loc(k.Out), w: w, lda: max(gp.A.LD, 1)}
	for _, st := range k.Epilogue {
		switch st.Kind {
		case sched.EpilogueBias:
			s.bias, s.hasBias = c.loc(inputBuffer(k, st.Operand)), true
		case sched.EpilogueReLU:
			s.act = kiln.ActReLU
		case sched.EpilogueGelu:
			s.act = kiln.ActGeluErf
			if st.Value.Aux == ssa.GeluTanh {
				s.act = kiln.ActGeluTanh
			}
		default:
			return nil, fmt.Errorf("dot of int8 weights: epilogue stage %d has no implementation", st.Kind)
		}
	}
	return s, nil
}

func (s *s8WeightsStep) name() string { return "gemm-s8-weights" }

func (s *s8WeightsStep) exec(fr *frame) error {
	g := s.g
	if g.M == 0 || g.N == 0 {
		return nil
	}
	var ep kiln.Epilogue
	ep.Act = s.act
	if s.hasBias {
		ep.Bias = f32s(fr.bytes(s.bias))[:g.N]
	}
	kiln.GemmF32S8(g.TransA, g.M, f32s(fr.bytes(s.a))[s.aOff:], s.lda, s.w, f32s(fr.bytes(s.c))[:g.M*g.N], g.N, ep)
	return nil
}

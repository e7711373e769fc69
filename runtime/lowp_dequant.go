package runtime

// Weight-only int8 (sched.DequantPlan): the loop that dequantises constant
// int8 weights with their per-column scales writes nothing, and the dots
// that read its result (with their bias and activation epilogue) run on
// GemmF32S8 over the int8 weights, packed once with their scales — the
// dequantised dot reassociated, within its rounding.

import (
	"fmt"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// lowpState is what the narrow-type paths made while compiling one module:
// the int8 weights packed for the dots of each dequantisation plan.
type lowpState struct {
	dequant map[*sched.DequantPlan]*kiln.PackedS8Weights
}

// dequantStep is the dequantising loop, left to the dots that read its
// weights in int8.
type dequantStep struct{}

func (dequantStep) name() string      { return "dequantize-deferred" }
func (dequantStep) exec(*frame) error { return nil }

// dequantPack returns the int8 weights of plan d packed with their
// scales, packing them the first time.
func (c *compiler) dequantPack(d *sched.DequantPlan) *kiln.PackedS8Weights {
	if w, ok := c.lowp.dequant[d]; ok {
		return w
	}
	sc := make([]float32, d.N)
	if d.Scale == nil {
		var f [1]float64
		ops.LoadFloats(f[:], d.ScaleScalar.Bytes(), ir.F32, 0)
		for i := range sc {
			sc[i] = float32(f[0])
		}
	} else {
		copy(sc, ops.Elems[float32](c.loc(d.Scale).data)[d.ScaleOffset:d.ScaleOffset+d.N])
	}
	w := kiln.PackS8Weights(d.TransW, d.K, d.N, ops.Elems[int8](c.loc(d.Weights).data)[d.WeightsOffset:], d.LDW, sc)
	if c.lowp.dequant == nil {
		c.lowp.dequant = map[*sched.DequantPlan]*kiln.PackedS8Weights{}
	}
	c.lowp.dequant[d] = w
	c.notePacked(w.Bytes())
	return w
}

// dequantLoop is the dequantising loop of plan d: the dots take the packed
// weights instead.
func (c *compiler) dequantLoop(k *sched.Kernel) step {
	c.dequantPack(k.Dequant)
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

// s8WeightsDot compiles a dot that multiplies by the int8 weights of its
// dequantisation plan.
func (c *compiler) s8WeightsDot(k *sched.Kernel) (step, error) {
	gp := k.Gemm
	w := c.dequantPack(k.Dequant)
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

package runtime

// Pooling in a narrow float type on the float32 pooling path: bfloat16 or
// binary16 operands with a reducer of their type, and float32 operands
// with a reducer rounded through one of them (XLA's optimized modules
// write a bfloat16 max-pool so). The operand is widened (or read as it
// is) and pooled in float32. Rounding is monotone, so a max or min fold is
// the narrow type's rounding of the float32 extreme, narrowed (or rounded
// in place) at the end; an init value the narrow type does not hold —
// rounding it would change the windows that lie wholly on padding — runs
// the generic fold instead. A sum or product is rounded after every fold,
// as the reducer does.

import (
	"github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// reduceWindowNarrowStep is a pooling rounded to rt.
type reduceWindowNarrowStep struct {
	pool          *reduceWindowF32Step // over wideIn, wideInit, wideOut
	t, rt         ir.ElementType       // the operand's (and result's) type; the rounding's
	in, init, out loc
	wideIn        loc // float32 operand (t narrow)
	wideInit      loc
	wideOut       loc // float32 result (t narrow), or rt's bits (t float32)
	nIn, nOut     int
	// stepped: a sum or product, rounded by the pooling after every fold
	// (rather than its extreme once, at the end).
	stepped bool
	generic *reduceWindowStep
}

func newReduceWindowNarrow(w *ir.Window, base, out []int, r *ops.Reducer, g *reduceWindowStep, p *program, threads int) *reduceWindowNarrowStep {
	op, swap, rt, ok := r.Extremum()
	stepped := false
	if !ok {
		op, swap, rt, ok = r.StepRounding()
		stepped = true
	}
	if !ok || r.N != 1 || (rt != ir.BF16 && rt != ir.F16) {
		return nil
	}
	t := r.Types[0]
	if t != r.Inits[0] || t != r.Acc[0] || t != r.Elem[0] || (t != rt && t != ir.F32) {
		return nil
	}
	s := &reduceWindowNarrowStep{t: t, rt: rt, in: g.ins[0], init: g.inits[0], out: g.outs[0],
		nIn: prod(base), nOut: prod(out), stepped: stepped, generic: g}
	in, init, o := s.in, s.init, s.out
	switch {
	case t != ir.F32:
		s.wideIn, s.wideInit, s.wideOut = privateArena(p, 4*s.nIn), privateArena(p, 4), privateArena(p, 4*s.nOut)
		in, init, o = s.wideIn, s.wideInit, s.wideOut
	case !stepped:
		s.wideOut = privateArena(p, 2*s.nOut)
	}
	s.pool = newReduceWindowF32(w, base, out, op, swap, in, init, o, threads)
	if s.pool == nil {
		return nil
	}
	if stepped {
		s.pool.round = rt
		s.pool.roundBuf = privateArena(p, 2*roundChunk*max(threads, 1))
	}
	return s
}

func (s *reduceWindowNarrowStep) name() string { return "reduce-window-narrow" }

func (s *reduceWindowNarrowStep) exec(fr *frame) error {
	if s.t == ir.F32 && s.stepped {
		return s.pool.exec(fr)
	}
	if s.t == ir.F32 {
		init := f32s(fr.bytes(s.init))[0]
		if roundF32To(s.rt, init) != init && init == init {
			return s.generic.exec(fr)
		}
		if err := s.pool.exec(fr); err != nil {
			return err
		}
		rd := runRounding{t: s.rt, buf: ops.Elems[uint16](fr.bytes(s.wideOut))[:s.nOut]}
		rd.run(f32s(fr.bytes(s.out))[:s.nOut])
		return nil
	}
	in := ops.Elems[uint16](fr.bytes(s.in))[:s.nIn]
	init := ops.Elems[uint16](fr.bytes(s.init))[:1]
	wide, wideInit := f32s(fr.bytes(s.wideIn))[:s.nIn], f32s(fr.bytes(s.wideInit))[:1]
	if s.t == ir.BF16 {
		kiln.BF16ToF32(wide, in)
		kiln.BF16ToF32(wideInit, init)
	} else {
		kiln.F16ToF32(wide, in)
		kiln.F16ToF32(wideInit, init)
	}
	if err := s.pool.exec(fr); err != nil {
		return err
	}
	out := ops.Elems[uint16](fr.bytes(s.out))[:s.nOut]
	wideOut := f32s(fr.bytes(s.wideOut))[:s.nOut]
	if s.t == ir.BF16 {
		kiln.F32ToBF16(out, wideOut)
	} else {
		kiln.F32ToF16(out, wideOut)
	}
	return nil
}

// roundF32To rounds x to the nearest value of the narrow float type t.
func roundF32To(t ir.ElementType, x float32) float32 {
	return float32(ops.RoundFloat(t, float64(x)))
}

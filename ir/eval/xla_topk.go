package eval

// XLA's top-k custom call. XLA's CPU compiler rewrites a top-k (and the
// sort and slice that compute one) into custom_call_target="TopK", with
// the comparator that orders the row as a called computation: the first k
// of each row in that order, stably, and their indices. Where the
// comparator is the total order's greater-than or less-than — the ones XLA
// writes — that is the topk op, largest or smallest first, and both Kiln's
// paths run it as one.

import (
	"fmt"
	"math"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// XLATopKTarget is the custom_call_target of XLA's top-k custom call.
const XLATopKTarget = "TopK"

// XLATopK reports, for XLA's TopK custom call in (of module m), k and
// whether its comparator ranks the largest first (the total order's
// greater-than) or the smallest (less-than). It returns an error that says
// what differs for a call of another shape, or with a comparator that
// orders some pair of probe values otherwise.
func XLATopK(m *ir.Module, in *ir.Instruction) (k int, largest bool, err error) {
	if in.Opcode != ir.OpCustomCall || in.CustomCallTarget != XLATopKTarget {
		return 0, false, fmt.Errorf("not XLA's %q custom call", XLATopKTarget)
	}
	if len(in.Operands) != 1 || !in.Operands[0].Shape.IsArray() || in.Operands[0].Shape.Rank() == 0 {
		return 0, false, fmt.Errorf("custom-call %q takes one array of rank 1 or more, found %d operands", XLATopKTarget, len(in.Operands))
	}
	x := in.Operands[0].Shape
	r := x.Rank()
	if !in.Shape.IsTuple() || len(in.Shape.Tuple) != 2 || !in.Shape.Tuple[0].IsArray() || in.Shape.Tuple[0].Rank() != r {
		return 0, false, fmt.Errorf("custom-call %q: result %v, expected (%v[…, k], s32[…, k])", XLATopKTarget, in.Shape, x.Elem)
	}
	vals, idx := in.Shape.Tuple[0], in.Shape.Tuple[1]
	k = vals.Dims[r-1]
	if vals.Elem != x.Elem || idx.Elem != ir.S32 || !ir.SameDimensions(vals, idx) || k > x.Dims[r-1] ||
		!slices.Equal(vals.Dims[:r-1], x.Dims[:r-1]) {
		return 0, false, fmt.Errorf("custom-call %q: result %v for operand %v, expected (%v[…, k], s32[…, k]) with the operand's leading dimensions", XLATopKTarget, in.Shape, x, x.Elem)
	}
	if len(in.CalledComputations) != 1 {
		return 0, false, fmt.Errorf("custom-call %q calls %d computations, expected its comparator", XLATopKTarget, len(in.CalledComputations))
	}
	largest, err = probeOrder(m, in.CalledComputations[0], x.Elem)
	return k, largest, err
}

// probeOrder runs comparator c (of two values, or of two values and their
// indices) on every pair of probe values of type t —
// the infinities, both zeros and NaNs, the extremes, small and large
// values of both signs — and reports whether it is the total order's
// greater-than (true) or less-than (false) on all of them.
func probeOrder(m *ir.Module, c *ir.Computation, t ir.ElementType) (bool, error) {
	params := len(c.Parameters)
	if params != 2 && params != 4 || c.Root == nil || !c.Root.Shape.IsArray() || c.Root.Shape.Elem != ir.PRED || c.Root.Shape.Rank() != 0 {
		return false, fmt.Errorf("custom-call %q: comparator %s is not (%v, %v[, s32, s32]) -> pred[]", XLATopKTarget, c.Name, t, t)
	}
	probes, keys, err := orderProbes(t)
	if err != nil {
		return false, err
	}
	// A comparator of four parameters also sees the two elements' indices
	// (a sort's of the values and their iota): both the same, so that one
	// breaking ties by index finds a tie.
	var extra []*ir.Literal
	if params == 4 {
		zero, err := ir.NewLiteral(ir.MakeShape(ir.S32))
		if err != nil {
			return false, err
		}
		extra = []*ir.Literal{zero, zero}
	}
	gt, lt := true, true
	for i, a := range probes {
		for j, b := range probes {
			res, err := RunComputation(m, c, Options{}, append([]*ir.Literal{a, b}, extra...)...)
			if err != nil {
				return false, fmt.Errorf("custom-call %q: comparator %s: %w", XLATopKTarget, c.Name, err)
			}
			got := res.Bytes()[0] != 0
			gt = gt && got == (keys[i] > keys[j])
			lt = lt && got == (keys[i] < keys[j])
		}
	}
	switch {
	case gt:
		return true, nil
	case lt:
		return false, nil
	}
	return false, fmt.Errorf("custom-call %q: comparator %s is neither the total order's greater-than nor its less-than", XLATopKTarget, c.Name)
}

// orderProbes returns probe scalars of type t and their keys in the total
// order: XLA's, for floats (the bits as a signed integer, the magnitude
// bits of a negative one inverted: −NaN < −∞ < … < −0 < +0 < … < +∞ <
// +NaN), the value for integers.
func orderProbes(t ir.ElementType) ([]*ir.Literal, []int64, error) {
	w := t.BitWidth()
	if w < 8 || !(t.IsFloat() || t.IsSigned() || t.IsUnsigned()) {
		return nil, nil, fmt.Errorf("custom-call %q of element type %v, which it does not order", XLATopKTarget, t)
	}
	var vals []float64
	if t.IsFloat() {
		nan := math.NaN()
		vals = []float64{math.Copysign(nan, -1), math.Inf(-1), -1e30, -3.5, -1, -0.25, -1e-30, math.Copysign(0, -1),
			0, 1e-30, 0.25, 1, 3.5, 1e30, math.Inf(1), nan}
	} else {
		lo, hi := 0.0, math.Ldexp(1, w)-1
		if t.IsSigned() {
			hi = math.Ldexp(1, w-1) - 1
			lo = -hi - 1
		}
		vals = []float64{lo, -100, -1, 0, 1, 7, 100, hi}
	}
	var ls []*ir.Literal
	var keys []int64
	for _, v := range vals {
		if !t.IsFloat() && (v < -math.Ldexp(1, w-1) && t.IsSigned() || v < 0 && t.IsUnsigned()) {
			continue
		}
		l, err := ir.NewLiteral(ir.MakeShape(t))
		if err != nil {
			return nil, nil, err
		}
		var src [8]byte
		bits := math.Float64bits(v)
		for i := range src {
			src[i] = byte(bits >> (8 * i))
		}
		ir.ConvertElement(l.Bytes(), t, src[:], ir.F64)
		var raw uint64
		for i, b := range l.Bytes() {
			raw |= uint64(b) << (8 * i)
		}
		var key int64
		switch {
		case t.IsUnsigned() && w == 64:
			key = int64(raw ^ 1<<63)
		case t.IsUnsigned():
			key = int64(raw)
		default:
			key = int64(raw<<(64-w)) >> (64 - w) // sign-extended
			if t.IsFloat() && key < 0 {
				key ^= 1<<(w-1) - 1
			}
		}
		ls, keys = append(ls, l), append(keys, key)
	}
	return ls, keys, nil
}

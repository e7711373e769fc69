package ops

// Reducers: a called computation of 2N scalar parameters (N accumulators,
// then N elements) returning N values, folded over elements in a given
// order with the accumulator as the first argument, as XLA's HloEvaluator
// applies it. A computation that is one of the standard reducers — add,
// multiply, maximum, minimum, and, or of its two parameters — folds wide
// values directly with the elementwise ops' own arithmetic; it performs the
// same operations in the same order as calling the computation, so both
// give the same bits.

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// FoldTile is the number of elements a reducer loads at a time.
const FoldTile = 256

// Reducer folds elements of N operands into accumulators. A reducer may
// compute in another floating-point precision than its operands and init
// values (an f32 computation over bf16 elements, as XLA allows): each value
// is converted to the type of the parameter it is passed as, and the
// results have the accumulators' types.
type Reducer struct {
	N int
	// Types are the operands' element types, Inits the init values', Acc
	// the accumulators' (the computation's results and first N
	// parameters), Elem the computation's last N parameters'.
	Types, Inits, Acc, Elem []ir.ElementType
	// Standard reports a one-operand standard reducer (Op of the two
	// parameters, Swapped when the root reads (element, accumulator)).
	Standard bool
	Op       ir.Opcode
	Swapped  bool
	fl       func(a, b float64) float64
	in       func(a, b int64) int64
	cx       func(a, b complex128) complex128
	arg      *argFold // a recognised argmax or argmin reducer of two operands
	round    *roundedOp
	Fn       *Func
	// scratch layout: registers, then the position, raw and wide tiles.
	regs, pos, raw, wide, size int
}

// NewReducer prepares f to reduce operands of element types ts onto init
// values of types inits (nil: the accumulators' types): f takes 2·len(ts)
// scalars — the accumulators, then one element of each operand — and
// returns the len(ts) new accumulators. An init value, an operand's
// element and the parameter it is passed as have one type up to
// floating-point precision (XLA's VerifyReducerShape).
func NewReducer(f *Func, ts, inits []ir.ElementType) (*Reducer, error) {
	n := len(ts)
	if f == nil {
		return nil, fmt.Errorf("no reducer computation")
	}
	if len(f.ParamT) != 2*n || len(f.ResultT) != n {
		return nil, fmt.Errorf("computation %s takes %d parameters and returns %d values, expected %d and %d for %d operands",
			f.Name, len(f.ParamT), len(f.ResultT), 2*n, n, n)
	}
	if inits == nil {
		inits = f.ResultT
	}
	if len(inits) != n {
		return nil, fmt.Errorf("%d init values for %d operands", len(inits), n)
	}
	for i := 0; i < n; i++ {
		acc, elem := f.ParamT[i], f.ParamT[n+i]
		switch {
		case f.ResultT[i] != acc:
			return nil, fmt.Errorf("computation %s returns %v[] as value %d, expected %v[] (its accumulator parameter %d)", f.Name, f.ResultT[i], i, acc, i)
		case !SameUpToPrecision(inits[i], acc):
			return nil, fmt.Errorf("computation %s: accumulator parameter %d has shape %v[], init value %d has element type %v", f.Name, i, acc, i, inits[i])
		case !SameUpToPrecision(ts[i], elem):
			return nil, fmt.Errorf("computation %s: parameter %d has shape %v[], the operand has element type %v", f.Name, n+i, elem, ts[i])
		case !SameUpToPrecision(acc, elem):
			return nil, fmt.Errorf("computation %s: parameter %d has shape %v[], its accumulator %d is %v[]", f.Name, n+i, elem, i, acc)
		}
	}
	r := &Reducer{N: n, Types: ts, Inits: inits, Acc: f.ParamT[:n], Elem: f.ParamT[n:], Fn: f}
	switch n {
	case 1:
		r.standard()
		if !r.Standard {
			r.roundedForm()
		}
	case 2:
		r.argForm()
	}
	r.regs = 0
	r.pos = roundUp(f.RegBytes(), 64)
	r.raw = r.pos + FoldTile*8
	r.wide = r.raw + FoldTile*WideBytes
	r.size = r.wide + FoldTile*WideBytes
	return r, nil
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// SameUpToPrecision reports whether two element types are equal, or both
// real floating-point types.
func SameUpToPrecision(a, b ir.ElementType) bool { return a == b || (a.IsFloat() && b.IsFloat()) }

// standard recognises the standard reducers.
func (r *Reducer) standard() {
	op, swapped, ok := r.Fn.Computation().BinaryRoot()
	if !ok {
		return
	}
	t := r.Acc[0]
	switch {
	case t.IsFloat():
		if op != ir.OpAdd && op != ir.OpMultiply && op != ir.OpMaximum && op != ir.OpMinimum {
			return
		}
		r.fl = FloatBinary(op)
	case t.IsComplex():
		if op != ir.OpAdd && op != ir.OpMultiply {
			return
		}
		r.cx = ComplexBinary(op)
	case t.IsInteger() || t == ir.PRED:
		switch op {
		case ir.OpAnd, ir.OpOr:
		case ir.OpAdd, ir.OpMultiply, ir.OpMaximum, ir.OpMinimum:
			if t == ir.PRED {
				return
			}
		default:
			return
		}
		r.in = IntBinary(op, t)
	default:
		return
	}
	r.Standard, r.Op, r.Swapped = true, op, swapped
}

// direct reports whether the fold keeps its accumulator in an Acc and
// computes without the function (a standard or a rounded reducer).
func (r *Reducer) direct() bool { return r.Standard || r.round != nil }

// roundedOp is a standard reducer computed in other floating-point
// precisions: the accumulator and the element rounded through the types
// pre (both the same), the op, its result rounded through the types post
// (the op's own type first, the accumulator's last). XLA's optimized
// modules write a bfloat16 max as f32(max(bf16(a), bf16(x))) and a
// bfloat16 sum kept in float32 as f32(bf16(a + x)).
type roundedOp struct {
	op        ir.Opcode
	fl        func(a, b float64) float64
	swapped   bool
	pre, post []ir.ElementType
}

// step is one fold: the rounded op of accumulator a and element x.
func (o *roundedOp) step(a, x float64) float64 {
	for _, t := range o.pre {
		a, x = RoundFloat(t, a), RoundFloat(t, x)
	}
	if o.swapped {
		a, x = x, a
	}
	y := o.fl(a, x)
	for _, t := range o.post {
		y = RoundFloat(t, y)
	}
	return y
}

// roundedForm recognises a one-operand reducer that is a standard op on
// real floats between conversions: converts of the root, the op, and the
// same converts of each parameter.
func (r *Reducer) roundedForm() {
	c := r.Fn.Computation()
	if c == nil || len(c.Params) != 2 || c.Root < 0 || !r.Acc[0].IsFloat() {
		return
	}
	float := func(nd Node) bool { return nd.Shape.IsScalar() && nd.Shape.Elem.IsFloat() }
	// converts peels the converts above node nd: the types, innermost
	// first, and the node below them.
	converts := func(nd int) ([]ir.ElementType, int) {
		var ts []ir.ElementType
		for c.Nodes[nd].Op == ir.OpConvert && len(c.Nodes[nd].Args) == 1 && float(c.Nodes[nd]) {
			ts = append([]ir.ElementType{c.Nodes[nd].Shape.Elem}, ts...)
			nd = c.Nodes[nd].Args[0]
		}
		return ts, nd
	}
	post, opn := converts(c.Root)
	op := c.Nodes[opn]
	switch op.Op {
	case ir.OpAdd, ir.OpMultiply, ir.OpMaximum, ir.OpMinimum:
	default:
		return
	}
	if len(op.Args) != 2 || !float(op) {
		return
	}
	preA, a := converts(op.Args[0])
	preB, b := converts(op.Args[1])
	p0, p1 := c.Params[0], c.Params[1]
	if !slices.Equal(preA, preB) || !(a == p0 && b == p1 || a == p1 && b == p0) || !float(c.Nodes[p0]) || !float(c.Nodes[p1]) {
		return
	}
	r.round = &roundedOp{op: op.Op, fl: FloatBinary(op.Op), swapped: a == p1, pre: preA,
		post: append([]ir.ElementType{op.Shape.Elem}, post...)}
}

// Extremum reports whether the reducer is a maximum or a minimum of real
// floats whose every result is rounded to one type rt: a standard one (rt
// the accumulator's type) or a rounded one whose conversions go through rt
// and float32 only. A fold of such a reducer is rt's rounding of the
// extreme of the init value and the elements, rounding being monotone.
func (r *Reducer) Extremum() (op ir.Opcode, swapped bool, rt ir.ElementType, ok bool) {
	switch {
	case r.Standard && (r.Op == ir.OpMaximum || r.Op == ir.OpMinimum) && r.fl != nil:
		return r.Op, r.Swapped, r.Acc[0], true
	case r.round == nil:
		return 0, false, 0, false
	}
	o := r.round
	rt = ir.F32
	for _, t := range append(slices.Clone(o.pre), o.post...) {
		switch {
		case t == ir.F32:
		case rt == ir.F32 || rt == t:
			rt = t
		default:
			return 0, false, 0, false
		}
	}
	if o.op != ir.OpMaximum && o.op != ir.OpMinimum || rt == ir.F32 {
		return 0, false, 0, false
	}
	return o.op, o.swapped, rt, true
}

// StepRounding reports whether every fold step of the reducer is its op
// (add or multiply) of the accumulator and the element computed in float32
// and rounded to the narrow float type rt: a standard reducer of rt
// (bfloat16 and binary16 sums and products are exact in float32, so one
// more rounding changes nothing), or a float32 one whose result is rounded
// through rt.
func (r *Reducer) StepRounding() (op ir.Opcode, swapped bool, rt ir.ElementType, ok bool) {
	narrow := func(t ir.ElementType) bool { return t == ir.BF16 || t == ir.F16 }
	switch {
	case r.Standard && r.fl != nil && (r.Op == ir.OpAdd || r.Op == ir.OpMultiply) && narrow(r.Acc[0]):
		return r.Op, r.Swapped, r.Acc[0], true
	case r.round == nil || r.round.op != ir.OpAdd && r.round.op != ir.OpMultiply:
		return 0, false, 0, false
	}
	o := r.round
	if len(o.pre) != 0 || len(o.post) < 3 || o.post[0] != ir.F32 || o.post[len(o.post)-1] != ir.F32 {
		return 0, false, 0, false
	}
	rt = ir.F32
	for _, t := range o.post {
		switch {
		case t == ir.F32:
		case narrow(t) && (rt == ir.F32 || rt == t):
			rt = t
		default:
			return 0, false, 0, false
		}
	}
	return o.op, o.swapped, rt, rt != ir.F32
}

// ScratchBytes is the scratch a fold needs.
func (r *Reducer) ScratchBytes() int { return r.size }

// Positions returns the scratch's position tile (FoldTile entries), which a
// fold's user fills with element positions.
func (r *Reducer) Positions(scratch []byte) []int64 {
	return Elems[int64](scratch[r.pos : r.pos+FoldTile*8])
}

// Acc is the accumulator of one output element of a one-operand standard
// fold (other folds keep theirs in the function's registers).
type Acc struct {
	F float64
	I int64
	C complex128
	X int64 // an argmax or argmin fold's index
}

// Begin prepares a run of folds (the function's constants).
func (r *Reducer) Begin(scratch []byte) {
	if !r.direct() && r.arg == nil {
		r.Fn.LoadConsts(scratch[r.regs:])
	}
}

// Start loads init values (element ii of each inits[i]) into the
// accumulators.
func (r *Reducer) Start(scratch []byte, acc *Acc, inits [][]byte, ii int) {
	if r.arg != nil {
		if t := r.Inits[0]; t.IsFloat() {
			acc.F = FloatAt(inits[0], t, ii)
		} else {
			acc.I = IntAt(inits[0], t, ii)
		}
		acc.X = IntAt(inits[1], r.Inits[1], ii)
		return
	}
	if !r.direct() {
		regs := scratch[r.regs:]
		for i := 0; i < r.N; i++ {
			r.Fn.LoadAs(regs, i, inits[i], r.Inits[i], ii)
		}
		return
	}
	t := r.Inits[0]
	switch KindOf(t) {
	case KindFloat:
		acc.F = RoundFloat(r.Acc[0], FloatAt(inits[0], t, ii))
	case KindComplex:
		acc.C = ComplexAt(inits[0], t, ii)
	default:
		acc.I = IntAt(inits[0], t, ii)
	}
}

// Fold folds the elements at positions pos of the operands srcs, in order.
func (r *Reducer) Fold(scratch []byte, acc *Acc, srcs [][]byte, pos []int64) error {
	if r.arg != nil {
		r.foldArg(acc, srcs, pos)
		return nil
	}
	if !r.direct() {
		regs := scratch[r.regs:]
		for _, p := range pos {
			for i := 0; i < r.N; i++ {
				r.Fn.LoadAs(regs, r.N+i, srcs[i], r.Types[i], int(p))
			}
			if err := r.Fn.Run(regs); err != nil {
				return err
			}
			for i := 0; i < r.N; i++ {
				r.Fn.Set(regs, i, i)
			}
		}
		return nil
	}
	t := r.Types[0]
	for start := 0; start < len(pos); start += FoldTile {
		p := pos[start:min(start+FoldTile, len(pos))]
		raw := scratch[r.raw : r.raw+FoldTile*WideBytes]
		w := RegAt(scratch[r.wide:], 0, FoldTile, len(p))
		GatherElements(raw, srcs[0], t.ByteSize(), p)
		LoadWide(w, len(p), raw, t, 0)
		if r.Elem[0] != t {
			RoundWide(w, r.Elem[0], len(p))
		}
		r.foldWide(acc, w, len(p))
	}
	return nil
}

// Scan folds the n elements at positions first, first+step, … of the
// operands srcs in order, as Fold does, and stores the accumulators after
// each at the same position of the outputs: a prefix scan.
func (r *Reducer) Scan(scratch []byte, acc *Acc, srcs, outs [][]byte, first, step, n int) error {
	if r.direct() && r.cx == nil {
		r.scanStandard(scratch, acc, srcs[0], outs[0], first, step, n)
		return nil
	}
	pos := r.Positions(scratch)[:1]
	for i, p := 0, first; i < n; i, p = i+1, p+step {
		pos[0] = int64(p)
		if err := r.Fold(scratch, acc, srcs, pos); err != nil {
			return err
		}
		r.Finish(scratch, acc, outs, p)
	}
	return nil
}

// scanStandard is Scan for a one-operand standard reducer of real or
// integer values: the elements are loaded a tile at a time, folded and
// stored one by one, with the arithmetic and rounding of foldWide.
func (r *Reducer) scanStandard(scratch []byte, acc *Acc, src, out []byte, first, step, n int) {
	t, at := r.Types[0], r.Acc[0]
	pos := r.Positions(scratch)
	for start := 0; start < n; start += FoldTile {
		m := min(FoldTile, n-start)
		p0 := first + start*step
		for j := range m {
			pos[j] = int64(p0 + j*step)
		}
		raw := scratch[r.raw : r.raw+FoldTile*WideBytes]
		w := RegAt(scratch[r.wide:], 0, FoldTile, m)
		GatherElements(raw, src, t.ByteSize(), pos[:m])
		LoadWide(w, m, raw, t, 0)
		if r.Elem[0] != t {
			RoundWide(w, r.Elem[0], m)
		}
		if r.round != nil {
			a := acc.F
			for j, x := range w.F[:m] {
				a = r.round.step(a, x)
				SetFloatAt(out, at, p0+j*step, a)
			}
			acc.F = a
			continue
		}
		if r.fl != nil {
			a := acc.F
			for j, x := range w.F[:m] {
				if r.Swapped {
					a = RoundFloat(at, r.fl(x, a))
				} else {
					a = RoundFloat(at, r.fl(a, x))
				}
				SetFloatAt(out, at, p0+j*step, a)
			}
			acc.F = a
			continue
		}
		a := acc.I
		for j, x := range w.I[:m] {
			if r.Swapped {
				a = WrapInt(at, r.in(x, a))
			} else {
				a = WrapInt(at, r.in(a, x))
			}
			SetIntAt(out, at, p0+j*step, a)
		}
		acc.I = a
	}
}

// foldWide folds n wide values of register w into the accumulator.
func (r *Reducer) foldWide(acc *Acc, w Reg, n int) {
	t := r.Acc[0]
	switch {
	case r.round != nil:
		a := acc.F
		for _, x := range w.F[:n] {
			a = r.round.step(a, x)
		}
		acc.F = a
	case r.fl != nil:
		a := acc.F
		for _, x := range w.F[:n] {
			if r.Swapped {
				a = RoundFloat(t, r.fl(x, a))
			} else {
				a = RoundFloat(t, r.fl(a, x))
			}
		}
		acc.F = a
	case r.cx != nil:
		a := acc.C
		for _, x := range w.C[:n] {
			if r.Swapped {
				a = RoundComplex(t, r.cx(x, a))
			} else {
				a = RoundComplex(t, r.cx(a, x))
			}
		}
		acc.C = a
	default:
		a := acc.I
		for _, x := range w.I[:n] {
			if r.Swapped {
				a = WrapInt(t, r.in(x, a))
			} else {
				a = WrapInt(t, r.in(a, x))
			}
		}
		acc.I = a
	}
}

// Finish stores the accumulators as element o of the outputs.
func (r *Reducer) Finish(scratch []byte, acc *Acc, outs [][]byte, o int) {
	if r.arg != nil {
		if t := r.Acc[0]; t.IsFloat() {
			SetFloatAt(outs[0], t, o, acc.F)
		} else {
			SetIntAt(outs[0], t, o, acc.I)
		}
		SetIntAt(outs[1], r.Acc[1], o, acc.X)
		return
	}
	if !r.direct() {
		regs := scratch[r.regs:]
		for i := 0; i < r.N; i++ {
			// The accumulators are the first N parameters.
			StoreWide(outs[i], r.Acc[i], o, r.Fn.Param(regs, i), 1)
		}
		return
	}
	t := r.Acc[0]
	switch KindOf(t) {
	case KindFloat:
		SetFloatAt(outs[0], t, o, acc.F)
	case KindComplex:
		SetComplexAt(outs[0], t, o, acc.C)
	default:
		SetIntAt(outs[0], t, o, acc.I)
	}
}

// GatherElements copies the elements (es bytes each) at positions pos of
// src into raw, in order.
func GatherElements(raw, src []byte, es int, pos []int64) {
	switch es {
	case 1:
		for i, p := range pos {
			raw[i] = src[p]
		}
	case 2:
		d, s := Elems[uint16](raw), Elems[uint16](src)
		for i, p := range pos {
			d[i] = s[p]
		}
	case 4:
		d, s := Elems[uint32](raw), Elems[uint32](src)
		for i, p := range pos {
			d[i] = s[p]
		}
	case 8:
		d, s := Elems[uint64](raw), Elems[uint64](src)
		for i, p := range pos {
			d[i] = s[p]
		}
	case 16:
		d, s := Elems[[2]uint64](raw), Elems[[2]uint64](src)
		for i, p := range pos {
			d[i] = s[p]
		}
	}
}

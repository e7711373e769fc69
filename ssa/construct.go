package ssa

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// builder creates the values a pass inserts into one function. Shapes come
// from ir's shape inference, so a value built from inconsistent operands is a
// bug in the pass: the builder keeps the first such error in err (the pass
// returns it) and still returns a value so that the pass can unwind.
//
// New values are appended to f.Values; the pass calls f.Sort afterwards to
// place them before their users. They carry the default layout.
type builder struct {
	f   *Func
	err error
}

func (b *builder) fail(op string, err error) {
	if b.err == nil && err != nil {
		b.err = fmt.Errorf("building %s: %w", op, err)
	}
}

func (b *builder) value(op Op, s ir.Shape, args ...*Value) *Value {
	return b.f.Append(op, s, args...)
}

// constant makes a constant holding l.
func (b *builder) constant(l *ir.Literal) *Value {
	v := b.value(OpConstant, l.Shape().WithoutLayout())
	v.Attrs.Literal = l
	return v
}

// scalar makes a rank-0 constant of type t holding x (converted as
// Literal.SetFloat64At converts).
func (b *builder) scalar(t ir.ElementType, x float64) *Value {
	return b.constant(scalarLiteral(t, x))
}

func scalarLiteral(t ir.ElementType, x float64) *ir.Literal {
	l := ir.MustNewLiteral(ir.Scalar(t))
	l.SetFloat64At(0, x)
	return l
}

// splat broadcasts the scalar x of type t to dims.
func (b *builder) splat(t ir.ElementType, x float64, dims []int) *Value {
	return b.broadcast(b.scalar(t, x), dims, nil)
}

// broadcast is HLO broadcast: operand dimension i becomes result dimension
// bdims[i].
func (b *builder) broadcast(x *Value, dims, bdims []int) *Value {
	if slices.Equal(x.Shape.Dims, dims) && isIota(bdims) {
		return x
	}
	out := ir.MakeShape(x.Shape.Elem, dims...)
	_, err := ir.InferBroadcastInDimShape(x.Shape, out, bdims)
	b.fail("broadcast", err)
	v := b.value(OpBroadcast, out, x)
	v.Attrs.Dimensions = slices.Clone(bdims)
	if v.Attrs.Dimensions == nil {
		v.Attrs.Dimensions = []int{}
	}
	return v
}

// transpose permutes x's dimensions (result dimension i is operand dimension
// perm[i]); the identity permutation returns x.
func (b *builder) transpose(x *Value, perm []int) *Value {
	if isIota(perm) && len(perm) == x.Shape.Rank() {
		return x
	}
	s, err := ir.InferTransposeShape(x.Shape.WithoutLayout(), perm)
	b.fail("transpose", err)
	v := b.value(OpTranspose, s, x)
	v.Attrs.Dimensions = slices.Clone(perm)
	return v
}

// reshape gives x the dimensions dims; equal dimensions return x.
func (b *builder) reshape(x *Value, dims []int) *Value {
	if slices.Equal(x.Shape.Dims, dims) {
		return x
	}
	s, err := ir.InferReshapeShape(x.Shape.WithoutLayout(), dims)
	b.fail("reshape", err)
	return b.value(OpReshape, s, x)
}

// unary applies an elementwise op of one operand.
func (b *builder) unary(op Op, x *Value) *Value {
	o, _ := op.IR()
	s, err := ir.InferUnaryOpShape(o, x.Shape.WithoutLayout())
	b.fail(op.String(), err)
	return b.value(op, s, x)
}

// binary applies an elementwise op of two operands of equal dimensions.
func (b *builder) binary(op Op, x, y *Value) *Value {
	o, _ := op.IR()
	s, err := ir.InferBinaryOpShape(o, x.Shape.WithoutLayout(), y.Shape.WithoutLayout(), nil)
	if err == nil && !ir.SameDimensions(x.Shape, y.Shape) {
		err = fmt.Errorf("operands have shapes %v and %v", x.Shape, y.Shape)
	}
	b.fail(op.String(), err)
	return b.value(op, s, x, y)
}

// convert converts x to element type t; the same type returns x.
func (b *builder) convert(x *Value, t ir.ElementType) *Value {
	if x.Shape.Elem == t {
		return x
	}
	s, err := ir.InferConvertShape(x.Shape.WithoutLayout(), t)
	b.fail("convert", err)
	return b.value(OpConvert, s, x)
}

// reduce reduces x over dims with the binary reducer g, starting at init.
func (b *builder) reduce(x, init *Value, dims []int, g *Func) *Value {
	var keep []int
	for d, n := range x.Shape.Dims {
		if !slices.Contains(dims, d) {
			keep = append(keep, n)
		}
	}
	v := b.value(OpReduce, ir.MakeShape(x.Shape.Elem, keep...), x, init)
	v.Attrs.Dimensions = slices.Clone(dims)
	v.Funcs = []*Func{g}
	return v
}

// slice takes x[start:limit:stride] in every dimension.
func (b *builder) slice(x *Value, sl []ir.SliceDim) *Value {
	starts, limits, strides := make([]int, len(sl)), make([]int, len(sl)), make([]int, len(sl))
	for i, d := range sl {
		starts[i], limits[i], strides[i] = d.Start, d.Limit, d.Stride
	}
	s, err := ir.InferSliceShape(x.Shape.WithoutLayout(), starts, limits, strides)
	b.fail("slice", err)
	v := b.value(OpSlice, s, x)
	v.Attrs.Slice = slices.Clone(sl)
	return v
}

// reverse reverses x along dims.
func (b *builder) reverse(x *Value, dims []int) *Value {
	if len(dims) == 0 {
		return x
	}
	s, err := ir.InferReverseShape(x.Shape.WithoutLayout(), dims)
	b.fail("reverse", err)
	v := b.value(Op(ir.OpReverse), s, x)
	v.Attrs.Dimensions = slices.Clone(dims)
	return v
}

// tuple makes a tuple of elems.
func (b *builder) tuple(elems ...*Value) *Value {
	shapes := make([]ir.Shape, len(elems))
	for i, e := range elems {
		shapes[i] = e.Shape
	}
	return b.value(OpTuple, ir.InferTupleShape(shapes), elems...)
}

// element extracts element i of a tuple-shaped value.
func (b *builder) element(t *Value, i int) *Value {
	s, err := ir.InferGetTupleElementShape(t.Shape, i)
	b.fail("get-tuple-element", err)
	v := b.value(OpGetTupleElement, s, t)
	v.Attrs.TupleIndex = i
	return v
}

func isIota(perm []int) bool {
	for i, p := range perm {
		if p != i {
			return false
		}
	}
	return true
}

func inversePerm(perm []int) []int {
	inv := make([]int, len(perm))
	for i, p := range perm {
		inv[p] = i
	}
	return inv
}

// ---- constants --------------------------------------------------------------

var (
	negZero = math.Copysign(0, -1)
	negInf  = math.Inf(-1)
	posInf  = math.Inf(1)
)

// maxSplatScan bounds the size of array constants scanned for equal elements.
const maxSplatScan = 64 << 10

// splatLiteral returns, as a scalar literal of v's element type, the value
// every element of v has, when v is a constant whose elements are all equal
// (a scalar, or an array of at most maxSplatScan bytes) or a broadcast of
// such a constant.
func splatLiteral(v *Value) (*ir.Literal, bool) {
	for v.Op == OpBroadcast || v.Op == OpReshape {
		v = v.Args[0]
	}
	if !v.IsConstant() || !v.Shape.IsArray() {
		return nil, false
	}
	l := v.Attrs.Literal
	data := l.Bytes()
	es := l.Shape().Elem.ByteSize()
	if es == 0 || len(data) < es || len(data) > maxSplatScan {
		return nil, false
	}
	first := data[:es]
	for i := es; i < len(data); i += es {
		if !bytes.Equal(data[i:i+es], first) {
			return nil, false
		}
	}
	s, err := ir.LiteralFromBytes(ir.Scalar(l.Shape().Elem), first)
	if err != nil {
		return nil, false
	}
	return s, true
}

// isSplatOf reports whether every element of v is exactly x, bit for bit in
// v's element type: -0.0 and +0.0 differ.
func isSplatOf(v *Value, x float64) bool {
	l, ok := splatLiteral(v)
	if !ok || l.Shape().Elem.IsComplex() {
		return false
	}
	want := scalarLiteral(l.Shape().Elem, x)
	if want.Float64At(0) != x {
		// The type cannot hold x: F8E4M3FN has no infinities, and +Inf
		// converts to its NaN, which must not pass for +Inf.
		return false
	}
	return bytes.Equal(l.Bytes(), want.Bytes())
}

// isAllOnes reports whether every element of an integer or PRED v has all
// its bits set (true for PRED).
func isAllOnes(v *Value) bool {
	l, ok := splatLiteral(v)
	if !ok {
		return false
	}
	t := l.Shape().Elem
	if t == ir.PRED {
		return l.Bytes()[0] == 1
	}
	if !t.IsInteger() {
		return false
	}
	want := ir.MustNewLiteral(ir.Scalar(t))
	want.SetInt64At(0, -1)
	return bytes.Equal(l.Bytes(), want.Bytes())
}

// splatFloat returns the value of a splat v as a float64.
func splatFloat(v *Value) (float64, bool) {
	l, ok := splatLiteral(v)
	if !ok || l.Shape().Elem.IsComplex() || l.Shape().Elem == ir.PRED {
		return 0, false
	}
	return l.Float64At(0), true
}

// scalarOf returns the rank-0 value v broadcasts, when v is a broadcast of
// a scalar (or is one).
func scalarOf(v *Value) (*Value, bool) {
	if v.Shape.IsScalar() {
		return v, true
	}
	if v.Op == OpBroadcast && v.Args[0].Shape.IsScalar() {
		return v.Args[0], true
	}
	return nil, false
}

// ---- reducers ---------------------------------------------------------------

// reducerOp returns the binary op a region applies to its two scalar
// parameters when that is all it does (region_0 { ROOT add(p0, p1) }).
func reducerOp(g *Func) (Op, bool) {
	if g == nil || len(g.Params) != 2 || g.Root == nil || len(g.Root.Args) != 2 {
		return 0, false
	}
	r, p0, p1 := g.Root, g.Params[0], g.Params[1]
	if !p0.Shape.IsScalar() || !p1.Shape.IsScalar() || !r.Shape.IsScalar() || !r.Op.IsElementwise() {
		return 0, false
	}
	if r.Args[0] == p0 && r.Args[1] == p1 || r.Args[0] == p1 && r.Args[1] == p0 && r.Op.IsCommutative() {
		return r.Op, true
	}
	return 0, false
}

// reducer returns a function applying op to two scalars of type t: an
// existing one of the program when there is one, else a new one placed first
// in p.Funcs.
func (p *Program) reducer(op Op, t ir.ElementType) *Func {
	for _, g := range p.Funcs {
		if o, ok := reducerOp(g); ok && o == op && g.Root.Shape.Elem == t && g.Params[0].Shape.Elem == t {
			return g
		}
	}
	p.nextID++
	g := &Func{Name: fmt.Sprintf("%s_%v.r%d", opBaseName(op), t, p.nextID), Program: p}
	a := g.Append(OpParameter, ir.Scalar(t))
	c := g.Append(OpParameter, ir.Scalar(t))
	c.Attrs.ParameterNumber = 1
	g.Params = []*Value{a, c}
	g.Root = g.Append(op, ir.Scalar(t), a, c)
	p.Funcs = append([]*Func{g}, p.Funcs...)
	return g
}

// identityOf returns the identity element of a reducer op for type t, exact
// under IEEE semantics (x + -0 = x for every x, including -0), and whether
// there is one.
func identityOf(op Op, t ir.ElementType) (*ir.Literal, bool) {
	l := ir.MustNewLiteral(ir.Scalar(t))
	switch {
	case t.IsFloat():
		switch op {
		case OpAdd:
			l.SetFloat64At(0, negZero)
		case OpMultiply:
			l.SetFloat64At(0, 1)
		case OpMaximum:
			l.SetFloat64At(0, negInf)
		case OpMinimum:
			l.SetFloat64At(0, posInf)
		default:
			return nil, false
		}
	case t.IsInteger() || t == ir.PRED:
		switch op {
		case OpAdd, Op(ir.OpOr), Op(ir.OpXor):
		case OpMultiply:
			l.SetInt64At(0, 1)
		case Op(ir.OpAnd):
			if t == ir.PRED {
				l.SetInt64At(0, 1)
			} else {
				l.SetInt64At(0, -1)
			}
		default:
			return nil, false
		}
	default:
		return nil, false
	}
	return l, true
}

// rewriteFunc visits f's values once, in order, and replaces each value for
// which fn returns another value (built with the builder fn receives).
// A new replacement takes the replaced value's layout. Afterwards every use
// is redirected and f is sorted; replaced values stay until dead-code
// elimination.
func rewriteFunc(f *Func, fn func(b *builder, v *Value) *Value) error {
	b := &builder{f: f}
	repl := map[*Value]*Value{}
	resolve := func(v *Value) *Value {
		for {
			r, ok := repl[v]
			if !ok {
				return v
			}
			v = r
		}
	}
	n := len(f.Values)
	for i := 0; i < n; i++ {
		v := f.Values[i]
		for j, a := range v.Args {
			v.Args[j] = resolve(a)
		}
		mark := f.Program.nextID
		w := fn(b, v)
		if b.err != nil {
			return fmt.Errorf("%v (%s): %w", v, v.Op, b.err)
		}
		if w == nil || w == v {
			continue
		}
		if w.ID > mark && w.Shape.EqualIgnoringLayout(v.Shape) {
			w.Shape = v.Shape.Clone()
		}
		if !w.Shape.Equal(v.Shape) {
			return fmt.Errorf("%v (%s) of shape %v would be replaced by %v of shape %v", v, v.Op, v.Shape, w, w.Shape)
		}
		repl[v] = w
	}
	if len(repl) == 0 {
		return nil
	}
	for _, v := range f.Values {
		for j, a := range v.Args {
			v.Args[j] = resolve(a)
		}
	}
	f.Root = resolve(f.Root)
	f.Sort()
	return nil
}

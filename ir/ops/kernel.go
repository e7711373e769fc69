package ops

// Elementwise kernels: one op over a tile of wide values in registers. A
// kernel computes in the wide form; the caller rounds or wraps the result
// to its element type when it stores it (StoreWide) or, inside a chain of
// ops, right after each op (RoundWide), as XLA stores every value in its
// type.

import (
	"fmt"
	"math"

	"github.com/kilnml/kiln/ir"
)

// Kernel computes n values of dst from the operand registers a.
type Kernel func(dst Reg, a [3]Reg, n int)

// Tile is the number of values an elementwise op computes at a time: its
// registers (WideBytes a value) stay in L1.
const Tile = 512

// Elementwise is one elementwise op compiled for its operand and result
// element types: the kernel and how each operand is loaded.
type Elementwise struct {
	Op     ir.Opcode
	ArgT   []ir.ElementType
	OutT   ir.ElementType
	Kernel Kernel
	// Keys marks the operands loaded as total-order keys (float compare in
	// the TOTALORDER type reads the stored bits).
	Keys [3]bool
}

// NewElementwise compiles op with attributes attrs (compare's direction and
// type) for operands of types argT and the result type outT. An op not
// defined on those types is an *UnsupportedError.
func NewElementwise(op ir.Opcode, attrs *ir.Attrs, argT []ir.ElementType, outT ir.ElementType) (*Elementwise, error) {
	e := &Elementwise{Op: op, ArgT: argT, OutT: outT}
	k, err := elementwiseKernel(op, attrs, argT, outT, &e.Keys)
	if err != nil {
		return nil, err
	}
	e.Kernel = k
	return e, nil
}

// ScratchBytes is the register memory Run needs.
func (e *Elementwise) ScratchBytes() int { return (len(e.ArgT) + 1) * Tile * WideBytes }

// Run computes output elements [lo, hi) into dst from the operands: args[j]
// holds operand j's elements, or a single element spread over all outputs
// when scalar[j].
func (e *Elementwise) Run(dst []byte, args [][]byte, scalar []bool, lo, hi int, scratch []byte) {
	if hi <= lo {
		return
	}
	var regs [3]Reg
	for j := range args {
		regs[j] = RegAt(scratch, j, Tile, Tile)
		if scalar[j] {
			e.load(regs[j], j, args[j], 0, 1)
			FillWide(regs[j], e.kind(j), min(Tile, hi-lo))
		}
	}
	out := RegAt(scratch, len(args), Tile, Tile)
	for start := lo; start < hi; start += Tile {
		n := min(Tile, hi-start)
		for j, a := range args {
			if !scalar[j] {
				e.load(regs[j], j, a, start, n)
			}
		}
		e.Kernel(out, regs, n)
		StoreWide(dst, e.OutT, start, out, n)
	}
}

func (e *Elementwise) kind(j int) Kind {
	if e.Keys[j] {
		return KindInt
	}
	return KindOf(e.ArgT[j])
}

// load reads n elements of operand j from start into register r.
func (e *Elementwise) load(r Reg, j int, src []byte, start, n int) {
	t := e.ArgT[j]
	if !e.Keys[j] {
		LoadWide(r, n, src, t, start)
		return
	}
	LoadBits(r.U[:n], src, t, start)
	w := t.BitWidth()
	for i, b := range r.U[:n] {
		r.I[i] = TotalOrderKey(b, w)
	}
}

// elementwiseKernel returns the kernel of op on operands of types argT with
// result type outT, marking in keys the operands to load as total-order
// keys.
func elementwiseKernel(op ir.Opcode, attrs *ir.Attrs, argT []ir.ElementType, outT ir.ElementType, keys *[3]bool) (Kernel, error) {
	if len(argT) == 0 || len(argT) > 3 {
		return nil, fmt.Errorf("%v: %d operands, expected 1 to 3", op, len(argT))
	}
	t := argT[0]
	switch {
	case op == ir.OpCompare:
		return compareKernel(attrs, argT, outT, keys)
	case op == ir.OpClamp:
		return clampKernel(argT, outT)
	case op == ir.OpComplex:
		if len(argT) != 2 || argT[1] != t {
			return nil, fmt.Errorf("complex: operands have element types %v, expected two equal real float types", argT)
		}
		if !t.IsFloat() || ir.ComplexOf(t) != outT {
			return nil, fmt.Errorf("complex of %v operands must produce %v, found %v", t, ir.ComplexOf(t), outT)
		}
		return func(d Reg, a [3]Reg, n int) {
			x, y := a[0].F[:n], a[1].F[:n]
			for j := range x {
				d.C[j] = complex(x[j], y[j])
			}
		}, nil
	case op == ir.OpIsFinite:
		if len(argT) != 1 {
			return nil, fmt.Errorf("is-finite: %d operands, expected 1", len(argT))
		}
		if !t.IsFloat() {
			return nil, notDefined(op, t)
		}
		if outT != ir.PRED {
			return nil, fmt.Errorf("is-finite produces pred, found %v", outT)
		}
		return func(d Reg, a [3]Reg, n int) {
			for j, x := range a[0].F[:n] {
				d.I[j] = 0
				if !math.IsInf(x, 0) && x == x {
					d.I[j] = 1
				}
			}
		}, nil
	case op.IsElementwiseUnary():
		if len(argT) != 1 {
			return nil, fmt.Errorf("%v: %d operands, expected 1", op, len(argT))
		}
		return unaryKernel(op, t, outT)
	case op.IsElementwiseBinary():
		if len(argT) != 2 {
			return nil, fmt.Errorf("%v: %d operands, expected 2", op, len(argT))
		}
		if argT[1] != t {
			return nil, fmt.Errorf("%v: operands have element types %v and %v, expected equal types", op, t, argT[1])
		}
		if outT != t {
			return nil, fmt.Errorf("%v of %v operands produces %v, found %v", op, t, t, outT)
		}
		return binaryKernel(op, t)
	}
	return nil, &UnsupportedError{Op: op, Detail: "not an elementwise op computed on values"}
}

func unaryKernel(op ir.Opcode, t, outT ir.ElementType) (Kernel, error) {
	switch {
	case t.IsFloat():
		f := FloatUnary(op)
		if f == nil {
			return nil, notDefined(op, t)
		}
		if outT != t {
			return nil, fmt.Errorf("%v of %v produces %v, found %v", op, t, t, outT)
		}
		return func(d Reg, a [3]Reg, n int) {
			for j, x := range a[0].F[:n] {
				d.F[j] = f(x)
			}
		}, nil
	case t.IsComplex():
		if f := ComplexToReal(op); f != nil {
			if outT != t.ComplexComponent() {
				return nil, fmt.Errorf("%v of %v produces %v, found %v", op, t, t.ComplexComponent(), outT)
			}
			return func(d Reg, a [3]Reg, n int) {
				for j, x := range a[0].C[:n] {
					d.F[j] = f(x)
				}
			}, nil
		}
		f := ComplexUnary(op)
		if f == nil {
			return nil, notDefined(op, t)
		}
		if outT != t {
			return nil, fmt.Errorf("%v of %v produces %v, found %v", op, t, t, outT)
		}
		return func(d Reg, a [3]Reg, n int) {
			for j, x := range a[0].C[:n] {
				d.C[j] = f(x)
			}
		}, nil
	case t == ir.PRED:
		if op != ir.OpNot && op != ir.OpCopy {
			return nil, notDefined(op, t)
		}
		if outT != t {
			return nil, fmt.Errorf("%v of pred produces pred, found %v", op, outT)
		}
		flip := int64(0)
		if op == ir.OpNot {
			flip = 1
		}
		return func(d Reg, a [3]Reg, n int) {
			for j, x := range a[0].I[:n] {
				d.I[j] = x ^ flip
			}
		}, nil
	case t.IsInteger():
		f := IntUnary(op, t)
		if f == nil {
			return nil, notDefined(op, t)
		}
		if outT != t {
			return nil, fmt.Errorf("%v of %v produces %v, found %v", op, t, t, outT)
		}
		return func(d Reg, a [3]Reg, n int) {
			for j, x := range a[0].I[:n] {
				d.I[j] = f(x)
			}
		}, nil
	}
	return nil, notDefined(op, t)
}

func binaryKernel(op ir.Opcode, t ir.ElementType) (Kernel, error) {
	switch {
	case t.IsFloat():
		switch op {
		case ir.OpAdd:
			return func(d Reg, a [3]Reg, n int) {
				x, y := a[0].F[:n], a[1].F[:n]
				for j := range x {
					d.F[j] = x[j] + y[j]
				}
			}, nil
		case ir.OpSubtract:
			return func(d Reg, a [3]Reg, n int) {
				x, y := a[0].F[:n], a[1].F[:n]
				for j := range x {
					d.F[j] = x[j] - y[j]
				}
			}, nil
		case ir.OpMultiply:
			return func(d Reg, a [3]Reg, n int) {
				x, y := a[0].F[:n], a[1].F[:n]
				for j := range x {
					d.F[j] = x[j] * y[j]
				}
			}, nil
		case ir.OpDivide:
			return func(d Reg, a [3]Reg, n int) {
				x, y := a[0].F[:n], a[1].F[:n]
				for j := range x {
					d.F[j] = x[j] / y[j]
				}
			}, nil
		}
		f := FloatBinary(op)
		if f == nil {
			return nil, notDefined(op, t)
		}
		return func(d Reg, a [3]Reg, n int) {
			x, y := a[0].F[:n], a[1].F[:n]
			for j := range x {
				d.F[j] = f(x[j], y[j])
			}
		}, nil
	case t.IsComplex():
		f := ComplexBinary(op)
		if f == nil {
			return nil, notDefined(op, t)
		}
		return func(d Reg, a [3]Reg, n int) {
			x, y := a[0].C[:n], a[1].C[:n]
			for j := range x {
				d.C[j] = f(x[j], y[j])
			}
		}, nil
	case t == ir.PRED || t.IsInteger():
		f := IntBinary(op, t)
		if f == nil || (t == ir.PRED && !PredBinary(op)) {
			return nil, notDefined(op, t)
		}
		return func(d Reg, a [3]Reg, n int) {
			x, y := a[0].I[:n], a[1].I[:n]
			for j := range x {
				d.I[j] = f(x[j], y[j])
			}
		}, nil
	}
	return nil, notDefined(op, t)
}

// clampKernel is clamp(lo, x, hi) = minimum(maximum(x, lo), hi).
func clampKernel(argT []ir.ElementType, outT ir.ElementType) (Kernel, error) {
	if len(argT) != 3 {
		return nil, fmt.Errorf("clamp: %d operands, expected 3", len(argT))
	}
	t := argT[1]
	if argT[0] != t || argT[2] != t {
		return nil, fmt.Errorf("clamp: operands have element types %v, %v and %v, expected equal types", argT[0], t, argT[2])
	}
	if outT != t {
		return nil, fmt.Errorf("clamp of %v operands produces %v, found %v", t, t, outT)
	}
	switch {
	case t.IsFloat():
		return func(d Reg, a [3]Reg, n int) {
			lo, x, hi := a[0].F[:n], a[1].F[:n], a[2].F[:n]
			for j := range lo {
				d.F[j] = FloatMin(FloatMax(x[j], lo[j]), hi[j])
			}
		}, nil
	case t.IsInteger() || t == ir.PRED:
		mx, mn := IntBinary(ir.OpMaximum, t), IntBinary(ir.OpMinimum, t)
		return func(d Reg, a [3]Reg, n int) {
			lo, x, hi := a[0].I[:n], a[1].I[:n], a[2].I[:n]
			for j := range lo {
				d.I[j] = mn(mx(x[j], lo[j]), hi[j])
			}
		}, nil
	}
	return nil, notDefined(ir.OpClamp, t)
}

// compareKernel is compare with the attributes' direction and comparison
// type. Float TOTALORDER marks both operands to be loaded as keys.
func compareKernel(attrs *ir.Attrs, argT []ir.ElementType, outT ir.ElementType, keys *[3]bool) (Kernel, error) {
	cmp, total, err := compareFunc(attrs, argT, outT)
	if err != nil {
		return nil, err
	}
	if total {
		keys[0], keys[1] = true, true
	}
	return cmp, nil
}

// compareFunc returns compare's kernel; total reports that it reads
// total-order keys (int64) rather than float values.
func compareFunc(attrs *ir.Attrs, argT []ir.ElementType, outT ir.ElementType) (k Kernel, total bool, err error) {
	if len(argT) != 2 {
		return nil, false, fmt.Errorf("compare: %d operands, expected 2", len(argT))
	}
	t := argT[0]
	if argT[1] != t {
		return nil, false, fmt.Errorf("compare: operands have element types %v and %v, expected equal types", t, argT[1])
	}
	if outT != ir.PRED {
		return nil, false, fmt.Errorf("compare produces pred, found %v", outT)
	}
	d := attrs.Direction
	if d == ir.CmpInvalid {
		return nil, false, fmt.Errorf("compare has no direction")
	}
	ct := attrs.CompareType
	if ct == ir.CmpTypeDefault {
		ct = ir.DefaultComparisonType(t)
	}
	set := func(b bool) int64 {
		if b {
			return 1
		}
		return 0
	}
	switch {
	case t.IsFloat() && ct == ir.CmpTypeTotalOrder:
		return func(r Reg, a [3]Reg, n int) {
			x, y := a[0].I[:n], a[1].I[:n]
			for j := range x {
				r.I[j] = set(CompareResult(d, Cmp3(x[j], y[j])))
			}
		}, true, nil
	case t.IsFloat() && ct == ir.CmpTypeFloat:
		return func(r Reg, a [3]Reg, n int) {
			x, y := a[0].F[:n], a[1].F[:n]
			for j := range x {
				r.I[j] = set(CompareResult(d, Cmp3(x[j], y[j])))
			}
		}, false, nil
	case t.IsComplex():
		if d != ir.CmpEQ && d != ir.CmpNE {
			return nil, false, &UnsupportedError{Op: ir.OpCompare,
				Detail: fmt.Sprintf("direction %v is not defined for element type %v (only EQ and NE)", d, t)}
		}
		eq := d == ir.CmpEQ
		return func(r Reg, a [3]Reg, n int) {
			x, y := a[0].C[:n], a[1].C[:n]
			for j := range x {
				r.I[j] = set((x[j] == y[j]) == eq)
			}
		}, false, nil
	case (t == ir.PRED || t.IsInteger()) && ct == ir.CmpTypeSigned:
		w := t.BitWidth()
		return func(r Reg, a [3]Reg, n int) {
			x, y := a[0].I[:n], a[1].I[:n]
			for j := range x {
				r.I[j] = set(CompareResult(d, Cmp3(SignExtend(x[j], w), SignExtend(y[j], w))))
			}
		}, false, nil
	case (t == ir.PRED || t.IsInteger()) && ct == ir.CmpTypeUnsigned:
		var mask uint64 = math.MaxUint64
		if w := t.BitWidth(); w < 64 {
			mask = 1<<w - 1
		}
		return func(r Reg, a [3]Reg, n int) {
			x, y := a[0].I[:n], a[1].I[:n]
			for j := range x {
				r.I[j] = set(CompareResult(d, Cmp3(uint64(x[j])&mask, uint64(y[j])&mask)))
			}
		}, false, nil
	}
	return nil, false, fmt.Errorf("comparison type %v is not defined for element type %v", ct, t)
}

// WideKernel returns the kernel of elementwise op for use inside a chain of
// ops on wide values (a Program): compare in the total order derives its
// keys from the wide values, and select, convert and reduce-precision work
// on wide values.
func WideKernel(op ir.Opcode, attrs *ir.Attrs, argT []ir.ElementType, outT ir.ElementType) (Kernel, error) {
	if len(argT) == 0 {
		return nil, fmt.Errorf("%v: no operands", op)
	}
	switch op {
	case ir.OpSelect:
		if len(argT) != 3 || argT[0] != ir.PRED || argT[1] != outT || argT[2] != outT {
			return nil, fmt.Errorf("select: operands %v and result %v, expected pred and two of the result's type", argT, outT)
		}
		return selectKernel(KindOf(outT)), nil
	case ir.OpConvert:
		return convertKernel(argT[0], outT)
	case ir.OpReducePrecision:
		t := argT[0]
		eb, mb := attrs.ExponentBits, attrs.MantissaBits
		if !t.IsFloat() || outT != t {
			return nil, notDefined(op, t)
		}
		if eb < 1 || mb < 0 {
			return nil, fmt.Errorf("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, found %d and %d", eb, mb)
		}
		return func(d Reg, a [3]Reg, n int) {
			for j, x := range a[0].F[:n] {
				d.F[j] = ReducePrecision(t, x, eb, mb)
			}
		}, nil
	case ir.OpCompare:
		cmp, total, err := compareFunc(attrs, argT, outT)
		if err != nil || !total {
			return cmp, err
		}
		// The floats' total-order keys compared as integers, element by
		// element (no buffer of keys: one on the stack, handed to the
		// integer comparison's kernel, escaped to the heap on every call).
		bitsOf, w := FloatBits(argT[0])
		d := attrs.Direction
		return func(r Reg, a [3]Reg, n int) {
			x, y, out := a[0].F[:n], a[1].F[:n], r.I[:n]
			for j := range out {
				kx, ky := TotalOrderKey(bitsOf(x[j]), w), TotalOrderKey(bitsOf(y[j]), w)
				o := Ordering(0)
				if kx < ky {
					o = -1
				} else if kx > ky {
					o = 1
				}
				out[j] = 0
				if CompareResult(d, o) {
					out[j] = 1
				}
			}
		}, nil
	case ir.OpBitcastConvert, ir.OpStochasticConvert, ir.OpMap:
		return nil, &UnsupportedError{Op: op, Detail: "not computed on wide values"}
	}
	var keys [3]bool
	return elementwiseKernel(op, attrs, argT, outT, &keys)
}

func selectKernel(k Kind) Kernel {
	switch k {
	case KindFloat:
		return func(d Reg, a [3]Reg, n int) {
			p, x, y := a[0].I[:n], a[1].F[:n], a[2].F[:n]
			for j := range p {
				if p[j] != 0 {
					d.F[j] = x[j]
				} else {
					d.F[j] = y[j]
				}
			}
		}
	case KindComplex:
		return func(d Reg, a [3]Reg, n int) {
			p, x, y := a[0].I[:n], a[1].C[:n], a[2].C[:n]
			for j := range p {
				if p[j] != 0 {
					d.C[j] = x[j]
				} else {
					d.C[j] = y[j]
				}
			}
		}
	}
	return func(d Reg, a [3]Reg, n int) {
		p, x, y := a[0].I[:n], a[1].I[:n], a[2].I[:n]
		for j := range p {
			if p[j] != 0 {
				d.I[j] = x[j]
			} else {
				d.I[j] = y[j]
			}
		}
	}
}

// convertKernel converts wide values of type from to the wide form of type
// to with ir's conversion rules (the result is then rounded to `to`).
func convertKernel(from, to ir.ElementType) (Kernel, error) {
	fk, tk := KindOf(from), KindOf(to)
	unsigned := !from.IsSigned()
	switch {
	case fk == KindComplex && tk != KindComplex:
		return nil, fmt.Errorf("conversion from complex type %v to real type %v is not defined; use real/imag", from, to)
	case fk == tk:
		return func(d Reg, a [3]Reg, n int) {
			switch fk {
			case KindFloat:
				copy(d.F[:n], a[0].F[:n])
			case KindComplex:
				copy(d.C[:n], a[0].C[:n])
			default:
				copy(d.I[:n], a[0].I[:n])
			}
		}, nil
	case fk == KindFloat && tk == KindInt:
		return func(d Reg, a [3]Reg, n int) {
			for j, x := range a[0].F[:n] {
				d.I[j] = ir.SaturateFloatToInt(x, to)
			}
		}, nil
	case fk == KindFloat && tk == KindComplex:
		return func(d Reg, a [3]Reg, n int) {
			for j := n - 1; j >= 0; j-- { // backwards: d may share a's memory
				d.C[j] = complex(a[0].F[j], 0)
			}
		}, nil
	case fk == KindInt && tk == KindFloat:
		return func(d Reg, a [3]Reg, n int) {
			for j, x := range a[0].I[:n] {
				d.F[j] = ir.IntToFloat(x, unsigned, to)
			}
		}, nil
	}
	// Int to complex.
	c := to.ComplexComponent()
	return func(d Reg, a [3]Reg, n int) {
		for j := n - 1; j >= 0; j-- {
			d.C[j] = complex(ir.IntToFloat(a[0].I[j], unsigned, c), 0)
		}
	}, nil
}

package runtime

// Elementwise ops for every element type the float32 loop does not cover:
// the operands are read a tile at a time into wide registers (float64,
// int64 or complex128, exactly as the reference evaluator reads them), the
// op runs over the tile, and the result is rounded or wrapped into the
// output as the evaluator stores it — so the two agree bit for bit. select,
// convert, bitcast-convert and reduce-precision work on the elements' bytes
// or bits directly.

import (
	"fmt"
	"math"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.Op(ir.OpBitcastConvert)] = buildBitcastConvert
	for _, op := range ir.Opcodes() {
		if !op.IsElementwise() {
			continue
		}
		switch op {
		case ir.OpMap, ir.OpStochasticConvert, ir.OpCopy:
			continue
		case ir.OpSelect:
			genericSteps[ssa.Op(op)] = buildSelect
		case ir.OpConvert:
			genericSteps[ssa.Op(op)] = buildConvert
		case ir.OpBitcastConvert:
			genericSteps[ssa.Op(op)] = buildBitcastConvert
		case ir.OpReducePrecision:
			genericSteps[ssa.Op(op)] = buildReducePrecision
		default:
			genericSteps[ssa.Op(op)] = buildElementwise
		}
	}
}

// elementwiseTile is the number of elements an elementwise step computes
// at a time: its wide registers (16 bytes a value) stay in L1.
const elementwiseTile = 512

// inputBuffer is the buffer a kernel reads value a from.
func inputBuffer(k *sched.Kernel, a *ssa.Value) *sched.Buffer {
	i := indexOf(k.Inputs, a)
	if i < 0 {
		return nil
	}
	return k.In[i]
}

// denseArray reports whether s is a static array with the default layout:
// the form every generic implementation except the layout-aware copies
// assumes.
func denseArray(s ir.Shape) bool {
	return s.IsArray() && s.IsStatic() && s.HasDefaultLayout() && s.Rank() <= maxGenericRank
}

// operandLocs resolves the array operands of a single-value kernel, or
// reports false if one is not a dense array.
func operandLocs(c *compiler, k *sched.Kernel) ([]loc, bool) {
	v := k.Root
	locs := make([]loc, len(v.Args))
	for i, a := range v.Args {
		b := inputBuffer(k, a)
		if b == nil || !denseArray(a.Shape) {
			return nil, false
		}
		locs[i] = c.loc(b)
	}
	return locs, true
}

// wideKernel computes a tile: dst from the operand registers, n values.
type wideKernel func(dst wideReg, a [3]wideReg, n int)

// elementwiseStep runs an elementwise op over wide registers.
type elementwiseStep struct {
	op     ir.Opcode
	out    loc
	outT   ir.ElementType
	args   []loc
	argT   []ir.ElementType
	scalar []bool // operand is a scalar spread over the output
	keys   []bool // operand is loaded as total-order keys (float compare)
	n      int
	regs   int // scratch offset of the registers
	kernel wideKernel
	// Big arrays are split into parts of whole tiles, run by the workers.
	parts, perPart, threads int
}

func buildElementwise(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	op, _ := v.Op.IR()
	if !denseArray(v.Shape) || len(v.Args) > 3 || len(v.Args) == 0 {
		return nil, nil
	}
	args, ok := operandLocs(c, k)
	if !ok {
		return nil, nil
	}
	s := &elementwiseStep{op: op, out: c.loc(k.Out), outT: v.Shape.Elem, args: args, n: v.Shape.ElementCount()}
	for _, a := range v.Args {
		if !a.Shape.IsScalar() && !ir.SameDimensions(a.Shape, v.Shape) {
			return nil, nil
		}
		s.argT = append(s.argT, a.Shape.Elem)
		s.scalar = append(s.scalar, a.Shape.IsScalar())
	}
	s.keys = make([]bool, len(args))
	kernel, err := elementwiseKernel(v, s.argT, s.outT, s.keys)
	if err != nil || kernel == nil {
		return nil, err
	}
	s.kernel = kernel
	var sp scratchPlan
	s.regs = sp.take((len(args) + 1) * elementwiseTile * wideBytes)
	sp.reserve(p)
	s.threads = c.cfg.threads
	s.parts, s.perPart = splitTiles(s.n, elementwiseTile, s.threads)
	return s, nil
}

func (s *elementwiseStep) name() string { return "elementwise" }

func (s *elementwiseStep) exec(fr *frame) error {
	if s.n == 0 {
		return nil
	}
	parallelFor(fr, &fr.task, s, s.parts, s.threads)
	return nil
}

// part computes the elements [p·perPart, min((p+1)·perPart, n)) on worker w.
func (s *elementwiseStep) part(fr *frame, p, w int) {
	lo, hi := p*s.perPart, min((p+1)*s.perPart, s.n)
	scratch := fr.scratch[w][s.regs:]
	var regs [3]wideReg
	for j := range s.args {
		regs[j] = regAt(scratch, j, elementwiseTile, elementwiseTile)
	}
	dst := regAt(scratch, len(s.args), elementwiseTile, elementwiseTile)
	out := fr.bytes(s.out)
	for j, l := range s.args {
		if s.scalar[j] {
			s.load(regs[j], 1, fr.bytes(l), j, 0)
			fillWide(regs[j], s.kind(j), min(elementwiseTile, s.n))
		}
	}
	for start := lo; start < hi; start += elementwiseTile {
		n := min(elementwiseTile, hi-start)
		for j, l := range s.args {
			if !s.scalar[j] {
				s.load(regs[j], n, fr.bytes(l), j, start)
			}
		}
		s.kernel(dst, regs, n)
		storeWide(out, s.outT, start, dst, n)
	}
}

func (s *elementwiseStep) kind(j int) wideKind {
	if s.keys[j] {
		return wideInt
	}
	return wideKindOf(s.argT[j])
}

// load reads n elements of operand j from start into register r.
func (s *elementwiseStep) load(r wideReg, n int, src []byte, j, start int) {
	if !s.keys[j] {
		loadWide(r, n, src, s.argT[j], start)
		return
	}
	t := s.argT[j]
	loadBits(r.u[:n], src, t, start)
	w := t.BitWidth()
	for i, b := range r.u[:n] {
		r.i[i] = totalOrderKey(b, w)
	}
}

// elementwiseKernel returns the tile kernel of elementwise value v with
// operand types argT and result type outT; it marks in keys the operands
// to load as total-order keys. A nil kernel means the form is not defined
// (the evaluator reports it).
func elementwiseKernel(v *ssa.Value, argT []ir.ElementType, outT ir.ElementType, keys []bool) (wideKernel, error) {
	op, _ := v.Op.IR()
	t := argT[0]
	switch {
	case op == ir.OpCompare:
		return compareKernel(v, t, keys), nil
	case op == ir.OpClamp:
		if argT[1] != t || argT[2] != t || outT != t {
			return nil, nil
		}
		switch {
		case t.IsFloat():
			return func(d wideReg, a [3]wideReg, n int) {
				lo, x, hi := a[0].f[:n], a[1].f[:n], a[2].f[:n]
				for j := range lo {
					d.f[j] = floatMin(floatMax(x[j], lo[j]), hi[j])
				}
			}, nil
		case t.IsInteger() || t == ir.PRED:
			mx, mn := intBinaryFn(ir.OpMaximum, t), intBinaryFn(ir.OpMinimum, t)
			return func(d wideReg, a [3]wideReg, n int) {
				lo, x, hi := a[0].i[:n], a[1].i[:n], a[2].i[:n]
				for j := range lo {
					d.i[j] = mn(mx(x[j], lo[j]), hi[j])
				}
			}, nil
		}
		return nil, nil
	case op == ir.OpComplex:
		if len(argT) != 2 || !t.IsFloat() || argT[1] != t || ir.ComplexOf(t) != outT {
			return nil, nil
		}
		return func(d wideReg, a [3]wideReg, n int) {
			x, y := a[0].f[:n], a[1].f[:n]
			for j := range x {
				d.c[j] = complex(x[j], y[j])
			}
		}, nil
	case op == ir.OpIsFinite:
		if !t.IsFloat() || outT != ir.PRED {
			return nil, nil
		}
		return func(d wideReg, a [3]wideReg, n int) {
			for j, x := range a[0].f[:n] {
				d.i[j] = 0
				if !math.IsInf(x, 0) && x == x {
					d.i[j] = 1
				}
			}
		}, nil
	case len(argT) == 1:
		return unaryKernel(op, t, outT), nil
	case len(argT) == 2:
		if argT[1] != t || outT != t {
			return nil, nil
		}
		return binaryKernel(op, t), nil
	}
	return nil, fmt.Errorf("elementwise %s of %d operands", op, len(argT))
}

func unaryKernel(op ir.Opcode, t, outT ir.ElementType) wideKernel {
	switch {
	case t.IsFloat():
		f := floatUnaryFns[op]
		if f == nil || outT != t {
			return nil
		}
		return func(d wideReg, a [3]wideReg, n int) {
			for j, x := range a[0].f[:n] {
				d.f[j] = f(x)
			}
		}
	case t.IsComplex():
		if f := complexToRealFns[op]; f != nil {
			if outT != t.ComplexComponent() {
				return nil
			}
			return func(d wideReg, a [3]wideReg, n int) {
				for j, x := range a[0].c[:n] {
					d.f[j] = f(x)
				}
			}
		}
		f := complexUnaryFns[op]
		if f == nil || outT != t {
			return nil
		}
		return func(d wideReg, a [3]wideReg, n int) {
			for j, x := range a[0].c[:n] {
				d.c[j] = f(x)
			}
		}
	case t == ir.PRED:
		if outT != t || (op != ir.OpNot && op != ir.OpCopy) {
			return nil
		}
		flip := int64(0)
		if op == ir.OpNot {
			flip = 1
		}
		return func(d wideReg, a [3]wideReg, n int) {
			for j, x := range a[0].i[:n] {
				d.i[j] = x ^ flip
			}
		}
	case t.IsInteger():
		f := intUnaryFn(op, t)
		if f == nil || outT != t {
			return nil
		}
		return func(d wideReg, a [3]wideReg, n int) {
			for j, x := range a[0].i[:n] {
				d.i[j] = f(x)
			}
		}
	}
	return nil
}

func binaryKernel(op ir.Opcode, t ir.ElementType) wideKernel {
	switch {
	case t.IsFloat():
		switch op {
		case ir.OpAdd:
			return func(d wideReg, a [3]wideReg, n int) {
				x, y := a[0].f[:n], a[1].f[:n]
				for j := range x {
					d.f[j] = x[j] + y[j]
				}
			}
		case ir.OpSubtract:
			return func(d wideReg, a [3]wideReg, n int) {
				x, y := a[0].f[:n], a[1].f[:n]
				for j := range x {
					d.f[j] = x[j] - y[j]
				}
			}
		case ir.OpMultiply:
			return func(d wideReg, a [3]wideReg, n int) {
				x, y := a[0].f[:n], a[1].f[:n]
				for j := range x {
					d.f[j] = x[j] * y[j]
				}
			}
		case ir.OpDivide:
			return func(d wideReg, a [3]wideReg, n int) {
				x, y := a[0].f[:n], a[1].f[:n]
				for j := range x {
					d.f[j] = x[j] / y[j]
				}
			}
		}
		f := floatBinaryFns[op]
		if f == nil {
			return nil
		}
		return func(d wideReg, a [3]wideReg, n int) {
			x, y := a[0].f[:n], a[1].f[:n]
			for j := range x {
				d.f[j] = f(x[j], y[j])
			}
		}
	case t.IsComplex():
		f := complexBinaryFns[op]
		if f == nil {
			return nil
		}
		return func(d wideReg, a [3]wideReg, n int) {
			x, y := a[0].c[:n], a[1].c[:n]
			for j := range x {
				d.c[j] = f(x[j], y[j])
			}
		}
	case t == ir.PRED || t.IsInteger():
		f := intBinaryFn(op, t)
		if f == nil || (t == ir.PRED && !predBinary[op]) {
			return nil
		}
		return func(d wideReg, a [3]wideReg, n int) {
			x, y := a[0].i[:n], a[1].i[:n]
			for j := range x {
				d.i[j] = f(x[j], y[j])
			}
		}
	}
	return nil
}

// compareKernel is compare with v's direction and comparison type on
// operands of type t, or nil where compare is not defined.
func compareKernel(v *ssa.Value, t ir.ElementType, keys []bool) wideKernel {
	d := v.Attrs.Direction
	if d == ir.CmpInvalid || v.Shape.Elem != ir.PRED || len(v.Args) != 2 || v.Args[1].Shape.Elem != t {
		return nil
	}
	ct := v.Attrs.CompareType
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
		keys[0], keys[1] = true, true
		return func(r wideReg, a [3]wideReg, n int) {
			x, y := a[0].i[:n], a[1].i[:n]
			for j := range x {
				r.i[j] = set(compareResult(d, cmp3(x[j], y[j])))
			}
		}
	case t.IsFloat():
		return func(r wideReg, a [3]wideReg, n int) {
			x, y := a[0].f[:n], a[1].f[:n]
			for j := range x {
				r.i[j] = set(compareResult(d, cmp3(x[j], y[j])))
			}
		}
	case t.IsComplex():
		if d != ir.CmpEQ && d != ir.CmpNE {
			return nil
		}
		eq := d == ir.CmpEQ
		return func(r wideReg, a [3]wideReg, n int) {
			x, y := a[0].c[:n], a[1].c[:n]
			for j := range x {
				r.i[j] = set((x[j] == y[j]) == eq)
			}
		}
	case t == ir.PRED || t.IsInteger():
		w := t.BitWidth()
		switch ct {
		case ir.CmpTypeSigned:
			return func(r wideReg, a [3]wideReg, n int) {
				x, y := a[0].i[:n], a[1].i[:n]
				for j := range x {
					r.i[j] = set(compareResult(d, cmp3(signExtend(x[j], w), signExtend(y[j], w))))
				}
			}
		case ir.CmpTypeUnsigned:
			var mask uint64 = math.MaxUint64
			if w < 64 {
				mask = 1<<w - 1
			}
			return func(r wideReg, a [3]wideReg, n int) {
				x, y := a[0].i[:n], a[1].i[:n]
				for j := range x {
					r.i[j] = set(compareResult(d, cmp3(uint64(x[j])&mask, uint64(y[j])&mask)))
				}
			}
		}
	}
	return nil
}

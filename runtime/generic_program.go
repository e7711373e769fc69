package runtime

// Wide programs: a list of elementwise ops over registers of wide values,
// each result rounded or wrapped to its element type as soon as it is
// computed (the reference evaluator stores every value in its type), so a
// chain of ops agrees with the evaluator running them one by one. They run
// the fused loops of element types the float32 loop does not cover (a tile
// of values per register) and the scalar computations of reducers,
// comparators, scatter updates and map (one value per register).

import (
	"math"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// wideInstr is one op of a wide program.
type wideInstr struct {
	t      ir.ElementType // result type
	args   [3]int         // argument registers
	nargs  int
	reg    int // result register
	kernel wideKernel
}

// wideProgram is a compiled sequence of ops over registers; loads of its
// inputs are done by its user before run.
type wideProgram struct {
	instrs []wideInstr
	regs   int
}

// run computes every op over the first n values of the registers of
// scratch (registers stride values apart).
func (p *wideProgram) run(scratch []byte, stride, n int) {
	var args [3]wideReg
	for i := range p.instrs {
		in := &p.instrs[i]
		for j := 0; j < in.nargs; j++ {
			args[j] = regAt(scratch, in.args[j], stride, n)
		}
		dst := regAt(scratch, in.reg, stride, n)
		in.kernel(dst, args, n)
		roundWide(dst, in.t, n)
	}
}

// roundWide rounds or wraps n wide values to type t in place.
func roundWide(r wideReg, t ir.ElementType, n int) {
	switch {
	case t == ir.F64 || t == ir.S64 || t == ir.U64 || t == ir.C128:
	case t == ir.F32:
		for j, x := range r.f[:n] {
			r.f[j] = float64(float32(x))
		}
	case t.IsFloat():
		for j, x := range r.f[:n] {
			r.f[j] = roundFloat(t, x)
		}
	case t == ir.C64:
		for j, x := range r.c[:n] {
			r.c[j] = complex128(complex64(x))
		}
	default:
		for j, x := range r.i[:n] {
			r.i[j] = wrapInt(t, x)
		}
	}
}

// opKernel returns the wide kernel of elementwise value v (its operands of
// types argT), for use inside programs: compare in the total order derives
// the keys from wide values, select and convert work on wide values. nil
// means the form is not covered.
func opKernel(v *ssa.Value, argT []ir.ElementType) wideKernel {
	op, ok := v.Op.IR()
	if !ok || len(argT) == 0 || len(argT) > 3 {
		return nil
	}
	outT := v.Shape.Elem
	switch op {
	case ir.OpSelect:
		if len(argT) != 3 || argT[0] != ir.PRED || argT[1] != outT || argT[2] != outT {
			return nil
		}
		return selectKernel(wideKindOf(outT))
	case ir.OpConvert:
		return convertKernel(argT[0], outT)
	case ir.OpCompare:
		t := argT[0]
		ct := v.Attrs.CompareType
		if ct == ir.CmpTypeDefault {
			ct = ir.DefaultComparisonType(t)
		}
		if t.IsFloat() && ct == ir.CmpTypeTotalOrder {
			return totalOrderKernel(v, t)
		}
	case ir.OpReducePrecision:
		return reducePrecisionKernel(argT[0], outT, v.Attrs.ExponentBits, v.Attrs.MantissaBits)
	case ir.OpBitcastConvert, ir.OpStochasticConvert, ir.OpMap:
		return nil
	}
	k, err := elementwiseKernel(v, argT, outT, make([]bool, len(argT)))
	if err != nil {
		return nil
	}
	return k
}

// reducePrecisionKernel is reduce-precision on wide floats of type t, on
// the bits of the value in t (float64 and float32) or in float32 (narrower
// types), as the evaluator computes it.
func reducePrecisionKernel(t, outT ir.ElementType, eb, mb int) wideKernel {
	if !t.IsFloat() || outT != t || eb < 1 || mb < 0 {
		return nil
	}
	if t == ir.F64 {
		return func(d wideReg, a [3]wideReg, n int) {
			for j, x := range a[0].f[:n] {
				d.f[j] = math.Float64frombits(reducePrecisionBits(math.Float64bits(x), 11, 52, eb, mb))
			}
		}
	}
	return func(d wideReg, a [3]wideReg, n int) {
		for j, x := range a[0].f[:n] {
			b := reducePrecisionBits(uint64(math.Float32bits(float32(x))), 8, 23, eb, mb)
			d.f[j] = float64(math.Float32frombits(uint32(b)))
		}
	}
}

func selectKernel(k wideKind) wideKernel {
	switch k {
	case wideFloat:
		return func(d wideReg, a [3]wideReg, n int) {
			p, x, y := a[0].i[:n], a[1].f[:n], a[2].f[:n]
			for j := range p {
				if p[j] != 0 {
					d.f[j] = x[j]
				} else {
					d.f[j] = y[j]
				}
			}
		}
	case wideComplex:
		return func(d wideReg, a [3]wideReg, n int) {
			p, x, y := a[0].i[:n], a[1].c[:n], a[2].c[:n]
			for j := range p {
				if p[j] != 0 {
					d.c[j] = x[j]
				} else {
					d.c[j] = y[j]
				}
			}
		}
	}
	return func(d wideReg, a [3]wideReg, n int) {
		p, x, y := a[0].i[:n], a[1].i[:n], a[2].i[:n]
		for j := range p {
			if p[j] != 0 {
				d.i[j] = x[j]
			} else {
				d.i[j] = y[j]
			}
		}
	}
}

// convertKernel converts wide values of type from to the wide form of type
// to with ir's conversion rules (the result is then rounded to `to`).
func convertKernel(from, to ir.ElementType) wideKernel {
	fk, tk := wideKindOf(from), wideKindOf(to)
	unsigned := !from.IsSigned()
	switch {
	case fk == wideComplex && tk != wideComplex:
		return nil
	case fk == tk:
		return func(d wideReg, a [3]wideReg, n int) {
			switch fk {
			case wideFloat:
				copy(d.f[:n], a[0].f[:n])
			case wideComplex:
				copy(d.c[:n], a[0].c[:n])
			default:
				copy(d.i[:n], a[0].i[:n])
			}
		}
	case fk == wideFloat && tk == wideInt:
		return func(d wideReg, a [3]wideReg, n int) {
			for j, x := range a[0].f[:n] {
				d.i[j] = ir.SaturateFloatToInt(x, to)
			}
		}
	case fk == wideFloat && tk == wideComplex:
		return func(d wideReg, a [3]wideReg, n int) {
			for j, x := range a[0].f[:n] {
				d.c[j] = complex(x, 0)
			}
		}
	case fk == wideInt && tk == wideFloat:
		return func(d wideReg, a [3]wideReg, n int) {
			for j, x := range a[0].i[:n] {
				d.f[j] = ir.IntToFloat(x, unsigned, to)
			}
		}
	case fk == wideInt && tk == wideComplex:
		c := to.ComplexComponent()
		return func(d wideReg, a [3]wideReg, n int) {
			for j, x := range a[0].i[:n] {
				d.c[j] = complex(ir.IntToFloat(x, unsigned, c), 0)
			}
		}
	}
	return nil
}

// totalOrderKernel compares wide floats of type t in XLA's total order.
func totalOrderKernel(v *ssa.Value, t ir.ElementType) wideKernel {
	d := v.Attrs.Direction
	if d == ir.CmpInvalid {
		return nil
	}
	bitsOf, w := floatBitsFunc(t)
	return func(r wideReg, a [3]wideReg, n int) {
		x, y := a[0].f[:n], a[1].f[:n]
		for j := range x {
			r.i[j] = 0
			if compareResult(d, cmp3(totalOrderKey(bitsOf(x[j]), w), totalOrderKey(bitsOf(y[j]), w))) {
				r.i[j] = 1
			}
		}
	}
}

// floatBitsFunc returns the function giving the stored bits of a wide value
// of real float type t, and the type's width.
func floatBitsFunc(t ir.ElementType) (func(float64) uint64, int) {
	switch t {
	case ir.F64:
		return math.Float64bits, 64
	case ir.F32:
		return func(x float64) uint64 { return uint64(math.Float32bits(float32(x))) }, 32
	case ir.F16:
		return func(x float64) uint64 { return uint64(ir.Float16FromFloat64(x)) }, 16
	case ir.BF16:
		return func(x float64) uint64 { return uint64(ir.BFloat16FromFloat64(x)) }, 16
	case ir.F8E5M2:
		return func(x float64) uint64 { return uint64(ir.Float8E5M2FromFloat64(x)) }, 8
	}
	return func(x float64) uint64 { return uint64(ir.Float8E4M3FNFromFloat64(x)) }, 8
}

// regAllocator hands out registers, reusing those of dead values.
type regAllocator struct {
	free []int
	next int
}

func (a *regAllocator) get() int {
	if n := len(a.free); n > 0 {
		r := a.free[n-1]
		a.free = a.free[:n-1]
		return r
	}
	a.next++
	return a.next - 1
}

func (a *regAllocator) put(r int) { a.free = append(a.free, r) }

// scalarFunc is a region function of scalar parameters (a reducer,
// comparator, scatter update or map body) compiled to a wide program over
// registers of one value.
type scalarFunc struct {
	prog    wideProgram
	params  []int // register of each parameter
	paramT  []ir.ElementType
	results []int // registers of the results (tuple roots: one per element)
	resultT []ir.ElementType
	consts  []wideConst
}

// wideConst is a constant placed in a register before a program runs.
type wideConst struct {
	reg  int
	t    ir.ElementType
	data []byte
}

// compileScalarFunc compiles f, or returns nil when it has an op or shape
// outside scalar elementwise ops, constants and a tuple root.
func compileScalarFunc(f *ssa.Func) *scalarFunc {
	if f == nil || f.Root == nil {
		return nil
	}
	s := &scalarFunc{}
	reg := map[*ssa.Value]int{}
	var consts []*ssa.Value
	for _, prm := range f.Params {
		if !prm.Shape.IsScalar() {
			return nil
		}
		reg[prm] = len(s.params)
		s.params = append(s.params, len(s.params))
		s.paramT = append(s.paramT, prm.Shape.Elem)
	}
	next := len(f.Params)
	// Constants get registers after the parameters; the user loads them
	// once per run (loadConsts).
	for _, v := range f.Values {
		if v.Op == ssa.OpConstant {
			if !v.IsConstant() || !v.Shape.IsScalar() {
				return nil
			}
			reg[v] = next
			next++
			consts = append(consts, v)
		}
	}
	for _, v := range f.Values {
		switch {
		case v.Op == ssa.OpParameter || v.Op == ssa.OpConstant:
			continue
		case v.Op == ssa.OpTuple && v == f.Root:
			continue
		case !v.Shape.IsScalar():
			return nil
		}
		in := wideInstr{t: v.Shape.Elem, nargs: len(v.Args), reg: next}
		if in.nargs > 3 {
			return nil
		}
		argT := make([]ir.ElementType, len(v.Args))
		for j, a := range v.Args {
			r, ok := reg[a]
			if !ok || !a.Shape.IsScalar() {
				return nil
			}
			in.args[j], argT[j] = r, a.Shape.Elem
		}
		if !v.Op.IsElementwise() {
			return nil
		}
		if in.kernel = opKernel(v, argT); in.kernel == nil {
			return nil
		}
		reg[v] = next
		next++
		s.prog.instrs = append(s.prog.instrs, in)
	}
	roots := []*ssa.Value{f.Root}
	if f.Root.Op == ssa.OpTuple {
		roots = f.Root.Args
	}
	for _, r := range roots {
		rr, ok := reg[r]
		if !ok || !r.Shape.IsScalar() {
			return nil
		}
		s.results = append(s.results, rr)
		s.resultT = append(s.resultT, r.Shape.Elem)
	}
	s.prog.regs = next
	for _, v := range consts {
		s.consts = append(s.consts, wideConst{reg: reg[v], t: v.Shape.Elem, data: v.Attrs.Literal.Bytes()})
	}
	return s
}

// size is the bytes of registers the function needs.
func (s *scalarFunc) size() int { return s.prog.regs * wideBytes }

// loadConsts places the constants in their registers (once per run of the
// step using the function).
func (s *scalarFunc) loadConsts(regs []byte) {
	for _, c := range s.consts {
		loadWide(regAt(regs, c.reg, 1, 1), 1, c.data, c.t, 0)
	}
}

// load sets parameter i to element idx of src.
func (s *scalarFunc) load(regs []byte, i int, src []byte, idx int) {
	loadWide(regAt(regs, s.params[i], 1, 1), 1, src, s.paramT[i], idx)
}

// set sets parameter i to the value of result j (a fold's accumulator).
func (s *scalarFunc) set(regs []byte, i, j int) {
	a, b := s.params[i]*wideBytes, s.results[j]*wideBytes
	copy(regs[a:a+wideBytes], regs[b:b+wideBytes])
}

func (s *scalarFunc) run(regs []byte) { s.prog.run(regs, 1, 1) }

// store writes result j as element idx of dst.
func (s *scalarFunc) store(regs []byte, j int, dst []byte, idx int) {
	storeWide(dst, s.resultT[j], idx, regAt(regs, s.results[j], 1, 1), 1)
}

// truth reads result j as a PRED.
func (s *scalarFunc) truth(regs []byte, j int) bool {
	return elems[int64](regs[s.results[j]*wideBytes:])[0] != 0
}

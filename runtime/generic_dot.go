package runtime

// dot for every element type and form of dimension numbers the GEMM path
// does not take (integer, PRED, narrow-float, complex and mixed-precision
// dots): both operands are converted to the accumulation type and
// transposed to (batch, free, contracting) in the program's arena, then
// every output element accumulates its products in order — the
// evaluator's arithmetic (F32 accumulation for F16, BF16, F8 and F32
// results, each product and sum rounded to the accumulation type; complex
// products with rounded partial products; integers wrapping), so the two
// agree bit for bit.

import (
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() { genericSteps[ssa.OpDot] = buildDot }

// family is the Go type a dot or convolution accumulates in.
type family uint8

const (
	famF32 family = iota
	famF64
	famC64
	famC128
	famInt
)

func familyOf(t ir.ElementType) (family, bool) {
	switch {
	case t == ir.F64:
		return famF64, true
	case t.IsFloat():
		return famF32, true
	case t == ir.C64:
		return famC64, true
	case t == ir.C128:
		return famC128, true
	case t.IsInteger() || t == ir.PRED:
		return famInt, true
	}
	return 0, false
}

// bytes is the size of one value of the family.
func (f family) bytes() int {
	switch f {
	case famF32:
		return 4
	case famC128:
		return 16
	}
	return 8
}

// convertibleTo reports whether operands of type from may feed a dot or
// convolution with result type to (the evaluator's rule).
func convertibleTo(from, to ir.ElementType) bool {
	switch {
	case to.IsComplex():
		return from.IsFloatOrComplex() || from.IsInteger()
	case to.IsFloat():
		return from.IsFloat() || from.IsInteger() || from == ir.PRED
	case to.IsInteger():
		return from.IsInteger() || from == ir.PRED
	case to == ir.PRED:
		return from == ir.PRED
	}
	return false
}

// permutedLoad converts an operand to an accumulation family while
// transposing it: source element i (row-major over dims) is written at
// Σ idx[d]·dst[d].
type permutedLoad struct {
	t    ir.ElementType
	fam  family
	dims []int
	dst  []int
	n    int
}

// newPermutedLoad plans writing operand (dims) in the order perm (the
// operand dimension of each destination dimension).
func newPermutedLoad(t ir.ElementType, fam family, dims, perm []int) permutedLoad {
	pd := make([]int, len(perm))
	for i, d := range perm {
		pd[i] = dims[d]
	}
	ps := denseStrides(pd)
	dst := make([]int, len(dims))
	for i, d := range perm {
		dst[d] = ps[i]
	}
	return permutedLoad{t: t, fam: fam, dims: dims, dst: dst, n: prod(dims)}
}

// run converts src into out (family values), through the wide register w
// (foldTile values).
func (l *permutedLoad) run(out, src []byte, w wideReg) {
	var idx [maxGenericRank]int
	rank := len(l.dims)
	pos := 0
	unsigned := !l.t.IsSigned()
	kind := wideKindOf(l.t)
	for start := 0; start < l.n; start += foldTile {
		m := min(foldTile, l.n-start)
		loadWide(w, m, src, l.t, start)
		for j := 0; j < m; j++ {
			switch l.fam {
			case famF32:
				elems[float32](out)[pos] = float32(wideReal(w, kind, j, unsigned))
			case famF64:
				elems[float64](out)[pos] = wideReal(w, kind, j, unsigned)
			case famC64:
				elems[complex64](out)[pos] = complex64(wideCplx(w, kind, j, unsigned))
			case famC128:
				elems[complex128](out)[pos] = wideCplx(w, kind, j, unsigned)
			default:
				elems[int64](out)[pos] = w.i[j]
			}
			pos = advance(l.dims, l.dst, idx[:rank], pos)
		}
	}
}

// wideReal is value j of a wide register as a float64, as the evaluator's
// wideFloats reads integers (unsigned ones as unsigned).
func wideReal(w wideReg, k wideKind, j int, unsigned bool) float64 {
	switch {
	case k == wideFloat:
		return w.f[j]
	case unsigned:
		return float64(uint64(w.i[j]))
	}
	return float64(w.i[j])
}

func wideCplx(w wideReg, k wideKind, j int, unsigned bool) complex128 {
	if k == wideComplex {
		return w.c[j]
	}
	return complex(wideReal(w, k, j, unsigned), 0)
}

// mulC64 and mulC128 are complex products with each partial product
// rounded (no fused multiply-add), as the evaluator computes them.
func mulC64(a, b complex64) complex64 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(float32(ar*br)-float32(ai*bi), float32(ar*bi)+float32(ai*br))
}

func mulC128(a, b complex128) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(float64(ar*br)-float64(ai*bi), float64(ar*bi)+float64(ai*br))
}

// storeFamily stores accumulator value x (of family f, at index i of vals)
// as element o of dst, rounded to type t.
func storeFamily(dst []byte, t ir.ElementType, o int, f family, vals []byte, i int) {
	switch f {
	case famF32:
		x := elems[float32](vals)[i]
		if t == ir.F32 {
			elems[float32](dst)[o] = x
			return
		}
		storeFloats(dst, t, o, []float64{float64(x)})
	case famF64:
		storeFloats(dst, t, o, elems[float64](vals)[i:i+1])
	case famC64:
		storeComplex(dst, t, o, []complex128{complex128(elems[complex64](vals)[i])})
	case famC128:
		storeComplex(dst, t, o, elems[complex128](vals)[i:i+1])
	default:
		storeInts(dst, t, o, elems[int64](vals)[i:i+1])
	}
}

type dotGenericStep struct {
	lhs, rhs, out loc
	t             ir.ElementType
	fam           family
	b, m, n, k    int
	lload, rload  permutedLoad
	area          loc // lhs, rhs (family values), one accumulator
	lOff, rOff    int
	accOff        int
	wide          int // scratch offset of the conversion register
}

func buildDot(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(k.Values) != 1 || len(v.Args) != 2 || !denseArray(v.Shape) {
		return nil, nil
	}
	ls, rs := v.Args[0].Shape, v.Args[1].Shape
	lb, rb := inputBuffer(k, v.Args[0]), inputBuffer(k, v.Args[1])
	if lb == nil || rb == nil || !denseArray(ls) || !denseArray(rs) {
		return nil, nil
	}
	t := v.Shape.Elem
	fam, ok := familyOf(t)
	if !ok || !convertibleTo(ls.Elem, t) || !convertibleTo(rs.Elem, t) {
		return nil, nil
	}
	dn := v.Attrs.DotDims
	if dn == nil {
		lc := 0
		if ls.Rank() > 1 {
			lc = ls.Rank() - 1
		}
		dn = &ir.DotDimensionNumbers{LhsContracting: []int{lc}, RhsContracting: []int{0}}
	}
	if len(dn.LhsBatch) != len(dn.RhsBatch) || len(dn.LhsContracting) != len(dn.RhsContracting) {
		return nil, nil
	}
	lf := complementDims(ls.Rank(), dn.LhsBatch, dn.LhsContracting)
	rf := complementDims(rs.Rank(), dn.RhsBatch, dn.RhsContracting)
	pick := func(dims, idx []int) []int {
		out := make([]int, len(idx))
		for i, d := range idx {
			out[i] = dims[d]
		}
		return out
	}
	for i := range dn.LhsBatch {
		if ls.Dims[dn.LhsBatch[i]] != rs.Dims[dn.RhsBatch[i]] {
			return nil, nil
		}
	}
	for i := range dn.LhsContracting {
		if ls.Dims[dn.LhsContracting[i]] != rs.Dims[dn.RhsContracting[i]] {
			return nil, nil
		}
	}
	outDims := append(append(pick(ls.Dims, dn.LhsBatch), pick(ls.Dims, lf)...), pick(rs.Dims, rf)...)
	if !slices.Equal(outDims, v.Shape.Dims) {
		return nil, nil
	}
	s := &dotGenericStep{lhs: c.loc(lb), rhs: c.loc(rb), out: c.loc(k.Out), t: t, fam: fam,
		b: prod(pick(ls.Dims, dn.LhsBatch)), m: prod(pick(ls.Dims, lf)), n: prod(pick(rs.Dims, rf)), k: prod(pick(ls.Dims, dn.LhsContracting))}
	s.lload = newPermutedLoad(ls.Elem, fam, ls.Dims, append(append(append([]int{}, dn.LhsBatch...), lf...), dn.LhsContracting...))
	s.rload = newPermutedLoad(rs.Elem, fam, rs.Dims, append(append(append([]int{}, dn.RhsBatch...), rf...), dn.RhsContracting...))
	fb := fam.bytes()
	s.lOff = 0
	s.rOff = roundUp(s.lload.n*fb, 64)
	s.accOff = s.rOff + roundUp(s.rload.n*fb, 64)
	s.area = privateArena(p, s.accOff+64)
	var sp scratchPlan
	s.wide = sp.take(foldTile * wideBytes)
	sp.reserve(p)
	return s, nil
}

func (s *dotGenericStep) name() string { return "dot-generic" }

func (s *dotGenericStep) exec(fr *frame) error {
	area := fr.bytes(s.area)
	w := regAt(fr.scratch[0][s.wide:], 0, foldTile, foldTile)
	l, r, acc := area[s.lOff:s.rOff], area[s.rOff:s.accOff], area[s.accOff:]
	s.lload.run(l, fr.bytes(s.lhs), w)
	s.rload.run(r, fr.bytes(s.rhs), w)
	out := fr.bytes(s.out)
	b, m, n, k := s.b, s.m, s.n, s.k
	o := 0
	for bi := 0; bi < b; bi++ {
		for mi := 0; mi < m; mi++ {
			lo := (bi*m + mi) * k
			for ni := 0; ni < n; ni++ {
				ro := (bi*n + ni) * k
				switch s.fam {
				case famF32:
					lrow, rrow := elems[float32](l)[lo:lo+k], elems[float32](r)[ro:ro+k]
					var a float32
					for j, x := range lrow {
						a += float32(x * rrow[j])
					}
					elems[float32](acc)[0] = a
				case famF64:
					lrow, rrow := elems[float64](l)[lo:lo+k], elems[float64](r)[ro:ro+k]
					var a float64
					for j, x := range lrow {
						a += float64(x * rrow[j])
					}
					elems[float64](acc)[0] = a
				case famC64:
					lrow, rrow := elems[complex64](l)[lo:lo+k], elems[complex64](r)[ro:ro+k]
					var a complex64
					for j, x := range lrow {
						a += mulC64(x, rrow[j])
					}
					elems[complex64](acc)[0] = a
				case famC128:
					lrow, rrow := elems[complex128](l)[lo:lo+k], elems[complex128](r)[ro:ro+k]
					var a complex128
					for j, x := range lrow {
						a += mulC128(x, rrow[j])
					}
					elems[complex128](acc)[0] = a
				default:
					lrow, rrow := elems[int64](l)[lo:lo+k], elems[int64](r)[ro:ro+k]
					var a int64
					for j, x := range lrow {
						a += x * rrow[j]
					}
					elems[int64](acc)[0] = a
				}
				storeFamily(out, s.t, o, s.fam, acc, 0)
				o++
			}
		}
	}
	return nil
}

package eval

// dot (DotGeneral): sums of products over the contracting dimensions, for
// each index of the batch dimensions, the lhs free dimensions and the rhs
// free dimensions, in that output order.
//
// Accumulation follows XLA's HloEvaluator: one accumulator per output
// element, products added in row-major order of the contracting indices (in
// the order lhs_contracting_dims lists them), each product and each sum
// rounded to the accumulation type — F32 for F16, BF16, F8 and F32 results
// (so F16 and BF16 dots accumulate in F32 and round once, as XLA's CPU backend
// does after upcasting them), F64 for F64, C64 and C128 componentwise in their
// own precision. Integer dots wrap at the result's width; a PRED dot is the
// OR of ANDs. Operands may have types other than the result (mixed-precision
// dots such as s8×s8→s32 or bf16×bf16→f32): each is converted exactly to the
// accumulation type first.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

func init() { register(evalDot, ir.OpDot) }

// dotPlan is a dot reduced to a batch of [M,K]×[N,K] products: both operands
// are transposed to (batch…, free…, contracting…).
type dotPlan struct {
	b, m, n, k   int
	lhsPerm      []int
	rhsPerm      []int
	outDims      []int
	lhsDims      []int
	rhsDims      []int
	resultType   ir.ElementType
	resultFamily computeType
}

func planDot(in *ir.Instruction, lhs, rhs ir.Shape) (*dotPlan, error) {
	dn := in.DotDims
	if dn == nil {
		// Dot without dimension numbers: contract the last dimension of lhs
		// with the first of rhs.
		lc := 0
		if lhs.Rank() > 1 {
			lc = lhs.Rank() - 1
		}
		dn = &ir.DotDimensionNumbers{LhsContracting: []int{lc}, RhsContracting: []int{0}}
	}
	if !lhs.IsArray() || !rhs.IsArray() {
		return nil, fmt.Errorf("operands must be arrays, found %v and %v", lhs, rhs)
	}
	if len(dn.LhsBatch) != len(dn.RhsBatch) {
		return nil, fmt.Errorf("lhs has %d batch dimensions and rhs %d, expected equal counts", len(dn.LhsBatch), len(dn.RhsBatch))
	}
	if len(dn.LhsContracting) != len(dn.RhsContracting) {
		return nil, fmt.Errorf("lhs has %d contracting dimensions and rhs %d, expected equal counts", len(dn.LhsContracting), len(dn.RhsContracting))
	}
	lu := make([]bool, lhs.Rank())
	ru := make([]bool, rhs.Rank())
	if err := checkDimList("lhs batch", dn.LhsBatch, lhs.Rank(), lu); err != nil {
		return nil, err
	}
	if err := checkDimList("lhs contracting", dn.LhsContracting, lhs.Rank(), lu); err != nil {
		return nil, err
	}
	if err := checkDimList("rhs batch", dn.RhsBatch, rhs.Rank(), ru); err != nil {
		return nil, err
	}
	if err := checkDimList("rhs contracting", dn.RhsContracting, rhs.Rank(), ru); err != nil {
		return nil, err
	}
	for i := range dn.LhsBatch {
		if a, b := lhs.Dims[dn.LhsBatch[i]], rhs.Dims[dn.RhsBatch[i]]; a != b {
			return nil, fmt.Errorf("lhs batch dimension %d has size %d, rhs batch dimension %d has size %d",
				dn.LhsBatch[i], a, dn.RhsBatch[i], b)
		}
	}
	for i := range dn.LhsContracting {
		if a, b := lhs.Dims[dn.LhsContracting[i]], rhs.Dims[dn.RhsContracting[i]]; a != b {
			return nil, fmt.Errorf("lhs contracting dimension %d has size %d, rhs contracting dimension %d has size %d",
				dn.LhsContracting[i], a, dn.RhsContracting[i], b)
		}
	}
	lf, rf := freeDims(lu), freeDims(ru)
	p := &dotPlan{
		b:       numElements(pick(lhs.Dims, dn.LhsBatch)),
		m:       numElements(pick(lhs.Dims, lf)),
		n:       numElements(pick(rhs.Dims, rf)),
		k:       numElements(pick(lhs.Dims, dn.LhsContracting)),
		lhsPerm: append(append(append([]int{}, dn.LhsBatch...), lf...), dn.LhsContracting...),
		rhsPerm: append(append(append([]int{}, dn.RhsBatch...), rf...), dn.RhsContracting...),
		lhsDims: lhs.Dims,
		rhsDims: rhs.Dims,
	}
	p.outDims = append(append(pick(lhs.Dims, dn.LhsBatch), pick(lhs.Dims, lf)...), pick(rhs.Dims, rf)...)
	p.resultType = in.Shape.Elem
	fam, ok := computeTypeOf(p.resultType)
	if !ok {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
			Detail: fmt.Sprintf("result element type %v is not numeric", p.resultType)}
	}
	p.resultFamily = fam
	for _, t := range []ir.ElementType{lhs.Elem, rhs.Elem} {
		if !convertibleOperand(t, p.resultType) {
			return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
				Detail: fmt.Sprintf("operand type %v with result type %v", t, p.resultType)}
		}
	}
	return p, checkResultDims(in, in.Shape, p.outDims)
}

func evalDot(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 2 {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
			Detail: fmt.Sprintf("dot with %d operands (sparse dots are not supported)", len(ops))}
	}
	p, err := planDot(in, ops[0].Shape(), ops[1].Shape())
	if err != nil {
		return nil, err
	}
	return p.run(ops[0], ops[1])
}

func (p *dotPlan) run(lhs, rhs *ir.Literal) (*ir.Literal, error) {
	switch p.resultFamily {
	case computeF32:
		l := transposeSlice(toFloat32s(wideFloats(lhs)), p.lhsDims, p.lhsPerm)
		r := transposeSlice(toFloat32s(wideFloats(rhs)), p.rhsDims, p.rhsPerm)
		return storeFloat32s(p.resultType, p.outDims, dotF32(l, r, p.b, p.m, p.n, p.k))
	case computeF64:
		l := transposeSlice(wideFloats(lhs), p.lhsDims, p.lhsPerm)
		r := transposeSlice(wideFloats(rhs), p.rhsDims, p.rhsPerm)
		return storeFloat64s(p.resultType, p.outDims, dotF64(l, r, p.b, p.m, p.n, p.k))
	case computeC64:
		l := transposeSlice(toComplex64s(wideComplex(lhs)), p.lhsDims, p.lhsPerm)
		r := transposeSlice(toComplex64s(wideComplex(rhs)), p.rhsDims, p.rhsPerm)
		return storeComplex(p.resultType, p.outDims, dotC64(l, r, p.b, p.m, p.n, p.k))
	case computeC128:
		l := transposeSlice(wideComplex(lhs), p.lhsDims, p.lhsPerm)
		r := transposeSlice(wideComplex(rhs), p.rhsDims, p.rhsPerm)
		return storeComplex(p.resultType, p.outDims, dotC128(l, r, p.b, p.m, p.n, p.k))
	default:
		l := transposeSlice(intValues(lhs), p.lhsDims, p.lhsPerm)
		r := transposeSlice(intValues(rhs), p.rhsDims, p.rhsPerm)
		return storeInts(p.resultType, p.outDims, dotInt(l, r, p.b, p.m, p.n, p.k))
	}
}

// The kernels below take lhs as [b][m][k] and rhs as [b][n][k], row-major,
// and return [b][m][n]. Every product is converted explicitly to the
// accumulation type before it is added, which forbids the compiler to fuse
// the multiply and the add (Go fuses x*y+z on some architectures otherwise),
// so results are identical everywhere.

func dotF32(l, r []float32, b, m, n, k int) []float32 {
	out := make([]float32, b*m*n)
	o := 0
	for bi := 0; bi < b; bi++ {
		for mi := 0; mi < m; mi++ {
			lrow := l[(bi*m+mi)*k : (bi*m+mi+1)*k]
			for ni := 0; ni < n; ni++ {
				rrow := r[(bi*n+ni)*k : (bi*n+ni+1)*k]
				var acc float32
				for j, x := range lrow {
					acc += float32(x * rrow[j])
				}
				out[o] = acc
				o++
			}
		}
	}
	return out
}

func dotF64(l, r []float64, b, m, n, k int) []float64 {
	out := make([]float64, b*m*n)
	o := 0
	for bi := 0; bi < b; bi++ {
		for mi := 0; mi < m; mi++ {
			lrow := l[(bi*m+mi)*k : (bi*m+mi+1)*k]
			for ni := 0; ni < n; ni++ {
				rrow := r[(bi*n+ni)*k : (bi*n+ni+1)*k]
				var acc float64
				for j, x := range lrow {
					acc += float64(x * rrow[j])
				}
				out[o] = acc
				o++
			}
		}
	}
	return out
}

// mulC64 is complex multiplication with each partial product rounded.
func mulC64(a, b complex64) complex64 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(float32(ar*br)-float32(ai*bi), float32(ar*bi)+float32(ai*br))
}

func mulC128(a, b complex128) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(float64(ar*br)-float64(ai*bi), float64(ar*bi)+float64(ai*br))
}

func dotC64(l, r []complex64, b, m, n, k int) []complex128 {
	out := make([]complex128, b*m*n)
	o := 0
	for bi := 0; bi < b; bi++ {
		for mi := 0; mi < m; mi++ {
			lrow := l[(bi*m+mi)*k : (bi*m+mi+1)*k]
			for ni := 0; ni < n; ni++ {
				rrow := r[(bi*n+ni)*k : (bi*n+ni+1)*k]
				var acc complex64
				for j, x := range lrow {
					acc += mulC64(x, rrow[j])
				}
				out[o] = complex128(acc)
				o++
			}
		}
	}
	return out
}

func dotC128(l, r []complex128, b, m, n, k int) []complex128 {
	out := make([]complex128, b*m*n)
	o := 0
	for bi := 0; bi < b; bi++ {
		for mi := 0; mi < m; mi++ {
			lrow := l[(bi*m+mi)*k : (bi*m+mi+1)*k]
			for ni := 0; ni < n; ni++ {
				rrow := r[(bi*n+ni)*k : (bi*n+ni+1)*k]
				var acc complex128
				for j, x := range lrow {
					acc += mulC128(x, rrow[j])
				}
				out[o] = acc
				o++
			}
		}
	}
	return out
}

func dotInt(l, r []int64, b, m, n, k int) []int64 {
	out := make([]int64, b*m*n)
	o := 0
	for bi := 0; bi < b; bi++ {
		for mi := 0; mi < m; mi++ {
			lrow := l[(bi*m+mi)*k : (bi*m+mi+1)*k]
			for ni := 0; ni < n; ni++ {
				rrow := r[(bi*n+ni)*k : (bi*n+ni+1)*k]
				var acc int64
				for j, x := range lrow {
					acc += x * rrow[j]
				}
				out[o] = acc
				o++
			}
		}
	}
	return out
}

package eval

// Helpers shared by the numeric op families (dot, convolution, reductions,
// sort, linear algebra, FFT, batch norm): typed working arrays in the type an
// op computes in, transposition of those arrays, and dimension checks.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// computeType is the Go type an op accumulates in for a result element type,
// following XLA's HloEvaluator (its ElementwiseT): F16, BF16 and F8 compute
// in float32 and round once at the end, F32 in float32, F64 in float64, C64
// in complex64, C128 in complex128, integers in 64 bits wrapped to the
// result's width on the way out (two's complement arithmetic commutes with
// that wrap), PRED as 0/1 integers.
type computeType uint8

const (
	computeF32 computeType = iota
	computeF64
	computeC64
	computeC128
	computeInt
)

func computeTypeOf(t ir.ElementType) (computeType, bool) {
	switch {
	case t == ir.F64:
		return computeF64, true
	case t.IsFloat():
		return computeF32, true
	case t == ir.C64:
		return computeC64, true
	case t == ir.C128:
		return computeC128, true
	case t.IsInteger() || t == ir.PRED:
		return computeInt, true
	}
	return 0, false
}

// convertibleOperand reports whether an operand of type from may feed an op
// that computes in the family of result type to (mixed-precision dot and
// convolution: integers into floats, reals into complex, narrow into wide).
func convertibleOperand(from, to ir.ElementType) bool {
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

// wideFloats reads an integer, PRED or real float literal as float64 values.
func wideFloats(l *ir.Literal) []float64 {
	t := l.Shape().Elem
	if t.IsFloat() {
		return floatValues(l)
	}
	xs := intValues(l)
	out := make([]float64, len(xs))
	for i, x := range xs {
		if t.IsUnsigned() {
			out[i] = float64(uint64(x))
		} else {
			out[i] = float64(x)
		}
	}
	return out
}

// wideComplex reads any numeric literal as complex128 values.
func wideComplex(l *ir.Literal) []complex128 {
	if l.Shape().Elem.IsComplex() {
		return complexValues(l)
	}
	xs := wideFloats(l)
	out := make([]complex128, len(xs))
	for i, x := range xs {
		out[i] = complex(x, 0)
	}
	return out
}

func toFloat32s(xs []float64) []float32 {
	out := make([]float32, len(xs))
	for i, x := range xs {
		out[i] = float32(x)
	}
	return out
}

func toComplex64s(xs []complex128) []complex64 {
	out := make([]complex64, len(xs))
	for i, x := range xs {
		out[i] = complex64(x)
	}
	return out
}

// storeFloat32s writes float32 results into a new literal of real float type
// t, rounding once to t.
func storeFloat32s(t ir.ElementType, dims []int, xs []float32) (*ir.Literal, error) {
	out, err := newArray(t, dims)
	if err != nil {
		return nil, err
	}
	if t == ir.F32 {
		copy(ir.Values[float32](out), xs)
		return out, nil
	}
	wide := make([]float64, len(xs))
	for i, x := range xs {
		wide[i] = float64(x)
	}
	setFloats(out, wide)
	return out, nil
}

// storeFloat64s writes float64 results into a new literal of real float type t.
func storeFloat64s(t ir.ElementType, dims []int, xs []float64) (*ir.Literal, error) {
	out, err := newArray(t, dims)
	if err != nil {
		return nil, err
	}
	setFloats(out, xs)
	return out, nil
}

// storeComplex writes complex128 results into a new C64 or C128 literal.
func storeComplex(t ir.ElementType, dims []int, xs []complex128) (*ir.Literal, error) {
	out, err := newArray(t, dims)
	if err != nil {
		return nil, err
	}
	setComplex(out, xs)
	return out, nil
}

// storeInts writes 64-bit integer results into a new integer or PRED literal,
// wrapping to its width (PRED stores x != 0).
func storeInts(t ir.ElementType, dims []int, xs []int64) (*ir.Literal, error) {
	out, err := newArray(t, dims)
	if err != nil {
		return nil, err
	}
	setInts(out, xs)
	return out, nil
}

// numElements is the product of dims.
func numElements(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// denseStrides returns the row-major strides (in elements) of dims.
func denseStrides(dims []int) []int {
	s := make([]int, len(dims))
	acc := 1
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= dims[i]
	}
	return s
}

// transposeSlice returns the elements of src (row-major over dims) arranged
// row-major over the permuted dimensions: output dimension i is input
// dimension perm[i].
func transposeSlice[T any](src []T, dims, perm []int) []T {
	out := make([]T, len(src))
	if len(src) == 0 {
		return out
	}
	rank := len(perm)
	if rank == 0 {
		out[0] = src[0]
		return out
	}
	identity := true
	for i, p := range perm {
		if p != i {
			identity = false
		}
	}
	if identity {
		copy(out, src)
		return out
	}
	in := denseStrides(dims)
	od := make([]int, rank)
	os := make([]int, rank)
	for i, p := range perm {
		od[i], os[i] = dims[p], in[p]
	}
	inner, innerStride := od[rank-1], os[rank-1]
	idx := make([]int, rank)
	base, o := 0, 0
	for {
		s := base
		for j := 0; j < inner; j++ {
			out[o] = src[s]
			o++
			s += innerStride
		}
		k := rank - 2
		for ; k >= 0; k-- {
			idx[k]++
			base += os[k]
			if idx[k] < od[k] {
				break
			}
			base -= os[k] * od[k]
			idx[k] = 0
		}
		if k < 0 {
			return out
		}
	}
}

// checkDimList verifies that every entry of ds is a dimension number of a
// rank-`rank` array and that none repeats; used[] accumulates across lists.
func checkDimList(what string, ds []int, rank int, used []bool) error {
	for _, d := range ds {
		if d < 0 || d >= rank {
			return fmt.Errorf("%s dimension %d is out of range for rank %d", what, d, rank)
		}
		if used[d] {
			return fmt.Errorf("%s dimension %d is used twice", what, d)
		}
		used[d] = true
	}
	return nil
}

// freeDims lists, in increasing order, the dimensions not marked in used.
func freeDims(used []bool) []int {
	var out []int
	for d, u := range used {
		if !u {
			out = append(out, d)
		}
	}
	return out
}

// pick returns dims[i] for each i in idx.
func pick(dims, idx []int) []int {
	out := make([]int, len(idx))
	for j, i := range idx {
		out[j] = dims[i]
	}
	return out
}

// sameInts reports whether two int slices are equal.
func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkResultDims verifies that the dimensions an op computes equal the ones
// its instruction declares.
func checkResultDims(in *ir.Instruction, s ir.Shape, want []int) error {
	if !fitsDims(s, want) {
		return fmt.Errorf("result dimensions are %v, the instruction declares %v", want, s.Dims)
	}
	return nil
}

// fitsDims reports whether an op's actual result dimensions fit the shape
// its instruction declares: equal, or within the bound of a dynamic
// dimension (literals of dynamic shapes hold their actual sizes).
func fitsDims(declared ir.Shape, actual []int) bool {
	if len(declared.Dims) != len(actual) {
		return false
	}
	for i, d := range declared.Dims {
		if actual[i] != d && !(declared.IsDynamicDim(i) && actual[i] <= d) {
			return false
		}
	}
	return true
}

// scalarLiteralAt returns element i of an array literal as a new scalar
// literal of the same element type.
func scalarLiteralAt(l *ir.Literal, i int) *ir.Literal {
	s := ir.MustNewLiteral(ir.Scalar(l.Shape().Elem))
	es := l.Shape().Elem.ByteSize()
	copy(s.Bytes(), l.Bytes()[i*es:(i+1)*es])
	return s
}

// storeScalarAt copies scalar literal s into element i of array literal l.
func storeScalarAt(l *ir.Literal, i int, s *ir.Literal) {
	es := l.Shape().Elem.ByteSize()
	copy(l.Bytes()[i*es:(i+1)*es], s.Bytes())
}

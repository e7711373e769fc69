package eval

// Literal access in the wide forms ir/ops computes in: float64 for real
// floats, int64 for integers and PRED, complex128 for complex types, read
// exactly and written with XLA's rounding (see ops' elements.go).

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// newArray allocates a zero array literal of type t and the given
// dimensions, refusing sizes above ir.MaxLiteralBytes before allocating.
func newArray(t ir.ElementType, dims []int) (*ir.Literal, error) {
	return ir.NewLiteral(ir.MakeShape(t, dims...))
}

// newResult allocates the zero array literal an instruction of shape s
// computes with actual dimensions dims: dimensions s marks dynamic stay
// dynamic.
func newResult(s ir.Shape, dims []int) (*ir.Literal, error) {
	if !fitsDims(s, dims) {
		return nil, fmt.Errorf("result dimensions are %v, the instruction declares %v", dims, s.Dims)
	}
	return ir.NewLiteral(ir.Shape{Elem: s.Elem, Dims: dims, Dynamic: s.Dynamic})
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

// floatValues reads a real floating-point array literal as float64 values.
func floatValues(l *ir.Literal) []float64 {
	out := make([]float64, l.ElementCount())
	ops.LoadFloats(out, l.Bytes(), l.Shape().Elem, 0)
	return out
}

// setFloats stores v into the real floating-point array literal l, rounding
// each value to l's element type.
func setFloats(l *ir.Literal, v []float64) { ops.StoreFloats(l.Bytes(), l.Shape().Elem, 0, v) }

// intValues reads an integer or PRED array literal as int64 values.
func intValues(l *ir.Literal) []int64 {
	out := make([]int64, l.ElementCount())
	ops.LoadInts(out, l.Bytes(), l.Shape().Elem, 0)
	return out
}

// setInts stores v into the integer or PRED array literal l, wrapping each
// value to l's width.
func setInts(l *ir.Literal, v []int64) { ops.StoreInts(l.Bytes(), l.Shape().Elem, 0, v) }

// complexValues reads a C64 or C128 array literal as complex128 values.
func complexValues(l *ir.Literal) []complex128 {
	out := make([]complex128, l.ElementCount())
	ops.LoadComplex(out, l.Bytes(), l.Shape().Elem, 0)
	return out
}

// setComplex stores v into the C64 or C128 literal l.
func setComplex(l *ir.Literal, v []complex128) { ops.StoreComplex(l.Bytes(), l.Shape().Elem, 0, v) }

// floatAt returns element i of a real floating-point literal.
func floatAt(l *ir.Literal, i int) float64 { return ops.FloatAt(l.Bytes(), l.Shape().Elem, i) }

// setFloatAt stores v, rounded to the literal's type, at element i.
func setFloatAt(l *ir.Literal, i int, v float64) { ops.SetFloatAt(l.Bytes(), l.Shape().Elem, i, v) }

// intAt returns element i of an integer or PRED literal in wide form.
func intAt(l *ir.Literal, i int) int64 { return ops.IntAt(l.Bytes(), l.Shape().Elem, i) }

// setIntAt stores v, wrapped to the literal's type, at element i.
func setIntAt(l *ir.Literal, i int, v int64) { ops.SetIntAt(l.Bytes(), l.Shape().Elem, i, v) }

// scalarIndex reads element i of an integer array literal as an index
// (start indices, branch indices, iteration counts).
func scalarIndex(l *ir.Literal, i int) (int64, error) {
	t := l.Shape().Elem
	if !t.IsInteger() {
		return 0, fmt.Errorf("index operand has element type %v, want an integer type", t)
	}
	return ops.IndexAt(l.Bytes(), t, i), nil
}

// numElements is the product of dims.
func numElements(dims []int) int { return ops.Count(dims) }

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

// arrayBytes lists the storage of array literals.
func arrayBytes(ls []*ir.Literal) [][]byte {
	out := make([][]byte, len(ls))
	for i, l := range ls {
		out[i] = l.Bytes()
	}
	return out
}

// elementTypes lists the element types of literals.
func elementTypes(ls []*ir.Literal) []ir.ElementType {
	out := make([]ir.ElementType, len(ls))
	for i, l := range ls {
		out[i] = l.Shape().Elem
	}
	return out
}

// resultArrayShapes returns the array shapes of a variadic op's result: the
// tuple elements for n > 1 (or a tuple root), the shape itself otherwise.
func resultArrayShapes(s ir.Shape, n int) ([]ir.Shape, error) {
	if n == 1 && !s.IsTuple() {
		return []ir.Shape{s}, nil
	}
	if !s.IsTuple() || len(s.Tuple) != n {
		return nil, fmt.Errorf("result shape %v, expected a tuple of %d arrays", s, n)
	}
	return s.Tuple, nil
}

// packResults is the single result of a one-array op, else the tuple.
func packResults(outs []*ir.Literal, s ir.Shape) *ir.Literal {
	if len(outs) == 1 && !s.IsTuple() {
		return outs[0]
	}
	return ir.NewTupleLiteral(outs...)
}

// unsupported wraps an ops.UnsupportedError as the evaluator's error for
// instruction in; other errors pass through.
func unsupported(in *ir.Instruction, err error) error {
	if ue, ok := err.(*ops.UnsupportedError); ok {
		return &UnsupportedError{Op: in.Opcode, Instruction: in.Name, Detail: ue.Detail}
	}
	return err
}

package ir

import (
	"errors"
	"slices"
)

// Shape inference of scan, ragged-dot and scaled-dot.

// InferScanShape is the shape of scan over dimension dim of its inputs with
// the given carries and body, as XLA infers it: the body's root is the
// per-step output (and, when there are carries, the updated carries last).
// Each per-step output gains the scanned dimension (at dim, of the first
// input's size there); the carries keep their shapes. The body takes one
// parameter per operand (inputs, then carries). A scan needs at least one
// input.
func InferScanShape(inputs, carries []Shape, dim int, body ProgramShape) (Shape, error) {
	const op = "scan"
	if len(inputs) == 0 {
		return Shape{}, errf(op, "cannot infer the shape of a scan with no inputs")
	}
	if n := len(inputs) + len(carries); len(body.Parameters) != n {
		return Shape{}, errf(op, "the body takes %d parameters, but the scan has %d operands (%d inputs, %d carries)",
			len(body.Parameters), n, len(inputs), len(carries))
	}
	first := inputs[0]
	if err := expectArray(op, "input 0", first); err != nil {
		return Shape{}, err
	}
	if dim < 0 || dim >= first.Rank() {
		return Shape{}, errf(op, "scan dimension %d is out of range for input %s", dim, human(first))
	}
	size, dyn := first.Dims[dim], first.IsDynamicDim(dim)
	for i, in := range inputs {
		if err := expectArray(op, "input "+itoa(i), in); err != nil {
			return Shape{}, err
		}
		if dim >= in.Rank() || in.Dims[dim] != size {
			return Shape{}, errf(op, "input %d %s does not have size %d in scan dimension %d", i, human(in), size, dim)
		}
	}
	grow := func(s Shape) (Shape, error) {
		if err := expectArray(op, "per-step output", s); err != nil {
			return Shape{}, err
		}
		if dim > s.Rank() {
			return Shape{}, errf(op, "scan dimension %d is out of range for the per-step output %s", dim, human(s))
		}
		dims := append(append(append([]int{}, s.Dims[:dim]...), size), s.Dims[dim:]...)
		flags := dynamicFlags(s)
		flags = append(append(append([]bool{}, flags[:dim]...), dyn), flags[dim:]...)
		return makeShape(s.Elem, dims, flags), nil
	}
	root := body.Result
	if !root.IsTuple() {
		if len(carries) > 0 {
			return root.Clone(), nil
		}
		return grow(root)
	}
	out := make([]Shape, len(root.Tuple))
	for i, s := range root.Tuple {
		if i+len(carries) < len(root.Tuple) {
			g, err := grow(s)
			if err != nil {
				return Shape{}, err
			}
			out[i] = g
		} else {
			out[i] = s.Clone()
		}
	}
	return checkResult(op, MakeTuple(out...))
}

// InferScaledDotShape is the shape of scaled-dot(lhs, rhs, lhsScale,
// rhsScale), XLA's operand order: the dot of lhs and rhs (their element types may differ, as
// the narrow float types of block-scaled products do), of type preferred
// when it is not InvalidType, else lhs's. Each scale is an array of its
// operand's rank.
func InferScaledDotShape(lhs, rhs, lhsScale, rhsScale Shape, dnums DotDimensionNumbers, preferred ElementType) (Shape, error) {
	const op = "scaled-dot"
	for _, o := range []struct {
		what string
		s    Shape
	}{{"lhs", lhs}, {"rhs", rhs}, {"lhs scale", lhsScale}, {"rhs scale", rhsScale}} {
		if err := expectArray(op, o.what, o.s); err != nil {
			return Shape{}, err
		}
	}
	if lhsScale.Rank() != lhs.Rank() && lhsScale.Rank() != 0 {
		return Shape{}, errf(op, "lhs scale %s must have the rank of lhs %s", human(lhsScale), human(lhs))
	}
	if rhsScale.Rank() != rhs.Rank() && rhsScale.Rank() != 0 {
		return Shape{}, errf(op, "rhs scale %s must have the rank of rhs %s", human(rhsScale), human(rhs))
	}
	s, err := InferDotShape(lhs, rhs.WithElem(lhs.Elem), dnums, InvalidType)
	if err != nil {
		return Shape{}, renamedShapeError(op, err)
	}
	if preferred != InvalidType {
		if !preferred.IsArray() {
			return Shape{}, errf(op, "result element type %v is not an array element type", preferred)
		}
		s.Elem = preferred
	}
	return s, nil
}

// InferRaggedDotShape is the shape of ragged-dot(lhs, rhs, groupSizes) as
// StableHLO's ragged_dot defines it. lhsRagged names the one ragged
// dimension of lhs, groupSizes holds the size of each of its g groups (its
// last dimension is g), and rhsGroup the group dimension of rhs, if any:
//   - lhs's ragged dimension is free (mode 1): rhs has a group dimension of
//     size g, and the result is the dot of lhs and rhs without it;
//   - it is contracting (mode 2): rhs has no group dimension, and the result
//     is the dot with a leading dimension of size g;
//   - it is a batch dimension (mode 3): rhs has no group dimension, and the
//     result is the dot.
//
// The dimension numbers index rhs with its group dimension.
func InferRaggedDotShape(lhs, rhs, groupSizes Shape, dnums DotDimensionNumbers, lhsRagged, rhsGroup []int, preferred ElementType) (Shape, error) {
	const op = "ragged-dot"
	for _, o := range []struct {
		what string
		s    Shape
	}{{"lhs", lhs}, {"rhs", rhs}, {"group_sizes", groupSizes}} {
		if err := expectArray(op, o.what, o.s); err != nil {
			return Shape{}, err
		}
	}
	if !groupSizes.Elem.IsInteger() || groupSizes.Rank() == 0 {
		return Shape{}, errf(op, "group_sizes must be an integer array of rank at least 1, found %s", human(groupSizes))
	}
	g := groupSizes.Dims[groupSizes.Rank()-1]
	if len(lhsRagged) != 1 {
		return Shape{}, errf(op, "expected one lhs ragged dimension, found %s", intList(lhsRagged))
	}
	r := lhsRagged[0]
	if r < 0 || r >= lhs.Rank() {
		return Shape{}, errf(op, "lhs ragged dimension %d is out of range for %s", r, human(lhs))
	}
	if len(rhsGroup) > 1 {
		return Shape{}, errf(op, "expected at most one rhs group dimension, found %s", intList(rhsGroup))
	}
	contains := slices.Contains[[]int]
	mode := 1
	switch {
	case contains(dnums.LhsContracting, r):
		mode = 2
	case contains(dnums.LhsBatch, r):
		mode = 3
	}
	inner, innerDnums := rhs, dnums
	if mode == 1 {
		if len(rhsGroup) != 1 {
			return Shape{}, errf(op, "lhs ragged dimension %d is not contracting or batch, so rhs needs a group dimension", r)
		}
		gd := rhsGroup[0]
		if gd < 0 || gd >= rhs.Rank() {
			return Shape{}, errf(op, "rhs group dimension %d is out of range for %s", gd, human(rhs))
		}
		if contains(dnums.RhsContracting, gd) || contains(dnums.RhsBatch, gd) {
			return Shape{}, errf(op, "rhs group dimension %d is also a contracting or batch dimension", gd)
		}
		if rhs.Dims[gd] != g {
			return Shape{}, errf(op, "rhs group dimension %d has size %d, but group_sizes %s has %d groups", gd, rhs.Dims[gd], human(groupSizes), g)
		}
		dims := append(append([]int{}, rhs.Dims[:gd]...), rhs.Dims[gd+1:]...)
		flags := dynamicFlags(rhs)
		flags = append(append([]bool{}, flags[:gd]...), flags[gd+1:]...)
		inner = makeShape(rhs.Elem, dims, flags)
		shift := func(v []int) []int {
			out := make([]int, len(v))
			for i, d := range v {
				out[i] = d
				if d > gd {
					out[i]--
				}
			}
			return out
		}
		innerDnums.RhsContracting, innerDnums.RhsBatch = shift(dnums.RhsContracting), shift(dnums.RhsBatch)
	} else if len(rhsGroup) != 0 {
		return Shape{}, errf(op, "rhs has a group dimension, but lhs ragged dimension %d is a contracting or batch dimension", r)
	}
	s, err := InferDotShape(lhs, inner, innerDnums, preferred)
	if err != nil {
		return Shape{}, renamedShapeError(op, err)
	}
	if mode == 2 {
		s = makeShape(s.Elem, append([]int{g}, s.Dims...), append([]bool{false}, dynamicFlags(s)...))
	}
	return checkResult(op, s)
}

// renamedShapeError reports err, a dot rule's error, as op's.
func renamedShapeError(op string, err error) error {
	var se *ShapeError
	if errors.As(err, &se) {
		return &ShapeError{Op: op, Msg: se.Msg}
	}
	return err
}

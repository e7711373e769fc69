package ir

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// This file holds what every shape-inference rule shares: the error type, the
// shape comparisons XLA's ShapeInference uses, and the rules of the ops that
// only pass shapes through (tuple, get-tuple-element, optimization barrier,
// tokens, replica and partition ids).
//
// The rules follow XLA's ShapeInference (xla/service/shape_inference.cc) and
// the HLO verifier's checks. Two deliberate differences: operands whose
// floating-point types differ (f32 with bf16) are refused rather than
// promoted to the wider type, as XLA's verifier does by default; and layouts
// are never inferred — an inferred shape carries no meaning in its layout.

// ShapeError is the error shape inference returns: Op is the HLO name of the
// operation ("dot", "reduce-window"), Msg says what was expected and what was
// found.
type ShapeError struct {
	Op  string
	Msg string
}

func (e *ShapeError) Error() string { return e.Op + ": " + e.Msg }

func errf(op, format string, args ...any) error {
	return &ShapeError{Op: op, Msg: fmt.Sprintf(format, args...)}
}

// human prints a shape without its layout, as XLA's ShapeUtil::HumanString.
func human(s Shape) string { return s.StringWithoutLayout() }

// humanProgram prints a computation signature without layouts.
func humanProgram(p ProgramShape) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, s := range p.Parameters {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(human(s))
	}
	b.WriteString(") -> ")
	b.WriteString(human(p.Result))
	return b.String()
}

// intList prints {1,2,3}.
func intList(v []int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(x))
	}
	b.WriteByte('}')
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

// expectArray reports an error unless s is an array shape; what names the
// operand ("lhs", "operand 2").
func expectArray(op, what string, s Shape) error {
	if !s.IsArray() {
		return errf(op, "%s must be an array, found %s", what, human(s))
	}
	return nil
}

// compatible is XLA's ShapeUtil::Compatible: same element types and
// dimensions (tuples element by element), ignoring layouts and whether
// dimensions are dynamic.
func compatible(a, b Shape) bool { return compatibleElems(a, b, false) }

// compatibleIgnoringFpPrecision is XLA's ShapeUtil::
// CompatibleIgnoringFpPrecision: compatible, but for real floating-point
// element types of different widths (bf16 and f32).
func compatibleIgnoringFpPrecision(a, b Shape) bool { return compatibleElems(a, b, true) }

func compatibleElems(a, b Shape, ignoreFp bool) bool {
	if a.Elem != b.Elem && !(ignoreFp && sameIgnoringFpPrecision(a.Elem, b.Elem)) {
		return false
	}
	if a.IsTuple() {
		if len(a.Tuple) != len(b.Tuple) {
			return false
		}
		for i := range a.Tuple {
			if !compatibleElems(a.Tuple[i], b.Tuple[i], ignoreFp) {
				return false
			}
		}
		return true
	}
	return slices.Equal(a.Dims, b.Dims)
}

// scalarOf returns the rank-0 shape of t.
func scalarOf(t ElementType) Shape { return Shape{Elem: t} }

// elementIsSigned is ShapeUtil::ElementIsSigned: signed integers and
// floating-point types.
func elementIsSigned(t ElementType) bool { return t.IsSigned() || t.IsFloat() }

// makeShape builds an array shape, dropping all-false dynamic flags.
func makeShape(t ElementType, dims []int, dynamic []bool) Shape {
	return MakeDynamicShape(t, dims, dynamic)
}

// dynamicFlags returns a copy of s's dynamic flags, one per dimension.
func dynamicFlags(s Shape) []bool {
	d := make([]bool, len(s.Dims))
	for i := range d {
		d[i] = s.IsDynamicDim(i)
	}
	return d
}

// isPermutation reports whether p holds each of 0..n-1 exactly once.
func isPermutation(p []int, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, x := range p {
		if x < 0 || x >= n || seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}

// firstDuplicate returns a value that appears twice in v, or false.
func firstDuplicate(v []int) (int, bool) {
	seen := make(map[int]bool, len(v))
	for _, x := range v {
		if seen[x] {
			return x, true
		}
		seen[x] = true
	}
	return 0, false
}

// addInts returns a+b, or false if the sum overflows an int.
func addInts(a, b int) (int, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// mulInts returns a*b for non-negative a and b, or false on overflow.
func mulInts(a, b int) (int, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt {
		return 0, false
	}
	return int(lo), true
}

// checkResult validates an inferred shape (sizes that overflow, negative
// dimensions) so that no rule hands back a shape nothing can allocate.
func checkResult(op string, s Shape) (Shape, error) {
	if err := s.CheckValid(); err != nil {
		return Shape{}, errf(op, "invalid result shape: %v", err)
	}
	return s, nil
}

// InferTupleShape is the shape of a tuple of the given element shapes.
func InferTupleShape(elems []Shape) Shape { return MakeTuple(elems...) }

// InferGetTupleElementShape is the shape of element index of a tuple.
func InferGetTupleElementShape(tuple Shape, index int) (Shape, error) {
	const op = "get-tuple-element"
	if !tuple.IsTuple() {
		return Shape{}, errf(op, "operand must be a tuple, found %s", human(tuple))
	}
	if index < 0 || index >= len(tuple.Tuple) {
		return Shape{}, errf(op, "index %d is out of range for a tuple of %d elements %s", index, len(tuple.Tuple), human(tuple))
	}
	return tuple.Tuple[index].Clone(), nil
}

// InferOptimizationBarrierShape is the shape of an optimization barrier: its
// operand's shape, unchanged.
func InferOptimizationBarrierShape(operand Shape) (Shape, error) {
	if !operand.IsArray() && !operand.IsTuple() && !operand.IsToken() {
		return Shape{}, errf("opt-barrier", "invalid operand shape %s", human(operand))
	}
	return operand.Clone(), nil
}

// InferAfterAllShape is the shape of after-all: a token. Its operands are
// usually tokens, but XLA accepts any value there (the op orders, it reads
// nothing).
func InferAfterAllShape(operands []Shape) (Shape, error) {
	for i, s := range operands {
		if err := s.CheckValid(); err != nil {
			return Shape{}, errf("after-all", "operand %d: %v", i, err)
		}
	}
	return TokenShape(), nil
}

// InferAddDependencyShape is the shape of add-dependency: its first operand's
// shape; the second operand must be a token.
func InferAddDependencyShape(operand, token Shape) (Shape, error) {
	if !token.IsToken() {
		return Shape{}, errf("add-dependency", "operand 1 must be a token, found %s", human(token))
	}
	return operand.Clone(), nil
}

// InferReplicaIDShape is the shape of replica-id and partition-id: u32[].
func InferReplicaIDShape() Shape { return scalarOf(U32) }

// InferCustomCallShape checks a custom-call: the target is named, and
// operand layout constraints, when given, match the operands one for one.
// The result shape is the one the call declares.
func InferCustomCallShape(target string, operands []Shape, operandLayouts []Shape, result Shape) (Shape, error) {
	const op = "custom-call"
	if target == "" {
		return Shape{}, errf(op, "custom_call_target is empty")
	}
	if strings.HasPrefix(target, "$") {
		return Shape{}, errf(op, "custom_call_target %q is reserved (starts with '$')", target)
	}
	if operandLayouts != nil {
		if len(operandLayouts) != len(operands) {
			return Shape{}, errf(op, "%d operand layout constraints for %d operands", len(operandLayouts), len(operands))
		}
		for i := range operands {
			if !compatible(operandLayouts[i], operands[i]) {
				return Shape{}, errf(op, "operand %d has shape %s, its layout constraint has shape %s", i, human(operands[i]), human(operandLayouts[i]))
			}
		}
	}
	if err := result.CheckValid(); err != nil {
		return Shape{}, errf(op, "invalid result shape: %v", err)
	}
	return result.Clone(), nil
}

package indexing

import (
	"fmt"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// Op is one operation as the analysis sees it: its opcode, its attributes,
// the shapes of its operands and the shape of its result. It carries no
// graph, so that any IR can describe its values with it: ir.Instruction
// through OpOf, the compiler's SSA values directly.
//
// Fusions and calls are analysed through their bodies by OutputToInput,
// InputToOutput and Group; as an Op they are unknown.
type Op struct {
	Opcode   ir.Opcode
	Attrs    *ir.Attrs // nil means no attributes
	Operands []ir.Shape
	Shape    ir.Shape
}

// OpOf describes an instruction as an Op.
func OpOf(in *ir.Instruction) Op {
	shapes := make([]ir.Shape, len(in.Operands))
	for i, o := range in.Operands {
		shapes[i] = o.Shape
	}
	return Op{Opcode: in.Opcode, Attrs: &in.Attrs, Operands: shapes, Shape: in.Shape}
}

var noAttrs ir.Attrs

func (op *Op) attrs() *ir.Attrs {
	if op.Attrs == nil {
		return &noAttrs
	}
	return op.Attrs
}

// NumOutputs is the number of results of the op: the elements of a tuple
// result, or 1.
func (op *Op) NumOutputs() int {
	if op.Shape.IsTuple() {
		return len(op.Shape.Tuple)
	}
	return 1
}

// outputShape returns the shape of output i.
func (op *Op) outputShape(i int) (ir.Shape, error) {
	if i < 0 || i >= op.NumOutputs() {
		return ir.Shape{}, fmt.Errorf("%s: output %d does not exist: the result %v has %d", op.Opcode, i, op.Shape, op.NumOutputs())
	}
	if op.Shape.IsTuple() {
		return op.Shape.Tuple[i], nil
	}
	return op.Shape, nil
}

// OutputToInput returns the maps from the elements of output `output` of op
// to the elements of each of its operands.
func (op *Op) OutputToInput(output int) (x *Indexing, err error) {
	defer recoverInternal(op.Opcode, &err)
	return op.outputToInput(output)
}

// InputToOutput returns the maps from the elements of operand `operand` of
// op to the elements of each of its outputs: the relations of OutputToInput,
// read the other way.
func (op *Op) InputToOutput(operand int) (x *Indexing, err error) {
	defer recoverInternal(op.Opcode, &err)
	return op.inputToOutput(operand)
}

// recoverInternal turns a panic of the expression arithmetic (an overflow of
// int64 on absurd shapes) into an error.
func recoverInternal(op ir.Opcode, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("indexing of %s: internal error: %v", op, r)
	}
}

// The maps are built from these helpers. Bounds come from shapes, so that a
// dimension of size 0 makes the map known empty.

func sizes(dims []int) []int64 {
	s := make([]int64, len(dims))
	for i, d := range dims {
		s[i] = int64(d)
	}
	return s
}

func bounds(dims []int) []affine.Interval {
	b := make([]affine.Interval, len(dims))
	for i, d := range dims {
		b[i] = affine.Interval{Lo: 0, Hi: int64(d) - 1}
	}
	return b
}

// newMap builds a map whose variables are known to match its expressions.
func newMap(results []affine.Expr, dims, rangeVars, rtVars []affine.Interval, cs ...affine.Constraint) *affine.IndexingMap {
	m, err := affine.NewIndexingMap(results, dims, rangeVars, rtVars, cs...)
	if err != nil {
		panic("internal error: " + err.Error())
	}
	return &m
}

// identityMap is (d0, ..., dn) -> (d0, ..., dn) over dims.
func identityMap(dims []int) *affine.IndexingMap {
	res := make([]affine.Expr, len(dims))
	for i := range dims {
		res[i] = affine.Dim(i)
	}
	return newMap(res, bounds(dims), nil, nil)
}

// scalarMap is (d0, ..., dn) -> () over dims: every element reads the one
// element of a scalar.
func scalarMap(dims []int) *affine.IndexingMap {
	return newMap(nil, bounds(dims), nil, nil)
}

func sameDims(a, b []int) bool {
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

// checkArray reports an error unless s is an array.
func checkArray(op ir.Opcode, what string, s ir.Shape) error {
	if !s.IsArray() {
		return fmt.Errorf("%s: %s must be an array, found %v", op, what, s)
	}
	return nil
}

// checkAxes reports an error unless every axis is in [0, rank) and none repeats.
func checkAxes(op ir.Opcode, what string, axes []int, rank int) error {
	seen := make([]bool, rank)
	for _, a := range axes {
		if a < 0 || a >= rank {
			return fmt.Errorf("%s: %s %v: dimension %d is out of range for rank %d", op, what, axes, a, rank)
		}
		if seen[a] {
			return fmt.Errorf("%s: %s %v: dimension %d appears twice", op, what, axes, a)
		}
		seen[a] = true
	}
	return nil
}

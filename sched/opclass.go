package sched

import (
	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/affine/indexing"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// OpClass is how a value can take part in a fused loop. It is derived, for
// every op alike, from the value's output-to-input indexing maps (package
// affine/indexing) and the op table's elementwise property: there is no
// list of op names here.
type OpClass uint8

// Op classes.
const (
	// Opaque values are computed by a kernel of their own: some operand is
	// read through no map, several maps, or a map that is not strided
	// (reductions, windows, gathers, pads, concatenations, …), or the value
	// has side effects, regions, tuples or dynamic dimensions.
	Opaque OpClass = iota
	// Elementwise values compute each output element from the operand
	// elements at strided positions (the output's own index, or a scalar's
	// one element): arithmetic, comparisons, conversions, selects.
	Elementwise
	// Movement values read one operand of the same element type through a
	// strided map that is not elementwise: the element moves, nothing is
	// computed (broadcast, transpose, slice, reverse, strided reshapes and
	// bitcasts). A loop reads through them by changing its strides, so they
	// cost nothing to recompute in every kernel that reads them.
	Movement
	// Generator values read no operand: iotas and scalar constants, whose
	// elements a loop computes from the index alone.
	Generator
)

var opClassNames = [...]string{"opaque", "elementwise", "movement", "generator"}

func (c OpClass) String() string { return opClassNames[c] }

// ClassOf returns v's op class.
func ClassOf(v *ssa.Value) OpClass {
	if !v.Shape.IsArray() || v.Shape.IsDynamic() || v.Op.HasSideEffect() || len(v.Funcs) != 0 {
		return Opaque
	}
	if len(v.Args) == 0 {
		switch {
		case v.Op == ssa.OpIota:
			return Generator
		case v.IsConstant() && v.Shape.IsScalar():
			return Generator
		}
		return Opaque
	}
	for i := range v.Args {
		if !v.Args[i].Shape.IsArray() {
			return Opaque
		}
		m, ok := operandMap(v, i, identityMap(v.Shape.Dims))
		if !ok {
			return Opaque
		}
		if _, _, ok := stridedRows(m); !ok {
			return Opaque
		}
	}
	switch {
	case v.Op.IsElementwise():
		return Elementwise
	case len(v.Args) == 1 && v.Args[0].Shape.Elem == v.Shape.Elem:
		return Movement
	}
	return Opaque
}

// classes memoises ClassOf over one function.
type classes map[*ssa.Value]OpClass

func (c classes) of(v *ssa.Value) OpClass {
	if k, ok := c[v]; ok {
		return k
	}
	k := ClassOf(v)
	c[v] = k
	return k
}

// identityMap is the map of an index space onto itself.
func identityMap(dims []int) affine.IndexingMap {
	sizes := make([]int64, len(dims))
	for i, d := range dims {
		sizes[i] = int64(d)
	}
	return affine.Identity(sizes...)
}

// operandMap composes m (output → index of v) with v's own output-to-input
// map for operand arg, returning output → index of the operand, or false
// when the analysis has no single map for it.
func operandMap(v *ssa.Value, arg int, m affine.IndexingMap) (affine.IndexingMap, bool) {
	op, isIR := v.Op.IR()
	if !isIR {
		// Kiln's elementwise ops (kiln.gelu) have no HLO indexing rule:
		// element i reads operand element i.
		if v.Op.IsElementwise() && ir.SameDimensions(v.Args[arg].Shape, v.Shape) {
			return m, true
		}
		return affine.IndexingMap{}, false
	}
	shapes := make([]ir.Shape, len(v.Args))
	for i, a := range v.Args {
		shapes[i] = a.Shape
	}
	iop := indexing.Op{Opcode: op, Attrs: &v.Attrs, Operands: shapes, Shape: v.Shape}
	x, err := iop.OutputToInput(0)
	if err != nil || x.IsUnknown(arg) || len(x.Operands[arg]) != 1 {
		return affine.IndexingMap{}, false
	}
	composed, err := m.Compose(*x.Operands[arg][0])
	if err != nil {
		return affine.IndexingMap{}, false
	}
	return composed, true
}

// stridedRows returns, for each result of m, its coefficients over m's
// dimension variables and its constant, or false if m is not strided:
// every result a linear combination of the dimension variables, without
// floordiv, mod, range or runtime variables or constraints.
func stridedRows(m affine.IndexingMap) (rows [][]int, consts []int, ok bool) {
	if m.NumRangeVars() != 0 || m.NumRuntimeVars() != 0 || m.NumConstraints() != 0 || m.IsKnownEmpty() {
		return nil, nil, false
	}
	for j := 0; j < m.NumResults(); j++ {
		row := make([]int, m.NumDims())
		e := m.Result(j)
		for c, t := range e.Terms() {
			if t.Kind() != affine.KindDim {
				return nil, nil, false
			}
			row[t.Index()] += int(c)
		}
		rows = append(rows, row)
		consts = append(consts, int(e.Offset()))
	}
	return rows, consts, true
}

// isIdentityMap reports whether m maps every index to itself: a strided map
// with one result per dimension variable, result j being d_j (a dimension
// of size 1 may be written as the constant 0).
func isIdentityMap(m affine.IndexingMap) bool {
	rows, consts, ok := stridedRows(m)
	if !ok || len(rows) != m.NumDims() {
		return false
	}
	unit := func(d int) bool { b := m.DimBound(d); return b.Lo == b.Hi }
	for j, row := range rows {
		if consts[j] != 0 && !(unit(j) && consts[j] == int(m.DimBound(j).Lo)) {
			return false
		}
		for d, c := range row {
			if unit(d) {
				continue
			}
			if (d == j && c != 1) || (d != j && c != 0) {
				return false
			}
		}
	}
	return true
}

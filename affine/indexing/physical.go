package indexing

import (
	"fmt"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// PhysicalOutputToInput is OutputToInput over physical layouts, XLA's
// GetOutputToInputIndexing with use_physical_layout: the dimensions of the
// output and of each operand are numbered from major to minor as their
// layouts store them, rather than logically. For f32[10,20,30]{1,0,2} read
// elementwise into a result of the default layout, the operand's map is
// (d0, d1, d2) -> (d2, d0, d1).
func PhysicalOutputToInput(in *ir.Instruction, output int) (x *Indexing, err error) {
	defer recoverInternal(in.Opcode, &err)
	x, err = OutputToInput(in, output)
	if err != nil {
		return nil, err
	}
	op := OpOf(in)
	out, err := op.outputShape(output)
	if err != nil {
		return nil, err
	}
	before, err := physicalToLogical(out)
	if err != nil {
		return nil, err
	}
	after := make([]*affine.IndexingMap, len(in.Operands))
	for k, o := range in.Operands {
		if after[k], err = logicalToPhysical(o.Shape); err != nil {
			return nil, err
		}
	}
	return permuteIndexing(x, before, after)
}

// PhysicalInputToOutput is InputToOutput over physical layouts, XLA's
// GetInputToOutputIndexing with use_physical_layout.
func PhysicalInputToOutput(in *ir.Instruction, operand int) (x *Indexing, err error) {
	defer recoverInternal(in.Opcode, &err)
	x, err = InputToOutput(in, operand)
	if err != nil {
		return nil, err
	}
	before, err := physicalToLogical(in.Operands[operand].Shape)
	if err != nil {
		return nil, err
	}
	op := OpOf(in)
	after := make([]*affine.IndexingMap, len(x.Operands))
	for o := range after {
		s, err := op.outputShape(o)
		if err != nil {
			return nil, err
		}
		if after[o], err = logicalToPhysical(s); err != nil {
			return nil, err
		}
	}
	return permuteIndexing(x, before, after)
}

// permuteIndexing composes before, each map of x, then after[k] for the
// maps of operand k, leaving out the permutations that are identities; a
// nil permutation (a tuple, a token) leaves the maps as they are.
func permuteIndexing(x *Indexing, before *affine.IndexingMap, after []*affine.IndexingMap) (*Indexing, error) {
	if before != nil && isIdentity(before) {
		before = nil
	}
	for k, maps := range x.Operands {
		a := after[k]
		if a != nil && isIdentity(a) {
			a = nil
		}
		ex := x.extras(k)
		for i, m := range maps {
			e := ex[i]
			var err error
			if before != nil {
				if m, e, err = composeOperandIndexing(before, nil, m, e); err != nil {
					return nil, err
				}
			}
			if a != nil && !m.IsUndefined() {
				if m, e, err = composeOperandIndexing(m, e, a, nil); err != nil {
					return nil, err
				}
			}
			maps[i], ex[i] = m, e
		}
	}
	return x, nil
}

// logicalToPhysical maps the logical index of an element of s to its index
// in s's dimensions ordered from major to minor; nil for a shape that is not
// an array.
func logicalToPhysical(s ir.Shape) (*affine.IndexingMap, error) {
	if !s.IsArray() {
		return nil, nil
	}
	if err := checkPlainLayout(s); err != nil {
		return nil, err
	}
	perm := majorToMinor(s)
	res := make([]affine.Expr, len(perm))
	for k, d := range perm {
		res[k] = affine.Dim(d)
	}
	return newMap(res, bounds(s.Dims), nil, nil), nil
}

// physicalToLogical is the inverse of logicalToPhysical.
func physicalToLogical(s ir.Shape) (*affine.IndexingMap, error) {
	if !s.IsArray() {
		return nil, nil
	}
	if err := checkPlainLayout(s); err != nil {
		return nil, err
	}
	perm := majorToMinor(s)
	res := make([]affine.Expr, len(perm))
	for k, d := range perm {
		res[d] = affine.Dim(k)
	}
	return newMap(res, bounds(permute(s.Dims, perm)), nil, nil), nil
}

// checkPlainLayout rejects the layouts that are more than an order of the
// dimensions.
func checkPlainLayout(s ir.Shape) error {
	if l := s.Layout; l != nil && (len(l.Tiles) > 0 || len(l.PaddedDims) > 0 || l.ElementSizeBits != 0) {
		return &UnsupportedError{Op: "physical layout", Reason: fmt.Sprintf("the tiled, padded or sub-byte layout of %v", s)}
	}
	return nil
}

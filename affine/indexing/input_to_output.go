package indexing

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// inputToOutput is XLA's ComputeInputToOutputIndexing for one op: the maps
// from the elements of operand `operand` to the elements of each output, for
// the elementwise ops and map, bitcast, broadcast, concatenate, reduce,
// reshape, reverse, slice, transpose, all-reduce and tuple. The outputs of
// other ops are unknown, as in XLA.
func (op *Op) inputToOutput(operand int) (*Indexing, error) {
	if operand < 0 || operand >= len(op.Operands) {
		return nil, fmt.Errorf("%s: operand %d does not exist: the op has %d", op.Opcode, operand, len(op.Operands))
	}
	in := op.Operands[operand]
	if (op.Opcode.IsElementwise() && op.Opcode != ir.OpBitcastConvert) || op.Opcode == ir.OpMap || op.Opcode == ir.OpAllReduce {
		out := op.Shape
		if out.IsTuple() && len(out.Tuple) > 0 {
			out = out.Tuple[0]
		}
		if !out.IsArray() {
			return unknownIndexing(op.NumOutputs()), nil
		}
		return fromMaps(identityMap(out.Dims)), nil
	}
	if !in.IsArray() && op.Opcode != ir.OpTuple {
		return unknownIndexing(op.NumOutputs()), nil
	}
	switch op.Opcode {
	case ir.OpBitcast:
		if _, err := op.outputToInput(0); err != nil { // validates the op
			return nil, err
		}
		m, err := bitcastMap(in, op.Shape)
		if err != nil {
			return nil, err
		}
		return fromMaps(m), nil
	case ir.OpBroadcast:
		if _, err := op.outputToInput(0); err != nil {
			return nil, err
		}
		return fromMaps(broadcastInverse(in.Dims, op.Shape.Dims, op.attrs().Dimensions)), nil
	case ir.OpConcatenate:
		if _, err := op.outputToInput(0); err != nil {
			return nil, err
		}
		cd := op.attrs().Dimensions[0]
		offset := 0
		for k := range operand {
			offset += op.Operands[k].Dims[cd]
		}
		res := dims(len(in.Dims))
		res[cd] = affine.Dim(cd).AddConst(int64(offset))
		return fromMaps(newMap(res, bounds(in.Dims), nil, nil)), nil
	case ir.OpReduce:
		if _, err := op.outputToInput(0); err != nil {
			return nil, err
		}
		return reduceInverse(op, operand), nil
	case ir.OpReshape:
		if _, err := op.outputToInput(0); err != nil {
			return nil, err
		}
		return fromMaps(reshapeMap(in.Dims, op.Shape.Dims)), nil
	case ir.OpReverse:
		return op.outputToInput(0)
	case ir.OpSlice:
		if _, err := op.outputToInput(0); err != nil {
			return nil, err
		}
		return fromMaps(sliceInverse(in.Dims, op.Shape.Dims, op.attrs().Slice)), nil
	case ir.OpTranspose:
		if _, err := op.outputToInput(0); err != nil {
			return nil, err
		}
		perm := op.attrs().Dimensions
		res := make([]affine.Expr, len(perm))
		for i, p := range perm {
			res[i] = affine.Dim(p)
		}
		return fromMaps(newMap(res, bounds(in.Dims), nil, nil)), nil
	case ir.OpTuple:
		if !in.IsArray() {
			return unknownIndexing(1), nil
		}
		return fromMaps(identityMap(in.Dims)), nil
	}
	return unknownIndexing(op.NumOutputs()), nil
}

func dims(n int) []affine.Expr {
	res := make([]affine.Expr, n)
	for i := range res {
		res[i] = affine.Dim(i)
	}
	return res
}

// broadcastInverse: each operand element reaches every output element whose
// broadcast dimensions hold its index; the added dimensions are range
// variables.
func broadcastInverse(in, out, bdims []int) *affine.IndexingMap {
	res := make([]affine.Expr, len(out))
	var ranges []affine.Interval
	for d := range out {
		if i := slices.Index(bdims, d); i >= 0 {
			res[d] = affine.Dim(i)
			continue
		}
		res[d] = affine.RangeVar(len(ranges))
		ranges = append(ranges, affine.Interval{Lo: 0, Hi: int64(out[d]) - 1})
	}
	return newMap(res, bounds(in), ranges, nil)
}

// reduceInverse: an input element reaches the output element at its index
// without the reduced dimensions; an init reaches every output element.
func reduceInverse(op *Op, operand int) *Indexing {
	n := len(op.Operands) / 2
	out := op.Shape
	if out.IsTuple() {
		out = out.Tuple[0]
	}
	x := newIndexing(n)
	var m *affine.IndexingMap
	if operand >= n {
		res := make([]affine.Expr, len(out.Dims))
		for i := range res {
			res[i] = affine.RangeVar(i)
		}
		m = newMap(res, nil, bounds(out.Dims), nil)
	} else {
		in := op.Operands[operand]
		reduced := op.attrs().Dimensions
		var res []affine.Expr
		for d := range in.Dims {
			if !slices.Contains(reduced, d) {
				res = append(res, affine.Dim(d))
			}
		}
		m = newMap(res, bounds(in.Dims), nil, nil)
	}
	for k := range n {
		x.set(k, m, nil)
	}
	return x
}

// sliceInverse: an operand element inside the slice, on its stride, reaches
// the output element (d - start) floordiv stride.
func sliceInverse(in, out []int, sl []ir.SliceDim) *affine.IndexingMap {
	res := make([]affine.Expr, len(sl))
	for i, s := range sl {
		res[i] = affine.Dim(i).AddConst(int64(-s.Start)).FloorDiv(int64(s.Stride))
	}
	m := *newMap(res, bounds(in), nil, nil)
	for i, s := range sl {
		d := affine.Dim(i)
		lo := int64(s.Start)
		m = m.AddConstraint(d, affine.Interval{Lo: lo, Hi: int64(out[i]-1)*int64(s.Stride) + lo})
		m = m.AddConstraint(d.AddConst(-lo).Mod(int64(s.Stride)), affine.Interval{})
	}
	return &m
}

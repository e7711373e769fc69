package indexing

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// outputToInput is XLA's ComputeOutputToInputIndexing for one op.
func (op *Op) outputToInput(output int) (*Indexing, error) {
	out, err := op.outputShape(output)
	if err != nil {
		return nil, err
	}
	if len(op.Operands) == 0 {
		// Constants, iotas, parameters: nothing is read.
		return newIndexing(0), nil
	}
	if (op.Opcode.IsElementwise() && op.Opcode != ir.OpBitcastConvert) || op.Opcode == ir.OpMap {
		return elementwise(op, out)
	}
	switch op.Opcode {
	case ir.OpAllGather:
		return allGather(op, out)
	case ir.OpAllReduce:
		return allReduce(op, output)
	case ir.OpBitcast:
		return bitcast(op, out)
	case ir.OpBitcastConvert:
		return bitcastConvert(op, out)
	case ir.OpBroadcast:
		return broadcast(op, out)
	case ir.OpConcatenate:
		return concatenate(op, out)
	case ir.OpConvolution:
		return convolution(op, out)
	case ir.OpDomain:
		return elementwise(op, out)
	case ir.OpDot:
		return dot(op, out)
	case ir.OpDynamicSlice:
		return dynamicSlice(op, out)
	case ir.OpDynamicUpdateSlice:
		return dynamicUpdateSlice(op, out)
	case ir.OpGather:
		return gather(op, out)
	case ir.OpGetTupleElement:
		return getTupleElement(op, out)
	case ir.OpPad:
		return pad(op, out)
	case ir.OpReduce:
		return reduce(op, out)
	case ir.OpReduceWindow:
		return reduceWindow(op, out)
	case ir.OpReshape:
		return reshape(op, out)
	case ir.OpReverse:
		return reverse(op, out)
	case ir.OpScaledDot:
		return scaledDot(op, out)
	case ir.OpScan:
		return scan(op, output, out)
	case ir.OpSlice:
		return slice(op, out)
	case ir.OpSort:
		return sortOp(op, out)
	case ir.OpTranspose:
		return transpose(op, out)
	case ir.OpTuple:
		return tuple(op, output)
	case ir.OpBatchNormInference:
		return batchNormInference(op, out)
	case ir.OpCustomCall:
		return kilnCustomCall(op, out)
	}
	return unknownIndexing(len(op.Operands)), nil
}

// elementwise: every operand is read at the output's index; scalar operands
// (clamp's bounds, select's predicate) at their one element.
func elementwise(op *Op, out ir.Shape) (*Indexing, error) {
	x := newIndexing(len(op.Operands))
	var id *affine.IndexingMap
	for k, s := range op.Operands {
		if err := checkArray(op.Opcode, fmt.Sprintf("operand %d", k), s); err != nil {
			return nil, err
		}
		switch {
		case sameDims(s.Dims, out.Dims):
			if id == nil {
				id = identityMap(out.Dims)
			}
			x.Operands[k] = []*affine.IndexingMap{id}
		case len(s.Dims) == 0:
			x.Operands[k] = []*affine.IndexingMap{scalarMap(out.Dims)}
		default:
			return nil, fmt.Errorf("%s: operand %d has shape %v, expected the output's dimensions %v or a scalar", op.Opcode, k, s, out.Dims)
		}
	}
	return x, nil
}

// bitcast: the element at the same place in memory, under both layouts.
func bitcast(op *Op, out ir.Shape) (*Indexing, error) {
	if err := checkArray(op.Opcode, "operand", op.Operands[0]); err != nil {
		return nil, err
	}
	m, err := bitcastMap(out, op.Operands[0])
	if err != nil {
		return nil, err
	}
	return fromMaps(m), nil
}

// bitcastConvert between types of the same width is elementwise; to a
// narrower type it adds a minor dimension of the parts of an element, and
// from a narrower type it reads all the parts of the minor dimension.
func bitcastConvert(op *Op, out ir.Shape) (*Indexing, error) {
	in := op.Operands[0]
	if err := checkArray(op.Opcode, "operand", in); err != nil {
		return nil, err
	}
	switch len(in.Dims) - len(out.Dims) {
	case 0:
		if !sameDims(in.Dims, out.Dims) {
			break
		}
		return fromMaps(identityMap(out.Dims)), nil
	case -1:
		if !sameDims(in.Dims, out.Dims[:len(in.Dims)]) {
			break
		}
		res := make([]affine.Expr, len(in.Dims))
		for i := range res {
			res[i] = affine.Dim(i)
		}
		return fromMaps(newMap(res, bounds(out.Dims), nil, nil)), nil
	case 1:
		if !sameDims(in.Dims[:len(out.Dims)], out.Dims) {
			break
		}
		res := make([]affine.Expr, len(in.Dims))
		for i := range out.Dims {
			res[i] = affine.Dim(i)
		}
		res[len(out.Dims)] = affine.RangeVar(0)
		return fromMaps(newMap(res, bounds(out.Dims), bounds(in.Dims[len(out.Dims):]), nil)), nil
	}
	return nil, fmt.Errorf("bitcast-convert: operand %v and result %v differ in more than the minor dimension", in, out)
}

// broadcast: output dimension Dimensions[i] is operand dimension i.
func broadcast(op *Op, out ir.Shape) (*Indexing, error) {
	in := op.Operands[0]
	dims := op.attrs().Dimensions
	if err := checkArray(op.Opcode, "operand", in); err != nil {
		return nil, err
	}
	if len(dims) != len(in.Dims) {
		return nil, fmt.Errorf("broadcast: dimensions=%v has %d entries, expected one per operand dimension (%d)", dims, len(dims), len(in.Dims))
	}
	if err := checkAxes(op.Opcode, "dimensions", dims, len(out.Dims)); err != nil {
		return nil, err
	}
	res := make([]affine.Expr, len(dims))
	for i, d := range dims {
		if in.Dims[i] != out.Dims[d] {
			return nil, fmt.Errorf("broadcast: operand dimension %d has size %d, output dimension %d has size %d", i, in.Dims[i], d, out.Dims[d])
		}
		res[i] = affine.Dim(d)
	}
	return fromMaps(newMap(res, bounds(out.Dims), nil, nil)), nil
}

// concatenate: operand k is read where the output's concatenated dimension
// falls in its part, shifted to the start of that part.
func concatenate(op *Op, out ir.Shape) (*Indexing, error) {
	dims := op.attrs().Dimensions
	if len(dims) != 1 || dims[0] < 0 || dims[0] >= len(out.Dims) {
		return nil, fmt.Errorf("concatenate: dimensions=%v, expected one dimension of the rank-%d result", dims, len(out.Dims))
	}
	cd := dims[0]
	x := newIndexing(len(op.Operands))
	offset := 0
	for k, s := range op.Operands {
		if err := checkArray(op.Opcode, fmt.Sprintf("operand %d", k), s); err != nil {
			return nil, err
		}
		if len(s.Dims) != len(out.Dims) {
			return nil, fmt.Errorf("concatenate: operand %d has rank %d, the result %d", k, len(s.Dims), len(out.Dims))
		}
		res := make([]affine.Expr, len(out.Dims))
		b := bounds(out.Dims)
		for i := range res {
			res[i] = affine.Dim(i)
			if i != cd && s.Dims[i] != out.Dims[i] {
				return nil, fmt.Errorf("concatenate: operand %d has size %d in dimension %d, the result %d", k, s.Dims[i], i, out.Dims[i])
			}
		}
		res[cd] = affine.Dim(cd).AddConst(int64(-offset))
		b[cd] = affine.Interval{Lo: int64(offset), Hi: int64(offset+s.Dims[cd]) - 1}
		x.Operands[k] = []*affine.IndexingMap{newMap(res, b, nil, nil)}
		offset += s.Dims[cd]
	}
	if offset != out.Dims[cd] {
		return nil, fmt.Errorf("concatenate: the operands have %d elements in dimension %d, the result %d", offset, cd, out.Dims[cd])
	}
	return x, nil
}

// dot: batch dimensions, then the free dimensions of lhs, then those of
// rhs, are the output's; contracting dimensions pair up as range variables.
func dot(op *Op, out ir.Shape) (*Indexing, error) {
	if len(op.Operands) != 2 {
		return nil, fmt.Errorf("dot: expected 2 operands, found %d", len(op.Operands))
	}
	dn := op.attrs().DotDims
	if dn == nil {
		dn = &ir.DotDimensionNumbers{}
	}
	lhs, rhs := op.Operands[0], op.Operands[1]
	if len(dn.LhsBatch) != len(dn.RhsBatch) || len(dn.LhsContracting) != len(dn.RhsContracting) {
		return nil, fmt.Errorf("dot: %v pairs unequal numbers of lhs and rhs dimensions", dn)
	}
	if err := checkAxes(op.Opcode, "lhs batch and contracting dimensions", append(append([]int(nil), dn.LhsBatch...), dn.LhsContracting...), len(lhs.Dims)); err != nil {
		return nil, err
	}
	if err := checkAxes(op.Opcode, "rhs batch and contracting dimensions", append(append([]int(nil), dn.RhsBatch...), dn.RhsContracting...), len(rhs.Dims)); err != nil {
		return nil, err
	}
	lhsExprs := make([]affine.Expr, len(lhs.Dims))
	rhsExprs := make([]affine.Expr, len(rhs.Dims))
	set := make([]bool, len(lhs.Dims)+len(rhs.Dims))
	outDim := 0
	for i := range dn.LhsBatch {
		l, r := dn.LhsBatch[i], dn.RhsBatch[i]
		lhsExprs[l], rhsExprs[r] = affine.Dim(outDim), affine.Dim(outDim)
		set[l], set[len(lhs.Dims)+r] = true, true
		outDim++
	}
	var ranges []affine.Interval
	for i := range dn.LhsContracting {
		l, r := dn.LhsContracting[i], dn.RhsContracting[i]
		if lhs.Dims[l] != rhs.Dims[r] {
			return nil, fmt.Errorf("dot: lhs contracting dimension %d has size %d, rhs contracting dimension %d has size %d", l, lhs.Dims[l], r, rhs.Dims[r])
		}
		s := affine.RangeVar(len(ranges))
		lhsExprs[l], rhsExprs[r] = s, s
		set[l], set[len(lhs.Dims)+r] = true, true
		ranges = append(ranges, affine.Interval{Lo: 0, Hi: int64(lhs.Dims[l]) - 1})
	}
	for i := range lhsExprs {
		if !set[i] {
			lhsExprs[i] = affine.Dim(outDim)
			outDim++
		}
	}
	for i := range rhsExprs {
		if !set[len(lhs.Dims)+i] {
			rhsExprs[i] = affine.Dim(outDim)
			outDim++
		}
	}
	if outDim != len(out.Dims) {
		return nil, fmt.Errorf("dot: %v gives a result of rank %d, found %v", dn, outDim, out)
	}
	// Every output dimension is some operand dimension: their sizes agree.
	for _, side := range []struct {
		exprs []affine.Expr
		shape ir.Shape
		name  string
	}{{lhsExprs, lhs, "lhs"}, {rhsExprs, rhs, "rhs"}} {
		for i, e := range side.exprs {
			if e.Kind() == affine.KindDim && side.shape.Dims[i] != out.Dims[e.Index()] {
				return nil, fmt.Errorf("dot: %s dimension %d has size %d, result dimension %d has size %d", side.name, i, side.shape.Dims[i], e.Index(), out.Dims[e.Index()])
			}
		}
	}
	b := bounds(out.Dims)
	return fromMaps(newMap(lhsExprs, b, ranges, nil), newMap(rhsExprs, b, ranges, nil)), nil
}

// scaledDot: XLA's operand order is lhs, rhs, lhs scale, rhs scale. The
// operands are read as by a dot; each scale is read at the operand's index
// divided, dimension by dimension, by the block of operand elements one
// scale element covers.
func scaledDot(op *Op, out ir.Shape) (*Indexing, error) {
	if len(op.Operands) != 4 {
		return nil, fmt.Errorf("scaled-dot: expected 4 operands (lhs, rhs, lhs scale, rhs scale), found %d", len(op.Operands))
	}
	d := *op
	d.Opcode, d.Operands = ir.OpDot, op.Operands[:2]
	x, err := dot(&d, out)
	if err != nil {
		return nil, fmt.Errorf("scaled-dot: %w", err)
	}
	y := newIndexing(4)
	copy(y.Operands, x.Operands)
	for k := range 2 {
		m, err := rescaleMap(x.Operands[k][0], op.Operands[k], op.Operands[k+2])
		if err != nil {
			return nil, fmt.Errorf("scaled-dot: operand %d: %w", k+2, err)
		}
		y.Operands[k+2] = []*affine.IndexingMap{m}
	}
	return y, nil
}

// rescaleMap is m with each result divided by the number of elements of
// operand along that dimension that one element of scale covers.
func rescaleMap(m *affine.IndexingMap, operand, scale ir.Shape) (*affine.IndexingMap, error) {
	if len(scale.Dims) != len(operand.Dims) {
		return nil, fmt.Errorf("the scale %v and the operand %v differ in rank", scale, operand)
	}
	res := m.Results()
	for i, e := range res {
		o, s := operand.Dims[i], scale.Dims[i]
		if s <= 0 || o%s != 0 {
			return nil, fmt.Errorf("scale dimension %d of size %d does not divide the operand's %d", i, s, o)
		}
		if o != s {
			res[i] = e.FloorDiv(int64(o / s))
		}
	}
	return newMap(res, m.DimBounds(), m.RangeVarBounds(), m.RuntimeVarBounds()), nil
}

// scan: the inputs come first, then NumCarries initial carries; the result
// is the stacked outputs, then the final carries. As XLA has it, an element
// of a stacked output reads the inputs at its own index, and every other
// pair (a carry read by an output, any operand read by a final carry) is
// the output's scalar map. A stacked output whose shape is not its input's
// leaves that input unknown.
func scan(op *Op, output int, out ir.Shape) (*Indexing, error) {
	carries := op.attrs().NumCarries
	inputs := len(op.Operands) - carries
	if carries < 0 || inputs < 0 || op.NumOutputs() < carries {
		return nil, fmt.Errorf("scan: num_carries=%d with %d operands and %d results", carries, len(op.Operands), op.NumOutputs())
	}
	if err := checkArray(op.Opcode, fmt.Sprintf("output %d", output), out); err != nil {
		return nil, err
	}
	stacked := output < op.NumOutputs()-carries
	x := newIndexing(len(op.Operands))
	scalar := scalarMap(out.Dims)
	for k, s := range op.Operands {
		if stacked && k < inputs {
			if sameDims(s.Dims, out.Dims) {
				x.Operands[k] = []*affine.IndexingMap{identityMap(out.Dims)}
			} else {
				// A step that changes the element's shape: not expressed.
				x.setUnknown(k)
			}
			continue
		}
		x.Operands[k] = []*affine.IndexingMap{scalar}
	}
	return x, nil
}

// dynamicSlice: the offsets are runtime variables, each ranging over the
// starts that keep the slice inside the operand (the runtime clamps them),
// each the one element of its offset operand; the offsets themselves are
// scalars read by every output element.
func dynamicSlice(op *Op, out ir.Shape) (*Indexing, error) {
	src := op.Operands[0]
	rank := len(out.Dims)
	if err := checkArray(op.Opcode, "operand", src); err != nil {
		return nil, err
	}
	if err := scalarOffsets(op, 1, rank); err != nil {
		return nil, err
	}
	if len(src.Dims) != rank {
		return nil, fmt.Errorf("dynamic-slice: operand %v and result %v have different ranks", src, out)
	}
	res := make([]affine.Expr, rank)
	rts := make([]affine.Interval, rank)
	offsets := scalarMap(out.Dims)
	e := &Extras{}
	for i := range res {
		if out.Dims[i] > src.Dims[i] {
			return nil, fmt.Errorf("dynamic-slice: slice size %d exceeds the operand's size %d in dimension %d", out.Dims[i], src.Dims[i], i)
		}
		res[i] = affine.Dim(i).Add(affine.RuntimeVar(i))
		rts[i] = affine.Interval{Lo: 0, Hi: int64(src.Dims[i] - out.Dims[i])}
		e.RuntimeVars = append(e.RuntimeVars, RuntimeVar{Map: offsets, Operand: 1 + i})
	}
	x := newIndexing(len(op.Operands))
	b := bounds(out.Dims)
	x.set(0, newMap(res, b, nil, rts), e)
	for k := 1; k < len(op.Operands); k++ {
		x.set(k, offsets, nil)
	}
	return x, nil
}

// scalarOffsets checks that operands first.. are `rank` scalar offsets, the
// form of dynamic-slice and dynamic-update-slice that XLA analyses.
func scalarOffsets(op *Op, first, rank int) error {
	if len(op.Operands)-first != rank {
		if len(op.Operands) == first+1 && len(op.Operands[first].Dims) == 1 {
			return &UnsupportedError{Op: op.Opcode.String(), Reason: "offsets given as one vector operand (the old form); expected one scalar per dimension"}
		}
		return fmt.Errorf("%s: expected %d offsets, one per dimension, found %d", op.Opcode, rank, len(op.Operands)-first)
	}
	for k := first; k < len(op.Operands); k++ {
		if s := op.Operands[k]; !s.IsArray() || len(s.Dims) != 0 {
			return fmt.Errorf("%s: offset operand %d must be a scalar, found %v", op.Opcode, k, s)
		}
	}
	return nil
}

// dynamicUpdateSlice: the source is read everywhere (XLA does not restrict
// the map to the elements outside the update), the update at the output's
// index minus the runtime offsets.
func dynamicUpdateSlice(op *Op, out ir.Shape) (*Indexing, error) {
	if len(op.Operands) < 2 {
		return nil, fmt.Errorf("dynamic-update-slice: expected an operand, an update and offsets, found %d operands", len(op.Operands))
	}
	upd := op.Operands[1]
	rank := len(out.Dims)
	if err := checkArray(op.Opcode, "update", upd); err != nil {
		return nil, err
	}
	if err := scalarOffsets(op, 2, rank); err != nil {
		return nil, err
	}
	if !sameDims(op.Operands[0].Dims, out.Dims) || len(upd.Dims) != rank {
		return nil, fmt.Errorf("dynamic-update-slice: operand %v, update %v and result %v do not match", op.Operands[0], upd, out)
	}
	res := make([]affine.Expr, rank)
	rts := make([]affine.Interval, rank)
	offsets := scalarMap(out.Dims)
	e := &Extras{}
	for i := range res {
		if upd.Dims[i] > out.Dims[i] {
			return nil, fmt.Errorf("dynamic-update-slice: update size %d exceeds the operand's size %d in dimension %d", upd.Dims[i], out.Dims[i], i)
		}
		res[i] = affine.Dim(i).Sub(affine.RuntimeVar(i))
		rts[i] = affine.Interval{Lo: 0, Hi: int64(out.Dims[i] - upd.Dims[i])}
		e.RuntimeVars = append(e.RuntimeVars, RuntimeVar{Map: offsets, Operand: 2 + i})
	}
	x := newIndexing(len(op.Operands))
	b := bounds(out.Dims)
	x.set(0, identityMap(out.Dims), nil)
	x.set(1, newMap(res, b, nil, rts), e)
	for k := 2; k < len(op.Operands); k++ {
		x.set(k, offsets, nil)
	}
	return x, nil
}

// gather, in its general form (XLA's operation semantics): the output's
// batch dimensions (those not in offset_dims) index the start indices, the
// offset dimensions index the slice. Operand dimension k is read at the
// output's offset dimension for k (0 for a collapsed dimension, the batch
// index for a batching dimension) plus, when k is in start_index_map, a
// runtime variable: the element of the indices that holds k's start, clamped
// to keep the slice inside the operand. The runtime variables follow the
// order of the operand's dimensions. The indices are read at the batch
// index, along the whole index vector.
func gather(op *Op, out ir.Shape) (*Indexing, error) {
	if len(op.Operands) != 2 {
		return nil, fmt.Errorf("gather: expected 2 operands, found %d", len(op.Operands))
	}
	operand, indices := op.Operands[0], op.Operands[1]
	a := op.attrs()
	dn := a.GatherDims
	if dn == nil {
		return nil, fmt.Errorf("gather: no dimension numbers")
	}
	if err := checkArray(op.Opcode, "operand", operand); err != nil {
		return nil, err
	}
	if err := checkArray(op.Opcode, "start indices", indices); err != nil {
		return nil, err
	}
	rank := len(operand.Dims)
	ivd := dn.IndexVectorDim
	if ivd < 0 || ivd > len(indices.Dims) {
		return nil, fmt.Errorf("gather: index_vector_dim=%d for start indices of rank %d", ivd, len(indices.Dims))
	}
	vecLen := 1
	if ivd < len(indices.Dims) {
		vecLen = indices.Dims[ivd]
	}
	if len(dn.StartIndexMap) != vecLen {
		return nil, fmt.Errorf("gather: start_index_map=%v for index vectors of %d entries", dn.StartIndexMap, vecLen)
	}
	if len(a.GatherSliceSizes) != rank {
		return nil, fmt.Errorf("gather: slice_sizes=%v, expected one size per operand dimension (%d)", a.GatherSliceSizes, rank)
	}
	if len(dn.OperandBatchingDims) != len(dn.StartIndicesBatchingDims) {
		return nil, fmt.Errorf("gather: operand_batching_dims=%v and start_indices_batching_dims=%v differ in length", dn.OperandBatchingDims, dn.StartIndicesBatchingDims)
	}
	for _, c := range []struct {
		name string
		axes []int
		rank int
	}{
		{"offset_dims", dn.OffsetDims, len(out.Dims)},
		{"collapsed_slice_dims and operand_batching_dims", append(append([]int(nil), dn.CollapsedSliceDims...), dn.OperandBatchingDims...), rank},
		{"start_index_map", dn.StartIndexMap, rank},
		{"start_indices_batching_dims", dn.StartIndicesBatchingDims, len(indices.Dims)},
	} {
		if err := checkAxes(op.Opcode, c.name, c.axes, c.rank); err != nil {
			return nil, err
		}
	}
	// The output's batch dimensions, in order, are the dimensions of the
	// indices other than the index vector's.
	var batchOut []int
	for d := range out.Dims {
		if !slices.Contains(dn.OffsetDims, d) {
			batchOut = append(batchOut, d)
		}
	}
	var indexDims []int // dimensions of the indices, without the index vector
	for d := range indices.Dims {
		if d != ivd {
			indexDims = append(indexDims, d)
		}
	}
	if len(batchOut) != len(indexDims) {
		return nil, fmt.Errorf("gather: the result %v has %d batch dimensions, the start indices %v have %d", out, len(batchOut), indices, len(indexDims))
	}
	batchOf := func(indicesDim int) affine.Expr { // the output dimension that indexes it
		return affine.Dim(batchOut[slices.Index(indexDims, indicesDim)])
	}
	res := make([]affine.Expr, rank)
	var rts []affine.Interval
	e := &Extras{}
	offset := 0
	for k := range rank {
		size := a.GatherSliceSizes[k]
		switch {
		case slices.Contains(dn.CollapsedSliceDims, k):
			if size != 1 {
				return nil, fmt.Errorf("gather: collapsed dimension %d has slice size %d, expected 1", k, size)
			}
			res[k] = affine.Const(0)
		case slices.Contains(dn.OperandBatchingDims, k):
			if size != 1 {
				return nil, fmt.Errorf("gather: batching dimension %d has slice size %d, expected 1", k, size)
			}
			res[k] = batchOf(dn.StartIndicesBatchingDims[slices.Index(dn.OperandBatchingDims, k)])
		default:
			if offset >= len(dn.OffsetDims) {
				return nil, fmt.Errorf("gather: offset_dims=%v leaves operand dimension %d without an output dimension", dn.OffsetDims, k)
			}
			od := dn.OffsetDims[offset]
			offset++
			if size < 0 || size > operand.Dims[k] || out.Dims[od] != size {
				return nil, fmt.Errorf("gather: slice size %d of dimension %d does not fit operand %v and result %v", size, k, operand, out)
			}
			res[k] = affine.Dim(od)
		}
		j := slices.Index(dn.StartIndexMap, k)
		if j < 0 {
			continue
		}
		res[k] = res[k].Add(affine.RuntimeVar(len(rts)))
		rts = append(rts, affine.Interval{Lo: 0, Hi: int64(operand.Dims[k] - size)})
		idx := make([]affine.Expr, len(indices.Dims))
		for d := range indices.Dims {
			if d == ivd {
				idx[d] = affine.Const(int64(j))
			} else {
				idx[d] = batchOf(d)
			}
		}
		e.RuntimeVars = append(e.RuntimeVars, RuntimeVar{Map: newMap(idx, bounds(out.Dims), nil, nil), Operand: 1})
	}
	if offset != len(dn.OffsetDims) {
		return nil, fmt.Errorf("gather: offset_dims=%v has more dimensions than the operand's %d slice dimensions", dn.OffsetDims, offset)
	}
	b := bounds(out.Dims)
	idx := make([]affine.Expr, len(indices.Dims))
	var ranges []affine.Interval
	for d := range indices.Dims {
		if d == ivd {
			idx[d] = affine.RangeVar(0)
			ranges = []affine.Interval{{Lo: 0, Hi: int64(vecLen) - 1}}
		} else {
			idx[d] = batchOf(d)
		}
	}
	if len(e.RuntimeVars) == 0 {
		e = nil
	}
	x := newIndexing(2)
	x.set(0, newMap(res, b, nil, rts), e)
	x.set(1, newMap(idx, b, ranges, nil), nil)
	return x, nil
}

// pad: the operand is read at the output's index minus the low padding,
// divided by the stride of the interior padding where the index lands on an
// element; the padding value is read by every output element (XLA does not
// restrict it to the padding).
func pad(op *Op, out ir.Shape) (*Indexing, error) {
	if len(op.Operands) != 2 {
		return nil, fmt.Errorf("pad: expected an operand and a padding value, found %d operands", len(op.Operands))
	}
	in := op.Operands[0]
	p := op.attrs().Padding
	if err := checkScalars(op, 1); err != nil {
		return nil, err
	}
	if len(p) != len(in.Dims) || len(out.Dims) != len(in.Dims) {
		return nil, fmt.Errorf("pad: padding %s has %d dimensions, operand %v, result %v", ir.PaddingString(p), len(p), in, out)
	}
	for i, pd := range p {
		if pd.Interior < 0 {
			return nil, fmt.Errorf("pad: negative interior padding %d in dimension %d", pd.Interior, i)
		}
		n := in.Dims[i]
		if want := pd.Low + pd.High + n + max(n-1, 0)*pd.Interior; want != out.Dims[i] {
			return nil, fmt.Errorf("pad: dimension %d of size %d padded %d_%d_%d has size %d, the result %d", i, n, pd.Low, pd.High, pd.Interior, want, out.Dims[i])
		}
	}
	x := newIndexing(2)
	x.Operands[0] = []*affine.IndexingMap{padMap(out.Dims, p)}
	x.Operands[1] = []*affine.IndexingMap{scalarMap(out.Dims)}
	return x, nil
}

// padMap is XLA's ComputeOutputToInputPadOpIndexingImpl.
func padMap(outDims []int, p []ir.PaddingDim) *affine.IndexingMap {
	res := make([]affine.Expr, len(outDims))
	b := make([]affine.Interval, len(outDims))
	var cs []affine.Constraint
	for i, pd := range p {
		d := affine.Dim(i).AddConst(int64(-pd.Low))
		b[i] = affine.Interval{Lo: int64(max(0, pd.Low)), Hi: int64(min(outDims[i]-1, outDims[i]-1-pd.High))}
		if pd.Interior == 0 {
			res[i] = d
			continue
		}
		res[i] = d.FloorDiv(int64(pd.Interior + 1))
		cs = append(cs, affine.Constraint{Expr: d.Mod(int64(pd.Interior + 1)), Range: affine.Interval{}})
	}
	return newMap(res, b, nil, nil, cs...)
}

// reduce: the reduced dimensions of every input become range variables; the
// inits are scalars read by every output element. Every output of a
// variadic reduce reads all inputs.
func reduce(op *Op, out ir.Shape) (*Indexing, error) {
	n := len(op.Operands) / 2
	if len(op.Operands)%2 != 0 {
		return nil, fmt.Errorf("reduce: expected as many inits as inputs, found %d operands", len(op.Operands))
	}
	in := op.Operands[0]
	dims := op.attrs().Dimensions
	if err := checkScalars(op, n); err != nil {
		return nil, err
	}
	for k := range n {
		if err := checkArray(op.Opcode, fmt.Sprintf("input %d", k), op.Operands[k]); err != nil {
			return nil, err
		}
		if !sameDims(op.Operands[k].Dims, in.Dims) {
			return nil, fmt.Errorf("reduce: input %d has shape %v, input 0 %v", k, op.Operands[k], in)
		}
	}
	if err := checkAxes(op.Opcode, "dimensions", dims, len(in.Dims)); err != nil {
		return nil, err
	}
	reduced := make([]bool, len(in.Dims))
	for _, d := range dims {
		reduced[d] = true
	}
	res := make([]affine.Expr, len(in.Dims))
	var ranges []affine.Interval
	outDim := 0
	for i, size := range in.Dims {
		if reduced[i] {
			res[i] = affine.RangeVar(len(ranges))
			ranges = append(ranges, affine.Interval{Lo: 0, Hi: int64(size) - 1})
			continue
		}
		if outDim >= len(out.Dims) || out.Dims[outDim] != size {
			return nil, fmt.Errorf("reduce: reducing %v over %v does not give %v", in, dims, out)
		}
		res[i] = affine.Dim(outDim)
		outDim++
	}
	if outDim != len(out.Dims) {
		return nil, fmt.Errorf("reduce: reducing %v over %v does not give %v", in, dims, out)
	}
	inputs := newMap(res, bounds(out.Dims), ranges, nil)
	inits := scalarMap(out.Dims)
	x := newIndexing(len(op.Operands))
	for k := range n {
		x.Operands[k] = []*affine.IndexingMap{inputs}
		x.Operands[n+k] = []*affine.IndexingMap{inits}
	}
	return x, nil
}

// reshape: the element with the same row-major linear index.
func reshape(op *Op, out ir.Shape) (*Indexing, error) {
	in := op.Operands[0]
	if err := checkArray(op.Opcode, "operand", in); err != nil {
		return nil, err
	}
	if numElements(in.Dims) != numElements(out.Dims) {
		return nil, fmt.Errorf("reshape: operand %v and result %v have different numbers of elements", in, out)
	}
	return fromMaps(reshapeMap(out.Dims, in.Dims)), nil
}

// reverse: size - 1 - d in the reversed dimensions.
func reverse(op *Op, out ir.Shape) (*Indexing, error) {
	if !sameDims(op.Operands[0].Dims, out.Dims) {
		return nil, fmt.Errorf("reverse: operand %v and result %v differ", op.Operands[0], out)
	}
	dims := op.attrs().Dimensions
	if err := checkAxes(op.Opcode, "dimensions", dims, len(out.Dims)); err != nil {
		return nil, err
	}
	return fromMaps(reverseMap(out.Dims, dims)), nil
}

func reverseMap(shape, dims []int) *affine.IndexingMap {
	res := make([]affine.Expr, len(shape))
	for i := range res {
		res[i] = affine.Dim(i)
	}
	for _, d := range dims {
		res[d] = affine.Dim(d).Neg().AddConst(int64(shape[d] - 1))
	}
	return newMap(res, bounds(shape), nil, nil)
}

// slice: start + d * stride.
func slice(op *Op, out ir.Shape) (*Indexing, error) {
	in := op.Operands[0]
	sl := op.attrs().Slice
	if len(sl) != len(in.Dims) || len(out.Dims) != len(in.Dims) {
		return nil, fmt.Errorf("slice: slice=%s has %d dimensions, operand %v, result %v", ir.SliceString(sl), len(sl), in, out)
	}
	res := make([]affine.Expr, len(sl))
	for i, s := range sl {
		if s.Stride < 1 || s.Start < 0 || s.Limit > in.Dims[i] || s.Start > s.Limit {
			return nil, fmt.Errorf("slice: [%d:%d:%d] does not fit dimension %d of size %d", s.Start, s.Limit, s.Stride, i, in.Dims[i])
		}
		if n := (s.Limit - s.Start + s.Stride - 1) / s.Stride; n != out.Dims[i] {
			return nil, fmt.Errorf("slice: [%d:%d:%d] takes %d elements of dimension %d, the result has %d", s.Start, s.Limit, s.Stride, n, i, out.Dims[i])
		}
		res[i] = affine.Dim(i).Mul(int64(s.Stride)).AddConst(int64(s.Start))
	}
	return fromMaps(newMap(res, bounds(out.Dims), nil, nil)), nil
}

// sortOp: each output element depends on the whole row, along the sorted
// dimension, of every operand.
func sortOp(op *Op, out ir.Shape) (*Indexing, error) {
	dims := op.attrs().Dimensions
	if len(dims) != 1 || dims[0] < 0 || dims[0] >= len(out.Dims) {
		return nil, fmt.Errorf("sort: dimensions=%v, expected one dimension of %v", dims, out)
	}
	for k, s := range op.Operands {
		if !sameDims(s.Dims, out.Dims) {
			return nil, fmt.Errorf("sort: operand %d has shape %v, the output %v", k, s, out)
		}
	}
	res := make([]affine.Expr, len(out.Dims))
	for i := range res {
		res[i] = affine.Dim(i)
	}
	res[dims[0]] = affine.RangeVar(0)
	m := newMap(res, bounds(out.Dims), bounds(out.Dims[dims[0]:dims[0]+1]), nil)
	x := newIndexing(len(op.Operands))
	for k := range op.Operands {
		x.Operands[k] = []*affine.IndexingMap{m}
	}
	return x, nil
}

// transpose: output dimension i is operand dimension Dimensions[i].
func transpose(op *Op, out ir.Shape) (*Indexing, error) {
	in := op.Operands[0]
	perm := op.attrs().Dimensions
	if len(perm) != len(in.Dims) || len(out.Dims) != len(in.Dims) {
		return nil, fmt.Errorf("transpose: dimensions=%v for operand %v and result %v", perm, in, out)
	}
	if err := checkAxes(op.Opcode, "dimensions", perm, len(in.Dims)); err != nil {
		return nil, err
	}
	res := make([]affine.Expr, len(perm))
	for i, p := range perm {
		if in.Dims[p] != out.Dims[i] {
			return nil, fmt.Errorf("transpose: result dimension %d has size %d, operand dimension %d has %d", i, out.Dims[i], p, in.Dims[p])
		}
		res[p] = affine.Dim(i)
	}
	return fromMaps(newMap(res, bounds(out.Dims), nil, nil)), nil
}

// checkScalars reports an error unless the operands from first on (inits,
// padding values) are scalars.
func checkScalars(op *Op, first int) error {
	for k := first; k < len(op.Operands); k++ {
		if s := op.Operands[k]; !s.IsArray() || len(s.Dims) != 0 {
			return fmt.Errorf("%s: operand %d must be a scalar, found %v", op.Opcode, k, s)
		}
	}
	return nil
}

// tuple: output k is operand k; the other operands are not read by it.
func tuple(op *Op, output int) (*Indexing, error) {
	if len(op.Operands) != op.NumOutputs() {
		return nil, fmt.Errorf("tuple: %d operands for a result of %d elements", len(op.Operands), op.NumOutputs())
	}
	x := newIndexing(len(op.Operands))
	s := op.Operands[output]
	if !s.IsArray() {
		x.setUnknown(output)
		return x, nil
	}
	x.Operands[output] = []*affine.IndexingMap{identityMap(s.Dims)}
	return x, nil
}

// batchNormInference: the operand elementwise, and scale, offset, mean and
// variance at the output's feature index.
func batchNormInference(op *Op, out ir.Shape) (*Indexing, error) {
	fi := op.attrs().FeatureIndex
	if len(op.Operands) != 5 || fi < 0 || fi >= len(out.Dims) {
		return nil, fmt.Errorf("batch-norm-inference: expected 5 operands and a feature_index below rank %d, found %d operands and feature_index=%d", len(out.Dims), len(op.Operands), fi)
	}
	if !sameDims(op.Operands[0].Dims, out.Dims) {
		return nil, fmt.Errorf("batch-norm-inference: operand %v and result %v differ", op.Operands[0], out)
	}
	feature := newMap([]affine.Expr{affine.Dim(fi)}, bounds(out.Dims), nil, nil)
	x := newIndexing(5)
	x.Operands[0] = []*affine.IndexingMap{identityMap(out.Dims)}
	for k := 1; k < 5; k++ {
		if s := op.Operands[k]; len(s.Dims) != 1 || s.Dims[0] != out.Dims[fi] {
			return nil, fmt.Errorf("batch-norm-inference: operand %d has shape %v, expected [%d]", k, s, out.Dims[fi])
		}
		x.Operands[k] = []*affine.IndexingMap{feature}
	}
	return x, nil
}

// kilnCustomCall covers Kiln's own ops, which the compiler raises to
// custom-calls named kiln.*: softmax and layer-norm read the whole last
// dimension of their input (layer-norm its scale and bias at the output's
// last index), gelu is elementwise. Other custom-calls are unknown.
func kilnCustomCall(op *Op, out ir.Shape) (*Indexing, error) {
	switch op.attrs().CustomCallTarget {
	case "kiln.gelu":
		return elementwise(op, out)
	case "kiln.softmax", "kiln.layer-norm":
	default:
		return unknownIndexing(len(op.Operands)), nil
	}
	rank := len(out.Dims)
	if rank == 0 || !sameDims(op.Operands[0].Dims, out.Dims) {
		return nil, fmt.Errorf("%s: operand %v and result %v differ or are scalars", op.attrs().CustomCallTarget, op.Operands[0], out)
	}
	row := make([]affine.Expr, rank)
	for i := range row {
		row[i] = affine.Dim(i)
	}
	row[rank-1] = affine.RangeVar(0)
	b := bounds(out.Dims)
	x := newIndexing(len(op.Operands))
	x.Operands[0] = []*affine.IndexingMap{newMap(row, b, b[rank-1:], nil)}
	if op.attrs().CustomCallTarget == "kiln.layer-norm" {
		if len(op.Operands) != 3 {
			return nil, fmt.Errorf("kiln.layer-norm: expected 3 operands, found %d", len(op.Operands))
		}
		last := newMap([]affine.Expr{affine.Dim(rank - 1)}, b, nil, nil)
		for k := 1; k < 3; k++ {
			if s := op.Operands[k]; len(s.Dims) != 1 || s.Dims[0] != out.Dims[rank-1] {
				return nil, fmt.Errorf("kiln.layer-norm: operand %d has shape %v, expected [%d]", k, s, out.Dims[rank-1])
			}
			x.Operands[k] = []*affine.IndexingMap{last}
		}
	} else if len(op.Operands) != 1 {
		return nil, fmt.Errorf("kiln.softmax: expected 1 operand, found %d", len(op.Operands))
	}
	return x, nil
}

// allGather: the operand element at the all-gathered dimension modulo the
// operand's size there, and the replica that holds it (XLA's
// ComputeOutputToInputAllGatherOpIndexing).
func allGather(op *Op, out ir.Shape) (*Indexing, error) {
	if len(op.Operands) != 1 {
		return unknownIndexing(len(op.Operands)), nil
	}
	in := op.Operands[0]
	dims := op.attrs().Dimensions
	if err := checkArray(op.Opcode, "operand", in); err != nil {
		return nil, err
	}
	if len(dims) != 1 || dims[0] < 0 || dims[0] >= len(out.Dims) || len(in.Dims) != len(out.Dims) {
		return nil, fmt.Errorf("all-gather: dimensions=%v for operand %v and result %v", dims, in, out)
	}
	ag := dims[0]
	size := int64(in.Dims[ag])
	if size <= 0 {
		return nil, fmt.Errorf("all-gather: operand %v is empty along dimension %d", in, ag)
	}
	res := make([]affine.Expr, len(out.Dims))
	for i := range res {
		res[i] = affine.Dim(i)
	}
	res[ag] = affine.Dim(ag).Mod(size)
	b := bounds(out.Dims)
	replica := newMap([]affine.Expr{affine.Dim(ag).FloorDiv(size)}, b, nil, nil)
	x := newIndexing(1)
	x.set(0, newMap(res, b, nil, nil), &Extras{ReplicaID: replica})
	return x, nil
}

// allReduce: every output element reads the same element of its operand.
func allReduce(op *Op, output int) (*Indexing, error) {
	out, err := op.outputShape(output)
	if err != nil {
		return nil, err
	}
	if !out.IsArray() {
		return unknownIndexing(len(op.Operands)), nil
	}
	x := newIndexing(len(op.Operands))
	id := identityMap(out.Dims)
	for k := range op.Operands {
		x.set(k, id, nil)
	}
	return x, nil
}

// getTupleElement: the element of the tuple at the output's index.
func getTupleElement(op *Op, out ir.Shape) (*Indexing, error) {
	if len(op.Operands) != 1 || !out.IsArray() {
		return unknownIndexing(len(op.Operands)), nil
	}
	return fromMaps(identityMap(out.Dims)), nil
}

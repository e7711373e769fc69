package ir

import "slices"

// The Builder's gather and scatter.

// Gather adds the slices of operand of the given sizes starting at the
// indices in startIndices, arranged by the dimension numbers (see
// InferGatherShape).
func (b *Builder) Gather(operand, startIndices Op, dnums GatherDimensionNumbers, sliceSizes []int, indicesAreSorted bool) Op {
	const op = "gather"
	if !b.use(op, operand, startIndices) {
		return Op{b: b}
	}
	s, err := InferGatherShape(operand.in.Shape, startIndices.in.Shape, dnums, sliceSizes)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpGather, Shape: s, Operands: []*Instruction{operand.in, startIndices.in}}
	in.GatherDims = &GatherDimensionNumbers{
		OffsetDims:               cloneOrEmpty(dnums.OffsetDims),
		CollapsedSliceDims:       cloneOrEmpty(dnums.CollapsedSliceDims),
		StartIndexMap:            cloneOrEmpty(dnums.StartIndexMap),
		IndexVectorDim:           dnums.IndexVectorDim,
		OperandBatchingDims:      slices.Clone(dnums.OperandBatchingDims),
		StartIndicesBatchingDims: slices.Clone(dnums.StartIndicesBatchingDims),
	}
	in.GatherSliceSizes = slices.Clone(sliceSizes)
	in.IndicesAreSorted = indicesAreSorted
	return b.emit(in)
}

// Scatter adds operand with the slices in updates combined, by the update
// computation comp, into the places the indices in scatterIndices name.
func (b *Builder) Scatter(operand, scatterIndices, updates Op, comp *Computation, dnums ScatterDimensionNumbers, indicesAreSorted, uniqueIndices bool) Op {
	return b.ScatterVariadic([]Op{operand}, scatterIndices, []Op{updates}, comp, dnums, indicesAreSorted, uniqueIndices)
}

// ScatterVariadic scatters several updates arrays into as many operands at
// once; comp takes the current values of every operand, then the update
// values, and returns a tuple. The result is a tuple when there is more
// than one operand.
func (b *Builder) ScatterVariadic(operands []Op, scatterIndices Op, updates []Op, comp *Computation, dnums ScatterDimensionNumbers, indicesAreSorted, uniqueIndices bool) Op {
	const op = "scatter"
	all := append(append(slices.Clone(operands), scatterIndices), updates...)
	if !b.use(op, all...) {
		return Op{b: b}
	}
	p, ok := b.useComputation(op, "to_apply", comp)
	if !ok {
		return Op{b: b}
	}
	s, err := InferScatterShape(shapesOf(operands), scatterIndices.in.Shape, shapesOf(updates), p, dnums)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpScatter, Shape: s, Operands: instructions(all), ToApply: comp}
	in.ScatterDims = &ScatterDimensionNumbers{
		UpdateWindowDims:           cloneOrEmpty(dnums.UpdateWindowDims),
		InsertedWindowDims:         cloneOrEmpty(dnums.InsertedWindowDims),
		ScatterDimsToOperandDims:   cloneOrEmpty(dnums.ScatterDimsToOperandDims),
		IndexVectorDim:             dnums.IndexVectorDim,
		InputBatchingDims:          slices.Clone(dnums.InputBatchingDims),
		ScatterIndicesBatchingDims: slices.Clone(dnums.ScatterIndicesBatchingDims),
	}
	in.IndicesAreSorted, in.UniqueIndices = indicesAreSorted, uniqueIndices
	return b.emit(in)
}

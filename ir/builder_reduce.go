package ir

import "slices"

// The Builder's reductions (reduce, reduce-window, select-and-scatter), sort
// and top-k.

// Reduce adds the reduction of operand over dimensions with the reducer
// comp, starting from init.
func (b *Builder) Reduce(operand, init Op, comp *Computation, dimensions []int) Op {
	return b.ReduceVariadic([]Op{operand}, []Op{init}, comp, dimensions)
}

// ReduceVariadic adds the joint reduction of several operands of the same
// dimensions over dimensions: comp takes the accumulators, then one element
// of each operand, and returns a tuple of the new accumulators. The result
// is a tuple when there is more than one operand.
func (b *Builder) ReduceVariadic(operands, inits []Op, comp *Computation, dimensions []int) Op {
	const op = "reduce"
	if !b.use(op, append(slices.Clone(operands), inits...)...) {
		return Op{b: b}
	}
	p, ok := b.useComputation(op, "to_apply", comp)
	if !ok {
		return Op{b: b}
	}
	s, err := InferReduceShape(shapesOf(operands), shapesOf(inits), dimensions, p)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpReduce, Shape: s, Operands: instructions(append(slices.Clone(operands), inits...)), ToApply: comp}
	in.Dimensions = cloneOrEmpty(dimensions)
	return b.emit(in)
}

// ReduceAll adds the reduction of operand over all its dimensions.
func (b *Builder) ReduceAll(operand, init Op, comp *Computation) Op {
	const op = "reduce"
	if !b.use(op, operand, init) {
		return Op{b: b}
	}
	dims := make([]int, operand.in.Shape.Rank())
	for i := range dims {
		dims[i] = i
	}
	return b.Reduce(operand, init, comp, dims)
}

// ReduceWindow adds the reduction of each window of operand: windows of the
// given sizes at the given strides, with VALID or SAME padding.
func (b *Builder) ReduceWindow(operand, init Op, comp *Computation, windowDims, strides []int, padding PaddingType) Op {
	const op = "reduce-window"
	if !b.use(op, operand, init) {
		return Op{b: b}
	}
	pads, err := MakePadding(operand.in.Shape.Dims, windowDims, strides, padding)
	if err != nil {
		return b.fail(errf(op, "%v", err))
	}
	return b.ReduceWindowWithGeneralPadding([]Op{operand}, []Op{init}, comp, windowDims, strides, nil, nil, pads)
}

// ReduceWindowWithGeneralPadding adds the joint window reduction of several
// operands with explicit strides, base and window dilations (each may be
// empty for the default) and (low, high) padding. The result is a tuple when
// there is more than one operand.
func (b *Builder) ReduceWindowWithGeneralPadding(operands, inits []Op, comp *Computation, windowDims, strides, baseDilations, windowDilations []int, padding [][2]int) Op {
	const op = "reduce-window"
	if !b.use(op, append(slices.Clone(operands), inits...)...) {
		return Op{b: b}
	}
	p, ok := b.useComputation(op, "to_apply", comp)
	if !ok {
		return Op{b: b}
	}
	window, err := MakeWindow(windowDims, strides, padding, baseDilations, windowDilations)
	if err != nil {
		return b.fail(errf(op, "%v", err))
	}
	s, err := InferReduceWindowShape(shapesOf(operands), shapesOf(inits), window, p)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpReduceWindow, Shape: s, Operands: instructions(append(slices.Clone(operands), inits...)), ToApply: comp}
	in.Window = &window
	return b.emit(in)
}

// SelectAndScatter adds the scatter of source into an array of operand's
// shape filled with init: in each window (VALID or SAME padding) the select
// computation picks an element of operand, and scatter combines the source
// value into it.
func (b *Builder) SelectAndScatter(operand Op, sel *Computation, windowDims, strides []int, padding PaddingType, source, init Op, scatter *Computation) Op {
	const op = "select-and-scatter"
	if !b.use(op, operand, source, init) {
		return Op{b: b}
	}
	pads, err := MakePadding(operand.in.Shape.Dims, windowDims, strides, padding)
	if err != nil {
		return b.fail(errf(op, "%v", err))
	}
	return b.SelectAndScatterWithGeneralPadding(operand, sel, windowDims, strides, pads, source, init, scatter)
}

// SelectAndScatterWithGeneralPadding is SelectAndScatter with explicit
// (low, high) padding.
func (b *Builder) SelectAndScatterWithGeneralPadding(operand Op, sel *Computation, windowDims, strides []int, padding [][2]int, source, init Op, scatter *Computation) Op {
	const op = "select-and-scatter"
	if !b.use(op, operand, source, init) {
		return Op{b: b}
	}
	sp, ok := b.useComputation(op, "select", sel)
	if !ok {
		return Op{b: b}
	}
	cp, ok := b.useComputation(op, "scatter", scatter)
	if !ok {
		return Op{b: b}
	}
	window, err := MakeWindow(windowDims, strides, padding, nil, nil)
	if err != nil {
		return b.fail(errf(op, "%v", err))
	}
	s, err := InferSelectAndScatterShape(operand.in.Shape, sp, window, source.in.Shape, init.in.Shape, cp)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpSelectAndScatter, Shape: s, Operands: []*Instruction{operand.in, source.in, init.in}, Select: sel, Scatter: scatter}
	in.Window = &window
	return b.emit(in)
}

// Sort adds the operands sorted together along dimension (-1: the last) by
// comparator, which takes two scalars per operand (operand k's at 2k and
// 2k+1) and says whether the first goes before the second. The result is a
// tuple when there is more than one operand.
func (b *Builder) Sort(operands []Op, comparator *Computation, dimension int, isStable bool) Op {
	const op = "sort"
	if !b.use(op, operands...) {
		return Op{b: b}
	}
	if len(operands) == 0 {
		return b.failf(op, "needs at least one operand")
	}
	p, ok := b.useComputation(op, "comparator", comparator)
	if !ok {
		return Op{b: b}
	}
	if dimension == -1 {
		dimension = operands[0].in.Shape.Rank() - 1
	}
	s, err := InferSortShape(shapesOf(operands), dimension, p)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpSort, Shape: s, Operands: instructions(operands), ToApply: comparator}
	in.Dimensions = []int{dimension}
	in.IsStable = isStable
	return b.emit(in)
}

// TopK adds the k largest (or smallest) elements of operand along its last
// dimension and their s32 indices, as a (values, indices) tuple.
func (b *Builder) TopK(operand Op, k int, largest bool) Op {
	const op = "topk"
	if !b.use(op, operand) {
		return Op{b: b}
	}
	s, err := InferTopKShape(operand.in.Shape, k)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpTopK, Shape: s, Operands: []*Instruction{operand.in}}
	in.K, in.Largest = k, largest
	return b.emit(in)
}

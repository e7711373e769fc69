package ir

import "slices"

// The Builder's data-movement operations: broadcast, reshape, transpose,
// reverse, slices, concatenation, padding, iota and the dimension-size ops,
// and the explicit broadcasts the elementwise ops insert.

// inDimBroadcast adds an HLO broadcast of x to shape, operand dimension i
// becoming dimension dims[i].
func (b *Builder) inDimBroadcast(shape Shape, x Op, dims []int) Op {
	if b.err != nil {
		return Op{b: b}
	}
	s, err := InferBroadcastInDimShape(x.in.Shape, shape, dims)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpBroadcast, Shape: s, Operands: []*Instruction{x.in}}
	in.Dimensions = slices.Clone(dims)
	if in.Dimensions == nil {
		in.Dimensions = []int{}
	}
	return b.emit(in)
}

// addBroadcastSequence broadcasts x, a scalar or an array of out's rank whose
// differing dimensions have size 1, to out's dimensions: a scalar by one
// broadcast; otherwise a reshape dropping the size-1 dimensions, then a
// broadcast (XlaBuilder::AddBroadcastSequence).
func (b *Builder) addBroadcastSequence(out Shape, x Op) Op {
	if b.err != nil {
		return Op{b: b}
	}
	xs := x.in.Shape
	if xs.IsScalar() {
		return b.inDimBroadcast(makeShape(xs.Elem, out.Dims, nil), x, nil)
	}
	if xs.Rank() != out.Rank() {
		return b.failf("broadcast", "cannot broadcast %s to %s: ranks differ", human(xs), human(out))
	}
	var dims, kept []int
	var keptDyn []bool
	dyn := make([]bool, out.Rank())
	for i, n := range xs.Dims {
		if n == out.Dims[i] {
			dims = append(dims, i)
			kept = append(kept, n)
			keptDyn = append(keptDyn, xs.IsDynamicDim(i))
			dyn[i] = xs.IsDynamicDim(i)
			continue
		}
		if n != 1 || xs.IsDynamicDim(i) {
			return b.failf("broadcast", "cannot broadcast %s to %s: dimension %d is neither equal nor a static 1", human(xs), human(out), i)
		}
	}
	reshaped := b.reshapeTo(makeShape(xs.Elem, kept, keptDyn), x)
	return b.inDimBroadcast(makeShape(xs.Elem, out.Dims, dyn), reshaped, dims)
}

// reshapeTo adds a reshape of x to shape.
func (b *Builder) reshapeTo(shape Shape, x Op) Op {
	if b.err != nil {
		return Op{b: b}
	}
	if _, err := InferReshapeShape(x.in.Shape, shape.Dims); err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpReshape, Shape: shape, Operands: []*Instruction{x.in}})
}

// Broadcast adds x broadcast to new major dimensions of the given sizes:
// the result has dimensions sizes ++ x's dimensions.
func (b *Builder) Broadcast(x Op, sizes []int) Op {
	const op = "broadcast"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferBroadcastShape(x.in.Shape, sizes)
	if err != nil {
		return b.fail(err)
	}
	dims := make([]int, x.in.Shape.Rank())
	for i := range dims {
		dims[i] = i + len(sizes)
	}
	return b.inDimBroadcast(s, x, dims)
}

// BroadcastInDim adds x broadcast to dimensions outDims, operand dimension
// i becoming output dimension broadcastDims[i]; operand dimensions of size
// 1 may broadcast to any size.
func (b *Builder) BroadcastInDim(x Op, outDims, broadcastDims []int) Op {
	const op = "broadcast"
	if !b.use(op, x) {
		return Op{b: b}
	}
	xs := x.in.Shape
	for i, n := range outDims {
		if n < 0 {
			return b.failf(op, "output dimension %d has negative size %d", i, n)
		}
	}
	if len(broadcastDims) != xs.Rank() {
		return b.failf(op, "broadcast_dimensions %s must have one entry per dimension of operand %s", intList(broadcastDims), human(xs))
	}
	outDyn := make([]bool, len(outDims))
	for i, d := range broadcastDims {
		if d < 0 || d >= len(outDims) {
			return b.failf(op, "broadcast dimension %d is %d, out of range for %d output dimensions", i, d, len(outDims))
		}
		outDyn[d] = xs.IsDynamicDim(i)
	}
	out := makeShape(xs.Elem, outDims, outDyn)
	if _, err := checkResult(op, out); err != nil {
		return b.fail(err)
	}
	if _, err := InferBroadcastInDimShape(xs, out, broadcastDims); err != nil {
		return b.fail(err)
	}
	inDim := slices.Clone(outDims)
	inDyn := make([]bool, len(outDims))
	for i, d := range broadcastDims {
		inDim[d] = xs.Dims[i]
		inDyn[d] = xs.IsDynamicDim(i)
	}
	inShape := makeShape(xs.Elem, inDim, inDyn)
	bc := b.inDimBroadcast(inShape, x, broadcastDims)
	if slices.Equal(inDim, outDims) {
		return bc
	}
	return b.addBroadcastSequence(out, bc)
}

// Reshape adds x reshaped to newSizes (row-major order of elements kept).
func (b *Builder) Reshape(x Op, newSizes []int) Op {
	const op = "reshape"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferReshapeShape(x.in.Shape, newSizes)
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpReshape, Shape: s, Operands: []*Instruction{x.in}})
}

// Collapse adds x with the consecutive, increasing dimensions merged into
// one whose size is their product.
func (b *Builder) Collapse(x Op, dimensions []int) Op {
	const op = "reshape"
	if !b.use(op, x) {
		return Op{b: b}
	}
	if len(dimensions) <= 1 {
		return x
	}
	xs := x.in.Shape
	for i, d := range dimensions {
		if d < 0 || d >= xs.Rank() {
			return b.failf(op, "collapsed dimension %d is out of range for %s", d, human(xs))
		}
		if i > 0 && d != dimensions[i-1]+1 {
			return b.failf(op, "collapsed dimensions %s must be consecutive and increasing", intList(dimensions))
		}
	}
	var sizes []int
	for i, n := range xs.Dims {
		if i <= dimensions[0] || i > dimensions[len(dimensions)-1] {
			sizes = append(sizes, n)
		} else {
			sizes[len(sizes)-1] *= n
		}
	}
	return b.Reshape(x, sizes)
}

// DynamicReshape adds x reshaped to dimensions whose run-time sizes are the
// s32 scalars dimSizes; bounds are their upper bounds and dynamic marks the
// dimensions whose size varies.
func (b *Builder) DynamicReshape(x Op, dimSizes []Op, bounds []int, dynamic []bool) Op {
	const op = "dynamic-reshape"
	if !b.use(op, append([]Op{x}, dimSizes...)...) {
		return Op{b: b}
	}
	s, err := InferDynamicReshapeShape(x.in.Shape, shapesOf(dimSizes), bounds, dynamic)
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpDynamicReshape, Shape: s, Operands: append([]*Instruction{x.in}, instructions(dimSizes)...)})
}

// Transpose adds x with its dimensions permuted: result dimension i is
// operand dimension permutation[i].
func (b *Builder) Transpose(x Op, permutation []int) Op {
	const op = "transpose"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferTransposeShape(x.in.Shape, permutation)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpTranspose, Shape: s, Operands: []*Instruction{x.in}}
	in.Dimensions = slices.Clone(permutation)
	return b.emit(in)
}

// Rev adds x reversed along dimensions.
func (b *Builder) Rev(x Op, dimensions []int) Op {
	const op = "reverse"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferReverseShape(x.in.Shape, dimensions)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpReverse, Shape: s, Operands: []*Instruction{x.in}}
	in.Dimensions = slices.Clone(dimensions)
	if in.Dimensions == nil {
		in.Dimensions = []int{}
	}
	return b.emit(in)
}

// Slice adds the elements of x from starts (inclusive) to limits
// (exclusive) taking every strides'th.
func (b *Builder) Slice(x Op, starts, limits, strides []int) Op {
	const op = "slice"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferSliceShape(x.in.Shape, starts, limits, strides)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpSlice, Shape: s, Operands: []*Instruction{x.in}}
	in.Slice = make([]SliceDim, len(starts))
	for i := range starts {
		in.Slice[i] = SliceDim{Start: starts[i], Limit: limits[i], Stride: strides[i]}
	}
	return b.emit(in)
}

// SliceInDim adds a slice of x along one dimension, keeping the others whole.
func (b *Builder) SliceInDim(x Op, start, limit, stride, dim int) Op {
	const op = "slice"
	if !b.use(op, x) {
		return Op{b: b}
	}
	xs := x.in.Shape
	if dim < 0 || dim >= xs.Rank() {
		return b.failf(op, "dimension %d is out of range for %s", dim, human(xs))
	}
	starts := make([]int, xs.Rank())
	limits := slices.Clone(xs.Dims)
	strides := make([]int, xs.Rank())
	for i := range strides {
		strides[i] = 1
	}
	starts[dim], limits[dim], strides[dim] = start, limit, stride
	return b.Slice(x, starts, limits, strides)
}

// DynamicSlice adds the slice of x of the given sizes starting at the
// run-time indices starts (one integer scalar per dimension, clamped so the
// slice stays in bounds).
func (b *Builder) DynamicSlice(x Op, starts []Op, sizes []int) Op {
	const op = "dynamic-slice"
	if !b.use(op, append([]Op{x}, starts...)...) {
		return Op{b: b}
	}
	s, err := InferDynamicSliceShape(x.in.Shape, shapesOf(starts), sizes)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpDynamicSlice, Shape: s, Operands: append([]*Instruction{x.in}, instructions(starts)...)}
	in.DynamicSliceSizes = slices.Clone(sizes)
	return b.emit(in)
}

// DynamicUpdateSlice adds x with update written at the run-time indices
// starts (clamped so the update stays in bounds).
func (b *Builder) DynamicUpdateSlice(x, update Op, starts []Op) Op {
	const op = "dynamic-update-slice"
	if !b.use(op, append([]Op{x, update}, starts...)...) {
		return Op{b: b}
	}
	s, err := InferDynamicUpdateSliceShape(x.in.Shape, update.in.Shape, shapesOf(starts))
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpDynamicUpdateSlice, Shape: s, Operands: append([]*Instruction{x.in, update.in}, instructions(starts)...)})
}

// ConcatInDim adds the operands concatenated along dimension.
func (b *Builder) ConcatInDim(operands []Op, dimension int) Op {
	const op = "concatenate"
	if !b.use(op, operands...) {
		return Op{b: b}
	}
	s, err := InferConcatenateShape(shapesOf(operands), dimension)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpConcatenate, Shape: s, Operands: instructions(operands)}
	in.Dimensions = []int{dimension}
	return b.emit(in)
}

// Pad adds x padded with the scalar value: per dimension, low and high edge
// padding (negative values crop) and interior padding between elements.
func (b *Builder) Pad(x, value Op, padding []PaddingDim) Op {
	const op = "pad"
	if !b.use(op, x, value) {
		return Op{b: b}
	}
	s, err := InferPadShape(x.in.Shape, value.in.Shape, padding)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpPad, Shape: s, Operands: []*Instruction{x.in, value.in}}
	in.Padding = slices.Clone(padding)
	return b.emit(in)
}

// PadInDim adds x padded in one dimension with low and high edge padding.
func (b *Builder) PadInDim(x, value Op, dim, low, high int) Op {
	const op = "pad"
	if !b.use(op, x, value) {
		return Op{b: b}
	}
	if dim < 0 || dim >= x.in.Shape.Rank() {
		return b.failf(op, "dimension %d is out of range for %s", dim, human(x.in.Shape))
	}
	padding := make([]PaddingDim, x.in.Shape.Rank())
	padding[dim] = PaddingDim{Low: low, High: high}
	return b.Pad(x, value, padding)
}

// Iota adds an array of shape counting 0, 1, 2, … along dimension.
func (b *Builder) Iota(shape Shape, dimension int) Op {
	const op = "iota"
	if !b.use(op) {
		return Op{b: b}
	}
	s, err := InferIotaShape(shape, dimension)
	if err != nil {
		return b.fail(err)
	}
	if _, err := checkResult(op, s); err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpIota, Shape: s}
	in.IotaDimension = dimension
	return b.emitAsIs(in)
}

// GetDimensionSize adds the run-time size of dimension of x, as an s32 scalar.
func (b *Builder) GetDimensionSize(x Op, dimension int) Op {
	const op = "get-dimension-size"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferGetDimensionSizeShape(x.in.Shape, dimension)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpGetDimensionSize, Shape: s, Operands: []*Instruction{x.in}}
	in.Dimensions = []int{dimension}
	return b.emit(in)
}

// SetDimensionSize adds x with the run-time size of dimension set to the s32
// scalar size; the dimension becomes dynamic, bounded by its static size.
func (b *Builder) SetDimensionSize(x, size Op, dimension int) Op {
	const op = "set-dimension-size"
	if !b.use(op, x, size) {
		return Op{b: b}
	}
	s, err := InferSetDimensionSizeShape(x.in.Shape, size.in.Shape, dimension)
	if err != nil {
		return b.fail(err)
	}
	if n, ok := constantIntValue(size.in); ok && (n < 0 || n > x.in.Shape.Dims[dimension]) {
		return b.failf(op, "size %d is outside [0, %d] for dimension %d of %s", n, x.in.Shape.Dims[dimension], dimension, human(x.in.Shape))
	}
	in := &Instruction{Opcode: OpSetDimensionSize, Shape: s, Operands: []*Instruction{x.in, size.in}}
	in.Dimensions = []int{dimension}
	return b.emit(in)
}

// RemoveDynamicDimension adds x with dimension made static again at its
// bound (a set-dimension-size to a constant of the full size).
func (b *Builder) RemoveDynamicDimension(x Op, dimension int) Op {
	const op = "set-dimension-size"
	if !b.use(op, x) {
		return Op{b: b}
	}
	xs := x.in.Shape
	if dimension < 0 || dimension >= xs.Rank() {
		return b.failf(op, "dimension %d is out of range for %s", dimension, human(xs))
	}
	size := ConstantR0(b, int32(xs.Dims[dimension]))
	if _, err := InferSetDimensionSizeShape(xs, size.Shape(), dimension); err != nil {
		return b.fail(err)
	}
	dyn := dynamicFlags(xs)
	dyn[dimension] = false
	in := &Instruction{Opcode: OpSetDimensionSize, Shape: makeShape(xs.Elem, xs.Dims, dyn), Operands: []*Instruction{x.in, size.in}}
	in.Dimensions = []int{dimension}
	return b.emit(in)
}

// constantIntValue returns the value of a scalar integer constant.
func constantIntValue(in *Instruction) (int, bool) {
	if in == nil || in.Opcode != OpConstant || in.Literal == nil || !in.Literal.Shape().IsScalar() {
		return 0, false
	}
	switch in.Literal.Shape().Elem {
	case S32:
		return int(in.Literal.Int32s()[0]), true
	case S64:
		return int(in.Literal.Int64s()[0]), true
	}
	return 0, false
}

package ir

import (
	"math"
	"slices"
)

// Shape inference of the ops that move data without computing on it:
// broadcast, reshape, transpose, reverse, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, iota and the dimension-size ops.

// InferBroadcastShape is the shape of the client-level Broadcast(operand,
// sizes): new major dimensions of the given sizes, then the operand's.
func InferBroadcastShape(operand Shape, sizes []int) (Shape, error) {
	const op = "broadcast"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	for i, n := range sizes {
		if n < 0 {
			return Shape{}, errf(op, "broadcast size %d is negative (%d)", i, n)
		}
	}
	dims := append(slices.Clone(sizes), operand.Dims...)
	dyn := append(make([]bool, len(sizes)), dynamicFlags(operand)...)
	return checkResult(op, makeShape(operand.Elem, dims, dyn))
}

// InferBroadcastInDimShape checks an HLO broadcast (the client's
// BroadcastInDim) of operand to output, operand dimension i becoming output
// dimension broadcastDims[i]: broadcastDims strictly increasing and in
// range, each operand dimension of size 1 or of the output dimension's size,
// dynamic where the output dimension is. It returns output.
func InferBroadcastInDimShape(operand, output Shape, broadcastDims []int) (Shape, error) {
	const op = "broadcast"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if err := expectArray(op, "result", output); err != nil {
		return Shape{}, err
	}
	if operand.Rank() > output.Rank() {
		return Shape{}, errf(op, "operand %s has a higher rank than the result %s", human(operand), human(output))
	}
	if len(broadcastDims) != operand.Rank() {
		return Shape{}, errf(op, "dimensions %s must have one entry per operand dimension of %s", intList(broadcastDims), human(operand))
	}
	if operand.Elem != output.Elem {
		return Shape{}, errf(op, "result %s must have the operand's element type %s", human(output), operand.Elem)
	}
	for i, d := range broadcastDims {
		if d < 0 || d >= output.Rank() {
			return Shape{}, errf(op, "dimension %d maps to %d, out of range for the result %s", i, d, human(output))
		}
		if i > 0 && broadcastDims[i-1] >= d {
			return Shape{}, errf(op, "dimensions %s must be strictly increasing", intList(broadcastDims))
		}
		if operand.Dims[i] != output.Dims[d] && operand.Dims[i] != 1 {
			return Shape{}, errf(op, "operand dimension %d has size %d, result dimension %d has size %d (expected equal sizes or 1)", i, operand.Dims[i], d, output.Dims[d])
		}
		if operand.IsDynamicDim(i) != output.IsDynamicDim(d) {
			return Shape{}, errf(op, "operand dimension %d and result dimension %d differ in being dynamic (%s and %s)", i, d, human(operand), human(output))
		}
	}
	return output.Clone(), nil
}

// InferReshapeShape is the shape of reshape(operand) to dims: the element
// counts must agree. Operand dimensions the reshape leaves unchanged keep
// their dynamic flags.
func InferReshapeShape(operand Shape, dims []int) (Shape, error) {
	const op = "reshape"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	for i, d := range dims {
		if d < 0 {
			return Shape{}, errf(op, "new dimension %d has negative size %d", i, d)
		}
	}
	out := MakeShape(operand.Elem, dims...)
	if out.ElementCount() < 0 || out.ElementCount() != operand.ElementCount() {
		return Shape{}, errf(op, "element counts differ: operand %s has %d elements, result %s has %d", human(operand), operand.ElementCount(), human(out), out.ElementCount())
	}
	if operand.IsDynamic() {
		dyn := make([]bool, len(dims))
		for _, p := range dimensionsUnmodifiedByReshape(operand.Dims, dims) {
			dyn[p[1]] = operand.IsDynamicDim(p[0])
		}
		out = makeShape(operand.Elem, dims, dyn)
	}
	return out, nil
}

// InferDynamicReshapeShape is the shape of dynamic-reshape(operand, sizes…):
// bounds gives the result's dimension sizes (their upper bounds where
// dynamic flags them), one s32 scalar size operand per result dimension.
func InferDynamicReshapeShape(operand Shape, sizes []Shape, bounds []int, dynamic []bool) (Shape, error) {
	const op = "dynamic-reshape"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if len(bounds) != len(dynamic) {
		return Shape{}, errf(op, "%d dimension bounds with %d dynamic flags", len(bounds), len(dynamic))
	}
	if len(sizes) != len(bounds) {
		return Shape{}, errf(op, "%d size operands for a result of rank %d", len(sizes), len(bounds))
	}
	for i, s := range sizes {
		if !s.IsScalar() || s.Elem != S32 {
			return Shape{}, errf(op, "size operand %d must be an s32 scalar, found %s", i, human(s))
		}
	}
	for i, d := range bounds {
		if d < 0 {
			return Shape{}, errf(op, "dimension %d has negative size %d", i, d)
		}
	}
	out := makeShape(operand.Elem, bounds, dynamic)
	if out.ElementCount() < 0 || out.ElementCount() != operand.ElementCount() {
		return Shape{}, errf(op, "element counts differ: operand %s has %d elements, result %s has %d", human(operand), operand.ElementCount(), human(out), out.ElementCount())
	}
	return out, nil
}

// InferTransposeShape is the shape of transpose(operand) by permutation:
// result dimension i is operand dimension permutation[i].
func InferTransposeShape(operand Shape, permutation []int) (Shape, error) {
	const op = "transpose"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if !isPermutation(permutation, operand.Rank()) {
		return Shape{}, errf(op, "dimensions %s are not a permutation of the dimensions of operand %s", intList(permutation), human(operand))
	}
	dims := make([]int, len(permutation))
	dyn := make([]bool, len(permutation))
	for i, p := range permutation {
		dims[i], dyn[i] = operand.Dims[p], operand.IsDynamicDim(p)
	}
	return makeShape(operand.Elem, dims, dyn), nil
}

// InferReverseShape is the shape of reverse(operand) along dimensions: the
// operand's; the dimensions must be distinct and in range.
func InferReverseShape(operand Shape, dimensions []int) (Shape, error) {
	const op = "reverse"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if d, dup := firstDuplicate(dimensions); dup {
		return Shape{}, errf(op, "dimension %d appears twice in %s", d, intList(dimensions))
	}
	for _, d := range dimensions {
		if d < 0 || d >= operand.Rank() {
			return Shape{}, errf(op, "dimension %d is out of range for operand %s", d, human(operand))
		}
	}
	return operand.Clone(), nil
}

// InferSliceShape is the shape of slice(operand): per dimension
// ceil((limit-start)/stride) elements, with 0 <= start <= limit <= size and
// stride > 0. Taking one element of a dynamic dimension makes it static.
func InferSliceShape(operand Shape, starts, limits, strides []int) (Shape, error) {
	const op = "slice"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if len(starts) != len(limits) || len(starts) != len(strides) {
		return Shape{}, errf(op, "%d start indices, %d limit indices and %d strides (expected the same number)", len(starts), len(limits), len(strides))
	}
	if len(starts) != operand.Rank() {
		return Shape{}, errf(op, "%d slice dimensions for operand %s of rank %d", len(starts), human(operand), operand.Rank())
	}
	dims := make([]int, len(starts))
	dyn := make([]bool, len(starts))
	for i := range starts {
		start, limit, stride := starts[i], limits[i], strides[i]
		switch {
		case start < 0:
			return Shape{}, errf(op, "dimension %d: start index %d is negative", i, start)
		case limit > operand.Dims[i]:
			return Shape{}, errf(op, "dimension %d: limit index %d exceeds the dimension size %d of %s", i, limit, operand.Dims[i], human(operand))
		case start > limit:
			return Shape{}, errf(op, "dimension %d: start index %d is greater than limit index %d", i, start, limit)
		case stride <= 0:
			return Shape{}, errf(op, "dimension %d: stride %d must be positive", i, stride)
		}
		dims[i] = (limit - start + stride - 1) / stride
		dyn[i] = dims[i] != 1 && operand.IsDynamicDim(i)
	}
	return makeShape(operand.Elem, dims, dyn), nil
}

// checkStartIndices checks the start-index operands of dynamic-slice and
// dynamic-update-slice: either one scalar of one integer type per operand
// dimension, or (XLA's older form) a single rank-1 integer array of that
// length.
func checkStartIndices(op string, operand Shape, indices []Shape) error {
	if len(indices) >= 1 && indices[0].Rank() == 1 {
		if len(indices) != 1 {
			return errf(op, "a rank-1 start-index operand must be the only one, found %d index operands", len(indices))
		}
		s := indices[0]
		if !s.Elem.IsInteger() {
			return errf(op, "start indices must have an integer element type, found %s", human(s))
		}
		if s.Dims[0] != operand.Rank() {
			return errf(op, "start indices %s must have one entry per dimension of operand %s", human(s), human(operand))
		}
		return nil
	}
	if len(indices) != operand.Rank() {
		return errf(op, "%d start indices for operand %s of rank %d", len(indices), human(operand), operand.Rank())
	}
	for i, s := range indices {
		if !s.IsScalar() {
			return errf(op, "start index %d must be a scalar, found %s", i, human(s))
		}
		if !s.Elem.IsInteger() {
			return errf(op, "start index %d must have an integer element type, found %s", i, human(s))
		}
		if s.Elem != indices[0].Elem {
			return errf(op, "start indices must all have one type, found %s and %s", human(indices[0]), human(s))
		}
	}
	return nil
}

// InferDynamicSliceShape is the shape of dynamic-slice(operand, starts…)
// with the given slice sizes: 0 <= size <= dimension size. Slicing a whole
// dynamic dimension keeps it dynamic.
func InferDynamicSliceShape(operand Shape, startIndices []Shape, sizes []int) (Shape, error) {
	const op = "dynamic-slice"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	for i, s := range startIndices {
		if err := expectArray(op, "start index "+itoa(i), s); err != nil {
			return Shape{}, err
		}
	}
	if err := checkStartIndices(op, operand, startIndices); err != nil {
		return Shape{}, err
	}
	if len(sizes) != operand.Rank() {
		return Shape{}, errf(op, "%d slice sizes for operand %s of rank %d", len(sizes), human(operand), operand.Rank())
	}
	dyn := make([]bool, len(sizes))
	for i, n := range sizes {
		if n < 0 {
			return Shape{}, errf(op, "slice size %d is negative (%d)", i, n)
		}
		if n > operand.Dims[i] {
			return Shape{}, errf(op, "slice size %d is %d, larger than dimension %d of operand %s", i, n, i, human(operand))
		}
		dyn[i] = operand.IsDynamicDim(i) && n > 1 && n == operand.Dims[i]
	}
	return makeShape(operand.Elem, sizes, dyn), nil
}

// InferDynamicUpdateSliceShape is the shape of dynamic-update-slice(operand,
// update, starts…): the operand's. The update has the operand's rank and
// element type and fits inside it.
func InferDynamicUpdateSliceShape(operand, update Shape, startIndices []Shape) (Shape, error) {
	const op = "dynamic-update-slice"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if err := expectArray(op, "update", update); err != nil {
		return Shape{}, err
	}
	for i, s := range startIndices {
		if err := expectArray(op, "start index "+itoa(i), s); err != nil {
			return Shape{}, err
		}
	}
	if err := checkStartIndices(op, operand, startIndices); err != nil {
		return Shape{}, err
	}
	if update.Rank() != operand.Rank() {
		return Shape{}, errf(op, "update %s must have the rank of operand %s", human(update), human(operand))
	}
	if update.Elem != operand.Elem {
		return Shape{}, errf(op, "update %s must have the element type of operand %s", human(update), human(operand))
	}
	for i := range update.Dims {
		if update.Dims[i] > operand.Dims[i] {
			return Shape{}, errf(op, "update dimension %d has size %d, larger than operand dimension %d of size %d", i, update.Dims[i], i, operand.Dims[i])
		}
	}
	dyn := dynamicFlags(operand)
	for i := range dyn {
		if update.IsDynamicDim(i) && update.Dims[i] == operand.Dims[i] {
			dyn[i] = true
		}
	}
	return makeShape(operand.Elem, operand.Dims, dyn), nil
}

// InferConcatenateShape is the shape of concatenate(operands…) along
// dimension: the operands agree in rank, element type and every other
// dimension; the result's dimension is the sum of theirs.
func InferConcatenateShape(operands []Shape, dimension int) (Shape, error) {
	const op = "concatenate"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
	}
	first := operands[0]
	if dimension < 0 || dimension >= first.Rank() {
		return Shape{}, errf(op, "dimension %d is out of range for operand %s", dimension, human(first))
	}
	dims := slices.Clone(first.Dims)
	dyn := dynamicFlags(first)
	for i, s := range operands[1:] {
		i++
		if s.Rank() != first.Rank() {
			return Shape{}, errf(op, "operand %d %s has rank %d, operand 0 %s has rank %d", i, human(s), s.Rank(), human(first), first.Rank())
		}
		if s.Elem != first.Elem {
			return Shape{}, errf(op, "operand %d has element type %s, operand 0 has %s", i, s.Elem, first.Elem)
		}
		for d := range s.Dims {
			if d != dimension && s.Dims[d] != first.Dims[d] {
				return Shape{}, errf(op, "operand %d %s and operand 0 %s differ in dimension %d, which is not the concatenated dimension %d", i, human(s), human(first), d, dimension)
			}
			dyn[d] = dyn[d] || s.IsDynamicDim(d)
		}
		sum, ok := addInts(dims[dimension], s.Dims[dimension])
		if !ok {
			return Shape{}, errf(op, "concatenated dimension size overflows")
		}
		dims[dimension] = sum
	}
	return checkResult(op, makeShape(first.Elem, dims, dyn))
}

// InferPadShape is the shape of pad(operand, padding_value): per dimension
// size + low + high + max(size-1, 0)*interior, where low and high may be
// negative but interior may not and no size may end up negative. The
// padding value is a scalar of the operand's element type.
func InferPadShape(operand, paddingValue Shape, padding []PaddingDim) (Shape, error) {
	const op = "pad"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if !paddingValue.IsScalar() {
		return Shape{}, errf(op, "padding value must be a scalar, found %s", human(paddingValue))
	}
	if !sameIgnoringFpPrecision(paddingValue.Elem, operand.Elem) {
		return Shape{}, errf(op, "padding value %s must have the element type of operand %s", human(paddingValue), human(operand))
	}
	if len(padding) != operand.Rank() {
		return Shape{}, errf(op, "padding has %d dimensions, operand %s has rank %d", len(padding), human(operand), operand.Rank())
	}
	dims := make([]int, len(padding))
	for i, p := range padding {
		if p.Interior < 0 {
			return Shape{}, errf(op, "dimension %d: interior padding %d is negative", i, p.Interior)
		}
		size := operand.Dims[i]
		interior, ok := mulInts(max(size-1, 0), p.Interior)
		if ok {
			size, ok = addInts(size, interior)
		}
		if ok {
			size, ok = addInts(size, p.Low)
		}
		if ok {
			size, ok = addInts(size, p.High)
		}
		if !ok {
			return Shape{}, errf(op, "dimension %d: padded size overflows", i)
		}
		if size < 0 {
			return Shape{}, errf(op, "dimension %d: padding %d_%d_%d of size %d gives negative size %d", i, p.Low, p.High, p.Interior, operand.Dims[i], size)
		}
		dims[i] = size
	}
	return checkResult(op, makeShape(operand.Elem, dims, dynamicFlags(operand)))
}

// InferIotaShape checks iota's shape and dimension: an array of rank at
// least 1 with an integer, floating-point or complex element type, static,
// and dimension in range. It returns shape.
func InferIotaShape(shape Shape, dimension int) (Shape, error) {
	const op = "iota"
	if err := expectArray(op, "result", shape); err != nil {
		return Shape{}, err
	}
	if shape.Rank() == 0 {
		return Shape{}, errf(op, "result must have rank at least 1, found %s", human(shape))
	}
	if dimension < 0 || dimension >= shape.Rank() {
		return Shape{}, errf(op, "iota dimension %d is out of range for %s", dimension, human(shape))
	}
	if t := shape.Elem; !t.IsInteger() && !t.IsFloatOrComplex() {
		return Shape{}, errf(op, "element type must be integer, floating-point or complex, found %s", t)
	}
	if shape.IsDynamic() {
		return Shape{}, errf(op, "result %s must not have dynamic dimensions", human(shape))
	}
	return shape.Clone(), nil
}

// InferGetDimensionSizeShape is the shape of get-dimension-size: s32[].
func InferGetDimensionSizeShape(operand Shape, dimension int) (Shape, error) {
	const op = "get-dimension-size"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if dimension < 0 || dimension >= operand.Rank() {
		return Shape{}, errf(op, "dimension %d is out of range for operand %s", dimension, human(operand))
	}
	if operand.Dims[dimension] > math.MaxInt32 {
		return Shape{}, errf(op, "dimension %d of %s exceeds the s32 range", dimension, human(operand))
	}
	return scalarOf(S32), nil
}

// InferSetDimensionSizeShape is the shape of set-dimension-size(operand,
// size): the operand's with dimension marked dynamic (its size is now a
// bound). size is an s32 scalar.
func InferSetDimensionSizeShape(operand, size Shape, dimension int) (Shape, error) {
	const op = "set-dimension-size"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if dimension < 0 || dimension >= operand.Rank() {
		return Shape{}, errf(op, "dimension %d is out of range for operand %s", dimension, human(operand))
	}
	if !size.IsScalar() || size.Elem != S32 {
		return Shape{}, errf(op, "size must be an s32 scalar, found %s", human(size))
	}
	if operand.Dims[dimension] > math.MaxInt32 {
		return Shape{}, errf(op, "dimension %d of %s exceeds the s32 range", dimension, human(operand))
	}
	dyn := dynamicFlags(operand)
	dyn[dimension] = true
	return makeShape(operand.Elem, operand.Dims, dyn), nil
}

// dimensionsUnmodifiedByReshape returns the (operand dimension, result
// dimension) pairs that a reshape from a to b leaves unchanged: XLA's
// ShapeUtil::DimensionsUnmodifiedByReshape.
func dimensionsUnmodifiedByReshape(a, b []int) [][2]int {
	f := commonFactors(a, b)
	var out [][2]int
	for i := 0; i+1 < len(f); i++ {
		if f[i+1][0]-f[i][0] == 1 && f[i+1][1]-f[i][1] == 1 {
			out = append(out, f[i])
		}
	}
	return out
}

// commonFactors is XLA's CommonFactors: the boundaries (i, j) at which the
// products of a[:i] and b[:j] are equal, splitting both into groups of
// dimensions that reshape into each other.
func commonFactors(a, b []int) [][2]int {
	if slices.Equal(a, b) {
		out := make([][2]int, len(a)+1)
		for i := range out {
			out[i] = [2]int{i, i}
		}
		return out
	}
	product := func(v []int) int {
		p := 1
		for _, x := range v {
			p *= x
		}
		return p
	}
	var bounds [][2]int
	i, j, priorI, priorJ := 0, 0, -1, -1
	for i < len(a) && j < len(b) && a[i] == b[j] {
		priorI, priorJ = i, j
		bounds = append(bounds, [2]int{i, j})
		i++
		j++
	}
	whole := [][2]int{{0, 0}, {len(a), len(b)}}
	if product(a[i:]) != product(b[j:]) || product(a) == 0 {
		return whole
	}
	for pa, pb := 1, 1; ; {
		if pa == pb && (i > priorI || j > priorJ) {
			priorI, priorJ = i, j
			bounds = append(bounds, [2]int{i, j})
			continue
		}
		inI, inJ := i < len(a), j < len(b)
		if !inI && !inJ {
			break
		}
		nextA := pa < pb || (inI && (!inJ || (pa == pb && a[i] <= b[j])))
		nextB := pb < pa || (inJ && (!inI || (pb == pa && b[j] <= a[i])))
		if nextA {
			pa *= a[i]
			i++
		}
		if nextB {
			pb *= b[j]
			j++
		}
	}
	return bounds
}

package ir

import (
	"slices"
)

// Shape inference of gather and scatter, with every check of XLA's
// ValidateGatherDimensionNumbers and ValidateScatterDimensionNumbers,
// batching dimensions included.

// expandIndices returns the dimensions and dynamic flags of the index array
// with the implicit trailing dimension of size 1 when indexVectorDim equals
// its rank.
func expandIndices(op, what string, indices Shape, indexVectorDim int) ([]int, []bool, error) {
	if indexVectorDim < 0 || indexVectorDim > indices.Rank() {
		return nil, nil, errf(op, "index_vector_dim %d is out of range [0, %d] for %s %s", indexVectorDim, indices.Rank(), what, human(indices))
	}
	dims := slices.Clone(indices.Dims)
	dyn := dynamicFlags(indices)
	if indexVectorDim == indices.Rank() {
		dims = append(dims, 1)
		dyn = append(dyn, false)
	}
	return dims, dyn, nil
}

// checkSortedDims checks that dims are sorted, distinct and within [0, rank).
func checkSortedDims(op, name string, dims []int, rank int, sorted bool) error {
	for _, d := range dims {
		if d < 0 || d >= rank {
			return errf(op, "%s %s: dimension %d is out of range [0, %d)", name, intList(dims), d, rank)
		}
	}
	if sorted && !slices.IsSorted(dims) {
		return errf(op, "%s %s must be sorted", name, intList(dims))
	}
	if d, dup := firstDuplicate(dims); dup {
		return errf(op, "%s %s repeats dimension %d", name, intList(dims), d)
	}
	return nil
}

// checkBatchingDims checks the batching dimensions of gather or scatter:
// operandBatching sorted, distinct, in range and disjoint from the
// collapsed/inserted dimensions and from the index map; indicesBatching
// distinct, in range, not the index vector dimension, as many as
// operandBatching, and of the same sizes pairwise.
func checkBatchingDims(op, operandName, indicesName, collapsedName, mapName string, operand Shape, indices []int, indexVectorDim int, operandBatching, indicesBatching, collapsed, indexMap []int) error {
	if err := checkSortedDims(op, operandName, operandBatching, operand.Rank(), true); err != nil {
		return err
	}
	for _, d := range operandBatching {
		if slices.Contains(collapsed, d) {
			return errf(op, "%s and %s must be disjoint, both contain %d", collapsedName, operandName, d)
		}
		if slices.Contains(indexMap, d) {
			return errf(op, "%s and %s must be disjoint, both contain %d", mapName, operandName, d)
		}
	}
	if err := checkSortedDims(op, indicesName, indicesBatching, len(indices), false); err != nil {
		return err
	}
	if slices.Contains(indicesBatching, indexVectorDim) {
		return errf(op, "%s %s must not contain index_vector_dim %d", indicesName, intList(indicesBatching), indexVectorDim)
	}
	if len(operandBatching) != len(indicesBatching) {
		return errf(op, "%s %s and %s %s must have the same number of dimensions", operandName, intList(operandBatching), indicesName, intList(indicesBatching))
	}
	for i, d := range operandBatching {
		if operand.Dims[d] != indices[indicesBatching[i]] {
			return errf(op, "operand batching dimension %d has size %d, indices batching dimension %d has size %d (expected equal sizes)", d, operand.Dims[d], indicesBatching[i], indices[indicesBatching[i]])
		}
	}
	return nil
}

// InferGatherShape is the shape of gather(operand, start_indices) with
// dimension numbers dnums and slice sizes: offset dimensions take the slice
// sizes of the operand dimensions that are neither collapsed nor batching;
// the others (batch dimensions) take the sizes of start_indices without its
// index vector dimension.
func InferGatherShape(operand, indices Shape, dnums GatherDimensionNumbers, sliceSizes []int) (Shape, error) {
	const op = "gather"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if err := expectArray(op, "start_indices", indices); err != nil {
		return Shape{}, err
	}
	if !indices.Elem.IsInteger() {
		return Shape{}, errf(op, "start_indices must have an integer element type, found %s", human(indices))
	}
	ivd := dnums.IndexVectorDim
	idx, idxDyn, err := expandIndices(op, "start_indices", indices, ivd)
	if err != nil {
		return Shape{}, err
	}
	rank := operand.Rank()

	// ValidateGatherDimensionNumbers.
	if !slices.IsSorted(dnums.OffsetDims) {
		return Shape{}, errf(op, "offset_dims %s must be sorted", intList(dnums.OffsetDims))
	}
	if d, dup := firstDuplicate(dnums.OffsetDims); dup {
		return Shape{}, errf(op, "offset_dims %s repeats dimension %d", intList(dnums.OffsetDims), d)
	}
	outRank := len(dnums.OffsetDims) + len(idx) - 1
	for i, d := range dnums.OffsetDims {
		if d < 0 || d >= outRank {
			return Shape{}, errf(op, "offset dimension %d is %d, out of range [0, %d) for the result", i, d, outRank)
		}
	}
	if len(dnums.StartIndexMap) != idx[ivd] {
		return Shape{}, errf(op, "start_index_map %s has %d entries, dimension index_vector_dim=%d of start_indices has size %d (expected equal)", intList(dnums.StartIndexMap), len(dnums.StartIndexMap), ivd, idx[ivd])
	}
	for i, d := range dnums.StartIndexMap {
		if d < 0 || d >= rank {
			return Shape{}, errf(op, "start_index_map maps %d to %d, out of range [0, %d) for operand %s", i, d, rank, human(operand))
		}
	}
	if d, dup := firstDuplicate(dnums.StartIndexMap); dup {
		return Shape{}, errf(op, "start_index_map %s repeats dimension %d", intList(dnums.StartIndexMap), d)
	}
	if err := checkSortedDims(op, "collapsed_slice_dims", dnums.CollapsedSliceDims, rank, true); err != nil {
		return Shape{}, err
	}
	if err := checkBatchingDims(op, "operand_batching_dims", "start_indices_batching_dims", "collapsed_slice_dims", "start_index_map",
		operand, idx, ivd, dnums.OperandBatchingDims, dnums.StartIndicesBatchingDims, dnums.CollapsedSliceDims, dnums.StartIndexMap); err != nil {
		return Shape{}, err
	}

	if len(sliceSizes) != rank {
		return Shape{}, errf(op, "%d slice sizes for operand %s of rank %d", len(sliceSizes), human(operand), rank)
	}
	if n := len(dnums.OffsetDims) + len(dnums.CollapsedSliceDims) + len(dnums.OperandBatchingDims); n != rank {
		return Shape{}, errf(op, "offset_dims %s, collapsed_slice_dims %s and operand_batching_dims %s account for %d operand dimensions, operand %s has %d",
			intList(dnums.OffsetDims), intList(dnums.CollapsedSliceDims), intList(dnums.OperandBatchingDims), n, human(operand), rank)
	}
	for i, n := range sliceSizes {
		if n < 0 || n > operand.Dims[i] {
			return Shape{}, errf(op, "slice size %d is %d, out of range [0, %d] for operand %s", i, n, operand.Dims[i], human(operand))
		}
	}
	for _, d := range dnums.CollapsedSliceDims {
		if sliceSizes[d] > 1 {
			return Shape{}, errf(op, "collapsed slice dimension %d has slice size %d, expected at most 1", d, sliceSizes[d])
		}
	}
	for _, d := range dnums.OperandBatchingDims {
		if sliceSizes[d] > 1 {
			return Shape{}, errf(op, "operand batching dimension %d has slice size %d, expected at most 1", d, sliceSizes[d])
		}
	}

	dims := make([]int, outRank)
	dyn := make([]bool, outRank)
	offsetSeen, batchSeen := 0, 0
	for i := range dims {
		if slices.Contains(dnums.OffsetDims, i) {
			for slices.Contains(dnums.CollapsedSliceDims, offsetSeen) || slices.Contains(dnums.OperandBatchingDims, offsetSeen) {
				offsetSeen++
			}
			if sliceSizes[offsetSeen] == operand.Dims[offsetSeen] {
				dyn[i] = operand.IsDynamicDim(offsetSeen)
			}
			dims[i] = sliceSizes[offsetSeen]
			offsetSeen++
			continue
		}
		if batchSeen == ivd {
			batchSeen++
		}
		dims[i], dyn[i] = idx[batchSeen], idxDyn[batchSeen]
		batchSeen++
	}
	return makeShape(operand.Elem, dims, dyn), nil
}

// InferScatterShape is the shape of scatter(operands…, scatter_indices,
// updates…) with update computation and dimension numbers dnums: the
// operand's shape, or a tuple of the operands' shapes. Each updates array
// has rank update_window_dims + rank(indices) - 1 (with the implicit index
// dimension); its window dimensions fit the operand's non-inserted,
// non-batching dimensions and its scatter dimensions equal the indices'.
// The update computation is a reducer of the updates' element types with
// the operands' as accumulators.
func InferScatterShape(operands []Shape, indices Shape, updates []Shape, update ProgramShape, dnums ScatterDimensionNumbers) (Shape, error) {
	const op = "scatter"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	if len(updates) != len(operands) {
		return Shape{}, errf(op, "%d updates arrays for %d operands", len(updates), len(operands))
	}
	if err := expectArray(op, "scatter_indices", indices); err != nil {
		return Shape{}, err
	}
	if !indices.Elem.IsInteger() {
		return Shape{}, errf(op, "scatter_indices must have an integer element type, found %s", human(indices))
	}
	ivd := dnums.IndexVectorDim
	idx, _, err := expandIndices(op, "scatter_indices", indices, ivd)
	if err != nil {
		return Shape{}, err
	}
	for k := range operands {
		operand, upd := operands[k], updates[k]
		if err := expectArray(op, "operand "+itoa(k), operand); err != nil {
			return Shape{}, err
		}
		if err := expectArray(op, "updates "+itoa(k), upd); err != nil {
			return Shape{}, err
		}
		if !slices.Equal(operand.Dims, operands[0].Dims) {
			return Shape{}, errf(op, "operand %d %s must have the dimensions of operand 0 %s", k, human(operand), human(operands[0]))
		}
		if !slices.Equal(upd.Dims, updates[0].Dims) {
			return Shape{}, errf(op, "updates %d %s must have the dimensions of updates 0 %s", k, human(upd), human(updates[0]))
		}
		var windowBounds []int
		for i, n := range operand.Dims {
			if !slices.Contains(dnums.InsertedWindowDims, i) && !slices.Contains(dnums.InputBatchingDims, i) {
				windowBounds = append(windowBounds, n)
			}
		}
		if want := len(idx) - 1 + len(dnums.UpdateWindowDims); upd.Rank() != want {
			return Shape{}, errf(op, "updates %d %s must have rank %d (%d update window dimensions and %d scatter dimensions)", k, human(upd), want, len(dnums.UpdateWindowDims), len(idx)-1)
		}
		if err := validateScatterDims(op, operand, idx, upd, dnums); err != nil {
			return Shape{}, err
		}
		for i, d := range dnums.UpdateWindowDims {
			if i >= len(windowBounds) {
				break
			}
			if upd.Dims[d] > windowBounds[i] {
				return Shape{}, errf(op, "updates window dimension %d has size %d, larger than the corresponding operand size %d", d, upd.Dims[d], windowBounds[i])
			}
		}
		seen := 0
		for i := range upd.Dims {
			if slices.Contains(dnums.UpdateWindowDims, i) {
				continue
			}
			if seen == ivd {
				seen++
			}
			if upd.Dims[i] != idx[seen] {
				return Shape{}, errf(op, "updates scatter dimension %d has size %d, scatter_indices dimension %d has size %d (expected equal)", i, upd.Dims[i], seen, idx[seen])
			}
			seen++
		}
	}
	inits := make([]Shape, len(operands))
	types := make([]ElementType, len(operands))
	for i := range operands {
		inits[i] = scalarOf(operands[i].Elem)
		types[i] = updates[i].Elem
	}
	if err := checkReducer(op, update, inits, types); err != nil {
		return Shape{}, err
	}
	if len(operands) == 1 {
		return operands[0].Clone(), nil
	}
	return MakeTuple(operands...), nil
}

// validateScatterDims is XLA's ValidateScatterDimensionNumbers.
func validateScatterDims(op string, operand Shape, idx []int, updates Shape, d ScatterDimensionNumbers) error {
	if err := checkSortedDims(op, "update_window_dims", d.UpdateWindowDims, updates.Rank(), true); err != nil {
		return err
	}
	if err := checkSortedDims(op, "inserted_window_dims", d.InsertedWindowDims, operand.Rank(), true); err != nil {
		return err
	}
	if err := checkBatchingDims(op, "input_batching_dims", "scatter_indices_batching_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
		operand, idx, d.IndexVectorDim, d.InputBatchingDims, d.ScatterIndicesBatchingDims, d.InsertedWindowDims, d.ScatterDimsToOperandDims); err != nil {
		return err
	}
	if n := len(d.UpdateWindowDims) + len(d.InsertedWindowDims) + len(d.InputBatchingDims); n != operand.Rank() {
		return errf(op, "update_window_dims %s, inserted_window_dims %s and input_batching_dims %s account for %d dimensions, operand %s has rank %d",
			intList(d.UpdateWindowDims), intList(d.InsertedWindowDims), intList(d.InputBatchingDims), n, human(operand), operand.Rank())
	}
	if len(d.ScatterDimsToOperandDims) != idx[d.IndexVectorDim] {
		return errf(op, "scatter_dims_to_operand_dims %s has %d entries, dimension index_vector_dim=%d of scatter_indices has size %d (expected equal)",
			intList(d.ScatterDimsToOperandDims), len(d.ScatterDimsToOperandDims), d.IndexVectorDim, idx[d.IndexVectorDim])
	}
	for i, x := range d.ScatterDimsToOperandDims {
		if x < 0 || x >= operand.Rank() {
			return errf(op, "scatter_dims_to_operand_dims maps %d to %d, out of range [0, %d) for operand %s", i, x, operand.Rank(), human(operand))
		}
	}
	if x, dup := firstDuplicate(d.ScatterDimsToOperandDims); dup {
		return errf(op, "scatter_dims_to_operand_dims %s repeats dimension %d", intList(d.ScatterDimsToOperandDims), x)
	}
	return nil
}

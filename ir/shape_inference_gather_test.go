package ir

import "testing"

func TestInferGatherShape(t *testing.T) {
	g := func(op, idx Shape, d GatherDimensionNumbers, sizes ...int) func() (Shape, error) {
		return func() (Shape, error) { return InferGatherShape(op, idx, d, sizes) }
	}
	// The seed's first example: 5 slices of shape [8,6] from a [16,11] array,
	// the positions an S64[5,2] matrix: the output index [G,O0,O1].
	seed := GatherDimensionNumbers{OffsetDims: []int{1, 2}, StartIndexMap: []int{0, 1}, IndexVectorDim: 1}
	// tf.gather_nd in the seed: one index X per [G0,G1], whole rows of 11.
	nd := GatherDimensionNumbers{OffsetDims: []int{2}, CollapsedSliceDims: []int{0}, StartIndexMap: []int{0}, IndexVectorDim: 2}
	// Batching dimensions: operand dimension 0 pairs with indices dimension 0.
	batched := GatherDimensionNumbers{OffsetDims: []int{2, 3}, StartIndexMap: []int{1, 2}, IndexVectorDim: 2,
		OperandBatchingDims: []int{0}, StartIndicesBatchingDims: []int{0}}
	with := func(f func(*GatherDimensionNumbers)) GatherDimensionNumbers {
		d := seed
		f(&d)
		return d
	}
	runInferCases(t, []inferCase{
		{"seed [5,2] indices", g(sh(F32, 16, 11), sh(S64, 5, 2), seed, 8, 6), "f32[5,8,6]", ""},
		// The seed's second example: the indices array [4,5,2], batch dims G0, G1.
		{"seed [4,5,2] indices", g(sh(F32, 16, 11), sh(S64, 4, 5, 2), with(func(d *GatherDimensionNumbers) {
			d.OffsetDims, d.IndexVectorDim = []int{2, 3}, 2
		}), 8, 6), "f32[4,5,8,6]", ""},
		{"seed gather_nd", g(sh(F32, 16, 11), sh(S32, 4, 5, 1), nd, 1, 11), "f32[4,5,11]", ""},
		// index_vector_dim = rank(indices): an implicit trailing 1.
		{"implicit index dimension", g(sh(F32, 16, 11), sh(S32, 4, 5), nd, 1, 11), "f32[4,5,11]", ""},
		{"rows", g(sh(F32, 16, 11), sh(S32, 7), GatherDimensionNumbers{OffsetDims: []int{1}, CollapsedSliceDims: []int{0}, StartIndexMap: []int{0}, IndexVectorDim: 1}, 1, 11), "f32[7,11]", ""},
		{"offset dims first", g(sh(F32, 16, 11), sh(S64, 5, 2), with(func(d *GatherDimensionNumbers) { d.OffsetDims = []int{0, 1} }), 8, 6), "f32[8,6,5]", ""},
		{"index vector dim first", g(sh(F32, 16, 11), sh(S64, 2, 5), with(func(d *GatherDimensionNumbers) { d.IndexVectorDim = 0 }), 8, 6), "f32[5,8,6]", ""},
		{"batching dims", g(sh(F32, 3, 16, 11), sh(S32, 3, 5, 2), batched, 1, 8, 6), "f32[3,5,8,6]", ""},
		{"dynamic batch from indices", g(sh(F32, 16, 11), dyn(sh(S64, 5, 2), 0), seed, 8, 6), "f32[<=5,8,6]", ""},

		{"float indices", g(sh(F32, 16, 11), sh(F32, 5, 2), seed, 8, 6), "", "gather: start_indices must have an integer element type, found f32[5,2]"},
		{"index vector dim range", g(sh(F32, 16, 11), sh(S64, 5, 2), with(func(d *GatherDimensionNumbers) { d.IndexVectorDim = 3 }), 8, 6), "", "index_vector_dim 3 is out of range [0, 2]"},
		{"offset dims unsorted", g(sh(F32, 16, 11), sh(S64, 5, 2), with(func(d *GatherDimensionNumbers) { d.OffsetDims = []int{2, 1} }), 8, 6), "", "offset_dims {2,1} must be sorted"},
		{"offset dims repeat", g(sh(F32, 16, 11), sh(S64, 5, 2), with(func(d *GatherDimensionNumbers) { d.OffsetDims = []int{1, 1} }), 8, 6), "", "offset_dims {1,1} repeats dimension 1"},
		{"offset dim range", g(sh(F32, 16, 11), sh(S64, 5, 2), with(func(d *GatherDimensionNumbers) { d.OffsetDims = []int{1, 3} }), 8, 6), "", "offset dimension 1 is 3, out of range [0, 3) for the result"},
		{"start_index_map length", g(sh(F32, 16, 11), sh(S64, 5, 2), with(func(d *GatherDimensionNumbers) { d.StartIndexMap = []int{0} }), 8, 6), "", "start_index_map {0} has 1 entries, dimension index_vector_dim=1 of start_indices has size 2"},
		{"start_index_map range", g(sh(F32, 16, 11), sh(S64, 5, 2), with(func(d *GatherDimensionNumbers) { d.StartIndexMap = []int{0, 2} }), 8, 6), "", "start_index_map maps 1 to 2, out of range [0, 2) for operand f32[16,11]"},
		{"start_index_map repeat", g(sh(F32, 16, 11), sh(S64, 5, 2), with(func(d *GatherDimensionNumbers) { d.StartIndexMap = []int{1, 1} }), 8, 6), "", "start_index_map {1,1} repeats dimension 1"},
		{"collapsed range", g(sh(F32, 16, 11), sh(S32, 4, 5, 1), with(func(d *GatherDimensionNumbers) {
			*d = nd
			d.CollapsedSliceDims = []int{2}
		}), 1, 11), "", "collapsed_slice_dims {2}: dimension 2 is out of range [0, 2)"},
		{"collapsed unsorted", g(sh(F32, 16, 11, 2), sh(S32, 4, 1), GatherDimensionNumbers{CollapsedSliceDims: []int{1, 0}, StartIndexMap: []int{0}, IndexVectorDim: 1, OffsetDims: []int{1}}, 1, 1, 2), "", "collapsed_slice_dims {1,0} must be sorted"},
		{"collapsed size", g(sh(F32, 16, 11), sh(S32, 4, 5, 1), nd, 2, 11), "", "collapsed slice dimension 0 has slice size 2, expected at most 1"},
		{"slice size count", g(sh(F32, 16, 11), sh(S64, 5, 2), seed, 8), "", "1 slice sizes for operand f32[16,11] of rank 2"},
		{"slice size range", g(sh(F32, 16, 11), sh(S64, 5, 2), seed, 8, 12), "", "slice size 1 is 12, out of range [0, 11]"},
		{"dimension accounting", g(sh(F32, 16, 11), sh(S64, 5, 2), with(func(d *GatherDimensionNumbers) { d.OffsetDims = []int{1} }), 8, 6), "", "account for 1 operand dimensions, operand f32[16,11] has 2"},
		{"batching overlaps collapsed", g(sh(F32, 3, 16, 11), sh(S32, 3, 5, 2), GatherDimensionNumbers{OffsetDims: []int{2, 3}, CollapsedSliceDims: []int{0}, StartIndexMap: []int{1, 2}, IndexVectorDim: 2,
			OperandBatchingDims: []int{0}, StartIndicesBatchingDims: []int{0}}, 1, 8, 6), "", "collapsed_slice_dims and operand_batching_dims must be disjoint, both contain 0"},
		{"batching in index map", g(sh(F32, 3, 16, 11), sh(S32, 3, 5, 2), GatherDimensionNumbers{OffsetDims: []int{2, 3}, StartIndexMap: []int{0, 2}, IndexVectorDim: 2,
			OperandBatchingDims: []int{0}, StartIndicesBatchingDims: []int{0}}, 1, 8, 6), "", "start_index_map and operand_batching_dims must be disjoint, both contain 0"},
		{"batching sizes", g(sh(F32, 4, 16, 11), sh(S32, 3, 5, 2), batched, 1, 8, 6), "", "operand batching dimension 0 has size 4, indices batching dimension 0 has size 3"},
		{"batching counts", g(sh(F32, 3, 16, 11), sh(S32, 3, 5, 2), GatherDimensionNumbers{OffsetDims: []int{2, 3}, StartIndexMap: []int{1, 2}, IndexVectorDim: 2,
			OperandBatchingDims: []int{0}}, 1, 8, 6), "", "operand_batching_dims {0} and start_indices_batching_dims {} must have the same number of dimensions"},
		{"batching is index vector dim", g(sh(F32, 2, 16, 11), sh(S32, 3, 5, 2), GatherDimensionNumbers{OffsetDims: []int{2, 3}, StartIndexMap: []int{1, 2}, IndexVectorDim: 2,
			OperandBatchingDims: []int{0}, StartIndicesBatchingDims: []int{2}}, 1, 8, 6), "", "start_indices_batching_dims {2} must not contain index_vector_dim 2"},
		{"batching slice size", g(sh(F32, 3, 16, 11), sh(S32, 3, 5, 2), batched, 2, 8, 6), "", "operand batching dimension 0 has slice size 2, expected at most 1"},
	})
}

func TestInferScatterShape(t *testing.T) {
	add := scalarReducer(F32)
	sc := func(op, idx, upd Shape, d ScatterDimensionNumbers) func() (Shape, error) {
		return func() (Shape, error) { return InferScatterShape([]Shape{op}, idx, []Shape{upd}, add, d) }
	}
	// The inverse of the seed's first gather: windows of [8,6] at 5 positions.
	windows := ScatterDimensionNumbers{UpdateWindowDims: []int{1, 2}, ScatterDimsToOperandDims: []int{0, 1}, IndexVectorDim: 1}
	// Whole rows of 11 scattered at 7 row indices (implicit index dimension).
	rows := ScatterDimensionNumbers{UpdateWindowDims: []int{1}, InsertedWindowDims: []int{0}, ScatterDimsToOperandDims: []int{0}, IndexVectorDim: 1}
	with := func(d ScatterDimensionNumbers, f func(*ScatterDimensionNumbers)) ScatterDimensionNumbers {
		f(&d)
		return d
	}
	runInferCases(t, []inferCase{
		{"windows", sc(sh(F32, 16, 11), sh(S32, 5, 2), sh(F32, 5, 8, 6), windows), "f32[16,11]", ""},
		{"rows", sc(sh(F32, 16, 11), sh(S32, 7), sh(F32, 7, 11), rows), "f32[16,11]", ""},
		{"smaller window", sc(sh(F32, 16, 11), sh(S32, 7), sh(F32, 7, 4), rows), "f32[16,11]", ""},
		{"batched", sc(sh(F32, 3, 16, 11), sh(S32, 3, 5, 2), sh(F32, 3, 5, 8, 6), ScatterDimensionNumbers{
			UpdateWindowDims: []int{2, 3}, ScatterDimsToOperandDims: []int{1, 2}, IndexVectorDim: 2,
			InputBatchingDims: []int{0}, ScatterIndicesBatchingDims: []int{0}}), "f32[3,16,11]", ""},
		{"variadic", func() (Shape, error) {
			return InferScatterShape([]Shape{sh(F32, 16, 11), sh(S32, 16, 11)}, sh(S32, 7), []Shape{sh(F32, 7, 11), sh(S32, 7, 11)},
				prog(MakeTuple(Scalar(F32), Scalar(S32)), Scalar(F32), Scalar(S32), Scalar(F32), Scalar(S32)), rows)
		}, "(f32[16,11], s32[16,11])", ""},

		{"float indices", sc(sh(F32, 16, 11), sh(F32, 7), sh(F32, 7, 11), rows), "", "scatter: scatter_indices must have an integer element type"},
		{"updates rank", sc(sh(F32, 16, 11), sh(S32, 7), sh(F32, 7, 11, 1), rows), "", "updates 0 f32[7,11,1] must have rank 2 (1 update window dimensions and 1 scatter dimensions)"},
		{"window too big", sc(sh(F32, 16, 11), sh(S32, 7), sh(F32, 7, 12), rows), "", "updates window dimension 1 has size 12, larger than the corresponding operand size 11"},
		{"scatter dims", sc(sh(F32, 16, 11), sh(S32, 7), sh(F32, 6, 11), rows), "", "updates scatter dimension 0 has size 6, scatter_indices dimension 0 has size 7"},
		{"update_window_dims unsorted", sc(sh(F32, 16, 11), sh(S32, 5, 2), sh(F32, 5, 8, 6), with(windows, func(d *ScatterDimensionNumbers) { d.UpdateWindowDims = []int{2, 1} })),
			"", "update_window_dims {2,1} must be sorted"},
		{"update_window_dims range", sc(sh(F32, 16, 11), sh(S32, 5, 2), sh(F32, 5, 8, 6), with(windows, func(d *ScatterDimensionNumbers) { d.UpdateWindowDims = []int{1, 3} })),
			"", "update_window_dims {1,3}: dimension 3 is out of range [0, 3)"},
		{"inserted range", sc(sh(F32, 16, 11), sh(S32, 7), sh(F32, 7, 11), with(rows, func(d *ScatterDimensionNumbers) { d.InsertedWindowDims = []int{2} })),
			"", "inserted_window_dims {2}: dimension 2 is out of range [0, 2)"},
		{"window accounting", sc(sh(F32, 16, 11), sh(S32, 7), sh(F32, 7, 11), with(rows, func(d *ScatterDimensionNumbers) { d.InsertedWindowDims = nil })),
			"", "account for 1 dimensions, operand f32[16,11] has rank 2"},
		{"map length", sc(sh(F32, 16, 11), sh(S32, 5, 2), sh(F32, 5, 8, 6), with(windows, func(d *ScatterDimensionNumbers) { d.ScatterDimsToOperandDims = []int{0} })),
			"", "scatter_dims_to_operand_dims {0} has 1 entries, dimension index_vector_dim=1 of scatter_indices has size 2"},
		{"map range", sc(sh(F32, 16, 11), sh(S32, 5, 2), sh(F32, 5, 8, 6), with(windows, func(d *ScatterDimensionNumbers) { d.ScatterDimsToOperandDims = []int{0, 5} })),
			"", "scatter_dims_to_operand_dims maps 1 to 5, out of range [0, 2)"},
		{"map repeats", sc(sh(F32, 16, 11), sh(S32, 5, 2), sh(F32, 5, 8, 6), with(windows, func(d *ScatterDimensionNumbers) { d.ScatterDimsToOperandDims = []int{1, 1} })),
			"", "scatter_dims_to_operand_dims {1,1} repeats dimension 1"},
		{"index vector dim", sc(sh(F32, 16, 11), sh(S32, 7), sh(F32, 7, 11), with(rows, func(d *ScatterDimensionNumbers) { d.IndexVectorDim = 2 })),
			"", "index_vector_dim 2 is out of range [0, 1] for scatter_indices s32[7]"},
		{"update computation", func() (Shape, error) {
			return InferScatterShape([]Shape{sh(F32, 16, 11)}, sh(S32, 7), []Shape{sh(F32, 7, 11)}, scalarReducer(S32), rows)
		}, "", "scatter: init value 0 has shape f32[], the reduction computation's accumulator 0 has shape s32[]"},
		{"updates count", func() (Shape, error) { return InferScatterShape([]Shape{sh(F32, 16, 11)}, sh(S32, 7), nil, add, rows) }, "", "0 updates arrays for 1 operands"},
		{"operands differ", func() (Shape, error) {
			return InferScatterShape([]Shape{sh(F32, 16, 11), sh(S32, 16, 10)}, sh(S32, 7), []Shape{sh(F32, 7, 11), sh(S32, 7, 11)},
				prog(MakeTuple(Scalar(F32), Scalar(S32)), Scalar(F32), Scalar(S32), Scalar(F32), Scalar(S32)), rows)
		}, "", "operand 1 s32[16,10] must have the dimensions of operand 0 f32[16,11]"},
		{"batching sizes", sc(sh(F32, 4, 16, 11), sh(S32, 3, 5, 2), sh(F32, 3, 5, 8, 6), ScatterDimensionNumbers{
			UpdateWindowDims: []int{2, 3}, ScatterDimsToOperandDims: []int{1, 2}, IndexVectorDim: 2,
			InputBatchingDims: []int{0}, ScatterIndicesBatchingDims: []int{0}}), "", "operand batching dimension 0 has size 4, indices batching dimension 0 has size 3"},
	})
}

package ir

import (
	"math"
	"math/bits"
	"slices"
	"testing"
)

// hugeDim is a dimension whose square overflows int on every target.
const hugeDim = 1 << (bits.UintSize/2 + 8)

func TestInferBroadcastShapes(t *testing.T) {
	runInferCases(t, []inferCase{
		// The seed: a f32 scalar broadcast with sizes {2, 3} is f32[2,3].
		{"seed scalar", func() (Shape, error) { return InferBroadcastShape(Scalar(F32), []int{2, 3}) }, "f32[2,3]", ""},
		// New dimensions go on the left: {a0..aN} ++ {b0..bM}.
		{"prepends", func() (Shape, error) { return InferBroadcastShape(sh(S32, 4, 5), []int{2}) }, "s32[2,4,5]", ""},
		{"keeps dynamic", func() (Shape, error) { return InferBroadcastShape(dyn(sh(S32, 4), 0), []int{2}) }, "s32[2,<=4]", ""},
		{"negative size", func() (Shape, error) { return InferBroadcastShape(Scalar(F32), []int{2, -1}) }, "", "broadcast: broadcast size 1 is negative (-1)"},
		{"tuple", func() (Shape, error) { return InferBroadcastShape(MakeTuple(), []int{2}) }, "", "broadcast: operand must be an array"},
		{"overflow", func() (Shape, error) { return InferBroadcastShape(sh(F64, hugeDim), []int{hugeDim}) }, "", "size overflows"},

		{"in-dim", func() (Shape, error) { return InferBroadcastInDimShape(sh(F32, 3), sh(F32, 2, 3), []int{1}) }, "f32[2,3]", ""},
		{"in-dim degenerate", func() (Shape, error) { return InferBroadcastInDimShape(sh(F32, 1, 3), sh(F32, 4, 3), []int{0, 1}) }, "f32[4,3]", ""},
		{"in-dim size", func() (Shape, error) { return InferBroadcastInDimShape(sh(F32, 2), sh(F32, 2, 3), []int{1}) }, "", "operand dimension 0 has size 2, result dimension 1 has size 3"},
		{"in-dim order", func() (Shape, error) { return InferBroadcastInDimShape(sh(F32, 3, 3), sh(F32, 3, 3), []int{1, 0}) }, "", "must be strictly increasing"},
		{"in-dim count", func() (Shape, error) { return InferBroadcastInDimShape(sh(F32, 3), sh(F32, 2, 3), nil) }, "", "must have one entry per operand dimension"},
		{"in-dim range", func() (Shape, error) { return InferBroadcastInDimShape(sh(F32, 3), sh(F32, 2, 3), []int{2}) }, "", "dimension 0 maps to 2, out of range"},
		{"in-dim rank", func() (Shape, error) { return InferBroadcastInDimShape(sh(F32, 3, 3), sh(F32, 3), []int{0, 1}) }, "", "has a higher rank than the result"},
		{"in-dim type", func() (Shape, error) { return InferBroadcastInDimShape(sh(F32, 3), sh(S32, 3), []int{0}) }, "", "must have the operand's element type"},
		{"in-dim dynamism", func() (Shape, error) { return InferBroadcastInDimShape(dyn(sh(F32, 3), 0), sh(F32, 2, 3), []int{1}) }, "", "differ in being dynamic"},
	})
}

func TestInferReshapeShape(t *testing.T) {
	runInferCases(t, []inferCase{
		// The seed: v = f32[4x2x3] reshaped to {24} and to {8,3}.
		{"seed 24", func() (Shape, error) { return InferReshapeShape(sh(F32, 4, 2, 3), []int{24}) }, "f32[24]", ""},
		{"seed 8x3", func() (Shape, error) { return InferReshapeShape(sh(F32, 4, 2, 3), []int{8, 3}) }, "f32[8,3]", ""},
		// The seed: one-element arrays reshape to scalars and back.
		{"seed to scalar", func() (Shape, error) { return InferReshapeShape(sh(F32, 1, 1), nil) }, "f32[]", ""},
		{"seed from scalar", func() (Shape, error) { return InferReshapeShape(Scalar(F32), []int{1, 1}) }, "f32[1,1]", ""},
		{"count", func() (Shape, error) { return InferReshapeShape(sh(F32, 4, 2, 3), []int{5, 5}) },
			"", "reshape: element counts differ: operand f32[4,2,3] has 24 elements, result f32[5,5] has 25"},
		{"negative", func() (Shape, error) { return InferReshapeShape(sh(F32, 0), []int{-1, 0}) }, "", "negative size"},
		{"unmodified dynamic dim kept", func() (Shape, error) { return InferReshapeShape(dyn(sh(F32, 8, 2, 3), 0), []int{8, 6}) }, "f32[<=8,6]", ""},
		{"zero elements", func() (Shape, error) { return InferReshapeShape(sh(F32, 0, 5), []int{3, 0}) }, "f32[3,0]", ""},
		{"dynamic-reshape", func() (Shape, error) {
			return InferDynamicReshapeShape(sh(F32, 6), []Shape{Scalar(S32), Scalar(S32)}, []int{2, 3}, []bool{true, false})
		}, "f32[<=2,3]", ""},
		{"dynamic-reshape size type", func() (Shape, error) {
			return InferDynamicReshapeShape(sh(F32, 6), []Shape{Scalar(S64), Scalar(S32)}, []int{2, 3}, []bool{true, false})
		}, "", "size operand 0 must be an s32 scalar, found s64[]"},
		{"dynamic-reshape count", func() (Shape, error) {
			return InferDynamicReshapeShape(sh(F32, 6), []Shape{Scalar(S32)}, []int{2, 3}, []bool{true, false})
		}, "", "1 size operands for a result of rank 2"},
	})
}

func TestCommonFactors(t *testing.T) {
	for _, c := range []struct {
		a, b []int
		want [][2]int
	}{
		{[]int{2, 3}, []int{2, 3}, [][2]int{{0, 0}, {1, 1}, {2, 2}}},
		{[]int{4, 2, 3}, []int{8, 3}, [][2]int{{0, 0}, {2, 1}, {3, 2}}},
		{[]int{2, 5, 1, 3}, []int{1, 10, 3}, [][2]int{{0, 0}, {0, 1}, {2, 2}, {3, 2}, {4, 3}}},
		// With a zero dimension the products after the common prefix differ,
		// and XLA returns the whole shape as one group.
		{[]int{0, 10, 3}, []int{0, 3}, [][2]int{{0, 0}, {3, 2}}},
	} {
		if got := commonFactors(c.a, c.b); !slices.Equal(got, c.want) {
			t.Errorf("commonFactors(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if got := dimensionsUnmodifiedByReshape([]int{4, 2, 3}, []int{8, 3}); !slices.Equal(got, [][2]int{{2, 1}}) {
		t.Errorf("dimensionsUnmodifiedByReshape = %v, want [[2 1]]", got)
	}
}

func TestInferTransposeAndReverseShapes(t *testing.T) {
	runInferCases(t, []inferCase{
		{"transpose", func() (Shape, error) { return InferTransposeShape(sh(F32, 2, 3, 4), []int{2, 0, 1}) }, "f32[4,2,3]", ""},
		{"transpose dynamic", func() (Shape, error) { return InferTransposeShape(dyn(sh(F32, 2, 3), 0), []int{1, 0}) }, "f32[3,<=2]", ""},
		{"not a permutation", func() (Shape, error) { return InferTransposeShape(sh(F32, 2, 3), []int{0, 0}) },
			"", "transpose: dimensions {0,0} are not a permutation of the dimensions of operand f32[2,3]"},
		{"too short", func() (Shape, error) { return InferTransposeShape(sh(F32, 2, 3), []int{0}) }, "", "not a permutation"},
		{"out of range", func() (Shape, error) { return InferTransposeShape(sh(F32, 2, 3), []int{0, 2}) }, "", "not a permutation"},
		{"reverse", func() (Shape, error) { return InferReverseShape(sh(F32, 2, 3), []int{0, 1}) }, "f32[2,3]", ""},
		{"reverse duplicate", func() (Shape, error) { return InferReverseShape(sh(F32, 2, 3), []int{1, 1}) }, "", "reverse: dimension 1 appears twice in {1,1}"},
		{"reverse range", func() (Shape, error) { return InferReverseShape(sh(F32, 2, 3), []int{2}) }, "", "reverse: dimension 2 is out of range for operand f32[2,3]"},
	})
}

func TestInferSliceShapes(t *testing.T) {
	one := []int{1, 1}
	runInferCases(t, []inferCase{
		// The seed: Slice(a, {2}, {4}) of a 5-vector, and Slice(b, {2,1}, {4,3}) of a 4x3 matrix.
		{"seed 1-D", func() (Shape, error) { return InferSliceShape(sh(F32, 5), []int{2}, []int{4}, []int{1}) }, "f32[2]", ""},
		{"seed 2-D", func() (Shape, error) { return InferSliceShape(sh(F32, 4, 3), []int{2, 1}, []int{4, 3}, one) }, "f32[2,2]", ""},
		{"strides round up", func() (Shape, error) { return InferSliceShape(sh(F32, 10), []int{1}, []int{10}, []int{4}) }, "f32[3]", ""},
		{"empty", func() (Shape, error) { return InferSliceShape(sh(F32, 10), []int{3}, []int{3}, []int{2}) }, "f32[0]", ""},
		{"one of dynamic is static", func() (Shape, error) { return InferSliceShape(dyn(sh(F32, 8, 4), 0, 1), []int{0, 0}, []int{1, 4}, one) }, "f32[1,<=4]", ""},
		{"limit beyond", func() (Shape, error) { return InferSliceShape(sh(F32, 4, 3), []int{0, 0}, []int{5, 3}, one) },
			"", "slice: dimension 0: limit index 5 exceeds the dimension size 4 of f32[4,3]"},
		{"start after limit", func() (Shape, error) { return InferSliceShape(sh(F32, 4), []int{3}, []int{2}, []int{1}) }, "", "start index 3 is greater than limit index 2"},
		{"negative start", func() (Shape, error) { return InferSliceShape(sh(F32, 4), []int{-1}, []int{2}, []int{1}) }, "", "start index -1 is negative"},
		{"zero stride", func() (Shape, error) { return InferSliceShape(sh(F32, 4), []int{0}, []int{2}, []int{0}) }, "", "stride 0 must be positive"},
		{"rank", func() (Shape, error) { return InferSliceShape(sh(F32, 4, 3), []int{0}, []int{2}, []int{1}) }, "", "1 slice dimensions for operand f32[4,3] of rank 2"},
		{"lengths", func() (Shape, error) { return InferSliceShape(sh(F32, 4), []int{0}, []int{2, 3}, []int{1}) }, "", "1 start indices, 2 limit indices and 1 strides"},

		// The seed: DynamicSlice(a, {2}, {2}) of a 5-vector and DynamicSlice(b, {2,1}, {2,2}) of a 4x3 matrix.
		{"seed dynamic-slice 1-D", func() (Shape, error) { return InferDynamicSliceShape(sh(F32, 5), []Shape{Scalar(S32)}, []int{2}) }, "f32[2]", ""},
		{"seed dynamic-slice 2-D", func() (Shape, error) {
			return InferDynamicSliceShape(sh(F32, 4, 3), []Shape{Scalar(S32), Scalar(S32)}, []int{2, 2})
		}, "f32[2,2]", ""},
		{"rank-1 start indices", func() (Shape, error) { return InferDynamicSliceShape(sh(F32, 4, 3), []Shape{sh(S64, 2)}, []int{2, 2}) }, "f32[2,2]", ""},
		{"index count", func() (Shape, error) { return InferDynamicSliceShape(sh(F32, 4, 3), []Shape{Scalar(S32)}, []int{2, 2}) },
			"", "dynamic-slice: 1 start indices for operand f32[4,3] of rank 2"},
		{"index type", func() (Shape, error) { return InferDynamicSliceShape(sh(F32, 4), []Shape{Scalar(F32)}, []int{2}) }, "", "start index 0 must have an integer element type, found f32[]"},
		{"mixed index types", func() (Shape, error) {
			return InferDynamicSliceShape(sh(F32, 4, 3), []Shape{Scalar(S32), Scalar(S64)}, []int{2, 2})
		}, "", "start indices must all have one type"},
		{"non-scalar index", func() (Shape, error) {
			return InferDynamicSliceShape(sh(F32, 4, 3), []Shape{Scalar(S32), sh(S32, 1)}, []int{2, 2})
		}, "", "start index 1 must be a scalar"},
		{"size too big", func() (Shape, error) { return InferDynamicSliceShape(sh(F32, 4), []Shape{Scalar(S32)}, []int{5}) },
			"", "slice size 0 is 5, larger than dimension 0 of operand f32[4]"},
		{"whole dynamic stays dynamic", func() (Shape, error) {
			return InferDynamicSliceShape(dyn(sh(F32, 4), 0), []Shape{Scalar(S32)}, []int{4})
		}, "f32[<=4]", ""},

		// The seed: DynamicUpdateSlice of a 5-vector with a 2-vector, and of a 4x3 matrix with a 3x2 one.
		{"seed dus 1-D", func() (Shape, error) {
			return InferDynamicUpdateSliceShape(sh(F32, 5), sh(F32, 2), []Shape{Scalar(S32)})
		}, "f32[5]", ""},
		{"seed dus 2-D", func() (Shape, error) {
			return InferDynamicUpdateSliceShape(sh(F32, 4, 3), sh(F32, 3, 2), []Shape{Scalar(S32), Scalar(S32)})
		}, "f32[4,3]", ""},
		{"dus too big", func() (Shape, error) {
			return InferDynamicUpdateSliceShape(sh(F32, 4, 3), sh(F32, 5, 2), []Shape{Scalar(S32), Scalar(S32)})
		}, "", "dynamic-update-slice: update dimension 0 has size 5, larger than operand dimension 0 of size 4"},
		{"dus rank", func() (Shape, error) {
			return InferDynamicUpdateSliceShape(sh(F32, 4, 3), sh(F32, 3), []Shape{Scalar(S32), Scalar(S32)})
		},
			"", "update f32[3] must have the rank of operand f32[4,3]"},
		{"dus type", func() (Shape, error) {
			return InferDynamicUpdateSliceShape(sh(F32, 4), sh(S32, 2), []Shape{Scalar(S32)})
		},
			"", "must have the element type of operand"},
	})
}

func TestInferConcatenateAndPadShapes(t *testing.T) {
	runInferCases(t, []inferCase{
		// The seed: Concat({{2,3}, {4,5}, {6,7}}, 0) and Concat({a (3x2), b (1x2)}, 0).
		{"seed 1-D", func() (Shape, error) { return InferConcatenateShape([]Shape{sh(S32, 2), sh(S32, 2), sh(S32, 2)}, 0) }, "s32[6]", ""},
		{"seed 2-D", func() (Shape, error) { return InferConcatenateShape([]Shape{sh(F32, 3, 2), sh(F32, 1, 2)}, 0) }, "f32[4,2]", ""},
		{"dim 1", func() (Shape, error) { return InferConcatenateShape([]Shape{sh(F32, 3, 2), sh(F32, 3, 5)}, 1) }, "f32[3,7]", ""},
		{"dynamic", func() (Shape, error) { return InferConcatenateShape([]Shape{dyn(sh(F32, 3, 2), 1), sh(F32, 3, 5)}, 1) }, "f32[3,<=7]", ""},
		// Rank-0 values cannot be concatenated: there is no dimension to name.
		{"scalars", func() (Shape, error) { return InferConcatenateShape([]Shape{Scalar(F32), Scalar(F32)}, 0) }, "", "concatenate: dimension 0 is out of range for operand f32[]"},
		{"none", func() (Shape, error) { return InferConcatenateShape(nil, 0) }, "", "needs at least one operand"},
		{"other dim differs", func() (Shape, error) { return InferConcatenateShape([]Shape{sh(F32, 3, 2), sh(F32, 1, 3)}, 0) },
			"", "operand 1 f32[1,3] and operand 0 f32[3,2] differ in dimension 1, which is not the concatenated dimension 0"},
		{"rank differs", func() (Shape, error) { return InferConcatenateShape([]Shape{sh(F32, 3, 2), sh(F32, 2)}, 0) }, "", "operand 1 f32[2] has rank 1"},
		{"type differs", func() (Shape, error) { return InferConcatenateShape([]Shape{sh(F32, 3), sh(S32, 2)}, 0) }, "", "operand 1 has element type s32, operand 0 has f32"},

		{"pad edges", func() (Shape, error) {
			return InferPadShape(sh(F32, 2, 3), Scalar(F32), []PaddingDim{{1, 2, 0}, {0, 0, 0}})
		}, "f32[5,3]", ""},
		{"pad interior", func() (Shape, error) { return InferPadShape(sh(F32, 3), Scalar(F32), []PaddingDim{{0, 0, 2}}) }, "f32[7]", ""},
		{"pad negative edges crop", func() (Shape, error) { return InferPadShape(sh(F32, 5), Scalar(F32), []PaddingDim{{-1, -2, 0}}) }, "f32[2]", ""},
		{"pad negative after interior", func() (Shape, error) { return InferPadShape(sh(F32, 3), Scalar(F32), []PaddingDim{{-1, 1, 1}}) }, "f32[5]", ""},
		{"pad empty dim with interior", func() (Shape, error) { return InferPadShape(sh(F32, 0), Scalar(F32), []PaddingDim{{1, 1, 3}}) }, "f32[2]", ""},
		{"pad to negative", func() (Shape, error) { return InferPadShape(sh(F32, 2), Scalar(F32), []PaddingDim{{-2, -1, 0}}) },
			"", "pad: dimension 0: padding -2_-1_0 of size 2 gives negative size -1"},
		{"pad negative interior", func() (Shape, error) { return InferPadShape(sh(F32, 2), Scalar(F32), []PaddingDim{{0, 0, -1}}) }, "", "interior padding -1 is negative"},
		{"pad value not scalar", func() (Shape, error) { return InferPadShape(sh(F32, 2), sh(F32, 1), []PaddingDim{{0, 0, 0}}) }, "", "padding value must be a scalar, found f32[1]"},
		{"pad value type", func() (Shape, error) { return InferPadShape(sh(F32, 2), Scalar(S32), []PaddingDim{{0, 0, 0}}) }, "", "padding value s32[] must have the element type of operand f32[2]"},
		{"pad rank", func() (Shape, error) { return InferPadShape(sh(F32, 2, 2), Scalar(F32), []PaddingDim{{0, 0, 0}}) }, "", "padding has 1 dimensions, operand f32[2,2] has rank 2"},
		{"pad overflow", func() (Shape, error) {
			return InferPadShape(sh(F32, 3), Scalar(F32), []PaddingDim{{0, 0, math.MaxInt / 2}})
		}, "", "padded size overflows"},
	})
}

func TestInferIotaAndDimensionSizeShapes(t *testing.T) {
	runInferCases(t, []inferCase{
		// The seed: Iota(s32[4, 8], 0) and Iota(s32[4, 8], 1).
		{"seed iota 0", func() (Shape, error) { return InferIotaShape(sh(S32, 4, 8), 0) }, "s32[4,8]", ""},
		{"seed iota 1", func() (Shape, error) { return InferIotaShape(sh(S32, 4, 8), 1) }, "s32[4,8]", ""},
		{"float iota", func() (Shape, error) { return InferIotaShape(sh(F32, 4), 0) }, "f32[4]", ""},
		{"iota scalar", func() (Shape, error) { return InferIotaShape(Scalar(S32), 0) }, "", "iota: result must have rank at least 1"},
		{"iota dim", func() (Shape, error) { return InferIotaShape(sh(S32, 4, 8), 2) }, "", "iota: iota dimension 2 is out of range for s32[4,8]"},
		{"iota pred", func() (Shape, error) { return InferIotaShape(sh(PRED, 4), 0) }, "", "element type must be integer, floating-point or complex, found pred"},
		{"iota dynamic", func() (Shape, error) { return InferIotaShape(dyn(sh(S32, 4), 0), 0) }, "", "must not have dynamic dimensions"},

		{"get size", func() (Shape, error) { return InferGetDimensionSizeShape(sh(F32, 10), 0) }, "s32[]", ""},
		{"get size range", func() (Shape, error) { return InferGetDimensionSizeShape(sh(F32, 10), 1) }, "", "get-dimension-size: dimension 1 is out of range for operand f32[10]"},
		// The seed: set_dimension_size(f32[10] v, five, 0) keeps the bound 10 and makes it dynamic.
		{"seed set size", func() (Shape, error) { return InferSetDimensionSizeShape(sh(F32, 10), Scalar(S32), 0) }, "f32[<=10]", ""},
		{"set size type", func() (Shape, error) { return InferSetDimensionSizeShape(sh(F32, 10), Scalar(S64), 0) }, "", "set-dimension-size: size must be an s32 scalar, found s64[]"},
		{"set size range", func() (Shape, error) { return InferSetDimensionSizeShape(sh(F32, 10), Scalar(S32), -1) }, "", "dimension -1 is out of range"},
	})
}

// A dimension beyond the s32 range exists only where int has 64 bits.
func TestInferSetDimensionSizeBeyondS32(t *testing.T) {
	if bits.UintSize < 64 {
		t.Skip("int has 32 bits: no dimension exceeds the s32 range")
	}
	shift := 32
	beyond := 1 << shift
	runInferCases(t, []inferCase{
		{"set size too big", func() (Shape, error) { return InferSetDimensionSizeShape(sh(S8, beyond), Scalar(S32), 0) }, "", "exceeds the s32 range"},
	})
}

package ir

import (
	"slices"
	"testing"
)

func dotDims(lc, rc, lb, rb []int) DotDimensionNumbers {
	return DotDimensionNumbers{LhsContracting: lc, RhsContracting: rc, LhsBatch: lb, RhsBatch: rb}
}

func TestInferDotShape(t *testing.T) {
	dot := func(l, r Shape, d DotDimensionNumbers, pref ElementType) func() (Shape, error) {
		return func() (Shape, error) { return InferDotShape(l, r, d, pref) }
	}
	c := func(l, r int) DotDimensionNumbers { return dotDims([]int{l}, []int{r}, nil, nil) }
	runInferCases(t, []inferCase{
		// The seed's table: vector·vector, matrix·vector, matrix·matrix.
		{"vector dot vector", dot(sh(F32, 7), sh(F32, 7), c(0, 0), 0), "f32[]", ""},
		{"matrix dot vector", dot(sh(F32, 5, 7), sh(F32, 7), c(1, 0), 0), "f32[5]", ""},
		{"matrix dot matrix", dot(sh(F32, 5, 7), sh(F32, 7, 3), c(1, 0), 0), "f32[5,3]", ""},
		// The seed's DotGeneral examples: contracting 1 with 1 of two 2x3
		// matrices, and a batch of two 2x2 matrices.
		{"seed contracting", dot(sh(F32, 2, 3), sh(F32, 2, 3), c(1, 1), 0), "f32[2,2]", ""},
		{"seed batch", dot(sh(F32, 2, 2, 2), sh(F32, 2, 2, 2), dotDims([]int{2}, []int{1}, []int{0}, []int{0}), 0), "f32[2,2,2]", ""},
		// [b0, m, k] dot [b0, k, n] and [b0, b1, m, k] dot [b0, b1, k, n].
		{"batch matmul", dot(sh(F32, 8, 5, 7), sh(F32, 8, 7, 3), dotDims([]int{2}, []int{1}, []int{0}, []int{0}), 0), "f32[8,5,3]", ""},
		{"two batch dims", dot(sh(F32, 8, 4, 5, 7), sh(F32, 8, 4, 7, 3), dotDims([]int{3}, []int{2}, []int{0, 1}, []int{0, 1}), 0), "f32[8,4,5,3]", ""},
		// Batch dimensions come first even when they are not leading.
		{"batch in the middle", dot(sh(F32, 5, 8, 7), sh(F32, 7, 8, 3), dotDims([]int{2}, []int{0}, []int{1}, []int{1}), 0), "f32[8,5,3]", ""},
		{"outer product", dot(sh(F32, 5), sh(F32, 3), dotDims(nil, nil, nil, nil), 0), "f32[5,3]", ""},
		{"two contracting dims", dot(sh(F32, 2, 3, 4), sh(F32, 4, 3, 5), dotDims([]int{1, 2}, []int{1, 0}, nil, nil), 0), "f32[2,5]", ""},
		{"preferred f32 from bf16", dot(sh(BF16, 2, 3), sh(BF16, 3, 4), c(1, 0), F32), "f32[2,4]", ""},
		{"preferred s32 from s8", dot(sh(S8, 2, 3), sh(S8, 3, 4), c(1, 0), S32), "s32[2,4]", ""},
		{"preferred narrower float", dot(sh(F32, 2, 3), sh(F32, 3, 4), c(1, 0), BF16), "bf16[2,4]", ""},
		{"dynamic", dot(dyn(sh(F32, 8, 7), 0), sh(F32, 7, 3), c(1, 0), 0), "f32[<=8,3]", ""},

		{"contracting sizes", dot(sh(F32, 8, 784), sh(F32, 512, 10), c(1, 0), 0), "", "dot: lhs contracting dimension 1 has size 784, rhs contracting dimension 0 has size 512"},
		{"batch sizes", dot(sh(F32, 8, 5, 7), sh(F32, 4, 7, 3), dotDims([]int{2}, []int{1}, []int{0}, []int{0}), 0), "", "dot: lhs batch dimension 0 has size 8, rhs batch dimension 0 has size 4"},
		{"contracting count", dot(sh(F32, 2, 3), sh(F32, 3, 2), dotDims([]int{1}, nil, nil, nil), 0), "", "dot: lhs has 1 contracting dimensions {1}, rhs has 0 {}"},
		{"batch count", dot(sh(F32, 2, 3), sh(F32, 2, 3, 4), dotDims([]int{1}, []int{1}, []int{0}, nil), 0), "", "lhs has 1 batch dimensions"},
		{"out of range", dot(sh(F32, 2, 3), sh(F32, 3, 4), c(2, 0), 0), "", "dot: lhs contracting dimension 2 is out of range for f32[2,3]"},
		{"rhs out of range", dot(sh(F32, 2, 3), sh(F32, 3, 4), c(1, -1), 0), "", "dot: rhs contracting dimension -1 is out of range for f32[3,4]"},
		{"repeated", dot(sh(F32, 3, 3), sh(F32, 3, 3, 3), dotDims([]int{0}, []int{0}, []int{0}, []int{1}), 0), "", "lhs dimension 0 is listed twice (as contracting and batch dimension)"},
		{"element types", dot(sh(F32, 2, 3), sh(S32, 3, 4), c(1, 0), 0), "", "dot: lhs f32[2,3] and rhs s32[3,4] must have the same element type"},
		{"float precisions", dot(sh(F32, 2, 3), sh(F16, 3, 4), c(1, 0), 0), "f32[2,4]", ""},
		{"mixed integers with a result type", dot(sh(S16, 4, 3), sh(S8, 3, 2), c(1, 0), S32), "s32[4,2]", ""},
		{"preferred narrower int", dot(sh(S32, 2, 3), sh(S32, 3, 4), c(1, 0), S8), "", "preferred element type s8 is narrower than the operands' type s32"},
		{"tuple", dot(MakeTuple(), sh(F32, 3), c(0, 0), 0), "", "dot: lhs must be an array"},
	})
}

func TestInferConvolutionShape(t *testing.T) {
	nchw := DefaultConvDimensionNumbers(2)
	// NHWC input, HWIO kernel, NHWC output: b01f_01io->b01f.
	nhwc := ConvDimensionNumbers{
		InputBatch: 0, InputFeature: 3, InputSpatial: []int{1, 2},
		KernelInputFeature: 2, KernelOutputFeature: 3, KernelSpatial: []int{0, 1},
		OutputBatch: 0, OutputFeature: 3, OutputSpatial: []int{1, 2},
	}
	win := func(sizes, strides []int, pad [][2]int, lhsDil, rhsDil []int) Window {
		w, err := MakeWindow(sizes, strides, pad, lhsDil, rhsDil)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	conv := func(l, r Shape, fgc, bgc int, w Window, d ConvDimensionNumbers) func() (Shape, error) {
		return func() (Shape, error) { return InferConvolutionShape(l, r, fgc, bgc, w, d, 0) }
	}
	w33 := win([]int{3, 3}, nil, nil, nil, nil)
	runInferCases(t, []inferCase{
		{"valid", conv(sh(F32, 1, 3, 32, 32), sh(F32, 16, 3, 3, 3), 1, 1, w33, nchw), "f32[1,16,30,30]", ""},
		{"same", conv(sh(F32, 1, 3, 32, 32), sh(F32, 16, 3, 3, 3), 1, 1, win([]int{3, 3}, nil, [][2]int{{1, 1}, {1, 1}}, nil, nil), nchw), "f32[1,16,32,32]", ""},
		{"nhwc", conv(sh(F32, 1, 28, 28, 1), sh(F32, 5, 5, 1, 32), 1, 1, win([]int{5, 5}, nil, [][2]int{{2, 2}, {2, 2}}, nil, nil), nhwc), "f32[1,28,28,32]", ""},
		{"resnet stem", conv(sh(F32, 1, 3, 224, 224), sh(F32, 64, 3, 7, 7), 1, 1, win([]int{7, 7}, []int{2, 2}, [][2]int{{3, 3}, {3, 3}}, nil, nil), nchw), "f32[1,64,112,112]", ""},
		// lhs (base) dilation, as in a transposed convolution: base 4 dilated
		// by 2 is 7, padded by 2 on each side is 11, window 3 fits 9 times.
		{"lhs dilation", conv(sh(F32, 1, 1, 4, 4), sh(F32, 1, 1, 3, 3), 1, 1, win([]int{3, 3}, nil, [][2]int{{2, 2}, {2, 2}}, []int{2, 2}, nil), nchw), "f32[1,1,9,9]", ""},
		// rhs (window) dilation, atrous: a 3-window dilated by 2 spans 5.
		{"rhs dilation", conv(sh(F32, 1, 1, 10, 10), sh(F32, 1, 1, 3, 3), 1, 1, win([]int{3, 3}, nil, nil, nil, []int{2, 2}), nchw), "f32[1,1,6,6]", ""},
		// Negative padding crops the base.
		{"negative padding", conv(sh(F32, 1, 1, 10, 10), sh(F32, 1, 1, 3, 3), 1, 1, win([]int{3, 3}, nil, [][2]int{{-1, -1}, {0, 0}}, nil, nil), nchw), "f32[1,1,6,8]", ""},
		// Depthwise: feature_group_count = input features, kernel input features 1.
		{"depthwise", conv(sh(F32, 1, 8, 10, 10), sh(F32, 16, 1, 3, 3), 8, 1, w33, nchw), "f32[1,16,8,8]", ""},
		{"grouped", conv(sh(F32, 2, 8, 10, 10), sh(F32, 6, 4, 3, 3), 2, 1, w33, nchw), "f32[2,6,8,8]", ""},
		// batch_group_count divides the batch into the output features.
		{"batch groups", conv(sh(F32, 4, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 2, w33, nchw), "f32[2,8,3,3]", ""},
		{"1-D", conv(sh(F32, 2, 4, 10), sh(F32, 6, 4, 3), 1, 1, win([]int{3}, []int{2}, nil, nil, nil), DefaultConvDimensionNumbers(1)), "f32[2,6,4]", ""},
		// No spatial dimensions: a matrix product.
		{"0-D", conv(sh(F32, 4, 3), sh(F32, 5, 3), 1, 1, Window{}, DefaultConvDimensionNumbers(0)), "f32[4,5]", ""},
		{"window bigger than base", conv(sh(F32, 1, 1, 2, 2), sh(F32, 1, 1, 3, 3), 1, 1, w33, nchw), "f32[1,1,0,0]", ""},
		{"dynamic batch", conv(dyn(sh(F32, 4, 3, 5, 5), 0), sh(F32, 8, 3, 3, 3), 1, 1, w33, nchw), "f32[<=4,8,3,3]", ""},

		{"feature mismatch", conv(sh(F32, 1, 3, 32, 32), sh(F32, 16, 4, 3, 3), 1, 1, w33, nchw), "", "convolution: lhs feature dimension size 3 must equal feature_group_count 1 times the rhs input feature dimension size 4"},
		{"feature groups do not divide", conv(sh(F32, 1, 8, 10, 10), sh(F32, 16, 3, 3, 3), 3, 1, w33, nchw), "", "lhs feature dimension size 8 must equal feature_group_count 3"},
		{"output features not a multiple of groups", conv(sh(F32, 1, 8, 10, 10), sh(F32, 6, 2, 3, 3), 4, 1, w33, nchw), "", "kernel output feature dimension size 6 must be a multiple of feature_group_count 4"},
		{"batch not divisible", conv(sh(F32, 3, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 2, w33, nchw), "", "lhs batch dimension size 3 must be a multiple of batch_group_count 2"},
		{"output not multiple of batch groups", conv(sh(F32, 4, 3, 5, 5), sh(F32, 5, 3, 3, 3), 1, 2, w33, nchw), "", "kernel output feature dimension size 5 must be a multiple of batch_group_count 2"},
		{"both group counts", conv(sh(F32, 4, 4, 5, 5), sh(F32, 8, 2, 3, 3), 2, 2, w33, nchw), "", "cannot both be greater than 1"},
		{"zero feature groups", conv(sh(F32, 1, 3, 5, 5), sh(F32, 8, 3, 3, 3), 0, 1, w33, nchw), "", "feature_group_count must be positive, found 0"},
		{"zero batch groups", conv(sh(F32, 1, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 0, w33, nchw), "", "batch_group_count must be positive, found 0"},
		{"window size", conv(sh(F32, 1, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 1, win([]int{2, 3}, nil, nil, nil, nil), nchw), "", "window dimension 0 has size 2, rhs spatial dimension 2 has size 3"},
		{"window count", conv(sh(F32, 1, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 1, win([]int{3}, nil, nil, nil, nil), nchw), "", "window has 1 dimensions, the dimension numbers 2 spatial dimensions"},
		{"lhs rank", conv(sh(F32, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 1, w33, nchw), "", "lhs f32[3,5,5] must have rank 4"},
		{"not a permutation", conv(sh(F32, 1, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 1, w33, ConvDimensionNumbers{
			InputBatch: 0, InputFeature: 0, InputSpatial: []int{2, 3},
			KernelOutputFeature: 0, KernelInputFeature: 1, KernelSpatial: []int{2, 3},
			OutputBatch: 0, OutputFeature: 1, OutputSpatial: []int{2, 3}}), "", "input dimension numbers must name each of the 4 dimensions exactly once"},
		{"dimension out of range", conv(sh(F32, 1, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 1, w33, ConvDimensionNumbers{
			InputBatch: 0, InputFeature: 1, InputSpatial: []int{2, 3},
			KernelOutputFeature: 0, KernelInputFeature: 1, KernelSpatial: []int{2, 4},
			OutputBatch: 0, OutputFeature: 1, OutputSpatial: []int{2, 3}}), "", "kernel dimension number 4 is out of range [0, 4)"},
		{"spatial counts", conv(sh(F32, 1, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 1, w33, ConvDimensionNumbers{
			InputBatch: 0, InputFeature: 1, InputSpatial: []int{2, 3},
			KernelOutputFeature: 0, KernelInputFeature: 1, KernelSpatial: []int{2},
			OutputBatch: 0, OutputFeature: 1, OutputSpatial: []int{2, 3}}), "", "have 2 input, 1 kernel and 2 output spatial dimensions"},
		{"zero stride", conv(sh(F32, 1, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 1, win([]int{3, 3}, []int{0, 1}, nil, nil, nil), nchw), "", "window dimension 0 has stride 0, expected a positive stride"},
		{"zero dilation", conv(sh(F32, 1, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 1, win([]int{3, 3}, nil, nil, []int{0, 1}, nil), nchw), "", "window dimension 0 has base (lhs) dilation 0"},
		{"padding below zero", conv(sh(F32, 1, 3, 5, 5), sh(F32, 8, 3, 3, 3), 1, 1, win([]int{3, 3}, nil, [][2]int{{-4, -3}, {0, 0}}, nil, nil), nchw), "", "leaves a negative base size -2"},
		{"types", conv(sh(F32, 1, 3, 5, 5), sh(S32, 8, 3, 3, 3), 1, 1, w33, nchw), "", "must have the same element type"},
		{"dynamic kernel spatial", conv(sh(F32, 1, 3, 5, 5), dyn(sh(F32, 8, 3, 3, 3), 2), 1, 1, w33, nchw), "", "is dynamic, which is not supported"},
	})
}

func TestMakePaddingAndWindow(t *testing.T) {
	// The seed's reduce-window example: a 5-vector, window 3, stride 2.
	// VALID has no padding; SAME pads one element on each side.
	p, err := MakePadding([]int{5}, []int{3}, []int{2}, PaddingValid)
	if err != nil || !slices.Equal(p, [][2]int{{0, 0}}) {
		t.Errorf("VALID padding = %v, %v; want [[0 0]]", p, err)
	}
	p, err = MakePadding([]int{5}, []int{3}, []int{2}, PaddingSame)
	if err != nil || !slices.Equal(p, [][2]int{{1, 1}}) {
		t.Errorf("SAME padding = %v, %v; want [[1 1]]", p, err)
	}
	// SAME puts the smaller half low: input 4, window 4, stride 1 pads 3 as 1_2.
	p, err = MakePadding([]int{4}, []int{4}, []int{1}, PaddingSame)
	if err != nil || !slices.Equal(p, [][2]int{{1, 2}}) {
		t.Errorf("SAME padding = %v, %v; want [[1 2]]", p, err)
	}
	if _, err := MakePadding([]int{4, 4}, []int{4}, []int{1}, PaddingSame); err == nil {
		t.Error("MakePadding with mismatched lengths succeeded")
	}
	if _, err := MakePadding([]int{4}, []int{4}, []int{0}, PaddingSame); err == nil {
		t.Error("MakePadding with a zero stride succeeded")
	}
	w, err := MakeWindow([]int{2, 3}, nil, nil, nil, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := Window{Dims: []WindowDim{{Size: 2, Stride: 1, BaseDilation: 1, WindowDilation: 1}, {Size: 3, Stride: 1, BaseDilation: 1, WindowDilation: 2}}}
	if !slices.Equal(w.Dims, want.Dims) {
		t.Errorf("MakeWindow = %+v, want %+v", w, want)
	}
	if _, err := MakeWindow([]int{2, 3}, []int{1}, nil, nil, nil); err == nil {
		t.Error("MakeWindow with one stride for two dimensions succeeded")
	}
}

package ir

import "testing"

func TestInferReduceShape(t *testing.T) {
	add := scalarReducer(F32)
	red := func(op Shape, dims ...int) func() (Shape, error) {
		return func() (Shape, error) {
			return InferReduceShape([]Shape{op}, []Shape{Scalar(op.Elem)}, dims, scalarReducer(op.Elem))
		}
	}
	// The argmax reducer of the seed: (max, argmax, value, index) -> (max, argmax).
	argmax := prog(MakeTuple(Scalar(F32), Scalar(S32)), Scalar(F32), Scalar(S32), Scalar(F32), Scalar(S32))
	runInferCases(t, []inferCase{
		// The seed: a 2x3 array reduced over dimension 0 or 1.
		{"2x3 over 0", red(sh(F32, 2, 3), 0), "f32[3]", ""},
		{"2x3 over 1", red(sh(F32, 2, 3), 1), "f32[2]", ""},
		// The seed: a 4x2x3 array over 0, over 2, over {0,1}, over all.
		{"4x2x3 over 0", red(sh(F32, 4, 2, 3), 0), "f32[2,3]", ""},
		{"4x2x3 over 2", red(sh(F32, 4, 2, 3), 2), "f32[4,2]", ""},
		{"4x2x3 over 0,1", red(sh(F32, 4, 2, 3), 0, 1), "f32[3]", ""},
		{"4x2x3 over all", red(sh(F32, 4, 2, 3), 0, 1, 2), "f32[]", ""},
		{"unordered dims", red(sh(F32, 4, 2, 3), 2, 0), "f32[2]", ""},
		{"no dims", red(sh(S32, 4), nil...), "s32[4]", ""},
		// The seed's variadic argmax over a vector and its indices.
		{"variadic argmax", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 10), sh(S32, 10)}, []Shape{Scalar(F32), Scalar(S32)}, []int{0}, argmax)
		}, "(f32[], s32[])", ""},
		{"variadic keeps dims", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 4, 10), sh(S32, 4, 10)}, []Shape{Scalar(F32), Scalar(S32)}, []int{1}, argmax)
		}, "(f32[4], s32[4])", ""},
		{"dynamic kept", red(dyn(sh(F32, 4, 3), 0), 1), "f32[<=4]", ""},
		{"convert in reducer", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 4)}, []Shape{Scalar(F32)}, []int{0}, add)
		}, "f32[]", ""},

		{"out of range", red(sh(F32, 4, 3), 2), "", "reduce: reduced dimension 2 is out of range for f32[4,3]"},
		{"negative", red(sh(F32, 4, 3), -1), "", "reduced dimension -1 is out of range"},
		{"duplicate", red(sh(F32, 4, 3), 1, 1), "", "reduce: dimension 1 is reduced twice in {1,1}"},
		{"operand dims", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 10), sh(S32, 9)}, []Shape{Scalar(F32), Scalar(S32)}, []int{0}, argmax)
		}, "", "operand 1 s32[9] must have the dimensions of operand 0 f32[10]"},
		{"init count", func() (Shape, error) { return InferReduceShape([]Shape{sh(F32, 4)}, nil, []int{0}, add) }, "", "0 init values for 1 operands"},
		{"reducer arity", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 4)}, []Shape{Scalar(F32)}, []int{0}, prog(Scalar(F32), Scalar(F32)))
		}, "", "must take 2 parameters, found 1"},
		{"reducer result type", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 4)}, []Shape{Scalar(F32)}, []int{0}, prog(Scalar(S32), Scalar(F32), Scalar(F32)))
		}, "", "reduction computation parameter 0 has shape f32[], its result 0 has shape s32[]"},
		{"reducer input type", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(S32, 4)}, []Shape{Scalar(F32)}, []int{0}, add)
		}, "", "reduction computation parameter 1 has shape f32[], input 0 has element type s32"},
		{"init type", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 4)}, []Shape{Scalar(S32)}, []int{0}, add)
		}, "", "init value 0 has shape s32[], the reduction computation's accumulator 0 has shape f32[]"},
		// Init values and inputs may differ from the reducer's type in
		// floating-point precision only, as XLA's VerifyReducerShape has it.
		{"bf16 init, f32 reducer", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(BF16, 4, 3)}, []Shape{Scalar(BF16)}, []int{1}, add)
		}, "f32[4]", ""},
		{"reducer parameter 0 keeps its type", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 4)}, []Shape{Scalar(F32)}, []int{0}, prog(Scalar(F32), Scalar(BF16), Scalar(F32)))
		}, "", "reduction computation parameter 0 has shape bf16[], its result 0 has shape f32[]"},
		{"init not scalar", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 4)}, []Shape{sh(F32, 1)}, []int{0}, add)
		}, "", "init value 0 has shape f32[1]"},
		{"reducer returns array", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 4)}, []Shape{Scalar(F32)}, []int{0}, prog(sh(F32, 2), Scalar(F32), Scalar(F32)))
		}, "", "reduction computation must return scalars, found f32[2]"},
		{"variadic needs a tuple", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 10), sh(S32, 10)}, []Shape{Scalar(F32), Scalar(S32)}, []int{0},
				prog(Scalar(F32), Scalar(F32), Scalar(S32), Scalar(F32), Scalar(S32)))
		}, "", "must return a tuple of 2 scalars, found f32[]"},
		{"tuple size", func() (Shape, error) {
			return InferReduceShape([]Shape{sh(F32, 10), sh(S32, 10)}, []Shape{Scalar(F32), Scalar(S32)}, []int{0},
				prog(MakeTuple(Scalar(F32)), Scalar(F32), Scalar(S32), Scalar(F32), Scalar(S32)))
		}, "", "must return a tuple of 2 scalars, found (f32[])"},
		{"no operands", func() (Shape, error) { return InferReduceShape(nil, nil, nil, add) }, "", "reduce: needs at least one operand"},
	})
}

func TestInferReduceWindowShape(t *testing.T) {
	add := scalarReducer(F32)
	win := func(sizes, strides []int, pad [][2]int, base, window []int) Window {
		w, err := MakeWindow(sizes, strides, pad, base, window)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	rw := func(op Shape, w Window) func() (Shape, error) {
		return func() (Shape, error) {
			return InferReduceWindowShape([]Shape{op}, []Shape{Scalar(op.Elem)}, w, scalarReducer(op.Elem))
		}
	}
	runInferCases(t, []inferCase{
		// The seed: a [4x6] input, window and strides [2x3], VALID.
		{"seed 4x6", rw(sh(F32, 4, 6), win([]int{2, 3}, []int{2, 3}, nil, nil, nil)), "f32[2,2]", ""},
		// The seed: min over windows of 3 at stride 2 of a 5-vector: VALID
		// gives [100, 1], SAME (padded 1 on each side) gives [1000, 10, 1].
		{"seed valid", rw(sh(F32, 5), win([]int{3}, []int{2}, nil, nil, nil)), "f32[2]", ""},
		{"seed same", rw(sh(F32, 5), win([]int{3}, []int{2}, [][2]int{{1, 1}}, nil, nil)), "f32[3]", ""},
		{"base dilation", rw(sh(F32, 4), win([]int{2}, nil, nil, []int{2}, nil)), "f32[6]", ""},
		{"window dilation", rw(sh(F32, 10), win([]int{3}, nil, nil, nil, []int{3})), "f32[4]", ""},
		{"variadic", func() (Shape, error) {
			return InferReduceWindowShape([]Shape{sh(F32, 4, 6), sh(S32, 4, 6)}, []Shape{Scalar(F32), Scalar(S32)}, win([]int{2, 3}, []int{2, 3}, nil, nil, nil),
				prog(MakeTuple(Scalar(F32), Scalar(S32)), Scalar(F32), Scalar(S32), Scalar(F32), Scalar(S32)))
		}, "(f32[2,2], s32[2,2])", ""},
		{"window rank", rw(sh(F32, 4, 6), win([]int{2}, nil, nil, nil, nil)), "", "reduce-window: window has 1 dimensions, the base f32[4,6] has rank 2"},
		{"zero size", rw(sh(F32, 4), win([]int{0}, nil, nil, nil, nil)), "", "window dimension 0 has size 0, expected a positive size"},
		{"negative stride", rw(sh(F32, 4), win([]int{2}, []int{-1}, nil, nil, nil)), "", "has stride -1"},
		{"zero window dilation", rw(sh(F32, 4), win([]int{2}, nil, nil, nil, []int{0})), "", "window (rhs) dilation 0"},
		{"reducer", func() (Shape, error) {
			return InferReduceWindowShape([]Shape{sh(S32, 4)}, []Shape{Scalar(S32)}, win([]int{2}, nil, nil, nil, nil), add)
		}, "", "reduce-window: init value 0 has shape s32[], the reduction computation's accumulator 0 has shape f32[]"},
		{"operand dims", func() (Shape, error) {
			return InferReduceWindowShape([]Shape{sh(F32, 4), sh(F32, 5)}, []Shape{Scalar(F32), Scalar(F32)}, win([]int{2}, nil, nil, nil, nil), add)
		}, "", "operand 1 f32[5] must have the dimensions of operand 0 f32[4]"},
	})
}

func TestInferSelectAndScatterShape(t *testing.T) {
	ge := prog(Scalar(PRED), Scalar(F32), Scalar(F32))
	add := scalarReducer(F32)
	w, err := MakeWindow([]int{2, 3}, []int{2, 3}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sas := func(op Shape, sel ProgramShape, src, init Shape, sc ProgramShape) func() (Shape, error) {
		return func() (Shape, error) { return InferSelectAndScatterShape(op, sel, w, src, init, sc) }
	}
	runInferCases(t, []inferCase{
		{"max pool grad", sas(sh(F32, 4, 6), ge, sh(F32, 2, 2), Scalar(F32), add), "f32[4,6]", ""},
		{"source shape", sas(sh(F32, 4, 6), ge, sh(F32, 2, 3), Scalar(F32), add), "", "select-and-scatter: source f32[2,3] must have the shape of the window-reduced operand f32[2,2]"},
		{"select result", sas(sh(F32, 4, 6), prog(Scalar(F32), Scalar(F32), Scalar(F32)), sh(F32, 2, 2), Scalar(F32), add), "", "select computation must return pred[], found f32[]"},
		{"select arity", sas(sh(F32, 4, 6), prog(Scalar(PRED), Scalar(F32)), sh(F32, 2, 2), Scalar(F32), add), "", "select computation (f32[]) -> pred[] must take 2 parameters, found 1"},
		{"select parameter", sas(sh(F32, 4, 6), prog(Scalar(PRED), Scalar(F32), Scalar(S32)), sh(F32, 2, 2), Scalar(F32), add), "", "select computation parameter 1 has shape s32[], the operand's element shape is f32[]"},
		{"scatter reducer", sas(sh(F32, 4, 6), ge, sh(F32, 2, 2), Scalar(F32), scalarReducer(S32)), "", "init value 0 has shape f32[], the reduction computation's accumulator 0 has shape s32[]"},
		{"init", sas(sh(F32, 4, 6), ge, sh(F32, 2, 2), Scalar(S32), add), "", "init value 0 has shape s32[]"},
	})
}

func TestInferSortAndTopKShape(t *testing.T) {
	lt := func(ts ...ElementType) ProgramShape {
		var ps []Shape
		for _, t := range ts {
			ps = append(ps, Scalar(t), Scalar(t))
		}
		return prog(Scalar(PRED), ps...)
	}
	runInferCases(t, []inferCase{
		{"one operand", func() (Shape, error) { return InferSortShape([]Shape{sh(F32, 5, 4)}, 1, lt(F32)) }, "f32[5,4]", ""},
		// The seed: operand0 = [3, 1], operand1 = [42, 50], operand2 = [-3.0, 1.1] sorted together.
		{"seed three operands", func() (Shape, error) {
			return InferSortShape([]Shape{sh(S32, 2), sh(S32, 2), sh(F32, 2)}, 0, lt(S32, S32, F32))
		}, "(s32[2], s32[2], f32[2])", ""},
		{"dimension", func() (Shape, error) { return InferSortShape([]Shape{sh(F32, 5)}, 1, lt(F32)) }, "", "sort: dimension 1 is out of range for f32[5]"},
		{"comparator result", func() (Shape, error) {
			return InferSortShape([]Shape{sh(F32, 5)}, 0, prog(Scalar(F32), Scalar(F32), Scalar(F32)))
		}, "", "sort: comparator must return pred[], found f32[]"},
		{"comparator arity", func() (Shape, error) { return InferSortShape([]Shape{sh(F32, 5), sh(S32, 5)}, 0, lt(F32)) }, "", "must take 4 parameters for 2 operands, found 2"},
		{"comparator types", func() (Shape, error) { return InferSortShape([]Shape{sh(F32, 5), sh(S32, 5)}, 0, lt(F32, F32)) }, "", "comparator parameter 2 has shape f32[], expected s32[] (operand 1's element type)"},
		{"comparator non-scalar", func() (Shape, error) {
			return InferSortShape([]Shape{sh(F32, 5)}, 0, prog(Scalar(PRED), sh(F32, 1), Scalar(F32)))
		}, "", "comparator parameter 0 has shape f32[1], expected f32[]"},
		{"operand dims", func() (Shape, error) { return InferSortShape([]Shape{sh(F32, 5), sh(S32, 4)}, 0, lt(F32, S32)) }, "", "operand 1 s32[4] must have the dimensions of operand 0 f32[5]"},
		{"no operands", func() (Shape, error) { return InferSortShape(nil, 0, lt()) }, "", "needs at least one operand"},

		// The seed: for an operand [A, B, …, P, Q] both outputs are [A, B, …, P, k].
		{"topk", func() (Shape, error) { return InferTopKShape(sh(F32, 2, 3, 10), 4) }, "(f32[2,3,4], s32[2,3,4])", ""},
		{"topk vector", func() (Shape, error) { return InferTopKShape(sh(BF16, 10), 10) }, "(bf16[10], s32[10])", ""},
		{"topk k too big", func() (Shape, error) { return InferTopKShape(sh(F32, 3, 5), 6) }, "", "topk: k 6 is larger than the last dimension 5 of f32[3,5]"},
		{"topk scalar", func() (Shape, error) { return InferTopKShape(Scalar(F32), 1) }, "", "operand must have rank at least 1"},
		{"topk negative k", func() (Shape, error) { return InferTopKShape(sh(F32, 3), -1) }, "", "k must not be negative"},
	})
}

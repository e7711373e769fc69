package ir

import "testing"

func TestInferScanShape(t *testing.T) {
	body := func(result Shape, params ...Shape) ProgramShape {
		return ProgramShape{Parameters: params, Result: result}
	}
	scan := func(inputs, carries []Shape, dim int, b ProgramShape) func() (Shape, error) {
		return func() (Shape, error) { return InferScanShape(inputs, carries, dim, b) }
	}
	x := sh(F32, 8, 4)
	runInferCases(t, []inferCase{
		// A running sum over dimension 0: per step a row (f32[4]) in, the
		// row of partial sums out, the sum carried.
		{"cumulative sum", scan([]Shape{x}, []Shape{sh(F32, 4)}, 0,
			body(MakeTuple(sh(F32, 4), sh(F32, 4)), sh(F32, 4), sh(F32, 4))), "(f32[8,4], f32[4])", ""},
		// Over dimension 1 the outputs gain the dimension in the middle.
		{"inner dimension", scan([]Shape{x}, nil, 1, body(sh(F32, 8), sh(F32, 8))), "f32[8,4]", ""},
		{"non-tuple root with carries", scan([]Shape{x}, []Shape{sh(F32, 4)}, 0, body(sh(F32, 4), sh(F32, 4), sh(F32, 4))), "f32[4]", ""},
		{"two inputs, no carry", scan([]Shape{x, sh(S32, 8, 2)}, nil, 0,
			body(MakeTuple(sh(F32, 4), sh(S32, 2)), sh(F32, 4), sh(S32, 2))), "(f32[8,4], s32[8,2])", ""},
		{"dynamic scan dimension", scan([]Shape{dyn(x, 0)}, nil, 0, body(sh(F32, 4), sh(F32, 4))), "f32[<=8,4]", ""},

		{"no inputs", scan(nil, []Shape{sh(F32)}, 0, body(sh(F32), sh(F32))), "", "scan with no inputs"},
		{"parameter count", scan([]Shape{x}, nil, 0, body(sh(F32, 4), sh(F32, 4), sh(F32, 4))), "", "the body takes 2 parameters, but the scan has 1 operands"},
		{"dimension out of range", scan([]Shape{x}, nil, 2, body(sh(F32, 4), sh(F32, 4))), "", "scan dimension 2 is out of range"},
		{"inputs disagree", scan([]Shape{x, sh(F32, 7, 4)}, nil, 0, body(MakeTuple(sh(F32, 4), sh(F32, 4)), sh(F32, 4), sh(F32, 4))), "", "does not have size 8"},
	})
}

func TestInferScaledAndRaggedDotShape(t *testing.T) {
	c := func(l, r int) DotDimensionNumbers { return dotDims([]int{l}, []int{r}, nil, nil) }
	scaled := func(l, ls, r, rs Shape, d DotDimensionNumbers, pref ElementType) func() (Shape, error) {
		return func() (Shape, error) { return InferScaledDotShape(l, r, ls, rs, d, pref) }
	}
	ragged := func(l, r, g Shape, d DotDimensionNumbers, lr, rg []int) func() (Shape, error) {
		return func() (Shape, error) { return InferRaggedDotShape(l, r, g, d, lr, rg, InvalidType) }
	}
	runInferCases(t, []inferCase{
		// f8 operands with f8e8m0fnu block scales (one per 32 elements of k).
		{"mx matmul", scaled(sh(F8E4M3FN, 16, 64), sh(F8E8M0FNU, 16, 2), sh(F8E5M2, 64, 8), sh(F8E8M0FNU, 2, 8), c(1, 0), BF16), "bf16[16,8]", ""},
		{"scaled default type", scaled(sh(F32, 2, 3), sh(F32, 2, 1), sh(F32, 3, 4), sh(F32, 1, 4), c(1, 0), InvalidType), "f32[2,4]", ""},
		{"scale rank", scaled(sh(F32, 2, 3), sh(F32, 2), sh(F32, 3, 4), sh(F32, 1, 4), c(1, 0), InvalidType), "", "scaled-dot: lhs scale f32[2] must have the rank of lhs"},
		{"scaled contracting", scaled(sh(F32, 2, 3), sh(F32, 2, 1), sh(F32, 5, 4), sh(F32, 1, 4), c(1, 0), InvalidType), "", "scaled-dot: lhs contracting dimension 1 has size 3"},

		// Mode 1: [m, k] by [g, k, n] with m split into g groups.
		{"ragged free", ragged(sh(F32, 11, 5), sh(F32, 3, 5, 7), sh(S32, 3), c(1, 1), []int{0}, []int{0}), "f32[11,7]", ""},
		// Mode 2: the contracting dimension is split: one product per group.
		{"ragged contracting", ragged(sh(F32, 11, 5), sh(F32, 5, 7), sh(S32, 3), c(1, 0), []int{1}, nil), "f32[3,11,7]", ""},
		// Mode 3: a ragged batch dimension.
		{"ragged batch", ragged(sh(F32, 2, 11, 5), sh(F32, 2, 5, 7), sh(S32, 4), dotDims([]int{2}, []int{1}, []int{0}, []int{0}), []int{0}, nil), "f32[2,11,7]", ""},
		{"group count", ragged(sh(F32, 11, 5), sh(F32, 3, 5, 7), sh(S32, 4), c(1, 1), []int{0}, []int{0}), "", "rhs group dimension 0 has size 3, but group_sizes s32[4] has 4 groups"},
		{"missing group dimension", ragged(sh(F32, 11, 5), sh(F32, 5, 7), sh(S32, 3), c(1, 0), []int{0}, nil), "", "rhs needs a group dimension"},
		{"group sizes type", ragged(sh(F32, 11, 5), sh(F32, 3, 5, 7), sh(F32, 3), c(1, 1), []int{0}, []int{0}), "", "group_sizes must be an integer array"},
		{"two ragged dims", ragged(sh(F32, 11, 5), sh(F32, 3, 5, 7), sh(S32, 3), c(1, 1), []int{0, 1}, []int{0}), "", "expected one lhs ragged dimension"},
	})
}

func TestInferNewElementwiseShapes(t *testing.T) {
	for _, op := range []Opcode{OpAcos, OpAcosh, OpAsin, OpAsinh, OpAtan, OpAtanh, OpCosh, OpSinh} {
		if s, err := InferUnaryOpShape(op, sh(BF16, 3)); err != nil || human(s) != "bf16[3]" {
			t.Errorf("%v of bf16[3]: %v, %v", op, human(s), err)
		}
		if s, err := InferUnaryOpShape(op, sh(C64, 3)); err != nil || human(s) != "c64[3]" {
			t.Errorf("%v of c64[3]: %v, %v", op, human(s), err)
		}
		if _, err := InferUnaryOpShape(op, sh(S32, 3)); err == nil {
			t.Errorf("%v of s32[3]: no error", op)
		}
		if !op.IsElementwiseUnary() || !op.TakesResultAccuracy() {
			t.Errorf("%v: want an elementwise unary op that takes result_accuracy", op)
		}
	}
	if s, err := InferBinaryOpShape(OpMulhi, sh(U32, 4), sh(U32, 4), nil); err != nil || human(s) != "u32[4]" {
		t.Errorf("mulhi of u32[4]: %v, %v", human(s), err)
	}
	if _, err := InferBinaryOpShape(OpMulhi, sh(F32, 4), sh(F32, 4), nil); err == nil {
		t.Error("mulhi of f32: no error")
	}
	if !OpMulhi.IsCommutative() {
		t.Error("mulhi is commutative")
	}
}

// The builder's methods for the new ops build instructions that verify.
func TestBuilderNewOps(t *testing.T) {
	sum := NewBuilder("sum")
	a := sum.Parameter(0, sh(F32, 4), "row")
	acc := sum.Parameter(1, sh(F32, 4), "acc")
	next := sum.Add(a, acc)
	sum.Tuple(next, next)
	body, err := sum.Build()
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder("main")
	x := b.Parameter(0, sh(F32, 8, 4), "x")
	init := b.Parameter(1, sh(F32, 4), "init")
	s := b.Scan(body, []Op{x}, []Op{init}, 0, false, true)
	b.Sinh(b.Cosh(b.Atanh(b.Asinh(b.Acosh(b.Acos(b.Asin(b.Atan(b.GetTupleElement(s, 0)))))))))
	ints := b.Parameter(2, sh(S32, 3), "i")
	b.Mulhi(ints, ints)
	lhs := b.Parameter(3, sh(F8E4M3FN, 16, 64), "lhs")
	ls := b.Parameter(4, sh(F8E8M0FNU, 16, 2), "lhs_scale")
	rhs := b.Parameter(5, sh(F8E4M3FN, 64, 8), "rhs")
	rs := b.Parameter(6, sh(F8E8M0FNU, 2, 8), "rhs_scale")
	b.ScaledDot(lhs, rhs, ls, rs, dotDims([]int{1}, []int{0}, nil, nil), DotOptions{PreferredType: BF16})
	m := b.Parameter(7, sh(F32, 11, 5), "m")
	w := b.Parameter(8, sh(F32, 3, 5, 7), "w")
	b.RaggedDot(m, w, ints, dotDims([]int{1}, []int{1}, nil, nil), 0, 0)
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	mod := &Module{Name: "m"}
	mod.AddComputation(body, false)
	mod.AddComputation(c, true)
	if err := mod.Verify(); err != nil {
		t.Fatalf("verify: %v\n%s", err, mod)
	}
	back, err := ParseModule(mod.String())
	if err != nil {
		t.Fatalf("parse of printed module: %v\n%s", err, mod)
	}
	if d := diffModules(mod, back); d != "" {
		t.Fatalf("round trip: %s\n%s", d, mod)
	}
}

package ir

import (
	"fmt"
	"testing"
)

// unaryAccepts says which element types XLA's ShapeInference accepts for each
// unary op, and what it turns them into.
func TestInferUnaryOpShapeTypeRules(t *testing.T) {
	type rule struct {
		op     Opcode
		accept func(ElementType) bool
		result func(ElementType) ElementType
	}
	same := func(t ElementType) ElementType { return t }
	floats := func(t ElementType) bool { return t.IsFloat() }
	floatsOrComplex := func(t ElementType) bool { return t.IsFloatOrComplex() }
	ints := func(t ElementType) bool { return t.IsInteger() }
	component := func(t ElementType) ElementType { return t.ComplexComponent() }
	rules := []rule{
		{OpFloor, floats, same}, {OpCeil, floats, same}, {OpErf, floats, same},
		{OpRoundNearestAfz, floats, same}, {OpRoundNearestEven, floats, same},
		{OpCos, floatsOrComplex, same}, {OpSin, floatsOrComplex, same}, {OpExp, floatsOrComplex, same},
		{OpExpm1, floatsOrComplex, same}, {OpLog, floatsOrComplex, same}, {OpLog1p, floatsOrComplex, same},
		{OpLogistic, floatsOrComplex, same}, {OpRsqrt, floatsOrComplex, same}, {OpSqrt, floatsOrComplex, same},
		{OpCbrt, floatsOrComplex, same}, {OpTan, floatsOrComplex, same}, {OpTanh, floatsOrComplex, same},
		{OpReal, floatsOrComplex, component}, {OpImag, floatsOrComplex, component},
		{OpAbs, func(t ElementType) bool { return t.IsSigned() || t.IsFloatOrComplex() }, component},
		{OpSign, func(t ElementType) bool { return t.IsSigned() || t.IsFloatOrComplex() }, same},
		{OpNegate, func(t ElementType) bool { return t.IsInteger() || t.IsFloatOrComplex() }, same},
		{OpClz, ints, same}, {OpPopulationCount, ints, same},
		{OpNot, func(t ElementType) bool { return t == PRED || t.IsInteger() }, same},
		{OpIsFinite, floats, func(ElementType) ElementType { return PRED }},
	}
	for _, r := range rules {
		for _, et := range AllElementTypes {
			got, err := InferUnaryOpShape(r.op, sh(et, 2, 3))
			if !r.accept(et) {
				if err == nil {
					t.Errorf("%v(%v[2,3]) = %v, want an error", r.op, et, human(got))
				} else if want := fmt.Sprintf("%v: operand must have", r.op); len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
					t.Errorf("%v(%v): error %q does not start with %q", r.op, et, err, want)
				}
				continue
			}
			if err != nil {
				t.Errorf("%v(%v[2,3]): %v", r.op, et, err)
				continue
			}
			if want := sh(r.result(et), 2, 3); !got.EqualIgnoringLayout(want) {
				t.Errorf("%v(%v[2,3]) = %v, want %v", r.op, et, human(got), human(want))
			}
		}
	}
}

func TestInferUnaryOpShape(t *testing.T) {
	runInferCases(t, []inferCase{
		// The seed allows rank-0 operands for every unary op.
		{"scalar", func() (Shape, error) { return InferUnaryOpShape(OpExp, Scalar(F32)) }, "f32[]", ""},
		{"abs c128 is f64", func() (Shape, error) { return InferUnaryOpShape(OpAbs, sh(C128, 4)) }, "f64[4]", ""},
		{"dynamic kept", func() (Shape, error) { return InferUnaryOpShape(OpNegate, dyn(sh(S32, 10, 4), 0)) }, "s32[<=10,4]", ""},
		{"copy of a tuple", func() (Shape, error) { return InferUnaryOpShape(OpCopy, MakeTuple(sh(F32, 2), Scalar(S32))) }, "(f32[2], s32[])", ""},
		{"tuple operand", func() (Shape, error) { return InferUnaryOpShape(OpExp, MakeTuple(sh(F32, 2))) }, "", "exponential: operand must be an array, found (f32[2])"},
		{"token operand", func() (Shape, error) { return InferUnaryOpShape(OpNegate, TokenShape()) }, "", "negate: operand must be an array"},
		{"floor of s32", func() (Shape, error) { return InferUnaryOpShape(OpFloor, sh(S32, 3)) }, "", "floor: operand must have a floating-point element type, found s32[3]"},
		{"abs of u8", func() (Shape, error) { return InferUnaryOpShape(OpAbs, sh(U8, 3)) }, "", "abs: operand must have a signed integer, floating-point or complex element type, found u8[3]"},
		{"not binary op", func() (Shape, error) { return InferUnaryOpShape(OpAdd, sh(F32, 3)) }, "", "add: not an elementwise unary operation"},
	})
}

func TestInferBinaryOpShapeTypeRules(t *testing.T) {
	accept := map[Opcode]func(ElementType) bool{
		OpAdd:                  func(t ElementType) bool { return t.IsInteger() || t.IsFloatOrComplex() },
		OpSubtract:             func(t ElementType) bool { return t.IsInteger() || t.IsFloatOrComplex() },
		OpMultiply:             func(t ElementType) bool { return t.IsInteger() || t.IsFloatOrComplex() },
		OpDivide:               func(t ElementType) bool { return t.IsInteger() || t.IsFloatOrComplex() },
		OpPower:                func(t ElementType) bool { return t.IsInteger() || t.IsFloatOrComplex() },
		OpRemainder:            func(t ElementType) bool { return t.IsInteger() || t.IsFloat() },
		OpAtan2:                func(t ElementType) bool { return t.IsFloatOrComplex() },
		OpMaximum:              func(ElementType) bool { return true },
		OpMinimum:              func(ElementType) bool { return true },
		OpAnd:                  func(t ElementType) bool { return t == PRED || t.IsInteger() },
		OpOr:                   func(t ElementType) bool { return t == PRED || t.IsInteger() },
		OpXor:                  func(t ElementType) bool { return t == PRED || t.IsInteger() },
		OpShiftLeft:            func(t ElementType) bool { return t.IsInteger() },
		OpShiftRightArithmetic: func(t ElementType) bool { return t.IsInteger() },
		OpShiftRightLogical:    func(t ElementType) bool { return t.IsInteger() },
		OpCompare:              func(ElementType) bool { return true },
		OpComplex:              func(t ElementType) bool { return t == F32 || t == F64 },
	}
	for op, ok := range accept {
		for _, et := range AllElementTypes {
			got, err := InferBinaryOpShape(op, sh(et, 5), sh(et, 5), nil)
			if !ok(et) {
				if err == nil {
					t.Errorf("%v(%v, %v) = %v, want an error", op, et, et, human(got))
				}
				continue
			}
			if err != nil {
				t.Errorf("%v(%v, %v): %v", op, et, et, err)
				continue
			}
			want := et
			switch op {
			case OpCompare:
				want = PRED
			case OpComplex:
				want = ComplexOf(et)
			}
			if !got.EqualIgnoringLayout(sh(want, 5)) {
				t.Errorf("%v(%v[5], %v[5]) = %v, want %v[5]", op, et, et, human(got), want)
			}
		}
	}
}

// TestBroadcastingSeedExamples runs every example of the broadcasting
// semantics seed.
func TestBroadcastingSeedExamples(t *testing.T) {
	add := func(l, r Shape, dims ...int) func() (Shape, error) {
		return func() (Shape, error) { return InferBinaryOpShape(OpAdd, l, r, dims) }
	}
	runInferCases(t, []inferCase{
		// |1 2 3| + |7 8 9| over rows: matrix (2,3) + vector (3) with broadcast dimension 1.
		{"matrix plus vector dim 1", add(sh(F32, 2, 3), sh(F32, 3), 1), "f32[2,3]", ""},
		// Without broadcast_dimensions the ranks must match (no numpy-style inference).
		{"matrix plus vector without dims", add(sh(F32, 2, 3), sh(F32, 3)), "", "need broadcast_dimensions"},
		// A scalar broadcasts to any shape: |1 2 3;4 5 6| + 7.
		{"matrix plus scalar", add(sh(F32, 2, 3), Scalar(F32)), "f32[2,3]", ""},
		{"scalar plus matrix", add(Scalar(F32), sh(F32, 2, 3)), "f32[2,3]", ""},
		// A 3-vector added to a 3x3 matrix along dimension 1 or 0.
		{"3x3 plus vector dim 1", add(sh(F32, 3, 3), sh(F32, 3), 1), "f32[3,3]", ""},
		{"3x3 plus vector dim 0", add(sh(F32, 3, 3), sh(F32, 3), 0), "f32[3,3]", ""},
		// A 2x3x4 cube and a 3x4 matrix with broadcast dimensions (1, 2).
		{"cube plus matrix", add(sh(F32, 2, 3, 4), sh(F32, 3, 4), 1, 2), "f32[2,3,4]", ""},
		// A vector T matched to dimension k of MxNxPxQ.
		{"vector to dim 0", add(sh(F32, 2, 3, 4, 5), sh(F32, 2), 0), "f32[2,3,4,5]", ""},
		{"vector to dim 3", add(sh(F32, 2, 3, 4, 5), sh(F32, 5), 3), "f32[2,3,4,5]", ""},
		{"vector to the wrong dim", add(sh(F32, 2, 3, 4, 5), sh(F32, 5), 2), "", "broadcast dimension 0 maps operand dimension of size 5 to dimension 2 of size 4"},
		// A TxV matrix matched to (2,3), (1,2), (0,3) of MxNxPxQ.
		{"matrix to dims 2,3", add(sh(F32, 2, 3, 4, 5), sh(F32, 4, 5), 2, 3), "f32[2,3,4,5]", ""},
		{"matrix to dims 1,2", add(sh(F32, 2, 3, 4, 5), sh(F32, 3, 4), 1, 2), "f32[2,3,4,5]", ""},
		{"matrix to dims 0,3", add(sh(F32, 2, 3, 4, 5), sh(F32, 2, 5), 0, 3), "f32[2,3,4,5]", ""},
		// The broadcast dimensions must be strictly increasing: matching V with N and T with P is illegal.
		{"dims out of order", add(sh(F32, 2, 3, 4, 5), sh(F32, 4, 3), 2, 1), "", "must be strictly increasing"},
		// Degenerate dimensions: the four numbered examples.
		{"(2,1) and (2,3)", add(sh(F32, 2, 1), sh(F32, 2, 3)), "f32[2,3]", ""},
		{"(1,2,5) and (7,2,5)", add(sh(F32, 1, 2, 5), sh(F32, 7, 2, 5)), "f32[7,2,5]", ""},
		{"(7,2,5) and (7,1,5)", add(sh(F32, 7, 2, 5), sh(F32, 7, 1, 5)), "f32[7,2,5]", ""},
		{"(7,2,5) and (7,2,6)", add(sh(F32, 7, 2, 5), sh(F32, 7, 2, 6)), "", "incompatible shapes f32[7,2,5] and f32[7,2,6]: dimension 2 has size 5 and 6"},
		// The outer operation: (2,1) and (1,3) give (2,3).
		{"outer (2,1) and (1,3)", add(sh(F32, 2, 1), sh(F32, 1, 3)), "f32[2,3]", ""},
		// Rank extension then degenerate broadcasting: |1 2 3 4| + [5 6] (a 1x2 matrix) with dims (0) gives 4x2.
		{"vector 4 plus 1x2 with dims 0", add(sh(F32, 4), sh(F32, 1, 2), 0), "f32[4,2]", ""},
		// A 1x2 matrix added to a 4x3x1 array with dims (1, 2) gives 4x3x2.
		{"1x2 plus 4x3x1 with dims 1,2", add(sh(F32, 1, 2), sh(F32, 4, 3, 1), 1, 2), "f32[4,3,2]", ""},
		// The table of XLA's InferInDimBroadcastShape.
		{"[2,3] into [2,3,4] dims 0,1", add(sh(F32, 2, 3), sh(F32, 2, 3, 4), 0, 1), "f32[2,3,4]", ""},
		{"[2,1] into [2,3,4] dims 0,2", add(sh(F32, 2, 1), sh(F32, 2, 3, 4), 0, 2), "f32[2,3,4]", ""},
		{"[2,3] into [2,1,4] dims 0,1", add(sh(F32, 2, 3), sh(F32, 2, 1, 4), 0, 1), "f32[2,3,4]", ""},
		{"[3] into [4,3] dim 0", add(sh(F32, 3), sh(F32, 4, 3), 0), "", "maps operand dimension of size 3 to dimension 0 of size 4"},
		{"[2,1] into [2,3,4] dims 1,2", add(sh(F32, 2, 1), sh(F32, 2, 3, 4), 1, 2), "", "maps operand dimension of size 2 to dimension 1 of size 3"},
	})
}

func TestInferBinaryOpShapeErrors(t *testing.T) {
	runInferCases(t, []inferCase{
		{"different types", func() (Shape, error) { return InferBinaryOpShape(OpAdd, sh(F32, 2), sh(S32, 2), nil) },
			"", "add: operands must have the same element type, found lhs f32[2] and rhs s32[2]"},
		{"mixed float precision", func() (Shape, error) { return InferBinaryOpShape(OpMultiply, sh(F32, 2), sh(BF16, 2), nil) },
			"", "multiply: operands must have the same element type"},
		{"add of pred", func() (Shape, error) { return InferBinaryOpShape(OpAdd, sh(PRED, 2), sh(PRED, 2), nil) },
			"", "add: operands must have an integer, floating-point or complex element type, found pred"},
		{"shift of f32", func() (Shape, error) { return InferBinaryOpShape(OpShiftLeft, sh(F32, 2), sh(F32, 2), nil) },
			"", "shift-left: operands must have an integer element type, found f32"},
		{"and of f32", func() (Shape, error) { return InferBinaryOpShape(OpAnd, sh(F32, 2), sh(F32, 2), nil) },
			"", "and: operands must have a pred or integer element type, found f32"},
		{"complex of bf16", func() (Shape, error) { return InferBinaryOpShape(OpComplex, sh(BF16, 2), sh(BF16, 2), nil) },
			"", "complex: parts must be f32 or f64, found bf16"},
		{"rem of c64", func() (Shape, error) { return InferBinaryOpShape(OpRemainder, sh(C64, 2), sh(C64, 2), nil) },
			"", "remainder: operands must have an integer or floating-point element type, found c64"},
		{"tuple lhs", func() (Shape, error) { return InferBinaryOpShape(OpAdd, MakeTuple(), sh(F32, 2), nil) },
			"", "add: lhs must be an array, found ()"},
		{"same rank non-identity dims", func() (Shape, error) { return InferBinaryOpShape(OpAdd, sh(F32, 2, 3), sh(F32, 2, 3), []int{1, 0}) },
			"", "must be empty or the identity"},
		{"same rank identity dims", func() (Shape, error) { return InferBinaryOpShape(OpAdd, sh(F32, 2, 3), sh(F32, 2, 3), []int{0, 1}) },
			"f32[2,3]", ""},
		{"dims count", func() (Shape, error) { return InferBinaryOpShape(OpAdd, sh(F32, 2, 3, 4), sh(F32, 3, 4), []int{1}) },
			"", "must have one entry per dimension of the lower-rank operand f32[3,4]"},
		{"dim out of range", func() (Shape, error) { return InferBinaryOpShape(OpAdd, sh(F32, 2, 3), sh(F32, 3), []int{2}) },
			"", "broadcast dimension 0 is 2, out of range for the higher-rank operand f32[2,3]"},
		{"negative dim", func() (Shape, error) { return InferBinaryOpShape(OpAdd, sh(F32, 2, 3), sh(F32, 3), []int{-1}) },
			"", "out of range"},
		{"dynamic equal", func() (Shape, error) { return InferBinaryOpShape(OpAdd, dyn(sh(F32, 8, 3), 0), sh(F32, 8, 3), nil) },
			"f32[<=8,3]", ""},
		{"dynamic degenerate", func() (Shape, error) { return InferBinaryOpShape(OpAdd, sh(F32, 1, 3), dyn(sh(F32, 8, 3), 0), nil) },
			"f32[<=8,3]", ""},
		{"compare gives pred", func() (Shape, error) { return InferBinaryOpShape(OpCompare, sh(F32, 2, 3), sh(F32, 3), []int{1}) },
			"pred[2,3]", ""},
		{"complex broadcast", func() (Shape, error) { return InferBinaryOpShape(OpComplex, sh(F64, 2, 3), Scalar(F64), nil) },
			"c128[2,3]", ""},
	})
}

func TestInferCompareShape(t *testing.T) {
	cmp := func(t ElementType, typ ComparisonType) func() (Shape, error) {
		return func() (Shape, error) { return InferCompareShape(sh(t, 3), sh(t, 3), nil, CmpLT, typ) }
	}
	runInferCases(t, []inferCase{
		{"f32 default", cmp(F32, CmpTypeDefault), "pred[3]", ""},
		{"f32 totalorder", cmp(F32, CmpTypeTotalOrder), "pred[3]", ""},
		{"s32 signed", cmp(S32, CmpTypeSigned), "pred[3]", ""},
		{"u8 unsigned", cmp(U8, CmpTypeUnsigned), "pred[3]", ""},
		{"pred unsigned", cmp(PRED, CmpTypeUnsigned), "pred[3]", ""},
		{"s32 float", cmp(S32, CmpTypeFloat), "", "compare: comparison type FLOAT does not apply to element type s32 (expected SIGNED)"},
		{"u32 signed", cmp(U32, CmpTypeSigned), "", "does not apply to element type u32 (expected UNSIGNED)"},
		{"no direction", func() (Shape, error) { return InferCompareShape(sh(F32, 3), sh(F32, 3), nil, CmpInvalid, 0) }, "", "comparison direction is not set"},
	})
}

func TestInferSelectAndClampShape(t *testing.T) {
	runInferCases(t, []inferCase{
		// The seed: pred PRED[4] with s32[4] operands, and a scalar pred.
		{"seed pred array", func() (Shape, error) { return InferSelectShape(sh(PRED, 4), sh(S32, 4), sh(S32, 4)) }, "s32[4]", ""},
		{"seed scalar pred", func() (Shape, error) { return InferSelectShape(Scalar(PRED), sh(S32, 4), sh(S32, 4)) }, "s32[4]", ""},
		{"tuple select", func() (Shape, error) {
			tp := MakeTuple(sh(F32, 2), Scalar(S32))
			return InferSelectShape(Scalar(PRED), tp, tp)
		}, "(f32[2], s32[])", ""},
		{"tuple with array pred", func() (Shape, error) {
			tp := MakeTuple(sh(F32, 2))
			return InferSelectShape(sh(PRED, 2), tp, tp)
		}, "", "select: on_true must be an array"},
		{"pred not pred", func() (Shape, error) { return InferSelectShape(sh(S32, 4), sh(S32, 4), sh(S32, 4)) }, "", "select: pred must have element type pred, found s32[4]"},
		{"branches differ", func() (Shape, error) { return InferSelectShape(sh(PRED, 4), sh(S32, 4), sh(S32, 5)) }, "", "on_true and on_false must have the same shape, found s32[4] and s32[5]"},
		{"pred dims", func() (Shape, error) { return InferSelectShape(sh(PRED, 3), sh(S32, 4), sh(S32, 4)) }, "", "pred pred[3] must be a scalar or have the dimensions of on_true s32[4]"},
		// The seed: Clamp(min s32 0, operand s32[3], max s32 6).
		{"seed clamp scalars", func() (Shape, error) { return InferClampShape(Scalar(S32), sh(S32, 3), Scalar(S32)) }, "s32[3]", ""},
		{"clamp arrays", func() (Shape, error) { return InferClampShape(sh(F32, 2, 2), sh(F32, 2, 2), sh(F32, 2, 2)) }, "f32[2,2]", ""},
		{"clamp types", func() (Shape, error) { return InferClampShape(Scalar(F32), sh(S32, 3), Scalar(S32)) }, "", "clamp: min, operand and max must have the same element type"},
		{"clamp shape", func() (Shape, error) { return InferClampShape(sh(S32, 2), sh(S32, 3), Scalar(S32)) }, "", "clamp: min s32[2] must be a scalar or have the shape of operand s32[3]"},
		{"ternary dispatch", func() (Shape, error) { return InferTernaryOpShape(OpAdd, Scalar(S32), Scalar(S32), Scalar(S32)) }, "", "not a ternary"},
	})
}

func TestInferConversionShapes(t *testing.T) {
	runInferCases(t, []inferCase{
		// The seed: convert(s32[3] {0,1,2}, f32) is f32[3].
		{"seed convert", func() (Shape, error) { return InferConvertShape(sh(S32, 3), F32) }, "f32[3]", ""},
		{"convert tuple", func() (Shape, error) { return InferConvertShape(MakeTuple(), F32) }, "", "convert: converts arrays only"},
		{"convert to token", func() (Shape, error) { return InferConvertShape(sh(F32, 2), TOKEN) }, "", "convert: converts arrays only"},
		// The seed's bitcast-convert examples between widths.
		{"f32[10] to f16", func() (Shape, error) { return InferBitcastConvertShape(sh(F32, 10), F16) }, "f16[10,2]", ""},
		{"f32[] to f16", func() (Shape, error) { return InferBitcastConvertShape(Scalar(F32), F16) }, "f16[2]", ""},
		{"f16[10,2] to f32", func() (Shape, error) { return InferBitcastConvertShape(sh(F16, 10, 2), F32) }, "f32[10]", ""},
		// One s32 element becomes four s8 elements.
		{"s32 to s8", func() (Shape, error) { return InferBitcastConvertShape(sh(S32, 3), S8) }, "s8[3,4]", ""},
		{"same width", func() (Shape, error) { return InferBitcastConvertShape(sh(S32, 3), F32) }, "f32[3]", ""},
		{"s4 to s8 needs 2", func() (Shape, error) { return InferBitcastConvertShape(sh(S4, 3, 2), S8) }, "s8[3]", ""},
		{"wrong minor", func() (Shape, error) { return InferBitcastConvertShape(sh(F16, 10, 3), F32) }, "", "bitcast-convert: converting f16[10,3] to the wider type f32 needs a minor dimension of size 2"},
		{"scalar to wider", func() (Shape, error) { return InferBitcastConvertShape(Scalar(F16), F32) }, "", "needs a minor dimension of size 2"},
		{"complex to real", func() (Shape, error) { return InferBitcastConvertShape(sh(C64, 3), F64) }, "", "cannot convert between complex and real types"},
		{"c128 to c64", func() (Shape, error) { return InferBitcastConvertShape(sh(C128, 3), C64) }, "c64[3,2]", ""},
		{"dynamic kept", func() (Shape, error) { return InferBitcastConvertShape(dyn(sh(F32, 10), 0), U16) }, "u16[<=10,2]", ""},
		{"reduce-precision", func() (Shape, error) { return InferReducePrecisionShape(sh(F32, 4), 5, 10) }, "f32[4]", ""},
		{"reduce-precision of int", func() (Shape, error) { return InferReducePrecisionShape(sh(S32, 4), 5, 10) }, "", "reduce-precision: operand must have a floating-point element type, found s32[4]"},
		{"no exponent bits", func() (Shape, error) { return InferReducePrecisionShape(sh(F32, 4), 0, 10) }, "", "exponent_bits must be at least 1, found 0"},
		{"negative mantissa", func() (Shape, error) { return InferReducePrecisionShape(sh(F32, 4), 8, -1) }, "", "mantissa_bits must not be negative, found -1"},
		{"stochastic convert", func() (Shape, error) { return InferStochasticConvertShape(sh(F32, 4), sh(U32, 4), BF16) }, "bf16[4]", ""},
		{"stochastic random width", func() (Shape, error) { return InferStochasticConvertShape(sh(F32, 4), sh(U16, 4), S8) }, "", "must have the bit width of operand"},
		{"stochastic random signed", func() (Shape, error) { return InferStochasticConvertShape(sh(F32, 4), sh(S32, 4), S8) }, "", "random must have an unsigned integer element type"},
	})
}

func TestInferMapShape(t *testing.T) {
	add := scalarReducer(F32)
	runInferCases(t, []inferCase{
		{"binary map", func() (Shape, error) { return InferMapShape([]Shape{sh(F32, 2, 3), sh(F32, 2, 3)}, add, []int{0, 1}) }, "f32[2,3]", ""},
		{"result type from computation", func() (Shape, error) {
			return InferMapShape([]Shape{sh(F32, 4)}, prog(Scalar(PRED), Scalar(F32)), []int{0})
		}, "pred[4]", ""},
		{"scalar operand", func() (Shape, error) { return InferMapShape([]Shape{Scalar(F32), sh(F32, 4)}, add, []int{0}) }, "f32[4]", ""},
		{"no operands", func() (Shape, error) { return InferMapShape(nil, add, nil) }, "", "map: needs at least one operand"},
		{"shape mismatch", func() (Shape, error) { return InferMapShape([]Shape{sh(F32, 2), sh(F32, 3)}, add, []int{0}) }, "", "operands must have the same dimensions"},
		{"subset of dims", func() (Shape, error) {
			return InferMapShape([]Shape{sh(F32, 2, 3)}, prog(Scalar(F32), Scalar(F32)), []int{0})
		}, "", "must list all 2 dimensions"},
		{"dims out of order", func() (Shape, error) {
			return InferMapShape([]Shape{sh(F32, 2, 3)}, prog(Scalar(F32), Scalar(F32)), []int{1, 0})
		}, "", "must be 0, 1"},
		{"arity", func() (Shape, error) { return InferMapShape([]Shape{sh(F32, 2)}, add, []int{0}) }, "", "computation takes 2 parameters for 1 operands"},
		{"non-scalar result", func() (Shape, error) {
			return InferMapShape([]Shape{sh(F32, 2)}, prog(sh(F32, 2), Scalar(F32)), []int{0})
		}, "", "computation must return a scalar"},
		{"parameter type", func() (Shape, error) {
			return InferMapShape([]Shape{sh(S32, 2)}, prog(Scalar(F32), Scalar(F32)), []int{0})
		}, "", "computation parameter 0 has type f32[], operand 0 has element type s32"},
	})
}

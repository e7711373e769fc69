package ir

import (
	"math"
	"testing"
)

// buildEveryOp builds one module that calls every method of the Builder,
// checking each result shape.
func buildEveryOp(t *testing.T) *Module {
	b := NewBuilder("every_op")
	f := b.Parameter(0, sh(F32, 4, 4), "f")
	i := b.Parameter(1, sh(S32, 4, 4), "i")
	c := b.Parameter(2, sh(C64, 4, 4), "c")
	p := b.Parameter(3, sh(PRED, 4, 4), "p")
	u := b.Parameter(4, sh(U32, 4, 4), "u")
	zero := ConstantR0(b, float32(0))
	one := ConstantR0(b, float32(1))
	izero := ConstantR0(b, int32(0))
	add := builderAddComputation(t, b, F32)
	maxc := builderMaxComputation(t, b, F32)
	check := func(what string, o Op, want string) { t.Helper(); wantShape(t, what, o, want) }

	for name, op := range map[string]func(Op) Op{
		"Abs": b.Abs, "Cbrt": b.Cbrt, "Ceil": b.Ceil, "Cos": b.Cos, "Erf": b.Erf, "Exp": b.Exp, "Expm1": b.Expm1,
		"Floor": b.Floor, "Log": b.Log, "Log1p": b.Log1p, "Logistic": b.Logistic, "Neg": b.Neg, "Round": b.Round,
		"RoundNearestEven": b.RoundNearestEven, "Rsqrt": b.Rsqrt, "Sign": b.Sign, "Sin": b.Sin, "Sqrt": b.Sqrt,
		"Tan": b.Tan, "Tanh": b.Tanh, "Real": b.Real, "Copy": b.Copy,
	} {
		check(name, op(f), "f32[4,4]")
	}
	check("Imag", b.Imag(c), "f32[4,4]")
	check("Abs complex", b.Abs(c), "f32[4,4]")
	check("IsFinite", b.IsFinite(f), "pred[4,4]")
	check("Clz", b.Clz(i), "s32[4,4]")
	check("PopulationCount", b.PopulationCount(u), "u32[4,4]")
	check("Not", b.Not(p), "pred[4,4]")
	for name, op := range map[string]func(Op, Op, ...int) Op{
		"Add": b.Add, "Sub": b.Sub, "Mul": b.Mul, "Div": b.Div, "Rem": b.Rem, "Max": b.Max, "Min": b.Min,
		"Pow": b.Pow, "Atan2": b.Atan2,
	} {
		check(name, op(f, f), "f32[4,4]")
	}
	for name, op := range map[string]func(Op, Op, ...int) Op{
		"And": b.And, "Or": b.Or, "Xor": b.Xor, "ShiftLeft": b.ShiftLeft,
		"ShiftRightArithmetic": b.ShiftRightArithmetic, "ShiftRightLogical": b.ShiftRightLogical,
	} {
		check(name, op(i, izero), "s32[4,4]")
	}
	check("Complex", b.Complex(f, zero), "c64[4,4]")
	for name, op := range map[string]func(Op, Op, ...int) Op{
		"Eq": b.Eq, "Ne": b.Ne, "Ge": b.Ge, "Gt": b.Gt, "Le": b.Le, "Lt": b.Lt,
		"EqTotalOrder": b.EqTotalOrder, "NeTotalOrder": b.NeTotalOrder, "GeTotalOrder": b.GeTotalOrder,
		"GtTotalOrder": b.GtTotalOrder, "LeTotalOrder": b.LeTotalOrder, "LtTotalOrder": b.LtTotalOrder,
	} {
		check(name, op(f, zero), "pred[4,4]")
	}
	check("Compare", b.Compare(i, izero, CmpGE, CmpTypeSigned), "pred[4,4]")
	check("Select", b.Select(p, f, zero), "f32[4,4]")
	check("Clamp", b.Clamp(zero, f, one), "f32[4,4]")
	check("ConvertElementType", b.ConvertElementType(i, F32), "f32[4,4]")
	check("BitcastConvertType", b.BitcastConvertType(f, U16), "u16[4,4,2]")
	check("ReducePrecision", b.ReducePrecision(f, 5, 10), "f32[4,4]")
	check("Map", b.Map([]Op{f, zero}, add, []int{0, 1}), "f32[4,4]")

	check("Broadcast", b.Broadcast(f, []int{2}), "f32[2,4,4]")
	check("BroadcastInDim", b.BroadcastInDim(ConstantR1(b, []float32{1, 2, 3, 4}), []int{3, 4}, []int{1}), "f32[3,4]")
	check("Reshape", b.Reshape(f, []int{2, 8}), "f32[2,8]")
	check("Collapse", b.Collapse(f, []int{0, 1}), "f32[16]")
	check("Transpose", b.Transpose(f, []int{1, 0}), "f32[4,4]")
	check("Rev", b.Rev(f, []int{0}), "f32[4,4]")
	check("Slice", b.Slice(f, []int{0, 1}, []int{4, 4}, []int{2, 1}), "f32[2,3]")
	check("SliceInDim", b.SliceInDim(f, 1, 3, 1, 1), "f32[4,2]")
	ds := b.DynamicSlice(f, []Op{izero, ConstantR0(b, int32(1))}, []int{2, 2})
	check("DynamicSlice", ds, "f32[2,2]")
	check("DynamicUpdateSlice", b.DynamicUpdateSlice(f, ds, []Op{izero, izero}), "f32[4,4]")
	check("ConcatInDim", b.ConcatInDim([]Op{f, f, f}, 1), "f32[4,12]")
	check("Pad", b.Pad(f, zero, []PaddingDim{{1, -1, 1}, {0, 2, 0}}), "f32[7,6]")
	check("PadInDim", b.PadInDim(f, zero, 0, 2, 3), "f32[9,4]")
	check("Iota", b.Iota(sh(S32, 4, 8), 1), "s32[4,8]")
	size := b.GetDimensionSize(f, 0)
	check("GetDimensionSize", size, "s32[]")
	dynf := b.SetDimensionSize(f, size, 0)
	check("SetDimensionSize", dynf, "f32[<=4,4]")
	check("RemoveDynamicDimension", b.RemoveDynamicDimension(dynf, 0), "f32[4,4]")
	check("DynamicReshape", b.DynamicReshape(f, []Op{ConstantR0(b, int32(16))}, []int{16}, []bool{true}), "f32[<=16]")

	check("Dot", b.Dot(f, f), "f32[4,4]")
	check("Dot preferred", b.Dot(i, i, DotOptions{PreferredType: S64, Precision: []Precision{PrecisionHighest, PrecisionHighest}}), "s64[4,4]")
	check("DotGeneral", b.DotGeneral(b.Reshape(f, []int{2, 2, 4}), b.Reshape(f, []int{2, 4, 2}),
		DotDimensionNumbers{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContracting: []int{2}, RhsContracting: []int{1}}), "f32[2,2,2]")
	img := b.Reshape(f, []int{1, 1, 4, 4})
	kern := b.Broadcast(one, []int{2, 1, 3, 3})
	check("Conv", b.Conv(img, kern, []int{1, 1}, PaddingValid), "f32[1,2,2,2]")
	check("Conv SAME", b.Conv(img, kern, []int{2, 2}, PaddingSame), "f32[1,2,2,2]")
	check("ConvWithGeneralPadding", b.ConvWithGeneralPadding(img, kern, []int{1, 1}, [][2]int{{1, 1}, {1, 1}}), "f32[1,2,4,4]")
	check("ConvGeneral", b.ConvGeneral(img, kern, []int{1, 1}, [][2]int{{0, 0}, {0, 0}}, DefaultConvDimensionNumbers(2)), "f32[1,2,2,2]")
	check("ConvGeneralDilated", b.ConvGeneralDilated(img, kern, nil, nil, []int{2, 2}, []int{1, 1}, DefaultConvDimensionNumbers(2)), "f32[1,2,5,5]")
	check("Conv batch groups", b.ConvGeneralDilated(b.Reshape(f, []int{2, 2, 2, 2}), b.Broadcast(one, []int{4, 2, 1, 1}), nil, nil, nil, nil,
		DefaultConvDimensionNumbers(2), ConvOptions{BatchGroupCount: 2}), "f32[1,4,2,2]")

	check("Reduce", b.Reduce(f, zero, add, []int{1}), "f32[4]")
	check("ReduceAll", b.ReduceAll(f, zero, add), "f32[]")
	argmax := b.CreateSubBuilder("argmax")
	{
		mv, mi := argmax.Parameter(0, Scalar(F32), "max"), argmax.Parameter(1, Scalar(S32), "argmax")
		v, k := argmax.Parameter(2, Scalar(F32), "value"), argmax.Parameter(3, Scalar(S32), "index")
		ge := argmax.Ge(v, mv)
		argmax.Tuple(argmax.Select(ge, v, mv), argmax.Select(ge, k, mi))
	}
	argmaxc, err := argmax.Build()
	if err != nil {
		t.Fatal(err)
	}
	check("ReduceVariadic", b.ReduceVariadic([]Op{f, b.Iota(sh(S32, 4, 4), 1)}, []Op{ConstantR0(b, float32(math.Inf(-1))), izero}, argmaxc, []int{1}), "(f32[4], s32[4])")
	check("ReduceWindow", b.ReduceWindow(f, zero, maxc, []int{2, 2}, []int{2, 2}, PaddingValid), "f32[2,2]")
	check("ReduceWindowWithGeneralPadding", b.ReduceWindowWithGeneralPadding([]Op{f}, []Op{zero}, add, []int{3, 3}, []int{1, 1}, []int{2, 1}, []int{1, 2}, [][2]int{{1, 1}, {0, 0}}), "f32[7,0]")
	geComp := scalarComputation(t, b, "ge", F32, func(b *Builder, x, y Op) Op { return b.Ge(x, y) })
	check("SelectAndScatter", b.SelectAndScatter(f, geComp, []int{2, 2}, []int{2, 2}, PaddingValid, b.Broadcast(one, []int{2, 2}), zero, add), "f32[4,4]")
	check("SelectAndScatterWithGeneralPadding", b.SelectAndScatterWithGeneralPadding(f, geComp, []int{3, 3}, []int{1, 1}, [][2]int{{1, 1}, {1, 1}}, f, zero, add), "f32[4,4]")
	rows := GatherDimensionNumbers{OffsetDims: []int{1}, CollapsedSliceDims: []int{0}, StartIndexMap: []int{0}, IndexVectorDim: 1}
	idx := ConstantR1(b, []int32{3, 0})
	check("Gather", b.Gather(f, idx, rows, []int{1, 4}, false), "f32[2,4]")
	sdn := ScatterDimensionNumbers{UpdateWindowDims: []int{1}, InsertedWindowDims: []int{0}, ScatterDimsToOperandDims: []int{0}, IndexVectorDim: 1}
	check("Scatter", b.Scatter(f, idx, b.Broadcast(one, []int{2, 4}), add, sdn, true, true), "f32[4,4]")
	pair := b.CreateSubBuilder("pair_add")
	{
		a0, a1 := pair.Parameter(0, Scalar(F32), "a0"), pair.Parameter(1, Scalar(S32), "a1")
		u0, u1 := pair.Parameter(2, Scalar(F32), "u0"), pair.Parameter(3, Scalar(S32), "u1")
		pair.Tuple(pair.Add(a0, u0), pair.Add(a1, u1))
	}
	pairc, err := pair.Build()
	if err != nil {
		t.Fatal(err)
	}
	check("ScatterVariadic", b.ScatterVariadic([]Op{f, i}, idx, []Op{b.Broadcast(one, []int{2, 4}), b.Broadcast(izero, []int{2, 4})}, pairc, sdn, false, false), "(f32[4,4], s32[4,4])")
	lt := scalarComputation(t, b, "lt", F32, func(b *Builder, x, y Op) Op { return b.Lt(x, y) })
	check("Sort", b.Sort([]Op{f}, lt, 0, false), "f32[4,4]")
	check("TopK", b.TopK(f, 2, false), "(f32[4,2], s32[4,2])")

	state := MakeTuple(Scalar(S32), sh(F32, 4, 4))
	cb := b.CreateSubBuilder("cond")
	cb.Lt(cb.GetTupleElement(cb.Parameter(0, state, "s"), 0), ConstantR0(cb, int32(3)))
	cond, _ := cb.Build()
	bb := b.CreateSubBuilder("body")
	s := bb.Parameter(0, state, "s")
	bb.Tuple(bb.Add(bb.GetTupleElement(s, 0), ConstantR0(bb, int32(1))), bb.Exp(bb.GetTupleElement(s, 1)))
	body, _ := bb.Build()
	loop := b.While(cond, body, b.Tuple(izero, f))
	check("While", loop, "(s32[], f32[4,4])")
	check("GetTupleElement", b.GetTupleElement(loop, 1), "f32[4,4]")
	neg := b.CreateSubBuilder("negate_branch")
	neg.Neg(neg.Parameter(0, sh(F32, 4, 4), "x"))
	negc, _ := neg.Build()
	sq := b.CreateSubBuilder("square_branch")
	x := sq.Parameter(0, sh(F32, 4, 4), "x")
	sq.Mul(x, x)
	sqc, _ := sq.Build()
	check("Conditional", b.Conditional(ConstantR0(b, true), f, negc, f, sqc), "f32[4,4]")
	check("IndexedConditional", b.IndexedConditional(ConstantR0(b, int32(1)), []*Computation{negc, sqc, negc}, []Op{f, f, f}), "f32[4,4]")
	check("Call", b.Call(sqc, f), "f32[4,4]")
	check("CompositeCall", b.CompositeCall(sqc, []Op{f}, "example.square", "{n = 1 : i32}", 1), "f32[4,4]")
	check("CustomCall", b.CustomCall("myfunc", []Op{f, i}, sh(F32, 3, 3), CustomCallOptions{BackendConfig: `{"x": 1}`, HasSideEffect: true}), "f32[3,3]")
	check("Tuple", b.Tuple(f, i, b.Tuple()), "(f32[4,4], s32[4,4], ())")
	check("OptimizationBarrier", b.OptimizationBarrier(b.Tuple(f, i)), "(f32[4,4], s32[4,4])")

	spd := b.Add(b.Dot(f, b.Transpose(f, []int{1, 0})), b.Broadcast(one, []int{4, 4}))
	check("Cholesky", b.Cholesky(spd, true), "f32[4,4]")
	check("TriangularSolve", b.TriangularSolve(spd, b.Slice(f, []int{0, 0}, []int{4, 2}, []int{1, 1}), true, true, false, Transpose), "f32[4,2]")
	check("Fft", b.Fft(c, FFT, []int{4}), "c64[4,4]")
	check("Fft RFFT", b.Fft(f, RFFT, []int{4, 4}), "c64[4,3]")
	check("Fft IRFFT", b.Fft(b.Fft(f, RFFT, []int{4}), IRFFT, []int{4}), "f32[4,4]")
	scale := b.Broadcast(one, []int{4})
	check("BatchNormTraining", b.BatchNormTraining(f, scale, scale, 1e-3, 1), "(f32[4,4], f32[4], f32[4])")
	check("BatchNormInference", b.BatchNormInference(f, scale, scale, scale, scale, 1e-3, 1), "f32[4,4]")
	check("BatchNormGrad", b.BatchNormGrad(f, scale, scale, scale, f, 1e-3, 1), "(f32[4,4], f32[4], f32[4])")

	tok := b.CreateToken()
	check("CreateToken", tok, "token[]")
	check("AfterAll", b.AfterAll(tok, b.CreateToken()), "token[]")
	check("Infeed", b.Infeed(sh(F32, 2), ""), "f32[2]")
	check("InfeedWithToken", b.InfeedWithToken(tok, MakeTuple(sh(S32, 3), Scalar(F32)), "cfg"), "((s32[3], f32[]), token[])")
	check("Outfeed", b.Outfeed(f, sh(F32, 4, 4), ""), "()")
	check("OutfeedWithToken", b.OutfeedWithToken(i, tok, sh(S32, 4, 4), ""), "token[]")
	check("Send", b.Send(f, 1), "token[]")
	check("Recv", b.Recv(sh(F32, 4, 4), 1), "f32[4,4]")
	check("SendWithToken", b.SendWithToken(i, tok, 2), "token[]")
	check("RecvWithToken", b.RecvWithToken(tok, sh(S32, 4, 4), 2), "(s32[4,4], token[])")
	check("ReplicaId", b.ReplicaId(), "u32[]")
	check("PartitionId", b.PartitionId(), "u32[]")
	check("RngNormal", b.RngNormal(zero, one, sh(F32, 2, 3)), "f32[2,3]")
	check("RngUniform", b.RngUniform(izero, ConstantR0(b, int32(10)), sh(S32, 5)), "s32[5]")
	check("RngBitGenerator", b.RngBitGenerator(RngThreeFry, ConstantR1(b, []uint64{1, 2}), sh(F32, 3)), "(u64[2], u32[3])")

	check("AllReduce", b.AllReduce(f, add, [][]int{{0, 1, 2, 3}}), "f32[4,4]")
	check("CrossReplicaSum", b.CrossReplicaSum(i, nil), "s32[4,4]")
	check("AllGather", b.AllGather(f, 0, 4, nil), "f32[16,4]")
	check("ReduceScatter", b.ReduceScatter(f, add, 0, 2, [][]int{{0, 1}, {2, 3}}), "f32[2,4]")
	check("AllToAll", b.AllToAll(f, 0, 1, 2, [][]int{{0, 1}, {2, 3}}), "f32[2,8]")
	check("AllToAllTuple", b.AllToAllTuple([]Op{f, f}, [][]int{{0, 1}, {2, 3}}), "(f32[4,4], f32[4,4])")
	check("CollectivePermute", b.CollectivePermute(f, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}}), "f32[4,4]")
	check("CollectiveBroadcast", b.CollectiveBroadcast(f, [][]int{{0, 1}, {2, 3}}), "f32[4,4]")
	return buildModule(t, b)
}

func TestBuilderEveryOp(t *testing.T) {
	m := buildEveryOp(t)
	seen := map[Opcode]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			seen[in.Opcode] = true
		}
	}
	// Every opcode of the operation-semantics seed's ops appears.
	for _, op := range []Opcode{
		OpAbs, OpAdd, OpAfterAll, OpAllGather, OpAllReduce, OpAllToAll, OpAnd, OpAtan2, OpBatchNormGrad,
		OpBatchNormInference, OpBatchNormTraining, OpBitcastConvert, OpBroadcast, OpCall, OpCbrt, OpCeil,
		OpCholesky, OpClamp, OpClz, OpCollectiveBroadcast, OpCollectivePermute, OpCompare, OpComplex,
		OpConcatenate, OpConditional, OpConstant, OpConvert, OpConvolution, OpCopy, OpCos, OpCustomCall,
		OpDivide, OpDot, OpDynamicReshape, OpDynamicSlice, OpDynamicUpdateSlice, OpErf, OpExp, OpExpm1,
		OpFft, OpFloor, OpGather, OpGetDimensionSize, OpGetTupleElement, OpImag, OpInfeed, OpIota,
		OpIsFinite, OpLog, OpLog1p, OpLogistic, OpMap, OpMaximum, OpMinimum, OpMultiply, OpNegate, OpNot,
		OpOptimizationBarrier, OpOr, OpOutfeed, OpPad, OpParameter, OpPartitionID, OpPopulationCount,
		OpPower, OpReal, OpRecv, OpRecvDone, OpReduce, OpReducePrecision, OpReduceScatter, OpReduceWindow,
		OpRemainder, OpReplicaID, OpReshape, OpReverse, OpRng, OpRngBitGenerator, OpRoundNearestAfz,
		OpRoundNearestEven, OpRsqrt, OpScatter, OpSelect, OpSelectAndScatter, OpSend, OpSendDone,
		OpSetDimensionSize, OpShiftLeft, OpShiftRightArithmetic, OpShiftRightLogical, OpSign, OpSin,
		OpSlice, OpSort, OpSqrt, OpSubtract, OpTan, OpTanh, OpTopK, OpTranspose, OpTriangularSolve,
		OpTuple, OpWhile, OpXor,
	} {
		if !seen[op] {
			t.Errorf("no %v instruction was built", op)
		}
	}
	for _, in := range opsOf(m.Entry, OpCall) {
		if in.IsComposite {
			if v, _ := in.RawAttr("frontend_attributes"); v != `{composite.attributes={n = 1 : i32},composite.name="example.square",composite.version="1"}` {
				t.Errorf("composite frontend_attributes %s", v)
			}
		}
	}
	for _, in := range opsOf(m.Entry, OpCustomCall) {
		if in.BackendConfig != `"{\"x\": 1}"` || !in.HasSideEffect {
			t.Errorf("custom-call backend_config %s side effect %v", in.BackendConfig, in.HasSideEffect)
		}
	}
}

// TestBuilderModuleRoundTrip prints the builder's modules as HLO text,
// parses them back and verifies them again: the builder writes what XLA's
// text format and the verifier accept.
func TestBuilderModuleRoundTrip(t *testing.T) {
	b, _ := buildWhileLoop(t)
	for _, m := range []*Module{buildEveryOp(t), buildMLP(t), buildModule(t, b)} {
		text := m.String()
		back, err := ParseModule(text)
		if err != nil {
			t.Fatalf("module %s does not parse back: %v\n%s", m.Name, err, text)
		}
		if err := back.Verify(); err != nil {
			t.Fatalf("module %s parsed back does not verify: %v", m.Name, err)
		}
		if len(back.Computations) != len(m.Computations) {
			t.Errorf("module %s: %d computations parsed back, want %d", m.Name, len(back.Computations), len(m.Computations))
		}
		for i, c := range m.Computations {
			bc := back.Computations[i]
			if len(bc.Instructions) != len(c.Instructions) {
				t.Errorf("%s: %d instructions parsed back, want %d", c.Name, len(bc.Instructions), len(c.Instructions))
				continue
			}
			for j, in := range c.Instructions {
				if got := bc.Instructions[j]; !got.Shape.EqualIgnoringLayout(in.Shape) || got.Opcode != in.Opcode {
					t.Errorf("%s: %v %s parsed back as %v %s", in.Name, in.Opcode, human(in.Shape), got.Opcode, human(got.Shape))
				}
			}
		}
	}
}

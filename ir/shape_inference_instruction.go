package ir

import (
	"slices"
	"strings"
)

// This file applies shape inference to an Instruction: it reads the operand
// shapes, the typed attributes and the called computations' signatures, and
// calls the rule of the instruction's opcode.

// InferInstructionShape returns the shape that shape inference gives for in
// from its operands, attributes and called computations. For ops whose
// result shape is itself an attribute (broadcast, reshape, iota, rng,
// custom-call, infeed, recv, …) it checks that shape against the operands
// and returns it. hasRule is false for the opcodes Kiln has no inference
// rule for (the async start/update/done pairs, copy-start/copy-done,
// rng-get-and-update-state, ragged-all-to-all, bitcast, parameter,
// constant); their declared shape is returned unchecked.
func InferInstructionShape(in *Instruction) (s Shape, hasRule bool, err error) {
	return inferInstruction(in, nil)
}

// moduleInfo is what the module tells the collective rules: the number of
// replicas and partitions (0 when unknown).
type moduleInfo struct {
	replicas, partitions int
}

// programShape returns the signature of the computation playing role for
// instruction op, or an error naming what is missing.
func programShape(op, role string, c *Computation) (ProgramShape, error) {
	if c == nil {
		return ProgramShape{}, errf(op, "%s computation is missing", role)
	}
	if c.Root == nil {
		return ProgramShape{}, errf(op, "%s computation %q has no root", role, c.Name)
	}
	ps := ProgramShape{Result: c.Root.Shape}
	for i, p := range c.Parameters {
		if p == nil {
			return ProgramShape{}, errf(op, "%s computation %q has no parameter %d", role, c.Name, i)
		}
		ps.Parameters = append(ps.Parameters, p.Shape)
		ps.ParameterNames = append(ps.ParameterNames, p.Name)
	}
	return ps, nil
}

// normalizeWindow fills the fields HLO text may leave at zero (strides and
// dilations, which default to 1).
func normalizeWindow(w *Window) Window {
	if w == nil {
		return Window{}
	}
	out := Window{Dims: slices.Clone(w.Dims)}
	for i := range out.Dims {
		d := &out.Dims[i]
		if d.Stride == 0 {
			d.Stride = 1
		}
		if d.BaseDilation == 0 {
			d.BaseDilation = 1
		}
		if d.WindowDilation == 0 {
			d.WindowDilation = 1
		}
	}
	return out
}

func inferInstruction(in *Instruction, mod *moduleInfo) (Shape, bool, error) {
	op := in.Opcode
	name := op.String()
	shapes := make([]Shape, len(in.Operands))
	for i, o := range in.Operands {
		if o == nil {
			return Shape{}, true, errf(name, "operand %d is missing", i)
		}
		shapes[i] = o.Shape
	}
	need := func(n int) error {
		if len(shapes) != n {
			return errf(name, "expected %d operands, found %d", n, len(shapes))
		}
		return nil
	}
	atLeast := func(n int) error {
		if len(shapes) < n {
			return errf(name, "expected at least %d operands, found %d", n, len(shapes))
		}
		return nil
	}
	oneDim := func(what string) (int, error) {
		if len(in.Dimensions) != 1 {
			return 0, errf(name, "expected one %s in dimensions, found %s", what, intList(in.Dimensions))
		}
		return in.Dimensions[0], nil
	}
	rule := func(s Shape, err error) (Shape, bool, error) { return s, true, err }

	switch {
	case op == OpCopy || op == OpDomain || (op.IsElementwiseUnary() && op != OpConvert && op != OpReducePrecision):
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferUnaryOpShape(op, shapes[0]))
	case op == OpCompare:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferCompareShape(shapes[0], shapes[1], nil, in.Direction, in.CompareType))
	case op.IsElementwiseBinary() && op != OpStochasticConvert:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferBinaryOpShape(op, shapes[0], shapes[1], nil))
	}

	switch op {
	case OpSelect, OpClamp:
		if err := need(3); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferTernaryOpShape(op, shapes[0], shapes[1], shapes[2]))
	case OpConvert:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferConvertShape(shapes[0], in.Shape.Elem))
	case OpBitcastConvert:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferBitcastConvertShape(shapes[0], in.Shape.Elem))
	case OpStochasticConvert:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferStochasticConvertShape(shapes[0], shapes[1], in.Shape.Elem))
	case OpReducePrecision:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferReducePrecisionShape(shapes[0], in.ExponentBits, in.MantissaBits))
	case OpMap:
		p, err := programShape(name, "to_apply", in.ToApply)
		if err != nil {
			return rule(Shape{}, err)
		}
		dims := in.Dimensions
		if dims == nil && len(shapes) > 0 {
			for i := range shapes[0].Dims {
				dims = append(dims, i)
			}
		}
		return rule(InferMapShape(shapes, p, dims))

	case OpBroadcast:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferBroadcastInDimShape(shapes[0], in.Shape, in.Dimensions))
	case OpReshape:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		s, err := InferReshapeShape(shapes[0], in.Shape.Dims)
		if err != nil {
			return rule(Shape{}, err)
		}
		// Which result dimensions are dynamic is the reshape's own choice
		// when a dynamic operand dimension is split or merged.
		return rule(makeShape(s.Elem, s.Dims, dynamicFlags(in.Shape)), nil)
	case OpDynamicReshape:
		if err := atLeast(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferDynamicReshapeShape(shapes[0], shapes[1:], in.Shape.Dims, dynamicFlags(in.Shape)))
	case OpTranspose:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferTransposeShape(shapes[0], in.Dimensions))
	case OpReverse:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferReverseShape(shapes[0], in.Dimensions))
	case OpSlice:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		starts, limits, strides := make([]int, len(in.Slice)), make([]int, len(in.Slice)), make([]int, len(in.Slice))
		for i, d := range in.Slice {
			starts[i], limits[i], strides[i] = d.Start, d.Limit, d.Stride
			if strides[i] == 0 {
				strides[i] = 1
			}
		}
		return rule(InferSliceShape(shapes[0], starts, limits, strides))
	case OpDynamicSlice:
		if err := atLeast(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferDynamicSliceShape(shapes[0], shapes[1:], in.DynamicSliceSizes))
	case OpDynamicUpdateSlice:
		if err := atLeast(2); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferDynamicUpdateSliceShape(shapes[0], shapes[1], shapes[2:]))
	case OpConcatenate:
		d, err := oneDim("concatenated dimension")
		if err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferConcatenateShape(shapes, d))
	case OpPad:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferPadShape(shapes[0], shapes[1], in.Padding))
	case OpIota:
		if err := need(0); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferIotaShape(in.Shape, in.IotaDimension))
	case OpGetDimensionSize:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		d, err := oneDim("dimension")
		if err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferGetDimensionSizeShape(shapes[0], d))
	case OpSetDimensionSize:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		d, err := oneDim("dimension")
		if err != nil {
			return rule(Shape{}, err)
		}
		s, err := InferSetDimensionSizeShape(shapes[0], shapes[1], d)
		if n, ok := constantIntValue(in.Operands[1]); err == nil && ok && n == s.Dims[d] {
			// Setting a dimension to its full size with a constant makes it
			// static again (XLA's RemoveDynamicDimension).
			s.Dynamic[d] = false
			s = makeShape(s.Elem, s.Dims, s.Dynamic)
		}
		return rule(s, err)

	case OpDot:
		dense, err := denseOperands(in, shapes)
		if err != nil {
			return rule(Shape{}, errf(name, "%v", err))
		}
		shapes = dense
		var dnums DotDimensionNumbers
		if in.DotDims != nil {
			dnums = *in.DotDims
		}
		if err := checkPrecisionConfig(name, in); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferDotShape(shapes[0], shapes[1], dnums, in.Shape.Elem))
	case OpScaledDot:
		if err := need(4); err != nil {
			return rule(Shape{}, err)
		}
		var dnums DotDimensionNumbers
		if in.DotDims != nil {
			dnums = *in.DotDims
		}
		return rule(InferScaledDotShape(shapes[0], shapes[1], shapes[2], shapes[3], dnums, in.Shape.Elem))
	case OpRaggedDot:
		if err := need(3); err != nil {
			return rule(Shape{}, err)
		}
		var dnums DotDimensionNumbers
		if in.DotDims != nil {
			dnums = *in.DotDims
		}
		return rule(InferRaggedDotShape(shapes[0], shapes[1], shapes[2], dnums, in.LhsRaggedDims, in.RhsGroupDims, in.Shape.Elem))
	case OpScan:
		d, err := oneDim("scan dimension")
		if err != nil {
			return rule(Shape{}, err)
		}
		p, err := programShape(name, "to_apply", in.ToApply)
		if err != nil {
			return rule(Shape{}, err)
		}
		if in.NumCarries < 0 || in.NumCarries > len(shapes) {
			return rule(Shape{}, errf(name, "num_carries %d is out of range for %d operands", in.NumCarries, len(shapes)))
		}
		n := len(shapes) - in.NumCarries
		return rule(InferScanShape(shapes[:n], shapes[n:], d, p))
	case OpConvolution:
		dense, err := denseOperands(in, shapes)
		if err != nil {
			return rule(Shape{}, errf(name, "%v", err))
		}
		shapes = dense
		if in.ConvDims == nil {
			return rule(Shape{}, errf(name, "dim_labels are missing"))
		}
		if err := checkPrecisionConfig(name, in); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferConvolutionShape(shapes[0], shapes[1], max(in.FeatureGroupCount, 1), max(in.BatchGroupCount, 1), normalizeWindow(in.Window), *in.ConvDims, in.Shape.Elem))

	case OpReduce:
		if len(shapes)%2 != 0 || len(shapes) == 0 {
			return rule(Shape{}, errf(name, "expected operands and as many init values, found %d operands", len(shapes)))
		}
		p, err := programShape(name, "to_apply", in.ToApply)
		if err != nil {
			return rule(Shape{}, err)
		}
		n := len(shapes) / 2
		return rule(InferReduceShape(shapes[:n], shapes[n:], in.Dimensions, p))
	case OpReduceWindow:
		if len(shapes)%2 != 0 || len(shapes) == 0 {
			return rule(Shape{}, errf(name, "expected operands and as many init values, found %d operands", len(shapes)))
		}
		p, err := programShape(name, "to_apply", in.ToApply)
		if err != nil {
			return rule(Shape{}, err)
		}
		n := len(shapes) / 2
		return rule(InferReduceWindowShape(shapes[:n], shapes[n:], normalizeWindow(in.Window), p))
	case OpSelectAndScatter:
		if err := need(3); err != nil {
			return rule(Shape{}, err)
		}
		sel, err := programShape(name, "select", in.Select)
		if err != nil {
			return rule(Shape{}, err)
		}
		sc, err := programShape(name, "scatter", in.Scatter)
		if err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferSelectAndScatterShape(shapes[0], sel, normalizeWindow(in.Window), shapes[1], shapes[2], sc))
	case OpGather:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		if in.GatherDims == nil {
			return rule(Shape{}, errf(name, "dimension numbers are missing"))
		}
		return rule(InferGatherShape(shapes[0], shapes[1], *in.GatherDims, in.GatherSliceSizes))
	case OpScatter:
		if len(shapes) < 3 || len(shapes)%2 == 0 {
			return rule(Shape{}, errf(name, "expected operands, scatter_indices and as many updates, found %d operands", len(shapes)))
		}
		if in.ScatterDims == nil {
			return rule(Shape{}, errf(name, "dimension numbers are missing"))
		}
		p, err := programShape(name, "to_apply", in.ToApply)
		if err != nil {
			return rule(Shape{}, err)
		}
		n := len(shapes) / 2
		return rule(InferScatterShape(shapes[:n], shapes[n], shapes[n+1:], p, *in.ScatterDims))
	case OpSort:
		d, err := oneDim("sort dimension")
		if err != nil {
			return rule(Shape{}, err)
		}
		p, err := programShape(name, "comparator", in.ToApply)
		if err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferSortShape(shapes, d, p))
	case OpTopK:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferTopKShape(shapes[0], in.K))

	case OpWhile:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		cond, err := programShape(name, "condition", in.Condition)
		if err != nil {
			return rule(Shape{}, err)
		}
		body, err := programShape(name, "body", in.Body)
		if err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferWhileShape(cond, body, shapes[0]))
	case OpConditional:
		if err := atLeast(1); err != nil {
			return rule(Shape{}, err)
		}
		branches := make([]ProgramShape, len(in.Branches))
		for i, b := range in.Branches {
			p, err := programShape(name, "branch "+itoa(i), b)
			if err != nil {
				return rule(Shape{}, err)
			}
			branches[i] = p
		}
		return rule(InferConditionalShape(shapes[0], branches, shapes[1:]))
	case OpCall:
		p, err := programShape(name, "to_apply", in.ToApply)
		if err != nil {
			return rule(Shape{}, err)
		}
		if in.IsComposite {
			if v, ok := in.RawAttr("frontend_attributes"); !ok || !strings.Contains(v, "composite.name") {
				return rule(Shape{}, errf(name, "a composite call needs a composite.name frontend attribute"))
			}
		}
		return rule(InferCallShape(shapes, p))
	case OpFusion:
		p, err := programShape(name, "fused", in.Calls)
		if err != nil {
			return rule(Shape{}, err)
		}
		return rule(inferCallShape(name, shapes, p))
	case OpTuple:
		return rule(InferTupleShape(shapes), nil)
	case OpGetTupleElement:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferGetTupleElementShape(shapes[0], in.TupleIndex))
	case OpOptimizationBarrier:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferOptimizationBarrierShape(shapes[0]))
	case OpCustomCall:
		return rule(InferCustomCallShape(in.CustomCallTarget, shapes, in.OperandLayouts, in.Shape))

	case OpCholesky:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferCholeskyShape(shapes[0]))
	case OpTriangularSolve:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		var opts TriangularSolveOptions
		if in.TriangularSolve != nil {
			opts = *in.TriangularSolve
		}
		return rule(InferTriangularSolveShape(shapes[0], shapes[1], opts))
	case OpFft:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferFftShape(shapes[0], in.FFTType, in.FFTLength))
	case OpBatchNormTraining:
		if err := need(3); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferBatchNormTrainingShape(shapes[0], shapes[1], shapes[2], in.FeatureIndex))
	case OpBatchNormInference:
		if err := need(5); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferBatchNormInferenceShape(shapes[0], shapes[1], shapes[2], shapes[3], shapes[4], in.FeatureIndex))
	case OpBatchNormGrad:
		if err := need(5); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferBatchNormGradShape(shapes[0], shapes[1], shapes[2], shapes[3], shapes[4], in.FeatureIndex))

	case OpRng:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferRngShape(in.Distribution, shapes[0], shapes[1], in.Shape))
	case OpRngBitGenerator:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) != 2 {
			return rule(Shape{}, errf(name, "result must be a (state, output) tuple, found %s", human(in.Shape)))
		}
		return rule(InferRngBitGeneratorShape(in.RngAlgorithm, shapes[0], in.Shape.Tuple[1]))
	case OpInfeed:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) != 2 {
			return rule(Shape{}, errf(name, "result must be a (data, token) tuple, found %s", human(in.Shape)))
		}
		return rule(InferInfeedShape(shapes[0], in.Shape.Tuple[0]))
	case OpOutfeed:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		want := shapes[0]
		if in.OutfeedShape != nil {
			want = *in.OutfeedShape
		}
		return rule(InferOutfeedShape(shapes[0], shapes[1], want))
	case OpSend:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferSendShape(shapes[0], shapes[1]))
	case OpSendDone:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferSendDoneShape(shapes[0]))
	case OpRecv:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) != 3 {
			return rule(Shape{}, errf(name, "result must be a (data, u32[], token) tuple, found %s", human(in.Shape)))
		}
		return rule(InferRecvShape(shapes[0], in.Shape.Tuple[0]))
	case OpRecvDone:
		if err := need(1); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferRecvDoneShape(shapes[0]))
	case OpAfterAll:
		return rule(InferAfterAllShape(shapes))
	case OpAddDependency:
		if err := need(2); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferAddDependencyShape(shapes[0], shapes[1]))
	case OpReplicaID, OpPartitionID:
		if err := need(0); err != nil {
			return rule(Shape{}, err)
		}
		return rule(InferReplicaIDShape(), nil)

	case OpAllReduce, OpAllGather, OpReduceScatter, OpAllToAll, OpCollectivePermute, OpCollectiveBroadcast:
		return inferCollective(in, shapes, mod)
	}
	return in.Shape.Clone(), false, nil
}

// checkPrecisionConfig checks an operand_precision attribute, if present:
// one precision per operand, each DEFAULT, HIGH or HIGHEST.
func checkPrecisionConfig(op string, in *Instruction) error {
	v, ok := in.RawAttr("operand_precision")
	if !ok {
		return nil
	}
	body := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "{"), "}")
	if strings.TrimSpace(body) == "" {
		return nil
	}
	parts := strings.Split(body, ",")
	if len(parts) != 2 {
		return errf(op, "operand_precision %s must give one precision per operand (2)", v)
	}
	for _, p := range parts {
		if _, ok := ParsePrecision(strings.TrimSpace(p)); !ok {
			return errf(op, "operand_precision %s: unknown precision %q (expected default, high or highest)", v, strings.TrimSpace(p))
		}
	}
	return nil
}

// inferCollective applies the collective rules, taking the number of
// participants from the replica groups (or, for all-gather and
// reduce-scatter without groups, from the ratio of the result to the
// operand, as XLA's verifier does).
func inferCollective(in *Instruction, shapes []Shape, mod *moduleInfo) (Shape, bool, error) {
	op := in.Opcode
	name := op.String()
	var groups [][]int
	if in.ReplicaGroups != nil {
		groups = in.ReplicaGroups.Groups
	}
	_, size, err := CheckReplicaGroups(name, groups, op != OpAllReduce && op != OpCollectiveBroadcast)
	if err != nil {
		return Shape{}, true, err
	}
	if err := checkGroupMode(name, in, groups, mod); err != nil {
		return Shape{}, true, err
	}
	if len(shapes) == 0 {
		return Shape{}, true, errf(name, "needs at least one operand")
	}
	// shardCount derives the number of participants of all-gather and
	// reduce-scatter from the declared result when there are no groups.
	shardCount := func(dim int, gather bool) int {
		if size > 0 {
			return size
		}
		out := in.Shape
		if out.IsTuple() && len(out.Tuple) > 0 {
			out = out.Tuple[0]
		}
		s := shapes[0]
		if dim < 0 || dim >= s.Rank() || dim >= out.Rank() {
			return 1
		}
		a, b := out.Dims[dim], s.Dims[dim]
		if !gather {
			a, b = b, a
		}
		if b == 0 {
			return 1
		}
		return max((a+b-1)/b, 1)
	}
	switch op {
	case OpAllReduce:
		p, err := programShape(name, "to_apply", in.ToApply)
		if err != nil {
			return Shape{}, true, err
		}
		s, err := InferAllReduceShape(shapes, p)
		return s, true, err
	case OpAllGather:
		if len(in.Dimensions) != 1 {
			return Shape{}, true, errf(name, "expected one all_gather_dimension in dimensions, found %s", intList(in.Dimensions))
		}
		d := in.Dimensions[0]
		s, err := InferAllGatherShape(shapes, d, shardCount(d, true))
		return s, true, err
	case OpReduceScatter:
		if len(in.Dimensions) != 1 {
			return Shape{}, true, errf(name, "expected one scatter dimension in dimensions, found %s", intList(in.Dimensions))
		}
		p, err := programShape(name, "to_apply", in.ToApply)
		if err != nil {
			return Shape{}, true, err
		}
		d := in.Dimensions[0]
		s, err := InferReduceScatterShape(shapes, d, shardCount(d, false), p)
		return s, true, err
	case OpAllToAll:
		count := size
		if count == 0 && mod != nil && mod.replicas > 0 {
			count = mod.replicas
		}
		if len(in.Dimensions) > 0 {
			if len(in.Dimensions) != 1 || len(shapes) != 1 {
				return Shape{}, true, errf(name, "the array form takes one operand and one split dimension, found %d operands and dimensions %s", len(shapes), intList(in.Dimensions))
			}
			d := in.Dimensions[0]
			s, err := InferAllToAllShape(shapes[0], d, d, max(count, 1))
			return s, true, err
		}
		if count > 0 && len(shapes) != count {
			return Shape{}, true, errf(name, "the tuple form takes one operand per participant (%d), found %d", count, len(shapes))
		}
		s, err := InferAllToAllTupleShape(shapes)
		return s, true, err
	case OpCollectivePermute:
		if _, inPlace := in.RawAttr("slice_sizes"); inPlace {
			return in.Shape.Clone(), false, nil
		}
		if mod != nil {
			limit := mod.replicas
			if in.ChannelID != 0 && mod.partitions > 0 {
				limit = mod.partitions
			}
			for _, p := range in.SourceTargetPairs {
				if limit > 1 && (p[0] >= limit || p[1] >= limit) {
					return Shape{}, true, errf(name, "source-target pair {%d,%d} names a replica beyond the %d taking part", p[0], p[1], limit)
				}
			}
		}
		s, err := InferCollectivePermuteShape(shapes, in.SourceTargetPairs)
		return s, true, err
	case OpCollectiveBroadcast:
		s, err := InferCollectiveBroadcastShape(shapes)
		return s, true, err
	}
	return in.Shape.Clone(), false, nil
}

// checkGroupMode checks the replica groups against the module's replica and
// partition counts, in the group mode XLA derives from channel_id and
// use_global_device_ids.
func checkGroupMode(op string, in *Instruction, groups [][]int, mod *moduleInfo) error {
	hasChannel := in.ChannelID != 0
	if !hasChannel && in.UseGlobalDeviceIDs {
		return errf(op, "use_global_device_ids needs a channel_id")
	}
	if mod == nil || len(groups) == 0 {
		if hasChannel && in.UseGlobalDeviceIDs && len(groups) == 0 {
			return errf(op, "replica groups must be given when use_global_device_ids is set")
		}
		return nil
	}
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	replicas, partitions := max(mod.replicas, 1), max(mod.partitions, 1)
	switch {
	case !hasChannel:
		if replicas != 1 && n != replicas {
			return errf(op, "replica groups name %d replicas, the module has %d", n, replicas)
		}
	case in.UseGlobalDeviceIDs:
		if replicas*partitions != 1 && n != replicas*partitions {
			return errf(op, "replica groups name %d devices, the module has %d replicas × %d partitions", n, replicas, partitions)
		}
	}
	return nil
}

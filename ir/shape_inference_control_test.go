package ir

import (
	"strings"
	"testing"
)

func TestInferControlFlowShapes(t *testing.T) {
	// The seed's while loop: T = (s32 counter, f32[10] accumulator).
	state := MakeTuple(Scalar(S32), sh(F32, 10))
	cond := prog(Scalar(PRED), state)
	body := prog(state, state)
	runInferCases(t, []inferCase{
		{"seed while", func() (Shape, error) { return InferWhileShape(cond, body, state) }, "(s32[], f32[10])", ""},
		{"condition result", func() (Shape, error) { return InferWhileShape(prog(Scalar(S32), state), body, state) }, "", "while: condition must return pred[], found s32[]"},
		{"condition arity", func() (Shape, error) { return InferWhileShape(prog(Scalar(PRED), state, state), body, state) }, "", "must take 1 parameter, found 2"},
		{"body result", func() (Shape, error) { return InferWhileShape(cond, prog(sh(F32, 10), state), state) }, "", "while: body returns f32[10], the init value has shape (s32[], f32[10])"},
		{"body parameter", func() (Shape, error) { return InferWhileShape(cond, prog(state, sh(F32, 10)), state) }, "", "body parameter has shape f32[10]"},
		{"condition parameter", func() (Shape, error) { return InferWhileShape(prog(Scalar(PRED), Scalar(S32)), body, state) }, "", "condition parameter has shape s32[]"},

		{"pred conditional", func() (Shape, error) {
			return InferConditionalShape(Scalar(PRED), []ProgramShape{prog(sh(F32, 3), sh(F32, 2)), prog(sh(F32, 3), Scalar(S32))}, []Shape{sh(F32, 2), Scalar(S32)})
		}, "f32[3]", ""},
		{"indexed conditional", func() (Shape, error) {
			b := prog(Scalar(F32), Scalar(F32))
			return InferConditionalShape(Scalar(S32), []ProgramShape{b, b, b}, []Shape{Scalar(F32), Scalar(F32), Scalar(F32)})
		}, "f32[]", ""},
		{"pred with three branches", func() (Shape, error) {
			b := prog(Scalar(F32), Scalar(F32))
			return InferConditionalShape(Scalar(PRED), []ProgramShape{b, b, b}, []Shape{Scalar(F32), Scalar(F32), Scalar(F32)})
		}, "", "conditional: a pred branch index needs 2 branches (true, false), found 3"},
		{"s64 index", func() (Shape, error) {
			return InferConditionalShape(Scalar(S64), []ProgramShape{prog(Scalar(F32), Scalar(F32))}, []Shape{Scalar(F32)})
		}, "", "branch index must be a pred[] or s32[] scalar, found s64[]"},
		{"array index", func() (Shape, error) {
			return InferConditionalShape(sh(S32, 1), []ProgramShape{prog(Scalar(F32), Scalar(F32))}, []Shape{Scalar(F32)})
		}, "", "branch index must be a pred[] or s32[] scalar"},
		{"no branches", func() (Shape, error) { return InferConditionalShape(Scalar(S32), nil, nil) }, "", "needs at least one branch computation"},
		{"operand count", func() (Shape, error) {
			return InferConditionalShape(Scalar(S32), []ProgramShape{prog(Scalar(F32), Scalar(F32))}, nil)
		}, "", "0 branch operands for 1 branch computations"},
		{"branch parameter", func() (Shape, error) {
			return InferConditionalShape(Scalar(PRED), []ProgramShape{prog(Scalar(F32), Scalar(F32)), prog(Scalar(F32), Scalar(S32))}, []Shape{Scalar(F32), Scalar(F32)})
		}, "", "branch operand 1 has shape f32[], branch computation 1 takes s32[]"},
		{"branch results", func() (Shape, error) {
			return InferConditionalShape(Scalar(PRED), []ProgramShape{prog(Scalar(F32), Scalar(F32)), prog(Scalar(S32), Scalar(F32))}, []Shape{Scalar(F32), Scalar(F32)})
		}, "", "branch computation 1 returns s32[], branch computation 0 returns f32[]"},
		{"branch arity", func() (Shape, error) {
			return InferConditionalShape(Scalar(S32), []ProgramShape{prog(Scalar(F32))}, []Shape{Scalar(F32)})
		}, "", "branch computation 0 () -> f32[] must take 1 parameter, found 0"},

		{"call", func() (Shape, error) {
			return InferCallShape([]Shape{sh(F32, 2), Scalar(S32)}, prog(sh(F32, 4), sh(F32, 2), Scalar(S32)))
		}, "f32[4]", ""},
		{"call without arguments", func() (Shape, error) { return InferCallShape(nil, prog(Scalar(F32))) }, "f32[]", ""},
		{"call arity", func() (Shape, error) { return InferCallShape([]Shape{sh(F32, 2)}, prog(sh(F32, 4))) }, "", "call: computation () -> f32[4] takes 0 parameters, found 1 operands"},
		{"call argument", func() (Shape, error) { return InferCallShape([]Shape{sh(F32, 3)}, prog(sh(F32, 4), sh(F32, 2))) }, "", "call: operand 0 has shape f32[3], computation parameter 0 has shape f32[2]"},

		// The seed: tuple(v f32[10], s s32) and element 1 of it, s32.
		{"seed tuple", func() (Shape, error) { return InferTupleShape([]Shape{sh(F32, 10), Scalar(S32)}), nil }, "(f32[10], s32[])", ""},
		{"seed get-tuple-element", func() (Shape, error) { return InferGetTupleElementShape(MakeTuple(sh(F32, 10), Scalar(S32)), 1) }, "s32[]", ""},
		{"nested", func() (Shape, error) { return InferGetTupleElementShape(MakeTuple(MakeTuple(Scalar(F32))), 0) }, "(f32[])", ""},
		{"gte of array", func() (Shape, error) { return InferGetTupleElementShape(sh(F32, 10), 0) }, "", "get-tuple-element: operand must be a tuple, found f32[10]"},
		{"gte index", func() (Shape, error) { return InferGetTupleElementShape(MakeTuple(Scalar(F32)), 1) }, "", "index 1 is out of range for a tuple of 1 elements"},
		{"opt-barrier", func() (Shape, error) { return InferOptimizationBarrierShape(MakeTuple(sh(F32, 2), TokenShape())) }, "(f32[2], token[])", ""},
		{"after-all", func() (Shape, error) { return InferAfterAllShape([]Shape{TokenShape(), TokenShape()}) }, "token[]", ""},
		{"after-all of nothing", func() (Shape, error) { return InferAfterAllShape(nil) }, "token[]", ""},
		{"after-all of array", func() (Shape, error) { return InferAfterAllShape([]Shape{TokenShape(), sh(F32, 1)}) }, "token[]", ""},
		{"add-dependency", func() (Shape, error) { return InferAddDependencyShape(sh(F32, 2), TokenShape()) }, "f32[2]", ""},
		{"add-dependency token", func() (Shape, error) { return InferAddDependencyShape(sh(F32, 2), sh(F32, 2)) }, "", "operand 1 must be a token"},
		{"custom-call", func() (Shape, error) {
			return InferCustomCallShape("myfunc", []Shape{sh(F32, 2), sh(F32, 2, 3)}, nil, sh(F32, 3, 3))
		}, "f32[3,3]", ""},
		{"custom-call no target", func() (Shape, error) { return InferCustomCallShape("", nil, nil, sh(F32, 3)) }, "", "custom-call: custom_call_target is empty"},
		{"custom-call reserved", func() (Shape, error) { return InferCustomCallShape("$x", nil, nil, sh(F32, 3)) }, "", "is reserved"},
		{"custom-call layouts", func() (Shape, error) {
			return InferCustomCallShape("f", []Shape{sh(F32, 2)}, []Shape{sh(F32, 3)}, sh(F32, 3))
		}, "", "operand 0 has shape f32[2], its layout constraint has shape f32[3]"},
		{"custom-call layout count", func() (Shape, error) { return InferCustomCallShape("f", []Shape{sh(F32, 2)}, []Shape{}, sh(F32, 3)) }, "", "0 operand layout constraints for 1 operands"},
	})
}

func TestInferLinalgShapes(t *testing.T) {
	runInferCases(t, []inferCase{
		{"cholesky", func() (Shape, error) { return InferCholeskyShape(sh(F32, 3, 4, 4)) }, "f32[3,4,4]", ""},
		{"cholesky complex", func() (Shape, error) { return InferCholeskyShape(sh(C64, 4, 4)) }, "c64[4,4]", ""},
		{"cholesky int", func() (Shape, error) { return InferCholeskyShape(sh(S32, 4, 4)) }, "", "cholesky: a must have a floating-point or complex element type, found s32[4,4]"},
		{"cholesky rank", func() (Shape, error) { return InferCholeskyShape(sh(F32, 4)) }, "", "a must have rank at least 2, found f32[4]"},
		{"cholesky square", func() (Shape, error) { return InferCholeskyShape(sh(F32, 4, 3)) }, "", "the two minor dimensions of a must be equal, found f32[4,3]"},

		{"solve left", func() (Shape, error) {
			return InferTriangularSolveShape(sh(F32, 2, 4, 4), sh(F32, 2, 4, 3), TriangularSolveOptions{LeftSide: true})
		}, "f32[2,4,3]", ""},
		{"solve right", func() (Shape, error) {
			return InferTriangularSolveShape(sh(F32, 4, 4), sh(F32, 3, 4), TriangularSolveOptions{})
		}, "f32[3,4]", ""},
		{"solve shared dim", func() (Shape, error) {
			return InferTriangularSolveShape(sh(F32, 4, 4), sh(F32, 3, 4), TriangularSolveOptions{LeftSide: true})
		}, "", "triangular-solve: a f32[4,4] and b f32[3,4]: b dimension 0 must equal a's size 4 (left side)"},
		{"solve batch", func() (Shape, error) {
			return InferTriangularSolveShape(sh(F32, 2, 4, 4), sh(F32, 3, 3, 4), TriangularSolveOptions{})
		}, "", "must have the same batch dimensions"},
		{"solve types", func() (Shape, error) {
			return InferTriangularSolveShape(sh(F32, 4, 4), sh(F64, 3, 4), TriangularSolveOptions{})
		}, "", "a and b must have the same floating-point or complex element type"},
		{"solve rank", func() (Shape, error) {
			return InferTriangularSolveShape(sh(F32, 4, 4), sh(F32, 1, 3, 4), TriangularSolveOptions{})
		}, "", "b f32[1,3,4] must have the rank of a f32[4,4]"},
		{"solve transpose", func() (Shape, error) {
			return InferTriangularSolveShape(sh(F32, 4, 4), sh(F32, 3, 4), TriangularSolveOptions{TransposeA: 3})
		}, "", "invalid transpose_a 3"},

		{"fft", func() (Shape, error) { return InferFftShape(sh(C64, 8, 16), FFT, []int{16}) }, "c64[8,16]", ""},
		{"ifft 3-D", func() (Shape, error) { return InferFftShape(sh(C128, 2, 4, 8), IFFT, []int{2, 4, 8}) }, "c128[2,4,8]", ""},
		// RFFT(fft_length=[16]) and RFFT(fft_length=[17]) both give 9 outputs in the innermost axis.
		{"rfft 16", func() (Shape, error) { return InferFftShape(sh(F32, 8, 16), RFFT, []int{16}) }, "c64[8,9]", ""},
		{"rfft 17", func() (Shape, error) { return InferFftShape(sh(F32, 8, 17), RFFT, []int{17}) }, "c64[8,9]", ""},
		{"rfft 2-D", func() (Shape, error) { return InferFftShape(sh(F64, 4, 8, 16), RFFT, []int{8, 16}) }, "c128[4,8,9]", ""},
		{"irfft", func() (Shape, error) { return InferFftShape(sh(C64, 8, 9), IRFFT, []int{17}) }, "f32[8,17]", ""},
		{"irfft 2-D", func() (Shape, error) { return InferFftShape(sh(C64, 8, 9), IRFFT, []int{8, 16}) }, "f32[8,16]", ""},
		{"rfft zero length", func() (Shape, error) { return InferFftShape(sh(F32, 8, 0), RFFT, []int{0}) }, "c64[8,0]", ""},
		{"fft of real", func() (Shape, error) { return InferFftShape(sh(F32, 16), FFT, []int{16}) }, "", "fft: FFT needs a complex operand, found f32[16]"},
		{"rfft of complex", func() (Shape, error) { return InferFftShape(sh(C64, 16), RFFT, []int{16}) }, "", "RFFT needs an f32 or f64 operand"},
		{"rfft of f16", func() (Shape, error) { return InferFftShape(sh(F16, 16), RFFT, []int{16}) }, "", "RFFT needs an f32 or f64 operand, found f16[16]"},
		{"rfft length", func() (Shape, error) { return InferFftShape(sh(F32, 8, 16), RFFT, []int{8}) }, "", "RFFT: operand dimension 1 has size 16, fft_length {8} says 8"},
		{"irfft inner", func() (Shape, error) { return InferFftShape(sh(C64, 8, 16), IRFFT, []int{16}) }, "", "IRFFT: the innermost operand dimension has size 16, expected fft_length[-1]/2+1 = 9"},
		{"irfft outer", func() (Shape, error) { return InferFftShape(sh(C64, 8, 9), IRFFT, []int{4, 16}) }, "", "IRFFT: operand dimension 0 has size 8, fft_length {4,16} says 4"},
		{"fft rank", func() (Shape, error) { return InferFftShape(sh(C64, 2, 2, 2, 2), FFT, []int{2, 2, 2, 2}) }, "", "fft_length {2,2,2,2} must have 1 to 3 entries"},
		{"fft operand rank", func() (Shape, error) { return InferFftShape(sh(C64, 8), FFT, []int{2, 4}) }, "", "an fft of rank 2 needs an operand of rank at least 2"},

		{"bn training", func() (Shape, error) {
			return InferBatchNormTrainingShape(sh(F32, 8, 4, 4, 16), sh(F32, 16), sh(F32, 16), 3)
		}, "(f32[8,4,4,16], f32[16], f32[16])", ""},
		{"bn inference", func() (Shape, error) {
			v := sh(F32, 3)
			return InferBatchNormInferenceShape(sh(F32, 2, 3, 5), v, v, v, v, 1)
		}, "f32[2,3,5]", ""},
		{"bn grad", func() (Shape, error) {
			v := sh(F32, 3)
			return InferBatchNormGradShape(sh(F32, 2, 3, 5), v, v, v, sh(F32, 2, 3, 5), 1)
		}, "(f32[2,3,5], f32[3], f32[3])", ""},
		{"bn feature index", func() (Shape, error) { return InferBatchNormTrainingShape(sh(F32, 8, 16), sh(F32, 16), sh(F32, 16), 2) }, "", "batch-norm-training: feature_index 2 is out of range for operand f32[8,16]"},
		{"bn scale size", func() (Shape, error) { return InferBatchNormTrainingShape(sh(F32, 8, 16), sh(F32, 8), sh(F32, 16), 1) }, "", "scale f32[8] must have one entry per feature (16)"},
		{"bn offset rank", func() (Shape, error) {
			return InferBatchNormTrainingShape(sh(F32, 8, 16), sh(F32, 16), sh(F32, 1, 16), 1)
		}, "", "offset must have rank 1, found f32[1,16]"},
		{"bn int", func() (Shape, error) { return InferBatchNormTrainingShape(sh(S32, 8, 16), sh(S32, 16), sh(S32, 16), 1) }, "", "operand must have a floating-point element type, found s32[8,16]"},
		{"bn types", func() (Shape, error) {
			return InferBatchNormTrainingShape(sh(F32, 8, 16), sh(BF16, 16), sh(F32, 16), 1)
		}, "", "scale bf16[16] must have the operand's element type f32"},
		{"bn grad output", func() (Shape, error) {
			v := sh(F32, 3)
			return InferBatchNormGradShape(sh(F32, 2, 3, 5), v, v, v, sh(F32, 2, 3, 4), 1)
		}, "", "grad_output f32[2,3,4] must have the shape of operand f32[2,3,5]"},
		{"bn inference mean", func() (Shape, error) {
			v := sh(F32, 3)
			return InferBatchNormInferenceShape(sh(F32, 2, 3, 5), v, v, sh(F32, 2), v, 1)
		}, "", "mean f32[2] must have one entry per feature (3)"},
	})
}

func TestInferCollectiveShapes(t *testing.T) {
	sum := scalarReducer(F32)
	runInferCases(t, []inferCase{
		// The seed: with two replicas holding [1.0, 2.5] and [3.0, 5.25], all-gather along 0 gives 4 values.
		{"seed all-gather", func() (Shape, error) { return InferAllGatherShape([]Shape{sh(F32, 2)}, 0, 2) }, "f32[4]", ""},
		{"all-gather 2-D", func() (Shape, error) { return InferAllGatherShape([]Shape{sh(F32, 2, 3)}, 1, 4) }, "f32[2,12]", ""},
		{"all-gather variadic", func() (Shape, error) { return InferAllGatherShape([]Shape{sh(F32, 2), sh(S32, 3)}, 0, 2) }, "(f32[4], s32[6])", ""},
		{"all-gather dim", func() (Shape, error) { return InferAllGatherShape([]Shape{sh(F32, 2)}, 1, 2) }, "", "all-gather: all_gather_dimension 1 is out of range for operand 0 f32[2]"},
		{"all-gather shards", func() (Shape, error) { return InferAllGatherShape([]Shape{sh(F32, 2)}, 0, 0) }, "", "shard count must be positive, found 0"},
		// The seed: the all-reduce sum of two replicas' f32[2] is f32[2].
		{"seed all-reduce", func() (Shape, error) { return InferAllReduceShape([]Shape{sh(F32, 2)}, sum) }, "f32[2]", ""},
		{"all-reduce tuple", func() (Shape, error) { return InferAllReduceShape([]Shape{sh(F32, 2), Scalar(F32)}, sum) }, "(f32[2], f32[])", ""},
		{"all-reduce reducer", func() (Shape, error) { return InferAllReduceShape([]Shape{sh(S32, 2)}, sum) }, "", "all-reduce: init value 0 has shape s32[]"},
		// The seed: reduce-scatter of f32[2] over two replicas leaves one value each.
		{"seed reduce-scatter", func() (Shape, error) { return InferReduceScatterShape([]Shape{sh(F32, 2)}, 0, 2, sum) }, "f32[1]", ""},
		{"reduce-scatter divisibility", func() (Shape, error) { return InferReduceScatterShape([]Shape{sh(F32, 3)}, 0, 2, sum) }, "", "reduce-scatter: operand 0 f32[3]: scatter dimension 0 of size 3 is not divisible by the shard count 2"},
		// The seed: AllToAll(f32[4,16], split 1, concat 0, 4 cores) gives f32[16,4].
		{"seed all-to-all", func() (Shape, error) { return InferAllToAllShape(sh(F32, 4, 16), 1, 0, 4) }, "f32[16,4]", ""},
		{"all-to-all same dim", func() (Shape, error) { return InferAllToAllShape(sh(F32, 4, 16), 1, 1, 4) }, "f32[4,16]", ""},
		{"all-to-all divisibility", func() (Shape, error) { return InferAllToAllShape(sh(F32, 4, 15), 1, 0, 4) }, "", "all-to-all: split dimension 1 of size 15 is not divisible by the split count 4"},
		{"all-to-all split range", func() (Shape, error) { return InferAllToAllShape(sh(F32, 4, 16), 2, 0, 4) }, "", "split dimension 2 is out of range"},
		{"all-to-all concat range", func() (Shape, error) { return InferAllToAllShape(sh(F32, 4, 16), 1, -1, 4) }, "", "concat dimension -1 is out of range"},
		{"all-to-all tuple", func() (Shape, error) { return InferAllToAllTupleShape([]Shape{sh(F32, 2), sh(F32, 2)}) }, "(f32[2], f32[2])", ""},
		{"collective-permute", func() (Shape, error) {
			return InferCollectivePermuteShape([]Shape{sh(F32, 8)}, [][2]int{{0, 1}, {1, 0}})
		}, "f32[8]", ""},
		{"permute source twice", func() (Shape, error) {
			return InferCollectivePermuteShape([]Shape{sh(F32, 8)}, [][2]int{{0, 1}, {0, 2}})
		}, "", "collective-permute: replica 0 is the source of more than one pair"},
		{"permute target twice", func() (Shape, error) {
			return InferCollectivePermuteShape([]Shape{sh(F32, 8)}, [][2]int{{0, 1}, {2, 1}})
		}, "", "replica 1 is the target of more than one pair"},
		{"permute negative", func() (Shape, error) { return InferCollectivePermuteShape([]Shape{sh(F32, 8)}, [][2]int{{-1, 1}}) }, "", "has a negative replica id"},
		{"collective-broadcast", func() (Shape, error) { return InferCollectiveBroadcastShape([]Shape{sh(F32, 8)}) }, "f32[8]", ""},
		{"collective-broadcast tuple operand", func() (Shape, error) { return InferCollectiveBroadcastShape([]Shape{MakeTuple()}) }, "", "operand 0 must be an array"},
	})
}

func TestCheckReplicaGroups(t *testing.T) {
	for _, c := range []struct {
		groups  [][]int
		uniform bool
		n, size int
		err     string
	}{
		{nil, true, 0, 0, ""},
		// The seed: replica_groups = {0, 2}, {1, 3}.
		{[][]int{{0, 2}, {1, 3}}, true, 4, 2, ""},
		{[][]int{{1, 2, 3}, {4, 5, 0}}, true, 6, 3, ""},
		{[][]int{{0, 1}, {2}}, false, 3, 2, ""},
		{[][]int{{0, 1}, {2}}, true, 0, 0, "replica group 1 has 1 replicas, group 0 has 2"},
		{[][]int{{0, 2}, {2, 1}}, true, 0, 0, "replica 2 appears in more than one place"},
		{[][]int{{0, 2}, {3, 4}}, true, 0, 0, "replica groups name 4 replicas but not replica 1"},
		{[][]int{{0, 1}, {}}, false, 0, 0, "replica group 1 is empty"},
		{[][]int{{0, -1}}, false, 0, 0, "negative replica -1"},
	} {
		n, size, err := CheckReplicaGroups("all-gather", c.groups, c.uniform)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("CheckReplicaGroups(%v) error %v, want %q", c.groups, err, c.err)
			}
			continue
		}
		if err != nil || n != c.n || size != c.size {
			t.Errorf("CheckReplicaGroups(%v) = %d, %d, %v; want %d, %d", c.groups, n, size, err, c.n, c.size)
		}
	}
}

func TestInferIOAndRandomShapes(t *testing.T) {
	tok := TokenShape()
	runInferCases(t, []inferCase{
		{"infeed", func() (Shape, error) { return InferInfeedShape(tok, sh(F32, 2, 3)) }, "(f32[2,3], token[])", ""},
		{"infeed tuple", func() (Shape, error) { return InferInfeedShape(tok, MakeTuple(sh(F32, 2), Scalar(S32))) }, "((f32[2], s32[]), token[])", ""},
		// Nested tuple shapes are not supported by infeed.
		{"infeed nested", func() (Shape, error) { return InferInfeedShape(tok, MakeTuple(MakeTuple(sh(F32, 2)))) }, "", "infeed: data tuple element 0 must be an array (no nested tuples or tokens)"},
		{"infeed token", func() (Shape, error) { return InferInfeedShape(sh(F32, 1), sh(F32, 2)) }, "", "infeed: operand must be a token, found f32[1]"},
		{"outfeed", func() (Shape, error) { return InferOutfeedShape(sh(F32, 2), tok, sh(F32, 2)) }, "token[]", ""},
		{"outfeed shape", func() (Shape, error) { return InferOutfeedShape(sh(F32, 2), tok, sh(F32, 3)) }, "", "outfeed: outfeed_shape f32[3] must be the operand's shape f32[2]"},
		{"send", func() (Shape, error) { return InferSendShape(sh(F32, 2), tok) }, "(f32[2], u32[], token[])", ""},
		{"send-done", func() (Shape, error) { return InferSendDoneShape(MakeTuple(sh(F32, 2), Scalar(U32), tok)) }, "token[]", ""},
		{"recv", func() (Shape, error) { return InferRecvShape(tok, sh(F32, 2)) }, "(f32[2], u32[], token[])", ""},
		{"recv-done", func() (Shape, error) { return InferRecvDoneShape(MakeTuple(sh(F32, 2), Scalar(U32), tok)) }, "(f32[2], token[])", ""},
		{"recv-done of array", func() (Shape, error) { return InferRecvDoneShape(sh(F32, 2)) }, "", "recv-done: operand must be the (data, u32[], token) tuple of a recv"},
		{"replica-id", func() (Shape, error) { return InferReplicaIDShape(), nil }, "u32[]", ""},

		{"rng uniform", func() (Shape, error) { return InferRngShape(RngUniform, Scalar(F32), Scalar(F32), sh(F32, 3, 4)) }, "f32[3,4]", ""},
		{"rng uniform s32", func() (Shape, error) { return InferRngShape(RngUniform, Scalar(S32), Scalar(S32), sh(S32, 3)) }, "s32[3]", ""},
		{"rng uniform pred", func() (Shape, error) { return InferRngShape(RngUniform, Scalar(PRED), Scalar(PRED), sh(PRED, 3)) }, "pred[3]", ""},
		{"rng normal", func() (Shape, error) { return InferRngShape(RngNormal, Scalar(F64), Scalar(F64), sh(F64, 3)) }, "f64[3]", ""},
		{"rng normal int", func() (Shape, error) { return InferRngShape(RngNormal, Scalar(S32), Scalar(S32), sh(S32, 3)) }, "", "rng: rng_normal takes floating-point parameters, found s32"},
		{"rng uniform complex", func() (Shape, error) { return InferRngShape(RngUniform, Scalar(C64), Scalar(C64), sh(C64, 3)) }, "", "rng_uniform takes integer, floating-point or pred parameters, found c64"},
		{"rng parameters", func() (Shape, error) { return InferRngShape(RngUniform, sh(F32, 1), Scalar(F32), sh(F32, 3)) }, "", "parameters must be scalars, found f32[1] and f32[]"},
		{"rng parameter types", func() (Shape, error) { return InferRngShape(RngUniform, Scalar(F32), Scalar(F64), sh(F32, 3)) }, "", "parameters must have one type"},
		{"rng result type", func() (Shape, error) { return InferRngShape(RngUniform, Scalar(F32), Scalar(F32), sh(F64, 3)) }, "", "result f64[3] must have the parameters' element type f32"},
		{"rng distribution", func() (Shape, error) { return InferRngShape(RngInvalid, Scalar(F32), Scalar(F32), sh(F32, 3)) }, "", "invalid distribution"},
		{"rbg three-fry", func() (Shape, error) { return InferRngBitGeneratorShape(RngThreeFry, sh(U64, 2), sh(U32, 4, 4)) }, "(u64[2], u32[4,4])", ""},
		{"rbg philox 3", func() (Shape, error) { return InferRngBitGeneratorShape(RngPhilox, sh(U64, 3), sh(U64, 8)) }, "(u64[3], u64[8])", ""},
		{"rbg default", func() (Shape, error) { return InferRngBitGeneratorShape(RngDefault, sh(U64, 2), sh(U8, 8)) }, "(u64[2], u8[8])", ""},
		{"rbg u32 state", func() (Shape, error) { return InferRngBitGeneratorShape(RngThreeFry, sh(U32, 2), sh(U32, 4)) }, "", "rng-bit-generator: state must be a u64 vector, found u32[2]"},
		{"rbg three-fry state size", func() (Shape, error) { return InferRngBitGeneratorShape(RngThreeFry, sh(U64, 3), sh(U32, 4)) }, "", "rng_three_fry needs a state of 2 u64 words, found u64[3]"},
		{"rbg float output", func() (Shape, error) { return InferRngBitGeneratorShape(RngPhilox, sh(U64, 2), sh(F32, 4)) }, "", "output must have an unsigned integer element type, found f32[4]"},
	})
}

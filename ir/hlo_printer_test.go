package ir

import (
	"strings"
	"testing"
)

// buildPrinterTestModule assembles a module in Go, the way a builder does:
// shapes without layouts, typed attributes set directly, no EntryLayout.
func buildPrinterTestModule() *Module {
	f32 := func(dims ...int) Shape { return MakeShape(F32, dims...) }
	add := &Computation{Name: "add"}
	x := add.Add(&Instruction{Name: "x", Opcode: OpParameter, Shape: f32()})
	y := add.Add(&Instruction{Name: "y", Opcode: OpParameter, Shape: f32(), Attrs: Attrs{ParameterNumber: 1}})
	add.Root = add.Add(&Instruction{Name: "sum", Opcode: OpAdd, Shape: f32(), Operands: []*Instruction{x, y}})

	e := &Computation{Name: "main"}
	in := e.Add(&Instruction{Name: "input", Opcode: OpParameter, Shape: f32(1, 8, 8, 3)})
	k := e.Add(&Instruction{Name: "kernel", Opcode: OpParameter, Shape: f32(3, 3, 3, 16), Attrs: Attrs{ParameterNumber: 1}})
	conv := e.Add(&Instruction{Name: "conv", Opcode: OpConvolution, Shape: f32(1, 4, 4, 16), Operands: []*Instruction{in, k},
		Attrs: Attrs{
			Window: &Window{Dims: []WindowDim{
				{Size: 3, Stride: 2, PadLow: 1, PadHigh: 0, WindowDilation: 1, BaseDilation: 1},
				{Size: 3, Stride: 2, PadLow: 1, PadHigh: 0, WindowDilation: 1, BaseDilation: 1}}},
			ConvDims: &ConvDimensionNumbers{InputBatch: 0, InputFeature: 3, InputSpatial: []int{1, 2},
				KernelInputFeature: 2, KernelOutputFeature: 3, KernelSpatial: []int{0, 1},
				OutputBatch: 0, OutputFeature: 3, OutputSpatial: []int{1, 2}},
			FeatureGroupCount: 1, BatchGroupCount: 1,
		}})
	zero := e.Add(&Instruction{Name: "zero", Opcode: OpConstant, Shape: f32(), Attrs: Attrs{Literal: ScalarLiteral[float32](0)}})
	red := e.Add(&Instruction{Name: "sum", Opcode: OpReduce, Shape: f32(1, 16), Operands: []*Instruction{conv, zero},
		ToApply: add, Attrs: Attrs{Dimensions: []int{1, 2}}})
	w := e.Add(&Instruction{Name: "w", Opcode: OpConstant, Shape: f32(16, 2),
		Attrs: Attrs{Literal: MustLiteralFromSlice([]float32{
			1, -1, 0.5, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
			15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30}, 16, 2)}})
	dot := e.Add(&Instruction{Name: "logits", Opcode: OpDot, Shape: f32(1, 2), Operands: []*Instruction{red, w},
		Attrs: Attrs{DotDims: &DotDimensionNumbers{LhsContracting: []int{1}, RhsContracting: []int{0}}}})
	cmp := e.Add(&Instruction{Name: "pos", Opcode: OpCompare, Shape: MakeShape(PRED, 1, 2), Operands: []*Instruction{dot, dot},
		Attrs: Attrs{Direction: CmpGT, CompareType: CmpTypeFloat}})
	ag := e.Add(&Instruction{Name: "gathered", Opcode: OpAllGather, Shape: f32(2, 2), Operands: []*Instruction{dot},
		Attrs: Attrs{ChannelID: 3, ReplicaGroups: &ReplicaGroups{Groups: [][]int{{0, 1}}}, Dimensions: []int{0}, UseGlobalDeviceIDs: true}})
	rs := e.Add(&Instruction{Name: "scattered", Opcode: OpReduceScatter, Shape: f32(1, 2), Operands: []*Instruction{ag}, ToApply: add,
		Attrs: Attrs{ChannelID: 4, ReplicaGroups: &ReplicaGroups{Groups: [][]int{{0, 1}}}, Dimensions: []int{0}, UseGlobalDeviceIDs: true}})
	e.Root = e.Add(&Instruction{Name: "out", Opcode: OpTuple, Shape: MakeTuple(f32(1, 2), MakeShape(PRED, 1, 2)),
		Operands: []*Instruction{rs, cmp}, ControlPredecessors: []*Instruction{ag},
		Raw: []RawAttribute{{Name: "metadata", Value: `{op_name="out"}`}}})
	m := &Module{Name: "built"}
	m.AddComputation(add, false)
	m.AddComputation(e, true)
	return m
}

func TestPrintBuiltModule(t *testing.T) {
	m := buildPrinterTestModule()
	got := m.String()
	want := `HloModule built, entry_computation_layout={(f32[1,8,8,3]{3,2,1,0}, f32[3,3,3,16]{3,2,1,0})->(f32[1,2]{1,0}, pred[1,2]{1,0})}

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %x, f32[] %y)
}

ENTRY %main (input: f32[1,8,8,3], kernel: f32[3,3,3,16]) -> (f32[1,2], pred[1,2]) {
  %input = f32[1,8,8,3]{3,2,1,0} parameter(0)
  %kernel = f32[3,3,3,16]{3,2,1,0} parameter(1)
  %conv = f32[1,4,4,16]{3,2,1,0} convolution(f32[1,8,8,3]{3,2,1,0} %input, f32[3,3,3,16]{3,2,1,0} %kernel), window={size=3x3 stride=2x2 pad=1_0x1_0}, dim_labels=b01f_01io->b01f
  %zero = f32[] constant(0)
  %sum = f32[1,16]{1,0} reduce(f32[1,4,4,16]{3,2,1,0} %conv, f32[] %zero), dimensions={1,2}, to_apply=%add
  %w = f32[16,2]{1,0} constant({{1, -1}, {0.5, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}, {13, 14}, {15, 16}, {17, 18}, {19, 20}, {21, 22}, {23, 24}, {25, 26}, {27, 28}, {29, 30}})
  %logits = f32[1,2]{1,0} dot(f32[1,16]{1,0} %sum, f32[16,2]{1,0} %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %pos = pred[1,2]{1,0} compare(f32[1,2]{1,0} %logits, f32[1,2]{1,0} %logits), direction=GT
  %gathered = f32[2,2]{1,0} all-gather(f32[1,2]{1,0} %logits), channel_id=3, replica_groups={{0,1}}, dimensions={0}, use_global_device_ids=true
  %scattered = f32[1,2]{1,0} reduce-scatter(f32[2,2]{1,0} %gathered), channel_id=4, replica_groups={{0,1}}, use_global_device_ids=true, dimensions={0}, to_apply=%add
  ROOT %out = (f32[1,2]{1,0}, pred[1,2]{1,0}) tuple(f32[1,2]{1,0} %scattered, pred[1,2]{1,0} %pos), control-predecessors={%gathered}, metadata={op_name="out"}
}
`
	if got != want {
		t.Errorf("printed:\n%s\nwant:\n%s%s", got, want, firstDifference(got, want))
	}
	m2, err := ParseModule(got)
	if err != nil {
		t.Fatalf("parse of printed module: %v", err)
	}
	if d := diffModules(m, m2); d != "" {
		t.Errorf("print and parse changed the module: %s", d)
	}
}

// TestPrintCollectiveAndDotDefaults covers what XLA prints for attributes
// left at their defaults.
func TestPrintCollectiveAndDotDefaults(t *testing.T) {
	p := &Instruction{Name: "p", Opcode: OpParameter, Shape: MakeShape(F32, 4, 4)}
	tests := []struct {
		in   *Instruction
		want string
	}{
		{&Instruction{Name: "d", Opcode: OpDot, Shape: MakeShape(F32, 4, 4, 4, 4), Operands: []*Instruction{p, p}},
			"%d = f32[4,4,4,4] dot(f32[4,4] %p, f32[4,4] %p), lhs_contracting_dims={}, rhs_contracting_dims={}"},
		{&Instruction{Name: "a", Opcode: OpAllToAll, Shape: MakeShape(F32, 4, 4), Operands: []*Instruction{p}},
			"%a = f32[4,4] all-to-all(f32[4,4] %p), replica_groups={}"},
		{&Instruction{Name: "t", Opcode: OpTopK, Shape: MakeTuple(MakeShape(F32, 4, 1), MakeShape(S32, 4, 1)), Operands: []*Instruction{p}, Attrs: Attrs{K: 1}},
			"%t = (f32[4,1], s32[4,1]) topk(f32[4,4] %p), k=1, largest=false, is_stable=false"},
		{&Instruction{Name: "c", Opcode: OpCompare, Shape: MakeShape(PRED, 4, 4), Operands: []*Instruction{p, p}, Attrs: Attrs{Direction: CmpEQ, CompareType: CmpTypeTotalOrder}},
			"%c = pred[4,4] compare(f32[4,4] %p, f32[4,4] %p), direction=EQ, type=TOTALORDER"},
		{&Instruction{Name: "s", Opcode: OpSlice, Shape: MakeShape(F32, 2, 4), Operands: []*Instruction{p}, Attrs: Attrs{Slice: []SliceDim{{0, 4, 2}, {0, 4, 1}}}},
			"%s = f32[2,4] slice(f32[4,4] %p), slice={[0:4:2], [0:4:1]}"},
		{&Instruction{Name: "b", Opcode: OpBatchNormInference, Shape: MakeShape(F32, 4, 4), Operands: []*Instruction{p, p, p, p, p}, Attrs: Attrs{Epsilon: 1e-5, FeatureIndex: 1}},
			"%b = f32[4,4] batch-norm-inference(f32[4,4] %p, f32[4,4] %p, f32[4,4] %p, f32[4,4] %p, f32[4,4] %p), epsilon=1e-05, feature_index=1"},
		{&Instruction{Name: "t6", Opcode: OpTuple, Shape: MakeTuple(MakeShape(F32, 4, 4), MakeShape(F32, 4, 4), MakeShape(F32, 4, 4), MakeShape(F32, 4, 4), MakeShape(F32, 4, 4), MakeShape(F32, 4, 4)), Operands: []*Instruction{p, p, p, p, p, p}},
			"%t6 = (f32[4,4], f32[4,4], f32[4,4], f32[4,4], f32[4,4], /*index=5*/f32[4,4]) tuple(f32[4,4] %p, f32[4,4] %p, f32[4,4] %p, f32[4,4] %p, f32[4,4] %p, /*index=5*/f32[4,4] %p)"},
		{&Instruction{Name: "cc", Opcode: OpCustomCall, Shape: MakeShape(F32, 4, 4), Operands: []*Instruction{p},
			Attrs: Attrs{CustomCallTarget: "k\n", HasSideEffect: true, APIVersion: "API_VERSION_TYPED_FFI", BackendConfig: `"cfg"`,
				OperandLayouts: []Shape{MakeShape(F32, 4, 4).WithLayout(MakeLayout(0, 1))}}},
			`%cc = f32[4,4] custom-call(f32[4,4] %p), custom_call_target="k\n", operand_layout_constraints={f32[4,4]{0,1}}, custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, backend_config="cfg"`},
	}
	for _, tc := range tests {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("printed\n%s\nwant\n%s", got, tc.want)
		}
	}
}

// TestPrintedErrorsNeverPanic prints instructions with missing pieces a
// builder might leave unset; the printer must not panic.
func TestPrintIncompleteInstructions(t *testing.T) {
	for _, in := range []*Instruction{
		{Name: "a", Opcode: OpConstant},
		{Name: "b", Opcode: OpAdd, Operands: []*Instruction{nil, nil}},
		{Name: "c", Opcode: OpConvolution, Attrs: Attrs{ConvDims: &ConvDimensionNumbers{InputBatch: 7, InputSpatial: []int{-1}}}},
		{Name: "d", Opcode: OpConditional, Branches: []*Computation{nil, nil}},
	} {
		if s := in.String(); !strings.HasPrefix(s, "%"+in.Name+" = ") {
			t.Errorf("printed %q", s)
		}
	}
	c := &Computation{Name: "empty"}
	if s := c.String(); !strings.HasPrefix(s, "%empty () -> ") {
		t.Errorf("empty computation printed %q", s)
	}
}

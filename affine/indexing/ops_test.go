package indexing

import (
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// rootCase is an HLO module whose entry root is analysed, with the expected
// output-to-input indexing and, where given, the input-to-output indexing of
// each operand.
type rootCase struct {
	name          string
	hlo           string
	outputToInput string
	inputToOutput map[int]string
}

func (c rootCase) run(t *testing.T) {
	t.Run(c.name, func(t *testing.T) {
		m := mustParse(t, c.hlo)
		got, err := OutputToInput(m.Entry.Root, 0)
		if err != nil {
			t.Fatalf("OutputToInput: %v", err)
		}
		checkIndexing(t, "output to input", got, c.outputToInput)
		for k, want := range c.inputToOutput {
			got, err := InputToOutput(m.Entry.Root, k)
			if err != nil {
				t.Fatalf("InputToOutput(%d): %v", k, err)
			}
			checkIndexing(t, "input to output", got, want)
		}
	})
}

const maxComputation = `max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
`

// Windows with padding, strides and dilations, as XLA's tests write them.
// XLA gives no input-to-output indexing for windowed ops: it is unknown.
func TestWindows(t *testing.T) {
	for _, c := range []rootCase{
		{
			name: "reduce-window-padding-and-stride",
			hlo: "HloModule m\n" + maxComputation + `ENTRY e {
  c_inf = f32[] constant(-inf)
  p0 = f32[13,17] parameter(0)
  ROOT rw = f32[7,17] reduce-window(p0, c_inf), window={size=3x2 stride=2x1 pad=1_1x0_1}, to_apply=max
}`,
			outputToInput: `
operand id = 0
(d0, d1)[s0, s1] -> (d0 * 2 + s0 - 1, d1 + s1),
domain:
d0 in [0, 6],
d1 in [0, 16],
s0 in [0, 2],
s1 in [0, 1],
d0 * 2 + s0 in [1, 13],
d1 + s1 in [0, 16]
operand id = 1
(d0, d1) -> (),
domain:
d0 in [0, 6],
d1 in [0, 16]
`,
			inputToOutput: map[int]string{0: "\noperand id = 0 unknown indexing\n"},
		},
		{
			name: "reduce-window-base-dilation",
			hlo: "HloModule m\n" + maxComputation + `ENTRY e {
  c_inf = f32[] constant(-inf)
  p0 = f32[2,3] parameter(0)
  ROOT rw = f32[3,5] reduce-window(p0, c_inf), window={size=1x1 pad=0_0x0_0 lhs_dilate=2x2}, to_apply=max
}`,
			outputToInput: `
operand id = 0
(d0, d1) -> (d0 / 2, d1 / 2),
domain:
d0 in [0, 2],
d1 in [0, 4],
d0 mod 2 in [0, 0],
d1 mod 2 in [0, 0]
operand id = 1
(d0, d1) -> (),
domain:
d0 in [0, 2],
d1 in [0, 4]
`,
			inputToOutput: map[int]string{0: "\noperand id = 0 unknown indexing\n"},
		},
		{
			name: "convolution",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[1,12,10,4] parameter(0)
  p1 = f32[4,3,5,8] parameter(1)
  ROOT conv = f32[1,10,6,8] convolution(p0, p1), window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f
}`,
			outputToInput: `
operand id = 0
(d0, d1, d2, d3)[s0, s1, s2] -> (0, d1 + s0, d2 + s1, s2),
domain:
d0 in [0, 0],
d1 in [0, 9],
d2 in [0, 5],
d3 in [0, 7],
s0 in [0, 2],
s1 in [0, 4],
s2 in [0, 3]
operand id = 1
(d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
domain:
d0 in [0, 0],
d1 in [0, 9],
d2 in [0, 5],
d3 in [0, 7],
s0 in [0, 2],
s1 in [0, 4],
s2 in [0, 3]
`,
		},
		{
			name: "convolution-padding",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[1,12,10,4] parameter(0)
  p1 = f32[4,3,5,8] parameter(1)
  ROOT conv = f32[1,12,10,8] convolution(p0, p1), window={size=3x5 pad=1_1x2_2}, dim_labels=b01f_i01o->b01f
}`,
			outputToInput: `
operand id = 0
(d0, d1, d2, d3)[s0, s1, s2] -> (0, d1 + s0 - 1, d2 + s1 - 2, s2),
domain:
d0 in [0, 0],
d1 in [0, 11],
d2 in [0, 9],
d3 in [0, 7],
s0 in [0, 2],
s1 in [0, 4],
s2 in [0, 3],
d1 + s0 in [1, 12],
d2 + s1 in [2, 11]
operand id = 1
(d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
domain:
d0 in [0, 0],
d1 in [0, 11],
d2 in [0, 9],
d3 in [0, 7],
s0 in [0, 2],
s1 in [0, 4],
s2 in [0, 3]
`,
		},
		{
			name: "convolution-feature-groups",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[1,12,10,24] parameter(0)
  p1 = f32[4,3,5,48] parameter(1)
  ROOT conv = f32[1,10,6,48] convolution(p0, p1), window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f, feature_group_count=6
}`,
			outputToInput: `
operand id = 0
(d0, d1, d2, d3)[s0, s1, s2] -> (0, d1 + s0, d2 + s1, (d3 / 8) * 4 + s2),
domain:
d0 in [0, 0],
d1 in [0, 9],
d2 in [0, 5],
d3 in [0, 47],
s0 in [0, 2],
s1 in [0, 4],
s2 in [0, 3]
operand id = 1
(d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
domain:
d0 in [0, 0],
d1 in [0, 9],
d2 in [0, 5],
d3 in [0, 47],
s0 in [0, 2],
s1 in [0, 4],
s2 in [0, 3]
`,
		},
		{
			// XLA lets the input batch range over every batch group, a
			// symbol of its own, rather than tying it to the output feature.
			name: "convolution-batch-groups",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[14,12,10,4] parameter(0)
  p1 = f32[4,3,5,21] parameter(1)
  ROOT conv = f32[2,10,6,21] convolution(p0, p1), window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f, batch_group_count=7
}`,
			outputToInput: `
operand id = 0
(d0, d1, d2, d3)[s0, s1, s2, s3] -> (s3 * 2 + d0, d1 + s0, d2 + s1, s2),
domain:
d0 in [0, 1],
d1 in [0, 9],
d2 in [0, 5],
d3 in [0, 20],
s0 in [0, 2],
s1 in [0, 4],
s2 in [0, 3],
s3 in [0, 6]
operand id = 1
(d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
domain:
d0 in [0, 1],
d1 in [0, 9],
d2 in [0, 5],
d3 in [0, 20],
s0 in [0, 2],
s1 in [0, 4],
s2 in [0, 3]
`,
		},
	} {
		c.run(t)
	}
}

// Ops beyond the specification's examples. Offsets read at run time are
// runtime variables listed with their origins; input-to-output indexing of
// the slicing, padding and gathering ops is unknown, as in XLA.
func TestOtherOps(t *testing.T) {
	for _, c := range []rootCase{
		{
			name: "dynamic-slice",
			hlo: `HloModule m
ENTRY e {
  src = s32[2,2,258] parameter(0)
  of1 = s32[] parameter(1)
  of2 = s32[] parameter(2)
  of3 = s32[] parameter(3)
  ROOT ds = s32[1,2,32] dynamic-slice(src, of1, of2, of3), dynamic_slice_sizes={1, 2, 32}
}`,
			outputToInput: `
operand id = 0
(d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2),
domain:
d0 in [0, 0],
d1 in [0, 1],
d2 in [0, 31],
rt0 in [0, 1],
rt1 in [0, 0],
rt2 in [0, 226]
runtime variables:
rt0: parameter(1); (d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31]
rt1: parameter(2); (d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31]
rt2: parameter(3); (d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31]
operand id = 1
(d0, d1, d2) -> (),
domain:
d0 in [0, 0],
d1 in [0, 1],
d2 in [0, 31]
operand id = 2
(d0, d1, d2) -> (),
domain:
d0 in [0, 0],
d1 in [0, 1],
d2 in [0, 31]
operand id = 3
(d0, d1, d2) -> (),
domain:
d0 in [0, 0],
d1 in [0, 1],
d2 in [0, 31]
`,
			inputToOutput: map[int]string{0: "\noperand id = 0 unknown indexing\n"},
		},
		{
			name: "dynamic-update-slice",
			hlo: `HloModule m
ENTRY e {
  src = s32[20,30] parameter(0)
  upd = s32[5,10] parameter(1)
  of1 = s32[] parameter(2)
  of2 = s32[] parameter(3)
  ROOT dus = s32[20,30] dynamic-update-slice(src, upd, of1, of2)
}`,
			outputToInput: `
operand id = 0
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 19],
d1 in [0, 29]
operand id = 1
(d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1),
domain:
d0 in [0, 19],
d1 in [0, 29],
rt0 in [0, 15],
rt1 in [0, 20]
runtime variables:
rt0: parameter(2); (d0, d1) -> (), domain: d0 in [0, 19], d1 in [0, 29]
rt1: parameter(3); (d0, d1) -> (), domain: d0 in [0, 19], d1 in [0, 29]
operand id = 2
(d0, d1) -> (),
domain:
d0 in [0, 19],
d1 in [0, 29]
operand id = 3
(d0, d1) -> (),
domain:
d0 in [0, 19],
d1 in [0, 29]
`,
			inputToOutput: map[int]string{0: "\noperand id = 0 unknown indexing\n"},
		},
		{
			name: "pad",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[4, 4] parameter(0)
  p1 = f32[] parameter(1)
  ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0
}`,
			outputToInput: `
operand id = 0
(d0, d1) -> ((d0 - 1) / 2, d1 - 4),
domain:
d0 in [1, 7],
d1 in [4, 7],
(d0 - 1) mod 2 in [0, 0]
operand id = 1
(d0, d1) -> (),
domain:
d0 in [0, 11],
d1 in [0, 15]
`,
			inputToOutput: map[int]string{0: "\noperand id = 0 unknown indexing\n"},
		},
		{
			name: "gather",
			hlo: `HloModule m
ENTRY e {
  operand = f32[33,76,70] parameter(0)
  indices = s32[1806,2] parameter(1)
  ROOT gather = f32[1806,7,8,4] gather(operand, indices), offset_dims={1,2,3}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={7,8,4}
}`,
			outputToInput: `
operand id = 0
(d0, d1, d2, d3){rt0, rt1} -> (d1 + rt0, d2 + rt1, d3),
domain:
d0 in [0, 1805],
d1 in [0, 6],
d2 in [0, 7],
d3 in [0, 3],
rt0 in [0, 26],
rt1 in [0, 68]
runtime variables:
rt0: parameter(1); (d0, d1, d2, d3) -> (d0, 0), domain: d0 in [0, 1805], d1 in [0, 6], d2 in [0, 7], d3 in [0, 3]
rt1: parameter(1); (d0, d1, d2, d3) -> (d0, 1), domain: d0 in [0, 1805], d1 in [0, 6], d2 in [0, 7], d3 in [0, 3]
operand id = 1
(d0, d1, d2, d3)[s0] -> (d0, s0),
domain:
d0 in [0, 1805],
d1 in [0, 6],
d2 in [0, 7],
d3 in [0, 3],
s0 in [0, 1]
`,
			inputToOutput: map[int]string{0: "\noperand id = 0 unknown indexing\n"},
		},
		{
			name: "bitcast-with-layouts",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[4,8]{0,1} parameter(0)
  ROOT b = f32[32]{0} bitcast(p0)
}`,
			outputToInput: `
operand id = 0
(d0) -> (d0 mod 4, d0 / 4),
domain:
d0 in [0, 31]
`,
			inputToOutput: map[int]string{0: `
operand id = 0
(d0, d1) -> (d1 * 4 + d0),
domain:
d0 in [0, 3],
d1 in [0, 7]
`},
		},
		{
			// A bitcast between layouts that is a transpose.
			name: "bitcast-transpose",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[3,5]{1,0} parameter(0)
  ROOT b = f32[5,3]{0,1} bitcast(p0)
}`,
			outputToInput: `
operand id = 0
(d0, d1) -> (d1, d0),
domain:
d0 in [0, 4],
d1 in [0, 2]
`,
		},
		{
			name: "bitcast-convert-to-narrower",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[3,5] parameter(0)
  ROOT b = u8[3,5,4] bitcast-convert(p0)
}`,
			outputToInput: `
operand id = 0
(d0, d1, d2) -> (d0, d1),
domain:
d0 in [0, 2],
d1 in [0, 4],
d2 in [0, 3]
`,
			inputToOutput: map[int]string{0: "\noperand id = 0 unknown indexing\n"},
		},
		{
			name: "bitcast-convert-to-wider",
			hlo: `HloModule m
ENTRY e {
  p0 = u16[3,2] parameter(0)
  ROOT b = f32[3] bitcast-convert(p0)
}`,
			outputToInput: `
operand id = 0
(d0)[s0] -> (d0, s0),
domain:
d0 in [0, 2],
s0 in [0, 1]
`,
		},
		{
			name: "sort",
			hlo: `HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT l = pred[] compare(a, b), direction=LT
}
ENTRY e {
  p0 = f32[4,7] parameter(0)
  p1 = s32[4,7] parameter(1)
  ROOT s = (f32[4,7], s32[4,7]) sort(p0, p1), dimensions={1}, to_apply=lt
}`,
			outputToInput: `
operand id = 0
(d0, d1)[s0] -> (d0, s0),
domain:
d0 in [0, 3],
d1 in [0, 6],
s0 in [0, 6]
operand id = 1
(d0, d1)[s0] -> (d0, s0),
domain:
d0 in [0, 3],
d1 in [0, 6],
s0 in [0, 6]
`,
		},
		{
			name: "select-and-clamp-are-elementwise",
			hlo: `HloModule m
ENTRY e {
  p = pred[3,4] parameter(0)
  a = f32[3,4] parameter(1)
  b = f32[3,4] parameter(2)
  s = f32[3,4] select(p, a, b)
  c = f32[3,4] convert(s)
  ROOT k = f32[3,4] clamp(a, c, b)
}`,
			outputToInput: `
operand id = 0
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 2],
d1 in [0, 3]
operand id = 1
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 2],
d1 in [0, 3]
operand id = 2
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 2],
d1 in [0, 3]
`,
		},
		{
			name: "batch-norm-inference",
			hlo: `HloModule m
ENTRY e {
  x = f32[2,3,5] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  m = f32[3] parameter(3)
  v = f32[3] parameter(4)
  ROOT b = f32[2,3,5] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=1
}`,
			outputToInput: `
operand id = 0
(d0, d1, d2) -> (d0, d1, d2),
domain:
d0 in [0, 1],
d1 in [0, 2],
d2 in [0, 4]
operand id = 1
(d0, d1, d2) -> (d1),
domain:
d0 in [0, 1],
d1 in [0, 2],
d2 in [0, 4]
operand id = 2
(d0, d1, d2) -> (d1),
domain:
d0 in [0, 1],
d1 in [0, 2],
d2 in [0, 4]
operand id = 3
(d0, d1, d2) -> (d1),
domain:
d0 in [0, 1],
d1 in [0, 2],
d2 in [0, 4]
operand id = 4
(d0, d1, d2) -> (d1),
domain:
d0 in [0, 1],
d1 in [0, 2],
d2 in [0, 4]
`,
		},
		{
			name: "zero-sized-tensor-is-known-empty",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[0,3] parameter(0)
  ROOT t = f32[3,0] transpose(p0), dimensions={1,0}
}`,
			outputToInput: `
operand id = 0
KNOWN EMPTY
`,
			inputToOutput: map[int]string{0: `
operand id = 0
KNOWN EMPTY
`},
		},
		{
			name: "nothing-read",
			hlo: `HloModule m
ENTRY e {
  ROOT i = s32[4,5] iota(), iota_dimension=1
}`,
			outputToInput: "",
		},
		{
			name: "unknown-ops",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(p0), custom_call_target="foo"
}`,
			outputToInput: "\noperand id = 0 unknown indexing\n",
			inputToOutput: map[int]string{0: "\noperand id = 0 unknown indexing\n"},
		},
	} {
		c.run(t)
	}
}

// Kiln's own ops reach the analysis as custom-calls named kiln.*.
func TestKilnOps(t *testing.T) {
	shape := ir.MakeShape(ir.F32, 2, 6)
	vec := ir.MakeShape(ir.F32, 6)
	for _, c := range []struct {
		target   string
		operands []ir.Shape
		want     string
	}{
		{"kiln.softmax", []ir.Shape{shape}, `
operand id = 0
(d0, d1)[s0] -> (d0, s0),
domain:
d0 in [0, 1],
d1 in [0, 5],
s0 in [0, 5]
`},
		{"kiln.layer-norm", []ir.Shape{shape, vec, vec}, `
operand id = 0
(d0, d1)[s0] -> (d0, s0),
domain:
d0 in [0, 1],
d1 in [0, 5],
s0 in [0, 5]
operand id = 1
(d0, d1) -> (d1),
domain:
d0 in [0, 1],
d1 in [0, 5]
operand id = 2
(d0, d1) -> (d1),
domain:
d0 in [0, 1],
d1 in [0, 5]
`},
		{"kiln.gelu", []ir.Shape{shape}, `
operand id = 0
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 1],
d1 in [0, 5]
`},
	} {
		op := Op{Opcode: ir.OpCustomCall, Attrs: &ir.Attrs{CustomCallTarget: c.target}, Operands: c.operands, Shape: shape}
		got, err := op.OutputToInput(0)
		if err != nil {
			t.Fatalf("%s: %v", c.target, err)
		}
		checkIndexing(t, c.target, got, c.want)
	}
}

// Malformed ops are errors that say what was expected; they never panic.
func TestErrors(t *testing.T) {
	f := func(dims ...int) ir.Shape { return ir.MakeShape(ir.F32, dims...) }
	for _, c := range []struct {
		op   Op
		want string
	}{
		{Op{Opcode: ir.OpTranspose, Attrs: &ir.Attrs{Dimensions: []int{0, 0}}, Operands: []ir.Shape{f(2, 3)}, Shape: f(2, 3)}, "dimension 0 appears twice"},
		{Op{Opcode: ir.OpTranspose, Attrs: &ir.Attrs{Dimensions: []int{1, 0}}, Operands: []ir.Shape{f(2, 3)}, Shape: f(2, 3)}, "result dimension 0 has size 2, operand dimension 1 has 3"},
		{Op{Opcode: ir.OpBroadcast, Attrs: &ir.Attrs{Dimensions: []int{1}}, Operands: []ir.Shape{f(3)}, Shape: f(3, 4)}, "operand dimension 0 has size 3, output dimension 1 has size 4"},
		{Op{Opcode: ir.OpBroadcast, Attrs: &ir.Attrs{Dimensions: []int{5}}, Operands: []ir.Shape{f(3)}, Shape: f(3, 4)}, "out of range"},
		{Op{Opcode: ir.OpReshape, Operands: []ir.Shape{f(3)}, Shape: f(2, 2)}, "different numbers of elements"},
		{Op{Opcode: ir.OpAdd, Operands: []ir.Shape{f(3), f(4)}, Shape: f(3)}, "operand 1 has shape f32[4], expected the output's dimensions [3] or a scalar"},
		{Op{Opcode: ir.OpSlice, Attrs: &ir.Attrs{Slice: []ir.SliceDim{{Start: 0, Limit: 9, Stride: 1}}}, Operands: []ir.Shape{f(4)}, Shape: f(9)}, "does not fit dimension 0 of size 4"},
		{Op{Opcode: ir.OpPad, Attrs: &ir.Attrs{Padding: []ir.PaddingDim{{Low: 1}}}, Operands: []ir.Shape{f(4), f()}, Shape: f(4)}, "has size 5, the result 4"},
		{Op{Opcode: ir.OpDot, Attrs: &ir.Attrs{DotDims: &ir.DotDimensionNumbers{LhsContracting: []int{1}, RhsContracting: []int{0}}}, Operands: []ir.Shape{f(2, 784), f(512, 3)}, Shape: f(2, 3)},
			"dot: lhs contracting dimension 1 has size 784, rhs contracting dimension 0 has size 512"},
		{Op{Opcode: ir.OpConcatenate, Attrs: &ir.Attrs{Dimensions: []int{0}}, Operands: []ir.Shape{f(2, 3), f(2, 4)}, Shape: f(4, 3)}, "operand 1 has size 4 in dimension 1, the result 3"},
		{Op{Opcode: ir.OpNegate, Operands: []ir.Shape{f(3)}, Shape: f(3)}, ""},
	} {
		_, err := c.op.OutputToInput(0)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.op.Opcode, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.op.Opcode, err, c.want)
		}
	}
	neg := Op{Opcode: ir.OpNegate, Operands: []ir.Shape{f(3)}, Shape: f(3)}
	if _, err := neg.OutputToInput(1); err == nil || !strings.Contains(err.Error(), "output 1 does not exist") {
		t.Errorf("output 1 of negate: %v", err)
	}
	if _, err := neg.InputToOutput(1); err == nil || !strings.Contains(err.Error(), "operand 1 does not exist") {
		t.Errorf("operand 1 of negate: %v", err)
	}
}

// Gathers in XLA's general form: here the index vector dimension is implicit
// (one index per row of indices). The start index is a runtime variable whose
// map reads the indices at the output's batch position; in a fusion the
// runtime variable's origin is the fusion's parameter.
func TestGatherGeneralForm(t *testing.T) {
	const want = `
operand id = 0
(d0, d1){rt0} -> (rt0, d1),
domain:
d0 in [0, 4],
d1 in [0, 75],
rt0 in [0, 32]
runtime variables:
rt0: parameter(1); (d0, d1) -> (d0), domain: d0 in [0, 4], d1 in [0, 75]
operand id = 1
(d0, d1) -> (d0),
domain:
d0 in [0, 4],
d1 in [0, 75]
`
	m := mustParse(t, `HloModule m
ENTRY e {
  operand = f32[33,76] parameter(0)
  indices = s32[5] parameter(1)
  ROOT g = f32[5,76] gather(operand, indices), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,76}
}`)
	got, err := OutputToInput(m.Entry.Root, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "gather", got, want)
	m = mustParse(t, `HloModule m
f {
  operand = f32[33,76] parameter(0)
  indices = s32[5] parameter(1)
  g = f32[5,76] gather(operand, indices), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,76}
  ROOT n = f32[5,76] negate(g)
}
ENTRY e {
  operand = f32[33,76] parameter(0)
  indices = s32[5] parameter(1)
  ROOT fu = f32[5,76] fusion(operand, indices), kind=kLoop, calls=f
}`)
	got, err = OutputToInput(m.Entry.Root, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "fusion", got, want)
	got, err = InputToOutput(m.Entry.Root, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "fusion, inverse", got, "operand id = 0 unknown indexing\n")
}

// A scaled dot reads lhs and rhs as a dot does, and each scale at the
// operand's index divided by the block one scale element covers (XLA's
// operand order: lhs, rhs, lhs scale, rhs scale).
func TestScaledDot(t *testing.T) {
	op := Op{
		Opcode: ir.OpScaledDot,
		Attrs:  &ir.Attrs{DotDims: &ir.DotDimensionNumbers{LhsContracting: []int{1}, RhsContracting: []int{0}}},
		Operands: []ir.Shape{
			ir.MakeShape(ir.F32, 2, 10), ir.MakeShape(ir.F32, 10, 2),
			ir.MakeShape(ir.F32, 2, 2), ir.MakeShape(ir.F32, 2, 2),
		},
		Shape: ir.MakeShape(ir.F32, 2, 2),
	}
	got, err := op.OutputToInput(0)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "scaled-dot", got, `
operand id = 0
(d0, d1)[s0] -> (d0, s0),
domain:
d0 in [0, 1],
d1 in [0, 1],
s0 in [0, 9]
operand id = 1
(d0, d1)[s0] -> (s0, d1),
domain:
d0 in [0, 1],
d1 in [0, 1],
s0 in [0, 9]
operand id = 2
(d0, d1)[s0] -> (d0, s0 / 5),
domain:
d0 in [0, 1],
d1 in [0, 1],
s0 in [0, 9]
operand id = 3
(d0, d1)[s0] -> (s0 / 5, d1),
domain:
d0 in [0, 1],
d1 in [0, 1],
s0 in [0, 9]
`)
	op.Operands[2] = ir.MakeShape(ir.F32, 2, 3)
	if _, err := op.OutputToInput(0); err == nil || !strings.Contains(err.Error(), "does not divide") {
		t.Errorf("a scale that does not divide its operand: %v", err)
	}
}

// A scan's stacked output reads its input at the same index; carries and
// final carries read through the output's scalar map, as XLA has it.
func TestScan(t *testing.T) {
	m := mustParse(t, `HloModule m
body {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  s = f32[] add(x, c)
  ROOT t = (f32[], f32[]) tuple(s, s)
}
ENTRY e {
  xs = f32[10] parameter(0)
  init = f32[] parameter(1)
  ROOT scan = (f32[10], f32[]) scan(xs, init), dimensions={0}, num_carries=1, to_apply=body
}`)
	for output, want := range []string{`
operand id = 0
(d0) -> (d0),
domain:
d0 in [0, 9]
operand id = 1
(d0) -> (),
domain:
d0 in [0, 9]
`, `
operand id = 0
() -> ()
operand id = 1
() -> ()
`} {
		got, err := OutputToInput(m.Entry.Root, output)
		if err != nil {
			t.Fatal(err)
		}
		checkIndexing(t, "scan output "+string(rune('0'+output)), got, want)
	}
	got, err := InputToOutput(m.Entry.Root, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "scan, input to output", got, "operand id = 0 unknown indexing\noperand id = 1 unknown indexing\n")
}

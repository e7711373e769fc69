package indexing

import (
	"slices"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// The examples of the specification (XLA's "HLO indexing analysis"), each
// with the HLO it gives and the maps it prints. Where the specification
// leaves the HLO incomplete (a result shape, a reducer, a whole module), it
// is completed as XLA's indexing_analysis_test.cc writes it. Where the
// specification, an older edition, differs from XLA today (the order of
// terms, runtime variables listed with their origins, which ops have
// input-to-output indexing), the expectations are today's.

// seedCase is one example: an HLO module whose entry root is analysed, the
// expected output-to-input indexing, and the expected input-to-output
// indexing of each operand ("" where the specification shows none).
type seedCase struct {
	name          string
	hlo           string
	outputToInput string
	inputToOutput []string
}

var seedCases = []seedCase{
	{
		name: "elementwise",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[10, 20] parameter(0)
  p1 = f32[10, 20] parameter(1)
  ROOT add = f32[10, 20] add(p0, p1)
}`,
		outputToInput: `
operand id = 0
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 9],
d1 in [0, 19]
operand id = 1
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 9],
d1 in [0, 19]
`,
		inputToOutput: []string{`
operand id = 0
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 9],
d1 in [0, 19]
`, `
operand id = 0
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 9],
d1 in [0, 19]
`},
	},
	{
		name: "broadcast",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[20] parameter(0)
  ROOT bc0 = f32[10, 20, 30] broadcast(p0), dimensions={1}
}`,
		outputToInput: `
operand id = 0
(d0, d1, d2) -> (d1),
domain:
d0 in [0, 9],
d1 in [0, 19],
d2 in [0, 29]
`,
		inputToOutput: []string{`
operand id = 0
(d0)[s0, s1] -> (s0, d0, s1),
domain:
d0 in [0, 19],
s0 in [0, 9],
s1 in [0, 29]
`},
	},
	{
		// The specification's example of a reduction from tensor<2x4x8x16xf32>
		// to tensor<4x8xf32>: (d0, d1) -> (r0, d0, d1, r1).
		name: "reduce-function-and-domain",
		hlo: `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p0 = f32[2, 4, 8, 16] parameter(0)
  c0 = f32[] constant(0)
  ROOT r = f32[4, 8] reduce(p0, c0), dimensions={0, 3}, to_apply=add
}`,
		outputToInput: `
operand id = 0
(d0, d1)[s0, s1] -> (s0, d0, d1, s1),
domain:
d0 in [0, 3],
d1 in [0, 7],
s0 in [0, 1],
s1 in [0, 15]
operand id = 1
(d0, d1) -> (),
domain:
d0 in [0, 3],
d1 in [0, 7]
`,
	},
	{
		// The specification writes the dynamic-slice without its result
		// shape; it is s32[1,2,32].
		name: "dynamic-slice",
		hlo: `HloModule m
ENTRY e {
  src = s32[2,2,258] parameter(0)
  of1 = s32[] parameter(1)
  of2 = s32[] parameter(2)
  of3 = s32[] parameter(3)
  ROOT ds = s32[1,2,32] dynamic-slice(s32[2,2,258] src, s32[] of1, s32[] of2, s32[] of3), dynamic_slice_sizes={1, 2, 32}
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
	},
	{
		name: "dynamic-update-slice",
		hlo: `HloModule m
ENTRY e {
  src = s32[20,30] parameter(0)
  upd = s32[5,10] parameter(1)
  of1 = s32[] parameter(2)
  of2 = s32[] parameter(3)
  ROOT dus = s32[20,30] dynamic-update-slice(
    s32[20,30] src, s32[5,10] upd, s32[] of1, s32[] of2)
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
	},
	{
		name: "gather",
		hlo: `HloModule m
ENTRY e {
  operand = f32[33,76,70] parameter(0)
  indices = s32[1806,2] parameter(1)
  ROOT gather = f32[1806,7,8,4] gather(operand, indices),
    offset_dims={1,2,3},
    collapsed_slice_dims={},
    start_index_map={0,1},
    index_vector_dim=1,
    slice_sizes={7,8,4}
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
	},
	{
		// The specification ends the domain of the output-to-input map with
		// a stray comma after d3 in [0, 12287].
		name: "transpose",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[3, 12288, 6, 128] parameter(0)
  ROOT transpose = f32[3, 6, 128, 12288] transpose(p0), dimensions={0, 2, 3, 1}
}`,
		outputToInput: `
operand id = 0
(d0, d1, d2, d3) -> (d0, d3, d1, d2),
domain:
d0 in [0, 2],
d1 in [0, 5],
d2 in [0, 127],
d3 in [0, 12287]
`,
		inputToOutput: []string{`
operand id = 0
(d0, d1, d2, d3) -> (d0, d2, d3, d1),
domain:
d0 in [0, 2],
d1 in [0, 12287],
d2 in [0, 5],
d3 in [0, 127]
`},
	},
	{
		name: "reverse",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[1, 17, 9, 9] parameter(0)
  ROOT reverse = f32[1, 17, 9, 9] reverse(p0), dimensions={1, 2}
}`,
		outputToInput: `
operand id = 0
(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3),
domain:
d0 in [0, 0],
d1 in [0, 16],
d2 in [0, 8],
d3 in [0, 8]
`,
		inputToOutput: []string{`
operand id = 0
(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3),
domain:
d0 in [0, 0],
d1 in [0, 16],
d2 in [0, 8],
d3 in [0, 8]
`},
	},
	{
		name: "variadic-reduce",
		hlo: `HloModule m
max {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  m = f32[] maximum(a, c)
  n = s32[] maximum(b, d)
  ROOT t = (f32[], s32[]) tuple(m, n)
}
ENTRY e {
  p0 = f32[256,10] parameter(0)
  p0_init = f32[] constant(-inf)
  p1 = s32[256,10] parameter(1)
  p1_init = s32[] constant(0)
  ROOT reduce = (f32[10], s32[10]) reduce(p0, p1, p0_init, p1_init),
    dimensions={0}, to_apply=max
}`,
		outputToInput: `
operand id = 0
(d0)[s0] -> (s0, d0),
domain:
d0 in [0, 9],
s0 in [0, 255]
operand id = 1
(d0)[s0] -> (s0, d0),
domain:
d0 in [0, 9],
s0 in [0, 255]
operand id = 2
(d0) -> (),
domain:
d0 in [0, 9]
operand id = 3
(d0) -> (),
domain:
d0 in [0, 9]
`,
		inputToOutput: []string{`
operand id = 0
(d0, d1) -> (d1),
domain:
d0 in [0, 255],
d1 in [0, 9]
operand id = 1
(d0, d1) -> (d1),
domain:
d0 in [0, 255],
d1 in [0, 9]
`, `
operand id = 0
(d0, d1) -> (d1),
domain:
d0 in [0, 255],
d1 in [0, 9]
operand id = 1
(d0, d1) -> (d1),
domain:
d0 in [0, 255],
d1 in [0, 9]
`, `
operand id = 0
()[s0] -> (s0),
domain:
s0 in [0, 9]
operand id = 1
()[s0] -> (s0),
domain:
s0 in [0, 9]
`, `
operand id = 0
()[s0] -> (s0),
domain:
s0 in [0, 9]
operand id = 1
()[s0] -> (s0),
domain:
s0 in [0, 9]
`},
	},
	{
		name: "slice",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[10, 20, 50] parameter(0)
  ROOT slice = f32[5, 3, 25] slice(f32[10, 20, 50] p0),
    slice={[5:10:1], [3:20:7], [0:50:2]}
}`,
		outputToInput: `
operand id = 0
(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2),
domain:
d0 in [0, 4],
d1 in [0, 2],
d2 in [0, 24]
`,
		inputToOutput: []string{`
operand id = 0
(d0, d1, d2) -> (d0 - 5, (d1 - 3) / 7, d2 / 2),
domain:
d0 in [5, 9],
d1 in [3, 17],
d2 in [0, 48],
(d1 - 3) mod 7 in [0, 0],
d2 mod 2 in [0, 0]
`},
	},
	{
		name: "reshape-collapse",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[4,8] parameter(0)
  ROOT reshape = f32[32] reshape(p0)
}`,
		outputToInput: `
operand id = 0
(d0) -> (d0 / 8, d0 mod 8),
domain:
d0 in [0, 31]
`,
		inputToOutput: []string{`
operand id = 0
(d0, d1) -> (d0 * 8 + d1),
domain:
d0 in [0, 3],
d1 in [0, 7]
`},
	},
	{
		name: "reshape-expand",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[32] parameter(0)
  ROOT reshape = f32[4, 8] reshape(p0)
}`,
		outputToInput: `
operand id = 0
(d0, d1) -> (d0 * 8 + d1),
domain:
d0 in [0, 3],
d1 in [0, 7]
`,
		inputToOutput: []string{`
operand id = 0
(d0) -> (d0 / 8, d0 mod 8),
domain:
d0 in [0, 31]
`},
	},
	{
		name: "reshape-linearize-delinearize",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[4,8] parameter(0)
  ROOT reshape = f32[2, 4, 4] reshape(p0)
}`,
		outputToInput: `
operand id = 0
(d0, d1, d2) -> (d0 * 2 + d1 / 2, (d1 mod 2) * 4 + d2),
domain:
d0 in [0, 1],
d1 in [0, 3],
d2 in [0, 3]
`,
		inputToOutput: []string{`
operand id = 0
(d0, d1) -> (d0 / 2, (d0 mod 2) * 2 + d1 / 4, d1 mod 4),
domain:
d0 in [0, 3],
d1 in [0, 7]
`},
	},
	{
		// The specification omits the comma after d1 in [0, 2].
		name: "reshape-expand-and-collapse-subshapes",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[4, 8, 12] parameter(0)
  ROOT reshape = f32[32, 3, 4] reshape(p0)
}`,
		outputToInput: `
operand id = 0
(d0, d1, d2) -> (d0 / 8, d0 mod 8, d1 * 4 + d2),
domain:
d0 in [0, 31],
d1 in [0, 2],
d2 in [0, 3]
`,
		inputToOutput: []string{`
operand id = 0
(d0, d1, d2) -> (d0 * 8 + d1, d2 / 4, d2 mod 4),
domain:
d0 in [0, 3],
d1 in [0, 7],
d2 in [0, 11]
`},
	},
	{
		name: "concatenate",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[2, 5, 7] parameter(0)
  p1 = f32[2, 11, 7] parameter(1)
  p2 = f32[2, 17, 7] parameter(2)
  ROOT concat = f32[2, 33, 7] concatenate(f32[2, 5, 7] p0, f32[2, 11, 7] p1, f32[2, 17, 7] p2), dimensions={1}
}`,
		outputToInput: `
operand id = 0
(d0, d1, d2) -> (d0, d1, d2),
domain:
d0 in [0, 1],
d1 in [0, 4],
d2 in [0, 6]
operand id = 1
(d0, d1, d2) -> (d0, d1 - 5, d2),
domain:
d0 in [0, 1],
d1 in [5, 15],
d2 in [0, 6]
operand id = 2
(d0, d1, d2) -> (d0, d1 - 16, d2),
domain:
d0 in [0, 1],
d1 in [16, 32],
d2 in [0, 6]
`,
		inputToOutput: []string{`
operand id = 0
(d0, d1, d2) -> (d0, d1, d2),
domain:
d0 in [0, 1],
d1 in [0, 4],
d2 in [0, 6]
`, `
operand id = 0
(d0, d1, d2) -> (d0, d1 + 5, d2),
domain:
d0 in [0, 1],
d1 in [0, 10],
d2 in [0, 6]
`, `
operand id = 0
(d0, d1, d2) -> (d0, d1 + 16, d2),
domain:
d0 in [0, 1],
d1 in [0, 16],
d2 in [0, 6]
`},
	},
	{
		// The specification (an older XLA) shows input-to-output maps of
		// the operands of a dot; XLA today gives none: they are unknown.
		name: "dot",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[4, 128, 256] parameter(0)
  p1 = f32[4, 256, 64] parameter(1)
  ROOT dot = f32[4, 128, 64] dot(p0, p1),
    lhs_batch_dims={0}, rhs_batch_dims={0},
    lhs_contracting_dims={2}, rhs_contracting_dims={1}
}`,
		outputToInput: `
operand id = 0
(d0, d1, d2)[s0] -> (d0, d1, s0),
domain:
d0 in [0, 3],
d1 in [0, 127],
d2 in [0, 63],
s0 in [0, 255]
operand id = 1
(d0, d1, d2)[s0] -> (d0, s0, d2),
domain:
d0 in [0, 3],
d1 in [0, 127],
d2 in [0, 63],
s0 in [0, 255]
`,
		inputToOutput: []string{"\noperand id = 0 unknown indexing\n", "\noperand id = 0 unknown indexing\n"},
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
	},
	{
		name: "reduce-window",
		hlo: `HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  c_inf = f32[] constant(-inf)
  p0 = f32[1024, 514] parameter(0)
  ROOT reduce-window = f32[1024, 3] reduce-window(p0, c_inf),
    window={size=1x512 pad=0_0x0_0}, to_apply=max
}`,
		outputToInput: `
operand id = 0
(d0, d1)[s0] -> (d0, d1 + s0),
domain:
d0 in [0, 1023],
d1 in [0, 2],
s0 in [0, 511]
operand id = 1
(d0, d1) -> (),
domain:
d0 in [0, 1023],
d1 in [0, 2]
`,
	},
	{
		name: "fusion-one-input-two-maps",
		hlo: `HloModule m
f {
  p0 = f32[1000, 1000] parameter(0)
  transpose_p0 = f32[1000, 1000]{0, 1} transpose(p0), dimensions={1, 0}
  ROOT a0 = f32[1000, 1000] add(p0, transpose_p0)
}
ENTRY e {
  p0 = f32[1000, 1000] parameter(0)
  ROOT fusion = f32[1000, 1000] fusion(p0), kind=kLoop, calls=f
}`,
		outputToInput: `
operand id = 0
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 999],
d1 in [0, 999]
(d0, d1) -> (d1, d0),
domain:
d0 in [0, 999],
d1 in [0, 999]
`,
	},
	{
		name: "fusion-one-input-duplicate-maps",
		hlo: `HloModule m
f {
  p0 = f32[20, 10, 50] parameter(0)
  lhs_transpose_1 = f32[10, 20, 50] transpose(p0), dimensions={1, 0, 2}
  lhs_e = f32[10, 20, 50] exponential(lhs_transpose_1)
  lhs_transpose_2 = f32[10, 50, 20] transpose(lhs_e), dimensions={0, 2, 1}
  rhs_transpose_1 = f32[50, 10, 20] transpose(p0), dimensions={2, 1, 0}
  rhs_log = f32[50, 10, 20] exponential(rhs_transpose_1)
  rhs_transpose_2 = f32[10, 50, 20] transpose(rhs_log), dimensions={1, 0, 2}
  ROOT add = f32[10, 50, 20] add(lhs_transpose_2, rhs_transpose_2)
}
ENTRY e {
  p0 = f32[20, 10, 50] parameter(0)
  ROOT fusion = f32[10, 50, 20] fusion(p0), kind=kLoop, calls=f
}`,
		outputToInput: `
operand id = 0
(d0, d1, d2) -> (d2, d0, d1),
domain:
d0 in [0, 9],
d1 in [0, 49],
d2 in [0, 19]
`,
	},
	{
		// The specification gives the maps of parameter 0 of XLA's softmax
		// fusion; this is that fusion as XLA's indexing tests write it.
		name: "fusion-softmax",
		hlo:  softmaxHLO,
		outputToInput: `
operand id = 0
(d0, d1, d2)[s0] -> (d0, d1, s0),
domain:
d0 in [0, 1],
d1 in [0, 64],
d2 in [0, 124],
s0 in [0, 124]
(d0, d1, d2) -> (d0, d1, d2),
domain:
d0 in [0, 1],
d1 in [0, 64],
d2 in [0, 124]
`,
	},
}

const softmaxHLO = `HloModule m
add_computation {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT add = f32[] add(p0, p1)
}
max_computation {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT max = f32[] maximum(p0, p1)
}
softmax {
  p0 = f32[2,65,125]{2,1,0} parameter(0)
  bitcast0 = f32[65,2,125]{2,1,0} bitcast(f32[2,65,125]{2,1,0} p0)
  constant_neg_inf_1 = f32[] constant(-inf)
  reduce0 = f32[2,65]{1,0} reduce(f32[2,65,125]{2,1,0} p0, f32[] constant_neg_inf_1), dimensions={2}, to_apply=max_computation
  bitcast1 = f32[130]{0} bitcast(f32[2,65]{1,0} reduce0)
  bcast = f32[130,125]{1,0} broadcast(f32[130]{0} bitcast1), dimensions={0}
  bitcast2 = f32[65,2,125]{2,1,0} bitcast(f32[130,125]{1,0} bcast)
  subtract0 = f32[65,2,125]{2,1,0} subtract(f32[65,2,125]{2,1,0} bitcast0, f32[65,2,125]{2,1,0} bitcast2)
  exponential0 = f32[65,2,125]{2,1,0} exponential(f32[65,2,125]{2,1,0} subtract0)
  bitcast3 = f32[130,125]{1,0} bitcast(f32[65,2,125]{2,1,0} exponential0)
  constant_zero_1 = f32[] constant(0)
  reduce1 = f32[130]{0} reduce(f32[130,125]{1,0} bitcast3, f32[] constant_zero_1), dimensions={1}, to_apply=add_computation
  bcast.1 = f32[130,125]{1,0} broadcast(f32[130]{0} reduce1), dimensions={0}
  divide = f32[130,125]{1,0} divide(f32[130,125]{1,0} bitcast3, f32[130,125]{1,0} bcast.1)
  ROOT bitcast4 = f32[2,65,125]{2,1,0} bitcast(f32[130,125]{1,0} divide)
}
ENTRY e {
  p0 = f32[2,65,125]{2,1,0} parameter(0)
  ROOT fusion = f32[2,65,125]{2,1,0} fusion(f32[2,65,125]{2,1,0} p0), kind=kLoop, calls=softmax
}`

// mustParse parses and verifies an HLO module.
func mustParse(t testing.TB, text string) *ir.Module {
	t.Helper()
	m, err := ir.ParseModule(text)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := m.Verify(); err != nil {
		t.Fatalf("verify: %v", err)
	}
	return m
}

// operandSets splits an indexing's text into the set of map texts of each
// operand, so that maps found in another order still compare equal: XLA
// keeps the maps of an operand in a set.
func operandSets(text string) [][]string {
	var sets [][]string
	var cur []string
	if strings.TrimSpace(text) == "" {
		return nil
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if strings.HasPrefix(line, "operand id = ") {
			sets = append(sets, nil)
			if strings.HasSuffix(line, "unknown indexing") {
				sets[len(sets)-1] = []string{"unknown indexing"}
			}
			cur = nil
			continue
		}
		cur = append(cur, line)
		if !strings.HasSuffix(line, ",") && line != "domain:" {
			sets[len(sets)-1] = append(sets[len(sets)-1], strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, s := range sets {
		slices.Sort(s)
	}
	return sets
}

func checkIndexing(t *testing.T, what string, got *Indexing, want string) {
	t.Helper()
	g := got.String()
	if slices.EqualFunc(operandSets(g), operandSets(want), slices.Equal) {
		return
	}
	t.Errorf("%s:\ngot:\n%s\nwant:\n%s", what, g, strings.TrimPrefix(want, "\n"))
}

func TestSeedExamples(t *testing.T) {
	for _, c := range seedCases {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, c.hlo)
			root := m.Entry.Root
			got, err := OutputToInput(root, 0)
			if err != nil {
				t.Fatalf("OutputToInput: %v", err)
			}
			checkIndexing(t, "output to input", got, c.outputToInput)
			for k, want := range c.inputToOutput {
				got, err := InputToOutput(root, k)
				if err != nil {
					t.Fatalf("InputToOutput(%d): %v", k, err)
				}
				checkIndexing(t, "input to output of operand "+string(rune('0'+k)), got, want)
			}
		})
	}
}

// The maps of an operand print one after another, in the order found.
func TestSeedExamplesPrintInOrder(t *testing.T) {
	for _, c := range seedCases {
		m := mustParse(t, c.hlo)
		got, err := OutputToInput(m.Entry.Root, 0)
		if err != nil {
			t.Fatal(err)
		}
		if c.name == "fusion-softmax" {
			continue // two maps, found in traversal order
		}
		if g, w := got.String(), strings.TrimPrefix(c.outputToInput, "\n"); g != w {
			t.Errorf("%s: String() =\n%s\nwant\n%s", c.name, g, w)
		}
	}
}

// The specification's chain of reshapes 10x10x10 -> 50x20 -> 10x10x10 is
// the identity once the maps are composed and simplified.
func TestSeedReshapeChainCancels(t *testing.T) {
	m := mustParse(t, `HloModule m
f {
  p0 = f32[10, 10, 10] parameter(0)
  reshape1 = f32[50, 20] reshape(p0)
  ROOT reshape2 = f32[10, 10, 10] reshape(reshape1)
}
ENTRY e {
  p0 = f32[10, 10, 10] parameter(0)
  ROOT fusion = f32[10, 10, 10] fusion(p0), kind=kLoop, calls=f
}`)
	want := `
operand id = 0
(d0, d1, d2) -> (d0, d1, d2),
domain:
d0 in [0, 9],
d1 in [0, 9],
d2 in [0, 9]
`
	got, err := OutputToInput(m.Entry.Root, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "output to input", got, want)
	// Forwards, through the group of the fused computation (XLA has no
	// input-to-output indexing of the fusion instruction itself).
	g, err := GroupOf(m.Entry.Root.Called()[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err = g.InputToOutput(0)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "input to output", got, want)
}

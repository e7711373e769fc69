package ir

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// parseOne parses a module whose entry holds the given instruction lines
// and returns the instruction named "r" (or the root).
func parseOne(t *testing.T, callees, body string) *Instruction {
	t.Helper()
	m, err := ParseModule("HloModule m\n" + callees + "\nENTRY e {\n" + body + "\n}\n")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if in := m.Entry.Instruction("r"); in != nil {
		return in
	}
	return m.Entry.Root
}

const addComputation = "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"

func TestParseShapeForms(t *testing.T) {
	tests := []struct {
		text string
		want Shape
	}{
		{"f32[]", Shape{Elem: F32}},
		{"f32[2,3]", Shape{Elem: F32, Dims: []int{2, 3}}},
		{"f32[2,3]{0,1}", Shape{Elem: F32, Dims: []int{2, 3}, Layout: &Layout{MinorToMajor: []int{0, 1}}}},
		{"f32[<=10,4]", Shape{Elem: F32, Dims: []int{10, 4}, Dynamic: []bool{true, false}}},
		{"s32[4,<=8]{1,0}", Shape{Elem: S32, Dims: []int{4, 8}, Dynamic: []bool{false, true}, Layout: &Layout{MinorToMajor: []int{1, 0}}}},
		{"token[]", Shape{Elem: TOKEN}},
		{"()", Shape{Elem: TUPLE, Tuple: []Shape{}}},
		{"(f32[], (pred[2]{0}, token[]))", Shape{Elem: TUPLE, Tuple: []Shape{{Elem: F32},
			{Elem: TUPLE, Tuple: []Shape{{Elem: PRED, Dims: []int{2}, Layout: &Layout{MinorToMajor: []int{0}}}, {Elem: TOKEN}}}}}},
		{"(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])", Shape{Elem: TUPLE, Tuple: []Shape{{Elem: F32}, {Elem: F32}, {Elem: F32}, {Elem: F32}, {Elem: F32}, {Elem: F32}}}},
		{"bf16[8,128]{1,0:T(8,128)(2,1)}", Shape{Elem: BF16, Dims: []int{8, 128}, Layout: &Layout{MinorToMajor: []int{1, 0}, Tiles: [][]int{{8, 128}, {2, 1}}}}},
		{"s4[16]{0:E(4)S(1)}", Shape{Elem: S4, Dims: []int{16}, Layout: &Layout{MinorToMajor: []int{0}, ElementSizeBits: 4, MemorySpace: 1}}},
		{"f32[8]{0:T(2,*)L(4)#(s32)E(32)}", Shape{Elem: F32, Dims: []int{8}, Layout: &Layout{MinorToMajor: []int{0}, Tiles: [][]int{{2, tileCombined}}, ElementSizeBits: 32, Extra: "L(4)#(s32)"}}},
		{"f32[]{:S(2)}", Shape{Elem: F32, Layout: &Layout{MinorToMajor: []int{}, MemorySpace: 2}}},
	}
	for _, tc := range tests {
		got, err := ParseShape(tc.text)
		if err != nil {
			t.Errorf("ParseShape(%q): %v", tc.text, err)
			continue
		}
		if !deepEqualValues(reflect.ValueOf(got), reflect.ValueOf(tc.want)) {
			t.Errorf("ParseShape(%q) = %#v, want %#v", tc.text, got, tc.want)
		}
	}
}

// TestLayoutAttributesPrintInXLAOrder checks that layout attributes Kiln
// keeps verbatim print back in the order XLA's Layout::Print uses.
func TestLayoutAttributesPrintInXLAOrder(t *testing.T) {
	for _, text := range []string{
		"f32[8]{0:T(2,*)L(4)#(s32)E(32)}",
		"f32[8,8]{1,0:D(D,C)T(8,128)(2,1)L(2)*(u32)E(16)S(3)SC(0:4)M(8)}",
		"f32[8]{0:S(1)M(4)}",
	} {
		sh, err := ParseShape(text)
		if err != nil {
			t.Fatalf("ParseShape(%q): %v", text, err)
		}
		if got := shapeText(sh, true); got != text {
			t.Errorf("printed %q, want %q", got, text)
		}
	}
}

func TestParseShapeErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"f32[2,", "1:7: expected dimension size, found end of input"},
		{"f32[2;3]", "1:6: expected ',' in shape, found ';'"},
		{"f33[2]", `1:1: unknown element type "f33"`},
		{"f32[?]", "1:5: unbounded dynamic dimension"},
		{"f32[2]{0,1}", "1:1: shape f32[2]{0,1}: layout {0,1} has 2 entries for rank 1"},
		{"f32[2]{1}", "not a permutation"},
		{"f32[99999999999999999999]", "1:5: dimension size 99999999999999999999 is out of range"},
		{"f32[-1]", "1:5: dimension size must not be negative"},
		{"f32[2]{0:Q}", "1:10: expected layout attribute"},
		{strings.Repeat("(", 300) + "f32[]" + strings.Repeat(")", 300), "nested deeper than"},
	}
	for _, tc := range tests {
		_, err := ParseShape(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseShape(%.40q) error = %v, want it to contain %q", tc.text, err, tc.want)
		}
	}
}

func TestParseWindowAndConvolution(t *testing.T) {
	in := parseOne(t, "", `x = f32[1,8,8,4]{3,2,1,0} parameter(0)
  k = f32[3,3,4,8]{3,2,1,0} parameter(1)
  r = f32[1,4,4,8]{3,2,1,0} convolution(x, k), window={size=3x3 stride=2x2 pad=1_0x0_-1 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, feature_group_count=2, batch_group_count=1`)
	want := &Window{Dims: []WindowDim{
		{Size: 3, Stride: 2, PadLow: 1, PadHigh: 0, BaseDilation: 1, WindowDilation: 2},
		{Size: 3, Stride: 2, PadLow: 0, PadHigh: -1, BaseDilation: 2, WindowDilation: 1, Reversal: true},
	}}
	if !reflect.DeepEqual(in.Window, want) {
		t.Errorf("window = %+v, want %+v", in.Window, want)
	}
	wantDims := &ConvDimensionNumbers{InputBatch: 0, InputFeature: 3, InputSpatial: []int{1, 2},
		KernelInputFeature: 2, KernelOutputFeature: 3, KernelSpatial: []int{0, 1},
		OutputBatch: 0, OutputFeature: 3, OutputSpatial: []int{1, 2}}
	if !reflect.DeepEqual(in.ConvDims, wantDims) {
		t.Errorf("dim_labels = %+v, want %+v", in.ConvDims, wantDims)
	}
	if in.FeatureGroupCount != 2 || in.BatchGroupCount != 1 {
		t.Errorf("group counts = %d, %d, want 2, 1", in.FeatureGroupCount, in.BatchGroupCount)
	}
	if got, want := in.Window.String(), "size=3x3 stride=2x2 pad=1_0x0_-1 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1"; got != want {
		t.Errorf("window prints %q, want %q", got, want)
	}
}

func TestDimLabels(t *testing.T) {
	tests := []struct {
		text string
		want ConvDimensionNumbers
	}{
		{"bf01_oi01->bf01", ConvDimensionNumbers{0, 1, []int{2, 3}, 1, 0, []int{2, 3}, 0, 1, []int{2, 3}}},
		{"f10b_i01o->1b0f", ConvDimensionNumbers{3, 0, []int{2, 1}, 0, 3, []int{1, 2}, 1, 3, []int{2, 0}}},
		{"b012f_012io->b012f", ConvDimensionNumbers{0, 4, []int{1, 2, 3}, 3, 4, []int{0, 1, 2}, 0, 4, []int{1, 2, 3}}},
		{"bf_io->bf", ConvDimensionNumbers{0, 1, []int{}, 0, 1, []int{}, 0, 1, []int{}}},
	}
	for _, tc := range tests {
		got, err := ParseConvDimensionNumbers(tc.text)
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		if !deepEqualValues(reflect.ValueOf(*got), reflect.ValueOf(tc.want)) {
			t.Errorf("%s: got %+v, want %+v", tc.text, *got, tc.want)
		}
		if s := got.String(); s != tc.text {
			t.Errorf("%s prints as %s", tc.text, s)
		}
	}
	for _, bad := range []string{"b01f_01io", "bb1f_01io->b01f", "b01f_01io->b0f", "b02f_01io->b01f", "b01f_01xo->b01f", "b01f_012io->b01f"} {
		if _, err := ParseConvDimensionNumbers(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestReplicaGroups(t *testing.T) {
	tests := []struct {
		text string
		want [][]int
	}{
		{"{{0,1},{2,3}}", [][]int{{0, 1}, {2, 3}}},
		{"[2,2]<=[4]", [][]int{{0, 1}, {2, 3}}},
		{"[2,2]<=[2,2]T(1,0)", [][]int{{0, 2}, {1, 3}}},
		{"[4,2]<=[2,2,2]T(0,2,1)", [][]int{{0, 2}, {1, 3}, {4, 6}, {5, 7}}},
		{"[1,4]<=[4]", [][]int{{0, 1, 2, 3}}},
		{"[2,4]<=[4,2]T(1,0)", [][]int{{0, 2, 4, 6}, {1, 3, 5, 7}}},
	}
	for _, tc := range tests {
		g, err := ParseReplicaGroups(tc.text)
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		if !reflect.DeepEqual(g.Groups, tc.want) {
			t.Errorf("%s: groups %v, want %v", tc.text, g.Groups, tc.want)
		}
		if s := g.String(); s != tc.text {
			t.Errorf("%s prints as %s", tc.text, s)
		}
	}
	for _, bad := range []string{"[2,3]<=[4]", "[2,2]<=[2,2]T(0,0)", "[2,2]<=[2,2]T(0)", "[1048576,1048576]<=[1048576,1048576]", "{{0,1}"} {
		if _, err := ParseReplicaGroups(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestParseTypedAttributes(t *testing.T) {
	t.Run("slice", func(t *testing.T) {
		in := parseOne(t, "", "x = f32[8,8] parameter(0)\n r = f32[2,4] slice(x), slice={[0:4:2], [4:8]}")
		want := []SliceDim{{0, 4, 2}, {4, 8, 1}}
		if !reflect.DeepEqual(in.Slice, want) {
			t.Errorf("slice = %v, want %v", in.Slice, want)
		}
	})
	t.Run("pad", func(t *testing.T) {
		in := parseOne(t, "", "x = f32[2,2] parameter(0)\n z = f32[] constant(0)\n r = f32[7,14] pad(x, z), padding=1_4_1x4_8_0")
		want := []PaddingDim{{1, 4, 1}, {4, 8, 0}}
		if !reflect.DeepEqual(in.Padding, want) {
			t.Errorf("padding = %v, want %v", in.Padding, want)
		}
		if got := PaddingString(want); got != "1_4_1x4_8_0" {
			t.Errorf("padding prints %q", got)
		}
		if got := PaddingString([]PaddingDim{{-1, 2, 0}, {0, 0, 0}}); got != "-1_2x0_0" {
			t.Errorf("padding prints %q", got)
		}
	})
	t.Run("dot", func(t *testing.T) {
		in := parseOne(t, "", "a = f32[2,3,4] parameter(0)\n b = f32[2,4,5] parameter(1)\n r = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}")
		want := &DotDimensionNumbers{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContracting: []int{2}, RhsContracting: []int{1}}
		if !reflect.DeepEqual(in.DotDims, want) {
			t.Errorf("dot dims = %+v, want %+v", in.DotDims, want)
		}
	})
	t.Run("gather", func(t *testing.T) {
		in := parseOne(t, "", "a = f32[2,5,4] parameter(0)\n i = s32[2,3,1] parameter(1)\n r = f32[2,3,4] gather(a, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,4}, indices_are_sorted=true")
		want := &GatherDimensionNumbers{OffsetDims: []int{2}, CollapsedSliceDims: []int{1}, StartIndexMap: []int{1},
			IndexVectorDim: 2, OperandBatchingDims: []int{0}, StartIndicesBatchingDims: []int{0}}
		if !reflect.DeepEqual(in.GatherDims, want) || !reflect.DeepEqual(in.GatherSliceSizes, []int{1, 1, 4}) || !in.IndicesAreSorted {
			t.Errorf("gather = %+v %v %v", in.GatherDims, in.GatherSliceSizes, in.IndicesAreSorted)
		}
	})
	t.Run("scatter", func(t *testing.T) {
		in := parseOne(t, addComputation, "a = f32[5,4] parameter(0)\n i = s32[3,1] parameter(1)\n u = f32[3,4] parameter(2)\n r = f32[5,4] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, input_batching_dims={}, scatter_indices_batching_dims={}, index_vector_dim=1, unique_indices=true, to_apply=add")
		want := &ScatterDimensionNumbers{UpdateWindowDims: []int{1}, InsertedWindowDims: []int{0}, ScatterDimsToOperandDims: []int{0},
			IndexVectorDim: 1, InputBatchingDims: []int{}, ScatterIndicesBatchingDims: []int{}}
		if !reflect.DeepEqual(in.ScatterDims, want) || !in.UniqueIndices || in.ToApply == nil || in.ToApply.Name != "add" {
			t.Errorf("scatter = %+v unique=%v to_apply=%v", in.ScatterDims, in.UniqueIndices, in.ToApply)
		}
	})
	t.Run("compare", func(t *testing.T) {
		in := parseOne(t, "", "a = f32[] parameter(0)\n r = pred[] compare(a, a), direction=LT, type=TOTALORDER")
		if in.Direction != CmpLT || in.CompareType != CmpTypeTotalOrder {
			t.Errorf("compare = %v %v", in.Direction, in.CompareType)
		}
	})
	t.Run("compare order", func(t *testing.T) {
		// Newer XLA writes a compare's order: TOTAL for floats is the
		// TOTALORDER type, PARTIAL the IEEE comparison; integers are
		// totally ordered already. The text prints back as written.
		for _, c := range []struct {
			body string
			want ComparisonType
		}{
			{"a = f32[] parameter(0)\n r = pred[] compare(a, a), direction=LT, order=TOTAL", CmpTypeTotalOrder},
			{"a = bf16[] parameter(0)\n r = pred[] compare(a, a), direction=GT, order=PARTIAL", CmpTypeFloat},
			{"a = s32[] parameter(0)\n r = pred[] compare(a, a), direction=LT, order=TOTAL", CmpTypeSigned},
			{"a = u8[] parameter(0)\n r = pred[] compare(a, a), direction=LT, order=TOTAL", CmpTypeUnsigned},
			{"a = f32[] parameter(0)\n r = pred[] compare(a, a), direction=LT, type=TOTALORDER, order=TOTAL", CmpTypeTotalOrder},
		} {
			in := parseOne(t, "", c.body)
			if in.CompareType != c.want {
				t.Errorf("%s: type %v, want %v", c.body, in.CompareType, c.want)
			}
			// It prints with its order (a type it implies left out) and
			// reads back the same.
			got := in.String()
			back := parseOne(t, "", strings.SplitN(c.body, "\n", 2)[0]+"\n"+strings.Replace(got, "%", "", -1))
			if !strings.Contains(got, "order=") || back.CompareType != c.want {
				t.Errorf("%s prints as %s, which reads back as type %v", c.body, got, back.CompareType)
			}
		}
		for _, c := range []struct{ body, err string }{
			{"a = s32[] parameter(0)\n r = pred[] compare(a, a), direction=LT, order=PARTIAL", "order=PARTIAL does not apply to s32"},
			{"a = f32[] parameter(0)\n r = pred[] compare(a, a), direction=LT, type=FLOAT, order=TOTAL", "type=FLOAT contradicts order=TOTAL"},
			{"a = f32[] parameter(0)\n r = pred[] compare(a, a), direction=LT, order=WEAK", "expects comparison order"},
		} {
			_, err := ParseModule("HloModule m\nENTRY e {\n" + c.body + "\n}\n")
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.body, err, c.err)
			}
		}
	})
	t.Run("rng and fft", func(t *testing.T) {
		m, err := ParseModule(`HloModule m
ENTRY e {
  z = f32[] constant(0)
  u = f32[4] rng(z, z), distribution=rng_normal
  k = u64[2] parameter(0)
  b = (u64[2], u32[4]) rng-bit-generator(k), algorithm=rng_philox
  c = c64[4] convert(u)
  ROOT f = c64[4] fft(c), fft_type=IFFT, fft_length={4}
}`)
		if err != nil {
			t.Fatal(err)
		}
		e := m.Entry
		if e.Instruction("u").Distribution != RngNormal || e.Instruction("b").RngAlgorithm != RngPhilox ||
			e.Instruction("f").FFTType != IFFT || !reflect.DeepEqual(e.Instruction("f").FFTLength, []int{4}) {
			t.Errorf("rng/fft attributes not parsed: %v", m)
		}
	})
	t.Run("collectives", func(t *testing.T) {
		in := parseOne(t, addComputation, "a = f32[8] parameter(0)\n r = f32[8] all-reduce(a), channel_id=7, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, constrain_layout=true, to_apply=add")
		if in.ChannelID != 7 || !in.UseGlobalDeviceIDs || !in.ConstrainLayout || in.ReplicaGroups == nil ||
			!reflect.DeepEqual(in.ReplicaGroups.Groups, [][]int{{0, 2}, {1, 3}}) ||
			!reflect.DeepEqual(in.ReplicaGroups.Iota, &IotaReplicaGroups{NumGroups: 2, GroupSize: 2, ReshapeDims: []int{2, 2}, Perm: []int{1, 0}}) {
			t.Errorf("all-reduce attributes = %+v", in.Attrs)
		}
		in = parseOne(t, "", "a = f32[8] parameter(0)\n r = f32[8] collective-permute(a), channel_id=1, source_target_pairs={{0,1},{1,0}}")
		if !reflect.DeepEqual(in.SourceTargetPairs, [][2]int{{0, 1}, {1, 0}}) {
			t.Errorf("source_target_pairs = %v", in.SourceTargetPairs)
		}
	})
	t.Run("misc", func(t *testing.T) {
		m, err := ParseModule(`HloModule m
ENTRY e {
  a = f32[4,4] parameter(0)
  rp = f32[4,4] reduce-precision(a), exponent_bits=5, mantissa_bits=10
  ts = f32[4,4] triangular-solve(a, a), left_side=true, lower=true, unit_diagonal=true, transpose_a=TRANSPOSE
  ch = f32[4,4] cholesky(a), lower=true
  tk = (f32[4,2], s32[4,2]) topk(a), k=2
  tk2 = (f32[4,2], s32[4,2]) topk(a), k=2, largest=false
  i = s32[4,4] iota(), iota_dimension=1
  g = f32[4] get-tuple-element(tk), index=1
  s = f32[4,4] sort(a), dimensions={1}, is_stable=true, to_apply=lt
  x = f32[2,3,4,5] parameter(1)
  sc = f32[5] parameter(2)
  bn = f32[2,3,4,5] batch-norm-inference(x, sc, sc, sc, sc), epsilon=1e-05, feature_index=3
  ds = f32[2,2] dynamic-slice(a, i.0, i.0), dynamic_slice_sizes={2,2}
  i.0 = s32[] constant(1)
  ROOT r = f32[4,4] copy(a)
}
lt {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT c = pred[] compare(p, q), direction=LT
}`)
		if err == nil || !strings.Contains(err.Error(), `operand "i.0" of ds is not defined before it`) {
			t.Fatalf("use before definition: got %v", err)
		}
		m, err = ParseModule(`HloModule m
ENTRY e {
  a = f32[4,4] parameter(0)
  rp = f32[4,4] reduce-precision(a), exponent_bits=5, mantissa_bits=10
  ts = f32[4,4] triangular-solve(a, a), left_side=true, lower=true, unit_diagonal=true, transpose_a=TRANSPOSE
  ch = f32[4,4] cholesky(a), lower=true
  tk = (f32[4,2], s32[4,2]) topk(a), k=2
  tk2 = (f32[4,2], s32[4,2]) topk(a), k=2, largest=false
  i = s32[4,4] iota(), iota_dimension=1
  g = f32[4] get-tuple-element(tk), index=1
  s = f32[4,4] sort(a), dimensions={1}, is_stable=true, to_apply=lt
  x = f32[2,3,4,5] parameter(1)
  sc = f32[5] parameter(2)
  bn = f32[2,3,4,5] batch-norm-inference(x, sc, sc, sc, sc), epsilon=1e-05, feature_index=3
  ROOT r = f32[4,4] copy(a)
}
lt {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT c = pred[] compare(p, q), direction=LT
}`)
		if err != nil {
			t.Fatal(err)
		}
		e := m.Entry
		if rp := e.Instruction("rp"); rp.ExponentBits != 5 || rp.MantissaBits != 10 {
			t.Errorf("reduce-precision = %d %d", rp.ExponentBits, rp.MantissaBits)
		}
		if ts := e.Instruction("ts"); !reflect.DeepEqual(ts.TriangularSolve, &TriangularSolveOptions{true, true, true, Transpose}) {
			t.Errorf("triangular-solve = %+v", ts.TriangularSolve)
		}
		if !e.Instruction("ch").Lower || e.Instruction("ch").TriangularSolve != nil {
			t.Errorf("cholesky lower not parsed")
		}
		if tk, tk2 := e.Instruction("tk"), e.Instruction("tk2"); tk.K != 2 || !tk.Largest || tk2.Largest {
			t.Errorf("topk = k %d largest %v / %v", tk.K, tk.Largest, tk2.Largest)
		}
		if e.Instruction("i").IotaDimension != 1 || e.Instruction("g").TupleIndex != 1 {
			t.Errorf("iota/gte attributes not parsed")
		}
		if s := e.Instruction("s"); !s.IsStable || !reflect.DeepEqual(s.Dimensions, []int{1}) || s.ToApply != m.Computation("lt") {
			t.Errorf("sort attributes not parsed")
		}
		if bn := e.Instruction("bn"); bn.Epsilon != float32(1e-5) || bn.FeatureIndex != 3 {
			t.Errorf("batch-norm = %v %v", bn.Epsilon, bn.FeatureIndex)
		}
		// The callee defined after its caller is listed first.
		if m.Computations[0].Name != "lt" || m.Computations[1] != m.Entry {
			t.Errorf("computations in order %s, %s; want lt, e", m.Computations[0].Name, m.Computations[1].Name)
		}
	})
}

func TestParseConstants(t *testing.T) {
	m, err := ParseModule(`HloModule m
ENTRY e {
  big = f32[1024,1024]{1,0} constant({...})
  s = f32[] constant(1.5)
  v = s32[3] constant({1, 2, 3})
  mat = f32[2,2] constant({ { 1, -2.5 }, { inf, -inf } })
  b = pred[2] constant({true, false})
  n = f64[] constant(nan)
  ROOT t = (f32[], s32[3]) tuple(s, v)
}`)
	if err != nil {
		t.Fatal(err)
	}
	e := m.Entry
	if big := e.Instruction("big"); !big.LiteralElided || big.Literal != nil {
		t.Errorf("elided constant: elided=%v literal=%v", big.LiteralElided, big.Literal)
	}
	if got := e.Instruction("s").Literal.Float32s(); !reflect.DeepEqual(got, []float32{1.5}) {
		t.Errorf("scalar constant = %v", got)
	}
	if got := e.Instruction("v").Literal.Int32s(); !reflect.DeepEqual(got, []int32{1, 2, 3}) {
		t.Errorf("vector constant = %v", got)
	}
	got := e.Instruction("mat").Literal.Float32s()
	if got[0] != 1 || got[1] != -2.5 || !math.IsInf(float64(got[2]), 1) || !math.IsInf(float64(got[3]), -1) {
		t.Errorf("matrix constant = %v", got)
	}
	if got := e.Instruction("b").Literal.Bools(); !reflect.DeepEqual(got, []bool{true, false}) {
		t.Errorf("pred constant = %v", got)
	}
	if got := e.Instruction("n").Literal.Float64s(); !math.IsNaN(got[0]) {
		t.Errorf("nan constant = %v", got)
	}
	if s := e.Instruction("big").String(); s != "%big = f32[1024,1024]{1,0} constant({...})" {
		t.Errorf("elided constant prints %q", s)
	}
}

// TestParseNameStyles reads names with and without '%', with dots and
// dashes, operands with and without shapes, and a computation signature.
func TestParseNameStyles(t *testing.T) {
	m, err := ParseModule(`HloModule a.b-c_1

%add.clone-1 (x.1: f32[], y-2: f32[]) -> f32[] {
  %x.1 = f32[] parameter(0)
  y-2 = f32[] parameter(1)
  ROOT %sum.a-b = f32[] add(f32[] %x.1, y-2)
}

ENTRY main.7 {
  %p-0.1 = f32[4]{0} parameter(0)
  zero = f32[] constant(0)
  ROOT r.1 = f32[] reduce(f32[4]{0} %p-0.1, zero), dimensions={0}, to_apply=%add.clone-1
}`)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "a.b-c_1" || m.Entry.Name != "main.7" || m.Entry.Root.Name != "r.1" {
		t.Errorf("names = %q %q %q", m.Name, m.Entry.Name, m.Entry.Root.Name)
	}
	add := m.Computation("add.clone-1")
	if add == nil || add.Root.Name != "sum.a-b" || add.Root.Operands[1].Name != "y-2" || m.Entry.Root.ToApply != add {
		t.Fatalf("callee not resolved: %v", m)
	}
}

// TestParseDefaults covers what XLA assumes when the text leaves something
// out: the last instruction is the root, the last computation the entry.
func TestParseDefaults(t *testing.T) {
	m, err := ParseModule(`HloModule m
callee {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
main {
  a = f32[] parameter(0)
  b = f32[] call(a), to_apply=callee
  c = f32[] exponential(b)
}`)
	if err != nil {
		t.Fatal(err)
	}
	if m.Entry == nil || m.Entry.Name != "main" || !m.Entry.IsEntry {
		t.Errorf("entry = %v, want main", m.Entry)
	}
	if m.Entry.Root.Name != "c" {
		t.Errorf("root = %s, want c", m.Entry.Root.Name)
	}
}

func TestParseRawAttributesVerbatim(t *testing.T) {
	in := parseOne(t, "", `a = f32[2] parameter(0)
  r = f32[2] custom-call(a), custom_call_target="x\"y", sharding={devices=[2,1]0,1 last_tile_dim_replicate}, frontend_attributes={_xla_stream="1",k="v,}"}, metadata={op_name="a{b}" source_file="f.py" source_line=3}, backend_config={"k":"}"}, output_to_operand_aliasing={{0}: (0, {})}`)
	// Kept as written, in the order XLA prints them.
	want := []RawAttribute{
		{"output_to_operand_aliasing", "{{0}: (0, {})}"},
		{"sharding", "{devices=[2,1]0,1 last_tile_dim_replicate}"},
		{"frontend_attributes", `{_xla_stream="1",k="v,}"}`},
		{"metadata", `{op_name="a{b}" source_file="f.py" source_line=3}`},
	}
	if !reflect.DeepEqual(in.Raw, want) {
		t.Errorf("raw = %q\nwant %q", in.Raw, want)
	}
	if in.CustomCallTarget != `x"y` || in.BackendConfig != `{"k":"}"}` {
		t.Errorf("target %q backend_config %q", in.CustomCallTarget, in.BackendConfig)
	}
	wantText := `%r = f32[2] custom-call(f32[2] %a), custom_call_target="x\"y", output_to_operand_aliasing={{0}: (0, {})}, sharding={devices=[2,1]0,1 last_tile_dim_replicate}, frontend_attributes={_xla_stream="1",k="v,}"}, metadata={op_name="a{b}" source_file="f.py" source_line=3}, backend_config={"k":"}"}`
	if got := in.String(); got != wantText {
		t.Errorf("prints\n%s\nwant\n%s", got, wantText)
	}
}

// TestParseRefusesAttributesXLARefuses checks that an attribute the opcode
// does not take, and malformed values of the attributes kept verbatim, are
// errors naming the place, as XLA's parser reports them.
func TestParseRefusesAttributesXLARefuses(t *testing.T) {
	const head = "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
	for _, tc := range []struct{ line, want string }{
		{`r = f32[2] custom-call(p), custom_call_target="x", unknown_attr=1`, `4:54: unexpected attribute "unknown_attr" for custom-call`},
		{`r = s8[2,4] bitcast-convert(p), result_accuracy={mode=highest}`, `4:35: unexpected attribute "result_accuracy" for bitcast-convert`},
		{`r = f32[2] exponential(p), result_accuracy={foo=1}`, "4:47: invalid attribute name: \"foo\""},
		{`r = f32[2] negate(p), sharding={devices=[2,2]0,1,2}`, "4:35: the tile assignment [2 2] has 4 positions, but 3 devices are listed"},
		{`r = f32[2] negate(p), sharding={devices=[2,2]<=[8]}`, "4:35: the iota reshape dimensions [8] hold 8 devices, which does not match the tile assignment dimensions product 4"},
		{`r = f32[2] negate(p), sharding={devices=[2,2]<=[2,2]}`, "4:55: expected 'T(' to start the iota transpose permutation"},
		{`r = f32[2] negate(p), sharding={maximal}`, "4:35: maximal shardings should have exactly one device assigned"},
		{`r = f32[2] negate(p), sharding={replicated devices=[2]0,1}`, "4:35: replicated shardings should not have any devices assigned"},
		{`r = f32[2] negate(p), sharding={devices=[2,1]0,1 sideways}`, "4:52: unknown attribute \"sideways\" in sharding"},
		{`r = f32[2] negate(p), metadata={op_name="x" colour="red"}`, "4:47: unexpected metadata field \"colour\""},
		{`r = f32[2] negate(p), frontend_attributes={a=1}`, "4:48: expected a quoted string or a {…} dictionary for frontend attribute a"},
		{`r = f32[2] custom-call(p), custom_call_target="x", api_version=API_VERSION_UNSPECIFIED`, "4:66: invalid API version"},
		{`r = f32[2] custom-call(p), custom_call_target="x", operand_layout_constraints={f32[3]{0}}`, "4:14: custom-call: operand layout constraint shape f32[3]{0} for operand 0 is not compatible"},
		{`r = f32[2]{0:D(X)} negate(p)`, "4:18: expected a DimLevelType abbreviation"},
		{`r = f32[2]{0:T(2)P(f32[2])} negate(p)`, "4:20: layout has a physical shape"},
	} {
		_, err := ParseModule(head + "  " + tc.line + "\n}")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\nerror = %v\nwant it to contain %q", tc.line, err, tc.want)
		}
	}
}

func TestParseAsyncShorthand(t *testing.T) {
	m, err := ParseModule(`HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  s = ((f32[8]), f32[8], s32[]) custom-call-start(p), custom_call_target="foo"
  d = f32[8] custom-call-done(s)
  f = ((f32[8]), f32[8]) fusion-start(p), kind=kLoop, calls=fused
}
fused {
  q = f32[8] parameter(0)
  ROOT n = f32[8] negate(q)
}`)
	if err != nil {
		t.Fatal(err)
	}
	s, d, f := m.Entry.Instruction("s"), m.Entry.Instruction("d"), m.Entry.Instruction("f")
	if s.Opcode != OpAsyncStart || s.AsyncWrapped != OpCustomCall || s.CustomCallTarget != "foo" {
		t.Errorf("start = %v %v %q", s.Opcode, s.AsyncWrapped, s.CustomCallTarget)
	}
	if d.Opcode != OpAsyncDone || d.AsyncWrapped != OpCustomCall {
		t.Errorf("done = %v %v", d.Opcode, d.AsyncWrapped)
	}
	if f.Opcode != OpAsyncStart || f.AsyncWrapped != OpFusion || f.Calls != m.Computation("fused") {
		t.Errorf("fusion-start = %v %v %v", f.Opcode, f.AsyncWrapped, f.Calls)
	}
	if got := s.String(); got != `%s = ((f32[8]), f32[8], s32[]) custom-call-start(f32[8] %p), custom_call_target="foo"` {
		t.Errorf("prints %s", got)
	}
}

// TestParseErrors checks each error's position and wording.
func TestParseErrors(t *testing.T) {
	const head = "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
	tests := []struct{ text, want string }{
		{"", "1:1: expected 'HloModule' or a computation, found end of input"},
		{"HloModule", "1:10: expected module name, found end of input"},
		{"HloModule m", "1:12: expected computation name, found end of input"},
		{"HloModule m, entry_computation_layout={(f32[2], f32[2])->f32[2]}\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}",
			"1:14: entry_computation_layout has 2 parameters, but entry computation \"e\" has 1"},
		{head + "  r = f32[2,] negate(p)\n}", "4:13: expected dimension size, found ']'"},
		{head + "  r = f32[2] negate(q)\n}", "4:21: operand \"q\" of r is not defined before it in computation e"},
		{head + "  r = f32[2] add(p)\n}", "4:14: add: expects 2 operands, but has 1 operands"},
		{head + "  r = f32[2] frobnicate(p)\n}", "4:14: unknown opcode \"frobnicate\""},
		{head + "  p = f32[2] negate(p)\n}", "4:3: instruction \"p\" is defined twice in computation e (first at 3:3)"},
		{head + "  r = f32[2] broadcast(p)\n}", "4:14: broadcast: attribute dimensions is expected but not seen"},
		{head + "  r = f32[2] negate(p), metadata={{{op_name=\"x\"}\n}", "4:35: unexpected metadata field '{'"},
		{head + "  r = f32[2] negate(p), metadata=\"abc\n}", "4:34: expected '{' to start metadata, found '\"'"},
		{head + "  r = f32[2] reduce(p, p), dimensions={0}, to_apply=nowhere\n}", "4:53: computation \"nowhere\" is not defined"},
		{head + "  r = f32[2] reverse(p), dimensions={0}, dimensions={0}\n}", "4:42: attribute dimensions already exists"},
		{head + "  r = f32[2] negate(p), dimensions={0}\n}", "4:25: unexpected attribute \"dimensions\" for negate"},
		{head + "  r = f32[2] negate(f32[3] p)\n}", "4:21: the declared operand shape f32[3] is not compatible with the shape of operand \"p\", f32[2]"},
		{head + "  ROOT a = f32[2] negate(p)\n  ROOT b = f32[2] negate(p)\n}", "5:3: one computation should have only one ROOT: e has \"a\" and \"b\""},
		{head + "  r = pred[2] compare(p, p), direction=SIDEWAYS\n}", "4:40: unknown comparison direction \"SIDEWAYS\""},
		{head + "  r = f32[2] parameter(0)\n}", "4:24: duplicate parameter number 0 in computation e"},
		{head + "  r = f32[3] parameter(2)\n}", "2:1: computation e has no parameter(1) but has parameter(2)"},
		{"f32[] parameter(1)", "1:1: the instruction's computation has no parameter(0) but has parameter(1)"},
		{head + "  r = f32[2] negate(p)", "4:23: expected '}' to close computation e, found end of input"},
		{head + "  r = f32[4] all-gather(p), dimensions={0}, channel_id=99999999999999999999\n}", "4:56: channel_id 99999999999999999999 is out of range"},
		{head + "  r = f32[100000000] constant({1})\n}", "4:31: constant r of shape f32[100000000] declares 100000000 elements, more than its text \"{1}\" (3 bytes) can hold"},
		{head + "  r = f32[3] constant({1, 2})\n}", "4:28: constant: expected 3 elements along dimension 0 of f32[3], found 2"},
		{head + "  r = f32[2] convolution(p, p), dim_labels=b0f_0io->bf0x\n}", "4:44: output dim_labels"},
		{head + "  r = f32[2] reduce-window(p, p), window={size=2x2 stride=1}, to_apply=c\n}", "4:59: window field stride has 1 dimensions, size has 2"},
		{"HloModule m\nc {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}",
			"2:1: computation \"c\" calls itself"},
		{"HloModule m\nENTRY a {\n  ROOT p = f32[] parameter(0)\n}\nENTRY b {\n  ROOT p = f32[] parameter(0)\n}", "5:1: expects only one ENTRY"},
		{"HloModule m\nENTRY e {\n}", "3:1: expected instruction name, found '}'"},
	}
	for _, tc := range tests {
		_, err := ParseModule(tc.text)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("input:\n%s\nerror = %v\nwant prefix %q", tc.text, err, tc.want)
		}
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Errorf("error %v is %T, want *ParseError", err, err)
			}
		}
	}
}

func TestParseDeepNestingDoesNotOverflow(t *testing.T) {
	deep := "HloModule m\nENTRY e {\n  ROOT p = " + strings.Repeat("(", 100000) + " parameter(0)\n}"
	if _, err := ParseModule(deep); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("deep tuple: %v", err)
	}
	braces := "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), origin=" + strings.Repeat("{", 100000) + "\n}"
	if _, err := ParseModule(braces); err == nil || !strings.Contains(err.Error(), "unterminated") {
		t.Errorf("deep braces: %v", err)
	}
}

func TestAttributeParsersStandalone(t *testing.T) {
	w, err := ParseWindow("{size=2x3 stride=1x2}")
	if err != nil || len(w.Dims) != 2 || w.Dims[1] != (WindowDim{Size: 3, Stride: 2, WindowDilation: 1, BaseDilation: 1}) {
		t.Errorf("ParseWindow = %+v, %v", w, err)
	}
	if w, err := ParseWindow("size=5"); err != nil || len(w.Dims) != 1 || w.Dims[0].Size != 5 {
		t.Errorf("ParseWindow without braces = %+v, %v", w, err)
	}
	if _, err := ParseWindow("{size=2 stride=a}"); err == nil || !strings.Contains(err.Error(), `expected integer in window field stride, found "a"`) {
		t.Errorf("bad window: %v", err)
	}
	if _, err := ParseWindow("{stride=2}"); err == nil || !strings.Contains(err.Error(), "window has no size field") {
		t.Errorf("window without size: %v", err)
	}
	p, err := ParsePadding("1_2x-3_4_5")
	if err != nil || !reflect.DeepEqual(p, []PaddingDim{{1, 2, 0}, {-3, 4, 5}}) {
		t.Errorf("ParsePadding = %v, %v", p, err)
	}
	if _, err := ParsePadding("1_2_3_4"); err == nil {
		t.Errorf("ParsePadding accepted four parts")
	}
	if got := SliceString([]SliceDim{{1, 3, 1}, {0, 8, 1}}); got != "{[1:3], [0:8]}" {
		t.Errorf("SliceString = %s", got)
	}
	if got := (GatherDimensionNumbers{OffsetDims: []int{1}, CollapsedSliceDims: []int{0}, StartIndexMap: []int{0}, IndexVectorDim: 1}).String(); got != "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1" {
		t.Errorf("gather dims print %s", got)
	}
	if got := (ScatterDimensionNumbers{UpdateWindowDims: []int{1}, InsertedWindowDims: []int{0}, ScatterDimsToOperandDims: []int{0}, IndexVectorDim: 1, InputBatchingDims: []int{2}, ScatterIndicesBatchingDims: []int{0}}).String(); got != "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, input_batching_dims={2}, scatter_indices_batching_dims={0}, index_vector_dim=1" {
		t.Errorf("scatter dims print %s", got)
	}
	for _, name := range []string{"rng_default", "rng_three_fry", "rng_philox"} {
		if a, ok := ParseRandomAlgorithm(name); !ok || a.String() != name {
			t.Errorf("ParseRandomAlgorithm(%s) = %v, %v", name, a, ok)
		}
	}
	for _, name := range []string{"FFT", "IFFT", "RFFT", "IRFFT"} {
		if f, ok := ParseFFTType(name); !ok || f.String() != name {
			t.Errorf("ParseFFTType(%s) = %v, %v", name, f, ok)
		}
	}
	if _, ok := ParseTransposeKind("SIDEWAYS"); ok {
		t.Errorf("ParseTransposeKind accepted SIDEWAYS")
	}
}

package runtime_test

import (
	"context"
	"math"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
	"github.com/kilnml/kiln/runtime"
)

// Regression tests for bugs the differential test found, each reduced to
// the smallest module that showed it.

// runBoth compiles and runs the module text on args and returns the
// compiled outputs and ir/eval's.
func runBoth(t *testing.T, hlo string, args ...*ir.Literal) (got, want []*ir.Literal) {
	t.Helper()
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatal(err)
	}
	want, err = eval.Run(m, args...)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := runtime.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	ts := make([]*runtime.Tensor, len(args))
	for i, a := range args {
		ts[i] = runtime.TensorFromLiteral(a)
	}
	outs, err := exe.Run(context.Background(), ts...)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, exe.Stats())
	}
	for _, o := range outs {
		got = append(got, o.Literal())
	}
	return got, want
}

// An instruction run by the reference evaluator with the same value as two
// operands (compare(x, x)) must get it twice: the evaluator takes one
// literal per operand.
func TestRegressionRepeatedOperand(t *testing.T) {
	for _, hlo := range []string{
		`HloModule m
ENTRY e {
  p = s4[3] parameter(0)
  ROOT c = pred[3] compare(p, p), direction=LT
}`,
		`HloModule m
ENTRY e {
  p = s32[2,2] parameter(0)
  ROOT d = s32[2,2] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`,
		`HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] subtract(x, y)
}
ENTRY e {
  p = s32[4] parameter(0)
  ROOT m = s32[4] map(p, p), dimensions={0}, to_apply=add
}`,
		`HloModule m
less {
  a = s16[] parameter(0)
  b = s16[] parameter(1)
  c = s16[] parameter(2)
  d = s16[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=GT
}
ENTRY e {
  p = s16[5] parameter(0)
  ROOT s = (s16[5], s16[5]) sort(p, p), dimensions={0}, to_apply=less
}`,
		`HloModule m
ENTRY e {
  p = u8[3] parameter(0)
  n = u8[3] not(p)
  ROOT c = u8[6] concatenate(n, n), dimensions={0}
}`,
	} {
		m, err := ir.ParseModule(hlo)
		if err != nil {
			t.Fatal(err)
		}
		p := m.Entry.Parameters[0].Shape
		arg := ir.MustNewLiteral(p)
		for i := range arg.ElementCount() {
			arg.SetInt64At(i, int64(i+1))
		}
		got, want := runBoth(t, hlo, arg)
		for i := range want {
			if !got[i].Equal(want[i]) {
				t.Errorf("%s\ncompiled %v, ir/eval %v", hlo, got[i], want[i])
			}
		}
	}
}

// A dot with an empty contracting dimension is all zeros (plus its fused
// epilogue); the GEMM call must still get leading dimensions of at least 1.
func TestRegressionDotEmptyContraction(t *testing.T) {
	for _, hlo := range []string{
		`HloModule m
ENTRY e {
  a = f32[0] parameter(0)
  b = f32[0] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}`,
		`HloModule m
ENTRY e {
  a = f64[2,0] parameter(0)
  b = f64[0,3] parameter(1)
  ROOT d = f64[2,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`,
		`HloModule m
ENTRY e {
  a = f32[2,0] parameter(0)
  b = f32[3,0] parameter(1)
  bias = f32[3] parameter(2)
  d = f32[2,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  bb = f32[2,3] broadcast(bias), dimensions={1}
  ROOT r = f32[2,3] add(d, bb)
}`,
	} {
		m, err := ir.ParseModule(hlo)
		if err != nil {
			t.Fatal(err)
		}
		var args []*ir.Literal
		for _, p := range m.Entry.Parameters {
			a := ir.MustNewLiteral(p.Shape)
			for i := range a.ElementCount() {
				a.SetFloat64At(i, float64(i+1))
			}
			args = append(args, a)
		}
		got, want := runBoth(t, hlo, args...)
		for i := range want {
			if !got[i].Equal(want[i]) {
				t.Errorf("%s\ncompiled %v, ir/eval %v", hlo, got[i], want[i])
			}
		}
	}
}

// TOTALORDER compare puts −0 below +0 (and −NaN below −Inf): float32 keys
// once mapped −0 and +0 to the same integer.
func TestRegressionTotalOrderSignedZero(t *testing.T) {
	hlo := `HloModule m
ENTRY e {
  a = f32[6] parameter(0)
  b = f32[6] parameter(1)
  eq = pred[6] compare(a, b), direction=EQ, type=TOTALORDER
  lt = pred[6] compare(a, b), direction=LT, type=TOTALORDER
  ROOT t = (pred[6], pred[6]) tuple(eq, lt)
}`
	negZero := math.Copysign(0, -1)
	a := ir.MustLiteralFromSlice([]float32{float32(negZero), 0, float32(negZero), float32(math.Copysign(math.NaN(), -1)), -1e-45, 1})
	b := ir.MustLiteralFromSlice([]float32{0, float32(negZero), float32(negZero), float32(math.Inf(-1)), float32(negZero), 1})
	got, want := runBoth(t, hlo, a, b)
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("output %d: compiled %v, ir/eval %v", i, got[i], want[i])
		}
	}
	if want[0].String() != "pred[6] {false, false, true, false, false, true}" || want[1].String() != "pred[6] {true, false, false, true, true, false}" {
		t.Errorf("ir/eval: %v, %v", want[0], want[1])
	}
}

// A result declared with a non-default layout is returned with its logical
// dimensions and that layout (the plan writes its physical order); it was
// returned as a row-major array of the physical dimensions.
func TestRegressionResultLayout(t *testing.T) {
	m, err := ir.ParseModule(`HloModule m, entry_computation_layout={(s32[2,3]{1,0})->s32[2,3]{0,1}}
ENTRY e {
  p = s32[2,3]{1,0} parameter(0)
  ROOT c = s32[2,3]{0,1} copy(p)
}`)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := runtime.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	want := ir.MustLiteralFromSlice([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	if s := exe.ResultShapes()[0]; s.String() != "s32[2,3]{0,1}" {
		t.Errorf("result shape %v, want s32[2,3]{0,1}", s)
	}
	outs, err := exe.Run(context.Background(), runtime.TensorFromLiteral(want))
	if err != nil {
		t.Fatal(err)
	}
	if got := outs[0].Literal(); !got.Equal(want) {
		t.Errorf("compiled %v, want %v", got, want)
	}
	// Column-major bytes: 1, 4, 2, 5, 3, 6.
	if b := outs[0].Bytes(); b[4] != 4 || b[8] != 2 {
		t.Errorf("result bytes are not column-major: % x", b)
	}
}

// A GELU recognised into kiln.gelu with nothing to fuse it with is a loop
// kernel of its own: the scheduler found no indexing map for Kiln's op, made
// it a generic kernel, and Compile failed ("kiln.gelu has no implementation").
func TestRegressionGeluAlone(t *testing.T) {
	hlo := `HloModule m
ENTRY e {
  x = f32[2,3,4] parameter(0)
  half = f32[] constant(0.5)
  one = f32[] constant(1)
  r = f32[] constant(0.707106769)
  hb = f32[2,3,4] broadcast(half), dimensions={}
  ob = f32[2,3,4] broadcast(one), dimensions={}
  rb = f32[2,3,4] broadcast(r), dimensions={}
  s = f32[2,3,4] multiply(x, rb)
  e = f32[2,3,4] erf(s)
  p = f32[2,3,4] add(ob, e)
  hx = f32[2,3,4] multiply(hb, x)
  ROOT g = f32[2,3,4] multiply(hx, p)
}`
	x := ir.MustNewLiteral(ir.MakeShape(ir.F32, 2, 3, 4))
	for i := range x.ElementCount() {
		x.SetFloat64At(i, float64(i-12)/4)
	}
	got, want := runBoth(t, hlo, x)
	for i := range want[0].ElementCount() {
		if d := math.Abs(got[0].Float64At(i) - want[0].Float64At(i)); d > 1e-6 {
			t.Errorf("element %d: compiled %v, ir/eval %v", i, got[0].Float64At(i), want[0].Float64At(i))
		}
	}
}

// A fused loop op that reads one value twice (subtract(x, x), x·x) freed
// that value's register twice, so two later values shared a register and
// one overwrote the other: float64 (generic loop) and float32 (vector loop).
func TestRegressionLoopRegisterFreedTwice(t *testing.T) {
	for _, hlo := range []string{
		`HloModule m
ENTRY e {
  p = f64[1,3,4,1] parameter(0)
  bias = f64[1] parameter(1)
  q = f64[1,1,4,3] parameter(2)
  tq = f64[1,3,4,1] transpose(q), dimensions={0,3,2,1}
  s = f64[1,3,4,1] subtract(p, p)
  b = f64[1,3,4,1] broadcast(bias), dimensions={3}
  a = f64[1,3,4,1] add(s, b)
  ROOT r = f64[1,3,4,1] add(a, tq)
}`,
		`HloModule m
ENTRY e {
  p = f32[3,4] parameter(0)
  bias = f32[4] parameter(1)
  q = f32[4,3] parameter(2)
  tq = f32[3,4] transpose(q), dimensions={1,0}
  e = f32[3,4] exponential(tq)
  s = f32[3,4] multiply(e, e)
  b = f32[3,4] broadcast(bias), dimensions={1}
  n = f32[3,4] negate(b)
  a = f32[3,4] add(s, n)
  ROOT r = f32[3,4] add(a, tq)
}`,
	} {
		m, err := ir.ParseModule(hlo)
		if err != nil {
			t.Fatal(err)
		}
		var args []*ir.Literal
		for _, p := range m.Entry.Parameters {
			a := ir.MustNewLiteral(p.Shape)
			for i := range a.ElementCount() {
				a.SetFloat64At(i, float64(i+1)/8+float64(len(args)))
			}
			args = append(args, a)
		}
		got, want := runBoth(t, hlo, args...)
		if !got[0].Equal(want[0]) {
			t.Errorf("%s\ncompiled %v\nir/eval  %v", hlo, got[0], want[0])
		}
	}
}

// A slice of a slice that is empty in a dimension, starting at the end of
// the inner slice, was composed into one slice starting past the operand's
// end, which the simplifier then failed to build (Compile failed).
func TestRegressionEmptySliceOfSlice(t *testing.T) {
	hlo := `HloModule m
ENTRY e {
  p = s32[13,4] parameter(0)
  a = s32[5,4] slice(p), slice={[0:13:3], [0:4]}
  ROOT b = s32[0,2] slice(a), slice={[5:5], [1:3]}
}`
	got, want := runBoth(t, hlo, ir.MustNewLiteral(ir.MakeShape(ir.S32, 13, 4)))
	if !got[0].Equal(want[0]) {
		t.Errorf("compiled %v, ir/eval %v", got[0], want[0])
	}
}

// F8E4M3FN has no infinities: +Inf converts to its NaN, and the simplifier
// took a NaN bound for +Inf, dropping minimum(x, NaN) (whose result is NaN).
func TestRegressionMinimumWithNaNF8E4M3FN(t *testing.T) {
	hlo := `HloModule m
ENTRY e {
  x = f8e4m3fn[3] parameter(0)
  nan = f8e4m3fn[] constant(nan)
  b = f8e4m3fn[3] broadcast(nan), dimensions={}
  ROOT m = f8e4m3fn[3] minimum(x, b)
}`
	x := ir.MustNewLiteral(ir.MakeShape(ir.F8E4M3FN, 3))
	for i := range 3 {
		x.SetFloat64At(i, float64(i)-1)
	}
	got, want := runBoth(t, hlo, x)
	for i := range 3 {
		if g, w := got[0].Float64At(i), want[0].Float64At(i); math.IsNaN(g) != math.IsNaN(w) {
			t.Errorf("element %d: compiled %v, ir/eval %v", i, g, w)
		}
	}
}

// A float32 NHWC convolution with no input channels is all zeros; the
// im2col step passed the GEMM a leading dimension of 0 and it panicked.
func TestRegressionConvNoInputChannels(t *testing.T) {
	hlo := `HloModule m
ENTRY e {
  x = f32[1,6,2,0] parameter(0)
  w = f32[1,2,0,17] parameter(1)
  ROOT y = f32[1,6,1,17] convolution(x, w), window={size=1x2}, dim_labels=b01f_01io->b01f
}`
	got, want := runBoth(t, hlo, ir.MustNewLiteral(ir.MakeShape(ir.F32, 1, 6, 2, 0)), ir.MustNewLiteral(ir.MakeShape(ir.F32, 1, 2, 0, 17)))
	if !got[0].Equal(want[0]) {
		t.Errorf("compiled %v, ir/eval %v", got[0], want[0])
	}
}

// In a fused float32 loop, select's result took the register of the mask
// it read (freed at its last use) and wrote its floats over mask bytes it
// had not read yet.
func TestRegressionSelectOverItsMask(t *testing.T) {
	hlo := `HloModule m
ENTRY e {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  c = pred[8] compare(p1, p0), direction=GT
  s = f32[8] select(c, p1, p0)
  ROOT m = f32[8] multiply(s, s)
}`
	var args []*ir.Literal
	for j := range 2 {
		a := ir.MustNewLiteral(ir.MakeShape(ir.F32, 8))
		for i := range 8 {
			a.SetFloat64At(i, float64((i*7+j*3)%11)/10-0.5)
		}
		args = append(args, a)
	}
	got, want := runBoth(t, hlo, args...)
	if !got[0].Equal(want[0]) {
		t.Errorf("compiled %v, ir/eval %v", got[0], want[0])
	}
}

// A convolution whose weights are known only at run time, with a GELU
// fused into its epilogue, had no implementation (the im2col path applied
// ReLU only) and Compile failed.
func TestRegressionConvGeluEpilogue(t *testing.T) {
	hlo := `HloModule m
ENTRY e {
  x = f32[1,4,4,2] parameter(0)
  w = f32[2,2,2,3] parameter(1)
  b = f32[3] parameter(2)
  y = f32[1,3,3,3] convolution(x, w), window={size=2x2}, dim_labels=b01f_01io->b01f
  bb = f32[1,3,3,3] broadcast(b), dimensions={3}
  z = f32[1,3,3,3] add(y, bb)
  half = f32[] constant(0.5)
  one = f32[] constant(1)
  r = f32[] constant(0.707106769)
  hb = f32[1,3,3,3] broadcast(half), dimensions={}
  ob = f32[1,3,3,3] broadcast(one), dimensions={}
  rb = f32[1,3,3,3] broadcast(r), dimensions={}
  s = f32[1,3,3,3] multiply(z, rb)
  e = f32[1,3,3,3] erf(s)
  h = f32[1,3,3,3] multiply(hb, z)
  p = f32[1,3,3,3] add(ob, e)
  ROOT g = f32[1,3,3,3] multiply(h, p)
}`
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatal(err)
	}
	var args []*ir.Literal
	for _, p := range m.Entry.Parameters {
		a := ir.MustNewLiteral(p.Shape)
		for i := range a.ElementCount() {
			a.SetFloat64At(i, float64((i*5)%7)/7-0.4)
		}
		args = append(args, a)
	}
	got, want := runBoth(t, hlo, args...)
	for i := range want[0].ElementCount() {
		if d := math.Abs(got[0].Float64At(i) - want[0].Float64At(i)); d > 1e-5 {
			t.Errorf("element %d: compiled %v, ir/eval %v", i, got[0].Float64At(i), want[0].Float64At(i))
		}
	}
}

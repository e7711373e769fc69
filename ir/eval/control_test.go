package eval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// parseHLO parses an HLO module, failing the test on error.
func parseHLO(t *testing.T, text string) *ir.Module {
	t.Helper()
	m, err := ir.ParseModule(text)
	if err != nil {
		t.Fatalf("ParseModule: %v", err)
	}
	return m
}

// runHLO parses and evaluates a module.
func runHLO(t *testing.T, text string, args ...*ir.Literal) []*ir.Literal {
	t.Helper()
	out, err := Run(parseHLO(t, text), args...)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out
}

const whileSumHLO = `HloModule sum_loop

cond {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  acc = f32[3] get-tuple-element(p), index=1
  c = f32[3] constant({1, 2, 3})
  sum = f32[3] add(acc, c)
  ROOT t = (s32[], f32[3]) tuple(next, sum)
}

ENTRY main {
  z = s32[] constant(0)
  init = f32[3] parameter(0)
  t = (s32[], f32[3]) tuple(z, init)
  w = (s32[], f32[3]) while(t), condition=cond, body=body
  ROOT r = f32[3] get-tuple-element(w), index=1
}
`

func TestWhileAccumulates(t *testing.T) {
	out := runHLO(t, whileSumHLO, vec[float32](0.5, 0, -1))
	wantValues(t, out[0], dims(3), float32(10.5), 20, 29)
}

func TestWhileIterationLimitAndContext(t *testing.T) {
	m := parseHLO(t, whileSumHLO)
	_, err := RunWithOptions(m, Options{MaxWhileIterations: 9}, vec[float32](0, 0, 0))
	if err == nil || !strings.Contains(err.Error(), "9 iterations") {
		t.Fatalf("limit 9 for a 10-iteration loop: got %v, want an error naming the limit", err)
	}
	if _, err := RunWithOptions(m, Options{MaxWhileIterations: 10}, vec[float32](0, 0, 0)); err != nil {
		t.Fatalf("limit 10 for a 10-iteration loop: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = RunWithOptions(m, Options{Context: ctx}, vec[float32](0, 0, 0))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: got %v, want context.Canceled", err)
	}
}

func TestInfiniteWhileStopsAtLimit(t *testing.T) {
	const hlo = `HloModule forever
cond {
  p = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(p, one)
}
ENTRY main {
  p = s32[] parameter(0)
  ROOT w = s32[] while(p), condition=cond, body=body
}
`
	_, err := RunWithOptions(parseHLO(t, hlo), Options{MaxWhileIterations: 1000}, scalar[int32](0))
	if err == nil || !strings.Contains(err.Error(), "MaxWhileIterations") {
		t.Fatalf("got %v, want the while limit error", err)
	}
}

func TestConditionalPredAndIndexForms(t *testing.T) {
	const text = `HloModule jit_cond

true_branch {
  p.1 = f32[2]{0} parameter(0)
  ROOT negate.2 = f32[2]{0} negate(p.1)
}

false_branch {
  ROOT p.3 = f32[2]{0} parameter(0)
}

branch_0 {
  p.4 = f32[2]{0} parameter(0)
  ROOT exponential.5 = f32[2]{0} exponential(p.4)
}

branch_1 {
  p.6 = f32[2]{0} parameter(0)
  ROOT log.7 = f32[2]{0} log(p.6)
}

branch_2 {
  p.8 = f32[2]{0} parameter(0)
  ROOT tanh.9 = f32[2]{0} tanh(p.8)
}

ENTRY main.20 {
  Arg_0.1 = pred[] parameter(0)
  Arg_2.3 = f32[2]{0} parameter(2)
  conditional.10 = f32[2]{0} conditional(Arg_0.1, Arg_2.3, Arg_2.3), true_computation=true_branch, false_computation=false_branch
  Arg_1.2 = s32[] parameter(1)
  constant.11 = s32[] constant(0)
  constant.12 = s32[] constant(2)
  clamp.13 = s32[] clamp(constant.11, Arg_1.2, constant.12)
  ROOT conditional.14 = f32[2]{0} conditional(clamp.13, conditional.10, conditional.10, Arg_2.3), branch_computations={branch_0, branch_1, branch_2}
}
`
	x := vec[float32](1, 2)
	for _, c := range []struct {
		pred  bool
		index int32
		f     func(float64) float64
	}{
		// pred picks negate or identity; the index (clamped to [0,2] by the
		// module itself) picks exp, log or tanh.
		{true, 0, func(v float64) float64 { return math.Exp(-v) }},
		{false, 1, math.Log},
		{false, 7, math.Tanh},
		{true, -3, func(v float64) float64 { return math.Exp(-v) }},
	} {
		out := runHLO(t, text, scalar(c.pred), scalar(c.index), x)
		got := ir.Values[float32](out[0])
		for i, v := range []float64{1, 2} {
			if want := float32(c.f(v)); got[i] != want {
				t.Errorf("pred=%v index=%d: element %d = %g, want %g", c.pred, c.index, i, got[i], want)
			}
		}
	}
}

func TestConditionalOutOfRangeIndexRunsLastBranch(t *testing.T) {
	const hlo = `HloModule idx
b0 {
  p = s32[] parameter(0)
  ROOT c = s32[] constant(100)
}
b1 {
  p = s32[] parameter(0)
  ROOT c = s32[] constant(101)
}
b2 {
  ROOT p = s32[] parameter(0)
}
ENTRY main {
  i = s32[] parameter(0)
  x = s32[] parameter(1)
  ROOT r = s32[] conditional(i, x, x, x), branch_computations={b0, b1, b2}
}
`
	m := parseHLO(t, hlo)
	for _, c := range []struct{ i, want int32 }{{0, 100}, {1, 101}, {2, 7}, {3, 7}, {-1, 7}, {math.MaxInt32, 7}} {
		out, err := Run(m, scalar(c.i), scalar[int32](7))
		if err != nil {
			t.Fatal(err)
		}
		wantValues(t, out[0], nil, c.want)
	}
}

func TestCallFusionMapOptBarrier(t *testing.T) {
	const hlo = `HloModule calls
square {
  x = f32[] parameter(0)
  ROOT m = f32[] multiply(x, x)
}
axpy {
  a = f32[] parameter(0)
  x = f32[] parameter(1)
  y = f32[] parameter(2)
  ax = f32[] multiply(a, x)
  ROOT r = f32[] add(ax, y)
}
fused {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  s = f32[4] subtract(p0, p1)
  ROOT e = f32[4] exponential(s)
}
twice {
  p = f32[4] parameter(0)
  ROOT d = f32[4] add(p, p)
}
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  sq = f32[4] map(x), dimensions={0}, to_apply=square
  two = f32[] constant(2)
  a = f32[4] broadcast(two), dimensions={}
  ax = f32[4] map(a, x, y), dimensions={0}, to_apply=axpy
  f = f32[4] fusion(x, y), kind=kLoop, calls=fused
  c = f32[4] call(x), to_apply=twice
  t = (f32[4], f32[4], f32[4], f32[4]) tuple(sq, ax, f, c)
  ROOT b = (f32[4], f32[4], f32[4], f32[4]) opt-barrier(t)
}
`
	x := vec[float32](1, 2, 3, -4)
	y := vec[float32](0.5, 0, 1, 2)
	out := runHLO(t, hlo, x, y)
	if len(out) != 4 {
		t.Fatalf("%d outputs, want 4", len(out))
	}
	wantValues(t, out[0], dims(4), float32(1), 4, 9, 16)
	wantValues(t, out[1], dims(4), float32(2.5), 4, 7, -6)
	wantValues(t, out[2], dims(4), float32(math.Exp(0.5)), float32(math.Exp(2)), float32(math.Exp(2)), float32(math.Exp(-6)))
	wantValues(t, out[3], dims(4), float32(2), 4, 6, -8)
}

func TestMapVectorisedWithConstantsAndSelect(t *testing.T) {
	// select between an array value and a constant: the constant operand is
	// spread over the map's dimensions.
	const hlo = `HloModule mapselect
f {
  x = f32[] parameter(0)
  z = f32[] constant(0)
  neg = pred[] compare(x, z), direction=LT
  k = f32[] constant(-1)
  ROOT s = f32[] select(neg, k, x)
}
g {
  x = s32[] parameter(0)
  ROOT c = s32[] constant(7)
}
ENTRY main {
  x = f32[4] parameter(0)
  y = s32[2,2] parameter(1)
  a = f32[4] map(x), dimensions={0}, to_apply=f
  b = s32[2,2] map(y), dimensions={0,1}, to_apply=g
  ROOT t = (f32[4], s32[2,2]) tuple(a, b)
}
`
	out := runHLO(t, hlo, vec[float32](-3, 2, -0.5, 4), lit(dims(2, 2), int32(1), 2, 3, 4))
	wantValues(t, out[0], dims(4), float32(-1), 2, -1, 4)
	wantValues(t, out[1], dims(2, 2), int32(7), 7, 7, 7)
}

func TestMapWithNonElementwiseComputationRunsPerElement(t *testing.T) {
	// The mapped computation calls another computation, so it cannot be
	// vectorised; the per-element path must give the same answer.
	const hlo = `HloModule mapcall
inner {
  x = s32[] parameter(0)
  ROOT n = s32[] negate(x)
}
outer {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  c = s32[] call(x), to_apply=inner
  ROOT m = s32[] maximum(c, y)
}
ENTRY main {
  x = s32[5] parameter(0)
  y = s32[5] parameter(1)
  ROOT m = s32[5] map(x, y), dimensions={0}, to_apply=outer
}
`
	out := runHLO(t, hlo, vec[int32](1, -2, 3, -4, 5), vec[int32](0, 0, -10, 10, 0))
	wantValues(t, out[0], dims(5), int32(0), 2, -3, 10, 0)
}

func TestRunArgumentErrors(t *testing.T) {
	m := parseHLO(t, whileSumHLO)
	if _, err := Run(m); err == nil || !strings.Contains(err.Error(), "1 arguments, got 0") {
		t.Errorf("no arguments: got %v", err)
	}
	if _, err := Run(m, vec[float32](1, 2)); err == nil || !strings.Contains(err.Error(), "f32[2]") {
		t.Errorf("wrong shape: got %v", err)
	}
	if _, err := Run(m, vec[int32](1, 2, 3)); err == nil || !strings.Contains(err.Error(), "s32[3]") {
		t.Errorf("wrong type: got %v", err)
	}
}

func TestHugeShapeRefusedBeforeAllocating(t *testing.T) {
	const hlo = `HloModule huge
ENTRY main {
  p = f32[] parameter(0)
  ROOT b = f32[100000,100000,100000] broadcast(p), dimensions={}
}
`
	_, err := Run(parseHLO(t, hlo), scalar[float32](1))
	if err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("got %v, want a size refusal", err)
	}
}

func TestUnsupportedOpIsNamed(t *testing.T) {
	const hlo = `HloModule unsupported
ENTRY main {
  p = f32[4] parameter(0)
  s = f32[4] parameter(1)
  ROOT r = f32[4] stochastic-convert(p, s)
}
`
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Skipf("parser does not accept the op: %v", err)
	}
	_, err = Run(m, vec[float32](1, 2, 3, 4), vec[float32](1, 2, 3, 4))
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "stochastic-convert") {
		t.Fatalf("got %v, want an UnsupportedError naming stochastic-convert", err)
	}
}

// largeHLO chains the common op families over 4M-element arrays; the test
// keeps it in the suite so that the evaluator's cost at "a few million
// elements" stays visible (go test -v prints the time).
const largeHLO = `HloModule large
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
relu {
  x = f32[] parameter(0)
  z = f32[] constant(0)
  ROOT m = f32[] maximum(x, z)
}
ENTRY main {
  x = f32[2048,2048] parameter(0)
  i = s32[1024,1] parameter(1)
  e = f32[2048,2048] exponential(x)
  m = f32[2048,2048] multiply(e, x)
  c = pred[2048,2048] compare(m, x), direction=GT
  s = f32[2048,2048] select(c, m, x)
  t = f32[2048,2048] transpose(s), dimensions={1,0}
  r = f32[2048,2048] map(t), dimensions={0,1}, to_apply=relu
  h = f16[2048,2048] convert(r)
  g = f16[1024,2048] gather(h, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,2048}
  g32 = f32[1024,2048] convert(g)
  ROOT sc = f32[2048,2048] scatter(x, i, g32), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
`

func TestLargeArraysFinishQuickly(t *testing.T) {
	m := parseHLO(t, largeHLO)
	x := ir.MustNewLiteral(ir.MakeShape(ir.F32, 2048, 2048))
	xs := ir.Values[float32](x)
	for k := range xs {
		xs[k] = float32(k%13) - 6
	}
	idx := ir.MustNewLiteral(ir.MakeShape(ir.S32, 1024, 1))
	is := ir.Values[int32](idx)
	for k := range is {
		is[k] = int32((k * 7) % 2048)
	}
	out, err := Run(m, x, idx)
	if err != nil {
		t.Fatal(err)
	}
	// Spot-check one scattered row against the same computation done here.
	got := ir.Values[float32](out[0])
	row := int(is[1]) // 7; row 7 receives only update 1 (indices are distinct)
	for col := 0; col < 2048; col += 511 {
		// relu(select(e*x > x, e*x, x)) read transposed at (col, row) of s = s[row][col]… then
		// transposed back by the gather of row `row` of t = s^T: t[row][col] = s[col][row].
		v := xs[col*2048+row]
		ev := float32(math.Exp(float64(v))) * v
		if !(ev > v) {
			ev = v
		}
		ev = max(ev, 0)
		want := xs[row*2048+col] + ir.Float16FromFloat32(ev).Float32()
		if got[row*2048+col] != want {
			t.Fatalf("out[%d,%d] = %g, want %g", row, col, got[row*2048+col], want)
		}
	}
}

func TestWhileSeedExample(t *testing.T) {
	// The seed's loop: init = {0, zero_vector[10]}; while result(0) < 1000,
	// add 1 to the counter and a constant vector to the accumulator.
	const hlo = `HloModule seed_while
cond {
  p = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  iteration = s32[] add(i, one)
  v = f32[10] get-tuple-element(p), index=1
  k = f32[10] constant({0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5})
  new_vector = f32[10] add(v, k)
  ROOT r = (s32[], f32[10]) tuple(iteration, new_vector)
}
ENTRY main {
  zero = s32[] constant(0)
  z = f32[] constant(0)
  zv = f32[10] broadcast(z), dimensions={}
  init = (s32[], f32[10]) tuple(zero, zv)
  ROOT w = (s32[], f32[10]) while(init), condition=cond, body=body
}
`
	out := runHLO(t, hlo)
	wantValues(t, out[0], nil, int32(1000))
	wantValues(t, out[1], dims(10), float32(0), 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500)
}

// scalarProgramModules exercise every branch of the scalar program compiler
// through map and scatter, for comparison with the general path.
var scalarProgramModules = []string{`HloModule m_f16
f {
  x = f16[] parameter(0)
  y = f16[] parameter(1)
  s = f16[] add(x, y)
  e = f16[] exponential(s)
  c = pred[] compare(e, y), direction=GT, type=TOTALORDER
  m = f16[] maximum(e, x)
  r = f16[] select(c, m, y)
  k = f16[] constant(0.1)
  ROOT cl = f16[] clamp(k, r, s)
}
ENTRY main {
  x = f16[64] parameter(0)
  y = f16[64] parameter(1)
  ROOT r = f16[64] map(x, y), dimensions={0}, to_apply=f
}
`, `HloModule m_int
f {
  x = s8[] parameter(0)
  y = u4[] parameter(1)
  cy = s8[] convert(y)
  d = s8[] divide(x, cy)
  r = s8[] remainder(x, cy)
  sh = s8[] shift-right-arithmetic(d, cy)
  p = s8[] power(r, cy)
  n = s8[] negate(p)
  a = s8[] add(sh, n)
  ps = s8[] popcnt(a)
  lt = pred[] compare(a, x), direction=LT
  nl = pred[] not(lt)
  cf = bf16[] convert(a)
  h = bf16[] multiply(cf, cf)
  hb = s8[] convert(h)
  ROOT s = s8[] select(nl, ps, hb)
}
ENTRY main {
  x = s8[64] parameter(0)
  y = u4[64] parameter(1)
  ROOT r = s8[64] map(x, y), dimensions={0}, to_apply=f
}
`, `HloModule m_complex
f {
  x = c64[] parameter(0)
  y = f32[] parameter(1)
  z = f32[] constant(0)
  cy = c64[] complex(y, z)
  m = c64[] multiply(x, cy)
  q = c64[] sqrt(m)
  a = f32[] abs(q)
  l = c64[] log(x)
  re = f32[] real(l)
  s = f32[] add(a, re)
  fin = pred[] is-finite(s)
  k = f32[] constant(-7)
  ROOT r = f32[] select(fin, s, k)
}
ENTRY main {
  x = c64[64] parameter(0)
  y = f32[64] parameter(1)
  ROOT r = f32[64] map(x, y), dimensions={0}, to_apply=f
}
`, `HloModule s_variadic
f {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  u0 = f32[] parameter(2)
  u1 = s32[] parameter(3)
  gt = pred[] compare(u0, a0), direction=GT
  v0 = f32[] select(gt, u0, a0)
  v1 = s32[] select(gt, u1, a1)
  ROOT t = (f32[], s32[]) tuple(v0, v1)
}
ENTRY main {
  x = f32[8] parameter(0)
  xi = s32[8] parameter(1)
  i = s32[64,1] parameter(2)
  u = f32[64] parameter(3)
  ui = s32[64] parameter(4)
  ROOT r = (f32[8], s32[8]) scatter(x, xi, i, u, ui), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=f
}
`}

func TestScalarProgramsMatchGeneralPath(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, text := range scalarProgramModules {
		m := parseHLO(t, text)
		args := make([]*ir.Literal, len(m.Entry.Parameters))
		for k, p := range m.Entry.Parameters {
			args[k] = randomLiteral(r, p.Shape.Elem, p.Shape.Dims)
			if p.Shape.Elem == ir.S32 && len(p.Shape.Dims) == 2 { // scatter indices, some out of range
				for j := range ir.Values[int32](args[k]) {
					ir.Values[int32](args[k])[j] = int32(r.IntN(10)) - 1
				}
			}
		}
		if c := m.Entry.Root.ToApply; !compiles(c) {
			t.Fatalf("%s: not compiled to a scalar program", m.Name)
		}
		fast, err := Run(m, args...)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		compilePrograms = false
		general, err := Run(m, args...)
		compilePrograms = true
		if err != nil {
			t.Fatalf("%s (general path): %v", m.Name, err)
		}
		for k := range fast {
			if !fast[k].Equal(general[k]) {
				t.Errorf("%s output %d: scalar program %v\ngeneral path %v", m.Name, k, fast[k], general[k])
			}
		}
	}
}

// BenchmarkScatterOneMillionUpdates measures scatter with an update
// computation that is not a single op (x*2 + u), run as a scalar program.
func BenchmarkScatterOneMillionUpdates(b *testing.B) {
	const hlo = `HloModule s
f {
  a = f32[] parameter(0)
  u = f32[] parameter(1)
  two = f32[] constant(2)
  m = f32[] multiply(a, two)
  ROOT s = f32[] add(m, u)
}
ENTRY main {
  x = f32[1000] parameter(0)
  i = s32[1000000,1] parameter(1)
  u = f32[1000000] parameter(2)
  ROOT r = f32[1000] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=f
}
`
	m, err := ir.ParseModule(hlo)
	if err != nil {
		b.Fatal(err)
	}
	x := ir.MustNewLiteral(ir.MakeShape(ir.F32, 1000))
	idx := ir.MustNewLiteral(ir.MakeShape(ir.S32, 1000000, 1))
	for k := range ir.Values[int32](idx) {
		ir.Values[int32](idx)[k] = int32(k % 1000)
	}
	u := ir.MustNewLiteral(ir.MakeShape(ir.F32, 1000000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(m, x, idx, u); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ns/update")
}

// compiles reports whether c compiles to an ir/ops program.
func compiles(c *ir.Computation) bool {
	_, err := ops.CompileFunc(opsComputation(c))
	return err == nil
}

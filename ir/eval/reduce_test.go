package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// seedReduceOperand is the seed's 3-D example: dimension 0 of size 4, 1 of
// size 2, 2 of size 3, the values 1..6 repeated along dimension 0.
func seedReduceOperand() *ir.Literal {
	var v []float32
	for i := 0; i < 4; i++ {
		v = append(v, 1, 2, 3, 4, 5, 6)
	}
	return lit([]int{4, 2, 3}, v...)
}

func reduceModule(shape, out, dims string) string {
	return fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = %s parameter(0)
  z = f32[] constant(0)
  ROOT r = %s reduce(x, z), dimensions={%s}, to_apply=add
}
`, scalarComputation("add", "add", ir.F32), shape, out, dims)
}

func TestReduceSeedExamples(t *testing.T) {
	x := seedReduceOperand()
	for _, c := range []struct {
		dims, shape string
		want        []float64
	}{
		{"0", "f32[2,3]", []float64{4, 8, 12, 16, 20, 24}},
		{"2", "f32[4,2]", []float64{6, 15, 6, 15, 6, 15, 6, 15}},
		{"0,1", "f32[3]", []float64{20, 28, 36}},
		{"0,1,2", "f32[]", []float64{84}},
		{"", "f32[4,2,3]", []float64{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}},
	} {
		out := runHLO(t, reduceModule("f32[4,2,3]", c.shape, c.dims), x)
		expectClose(t, out[0], c.shape, reals(c.want...), 0)
	}
	// The seed's 2-D example: reducing dimension 0 or 1 of a 2×3 array.
	m := lit([]int{2, 3}, float32(1), 2, 3, 4, 5, 6)
	out := runHLO(t, reduceModule("f32[2,3]", "f32[3]", "0"), m)
	expectClose(t, out[0], "f32[3]", reals(5, 7, 9), 0)
	out = runHLO(t, reduceModule("f32[2,3]", "f32[2]", "1"), m)
	expectClose(t, out[0], "f32[2]", reals(6, 15), 0)
}

// TestReduceVariadicArgmaxSeedExample runs the seed's (max, argmax)
// reducer: f(max, argmax, value, index) = value >= max ? (value, index) :
// (max, argmax), applied in order, so the last maximum's index wins.
func TestReduceVariadicArgmaxSeedExample(t *testing.T) {
	out := runHLO(t, `HloModule m
argmax {
  m = f32[] parameter(0)
  am = s32[] parameter(1)
  v = f32[] parameter(2)
  i = s32[] parameter(3)
  ge = pred[] compare(v, m), direction=GE
  nm = f32[] select(ge, v, m)
  ni = s32[] select(ge, i, am)
  ROOT t = (f32[], s32[]) tuple(nm, ni)
}
ENTRY e {
  v = f32[2,5] parameter(0)
  k = s32[2,5] iota(), iota_dimension=1
  mi = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[2], s32[2]) reduce(v, k, mi, z), dimensions={1}, to_apply=argmax
}
`, lit([]int{2, 5}, float32(3), 9, 1, 9, 2, -1, -5, -2, -7, -3))
	expectClose(t, out[0], "f32[2]", reals(9, -1), 0)
	expectClose(t, out[1], "s32[2]", reals(3, 0), 0)
}

// specialFloats salts a float literal with NaN, ±0 and ±Inf.
func specialFloats(r *rand.Rand, l *ir.Literal) {
	v := floatValues(l)
	specials := []float64{math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1)}
	for i := range v {
		if r.IntN(6) == 0 {
			v[i] = specials[r.IntN(len(specials))]
		}
	}
	setFloats(l, v)
}

// TestStandardReducersMatchGeneralPath checks that the typed fast path of
// reduce, reduce-window and all-reduce gives the same bits as calling the
// computation per element (forced by routing the parameters through copy,
// which the fast path does not recognise).
func TestStandardReducersMatchGeneralPath(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ops := map[ir.ElementType][]string{
		ir.F32: {"add", "multiply", "maximum", "minimum"}, ir.F16: {"add", "maximum", "multiply"},
		ir.BF16: {"add", "minimum"}, ir.F64: {"add", "maximum"}, ir.F8E5M2: {"add"},
		ir.C64: {"add", "multiply"}, ir.C128: {"add"},
		ir.S8: {"add", "multiply", "maximum", "and", "or"}, ir.U32: {"add", "minimum", "or"},
		ir.S64: {"multiply", "maximum"}, ir.U64: {"maximum", "add"}, ir.S4: {"add"},
		ir.PRED: {"and", "or"},
	}
	for ty, names := range ops {
		for _, op := range names {
			for _, swapped := range []bool{false, true} {
				x := randLiteral(r, ty, 6, 7, 5)
				if ty.IsFloat() {
					specialFloats(r, x)
				}
				init := scalarLiteralAt(randLiteral(r, ty, 1), 0)
				a, b := "a", "b"
				if swapped {
					a, b = "b", "a"
				}
				fast := fmt.Sprintf(`fast {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT r = %[1]s[] %[2]s(%[3]s, %[4]s)
}
slow {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ca = %[1]s[] copy(a)
  cb = %[1]s[] copy(b)
  ROOT r = %[1]s[] %[2]s(c%[3]s, c%[4]s)
}
`, ty, op, a, b)
				text := fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = %s parameter(0)
  i = %s[] parameter(1)
  r1 = %s reduce(x, i), dimensions={0,2}, to_apply=fast
  r2 = %s reduce(x, i), dimensions={0,2}, to_apply=slow
  w1 = %s reduce-window(x, i), window={size=2x3x1 stride=1x2x1 pad=1_0x0_1x0_0 lhs_dilate=1x2x1}, to_apply=fast
  w2 = %s reduce-window(x, i), window={size=2x3x1 stride=1x2x1 pad=1_0x0_1x0_0 lhs_dilate=1x2x1}, to_apply=slow
  ROOT t = (%s, %s, %s, %s) tuple(r1, r2, w1, w2)
}
`, fast, shapeText(ty, 6, 7, 5), ty, shapeText(ty, 7), shapeText(ty, 7), shapeText(ty, 6, 6, 5), shapeText(ty, 6, 6, 5),
					shapeText(ty, 7), shapeText(ty, 7), shapeText(ty, 6, 6, 5), shapeText(ty, 6, 6, 5))
				t.Run(fmt.Sprintf("%v/%s/swapped=%v", ty, op, swapped), func(t *testing.T) {
					out := runHLO(t, text, x, init)
					if !out[0].Equal(out[1]) {
						t.Errorf("reduce: fast %v\nslow %v", wideOf(out[0]), wideOf(out[1]))
					}
					if !out[2].Equal(out[3]) {
						t.Errorf("reduce-window: fast and general paths differ")
					}
				})
			}
		}
	}
}

// TestReduceMillionsOfElements sums 2^22 ones through the fast path (exact
// in F32) and the maximum of 3 million integers.
func TestReduceMillionsOfElements(t *testing.T) {
	n := 1 << 22
	ones := ir.MustNewLiteral(ir.MakeShape(ir.F32, 1024, n/1024))
	for i, v := 0, ones.Float32s(); i < len(v); i++ {
		v[i] = 1
	}
	out := runHLO(t, reduceModule(shapeText(ir.F32, 1024, n/1024), "f32[]", "0,1"), ones)
	expectClose(t, out[0], "f32[]", reals(float64(n)), 0)
	m := 3000000
	xs := ir.MustNewLiteral(ir.MakeShape(ir.S32, m))
	for i, v := 0, xs.Int32s(); i < len(v); i++ {
		v[i] = int32((i * 7919) % 1000003)
	}
	out = runHLO(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = s32[%d] parameter(0)
  z = s32[] constant(-2147483648)
  ROOT r = s32[] reduce(x, z), dimensions={0}, to_apply=mx
}
`, scalarComputation("mx", "maximum", ir.S32), m), xs)
	expectClose(t, out[0], "s32[]", reals(1000002), 0)
}

func TestReduceWindowSeedExamples(t *testing.T) {
	// The seed's min over windows of 3 with stride 2 of {10000, 1000, 100,
	// 10, 1}: VALID gives {100, 1}; SAME pads one element each side and
	// gives {1000, 10, 1}.
	x := vec[float32](10000, 1000, 100, 10, 1)
	run := func(pad, out string) *ir.Literal {
		return runHLO(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = f32[5] parameter(0)
  i = f32[] constant(inf)
  ROOT r = %s reduce-window(x, i), window={size=3 stride=2 pad=%s}, to_apply=mn
}
`, scalarComputation("mn", "minimum", ir.F32), out, pad), x)[0]
	}
	expectClose(t, run("0_0", "f32[2]"), "f32[2]", reals(100, 1), 0)
	expectClose(t, run("1_1", "f32[3]"), "f32[3]", reals(1000, 10, 1), 0)
	// The seed's 4×6 max over 2×3 windows with stride 2×3.
	m := lit([]int{4, 6}, float32(7), 2, 5, 3, 10, 2, 3, 8, 9, 3, 4, 2, 1, 5, 7, 5, 6, 3, 0, 6, 2, 10, 2, 4)
	out := runHLO(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = f32[4,6] parameter(0)
  i = f32[] constant(-3.40282347e+38)
  ROOT r = f32[2,2] reduce-window(x, i), window={size=2x3 stride=2x3}, to_apply=mx
}
`, scalarComputation("mx", "maximum", ir.F32)), m)
	expectClose(t, out[0], "f32[2,2]", reals(9, 10, 7, 10), 0)
}

func TestReduceWindowVariadicAndNonIdentityInit(t *testing.T) {
	// Padding contributes nothing (not the init value): with init 100 and
	// add, each window sums its real elements plus 100 once.
	out := runHLO(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = s32[4] parameter(0)
  i = s32[] constant(100)
  ROOT r = s32[5] reduce-window(x, i), window={size=2 pad=1_1}, to_apply=add
}
`, scalarComputation("add", "add", ir.S32)), vec[int32](1, 2, 3, 4))
	expectClose(t, out[0], "s32[5]", reals(101, 103, 105, 107, 104), 0)
	// Variadic: running (min, index of min) over windows of 2.
	out = runHLO(t, `HloModule m
argmin {
  m = f32[] parameter(0)
  am = s32[] parameter(1)
  v = f32[] parameter(2)
  i = s32[] parameter(3)
  lt = pred[] compare(v, m), direction=LT
  nm = f32[] select(lt, v, m)
  ni = s32[] select(lt, i, am)
  ROOT t = (f32[], s32[]) tuple(nm, ni)
}
ENTRY e {
  v = f32[5] parameter(0)
  k = s32[5] iota(), iota_dimension=0
  mi = f32[] constant(inf)
  z = s32[] constant(-1)
  ROOT r = (f32[4], s32[4]) reduce-window(v, k, mi, z), window={size=2}, to_apply=argmin
}
`, vec[float32](4, 2, 8, 1, 1))
	expectClose(t, out[0], "f32[4]", reals(2, 2, 1, 1), 0)
	expectClose(t, out[1], "s32[4]", reals(1, 1, 3, 3), 0)
}

func selectAndScatterModule(window, operand, source string) string {
	return fmt.Sprintf(`HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
%s
ENTRY e {
  x = %s parameter(0)
  s = %s parameter(1)
  i = f32[] constant(0)
  ROOT r = %s select-and-scatter(x, s, i), window={%s}, select=ge, scatter=add
}
`, scalarComputation("add", "add", ir.F32), operand, source, operand, window)
}

func TestSelectAndScatterSeedExamples(t *testing.T) {
	// Non-overlapping windows (the seed's first figure): each source value
	// lands on its window's maximum.
	x := lit([]int{4, 6}, float32(7), 2, 5, 3, 10, 2, 3, 8, 9, 3, 4, 2, 1, 5, 7, 5, 6, 3, 0, 6, 2, 10, 2, 4)
	s := lit([]int{2, 2}, float32(2), 6, 3, 1)
	out := runHLO(t, selectAndScatterModule("size=2x3 stride=2x3", "f32[4,6]", "f32[2,2]"), x, s)
	expectClose(t, out[0], "f32[4,6]", reals(
		0, 0, 0, 0, 6, 0,
		0, 0, 2, 0, 0, 0,
		0, 0, 3, 0, 0, 0,
		0, 0, 0, 1, 0, 0), 0)
	// Overlapping windows (the seed's second figure): the element 9 is the
	// maximum of both windows, so it receives 2 + 6 = 8.
	x = lit([]int{3, 5}, float32(1), 4, 9, 2, 3, 5, 0, 1, 7, 6, 3, 2, 8, 1, 0)
	s = lit([]int{1, 2}, float32(2), 6)
	out = runHLO(t, selectAndScatterModule("size=3x3 stride=1x2", "f32[3,5]", "f32[1,2]"), x, s)
	expectClose(t, out[0], "f32[3,5]", reals(
		0, 0, 8, 0, 0,
		0, 0, 0, 0, 0,
		0, 0, 0, 0, 0), 0)
}

func TestSelectAndScatterTiesAndGeneralPath(t *testing.T) {
	// GE keeps the current selection on ties: the first maximum in window
	// order wins. A select through copy takes the general path and must
	// agree.
	x := lit([]int{2, 4}, float32(5), 5, 1, 3, 5, 2, 3, 3)
	s := lit([]int{1, 2}, float32(10), 20)
	text := `HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
geslow {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ca = f32[] copy(a)
  ROOT c = pred[] compare(ca, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,4] parameter(0)
  s = f32[1,2] parameter(1)
  i = f32[] constant(0)
  r1 = f32[2,4] select-and-scatter(x, s, i), window={size=2x2 stride=2x2}, select=ge, scatter=add
  r2 = f32[2,4] select-and-scatter(x, s, i), window={size=2x2 stride=2x2}, select=geslow, scatter=add
  ROOT t = (f32[2,4], f32[2,4]) tuple(r1, r2)
}
`
	out := runHLO(t, text, x, s)
	expectClose(t, out[0], "f32[2,4]", reals(10, 0, 0, 20, 0, 0, 0, 0), 0)
	if !out[0].Equal(out[1]) {
		t.Fatalf("general select path differs: %v", wideOf(out[1]))
	}
}

func TestReduceErrors(t *testing.T) {
	err := runErr(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = f32[2,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(x, z), dimensions={0}, to_apply=add
}
`, scalarComputation("add", "add", ir.F32)), ir.MustNewLiteral(ir.MakeShape(ir.F32, 2, 3)))
	wantErr(t, err, "[2]", "[3]")
	err = runErr(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = f32[2,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(x, z), dimensions={3}, to_apply=add
}
`, scalarComputation("add", "add", ir.F32)), ir.MustNewLiteral(ir.MakeShape(ir.F32, 2, 3)))
	wantErr(t, err, "dimension 3 is out of range")
}

func BenchmarkReduceAddF32(b *testing.B) {
	n := 1 << 22
	x := ir.MustNewLiteral(ir.MakeShape(ir.F32, n))
	m, err := ir.ParseModule(reduceModule(shapeText(ir.F32, n), "f32[]", "0"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(4 * n))
	for i := 0; i < b.N; i++ {
		if _, err := Run(m, x); err != nil {
			b.Fatal(err)
		}
	}
}

func TestReducerReturningWrongTypeIsAnError(t *testing.T) {
	err := runErr(t, `HloModule m
bad {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT c = f64[] convert(s)
}
ENTRY e {
  x = f32[3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=bad
}
`, vec[float32](1, 2, 3))
	wantErr(t, err, "f64[]", "expected f32[]")
}

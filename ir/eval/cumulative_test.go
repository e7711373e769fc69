package eval

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// cumulativeModule is a reduce-window of x (type t, dimensions dims) whose
// window along dimension d covers every element up to the output's own —
// JAX's cumsum — or, with extra > 0, the same windows moved over a base
// padded by extra more elements on the high side, which gives extra more
// outputs after the same ones and so is no prefix scan.
func cumulativeModule(t string, dims []int, d, extra int, reducer, init string, argmax bool) string {
	shape := func(et string, ds []int) string {
		s := et + "["
		for i, n := range ds {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprint(n)
		}
		return s + "]"
	}
	size, pad := "", ""
	out := append([]int(nil), dims...)
	out[d] += extra
	for i, n := range dims {
		if i > 0 {
			size += "x"
			pad += "x"
		}
		if i == d {
			size += fmt.Sprint(n)
			pad += fmt.Sprintf("%d_%d", n-1, extra)
		} else {
			size += "1"
			pad += "0_0"
		}
	}
	if argmax {
		return fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = %s parameter(0)
  io = %s iota(), iota_dimension=%d
  init = %s[] constant(%s)
  z = s32[] constant(0)
  ROOT r = (%s, %s) reduce-window(x, io, init, z), window={size=%s pad=%s}, to_apply=red
}`, reducer, shape(t, dims), shape("s32", dims), d, t, init, shape(t, out), shape("s32", out), size, pad)
	}
	return fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = %s parameter(0)
  init = %s[] constant(%s)
  ROOT r = %s reduce-window(x, init), window={size=%s pad=%s}, to_apply=red
}`, reducer, shape(t, dims), t, init, shape(t, out), size, pad)
}

// binaryReducer is the reducer computation op(a, x) over type t.
func binaryReducer(t, op string) string {
	return fmt.Sprintf("red {\n  a = %[1]s[] parameter(0)\n  b = %[1]s[] parameter(1)\n  ROOT r = %[1]s[] %[2]s(a, b)\n}", t, op)
}

// logAddExpReducer is the reducer JAX's cumlogsumexp lowers to.
const logAddExpReducer = `red {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  d = f32[] subtract(a, b)
  nan = pred[] compare(d, d), direction=NE
  s = f32[] add(a, b)
  m = f32[] maximum(a, b)
  ad = f32[] abs(d)
  nd = f32[] negate(ad)
  e = f32[] exponential(nd)
  l = f32[] log-plus-one(e)
  lse = f32[] add(m, l)
  ROOT r = f32[] select(nan, s, lse)
}`

// TestCumulativeReduceWindow checks reduce-windows that are prefix scans
// (run as one running fold per line) against the same windows computed
// window by window: the module padded one element further on the high
// side gives the same outputs first and is no scan. Every element type's
// standard reducers, a joint argmax and cumlogsumexp's reducer, along
// every dimension, bit for bit.
func TestCumulativeReduceWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type tc struct {
		typ, name, reducer, init string
		argmax                   bool
	}
	var cases []tc
	for _, typ := range []string{"f32", "bf16", "f16", "f64", "s32", "u8", "s64"} {
		for _, op := range []string{"add", "multiply", "maximum", "minimum"} {
			cases = append(cases, tc{typ, op, binaryReducer(typ, op), "1", false})
		}
	}
	cases = append(cases, tc{"pred", "or", binaryReducer("pred", "or"), "false", false},
		tc{"c64", "add", binaryReducer("c64", "add"), "(0, 0)", false},
		tc{"f32", "logaddexp", logAddExpReducer, "-inf", false},
		tc{"f32", "argmax", argReducer("f32", "GT", "LT"), "-inf", true},
		tc{"s32", "argmin", argReducer("s32", "LT", "LT"), "2147483647", true})
	for _, dims := range [][]int{{37}, {5, 19}, {3, 1, 17}, {2, 6, 3}} {
		for d := range dims {
			for _, c := range cases {
				t.Run(fmt.Sprintf("%s/%s/%v/dim%d", c.typ, c.name, dims, d), func(t *testing.T) {
					et, ok := ir.ParseElementType(c.typ)
					if !ok {
						t.Fatal(c.typ)
					}
					x := cumulativeInput(t, r, et, dims)
					scan := runModule(t, cumulativeModule(c.typ, dims, d, 0, c.reducer, c.init, c.argmax), x)
					windows := runModule(t, cumulativeModule(c.typ, dims, d, 1, c.reducer, c.init, c.argmax), x)
					for i := range scan {
						want := prefixAlong(windows[i], dims, d)
						if !bytes.Equal(scan[i].Bytes(), want) {
							t.Errorf("result %d differs from the windows':\n got %v\nwant %v", i, scan[i], windows[i])
						}
					}
				})
			}
		}
	}
}

// cumulativeInput draws an operand of type et: small values (products
// stay finite), zeros of both signs, and for floats infinities and NaNs.
func cumulativeInput(t *testing.T, r *rand.Rand, et ir.ElementType, dims []int) *ir.Literal {
	t.Helper()
	x, err := ir.NewLiteral(ir.MakeShape(ir.F64, dims...))
	if err != nil {
		t.Fatal(err)
	}
	pool := []float64{-3, -1.25, -1, 0, math.Copysign(0, -1), 0.5, 1, 1.5, 2, 3}
	vals := ir.Values[float64](x)
	for i := range vals {
		vals[i] = pool[r.IntN(len(pool))]
		if et.IsFloat() {
			switch r.IntN(40) {
			case 0:
				vals[i] = math.NaN()
			case 1:
				vals[i] = math.Inf(1 - 2*r.IntN(2))
			}
		}
		if !et.IsFloat() && !et.IsComplex() && vals[i] < 0 && !et.IsSigned() {
			vals[i] = -vals[i]
		}
	}
	xt, err := ir.ConvertLiteral(x, et)
	if err != nil {
		t.Fatal(err)
	}
	return xt
}

// runModule parses and evaluates a module, its tuple result flattened.
func runModule(t *testing.T, hlo string, args ...*ir.Literal) []*ir.Literal {
	t.Helper()
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatalf("%v\n%s", err, hlo)
	}
	got, err := Run(m, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, hlo)
	}
	if len(got) == 1 && got[0].Shape().IsTuple() {
		got = got[0].Elements()
	}
	return got
}

// prefixAlong returns the bytes of lit's first dims[d] elements along
// dimension d (lit has one more there).
func prefixAlong(lit *ir.Literal, dims []int, d int) []byte {
	es := lit.Shape().Elem.ByteSize()
	outer, inner := 1, 1
	for _, n := range dims[:d] {
		outer *= n
	}
	for _, n := range dims[d+1:] {
		inner *= n
	}
	src := lit.Bytes()
	var out []byte
	for o := 0; o < outer; o++ {
		base := o * (dims[d] + 1) * inner * es
		out = append(out, src[base:base+dims[d]*inner*es]...)
	}
	return out
}

package runtime

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// The compiled paths of the narrow element types, each against ir/eval on
// random inputs (NaNs, infinities, signed zeros, subnormals) at sizes that
// cross every tail: 0, 1, primes, one below and above the vector widths
// (16 and 32 lanes) and the loop tile (1024). Every case also checks that
// the plan took the path under test.

// lowpSizes are the innermost sizes the cases run over (fewer in short
// mode, which the emulated arm64 run uses).
func lowpSizes() []int {
	if testing.Short() {
		return []int{0, 1, 17, 33, 65, 1025}
	}
	return []int{0, 1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 1023, 1024, 1025, 2053}
}

// usesImpl returns a check that some kernel of the plan has an
// implementation whose name starts with prefix (arrays with no elements
// are simplified away before any kernel: "" checks nothing).
func usesImpl(prefix string) func(*testing.T, *Executable) {
	return func(t *testing.T, e *Executable) {
		if prefix == "" {
			return
		}
		t.Helper()
		found := false
		var names []string
		for _, k := range e.Stats().Kernels {
			names = append(names, k.Impl)
			if strings.HasPrefix(k.Impl, prefix) {
				found = true
			}
		}
		if !found {
			t.Errorf("no kernel runs %s*: the plan's implementations are %v", prefix, names)
		}
	}
}

// TestLowpLoops runs fused elementwise chains over bfloat16 and binary16
// (with float32, PRED and int8 inputs mixed in) and requires the results
// bit for bit, except for the transcendental functions (one ULP of the
// narrow type: they compute in float32 within 2-3 float32 ULPs before the
// rounding).
func TestLowpLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 14))
	type loopCase struct {
		name string
		body string // HLO of the entry's body over x, y (T[dims]), z (f32[dims]), m (s8[dims])
		ulps float64
	}
	cases := []loopCase{
		{"add-mul-sub", `a = T[D] add(x, y)
  b = T[D] multiply(a, x)
  ROOT c = T[D] subtract(b, y)`, 0},
		{"div-max-min-neg-abs", `a = T[D] divide(x, y)
  b = T[D] maximum(a, x)
  c = T[D] minimum(b, y)
  n = T[D] negate(c)
  ROOT d = T[D] abs(n)`, 0},
		{"scalar-ops", `k = T[] constant(1.5)
  kb = T[D] broadcast(k), dimensions={}
  a = T[D] multiply(x, kb)
  j = T[] constant(-0.25)
  jb = T[D] broadcast(j), dimensions={}
  b = T[D] subtract(jb, a)
  ROOT c = T[D] divide(b, kb)`, 0},
		{"exp-tanh-log", `a = T[D] exponential(x)
  b = T[D] tanh(a)
  c = T[D] abs(y)
  d = T[D] log(c)
  ROOT e = T[D] add(b, d)`, 1},
		{"sqrt-rsqrt-floor", `a = T[D] abs(x)
  b = T[D] sqrt(a)
  c = T[D] rsqrt(a)
  d = T[D] floor(y)
  e = T[D] add(b, d)
  ROOT f = T[D] multiply(e, c)`, 1},
		{"compare-select", `p = pred[D] compare(x, y), direction=LT
  q = pred[D] compare(x, y), direction=NE
  s = T[D] select(p, x, y)
  u = T[D] negate(s)
  ROOT v = T[D] select(q, u, s)`, 0},
		{"total-order-select", `p = pred[D] compare(x, y), direction=LE, type=TOTALORDER
  ROOT s = T[D] select(p, y, x)`, 0},
		{"mixed-f32", `a = f32[D] convert(x)
  b = f32[D] multiply(a, z)
  c = T[D] convert(b)
  ROOT d = T[D] add(c, y)`, 0},
		{"to-f32", `a = T[D] add(x, y)
  b = f32[D] convert(a)
  ROOT c = f32[D] multiply(b, z)`, 0},
		{"int8", `a = T[D] convert(m)
  b = T[D] multiply(a, x)
  ROOT c = T[D] add(b, y)`, 0},
		{"clamp-pred", `lo = T[] constant(-1)
  hi = T[] constant(2)
  lob = T[D] broadcast(lo), dimensions={}
  hib = T[D] broadcast(hi), dimensions={}
  a = T[D] clamp(lob, x, hib)
  p = pred[D] compare(a, y), direction=GE
  q = T[D] convert(p)
  ROOT c = T[D] add(a, q)`, 0},
		{"bf16-f16", `a = T[D] add(x, y)
  b = U[D] convert(a)
  c = U[D] multiply(b, b)
  ROOT d = T[D] convert(c)`, 0},
	}
	for _, ty := range []ir.ElementType{ir.BF16, ir.F16} {
		other := ir.F16
		if ty == ir.F16 {
			other = ir.BF16
		}
		for _, c := range cases {
			for _, n := range lowpSizes() {
				dims := []int{3, n}
				if n > 1024 {
					dims = []int{n}
				}
				d := strings.Trim(strings.ReplaceAll(fmt.Sprint(dims), " ", ","), "[]")
				body := strings.ReplaceAll(c.body, "[D]", "["+d+"]")
				body = strings.NewReplacer("T[", ty.String()+"[", "U[", other.String()+"[").Replace(body)
				hlo := fmt.Sprintf("HloModule t\n\nENTRY e {\n  x = %[1]s[%[2]s] parameter(0)\n  y = %[1]s[%[2]s] parameter(1)\n  z = f32[%[2]s] parameter(2)\n  m = s8[%[2]s] parameter(3)\n  %[3]s\n}\n", ty, d, body)
				args := randomArgs(r, ir.MakeShape(ty, dims...), ir.MakeShape(ty, dims...), ir.MakeShape(ir.F32, dims...), ir.MakeShape(ir.S8, dims...))
				t.Run(fmt.Sprintf("%s/%s/%d", ty, c.name, n), func(t *testing.T) {
					checkGeneric(t, genericCase{hlo: hlo, args: args, ulps: c.ulps, check: usesImpl(nonEmpty(n, "loop-lowp"))})
				})
			}
		}
	}
}

// TestLowpRowLoops runs the loops whose ops depend only on the row (the
// broadcast statistics of layer-norm and softmax, computed once per tile)
// and transposed reads, over rows on both sides of the row-tile threshold.
func TestLowpRowLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 16))
	for _, ty := range []ir.ElementType{ir.BF16, ir.F16} {
		rowSizes := []int{1, 17, 63, 64, 65, 768, 1023, 1024, 1025, 3001}
		if testing.Short() {
			rowSizes = []int{17, 64, 1025}
		}
		for _, n := range rowSizes {
			rows := 5
			hlo := fmt.Sprintf(`HloModule t

ENTRY e {
  x = %[1]s[%[2]d,%[3]d] parameter(0)
  s = f32[%[2]d] parameter(1)
  k = f32[] constant(%[3]d)
  kb = f32[%[2]d] broadcast(k), dimensions={}
  m = f32[%[2]d] divide(s, kb)
  mc = %[1]s[%[2]d] convert(m)
  mb = %[1]s[%[2]d,%[3]d] broadcast(mc), dimensions={0}
  d = %[1]s[%[2]d,%[3]d] subtract(x, mb)
  e = %[1]s[] constant(1e-05)
  eb = %[1]s[%[2]d] broadcast(e), dimensions={}
  v = %[1]s[%[2]d] add(mc, eb)
  q = %[1]s[%[2]d] sqrt(v)
  qb = %[1]s[%[2]d,%[3]d] broadcast(q), dimensions={0}
  i = s32[%[2]d,%[3]d] iota(), iota_dimension=0
  f = %[1]s[%[2]d,%[3]d] convert(i)
  g = %[1]s[%[2]d,%[3]d] add(d, f)
  ROOT o = %[1]s[%[2]d,%[3]d] divide(g, qb)
}
`, ty, rows, n)
			args := randomArgs(r, ir.MakeShape(ty, rows, n), ir.MakeShape(ir.F32, rows))
			t.Run(fmt.Sprintf("%s/stats/%d", ty, n), func(t *testing.T) {
				checkGeneric(t, genericCase{hlo: hlo, args: args, ulps: 1, check: usesImpl("loop-lowp")})
			})
			// Only loads vary along the rows (the statistics computed by
			// kernels of their own): long rows still run in row tiles,
			// reading each row's values once per tile.
			bc := fmt.Sprintf(`HloModule t

ENTRY e {
  x = %[1]s[%[2]d,%[3]d] parameter(0)
  m = %[1]s[%[2]d] parameter(1)
  q = %[1]s[%[2]d] parameter(2)
  mb = %[1]s[%[2]d,%[3]d] broadcast(m), dimensions={0}
  d = %[1]s[%[2]d,%[3]d] subtract(x, mb)
  qb = %[1]s[%[2]d,%[3]d] broadcast(q), dimensions={0}
  ROOT o = %[1]s[%[2]d,%[3]d] divide(d, qb)
}
`, ty, rows, n)
			bargs := randomArgs(r, ir.MakeShape(ty, rows, n), ir.MakeShape(ty, rows), ir.MakeShape(ty, rows))
			impl := "loop-lowp"
			if n >= 64 {
				impl = "loop-lowp-rows"
			}
			t.Run(fmt.Sprintf("%s/broadcast-rows/%d", ty, n), func(t *testing.T) {
				checkGeneric(t, genericCase{hlo: bc, args: bargs, check: usesImpl(impl)})
			})
			tr := fmt.Sprintf(`HloModule t

ENTRY e {
  x = %[1]s[%[2]d,%[3]d] parameter(0)
  y = %[1]s[%[3]d,%[2]d] parameter(1)
  t = %[1]s[%[3]d,%[2]d] transpose(x), dimensions={1,0}
  ROOT a = %[1]s[%[3]d,%[2]d] add(t, y)
}
`, ty, rows, n)
			targs := randomArgs(r, ir.MakeShape(ty, rows, n), ir.MakeShape(ty, n, rows))
			t.Run(fmt.Sprintf("%s/transpose/%d", ty, n), func(t *testing.T) {
				checkGeneric(t, genericCase{hlo: tr, args: targs, check: usesImpl("loop-lowp")})
			})
		}
	}
}

// TestLowpReductions runs reduce(convert(x)) over rows, columns and other
// dimensions, fused producers, and narrow maximum/minimum reductions.
func TestLowpReductions(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 18))
	reducers := `add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}

min {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] minimum(a, b)
}

nmax {
  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT c = T[] maximum(a, b)
}

nmin {
  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT c = T[] minimum(a, b)
}
`
	type redCase struct {
		name, body, impl string
		ulps             float64
	}
	cases := []redCase{
		{"sum-rows", `c = f32[R,N] convert(x)
  z = f32[] constant(0)
  ROOT s = f32[R] reduce(c, z), dimensions={1}, to_apply=add`, "reduce-lowp-add", 4096},
		{"max-rows", `c = f32[R,N] convert(x)
  z = f32[] constant(-inf)
  ROOT s = f32[R] reduce(c, z), dimensions={1}, to_apply=max`, "reduce-lowp-max", 0},
		{"min-rows", `c = f32[R,N] convert(x)
  z = f32[] constant(inf)
  ROOT s = f32[R] reduce(c, z), dimensions={1}, to_apply=min`, "reduce-lowp-min", 0},
		{"sum-cols", `c = f32[R,N] convert(x)
  z = f32[] constant(0)
  ROOT s = f32[N] reduce(c, z), dimensions={0}, to_apply=add`, "reduce-lowp-cols", 4096},
		{"max-cols", `c = f32[R,N] convert(x)
  z = f32[] constant(-inf)
  ROOT s = f32[N] reduce(c, z), dimensions={0}, to_apply=max`, "reduce-lowp-cols", 0},
		{"sum-squares", `p = T[R,N] multiply(x, x)
  c = f32[R,N] convert(p)
  z = f32[] constant(1)
  ROOT s = f32[R] reduce(c, z), dimensions={1}, to_apply=add`, "reduce-lowp-fused", 4096},
		{"max-fused-cols", `p = T[R,N] subtract(x, x)
  q = T[R,N] add(p, x)
  c = f32[R,N] convert(q)
  z = f32[] constant(-inf)
  ROOT s = f32[N] reduce(c, z), dimensions={0}, to_apply=max`, "reduce-lowp-fused", 0},
		{"sum-then-round", `c = f32[R,N] convert(x)
  z = f32[] constant(0)
  s = f32[R] reduce(c, z), dimensions={1}, to_apply=add
  ROOT o = T[R] convert(s)`, "reduce-lowp-add", 1},
		{"narrow-max", `z = T[] constant(-inf)
  ROOT s = T[R] reduce(x, z), dimensions={1}, to_apply=nmax`, "reduce-lowp-max", 0},
		{"narrow-min-cols", `z = T[] constant(inf)
  ROOT s = T[N] reduce(x, z), dimensions={0}, to_apply=nmin`, "reduce-lowp-cols", 0},
	}
	for _, ty := range []ir.ElementType{ir.BF16, ir.F16} {
		for _, c := range cases {
			for _, n := range lowpSizes() {
				rows := 3
				body := strings.NewReplacer("[R,N]", fmt.Sprintf("[%d,%d]", rows, n),
					"[R]", fmt.Sprintf("[%d]", rows), "[N]", fmt.Sprintf("[%d]", n)).Replace(c.body)
				body = strings.ReplaceAll(body, "T[", ty.String()+"[")
				hlo := fmt.Sprintf("HloModule t\n\n%s\nENTRY e {\n  x = %s[%d,%d] parameter(0)\n  %s\n}\n",
					strings.ReplaceAll(reducers, "T[", ty.String()+"["), ty, rows, n, body)
				args := []*ir.Literal{finiteLiteral(r, ir.MakeShape(ty, rows, n))}
				if c.ulps == 0 {
					args = randomArgs(r, ir.MakeShape(ty, rows, n))
				}
				t.Run(fmt.Sprintf("%s/%s/%d", ty, c.name, n), func(t *testing.T) {
					// A reduction of rows of one element is a conversion.
					checkGeneric(t, genericCase{hlo: hlo, args: args, ulps: c.ulps, check: usesImpl(nonEmpty(n*(n-1), c.impl))})
				})
			}
		}
	}
}

// nonEmpty is the implementation to check for arrays with n elements a
// row: none when there are no elements.
func nonEmpty(n int, impl string) string {
	if n == 0 {
		return ""
	}
	return impl
}

// finiteLiteral fills a float array with finite non-negative values (sums
// of them have no cancellation: the float32 accumulation of n of them is
// within n·ε of the evaluator's, relative to the sum).
func finiteLiteral(r *rand.Rand, s ir.Shape) *ir.Literal {
	l := ir.MustNewLiteral(s)
	for i := 0; i < s.ElementCount(); i++ {
		l.SetFloat64At(i, math.Abs(r.NormFloat64()))
	}
	return l
}

// smallIntLiteral fills an array with integers in [-4, 4]: products and
// sums of them are exact in every float type, so a dot's result does not
// depend on the order of its accumulation.
func smallIntLiteral(r *rand.Rand, s ir.Shape) *ir.Literal {
	l := ir.MustNewLiteral(s)
	for i := 0; i < s.ElementCount(); i++ {
		v := r.IntN(9) - 4
		if s.Elem.IsFloat() {
			l.SetFloat64At(i, float64(v))
		} else if s.Elem.IsUnsigned() {
			l.SetInt64At(i, int64(r.IntN(256)))
		} else {
			l.SetInt64At(i, int64(r.IntN(256)-128))
		}
	}
	return l
}

// TestLowpDots runs bfloat16, binary16 and int8 dots (B a parameter, and B
// bound at compile time), transposed and batched, on integer-valued
// operands whose sums are exact, so the results must match bit for bit.
func TestLowpDots(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 20))
	types := []struct{ a, b, c ir.ElementType }{
		{ir.BF16, ir.BF16, ir.BF16}, {ir.BF16, ir.BF16, ir.F32}, {ir.F16, ir.F16, ir.F16}, {ir.F16, ir.F16, ir.F32},
		{ir.S8, ir.S8, ir.S32}, {ir.U8, ir.S8, ir.S32},
	}
	shapes := [][3]int{{1, 1, 1}, {1, 7, 3}, {3, 17, 33}, {16, 64, 65}, {17, 31, 129}, {33, 130, 20}, {64, 64, 64}, {5, 0, 4}}
	if testing.Short() {
		shapes = [][3]int{{1, 7, 3}, {17, 31, 129}, {5, 0, 4}}
	}
	for _, ty := range types {
		for _, sh := range shapes {
			m, k, n := sh[0], sh[1], sh[2]
			for _, form := range []string{"nn", "nt", "tn", "batch"} {
				var lhs, rhs, out ir.Shape
				var dims string
				switch form {
				case "nn":
					lhs, rhs, out = ir.MakeShape(ty.a, m, k), ir.MakeShape(ty.b, k, n), ir.MakeShape(ty.c, m, n)
					dims = "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
				case "nt":
					lhs, rhs, out = ir.MakeShape(ty.a, m, k), ir.MakeShape(ty.b, n, k), ir.MakeShape(ty.c, m, n)
					dims = "lhs_contracting_dims={1}, rhs_contracting_dims={1}"
				case "tn":
					lhs, rhs, out = ir.MakeShape(ty.a, k, m), ir.MakeShape(ty.b, k, n), ir.MakeShape(ty.c, m, n)
					dims = "lhs_contracting_dims={0}, rhs_contracting_dims={0}"
				default:
					lhs, rhs, out = ir.MakeShape(ty.a, 3, m, k), ir.MakeShape(ty.b, 3, k, n), ir.MakeShape(ty.c, 3, m, n)
					dims = "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}"
				}
				hlo := fmt.Sprintf("HloModule t\n\nENTRY e {\n  a = %s parameter(0)\n  b = %s parameter(1)\n  ROOT d = %s dot(a, b), %s\n}\n",
					lhs.StringWithoutLayout(), rhs.StringWithoutLayout(), out.StringWithoutLayout(), dims)
				args := []*ir.Literal{smallIntLiteral(r, lhs), smallIntLiteral(r, rhs)}
				name := fmt.Sprintf("%s%s%s/%dx%dx%d/%s", ty.a, ty.b, ty.c, m, k, n, form)
				t.Run(name, func(t *testing.T) {
					checkGeneric(t, genericCase{hlo: hlo, args: args, ulps: -1, check: usesImpl("gemm-" + ty.a.String())})
				})
				t.Run(name+"/bound", func(t *testing.T) {
					b := TensorFromLiteral(args[1].Clone())
					checkBound(t, hlo, args, map[int]*Tensor{1: b}, "gemm-"+ty.a.String())
				})
			}
		}
	}
}

// checkBound compiles hlo with the parameters in bound bound at compile
// time and compares its results on the remaining arguments with ir/eval's
// on all of them, exactly (NaN matching NaN).
func checkBound(t *testing.T, hlo string, args []*ir.Literal, bound map[int]*Tensor, impl string) {
	t.Helper()
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatal(err)
	}
	want, err := eval.Run(m, args...)
	if err != nil {
		t.Fatal(err)
	}
	var opts []Option
	var rest []*Tensor
	for i, a := range args {
		if b, ok := bound[i]; ok {
			opts = append(opts, WithParameter(i, b))
			continue
		}
		rest = append(rest, TensorFromLiteral(a.Clone()))
	}
	exe, err := Compile(m, opts...)
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, hlo)
	}
	usesImpl(impl)(t, exe)
	got, err := exe.Run(context.Background(), rest...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if msg := compareLiterals(got[i].Literal(), want[i], -1); msg != "" {
			t.Errorf("result %d: %s\n%s", i, msg, hlo)
		}
	}
}

// TestLowpDequantInt8 runs the weight-only int8 pattern (int8 weights and
// their per-column scales bound at compile time) with a bias and an
// activation, and requires it to run on the int8 weights: within the
// accumulation bound of float32 sums (the reassociated scaling rounds
// differently) of the dequantised dot.
func TestLowpDequantInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 22))
	for _, sh := range [][3]int{{1, 1, 1}, {1, 768, 3072}, {4, 65, 17}, {33, 100, 257}} {
		for _, trans := range []bool{false, true} {
			m, k, n := sh[0], sh[1], sh[2]
			w, wd, cd := fmt.Sprintf("s8[%d,%d]", k, n), fmt.Sprintf("f32[%d,%d]", k, n), "rhs_contracting_dims={0}"
			bcast := "dimensions={1}"
			if trans {
				w, wd, cd, bcast = fmt.Sprintf("s8[%d,%d]", n, k), fmt.Sprintf("f32[%d,%d]", n, k), "rhs_contracting_dims={1}", "dimensions={0}"
			}
			hlo := fmt.Sprintf(`HloModule t

ENTRY e {
  x = f32[%[1]d,%[2]d] parameter(0)
  w = %[4]s parameter(1)
  s = f32[%[3]d] parameter(2)
  b = f32[%[3]d] parameter(3)
  wf = %[5]s convert(w)
  sb = %[5]s broadcast(s), %[7]s
  wq = %[5]s multiply(wf, sb)
  d = f32[%[1]d,%[3]d] dot(x, wq), lhs_contracting_dims={1}, %[6]s
  bb = f32[%[1]d,%[3]d] broadcast(b), dimensions={1}
  a = f32[%[1]d,%[3]d] add(d, bb)
  z = f32[] constant(0)
  zb = f32[%[1]d,%[3]d] broadcast(z), dimensions={}
  ROOT y = f32[%[1]d,%[3]d] maximum(a, zb)
}
`, m, k, n, w, wd, cd, bcast)
			args := []*ir.Literal{finiteLiteral(r, ir.MakeShape(ir.F32, m, k)), smallIntLiteral(r, ir.MakeShape(ir.S8, k, n)),
				finiteLiteral(r, ir.MakeShape(ir.F32, n)), finiteLiteral(r, ir.MakeShape(ir.F32, n))}
			if trans {
				args[1] = smallIntLiteral(r, ir.MakeShape(ir.S8, n, k))
			}
			t.Run(fmt.Sprintf("%dx%dx%d/trans=%v", m, k, n, trans), func(t *testing.T) {
				mod, err := ir.ParseModule(hlo)
				if err != nil {
					t.Fatal(err)
				}
				want, err := eval.Run(mod, args...)
				if err != nil {
					t.Fatal(err)
				}
				exe, err := Compile(mod, WithParameter(1, TensorFromLiteral(args[1])), WithParameter(2, TensorFromLiteral(args[2])))
				if err != nil {
					t.Fatal(err)
				}
				if k*n > 1 { // a 1×1 weight is folded into a constant
					usesImpl("gemm-s8-weights")(t, exe)
					usesImpl("dequantize-deferred")(t, exe)
				}
				got, err := exe.Run(context.Background(), TensorFromLiteral(args[0]), TensorFromLiteral(args[3]))
				if err != nil {
					t.Fatal(err)
				}
				// |Σ a·w·s| sums k terms: float32 accumulation in any order
				// stays within (k+1)·ε·Σ|a·w·s|.
				g, wt := got[0].Literal(), want[0]
				xs, ws, ss := args[0], args[1], args[2]
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						mag := 0.0
						for p := 0; p < k; p++ {
							wi := p*n + j
							if trans {
								wi = j*k + p
							}
							mag += math.Abs(xs.Float64At(i*k+p) * float64(ws.Int64At(wi)) * ss.Float64At(j))
						}
						bound := float64(k+2) * 0x1p-23 * (mag + 1e-30)
						if d := math.Abs(g.Float64At(i*n+j) - wt.Float64At(i*n+j)); !(d <= bound) {
							t.Fatalf("element (%d,%d): got %v, want %v (bound %g)", i, j, g.Float64At(i*n+j), wt.Float64At(i*n+j), bound)
						}
					}
				}
			})
		}
	}
}

// TestLowpConv runs bfloat16 and binary16 convolutions with weights bound
// at compile time — depthwise, dense and grouped, strided, dilated and
// padded, over heights that make one block and several — on integer-valued
// operands whose sums are exact, so the results must match bit for bit.
func TestLowpConv(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 28))
	type convCase struct {
		h, w, ci, co, groups, kh, kw, stride, dil, pad int
	}
	cases := []convCase{
		{5, 5, 3, 3, 3, 3, 3, 1, 1, 1},
		{56, 56, 32, 32, 32, 3, 3, 1, 1, 1},
		{9, 7, 17, 17, 17, 3, 3, 2, 1, 1},
		{13, 11, 16, 16, 16, 5, 3, 1, 2, 2},
		{8, 8, 4, 6, 1, 3, 3, 1, 1, 0},
		{12, 10, 8, 8, 2, 3, 1, 2, 1, 1},
		{200, 3, 64, 64, 64, 3, 3, 1, 1, 1},
		{3, 3, 2, 2, 2, 5, 5, 1, 1, 4},
		{120, 56, 32, 32, 32, 3, 3, 1, 1, 1}, // several blocks
		{100, 40, 64, 8, 1, 3, 3, 2, 1, 1},
	}
	if testing.Short() {
		cases = cases[:4]
	}
	for _, ty := range []ir.ElementType{ir.BF16, ir.F16} {
		for _, c := range cases {
			for _, out := range []ir.ElementType{ty, ir.F32} {
				ho := (c.h+2*c.pad-c.dil*(c.kh-1)-1)/c.stride + 1
				wo := (c.w+2*c.pad-c.dil*(c.kw-1)-1)/c.stride + 1
				x := ir.MakeShape(ty, 2, c.h, c.w, c.ci)
				w := ir.MakeShape(ty, c.kh, c.kw, c.ci/c.groups, c.co)
				y := ir.MakeShape(out, 2, ho, wo, c.co)
				hlo := fmt.Sprintf("HloModule t\n\nENTRY e {\n  x = %s parameter(0)\n  w = %s parameter(1)\n  ROOT y = %s convolution(x, w), window={size=%dx%d stride=%dx%d pad=%d_%dx%d_%d rhs_dilate=%dx%d}, dim_labels=b01f_01io->b01f, feature_group_count=%d\n}\n",
					x.StringWithoutLayout(), w.StringWithoutLayout(), y.StringWithoutLayout(), c.kh, c.kw, c.stride, c.stride, c.pad, c.pad, c.pad, c.pad, c.dil, c.dil, c.groups)
				args := []*ir.Literal{smallIntLiteral(r, x), smallIntLiteral(r, w)}
				t.Run(fmt.Sprintf("%s/%v/%s", ty, c, out), func(t *testing.T) {
					checkBound(t, hlo, args, map[int]*Tensor{1: TensorFromLiteral(args[1].Clone())}, "conv-lowp")
				})
			}
		}
	}
}

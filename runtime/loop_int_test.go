package runtime

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// intEdgeValues are the 32-bit patterns integer ops differ on: zero, one,
// the shift widths around 32, the extremes of both signednesses.
var intEdgeValues = []uint32{0, 1, 2, 7, 31, 32, 33, 40, 63, 64, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 12345, 0xdeadbeef}

// randIntLiteral is a t[dims] literal of edge values and random bits.
func randIntLiteral(t *testing.T, r *rand.Rand, et ir.ElementType, dims ...int) *ir.Literal {
	t.Helper()
	l, err := ir.NewLiteral(ir.MakeShape(et, dims...))
	if err != nil {
		t.Fatal(err)
	}
	u := u32s(l.Bytes())
	for i := range u {
		if r.IntN(2) == 0 {
			u[i] = intEdgeValues[r.IntN(len(intEdgeValues))]
		} else {
			u[i] = r.Uint32()
		}
	}
	return l
}

// runIntLoop compiles m, checks that a kernel (the last, when last) runs on
// the integer loop, runs it on args and compares the result with the
// evaluator's, bit for bit; what names the case in errors.
func runIntLoop(t *testing.T, what string, m *ir.Module, args []*ir.Literal, last bool) (*Executable, []*Tensor, []*Tensor) {
	t.Helper()
	want, err := eval.Run(m, args...)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := Compile(m)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if last {
		if k := exe.Stats().Kernels; len(k) == 0 || k[len(k)-1].Impl != "loop-int" {
			t.Errorf("%s: runs %v, want loop-int", what, k)
		}
	} else {
		usesImpl("loop-int")(t, exe)
	}
	var in []*Tensor
	for _, a := range args {
		in = append(in, TensorFromLiteral(a))
	}
	outs, err := exe.Run(context.Background(), in...)
	if err != nil {
		t.Fatal(err)
	}
	if got := outs[0].Literal(); !bytes.Equal(got.Bytes(), want[0].Bytes()) {
		t.Errorf("%s: differs from the evaluator:\n got %v\nwant %v", what, got, want[0])
	}
	return exe, in, outs
}

// TestIntLoopAgainstEval runs fused loops of every op the integer loop
// computes, for s32 and u32, on edge values and random bits (odd sizes, so
// that tiles end part-way), and checks that the loop ran them and that
// each result equals the reference evaluator's bit for bit.
func TestIntLoopAgainstEval(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	binary := []string{"add", "subtract", "multiply", "and", "or", "xor", "maximum", "minimum",
		"shift-left", "shift-right-logical", "shift-right-arithmetic"}
	unary := []string{"not", "negate", "abs"}
	for _, et := range []string{"s32", "u32"} {
		other := map[string]string{"s32": "u32", "u32": "s32"}[et]
		for _, dims := range []string{"1", "37", "3,1031"} {
			var body []string
			add := func(f string, args ...any) { body = append(body, fmt.Sprintf(f, args...)) }
			sh := fmt.Sprintf("%s[%s]", et, dims)
			pr := fmt.Sprintf("pred[%s]", dims)
			add("a = %s parameter(0)", sh)
			add("b = %s parameter(1)", sh)
			add("k = %s[] parameter(2)", et)
			add("kb = %s broadcast(k), dimensions={}", sh)
			add("c = %s[] constant(3)", et)
			add("cb = %s broadcast(c), dimensions={}", sh)
			acc := "a"
			for i, op := range binary {
				rhs := []string{"b", "kb", "cb"}[i%3]
				add("v%d = %s %s(%s, %s)", i, sh, op, acc, rhs)
				acc = fmt.Sprintf("v%d", i)
			}
			for i, op := range unary {
				if op == "abs" && et == "u32" {
					continue // XLA's abs and sign take signed types only
				}
				add("u%d = %s %s(%s)", i, sh, op, acc)
				acc = fmt.Sprintf("u%d", i)
			}
			var preds []string
			for i, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
				add("p%d = %s compare(%s, b), direction=%s", i, pr, acc, dir)
				preds = append(preds, fmt.Sprintf("p%d", i))
			}
			add("q0 = %s and(p0, p1)", pr)
			add("q1 = %s or(q0, p2)", pr)
			add("q2 = %s xor(q1, p3)", pr)
			add("q3 = %s not(q2)", pr)
			add("q4 = %s select(p4, q3, p5)", pr)
			add("z = %s convert(%s)", pr, acc)
			add("q5 = %s and(q4, z)", pr)
			add("s = %s select(q5, %s, b)", sh, acc)
			add("o = %s[%s] convert(s)", other, dims)
			add("back = %s convert(o)", sh)
			add("i = %s convert(q5)", sh)
			add("ROOT r = %s add(back, i)", sh)
			hlo := "HloModule m\nENTRY e {\n  " + strings.Join(body, "\n  ") + "\n}\n"
			t.Run(et+"/"+dims, func(t *testing.T) {
				m, err := ir.ParseModule(hlo)
				if err != nil {
					t.Fatal(err)
				}
				var dd []int
				for _, d := range strings.Split(dims, ",") {
					var v int
					fmt.Sscan(d, &v)
					dd = append(dd, v)
				}
				et := ir.S32
				if strings.HasPrefix(sh, "u32") {
					et = ir.U32
				}
				args := []*ir.Literal{randIntLiteral(t, r, et, dd...), randIntLiteral(t, r, et, dd...), randIntLiteral(t, r, et)}
				runIntLoop(t, sh, m, args, false)
			})
		}
	}
}

// TestIntLoopOps runs each op of the integer loop on its own (its result
// the module's), with a vector and with a broadcast operand, for s32 and
// u32, against the evaluator.
func TestIntLoopOps(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, et := range []ir.ElementType{ir.S32, ir.U32} {
		ts := et.String()
		other := map[ir.ElementType]string{ir.S32: "u32", ir.U32: "s32"}[et]
		var cases []string
		for _, op := range []string{"add", "subtract", "multiply", "divide", "remainder", "and", "or", "xor", "maximum", "minimum",
			"shift-left", "shift-right-logical", "shift-right-arithmetic"} {
			cases = append(cases, fmt.Sprintf("ROOT r = %s[1031] %s(a, b)", ts, op),
				fmt.Sprintf("kb = %s[1031] broadcast(k), dimensions={}\n  ROOT r = %s[1031] %s(a, kb)", ts, ts, op))
		}
		for _, op := range []string{"not", "negate", "abs", "sign"} {
			if (op == "abs" || op == "sign") && et == ir.U32 {
				continue // XLA's abs and sign take signed types only
			}
			cases = append(cases, fmt.Sprintf("ROOT r = %s[1031] %s(a)", ts, op))
		}
		for _, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
			cases = append(cases, fmt.Sprintf("p = pred[1031] compare(a, b), direction=%s\n  ROOT r = %s[1031] select(p, a, b)", dir, ts))
		}
		for _, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
			// Masks compared (false < true), as JAX's floor division and
			// modulo compare the operands' signs.
			cases = append(cases, fmt.Sprintf("p = pred[1031] compare(a, b), direction=LT\n  z = %s[1031] broadcast(k), dimensions={}\n  q = pred[1031] compare(a, z), direction=GE\n  c = pred[1031] compare(p, q), direction=%s\n  ROOT r = %s[1031] select(c, a, b)", ts, dir, ts))
		}
		cases = append(cases,
			fmt.Sprintf("o = %s[1031] convert(a)\n  ROOT r = %s[1031] xor(o, o)", other, other),
			fmt.Sprintf("p = pred[1031] convert(a)\n  q = pred[1031] compare(a, b), direction=LT\n  x = pred[1031] xor(p, q)\n  ROOT r = %s[1031] convert(x)", ts))
		for _, c := range cases {
			hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  a = %s[1031] parameter(0)\n  b = %s[1031] parameter(1)\n  k = %s[] parameter(2)\n  %s\n}\n", ts, ts, ts, c)
			m, err := ir.ParseModule(hlo)
			if err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			args := []*ir.Literal{randIntLiteral(t, r, et, 1031), randIntLiteral(t, r, et, 1031), randIntLiteral(t, r, et)}
			runIntLoop(t, ts+" "+strings.ReplaceAll(c, "\n", ";"), m, args, true)
		}
	}
}

// TestIntLoopLayouts checks loads the loop gathers (a transposed operand,
// a broadcast row) and iota, against the evaluator.
func TestIntLoopLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const hlo = `HloModule m
ENTRY e {
  a = u32[33,65] parameter(0)
  t = u32[65,33] parameter(1)
  row = u32[65] parameter(2)
  tt = u32[33,65] transpose(t), dimensions={1,0}
  rb = u32[33,65] broadcast(row), dimensions={1}
  io = u32[33,65] iota(), iota_dimension=0
  x = u32[33,65] xor(a, tt)
  y = u32[33,65] add(x, rb)
  ROOT z = u32[33,65] multiply(y, io)
}`
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatal(err)
	}
	args := []*ir.Literal{randIntLiteral(t, r, ir.U32, 33, 65), randIntLiteral(t, r, ir.U32, 65, 33), randIntLiteral(t, r, ir.U32, 65)}
	exe, in, outs := runIntLoop(t, "layouts", m, args, false)
	if allocs := steadyAllocs(10, func() {
		if err := exe.RunInto(context.Background(), outs, in...); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 && !raceEnabled {
		t.Errorf("%v allocations per run, want 0", allocs)
	}
}

// BenchmarkIntLoop times a threefry-like chain of 32-bit integer ops (xor,
// rotations by shifts, add) over 1M elements on the integer loop, beside
// the same chain's shape in float32 ops on the float32 loop in the same
// run (int/f32: the integer loop's time over the float32 loop's).
func BenchmarkIntLoop(b *testing.B) {
	chain := func(t, xor, shl, shr, or string) string {
		return fmt.Sprintf(`HloModule m
ENTRY e {
  a = %[1]s[1024,1024] parameter(0)
  b = %[1]s[1024,1024] parameter(1)
  x = %[1]s[1024,1024] %[2]s(a, b)
  k = %[1]s[] constant(13)
  kb = %[1]s[1024,1024] broadcast(k), dimensions={}
  s = %[1]s[1024,1024] %[3]s(x, kb)
  k2 = %[1]s[] constant(19)
  kb2 = %[1]s[1024,1024] broadcast(k2), dimensions={}
  u = %[1]s[1024,1024] %[4]s(x, kb2)
  o = %[1]s[1024,1024] %[5]s(s, u)
  ROOT y = %[1]s[1024,1024] add(o, a)
}`, t, xor, shl, shr, or)
	}
	type prepared struct {
		exe  *Executable
		in   []*Tensor
		outs []*Tensor
	}
	prepare := func(hlo string, et ir.ElementType) prepared {
		m, err := ir.ParseModule(hlo)
		if err != nil {
			b.Fatal(err)
		}
		exe, err := Compile(m, WithThreads(1))
		if err != nil {
			b.Fatal(err)
		}
		x, _ := NewTensor(ir.MakeShape(et, 1024, 1024))
		y, _ := NewTensor(ir.MakeShape(et, 1024, 1024))
		outs, err := exe.Run(context.Background(), x, y)
		if err != nil {
			b.Fatal(err)
		}
		return prepared{exe, []*Tensor{x, y}, outs}
	}
	ints := prepare(chain("u32", "xor", "shift-left", "shift-right-logical", "or"), ir.U32)
	floats := prepare(chain("f32", "multiply", "add", "subtract", "maximum"), ir.F32)
	var intTime, f32Time time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, p := range []*prepared{&ints, &floats} {
			start := time.Now()
			if err := p.exe.RunInto(context.Background(), p.outs, p.in...); err != nil {
				b.Fatal(err)
			}
			if p == &ints {
				intTime += time.Since(start)
			} else {
				f32Time += time.Since(start)
			}
		}
	}
	b.ReportMetric(float64(intTime.Nanoseconds())/float64(b.N)/(1<<20), "int-ns/elem")
	b.ReportMetric(intTime.Seconds()/f32Time.Seconds(), "int/f32")
}

// TestIntLoopFloatCompares runs comparisons of float32 operands whose masks
// feed integer ops (jnp.searchsorted's compare-all counts, a where between
// integers) on the integer loop: every direction, as IEEE compares them and
// in the total order, against a broadcast constant too, with NaNs of both
// signs, both zeros and the infinities among the values, bit for bit
// against the evaluator.
func TestIntLoopFloatCompares(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	x, y := ir.MustNewLiteral(ir.MakeShape(ir.F32, 1031)), ir.MustNewLiteral(ir.MakeShape(ir.F32, 1031))
	special := []float32{float32(math.NaN()), -float32(math.NaN()), 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1, -1, 0.5}
	for _, l := range []*ir.Literal{x, y} {
		v := ir.Values[float32](l)
		for i := range v {
			v[i] = special[r.IntN(len(special))]
			if r.IntN(3) == 0 {
				v[i] = float32(r.NormFloat64())
			}
		}
	}
	io := randIntLiteral(t, r, ir.S32, 1031)
	for _, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
		for _, typ := range []string{"", ", type=TOTALORDER"} {
			for _, c := range []string{
				fmt.Sprintf("p = pred[1031] compare(a, b), direction=%s%s\n  ROOT r = s32[1031] convert(p)", dir, typ),
				fmt.Sprintf("h = f32[] constant(0.5)\n  hb = f32[1031] broadcast(h), dimensions={}\n  p = pred[1031] compare(a, hb), direction=%s%s\n  ROOT r = s32[1031] select(p, i, i2)", dir, typ),
			} {
				hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  a = f32[1031] parameter(0)\n  b = f32[1031] parameter(1)\n  i = s32[1031] parameter(2)\n  two = s32[] constant(2)\n  tb = s32[1031] broadcast(two), dimensions={}\n  i2 = s32[1031] multiply(i, tb)\n  %s\n}\n", c)
				m, err := ir.ParseModule(hlo)
				if err != nil {
					t.Fatalf("%s: %v", c, err)
				}
				runIntLoop(t, strings.ReplaceAll(c, "\n", ";"), m, []*ir.Literal{x, y, io}, true)
			}
		}
	}
}

// TestLoopIntegerCompares runs the float32 loops that compare 32-bit
// integers — jax.nn.one_hot (labels against an iota, converted to
// float32), a causal mask (two iotas) selecting float32 scores, a compare
// with an integer constant on either side — on the float32 loop, every
// direction, s32 and u32 at their edges, bit for bit against the
// evaluator.
func TestLoopIntegerCompares(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	for _, et := range []ir.ElementType{ir.S32, ir.U32} {
		ts := et.String()
		for _, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
			for _, c := range []string{
				fmt.Sprintf("lb = %[1]s[37,53] broadcast(l), dimensions={0}\n  io = %[1]s[37,53] iota(), iota_dimension=1\n  p = pred[37,53] compare(lb, io), direction=%[2]s\n  ROOT r = f32[37,53] convert(p)", ts, dir),
				fmt.Sprintf("i = %[1]s[37,53] iota(), iota_dimension=0\n  j = %[1]s[37,53] iota(), iota_dimension=1\n  p = pred[37,53] compare(i, j), direction=%[2]s\n  n = f32[] constant(-inf)\n  nb = f32[37,53] broadcast(n), dimensions={}\n  ROOT r = f32[37,53] select(p, s, nb)", ts, dir),
				fmt.Sprintf("k = %[1]s[] constant(2147483648)\n  kb = %[1]s[37,53] broadcast(k), dimensions={}\n  p = pred[37,53] compare(kb, a), direction=%[2]s\n  z = f32[] constant(0)\n  zb = f32[37,53] broadcast(z), dimensions={}\n  ROOT r = f32[37,53] select(p, zb, s)", ts, dir),
				fmt.Sprintf("k = %[1]s[] constant(7)\n  kb = %[1]s[37,53] broadcast(k), dimensions={}\n  p = pred[37,53] compare(a, kb), direction=%[2]s\n  ROOT r = f32[37,53] convert(p)", ts, dir),
			} {
				if et == ir.S32 {
					c = strings.Replace(c, "constant(2147483648)", "constant(-2147483648)", 1)
				}
				hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  l = %[1]s[37] parameter(0)\n  a = %[1]s[37,53] parameter(1)\n  s = f32[37,53] parameter(2)\n  %[2]s\n}\n", ts, c)
				m, err := ir.ParseModule(hlo)
				if err != nil {
					t.Fatalf("%s: %v", c, err)
				}
				args := []*ir.Literal{randIntLiteral(t, r, et, 37), randIntLiteral(t, r, et, 37, 53), randomLiteral(r, ir.MakeShape(ir.F32, 37, 53))}
				// Labels in the iota's range, some of them.
				lb := u32s(args[0].Bytes())
				for i, v := range lb {
					if i%2 == 0 {
						lb[i] = v % 53
					}
				}
				want, err := eval.Run(m, args...)
				if err != nil {
					t.Fatal(err)
				}
				exe, err := Compile(m)
				if err != nil {
					t.Fatal(err)
				}
				what := ts + " " + strings.ReplaceAll(c, "\n", ";")
				if k := exe.Stats().Kernels; len(k) != 1 || k[0].Impl != "loop" {
					t.Errorf("%s: runs %v, want one float32 loop", what, k)
				}
				got := runLiterals(t, exe, args)[0]
				if !bytes.Equal(got.Bytes(), want[0].Bytes()) {
					t.Errorf("%s: differs from the evaluator", what)
				}
			}
		}
	}
}

// TestLoopSelectScalarBranch selects between a tile and a scalar (a mask's
// fill), either branch the scalar, the loop writing its output over the
// tile's own memory (the operand donated to the result, input_output_alias)
// and not, against the evaluator bit for bit.
func TestLoopSelectScalarBranch(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, order := range []string{"x, nb", "nb, x"} {
		hlo := fmt.Sprintf(`HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  x = f32[67,75] parameter(0)
  m = pred[67,75] parameter(1)
  n = f32[] constant(-inf)
  nb = f32[67,75] broadcast(n), dimensions={}
  ROOT s = f32[67,75] select(m, %s)
}`, order)
		m, err := ir.ParseModule(hlo)
		if err != nil {
			t.Fatal(err)
		}
		mask := ir.MustNewLiteral(ir.MakeShape(ir.PRED, 67, 75))
		for i := range mask.Bytes() {
			mask.Bytes()[i] = byte(r.IntN(2))
		}
		x := randomLiteral(r, ir.MakeShape(ir.F32, 67, 75))
		want, err := eval.Run(m, x, mask)
		if err != nil {
			t.Fatal(err)
		}
		for _, donate := range []bool{false, true} {
			exe, err := Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			args := []*Tensor{TensorFromLiteral(x.Clone()), TensorFromLiteral(mask)}
			out, err := NewTensor(exe.ResultShapes()[0])
			if err != nil {
				t.Fatal(err)
			}
			if donate {
				out = args[0]
			}
			if err := exe.RunInto(context.Background(), []*Tensor{out}, args...); err != nil {
				t.Fatal(err)
			}
			if got := out.Literal(); !bytes.Equal(got.Bytes(), want[0].Bytes()) {
				t.Errorf("%s donated %v: differs from the evaluator", order, donate)
			}
		}
	}
}

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
	"github.com/kilnml/kiln/ir/ops"
)

// genericCase is one module checked against the reference evaluator.
type genericCase struct {
	hlo  string
	args []*ir.Literal
	// ulps bounds the difference of float results in units of the last
	// place (0: exact, NaN matching NaN).
	ulps float64
	// allowReference lists ops that may stay on the reference fallback.
	allowReference []string
	// opts are passed on to Compile.
	opts []Option
	// check, when set, inspects the compiled executable.
	check func(*testing.T, *Executable)
}

// checkGeneric compiles the case's module, runs it and the evaluator on the
// same arguments and compares every result, and checks that no kernel of
// the plan runs on the reference fallback. It reports false (after logging)
// if the evaluator rejects the module, so callers can skip forms the
// evaluator does not define.
func checkGeneric(t *testing.T, c genericCase) bool {
	t.Helper()
	m, err := ir.ParseModule(c.hlo)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, c.hlo)
	}
	if err := m.Verify(); err != nil {
		t.Fatalf("verify: %v\n%s", err, c.hlo)
	}
	want, err := eval.Run(m, c.args...)
	if err != nil {
		t.Logf("evaluator rejects the module (skipped): %v", err)
		return false
	}
	exe, err := Compile(m, c.opts...)
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, c.hlo)
	}
	if c.check != nil {
		c.check(t, exe)
	}
	for _, k := range exe.Stats().Kernels {
		if k.Impl == "reference" && !allowed(k.Ops, c.allowReference) {
			t.Errorf("kernel %v runs on the reference fallback\n%s", k, c.hlo)
		}
	}
	args := make([]*Tensor, len(c.args))
	for i, a := range c.args {
		args[i] = TensorFromLiteral(a.Clone())
	}
	got, err := exe.Run(context.Background(), args...)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, c.hlo)
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, the evaluator gives %d", len(got), len(want))
	}
	for i := range want {
		ulps := c.ulps
		if ulps == 0 && want[i].Shape().Elem == ir.F32 {
			// float32 loops, reductions and row kernels run on the vector
			// kernels, whose error bounds are a few ULPs (see their docs);
			// their sums are accumulated more accurately than the
			// evaluator's left-to-right order.
			ulps = f32VectorULPs
		}
		if msg := compareLiterals(got[i].Literal(), want[i], ulps); msg != "" {
			t.Errorf("result %d: %s\n%s\nargs: %v", i, msg, c.hlo, shortArgs(c.args))
		}
	}
	return true
}

// f32VectorULPs bounds the difference of float32 results computed with the
// vector kernels from the evaluator's (correctly rounded, sequential) ones.
const f32VectorULPs = 8

func allowed(ops, allow []string) bool {
	for _, o := range ops {
		for _, a := range allow {
			if o == a {
				return true
			}
		}
	}
	return false
}

func shortArgs(args []*ir.Literal) string {
	var b strings.Builder
	for _, a := range args {
		s := a.String()
		if len(s) > 300 {
			s = s[:300] + "…"
		}
		b.WriteString(s)
		b.WriteString("; ")
	}
	return b.String()
}

// compareLiterals returns "" when got equals want: bit for bit, except that
// any NaN matches any NaN and floats may differ by ulps units in the last
// place.
func compareLiterals(got, want *ir.Literal, ulps float64) string {
	gs, ws := got.Shape(), want.Shape()
	if !gs.EqualIgnoringLayout(ws) {
		return fmt.Sprintf("shape %v, want %v", gs, ws)
	}
	t := ws.Elem
	n := ws.ElementCount()
	for i := 0; i < n; i++ {
		var ok bool
		switch {
		case t.IsFloat():
			ok = floatsMatch(got.Float64At(i), want.Float64At(i), t, ulps)
		case t.IsComplex():
			g, w := got.Complex128At(i), want.Complex128At(i)
			c := t.ComplexComponent()
			ok = floatsMatch(real(g), real(w), c, ulps) && floatsMatch(imag(g), imag(w), c, ulps)
		default:
			es := t.ByteSize()
			ok = string(got.Bytes()[i*es:(i+1)*es]) == string(want.Bytes()[i*es:(i+1)*es])
		}
		if !ok {
			idx := ws.MultiIndex(i)
			if !ws.HasDefaultLayout() {
				idx = ir.MakeShape(t, ws.Dims...).MultiIndex(i)
			}
			return fmt.Sprintf("element %v (%d of %d): got %v, want %v", idx, i, n, elemString(got, i), elemString(want, i))
		}
	}
	return ""
}

func elemString(l *ir.Literal, i int) string {
	t := l.Shape().Elem
	switch {
	case t.IsFloat():
		return fmt.Sprint(l.Float64At(i))
	case t.IsComplex():
		return fmt.Sprint(l.Complex128At(i))
	}
	return fmt.Sprint(l.Int64At(i))
}

func floatsMatch(g, w float64, t ir.ElementType, ulps float64) bool {
	if g != g || w != w {
		return g != g && w != w
	}
	if g == w {
		return math.Signbit(g) == math.Signbit(w) || ulps > 0
	}
	if ulps == 0 || math.IsInf(g, 0) || math.IsInf(w, 0) {
		return false
	}
	return math.Abs(g-w) <= ulps*ulp(w, t)
}

// ulp is the spacing of type t's values at w (at least its smallest normal
// spacing, so results near zero are compared absolutely).
func ulp(w float64, t ir.ElementType) float64 {
	minExp := 2 - 1<<(t.ExponentBits()-1)
	e := minExp
	if w != 0 {
		e = max(math.Ilogb(math.Abs(w)), minExp)
	}
	return math.Ldexp(1, e-t.MantissaBits())
}

// randomLiteral fills an array of shape s: integers with random bits,
// floats mostly from a few magnitudes with the occasional special value
// (±0, ±Inf, NaN, subnormal), PRED half true.
func randomLiteral(r *rand.Rand, s ir.Shape) *ir.Literal {
	l := ir.MustNewLiteral(s)
	t := s.Elem
	for i := 0; i < s.ElementCount(); i++ {
		switch {
		case t == ir.PRED:
			l.SetInt64At(i, int64(r.IntN(2)))
		case t.IsInteger():
			v := int64(r.Uint64())
			if r.IntN(4) == 0 {
				v = int64(r.IntN(9) - 4) // small values, zeros and -1 for division
			}
			l.SetInt64At(i, v)
		case t.IsFloat():
			l.SetFloat64At(i, randomFloat(r))
		case t.IsComplex():
			l.SetComplex128At(i, complex(randomFloat(r), randomFloat(r)))
		}
	}
	return l
}

func randomFloat(r *rand.Rand) float64 {
	switch r.IntN(24) {
	case 0:
		return math.NaN()
	case 1:
		return math.Inf(1 - 2*r.IntN(2))
	case 2:
		return math.Copysign(0, float64(1-2*r.IntN(2)))
	case 3:
		return float64(r.IntN(7) - 3)
	case 4:
		return math.Ldexp(r.Float64(), -130-r.IntN(20)) // subnormal for f32
	}
	return r.NormFloat64() * math.Pow(10, float64(r.IntN(5)-2))
}

// shapeText prints a shape in HLO syntax: f32[2,3].
func shapeText(t ir.ElementType, dims ...int) string {
	return ir.MakeShape(t, dims...).StringWithoutLayout()
}

// randomArgs makes one random literal per shape.
func randomArgs(r *rand.Rand, shapes ...ir.Shape) []*ir.Literal {
	out := make([]*ir.Literal, len(shapes))
	for i, s := range shapes {
		out[i] = randomLiteral(r, s)
	}
	return out
}

// testShapes are the dimension lists the generic tests run over: scalars,
// size-0 and size-1 dimensions, and sizes around the tile length.
var testShapes = [][]int{{}, {0}, {1}, {7}, {3, 0}, {1, 5}, {4, 3}, {2, 1, 3}, {ops.Tile + 3}}

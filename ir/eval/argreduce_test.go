package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// argReducer is jnp.argmax's (cmp GT) or jnp.argmin's (cmp LT) reducer as
// JAX writes it; tie is the index comparison that breaks ties (LT: the
// lower index, as JAX's; GT: the higher, a reducer of another function).
func argReducer(t, cmp, tie string) string {
	return fmt.Sprintf(`red {
  av = %[1]s[] parameter(0)
  xv = %[1]s[] parameter(2)
  c = pred[] compare(av, xv), direction=%[2]s
  n = pred[] compare(av, av), direction=NE
  keep = pred[] or(c, n)
  v = %[1]s[] select(keep, av, xv)
  eq = pred[] compare(av, xv), direction=EQ
  ai = s32[] parameter(1)
  xi = s32[] parameter(3)
  lt = pred[] compare(ai, xi), direction=%[3]s
  tie = pred[] and(eq, lt)
  keepi = pred[] or(keep, tie)
  i = s32[] select(keepi, ai, xi)
  ROOT r = (%[1]s[], s32[]) tuple(v, i)
}`, t, cmp, tie)
}

// TestArgReduce checks reductions of (value, index) pairs — the argmax and
// argmin JAX writes, which the fold recognises, and one breaking ties the
// other way, which it must not take for them — against numpy's
// definition: the first extreme's index, or the first NaN's.
func TestArgReduce(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	const rows, n = 5, 203
	for _, c := range []struct {
		typ, cmp, tie string
	}{
		{"f32", "GT", "LT"}, {"f32", "LT", "LT"}, {"bf16", "GT", "LT"}, {"s32", "GT", "LT"}, {"s32", "LT", "LT"},
		{"f32", "GT", "GT"}, {"s32", "LT", "GT"},
	} {
		t.Run(c.typ+"/"+c.cmp+"/ties-"+c.tie, func(t *testing.T) {
			et, ok := ir.ParseElementType(c.typ)
			if !ok {
				t.Fatal(c.typ)
			}
			init := "-inf"
			if c.cmp == "LT" {
				init = "inf"
			}
			if !et.IsFloat() {
				init = "-2147483648"
				if c.cmp == "LT" {
					init = "2147483647"
				}
			}
			hlo := fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = %[2]s[%[3]d,%[4]d] parameter(0)
  io = s32[%[3]d,%[4]d] iota(), iota_dimension=1
  init = %[2]s[] constant(%[5]s)
  z = s32[] constant(0)
  ROOT r = (%[2]s[%[3]d], s32[%[3]d]) reduce(x, io, init, z), dimensions={1}, to_apply=red
}`, argReducer(c.typ, c.cmp, c.tie), c.typ, rows, n, init)
			m, err := ir.ParseModule(hlo)
			if err != nil {
				t.Fatal(err)
			}
			x, err := ir.NewLiteral(ir.MakeShape(ir.F64, rows, n))
			if err != nil {
				t.Fatal(err)
			}
			vals := ir.Values[float64](x)
			pool := []float64{-3, -1, 0, math.Copysign(0, -1), 1, 2, 2, 5, 5}
			for i := range vals {
				vals[i] = pool[r.IntN(len(pool))]
				if et.IsFloat() && r.IntN(60) == 0 {
					vals[i] = math.NaN()
				}
			}
			xt, err := ir.ConvertLiteral(x, et)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(m, xt)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 1 && got[0].Shape().IsTuple() {
				got = got[0].Elements()
			}
			idx := ir.Values[int32](got[1])
			for row := 0; row < rows; row++ {
				want := -1
				for j := 0; j < n; j++ {
					v := vals[row*n+j]
					if v != v {
						if want < 0 || vals[row*n+want] == vals[row*n+want] {
							want = j
						}
						break
					}
					if want < 0 {
						want = j
						continue
					}
					best := vals[row*n+want]
					better := (c.cmp == "GT" && v > best) || (c.cmp == "LT" && v < best)
					if better || v == best && c.tie == "GT" {
						want = j
					}
				}
				if int(idx[row]) != want {
					t.Errorf("row %d: index %d, want %d", row, idx[row], want)
				}
			}
		})
	}
}

// TestArgReduceRecognised checks that the fold of JAX's reducers is the
// recognised one (fast) and that the one breaking ties the other way is not.
func TestArgReduceRecognised(t *testing.T) {
	for _, c := range []struct {
		cmp, tie string
		want     bool
	}{{"GT", "LT", true}, {"LT", "LT", true}, {"GT", "GT", false}, {"GE", "LT", false}} {
		m, err := ir.ParseModule("HloModule m\n" + argReducer("f32", c.cmp, c.tie) + "\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n")
		if err != nil {
			t.Fatal(err)
		}
		var red *ir.Computation
		for _, cc := range m.Computations {
			if strings.HasPrefix(cc.Name, "red") {
				red = cc
			}
		}
		f, err := opsCompile(red)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := ops.ArgReducer(f, ir.F32, ir.S32); got != c.want {
			t.Errorf("%s with ties %s: recognised %v, want %v", c.cmp, c.tie, got, c.want)
		}
	}
}

// TestArgReducePred checks jnp.argmax over booleans (jnp.select's choice of
// the first true condition): the first true's index, or 0 when none is.
func TestArgReducePred(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	const rows, n = 9, 41
	hlo := fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = pred[%[2]d,%[3]d] parameter(0)
  io = s32[%[2]d,%[3]d] iota(), iota_dimension=1
  init = pred[] constant(false)
  z = s32[] constant(0)
  ROOT r = (pred[%[2]d], s32[%[2]d]) reduce(x, io, init, z), dimensions={1}, to_apply=red
}`, argReducer("pred", "GT", "LT"), rows, n)
	x, err := ir.NewLiteral(ir.MakeShape(ir.PRED, rows, n))
	if err != nil {
		t.Fatal(err)
	}
	b := x.Bytes()
	for i := range b {
		if r.IntN(3*(1+i/n)) == 0 { // rows with fewer trues further down, the last ones often none
			b[i] = 1
		}
	}
	got := runModule(t, hlo, x)
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatal(err)
	}
	red := m.Computations[0]
	f, err := opsCompile(red)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ops.ArgReducer(f, ir.PRED, ir.S32); !ok {
		t.Errorf("the boolean argmax reducer is not recognised")
	}
	idx := ir.Values[int32](got[1])
	for row := 0; row < rows; row++ {
		want := 0
		for j := 0; j < n; j++ {
			if b[row*n+j] != 0 {
				want = j
				break
			}
		}
		if int(idx[row]) != want {
			t.Errorf("row %d: index %d, want %d", row, idx[row], want)
		}
	}
}

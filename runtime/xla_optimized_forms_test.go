package runtime_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
	"github.com/kilnml/kiln/runtime"
)

// Forms that XLA's CPU compiler writes into the modules it optimizes,
// which jax.jit(f).lower(x).compile().as_text() exports.

// specialF32s holds NaNs of both signs, both zeros, the infinities, a tie
// and ordinary values: what orders differ on.
func specialF32s(t *testing.T) *ir.Literal {
	t.Helper()
	nan := float32(math.NaN())
	vals := []float32{3, float32(math.Copysign(0, -1)), nan, -2, 0, float32(math.Inf(1)), -nan, 3, float32(math.Inf(-1)), 1.5, -7, 0.25}
	l, err := ir.LiteralFromSlice(vals, 2, 6)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestBitcastChangingTheElementType checks `s32 bitcast(f32)`: the bits
// reinterpreted, as bitcast-convert does, in the entry (where dimensions
// change too) and inside a sort's comparator, whose XLA-optimized form
// orders floats by their bits (the total order).
func TestBitcastChangingTheElementType(t *testing.T) {
	x := specialF32s(t)
	got, want := runBoth(t, `HloModule m
ENTRY e {
  x = f32[2,6] parameter(0)
  ROOT b = u32[3,4] bitcast(x)
}`, x)
	if !bytes.Equal(want[0].Bytes(), x.Bytes()) || !bytes.Equal(got[0].Bytes(), x.Bytes()) {
		t.Errorf("bitcast to u32: reference %v, compiled %v, want the input's bits", want[0], got[0])
	}
	// XLA's total order written with bitcasts (its comparison expander's
	// form) sorts as type=TOTALORDER does.
	const bits = `HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  zero = s32[] constant(0)
  mag = s32[] constant(2147483647)
  ai = s32[] bitcast(a)
  bi = s32[] bitcast(b)
  an = pred[] compare(ai, zero), direction=LT
  bn = pred[] compare(bi, zero), direction=LT
  ax = s32[] xor(mag, ai)
  bx = s32[] xor(mag, bi)
  ak = s32[] select(an, ax, ai)
  bk = s32[] select(bn, bx, bi)
  ROOT lt = pred[] compare(ak, bk), direction=LT
}
ENTRY e {
  x = f32[2,6] parameter(0)
  ROOT s = f32[2,6] sort(x), dimensions={1}, is_stable=true, to_apply=less
}`
	got, want = runBoth(t, bits, x)
	_, total := runBoth(t, `HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f32[2,6] parameter(0)
  ROOT s = f32[2,6] sort(x), dimensions={1}, is_stable=true, to_apply=less
}`, x)
	if !bytes.Equal(want[0].Bytes(), total[0].Bytes()) || !bytes.Equal(got[0].Bytes(), total[0].Bytes()) {
		t.Errorf("sort by the bits: reference %v, compiled %v, want %v", want[0], got[0], total[0])
	}
}

// TestXLATopKCustomCall checks XLA's TopK custom call against the topk op:
// comparators of two parameters and of four (values and indices), the
// total order's greater-than (largest first) and less-than (smallest),
// in the forms XLA writes; and that a comparator of another order is
// refused by name on both paths.
func TestXLATopKCustomCall(t *testing.T) {
	x := specialF32s(t)
	call := func(params, body string) string {
		return `HloModule m
cmp {
` + params + body + `
}
ENTRY e {
  x = f32[2,6] parameter(0)
  ROOT t = (f32[2,4], s32[2,4]) custom-call(x), custom_call_target="TopK", called_computations={cmp}, backend_config={is_stable = true}
}`
	}
	two := "  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
	four := two + "  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n"
	for _, c := range []struct {
		name, hlo string
		largest   bool
	}{
		{"gt", call(two, "  ROOT r = pred[] compare(a, b), direction=GT, type=TOTALORDER"), true},
		{"gt-four-params", call(four, "  ROOT r = pred[] compare(a, b), direction=GT, order=TOTAL"), true},
		{"lt", call(two, "  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, want := runBoth(t, c.hlo, x)
			largest := "true"
			if !c.largest {
				largest = "false"
			}
			_, top := runBoth(t, `HloModule m
ENTRY e {
  x = f32[2,6] parameter(0)
  ROOT t = (f32[2,4], s32[2,4]) topk(x), k=4, largest=`+largest+`
}`, x)
			wantTop := flatResults(top)
			for i, ls := range [][]*ir.Literal{flatResults(want), flatResults(got)} {
				path := []string{"reference", "compiled"}[i]
				if len(ls) != 2 {
					t.Fatalf("%s: %d results, want values and indices", path, len(ls))
				}
				for e := range 2 {
					if !bytes.Equal(ls[e].Bytes(), wantTop[e].Bytes()) {
						t.Errorf("%s: result %d %v, topk gives %v", path, e, ls[e], wantTop[e])
					}
				}
			}
		})
	}
	t.Run("partial-order", func(t *testing.T) {
		// IEEE's greater-than ranks no NaN: not the order topk has.
		m, err := ir.ParseModule(call(two, "  ROOT r = pred[] compare(a, b), direction=GT"))
		if err != nil {
			t.Fatal(err)
		}
		const want = "neither the total order's greater-than nor its less-than"
		if _, err := runtime.Compile(m); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Compile: %v, want an error containing %q", err, want)
		}
		if _, err := eval.Run(m, x); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("eval: %v, want an error containing %q", err, want)
		}
	})
}

// flatResults is a run's results with a tuple result's elements in its place.
func flatResults(ls []*ir.Literal) []*ir.Literal {
	if len(ls) == 1 && ls[0].Shape().IsTuple() {
		return ls[0].Elements()
	}
	return ls
}

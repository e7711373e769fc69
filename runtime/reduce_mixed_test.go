package runtime

import (
	"testing"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// Reducers computing in another floating-point precision than their
// operands or init values run compiled and agree with ir/eval bit for bit
// (reduce, reduce-window, variadic reduce, standard and general reducers).
func TestMixedPrecisionReducersCompiled(t *testing.T) {
	for _, hlo := range []string{`HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = bf16[6,70] parameter(0)
  z = bf16[] constant(0.5)
  ROOT r = f32[6] reduce(x, z), dimensions={1}, to_apply=add
}`, `HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[6,70] parameter(0)
  z = bf16[] constant(0.3)
  ROOT r = f32[70] reduce(x, z), dimensions={0}, to_apply=add
}`, `HloModule m
mx { a = f32[] parameter(0)  b = bf16[] parameter(1)  c = f32[] convert(b)  ROOT s = f32[] maximum(a, c) }
ENTRY e {
  x = f32[9,5] parameter(0)
  z = f32[] constant(-inf)
  ROOT r = f32[4,5] reduce-window(x, z), window={size=3x1 stride=2x1}, to_apply=mx
}`, `HloModule m
argmax {
  a = f32[] parameter(0)  ai = s32[] parameter(1)  b = f32[] parameter(2)  bi = s32[] parameter(3)
  c = pred[] compare(b, a), direction=GT
  ROOT t = (f32[], s32[]) tuple(f32[] select(c, b, a), s32[] select(c, bi, ai))
}
ENTRY e {
  x = bf16[4,30] parameter(0)
  i = s32[4,30] iota(), iota_dimension=1
  z = bf16[] constant(-inf)
  zi = s32[] constant(0)
  ROOT r = (f32[4], s32[4]) reduce(x, i, z, zi), dimensions={1}, to_apply=argmax
}`} {
		m, err := ir.ParseModule(hlo)
		if err != nil {
			t.Fatal(err)
		}
		var args []*ir.Literal
		for i, p := range m.Entry.Parameters {
			args = append(args, detrand.Literal(p.Shape, detrand.Seed("mixed", i)))
		}
		want, err := eval.Run(m, args...)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		got := runLiterals(t, e, args)
		for i := range want {
			if msg := sameValues(got[i], want[i], 0); msg != "" {
				t.Errorf("%s\nresult %d: %s", hlo, i, msg)
			}
		}
	}
}

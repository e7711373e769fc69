package eval

import (
	"testing"

	"github.com/kilnml/kiln/ir"
)

// Reducers of another floating-point precision than their operands or init
// values (XLA's VerifyReducerShape allows it): each value is converted to
// the type of the parameter it is passed as, and the results have the
// accumulators' type.
func TestMixedPrecisionReducers(t *testing.T) {
	bf := func(vals ...float32) *ir.Literal {
		l := ir.MustNewLiteral(ir.MakeShape(ir.BF16, len(vals)))
		for i, v := range vals {
			l.SetFloat64At(i, float64(v))
		}
		return l
	}
	for _, c := range []struct {
		name string
		hlo  string
		args []*ir.Literal
		want []float32
	}{
		{"bf16 elements, f32 accumulator", `HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = bf16[3] parameter(0)
  z = bf16[] constant(0.5)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add
}`, []*ir.Literal{bf(256, 1, 1)}, []float32{258.5}}, // in bf16, 256.5+1 would round back to 256
		{"f32 elements, bf16 element parameter", `HloModule m
add { a = f32[] parameter(0)  b = bf16[] parameter(1)  c = f32[] convert(b)  ROOT s = f32[] add(a, c) }
ENTRY e {
  x = f32[2] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add
}`, []*ir.Literal{vec[float32](1.001, 2.5)}, []float32{3.5}}, // 1.001 rounds to 1 in bf16
		{"windows with a bf16 init value", `HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[3] parameter(0)
  z = bf16[] constant(0.3)
  ROOT r = f32[2] reduce-window(x, z), window={size=2}, to_apply=add
}`, []*ir.Literal{vec[float32](1, 2, 4)}, []float32{0.30078125 + 3, 0.30078125 + 6}},
		{"nothing to reduce: the init value converted", `HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = bf16[2,0] parameter(0)
  z = bf16[] constant(0.3)
  ROOT r = f32[2] reduce(x, z), dimensions={1}, to_apply=add
}`, []*ir.Literal{ir.MustNewLiteral(ir.MakeShape(ir.BF16, 2, 0))}, []float32{0.30078125, 0.30078125}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := ir.ParseModule(c.hlo)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Run(m, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			if out[0].Shape().Elem != ir.F32 {
				t.Fatalf("result %v, want f32", out[0].Shape())
			}
			got := out[0].Float32s()
			for i, w := range c.want {
				if got[i] != w {
					t.Errorf("element %d is %v, want %v", i, got[i], w)
				}
			}
		})
	}
}

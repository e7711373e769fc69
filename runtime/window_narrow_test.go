package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// TestReduceWindowNarrow runs max and min pooling in bfloat16 and binary16
// (reducers of the operand's type) and float32 pooling with reducers
// rounded through them (XLA's optimized forms) on the float32 pooling
// path, with windows that lie wholly on padding, init values the narrow
// type holds and one it does not (the generic fold then), and checks them
// bit for bit against the evaluator, NaNs as NaNs.
func TestReduceWindowNarrow(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	reducers := map[string]string{
		"standard":  "  a = T[] parameter(0)\n  b = T[] parameter(1)\n  ROOT m = T[] OP(a, b)",
		"op-in-R":   "  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ca = R[] convert(a)\n  cb = R[] convert(b)\n  m = R[] OP(ca, cb)\n  ROOT c = f32[] convert(m)",
		"through-R": "  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  m = f32[] OP(b, a)\n  c = R[] convert(m)\n  ROOT d = f32[] convert(c)",
	}
	for _, rt := range []string{"bf16", "f16"} {
		for _, op := range []string{"maximum", "minimum"} {
			for form, body := range reducers {
				typ := "f32"
				if form == "standard" {
					typ = rt
				}
				for _, init := range []string{"-inf", "inf", "0.1"} {
					name := fmt.Sprintf("%s/%s/%s/init=%s", rt, op, form, init)
					t.Run(name, func(t *testing.T) {
						red := strings.NewReplacer("T[", typ+"[", "R[", rt+"[", "OP", op).Replace(body)
						hlo := fmt.Sprintf(`HloModule m
red {
%s
}
ENTRY e {
  x = %[2]s[2,9,10,24] parameter(0)
  init = %[2]s[] constant(%[3]s)
  ROOT p = %[2]s[2,6,7,24] reduce-window(x, init), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_3x2_3x0_0}, to_apply=red
}`, red, typ, init)
						m, err := ir.ParseModule(hlo)
						if err != nil {
							t.Fatal(err)
						}
						x := randomLiteral(r, ir.MakeShape(ir.F32, 2, 9, 10, 24))
						vals := ir.Values[float32](x)
						for i := range vals {
							vals[i] *= 1000 // beyond binary16 for some
							if r.IntN(97) == 0 {
								vals[i] = float32(math.NaN())
							}
						}
						if typ != "f32" {
							et, _ := ir.ParseElementType(typ)
							if x, err = ir.ConvertLiteral(x, et); err != nil {
								t.Fatal(err)
							}
						}
						want, err := eval.Run(m, x)
						if err != nil {
							t.Fatal(err)
						}
						exe, err := Compile(m)
						if err != nil {
							t.Fatal(err)
						}
						if k := exe.Stats().Kernels; len(k) != 1 || k[0].Impl != "reduce-window-narrow" {
							t.Fatalf("runs %v, want the narrow pooling", k)
						}
						got := runLiterals(t, exe, []*ir.Literal{x})[0]
						for i := 0; i < got.ElementCount(); i++ {
							g, w := got.Float64At(i), want[0].Float64At(i)
							if math.Float64bits(g) != math.Float64bits(w) && !(g != g && w != w) {
								t.Fatalf("element %d: %v, the evaluator's %v", i, g, w)
							}
						}
					})
				}
			}
		}
	}
}

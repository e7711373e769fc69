package runtime

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// TestReduceWindowNarrow runs max, min, sum and product pooling in
// bfloat16 and binary16 (reducers of the operand's type) and float32
// pooling with reducers rounded through them (XLA's optimized forms) on
// the float32 pooling path, with windows that lie wholly on padding, init
// values the narrow type holds and one it does not (the generic fold then,
// for max and min), and checks them bit for bit against the evaluator,
// NaNs as NaNs, and that a run allocates nothing.
func TestReduceWindowNarrow(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	reducers := map[string]string{
		"standard":  "  a = T[] parameter(0)\n  b = T[] parameter(1)\n  ROOT m = T[] OP(a, b)",
		"op-in-R":   "  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ca = R[] convert(a)\n  cb = R[] convert(b)\n  m = R[] OP(ca, cb)\n  ROOT c = f32[] convert(m)",
		"through-R": "  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  m = f32[] OP(b, a)\n  c = R[] convert(m)\n  ROOT d = f32[] convert(c)",
	}
	for _, rt := range []string{"bf16", "f16"} {
		for _, op := range []string{"maximum", "minimum", "add", "multiply"} {
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
						scale := float32(1000) // beyond binary16 for some
						if op == "multiply" {
							scale = 1.5
						}
						for i := range vals {
							vals[i] *= scale
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
						impl := "reduce-window-narrow"
						if form == "op-in-R" && (op == "add" || op == "multiply") {
							impl = "reduce-window" // the op's operands rounded first: not on the pooling path
						}
						if k := exe.Stats().Kernels; len(k) != 1 || k[0].Impl != impl {
							t.Fatalf("runs %v, want %s", k, impl)
						}
						got := runLiterals(t, exe, []*ir.Literal{x})[0]
						if !raceEnabled {
							in := []*Tensor{TensorFromLiteral(x)}
							out, err := NewTensor(exe.ResultShapes()[0])
							if err != nil {
								t.Fatal(err)
							}
							if a := steadyAllocs(5, func() { _ = exe.RunInto(context.Background(), []*Tensor{out}, in...) }); a != 0 {
								t.Errorf("%v allocations per run", a)
							}
						}
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

// TestReduceWindowNarrowThreads runs a bfloat16 sum pooling and a float32
// one rounded through binary16 large enough to be split between two
// threads (each rounding through its own buffer), against the evaluator.
func TestReduceWindowNarrowThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	for _, c := range []struct{ typ, red string }{
		{"bf16", "  a = bf16[] parameter(0)\n  b = bf16[] parameter(1)\n  ROOT m = bf16[] add(a, b)"},
		{"f32", "  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  m = f32[] add(a, b)\n  c = f16[] convert(m)\n  ROOT d = f32[] convert(c)"},
	} {
		t.Run(c.typ, func(t *testing.T) {
			m, err := ir.ParseModule(fmt.Sprintf(`HloModule m
red {
%s
}
ENTRY e {
  x = %[2]s[4,64,64,16] parameter(0)
  init = %[2]s[] constant(0)
  ROOT p = %[2]s[4,32,32,16] reduce-window(x, init), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=red
}`, c.red, c.typ))
			if err != nil {
				t.Fatal(err)
			}
			x := randomLiteral(r, ir.MakeShape(ir.F32, 4, 64, 64, 16))
			if c.typ == "bf16" {
				if x, err = ir.ConvertLiteral(x, ir.BF16); err != nil {
					t.Fatal(err)
				}
			}
			want, err := eval.Run(m, x)
			if err != nil {
				t.Fatal(err)
			}
			exe, err := Compile(m, WithThreads(2))
			if err != nil {
				t.Fatal(err)
			}
			if k := exe.Stats().Kernels; len(k) != 1 || k[0].Impl != "reduce-window-narrow" {
				t.Fatalf("runs %v, want the narrow pooling", k)
			}
			got := runLiterals(t, exe, []*ir.Literal{x})[0]
			if !bytes.Equal(got.Bytes(), want[0].Bytes()) {
				for i := 0; i < got.ElementCount(); i++ {
					if got.Float64At(i) != want[0].Float64At(i) {
						t.Fatalf("element %d: %v, the evaluator's %v", i, got.Float64At(i), want[0].Float64At(i))
					}
				}
			}
		})
	}
}

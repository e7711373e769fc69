package eval

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// roundedReducers are reducers computing a standard op in another
// precision than their float32 accumulator, as XLA's optimized modules
// write them: the op in bfloat16 or binary16 between converts, or in
// float32 with its result rounded through the narrow type.
var roundedReducers = []struct{ name, body string }{
	{"op-in-R", `  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ca = R[] convert(a)
  cb = R[] convert(b)
  m = R[] OP(ca, cb)
  ROOT r = f32[] convert(m)`},
	{"op-in-R-swapped", `  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ca = R[] convert(a)
  cb = R[] convert(b)
  m = R[] OP(cb, ca)
  ROOT r = f32[] convert(m)`},
	{"result-through-R", `  a = f32[] parameter(0)
  b = f32[] parameter(1)
  m = f32[] OP(a, b)
  c = R[] convert(m)
  ROOT r = f32[] convert(c)`},
}

// TestRoundedReducers checks reductions and reduce-windows with rounded
// reducers (folded directly, without the computation) against the same
// reducer behind an identity select, which the fold does not recognise and
// so runs as written: bit for bit, NaNs included.
func TestRoundedReducers(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	x, err := ir.NewLiteral(ir.MakeShape(ir.F32, 7, 61))
	if err != nil {
		t.Fatal(err)
	}
	vals := ir.Values[float32](x)
	for i := range vals {
		vals[i] = float32(r.NormFloat64() * 3)
		switch r.IntN(50) {
		case 0:
			vals[i] = float32(math.NaN())
		case 1:
			vals[i] = float32(math.Inf(1 - 2*r.IntN(2)))
		case 2:
			vals[i] = float32(math.Copysign(0, -1))
		case 3:
			vals[i] = 70000 // beyond binary16
		}
	}
	for _, rt := range []string{"bf16", "f16"} {
		for _, op := range []string{"add", "multiply", "maximum", "minimum"} {
			for _, red := range roundedReducers {
				body := strings.NewReplacer("R[", rt+"[", "OP", op).Replace(red.body)
				hidden := strings.Replace(body, "ROOT r = f32[]", "y = f32[]", 1) +
					"\n  t = pred[] constant(true)\n  ROOT r = f32[] select(t, y, y)"
				for _, form := range []string{
					"ROOT o = f32[7] reduce(x, init), dimensions={1}, to_apply=red",
					"ROOT o = f32[7,31] reduce-window(x, init), window={size=1x3 stride=1x2 pad=0_0x1_1}, to_apply=red",
					"ROOT o = f32[7,61] reduce-window(x, init), window={size=1x61 pad=0_0x60_0}, to_apply=red",
				} {
					mod := func(b string) string {
						return fmt.Sprintf("HloModule m\nred {\n%s\n}\nENTRY e {\n  x = f32[7,61] parameter(0)\n  init = f32[] constant(0.5)\n  %s\n}\n", b, form)
					}
					t.Run(fmt.Sprintf("%s/%s/%s/%.22s", rt, op, red.name, form[len("ROOT o = f32[7,31] "):]), func(t *testing.T) {
						got := runModule(t, mod(body), x)[0]
						want := runModule(t, mod(hidden), x)[0]
						if !bytes.Equal(got.Bytes(), want.Bytes()) {
							t.Errorf("differs from the reducer as written:\n got %v\nwant %v", got, want)
						}
					})
				}
			}
		}
	}
}

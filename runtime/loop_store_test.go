package runtime

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// TestLoopNarrowingStore runs quantizations — scale, round, clamp (or
// not: the conversion saturates), convert to s8, u8, s16 or u16 — on the
// float32 loop with the conversion on the store, and checks them bit for
// bit against the evaluator on values that exercise the conversion: NaN,
// the infinities, halves, out-of-range values of both signs.
func TestLoopNarrowingStore(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	x, err := ir.NewLiteral(ir.MakeShape(ir.F32, 1031))
	if err != nil {
		t.Fatal(err)
	}
	v := ir.Values[float32](x)
	edges := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0.5, -0.5, 1.5, -2.5, 127.5, -128.5, 255.5, 300, -300, 70000, -70000, 32767.5}
	for i := range v {
		if i < len(edges) {
			v[i] = edges[i] / 20
		} else {
			v[i] = float32(r.NormFloat64() * 100)
		}
	}
	for _, et := range []string{"s8", "u8", "s16", "u16"} {
		for _, clamp := range []bool{true, false} {
			body := `  y = f32[1031] round-nearest-even(m)
  ROOT q = %[1]s[1031] convert(y)`
			if clamp {
				body = `  r = f32[1031] round-nearest-even(m)
  lo = f32[] constant(-100)
  lob = f32[1031] broadcast(lo), dimensions={}
  hi = f32[] constant(200)
  hib = f32[1031] broadcast(hi), dimensions={}
  y = f32[1031] clamp(lob, r, hib)
  ROOT q = %[1]s[1031] convert(y)`
			}
			hlo := fmt.Sprintf(`HloModule m
ENTRY e {
  x = f32[1031] parameter(0)
  s = f32[] constant(20)
  sb = f32[1031] broadcast(s), dimensions={}
  m = f32[1031] multiply(x, sb)
`+body+`
}`, et)
			m, err := ir.ParseModule(hlo)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := eval.Run(m, x)
			if err != nil {
				t.Fatal(err)
			}
			exe, err := Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			got, want := runLiterals(t, exe, []*ir.Literal{x})[0], ref[0]
			if k := exe.Stats().Kernels; len(k) != 1 || k[0].Impl != "loop" {
				t.Errorf("%s clamp=%v: runs %v, want one float32 loop", et, clamp, k)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s clamp=%v: differs from the evaluator:\n got %v\nwant %v", et, clamp, got, want)
			}
		}
	}
}

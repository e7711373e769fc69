package runtime

import "testing"

// SiLU after a dense layer and after convolutions (weights constant or
// packed on every run: the convolution kernels' epilogue) runs as the
// epilogue and agrees with the reference evaluator.
func TestSiLUEpilogue(t *testing.T) {
	for _, c := range []struct{ name, hlo, kind string }{
		{"dense", `HloModule silu
ENTRY main {
  x = f32[5,70] parameter(0)
  w = f32[70,33] parameter(1)
  b = f32[33] parameter(2)
  d = f32[5,33] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[5,33] broadcast(b), dimensions={1}
  a = f32[5,33] add(d, bb)
  l = f32[5,33] logistic(a)
  ROOT r = f32[5,33] multiply(l, a)
}`, "dot"},
		{"conv-runtime-weights", `HloModule silu
ENTRY main {
  x = f32[1,9,9,4] parameter(0)
  w = f32[3,3,4,6] parameter(1)
  y = f32[1,9,9,6] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  l = f32[1,9,9,6] logistic(y)
  ROOT r = f32[1,9,9,6] multiply(y, l)
}`, "conv"},
		{"conv-constant-weights", `HloModule silu
ENTRY main {
  x = f32[1,6,6,2] parameter(0)
  w = f32[1,1,2,3] constant({{{{0.5, -1, 2}, {1.5, 0.25, -0.75}}}})
  y = f32[1,6,6,3] convolution(x, w), window={size=1x1}, dim_labels=b01f_01io->b01f
  l = f32[1,6,6,3] logistic(y)
  ROOT r = f32[1,6,6,3] multiply(y, l)
}`, "conv"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, e := compileText(t, c.hlo)
			if ks := e.Stats().Kernels; len(ks) != 1 || ks[0].Kind != c.kind {
				t.Fatalf("want one %s kernel with the SiLU epilogue:\n%s", c.kind, e.Stats())
			}
			checkAgainstEval(t, m, e, 1e-5)
		})
	}
}

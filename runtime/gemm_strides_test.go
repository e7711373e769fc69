package runtime

import "testing"

// Dots whose operands the GEMM reads in place, through transposes,
// reshapes, slices and a scale, agree with the reference evaluator:
// attention scores and context per (batch, head) over [batch, seq, heads,
// dim] operands, a transposed weight, a slice of a wider matrix, at 1 and
// 3 threads, fused and not.
func TestGemmReadsOperandsInPlace(t *testing.T) {
	cases := []struct {
		name    string
		kernels int // in the fused plan: the dots, and attention's final transpose
		hlo     string
	}{
		{"attention", 3, `HloModule attention
ENTRY main {
  q = f32[2,9,3,5] parameter(0)
  k = f32[2,9,3,5] parameter(1)
  v = f32[2,9,3,5] parameter(2)
  c = f32[] constant(0.25)
  cb = f32[2,9,3,5] broadcast(c), dimensions={}
  qs = f32[2,9,3,5] multiply(q, cb)
  s = f32[2,3,9,9] dot(qs, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}
  o = f32[2,3,9,5] dot(s, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={1}
  t = f32[2,9,3,5] transpose(o), dimensions={0,2,1,3}
  ROOT r = f32[2,9,15] reshape(t)
}`},
		{"transposed-weight", 1, `HloModule tw
ENTRY main {
  x = f32[7,11] parameter(0)
  w = f32[13,11] parameter(1)
  wt = f32[11,13] transpose(w), dimensions={1,0}
  ROOT d = f32[7,13] dot(x, wt), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`},
		{"slice", 1, `HloModule sl
ENTRY main {
  x = f32[6,20] parameter(0)
  w = f32[8,10] parameter(1)
  xs = f32[6,8] slice(x), slice={[0:6], [5:13]}
  ROOT d = f32[6,10] dot(xs, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, opts := range [][]Option{{WithThreads(1)}, {WithThreads(3)}, {WithoutFusion()}} {
				m, e := compileText(t, c.hlo, opts...)
				checkAgainstEval(t, m, e, 1e-5)
			}
			_, e := compileText(t, c.hlo)
			if n := len(e.Stats().Kernels); n != c.kernels {
				t.Errorf("fused plan has %d kernels, want %d:\n%s", n, c.kernels, e.Stats())
			}
		})
	}
}

package runtime

import (
	"fmt"
	"testing"
)

// attentionHLO is multi-head attention as JAX writes it: q, k, v
// [batch, seq, heads, dim], q scaled, the scores per (batch, head) with an
// optional additive mask broadcast over the heads, softmax along the keys
// (max, exp, sum, divide), the context per (batch, head), transposed back.
func attentionHLO(b, s, h, d int, mask bool) string {
	scores := fmt.Sprintf("f32[%d,%d,%d,%d]", b, h, s, s)
	in := fmt.Sprintf("f32[%d,%d,%d,%d]", b, s, h, d)
	x := "sc"
	maskText := ""
	if mask {
		maskText = fmt.Sprintf(`
  m = f32[%d,%d,%d] parameter(3)
  mb = %s broadcast(m), dimensions={0,2,3}
  sm = %s add(sc, mb)`, b, s, s, scores, scores)
		x = "sm"
	}
	return fmt.Sprintf(`HloModule attention
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  q = %[1]s parameter(0)
  k = %[1]s parameter(1)
  v = %[1]s parameter(2)
  c = f32[] constant(0.125)
  cb = %[1]s broadcast(c), dimensions={}
  qs = %[1]s multiply(q, cb)
  sc = %[2]s dot(qs, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}%[3]s
  ninf = f32[] constant(-inf)
  mx = f32[%[4]d,%[5]d,%[6]d] reduce(%[7]s, ninf), dimensions={3}, to_apply=max
  mxb = %[2]s broadcast(mx), dimensions={0,1,2}
  d = %[2]s subtract(%[7]s, mxb)
  e = %[2]s exponential(d)
  z = f32[] constant(0)
  se = f32[%[4]d,%[5]d,%[6]d] reduce(e, z), dimensions={3}, to_apply=add
  seb = %[2]s broadcast(se), dimensions={0,1,2}
  p = %[2]s divide(e, seb)
  o = f32[%[4]d,%[5]d,%[6]d,%[8]d] dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={1}
  ROOT t = %[1]s transpose(o), dimensions={0,2,1,3}
}`, in, scores, maskText, b, h, s, x, d)
}

// Attention runs as one kernel — scores, mask, softmax and context per
// tile of query rows, the scores never in memory — and agrees with the
// reference evaluator: with and without a mask, one tile and many (a
// sequence longer than a tile, with a partial last one), 1 and 3 threads.
func TestAttentionIsOneKernel(t *testing.T) {
	for _, c := range []struct {
		b, s, h, d int
		mask       bool
	}{
		{1, 16, 2, 8, false},
		{2, 24, 3, 8, true},
		{1, 600, 2, 16, true},
	} {
		t.Run(fmt.Sprintf("b%d_s%d_h%d_d%d_mask%v", c.b, c.s, c.h, c.d, c.mask), func(t *testing.T) {
			for _, threads := range []int{1, 3} {
				m, e := compileText(t, attentionHLO(c.b, c.s, c.h, c.d, c.mask), WithThreads(threads))
				found := false
				for _, k := range e.Stats().Kernels {
					if k.Kind == "attention" && k.Impl == "attention" {
						found = true
					}
				}
				if !found {
					t.Fatalf("no attention kernel:\n%s", e.Stats())
				}
				checkAgainstEval(t, m, e, 2e-5)
			}
		})
	}
}

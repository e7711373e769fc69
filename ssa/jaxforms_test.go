package ssa

import (
	"strings"
	"testing"
)

// Layer-norm as JAX's layer_norm writes it (XLA's CPU benchmark
// layer_norm_1x4096x768, here in f32 and small): keepdims reshapes for
// broadcast_in_dim, the mean as Σx / N, identity broadcasts, the centred
// variance, and a division by a broadcast square root. The hoist pass
// moves the per-row work before the broadcasts and the keepdims reshapes
// cancel, after which the pattern is the fused layer-norm.
const jaxLayerNormHLO = `
region_0.1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
region_1.2 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main.3 {
  x.1 = f32[1,8,16] parameter(0)
  convert_element_type.4 = f32[1,8,16] convert(x.1)
  constant.5 = f32[] constant(0)
  reduce_sum.14 = f32[1,8] reduce(convert_element_type.4, constant.5), dimensions={2}, to_apply=region_0.1
  broadcast_in_dim.2 = f32[1,8,1] reshape(reduce_sum.14)
  constant.4 = f32[] constant(16)
  broadcast.1 = f32[1,8,1] broadcast(constant.4), dimensions={}
  div.6 = f32[1,8,1] divide(broadcast_in_dim.2, broadcast.1)
  convert_element_type.5 = f32[1,8,1] convert(div.6)
  sub.12 = f32[1,8,1] broadcast(convert_element_type.5), dimensions={0,1,2}
  sub.13 = f32[1,8] reshape(sub.12)
  sub.14 = f32[1,8,16] broadcast(sub.13), dimensions={0,1}
  sub.15 = f32[1,8,16] subtract(x.1, sub.14)
  sub.8 = f32[1,8,1] broadcast(convert_element_type.5), dimensions={0,1,2}
  sub.9 = f32[1,8] reshape(sub.8)
  sub.10 = f32[1,8,16] broadcast(sub.9), dimensions={0,1}
  sub.11 = f32[1,8,16] subtract(x.1, sub.10)
  integer_pow.1 = f32[1,8,16] multiply(sub.11, sub.11)
  convert_element_type.6 = f32[1,8,16] convert(integer_pow.1)
  reduce_sum.15 = f32[1,8] reduce(convert_element_type.6, constant.5), dimensions={2}, to_apply=region_1.2
  broadcast_in_dim.3 = f32[1,8,1] reshape(reduce_sum.15)
  div.7 = f32[1,8,1] divide(broadcast_in_dim.3, broadcast.1)
  convert_element_type.7 = f32[1,8,1] convert(div.7)
  constant.3 = f32[] constant(1.001e-05)
  add.2 = f32[1,8,1] broadcast(constant.3), dimensions={}
  add.3 = f32[1,8,1] add(convert_element_type.7, add.2)
  sqrt.1 = f32[1,8,1] sqrt(add.3)
  div.8 = f32[1,8,1] broadcast(sqrt.1), dimensions={0,1,2}
  div.9 = f32[1,8] reshape(div.8)
  div.10 = f32[1,8,16] broadcast(div.9), dimensions={0,1}
  ROOT div.11 = f32[1,8,16] divide(sub.15, div.10)
}`

func TestJAXLayerNormIsFused(t *testing.T) {
	m, p := lowerText(t, "HloModule jit_layer_norm\n"+jaxLayerNormHLO)
	runPasses(t, p, "simplify", "hoist", "simplify-hoisted", "cse-hoisted", "patterns", "dce")
	got := entryText(t, p)
	if !strings.Contains(got, `custom_call_target="kiln.layer-norm"`) || strings.Count(got, "reduce(") != 0 {
		t.Fatalf("want one fused layer-norm and no reductions left, got:\n%s", got)
	}
	// The kernel multiplies by rsqrt where JAX divides by sqrt: a few ULP.
	checkEquivalent(t, m, p, tolerance{1e-6, 1e-5})
}

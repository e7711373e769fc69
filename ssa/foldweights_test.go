package ssa

import (
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"
)

// literalText writes an f32 constant of the given dimensions with
// deterministic values in HLO's nested-brace form.
func literalText(dims []int, seed int) string {
	i := 0
	var rec func(d int) string
	rec = func(d int) string {
		if d == len(dims) {
			i++
			return fmt.Sprintf("%.4g", math.Sin(float64(seed*7919+i))*1.5)
		}
		parts := make([]string, dims[d])
		for k := range parts {
			parts[k] = rec(d + 1)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return rec(0)
}

// opCounts counts the values of each op in the entry function.
func opCounts(p *Program) map[string]int {
	n := map[string]int{}
	for _, v := range p.Entry.Values {
		n[v.Op.String()]++
	}
	return n
}

// batchNormForms are an inference batch-norm of y (f32[1,6,6,3], over the
// names mean, var, scale, bias, b0 and eps) in the forms Flax ((y −
// mean)·(scale·rsqrt(var + ε)) + bias, the broadcasts written before the
// per-channel work) and Keras (y·inv + (beta − mean·inv)) and XLA's
// batch-norm-inference op produce, and with a bias before it.
var batchNormForms = map[string]string{
	"flax": `
  bm = f32[1,6,6,3] broadcast(mean), dimensions={3}
  d = f32[1,6,6,3] subtract(y, bm)
  bv = f32[1,6,6,3] broadcast(var), dimensions={3}
  be = f32[1,6,6,3] broadcast(eps), dimensions={}
  ve = f32[1,6,6,3] add(bv, be)
  r = f32[1,6,6,3] rsqrt(ve)
  bs = f32[1,6,6,3] broadcast(scale), dimensions={3}
  rs = f32[1,6,6,3] multiply(r, bs)
  m = f32[1,6,6,3] multiply(d, rs)
  bb = f32[1,6,6,3] broadcast(bias), dimensions={3}
  ROOT out = f32[1,6,6,3] add(m, bb)`,
	"keras": `
  e3 = f32[3] broadcast(eps), dimensions={}
  ve = f32[3] add(var, e3)
  rv = f32[3] rsqrt(ve)
  inv = f32[3] multiply(rv, scale)
  mi = f32[3] multiply(mean, inv)
  shift = f32[3] subtract(bias, mi)
  binv = f32[1,6,6,3] broadcast(inv), dimensions={3}
  m = f32[1,6,6,3] multiply(y, binv)
  bsh = f32[1,6,6,3] broadcast(shift), dimensions={3}
  ROOT out = f32[1,6,6,3] add(m, bsh)`,
	"batch-norm-inference": `
  ROOT out = f32[1,6,6,3] batch-norm-inference(y, scale, bias, mean, var), epsilon=0.001, feature_index=3`,
	"conv-bias-then-flax": `
  bb0 = f32[1,6,6,3] broadcast(b0), dimensions={3}
  yb = f32[1,6,6,3] add(y, bb0)
  bm = f32[1,6,6,3] broadcast(mean), dimensions={3}
  d = f32[1,6,6,3] subtract(yb, bm)
  e3 = f32[3] broadcast(eps), dimensions={}
  ve = f32[3] add(var, e3)
  rv = f32[3] rsqrt(ve)
  inv = f32[3] multiply(rv, scale)
  binv = f32[1,6,6,3] broadcast(inv), dimensions={3}
  m = f32[1,6,6,3] multiply(d, binv)
  bb = f32[1,6,6,3] broadcast(bias), dimensions={3}
  ROOT out = f32[1,6,6,3] add(m, bb)`,
}

// Inference batch-norm after a convolution with bound weights, in the forms
// Flax ((y − mean)·(scale·rsqrt(var + ε)) + bias, the broadcasts written
// before the per-channel work) and Keras (y·inv + (beta − mean·inv)) and
// XLA's batch-norm-inference op produce, folds into the convolution's
// weights and one per-channel bias; with a bias before the batch-norm too.
func TestFoldBatchNormIntoConv(t *testing.T) {
	const c = 3
	consts := fmt.Sprintf(`
  w = f32[3,3,2,%d] constant(%s)
  mean = f32[%d] constant(%s)
  var = f32[%d] constant({0.5, 1.25, 2})
  scale = f32[%d] constant(%s)
  bias = f32[%d] constant(%s)
  b0 = f32[%d] constant(%s)
  eps = f32[] constant(0.001)`, c, literalText([]int{3, 3, 2, c}, 1), c, literalText([]int{c}, 2), c, c, literalText([]int{c}, 3),
		c, literalText([]int{c}, 4), c, literalText([]int{c}, 5))
	conv := `
  x = f32[1,6,6,2] parameter(0)
  y = f32[1,6,6,3] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f`
	forms := batchNormForms

	for name, bn := range forms {
		t.Run(name, func(t *testing.T) {
			m, p := lowerText(t, "HloModule bn\nENTRY main {"+consts+conv+bn+"\n}")
			if err := Optimize(p, Options{Verify: true}); err != nil {
				t.Fatal(err)
			}
			n := opCounts(p)
			if n["convolution"] != 1 || n["add"] != 1 || n["multiply"]+n["subtract"]+n["rsqrt"] != 0 {
				t.Fatalf("want one convolution and one bias add, got %v:\n%s", n, p)
			}
			checkEquivalent(t, m, p, tolerance{1e-5, 1e-5})
		})
	}
}

// With the weights and the batch-norm's statistics passed at run time (the
// forms of TestFoldBatchNormIntoConv, the variance squared to keep it
// positive), the per-channel factor moves onto the weights — the
// convolution reads W·bcast(k), which sched fuses into the packing — and
// the shifts merge into one bias: no arithmetic on the activations is left
// but that bias add.
func TestFoldBatchNormRunTime(t *testing.T) {
	params := `
  x = f32[1,6,6,2] parameter(0)
  w = f32[3,3,2,3] parameter(1)
  mean = f32[3] parameter(2)
  v0 = f32[3] parameter(3)
  var = f32[3] multiply(v0, v0)
  scale = f32[3] parameter(4)
  bias = f32[3] parameter(5)
  b0 = f32[3] parameter(6)
  eps = f32[] constant(0.001)
  y = f32[1,6,6,3] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f`
	forms := maps.Clone(batchNormForms)
	forms["scale-only"] = `
  bs = f32[1,6,6,3] broadcast(scale), dimensions={3}
  ROOT out = f32[1,6,6,3] multiply(y, bs)`

	for name, bn := range forms {
		t.Run(name, func(t *testing.T) {
			m, p := lowerText(t, "HloModule bn\nENTRY main {"+params+bn+"\n}")
			if err := Optimize(p, Options{Verify: true}); err != nil {
				t.Fatal(err)
			}
			var conv *Value
			for _, v := range p.Entry.Values {
				if v.Op == OpConvolution {
					if conv != nil {
						t.Fatalf("two convolutions:\n%s", p)
					}
					conv = v
				}
			}
			if conv == nil {
				t.Fatalf("no convolution:\n%s", p)
			}
			if w := conv.Args[1]; w.Op != OpMultiply || w.Args[0].Op != OpParameter || w.Args[1].Op != OpBroadcast {
				t.Fatalf("the convolution reads %s, want the weights times a broadcast factor:\n%s", w.Op, p)
			}
			for _, v := range p.Entry.Values {
				if v.Shape.Rank() == 4 && v.Shape.Dims[1] == 6 && v.Op != OpConvolution && v.Op != OpBroadcast && v.Op != OpAdd && v.Op != OpParameter {
					t.Fatalf("%s on the activations is left:\n%s", v.Op, p)
				}
			}
			checkEquivalent(t, m, p, tolerance{1e-5, 1e-5})
		})
	}
}

// Constant weights with factors known only at run time keep their
// compile-time packing: the weights are not scaled.
func TestNoRunTimeScaleOfConstantWeights(t *testing.T) {
	_, p := lowerText(t, fmt.Sprintf(`HloModule bn
ENTRY main {
  x = f32[1,6,6,2] parameter(0)
  w = f32[3,3,2,3] constant(%s)
  s = f32[3] parameter(1)
  y = f32[1,6,6,3] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bs = f32[1,6,6,3] broadcast(s), dimensions={3}
  ROOT m = f32[1,6,6,3] multiply(y, bs)
}`, literalText([]int{3, 3, 2, 3}, 1)))
	if err := Optimize(p, Options{Verify: true}); err != nil {
		t.Fatal(err)
	}
	for _, v := range p.Entry.Values {
		if v.Op == OpConvolution && !v.Args[1].IsConstant() {
			t.Fatalf("constant weights were scaled at run time:\n%s", p)
		}
	}
}

// Constant weights of another layout (OIHW) bigger than constant folding's
// bounds are transposed once at compile time: the convolution reads a
// constant.
func TestWeightsOfOtherLayoutsAreMaterialised(t *testing.T) {
	m, p := lowerText(t, fmt.Sprintf(`HloModule oihw
ENTRY main {
  x = f32[1,64,5,5] parameter(0)
  w = f32[64,64,3,3] constant(%s)
  ROOT y = f32[1,64,5,5] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
}`, literalText([]int{64, 64, 3, 3}, 9)))
	if err := Optimize(p, Options{Verify: true}); err != nil {
		t.Fatal(err)
	}
	for _, v := range p.Entry.Values {
		if v.Op == OpConvolution && !v.Args[1].IsConstant() {
			t.Fatalf("the convolution's weights are %s, want a constant:\n%s", v.Args[1].Op, p)
		}
	}
	checkEquivalentSeeds(t, m, p, tolerance{1e-4, 1e-5}, 1)
}

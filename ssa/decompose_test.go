package ssa

import (
	"strings"
	"testing"
)

func TestDecomposeText(t *testing.T) {
	runPassCases(t, []passCase{
		{name: "clamp", passes: []string{"decompose", "dce"}, in: `
			lo = f32[] parameter(0)
			x = f32[5] parameter(1)
			hi = f32[] parameter(2)
			blo = f32[5] broadcast(lo), dimensions={}
			bhi = f32[5] broadcast(hi), dimensions={}
			ROOT c = f32[5] clamp(blo, x, bhi)`,
			want: `
			lo = f32[] parameter(0)
			x = f32[5] parameter(1)
			hi = f32[] parameter(2)
			blo = f32[5] broadcast(lo), dimensions={}
			bhi = f32[5] broadcast(hi), dimensions={}
			maximum.1 = f32[5] maximum(x, blo)
			ROOT minimum.1 = f32[5] minimum(maximum.1, bhi)`},
	})
	// Batch-norm inference is written out once; the other forms are checked
	// by evaluation below.
	_, p := lowerText(t, moduleText(`
		x = f32[2,3] parameter(0)
		s = f32[3] parameter(1)
		o = f32[3] parameter(2)
		m = f32[3] parameter(3)
		v = f32[3] parameter(4)
		ROOT y = f32[2,3] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=1`))
	runPasses(t, p, "decompose", "dce")
	want := trimLines(`
		x = f32[2,3] parameter(0)
		s = f32[3] parameter(1)
		o = f32[3] parameter(2)
		m = f32[3] parameter(3)
		v = f32[3] parameter(4)
		constant.1 = f32[] constant(0.001)
		broadcast.1 = f32[3] broadcast(constant.1), dimensions={}
		add.1 = f32[3] add(v, broadcast.1)
		rsqrt.1 = f32[3] rsqrt(add.1)
		multiply.1 = f32[3] multiply(s, rsqrt.1)
		multiply.2 = f32[3] multiply(m, multiply.1)
		subtract.1 = f32[3] subtract(o, multiply.2)
		broadcast.2 = f32[2,3] broadcast(multiply.1), dimensions={1}
		multiply.3 = f32[2,3] multiply(x, broadcast.2)
		broadcast.3 = f32[2,3] broadcast(subtract.1), dimensions={1}
		ROOT add.2 = f32[2,3] add(multiply.3, broadcast.3)`)
	if got := entryText(t, p); got != want {
		t.Errorf("batch-norm-inference:\n%s\nwant:\n%s", got, want)
	}
}

func TestDecomposeBatchNorm(t *testing.T) {
	for _, c := range []struct {
		name string
		body string
		tol  tolerance
	}{
		{"inference, feature first", `
			x = f32[3,4,5] parameter(0)
			s = f32[3] parameter(1)
			o = f32[3] parameter(2)
			m = f32[3] parameter(3)
			v0 = f32[3] parameter(4)
			v = f32[3] multiply(v0, v0)
			ROOT y = f32[3,4,5] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=0`, tolerance{1e-6, 1e-5}},
		{"training", `
			x = f32[2,6,3] parameter(0)
			s = f32[6] parameter(1)
			o = f32[6] parameter(2)
			ROOT y = (f32[2,6,3], f32[6], f32[6]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1`, tolerance{1e-5, 1e-4}},
		{"training in bf16", `
			x = bf16[4,8] parameter(0)
			s = bf16[8] parameter(1)
			o = bf16[8] parameter(2)
			ROOT y = (bf16[4,8], bf16[8], bf16[8]) batch-norm-training(x, s, o), epsilon=0.01, feature_index=1`, tolerance{1e-2, 1e-2}},
		{"grad", `
			x = f32[5,4] parameter(0)
			s = f32[4] parameter(1)
			m = f32[4] parameter(2)
			v0 = f32[4] parameter(3)
			dy = f32[5,4] parameter(4)
			v = f32[4] multiply(v0, v0)
			ROOT g = (f32[5,4], f32[4], f32[4]) batch-norm-grad(x, s, m, v, dy), epsilon=0.001, feature_index=1`, tolerance{1e-4, 1e-4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, p := lowerText(t, moduleText(c.body))
			runPasses(t, p, "decompose", "simplify", "dce")
			if s := p.String(); strings.Contains(s, "batch-norm") {
				t.Fatalf("batch-norm left after decompose:\n%s", s)
			}
			checkEquivalent(t, m, p, c.tol)
		})
	}
}

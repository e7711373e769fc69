package bench

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Sizes of the example encoder layer (BERT-base).
const (
	encSeq    = 128
	encHidden = 768
	encHeads  = 12
	encHeadD  = 64
	encFFN    = 3072
	encEps    = 1e-6
)

// gonumEncoder is the example post-LN transformer encoder layer written
// directly with gonum: GEMMs for the projections, the attention products
// (one pair per batch element and head, reading the heads in place through
// strides) and the feed-forward layers; Go loops for bias, scaling,
// softmax, residuals, layer-norm and GELU.
type gonumEncoder struct {
	batch int
	// Weights by role.
	wq, bq, wk, bk, wv, bv, wo, bo []float32
	ln0s, ln0b, ln1s, ln1b         []float32
	w1, b1, w2, b2                 []float32
	// Activations, rows = batch·seq.
	q, k, v, ctx, attn, ln0, f1, f2, out []float32
	scores                               []float32 // seq×seq, one head at a time
}

func newGonumEncoder(m *model) *gonumEncoder {
	g := &gonumEncoder{batch: m.Batch}
	g.wq, g.bq = m.f32("attention/query/kernel"), m.f32("attention/query/bias")
	g.wk, g.bk = m.f32("attention/key/kernel"), m.f32("attention/key/bias")
	g.wv, g.bv = m.f32("attention/value/kernel"), m.f32("attention/value/bias")
	g.wo, g.bo = m.f32("attention/out/kernel"), m.f32("attention/out/bias")
	g.ln0s, g.ln0b = m.f32("LayerNorm_0/scale"), m.f32("LayerNorm_0/bias")
	g.w1, g.b1 = m.f32("Dense_0/kernel"), m.f32("Dense_0/bias")
	g.w2, g.b2 = m.f32("Dense_1/kernel"), m.f32("Dense_1/bias")
	g.ln1s, g.ln1b = m.f32("LayerNorm_1/scale"), m.f32("LayerNorm_1/bias")
	rows := m.Batch * encSeq
	buf := func(n int) []float32 { return make([]float32, n) }
	g.q, g.k, g.v, g.ctx = buf(rows*encHidden), buf(rows*encHidden), buf(rows*encHidden), buf(rows*encHidden)
	g.attn, g.ln0, g.f2, g.out = buf(rows*encHidden), buf(rows*encHidden), buf(rows*encHidden), buf(rows*encHidden)
	g.f1 = buf(rows * encFFN)
	g.scores = buf(encSeq * encSeq)
	return g
}

// forward computes the layer's output for x (batch×seq×hidden) into g.out.
func (g *gonumEncoder) forward(x []float32) []float32 {
	rows, h := g.batch*encSeq, encHidden
	denseInto(g.q, x, g.wq, g.bq, rows, h, h, false)
	denseInto(g.k, x, g.wk, g.bk, rows, h, h, false)
	denseInto(g.v, x, g.wv, g.bv, rows, h, h, false)
	for i := range g.q {
		g.q[i] *= 0.125 // 1/√64, applied to the projected queries as the model does
	}
	for b := 0; b < g.batch; b++ {
		for hd := 0; hd < encHeads; hd++ {
			// Head hd of batch element b: columns hd·64 … hd·64+63 of its
			// seq rows, read in place with row stride hidden.
			off := b*encSeq*h + hd*encHeadD
			q := matrix(encSeq, encHeadD, h, g.q[off:])
			k := matrix(encSeq, encHeadD, h, g.k[off:])
			v := matrix(encSeq, encHeadD, h, g.v[off:])
			s := matrix(encSeq, encSeq, encSeq, g.scores)
			blas32.Gemm(blas.NoTrans, blas.Trans, 1, q, k, 0, s)
			softmaxRows(g.scores, encSeq, encSeq)
			// The context lands in the heads' concatenation directly (the
			// model's transpose and reshape).
			blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, s, v, 0, matrix(encSeq, encHeadD, h, g.ctx[off:]))
		}
	}
	denseInto(g.attn, g.ctx, g.wo, g.bo, rows, h, h, false)
	for i, a := range g.attn {
		g.attn[i] = x[i] + a
	}
	layerNormInto(g.ln0, g.attn, g.ln0s, g.ln0b, rows, h, encEps)
	denseInto(g.f1, g.ln0, g.w1, g.b1, rows, h, encFFN, false)
	geluTanh(g.f1)
	denseInto(g.f2, g.f1, g.w2, g.b2, rows, encFFN, h, false)
	for i, f := range g.f2 {
		g.f2[i] = g.ln0[i] + f
	}
	layerNormInto(g.out, g.f2, g.ln1s, g.ln1b, rows, h, encEps)
	return g.out
}

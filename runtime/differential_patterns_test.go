package runtime_test

import (
	"math"

	"github.com/kilnml/kiln/ir"
)

// Generators of the subgraphs the compiler replaces by Kiln's fused ops
// (softmax, layer norm, GELU in both forms), written as JAX exports them,
// and of non-default layouts on parameters and results. ir/eval runs the
// subgraph op by op; the compiled plan runs the fused kernel (for f32; the
// other float types stay op by op).

func patternGens() []*opGen {
	return []*opGen{
		{name: "softmax", hlo: "exponential", types: floatOnly, variant: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
			b := g.b
			s := ir.MakeShape(t, g.rowDims()...)
			r := s.Rank()
			x := g.operand(s, niceValues)
			g.c.terms = s.Dims[r-1]
			lowest := ir.MustNewLiteral(ir.Scalar(t))
			setLowest(lowest)
			mx := b.Reduce(x, b.Constant(lowest), g.reducerNamed(t, "maximum").comp, []int{r - 1})
			e := b.Exp(b.Sub(x, g.rowBroadcast(mx, s)))
			sum := b.Reduce(e, b.Constant(ir.MustNewLiteral(ir.Scalar(t))), g.reducerNamed(t, "add").comp, []int{r - 1})
			return b.Div(e, g.rowBroadcast(sum, s))
		}},
		{name: "layer-norm", hlo: "rsqrt", types: floatOnly, variant: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
			b := g.b
			s := ir.MakeShape(t, g.rowDims()...)
			r := s.Rank()
			n := s.Dims[r-1]
			g.c.terms = n
			// A parameter of the full shape: an operand broadcast along
			// the rows would make them constant, their variance a rounding
			// error, and the normalised result that error magnified.
			x := g.param(s, niceValues)
			zero := b.Constant(ir.MustNewLiteral(ir.Scalar(t)))
			add := g.reducerNamed(t, "add").comp
			inv := g.scalar(t, 1/float64(n))
			mean := b.Mul(b.Reduce(x, zero, add, []int{r - 1}), inv)
			xc := b.Sub(x, g.rowBroadcast(mean, s))
			var variance ir.Op
			// flax's form cancels (ir/eval loses log2(E[x²]/var) bits the
			// kernel's centred variance keeps): only on rows long enough
			// that their mean is small against their spread.
			if n < 32 || g.coin() { // centred
				variance = b.Mul(b.Reduce(b.Mul(xc, xc), zero, add, []int{r - 1}), inv)
			} else { // flax: max(E[x²] − mean², 0)
				ex2 := b.Mul(b.Reduce(b.Mul(x, x), zero, add, []int{r - 1}), inv)
				variance = b.Max(b.Sub(ex2, b.Mul(mean, mean)), zero)
			}
			eps := g.scalar(t, pickOne(g, 1e-5, 1e-6, 1e-3))
			y := b.Mul(xc, g.rowBroadcast(b.Rsqrt(b.Add(variance, eps)), s))
			feature := ir.MakeShape(t, n)
			if g.coin() {
				y = b.Mul(y, b.BroadcastInDim(g.param(feature, niceValues), s.Dims, []int{r - 1}))
			}
			if g.coin() {
				y = b.Add(y, b.BroadcastInDim(g.param(feature, niceValues), s.Dims, []int{r - 1}))
			}
			return y
		}},
		{name: "gelu", hlo: "tanh", types: floatOnly, variant: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
			b := g.b
			s := ir.MakeShape(t, g.mainDims()...)
			x := g.operand(s, niceValues)
			half := g.scalar(t, 0.5)
			one := g.scalar(t, 1)
			var inner ir.Op
			if g.coin() { // tanh form
				cube := b.Mul(x, b.Mul(x, x))
				inner = b.Tanh(b.Mul(g.scalar(t, math.Sqrt(2/math.Pi)), b.Add(x, b.Mul(g.scalar(t, 0.044715), cube))))
			} else { // erf form
				inner = b.Erf(b.Div(x, g.scalar(t, math.Sqrt2)))
			}
			return b.Mul(b.Mul(half, x), b.Add(one, inner))
		}},
		epilogueGen(),
		layoutGen(),
	}
}

// epilogueGen builds the chains the scheduler fuses into a GEMM or a
// convolution: + bias (per column, or per row, which must not be taken for
// a column bias), + residual, then ReLU or GELU; sometimes the product has
// a second user, which must keep it unfused.
func epilogueGen() *opGen {
	return &opGen{name: "dot-epilogue", hlo: "dot", types: floatOnly, variant: true, huge: true, cases: 6, build: func(g *gen, t ir.ElementType) ir.Op {
		b := g.b
		d := g.dims(3)
		if g.mode == modeHuge {
			d = []int{g.between(60, 130), g.between(60, 130), g.between(60, 130)}
		}
		m, k, n := d[0], d[1], d[2]
		g.c.terms = k + 3
		g.c.bnd = &accum
		var y ir.Op
		var ydims []int
		feature := 1
		switch g.intn(3) {
		case 0: // matrix product
			y = b.Dot(g.operand(ir.MakeShape(t, m, k), niceValues), g.operand(ir.MakeShape(t, k, n), niceValues))
			ydims = []int{m, n}
		case 1: // batched, contracting the rhs's last dimension
			batch := g.between(1, 3)
			dn := ir.DotDimensionNumbers{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContracting: []int{2}, RhsContracting: []int{2}}
			y = b.DotGeneral(g.param(ir.MakeShape(t, batch, m, k), niceValues), g.param(ir.MakeShape(t, batch, n, k), niceValues), dn)
			ydims = []int{batch, m, n}
			feature = 2
		default: // NHWC convolution
			h, w := g.between(1, 6), g.between(1, 6)
			kh, kw := g.between(1, min(h, 3)), g.between(1, min(w, 3))
			dn := ir.ConvDimensionNumbers{InputBatch: 0, InputFeature: 3, InputSpatial: []int{1, 2},
				KernelSpatial: []int{0, 1}, KernelInputFeature: 2, KernelOutputFeature: 3,
				OutputBatch: 0, OutputFeature: 3, OutputSpatial: []int{1, 2}}
			cin := min(k, 8)
			y = b.ConvGeneral(g.param(ir.MakeShape(t, 1, h, w, cin), niceValues), g.param(ir.MakeShape(t, kh, kw, cin, n), niceValues),
				[]int{1, 1}, [][2]int{{0, 0}, {0, 0}}, dn)
			ydims = []int{1, h - kh + 1, w - kw + 1, n}
			feature = 3
			g.c.terms = kh*kw*cin + 3
		}
		s := ir.MakeShape(t, ydims...)
		if g.intn(4) == 0 {
			// A second user of the product keeps it a value of its own.
			y = b.Add(y, b.Neg(y))
		}
		if g.intn(4) != 0 {
			bdim := len(ydims) - 1
			if g.intn(4) == 0 {
				bdim = feature - 1 // a per-row vector: not a column bias
			}
			y = b.Add(y, b.BroadcastInDim(g.param(ir.MakeShape(t, ydims[bdim]), niceValues), ydims, []int{bdim}))
		}
		if g.coin() {
			y = b.Add(y, g.operand(s, niceValues))
		}
		switch g.intn(3) {
		case 0:
			y = b.Max(y, g.scalar(t, 0))
		case 1:
			y = b.Mul(b.Mul(g.scalar(t, 0.5), y), b.Add(g.scalar(t, 1), b.Erf(b.Mul(y, g.scalar(t, 1/math.Sqrt2)))))
			g.c.bnd = &bound{kind: boundNorm, n: 4}
		}
		return y
	}}
}

// rowDims draws the shape of a row-wise op: rank 1 to 3, rows of 1 to 300
// elements (big mode: long rows; huge mode: many rows).
func (g *gen) rowDims() []int {
	switch g.mode {
	case modeBig:
		return []int{g.between(1, 3), pickOne(g, 1023, 1025, 2049)}
	case modeHuge:
		return []int{g.between(60, 130), pickOne(g, 511, 768)}
	}
	d := g.dims(g.between(1, 3))
	if g.intn(3) == 0 {
		d[len(d)-1] = pickOne(g, 31, 64, 100, 257, 300)
	}
	return d
}

// rowBroadcast broadcasts a per-row value back over the rows: directly, or
// (the keepdims form) through a reshape that appends a dimension of 1.
func (g *gen) rowBroadcast(v ir.Op, s ir.Shape) ir.Op {
	r := s.Rank()
	lead := make([]int, r-1)
	for i := range lead {
		lead[i] = i
	}
	if g.coin() {
		kd := append(append([]int(nil), s.Dims[:r-1]...), 1)
		return g.b.BroadcastInDim(g.b.Reshape(v, kd), s.Dims, append(lead, r-1))
	}
	return g.b.BroadcastInDim(v, s.Dims, lead)
}

// scalar adds a constant of type t.
func (g *gen) scalar(t ir.ElementType, v float64) ir.Op {
	l := ir.MustNewLiteral(ir.Scalar(t))
	l.SetFloat64At(0, v)
	return g.b.Constant(l)
}

// layoutGen gives parameters and the result non-default layouts (a
// random minor_to_major order each): the compiler must read and write the
// physical orders and insert the copies between them.
func layoutGen() *opGen {
	return &opGen{name: "layouts", hlo: "copy", types: anyType, variant: true, build: func(g *gen, t ir.ElementType) ir.Op {
		d := g.dims(g.between(2, 4))
		withLayout := func(s ir.Shape) ir.Shape {
			return s.WithLayout(&ir.Layout{MinorToMajor: g.perm(s.Rank())})
		}
		s := withLayout(ir.MakeShape(t, d...))
		x := g.param(s, anyValues)
		y := g.param(withLayout(ir.MakeShape(t, d...)), anyValues)
		var out ir.Op
		switch g.intn(3) {
		case 0:
			out = combine(g.b, t, x, y)
		case 1:
			out = g.b.Transpose(x, g.perm(len(d)))
		default:
			out = g.b.ConcatInDim([]ir.Op{x, y}, g.intn(len(d)))
		}
		os, err := g.b.GetShape(out)
		if err != nil {
			panic(err)
		}
		g.c.rootLayout = withLayout(os).Layout
		return g.b.Copy(out)
	}}
}

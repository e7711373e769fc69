package runtime_test

// Generators for the ops of current XLA the seed does not list (the
// inverse and hyperbolic functions, mulhi, scan, scaled-dot) and the ops on arrays whose dimensions have run-time sizes
// (bounded dynamic shapes): each computed on the valid region only, its
// results reduced or sized so that every compared value is defined.

import (
	"github.com/kilnml/kiln/ir"
)

func newOpGens() []*opGen {
	un := func(name string, f func(b *ir.Builder) unaryFn) *opGen {
		return unaryGen(name, floatOrCplx, anyValues, f)
	}
	return []*opGen{
		un("cosh", func(b *ir.Builder) unaryFn { return b.Cosh }),
		un("sinh", func(b *ir.Builder) unaryFn { return b.Sinh }),
		un("asin", func(b *ir.Builder) unaryFn { return b.Asin }),
		un("acos", func(b *ir.Builder) unaryFn { return b.Acos }),
		un("atan", func(b *ir.Builder) unaryFn { return b.Atan }),
		un("asinh", func(b *ir.Builder) unaryFn { return b.Asinh }),
		un("acosh", func(b *ir.Builder) unaryFn { return b.Acosh }),
		un("atanh", func(b *ir.Builder) unaryFn { return b.Atanh }),
		binaryGen("mulhi", integers, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Mulhi }),
		scanOpGen(),
		scaledDotGen(),
		dynamicOpGen(),
	}
}

// scanOpGen scans a combining body over a random dimension of two inputs,
// forward or in reverse, with one carry.
func scanOpGen() *opGen {
	return &opGen{name: "scan", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.dims(g.between(1, 3))...)
		dim := g.intn(s.Rank())
		slice := append(append([]int{}, s.Dims[:dim]...), s.Dims[dim+1:]...)
		ss := ir.MakeShape(t, slice...)
		sb := g.b.CreateSubBuilder("scan_body")
		x := sb.Parameter(0, ss, "x")
		y := sb.Parameter(1, ss, "y")
		c := sb.Parameter(2, ss, "c")
		next := step(sb, t, c, combine(sb, t, x, y))
		body, err := sb.BuildWithRoot(sb.Tuple(combine(sb, t, next, x), next))
		if err != nil {
			panic(err)
		}
		if t.IsFloatOrComplex() && t != ir.PRED {
			g.accumulate("add", max(s.Dims[dim], 1))
		}
		return g.b.Scan(body, []ir.Op{g.operand(s, anyValues), g.operand(s, anyValues)}, []ir.Op{g.param(ss, anyValues)}, dim, g.coin(), false)
	}}
}

// scaledDotGen is a matrix product of operands scaled by blocks of their
// contracting dimension.
func scaledDotGen() *opGen {
	return &opGen{name: "scaled-dot", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		m, n := g.dim(), g.dim()
		blocks, block := g.between(1, 3), g.between(1, 4)
		k := blocks * block
		lhs := g.operand(ir.MakeShape(t, m, k), smallValues)
		rhs := g.operand(ir.MakeShape(t, k, n), smallValues)
		ls := g.param(ir.MakeShape(t, m, blocks), smallValues)
		rs := g.param(ir.MakeShape(t, blocks, n), smallValues)
		g.accumulate("add", k)
		return g.b.ScaledDot(lhs, rhs, ls, rs, ir.DotDimensionNumbers{LhsContracting: []int{1}, RhsContracting: []int{0}})
	}}
}

// dynamicOpGen gives a dimension a run-time size, applies an op to the
// array on its valid region and reduces the result over every dimension
// (so that only valid elements are compared), with the sizes read back.
func dynamicOpGen() *opGen {
	return &opGen{name: "dynamic-ops", hlo: "set-dimension-size", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.posDims(g.between(1, 3))...)
		d := g.intn(s.Rank())
		size := g.paramOf(g.indices(ir.Scalar(ir.S32), 0, s.Dims[d]))
		x := g.b.SetDimensionSize(g.param(s, anyValues), size, d)
		var y ir.Op
		switch g.intn(6) {
		case 0: // elementwise with a static operand's prefix
			y = combine(g.b, t, x, x)
		case 1: // reverse
			y = g.b.Rev(x, []int{d})
		case 2: // transpose
			y = g.b.Transpose(x, g.perm(s.Rank()))
		case 3: // pad with interior padding
			pads := make([]ir.PaddingDim, s.Rank())
			for i := range pads {
				pads[i] = ir.PaddingDim{Low: g.intn(2), High: g.intn(2), Interior: g.intn(2)}
			}
			y = g.b.Pad(x, g.b.Constant(ir.MustNewLiteral(ir.Scalar(t))), pads)
		case 4: // concatenate with itself
			y = g.b.ConcatInDim([]ir.Op{x, x}, d)
		default: // reshape merging the dimensions after the dynamic one
			y = g.b.Reshape(x, append(append([]int{}, s.Dims[:d+1]...), prodInts(s.Dims[d+1:])))
		}
		rd := g.reducerNamed(t, "maximum")
		switch {
		case t == ir.PRED:
			rd = g.reducerNamed(t, "or")
		case t.IsComplex():
			rd = g.reducerNamed(t, "add")
			g.accumulate("add", 4*s.ElementCount())
		}
		all := make([]int, y.Shape().Rank())
		for i := range all {
			all[i] = i
		}
		outs := []ir.Op{g.b.Reduce(y, g.b.Constant(rd.init), rd.comp, all)}
		for i := 0; i < y.Shape().Rank(); i++ {
			outs = append(outs, g.b.GetDimensionSize(y, i))
		}
		return g.b.Tuple(outs...)
	}}
}

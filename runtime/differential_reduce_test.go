package runtime_test

import (
	"fmt"
	"math"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// Generators of the reducing and contracting ops: reduce (one operand and
// variadic), reduce-window, select-and-scatter, dot, dot_general and
// convolution. Integer results are exact; float results follow the
// accumulation bound (or 2K ULPs for products, exact for max/min).

func reduceGens() []*opGen {
	return []*opGen{
		{name: "reduce", types: anyType, fusion: true, huge: true, cases: 6, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			rd := g.reducerFor(t)
			dims := g.subset(s.Rank())
			if g.intn(4) == 0 {
				dims = g.perm(s.Rank()) // every dimension, listed in any order
			}
			k := 1
			for _, d := range dims {
				k *= s.Dims[d]
			}
			g.accumulate(rd.name, k+1)
			var x ir.Op
			if rd.name == "multiply" && t.IsFloatOrComplex() {
				x = g.paramOf(g.productLiteral(s))
			} else {
				x = g.operand(s, reducerValues(rd.name))
			}
			if g.coin() { // a producer the scheduler fuses into the reduction
				switch {
				case signedNum(t):
					x = g.b.Abs(x)
				case predOrInt(t):
					x = g.b.Not(g.b.Not(x))
				}
			}
			if len(dims) == s.Rank() && g.coin() {
				return g.b.ReduceAll(x, g.reduceInit(rd, t), rd.comp)
			}
			return g.b.Reduce(x, g.reduceInit(rd, t), rd.comp, dims)
		}},
		{name: "reduce-variadic", hlo: "reduce", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.between(1, 3))...)
			d := g.intn(s.Rank())
			comp := g.argmaxComputation(t)
			idx := g.b.Iota(s.WithElem(ir.S32), d)
			inits := g.argmaxIdentity(t)
			return g.b.ReduceVariadic([]ir.Op{g.param(s, anyValues), idx}, inits, comp, []int{d})
		}},
		reduceWindowGen(),
		cumulativeGen(),
		selectAndScatterGen(),
		dotGen(),
		dotGeneralGen(),
		convGen(false),
		convGen(true),
	}
}

// reducerValues is the value distribution for a reducer: modest values for
// sums, ±1, ±2 and ±½ for products (exact, no overflow in any order), any
// value for the order-free reducers.
func reducerValues(name string) dist {
	switch name {
	case "add":
		return niceValues
	case "multiply":
		return powerOfTwoValues
	}
	return anyValues
}

// productLiteral draws factors for a product of any length that stays in
// range whatever the order of multiplication: ±1, and at most 24 factors of
// 2 or ½ (partial products stay within 2^±24, exact in every float type).
func (g *gen) productLiteral(s ir.Shape) *ir.Literal {
	l := ir.MustNewLiteral(s)
	n := l.ElementCount()
	for i := range n {
		v := 1.0
		if g.coin() {
			v = -1
		}
		l.SetFloat64At(i, v)
	}
	for range min(n, 24) {
		l.SetFloat64At(g.intn(n), pickOne(g, 2, 0.5, -2, -0.5))
	}
	return l
}

// reduceInit is the initial value of a reduction: a parameter (any value
// for max/min/and/or, which are exact anyway) or the reducer's identity.
func (g *gen) reduceInit(rd reducer, t ir.ElementType) ir.Op {
	if g.coin() {
		return g.param(ir.Scalar(t), reducerValues(rd.name))
	}
	return g.b.Constant(rd.init)
}

// argmaxComputation reduces (value, index) pairs to the largest value and,
// among equal values, the smallest index — associative and commutative, so
// any reduction order gives the same pair. Floats compare in total order,
// complex numbers by their real parts.
func (g *gen) argmaxComputation(t ir.ElementType) *ir.Computation {
	return g.computation("argmax", []ir.ElementType{t, ir.S32, t, ir.S32}, func(b *ir.Builder, ps []ir.Op) ir.Op {
		mv, mi, v, i := ps[0], ps[1], ps[2], ps[3]
		kv, km := v, mv
		et := t
		if t.IsComplex() {
			kv, km, et = b.Real(v), b.Real(mv), t.ComplexComponent()
		}
		ct := ir.CmpTypeDefault
		if et.IsFloat() {
			ct = ir.CmpTypeTotalOrder
		}
		gt := b.Compare(kv, km, ir.CmpGT, ct)
		eq := b.Compare(kv, km, ir.CmpEQ, ct)
		take := b.Or(gt, b.And(eq, b.Lt(i, mi)))
		return b.Tuple(b.Select(take, v, mv), b.Select(take, i, mi))
	})
}

// argmaxIdentity is the identity of argmaxComputation: the least value in
// the total order (for floats −NaN with every payload bit set, below −Inf)
// and the largest index, so that it loses every comparison and tie. XLA
// requires a reduction's initial value to be its reducer's identity: with
// another one the result depends on how often the implementation applies
// it.
func (g *gen) argmaxIdentity(t ir.ElementType) []ir.Op {
	v := ir.MustNewLiteral(ir.Scalar(t))
	switch {
	case t.IsFloat():
		for i := range v.Bytes() {
			v.Bytes()[i] = 0xff
		}
	case t.IsComplex():
		half := v.Bytes()[:t.ByteSize()/2] // the real part
		for i := range half {
			half[i] = 0xff
		}
	default:
		setLowest(v)
	}
	return []ir.Op{g.b.Constant(v), g.b.Constant(ir.ScalarLiteral(int32(math.MaxInt32)))}
}

// window draws one window dimension over a base of size n: size, stride,
// base and window dilation, and (low, high) padding that leave at least one
// window position (or none, when n is 0).
type windowDim struct {
	size, stride, baseDil, winDil, lo, hi int
}

func (g *gen) windowDim(n int, dilate bool) windowDim {
	w := windowDim{size: g.between(1, 4), stride: g.between(1, 3), baseDil: 1, winDil: 1,
		lo: g.between(0, 2), hi: g.between(0, 2)}
	if dilate && g.intn(3) == 0 {
		w.baseDil = 2
	}
	if dilate && g.intn(3) == 0 {
		w.winDil = 2
	}
	base := 0
	if n > 0 {
		base = (n-1)*w.baseDil + 1
	}
	eff := (w.size-1)*w.winDil + 1
	for base+w.lo+w.hi < eff {
		w.hi++
	}
	return w
}

// outSize is the number of window positions.
func (w windowDim) outSize(n int) int {
	base := 0
	if n > 0 {
		base = (n-1)*w.baseDil + 1
	}
	eff := (w.size-1)*w.winDil + 1
	if base+w.lo+w.hi < eff {
		return 0
	}
	return (base+w.lo+w.hi-eff)/w.stride + 1
}

// reduceWindowGen draws windows with strides, dilations and padding over
// one or two operands (two: an argmax-style joint reduction), or the client
// form with VALID/SAME padding.
func reduceWindowGen() *opGen {
	return &opGen{name: "reduce-window", types: anyType, cases: 6, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.dims(g.between(1, 4))...)
		r := s.Rank()
		ws := make([]windowDim, r)
		var sizes, strides, bd, wd []int
		var pad [][2]int
		terms := 1
		for i, n := range s.Dims {
			ws[i] = g.windowDim(n, true)
			sizes = append(sizes, ws[i].size)
			strides = append(strides, ws[i].stride)
			bd = append(bd, ws[i].baseDil)
			wd = append(wd, ws[i].winDil)
			pad = append(pad, [2]int{ws[i].lo, ws[i].hi})
			terms *= ws[i].size
		}
		g.c.note = fmt.Sprintf("window %v strides %v base dilations %v window dilations %v padding %v", sizes, strides, bd, wd, pad)
		switch g.intn(4) {
		case 0: // client form
			rd := g.reducerFor(t)
			g.accumulate(rd.name, terms+1)
			if rd.name == "add" {
				g.c.boundKey = "reduce-window-add"
			}
			padding := pickOne(g, ir.PaddingValid, ir.PaddingSame)
			return g.b.ReduceWindow(g.param(s, reducerValues(rd.name)), g.reduceInit(rd, t), rd.comp, sizes, strides, padding)
		case 1: // two operands, joint argmax
			idx := g.b.Iota(s.WithElem(ir.S32), g.intn(r))
			return g.b.ReduceWindowWithGeneralPadding([]ir.Op{g.param(s, anyValues), idx},
				g.argmaxIdentity(t), g.argmaxComputation(t), sizes, strides, bd, wd, pad)
		}
		rd := g.reducerFor(t)
		g.accumulate(rd.name, terms+1)
		if rd.name == "add" {
			g.c.boundKey = "reduce-window-add"
		}
		return g.b.ReduceWindowWithGeneralPadding([]ir.Op{g.operand(s, reducerValues(rd.name))},
			[]ir.Op{g.reduceInit(rd, t)}, rd.comp, sizes, strides, bd, wd, pad)
	}}
}

// cumulativeGen draws the cumulative reductions JAX lowers cumsum, cumprod,
// cummax and cummin to: a reduce-window whose window covers every element
// up to the output's own along one dimension (its size the dimension's, or
// longer), one operand or a joint argmax.
func cumulativeGen() *opGen {
	return &opGen{name: "reduce-window-cumulative", types: anyType, cases: 6, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.dims(g.between(1, 4))...)
		r := s.Rank()
		d := g.intn(r)
		sizes, strides, dil := make([]int, r), make([]int, r), make([]int, r)
		pad := make([][2]int, r)
		for i := range sizes {
			sizes[i], strides[i], dil[i] = 1, 1, 1
		}
		sizes[d] = max(s.Dims[d]+g.intn(2), 1)
		pad[d] = [2]int{sizes[d] - 1, 0}
		g.c.note = fmt.Sprintf("cumulative along %d: window %v padding %v", d, sizes, pad)
		if g.intn(3) == 0 {
			idx := g.b.Iota(s.WithElem(ir.S32), d)
			return g.b.ReduceWindowWithGeneralPadding([]ir.Op{g.param(s, anyValues), idx},
				g.argmaxIdentity(t), g.argmaxComputation(t), sizes, strides, dil, dil, pad)
		}
		rd := g.reducerFor(t)
		g.accumulate(rd.name, sizes[d]+1)
		if rd.name == "add" {
			g.c.boundKey = "reduce-window-add"
		}
		return g.b.ReduceWindowWithGeneralPadding([]ir.Op{g.operand(s, reducerValues(rd.name))},
			[]ir.Op{g.reduceInit(rd, t)}, rd.comp, sizes, strides, dil, dil, pad)
	}}
}

// selectAndScatterGen draws the pooling-gradient op: a GE (or LE) select
// over windows with strides and padding, scattering source values by
// addition (or, for PRED) onto an initial value.
func selectAndScatterGen() *opGen {
	return &opGen{name: "select-and-scatter", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.dims(g.between(1, 3))...)
		var sizes, strides, out []int
		var pad [][2]int
		terms := 1
		for _, n := range s.Dims {
			w := g.windowDim(n, false)
			sizes = append(sizes, w.size)
			strides = append(strides, w.stride)
			pad = append(pad, [2]int{w.lo, w.hi})
			out = append(out, w.outSize(n))
			terms *= (w.size + w.stride - 1) / w.stride
		}
		dir := pickOne(g, ir.CmpGE, ir.CmpLE)
		sel := g.binaryComputation("select", t, func(b *ir.Builder, x, y ir.Op) ir.Op {
			et := t
			if t.IsComplex() {
				x, y, et = b.Real(x), b.Real(y), t.ComplexComponent()
			}
			ct := ir.CmpTypeDefault
			if et.IsFloat() {
				ct = ir.CmpTypeTotalOrder
			}
			return b.Compare(x, y, dir, ct)
		})
		sc := "add"
		if t == ir.PRED {
			sc = "or"
		}
		rd := g.reducerNamed(t, sc)
		g.accumulate(sc, terms+1)
		g.c.note = fmt.Sprintf("window %v strides %v padding %v", sizes, strides, pad)
		if g.intn(3) == 0 { // the client form, VALID or SAME padding
			padding := pickOne(g, ir.PaddingValid, ir.PaddingSame)
			pads, err := ir.MakePadding(s.Dims, sizes, strides, padding)
			if err != nil {
				panic(err)
			}
			out = out[:0]
			for i, n := range s.Dims {
				w := windowDim{size: sizes[i], stride: strides[i], baseDil: 1, winDil: 1, lo: pads[i][0], hi: pads[i][1]}
				out = append(out, w.outSize(n))
			}
			g.c.note = fmt.Sprintf("window %v strides %v padding %v", sizes, strides, padding)
			return g.b.SelectAndScatter(g.param(s, anyValues), sel, sizes, strides, padding,
				g.param(ir.MakeShape(t, out...), niceValues), g.param(ir.Scalar(t), niceValues), rd.comp)
		}
		src := g.param(ir.MakeShape(t, out...), niceValues)
		return g.b.SelectAndScatterWithGeneralPadding(g.param(s, anyValues), sel, sizes, strides, pad, src,
			g.param(ir.Scalar(t), niceValues), rd.comp)
	}}
}

// preferredType sometimes asks a dot or convolution for a wider result.
func (g *gen) preferredType(t ir.ElementType) ir.ElementType {
	if g.intn(4) != 0 {
		return ir.InvalidType
	}
	switch {
	case t == ir.S8 || t == ir.S16:
		return ir.S32
	case t == ir.U8:
		return ir.U32
	case t == ir.BF16 || t == ir.F16:
		return ir.F32
	case t == ir.F32:
		return ir.F64
	}
	return ir.InvalidType
}

// dotGen is the client Dot: vector·vector, matrix·vector, vector·matrix
// and matrix·matrix, K possibly 0.
func dotGen() *opGen {
	return &opGen{name: "dot", types: anyType, huge: true, cases: 6, build: func(g *gen, t ir.ElementType) ir.Op {
		d := g.dims(3)
		if g.mode == modeHuge {
			d = []int{g.between(60, 130), g.between(60, 130), g.between(60, 130)}
		}
		m, k, n := d[0], d[1], d[2]
		var ls, rs []int
		switch g.intn(4) {
		case 0:
			ls, rs = []int{k}, []int{k}
		case 1:
			ls, rs = []int{m, k}, []int{k}
		case 2:
			ls, rs = []int{k}, []int{k, n}
		default:
			ls, rs = []int{m, k}, []int{k, n}
		}
		g.accumulate("add", k)
		lhs := g.operand(ir.MakeShape(t, ls...), niceValues)
		rhs := g.operand(ir.MakeShape(t, rs...), niceValues)
		return g.b.Dot(lhs, rhs, ir.DotOptions{PreferredType: g.preferredType(t)})
	}}
}

// dotGeneralGen draws batch, contracting and free dimensions for each
// operand, in random positions.
func dotGeneralGen() *opGen {
	return &opGen{name: "dot-general", hlo: "dot", types: anyType, cases: 6, build: func(g *gen, t ir.ElementType) ir.Op {
		nb, nc := g.intn(3), g.intn(3)
		nl, nr := g.intn(3), g.intn(3)
		sizes := g.dims(nb + nc + nl + nr)
		batch, contract := sizes[:nb], sizes[nb:nb+nc]
		lfree, rfree := sizes[nb+nc:nb+nc+nl], sizes[nb+nc+nl:]
		// Each operand's dimensions in a random order: which position holds
		// which role.
		place := func(free []int) (dims []int, bpos, cpos []int) {
			roles := make([]int, 0, nb+nc+len(free)) // index into batch ++ contract ++ free
			for i := range nb + nc + len(free) {
				roles = append(roles, i)
			}
			p := g.perm(len(roles))
			dims = make([]int, len(roles))
			bpos, cpos = make([]int, nb), make([]int, nc)
			for pos, ri := range p {
				role := roles[ri]
				switch {
				case role < nb:
					dims[pos] = batch[role]
					bpos[role] = pos
				case role < nb+nc:
					dims[pos] = contract[role-nb]
					cpos[role-nb] = pos
				default:
					dims[pos] = free[role-nb-nc]
				}
			}
			return dims, bpos, cpos
		}
		ld, lb, lc := place(lfree)
		rd, rb, rc := place(rfree)
		dn := ir.DotDimensionNumbers{LhsBatch: lb, RhsBatch: rb, LhsContracting: lc, RhsContracting: rc}
		g.accumulate("add", prodInts(contract))
		g.c.note = dn.String()
		lhs := g.operand(ir.MakeShape(t, ld...), niceValues)
		rhs := g.operand(ir.MakeShape(t, rd...), niceValues)
		return g.b.DotGeneral(lhs, rhs, dn, ir.DotOptions{PreferredType: g.preferredType(t)})
	}}
}

// convGen draws general convolutions: 1 to 3 spatial dimensions, feature
// or batch groups, strides, lhs and rhs dilation, padding that may be
// negative, and the dimension labels of input, kernel and output in random
// orders. client draws the client forms (VALID/SAME padding, default
// dimension numbers) instead.
func convGen(client bool) *opGen {
	name := "convolution"
	if client {
		name = "convolution-client"
	}
	return &opGen{name: name, hlo: "convolution", types: anyType, variant: client, huge: !client, cases: 6, build: func(g *gen, t ir.ElementType) ir.Op {
		n := pickOne(g, 1, 2, 2, 2, 3)
		fg, bg := 1, 1
		switch g.intn(4) {
		case 0:
			fg = g.between(2, 3)
		case 1:
			bg = 2
		}
		if client {
			bg = 1
		}
		batch := g.between(0, 2) * bg
		if g.mode != modeZero && batch == 0 {
			batch = bg
		}
		cg := g.between(1, 3)
		og := g.between(1, 3)
		big := g.mode == modeHuge && t == ir.F32 // enough work to split, for the vector type only
		if big {
			n, fg, bg, batch, cg, og = 2, 1, 1, 1, 8, 16
		}
		inF, outF := cg*fg, og*fg*bg
		spatial := make([]int, n)
		kern := make([]int, n)
		strides := make([]int, n)
		ld, rdil := make([]int, n), make([]int, n)
		pad := make([][2]int, n)
		terms := cg
		for i := range n {
			spatial[i] = g.between(1, 9)
			if g.mode == modeOne {
				spatial[i] = pickOne(g, 1, spatial[i])
			}
			kern[i] = g.between(1, 4)
			strides[i] = g.between(1, 3)
			ld[i], rdil[i] = pickOne(g, 1, 1, 2), pickOne(g, 1, 1, 2)
			pad[i] = [2]int{g.between(-1, 2), g.between(-1, 2)}
			if big {
				spatial[i], kern[i], strides[i], ld[i], rdil[i] = g.between(20, 30), 3, 1, 1, 1
			}
			base := (spatial[i]-1)*ld[i] + 1
			eff := (kern[i]-1)*rdil[i] + 1
			for base+pad[i][0]+pad[i][1] < eff {
				pad[i][1]++
			}
			terms *= kern[i]
		}
		g.accumulate("add", terms)
		opts := ir.ConvOptions{FeatureGroupCount: fg, BatchGroupCount: bg, PreferredType: g.preferredType(t)}
		if client {
			dn := ir.DefaultConvDimensionNumbers(n)
			lhs := g.param(ir.MakeShape(t, append([]int{batch, inF}, spatial...)...), niceValues)
			rhs := g.param(ir.MakeShape(t, append([]int{outF, cg}, kern...)...), niceValues)
			switch g.intn(4) {
			case 0:
				return g.b.Conv(lhs, rhs, strides, pickOne(g, ir.PaddingValid, ir.PaddingSame), opts)
			case 1:
				return g.b.ConvWithGeneralPadding(lhs, rhs, strides, pad, opts)
			case 2:
				return g.b.ConvWithGeneralDimensions(lhs, rhs, strides, pickOne(g, ir.PaddingValid, ir.PaddingSame), dn, opts)
			}
			return g.b.ConvGeneral(lhs, rhs, strides, pad, dn, opts)
		}
		// Dimension labels: a random order of each operand's dimensions.
		var dn ir.ConvDimensionNumbers
		ip, kp, op := g.perm(n+2), g.perm(n+2), g.perm(n+2)
		dn.InputBatch, dn.InputFeature, dn.InputSpatial = ip[0], ip[1], slices.Clone(ip[2:])
		dn.KernelOutputFeature, dn.KernelInputFeature, dn.KernelSpatial = kp[0], kp[1], slices.Clone(kp[2:])
		dn.OutputBatch, dn.OutputFeature, dn.OutputSpatial = op[0], op[1], slices.Clone(op[2:])
		in := make([]int, n+2)
		in[dn.InputBatch], in[dn.InputFeature] = batch, inF
		k := make([]int, n+2)
		k[dn.KernelOutputFeature], k[dn.KernelInputFeature] = outF, cg
		for i := range n {
			in[dn.InputSpatial[i]] = spatial[i]
			k[dn.KernelSpatial[i]] = kern[i]
		}
		g.c.note = fmt.Sprintf("dim_labels %v strides %v padding %v lhs_dilation %v rhs_dilation %v feature_group_count %d batch_group_count %d",
			dn, strides, pad, ld, rdil, fg, bg)
		lhs := g.operand(ir.MakeShape(t, in...), niceValues)
		rhs := g.operand(ir.MakeShape(t, k...), niceValues)
		return g.b.ConvGeneralDilated(lhs, rhs, strides, pad, ld, rdil, dn, opts)
	}}
}

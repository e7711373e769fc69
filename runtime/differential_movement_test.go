package runtime_test

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// Generators of the data-movement ops: broadcasts, reshapes, transposes,
// slices (static and dynamic), concatenation, padding, gather, scatter,
// sort, top-k, iota, constants, tuples and the dynamic-shape ops. All are
// exact except scatter with an add combiner on floats.

func movementGens() []*opGen {
	return []*opGen{
		{name: "broadcast", types: anyType, fusion: true, build: func(g *gen, t ir.ElementType) ir.Op {
			x := g.operand(ir.MakeShape(t, g.dims(g.intn(3))...), anyValues)
			return g.b.Broadcast(x, g.dims(g.intn(3)))
		}},
		{name: "broadcast-in-dim", hlo: "broadcast", types: anyType, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
			out := g.mainDims()
			kept := g.subset(len(out))
			in := make([]int, len(kept))
			for i, k := range kept {
				in[i] = out[k]
				if g.intn(3) == 0 {
					in[i] = 1
				}
			}
			return g.b.BroadcastInDim(g.operand(ir.MakeShape(t, in...), anyValues), out, kept)
		}},
		{name: "reshape", types: anyType, fusion: true, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			return g.b.Reshape(g.operand(s, anyValues), g.factor(s.Dims))
		}},
		{name: "collapse", hlo: "reshape", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			d := g.dims(g.between(1, 4))
			lo := g.intn(len(d))
			hi := g.between(lo, len(d)-1)
			var dims []int
			for i := lo; i <= hi; i++ {
				dims = append(dims, i)
			}
			return g.b.Collapse(g.param(ir.MakeShape(t, d...), anyValues), dims)
		}},
		{name: "transpose", types: anyType, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			return g.b.Transpose(g.operand(s, anyValues), g.perm(s.Rank()))
		}},
		{name: "reverse", types: anyType, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			return g.b.Rev(g.operand(s, anyValues), g.subset(s.Rank()))
		}},
		{name: "slice", types: anyType, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			r := s.Rank()
			starts, limits, strides := make([]int, r), make([]int, r), make([]int, r)
			for i, n := range s.Dims {
				starts[i] = g.intn(n + 1)
				limits[i] = g.between(starts[i], n)
				strides[i] = g.between(1, 4)
			}
			return g.b.Slice(g.operand(s, anyValues), starts, limits, strides)
		}},
		{name: "slice-in-dim", hlo: "slice", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.between(1, 4))...)
			d := g.intn(s.Rank())
			n := s.Dims[d]
			start := g.intn(n + 1)
			return g.b.SliceInDim(g.param(s, anyValues), start, g.between(start, n), g.between(1, 3), d)
		}},
		{name: "dynamic-slice", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			sizes := make([]int, s.Rank())
			for i, n := range s.Dims {
				sizes[i] = g.intn(n + 1)
			}
			return g.b.DynamicSlice(g.operand(s, anyValues), g.startIndices(s.Dims, sizes), sizes)
		}},
		{name: "dynamic-update-slice", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			sizes := make([]int, s.Rank())
			for i, n := range s.Dims {
				sizes[i] = g.intn(n + 1)
			}
			upd := g.operand(ir.MakeShape(t, sizes...), anyValues)
			return g.b.DynamicUpdateSlice(g.operand(s, anyValues), upd, g.startIndices(s.Dims, sizes))
		}},
		{name: "concatenate", types: anyType, fusion: true, build: func(g *gen, t ir.ElementType) ir.Op {
			d := g.dims(g.between(1, 4))
			dim := g.intn(len(d))
			var ops []ir.Op
			for range g.between(1, 4) {
				e := append([]int(nil), d...)
				e[dim] = pickOne(g, 0, 1, 2, 3, 5, 8)
				ops = append(ops, g.operand(ir.MakeShape(t, e...), anyValues))
			}
			return g.b.ConcatInDim(ops, dim)
		}},
		{name: "pad", types: anyType, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			pads := make([]ir.PaddingDim, s.Rank())
			for i, n := range s.Dims {
				p := ir.PaddingDim{Low: g.between(-3, 3), High: g.between(-3, 3), Interior: g.between(0, 2)}
				// Cropping may not go below size 0.
				for n+max(n-1, 0)*p.Interior+p.Low+p.High < 0 {
					p.Low++
					p.High++
				}
				pads[i] = p
			}
			g.c.note = "padding " + ir.PaddingString(pads)
			return g.b.Pad(g.operand(s, anyValues), g.param(ir.Scalar(t), anyValues), pads)
		}},
		{name: "pad-in-dim", hlo: "pad", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.between(1, 3))...)
			d := g.intn(s.Rank())
			return g.b.PadInDim(g.param(s, anyValues), g.param(ir.Scalar(t), anyValues), d, g.between(0, 3), g.between(0, 3))
		}},
		{name: "iota", types: notPred, fusion: true, build: func(g *gen, t ir.ElementType) ir.Op {
			d := g.mainDims()
			if len(d) == 0 {
				d = []int{g.dim()}
			}
			return g.b.Iota(ir.MakeShape(t, d...), g.intn(len(d)))
		}},
		{name: "constant", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			c := g.b.Constant(g.literal(s, anyValues))
			x := g.param(s, anyValues)
			return g.b.Tuple(c, g.b.Select(g.param(ir.Scalar(ir.PRED), anyValues), x, c))
		}},
		{name: "tuple", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			x := g.param(ir.MakeShape(t, g.dims(g.intn(3))...), anyValues)
			y := g.param(ir.MakeShape(t, g.dims(g.intn(3))...), anyValues)
			inner := g.b.Tuple(y, x)
			return g.b.Tuple(x, inner, g.b.GetTupleElement(inner, 0))
		}},
		{name: "get-tuple-element", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			x := g.param(ir.MakeShape(t, g.dims(g.intn(3))...), anyValues)
			y := g.param(ir.MakeShape(t, g.dims(g.intn(3))...), anyValues)
			tup := g.b.Tuple(x, g.b.Tuple(y, x))
			return g.b.GetTupleElement(g.b.GetTupleElement(tup, 1), g.intn(2))
		}},
		{name: "opt-barrier", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			x := g.param(ir.MakeShape(t, g.dims(g.intn(3))...), anyValues)
			y := g.param(ir.MakeShape(t, g.dims(g.intn(3))...), anyValues)
			return g.b.GetTupleElement(g.b.OptimizationBarrier(g.b.Tuple(x, y)), g.intn(2))
		}},
		gatherGen(),
		scatterGen(false),
		scatterGen(true),
		sortGen(),
		{name: "topk", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			d := g.dims(g.between(1, 3))
			k := g.intn(d[len(d)-1] + 1)
			return g.b.TopK(g.param(ir.MakeShape(t, d...), anyValues), k, g.coin())
		}},
		{name: "get-dimension-size", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.between(1, 3))...)
			return g.b.GetDimensionSize(g.param(s, anyValues), g.intn(s.Rank()))
		}},
		dynamicShapeGen(),
		dynamicReshapeGen(),
	}
}

// startIndices adds one scalar parameter per dimension holding a start
// index for a window of sizes in dims: mostly in range, sometimes negative
// or past the end (the op clamps them).
func (g *gen) startIndices(dims, sizes []int) []ir.Op {
	it := g.indexType()
	starts := make([]ir.Op, len(dims))
	for i := range dims {
		lo, hi := -2, dims[i]-sizes[i]+2
		if it.IsUnsigned() {
			lo = 0
		}
		starts[i] = g.paramOf(g.indices(ir.Scalar(it), lo, hi))
	}
	return starts
}

// gatherGen draws XLA gather configurations: start_index_map, collapsed
// and batching dimensions, slice sizes, the index vector dimension
// anywhere (or implicit), offset dimensions anywhere in the output, and
// indices out of range (clamped).
func gatherGen() *opGen {
	return &opGen{name: "gather", types: anyType, cases: 8, build: func(g *gen, t ir.ElementType) ir.Op {
		od := g.posDims(g.between(1, 4))
		if g.mode == modeZero {
			od[g.intn(len(od))] = 0
		}
		r := len(od)
		var dn ir.GatherDimensionNumbers
		free := g.perm(r)
		// Operand batching dimension (paired with an indices batch dimension).
		nb := 0
		if r >= 2 && g.intn(4) == 0 && od[free[0]] > 0 {
			dn.OperandBatchingDims = []int{free[0]}
			free = free[1:]
			nb = 1
		}
		m := g.between(1, len(free))
		dn.StartIndexMap = append([]int(nil), free[:m]...)
		sizes := make([]int, r)
		for d := range r {
			sizes[d] = g.intn(od[d] + 1)
		}
		for _, d := range free {
			if g.intn(3) == 0 && od[d] > 0 {
				dn.CollapsedSliceDims = append(dn.CollapsedSliceDims, d)
				sizes[d] = 1
			}
		}
		slices.Sort(dn.CollapsedSliceDims)
		for _, d := range dn.OperandBatchingDims {
			sizes[d] = 1
		}
		// Indices: batch dimensions with the index vector at ivd.
		batch := g.dims(g.intn(3))
		if nb > 0 {
			pos := g.intn(len(batch) + 1)
			batch = slices.Insert(batch, pos, od[dn.OperandBatchingDims[0]])
			dn.StartIndicesBatchingDims = []int{pos} // adjusted below for ivd
		}
		ivd := g.intn(len(batch) + 1)
		idims := slices.Insert(slices.Clone(batch), ivd, m)
		if m == 1 && ivd == len(batch) && g.coin() {
			idims = slices.Clone(batch) // implicit trailing index vector
		}
		dn.IndexVectorDim = ivd
		if nb > 0 && dn.StartIndicesBatchingDims[0] >= ivd {
			dn.StartIndicesBatchingDims[0]++
		}
		it := g.indexType()
		idx := ir.MustNewLiteral(ir.MakeShape(it, idims...))
		vecStride := 1
		for _, n := range idims[min(ivd+1, len(idims)):] {
			vecStride *= n
		}
		for i := range idx.ElementCount() {
			k := 0
			if len(idims) > ivd && idims[ivd] == m {
				k = (i / vecStride) % m
			}
			d := dn.StartIndexMap[k]
			lo, hi := -2, od[d]-sizes[d]+2
			if it.IsUnsigned() {
				lo = 0
			}
			idx.SetInt64At(i, int64(g.between(lo, hi)))
		}
		nOffset := r - len(dn.CollapsedSliceDims) - nb
		outRank := len(batch) + nOffset
		dn.OffsetDims = g.perm(outRank)[:nOffset]
		slices.Sort(dn.OffsetDims)
		g.c.note = fmt.Sprintf("%s slice_sizes=%v", dn, sizes)
		return g.b.Gather(g.param(ir.MakeShape(t, od...), anyValues), g.paramOf(idx), dn, sizes, false)
	}}
}

// scatterGen draws scatter configurations. With overwrite, the combiner
// returns the update and the index tuples are distinct (with duplicates the
// result would depend on the order updates are applied); otherwise the
// combiner is add, multiply, maximum, minimum (or, and for PRED) and
// indices repeat and run out of range (those updates are skipped).
func scatterGen(overwrite bool) *opGen {
	name := "scatter"
	if overwrite {
		name = "scatter-overwrite"
	}
	return &opGen{name: name, hlo: "scatter", types: anyType, variant: overwrite, cases: 8, build: func(g *gen, t ir.ElementType) ir.Op {
		od := g.posDims(g.between(1, 4))
		r := len(od)
		var dn ir.ScatterDimensionNumbers
		free := g.perm(r)
		m := g.between(1, r)
		dn.ScatterDimsToOperandDims = append([]int(nil), free[:m]...)
		window := make([]int, r)
		for d := range r {
			window[d] = g.intn(od[d] + 1)
		}
		for _, d := range dn.ScatterDimsToOperandDims {
			if overwrite || g.intn(2) == 0 {
				dn.InsertedWindowDims = append(dn.InsertedWindowDims, d)
				window[d] = 1
			}
		}
		slices.Sort(dn.InsertedWindowDims)
		nIdx := g.between(0, 6)
		if g.mode == modeZero {
			nIdx = 0
		}
		batch := []int{nIdx}
		if g.coin() {
			batch = []int{g.between(1, 3), nIdx}
		}
		ivd := len(batch)
		dn.IndexVectorDim = ivd
		idims := append(slices.Clone(batch), m)
		it := g.indexType()
		idx := ir.MustNewLiteral(ir.MakeShape(it, idims...))
		count := idx.ElementCount() / m
		if overwrite {
			// Distinct index tuples: the first count points of a shuffled grid.
			space := 1
			for _, d := range dn.ScatterDimsToOperandDims {
				space *= od[d]
			}
			count = min(count, space)
			batch = []int{count}
			idims = []int{count, m}
			idx = ir.MustNewLiteral(ir.MakeShape(it, idims...))
			cells := g.perm(space)
			for i := range count {
				c := cells[i]
				for k := m - 1; k >= 0; k-- {
					n := od[dn.ScatterDimsToOperandDims[k]]
					idx.SetInt64At(i*m+k, int64(c%n))
					c /= n
				}
			}
			dn.IndexVectorDim = 1
		} else {
			for i := range idx.ElementCount() {
				d := dn.ScatterDimsToOperandDims[i%m]
				lo, hi := -1, od[d]-window[d]+1
				if it.IsUnsigned() {
					lo = 0
				}
				idx.SetInt64At(i, int64(g.between(lo, hi)))
			}
		}
		// Updates: the scatter batch dimensions, then the window dimensions.
		udims := slices.Clone(batch)
		for d := range r {
			if !slices.Contains(dn.InsertedWindowDims, d) {
				dn.UpdateWindowDims = append(dn.UpdateWindowDims, len(udims))
				udims = append(udims, window[d])
			}
		}
		var comp *ir.Computation
		rname := "overwrite"
		if overwrite {
			comp = g.binaryComputation("overwrite", t, func(b *ir.Builder, x, y ir.Op) ir.Op { return y })
		} else {
			rd := g.reducerFor(t)
			comp, rname = rd.comp, rd.name
			g.accumulate(rd.name, count+1)
			if rd.name == "add" {
				g.c.boundKey = "scatter-add"
			}
		}
		g.c.note = dn.String()
		operand := g.param(ir.MakeShape(t, od...), niceValues)
		indices := g.paramOf(idx)
		updates := g.param(ir.MakeShape(t, udims...), niceValues)
		if g.intn(3) == 0 {
			// Variadic: an s32 companion scattered with the same indices,
			// combined by the same rule (add for the counts).
			comp = g.computation("pair", []ir.ElementType{t, ir.S32, t, ir.S32}, func(b *ir.Builder, ps []ir.Op) ir.Op {
				first := ps[2]
				if rname != "overwrite" {
					first = applyReducer(b, rname, ps[0], ps[2])
				}
				return b.Tuple(first, b.Add(ps[1], ps[3]))
			})
			return g.b.ScatterVariadic([]ir.Op{operand, g.param(ir.MakeShape(ir.S32, od...), anyValues)}, indices,
				[]ir.Op{updates, g.param(ir.MakeShape(ir.S32, udims...), anyValues)}, comp, dn, false, overwrite)
		}
		return g.b.Scatter(operand, indices, updates, comp, dn, false, overwrite)
	}}
}

// sortGen sorts one to three operands along a random dimension, ascending
// or descending, stable or with a comparator that breaks ties on the other
// operands (so the order is fully determined either way). Floats compare in
// XLA's total order, complex numbers by their real parts.
func sortGen() *opGen {
	return &opGen{name: "sort", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.dims(g.between(1, 3))...)
		n := g.between(1, 3)
		ops := []ir.Op{g.param(s, anyValues)}
		types := []ir.ElementType{t, t}
		for range n - 1 {
			ot := pickOne(g, ir.S32, ir.F32, ir.U8, t)
			ops = append(ops, g.param(s.WithElem(ot), anyValues))
			types = append(types, ot, ot)
		}
		stable := g.coin()
		desc := g.coin()
		comp := g.computation("comparator", types, func(b *ir.Builder, ps []ir.Op) ir.Op {
			less := func(x, y ir.Op, et ir.ElementType) ir.Op {
				ct := ir.CmpTypeDefault
				if et.IsComplex() {
					x, y, et = b.Real(x), b.Real(y), et.ComplexComponent()
				}
				if et.IsFloat() {
					ct = ir.CmpTypeTotalOrder
				}
				return b.Compare(x, y, ir.CmpLT, ct)
			}
			equal := func(x, y ir.Op, et ir.ElementType) ir.Op {
				return b.Not(b.Or(less(x, y, et), less(y, x, et)))
			}
			a, c := ps[0], ps[1]
			if desc {
				a, c = c, a
			}
			res := less(a, c, t)
			if !stable {
				// Lexicographic over the other operands.
				eq := equal(ps[0], ps[1], t)
				for k := 1; k < len(ps)/2; k++ {
					et := types[2*k]
					res = b.Or(res, b.And(eq, less(ps[2*k], ps[2*k+1], et)))
					eq = b.And(eq, equal(ps[2*k], ps[2*k+1], et))
				}
			}
			return res
		})
		return g.b.Sort(ops, comp, g.intn(s.Rank()), stable)
	}}
}

// dynamicShapeGen sets the run-time size of a dimension and reads it back,
// sums over it (only the first size elements count), reshapes dynamically
// and makes the dimension static again.
func dynamicShapeGen() *opGen {
	return &opGen{name: "set-dimension-size", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.posDims(g.between(1, 3))...)
		d := g.intn(s.Rank())
		size := g.paramOf(g.indices(ir.Scalar(ir.S32), 0, s.Dims[d]))
		x := g.b.SetDimensionSize(g.param(s, anyValues), size, d)
		// The elements past the run-time size are unspecified, so only
		// the sizes and a reduction over the dimension are compared.
		outs := []ir.Op{g.b.GetDimensionSize(x, d), g.b.GetDimensionSize(g.b.RemoveDynamicDimension(x, d), d)}
		rd := g.reducerNamed(t, "maximum")
		switch {
		case t == ir.PRED:
			rd = g.reducerNamed(t, "or")
		case t.IsComplex():
			rd = g.reducerNamed(t, "add")
			g.accumulate("add", s.Dims[d])
		}
		outs = append(outs, g.b.Reduce(x, g.b.Constant(rd.init), rd.comp, []int{d}))
		return g.b.Tuple(outs...)
	}}
}

// dynamicReshapeGen flattens an array whose leading dimension has a
// run-time size, to a dynamic size.
func dynamicReshapeGen() *opGen {
	return &opGen{name: "dynamic-reshape", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.posDims(g.between(1, 3))...)
		size := g.paramOf(g.indices(ir.Scalar(ir.S32), 0, s.Dims[0]))
		x := g.b.SetDimensionSize(g.param(s, anyValues), size, 0)
		rest := int32(s.ElementCount() / s.Dims[0])
		flat := g.b.DynamicReshape(x, []ir.Op{g.b.Mul(g.b.GetDimensionSize(x, 0), g.b.Constant(ir.ScalarLiteral(rest)))},
			[]int{s.ElementCount()}, []bool{true})
		return g.b.GetDimensionSize(flat, 0)
	}}
}

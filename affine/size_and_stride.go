package affine

import "slices"

// sizeAndStride is what a strided result expression of a map covers for a
// tile: how many distinct values it takes (size), the distance between them
// (stride), both as expressions of the tile sizes, and the constraints on the
// tile sizes under which that holds (XLA's SizeAndStrideExpression).
type sizeAndStride struct {
	size, stride Expr
	constraints  ConstraintExpression
}

// extractSizeAndStride is XLA's ExtractSizeAndStride: the size and stride of
// e, an expression of a map's dimensions (the tile sizes) and symbols, or
// false when e is not of a form it understands. symbols are the bounds of the
// range variables (the first numRange) and of the runtime variables.
func extractSizeAndStride(e Expr, dims, symbols []Interval, numRange int) (sizeAndStride, bool) {
	switch e.op() {
	case opVar:
		c, i := splitVarID(e.n.val())
		if c == classDim {
			return sizeAndStride{size: e, stride: Const(1)}, true
		}
		idx := i
		if c == classRuntime {
			idx += numRange
		}
		if idx >= len(symbols) || symbols[idx].Lo != 0 {
			return sizeAndStride{}, false
		}
		return sizeAndStride{size: Const(symbols[idx].Hi + 1), stride: Const(1)}, true
	case opMul:
		if _, ok := e.n.rhs.Constant(); !ok {
			// Not strided (XLA assumes a constant factor).
			return sizeAndStride{}, false
		}
		s, ok := extractSizeAndStride(e.n.lhs, dims, symbols, numRange)
		if !ok {
			return sizeAndStride{}, false
		}
		// As in XLA, the constraints of the factor are not kept.
		return sizeAndStride{size: s.size, stride: s.stride.Times(e.n.rhs)}, true
	case opMod:
		return sizeAndStrideOfMod(e.n.lhs, e.n.rhs)
	case opFloorDiv:
		c, ok := e.n.rhs.Constant()
		if !ok || e.n.lhs.Kind() != KindDim {
			return sizeAndStride{}, false
		}
		// x floordiv c over [0, n) takes n ceildiv c values, written
		// (n + c - 1) floordiv c.
		return sizeAndStride{size: e.n.lhs.Add(Const(c - 1)).FloorDivBy(e.n.rhs), stride: Const(1)}, true
	case opConst:
		return sizeAndStride{size: Const(1), stride: Const(0)}, true
	case opAdd:
		var parts []sizeAndStride
		for _, t := range summands(e) {
			s, ok := extractSizeAndStride(t, dims, symbols, numRange)
			if !ok {
				return sizeAndStride{}, false
			}
			parts = append(parts, s)
		}
		return combineSizesAndStrides(parts, dims)
	}
	return sizeAndStride{}, false
}

func summands(e Expr) []Expr {
	var out []Expr
	visitSummands(e, func(x Expr) { out = append(out, x) })
	return out
}

// sizeAndStrideOfMod handles d mod c and (d floordiv k) mod c: over [0, n)
// they take n - ((n - 1) floordiv c) * c values (n ceildiv k for the
// quotient), provided that c is a multiple of n or n of c.
func sizeAndStrideOfMod(lhs, modulus Expr) (sizeAndStride, bool) {
	if _, ok := modulus.Constant(); !ok {
		return sizeAndStride{}, false
	}
	result := func(n Expr) (sizeAndStride, bool) {
		size := n.Sub(n.AddConst(-1).FloorDivBy(modulus).Times(modulus))
		zero := Interval{0, 0}
		cs := ConstraintOf(modulus.ModBy(n), zero).Or(ConstraintOf(n.ModBy(modulus), zero))
		return sizeAndStride{size: size, stride: Const(1), constraints: cs}, true
	}
	if lhs.Kind() == KindDim {
		return result(lhs)
	}
	if lhs.op() != opFloorDiv || lhs.n.lhs.Kind() != KindDim {
		return sizeAndStride{}, false
	}
	k, ok := lhs.n.rhs.Constant()
	if !ok {
		return sizeAndStride{}, false
	}
	return result(lhs.n.lhs.Add(Const(k - 1)).FloorDivBy(lhs.n.rhs))
}

// combineSizesAndStrides is XLA's CombineSizesAndStrides for a sum of
// strided terms: the size is the product of the sizes, the stride that of
// the minor-most term that covers more than one value, and the sizes must
// follow the pattern (1*, partial?, full*, 1*) in decreasing order of
// stride.
func combineSizesAndStrides(parts []sizeAndStride, dims []Interval) (sizeAndStride, bool) {
	cs := AlwaysSatisfied()
	for _, p := range parts {
		cs = cs.And(p.constraints)
	}
	size := Const(1)
	for _, p := range parts {
		size = size.Times(p.size)
	}
	stride, ok := combineStrides(parts, dims)
	if !ok {
		return sizeAndStride{}, false
	}
	cs = cs.And(summationConstraints(parts, dims))
	return sizeAndStride{size: size, stride: stride, constraints: cs}, true
}

// sortByStrideDescending orders terms by the absolute value of their
// (constant) strides, largest first.
func sortByStrideDescending(parts []sizeAndStride) []sizeAndStride {
	out := slices.Clone(parts)
	abs := func(p sizeAndStride) int64 {
		v, _ := p.stride.Constant()
		if v < 0 {
			return -v
		}
		return v
	}
	slices.SortStableFunc(out, func(a, b sizeAndStride) int {
		x, y := abs(a), abs(b)
		switch {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	return out
}

// sizeRange is the number of values a size expression (a constant or a
// dimension starting at 1 as a tile size) can reach at most.
func sizeRange(size Expr, dims []Interval) (int64, bool) {
	if v, ok := size.Constant(); ok {
		return v, true
	}
	if size.Kind() != KindDim || size.Index() >= len(dims) {
		return 0, false
	}
	iv := dims[size.Index()]
	if iv.Lo != 0 {
		return 0, false
	}
	return iv.Hi + 1, true
}

// combineStrides is XLA's CombineStrides: with constant strides, each one
// the previous one divided by the range of its size, the stride is the nest
// "if size_i != 1 then stride_i else ..." over the terms in increasing order
// of stride, 0 when every size is 1.
func combineStrides(parts []sizeAndStride, dims []Interval) (Expr, bool) {
	for _, p := range parts {
		if _, ok := p.stride.Constant(); !ok {
			return Expr{}, false
		}
		if _, ok := p.size.Constant(); !ok && p.size.Kind() != KindDim {
			return Expr{}, false
		}
	}
	sorted := sortByStrideDescending(parts)
	for i := 1; i < len(sorted); i++ {
		n, ok := sizeRange(sorted[i].size, dims)
		if !ok {
			return Expr{}, false
		}
		stride, _ := sorted[i].stride.Constant()
		prev, _ := sorted[i-1].stride.Constant()
		if p, ok := mulChecked(n, absInt(stride)); !ok || p != absInt(prev) {
			return Expr{}, false
		}
	}
	var nested Expr
	for _, p := range sorted {
		n, ok := sizeRange(p.size, dims)
		if !ok {
			return Expr{}, false
		}
		nested = ifNeqOne(p.size, p.stride, nested, n)
	}
	return nested, true
}

func absInt(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// ifNeqOne is an expression equal to t when e != 1 and to f when e == 1,
// for e in [1, b]: with c = (b + 1 - e) floordiv b, which is 1 exactly when
// e = 1, it is c * f + (1 - c) * t.
func ifNeqOne(e, t, f Expr, b int64) Expr {
	cond := Const(b).AddConst(1).Sub(e).FloorDivBy(Const(b))
	return cond.Times(f).Add(cond.Neg().AddConst(1).Times(t))
}

// summationConstraints is XLA's
// ConstructConstraintExpressionForDestructuredSummation: in decreasing order
// of stride, the sizes must be 1 up to a partial one, then full ones, then 1
// again.
func summationConstraints(parts []sizeAndStride, dims []Interval) ConstraintExpression {
	sorted := sortByStrideDescending(parts)
	out := Unsatisfiable()
	n := len(sorted)
	for partial := 0; partial < n; partial++ {
		for full := 0; full < n-partial; full++ {
			if c, ok := conjunctionForSummation(sorted, dims, partial, full); ok {
				out = out.Or(c)
			}
		}
	}
	return out
}

func conjunctionForSummation(sorted []sizeAndStride, dims []Interval, partial, full int) (ConstraintExpression, bool) {
	one := Interval{1, 1}
	cs := AlwaysSatisfied()
	i := 0
	for ; i < partial; i++ {
		cs = cs.And(ConstraintOf(sorted[i].size, one))
	}
	i++ // the partial size is unconstrained
	for ; i <= partial+full; i++ {
		n, ok := sizeRange(sorted[i].size, dims)
		if !ok {
			return ConstraintExpression{}, false
		}
		cs = cs.And(ConstraintOf(sorted[i].size, Interval{n, n}))
	}
	for ; i < len(sorted); i++ {
		cs = cs.And(ConstraintOf(sorted[i].size, one))
	}
	return cs, true
}

package affine

// rangeEval computes intervals that contain every value an expression takes
// over the domain of a map, by interval arithmetic over the bounds of the
// variables (XLA's RangeEvaluator).
type rangeEval struct {
	m *IndexingMap
	// useConstraints intersects the range of an expression that is exactly
	// the expression of a constraint with the constraint's range. The
	// simplifier of results and of constraints works with the bounds alone,
	// so that a constraint can never be used to prove itself redundant.
	useConstraints bool
}

func (r rangeEval) expr(e Expr) Interval {
	iv := pointInterval(e.c)
	for _, t := range e.terms {
		iv = iv.Add(r.atom(t.atom).Scale(t.coef))
	}
	if r.useConstraints && len(e.terms) > 0 {
		for _, c := range r.m.constraints {
			if c.Expr.Equal(e) {
				iv = iv.Intersect(c.Range)
			}
		}
	}
	return iv
}

func (r rangeEval) atom(a *atom) Interval {
	var iv Interval
	switch a.kind {
	case atomDim, atomRange, atomRuntime:
		vs := r.m.vars(a.kind)
		if a.index >= len(vs) {
			return Unbounded
		}
		return vs[a.index]
	case atomFloorDiv:
		iv = r.expr(a.lhs).FloorDiv(a.k)
	case atomCeilDiv:
		iv = r.expr(a.lhs).CeilDiv(a.k)
	default:
		iv = r.expr(a.lhs).Mod(a.k)
	}
	if r.useConstraints {
		for _, c := range r.m.constraints {
			ct := c.Expr.terms
			if len(ct) == 1 && c.Expr.c == 0 && ct[0].coef == 1 && atomEqual(ct[0].atom, a) {
				iv = iv.Intersect(c.Range)
			}
		}
	}
	return iv
}

// RangeOf is an interval that contains every value e takes over the domain
// of m (the bounds of the variables, and the constraints on e or on its
// subexpressions). It is exact for a single variable and for sums of
// distinct variables; otherwise it may be wider than the true range. For a
// known-empty map it is empty.
func (m IndexingMap) RangeOf(e Expr) Interval {
	if m.empty {
		return emptyInterval
	}
	return rangeEval{m: &m, useConstraints: true}.expr(e)
}

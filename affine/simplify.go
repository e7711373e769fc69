package affine

import "slices"

// maxRounds bounds the rounds of constraint simplification. Each round only
// shrinks bounds or constraints, so the limit matters only for constraints
// that tighten bounds by small steps over huge ranges.
const maxRounds = 16

// Simplify returns m rewritten with the help of the bounds of its variables,
// as XLA's IndexingMap::Simplify does. It never changes the domain of the map
// nor the results at any point of it; it may tighten bounds, rewrite, merge or
// drop constraints, and mark the map known empty.
//
// Constraints are simplified first, until nothing changes: each constraint's
// expression is simplified; a constraint that always holds over the box of
// the bounds is dropped and one that never holds makes the map known empty;
// "e + c in [lo, hi]", "e * c in [lo, hi]" (and sums whose coefficients have
// a common factor) and "e floordiv c in [lo, hi]" become bounds on e; a
// constraint on one variable tightens its bounds; "x mod k in [r, r]"
// constraints with the same x and r merge into one modulo the lcm, and those
// on a variable move its bounds to the nearest values that satisfy them;
// linear constraints over variables tighten the bounds of each variable.
// Then the results are simplified with the final bounds (see the rules in
// simplify_expr.go), without using the constraints, as XLA does.
func Simplify(m IndexingMap) IndexingMap {
	if m.empty {
		return m
	}
	m = m.clone()
	for range maxRounds {
		changed := m.simplifyConstraints()
		if !m.empty && m.tightenFromModConstraints() {
			changed = true
		}
		if !m.empty && m.propagateBounds() {
			changed = true
		}
		if m.empty {
			return m
		}
		if !changed {
			break
		}
	}
	s := newExprSimplifier(&m)
	for i, r := range m.results {
		m.results[i] = s.simplify(r)
	}
	return m
}

// simplifyConstraints simplifies and normalises every constraint once and
// reports whether anything changed.
func (m *IndexingMap) simplifyConstraints() bool {
	old := m.constraints
	var buf [16]Interval
	bounds := append(append(append(buf[:0], m.dims...), m.rangeVars...), m.rtVars...)
	m.constraints = make([]Constraint, 0, len(old))
	s := newExprSimplifier(m)
	for _, c := range old {
		m.addNormalized(s.simplify(c.Expr), c.Range)
		if m.empty {
			return true
		}
	}
	return !slices.EqualFunc(old, m.constraints, func(a, b Constraint) bool {
		return a.Range == b.Range && a.Expr.Equal(b.Expr)
	}) || !m.boundsEqual(bounds)
}

// boundsEqual reports whether the bounds of the variables, in order, are b.
func (m *IndexingMap) boundsEqual(b []Interval) bool {
	n := len(m.dims)
	nr := n + len(m.rangeVars)
	return slices.Equal(b[:n], m.dims) && slices.Equal(b[n:nr], m.rangeVars) && slices.Equal(b[nr:], m.rtVars)
}

func (m *IndexingMap) boundsSnapshot() []Interval {
	b := make([]Interval, 0, len(m.dims)+len(m.rangeVars)+len(m.rtVars))
	b = append(b, m.dims...)
	b = append(b, m.rangeVars...)
	return append(b, m.rtVars...)
}

// addNormalized adds the constraint e in r after rewriting it into bounds on
// a simpler expression, dropping it if it always holds over the box of the
// bounds and marking the map empty if it never does.
func (m *IndexingMap) addNormalized(e Expr, r Interval) {
	box := rangeEval{m: m}
	for !m.empty {
		if r.IsEmpty() {
			m.setEmpty()
			return
		}
		if c, ok := e.Constant(); ok {
			if !r.Contains(c) {
				m.setEmpty()
			}
			return
		}
		iv := box.expr(e)
		if r.ContainsInterval(iv) {
			return
		}
		if iv.Intersect(r).IsEmpty() {
			m.setEmpty()
			return
		}
		e2, r2, ok := normalizeConstraint(e, r)
		if !ok {
			m.addConstraint(e, r)
			return
		}
		e, r = e2, r2
	}
}

// normalizeConstraint rewrites e in r into an equivalent constraint on a
// smaller expression (XLA's SimplifyConstraintRange, extended to common
// factors of sums and to ceildiv).
func normalizeConstraint(e Expr, r Interval) (Expr, Interval, bool) {
	if e.c != 0 && len(e.terms) > 0 {
		r2, ok := shiftInterval(r, e.c)
		if !ok {
			return e, r, false
		}
		return Expr{terms: e.terms}, r2, true
	}
	if len(e.terms) == 1 && e.terms[0].coef != 1 {
		r2, ok := quotientInterval(r, e.terms[0].coef)
		if !ok {
			return e, r, false
		}
		return atomExpr(e.terms[0].atom), r2, true
	}
	if len(e.terms) > 1 {
		g := int64(0)
		for _, t := range e.terms {
			g = gcd(g, t.coef)
		}
		if e.terms[0].coef < 0 {
			g = -g
		}
		if g != 1 {
			r2, ok := quotientInterval(r, g)
			if !ok {
				return e, r, false
			}
			return divExact(e, g), r2, true
		}
		return e, r, false
	}
	a := e.terms[0].atom
	switch a.kind {
	case atomFloorDiv:
		// x floordiv k in [lo, hi] ⟺ x in [lo·k, hi·k + k - 1].
		lo, ok1 := scaleBound(r.Lo, a.k, 0)
		hi, ok2 := scaleBound(r.Hi, a.k, a.k-1)
		if ok1 && ok2 {
			return a.lhs, Interval{lo, hi}, true
		}
	case atomCeilDiv:
		// x ceildiv k in [lo, hi] ⟺ x in [(lo - 1)·k + 1, hi·k].
		lo, ok1 := scaleBound(r.Lo, a.k, 1-a.k)
		hi, ok2 := scaleBound(r.Hi, a.k, 0)
		if ok1 && ok2 {
			return a.lhs, Interval{lo, hi}, true
		}
	}
	return e, r, false
}

// isInfinite reports whether v stands for an unbounded side of an interval.
func isInfinite(v int64) bool { return v == Unbounded.Lo || v == Unbounded.Hi }

// scaleBound is v·k + d for a bound v, keeping unbounded sides unbounded.
func scaleBound(v, k, d int64) (int64, bool) {
	if isInfinite(v) {
		return v, true
	}
	p, ok := mulChecked(v, k)
	if !ok {
		return 0, false
	}
	return addChecked(p, d)
}

// shiftInterval is the interval of x such that x + c is in r.
func shiftInterval(r Interval, c int64) (Interval, bool) {
	lo, hi := r.Lo, r.Hi
	var ok1, ok2 = true, true
	if !isInfinite(lo) {
		lo, ok1 = addChecked(lo, -c)
	}
	if !isInfinite(hi) {
		hi, ok2 = addChecked(hi, -c)
	}
	return Interval{lo, hi}, ok1 && ok2
}

// quotientInterval is the interval of x such that a·x is in r, for a ≠ 0.
func quotientInterval(r Interval, a int64) (Interval, bool) {
	if a < 0 {
		r, a = r.Neg(), -a
	}
	lo, hi := r.Lo, r.Hi
	if !isInfinite(lo) {
		lo = ceilDiv(lo, a)
	}
	if !isInfinite(hi) {
		hi = floorDiv(hi, a)
	}
	return Interval{lo, hi}, true
}

// tightenFromModConstraints merges "x mod a in [r, r]" and "x mod b in
// [r, r]" into "x mod lcm(a, b) in [r, r]" (XLA's MergeModConstraints) and
// moves the bounds of a variable v constrained by "(v + c) mod k in [r1, r2]"
// to the nearest values that satisfy the constraint.
func (m *IndexingMap) tightenFromModConstraints() bool {
	changed := false
	for i := 0; i < len(m.constraints); i++ {
		c := m.constraints[i]
		a, ok := soleAtom(c.Expr)
		if !ok || a.kind != atomMod || !c.Range.IsPoint() {
			continue
		}
		for j := i + 1; j < len(m.constraints); j++ {
			d := m.constraints[j]
			b, ok := soleAtom(d.Expr)
			if !ok || b.kind != atomMod || d.Range != c.Range || !b.lhs.Equal(a.lhs) {
				continue
			}
			l, ok := mulChecked(a.k/gcd(a.k, b.k), b.k)
			if !ok {
				continue
			}
			merged, err := divide(atomMod, a.lhs, l)
			if err != nil {
				continue
			}
			m.constraints = slices.Delete(m.constraints, j, j+1)
			m.constraints = slices.Delete(m.constraints, i, i+1)
			m.addConstraint(merged, c.Range)
			return true // the indices moved; the caller runs another round
		}
	}
	for _, c := range m.constraints {
		a, ok := soleAtom(c.Expr)
		if !ok || a.kind != atomMod || len(a.lhs.terms) != 1 || a.lhs.terms[0].coef != 1 || !a.lhs.terms[0].atom.isVar() {
			continue
		}
		v := a.lhs.terms[0].atom
		res := c.Range.Intersect(Interval{0, a.k - 1})
		b := &m.vars(v.kind)[v.index]
		nb, ok := tightenToResidues(*b, a.lhs.c, a.k, res)
		if !ok {
			continue
		}
		if nb != *b {
			*b = nb
			changed = true
			if nb.IsEmpty() {
				m.setEmpty()
				return true
			}
		}
	}
	return changed
}

// tightenToResidues shrinks b to the smallest interval containing every v in
// b with (v + c) mod k in res.
func tightenToResidues(b Interval, c, k int64, res Interval) (Interval, bool) {
	if !b.IsBounded() || res.IsEmpty() {
		return b, false
	}
	lo, ok1 := addChecked(b.Lo, c)
	hi, ok2 := addChecked(b.Hi, c)
	if !ok1 || !ok2 {
		return b, false
	}
	// Raise lo to the next value whose residue is in res.
	if r := floorMod(lo, k); r < res.Lo {
		lo += res.Lo - r
	} else if r > res.Hi {
		lo += k - r + res.Lo
	}
	// Lower hi to the previous one.
	if r := floorMod(hi, k); r > res.Hi {
		hi -= r - res.Hi
	} else if r < res.Lo {
		hi -= r + k - res.Hi
	}
	if lo > hi {
		return emptyInterval, true
	}
	return Interval{lo - c, hi - c}, true
}

// propagateBounds tightens the bounds of the variables of linear constraints
// Σ aᵢ·vᵢ + c in [lo, hi]: each aᵢ·vᵢ lies in [lo, hi] minus the range of the
// other terms.
func (m *IndexingMap) propagateBounds() bool {
	changed := false
	for _, c := range m.constraints {
		e := c.Expr
		if len(e.terms) < 2 {
			continue
		}
		linear := true
		for _, t := range e.terms {
			linear = linear && t.atom.isVar()
		}
		if !linear {
			continue
		}
		for i, t := range e.terms {
			others := pointInterval(e.c)
			for j, u := range e.terms {
				if j != i {
					others = others.Add(m.vars(u.atom.kind)[u.atom.index].Scale(u.coef))
				}
			}
			if !others.IsBounded() {
				continue
			}
			lo, hi := c.Range.Lo, c.Range.Hi
			ok1, ok2 := true, true
			if !isInfinite(lo) {
				lo, ok1 = addChecked(lo, -others.Hi)
			}
			if !isInfinite(hi) {
				hi, ok2 = addChecked(hi, -others.Lo)
			}
			if !ok1 || !ok2 {
				continue
			}
			q, _ := quotientInterval(Interval{lo, hi}, t.coef)
			b := &m.vars(t.atom.kind)[t.atom.index]
			nb := b.Intersect(q)
			if nb != *b {
				*b = nb
				changed = true
				if nb.IsEmpty() {
					m.setEmpty()
					return true
				}
			}
		}
	}
	return changed
}

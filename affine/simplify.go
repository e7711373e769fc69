package affine

// Simplify returns m rewritten with the help of the bounds of its
// variables, as XLA's IndexingMap::Simplify does. See SimplifyMap.
func Simplify(m IndexingMap) IndexingMap {
	r, _ := SimplifyMap(m, SimplifyOptions{})
	return r
}

// SimplifyOptions tune SimplifyMap.
type SimplifyOptions struct {
	// PreservePointDimensions keeps a variable (or any subexpression) whose
	// range is a single point instead of replacing it by that constant
	// (XLA's SimplifyPointDimensions::kPreserve).
	PreservePointDimensions bool
}

// SimplifyMap rewrites m as XLA's IndexingMap::Simplify does, and reports
// whether anything changed:
//
//  1. Until nothing changes, the constraints' expressions are simplified
//     (a constraint that always holds is dropped) and their ranges are
//     moved inwards: e + c in r becomes e in r - c, e * k and e floordiv k
//     in r constrain e, a sum a*g + b in [0, u] whose b cannot change the
//     quotient by g becomes a*g in [0, u]; a constraint on one variable
//     tightens its bounds and one that cannot hold makes the map known
//     empty.
//  2. Constraints x mod c_i in [r, r] on the same x are merged into one
//     modulo the lcm of the c_i, and a variable's bounds are rounded to the
//     residue.
//  3. The results are simplified with the final bounds and constraints.
func SimplifyMap(m IndexingMap, opts SimplifyOptions) (IndexingMap, bool) {
	if m.undefined || m.empty {
		return m, false
	}
	m = m.clone()
	constraintsChanged := false
	cs := newExprSimplifier(&m, false, true)
	defer cs.release()
	for {
		changed := cs.simplifyConstraintExprs(&m)
		cs.reset()
		if cs.simplifyConstraintRanges(&m) {
			changed = true
		}
		cs.reset()
		if !changed {
			break
		}
		constraintsChanged = true
	}
	if m.mergeModConstraints() {
		constraintsChanged = true
	}
	cs.reset()
	rs := exprSimplifier{rng: rangeEval{m: &m, useConstraints: true}, replacePoints: !opts.PreservePointDimensions, memo: cs.memo, b: cs.b}
	resultsChanged := false
	for i, r := range m.results {
		s := rs.simplify(r)
		if !s.Equal(r) {
			m.results[i] = s
			resultsChanged = true
		}
	}
	// The simplifiers built in their arena, which the next simplification
	// reuses: what m keeps moves to the heap.
	var d detacher
	for i, r := range m.results {
		m.results[i] = d.detach(r)
	}
	for i, c := range m.constraints {
		m.constraints[i].Expr = d.detach(c.Expr)
	}
	return m, resultsChanged || constraintsChanged
}

// simplifyConstraintExprs simplifies the expression of every constraint,
// dropping the constraints that always hold. It reports whether a
// constraint was rewritten.
func (s *exprSimplifier) simplifyConstraintExprs(m *IndexingMap) bool {
	var remove []Expr
	var add []Constraint
	for _, c := range m.constraints {
		e := s.simplify(c.Expr)
		if c.Range.ContainsInterval(s.rangeOf(e)) {
			remove = append(remove, c.Expr)
			continue
		}
		if e.Equal(c.Expr) {
			continue
		}
		add = append(add, Constraint{e, c.Range})
		remove = append(remove, c.Expr)
	}
	for _, e := range remove {
		m.eraseConstraint(e)
	}
	for _, c := range add {
		m.addConstraint(c.Expr, c.Range)
	}
	return len(add) > 0
}

// simplifyConstraintRanges moves the range of every constraint inwards
// until its expression is no longer a sum with a constant, a product or a
// quotient by a constant. It reports whether a constraint changed.
func (s *exprSimplifier) simplifyConstraintRanges(m *IndexingMap) bool {
	var remove []Expr
	var add []Constraint
	for _, c := range m.constraints {
		e, r := c.Expr, c.Range
		changed := false
		for s.constraintRangeOnce(&e, &r) {
			changed = true
		}
		if changed {
			add = append(add, Constraint{e, r})
			remove = append(remove, c.Expr)
		}
	}
	for _, e := range remove {
		m.eraseConstraint(e)
	}
	for _, c := range add {
		m.addConstraint(c.Expr, c.Range)
	}
	return len(add) > 0
}

// constraintRangeOnce is one step of simplifyConstraintRanges (XLA's
// SimplifyConstraintRangeOnce).
func (s *exprSimplifier) constraintRangeOnce(e *Expr, r *Interval) bool {
	switch e.op() {
	case opVar, opConst:
		return false
	case opAdd:
		return s.addConstraintRange(e, r)
	case opMul, opFloorDiv:
	default:
		return false
	}
	k := s.rangeOf(e.n.rhs)
	if !k.IsPoint() || k.Lo == 0 {
		return false
	}
	c := k.Lo
	lo, hi := r.Lo, r.Hi
	switch {
	case e.n.op == opMul:
		if c < 0 {
			c, lo, hi = -c, -hi, -lo
		}
		*r = Interval{ceilDiv(lo, c), floorDiv(hi, c)}
	case c > 0:
		// x floordiv c in [lo, hi] <=> x in [lo*c, (hi+1)*c - 1].
		*r = Interval{satMul(lo, c), satAdd(satMul(satAdd(hi, 1), c), -1)}
	default:
		// For c < 0, x floordiv c = q <=> (q+1)*c < x <= q*c, so
		// x in [(hi+1)*c + 1, lo*c]. (XLA negates the range and applies
		// the positive rule, which is off by one: it keeps points whose
		// quotient is outside the range and drops points inside it.)
		*r = Interval{satAdd(satMul(satAdd(hi, 1), c), 1), satMul(lo, c)}
	}
	*e = e.n.lhs
	return true
}

// addConstraintRange moves a constant out of a sum, or drops the summands
// that cannot matter: for a*g + b in [0, u] with b in [0, B], when
// (u - b) floordiv g is the same for every value of b, the constraint is
// a*g in [0, u].
func (s *exprSimplifier) addConstraintRange(e *Expr, r *Interval) bool {
	k := s.rangeOf(e.n.rhs)
	if k.IsPoint() {
		*e = e.n.lhs
		*r = Interval{satAdd(r.Lo, -k.Lo), satAdd(r.Hi, -k.Lo)}
		return true
	}
	if r.Lo != 0 {
		return false
	}
	multiplied, g, rest := s.splitSumByGCD(*e)
	if g == 1 {
		return false
	}
	restRange := s.rangeOf(rest)
	if restRange.Lo != 0 {
		// The rule needs b to range over [0, B], as XLA assumes: with
		// b < 0, a*g + b >= 0 does not follow from a*g >= 0, and with
		// b > 0, a*g <= u does not bound a*g + b.
		return false
	}
	diff := pointInterval(r.Hi).Add(restRange.Neg())
	if !diff.FloorDiv(g).IsPoint() {
		return false
	}
	*e = s.b.mul(multiplied, g)
	return true
}

// mergeModConstraints merges the constraints x mod c_i in [r, r] on the same
// x into x mod lcm(c_i) in [r, r], and rounds the bounds of a variable x to
// the residue r (XLA's MergeModConstraints). It reports whether anything
// changed.
func (m *IndexingMap) mergeModConstraints() bool {
	rng := rangeEval{m: m}
	changed := false
	type group struct {
		lhs Expr
		ops []Expr
	}
	var groups []group
	for _, c := range m.constraints {
		if c.Expr.op() != opMod {
			continue
		}
		lhs := c.Expr.n.lhs
		found := false
		for i := range groups {
			if groups[i].lhs.Equal(lhs) {
				groups[i].ops = append(groups[i].ops, c.Expr)
				found = true
				break
			}
		}
		if !found {
			groups = append(groups, group{lhs, []Expr{c.Expr}})
		}
	}
	for _, g := range groups {
		type residue struct {
			r   int64
			ops []Expr
		}
		var residues []residue
		for _, op := range g.ops {
			i := m.constraintIndex(op)
			if i < 0 || !m.constraints[i].Range.IsPoint() {
				continue
			}
			r := m.constraints[i].Range.Lo
			found := false
			for j := range residues {
				if residues[j].r == r {
					residues[j].ops = append(residues[j].ops, op)
					found = true
					break
				}
			}
			if !found {
				residues = append(residues, residue{r, []Expr{op}})
			}
		}
		if len(residues) == 0 {
			continue
		}
		var bound *Interval
		if g.lhs.isVar() {
			c, i := splitVarID(g.lhs.n.val())
			if vs := m.varsOf(c); i < len(vs) {
				bound = &vs[i].Bounds
			}
		}
		for _, res := range residues {
			div := int64(1)
			for _, op := range res.ops {
				div = lcm(div, absInt(rng.of(op.n.rhs).Lo))
			}
			if div == 0 {
				continue
			}
			if len(res.ops) > 1 {
				for _, op := range res.ops {
					m.eraseConstraint(op)
				}
				merged := g.lhs.Mod(div)
				if i := m.constraintIndex(merged); i >= 0 {
					m.constraints[i].Range = pointInterval(res.r)
				} else {
					m.constraints = append(m.constraints, Constraint{merged, pointInterval(res.r)})
				}
				changed = true
			}
			if bound != nil && bound.IsBounded() {
				old := *bound
				// The first and last values of the residue within the
				// bounds. (XLA rounds with truncating division, which
				// skips values below a negative lower bound.)
				if l := floorDiv(bound.Lo-res.r, div)*div + res.r; l >= bound.Lo {
					bound.Lo = l
				} else {
					bound.Lo = l + div
				}
				bound.Hi = floorDiv(bound.Hi-res.r, div)*div + res.r
				if *bound != old {
					changed = true
				}
			}
		}
	}
	return changed
}

// satAdd adds with saturation at the ends of int64.
func satAdd(a, b int64) int64 {
	s, ok := addChecked(a, b)
	if ok {
		return s
	}
	if a > 0 {
		return 1<<63 - 1
	}
	return -1 << 63
}

// satMul multiplies with saturation at the ends of int64.
func satMul(a, b int64) int64 {
	p, ok := mulChecked(a, b)
	if ok {
		return p
	}
	if (a < 0) != (b < 0) {
		return -1 << 63
	}
	return 1<<63 - 1
}

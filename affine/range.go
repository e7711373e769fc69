package affine

// rangeEval computes intervals that contain every value an expression takes
// over the domain of a map, by interval arithmetic over the bounds of the
// variables (XLA's RangeEvaluator).
type rangeEval struct {
	m *IndexingMap
	// useConstraints intersects the range of a subexpression that is
	// exactly the expression of a constraint with the constraint's range.
	useConstraints bool
}

func (r rangeEval) of(e Expr) Interval {
	switch e.op() {
	case opConst:
		return pointInterval(e.value())
	case opVar:
		return r.m.bound(splitVarID(e.n.val()))
	}
	return r.combine(e, r.of(e.n.lhs), r.of(e.n.rhs))
}

// combine is the range of the operation e from the ranges of its operands,
// intersected with the range of a constraint on e when there is one.
func (r rangeEval) combine(e Expr, lhs, rhs Interval) Interval {
	var iv Interval
	switch e.n.op {
	case opAdd:
		iv = lhs.Add(rhs)
	case opMul:
		iv = lhs.Mul(rhs)
	case opMin:
		iv = lhs.Min(rhs)
	case opMax:
		iv = lhs.Max(rhs)
	default:
		iv = divisionRange(e.n.op, lhs, rhs)
	}
	if r.useConstraints && len(r.m.constraints) > 0 {
		if i := r.m.constraintIndex(e); i >= 0 {
			iv = iv.Intersect(r.m.constraints[i].Range)
		}
	}
	return iv
}

// divisionRange bounds a quotient or remainder. XLA requires a constant
// divisor; a divisor whose range is not one nonzero point gives the widest
// sound range.
func divisionRange(o op, lhs, rhs Interval) Interval {
	if !rhs.IsPoint() || rhs.Lo == 0 {
		if o == opMod && rhs.Lo > 0 {
			// 0 <= x mod y < y for y > 0.
			return Interval{0, rhs.Hi - 1}
		}
		return Unbounded
	}
	d := rhs.Lo
	switch o {
	case opFloorDiv:
		return lhs.FloorDiv(d)
	case opCeilDiv:
		return lhs.CeilDiv(d)
	}
	return lhs.Mod(d)
}

// RangeOf is an interval that contains every value e takes over the domain
// of m, computed as XLA's RangeEvaluator does from the bounds of the
// variables and the constraints on subexpressions of e. For a known-empty map
// it is empty.
func (m IndexingMap) RangeOf(e Expr) Interval {
	if m.empty {
		return emptyInterval
	}
	return rangeEval{m: &m, useConstraints: true}.of(e)
}

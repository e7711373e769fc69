package affine

import (
	"slices"
	"strings"
)

// ConstraintExpression is a disjunction of conjunctions of constraints
// "expr in [lo, hi]" over the dimensions of a map, XLA's
// ConstraintExpression: the conditions on tile sizes under which a
// SymbolicTile is valid. The zero value is always satisfied.
type ConstraintExpression struct {
	unsatisfiable bool
	// disjuncts are the conjunctions, one of which must hold; none means
	// the expression is always satisfied (or never, if unsatisfiable).
	disjuncts [][]Constraint
}

// AlwaysSatisfied is the constraint expression that every point satisfies.
func AlwaysSatisfied() ConstraintExpression { return ConstraintExpression{} }

// Unsatisfiable is the constraint expression no point satisfies.
func Unsatisfiable() ConstraintExpression { return ConstraintExpression{unsatisfiable: true} }

// ConstraintOf is the constraint expression holding one constraint.
func ConstraintOf(e Expr, r Interval) ConstraintExpression {
	return ConstraintExpression{disjuncts: [][]Constraint{{{e, r}}}}
}

// IsSatisfiable reports whether some point may satisfy c.
func (c ConstraintExpression) IsSatisfiable() bool { return !c.unsatisfiable }

// IsAlwaysSatisfied reports whether c holds no constraint and is
// satisfiable.
func (c ConstraintExpression) IsAlwaysSatisfied() bool {
	return !c.unsatisfiable && len(c.disjuncts) == 0
}

// Disjuncts returns the conjunctions of c, one of which must hold.
func (c ConstraintExpression) Disjuncts() [][]Constraint {
	out := make([][]Constraint, len(c.disjuncts))
	for i, d := range c.disjuncts {
		out[i] = slices.Clone(d)
	}
	return out
}

// And is the conjunction of c and d, distributed over their disjunctions;
// conjunctions that constrain one expression to disjoint ranges are dropped.
func (c ConstraintExpression) And(d ConstraintExpression) ConstraintExpression {
	switch {
	case c.unsatisfiable || d.unsatisfiable:
		return Unsatisfiable()
	case c.IsAlwaysSatisfied():
		return d
	case d.IsAlwaysSatisfied():
		return c
	}
	var out [][]Constraint
	for _, a := range c.disjuncts {
		for _, b := range d.disjuncts {
			if conj, ok := intersectConjunctions(a, b); ok {
				out = append(out, conj)
			}
		}
	}
	return ConstraintExpression{unsatisfiable: len(out) == 0, disjuncts: out}
}

func intersectConjunctions(a, b []Constraint) ([]Constraint, bool) {
	if len(a) == 0 {
		return b, true
	}
	if len(b) == 0 {
		return a, true
	}
	out := slices.Clone(a)
	for _, cb := range b {
		i := slices.IndexFunc(out, func(x Constraint) bool { return x.Expr.Equal(cb.Expr) })
		if i < 0 {
			out = append(out, cb)
			continue
		}
		out[i].Range = out[i].Range.Intersect(cb.Range)
		if !out[i].Range.IsFeasible() {
			return nil, false
		}
	}
	return out, true
}

// Or is the disjunction of c and d.
func (c ConstraintExpression) Or(d ConstraintExpression) ConstraintExpression {
	switch {
	case c.IsAlwaysSatisfied() || d.IsAlwaysSatisfied():
		return AlwaysSatisfied()
	case c.unsatisfiable:
		return d
	case d.unsatisfiable:
		return c
	}
	return ConstraintExpression{disjuncts: append(slices.Clone(c.disjuncts), d.disjuncts...)}
}

// Simplify drops the constraints on constants that hold, the conjunctions
// that cannot hold and the duplicate conjunctions; a conjunction that always
// holds makes c always satisfied.
func (c ConstraintExpression) Simplify() ConstraintExpression {
	if len(c.disjuncts) == 0 {
		return c
	}
	var out [][]Constraint
	for _, conj := range c.disjuncts {
		var kept []Constraint
		unsat := false
		for _, k := range conj {
			if v, ok := k.Expr.Constant(); ok {
				if k.Range.Contains(v) {
					continue
				}
				unsat = true
				break
			}
			if !k.Range.IsFeasible() {
				unsat = true
				break
			}
			if !slices.ContainsFunc(kept, func(x Constraint) bool { return x.Expr.Equal(k.Expr) && x.Range == k.Range }) {
				kept = append(kept, k)
			}
		}
		if unsat {
			continue
		}
		if len(kept) == 0 {
			return AlwaysSatisfied()
		}
		if !slices.ContainsFunc(out, func(o []Constraint) bool { return sameConjunction(o, kept) }) {
			out = append(out, kept)
		}
	}
	return ConstraintExpression{unsatisfiable: len(out) == 0, disjuncts: out}
}

func sameConjunction(a, b []Constraint) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y Constraint) bool { return x.Expr.Equal(y.Expr) && x.Range == y.Range }) {
			return false
		}
	}
	return true
}

// IsSatisfiedBy reports whether the dimension values satisfy c.
func (c ConstraintExpression) IsSatisfiedBy(dims []int64) (bool, error) {
	if len(c.disjuncts) == 0 {
		return !c.unsatisfiable, nil
	}
	p := Point{Dims: dims}
	for _, conj := range c.disjuncts {
		all := true
		for _, k := range conj {
			v, err := k.Expr.Eval(p)
			if err != nil {
				return false, err
			}
			if !k.Range.Contains(v) {
				all = false
				break
			}
		}
		if all {
			return true, nil
		}
	}
	return false, nil
}

// String prints c as XLA does: the constraints of each conjunction sorted and
// joined by " && ", the conjunctions sorted and joined by " || ", or
// "always satisfied" and "unsatisfiable".
func (c ConstraintExpression) String() string { return c.Format(PrintOptions{}) }

// Format prints c as String does, in the given syntax.
func (c ConstraintExpression) Format(opts PrintOptions) string {
	switch {
	case c.IsAlwaysSatisfied():
		return "always satisfied"
	case c.unsatisfiable:
		return "unsatisfiable"
	}
	conjs := make([]string, len(c.disjuncts))
	for i, conj := range c.disjuncts {
		parts := make([]string, len(conj))
		for j, k := range conj {
			parts[j] = k.Expr.Format(opts) + " in " + k.Range.String()
		}
		slices.Sort(parts)
		conjs[i] = strings.Join(parts, " && ")
	}
	slices.Sort(conjs)
	return strings.Join(conjs, " || ")
}

package affine

import (
	"fmt"
	"slices"
)

// RescaleSymbols rewrites every range variable s constrained by
// s mod c in [r, r] (c > 0) as s' * c + r, where s' ranges over the
// values that satisfy the constraint, and drops that constraint, as XLA's
// RescaleSymbols does after merging the mod constraints. It reports whether
// a variable was rescaled.
func (m IndexingMap) RescaleSymbols() (IndexingMap, bool) {
	m = m.clone()
	m.mergeModConstraints()
	type replacement struct{ from, to Expr }
	var reps []replacement
	var deleted []Expr
	for _, c := range m.constraints {
		if !c.Range.IsPoint() || c.Expr.op() != opMod {
			continue
		}
		shift := c.Range.Lo
		k, ok := c.Expr.n.rhs.Constant()
		if !ok || k <= 0 {
			continue
		}
		s := c.Expr.n.lhs
		if s.Kind() != KindRangeVar {
			continue
		}
		if slices.ContainsFunc(reps, func(r replacement) bool { return r.from.Equal(s) }) {
			continue
		}
		to := Const(k).Times(s).Add(Const(shift))
		reps = append(reps, replacement{s, to})
		deleted = append(deleted, c.Expr)
		for i, r := range m.results {
			m.results[i] = r.ReplaceExpr(s, to)
		}
		b := &m.rangeVars[s.Index()].Bounds
		b.Lo = (b.Lo - shift) / k
		b.Hi = (b.Hi - shift) / k
	}
	var kept []Constraint
	for _, c := range m.constraints {
		if slices.ContainsFunc(deleted, c.Expr.Equal) {
			continue
		}
		e := c.Expr.replaceFunc(func(x Expr) (Expr, bool) {
			for _, r := range reps {
				if x.Equal(r.from) {
					return r.to, true
				}
			}
			return Expr{}, false
		})
		if i := slices.IndexFunc(kept, func(k Constraint) bool { return k.Expr.Equal(e) }); i >= 0 {
			kept[i].Range = c.Range
			continue
		}
		kept = append(kept, Constraint{e, c.Range})
	}
	m.constraints = kept
	return m, len(deleted) > 0
}

// ConvertSymbolsToDimensions returns m with its range and runtime variables
// turned into dimension variables appended after the existing ones, as
// XLA's ConvertSymbolsToDimensions does (their names are not kept).
func (m IndexingMap) ConvertSymbolsToDimensions() IndexingMap {
	if m.undefined || m.empty || len(m.rangeVars)+len(m.rtVars) == 0 {
		return m
	}
	nd, nr := len(m.dims), len(m.rangeVars)
	dims := slices.Clone(m.dims)
	for _, v := range slices.Concat(m.rangeVars, m.rtVars) {
		dims = append(dims, Variable{Bounds: v.Bounds})
	}
	sub := func(c varClass, i int) (Expr, bool) {
		switch c {
		case classRange:
			return Dim(nd + i), true
		case classRuntime:
			return Dim(nd + nr + i), true
		}
		return Expr{}, false
	}
	return m.rebuild(dims, nil, nil, sub)
}

// ConvertRangeVariablesToDimensions returns m with the range variables of
// the given (increasing) indices turned into dimension variables appended
// after the existing ones, keeping their names, as XLA's
// ConvertRangeVariablesToDimensions does.
func (m IndexingMap) ConvertRangeVariablesToDimensions(indices []int) (IndexingMap, error) {
	if !slices.IsSorted(indices) {
		return IndexingMap{}, fmt.Errorf("convert range variables: indices %v are not sorted", indices)
	}
	for _, i := range indices {
		if i < 0 || i >= len(m.rangeVars) {
			return IndexingMap{}, fmt.Errorf("convert range variables: index %d out of range: the map has %d range variables", i, len(m.rangeVars))
		}
	}
	nd := len(m.dims)
	dims := slices.Clone(m.dims)
	var rangeVars []Variable
	newIndex := make([]Expr, len(m.rangeVars))
	converted := 0
	for i, v := range m.rangeVars {
		if converted < len(indices) && indices[converted] == i {
			newIndex[i] = Dim(nd + converted)
			dims = append(dims, v)
			converted++
			continue
		}
		newIndex[i] = RangeVar(i - converted)
		rangeVars = append(rangeVars, v)
	}
	sub := func(c varClass, i int) (Expr, bool) {
		if c == classRange {
			return newIndex[i], true
		}
		return Expr{}, false
	}
	return m.rebuild(dims, rangeVars, slices.Clone(m.rtVars), sub), nil
}

// rebuild builds the map with the given variables whose results and
// constraints are m's with the substitution applied, adding the constraints
// one by one as the constructor does.
func (m IndexingMap) rebuild(dims, rangeVars, rtVars []Variable, sub func(c varClass, i int) (Expr, bool)) IndexingMap {
	out := IndexingMap{dims: dims, rangeVars: rangeVars, rtVars: rtVars, results: make([]Expr, len(m.results))}
	for i, r := range m.results {
		out.results[i] = r.replaceVars(sub)
	}
	if !out.variablesFeasible() {
		out.resetToKnownEmpty()
		return out
	}
	for _, c := range m.constraints {
		out.addConstraint(c.Expr.replaceVars(sub), c.Range)
	}
	return out
}

package affine

import "fmt"

// Compose returns the map that applies m, then next: for every point of m's
// domain, the results of next at m's results. It is ComposeIndexingMaps(m,
// next) followed, as XLA's indexing analysis does, by Simplify and
// RemoveUnusedSymbols. It reports an error if m does not have one result per
// dimension of next.
func (m IndexingMap) Compose(next IndexingMap) (IndexingMap, error) {
	c, err := ComposeIndexingMaps(m, next)
	if err != nil {
		return IndexingMap{}, err
	}
	c, _ = Simplify(c).RemoveUnusedSymbols()
	return c, nil
}

// ComposeIndexingMaps is XLA's ComposeIndexingMaps(first, second): the map
// that applies first, then second, without simplification.
//
// The composed map has first's dimension variables; its range variables are
// second's followed by first's, and so are its runtime variables. Its
// results are second's with first's results substituted for second's
// dimensions. Its constraints are second's (with the same substitution),
// first's, and for each result of first the condition that it lies in the
// bounds of the matching dimension of second. An undefined operand gives the
// undefined map.
func ComposeIndexingMaps(first, second IndexingMap) (IndexingMap, error) {
	if first.undefined || second.undefined {
		return Undefined(), nil
	}
	if len(first.results) != len(second.dims) {
		return IndexingMap{}, fmt.Errorf("compose: the first map has %d results but the second has %d dimension variables",
			len(first.results), len(second.dims))
	}
	nr, nt := len(second.rangeVars), len(second.rtVars)
	// first's symbols come after second's in the composed map.
	shift := func(c varClass, i int) (Expr, bool) {
		switch c {
		case classRange:
			return RangeVar(i + nr), nr > 0
		case classRuntime:
			return RuntimeVar(i + nt), nt > 0
		}
		return Expr{}, false
	}
	inner := make([]Expr, len(first.results))
	for i, r := range first.results {
		inner[i] = r.replaceVars(shift)
	}
	subst := func(c varClass, i int) (Expr, bool) {
		if c == classDim {
			return inner[i], true
		}
		return Expr{}, false
	}
	out := IndexingMap{
		dims:      cloneVars(first.dims),
		rangeVars: append(cloneVars(second.rangeVars), first.rangeVars...),
		rtVars:    append(cloneVars(second.rtVars), first.rtVars...),
		results:   make([]Expr, len(second.results)),
	}
	for i, r := range second.results {
		out.results[i] = r.replaceVars(subst)
	}
	if !out.variablesFeasible() || first.empty || second.empty {
		// XLA finds most empty compositions through the bounds; a known
		// empty operand without variables would escape it.
		out.resetToKnownEmpty()
		return out, nil
	}
	for _, c := range second.constraints {
		out.addConstraint(c.Expr.replaceVars(subst), c.Range)
	}
	for _, c := range first.constraints {
		out.addConstraint(c.Expr.replaceVars(shift), c.Range)
	}
	for i, e := range inner {
		out.addConstraint(e, second.dims[i].Bounds)
	}
	return out, nil
}

func cloneVars(vs []Variable) []Variable {
	out := make([]Variable, len(vs))
	copy(out, vs)
	return out
}

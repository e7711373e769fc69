package affine

import "fmt"

// Compose returns the map that applies m, then next: for every point of m's
// domain, the results of next at m's results. It is XLA's
// ComposeIndexingMaps(m, next) followed, as XLA's indexing analysis does, by
// Simplify and RemoveUnusedSymbols.
//
// The composed map has m's dimension variables; its range variables are
// next's followed by m's, and so are its runtime variables. Its constraints
// are next's (with m's results substituted for next's dimensions), m's, and
// the condition that each result of m lies in the bounds of the matching
// dimension of next.
//
// It reports an error if m does not have one result per dimension of next or
// if a coefficient of the composition overflows int64.
func (m IndexingMap) Compose(next IndexingMap) (IndexingMap, error) {
	c, err := composeRaw(m, next)
	if err != nil {
		return IndexingMap{}, err
	}
	c, _ = Simplify(c).RemoveUnusedSymbols()
	return c, nil
}

// composeRaw is XLA's ComposeIndexingMaps, without simplification.
func composeRaw(m, next IndexingMap) (IndexingMap, error) {
	if len(m.results) != len(next.dims) {
		return IndexingMap{}, fmt.Errorf("compose: the first map has %d results but the second has %d dimension variables", len(m.results), len(next.dims))
	}
	nr, nt := len(next.rangeVars), len(next.rtVars)
	out := IndexingMap{
		dims:      cloneOrEmpty(m.dims),
		rangeVars: append(cloneOrEmpty(next.rangeVars), m.rangeVars...),
		rtVars:    append(cloneOrEmpty(next.rtVars), m.rtVars...),
		results:   make([]Expr, len(next.results)),
	}
	if m.empty || next.empty {
		out.setEmpty()
		return out, nil
	}
	// m's symbols come after next's in the composed map.
	shift := func(k atomKind, i int) (Expr, bool) {
		switch k {
		case atomRange:
			return RangeVar(i + nr), nr > 0
		case atomRuntime:
			return RuntimeVar(i + nt), nt > 0
		}
		return Expr{}, false
	}
	inner := make([]Expr, len(m.results))
	for i, r := range m.results {
		e, err := replaceVars(r, shift)
		if err != nil {
			return IndexingMap{}, fmt.Errorf("compose: result %d of the first map: %w", i, err)
		}
		inner[i] = e
	}
	subst := func(k atomKind, i int) (Expr, bool) {
		if k == atomDim {
			return inner[i], true
		}
		return Expr{}, false
	}
	for i, r := range next.results {
		e, err := replaceVars(r, subst)
		if err != nil {
			return IndexingMap{}, fmt.Errorf("compose: result %d of the second map at the first map's results: %w", i, err)
		}
		out.results[i] = e
	}
	for _, c := range next.constraints {
		e, err := replaceVars(c.Expr, subst)
		if err != nil {
			return IndexingMap{}, fmt.Errorf("compose: constraint %s of the second map: %w", c, err)
		}
		out.addConstraint(e, c.Range)
	}
	for _, c := range m.constraints {
		e, err := replaceVars(c.Expr, shift)
		if err != nil {
			return IndexingMap{}, fmt.Errorf("compose: constraint %s of the first map: %w", c, err)
		}
		out.addConstraint(e, c.Range)
	}
	for i, e := range inner {
		out.addConstraint(e, next.dims[i])
	}
	return out, nil
}

func cloneOrEmpty(b []Interval) []Interval {
	return append([]Interval(nil), b...)
}

package affine

// VarSet marks variables of a map, one flag per variable of each kind.
type VarSet struct {
	Dims, Range, Runtime []bool
}

func (v *VarSet) of(c varClass) []bool {
	switch c {
	case classDim:
		return v.Dims
	case classRange:
		return v.Range
	}
	return v.Runtime
}

func (v VarSet) any() bool {
	for _, s := range [][]bool{v.Dims, v.Range, v.Runtime} {
		for _, b := range s {
			if b {
				return true
			}
		}
	}
	return false
}

// RemoveUnusedSymbols returns m without the range and runtime variables that
// neither a result nor a constraint involving other variables uses, and the
// set of variables removed (indices in m), as XLA's RemoveUnusedSymbols does.
// Constraints on removed variables only are dropped with them. The remaining
// variables keep their order. Nothing is removed from an undefined map.
func (m IndexingMap) RemoveUnusedSymbols() (IndexingMap, VarSet) {
	if m.undefined || len(m.rangeVars)+len(m.rtVars) == 0 {
		return m, VarSet{}
	}
	return m.removeUnused(false)
}

// RemoveUnusedVars is RemoveUnusedSymbols that also removes the dimension
// variables no result uses (XLA's RemoveUnusedVars).
func (m IndexingMap) RemoveUnusedVars() (IndexingMap, VarSet) {
	if m.undefined {
		return m, VarSet{}
	}
	return m.removeUnused(true)
}

func (m IndexingMap) removeUnused(dims bool) (IndexingMap, VarSet) {
	unused := VarSet{
		Dims:    make([]bool, len(m.dims)),
		Range:   make([]bool, len(m.rangeVars)),
		Runtime: make([]bool, len(m.rtVars)),
	}
	for _, s := range [][]bool{unused.Dims, unused.Range, unused.Runtime} {
		for i := range s {
			s[i] = true
		}
	}
	for _, r := range m.results {
		r.visitVars(func(c varClass, i int) { unused.of(c)[i] = false })
	}
	// A constraint that involves a variable that stays (or a dimension when
	// dimensions are not being removed) keeps all of its variables.
	onlyUnused := func(e Expr) bool {
		ok := true
		e.visitVars(func(c varClass, i int) {
			if (c == classDim && !dims) || !unused.of(c)[i] {
				ok = false
			}
		})
		return ok
	}
	var candidates []Expr
	for _, c := range m.constraints {
		if onlyUnused(c.Expr) {
			candidates = append(candidates, c.Expr)
			continue
		}
		c.Expr.visitVars(func(c varClass, i int) { unused.of(c)[i] = false })
	}
	if !dims {
		for i := range unused.Dims {
			unused.Dims[i] = false
		}
	}
	m = m.clone()
	for _, e := range candidates {
		if onlyUnused(e) {
			m.eraseConstraint(e)
		}
	}
	if !unused.any() {
		return m, VarSet{}
	}
	m.compressVars(unused)
	return m, unused
}

// compressVars removes the marked variables, renumbering the others; the
// removed ones become 0 wherever they still occur.
func (m *IndexingMap) compressVars(removed VarSet) {
	newIndex := [3][]int{}
	for c := classDim; c <= classRuntime; c++ {
		flags := removed.of(c)
		vs := m.varsOf(c)
		idx := make([]int, len(vs))
		kept := vs[:0:0]
		for i, v := range vs {
			if i < len(flags) && flags[i] {
				idx[i] = -1
				continue
			}
			idx[i] = len(kept)
			kept = append(kept, v)
		}
		newIndex[c] = idx
		switch c {
		case classDim:
			m.dims = kept
		case classRange:
			m.rangeVars = kept
		default:
			m.rtVars = kept
		}
	}
	sub := func(c varClass, i int) (Expr, bool) {
		j := newIndex[c][i]
		switch {
		case j < 0:
			return Expr{}, true
		case j == i:
			return Expr{}, false
		}
		return variable(c, j), true
	}
	for i, r := range m.results {
		m.results[i] = r.replaceVars(sub)
	}
	var remove []Expr
	var add []Constraint
	for _, c := range m.constraints {
		e := c.Expr.replaceVars(sub)
		if e.Equal(c.Expr) {
			continue
		}
		remove = append(remove, c.Expr)
		add = append(add, Constraint{e, c.Range})
	}
	for _, e := range remove {
		m.eraseConstraint(e)
	}
	for _, c := range add {
		m.addConstraint(c.Expr, c.Range)
	}
}

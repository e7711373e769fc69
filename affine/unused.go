package affine

// VarSet marks variables of a map, one flag per variable of each kind.
type VarSet struct {
	Dims, Range, Runtime []bool
}

func (v *VarSet) of(k atomKind) []bool {
	switch k {
	case atomDim:
		return v.Dims
	case atomRange:
		return v.Range
	}
	return v.Runtime
}

// maxEnumeratedForRemoval bounds the points enumerated to prove that the
// constraints on variables about to be removed can hold.
const maxEnumeratedForRemoval = 1 << 12

// RemoveUnusedSymbols returns m without the range and runtime variables that
// no result depends on, and the set of variables removed (indices in m), as
// XLA's RemoveUnusedSymbols does. The remaining variables keep their order.
//
// A variable used by a constraint is used if the constraint also involves a
// used variable. Constraints over removed variables only are dropped with
// them when they can be satisfied; if they cannot, the map is known empty.
// Whether they can is decided by enumeration over small boxes; over large
// ones the variables are kept.
func (m IndexingMap) RemoveUnusedSymbols() (IndexingMap, VarSet) {
	return m.removeUnused(false)
}

// RemoveUnusedVars is RemoveUnusedSymbols that also removes dimension
// variables no result depends on.
func (m IndexingMap) RemoveUnusedVars() (IndexingMap, VarSet) {
	return m.removeUnused(true)
}

func (m IndexingMap) removeUnused(dims bool) (IndexingMap, VarSet) {
	used := VarSet{
		Dims:    make([]bool, len(m.dims)),
		Range:   make([]bool, len(m.rangeVars)),
		Runtime: make([]bool, len(m.rtVars)),
	}
	if !dims {
		for i := range used.Dims {
			used.Dims[i] = true
		}
	}
	mark := func(k atomKind, i int) { used.of(k)[i] = true }
	for _, r := range m.results {
		r.visitVars(mark)
	}
	// A constraint couples its variables: one used makes all used.
	for changed := true; changed; {
		changed = false
		for _, c := range m.constraints {
			any, all := false, true
			c.Expr.visitVars(func(k atomKind, i int) {
				if used.of(k)[i] {
					any = true
				} else {
					all = false
				}
			})
			if any && !all {
				c.Expr.visitVars(mark)
				changed = true
			}
		}
	}
	// The constraints left involve unused variables only.
	var free []Constraint
	for _, c := range m.constraints {
		inUse := false
		c.Expr.visitVars(func(k atomKind, i int) { inUse = inUse || used.of(k)[i] })
		if !inUse {
			free = append(free, c)
		}
	}
	if len(free) > 0 {
		switch m.satisfiable(free) {
		case satNo:
			m = m.clone()
			m.setEmpty()
		case satUnknown:
			for _, c := range free {
				c.Expr.visitVars(mark)
			}
			free = nil
		}
	}
	removed := VarSet{
		Dims:    make([]bool, len(m.dims)),
		Range:   make([]bool, len(m.rangeVars)),
		Runtime: make([]bool, len(m.rtVars)),
	}
	any := false
	for k := atomDim; k <= atomRuntime; k++ {
		for i, u := range used.of(k) {
			removed.of(k)[i] = !u
			any = any || !u
		}
	}
	if !any {
		return m, removed
	}
	return m.dropVars(removed), removed
}

type satisfiability uint8

const (
	satYes satisfiability = iota
	satNo
	satUnknown
)

// satisfiable decides by enumeration whether some point of the box of the
// variables of cs satisfies all of them.
func (m IndexingMap) satisfiable(cs []Constraint) satisfiability {
	if m.empty {
		return satNo
	}
	var vars []*atom
	seen := map[[2]int]bool{}
	for _, c := range cs {
		c.Expr.visitVars(func(k atomKind, i int) {
			if !seen[[2]int{int(k), i}] {
				seen[[2]int{int(k), i}] = true
				vars = append(vars, newVarAtom(k, i))
			}
		})
	}
	total := int64(1)
	for _, v := range vars {
		n := m.vars(v.kind)[v.index].NumElements()
		if n > maxEnumeratedForRemoval || total*n > maxEnumeratedForRemoval {
			return satUnknown
		}
		total *= n
	}
	p := Point{
		Dims:    make([]int64, len(m.dims)),
		Range:   make([]int64, len(m.rangeVars)),
		Runtime: make([]int64, len(m.rtVars)),
	}
	vals := func(k atomKind) []int64 {
		switch k {
		case atomDim:
			return p.Dims
		case atomRange:
			return p.Range
		}
		return p.Runtime
	}
	for _, v := range vars {
		vals(v.kind)[v.index] = m.vars(v.kind)[v.index].Lo
	}
	for {
		ok := true
		for _, c := range cs {
			x, err := c.Expr.eval(&p)
			if err != nil {
				return satUnknown
			}
			if !c.Range.Contains(x) {
				ok = false
				break
			}
		}
		if ok {
			return satYes
		}
		// Next point, the last variable fastest.
		i := len(vars) - 1
		for ; i >= 0; i-- {
			v := vars[i]
			x := &vals(v.kind)[v.index]
			if *x < m.vars(v.kind)[v.index].Hi {
				*x++
				break
			}
			*x = m.vars(v.kind)[v.index].Lo
		}
		if i < 0 {
			return satNo
		}
	}
}

// dropVars removes the marked variables, which no result uses, together with
// the constraints that involve them, and renumbers the others.
func (m IndexingMap) dropVars(removed VarSet) IndexingMap {
	var newIndex [3][]int
	out := IndexingMap{results: make([]Expr, len(m.results)), empty: m.empty}
	for k := atomDim; k <= atomRuntime; k++ {
		rm := removed.of(k)
		newIndex[k] = make([]int, len(rm))
		var kept []Interval
		for i, r := range rm {
			if r {
				newIndex[k][i] = -1
				continue
			}
			newIndex[k][i] = len(kept)
			kept = append(kept, m.vars(k)[i])
		}
		switch k {
		case atomDim:
			out.dims = kept
		case atomRange:
			out.rangeVars = kept
		default:
			out.rtVars = kept
		}
	}
	renumber := func(k atomKind, i int) (Expr, bool) {
		if j := newIndex[k][i]; j != i && j >= 0 {
			return varExpr(k, j), true
		}
		return Expr{}, false
	}
	for i, r := range m.results {
		out.results[i] = must(replaceVars(r, renumber))
	}
	for _, c := range m.constraints {
		drop := false
		c.Expr.visitVars(func(k atomKind, i int) { drop = drop || newIndex[k][i] < 0 })
		if !drop {
			out.constraints = append(out.constraints, Constraint{must(replaceVars(c.Expr, renumber)), c.Range})
		}
	}
	// Renumbering keeps the relative order of variables of each kind, hence
	// the canonical order of constraints too.
	return out
}

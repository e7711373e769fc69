package indexing

import (
	"github.com/kilnml/kiln/affine"
)

// invert returns the map that relates each element of a tensor of dims
// `target` to the points of m's domain whose results are that element: the
// relation of m read the other way, restricted to the elements of the
// tensor. The dimension variables of the result index the tensor, its
// results are m's dimension variables, and m's runtime variables stay
// runtime variables.
//
// Each result equation e_i(d, s) = x_i is solved for a variable of m (a
// dimension variable first) that occurs in it once, linearly: with
// coefficient ±1 it becomes an expression of x_i; with coefficient a it is
// (x_i - rest) floordiv a, where the division must be exact. The equations
// that cannot be solved so, and the bounds of the variables solved, become
// constraints; the variables left unsolved become range variables.
func invert(m *affine.IndexingMap, target []int) *affine.IndexingMap {
	if m.IsKnownEmpty() {
		e := affine.KnownEmpty(len(target), 0, 0, m.NumDims())
		return &e
	}
	if p := invertPermutation(m, target); p != nil {
		return p
	}
	nd, ns := m.NumDims(), m.NumRangeVars()
	// While solving, m's dimension and range variables are the unknowns
	// u_0..u_{nd+ns-1}, written as range variables; x_i is dimension i.
	toUnknown := make([]affine.Expr, nd+ns)
	for j := range toUnknown {
		toUnknown[j] = affine.RangeVar(j)
	}
	rangeToUnknown := toUnknown[nd:]
	eqs := make([]affine.Expr, m.NumResults())
	for i := range eqs {
		eqs[i] = m.Result(i).Replace(toUnknown[:nd], rangeToUnknown, nil).Sub(affine.Dim(i))
	}
	var cs []affine.Constraint
	for _, c := range m.Constraints() {
		cs = append(cs, affine.Constraint{Expr: c.Expr.Replace(toUnknown[:nd], rangeToUnknown, nil), Range: c.Range})
	}
	unknownBounds := append(m.DimBounds(), m.RangeVarBounds()...)
	solved := make([]bool, nd+ns)
	sol := make([]affine.Expr, nd+ns) // the solution of each unknown, or itself
	copy(sol, toUnknown)
	subst := make([]affine.Expr, nd+ns)
	for i, eq := range eqs {
		if i > 0 {
			eq = eq.Replace(nil, sol, nil)
		}
		j, expr, exact := solveFor(eq, solved, cs)
		if j < 0 {
			cs = append(cs, affine.Constraint{Expr: eq, Range: affine.Interval{}})
			continue
		}
		solved[j] = true
		copy(subst, sol)
		subst[j] = expr
		for k := range sol {
			if solved[k] {
				sol[k] = sol[k].Replace(nil, subst, nil)
			}
		}
		sol[j] = expr
		for k := range cs {
			cs[k].Expr = cs[k].Expr.Replace(nil, subst, nil)
		}
		if exact.Kind() != affine.KindConstant {
			cs = append(cs, affine.Constraint{Expr: exact, Range: affine.Interval{}})
		}
	}
	// Bounds of the solved unknowns, and constraints at the solution.
	for j, e := range sol {
		if solved[j] {
			cs = append(cs, affine.Constraint{Expr: e, Range: unknownBounds[j]})
		}
	}
	// The unsolved unknowns, in order, become the result's range variables.
	renumber := make([]affine.Expr, nd+ns)
	var ranges []affine.Interval
	for j := range renumber {
		if !solved[j] {
			renumber[j] = affine.RangeVar(len(ranges))
			ranges = append(ranges, unknownBounds[j])
		}
	}
	results := make([]affine.Expr, nd)
	for j := range results {
		results[j] = sol[j].Replace(nil, renumber, nil)
	}
	for k := range cs {
		cs[k].Expr = cs[k].Expr.Replace(nil, renumber, nil)
	}
	inv := affine.Simplify(*newMap(results, bounds(target), ranges, m.RuntimeVarBounds(), cs...))
	inv, _ = inv.RemoveUnusedSymbols()
	return &inv
}

// invertPermutation inverts, without simplifying, a map that only permutes
// the dimensions of a box onto the whole of target — elementwise ops,
// transposes — or returns nil.
func invertPermutation(m *affine.IndexingMap, target []int) *affine.IndexingMap {
	n := m.NumDims()
	if m.NumRangeVars() != 0 || m.NumRuntimeVars() != 0 || m.NumConstraints() != 0 || m.NumResults() != n || len(target) != n {
		return nil
	}
	res := make([]affine.Expr, n)
	seen := make([]bool, n)
	for i := range n {
		r := m.Result(i)
		if r.Kind() != affine.KindDim {
			return nil
		}
		j := r.Index()
		if seen[j] || m.DimBound(j) != (affine.Interval{Lo: 0, Hi: int64(target[i]) - 1}) {
			return nil
		}
		seen[j] = true
		res[j] = affine.Dim(i)
	}
	return newMap(res, bounds(target), nil, nil)
}

// solveFor solves eq = 0 for an unsolved unknown that occurs in eq once,
// preferring the lowest index (dimension variables before range variables)
// and a coefficient of ±1. It returns the unknown, its value, and for a
// quotient the remainder that must be zero; or -1.
//
// The unknown is found outside divisions, or inside a term ±(E floordiv k)
// when a constraint says that E mod k is 0 — the strided maps of pad and of
// windows with base dilation — since E is then k times the term's value.
func solveFor(eq affine.Expr, solved []bool, cs []affine.Constraint) (int, affine.Expr, affine.Expr) {
	if j, v, exact := solveLinear(eq, solved); j >= 0 {
		return j, v, exact
	}
	for coef, t := range eq.Terms() {
		if t.Kind() != affine.KindFloorDiv || (coef != 1 && coef != -1) {
			continue
		}
		e, k := t.Operands()
		if !exactDivision(e, k, cs) {
			continue
		}
		rest := eq.Sub(t.Mul(coef))
		j, _, _ := solveLinear(e, solved)
		if j < 0 || rest.UsesVar(affine.RangeVar(j)) {
			continue
		}
		// coef·(E floordiv k) + rest = 0 with E = k·q exactly: E = -rest·coef·k.
		return solveLinear(e.Add(rest.Mul(coef*k)), solved)
	}
	return -1, affine.Expr{}, affine.Expr{}
}

// exactDivision reports whether a constraint says that e mod k is 0.
func exactDivision(e affine.Expr, k int64, cs []affine.Constraint) bool {
	m := e.Mod(k)
	for _, c := range cs {
		if c.Range == (affine.Interval{}) && c.Expr.Equal(m) {
			return true
		}
	}
	return false
}

// solveLinear solves eq = 0 for an unsolved unknown that occurs in eq once,
// outside any division.
func solveLinear(eq affine.Expr, solved []bool) (int, affine.Expr, affine.Expr) {
	best, bestCoef := -1, int64(0)
	for coef, t := range eq.Terms() {
		if t.Kind() != affine.KindRangeVar || solved[t.Index()] {
			continue
		}
		if eq.Sub(t.Mul(coef)).UsesVar(t) {
			continue // it also occurs inside a division
		}
		unit := coef == 1 || coef == -1
		if best < 0 || (unit && bestCoef != 1 && bestCoef != -1) {
			best, bestCoef = t.Index(), coef
		}
		if unit {
			break
		}
	}
	if best < 0 {
		return -1, affine.Expr{}, affine.Expr{}
	}
	u := affine.RangeVar(best)
	// coef·u + rest = 0, so u = -rest / coef.
	rest := eq.Sub(u.Mul(bestCoef))
	if bestCoef == 1 || bestCoef == -1 {
		return best, rest.Mul(-bestCoef), affine.Expr{}
	}
	num, k := rest.Neg(), bestCoef
	if k < 0 {
		num, k = rest, -k
	}
	return best, num.FloorDiv(k), num.Mod(k)
}

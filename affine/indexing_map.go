package affine

import (
	"fmt"
	"slices"
)

// IndexingMap is a function from a box of integer points to tuples of
// integers, XLA's IndexingMap:
//
//	(d0, ..., dn)[s0, ..., sm]{rt0, ..., rtk} -> (e0, ..., ep)
//
// It maps every point (d, s, rt) of its domain to the tuple of its result
// expressions. The domain is the box given by the inclusive bounds of every
// dimension variable d_i, range variable s_i and runtime variable rt_i,
// restricted to the points where every constraint "expr in [lo, hi]" holds.
// A map whose domain is known to have no point is "known empty".
//
// An IndexingMap is an immutable value: methods return new maps and never
// modify the receiver or slices it was built from. The zero IndexingMap is
// "() -> ()".
type IndexingMap struct {
	results     []Expr
	dims        []Interval
	rangeVars   []Interval
	rtVars      []Interval
	constraints []Constraint // sorted by Expr.Compare; no variable or constant expressions; distinct
	empty       bool
}

// Constraint restricts the domain of a map to the points where Expr is in Range.
type Constraint struct {
	Expr  Expr
	Range Interval
}

// String prints the constraint as XLA does: "d1 mod 8 in [0, 0]".
func (c Constraint) String() string { return c.Expr.String() + " in " + c.Range.String() }

// NewIndexingMap builds the map with the given results, the bounds of its
// dimension, range and runtime variables, and constraints. It reports an
// error if an expression uses a variable the map does not have. Empty bounds
// or a constraint that cannot hold make the map known empty. Constraints on a
// single variable tighten its bounds; constraints on the same expression are
// intersected.
func NewIndexingMap(results []Expr, dims, rangeVars, runtimeVars []Interval, constraints ...Constraint) (IndexingMap, error) {
	m := IndexingMap{
		results:   slices.Clone(results),
		dims:      slices.Clone(dims),
		rangeVars: slices.Clone(rangeVars),
		rtVars:    slices.Clone(runtimeVars),
	}
	for i, r := range results {
		if err := m.checkVars(r); err != nil {
			return IndexingMap{}, fmt.Errorf("result %d (%s): %w", i, r, err)
		}
	}
	for _, c := range constraints {
		if err := m.checkVars(c.Expr); err != nil {
			return IndexingMap{}, fmt.Errorf("constraint %s: %w", c, err)
		}
	}
	m.checkBounds()
	for _, c := range constraints {
		m.addConstraint(c.Expr, c.Range)
	}
	return m, nil
}

// FromTensorSizes builds the map with the given results whose dimension
// variables range over [0, dimSizes[i]-1] and range variables over
// [0, rangeSizes[i]-1], like XLA's IndexingMap::FromTensorSizes. It panics if
// a result uses a variable the map does not have.
func FromTensorSizes(results []Expr, dimSizes, rangeSizes []int64) IndexingMap {
	m, err := NewIndexingMap(results, sizesToBounds(dimSizes), sizesToBounds(rangeSizes), nil)
	if err != nil {
		panic("affine: FromTensorSizes: " + err.Error())
	}
	return m
}

// Identity is the map (d0, ..., dn) -> (d0, ..., dn) over a tensor of the
// given dimension sizes.
func Identity(sizes ...int64) IndexingMap {
	res := make([]Expr, len(sizes))
	for i := range sizes {
		res[i] = Dim(i)
	}
	return FromTensorSizes(res, sizes, nil)
}

// KnownEmpty is the map with the given numbers of variables and results whose
// domain is empty, in XLA's canonical form: every bound is [0, -1] and every
// result is 0.
func KnownEmpty(numDims, numRangeVars, numRuntimeVars, numResults int) IndexingMap {
	m := IndexingMap{
		results:   make([]Expr, numResults),
		dims:      make([]Interval, numDims),
		rangeVars: make([]Interval, numRangeVars),
		rtVars:    make([]Interval, numRuntimeVars),
	}
	m.setEmpty()
	return m
}

func sizesToBounds(sizes []int64) []Interval {
	if sizes == nil {
		return nil
	}
	b := make([]Interval, len(sizes))
	for i, s := range sizes {
		b[i] = Interval{0, s - 1}
	}
	return b
}

// checkVars reports an error if e uses a variable the map does not have.
func (m *IndexingMap) checkVars(e Expr) error {
	var err error
	e.visitVars(func(k atomKind, i int) {
		if err != nil {
			return
		}
		if n := len(m.vars(k)); i >= n {
			err = fmt.Errorf("uses %s, but the map has %d %s", atomExpr(newVarAtom(k, i)), n, varKindPlural[k])
		}
	})
	return err
}

var varKindPlural = [...]string{"dimension variables", "range variables", "runtime variables"}

func (m *IndexingMap) vars(k atomKind) []Interval {
	switch k {
	case atomDim:
		return m.dims
	case atomRange:
		return m.rangeVars
	}
	return m.rtVars
}

// checkBounds marks the map known empty if a variable's bounds are empty.
func (m *IndexingMap) checkBounds() {
	for _, vs := range [][]Interval{m.dims, m.rangeVars, m.rtVars} {
		for _, b := range vs {
			if b.IsEmpty() {
				m.setEmpty()
				return
			}
		}
	}
}

// setEmpty resets the map to the canonical known-empty form, keeping its
// numbers of variables and results.
func (m *IndexingMap) setEmpty() {
	m.empty = true
	m.results = make([]Expr, len(m.results))
	m.dims = emptyBounds(len(m.dims))
	m.rangeVars = emptyBounds(len(m.rangeVars))
	m.rtVars = emptyBounds(len(m.rtVars))
	m.constraints = nil
}

func emptyBounds(n int) []Interval {
	if n == 0 {
		return nil
	}
	b := make([]Interval, n)
	for i := range b {
		b[i] = emptyInterval
	}
	return b
}

// clone copies the slices of m so that the copy can be modified in place.
func (m IndexingMap) clone() IndexingMap {
	m.results = slices.Clone(m.results)
	m.dims = slices.Clone(m.dims)
	m.rangeVars = slices.Clone(m.rangeVars)
	m.rtVars = slices.Clone(m.rtVars)
	m.constraints = slices.Clone(m.constraints)
	return m
}

// AddConstraint returns m restricted to the points where e is in r. It
// panics if e uses a variable the map does not have.
func (m IndexingMap) AddConstraint(e Expr, r Interval) IndexingMap {
	if err := m.checkVars(e); err != nil {
		panic(fmt.Sprintf("affine: AddConstraint %s: %v", e, err))
	}
	m = m.clone()
	m.addConstraint(e, r)
	return m
}

// addConstraint adds e in r to m in place, as XLA's AddConstraint does: a
// constraint on a variable tightens its bounds, one on a constant is checked,
// one on an expression already constrained intersects the two ranges.
func (m *IndexingMap) addConstraint(e Expr, r Interval) {
	if m.empty {
		return
	}
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
	if i := e.Index(); i >= 0 {
		vs := m.vars(e.terms[0].atom.kind)
		vs[i] = vs[i].Intersect(r)
		if vs[i].IsEmpty() {
			m.setEmpty()
		}
		return
	}
	i, found := slices.BinarySearchFunc(m.constraints, e, func(c Constraint, e Expr) int { return c.Expr.Compare(e) })
	if found {
		m.constraints[i].Range = m.constraints[i].Range.Intersect(r)
		if m.constraints[i].Range.IsEmpty() {
			m.setEmpty()
		}
		return
	}
	m.constraints = slices.Insert(m.constraints, i, Constraint{e, r})
}

// NumDims is the number of dimension variables.
func (m IndexingMap) NumDims() int { return len(m.dims) }

// NumRangeVars is the number of range variables (symbols s_i).
func (m IndexingMap) NumRangeVars() int { return len(m.rangeVars) }

// NumRuntimeVars is the number of runtime variables.
func (m IndexingMap) NumRuntimeVars() int { return len(m.rtVars) }

// NumResults is the number of result expressions.
func (m IndexingMap) NumResults() int { return len(m.results) }

// Result is the i-th result expression.
func (m IndexingMap) Result(i int) Expr { return m.results[i] }

// Results returns a copy of the result expressions.
func (m IndexingMap) Results() []Expr { return slices.Clone(m.results) }

// DimBound is the bounds of d_i.
func (m IndexingMap) DimBound(i int) Interval { return m.dims[i] }

// RangeVarBound is the bounds of s_i.
func (m IndexingMap) RangeVarBound(i int) Interval { return m.rangeVars[i] }

// RuntimeVarBound is the bounds of rt_i.
func (m IndexingMap) RuntimeVarBound(i int) Interval { return m.rtVars[i] }

// DimBounds returns a copy of the bounds of the dimension variables.
func (m IndexingMap) DimBounds() []Interval { return slices.Clone(m.dims) }

// RangeVarBounds returns a copy of the bounds of the range variables.
func (m IndexingMap) RangeVarBounds() []Interval { return slices.Clone(m.rangeVars) }

// RuntimeVarBounds returns a copy of the bounds of the runtime variables.
func (m IndexingMap) RuntimeVarBounds() []Interval { return slices.Clone(m.rtVars) }

// Constraints returns a copy of the constraints, in canonical order.
func (m IndexingMap) Constraints() []Constraint { return slices.Clone(m.constraints) }

// NumConstraints is the number of constraints.
func (m IndexingMap) NumConstraints() int { return len(m.constraints) }

// IsKnownEmpty reports whether the domain of m is known to have no point.
// A map that is not known empty may still be empty.
func (m IndexingMap) IsKnownEmpty() bool { return m.empty }

// Equal reports whether m and o are the same map: the same variables with
// the same bounds, the same results and the same constraints.
func (m IndexingMap) Equal(o IndexingMap) bool {
	if m.empty != o.empty ||
		!slices.Equal(m.dims, o.dims) || !slices.Equal(m.rangeVars, o.rangeVars) || !slices.Equal(m.rtVars, o.rtVars) ||
		!slices.EqualFunc(m.results, o.results, Expr.Equal) {
		return false
	}
	return slices.EqualFunc(m.constraints, o.constraints, func(a, b Constraint) bool {
		return a.Range == b.Range && a.Expr.Equal(b.Expr)
	})
}

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
// A map whose domain is known to have no point is "known empty"; the
// undefined map (Undefined) stands for indexing that cannot be expressed.
//
// An IndexingMap is an immutable value: methods return new maps and never
// modify the receiver or slices it was built from. The zero IndexingMap is
// "() -> ()".
type IndexingMap struct {
	results     []Expr
	dims        []Variable
	rangeVars   []Variable
	rtVars      []Variable
	constraints []Constraint // in insertion order, as XLA's MapVector
	empty       bool
	undefined   bool
}

// Variable is one variable of a map: its inclusive bounds and, optionally, a
// name (an empty name prints as d_i, s_i or rt_i).
type Variable struct {
	Bounds Interval
	Name   string
}

// Constraint restricts the domain of a map to the points where Expr is in Range.
type Constraint struct {
	Expr  Expr
	Range Interval
}

// String prints the constraint as XLA does: "d1 mod 8 in [0, 0]".
func (c Constraint) String() string { return c.Expr.String() + " in " + c.Range.String() }

// NewIndexingMap builds the map with the given results, the bounds of its
// dimension, range and runtime variables, and constraints, as XLA's
// IndexingMap constructor does: a variable with empty bounds makes the map
// known empty, and each constraint is added with AddConstraint. It reports
// an error if an expression uses a variable the map does not have.
func NewIndexingMap(results []Expr, dims, rangeVars, runtimeVars []Interval, constraints ...Constraint) (IndexingMap, error) {
	return NewIndexingMapVars(results, boundsToVars(dims), boundsToVars(rangeVars), boundsToVars(runtimeVars), constraints...)
}

// NewIndexingMapVars is NewIndexingMap with named variables.
func NewIndexingMapVars(results []Expr, dims, rangeVars, runtimeVars []Variable, constraints ...Constraint) (IndexingMap, error) {
	m := IndexingMap{
		results:   slices.Clone(results),
		dims:      slices.Clone(dims),
		rangeVars: slices.Clone(rangeVars),
		rtVars:    slices.Clone(runtimeVars),
	}
	for i, r := range m.results {
		if err := m.checkVars(r); err != nil {
			return IndexingMap{}, fmt.Errorf("result %d (%s): %w", i, r, err)
		}
	}
	for _, c := range constraints {
		if err := m.checkVars(c.Expr); err != nil {
			return IndexingMap{}, fmt.Errorf("constraint %s: %w", c, err)
		}
	}
	if !m.variablesFeasible() {
		m.resetToKnownEmpty()
		return m, nil
	}
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
// domain is empty, in XLA's canonical form: every dimension and range
// variable has bounds [0, -1] and every result is 0.
func KnownEmpty(numDims, numRangeVars, numRuntimeVars, numResults int) IndexingMap {
	m := IndexingMap{
		results:   make([]Expr, numResults),
		dims:      make([]Variable, numDims),
		rangeVars: make([]Variable, numRangeVars),
		rtVars:    make([]Variable, numRuntimeVars),
	}
	m.resetToKnownEmpty()
	return m
}

// Undefined is the map that stands for indexing that cannot be expressed
// (XLA's IndexingMap::GetUndefined); it prints as UNDEFINED.
func Undefined() IndexingMap { return IndexingMap{undefined: true} }

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

func boundsToVars(b []Interval) []Variable {
	if b == nil {
		return nil
	}
	v := make([]Variable, len(b))
	for i, iv := range b {
		v[i] = Variable{Bounds: iv}
	}
	return v
}

// checkVars reports an error if e uses a variable the map does not have.
func (m *IndexingMap) checkVars(e Expr) error {
	var err error
	e.visitVars(func(c varClass, i int) {
		if err == nil && i >= len(m.varsOf(c)) {
			err = fmt.Errorf("%s is not a variable of the map, which has %d dimension, %d range and %d runtime variables",
				defaultName(c, i), len(m.dims), len(m.rangeVars), len(m.rtVars))
		}
	})
	return err
}

func (m *IndexingMap) varsOf(c varClass) []Variable {
	switch c {
	case classDim:
		return m.dims
	case classRange:
		return m.rangeVars
	}
	return m.rtVars
}

// bound is the bounds of a variable; a variable the map does not have is
// unbounded.
func (m *IndexingMap) bound(c varClass, i int) Interval {
	vs := m.varsOf(c)
	if i >= len(vs) {
		return Unbounded
	}
	return vs[i].Bounds
}

func (m *IndexingMap) variablesFeasible() bool {
	for _, vs := range [][]Variable{m.dims, m.rangeVars, m.rtVars} {
		for _, v := range vs {
			if !v.Bounds.IsFeasible() {
				return false
			}
		}
	}
	return true
}

// resetToKnownEmpty turns m into XLA's canonical empty map: results 0,
// dimension and range variables [0, -1], no constraints.
func (m *IndexingMap) resetToKnownEmpty() {
	m.results = make([]Expr, len(m.results))
	m.dims = slices.Clone(m.dims)
	for i := range m.dims {
		m.dims[i].Bounds = emptyInterval
	}
	m.rangeVars = slices.Clone(m.rangeVars)
	for i := range m.rangeVars {
		m.rangeVars[i].Bounds = emptyInterval
	}
	m.constraints = nil
	m.empty = true
}

func (m IndexingMap) clone() IndexingMap {
	m.results = slices.Clone(m.results)
	m.dims = slices.Clone(m.dims)
	m.rangeVars = slices.Clone(m.rangeVars)
	m.rtVars = slices.Clone(m.rtVars)
	m.constraints = slices.Clone(m.constraints)
	return m
}

// AddConstraint returns m restricted to the points where e is in r, as XLA's
// AddConstraint: a constraint on one variable intersects its bounds, one on a
// constant is checked, and one on an expression already constrained
// intersects the two ranges. An empty range or bounds make the map known
// empty. It panics if e uses a variable the map does not have.
func (m IndexingMap) AddConstraint(e Expr, r Interval) IndexingMap {
	if err := m.checkVars(e); err != nil {
		panic("affine: AddConstraint: " + err.Error())
	}
	m = m.clone()
	m.addConstraint(e, r)
	return m
}

func (m *IndexingMap) addConstraint(e Expr, r Interval) {
	if m.empty || m.undefined {
		return
	}
	if !r.IsFeasible() {
		m.resetToKnownEmpty()
		return
	}
	if e.isVar() {
		c, i := splitVarID(e.n.val())
		vs := m.varsOf(c)
		vs[i].Bounds = vs[i].Bounds.Intersect(r)
		if !vs[i].Bounds.IsFeasible() {
			m.resetToKnownEmpty()
		}
		return
	}
	if v, ok := e.Constant(); ok {
		if !r.Contains(v) {
			m.resetToKnownEmpty()
		}
		return
	}
	for i := range m.constraints {
		if m.constraints[i].Expr.Equal(e) {
			m.constraints[i].Range = m.constraints[i].Range.Intersect(r)
			if !m.constraints[i].Range.IsFeasible() {
				m.resetToKnownEmpty()
			}
			return
		}
	}
	m.constraints = append(m.constraints, Constraint{e, r})
}

// eraseConstraint removes the constraint on e, keeping the order of the
// others.
func (m *IndexingMap) eraseConstraint(e Expr) {
	for i := range m.constraints {
		if m.constraints[i].Expr.Equal(e) {
			m.constraints = slices.Delete(m.constraints, i, i+1)
			return
		}
	}
}

func (m *IndexingMap) constraintIndex(e Expr) int {
	for i := range m.constraints {
		if m.constraints[i].Expr.Equal(e) {
			return i
		}
	}
	return -1
}

// NumDims is the number of dimension variables.
func (m IndexingMap) NumDims() int { return len(m.dims) }

// NumRangeVars is the number of range variables (symbols s_i).
func (m IndexingMap) NumRangeVars() int { return len(m.rangeVars) }

// NumRuntimeVars is the number of runtime variables.
func (m IndexingMap) NumRuntimeVars() int { return len(m.rtVars) }

// NumSymbols is the number of range and runtime variables together (XLA's
// symbols).
func (m IndexingMap) NumSymbols() int { return len(m.rangeVars) + len(m.rtVars) }

// NumResults is the number of result expressions.
func (m IndexingMap) NumResults() int { return len(m.results) }

// Result is the i-th result expression.
func (m IndexingMap) Result(i int) Expr { return m.results[i] }

// Results returns a copy of the result expressions.
func (m IndexingMap) Results() []Expr { return slices.Clone(m.results) }

// DimBound is the bounds of d_i.
func (m IndexingMap) DimBound(i int) Interval { return m.dims[i].Bounds }

// RangeVarBound is the bounds of s_i.
func (m IndexingMap) RangeVarBound(i int) Interval { return m.rangeVars[i].Bounds }

// RuntimeVarBound is the bounds of rt_i.
func (m IndexingMap) RuntimeVarBound(i int) Interval { return m.rtVars[i].Bounds }

// DimBounds returns a copy of the bounds of the dimension variables.
func (m IndexingMap) DimBounds() []Interval { return varBounds(m.dims) }

// RangeVarBounds returns a copy of the bounds of the range variables.
func (m IndexingMap) RangeVarBounds() []Interval { return varBounds(m.rangeVars) }

// RuntimeVarBounds returns a copy of the bounds of the runtime variables.
func (m IndexingMap) RuntimeVarBounds() []Interval { return varBounds(m.rtVars) }

// DimVars returns a copy of the dimension variables.
func (m IndexingMap) DimVars() []Variable { return slices.Clone(m.dims) }

// RangeVars returns a copy of the range variables.
func (m IndexingMap) RangeVars() []Variable { return slices.Clone(m.rangeVars) }

// RuntimeVars returns a copy of the runtime variables.
func (m IndexingMap) RuntimeVars() []Variable { return slices.Clone(m.rtVars) }

func varBounds(vs []Variable) []Interval {
	b := make([]Interval, len(vs))
	for i, v := range vs {
		b[i] = v.Bounds
	}
	return b
}

// Constraints returns a copy of the constraints, in the order they were
// added.
func (m IndexingMap) Constraints() []Constraint { return slices.Clone(m.constraints) }

// NumConstraints is the number of constraints.
func (m IndexingMap) NumConstraints() int { return len(m.constraints) }

// IsKnownEmpty reports whether the domain of m is known to have no point.
// A map that is not known empty may still be empty.
func (m IndexingMap) IsKnownEmpty() bool { return m.empty }

// IsUndefined reports whether m is the undefined map.
func (m IndexingMap) IsUndefined() bool { return m.undefined }

// WithDimNames returns m with its dimension variables named (an empty name
// prints as d_i).
func (m IndexingMap) WithDimNames(names ...string) IndexingMap {
	m.dims = slices.Clone(m.dims)
	for i := range m.dims {
		if i < len(names) {
			m.dims[i].Name = names[i]
		}
	}
	return m
}

// Equal reports whether m and o are the same map, as XLA's operator== says:
// the same results, variable bounds and constraints (in any order).
// Variable names are not compared.
func (m IndexingMap) Equal(o IndexingMap) bool {
	if m.undefined || o.undefined {
		return m.undefined == o.undefined
	}
	if m.empty != o.empty || len(m.results) != len(o.results) ||
		!sameBounds(m.dims, o.dims) || !sameBounds(m.rangeVars, o.rangeVars) || !sameBounds(m.rtVars, o.rtVars) ||
		len(m.constraints) != len(o.constraints) {
		return false
	}
	for i, r := range m.results {
		if !r.Equal(o.results[i]) {
			return false
		}
	}
	for _, c := range m.constraints {
		j := o.constraintIndex(c.Expr)
		if j < 0 || o.constraints[j].Range != c.Range {
			return false
		}
	}
	return true
}

func sameBounds(a, b []Variable) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Bounds != b[i].Bounds {
			return false
		}
	}
	return true
}

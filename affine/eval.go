package affine

import (
	"errors"
	"fmt"
)

var errOverflow = errors.New("integer overflow")

// Point assigns a value to every variable of an indexing map.
type Point struct {
	Dims    []int64 // d_i
	Range   []int64 // s_i
	Runtime []int64 // rt_i
}

// String formats the point for messages: d=[...] s=[...] rt=[...].
func (p Point) String() string {
	return fmt.Sprintf("d=%v s=%v rt=%v", p.Dims, p.Range, p.Runtime)
}

func (p *Point) value(c varClass, i int) (int64, error) {
	var vals []int64
	switch c {
	case classDim:
		vals = p.Dims
	case classRange:
		vals = p.Range
	default:
		vals = p.Runtime
	}
	if i >= len(vals) {
		return 0, fmt.Errorf("%s has no value: the point gives %d", defaultName(c, i), len(vals))
	}
	return vals[i], nil
}

// Eval evaluates e at the given values of its variables, with XLA's
// semantics (floor division, remainder in [0, |c|)). It reports an error if
// a variable has no value, a divisor is zero or the arithmetic overflows.
func (e Expr) Eval(p Point) (int64, error) {
	return e.eval(&p)
}

func (e Expr) eval(p *Point) (int64, error) {
	switch e.op() {
	case opConst:
		return e.value(), nil
	case opVar:
		return p.value(splitVarID(e.n.val()))
	}
	a, err := e.n.lhs.eval(p)
	if err != nil {
		return 0, err
	}
	b, err := e.n.rhs.eval(p)
	if err != nil {
		return 0, err
	}
	v, ok := evalOp(e.n.op, a, b)
	if !ok {
		if b == 0 && e.n.op != opAdd && e.n.op != opMul {
			return 0, fmt.Errorf("evaluating %s at %v: division by zero", e, *p)
		}
		return 0, fmt.Errorf("evaluating %s at %v: %w", e, *p, errOverflow)
	}
	return v, nil
}

// Eval evaluates the results of m at p, without checking that p is in the
// domain of m.
func (m IndexingMap) Eval(p Point) ([]int64, error) {
	out := make([]int64, len(m.results))
	return out, m.evalInto(&p, out)
}

func (m *IndexingMap) evalInto(p *Point, out []int64) error {
	for i, r := range m.results {
		v, err := r.eval(p)
		if err != nil {
			return err
		}
		out[i] = v
	}
	return nil
}

// Contains reports whether p is in the domain of m: every variable within its
// bounds and every constraint satisfied. A point with the wrong number of
// values of some kind is an error.
func (m IndexingMap) Contains(p Point) (bool, error) {
	if len(p.Dims) != len(m.dims) || len(p.Range) != len(m.rangeVars) || len(p.Runtime) != len(m.rtVars) {
		return false, fmt.Errorf("point %v does not match the map's %d dimension, %d range and %d runtime variables",
			p, len(m.dims), len(m.rangeVars), len(m.rtVars))
	}
	if m.empty || m.undefined {
		return false, nil
	}
	return m.contains(&p)
}

func (m *IndexingMap) contains(p *Point) (bool, error) {
	for _, kv := range []struct {
		vals []int64
		vars []Variable
	}{{p.Dims, m.dims}, {p.Range, m.rangeVars}, {p.Runtime, m.rtVars}} {
		for i, v := range kv.vals {
			if !kv.vars[i].Bounds.Contains(v) {
				return false, nil
			}
		}
	}
	for _, c := range m.constraints {
		v, err := c.Expr.eval(p)
		if err != nil {
			return false, err
		}
		if !c.Range.Contains(v) {
			return false, nil
		}
	}
	return true, nil
}

// ForEachPoint calls f with every point of the domain of m and the results
// there, in lexicographic order of (dims, range vars, runtime vars), until f
// returns false. The point and the results are reused from call to call. It
// reports an error if a variable is unbounded or the arithmetic fails. It is
// meant for tests and small maps: it visits every point of the box.
func (m IndexingMap) ForEachPoint(f func(p Point, results []int64) bool) error {
	if m.empty || m.undefined {
		return nil
	}
	all := append(append(varBounds(m.dims), varBounds(m.rangeVars)...), varBounds(m.rtVars)...)
	for _, b := range all {
		if !b.IsBounded() {
			return fmt.Errorf("cannot enumerate the points of %s: a variable is unbounded", m)
		}
		if b.IsEmpty() {
			return nil
		}
	}
	vals := make([]int64, len(all))
	for i, b := range all {
		vals[i] = b.Lo
	}
	nd, nr := len(m.dims), len(m.rangeVars)
	p := Point{Dims: vals[:nd:nd], Range: vals[nd : nd+nr : nd+nr], Runtime: vals[nd+nr:]}
	res := make([]int64, len(m.results))
	for {
		ok, err := m.contains(&p)
		if err != nil {
			return err
		}
		if ok {
			if err := m.evalInto(&p, res); err != nil {
				return err
			}
			if !f(p, res) {
				return nil
			}
		}
		i := len(vals) - 1
		for ; i >= 0; i-- {
			if vals[i] < all[i].Hi {
				vals[i]++
				break
			}
			vals[i] = all[i].Lo
		}
		if i < 0 {
			return nil
		}
	}
}

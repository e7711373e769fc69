package affine

import (
	"fmt"
)

// Point assigns a value to every variable of an indexing map.
type Point struct {
	Dims    []int64 // d_i
	Range   []int64 // s_i
	Runtime []int64 // rt_i
}

func (p Point) String() string {
	return fmt.Sprintf("d=%v s=%v rt=%v", p.Dims, p.Range, p.Runtime)
}

func (p *Point) value(k atomKind, i int) (int64, error) {
	var vals []int64
	switch k {
	case atomDim:
		vals = p.Dims
	case atomRange:
		vals = p.Range
	default:
		vals = p.Runtime
	}
	if i >= len(vals) {
		return 0, fmt.Errorf("%s has no value: the point gives %d", atomExpr(newVarAtom(k, i)), len(vals))
	}
	return vals[i], nil
}

// Eval evaluates e at the given values of its variables. It reports an error
// if a variable has no value or the arithmetic overflows int64.
func (e Expr) Eval(p Point) (int64, error) {
	return e.eval(&p)
}

func (e Expr) eval(p *Point) (int64, error) {
	r := e.c
	for _, t := range e.terms {
		v, err := t.atom.eval(p)
		if err != nil {
			return 0, err
		}
		tv, ok := mulChecked(t.coef, v)
		if ok {
			r, ok = addChecked(r, tv)
		}
		if !ok {
			return 0, fmt.Errorf("evaluating %s at %v: %w", e, *p, errOverflow)
		}
	}
	return r, nil
}

func (a *atom) eval(p *Point) (int64, error) {
	if a.isVar() {
		return p.value(a.kind, a.index)
	}
	v, err := a.lhs.eval(p)
	if err != nil {
		return 0, err
	}
	switch a.kind {
	case atomFloorDiv:
		return floorDiv(v, a.k), nil
	case atomCeilDiv:
		return ceilDiv(v, a.k), nil
	}
	return floorMod(v, a.k), nil
}

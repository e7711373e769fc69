package affine

import (
	"errors"
	"fmt"
)

// Inverse returns the map from the results of m back to its dimensions: the
// input-to-output maps of XLA's indexing analysis, obtained from their
// output-to-input maps. Two kinds of maps are inverted:
//
//   - maps whose results are each a constant or a·v + c for a variable v used
//     by no other result — transpose, reverse, broadcast, reduce, slice,
//     concatenate, dot. Dimensions that no result uses become range
//     variables of the inverse; a stride |a| > 1 becomes a floordiv with a
//     "mod in [0, 0]" constraint; the inverse's domain is the range of each
//     result:
//     (d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2) inverts to
//     (d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), domain:
//     d0 in [5, 9], d1 in [3, 17], d2 in [0, 48], (d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0];
//   - bijections that keep the row-major order of elements — reshapes, which
//     map (d0, d1) over [0, 3] x [0, 7] to (d0 * 8 + d1) and back to
//     (d0 floordiv 8, d0 mod 8).
//
// Other maps, and maps with runtime variables or constraints, are reported
// as errors. The inverse is simplified.
func (m IndexingMap) Inverse() (IndexingMap, error) {
	if m.empty {
		return KnownEmpty(len(m.results), 0, 0, len(m.dims)), nil
	}
	if len(m.constraints) > 0 {
		return IndexingMap{}, fmt.Errorf("inverse of %s: maps with constraints are not supported", m)
	}
	for i, r := range m.results {
		if usesKind(r, atomRuntime) {
			return IndexingMap{}, fmt.Errorf("inverse of %s: result %d (%s) depends on a runtime variable", m, i, r)
		}
	}
	inv, errA := m.inversePerVariable()
	if errA == nil {
		return Simplify(inv), nil
	}
	inv, errB := m.inverseLinearized()
	if errB == nil {
		return Simplify(inv), nil
	}
	return IndexingMap{}, fmt.Errorf("inverse of %s: %w; %w", m, errA, errB)
}

func usesKind(e Expr, kind atomKind) bool {
	found := false
	e.visitVars(func(k atomKind, _ int) { found = found || k == kind })
	return found
}

var errNotPerVariable = errors.New("some result is not a constant or a·v + c of a variable used once")

// inversePerVariable inverts maps whose results are constants or a·v + c.
func (m IndexingMap) inversePerVariable() (IndexingMap, error) {
	type use struct {
		result int
		coef   int64
		offset int64
	}
	var uses [3][]use
	uses[atomDim] = make([]use, len(m.dims))
	uses[atomRange] = make([]use, len(m.rangeVars))
	for k := range uses {
		for i := range uses[k] {
			uses[k][i].result = -1
		}
	}
	box := rangeEval{m: &m}
	inv := IndexingMap{dims: make([]Interval, len(m.results)), results: make([]Expr, len(m.dims))}
	for i, r := range m.results {
		inv.dims[i] = box.expr(r)
		if len(r.terms) == 0 {
			continue
		}
		if len(r.terms) != 1 || !r.terms[0].atom.isVar() {
			return IndexingMap{}, errNotPerVariable
		}
		a := r.terms[0].atom
		u := &uses[a.kind][a.index]
		if u.result >= 0 {
			return IndexingMap{}, errNotPerVariable
		}
		*u = use{i, r.terms[0].coef, r.c}
	}
	for k := atomDim; k <= atomRange; k++ {
		for j, u := range uses[k] {
			if u.result < 0 {
				if k == atomDim {
					inv.results[j] = RangeVar(len(inv.rangeVars))
					inv.rangeVars = append(inv.rangeVars, m.dims[j])
				}
				continue
			}
			// x = a·v + c, so v = (x - c) / a, defined where a divides x - c.
			x := Dim(u.result)
			num := must(addScaled(x, Expr{c: u.offset}, -1))
			a := u.coef
			if a < 0 {
				num, a = must(scale(num, -1)), -a
			}
			if a != 1 {
				inv.constraints = append(inv.constraints, Constraint{must(divide(atomMod, num, a)), pointInterval(0)})
			}
			if k == atomDim {
				inv.results[j] = must(divide(atomFloorDiv, num, a))
			}
		}
	}
	cs := inv.constraints
	inv.constraints = nil
	for _, c := range cs {
		inv.addConstraint(c.Expr, c.Range)
	}
	return inv, nil
}

// inverseLinearized inverts maps that keep the row-major linear index:
// Σ results·strides equals Σ dims·strides over the domain.
func (m IndexingMap) inverseLinearized() (IndexingMap, error) {
	for i, r := range m.results {
		if usesKind(r, atomRange) {
			return IndexingMap{}, fmt.Errorf("result %d (%s) depends on a range variable", i, r)
		}
	}
	box := rangeEval{m: &m}
	outSizes := make([]int64, len(m.results))
	for i, r := range m.results {
		iv := box.expr(r)
		if iv.Lo != 0 || !iv.IsBounded() {
			return IndexingMap{}, fmt.Errorf("result %d (%s) ranges over %s, not [0, n-1]", i, r, iv)
		}
		outSizes[i] = iv.Hi + 1
	}
	inSizes := make([]int64, len(m.dims))
	for j, b := range m.dims {
		if b.Lo != 0 || !b.IsBounded() {
			return IndexingMap{}, fmt.Errorf("d%d ranges over %s, not [0, n-1]", j, b)
		}
		inSizes[j] = b.Hi + 1
	}
	outLin, outTotal, err := linearize(m.results, outSizes)
	if err != nil {
		return IndexingMap{}, err
	}
	dims := make([]Expr, len(m.dims))
	for j := range dims {
		dims[j] = Dim(j)
	}
	inLin, inTotal, err := linearize(dims, inSizes)
	if err != nil {
		return IndexingMap{}, err
	}
	if outTotal != inTotal {
		return IndexingMap{}, fmt.Errorf("the results range over %d elements, the dimensions over %d", outTotal, inTotal)
	}
	s := newExprSimplifier(&m)
	if got := s.simplify(outLin); !got.Equal(inLin) {
		return IndexingMap{}, fmt.Errorf("the linear index of the results is %s, not %s", got, inLin)
	}
	xs := make([]Expr, len(m.results))
	for i := range xs {
		xs[i] = Dim(i)
	}
	lin, _, err := linearize(xs, outSizes)
	if err != nil {
		return IndexingMap{}, err
	}
	inv := IndexingMap{dims: sizesToBounds(outSizes), results: make([]Expr, len(m.dims))}
	stride := int64(1)
	for j := len(m.dims) - 1; j >= 0; j-- {
		q, err := divide(atomFloorDiv, lin, stride)
		if err != nil {
			return IndexingMap{}, err
		}
		if j > 0 {
			if q, err = divide(atomMod, q, inSizes[j]); err != nil {
				return IndexingMap{}, err
			}
		}
		inv.results[j] = q
		stride *= inSizes[j] // cannot overflow: the product of sizes is inTotal
	}
	return inv, nil
}

// linearize is Σ xs[i]·stride_i for row-major strides over sizes, and the
// number of elements.
func linearize(xs []Expr, sizes []int64) (Expr, int64, error) {
	var b sumBuilder
	stride := int64(1)
	for i := len(xs) - 1; i >= 0; i-- {
		b.add(xs[i], stride)
		var ok bool
		if stride, ok = mulChecked(stride, sizes[i]); !ok {
			return Expr{}, 0, errOverflow
		}
	}
	e, err := b.build()
	return e, stride, err
}

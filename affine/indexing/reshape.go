package indexing

import (
	"fmt"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// reshapeMap is the map from the elements of a tensor of dims `from` to the
// elements of a tensor of dims `to` with the same row-major linear index:
// the output-to-input map of a reshape from `to` to `from`. It is simplified
// as XLA simplifies it, keeping dimensions of size 1 as variables.
func reshapeMap(from, to []int) *affine.IndexingMap {
	return preserveSimplify(newMap(reshapeResults(from, to), bounds(from), nil, nil))
}

// reshapeResults is XLA's ComputeReshapeIndexingMap: the index into `to` of
// element (d0, ...) of `from`. The dimensions are cut into the shortest runs
// of equal element counts on both sides; within a run, a single dimension on
// one side is the linearised (expand) or delinearised (collapse) index of the
// other side, and otherwise the run is delinearised from its linear index.
// The caller has checked that both have the same number of elements.
func reshapeResults(from, to []int) []affine.Expr {
	exprs := make([]affine.Expr, 0, len(to))
	if numElements(to) == 0 {
		for range to {
			exprs = append(exprs, affine.Const(0))
		}
		return exprs
	}
	var toSub, fromSub []int
	var fromExprs []affine.Expr
	toCount, fromCount := 1, 1
	ti, fi := 0, 0
	for ti < len(to) || fi < len(from) || len(toSub) > 0 {
		if ti < len(to) && (len(toSub) == 0 || toCount < fromCount || to[ti] == 1) {
			toCount *= to[ti]
			toSub = append(toSub, to[ti])
			ti++
			continue
		}
		if fi < len(from) && (len(fromSub) == 0 || fromCount < toCount || from[fi] == 1) {
			fromCount *= from[fi]
			fromSub = append(fromSub, from[fi])
			fromExprs = append(fromExprs, affine.Dim(fi))
			fi++
			continue
		}
		exprs = minimalReshape(toSub, fromSub, fromExprs, exprs)
		toCount, fromCount = 1, 1
		toSub, fromSub, fromExprs = toSub[:0], fromSub[:0], fromExprs[:0]
	}
	return exprs
}

// minimalReshape appends the indices into the dims `to` of the element at
// index fromExprs of the dims `from`, for a run of equal element counts:
// XLA's ComputeMinimalReshapeIndexing.
func minimalReshape(to, from []int, fromExprs, exprs []affine.Expr) []affine.Expr {
	switch {
	case len(to) == 1 && len(from) == 1:
		return append(exprs, fromExprs...)
	case len(to) == 1:
		return append(exprs, linearize(from, fromExprs))
	case len(from) == 1:
		return delinearize(to, fromExprs[0], exprs)
	}
	return delinearize(to, linearize(from, fromExprs), exprs)
}

// linearize is the row-major linear index of the element at index exprs of
// a tensor of dims.
func linearize(dims []int, exprs []affine.Expr) affine.Expr {
	strides := rowMajorStrides(dims)
	var lin affine.Expr
	for i, e := range exprs {
		lin = lin.Add(e.Mul(strides[i]))
	}
	return lin
}

// delinearize appends the index into a tensor of dims of the element at the
// row-major linear index lin.
func delinearize(dims []int, lin affine.Expr, exprs []affine.Expr) []affine.Expr {
	rem := lin
	for _, s := range rowMajorStrides(dims) {
		exprs = append(exprs, rem.FloorDiv(s))
		rem = rem.Mod(s)
	}
	return exprs
}

func rowMajorStrides(dims []int) []int64 {
	strides := make([]int64, len(dims))
	stride := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		strides[i] = stride
		stride *= int64(dims[i])
	}
	return strides
}

func numElements(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// bitcastMap is the map from the elements of a tensor of shape `from` to
// the elements of a tensor of shape `to` stored at the same place in memory
// under the two shapes' layouts — XLA's GetBitcastMap, decomposed the same
// way as a transpose into the physical (major-to-minor) order of `from`, a
// reshape, and a transpose out of the physical order of `to`.
func bitcastMap(from, to ir.Shape) (*affine.IndexingMap, error) {
	for _, s := range []ir.Shape{from, to} {
		if l := s.Layout; l != nil && (len(l.Tiles) > 0 || len(l.PaddedDims) > 0 || l.ElementSizeBits != 0) {
			return nil, &UnsupportedError{Op: "bitcast", Reason: fmt.Sprintf("the tiled, padded or sub-byte layout of %v", s)}
		}
	}
	if numElements(from.Dims) != numElements(to.Dims) {
		return nil, fmt.Errorf("bitcast: %v and %v have different numbers of elements", from, to)
	}
	if from.Elem.BitWidth() != to.Elem.BitWidth() {
		return nil, &UnsupportedError{Op: "bitcast", Reason: fmt.Sprintf("the element type changes width, %v to %v", from.Elem, to.Elem)}
	}
	fromPerm, toPerm := majorToMinor(from), majorToMinor(to)
	fromPhys := permute(from.Dims, fromPerm)
	toPhys := permute(to.Dims, toPerm)
	if sameDims(fromPhys, toPhys) {
		// A transpose: the dimension at each physical position of `to` is
		// the one at the same position of `from`.
		res := make([]affine.Expr, len(to.Dims))
		for k, d := range toPerm {
			res[d] = affine.Dim(fromPerm[k])
		}
		return preserveSimplify(newMap(res, bounds(from.Dims), nil, nil)), nil
	}
	phys := reshapeResults(fromPhys, toPhys)
	// Physical dimension k of `from` is logical dimension fromPerm[k].
	sub := make([]affine.Expr, len(fromPerm))
	for k, d := range fromPerm {
		sub[k] = affine.Dim(d)
	}
	res := make([]affine.Expr, len(to.Dims))
	for k, d := range toPerm {
		res[d] = phys[k].Replace(sub, nil, nil)
	}
	return preserveSimplify(newMap(res, bounds(from.Dims), nil, nil)), nil
}

// preserveSimplify simplifies m as XLA simplifies the maps of reshapes and
// bitcasts, keeping dimensions of size 1 as variables.
func preserveSimplify(m *affine.IndexingMap) *affine.IndexingMap {
	s, _ := affine.SimplifyMap(*m, affine.SimplifyOptions{PreservePointDimensions: true})
	return &s
}

// majorToMinor lists the dimensions of s from the slowest-varying to the
// fastest under its layout.
func majorToMinor(s ir.Shape) []int {
	m2m := s.MinorToMajor()
	p := make([]int, len(m2m))
	for i, d := range m2m {
		p[len(m2m)-1-i] = d
	}
	return p
}

func permute(dims, perm []int) []int {
	out := make([]int, len(perm))
	for i, p := range perm {
		out[i] = dims[p]
	}
	return out
}

package ssa

import (
	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// Indexing maps of the data-movement ops (reshape, transpose, bitcast),
// output index → input index, used by simplify to prove that a chain of them
// is the identity, a single transpose or a single reshape.

// movementMap returns the output→input map of a reshape, transpose or
// bitcast v. A reshape reads the element at the same row-major position; a
// bitcast the element at the same physical position under the operand's and
// the result's layouts (dense layouts only); a transpose the permuted index.
func movementMap(v *Value) (affine.IndexingMap, bool) {
	if len(v.Args) != 1 || !v.Shape.IsArray() || v.Shape.IsDynamic() {
		return affine.IndexingMap{}, false
	}
	x := v.Args[0]
	if !x.Shape.IsArray() || x.Shape.IsDynamic() || x.Shape.Elem != v.Shape.Elem ||
		hasZeroDim(v.Shape) || hasZeroDim(x.Shape) {
		return affine.IndexingMap{}, false
	}
	switch v.Op {
	case OpReshape:
		return linearMap(v.Shape.Dims, rowMajorStrides(v.Shape.Dims), x.Shape.Dims, rowMajorStrides(x.Shape.Dims)), true
	case OpBitcast:
		if !denseLayout(v.Shape) || !denseLayout(x.Shape) || v.Shape.ElementCount() != x.Shape.ElementCount() {
			return affine.IndexingMap{}, false
		}
		return linearMap(v.Shape.Dims, v.Shape.Strides(), x.Shape.Dims, x.Shape.Strides()), true
	case OpTranspose:
		perm := v.Attrs.Dimensions
		if len(perm) != x.Shape.Rank() {
			return affine.IndexingMap{}, false
		}
		res := make([]affine.Expr, len(perm))
		for i, p := range perm {
			res[p] = affine.Dim(i)
		}
		return affine.FromTensorSizes(res, sizes64(v.Shape.Dims), nil), true
	}
	return affine.IndexingMap{}, false
}

// linearMap maps an index of an array of outDims to the index of the array
// of inDims found at the same linear position, given the strides of each.
func linearMap(outDims, outStrides, inDims, inStrides []int) affine.IndexingMap {
	var lin affine.Expr
	for i := range outDims {
		lin = lin.Add(affine.Dim(i).Mul(int64(outStrides[i])))
	}
	res := make([]affine.Expr, len(inDims))
	for k, n := range inDims {
		res[k] = lin.FloorDiv(int64(inStrides[k])).Mod(int64(n))
	}
	return affine.FromTensorSizes(res, sizes64(outDims), nil)
}

func rowMajorStrides(dims []int) []int {
	s := make([]int, len(dims))
	n := 1
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = n
		n *= dims[i]
	}
	return s
}

func sizes64(dims []int) []int64 {
	s := make([]int64, len(dims))
	for i, d := range dims {
		s[i] = int64(d)
	}
	return s
}

func hasZeroDim(s ir.Shape) bool {
	for _, d := range s.Dims {
		if d == 0 {
			return true
		}
	}
	return false
}

// denseLayout reports whether s's layout (if any) is a plain permutation of
// the dimensions: no tiling and no padding. A sub-byte element size (E(4))
// is not a difference: Kiln stores S4 and U4 one element per byte whatever
// the layout says, as ir.Literal does.
func denseLayout(s ir.Shape) bool {
	l := s.Layout
	return l == nil || (l.Tiles == nil && l.PaddedDims == nil)
}

// isIdentityMap reports whether m maps every index to itself.
func isIdentityMap(m affine.IndexingMap) bool {
	if m.NumResults() != m.NumDims() || m.NumRangeVars() != 0 || m.NumRuntimeVars() != 0 {
		return false
	}
	res := pinnedResults(m)
	for i, r := range res {
		if !r.Equal(affine.Dim(i)) && !r.Equal(pinnedDim(m, i)) {
			return false
		}
	}
	return true
}

// pinnedResults returns m's results with every dimension variable whose
// bounds are a single point (a dimension of size 1) replaced by that value,
// which the simplifier leaves in place.
func pinnedResults(m affine.IndexingMap) []affine.Expr {
	dims := make([]affine.Expr, m.NumDims())
	for i := range dims {
		dims[i] = pinnedDim(m, i)
	}
	res := m.Results()
	for k, r := range res {
		res[k] = r.Replace(dims, nil, nil)
	}
	return res
}

func pinnedDim(m affine.IndexingMap, i int) affine.Expr {
	if b := m.DimBound(i); b.IsPoint() {
		return affine.Const(b.Lo)
	}
	return affine.Dim(i)
}

// permutationOf returns perm when m (from an array of dims out to one of
// dims in) reads in[perm[i]] = out index i, i.e. m is transpose(in, perm).
func permutationOf(m affine.IndexingMap, out, in []int) ([]int, bool) {
	if len(out) != len(in) || m.NumResults() != len(in) || m.NumRangeVars() != 0 || m.NumRuntimeVars() != 0 {
		return nil, false
	}
	perm := make([]int, len(out))
	used := make([]bool, len(out))
	var units []int // results that read a dimension of size 1
	for k, r := range pinnedResults(m) {
		if c, ok := r.Constant(); ok && c == 0 && in[k] == 1 {
			units = append(units, k)
			continue
		}
		if r.Kind() != affine.KindDim || used[r.Index()] || r.Index() >= len(out) {
			return nil, false
		}
		i := r.Index()
		used[i] = true
		perm[i] = k
		if out[i] != in[k] {
			return nil, false
		}
	}
	// Dimensions of size 1 pair up in order.
	for i := range out {
		if used[i] {
			continue
		}
		if out[i] != 1 || len(units) == 0 {
			return nil, false
		}
		perm[i], units = units[0], units[1:]
	}
	return perm, true
}

// isReshapeMap reports whether m (from an array of dims out to one of dims
// in) reads the element at the same row-major position, i.e. m is
// reshape(in → out): composing it with the map back from in to out gives the
// identity.
func isReshapeMap(m affine.IndexingMap, out, in []int) bool {
	if product(out) != product(in) {
		return false
	}
	back := linearMap(in, rowMajorStrides(in), out, rowMajorStrides(out))
	c, err := m.Compose(back)
	return err == nil && isIdentityMap(c)
}

func product(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

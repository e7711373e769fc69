package ops

// Bounded dynamic shapes (seed 002). An array of a dynamic shape holds
// exactly its actual elements, densely in row-major order of its actual
// sizes; each op computes on that valid region, as XLA's evaluator does.
//
//   - set-dimension-size keeps the leading `size` elements along the
//     dimension (size must lie in [0, bound]); elements beyond the operand's
//     own size, which in XLA's padded buffers hold whatever was there, are
//     zero.
//   - reshape of an array with dynamic sizes: the dimensions split into
//     groups whose bounds multiply to the same count on both sides (as
//     XLA's CommonFactors does); within a group the output's dynamic
//     dimension is the group's actual element count divided by its other
//     sizes (`inferred_dimension` names it when the group has several
//     dynamic dimensions). XLA's `reshape` of s32[<=8] to s32[2,<=3,2] is
//     legal: it is the dynamic size that must divide.
//   - dynamic-reshape takes the output sizes from its operands.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// SetDimensionSize returns the dimensions set-dimension-size gives an
// operand of dims when dimension d gets size (bounded by bound).
func SetDimensionSize(dims []int, d, size, bound int) ([]int, error) {
	if d < 0 || d >= len(dims) {
		return nil, fmt.Errorf("dimension %d is out of range for rank %d", d, len(dims))
	}
	if size < 0 || size > bound {
		return nil, fmt.Errorf("size %d is outside [0, %d] for dimension %d", size, bound, d)
	}
	out := append([]int{}, dims...)
	out[d] = size
	return out, nil
}

// CopyPrefix copies an array of dims (elements of es bytes) into one of
// out, which differs from it in one dimension d: the leading elements along
// d that both have, zero beyond (out may be x itself when it shrinks).
func CopyPrefix(dst, src []byte, es int, dims, out []int, d int) {
	outer := Count(dims[:d])
	inner := Count(dims[d+1:]) * es
	have, size := dims[d], out[d]
	keep := min(size, have) * inner
	if size <= have {
		for o := 0; o < outer; o++ {
			copy(dst[o*size*inner:o*size*inner+keep], src[o*have*inner:o*have*inner+keep])
		}
		return
	}
	// Growing: from the back, so that dst may share src.
	for o := outer - 1; o >= 0; o-- {
		copy(dst[o*size*inner:o*size*inner+keep], src[o*have*inner:o*have*inner+keep])
		clear(dst[o*size*inner+keep : (o+1)*size*inner])
	}
}

// ReshapeDims returns the actual dimensions of reshape of an operand with
// bounds inBound and actual sizes in to the shape out (bounds and dynamic
// dimensions); inferred is the inferred_dimension attribute, or -1.
func ReshapeDims(inBound, in []int, out ir.Shape, inferred int) ([]int, error) {
	n := Count(in)
	if !out.IsDynamic() || Count(out.Dims) == n {
		if Count(out.Dims) != n {
			return nil, fmt.Errorf("cannot reshape %d elements %v to %v", n, in, out.StringWithoutLayout())
		}
		return append([]int{}, out.Dims...), nil
	}
	if Count(inBound) == 0 || Count(out.Dims) == 0 {
		return nil, fmt.Errorf("cannot reshape %d elements %v to %v", n, in, out.StringWithoutLayout())
	}
	dims := append([]int{}, out.Dims...)
	a, b := 0, 0
	for a < len(inBound) || b < len(dims) {
		a1, b1, pa, pb := a, b, 1, 1
		if a1 < len(inBound) {
			pa *= inBound[a1]
			a1++
		}
		if b1 < len(dims) {
			pb *= out.Dims[b1]
			b1++
		}
		for pa != pb {
			switch {
			case pa < pb && a1 < len(inBound):
				pa *= inBound[a1]
				a1++
			case b1 < len(dims):
				pb *= out.Dims[b1]
				b1++
			case a1 < len(inBound):
				pa *= inBound[a1]
				a1++
			default:
				return nil, fmt.Errorf("cannot reshape bounds %v to %v", inBound, out.StringWithoutLayout())
			}
		}
		actual := Count(in[a:a1])
		var dyn []int
		static := 1
		for j := b; j < b1; j++ {
			if out.IsDynamicDim(j) {
				dyn = append(dyn, j)
			} else {
				static *= out.Dims[j]
			}
		}
		if len(dyn) > 1 {
			solve := -1
			for _, j := range dyn {
				if j == inferred {
					solve = j
				} else {
					static *= out.Dims[j]
				}
			}
			if solve < 0 {
				return nil, fmt.Errorf("reshape of %v to %v: dimensions %v are all dynamic; which one to infer is unknown", in, out.StringWithoutLayout(), dyn)
			}
			dyn = []int{solve}
		}
		switch {
		case len(dyn) == 0:
			if actual != static {
				return nil, fmt.Errorf("reshape of %v to %v: %d elements cannot fill dimensions %v", in, out.StringWithoutLayout(), actual, out.Dims[b:b1])
			}
		case static == 0 || actual%static != 0 || actual/static > out.Dims[dyn[0]]:
			return nil, fmt.Errorf("reshape of %v to %v: the dynamic size of dimension %d is %d/%d, not a whole number within its bound %d",
				in, out.StringWithoutLayout(), dyn[0], actual, static, out.Dims[dyn[0]])
		default:
			dims[dyn[0]] = actual / static
		}
		a, b = a1, b1
	}
	return dims, nil
}

// DynamicReshapeDims returns the dimensions of dynamic-reshape: the sizes
// its operands hold (one integer scalar each), within the result's bounds,
// with the operand's element count n.
func DynamicReshapeDims(n int, sizes [][]byte, types []ir.ElementType, out ir.Shape) ([]int, error) {
	if len(sizes) != out.Rank() {
		return nil, fmt.Errorf("dynamic-reshape has %d size operands for a result of rank %d", len(sizes), out.Rank())
	}
	dims := make([]int, len(sizes))
	for i, s := range sizes {
		if !types[i].IsInteger() {
			return nil, fmt.Errorf("size %d has element type %v, expected an integer", i, types[i])
		}
		v := IndexAt(s, types[i], 0)
		if v < 0 || v > int64(out.Dims[i]) || (!out.IsDynamicDim(i) && v != int64(out.Dims[i])) {
			return nil, fmt.Errorf("size %d of dimension %d is outside [0, %d]", v, i, out.Dims[i])
		}
		dims[i] = int(v)
	}
	if Count(dims) != n {
		return nil, fmt.Errorf("dynamic-reshape of %d elements to sizes %v", n, dims)
	}
	return dims, nil
}

// BroadcastDims are the actual output dimensions of broadcast of an operand
// of actual dimensions x into the shape out: out's dimensions, with a
// dynamic one that an operand dimension maps to taking that dimension's
// actual size.
func BroadcastDims(out ir.Shape, bdims, x []int) []int {
	dims := append([]int{}, out.Dims...)
	for i, d := range bdims {
		if d >= 0 && d < len(dims) && i < len(x) && out.IsDynamicDim(d) && x[i] < dims[d] {
			dims[d] = x[i]
		}
	}
	return dims
}

// ValidSlice returns slice limits cut to the valid region of an operand of
// actual dimensions dims: a limit past the actual size of a dynamic
// dimension stops at it.
func ValidSlice(sl []ir.SliceDim, x ir.Shape) []ir.SliceDim {
	if !x.IsDynamic() {
		return sl
	}
	out := append([]ir.SliceDim{}, sl...)
	for i := range out {
		if i < x.Rank() && x.IsDynamicDim(i) {
			out[i].Limit = min(out[i].Limit, x.Dims[i])
			out[i].Start = min(out[i].Start, out[i].Limit)
		}
	}
	return out
}

// ValidDims returns the dimensions an op computes over when its operands,
// of the given actual dimensions, must have equal sizes but for dynamic
// dimensions (dynamic marks the result's): an operand of static size meets
// one of dynamic size along a dynamic dimension, and the op computes the
// valid region, the smaller of them (as XLA's dynamic dimension inference
// gives the result the dynamic operand's size). It reports false when the
// operands differ along a static dimension or in rank.
func ValidDims(dims [][]int, dynamic func(d int) bool) ([]int, bool) {
	if len(dims) == 0 {
		return nil, true
	}
	out := append([]int{}, dims[0]...)
	for _, ds := range dims[1:] {
		if len(ds) != len(out) {
			return nil, false
		}
		for d, n := range ds {
			if n == out[d] {
				continue
			}
			if !dynamic(d) {
				return nil, false
			}
			out[d] = min(out[d], n)
		}
	}
	return out, true
}

// CopyRegion copies the leading region of dims `to` of a row-major array of
// dims `from` (elements of es bytes; to[d] ≤ from[d]) into dst, densely.
func CopyRegion(dst, src []byte, es int, from, to []int) {
	if Count(to) == 0 {
		return
	}
	r := len(from)
	if r == 0 {
		copy(dst[:es], src[:es])
		return
	}
	inner := to[r-1] * es
	stride := from[r-1] * es
	idx := make([]int, r-1)
	for o := 0; ; o++ {
		off := 0
		for d := 0; d < r-1; d++ {
			off = off*from[d] + idx[d]
		}
		copy(dst[o*inner:(o+1)*inner], src[off*stride:off*stride+inner])
		d := r - 2
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < to[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

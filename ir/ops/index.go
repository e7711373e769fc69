package ops

// Index arithmetic shared by the structured ops: row-major counters over
// dimensions with strides.

import "github.com/kilnml/kiln/ir"

// Positions writes offset + Σ strides[d]·idx[d] for the row-major indices
// start, start+1, … of dims into dst (one per entry of dst).
func Positions(dst []int64, dims, strides []int, offset, start int) {
	var idxBuf [MaxRank]int
	idx := idxBuf[:len(dims)]
	rem := start
	for d := len(dims) - 1; d >= 0; d-- {
		if dims[d] > 0 {
			idx[d] = rem % dims[d]
			rem /= dims[d]
		}
	}
	for i := range dst {
		v := offset
		for d := range idx {
			v += idx[d] * strides[d]
		}
		dst[i] = int64(v)
		ir.NextIndex(dims, idx)
	}
}

// Advance moves a row-major counter idx over dims one step and returns pos
// updated through strides.
func Advance(dims, strides, idx []int, pos int) int {
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d]++
		pos += strides[d]
		if idx[d] < dims[d] {
			return pos
		}
		pos -= dims[d] * strides[d]
		idx[d] = 0
	}
	return pos
}

// Complement returns the integers in [0, n) in none of the lists, in
// increasing order.
func Complement(n int, lists ...[]int) []int {
	var out []int
	for i := 0; i < n; i++ {
		found := false
		for _, l := range lists {
			for _, x := range l {
				found = found || x == i
			}
		}
		if !found {
			out = append(out, i)
		}
	}
	return out
}

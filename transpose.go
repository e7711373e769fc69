package kiln

import "fmt"

// Transposes and permutations of row-major float32 arrays.

// Transpose sets dst, a row-major [cols, rows] matrix, to the transpose of
// x, a row-major [rows, cols] matrix: dst[j*rows+i] = x[i*cols+j]. dst must
// not overlap x. It panics unless len(x) = len(dst) = rows·cols.
func Transpose(dst, x []float32, rows, cols int) {
	if rows < 0 || cols < 0 || len(x) != rows*cols || len(dst) != len(x) {
		panic(fmt.Sprintf("kiln: Transpose: len(x) and len(dst) must be rows·cols = %d·%d, found %d and %d", rows, cols, len(x), len(dst)))
	}
	transposeStrided(dst, rows, x, cols, rows, cols)
}

// transposeBlockRows is how far down a strip one kernel call walks: blocks
// of 32 rows keep the source lines a block reads in L1/L2 for the next strip
// and bound the pages one call touches (measured best or near-best from
// 768×768 to 4096×512, 1.6× faster than whole strips at 1024×1024).
const transposeBlockRows = 32

// transposeStrided sets dst[j*ldd+i] = x[i*lds+j] for i < rows, j < cols:
// blocks of transposeBlockRows rows, strips of the level's width across each
// block walked down by the kernel, and the edges in Go.
func transposeStrided(dst []float32, ldd int, x []float32, lds int, rows, cols int) {
	if rows == 0 || cols == 0 {
		return
	}
	k := kernels().transpose
	if k.strip == nil {
		transposeGo(dst, ldd, x, lds, 0, rows, 0, cols)
		return
	}
	L := k.width
	fullRows, fullCols := rows&^(L-1), cols&^(L-1)
	for rb := 0; rb < fullRows; rb += transposeBlockRows {
		rn := min(transposeBlockRows, fullRows-rb)
		for cb := 0; cb < fullCols; cb += L {
			k.strip(&dst[cb*ldd+rb], ldd, &x[rb*lds+cb], lds, rn)
		}
	}
	if fullCols < cols {
		transposeGo(dst, ldd, x, lds, 0, fullRows, fullCols, cols)
	}
	if fullRows < rows {
		transposeGo(dst, ldd, x, lds, fullRows, rows, 0, cols)
	}
}

// transposeGo transposes rows [r0, r1) and columns [c0, c1) in small tiles.
func transposeGo(dst []float32, ldd int, x []float32, lds int, r0, r1, c0, c1 int) {
	const t = 16
	for rb := r0; rb < r1; rb += t {
		for cb := c0; cb < c1; cb += t {
			for i := rb; i < min(rb+t, r1); i++ {
				for j := cb; j < min(cb+t, c1); j++ {
					dst[j*ldd+i] = x[i*lds+j]
				}
			}
		}
	}
}

// maxPermuteRank bounds the rank Permute accepts.
const maxPermuteRank = 8

// Permute sets dst to x with its dimensions permuted: x is a row-major array
// of the given shape, dst a row-major array of shape
// [shape[perm[0]], …, shape[perm[r-1]]], element (i_perm[0], …) of dst being
// element (i_0, …) of x — numpy's transpose(x, perm), XLA's transpose.
//
// Dimensions of size 1 are dropped and dimensions that stay adjacent and in
// order are merged first, so that every permutation becomes either copies of
// contiguous rows (when the innermost dimension stays innermost, as in the
// attention head split [B,S,H,D] → [B,H,S,D]) or a set of blocked 2-D
// transposes (as in NCHW → NHWC). dst must not overlap x. It panics unless
// perm is a permutation of 0…len(shape)-1 (at most 8 dimensions) and
// len(x) = len(dst) = the product of shape.
func Permute(dst, x []float32, shape, perm []int) {
	if len(shape) != len(perm) || len(shape) > maxPermuteRank {
		panic(fmt.Sprintf("kiln: Permute: shape and perm must have the same length, at most %d, found %d and %d", maxPermuteRank, len(shape), len(perm)))
	}
	var s, p [maxPermuteRank]int
	var seen [maxPermuteRank]bool
	n := 1
	for i, d := range shape {
		if d < 0 {
			panic(fmt.Sprintf("kiln: Permute: dimension %d has size %d", i, d))
		}
		s[i], n = d, n*d
		q := perm[i]
		if q < 0 || q >= len(perm) || seen[q] {
			panic(fmt.Sprintf("kiln: Permute: perm %v is not a permutation of 0…%d", perm, len(perm)-1))
		}
		seen[q], p[i] = true, q
	}
	if len(x) != n || len(dst) != n {
		panic(fmt.Sprintf("kiln: Permute: len(x) and len(dst) must be the product of shape %v, %d, found %d and %d", shape, n, len(x), len(dst)))
	}
	permute(dst, x, s, p, len(shape))
}

// permute is Permute after the checks; shape and perm are passed by value so
// that callers' literals stay on the stack.
func permute(dst, x []float32, shape, perm [maxPermuteRank]int, rank int) {
	if len(x) == 0 {
		return
	}
	// Drop dimensions of size 1 (renumbering the rest).
	var keep [maxPermuteRank]int // old input dimension → new, or -1
	r := 0
	for i := 0; i < rank; i++ {
		keep[i] = -1
		if shape[i] != 1 {
			keep[i] = r
			shape[r] = shape[i]
			r++
		}
	}
	k := 0
	for i := 0; i < rank; i++ {
		if nd := keep[perm[i]]; nd >= 0 {
			perm[k] = nd
			k++
		}
	}
	// Merge input dimensions i, i+1 that are consecutive in the output too.
	for changed := true; changed; {
		changed = false
		for o := 0; o+1 < r; o++ {
			a := perm[o]
			if perm[o+1] != a+1 {
				continue
			}
			shape[a] *= shape[a+1]
			copy(shape[a+1:r], shape[a+2:r])
			copy(perm[o+1:r], perm[o+2:r])
			r--
			for j := 0; j < r; j++ {
				if perm[j] > a {
					perm[j]--
				}
			}
			changed = true
			break
		}
	}
	if r <= 1 {
		copy(dst, x)
		return
	}
	var inStride, outStride [maxPermuteRank]int // outStride[i]: of input dimension i in dst
	st := 1
	for i := r - 1; i >= 0; i-- {
		inStride[i] = st
		st *= shape[i]
	}
	st = 1
	for o := r - 1; o >= 0; o-- {
		outStride[perm[o]] = st
		st *= shape[perm[o]]
	}
	inner := perm[r-1] // the input dimension innermost in dst
	last := r - 1      // the input dimension innermost in x
	// Loop over every dimension except the ones the inner operation covers.
	var loop [maxPermuteRank]int
	nl := 0
	for i := 0; i < r; i++ {
		if i != inner && i != last {
			loop[nl] = i
			nl++
		}
	}
	var idx [maxPermuteRank]int
	for {
		src, to := 0, 0
		for j := 0; j < nl; j++ {
			src += idx[j] * inStride[loop[j]]
			to += idx[j] * outStride[loop[j]]
		}
		if inner == last {
			row := shape[last]
			copy(dst[to:to+row], x[src:src+row])
		} else {
			transposeStrided(dst[to:], outStride[last], x[src:], inStride[inner], shape[inner], shape[last])
		}
		j := nl - 1
		for ; j >= 0; j-- {
			idx[j]++
			if idx[j] < shape[loop[j]] {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return
		}
	}
}

// NCHWToNHWC converts x, an [n, c, h, w] array, to dst, [n, h, w, c].
func NCHWToNHWC(dst, x []float32, n, c, h, w int) {
	checkPermute("NCHWToNHWC", len(dst), len(x), n, c, h, w)
	permute(dst, x, [maxPermuteRank]int{n, c, h, w}, [maxPermuteRank]int{0, 2, 3, 1}, 4)
}

// NHWCToNCHW converts x, an [n, h, w, c] array, to dst, [n, c, h, w].
func NHWCToNCHW(dst, x []float32, n, h, w, c int) {
	checkPermute("NHWCToNCHW", len(dst), len(x), n, h, w, c)
	permute(dst, x, [maxPermuteRank]int{n, h, w, c}, [maxPermuteRank]int{0, 3, 1, 2}, 4)
}

// SplitHeads is the attention head split: x, [b, s, h, d] (a sequence of
// tokens whose features are h heads of d), to dst, [b, h, s, d].
func SplitHeads(dst, x []float32, b, s, h, d int) {
	checkPermute("SplitHeads", len(dst), len(x), b, s, h, d)
	permute(dst, x, [maxPermuteRank]int{b, s, h, d}, [maxPermuteRank]int{0, 2, 1, 3}, 4)
}

// MergeHeads undoes SplitHeads: x, [b, h, s, d], to dst, [b, s, h, d].
func MergeHeads(dst, x []float32, b, h, s, d int) {
	checkPermute("MergeHeads", len(dst), len(x), b, h, s, d)
	permute(dst, x, [maxPermuteRank]int{b, h, s, d}, [maxPermuteRank]int{0, 2, 1, 3}, 4)
}

func checkPermute(fn string, lenDst, lenX int, dims ...int) {
	n := 1
	for _, d := range dims {
		if d < 0 {
			panic(fmt.Sprintf("kiln: %s: dimensions must not be negative, found %v", fn, dims))
		}
		n *= d
	}
	if lenX != n || lenDst != n {
		panic(fmt.Sprintf("kiln: %s: len(x) and len(dst) must be the product of %v, %d, found %d and %d", fn, dims, n, lenX, lenDst))
	}
}

package kiln

import (
	"fmt"
	"math"
	"math/bits"
	"sync"
	"unsafe"
)

// Top-k: the k largest (or smallest) elements of each row and their
// indices, as XLA's TopK computes them: in the total order (-NaN < -Inf < …
// < -0 < +0 < … < +Inf < +NaN for floats), largest first (smallest first
// when largest is false), equal elements by increasing index.
//
// For small k the row is scanned once against the k-th best so far: an
// element enters the sorted selection only when it beats that threshold,
// which after the first few elements of a row is rare, so the scan runs at
// the speed of one compare per element (a float compare, with the exact
// total-order test only for the elements that pass it). Larger k (a
// selection beyond topkSelectMax, or more than n/topkSortRatio) sorts the
// row with its indices and keeps the first k.

const (
	topkSelectMax = 128
	topkSortRatio = 16
)

func checkTopK(fn string, lenVals, lenIdx, lenX, n, k int) int {
	if n < 0 || n == 0 && lenX != 0 || n > 0 && lenX%n != 0 {
		panic(fmt.Sprintf("kiln: %s: len(x) must be a multiple of n > 0, found len(x) = %d, n = %d", fn, lenX, n))
	}
	if k < 0 || k > n {
		panic(fmt.Sprintf("kiln: %s: k must be in [0, n = %d], found %d", fn, n, k))
	}
	rows := 0
	if n > 0 {
		rows = lenX / n
	}
	if lenVals != rows*k || lenIdx != rows*k {
		panic(fmt.Sprintf("kiln: %s: len(vals) and len(idx) must be rows·k = %d·%d, found %d and %d", fn, rows, k, lenVals, lenIdx))
	}
	return rows
}

// TopKF32 sets vals and idx, row-major [rows, k], to the k largest elements
// of each row of x ([rows, n]) and their indices within the row (the k
// smallest when largest is false), in XLA's TopK order. It panics on
// mismatched lengths or k outside [0, n].
func TopKF32(vals []float32, idx []int32, x []float32, n, k int, largest bool) {
	rows := checkTopK("TopKF32", len(vals), len(idx), len(x), n, k)
	if k == 0 {
		return
	}
	for r := 0; r < rows; r++ {
		topkRow32(unsafe.Slice((*uint32)(unsafe.Pointer(&vals[r*k])), k), idx[r*k:(r+1)*k],
			unsafe.Slice((*uint32)(unsafe.Pointer(&x[r*n])), n), largest, false)
	}
}

// TopKBF16 is TopKF32 for bfloat16 elements (their bits).
func TopKBF16(vals []uint16, idx []int32, x []uint16, n, k int, largest bool) {
	rows := checkTopK("TopKBF16", len(vals), len(idx), len(x), n, k)
	if k == 0 {
		return
	}
	for r := 0; r < rows; r++ {
		topkRow16(vals[r*k:(r+1)*k], idx[r*k:(r+1)*k], x[r*n:(r+1)*n], largest, false, 0x7f80)
	}
}

// TopKF16 is TopKF32 for binary16 elements (their bits).
func TopKF16(vals []uint16, idx []int32, x []uint16, n, k int, largest bool) {
	rows := checkTopK("TopKF16", len(vals), len(idx), len(x), n, k)
	if k == 0 {
		return
	}
	for r := 0; r < rows; r++ {
		topkRow16(vals[r*k:(r+1)*k], idx[r*k:(r+1)*k], x[r*n:(r+1)*n], largest, false, 0x7c00)
	}
}

// TopKOrderF32 sets vals and idx ([rows, k]) to the first k elements of
// each row of x ([rows, n]) and their indices, in the order a stable SortF32
// with order would place them: SortDescending gives TopKF32's largest
// first, SortAscending its smallest first, and SortCanonicalNaN compares
// as JAX's sort does (-0 equal to +0, every NaN equal to every other and
// after +Inf; equal elements by increasing index). It is the selection a
// sort followed by a slice of its first k elements computes.
func TopKOrderF32(vals []float32, idx []int32, x []float32, n, k int, order SortOrder) {
	rows := checkTopK("TopKOrderF32", len(vals), len(idx), len(x), n, k)
	if k == 0 {
		return
	}
	largest, canon := order&SortDescending != 0, order&SortCanonicalNaN != 0
	for r := 0; r < rows; r++ {
		topkRow32(unsafe.Slice((*uint32)(unsafe.Pointer(&vals[r*k])), k), idx[r*k:(r+1)*k],
			unsafe.Slice((*uint32)(unsafe.Pointer(&x[r*n])), n), largest, canon)
	}
}

// TopKOrderBF16 is TopKOrderF32 for bfloat16 elements (their bits).
func TopKOrderBF16(vals []uint16, idx []int32, x []uint16, n, k int, order SortOrder) {
	rows := checkTopK("TopKOrderBF16", len(vals), len(idx), len(x), n, k)
	if k == 0 {
		return
	}
	largest, canon := order&SortDescending != 0, order&SortCanonicalNaN != 0
	for r := 0; r < rows; r++ {
		topkRow16(vals[r*k:(r+1)*k], idx[r*k:(r+1)*k], x[r*n:(r+1)*n], largest, canon, 0x7f80)
	}
}

// TopKOrderF16 is TopKOrderF32 for binary16 elements (their bits).
func TopKOrderF16(vals []uint16, idx []int32, x []uint16, n, k int, order SortOrder) {
	rows := checkTopK("TopKOrderF16", len(vals), len(idx), len(x), n, k)
	if k == 0 {
		return
	}
	largest, canon := order&SortDescending != 0, order&SortCanonicalNaN != 0
	for r := 0; r < rows; r++ {
		topkRow16(vals[r*k:(r+1)*k], idx[r*k:(r+1)*k], x[r*n:(r+1)*n], largest, canon, 0x7c00)
	}
}

// topkRow32 selects the top k of one row of float32 bits.
func topkRow32(vals []uint32, idx []int32, x []uint32, largest, canon bool) {
	k, n := len(vals), len(x)
	if k == 0 {
		return
	}
	flip := uint32(0) // keys whose larger value ranks first
	if !largest {
		flip = ^uint32(0)
	}
	key := func(b uint32) uint32 {
		if canon {
			b = canonical32(b)
		}
		return floatKey32(b) ^ flip
	}
	if k > topkSelectMax || k*topkSortRatio > n {
		keys := make([]float32, n)
		pos := make([]int32, n)
		for i, b := range x {
			keys[i] = math.Float32frombits(b)
			pos[i] = int32(i)
		}
		order := SortDescending
		if !largest {
			order = SortAscending
		}
		if canon {
			order |= SortCanonicalNaN
		}
		SortF32(keys, pos, n, order)
		for i := range vals {
			vals[i], idx[i] = math.Float32bits(keys[i]), pos[i]
		}
		return
	}
	// The selection: keys[0] ≥ … ≥ keys[k-1] (ties by index), the first k
	// elements to begin with.
	var kbuf [topkSelectMax]uint32
	keys := kbuf[:k]
	seedSelection(keys, vals, idx, x, key)
	// The scan: a chunk of the row is tested against a float threshold no
	// greater than the k-th key's float value in the direction of interest
	// (one vector comparison into a mask of the elements strictly beyond it
	// the wrong way: NaNs, unordered, never fail), and only the elements
	// that do not fail go to the exact total-order test. The threshold
	// only tightens as elements enter, so a mask made with an earlier one
	// still lets every candidate through.
	sc := topkScratches.Get().(*topkScratch)
	for c, e := k, 0; c < n; c = e {
		e = c + topkChunkLen(c, n)
		thr := topkThreshold(math.Float32frombits(vals[k-1]), largest)
		xs := unsafe.Slice((*float32)(unsafe.Pointer(&x[c])), e-c)
		if largest {
			LessScalar(sc.fail[:e-c], xs, thr)
		} else {
			GreaterScalar(sc.fail[:e-c], xs, thr)
		}
		topkOfferChunk(sc, keys, vals, idx, x, c, e, key)
	}
	topkScratches.Put(sc)
}

// topkChunk is the most elements of a row one mask tests; topkBlock how
// many of them the scan skips at once when none is a candidate.
const (
	topkChunk = 2048
	topkBlock = 32
)

// topkChunkLen is the length of the chunk at c of a row of n: as long as
// the part of the row already scanned (at least 64, at most topkChunk). A
// chunk's mask is made with the threshold its start had; the threshold
// tightens fastest at the start of a row, so chunks that double keep the
// elements let through by a stale threshold to about k·ln 2 per chunk on
// random data, while long rows pay for few masks.
func topkChunkLen(c, n int) int { return min(max(c, 64), topkChunk, n-c) }

// topkScratch holds the mask of one chunk: 1 where the element fails the
// threshold (compares beyond it in the wrong direction), 0 where it is a
// candidate — at or past the threshold, or a NaN, which no comparison
// makes fail.
type topkScratch struct {
	fail [topkChunk]uint8
}

var topkScratches = sync.Pool{New: func() any { return new(topkScratch) }}

// seedSelection starts a selection with the first len(keys) elements of x:
// keys in descending order (ties by index), the elements and their indices
// alongside, by insertion.
func seedSelection[K, V uint16 | uint32](keys []K, vals []V, idx []int32, x []V, key func(V) K) {
	for i := range keys {
		kk := key(x[i])
		j := i
		for j > 0 && keys[j-1] < kk {
			keys[j], vals[j], idx[j] = keys[j-1], vals[j-1], idx[j-1]
			j--
		}
		keys[j], vals[j], idx[j] = kk, x[i], int32(i)
	}
}

// topkOnes is a one in each byte of a word.
const topkOnes = 0x0101010101010101

// allFail reports whether every element of the block [j, j+topkBlock) of
// the chunk failed the threshold (four words of mask bytes, all ones).
func (s *topkScratch) allFail(j int) bool {
	w := (*[4]uint64)(unsafe.Pointer(&s.fail[j]))
	return w[0]&w[1]&w[2]&w[3] == topkOnes
}

// candidates is the word of elements [j, j+8) of the chunk with a one in
// the low bit of the byte of each candidate.
func (s *topkScratch) candidates(j int) uint64 {
	return ^*(*uint64)(unsafe.Pointer(&s.fail[j])) & topkOnes
}

// topkOfferChunk offers the elements [c, e) of the row x that did not fail
// the chunk's mask to the selection: blocks that all failed are skipped,
// and in the others the candidates are found by their mask bytes' bits.
func topkOfferChunk[K, V uint16 | uint32](sc *topkScratch, keys []K, vals []V, idx []int32, x []V, c, e int, key func(V) K) {
	for j := 0; j < e-c; j += topkBlock {
		if j+topkBlock > e-c {
			for i := c + j; i < e; i++ {
				if sc.fail[i-c] == 0 {
					topkOffer(keys, vals, idx, key(x[i]), x[i], i)
				}
			}
			return
		}
		if sc.allFail(j) {
			continue
		}
		for q := j; q < j+topkBlock; q += 8 {
			for m := sc.candidates(q); m != 0; m &= m - 1 {
				i := c + q + bits.TrailingZeros64(m)>>3
				topkOffer(keys, vals, idx, key(x[i]), x[i], i)
			}
		}
	}
}

// topkOffer puts element v of key kk at index i into the selection keys
// (descending, ties by index) when it beats the last: equal keys keep the
// earlier index, which the scan offered first.
func topkOffer[K, V uint16 | uint32](keys []K, vals []V, idx []int32, kk K, v V, i int) {
	k := len(keys)
	if kk <= keys[k-1] {
		return
	}
	j := k - 1
	for j > 0 && keys[j-1] < kk {
		keys[j], vals[j], idx[j] = keys[j-1], vals[j-1], idx[j-1]
		j--
	}
	keys[j], vals[j], idx[j] = kk, v, int32(i)
}

// topkThreshold is the float filter of the k-th element's value v: v
// itself, or, when v is a NaN (which no float comparison lets anything
// pass), the infinity every non-NaN element passes.
func topkThreshold(v float32, largest bool) float32 {
	if v != v {
		if largest {
			return float32(math.Inf(-1))
		}
		return float32(math.Inf(1))
	}
	return v
}

// topkRow16 selects the top k of one row of 16-bit float bits (inf is the
// type's +Inf bits).
func topkRow16(vals []uint16, idx []int32, x []uint16, largest, canon bool, inf uint16) {
	k, n := len(vals), len(x)
	if k == 0 {
		return
	}
	flip := uint16(0)
	if !largest {
		flip = ^uint16(0)
	}
	key := func(b uint16) uint16 {
		if canon {
			b = canonical16(b, inf)
		}
		return floatKey16(b) ^ flip
	}
	if k > topkSelectMax || k*topkSortRatio > n {
		keys := make([]uint16, n)
		pos := make([]int32, n)
		copy(keys, x)
		for i := range pos {
			pos[i] = int32(i)
		}
		order := SortDescending
		if !largest {
			order = SortAscending
		}
		if canon {
			order |= SortCanonicalNaN
		}
		if inf == 0x7c00 {
			SortF16(keys, pos, n, order)
		} else {
			SortBF16(keys, pos, n, order)
		}
		copy(vals, keys)
		copy(idx, pos)
		return
	}
	var kbuf [topkSelectMax]uint16
	keys := kbuf[:k]
	seedSelection(keys, vals, idx, x, key)
	sc := topkScratches.Get().(*topkScratch)
	bf := inf == 0x7f80
	for c, e := k, 0; c < n; c = e {
		e = c + topkChunkLen(c, n)
		xs := x[c:e]
		var thr float32
		if bf {
			thr = topkThreshold(bf16Widen(vals[k-1]), largest)
			switch {
			case largest:
				LessScalarBF16(sc.fail[:e-c], xs, thr)
			default:
				GreaterScalarBF16(sc.fail[:e-c], xs, thr)
			}
		} else {
			thr = topkThreshold(f16Widen(vals[k-1]), largest)
			switch {
			case largest:
				LessScalarF16(sc.fail[:e-c], xs, thr)
			default:
				GreaterScalarF16(sc.fail[:e-c], xs, thr)
			}
		}
		topkOfferChunk(sc, keys, vals, idx, x, c, e, key)
	}
	topkScratches.Put(sc)
}

// TopKSelects reports whether a top-k of k elements of rows of n runs as a
// selection (a scan of the row, no working memory); otherwise the row is
// sorted in memory the call allocates.
func TopKSelects(n, k int) bool { return k <= topkSelectMax && k*topkSortRatio <= n }

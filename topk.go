package kiln

import (
	"fmt"
	"math"
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
			unsafe.Slice((*uint32)(unsafe.Pointer(&x[r*n])), n), largest)
	}
}

// TopKBF16 is TopKF32 for bfloat16 elements (their bits).
func TopKBF16(vals []uint16, idx []int32, x []uint16, n, k int, largest bool) {
	rows := checkTopK("TopKBF16", len(vals), len(idx), len(x), n, k)
	if k == 0 {
		return
	}
	for r := 0; r < rows; r++ {
		topkRow16(vals[r*k:(r+1)*k], idx[r*k:(r+1)*k], x[r*n:(r+1)*n], largest, 0x7f80)
	}
}

// TopKF16 is TopKF32 for binary16 elements (their bits).
func TopKF16(vals []uint16, idx []int32, x []uint16, n, k int, largest bool) {
	rows := checkTopK("TopKF16", len(vals), len(idx), len(x), n, k)
	if k == 0 {
		return
	}
	for r := 0; r < rows; r++ {
		topkRow16(vals[r*k:(r+1)*k], idx[r*k:(r+1)*k], x[r*n:(r+1)*n], largest, 0x7c00)
	}
}

// topkRow32 selects the top k of one row of float32 bits.
func topkRow32(vals []uint32, idx []int32, x []uint32, largest bool) {
	k, n := len(vals), len(x)
	if k == 0 {
		return
	}
	flip := uint32(0) // keys whose larger value ranks first
	if !largest {
		flip = ^uint32(0)
	}
	key := func(b uint32) uint32 { return floatKey32(b) ^ flip }
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
	for i := 0; i < k; i++ {
		kk := key(x[i])
		j := i
		for j > 0 && keys[j-1] < kk {
			keys[j], vals[j], idx[j] = keys[j-1], vals[j-1], idx[j-1]
			j--
		}
		keys[j], vals[j], idx[j] = kk, x[i], int32(i)
	}
	// thr is a float threshold no greater than the k-th key's float value
	// in the direction of interest: an element that does not pass the float
	// test cannot beat the k-th key (NaNs always pass, and go to the exact
	// test).
	thrOf := func() float32 { return math.Float32frombits(vals[k-1]) }
	thr := thrOf()
	for i := k; i < n; i++ {
		v := math.Float32frombits(x[i])
		if largest && v < thr || !largest && v > thr {
			continue
		}
		kk := key(x[i])
		if kk <= keys[k-1] {
			continue // equal keys: the earlier index stays
		}
		j := k - 1
		for j > 0 && keys[j-1] < kk {
			keys[j], vals[j], idx[j] = keys[j-1], vals[j-1], idx[j-1]
			j--
		}
		keys[j], vals[j], idx[j] = kk, x[i], int32(i)
		thr = thrOf()
		if thr != thr {
			// A NaN k-th element: no float test excludes anything. The
			// total order then decides for every element.
			thr = float32(math.Inf(-1))
			if !largest {
				thr = float32(math.Inf(1))
			}
		}
	}
}

// topkRow16 selects the top k of one row of 16-bit float bits (inf is the
// type's +Inf bits).
func topkRow16(vals []uint16, idx []int32, x []uint16, largest bool, inf uint16) {
	k, n := len(vals), len(x)
	if k == 0 {
		return
	}
	flip := uint16(0)
	if !largest {
		flip = ^uint16(0)
	}
	key := func(b uint16) uint16 { return floatKey16(b) ^ flip }
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
	for i := 0; i < k; i++ {
		kk := key(x[i])
		j := i
		for j > 0 && keys[j-1] < kk {
			keys[j], vals[j], idx[j] = keys[j-1], vals[j-1], idx[j-1]
			j--
		}
		keys[j], vals[j], idx[j] = kk, x[i], int32(i)
	}
	thr := keys[k-1]
	for i := k; i < n; i++ {
		kk := key(x[i])
		if kk <= thr {
			continue
		}
		j := k - 1
		for j > 0 && keys[j-1] < kk {
			keys[j], vals[j], idx[j] = keys[j-1], vals[j-1], idx[j-1]
			j--
		}
		keys[j], vals[j], idx[j] = kk, x[i], int32(i)
		thr = keys[k-1]
	}
}

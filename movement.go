package kiln

import (
	"fmt"
	"math"
)

// Fill, iota and row copies.

// Fill sets every element of dst to v.
func Fill(dst []float32, v float32) {
	k := kernels().eltwise
	kern := k.fillF32
	if len(dst) >= ntMinElems {
		h := alignedHead(dst, k.lanes)
		fillF32Go(dst[:h], v)
		dst, kern = dst[h:], k.fillF32NT
	}
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		kern(dst[:m], v)
	}
	if m < len(dst) {
		fillF32Go(dst[m:], v)
	}
}

// Iota sets dst[i] = float32(start + i), rounded to nearest even (exact up
// to 2^24), XLA's iota along a row.
func Iota(dst []float32, start int) {
	if start < math.MinInt32 || start+len(dst) > math.MaxInt32 {
		for i := range dst {
			dst[i] = float32(start + i)
		}
		return
	}
	k := kernels().eltwise
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		k.iotaF32(dst[:m], int32(start))
	}
	if m < len(dst) {
		iotaF32Go(dst[m:], int32(start+m))
	}
}

// IotaInt32 sets dst[i] = start + i, wrapping as int32 arithmetic does.
func IotaInt32(dst []int32, start int32) {
	k := kernels().eltwise
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		k.iotaS32(dst[:m], start)
	}
	if m < len(dst) {
		iotaS32Go(dst[m:], start+int32(m))
	}
}

func iotaF32Go(dst []float32, start int32) {
	for i := range dst {
		dst[i] = float32(start + int32(i))
	}
}

func iotaS32Go(dst []int32, start int32) {
	for i := range dst {
		dst[i] = start + int32(i)
	}
}

// CopyRows copies a [rows, cols] block between strided row-major arrays:
// row i of the block is x[i*ldx : i*ldx+cols] and goes to
// dst[i*ldd : i*ldd+cols]. It panics when a stride is smaller than cols or a
// slice is too short for the block.
func CopyRows(dst []float32, ldd int, x []float32, ldx int, rows, cols int) {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("kiln: CopyRows: rows and cols must not be negative, found %d and %d", rows, cols))
	}
	checkMatrix("CopyRows", "x", "ldx", rows, cols, len(x), ldx)
	checkMatrix("CopyRows", "dst", "ldd", rows, cols, len(dst), ldd)
	for i := 0; i < rows; i++ {
		copy(dst[i*ldd:i*ldd+cols], x[i*ldx:i*ldx+cols])
	}
}

// GatherRows copies rows of table, a row-major [len(table)/n, n] array, into
// dst, a row-major [len(idx), n] array: row i of dst is row idx[i] of table,
// with idx[i] clamped to the table's rows as XLA's gather clamps its start
// indices (an embedding lookup). It panics unless len(table) is a multiple of
// n > 0 and len(dst) = len(idx)·n.
func GatherRows(dst, table []float32, n int, idx []int32) {
	if n <= 0 || len(table)%n != 0 || len(dst) != len(idx)*n {
		panic(fmt.Sprintf("kiln: GatherRows: len(table) must be a multiple of n > 0 and len(dst) len(idx)·n, found len(table) = %d, n = %d, len(dst) = %d, len(idx) = %d", len(table), n, len(dst), len(idx)))
	}
	rows := len(table) / n
	if rows == 0 {
		if len(idx) > 0 {
			panic("kiln: GatherRows: the table has no rows to gather from")
		}
		return
	}
	for i, j := range idx {
		r := min(max(int(j), 0), rows-1)
		copy(dst[i*n:i*n+n], table[r*n:r*n+n])
	}
}

package kiln

// The row forms fold a strided matrix into another, row by row and in place:
// row i of dst (dst[i*ldd : i*ldd+cols]) with row i of x (x[i*ldx :
// i*ldx+cols]), as a pooling window folds the channel runs of its rows into
// the output's. One call dispatches once for all the rows, so that short rows
// (16 or 32 channels) cost the kernel's work rather than a call each. dst and
// x are checked as BLAS checks a matrix (ld at least max(1, cols), the slice
// long enough for the last row); rows of dst must not overlap rows of x
// other than their own.

// AddRows sets dst[i*ldd+j] = dst[i*ldd+j] + x[i*ldx+j] for i < rows, j < cols.
func AddRows(dst, x []float32, rows, cols, ldd, ldx int) {
	k := kernels().eltwise
	foldRows("AddRows", k.addF32, addF32Go, k.lanes, dst, x, rows, cols, ldd, ldx)
}

// MulRows sets dst[i*ldd+j] = dst[i*ldd+j] * x[i*ldx+j] for i < rows, j < cols.
func MulRows(dst, x []float32, rows, cols, ldd, ldx int) {
	k := kernels().eltwise
	foldRows("MulRows", k.mulF32, mulF32Go, k.lanes, dst, x, rows, cols, ldd, ldx)
}

// MaximumRows sets dst[i*ldd+j] = max(dst[i*ldd+j], x[i*ldx+j]) for
// i < rows, j < cols, with Maximum's (XLA's) semantics.
func MaximumRows(dst, x []float32, rows, cols, ldd, ldx int) {
	k := kernels().eltwise
	foldRows("MaximumRows", k.maxF32, maxF32Go, k.lanes, dst, x, rows, cols, ldd, ldx)
}

// MinimumRows sets dst[i*ldd+j] = min(dst[i*ldd+j], x[i*ldx+j]) for
// i < rows, j < cols, with Minimum's (XLA's) semantics.
func MinimumRows(dst, x []float32, rows, cols, ldd, ldx int) {
	k := kernels().eltwise
	foldRows("MinimumRows", k.minF32, minF32Go, k.lanes, dst, x, rows, cols, ldd, ldx)
}

// foldRows runs a binary kernel over the rows: its vector part on the
// assembly kernel, the rest on the twin.
func foldRows(fn string, kern, twin func(dst, x, y []float32), lanes int, dst, x []float32, rows, cols, ldd, ldx int) {
	if rows < 0 || cols < 0 {
		panic("kiln: " + fn + ": rows and cols must not be negative")
	}
	checkMatrix(fn, "dst", "ldd", rows, cols, len(dst), ldd)
	checkMatrix(fn, "x", "ldx", rows, cols, len(x), ldx)
	if rows == 0 || cols == 0 {
		return
	}
	m := vectorPart(cols, lanes)
	for i := range rows {
		d := dst[i*ldd : i*ldd+cols]
		s := x[i*ldx : i*ldx+cols]
		if m > 0 {
			kern(d[:m], d[:m], s[:m])
		}
		if m < cols {
			twin(d[m:], d[m:], s[m:])
		}
	}
}

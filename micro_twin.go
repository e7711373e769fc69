package kiln

import "unsafe"

// twinKernel returns the pure-Go twin of the micro-kernel with the given row
// count and tile width: the fallback of the generic level and the oracle the
// assembly kernels are tested against. rowMajor selects how A is addressed
// (see microKernel).
func twinKernel[T float](rows, nr int, rowMajor bool) microKernel[T] {
	return func(k int, a *T, lda int, b *T, ldb int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint) {
		microTwin(rows, nr, rowMajor, k, a, lda, b, ldb, c, ldc, alpha, beta, bias, mask, flags)
	}
}

// packingTwin returns the pure-Go twin of a packing kernel of width nr whose
// tile kern computes (see packingKernel): it copies the panel of B to dst,
// then runs kern on the copy.
func packingTwin[T float](kern microKernel[T], nr int) packingKernel[T] {
	return func(k int, a *T, lda int, b *T, ldb int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint, dst *T) {
		if k > 0 {
			bs := unsafe.Slice(b, (k-1)*ldb+nr)
			ds := unsafe.Slice(dst, k*nr)
			for p := 0; p < k; p++ {
				copy(ds[p*nr:p*nr+nr], bs[p*ldb:])
			}
		}
		kern(k, a, lda, dst, nr, c, ldc, alpha, beta, bias, mask, flags)
	}
}

// prefetchingTwin returns the pure-Go twin of a prefetching kernel whose
// tile kern computes (see prefetchingKernel): Go has no prefetch, so it
// computes the tile alone.
func prefetchingTwin[T float](kern microKernel[T]) prefetchingKernel[T] {
	return func(k int, a *T, lda int, b *T, ldb int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint, pf *T, pfStride int) {
		kern(k, a, lda, b, ldb, c, ldc, alpha, beta, bias, mask, flags)
	}
}

// twinTile bounds the tile of the twin kernel (rows × columns).
const twinTile = 16 * maxNR

func microTwin[T float](rows, nr int, rowMajor bool, k int, a *T, lda int, b *T, ldb int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint) {
	n := nr
	if flags&flagPartial != 0 {
		m := unsafe.Slice(mask, nr)
		n = 0
		for n < nr && m[n] != 0 {
			n++
		}
	}
	var acc [twinTile]T
	if k > 0 {
		var as []T
		if rowMajor {
			as = unsafe.Slice(a, (rows-1)*lda+k)
		} else {
			as = unsafe.Slice(a, (k-1)*lda+rows)
		}
		bs := unsafe.Slice(b, (k-1)*ldb+n)
		for p := 0; p < k; p++ {
			brow := bs[p*ldb : p*ldb+n]
			for i := 0; i < rows; i++ {
				var av T
				if rowMajor {
					av = as[i*lda+p]
				} else {
					av = as[p*lda+i]
				}
				row := acc[i*nr : i*nr+n]
				for j, bv := range brow {
					row[j] += av * bv
				}
			}
		}
	}
	storeTile(rows, nr, n, acc[:], c, ldc, alpha, beta, bias, flags)
}

// storeTile applies the epilogue to the accumulators acc (rows×nr, of which
// the first n columns are stored) and writes them to C.
func storeTile[T float](rows, nr, n int, acc []T, c *T, ldc int, alpha, beta T, bias *T, flags uint) {
	cs := unsafe.Slice(c, (rows-1)*ldc+n)
	var bs []T
	if flags&flagBias != 0 {
		bs = unsafe.Slice(bias, n)
	}
	for i := 0; i < rows; i++ {
		crow := cs[i*ldc : i*ldc+n]
		for j := range crow {
			v := alpha * acc[i*nr+j]
			if flags&flagLoadC != 0 {
				v += beta * crow[j]
			}
			if flags&flagBias != 0 {
				v += bs[j]
			}
			if flags&flagReLU != 0 && v < 0 {
				v = 0
			}
			crow[j] = v
		}
	}
}

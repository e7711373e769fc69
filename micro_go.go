package kiln

import "unsafe"

// The generic level's micro-kernels: 4×4 tiles held in sixteen scalar
// accumulators, which the Go compiler keeps in registers; edge and partial
// tiles fall back to the twin. Twice as fast as the twin's loops, and tested
// against it like every other kernel.

func genericKernels[T float]() *gemmKernels[T] {
	g := twinKernels[T](4, 4, true)
	g.kmajor[4] = microGo4x4KMajor[T]
	g.rowMajor[4] = microGo4x4RowMajor[T]
	g.packing = packingTwin(microGo4x4RowMajor[T], 4)
	g.prefetching = prefetchingTwin(microGo4x4RowMajor[T])
	g.packedRows = map[int][]packedRowsKernel[T]{4: packedRowsTwins[T](4)}
	return g
}

func microGo4x4KMajor[T float](k int, a *T, lda int, b *T, ldb int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint) {
	if flags&flagPartial != 0 {
		microTwin(4, 4, false, k, a, lda, b, ldb, c, ldc, alpha, beta, bias, mask, flags)
		return
	}
	var acc [16]T
	if k > 0 {
		as := unsafe.Slice(a, (k-1)*lda+4)
		bs := unsafe.Slice(b, (k-1)*ldb+4)
		var c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33 T
		for p := 0; p < k; p++ {
			ap := as[p*lda : p*lda+4]
			bp := bs[p*ldb : p*ldb+4]
			a0, a1, a2, a3 := ap[0], ap[1], ap[2], ap[3]
			b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
			c00, c01, c02, c03 = c00+a0*b0, c01+a0*b1, c02+a0*b2, c03+a0*b3
			c10, c11, c12, c13 = c10+a1*b0, c11+a1*b1, c12+a1*b2, c13+a1*b3
			c20, c21, c22, c23 = c20+a2*b0, c21+a2*b1, c22+a2*b2, c23+a2*b3
			c30, c31, c32, c33 = c30+a3*b0, c31+a3*b1, c32+a3*b2, c33+a3*b3
		}
		acc = [16]T{c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33}
	}
	storeTile(4, 4, 4, acc[:], c, ldc, alpha, beta, bias, flags)
}

func microGo4x4RowMajor[T float](k int, a *T, lda int, b *T, ldb int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint) {
	if flags&flagPartial != 0 {
		microTwin(4, 4, true, k, a, lda, b, ldb, c, ldc, alpha, beta, bias, mask, flags)
		return
	}
	var acc [16]T
	if k > 0 {
		as := unsafe.Slice(a, 3*lda+k)
		r0, r1, r2, r3 := as[:k], as[lda:lda+k], as[2*lda:2*lda+k], as[3*lda:3*lda+k]
		bs := unsafe.Slice(b, (k-1)*ldb+4)
		var c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33 T
		for p := range r0 {
			bp := bs[p*ldb : p*ldb+4]
			a0, a1, a2, a3 := r0[p], r1[p], r2[p], r3[p]
			b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
			c00, c01, c02, c03 = c00+a0*b0, c01+a0*b1, c02+a0*b2, c03+a0*b3
			c10, c11, c12, c13 = c10+a1*b0, c11+a1*b1, c12+a1*b2, c13+a1*b3
			c20, c21, c22, c23 = c20+a2*b0, c21+a2*b1, c22+a2*b2, c23+a2*b3
			c30, c31, c32, c33 = c30+a3*b0, c31+a3*b1, c32+a3*b2, c33+a3*b3
		}
		acc = [16]T{c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33}
	}
	storeTile(4, 4, 4, acc[:], c, ldc, alpha, beta, bias, flags)
}

package kiln

import "unsafe"

// The pure-Go twins of the convolution kernels: the generic level's kernels
// and the oracle the assembly ones are tested against.

// twinTileMax bounds the tile of the twins (rows × columns).
const twinTileMax = 16 * maxNR

func twinConvKernel(rows, nr int) convKernel {
	return func(n, taps int, tab *int, a *float32, aoff, lda int, b *float32, ldb, kc int, pf *float32, c *float32, ldc int, res, bias *float32, mask *int32, flags uint) {
		for m := 0; m < n; m++ {
			off := m * rows * ldc
			convTwin(rows, nr, taps, tab, a, aoff+m*rows*lda, lda, b, ldb, kc, convAt(c, off), ldc, convAt(res, off), bias, mask, flags)
		}
	}
}

// convMaskWidth is the number of leading enabled lanes of a prefix mask of at most n lanes.
func convMaskWidth(mask *int32, n int) int {
	m := unsafe.Slice(mask, n)
	w := 0
	for w < n && m[w] != 0 {
		w++
	}
	return w
}

// convAt returns p moved on by off elements, or nil when p is nil.
func convAt(p *float32, off int) *float32 {
	if p == nil {
		return nil
	}
	return (*float32)(unsafe.Add(unsafe.Pointer(p), off*4))
}

// convElems returns the n float32 elements at p + off (off in elements, ≥ 0).
func convElems(p *float32, off, n int) []float32 {
	return unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(p), off*4)), n)
}

func convTwin(rows, nr, taps int, tab *int, a *float32, aoff, lda int, b *float32, ldb, kc int, c *float32, ldc int, res, bias *float32, mask *int32, flags uint) {
	n := nr
	if flags&flagPartial != 0 {
		n = convMaskWidth(mask, nr)
	}
	var acc [twinTileMax]float32
	var t []int
	if taps > 0 {
		t = unsafe.Slice(tab, 2*taps)
	}
	for q := 0; q < taps; q++ {
		if kc == 0 {
			break
		}
		bs := convElems(b, t[2*q+1], (kc-1)*ldb+n)
		for i := 0; i < rows; i++ {
			as := convElems(a, aoff+t[2*q]+i*lda, kc)
			row := acc[i*nr : i*nr+n]
			for p, av := range as {
				for j, bv := range bs[p*ldb : p*ldb+n] {
					row[j] += av * bv
				}
			}
		}
	}
	convStore(rows, nr, n, acc[:], c, ldc, res, bias, flags)
}

// convStore applies the epilogue of the flags to acc (rows×nr, of which the
// first n columns are stored) and writes it to c.
func convStore(rows, nr, n int, acc []float32, c *float32, ldc int, res, bias *float32, flags uint) {
	var bs []float32
	if flags&flagBias != 0 {
		bs = unsafe.Slice(bias, n)
	}
	for i := 0; i < rows; i++ {
		crow := convElems(c, i*ldc, n)
		var rrow []float32
		if flags&flagResidual != 0 {
			rrow = convElems(res, i*ldc, n)
		}
		for j := range crow {
			v := acc[i*nr+j]
			if flags&flagLoadC != 0 {
				v += crow[j]
			}
			if flags&flagResidual != 0 {
				v += rrow[j]
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

func twinDWKernel(rows, width, lanes int) dwKernel {
	return func(n, taps int, tab *int, a *float32, aoff, lda int, w *float32, c *float32, ldc int, res, bias *float32, mask *int32, flags uint) {
		for m := 0; m < n; m++ {
			off := m * rows * ldc
			dwTwin(rows, width, lanes, taps, tab, a, aoff+m*rows*lda, lda, w, convAt(c, off), ldc, convAt(res, off), bias, mask, flags)
		}
	}
}

func dwTwin(rows, width, lanes, taps int, tab *int, a *float32, aoff, lda int, w *float32, c *float32, ldc int, res, bias *float32, mask *int32, flags uint) {
	n := width
	if flags&flagPartial != 0 {
		n = width - lanes + convMaskWidth(mask, lanes)
	}
	var acc [twinTileMax]float32
	var t []int
	if taps > 0 {
		t = unsafe.Slice(tab, 2*taps)
	}
	for q := 0; q < taps; q++ {
		ws := convElems(w, t[2*q+1], n)
		for i := 0; i < rows; i++ {
			xs := convElems(a, aoff+t[2*q]+i*lda, n)
			row := acc[i*width : i*width+n]
			for j, wv := range ws {
				row[j] += xs[j] * wv
			}
		}
	}
	convStore(rows, width, n, acc[:], c, ldc, res, bias, flags&^flagPartial)
}

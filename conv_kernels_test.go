package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// convLevels returns the convolution kernels of every runnable level.
func convLevels() []struct {
	name string
	k    *convKernels
} {
	var ls []struct {
		name string
		k    *convKernels
	}
	for _, s := range runnable {
		ls = append(ls, struct {
			name string
			k    *convKernels
		}{s.level.String(), s.conv})
	}
	return ls
}

func convRand(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.Float64()*2 - 1)
	}
	return s
}

// closeTo reports whether got is within a relative and absolute bound of want.
func convClose(got, want float32, tol float64) bool {
	g, w := float64(got), float64(want)
	if math.IsNaN(g) || math.IsNaN(w) {
		return math.IsNaN(g) && math.IsNaN(w)
	}
	return math.Abs(g-w) <= tol*(1+math.Abs(w))
}

// TestConvKernelsAgainstTwin runs every implicit-GEMM kernel of every
// runnable level, for every row count, tap counts and depths around the
// unroll, full and partial tiles and every epilogue flag, against convTwin.
// Elements outside the tile must stay untouched.
func TestConvKernelsAgainstTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, l := range convLevels() {
		for _, tiles := range l.k.gemm {
			nr := tiles.nr
			for rows := 1; rows <= tiles.maxRows(); rows++ {
				for _, kc := range []int{0, 1, 3, 4, 5, 9, 17} {
					for _, taps := range []int{0, 1, 3} {
						cols := []int{nr}
						if l.k.masked {
							cols = append(cols, nr-1, 1+r.IntN(nr))
						}
						for _, n := range cols {
							for flags := uint(0); flags < 32; flags++ {
								// Every epilogue at one depth, none and all elsewhere.
								all := flagLoadC | flagResidual | flagBias | flagReLU
								if flags&flagPartial != 0 || kc != 5 && flags != 0 && flags != all {
									continue
								}
								f := flags
								if n < nr {
									f |= flagPartial
								}
								count := 1 + (rows+kc+taps)%3
								name := fmt.Sprintf("%s %dx%d kc=%d taps=%d cols=%d flags=%05b n=%d", l.name, rows, nr, kc, taps, n, f, count)
								checkConvKernel(t, name, r, tiles.rows[rows], count, rows, nr, n, kc, taps, f)
							}
						}
					}
				}
			}
		}
	}
}

func checkConvKernel(t *testing.T, name string, r *rand.Rand, kern convKernel, tiles, rows, nr, n, kc, taps int, flags uint) {
	t.Helper()
	lda := kc + 3
	ldb := nr + 16
	ldc := nr + 5
	// Taps at scattered offsets; aoff negative to check the offsets add up.
	tab := make([]int, 2*taps)
	aSize := 0
	for q := 0; q < taps; q++ {
		tab[2*q] = 7 + q*(tiles*rows*lda+11)
		tab[2*q+1] = q * (kc*ldb + 3)
		aSize = tab[2*q] + tiles*rows*lda
	}
	aoff := -5
	a := convRand(r, aSize+8)
	b := convRand(r, taps*(kc*ldb+3)+ldb+nr)
	c0 := convRand(r, tiles*rows*ldc+nr)
	res := convRand(r, tiles*rows*ldc+nr)
	bias := convRand(r, nr)
	var mask *int32
	if flags&flagPartial != 0 {
		mask = &edgeMasks[maxNR-n]
	}
	got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
	tp := &tab0
	if taps > 0 {
		tp = &tab[0]
	}
	// Prefetching (of b itself) must not change the result.
	var pf *float32
	if flags&flagBias != 0 {
		pf = &b[0]
	}
	kern(tiles, taps, tp, &a[0], aoff, lda, &b[0], ldb, kc, pf, &got[0], ldc, &res[0], &bias[0], mask, flags)
	for m := 0; m < tiles; m++ {
		off := m * rows * ldc
		convTwin(rows, nr, taps, tp, &a[0], aoff+m*rows*lda, lda, &b[0], ldb, kc, &want[off], ldc, &res[off], &bias[0], mask, flags)
	}
	for i := range got {
		if !convClose(got[i], want[i], 1e-5*float64(kc*taps+1)) {
			t.Fatalf("%s: c[%d] (row %d col %d) = %v, twin gives %v", name, i, i/ldc, i%ldc, got[i], want[i])
		}
	}
}

var tab0 int

// TestDepthwiseKernelsAgainstTwin does the same for the depthwise kernels.
func TestDepthwiseKernelsAgainstTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, l := range convLevels() {
		for _, tiles := range l.k.dw {
			width := tiles.vecs * l.k.lanes
			for rows := 1; rows <= tiles.maxRows(); rows++ {
				for _, taps := range []int{0, 1, 2, 9} {
					valid := []int{l.k.lanes}
					if l.k.masked {
						valid = append(valid, 1, l.k.lanes-1)
					}
					for _, last := range valid {
						for flags := uint(0); flags < 32; flags++ {
							if flags&flagPartial != 0 {
								continue
							}
							f := flags
							if last < l.k.lanes {
								f |= flagPartial
							}
							n := width - l.k.lanes + last
							count := 1 + (rows+taps)%3
							name := fmt.Sprintf("%s %d pixels × %d channels taps=%d n=%d flags=%05b tiles=%d", l.name, rows, width, taps, n, f, count)
							checkDWKernel(t, name, r, tiles.rows[rows], count, rows, width, l.k.lanes, n, taps, f)
						}
					}
				}
			}
		}
	}
}

func checkDWKernel(t *testing.T, name string, r *rand.Rand, kern dwKernel, tiles, rows, width, lanes, n, taps int, flags uint) {
	t.Helper()
	lda := width + 7
	ldc := width + 3
	tab := make([]int, 2*taps)
	aSize, wSize := 0, 0
	for q := 0; q < taps; q++ {
		tab[2*q] = 9 + q*(tiles*rows*lda+5)
		tab[2*q+1] = q * (width + 2)
		aSize = tab[2*q] + (tiles*rows-1)*lda + n
		wSize = tab[2*q+1] + n
	}
	aoff := -9
	// The slices end right after the last element used, so that an unmasked
	// read past the partial vector would be caught by the race detector's
	// bounds or, at least, by garbage values under the comparison.
	a := convRand(r, max(aSize, 1))
	w := convRand(r, max(wSize, 1))
	c0 := convRand(r, (tiles*rows-1)*ldc+n)
	res := convRand(r, (tiles*rows-1)*ldc+n)
	bias := convRand(r, n)
	var mask *int32
	if flags&flagPartial != 0 {
		mask = &edgeMasks[maxNR-(n-(width-lanes))]
	}
	got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
	tp := &tab0
	if taps > 0 {
		tp = &tab[0]
	}
	kern(tiles, taps, tp, &a[0], aoff, lda, &w[0], &got[0], ldc, &res[0], &bias[0], mask, flags)
	for m := 0; m < tiles; m++ {
		off := m * rows * ldc
		dwTwin(rows, width, lanes, taps, tp, &a[0], aoff+m*rows*lda, lda, &w[0], &want[off], ldc, &res[off], &bias[0], mask, flags)
	}
	for i := range got {
		if !convClose(got[i], want[i], 1e-5*float64(taps+1)) {
			t.Fatalf("%s: c[%d] (pixel %d channel %d) = %v, twin gives %v", name, i, i/ldc, i%ldc, got[i], want[i])
		}
	}
}

// TestDepthwiseRowKernelsAgainstTwin checks the kernels for whole rows of
// taps against dwTwin over the same table (rows of k taps, tap kw of a row
// kw·lda after its first).
func TestDepthwiseRowKernelsAgainstTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, l := range convLevels() {
		for _, tiles := range l.k.dwRow {
			width := tiles.vecs * l.k.lanes
			for rows := 1; rows <= tiles.maxRows(); rows++ {
				for _, kernelRows := range []int{0, 1, 3} {
					for _, last := range []int{l.k.lanes, 1 + r.IntN(l.k.lanes)} {
						for _, flags := range []uint{0, flagBias | flagReLU, flagLoadC | flagResidual, flagLoadC | flagResidual | flagBias | flagReLU} {
							if last < l.k.lanes {
								flags |= flagPartial
							}
							n := width - l.k.lanes + last
							count := 1 + (rows+kernelRows)%3
							name := fmt.Sprintf("%s row of %d taps, %d pixels × %d channels, %d rows n=%d flags=%05b tiles=%d", l.name, tiles.k, rows, width, kernelRows, n, flags, count)
							checkDWRowKernel(t, name, r, tiles.rows[rows], count, rows, width, l.k.lanes, n, tiles.k, kernelRows, flags)
						}
					}
				}
			}
		}
	}
}

func checkDWRowKernel(t *testing.T, name string, r *rand.Rand, kern dwKernel, tiles, rows, width, lanes, n, k, kernelRows int, flags uint) {
	t.Helper()
	lda := width + 5
	ldc := width + 3
	taps := k * kernelRows
	tab := make([]int, 2*taps)
	span := (tiles*rows + k - 1) * lda
	aSize, wSize := 0, 0
	for q := 0; q < kernelRows; q++ {
		for kw := 0; kw < k; kw++ {
			tab[2*(q*k+kw)] = 11 + q*(span+3) + kw*lda
			tab[2*(q*k+kw)+1] = (q*k + kw) * (width + 1)
		}
		aSize = 11 + q*(span+3) + span
		wSize = (q*k+k-1)*(width+1) + n
	}
	aoff := -11
	a := convRand(r, max(aSize, 1))
	w := convRand(r, max(wSize, 1))
	c0 := convRand(r, (tiles*rows-1)*ldc+n)
	res := convRand(r, (tiles*rows-1)*ldc+n)
	bias := convRand(r, n)
	var mask *int32
	if flags&flagPartial != 0 {
		mask = &edgeMasks[maxNR-(n-(width-lanes))]
	}
	got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
	tp := &tab0
	if taps > 0 {
		tp = &tab[0]
	}
	kern(tiles, taps, tp, &a[0], aoff, lda, &w[0], &got[0], ldc, &res[0], &bias[0], mask, flags)
	for m := 0; m < tiles; m++ {
		off := m * rows * ldc
		dwTwin(rows, width, lanes, taps, tp, &a[0], aoff+m*rows*lda, lda, &w[0], &want[off], ldc, &res[off], &bias[0], mask, flags)
	}
	for i := range got {
		if !convClose(got[i], want[i], 1e-5*float64(taps+1)) {
			t.Fatalf("%s: c[%d] (pixel %d channel %d) = %v, twin gives %v", name, i, i/ldc, i%ldc, got[i], want[i])
		}
	}
}

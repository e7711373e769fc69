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
		}{s.level.String(), convByLevel[s.level]})
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
								if flags&flagPartial != 0 {
									continue
								}
								f := flags
								if n < nr {
									f |= flagPartial
								}
								name := fmt.Sprintf("%s %dx%d kc=%d taps=%d cols=%d flags=%05b", l.name, rows, nr, kc, taps, n, f)
								checkConvKernel(t, name, r, tiles.rows[rows], rows, nr, n, kc, taps, f)
							}
						}
					}
				}
			}
		}
	}
}

func checkConvKernel(t *testing.T, name string, r *rand.Rand, kern convKernel, rows, nr, n, kc, taps int, flags uint) {
	t.Helper()
	lda := kc + 3
	ldb := nr + 16
	ldc := nr + 5
	// Taps at scattered offsets; aoff negative to check the offsets add up.
	tab := make([]int, 2*taps)
	aSize := 0
	for q := 0; q < taps; q++ {
		tab[2*q] = 7 + q*(rows*lda+11)
		tab[2*q+1] = q * (kc*ldb + 3)
		aSize = tab[2*q] + rows*lda
	}
	aoff := -5
	a := convRand(r, aSize+8)
	b := convRand(r, taps*(kc*ldb+3)+ldb+nr)
	c0 := convRand(r, rows*ldc+nr)
	res := convRand(r, rows*ldc+nr)
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
	kern(taps, tp, &a[0], aoff, lda, &b[0], ldb, kc, &got[0], ldc, &res[0], &bias[0], mask, flags)
	convTwin(rows, nr, taps, tp, &a[0], aoff, lda, &b[0], ldb, kc, &want[0], ldc, &res[0], &bias[0], mask, flags)
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
							name := fmt.Sprintf("%s %d pixels × %d channels taps=%d n=%d flags=%05b", l.name, rows, width, taps, n, f)
							checkDWKernel(t, name, r, tiles.rows[rows], rows, width, l.k.lanes, n, taps, f)
						}
					}
				}
			}
		}
	}
}

func checkDWKernel(t *testing.T, name string, r *rand.Rand, kern dwKernel, rows, width, lanes, n, taps int, flags uint) {
	t.Helper()
	lda := width + 7
	ldc := width + 3
	tab := make([]int, 2*taps)
	aSize, wSize := 0, 0
	for q := 0; q < taps; q++ {
		tab[2*q] = 9 + q*(rows*lda+5)
		tab[2*q+1] = q * (width + 2)
		aSize = tab[2*q] + (rows-1)*lda + n
		wSize = tab[2*q+1] + n
	}
	aoff := -9
	// The slices end right after the last element used, so that an unmasked
	// read past the partial vector would be caught by the race detector's
	// bounds or, at least, by garbage values under the comparison.
	a := convRand(r, max(aSize, 1))
	w := convRand(r, max(wSize, 1))
	c0 := convRand(r, (rows-1)*ldc+n)
	res := convRand(r, (rows-1)*ldc+n)
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
	kern(taps, tp, &a[0], aoff, lda, &w[0], &got[0], ldc, &res[0], &bias[0], mask, flags)
	dwTwin(rows, width, lanes, taps, tp, &a[0], aoff, lda, &w[0], &want[0], ldc, &res[0], &bias[0], mask, flags)
	for i := range got {
		if !convClose(got[i], want[i], 1e-5*float64(taps+1)) {
			t.Fatalf("%s: c[%d] (pixel %d channel %d) = %v, twin gives %v", name, i, i/ldc, i%ldc, got[i], want[i])
		}
	}
}

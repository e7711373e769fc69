package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// testedSets is every kernel set this CPU can run, the generic one included,
// whatever level dispatch chose: each assembly kernel is checked against its
// pure-Go twin even when a higher level is in use.
func testedSets() []*kernelTable {
	return runnable
}

// TestMicroKernelsAgainstTwin runs every micro-kernel of every runnable set,
// for every row count, both A layouts, full and partial tiles, k around the
// unroll, and every epilogue flag, against microTwin.
func TestMicroKernelsAgainstTwin(t *testing.T) {
	for _, set := range testedSets() {
		testMicroKernels(t, set.level.String(), set.sgemm)
		testMicroKernels(t, set.level.String(), set.dgemm)
		if set.sgemm.small != nil {
			testMicroKernels(t, set.level.String()+" small-M", set.sgemm.small)
		}
		if set.sgemm.narrow != nil {
			testMicroKernels(t, set.level.String()+" narrow", set.sgemm.narrow)
		}
	}
}

// TestPanelKernelsAgainstTwin runs every packing and prefetching kernel of
// every runnable set (full tiles, k around the unroll, every epilogue flag)
// against microTwin. A packing kernel must leave B's panel in dst, bit for
// bit, with nothing written past it; a prefetching kernel's tile must be the
// row-major kernel's, bit for bit, whatever it prefetches: rows near, apart,
// or far past any allocation (a prefetch never faults).
func TestPanelKernelsAgainstTwin(t *testing.T) {
	for _, set := range testedSets() {
		level := set.level.String()
		testPackingKernel(t, level, set.sgemm)
		testPackingKernel(t, level, set.dgemm)
		testPrefetchingKernel(t, level, set.sgemm)
		testPrefetchingKernel(t, level, set.dgemm)
	}
}

func testPackingKernel[T float](t *testing.T, level string, g *gemmKernels[T]) {
	if g.packing == nil {
		return
	}
	r := rand.New(rand.NewPCG(23, 24))
	u := unitRoundoff[T]()
	for _, k := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 17, 64} {
		for flags := uint(0); flags < 8; flags++ {
			name := fmt.Sprintf("%s %T packing k=%d flags=%03b", level, T(0), k, flags)
			dst := make([]T, (k+1)*g.nr)
			sentinel := T(-7.25)
			for i := range dst {
				dst[i] = sentinel
			}
			var b []T
			var ldb int
			kern := func(k int, a *T, lda int, bp *T, ld int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint) {
				b, ldb = unsafe.Slice(bp, k*ld+g.nr), ld
				g.packing(k, a, lda, bp, ld, c, ldc, alpha, beta, bias, mask, flags, &dst[0])
			}
			checkMicro(t, name, r, u, g, kern, true, g.mr, k, g.nr, flags)
			for p := 0; p < k; p++ {
				for j := 0; j < g.nr; j++ {
					if got, want := dst[p*g.nr+j], b[p*ldb+j]; got != want {
						t.Fatalf("%s: packed B(%d,%d) = %v, want %v", name, p, j, got, want)
					}
				}
			}
			for i := k * g.nr; i < len(dst); i++ {
				if dst[i] != sentinel {
					t.Fatalf("%s: dst[%d] past the panel changed to %v", name, i, dst[i])
				}
			}
		}
	}
}

func testPrefetchingKernel[T float](t *testing.T, level string, g *gemmKernels[T]) {
	if g.prefetching == nil {
		return
	}
	r := rand.New(rand.NewPCG(25, 26))
	u := unitRoundoff[T]()
	pf := make([]T, 64*g.nr)
	for _, stride := range []int{g.nr, 3*g.nr + 5, 1 << 24} {
		for _, k := range []int{0, 1, 3, 4, 5, 8, 17, 64} {
			for flags := uint(0); flags < 8; flags++ {
				name := fmt.Sprintf("%s %T prefetching k=%d flags=%03b stride=%d", level, T(0), k, flags, stride)
				kern := func(k int, a *T, lda int, b *T, ldb int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint) {
					tile := unsafe.Slice(c, (g.mr-1)*ldc+g.nr)
					want := append([]T(nil), tile...)
					g.rowMajor[g.mr](k, a, lda, b, ldb, &want[0], ldc, alpha, beta, bias, mask, flags)
					g.prefetching(k, a, lda, b, ldb, c, ldc, alpha, beta, bias, mask, flags, &pf[0], stride)
					for i := range tile {
						if math.Float64bits(float64(tile[i])) != math.Float64bits(float64(want[i])) {
							t.Fatalf("%s: C element %d = %v, the row-major kernel's %v", name, i, tile[i], want[i])
						}
					}
				}
				checkMicro(t, name, r, u, g, kern, true, g.mr, k, g.nr, flags)
			}
		}
	}
}

func testMicroKernels[T float](t *testing.T, level string, g *gemmKernels[T]) {
	r := rand.New(rand.NewPCG(21, 22))
	u := unitRoundoff[T]()
	for _, rowMajor := range []bool{false, true} {
		kernels := g.kmajor
		if rowMajor {
			kernels = g.rowMajor
		}
		if kernels == nil {
			continue
		}
		for rows := 1; rows <= g.mr; rows++ {
			ks := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 17, 64}
			if raceEnabled {
				ks = []int{0, 1, 5, 9}
			}
			for _, k := range ks {
				for _, cols := range []int{g.nr, g.nr - 1, 1, 1 + r.IntN(g.nr)} {
					for flags := uint(0); flags < 8; flags++ {
						name := fmt.Sprintf("%s %T rowMajor=%v rows=%d k=%d cols=%d flags=%03b", level, T(0), rowMajor, rows, k, cols, flags)
						checkMicro(t, name, r, u, g, kernels[rows], rowMajor, rows, k, cols, flags)
					}
				}
			}
		}
	}
}

func checkMicro[T float](t *testing.T, name string, r *rand.Rand, u float64, g *gemmKernels[T], kern microKernel[T], rowMajor bool, rows, k, cols int, flags uint) {
	t.Helper()
	lda, ldb, ldc := g.mr+3, g.nr+5, g.nr+7
	if rowMajor {
		lda = k + 3
	}
	fill := func(n int) []T {
		s := make([]T, n)
		for i := range s {
			s[i] = T(r.Float64()*2 - 1)
		}
		return s
	}
	a, b := fill(lda*max(k, g.mr)+g.mr+1), fill(ldb*(k+1)+1)
	bias := fill(g.nr)
	c0 := fill(ldc * (g.mr + 1))
	alpha, beta := T(1.5), T(-0.75)
	partial := cols < g.nr
	f := flags
	var mask *int32
	if partial {
		if !g.masked {
			return
		}
		f |= flagPartial
		mask = &edgeMasks[maxNR-cols]
	}
	want, got := append([]T(nil), c0...), append([]T(nil), c0...)
	microTwin(rows, g.nr, rowMajor, k, &a[1], lda, &b[1], ldb, &want[0], ldc, alpha, beta, &bias[0], mask, f)
	kern(k, &a[1], lda, &b[1], ldb, &got[0], ldc, alpha, beta, &bias[0], mask, f)
	for i := 0; i <= g.mr; i++ {
		for j := 0; j < ldc; j++ {
			idx := i*ldc + j
			if i >= rows || j >= cols {
				if got[idx] != c0[idx] {
					t.Fatalf("%s: C(%d,%d) outside the tile changed from %v to %v", name, i, j, c0[idx], got[idx])
				}
				continue
			}
			var abs float64
			for p := 0; p < k; p++ {
				av := a[1+p*lda+i]
				if rowMajor {
					av = a[1+i*lda+p]
				}
				abs += math.Abs(float64(av) * float64(b[1+p*ldb+j]))
			}
			e := math.Abs(float64(alpha)) * abs
			if f&flagLoadC != 0 {
				e += math.Abs(float64(beta * c0[idx]))
			}
			if f&flagBias != 0 {
				e += math.Abs(float64(bias[j]))
			}
			bound := 2*float64(k+3)*u*e + 0x1p-126
			if d := math.Abs(float64(got[idx]) - float64(want[idx])); !(d <= bound) {
				t.Fatalf("%s: C(%d,%d) = %v, twin %v, difference %.3g over %.3g", name, i, j, got[idx], want[idx], d, bound)
			}
		}
	}
}

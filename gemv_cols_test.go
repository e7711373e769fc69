package kiln

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGemvColumns covers the column-block path of y = x·B (M = 1, B read in
// place) at every runnable level: n around the vector width and the widest
// block, k around the chunk depth (one chunk, several, a short last one),
// B unaligned and with a wider ldb, the epilogue. Each case runs four
// times, so that its chunks are read in both orders: the results must be
// identical bit for bit, and within the reference's bound.
func TestGemvColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 37))
	forEachLevel(t, func(level string) {
		for _, n := range []int{1, 10, 15, 16, 17, 255, 256, 257, 300, 513} {
			for _, k := range []int{1, 2, 127, 128, 129, 300, 1000} {
				for _, extra := range []int{0, 3} {
					tc := newCase[float32](r, false, false, 1, n, k, 1.5, 0.5, extra, max(1, extra))
					tc.bias = randMatrix[float32](r, 1, n, n, 0)
					tc.act = ActReLU
					var first []float32
					for run := 0; run < 4; run++ {
						c := slices.Clone(tc.c0)
						SgemmEpilogue(false, false, 1, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc, Epilogue{Bias: tc.bias, Act: ActReLU})
						if run == 0 {
							tc.check(t, level+" columns "+tc.String(), c)
							first = c
						} else if !slices.Equal(c, first) {
							t.Errorf("%s columns %s: run %d differs from the first", level, tc.String(), run)
						}
					}
				}
			}
		}
	})
}

// TestGemvColsKernels checks each column-block kernel on its own against a
// float64 loop: every width of the last vector's mask, rows in sets and
// the tail, y accumulated into, B's lanes past the mask never read (they
// hold NaN).
func TestGemvColsKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 43))
	for _, set := range runnable {
		g := set.sgemm
		if g.gemvCols == nil {
			continue
		}
		lanes := g.dotLanes
		for nv := 1; nv < len(g.gemvCols); nv++ {
			for _, last := range []int{1, lanes / 2, lanes - 1, lanes} {
				w := (nv-1)*lanes + last
				for _, k := range []int{0, 1, 2, 7, 8, 9, 17, 64} {
					ldb := nv*lanes + 5
					b := make([]float32, k*ldb+nv*lanes)
					for i := range b {
						b[i] = float32(math.NaN())
					}
					x := make([]float32, k+1)
					for p := 0; p < k; p++ {
						x[p] = float32(r.Float64()*2 - 1)
						for j := 0; j < w; j++ {
							b[p*ldb+j] = float32(r.Float64()*2 - 1)
						}
					}
					y := make([]float32, nv*lanes)
					for j := range y {
						y[j] = float32(r.Float64())
					}
					y0 := slices.Clone(y)
					g.gemvCols[nv](k, &x[0], &b[0], ldb, &y[0], &edgeMasks[maxNR-last])
					for j := 0; j < w; j++ {
						want, abs := float64(y0[j]), math.Abs(float64(y0[j]))
						for p := 0; p < k; p++ {
							want += float64(x[p]) * float64(b[p*ldb+j])
							abs += math.Abs(float64(x[p]) * float64(b[p*ldb+j]))
						}
						if d := math.Abs(float64(y[j]) - want); !(d <= float64(k+2)*0x1p-24*abs) {
							t.Errorf("%s sgemvCols x%d (last %d) k=%d: y[%d] = %g, want %g", set.level, nv, last, k, j, y[j], want)
						}
					}
					for j := w; j < nv*lanes; j++ {
						if y[j] != y0[j] {
							t.Errorf("%s sgemvCols x%d (last %d) k=%d: masked lane %d changed from %g to %g", set.level, nv, last, k, j, y0[j], y[j])
						}
					}
				}
			}
		}
	}
}

// TestGemvColumnsNoAllocs checks that the column-block path, chunks and
// partial sums included, allocates nothing once its buffers have grown.
func TestGemvColumnsNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	r := rand.New(rand.NewPCG(47, 53))
	tc := newCase[float32](r, false, false, 1, 700, 1000, 1, 0, 0, 0)
	bias := make([]float32, tc.n)
	c := slices.Clone(tc.c0)
	if n := testing.AllocsPerRun(20, func() {
		SgemmEpilogue(false, false, 1, tc.n, tc.k, 1, tc.a, tc.lda, tc.b, tc.ldb, 0, c, tc.ldc, Epilogue{Bias: bias, Act: ActReLU})
	}); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}

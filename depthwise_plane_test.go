package kiln

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDepthwisePlane checks the plane stencil against a float64 reference
// over every column count around the vector tiles (full, partial, below
// one vector), row counts around the kernels' tile heights, kernels of
// 0, 1, 3, 9 and 25 taps at arbitrary offsets, and row strides wider than
// the rows: every output within the accumulation bound, and nothing
// written between the rows or past the last.
func TestDepthwisePlane(t *testing.T) {
	r := rand.New(rand.NewPCG(101, 102))
	for _, cols := range []int{1, 3, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 56, 63, 64, 65, 100} {
		for _, rows := range []int{1, 2, 5, 6, 7, 12, 13, 29} {
			for _, kw := range []int{0, 1, 3, 5} {
				ldx := cols + kw + r.IntN(3)
				ldy := cols + r.IntN(3)
				var taps []int
				for i := 0; i < kw; i++ {
					for j := 0; j < kw; j++ {
						taps = append(taps, i*ldx+j)
					}
				}
				if kw == 1 {
					taps = []int{ldx + 2} // one shifted tap
				}
				hi := 0
				for _, o := range taps {
					hi = max(hi, o)
				}
				x := make([]float32, (rows-1)*ldx+cols+hi)
				for i := range x {
					x[i] = float32(r.NormFloat64())
				}
				w := make([]float32, len(taps))
				for i := range w {
					w[i] = float32(r.NormFloat64())
				}
				const sentinel = 12345
				y := make([]float32, (rows-1)*ldy+cols+5)
				for i := range y {
					y[i] = sentinel
				}
				DepthwisePlane(y, ldy, x, ldx, rows, cols, taps, w, NewPlaneWork(len(taps)))
				for i := range y {
					row, col := i/ldy, i%ldy
					if row >= rows || col >= cols {
						if y[i] != sentinel {
							t.Fatalf("cols %d rows %d taps %d: y[%d] outside the outputs written: %v", cols, rows, len(taps), i, y[i])
						}
						continue
					}
					var want, mag float64
					for k, o := range taps {
						p := float64(x[row*ldx+col+o]) * float64(w[k])
						want += p
						mag += math.Abs(p)
					}
					if d := math.Abs(float64(y[i]) - want); d > 1e-6*float64(len(taps)+1)*(mag+1e-30) || (len(taps) == 0 && y[i] != 0) {
						t.Fatalf("cols %d rows %d taps %d: y[%d,%d] = %v, want %v", cols, rows, len(taps), row, col, y[i], want)
					}
				}
			}
		}
	}
}

// BenchmarkDepthwisePlane is one 56×56 plane of a 3×3 depthwise
// convolution with its zero border (the NCHW block of XLA's CPU
// benchmarks), against the same taps as one multiply-add pass each over the
// plane (MulScalarAdd), in the same run.
func BenchmarkDepthwisePlane(b *testing.B) {
	const rows, cols, ldx = 56, 56, 58
	x := make([]float32, 58*58+2)
	for i := range x {
		x[i] = float32(i%17) * 0.25
	}
	var taps []int
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			taps = append(taps, i*ldx+j)
		}
	}
	w := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
	y := make([]float32, rows*cols)
	work := NewPlaneWork(9)
	b.Run("stencil", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			DepthwisePlane(y, cols, x, ldx, rows, cols, taps, w, work)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows*cols), "ns/output")
	})
	acc := make([]float32, (rows-1)*ldx+cols)
	b.Run("tap-passes", func(b *testing.B) {
		for b.Loop() {
			clear(acc)
			for t, o := range taps {
				MulScalarAdd(acc, x[o:o+len(acc)], w[t], acc)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows*cols), "ns/output")
	})
}

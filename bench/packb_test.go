package bench

import (
	"fmt"
	"testing"

	"github.com/kilnml/kiln"
)

// packShapes are the weights the example models pack at compile time: the
// transformer layer's projections and feed-forward matrices (K×N), and the
// MLP's first layer.
var packShapes = []struct{ k, n int }{
	{768, 768}, {768, 3072}, {3072, 768}, {784, 512},
}

// BenchmarkPackB times PackB on fresh output each call, as a compile does
// (the first touch of the packed matrix's memory included), for B as given
// and transposed, at one and two threads, and reports the bytes of B packed
// per second.
func BenchmarkPackB(b *testing.B) {
	for _, s := range packShapes {
		src := newOperands(shape{1, s.n, s.k}).b
		for _, transB := range []bool{false, true} {
			ld := s.n
			if transB {
				ld = s.k
			}
			for _, t := range []int{1, 2} {
				withThreads(t, func() {
					b.Run(fmt.Sprintf("shape=%dx%d/transB=%v/threads=%d", s.k, s.n, transB, t), func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; i < b.N; i++ {
							kiln.PackB(transB, s.k, s.n, src, ld)
						}
						b.ReportMetric(float64(4*s.k*s.n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
					})
				})
			}
		}
	}
}

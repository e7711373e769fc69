package bench

import (
	"fmt"
	"testing"

	"github.com/kilnml/kiln"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// gemvShapes are the single-row products of batch-1 inference (K, N): the
// example MLP's first two layers, a BERT-base projection and feed-forward
// input, and a 4096² layer whose weights exceed the caches.
var gemvShapes = []struct{ k, n int }{{784, 512}, {512, 512}, {768, 768}, {4096, 4096}, {768, 3072}}

// BenchmarkSgemv times y = x·B (1×K times K×N) for every shape and thread
// count: Kiln with B packed once (SgemmPacked, the compiler's dense layers)
// and as given (Sgemm) at each level, gonum's Sgemv, and the peers' sgemv
// and sgemm. It reports GFLOP/s and GB/s of B (K·N·4 bytes per call).
// gemvreport gives the same cases interleaved, as medians.
func BenchmarkSgemv(b *testing.B) {
	for _, s := range gemvShapes {
		ops := newOperands(shape{1, s.n, s.k})
		x, w, y := ops.a, ops.b, ops.c
		report := func(b *testing.B) {
			sec := b.Elapsed().Seconds()
			b.ReportMetric(2*float64(s.k*s.n)*float64(b.N)/sec/1e9, "GFLOP/s")
			b.ReportMetric(4*float64(s.k*s.n)*float64(b.N)/sec/1e9, "GB/s")
		}
		for _, t := range []int{1, 2} {
			for _, level := range kiln.ISALevels() {
				if level == "generic" {
					continue
				}
				prev, err := kiln.SetISA(level)
				if err != nil {
					b.Fatal(err)
				}
				pb := kiln.PackB(false, s.k, s.n, w, s.n)
				withThreads(t, func() {
					b.Run(fmt.Sprintf("shape=1x%dx%d/threads=%d/impl=kiln-%s-packed", s.k, s.n, t, level), func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; i < b.N; i++ {
							kiln.SgemmPacked(false, 1, 1, x, s.k, pb, 0, y, s.n)
						}
						report(b)
					})
					b.Run(fmt.Sprintf("shape=1x%dx%d/threads=%d/impl=kiln-%s", s.k, s.n, t, level), func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; i < b.N; i++ {
							kiln.Sgemm(false, false, 1, s.n, s.k, 1, x, s.k, w, s.n, 0, y, s.n)
						}
						report(b)
					})
				})
				kiln.SetISA(prev)
			}
			withThreads(t, func() {
				b.Run(fmt.Sprintf("shape=1x%dx%d/threads=%d/impl=gonum-sgemv", s.k, s.n, t), func(b *testing.B) {
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						gonum.Implementation{}.Sgemv(blas.Trans, s.k, s.n, 1, w, s.n, x, 1, 0, y, 1)
					}
					report(b)
				})
				for _, p := range Peers {
					p.SetThreads(t)
					b.Run(fmt.Sprintf("shape=1x%dx%d/threads=%d/impl=%s-sgemv", s.k, s.n, t, p.Name), func(b *testing.B) {
						for i := 0; i < b.N; i++ {
							p.Sgemv(s.k, s.n, x, w, y)
						}
						report(b)
					})
					b.Run(fmt.Sprintf("shape=1x%dx%d/threads=%d/impl=%s-sgemm", s.k, s.n, t, p.Name), func(b *testing.B) {
						for i := 0; i < b.N; i++ {
							p.Sgemm(1, s.n, s.k, x, w, y)
						}
						report(b)
					})
				}
			})
		}
	}
}

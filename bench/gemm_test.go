package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/kilnml/kiln"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// shape is an M×N×K GEMM: C (M×N) = A (M×K) · B (K×N), row-major.
type shape struct{ m, n, k int }

func (s shape) String() string { return fmt.Sprintf("%dx%dx%d", s.m, s.n, s.k) }
func (s shape) flops() float64 { return 2 * float64(s.m) * float64(s.n) * float64(s.k) }

// gemmShapes: the squares and the inference shapes (a batch of 1, 8, 32 or
// 128 rows against BERT-base weights, a 4096² GEMV, a tall 512×512×2048).
var gemmShapes = []shape{
	{64, 64, 64}, {128, 128, 128}, {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048},
	{1, 768, 768}, {1, 4096, 4096}, {8, 768, 3072}, {32, 768, 3072}, {128, 768, 768}, {512, 512, 2048},
}

// slowLimit caps the FLOPs per call of the implementations that would make
// the suite take minutes per shape (the pure-Go level).
const slowLimit = 2 * 512 * 512 * 512

type operands struct {
	a, b, c []float32
}

func newOperands(s shape) operands {
	r := rand.New(rand.NewPCG(uint64(s.m), uint64(s.n*s.k)))
	fill := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.Float64()*2 - 1)
		}
		return x
	}
	return operands{fill(s.m * s.k), fill(s.k * s.n), make([]float32, s.m*s.n)}
}

// report sets the GFLOP/s metric of a finished benchmark.
func report(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// withThreads runs f with both Kiln's and the Go runtime's parallelism set to t
// (gonum splits its Sgemm over GOMAXPROCS goroutines).
func withThreads(t int, f func()) {
	oldProcs := runtime.GOMAXPROCS(t)
	oldThreads := kiln.SetThreads(t)
	defer func() {
		runtime.GOMAXPROCS(oldProcs)
		kiln.SetThreads(oldThreads)
	}()
	f()
}

// BenchmarkSgemm times C = A·B for every shape, thread count and
// implementation: Kiln at each ISA level (B as given, and B prepacked once
// with PackB), and gonum. Compare with benchstat -col /impl.
func BenchmarkSgemm(b *testing.B) {
	for _, s := range gemmShapes {
		ops := newOperands(s)
		for _, t := range []int{1, 2} {
			for _, level := range kiln.ISALevels() {
				if level == "generic" && s.flops() > slowLimit {
					continue
				}
				prev, err := kiln.SetISA(level)
				if err != nil {
					b.Fatal(err)
				}
				pb := kiln.PackB(false, s.k, s.n, ops.b, s.n)
				withThreads(t, func() {
					b.Run(fmt.Sprintf("shape=%s/threads=%d/impl=kiln-%s", s, t, level), func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; i < b.N; i++ {
							kiln.Sgemm(false, false, s.m, s.n, s.k, 1, ops.a, s.k, ops.b, s.n, 0, ops.c, s.n)
						}
						report(b, s.flops())
					})
					b.Run(fmt.Sprintf("shape=%s/threads=%d/impl=kiln-%s-packed", s, t, level), func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; i < b.N; i++ {
							kiln.SgemmPacked(false, s.m, 1, ops.a, s.k, pb, 0, ops.c, s.n)
						}
						report(b, s.flops())
					})
				})
				kiln.SetISA(prev)
			}
			withThreads(t, func() {
				b.Run(fmt.Sprintf("shape=%s/threads=%d/impl=gonum", s, t), func(b *testing.B) {
					b.ReportAllocs()
					impl := gonum.Implementation{}
					for i := 0; i < b.N; i++ {
						impl.Sgemm(blas.NoTrans, blas.NoTrans, s.m, s.n, s.k, 1, ops.a, s.k, ops.b, s.n, 0, ops.c, s.n)
					}
					report(b, s.flops())
				})
				for _, p := range Peers {
					p.SetThreads(t)
					b.Run(fmt.Sprintf("shape=%s/threads=%d/impl=%s", s, t, p.Name), func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; i < b.N; i++ {
							p.Sgemm(s.m, s.n, s.k, ops.a, ops.b, ops.c)
						}
						report(b, s.flops())
					})
				}
			})
		}
	}
}

// BenchmarkFMAPeak measures the floating-point peak of one core (threads=1)
// and of two at each ISA level with a loop of independent FMAs, in the same
// run as the GEMMs it rates.
func BenchmarkFMAPeak(b *testing.B) {
	for _, level := range kiln.ISALevels() {
		prev, err := kiln.SetISA(level)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range []int{1, 2} {
			b.Run(fmt.Sprintf("threads=%d/impl=kiln-%s", t, level), func(b *testing.B) {
				const iters = 1 << 16
				done := make(chan int, t)
				total := 0
				for i := 0; i < b.N; i++ {
					for w := 0; w < t; w++ {
						go func() { done <- kiln.FMAPeak(iters) }()
					}
					for w := 0; w < t; w++ {
						total += <-done
					}
				}
				b.ReportMetric(float64(total)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
		kiln.SetISA(prev)
	}
}

// TestKilnMatchesGonum checks, at every level, that Kiln and gonum agree on
// one shape of each path (small M, large), so the suite times correct code.
func TestKilnMatchesGonum(t *testing.T) {
	for _, level := range kiln.ISALevels() {
		prev, _ := kiln.SetISA(level)
		for _, s := range []shape{{8, 200, 300}, {130, 70, 90}} {
			ops := newOperands(s)
			want := make([]float32, s.m*s.n)
			gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, s.m, s.n, s.k, 1, ops.a, s.k, ops.b, s.n, 0, want, s.n)
			kiln.Sgemm(false, false, s.m, s.n, s.k, 1, ops.a, s.k, ops.b, s.n, 0, ops.c, s.n)
			for i := range want {
				// k·u·Σ|a||b| ≤ k·u·k for entries in [-1, 1).
				if d := math.Abs(float64(ops.c[i] - want[i])); d > 2*float64(s.k*s.k)*0x1p-24 {
					t.Fatalf("%s %v: C[%d] = %v, gonum %v", level, s, i, ops.c[i], want[i])
				}
			}
		}
		kiln.SetISA(prev)
	}
}

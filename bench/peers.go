package bench

// PeerImpl is a GEMM peer linked in by a build tag (openblas.go), timed
// beside Kiln by BenchmarkSgemm.
type PeerImpl struct {
	Name       string
	SetThreads func(int)
	// Sgemm computes C = A·B for row-major, untransposed m×k and k×n operands.
	Sgemm func(m, n, k int, a, b, c []float32)
	// Sgemv computes y = x·B for a row-major k×n B (BLAS sgemv with Bᵀ),
	// the peer's single-row product.
	Sgemv func(k, n int, x, b, y []float32)
}

// Peers are the optional peers of this build.
var Peers []PeerImpl

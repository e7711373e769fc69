package kiln

import "testing"

// TestVectorKernelsDoNotAllocate guards the compiler's promise of zero
// allocations per run: its loops call these kernels on every tile.
func TestVectorKernelsDoNotAllocate(t *testing.T) {
	x := make([]float32, 1024)
	y := make([]float32, 1024)
	m := make([]uint8, 1024)
	n := testing.AllocsPerRun(10, func() {
		Add(x, x, y)
		AddScalar(x, y, 2)
		RSubScalar(x, y, 1)
		Exp(x, y)
		Tanh(x, y)
		GeluTanh(x, y)
		Sinh(x, y)
		Cosh(x, y)
		Asinh(x, y)
		Acosh(x, y)
		Atanh(x, y)
		Less(m, x, y)
		Select(x, m, x, y)
		Softmax(x, y, 256)
		LayerNorm(x, y, 256, y[:256], y[:256], 1e-5)
		_ = Sum(y)
	})
	if n != 0 && !raceEnabled {
		t.Fatalf("the vector kernels allocate %v times per call batch, want 0", n)
	}
}

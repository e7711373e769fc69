package kiln

import (
	"math"
	"math/rand/v2"
	"testing"
)

// softmaxRef is the softmax of a row in float64.
func softmaxRef(x []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	out := make([]float64, len(x))
	s := 0.0
	for i, v := range x {
		out[i] = math.Exp(float64(v) - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

// TestSoftmax checks rows of many lengths at every level against float64,
// in place and not: every element within a relative error of 8·2^-24 (the
// documented 5·2^-24 plus the sum's error, in practice far below its worst
// case), or an absolute error of 2^-148 for subnormal results.
func TestSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	forEachLevel(t, func(level string) {
		for _, n := range append(testLengths()[1:], 3072) {
			rows := 3
			x := randSlice(r, rows*n, func(r *rand.Rand) float32 { return float32(r.NormFloat64() * 4) })
			if n > 3 {
				x[1] = float32(math.Inf(-1)) // masked out
				x[n+2] = 80                  // dominant
			}
			dst := make([]float32, len(x))
			Softmax(dst, x, n)
			inPlace := append([]float32(nil), x...)
			Softmax(inPlace, inPlace, n)
			for row := 0; row < rows; row++ {
				want := softmaxRef(x[row*n : row*n+n])
				for j, w := range want {
					got := dst[row*n+j]
					if e := math.Abs(float64(got) - w); e > 8*0x1p-24*w+0x1p-148 {
						t.Fatalf("%s Softmax n=%d row %d element %d: %v, want %v (error %.3g)", level, n, row, j, got, w, e)
					}
					if inPlace[row*n+j] != got {
						t.Fatalf("%s Softmax in place n=%d: element %d differs", level, n, row*n+j)
					}
				}
			}
		}
	})
	// A row of only -Inf is NaN, as in the reference formula.
	x := []float32{float32(math.Inf(-1)), float32(math.Inf(-1))}
	Softmax(x, x, 2)
	if x[0] == x[0] || x[1] == x[1] {
		t.Fatalf("softmax of a row of -Inf = %v, want NaN", x)
	}
}

// layerNormRef is layer norm of a row in float64.
func layerNormRef(x []float32, gamma, beta []float32, eps float32) []float64 {
	n := float64(len(x))
	mean := 0.0
	for _, v := range x {
		mean += float64(v)
	}
	mean /= n
	v := 0.0
	for _, e := range x {
		d := float64(e) - mean
		v += d * d
	}
	rstd := 1 / math.Sqrt(v/n+float64(eps))
	out := make([]float64, len(x))
	for i, e := range x {
		out[i] = (float64(e) - mean) * rstd
		if gamma != nil {
			out[i] *= float64(gamma[i])
		}
		if beta != nil {
			out[i] += float64(beta[i])
		}
	}
	return out
}

// TestLayerNorm checks rows at every level against float64, with and
// without gamma and beta, including rows with a mean far larger than their
// spread (where the one-pass variance formula fails): each element within
// 8·2^-24 of the reference in absolute terms (the outputs are O(1)).
func TestLayerNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	forEachLevel(t, func(level string) {
		for _, n := range append(testLengths()[2:], 768) {
			for _, offset := range []float64{0, 1e4} {
				rows := 2
				x := randSlice(r, rows*n, func(r *rand.Rand) float32 { return float32(offset + r.NormFloat64()) })
				gamma := randSlice(r, n, func(r *rand.Rand) float32 { return float32(1 + 0.1*r.NormFloat64()) })
				beta := randSlice(r, n, func(r *rand.Rand) float32 { return float32(0.1 * r.NormFloat64()) })
				for _, affine := range []int{0, 1, 2, 3} {
					g, b := gamma, beta
					if affine&1 == 0 {
						g = nil
					}
					if affine&2 == 0 {
						b = nil
					}
					dst := make([]float32, len(x))
					LayerNorm(dst, x, n, g, b, 1e-5)
					inPlace := append([]float32(nil), x...)
					LayerNorm(inPlace, inPlace, n, g, b, 1e-5)
					for i := range dst {
						if inPlace[i] != dst[i] {
							t.Fatalf("%s LayerNorm in place n=%d: element %d differs", level, n, i)
						}
					}
					for row := 0; row < rows; row++ {
						want := layerNormRef(x[row*n:row*n+n], g, b, 1e-5)
						for j, w := range want {
							if d := math.Abs(float64(dst[row*n+j]) - w); d > 8*0x1p-24*(1+math.Abs(w)) {
								t.Fatalf("%s LayerNorm n=%d offset=%v affine=%d row %d element %d: %v, want %v", level, n, offset, affine, row, j, dst[row*n+j], w)
							}
						}
					}
				}
			}
		}
	})
}

// TestSoftmaxPaddedTailsMatchTwins checks that rows ending in a partial
// vector, whose tail Softmax pads to one vector for the vector kernels,
// give bit for bit what the Go twins give that tail (rows of −∞
// included), at every level.
func TestSoftmaxPaddedTailsMatchTwins(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	forEachLevel(t, func(level string) {
		rk, ek := kernels().reduce, kernels().eltwise
		for n := 1; n < 100; n++ {
			for trial := 0; trial < 40; trial++ {
				x := make([]float32, n*3)
				for i := range x {
					x[i] = float32(r.NormFloat64() * 10)
					if r.IntN(30) == 0 {
						x[i] = float32(math.Inf(-1))
					}
				}
				got := make([]float32, len(x))
				Softmax(got, x, n)
				want := make([]float32, len(x))
				for row := 0; row < len(x); row += n {
					xr, dr := x[row:row+n], want[row:row+n]
					m := lanewiseReduce(rk.reduceMaxF32, reduceMaxF32Go, maxXLA32, rk.lanes, xr)
					s := expSubSum(rk, dr, xr, m)
					withScalar(ek.mulScalarF32, mulScalarF32Go, ek.lanes, dr, dr, float32(1/s))
				}
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("%s n=%d: element %d = %v, the twins give %v", level, n, i, got[i], want[i])
					}
				}
			}
		}
	})
}

// TestSoftmaxAllocatesNothing checks rows with and without a padded tail.
func TestSoftmaxAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	for _, n := range []int{5, 37, 64} {
		x := make([]float32, 4*n)
		dst := make([]float32, len(x))
		if a := testing.AllocsPerRun(20, func() { Softmax(dst, x, n) }); a != 0 {
			t.Errorf("n=%d: %v allocations per call, want 0", n, a)
		}
	}
}

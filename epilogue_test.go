package kiln

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGemmGeluEpilogue checks the GELU epilogues (the vector kernels) on the
// packed-rows, small-M and blocked paths against GELU of the float64
// reference: the GEMM's bound grown by GELU's largest slope (1.13) plus the
// kernels' bound (6 ULP, the epilogue's erf form's; GeluTanh's is 4); and
// the HLO form's values at the infinities (bias ±Inf):
// GELU(+Inf) = +Inf, GELU(-Inf) = NaN (-Inf·0), NaN stays NaN.
func TestGemmGeluEpilogue(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 39))
	gelus := map[Activation]func(float64) float64{
		ActGeluErf:  func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) },
		ActGeluTanh: func(x float64) float64 { return 0.5 * x * (1 + math.Tanh(0.7978845608028654*(x+0.044715*x*x*x))) },
	}
	for _, s := range [][3]int{{1, 150, 70}, {3, 67, 40}, {20, 90, 33}, {70, 129, 50}} {
		for act, gelu := range gelus {
			m, n, k := s[0], s[1], s[2]
			tc := newCase[float32](r, false, false, m, n, k, 2, 0.5, 1, 1)
			tc.bias = randMatrix[float32](r, 1, n, n, 0)
			tc.bias[0], tc.bias[1], tc.bias[2] = float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())
			ref, bound := tc.reference()
			pb := PackB(false, k, n, tc.b, tc.ldb)
			for _, packed := range []bool{false, true} {
				c := slices.Clone(tc.c0)
				ep := Epilogue{Bias: tc.bias, Act: act}
				if packed {
					SgemmPackedEpilogue(false, m, tc.alpha, tc.a, tc.lda, pb, tc.beta, c, tc.ldc, ep)
				} else {
					SgemmEpilogue(false, false, m, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc, ep)
				}
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						got := float64(c[i*tc.ldc+j])
						if j < 3 {
							want := []float64{math.Inf(1), math.NaN(), math.NaN()}[j]
							if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
								t.Errorf("%v %s packed=%v: C(%d,%d) = %g, want %g", tc, act, packed, i, j, got, want)
							}
							continue
						}
						want := gelu(ref[i*n+j])
						tol := 1.13*bound[i*n+j] + 6*0x1p-23*math.Abs(want) + 0x1p-126
						if d := math.Abs(got - want); !(d <= tol) {
							t.Errorf("%v %s packed=%v: C(%d,%d) = %g, want %g within %.3g", tc, act, packed, i, j, got, want, tol)
						}
					}
				}
			}
		}
	}
}

// TestGemmSiLUEpilogue checks the SiLU epilogue (x·logistic(x), the vector
// kernels) on the packed-rows, small-M and blocked paths against SiLU of
// the float64 reference: the GEMM's bound grown by SiLU's largest slope
// (1.1) plus the kernels' 3 ULP; SiLU(+Inf) = +Inf, SiLU(-Inf) = NaN
// (-Inf·0), NaN stays NaN.
func TestGemmSiLUEpilogue(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 41))
	for _, s := range [][3]int{{1, 150, 70}, {3, 67, 40}, {20, 90, 33}, {70, 129, 50}, {130, 600, 20}} {
		m, n, k := s[0], s[1], s[2]
		tc := newCase[float32](r, false, false, m, n, k, 2, 0.5, 1, 1)
		tc.bias = randMatrix[float32](r, 1, n, n, 0)
		tc.bias[0], tc.bias[1], tc.bias[2] = float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())
		ref, bound := tc.reference()
		pb := PackB(false, k, n, tc.b, tc.ldb)
		for _, packed := range []bool{false, true} {
			c := slices.Clone(tc.c0)
			ep := Epilogue{Bias: tc.bias, Act: ActSiLU}
			if packed {
				SgemmPackedEpilogue(false, m, tc.alpha, tc.a, tc.lda, pb, tc.beta, c, tc.ldc, ep)
			} else {
				SgemmEpilogue(false, false, m, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc, ep)
			}
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					got := float64(c[i*tc.ldc+j])
					if j < 3 {
						want := []float64{math.Inf(1), math.NaN(), math.NaN()}[j]
						if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
							t.Errorf("%v packed=%v: C(%d,%d) = %g, want %g", tc, packed, i, j, got, want)
						}
						continue
					}
					x := ref[i*n+j]
					want := x / (1 + math.Exp(-x))
					tol := 1.1*bound[i*n+j] + 3*0x1p-23*math.Abs(want) + 0x1p-126
					if d := math.Abs(got - want); !(d <= tol) {
						t.Errorf("%v packed=%v: C(%d,%d) = %g, want %g within %.3g", tc, packed, i, j, got, want, tol)
					}
				}
			}
		}
	}
}

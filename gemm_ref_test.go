package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The oracle of the GEMM tests: a naive triple loop in float64 with a
// compensated dot product (Ogita–Rump–Oishi Dot2, exact to about u² for the
// products of float64), and the error bound every result must meet:
//
//	|Ĉ(i,j) − C(i,j)| ≤ (k+3)·u·(|α|·Σp |A(i,p)|·|B(p,j)| + |β|·|C₀(i,j)| + |bias(j)|)
//
// with u the unit roundoff of the element type (2⁻²⁴ for float32, 2⁻⁵³ for
// float64). It is the classical bound γₖ of a k-term dot product in any
// summation order, with or without fused multiply-adds, widened by three
// roundings for the alpha scaling, the beta term and the bias; ReLU cannot
// increase an error. It holds for every input, so a failure is a real defect.

func unitRoundoff[T float]() float64 {
	var z T
	if any(z) == any(float32(0)) {
		return 0x1p-24
	}
	return 0x1p-53
}

// twoSum and twoProd are the error-free transformations behind Dot2.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	z := s - a
	e = (a - (s - z)) + (b - z)
	return
}

func twoProd(a, b float64) (p, e float64) {
	p = a * b
	e = math.FMA(a, b, -p)
	return
}

type gemmCase[T float] struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    T
	a, b, c0       []T
	lda, ldb, ldc  int
	bias           []T
	act            Activation
}

// reference returns the exact-ish result and the error bound of every
// element of the m×n result, row-major with stride n.
func (tc *gemmCase[T]) reference() (ref, bound []float64) {
	u := unitRoundoff[T]()
	ref = make([]float64, tc.m*tc.n)
	bound = make([]float64, tc.m*tc.n)
	at := func(i, p int) float64 {
		if tc.transA {
			return float64(tc.a[p*tc.lda+i])
		}
		return float64(tc.a[i*tc.lda+p])
	}
	bt := func(p, j int) float64 {
		if tc.transB {
			return float64(tc.b[j*tc.ldb+p])
		}
		return float64(tc.b[p*tc.ldb+j])
	}
	for i := 0; i < tc.m; i++ {
		for j := 0; j < tc.n; j++ {
			var s, comp, abs float64
			if tc.alpha != 0 {
				for p := 0; p < tc.k; p++ {
					x, y := at(i, p), bt(p, j)
					pr, pe := twoProd(x, y)
					var se float64
					s, se = twoSum(s, pr)
					comp += pe + se
					abs += math.Abs(x * y)
				}
			}
			v := float64(tc.alpha) * (s + comp)
			e := math.Abs(float64(tc.alpha)) * abs
			if tc.beta != 0 {
				c := float64(tc.c0[i*tc.ldc+j])
				v += float64(tc.beta) * c
				e += math.Abs(float64(tc.beta) * c)
			}
			if tc.bias != nil {
				v += float64(tc.bias[j])
				e += math.Abs(float64(tc.bias[j]))
			}
			if tc.act == ActReLU && v < 0 {
				v = 0
			}
			ref[i*tc.n+j] = v
			// The smallest normal float32 covers underflow in the products.
			bound[i*tc.n+j] = float64(tc.k+3)*u*e + 0x1p-126
		}
	}
	return ref, bound
}

// check compares got (the C buffer after the call, stride ldc) with the
// reference, and that nothing outside the m×n window changed.
func (tc *gemmCase[T]) check(t *testing.T, name string, got []T) {
	t.Helper()
	ref, bound := tc.reference()
	bad := 0
	for idx := range got {
		i, j := idx/tc.ldc, idx%tc.ldc
		if i < tc.m && j < tc.n {
			g := float64(got[idx])
			if d := math.Abs(g - ref[i*tc.n+j]); !(d <= bound[i*tc.n+j]) {
				if bad < 5 {
					t.Errorf("%s: C(%d,%d) = %g, want %g within %.3g (error %.3g)", name, i, j, g, ref[i*tc.n+j], bound[i*tc.n+j], d)
				}
				bad++
			}
			continue
		}
		if g, w := got[idx], tc.c0[idx]; g != w && !(g != g && w != w) {
			if bad < 5 {
				t.Errorf("%s: element %d outside the %d×%d result (row %d, column %d of ldc=%d) changed from %g to %g", name, idx, tc.m, tc.n, i, j, tc.ldc, w, g)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d elements wrong in all", name, bad)
	}
}

func (tc *gemmCase[T]) String() string {
	return fmt.Sprintf("tA=%v tB=%v m=%d n=%d k=%d α=%g β=%g lda=%d ldb=%d ldc=%d bias=%v act=%v",
		tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, tc.beta, tc.lda, tc.ldb, tc.ldc, tc.bias != nil, tc.act)
}

// randMatrix returns a rows×cols matrix with leading dimension ld, stored at
// an offset inside a larger slice (so the kernels see a sub-slice that does
// not start on an aligned boundary), with values in [-1, 1).
func randMatrix[T float](r *rand.Rand, rows, cols, ld, offset int) []T {
	n := offset
	if rows > 0 {
		n += (rows-1)*ld + cols
	}
	buf := make([]T, n+3)
	for i := range buf {
		buf[i] = T(r.Float64()*2 - 1)
	}
	return buf[offset : offset+n]
}

// newCase builds a random case. extra widens the leading dimensions and
// offset shifts every operand inside its allocation.
func newCase[T float](r *rand.Rand, transA, transB bool, m, n, k int, alpha, beta T, extra, offset int) *gemmCase[T] {
	tc := &gemmCase[T]{transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, beta: beta}
	ra, ca := m, k
	if transA {
		ra, ca = k, m
	}
	rb, cb := k, n
	if transB {
		rb, cb = n, k
	}
	tc.lda, tc.ldb, tc.ldc = max(1, ca)+extra, max(1, cb)+extra, max(1, n)+extra
	tc.a = randMatrix[T](r, ra, ca, tc.lda, offset)
	tc.b = randMatrix[T](r, rb, cb, tc.ldb, offset)
	tc.c0 = randMatrix[T](r, m, n, tc.ldc, offset)
	if beta == 0 {
		// beta = 0 must ignore C entirely, NaN included.
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				tc.c0[i*tc.ldc+j] = T(math.NaN())
			}
		}
	}
	return tc
}

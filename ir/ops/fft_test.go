package ops

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// naiveDFT is the O(n²) definition.
func naiveDFT(x []complex128, inverse bool) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	sign := -1.0
	if inverse {
		sign = 1
	}
	for k := range out {
		var s complex128
		for j, v := range x {
			s += v * cmplx.Exp(complex(0, sign*2*math.Pi*float64(j*k%n)/float64(n)))
		}
		if inverse {
			s /= complex(float64(n), 0)
		}
		out[k] = s
	}
	return out
}

// TestFFTPlansMatchDFT covers powers of two, mixed radices, small primes
// and primes large enough for Bluestein's algorithm.
func TestFFTPlansMatchDFT(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{1, 2, 3, 4, 5, 6, 8, 12, 16, 30, 31, 37, 60, 64, 97, 100, 127, 210, 257, 1000, 1031} {
		x := make([]complex128, n)
		for i := range x {
			x[i] = complex(r.Float64()-0.5, r.Float64()-0.5)
		}
		for _, inv := range []bool{false, true} {
			got := append([]complex128{}, x...)
			var next int
			p := newFFTPlan(n, &next)
			p.transform(got, inv, make([]complex128, next))
			want := naiveDFT(x, inv)
			for i := range got {
				if cmplx.Abs(got[i]-want[i]) > 1e-9*math.Max(1, cmplx.Abs(want[i])) {
					t.Fatalf("n=%d inverse=%v: element %d = %v, want %v", n, inv, i, got[i], want[i])
				}
			}
		}
	}
}

package eval

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
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
			newFFTPlan(n).transform(got, inv)
			want := naiveDFT(x, inv)
			for i := range got {
				if cmplx.Abs(got[i]-want[i]) > 1e-9*math.Max(1, cmplx.Abs(want[i])) {
					t.Fatalf("n=%d inverse=%v: element %d = %v, want %v", n, inv, i, got[i], want[i])
				}
			}
		}
	}
}

// TestFFTRoundTrips checks fft∘ifft ≈ id over 1, 2 and 3 dimensions and
// irfft∘rfft ≈ id for even and odd lengths.
func TestFFTRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, dims := range [][]int{{2, 10}, {3, 7, 6}, {2, 5, 4, 11}, {1, 2, 3, 4}} {
		ty := ir.C128
		lens := dims[1:]
		if len(lens) > 3 {
			lens = lens[len(lens)-3:]
		}
		x := randLiteral(r, ty, dims...)
		s := shapeText(ty, dims...)
		out := runHLO(t, fmt.Sprintf(`HloModule m
ENTRY e {
  x = %[1]s parameter(0)
  f = %[1]s fft(x), fft_type=FFT, fft_length={%[2]s}
  ROOT i = %[1]s fft(f), fft_type=IFFT, fft_length={%[2]s}
}
`, s, dimList(lens)), x)
		expectClose(t, out[0], s, wideOf(x), 1e-12)
	}
	for _, n := range []int{8, 9} {
		x := randLiteral(r, ir.F32, 3, 4, n)
		half := n/2 + 1
		out := runHLO(t, fmt.Sprintf(`HloModule m
ENTRY e {
  x = f32[3,4,%[1]d] parameter(0)
  f = c64[3,4,%[2]d] fft(x), fft_type=RFFT, fft_length={4,%[1]d}
  ROOT i = f32[3,4,%[1]d] fft(f), fft_type=IRFFT, fft_length={4,%[1]d}
}
`, n, half), x)
		expectClose(t, out[0], shapeText(ir.F32, 3, 4, n), wideOf(x), 1e-5)
	}
}

func TestFFTKnownValues(t *testing.T) {
	// The DFT of an impulse is all ones; of all ones, n at frequency 0.
	out := runHLO(t, `HloModule m
ENTRY e {
  x = c64[2,4] parameter(0)
  ROOT f = c64[2,4] fft(x), fft_type=FFT, fft_length={4}
}
`, lit([]int{2, 4}, complex64(1), 0, 0, 0, 1, 1, 1, 1))
	expectClose(t, out[0], "c64[2,4]", reals(1, 1, 1, 1, 4, 0, 0, 0), 1e-6)
	// RFFT of [1, 2, 3, 4]: [10, -2+2i, -2].
	out = runHLO(t, `HloModule m
ENTRY e {
  x = f64[4] parameter(0)
  ROOT f = c128[3] fft(x), fft_type=RFFT, fft_length={4}
}
`, vec(1.0, 2, 3, 4))
	expectClose(t, out[0], "c128[3]", []complex128{10, complex(-2, 2), -2}, 1e-12)
	// IRFFT ignores the imaginary parts of the DC and Nyquist entries.
	out = runHLO(t, `HloModule m
ENTRY e {
  x = c128[3] parameter(0)
  ROOT f = f64[4] fft(x), fft_type=IRFFT, fft_length={4}
}
`, vec(complex(10, 5), complex(-2, 2), complex(-2, -7)))
	expectClose(t, out[0], "f64[4]", reals(1, 2, 3, 4), 1e-12)
}

func TestFFTErrors(t *testing.T) {
	err := runErr(t, `HloModule m
ENTRY e {
  x = c64[8] parameter(0)
  ROOT f = c64[8] fft(x), fft_type=FFT, fft_length={6}
}
`, ir.MustNewLiteral(ir.MakeShape(ir.C64, 8)))
	wantErr(t, err, "[8]", "[6]")
	err = runErr(t, `HloModule m
ENTRY e {
  x = f32[8] parameter(0)
  ROOT f = c64[4] fft(x), fft_type=RFFT, fft_length={8}
}
`, ir.MustNewLiteral(ir.MakeShape(ir.F32, 8)))
	wantErr(t, err, "c64[4]", "c64[5]")
}

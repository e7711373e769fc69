package eval

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

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
  x = f32[8] parameter(0)
  ROOT f = f32[8] fft(x), fft_type=FFT, fft_length={8}
}
`, ir.MustNewLiteral(ir.MakeShape(ir.F32, 8)))
	wantErr(t, err, "FFT", "complex operand")
	err = runErr(t, `HloModule m
ENTRY e {
  x = c64[8] parameter(0)
  ROOT f = c64[4] fft(x), fft_type=RFFT, fft_length={8}
}
`, ir.MustNewLiteral(ir.MakeShape(ir.C64, 8)))
	wantErr(t, err, "RFFT", "f32 or f64")
}

// TestFFTTruncatesAndPads checks XLA's evaluator rule for an operand whose
// transformed dimension differs from fft_length: the transform reads the
// first fft_length elements (zeros past the operand's end) and the result
// is zero-padded to the declared dimensions.
func TestFFTTruncatesAndPads(t *testing.T) {
	x := []complex128{1, 2, 3, 4, 5, 6, 7, 8}
	out := runHLO(t, `HloModule m
ENTRY e {
  x = c128[8] parameter(0)
  ROOT f = c128[8] fft(x), fft_type=FFT, fft_length={6}
}
`, vec(x...))
	want := append(naiveDFT6(x[:6]), 0, 0)
	expectClose(t, out[0], "c128[8]", want, 1e-12)
	out = runHLO(t, `HloModule m
ENTRY e {
  x = c128[2] parameter(0)
  ROOT f = c128[2] fft(x), fft_type=FFT, fft_length={4}
}
`, vec[complex128](1, 1))
	// The DFT of [1, 1, 0, 0] is [2, 1-i, 0, 1+i]; the result keeps two.
	expectClose(t, out[0], "c128[2]", []complex128{2, complex(1, -1)}, 1e-12)
}

// naiveDFT6 is the O(n²) DFT.
func naiveDFT6(x []complex128) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	for k := range out {
		for j, v := range x {
			out[k] += v * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k%n)/float64(n)))
		}
	}
	return out
}

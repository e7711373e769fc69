package eval

// fft: FFT, IFFT, RFFT and IRFFT over the last 1–3 dimensions, of any
// lengths, computed in complex128 and rounded once to the result type.
//
// Lengths whose prime factors are all small run a mixed-radix Cooley-Tukey
// transform; any other length runs Bluestein's algorithm on a power-of-two
// FFT. IFFT and IRFFT divide by the product of fft_length, as XLA (and
// numpy) do. A multi-dimensional RFFT transforms the innermost axis real to
// complex first and then the outer axes complex to complex; IRFFT does the
// outer axes first and the innermost complex to real last, reading only its
// first fft_length[-1]/2+1 entries and ignoring the imaginary parts of the
// zero-frequency and (even lengths) Nyquist entries, as real inverse FFTs do.

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/kilnml/kiln/ir"
)

func init() { register(evalFft, ir.OpFft) }

func evalFft(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(ops))
	}
	x := ops[0]
	s := x.Shape()
	lens := in.FFTLength
	r := len(lens)
	if r < 1 || r > 3 || s.Rank() < r {
		return nil, fmt.Errorf("fft_length %v: expected 1 to 3 lengths for an operand of rank %d", lens, s.Rank())
	}
	lead := s.Rank() - r
	inner := s.Dims[lead:]
	outDims := append([]int{}, s.Dims...)
	var outType ir.ElementType
	typ := in.FFTType
	switch typ {
	case ir.FFT, ir.IFFT:
		if !s.Elem.IsComplex() {
			return nil, fmt.Errorf("%v needs a complex operand, found %v", typ, s.Elem)
		}
		if !sameInts(inner, lens) {
			return nil, fmt.Errorf("%v: the operand's last dimensions %v differ from fft_length %v", typ, inner, lens)
		}
		outType = s.Elem
	case ir.RFFT:
		if s.Elem != ir.F32 && s.Elem != ir.F64 {
			return nil, fmt.Errorf("RFFT needs an f32 or f64 operand, found %v", s.Elem)
		}
		if !sameInts(inner, lens) {
			return nil, fmt.Errorf("RFFT: the operand's last dimensions %v differ from fft_length %v", inner, lens)
		}
		outType = ir.ComplexOf(s.Elem)
		if n := lens[r-1]; n != 0 {
			outDims[s.Rank()-1] = n/2 + 1
		}
	case ir.IRFFT:
		if !s.Elem.IsComplex() {
			return nil, fmt.Errorf("IRFFT needs a complex operand, found %v", s.Elem)
		}
		want := append([]int{}, lens...)
		if n := lens[r-1]; n != 0 {
			want[r-1] = n/2 + 1
		}
		if !sameInts(inner, want) {
			return nil, fmt.Errorf("IRFFT: the operand's last dimensions %v, fft_length %v needs %v", inner, lens, want)
		}
		outType = s.Elem.ComplexComponent()
		copy(outDims[lead:], lens)
	default:
		return nil, fmt.Errorf("unknown fft_type %d", typ)
	}
	if in.Shape.Elem != outType || !fitsDims(in.Shape, outDims) {
		return nil, fmt.Errorf("result shape %v, expected %v%v", in.Shape, outType, outDims)
	}
	for _, n := range lens {
		if n == 0 {
			return newArray(outType, outDims)
		}
	}
	v := wideComplex(x)
	switch typ {
	case ir.FFT, ir.IFFT:
		for a := lead; a < s.Rank(); a++ {
			transformAxis(v, s.Dims, a, typ == ir.IFFT)
		}
		return storeComplex(outType, outDims, v)
	case ir.RFFT:
		n := lens[r-1]
		half := n/2 + 1
		out := make([]complex128, numElements(outDims))
		rows := len(v) / n
		buf := make([]complex128, n)
		p := newFFTPlan(n)
		for i := 0; i < rows; i++ {
			copy(buf, v[i*n:(i+1)*n])
			p.transform(buf, false)
			copy(out[i*half:(i+1)*half], buf[:half])
		}
		for a := lead; a < s.Rank()-1; a++ {
			transformAxis(out, outDims, a, false)
		}
		return storeComplex(outType, outDims, out)
	default: // IRFFT
		for a := lead; a < s.Rank()-1; a++ {
			transformAxis(v, s.Dims, a, true)
		}
		n := lens[r-1]
		half := n/2 + 1
		rows := len(v) / half
		out := make([]float64, rows*n)
		buf := make([]complex128, n)
		p := newFFTPlan(n)
		for i := 0; i < rows; i++ {
			row := v[i*half : (i+1)*half]
			for k := 0; k < n; k++ {
				if k < half {
					buf[k] = row[k]
				} else {
					z := row[n-k]
					buf[k] = complex(real(z), -imag(z))
				}
			}
			p.transform(buf, true)
			for k := 0; k < n; k++ {
				out[i*n+k] = real(buf[k])
			}
		}
		return storeFloat64s(outType, outDims, out)
	}
}

// transformAxis runs a 1-D transform (inverse: normalised) along axis a of
// the row-major array v with dimensions dims, in place.
func transformAxis(v []complex128, dims []int, a int, inverse bool) {
	n := dims[a]
	if n <= 1 && !inverse {
		return
	}
	inner := numElements(dims[a+1:])
	outer := numElements(dims[:a])
	buf := make([]complex128, n)
	p := newFFTPlan(n)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			base := o*n*inner + i
			for k := 0; k < n; k++ {
				buf[k] = v[base+k*inner]
			}
			p.transform(buf, inverse)
			for k := 0; k < n; k++ {
				v[base+k*inner] = buf[k]
			}
		}
	}
}

// fftPlan transforms sequences of one length.
type fftPlan struct {
	n       int
	factors []int        // mixed radix: prime factors, all small
	twiddle []complex128 // exp(-2πi k/n), k < n
	// Bluestein: chirp w[k] = exp(-πi k²/n), the padded length m and the
	// transform of the conjugate chirp, for lengths with a large prime factor.
	chirp  []complex128
	m      int
	chirpF []complex128
	sub    *fftPlan
}

const maxDirectRadix = 31

func newFFTPlan(n int) *fftPlan {
	p := &fftPlan{n: n}
	f := primeFactors(n)
	if len(f) > 0 && f[len(f)-1] > maxDirectRadix {
		p.m = 1 << bits.Len(uint(2*n-2))
		p.chirp = make([]complex128, n)
		for k := 0; k < n; k++ {
			// k² mod 2n keeps the angle small and exact.
			q := (uint64(k) * uint64(k)) % uint64(2*n)
			p.chirp[k] = expI(-math.Pi * float64(q) / float64(n))
		}
		p.sub = newFFTPlan(p.m)
		b := make([]complex128, p.m)
		b[0] = conj(p.chirp[0])
		for k := 1; k < n; k++ {
			b[k] = conj(p.chirp[k])
			b[p.m-k] = conj(p.chirp[k])
		}
		p.sub.transform(b, false)
		p.chirpF = b
		return p
	}
	p.factors = f
	p.twiddle = make([]complex128, n)
	for k := range p.twiddle {
		p.twiddle[k] = expI(-2 * math.Pi * float64(k) / float64(n))
	}
	return p
}

func expI(theta float64) complex128 {
	s, c := math.Sincos(theta)
	return complex(c, s)
}

func conj(z complex128) complex128 { return complex(real(z), -imag(z)) }

func primeFactors(n int) []int {
	var f []int
	for p := 2; p*p <= n; p++ {
		for n%p == 0 {
			f = append(f, p)
			n /= p
		}
	}
	if n > 1 {
		f = append(f, n)
	}
	return f
}

// transform replaces x (length n) by its DFT, or by the normalised inverse
// DFT (1/n · Σ x_k e^{+2πi jk/n}).
func (p *fftPlan) transform(x []complex128, inverse bool) {
	if inverse {
		for i := range x {
			x[i] = conj(x[i])
		}
	}
	if p.chirp != nil {
		p.bluestein(x)
	} else if p.n > 1 {
		out := make([]complex128, p.n)
		p.mixedRadix(out, x, 1, p.n, 0)
		copy(x, out)
	}
	if inverse {
		s := 1 / float64(p.n)
		for i := range x {
			x[i] = complex(real(x[i])*s, -imag(x[i])*s)
		}
	}
}

// mixedRadix writes into out the DFT of the n elements in[0], in[stride], …
// (decimation in time, one prime factor per level).
func (p *fftPlan) mixedRadix(out, in []complex128, stride, n, level int) {
	if n == 1 {
		out[0] = in[0]
		return
	}
	r := p.factors[level]
	m := n / r
	// Sub-transforms of the r interleaved sequences.
	for j := 0; j < r; j++ {
		p.mixedRadix(out[j*m:(j+1)*m], in[j*stride:], stride*r, m, level+1)
	}
	// Combine: X[k + q·m] = Σ_j W_n^{j(k+q·m)} · Y_j[k].
	tmp := make([]complex128, r)
	tw := p.n / n // twiddle step for length n
	for k := 0; k < m; k++ {
		for j := 0; j < r; j++ {
			tmp[j] = out[j*m+k]
		}
		for q := 0; q < r; q++ {
			var s complex128
			kk := k + q*m
			for j := 0; j < r; j++ {
				s += tmp[j] * p.twiddle[(j*kk*tw)%p.n]
			}
			out[kk] = s
		}
	}
}

// bluestein computes the DFT as a convolution with a chirp:
// X_k = w_k Σ_j (x_j w_j) conj(w_{k-j}).
func (p *fftPlan) bluestein(x []complex128) {
	a := make([]complex128, p.m)
	for k := 0; k < p.n; k++ {
		a[k] = x[k] * p.chirp[k]
	}
	p.sub.transform(a, false)
	for i := range a {
		a[i] *= p.chirpF[i]
	}
	p.sub.transform(a, true)
	for k := 0; k < p.n; k++ {
		x[k] = a[k] * p.chirp[k]
	}
}

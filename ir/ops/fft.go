package ops

// fft: FFT, IFFT, RFFT and IRFFT over the last one to three dimensions, of
// any lengths, computed in complex128 and rounded once to the result type.
//
// Lengths whose prime factors are all small run a mixed-radix Cooley-Tukey
// transform; any other length runs Bluestein's algorithm on a power-of-two
// FFT. IFFT and IRFFT divide by the product of fft_length, as XLA (and
// numpy) do. A multi-dimensional RFFT transforms the innermost axis real to
// complex first and then the outer axes complex to complex; IRFFT does the
// outer axes first and the innermost complex to real last, reading only its
// first fft_length[-1]/2+1 entries and ignoring the imaginary parts of the
// zero-frequency and (even lengths) Nyquist entries, as real inverse FFTs do.
//
// As in XLA's HloEvaluator, the operand's transformed dimensions need not
// equal fft_length: the operand is truncated or zero-padded to the lengths
// the transform reads, and its result truncated or zero-padded to the
// result's dimensions; a zero length, or an operand without elements, gives
// zeros.

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/kilnml/kiln/ir"
)

const maxDirectRadix = 31

// fftPlan transforms sequences of one length; work is the index of its
// working array in the transform's work memory (complex128s).
type fftPlan struct {
	n       int
	factors []int
	twiddle []complex128
	chirp   []complex128 // Bluestein
	m       int
	chirpF  []complex128
	sub     *fftPlan
	work    int
}

// newFFTPlan plans length n, taking working space from *next (complex128s).
func newFFTPlan(n int, next *int) *fftPlan {
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
		p.work = *next
		*next += p.m
		p.sub = newFFTPlan(p.m, next)
		b := make([]complex128, p.m)
		b[0] = conj(p.chirp[0])
		for k := 1; k < n; k++ {
			b[k] = conj(p.chirp[k])
			b[p.m-k] = conj(p.chirp[k])
		}
		// The chirp's transform, computed once with a throwaway working array.
		tmp := make([]complex128, *next)
		p.sub.transform(b, false, tmp)
		p.chirpF = b
		return p
	}
	p.factors = f
	p.twiddle = make([]complex128, n)
	for k := range p.twiddle {
		p.twiddle[k] = expI(-2 * math.Pi * float64(k) / float64(n))
	}
	p.work = *next
	*next += n
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
func (p *fftPlan) transform(x []complex128, inverse bool, work []complex128) {
	if inverse {
		for i := range x {
			x[i] = conj(x[i])
		}
	}
	if p.chirp != nil {
		p.bluestein(x, work)
	} else if p.n > 1 {
		out := work[p.work : p.work+p.n]
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
	for j := 0; j < r; j++ {
		p.mixedRadix(out[j*m:(j+1)*m], in[j*stride:], stride*r, m, level+1)
	}
	// Combine: X[k + q·m] = Σ_j W_n^{j(k+q·m)} · Y_j[k].
	var tmp [maxDirectRadix]complex128
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
func (p *fftPlan) bluestein(x, work []complex128) {
	a := work[p.work : p.work+p.m]
	clear(a)
	for k := 0; k < p.n; k++ {
		a[k] = x[k] * p.chirp[k]
	}
	p.sub.transform(a, false, work)
	for i := range a {
		a[i] *= p.chirpF[i]
	}
	p.sub.transform(a, true, work)
	for k := 0; k < p.n; k++ {
		x[k] = a[k] * p.chirp[k]
	}
}

// FFTPlan is one fft op.
type FFTPlan struct {
	Type          ir.FFTType
	InT, OutT     ir.ElementType
	InDims        []int
	OutDims       []int
	lead          int
	zero          bool
	vDims, wDims  []int // the transform's complex arrays
	plans         map[int]*fftPlan
	vOff, wOff    int // complex128 offsets in the work memory
	bufOff, total int
	lastN, half   int
}

// NewFFT plans fft of type typ with lengths lens on an operand of type inT
// and dimensions inDims, producing outT and outDims.
func NewFFT(typ ir.FFTType, lens []int, inT ir.ElementType, inDims []int, outT ir.ElementType, outDims []int) (*FFTPlan, error) {
	r := len(lens)
	rank := len(inDims)
	if r < 1 || r > 3 || rank < r {
		return nil, fmt.Errorf("fft_length %v: expected 1 to 3 lengths for an operand of rank %d", lens, rank)
	}
	if len(outDims) != rank {
		return nil, fmt.Errorf("result has rank %d, the operand %d", len(outDims), rank)
	}
	lead := rank - r
	if !slices.Equal(inDims[:lead], outDims[:lead]) {
		return nil, fmt.Errorf("result dimensions %v and operand dimensions %v differ outside the transformed ones", outDims, inDims)
	}
	for _, n := range lens {
		if n < 0 {
			return nil, fmt.Errorf("fft_length %v has a negative length", lens)
		}
	}
	switch typ {
	case ir.FFT, ir.IFFT:
		if !inT.IsComplex() || outT != inT {
			return nil, fmt.Errorf("%v needs a complex operand and result of its type, found %v and %v", typ, inT, outT)
		}
	case ir.RFFT:
		if (inT != ir.F32 && inT != ir.F64) || outT != ir.ComplexOf(inT) {
			return nil, fmt.Errorf("RFFT needs an f32 or f64 operand and a result of its complex type, found %v and %v", inT, outT)
		}
	case ir.IRFFT:
		if !inT.IsComplex() || outT != inT.ComplexComponent() {
			return nil, fmt.Errorf("IRFFT needs a complex operand and a result of its component type, found %v and %v", inT, outT)
		}
	default:
		return nil, fmt.Errorf("unknown fft_type %d", typ)
	}
	p := &FFTPlan{Type: typ, InT: inT, OutT: outT, InDims: inDims, OutDims: outDims, lead: lead, plans: map[int]*fftPlan{}}
	for _, n := range lens {
		p.zero = p.zero || n == 0
	}
	p.zero = p.zero || Count(inDims) == 0 || Count(outDims) == 0
	if p.zero {
		return p, nil
	}
	p.lastN = lens[r-1]
	p.half = p.lastN/2 + 1
	// v: the array the transform starts from; w: RFFT's half-spectrum.
	p.vDims = append(slices.Clone(inDims[:lead]), lens...)
	if typ == ir.IRFFT {
		p.vDims[rank-1] = p.half
	}
	next := 0
	p.vOff = next
	next += Count(p.vDims)
	if typ == ir.RFFT || typ == ir.IRFFT {
		p.wDims = slices.Clone(p.vDims)
		if typ == ir.RFFT {
			p.wDims[rank-1] = p.half
		} else {
			p.wDims[rank-1] = p.lastN // the real result (as complex128 slots)
		}
		p.wOff = next
		next += Count(p.wDims)
	}
	p.bufOff = next
	next += max(slices.Max(lens), p.half)
	for _, n := range lens {
		if _, ok := p.plans[n]; !ok {
			p.plans[n] = newFFTPlan(n, &next)
		}
	}
	p.total = next
	return p, nil
}

// WorkBytes is the work memory Run needs.
func (p *FFTPlan) WorkBytes() int { return p.total * 16 }

// Run transforms x into out.
func (p *FFTPlan) Run(out, x, workBytes []byte) {
	n := Count(p.OutDims) * p.OutT.ByteSize()
	if p.zero {
		clear(out[:n])
		return
	}
	work := Elems[complex128](workBytes[:p.total*16])
	v := work[p.vOff : p.vOff+Count(p.vDims)]
	buf := work[p.bufOff:]
	clear(v)
	p.load(v, x)
	rank := len(p.InDims)
	switch p.Type {
	case ir.FFT, ir.IFFT:
		for a := p.lead; a < rank; a++ {
			p.transformAxis(v, p.vDims, a, p.Type == ir.IFFT, buf, work)
		}
		p.store(out, v, p.vDims, false)
	case ir.RFFT:
		n, half := p.lastN, p.half
		w := work[p.wOff : p.wOff+Count(p.wDims)]
		pl := p.plans[n]
		rows := len(v) / n
		for i := 0; i < rows; i++ {
			row := buf[:n]
			copy(row, v[i*n:(i+1)*n])
			pl.transform(row, false, work)
			copy(w[i*half:(i+1)*half], row[:half])
		}
		for a := p.lead; a < rank-1; a++ {
			p.transformAxis(w, p.wDims, a, false, buf, work)
		}
		p.store(out, w, p.wDims, false)
	default: // IRFFT
		for a := p.lead; a < rank-1; a++ {
			p.transformAxis(v, p.vDims, a, true, buf, work)
		}
		n, half := p.lastN, p.half
		pl := p.plans[n]
		rows := len(v) / half
		w := work[p.wOff : p.wOff+Count(p.wDims)]
		for i := 0; i < rows; i++ {
			row := v[i*half : (i+1)*half]
			b := buf[:n]
			for k := 0; k < n; k++ {
				if k < half {
					b[k] = row[k]
				} else {
					z := row[n-k]
					b[k] = complex(real(z), -imag(z))
				}
			}
			pl.transform(b, true, work)
			for k := 0; k < n; k++ {
				w[i*n+k] = complex(real(b[k]), 0)
			}
		}
		p.store(out, w, p.wDims, true)
	}
}

// load reads the operand into v (zeroed), truncated or zero-padded to v's
// dimensions.
func (p *FFTPlan) load(v []complex128, x []byte) {
	overlap(p.vDims, p.InDims, func(vi, xi, n int) {
		if p.InT.IsComplex() {
			LoadComplex(v[vi:vi+n], x, p.InT, xi)
			return
		}
		for k := 0; k < n; k++ {
			v[vi+k] = complex(FloatAt(x, p.InT, xi+k), 0)
		}
	})
}

// store writes the array v (dimensions vDims) to the output, truncated or
// zero-padded to the output's dimensions; realPart stores real parts.
func (p *FFTPlan) store(out []byte, v []complex128, vDims []int, realPart bool) {
	clear(out[:Count(p.OutDims)*p.OutT.ByteSize()])
	overlap(p.OutDims, vDims, func(oi, vi, n int) {
		if !realPart {
			StoreComplex(out, p.OutT, oi, v[vi:vi+n])
			return
		}
		for k := 0; k < n; k++ {
			SetFloatAt(out, p.OutT, oi+k, real(v[vi+k]))
		}
	})
}

// overlap calls run(di, si, n) for every row of the region two row-major
// arrays of dimensions dd and sd share (the index-wise minimum of both):
// element positions di in the first and si in the second, n elements long.
func overlap(dd, sd []int, run func(di, si, n int)) {
	rank := len(dd)
	if rank == 0 {
		run(0, 0, 1)
		return
	}
	var common, ds, ss, idx [MaxRank]int
	dst, sst := 1, 1
	for i := rank - 1; i >= 0; i-- {
		common[i] = min(dd[i], sd[i])
		if common[i] == 0 {
			return
		}
		ds[i], ss[i] = dst, sst
		dst *= dd[i]
		sst *= sd[i]
	}
	n := common[rank-1]
	for {
		di, si := 0, 0
		for i := 0; i < rank-1; i++ {
			di += idx[i] * ds[i]
			si += idx[i] * ss[i]
		}
		run(di, si, n)
		if rank == 1 || !ir.NextIndex(common[:rank-1], idx[:rank-1]) {
			return
		}
	}
}

// transformAxis runs a 1-D transform along axis a of v (dims), in place.
func (p *FFTPlan) transformAxis(v []complex128, dims []int, a int, inverse bool, buf, work []complex128) {
	n := dims[a]
	if n <= 1 && !inverse {
		return
	}
	inner := Count(dims[a+1:])
	outer := Count(dims[:a])
	pl := p.plans[n]
	b := buf[:n]
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			base := o*n*inner + i
			for k := 0; k < n; k++ {
				b[k] = v[base+k*inner]
			}
			pl.transform(b, inverse, work)
			for k := 0; k < n; k++ {
				v[base+k*inner] = b[k]
			}
		}
	}
}

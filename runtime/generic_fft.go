package runtime

// fft: FFT, IFFT, RFFT and IRFFT over the last one to three dimensions, any
// lengths, in complex128 with the evaluator's transforms — mixed-radix
// Cooley-Tukey for lengths whose prime factors are small, Bluestein's
// algorithm otherwise — planned at compile time (twiddles, chirps) and run
// on working arrays in the program's arena, then rounded once to the
// result type. The same operations in the same order as the evaluator, so
// the results agree bit for bit.

import (
	"math"
	"math/bits"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() { genericSteps[ssa.Op(ir.OpFft)] = buildFFT }

// privateArena reserves n bytes of p's arena for one step's own use (past
// every buffer of the plan) and returns where they live.
func privateArena(p *program, n int) loc {
	off := roundUp(p.arena, 64)
	p.arena = off + n
	return loc{kind: sched.Arena, off: off, size: n}
}

const maxDirectRadix = 31

// fftPlan transforms sequences of one length; work is the byte offset of
// its working array in the step's area.
type fftPlan struct {
	n       int
	factors []int
	twiddle []complex128
	chirp   []complex128 // Bluestein
	m       int
	chirpF  []complex128
	sub     *fftPlan
	work    int // complex128 index of the working array (n, or 2m for Bluestein)
}

// newFFTPlan plans length n, taking working space from *next (complex128s).
func newFFTPlan(n int, next *int) *fftPlan {
	p := &fftPlan{n: n}
	f := primeFactors(n)
	if len(f) > 0 && f[len(f)-1] > maxDirectRadix {
		p.m = 1 << bits.Len(uint(2*n-2))
		p.chirp = make([]complex128, n)
		for k := 0; k < n; k++ {
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

// transform replaces x (length n) by its DFT or normalised inverse DFT;
// work is the step's working area.
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

// mixedRadix writes into out the DFT of in[0], in[stride], … (n elements).
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
	var tmp [maxDirectRadix]complex128
	tw := p.n / n
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

type fftStep struct {
	in, out     loc
	typ         ir.FFTType
	inT, outT   ir.ElementType
	dims        []int // operand dims
	outDims     []int
	lead        int // index of the first transformed dimension
	zero        bool
	plans       map[int]*fftPlan
	area        loc // v (input count), out (output count), buf, plan working arrays
	vOff, oOff  int // complex128 offsets
	bufOff      int
	inN, outN   int
	lastN, half int
}

func buildFFT(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	x := v.Args[0].Shape
	b := inputBuffer(k, v.Args[0])
	lens := v.Attrs.FFTLength
	r := len(lens)
	if b == nil || !denseArray(x) || !denseArray(v.Shape) || r < 1 || r > 3 || x.Rank() < r {
		return nil, nil
	}
	s := &fftStep{in: c.loc(b), out: c.loc(k.Out), typ: v.Attrs.FFTType, inT: x.Elem, outT: v.Shape.Elem,
		dims: x.Dims, outDims: v.Shape.Dims, lead: x.Rank() - r, plans: map[int]*fftPlan{}}
	switch s.typ {
	case ir.FFT, ir.IFFT:
		if !x.Elem.IsComplex() || s.outT != x.Elem {
			return nil, nil
		}
	case ir.RFFT:
		if (x.Elem != ir.F32 && x.Elem != ir.F64) || s.outT != ir.ComplexOf(x.Elem) {
			return nil, nil
		}
	case ir.IRFFT:
		if !x.Elem.IsComplex() || s.outT != x.Elem.ComplexComponent() {
			return nil, nil
		}
	default:
		return nil, nil
	}
	for _, n := range lens {
		s.zero = s.zero || n == 0
	}
	s.inN, s.outN = x.ElementCount(), v.Shape.ElementCount()
	if s.zero {
		return s, nil
	}
	s.lastN = lens[r-1]
	s.half = s.lastN/2 + 1
	// Working area: v and out as complex128 arrays, a row buffer, then the
	// plans' working arrays.
	next := 0
	s.vOff = next
	next += s.inN
	s.oOff = next
	next += s.outN
	s.bufOff = next
	maxLen := 0
	for _, d := range append(append([]int{}, x.Dims[s.lead:]...), v.Shape.Dims[s.lead:]...) {
		maxLen = max(maxLen, d)
	}
	next += max(maxLen, s.lastN)
	plan := func(n int) {
		if _, ok := s.plans[n]; !ok && n > 0 {
			s.plans[n] = newFFTPlan(n, &next)
		}
	}
	for a := s.lead; a < x.Rank(); a++ {
		plan(x.Dims[a])
		plan(v.Shape.Dims[a])
	}
	plan(s.lastN)
	s.area = privateArena(p, next*16)
	return s, nil
}

func (s *fftStep) name() string { return "fft" }

func (s *fftStep) exec(fr *frame) error {
	dst := fr.bytes(s.out)
	if s.zero {
		clear(dst)
		return nil
	}
	src := fr.bytes(s.in)
	work := elems[complex128](fr.bytes(s.area))
	vv := work[s.vOff : s.vOff+s.inN]
	buf := work[s.bufOff:]
	if s.inT.IsComplex() {
		loadComplex(vv, src, s.inT, 0)
	} else {
		f := elems[float64](fr.bytes(s.area)[s.oOff*16:])[:s.inN]
		loadFloats(f, src, s.inT, 0)
		for i, x := range f {
			vv[i] = complex(x, 0)
		}
	}
	rank := len(s.dims)
	switch s.typ {
	case ir.FFT, ir.IFFT:
		for a := s.lead; a < rank; a++ {
			s.transformAxis(vv, s.dims, a, s.typ == ir.IFFT, buf, work)
		}
		storeComplex(dst, s.outT, 0, vv)
	case ir.RFFT:
		n, half := s.lastN, s.half
		out := work[s.oOff : s.oOff+s.outN]
		p := s.plans[n]
		rows := s.inN / n
		for i := 0; i < rows; i++ {
			row := buf[:n]
			copy(row, vv[i*n:(i+1)*n])
			p.transform(row, false, work)
			copy(out[i*half:(i+1)*half], row[:half])
		}
		for a := s.lead; a < rank-1; a++ {
			s.transformAxis(out, s.outDims, a, false, buf, work)
		}
		storeComplex(dst, s.outT, 0, out)
	default: // IRFFT
		for a := s.lead; a < rank-1; a++ {
			s.transformAxis(vv, s.dims, a, true, buf, work)
		}
		n, half := s.lastN, s.half
		p := s.plans[n]
		rows := s.inN / half
		out := elems[float64](fr.bytes(s.area)[s.oOff*16:])[:rows*n]
		for i := 0; i < rows; i++ {
			row := vv[i*half : (i+1)*half]
			b := buf[:n]
			for k := 0; k < n; k++ {
				if k < half {
					b[k] = row[k]
				} else {
					z := row[n-k]
					b[k] = complex(real(z), -imag(z))
				}
			}
			p.transform(b, true, work)
			for k := 0; k < n; k++ {
				out[i*n+k] = real(b[k])
			}
		}
		storeFloats(dst, s.outT, 0, out)
	}
	return nil
}

// transformAxis runs a 1-D transform along axis a of v (dims), in place.
func (s *fftStep) transformAxis(v []complex128, dims []int, a int, inverse bool, buf, work []complex128) {
	n := dims[a]
	if n <= 1 && !inverse {
		return
	}
	inner := prod(dims[a+1:])
	outer := prod(dims[:a])
	p := s.plans[n]
	b := buf[:n]
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			base := o*n*inner + i
			for k := 0; k < n; k++ {
				b[k] = v[base+k*inner]
			}
			p.transform(b, inverse, work)
			for k := 0; k < n; k++ {
				v[base+k*inner] = b[k]
			}
		}
	}
}

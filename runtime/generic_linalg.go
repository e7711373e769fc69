package runtime

// cholesky and triangular-solve on batches of matrices (the two minor
// dimensions), for real and complex floating-point types, computed in
// float64 (complex128) with the evaluator's algorithms and operation order
// and rounded once to the type — so the two agree bit for bit. The working
// matrices live in the program's arena.

import (
	"math"
	"math/cmplx"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.Op(ir.OpCholesky)] = buildCholesky
	genericSteps[ssa.Op(ir.OpTriangularSolve)] = buildTriangularSolve
}

// field is the arithmetic linear algebra computes in.
type field interface{ float64 | complex128 }

// fieldOps are the operations that differ between the real and complex
// fields.
type fieldOps[T field] struct {
	conj   func(T) T
	re     func(T) float64
	fromRe func(float64) T
}

var realOps = fieldOps[float64]{
	conj:   func(x float64) float64 { return x },
	re:     func(x float64) float64 { return x },
	fromRe: func(x float64) float64 { return x },
}

var complexOps = fieldOps[complex128]{
	conj:   cmplx.Conj,
	re:     func(x complex128) float64 { return real(x) },
	fromRe: func(x float64) complex128 { return complex(x, 0) },
}

// matrices describes a batch of matrices of a dense array.
type matrices struct {
	batch, rows, cols int
}

func matricesOf(s ir.Shape) (matrices, bool) {
	if !denseArray(s) || s.Rank() < 2 || !s.Elem.IsFloatOrComplex() {
		return matrices{}, false
	}
	r := s.Rank()
	return matrices{batch: prod(s.Dims[:r-2]), rows: s.Dims[r-2], cols: s.Dims[r-1]}, true
}

type choleskyStep struct {
	in, out loc
	t       ir.ElementType
	m       matrices
	lower   bool
	area    loc // a, L, out: n·n wide values each (in the arena)
}

func buildCholesky(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	x := v.Args[0].Shape
	b := inputBuffer(k, v.Args[0])
	m, ok := matricesOf(x)
	if b == nil || !ok || m.rows != m.cols || !v.Shape.EqualIgnoringLayout(x) || !denseArray(v.Shape) {
		return nil, nil
	}
	s := &choleskyStep{in: c.loc(b), out: c.loc(k.Out), t: x.Elem, m: m, lower: v.Attrs.Lower}
	s.area = privateArena(p, 3*m.rows*m.rows*wideBytes)
	return s, nil
}

func (s *choleskyStep) name() string { return "cholesky" }

func (s *choleskyStep) exec(fr *frame) error {
	n := s.m.rows
	nn := n * n
	src, dst := fr.bytes(s.in), fr.bytes(s.out)
	area := fr.bytes(s.area)
	for b := 0; b < s.m.batch; b++ {
		if s.t.IsComplex() {
			a, l, out := elems[complex128](area)[:nn], elems[complex128](area)[nn:2*nn], elems[complex128](area)[2*nn:3*nn]
			loadComplex(a, src, s.t, b*nn)
			cholesky(a, l, out, n, s.lower, complexOps)
			storeComplex(dst, s.t, b*nn, out)
		} else {
			a, l, out := elems[float64](area)[:nn], elems[float64](area)[nn:2*nn], elems[float64](area)[2*nn:3*nn]
			loadFloats(a, src, s.t, b*nn)
			cholesky(a, l, out, n, s.lower, realOps)
			storeFloats(dst, s.t, b*nn, out)
		}
	}
	return nil
}

// cholesky factors one n×n matrix a into out (the other triangle zero; all
// NaN when a pivot is negative or NaN), L being working space.
func cholesky[T field](a, L, out []T, n int, lower bool, ops fieldOps[T]) {
	clear(L)
	clear(out)
	at := func(i, j int) T {
		if lower {
			return a[i*n+j]
		}
		return ops.conj(a[j*n+i])
	}
	for j := 0; j < n; j++ {
		d := ops.re(at(j, j))
		for k := 0; k < j; k++ {
			x := L[j*n+k]
			d -= ops.re(x * ops.conj(x))
		}
		if !(d >= 0) {
			nan := ops.fromRe(math.NaN())
			for i := range out {
				out[i] = nan
			}
			return
		}
		piv := ops.fromRe(math.Sqrt(d))
		L[j*n+j] = piv
		for i := j + 1; i < n; i++ {
			s := at(i, j)
			for k := 0; k < j; k++ {
				s -= L[i*n+k] * ops.conj(L[j*n+k])
			}
			L[i*n+j] = s / piv
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			if lower {
				out[i*n+j] = L[i*n+j]
			} else {
				out[j*n+i] = ops.conj(L[i*n+j])
			}
		}
	}
}

type triangularSolveStep struct {
	a, b, out loc
	t         ir.ElementType
	batch     int
	m         int // a's matrices are m×m
	br, bc    int // b's matrices
	opt       ir.TriangularSolveOptions
	area      loc // working matrices (in the arena)
}

func buildTriangularSolve(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	as, bs := v.Args[0].Shape, v.Args[1].Shape
	ab, bb := inputBuffer(k, v.Args[0]), inputBuffer(k, v.Args[1])
	am, ok1 := matricesOf(as)
	bm, ok2 := matricesOf(bs)
	if ab == nil || bb == nil || !ok1 || !ok2 || am.rows != am.cols || as.Elem != bs.Elem || am.batch != bm.batch ||
		!v.Shape.EqualIgnoringLayout(bs) || !denseArray(v.Shape) {
		return nil, nil
	}
	opt := ir.TriangularSolveOptions{}
	if v.Attrs.TriangularSolve != nil {
		opt = *v.Attrs.TriangularSolve
	}
	m := am.rows
	if opt.LeftSide && bm.rows != m || !opt.LeftSide && bm.cols != m {
		return nil, nil
	}
	s := &triangularSolveStep{a: c.loc(ab), b: c.loc(bb), out: c.loc(k.Out), t: as.Elem, batch: am.batch, m: m,
		br: bm.rows, bc: bm.cols, opt: opt}
	// a, tri, tm (m·m each); b, c, y, x (br·bc each).
	s.area = privateArena(p, (3*m*m+4*bm.rows*bm.cols)*wideBytes)
	return s, nil
}

func (s *triangularSolveStep) name() string { return "triangular-solve" }

func (s *triangularSolveStep) exec(fr *frame) error {
	mm, bn := s.m*s.m, s.br*s.bc
	as, bs, dst := fr.bytes(s.a), fr.bytes(s.b), fr.bytes(s.out)
	area := fr.bytes(s.area)
	for k := 0; k < s.batch; k++ {
		if s.t.IsComplex() {
			w := elems[complex128](area)
			a, tri, tm := w[:mm], w[mm:2*mm], w[2*mm:3*mm]
			b, c, y, x := w[3*mm:3*mm+bn], w[3*mm+bn:3*mm+2*bn], w[3*mm+2*bn:3*mm+3*bn], w[3*mm+3*bn:3*mm+4*bn]
			loadComplex(a, as, s.t, k*mm)
			loadComplex(b, bs, s.t, k*bn)
			solveTriangular(a, b, x, tri, tm, c, y, s.m, s.br, s.bc, &s.opt, complexOps)
			storeComplex(dst, s.t, k*bn, x)
		} else {
			w := elems[float64](area)
			a, tri, tm := w[:mm], w[mm:2*mm], w[2*mm:3*mm]
			b, c, y, x := w[3*mm:3*mm+bn], w[3*mm+bn:3*mm+2*bn], w[3*mm+2*bn:3*mm+3*bn], w[3*mm+3*bn:3*mm+4*bn]
			loadFloats(a, as, s.t, k*mm)
			loadFloats(b, bs, s.t, k*bn)
			solveTriangular(a, b, x, tri, tm, c, y, s.m, s.br, s.bc, &s.opt, realOps)
			storeFloats(dst, s.t, k*bn, x)
		}
	}
	return nil
}

// solveTriangular solves one system into x by substitution, as the
// evaluator does: the effective left-side triangular matrix tm = op(a) (or
// op(a)ᵀ for a right-side solve, on bᵀ), then forward or backward
// substitution column by column. tri, tm, c and y are working space.
func solveTriangular[T field](a, b, x, tri, tm, c, y []T, m, br, bc int, opt *ir.TriangularSolveOptions, ops fieldOps[T]) {
	clear(tri)
	clear(tm)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			switch {
			case i == j && opt.UnitDiagonal:
				tri[i*m+j] = 1
			case i == j || (opt.Lower && i > j) || (!opt.Lower && i < j):
				tri[i*m+j] = a[i*m+j]
			}
		}
	}
	lower := opt.Lower
	transpose := opt.TransposeA != ir.NoTranspose
	conj := opt.TransposeA == ir.Adjoint
	if !opt.LeftSide {
		transpose = !transpose
	}
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			v := tri[i*m+j]
			if conj {
				v = ops.conj(v)
			}
			if transpose {
				tm[j*m+i] = v
			} else {
				tm[i*m+j] = v
			}
		}
	}
	if transpose {
		lower = !lower
	}
	k := bc
	rhs := b
	if !opt.LeftSide {
		k = br
		rhs = c[:m*k]
		for i := 0; i < br; i++ {
			for j := 0; j < bc; j++ {
				rhs[j*k+i] = b[i*bc+j]
			}
		}
	}
	y = y[:m*k]
	clear(y)
	for col := 0; col < k; col++ {
		for s := 0; s < m; s++ {
			i := s
			if !lower {
				i = m - 1 - s
			}
			v := rhs[i*k+col]
			if lower {
				for j := 0; j < i; j++ {
					v -= tm[i*m+j] * y[j*k+col]
				}
			} else {
				for j := i + 1; j < m; j++ {
					v -= tm[i*m+j] * y[j*k+col]
				}
			}
			y[i*k+col] = v / tm[i*m+i]
		}
	}
	if opt.LeftSide {
		copy(x, y)
		return
	}
	for i := 0; i < br; i++ {
		for j := 0; j < bc; j++ {
			x[i*bc+j] = y[j*k+i]
		}
	}
}

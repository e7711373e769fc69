package ops

// cholesky and triangular-solve on batches of matrices (the two minor
// dimensions), for real and complex floating-point types. Both compute in
// float64 (complex128) and round each result element once to the type.
//
// cholesky reads only the triangle named by `lower` and writes the factor
// into it; the other triangle, which XLA leaves implementation-defined, is
// zero — what XLA's CPU backend (CholeskyExpander) writes. As there, a
// matrix whose factorisation meets a negative (or NaN) pivot is not positive
// definite and its whole result is NaN; other matrices of the batch are
// unaffected. For complex inputs only the real part of the pivots is used.
//
// triangular-solve reads only the triangle of `a` named by `lower` (and not
// its diagonal when unit_diagonal is set) and solves op(a)·x = b (left_side)
// or x·op(a) = b by substitution, op being a, aᵀ or aᴴ (transpose_a
// NO_TRANSPOSE, TRANSPOSE, ADJOINT). A zero pivot gives infinities or NaNs,
// as IEEE division does.

import (
	"fmt"
	"math"
	"math/cmplx"
	"slices"

	"github.com/kilnml/kiln/ir"
)

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

// matrices describes a batch of matrices: the two minor dimensions.
type matrices struct{ batch, rows, cols int }

func matricesOf(what string, t ir.ElementType, dims []int) (matrices, error) {
	if len(dims) < 2 {
		return matrices{}, fmt.Errorf("%s has rank %d, expected at least 2", what, len(dims))
	}
	if !t.IsFloatOrComplex() {
		return matrices{}, fmt.Errorf("%s has element type %v, expected a floating-point or complex type", what, t)
	}
	r := len(dims)
	return matrices{batch: Count(dims[:r-2]), rows: dims[r-2], cols: dims[r-1]}, nil
}

// CholeskyPlan factors a batch of matrices.
type CholeskyPlan struct {
	T     ir.ElementType
	m     matrices
	lower bool
}

// NewCholesky plans cholesky of an operand of type t and dimensions dims.
func NewCholesky(t ir.ElementType, dims []int, lower bool) (*CholeskyPlan, error) {
	m, err := matricesOf("operand", t, dims)
	if err != nil {
		return nil, err
	}
	if m.rows != m.cols {
		return nil, fmt.Errorf("operand matrices are %dx%d, expected square", m.rows, m.cols)
	}
	return &CholeskyPlan{T: t, m: m, lower: lower}, nil
}

// WorkBytes is the work memory Run needs.
func (p *CholeskyPlan) WorkBytes() int { return 3 * p.m.rows * p.m.rows * WideBytes }

// Run factors x into out.
func (p *CholeskyPlan) Run(out, x, work []byte) {
	n := p.m.rows
	nn := n * n
	for b := 0; b < p.m.batch; b++ {
		if p.T.IsComplex() {
			w := Elems[complex128](work)
			a, l, o := w[:nn], w[nn:2*nn], w[2*nn:3*nn]
			LoadComplex(a, x, p.T, b*nn)
			cholesky(a, l, o, n, p.lower, complexOps)
			StoreComplex(out, p.T, b*nn, o)
		} else {
			w := Elems[float64](work)
			a, l, o := w[:nn], w[nn:2*nn], w[2*nn:3*nn]
			LoadFloats(a, x, p.T, b*nn)
			cholesky(a, l, o, n, p.lower, realOps)
			StoreFloats(out, p.T, b*nn, o)
		}
	}
}

// cholesky factors one n×n matrix. With lower it reads a's lower triangle
// and writes L (a = L·Lᴴ) into out's lower triangle; otherwise it reads the
// upper triangle and writes U = Lᴴ (a = Uᴴ·U) into the upper one. L is
// working space.
func cholesky[T field](a, L, out []T, n int, lower bool, ops fieldOps[T]) {
	clear(L)
	clear(out)
	at := func(i, j int) T { // element (i, j) of the lower-triangular view
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

// TriangularSolvePlan solves a batch of triangular systems.
type TriangularSolvePlan struct {
	T      ir.ElementType
	batch  int
	m      int // a's matrices are m×m
	br, bc int // b's matrices
	opt    ir.TriangularSolveOptions
}

// NewTriangularSolve plans triangular-solve of a (type t, dimensions ad)
// and b (dimensions bd).
func NewTriangularSolve(t ir.ElementType, ad, bd []int, opt *ir.TriangularSolveOptions) (*TriangularSolvePlan, error) {
	am, err := matricesOf("a", t, ad)
	if err != nil {
		return nil, err
	}
	bm, err := matricesOf("b", t, bd)
	if err != nil {
		return nil, err
	}
	if am.rows != am.cols {
		return nil, fmt.Errorf("a's matrices are %dx%d, expected square", am.rows, am.cols)
	}
	if !slices.Equal(ad[:len(ad)-2], bd[:len(bd)-2]) {
		return nil, fmt.Errorf("a %v and b %v need the same batch dimensions", ad, bd)
	}
	o := ir.TriangularSolveOptions{}
	if opt != nil {
		o = *opt
	}
	m := am.rows
	if o.LeftSide && bm.rows != m || !o.LeftSide && bm.cols != m {
		return nil, fmt.Errorf("b %v does not match a's %dx%d matrices with left_side=%v", bd, m, m, o.LeftSide)
	}
	return &TriangularSolvePlan{T: t, batch: am.batch, m: m, br: bm.rows, bc: bm.cols, opt: o}, nil
}

// WorkBytes is the work memory Run needs.
func (p *TriangularSolvePlan) WorkBytes() int {
	return (3*p.m*p.m + 4*p.br*p.bc) * WideBytes
}

// Run solves the systems of a and b into out.
func (p *TriangularSolvePlan) Run(out, as, bs, work []byte) {
	mm, bn := p.m*p.m, p.br*p.bc
	for k := 0; k < p.batch; k++ {
		if p.T.IsComplex() {
			w := Elems[complex128](work)
			a, tri, tm := w[:mm], w[mm:2*mm], w[2*mm:3*mm]
			b, c, y, x := w[3*mm:3*mm+bn], w[3*mm+bn:3*mm+2*bn], w[3*mm+2*bn:3*mm+3*bn], w[3*mm+3*bn:3*mm+4*bn]
			LoadComplex(a, as, p.T, k*mm)
			LoadComplex(b, bs, p.T, k*bn)
			solveTriangular(a, b, x, tri, tm, c, y, p.m, p.br, p.bc, &p.opt, complexOps)
			StoreComplex(out, p.T, k*bn, x)
		} else {
			w := Elems[float64](work)
			a, tri, tm := w[:mm], w[mm:2*mm], w[2*mm:3*mm]
			b, c, y, x := w[3*mm:3*mm+bn], w[3*mm+bn:3*mm+2*bn], w[3*mm+2*bn:3*mm+3*bn], w[3*mm+3*bn:3*mm+4*bn]
			LoadFloats(a, as, p.T, k*mm)
			LoadFloats(b, bs, p.T, k*bn)
			solveTriangular(a, b, x, tri, tm, c, y, p.m, p.br, p.bc, &p.opt, realOps)
			StoreFloats(out, p.T, k*bn, x)
		}
	}
}

// solveTriangular solves one system into x by substitution: the effective
// left-side triangular matrix tm = op(a) (or op(a)ᵀ for a right-side solve,
// on bᵀ), then forward or backward substitution column by column. tri, tm,
// c and y are working space.
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
	// Right-hand sides as columns of rhs (m rows, k columns).
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

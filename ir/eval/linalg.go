package eval

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

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(evalCholesky, ir.OpCholesky)
	register(evalTriangularSolve, ir.OpTriangularSolve)
}

// field is the arithmetic linalg computes in: float64 for real types (so
// zero pivots give IEEE infinities), complex128 for complex types.
type field interface{ float64 | complex128 }

func conjOf[T field](x T) T {
	if c, ok := any(x).(complex128); ok {
		return any(cmplx.Conj(c)).(T)
	}
	return x
}

func realOf[T field](x T) float64 {
	if c, ok := any(x).(complex128); ok {
		return real(c)
	}
	return any(x).(float64)
}

func fromReal[T field](x float64) T {
	var z T
	if _, ok := any(z).(complex128); ok {
		return any(complex(x, 0)).(T)
	}
	return any(x).(T)
}

// runMatrices loads the operands in the field of type t, runs f and stores
// the result in a new literal of type t with dims.
func runMatrices(t ir.ElementType, dims []int, ops []*ir.Literal,
	real func(ops [][]float64) []float64, cplx func(ops [][]complex128) []complex128) (*ir.Literal, error) {
	if t.IsComplex() {
		vals := make([][]complex128, len(ops))
		for i, o := range ops {
			vals[i] = wideComplex(o)
		}
		return storeComplex(t, dims, cplx(vals))
	}
	vals := make([][]float64, len(ops))
	for i, o := range ops {
		vals[i] = wideFloats(o)
	}
	return storeFloat64s(t, dims, real(vals))
}

func checkMatrices(what string, s ir.Shape) (batch, rows, cols int, err error) {
	if !s.IsArray() || s.Rank() < 2 {
		return 0, 0, 0, fmt.Errorf("%s has shape %v, expected rank at least 2", what, s)
	}
	if !s.Elem.IsFloatOrComplex() {
		return 0, 0, 0, fmt.Errorf("%s has element type %v, expected a floating-point or complex type", what, s.Elem)
	}
	r := s.Rank()
	return numElements(s.Dims[:r-2]), s.Dims[r-2], s.Dims[r-1], nil
}

func evalCholesky(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(ops))
	}
	s := ops[0].Shape()
	batch, n, m, err := checkMatrices("operand", s)
	if err != nil {
		return nil, err
	}
	if n != m {
		return nil, fmt.Errorf("operand matrices are %dx%d, expected square", n, m)
	}
	if !s.Compatible(in.Shape) {
		return nil, fmt.Errorf("result shape %v, expected the operand's %v", in.Shape, s)
	}
	return runMatrices(s.Elem, s.Dims, ops,
		func(v [][]float64) []float64 { return choleskyBatch(v[0], batch, n, in.Lower) },
		func(v [][]complex128) []complex128 { return choleskyBatch(v[0], batch, n, in.Lower) })
}

func choleskyBatch[T field](a []T, batch, n int, lower bool) []T {
	out := make([]T, len(a))
	for b := 0; b < batch; b++ {
		cholesky(a[b*n*n:(b+1)*n*n], out[b*n*n:(b+1)*n*n], n, lower)
	}
	return out
}

// cholesky factors one n×n matrix. With lower it reads a's lower
// triangle and writes L (a = L·Lᴴ) into l's lower triangle; otherwise it
// reads the upper triangle and writes U = Lᴴ (a = Uᴴ·U) into the upper one.
func cholesky[T field](a, l []T, n int, lower bool) {
	at := func(i, j int) T { // element (i, j) of the lower-triangular view
		if lower {
			return a[i*n+j]
		}
		return conjOf(a[j*n+i])
	}
	L := make([]T, n*n)
	for j := 0; j < n; j++ {
		d := realOf(at(j, j))
		for k := 0; k < j; k++ {
			x := L[j*n+k]
			d -= realOf(x * conjOf(x))
		}
		if !(d >= 0) {
			nan := fromReal[T](math.NaN())
			for i := range l {
				l[i] = nan
			}
			return
		}
		piv := fromReal[T](math.Sqrt(d))
		L[j*n+j] = piv
		for i := j + 1; i < n; i++ {
			s := at(i, j)
			for k := 0; k < j; k++ {
				s -= L[i*n+k] * conjOf(L[j*n+k])
			}
			L[i*n+j] = s / piv
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			if lower {
				l[i*n+j] = L[i*n+j]
			} else {
				l[j*n+i] = conjOf(L[i*n+j])
			}
		}
	}
}

func evalTriangularSolve(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 2 {
		return nil, fmt.Errorf("expected 2 operands (a, b), found %d", len(ops))
	}
	opt := in.TriangularSolve
	if opt == nil {
		opt = &ir.TriangularSolveOptions{}
	}
	as, bs := ops[0].Shape(), ops[1].Shape()
	batch, m, m2, err := checkMatrices("a", as)
	if err != nil {
		return nil, err
	}
	_, br, bc, err := checkMatrices("b", bs)
	if err != nil {
		return nil, err
	}
	if m != m2 {
		return nil, fmt.Errorf("a's matrices are %dx%d, expected square", m, m2)
	}
	if as.Elem != bs.Elem || !sameInts(as.Dims[:as.Rank()-2], bs.Dims[:bs.Rank()-2]) {
		return nil, fmt.Errorf("a %v and b %v need the same element type and batch dimensions", as, bs)
	}
	if opt.LeftSide && br != m || !opt.LeftSide && bc != m {
		return nil, fmt.Errorf("b %v does not match a's %dx%d matrices with left_side=%v", bs, m, m, opt.LeftSide)
	}
	if !bs.Compatible(in.Shape) {
		return nil, fmt.Errorf("result shape %v, expected b's %v", in.Shape, bs)
	}
	return runMatrices(bs.Elem, bs.Dims, ops,
		func(v [][]float64) []float64 { return solveBatch(v[0], v[1], batch, m, br, bc, opt) },
		func(v [][]complex128) []complex128 { return solveBatch(v[0], v[1], batch, m, br, bc, opt) })
}

func solveBatch[T field](a, b []T, batch, m, br, bc int, opt *ir.TriangularSolveOptions) []T {
	out := make([]T, len(b))
	for k := 0; k < batch; k++ {
		solveTriangular(a[k*m*m:(k+1)*m*m], b[k*br*bc:(k+1)*br*bc], out[k*br*bc:(k+1)*br*bc], m, br, bc, opt)
	}
	return out
}

// solveTriangular solves one system. It builds the effective triangular
// matrix tm of a left-side solve tm·y = c: tm = op(a) with c = b for
// left_side, and tm = op(a)ᵀ with c = bᵀ, x = yᵀ otherwise.
func solveTriangular[T field](a, b, x []T, m, br, bc int, opt *ir.TriangularSolveOptions) {
	tri := make([]T, m*m) // the triangle of a that is read
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
	tm := make([]T, m*m)
	transpose := opt.TransposeA != ir.NoTranspose
	conj := opt.TransposeA == ir.Adjoint
	if !opt.LeftSide {
		transpose = !transpose
	}
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			v := tri[i*m+j]
			if conj {
				v = conjOf(v)
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
	// Right-hand sides as columns of c (m rows, k columns).
	k := bc
	c := b
	if !opt.LeftSide {
		k = br
		c = make([]T, m*k)
		for i := 0; i < br; i++ {
			for j := 0; j < bc; j++ {
				c[j*k+i] = b[i*bc+j]
			}
		}
	}
	y := make([]T, m*k)
	for col := 0; col < k; col++ {
		for s := 0; s < m; s++ {
			i := s
			if !lower {
				i = m - 1 - s
			}
			v := c[i*k+col]
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

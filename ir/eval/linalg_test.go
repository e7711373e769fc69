package eval

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// spdBatch returns a batch of Hermitian positive definite n×n matrices
// M·Mᴴ + n·I.
func spdBatch(r *rand.Rand, ty ir.ElementType, batch, n int) *ir.Literal {
	m := wideOf(randLiteral(r, ty, batch, n, n))
	a := make([]complex128, len(m))
	for b := 0; b < batch; b++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s complex128
				for k := 0; k < n; k++ {
					s += m[b*n*n+i*n+k] * cmplx.Conj(m[b*n*n+j*n+k])
				}
				if i == j {
					s += complex(float64(n), 0)
				}
				a[b*n*n+i*n+j] = s
			}
		}
	}
	return literalOf(ty, []int{batch, n, n}, a)
}

func TestCholeskyReconstructs(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, ty := range []ir.ElementType{ir.F32, ir.F64, ir.C64, ir.C128} {
		for _, lower := range []bool{true, false} {
			n, batch := 6, 3
			a := spdBatch(r, ty, batch, n)
			s := shapeText(ty, batch, n, n)
			out := runHLO(t, fmt.Sprintf(`HloModule m
ENTRY e {
  a = %s parameter(0)
  ROOT l = %s cholesky(a), lower=%v
}
`, s, s, lower), a)
			l, av := wideOf(out[0]), wideOf(a)
			tol := 1e-12
			if ty == ir.F32 || ty == ir.C64 {
				tol = 1e-5
			}
			for b := 0; b < batch; b++ {
				at := func(i, j int) complex128 { return l[b*n*n+i*n+j] }
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						// The other triangle is zero.
						if (lower && j > i) || (!lower && j < i) {
							if at(i, j) != 0 {
								t.Fatalf("%v lower=%v: other triangle (%d,%d) = %v", ty, lower, i, j, at(i, j))
							}
						}
						var s complex128
						for k := 0; k < n; k++ {
							if lower {
								s += at(i, k) * cmplx.Conj(at(j, k))
							} else {
								s += cmplx.Conj(at(k, i)) * at(k, j)
							}
						}
						if w := av[b*n*n+i*n+j]; !closeEnough(s, w, tol) {
							t.Fatalf("%v lower=%v: reconstruction (%d,%d) = %v, want %v", ty, lower, i, j, s, w)
						}
					}
				}
			}
		}
	}
}

func TestCholeskyReadsOneTriangleAndNaNsNonPD(t *testing.T) {
	// Garbage in the upper triangle is ignored with lower=true; the second
	// matrix is not positive definite and becomes all NaN, the first is
	// unaffected.
	a := lit([]int{2, 2, 2}, float32(4), 99, 2, 5, -1, 0, 0, 1)
	out := runHLO(t, `HloModule m
ENTRY e {
  a = f32[2,2,2] parameter(0)
  ROOT l = f32[2,2,2] cholesky(a), lower=true
}
`, a)
	nan := math.NaN()
	expectClose(t, out[0], "f32[2,2,2]", reals(2, 0, 1, 2, nan, nan, nan, nan), 0)
}

func TestTriangularSolveResidual(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, ty := range []ir.ElementType{ir.F32, ir.F64, ir.C64, ir.C128} {
		for _, left := range []bool{true, false} {
			for _, lower := range []bool{true, false} {
				for _, unit := range []bool{true, false} {
					for _, tr := range []string{"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"} {
						m, k, batch := 5, 3, 2
						aw := wideOf(randLiteral(r, ty, batch, m, m))
						for b := 0; b < batch; b++ {
							for i := 0; i < m; i++ {
								aw[b*m*m+i*m+i] += 4 // well conditioned
							}
						}
						a := literalOf(ty, []int{batch, m, m}, aw)
						bd := []int{batch, m, k}
						if !left {
							bd = []int{batch, k, m}
						}
						bl := randLiteral(r, ty, bd...)
						out := runHLO(t, fmt.Sprintf(`HloModule m
ENTRY e {
  a = %s parameter(0)
  b = %s parameter(1)
  ROOT x = %s triangular-solve(a, b), left_side=%v, lower=%v, unit_diagonal=%v, transpose_a=%s
}
`, shapeText(ty, batch, m, m), shapeText(ty, bd...), shapeText(ty, bd...), left, lower, unit, tr), a, bl)
						x, bv := wideOf(out[0]), wideOf(bl)
						// op(a) as the solver must see it: the chosen
						// triangle, unit diagonal, transposed or adjoint.
						opA := func(b, i, j int) complex128 {
							if tr != "NO_TRANSPOSE" {
								i, j = j, i
							}
							var v complex128
							switch {
							case i == j && unit:
								v = 1
							case i == j || (lower && i > j) || (!lower && i < j):
								v = aw[b*m*m+i*m+j]
							}
							if tr == "ADJOINT" {
								v = cmplx.Conj(v)
							}
							return v
						}
						tol := 1e-11
						if ty == ir.F32 || ty == ir.C64 {
							tol = 1e-4
						}
						rows, cols := bd[1], bd[2]
						for b := 0; b < batch; b++ {
							for i := 0; i < rows; i++ {
								for j := 0; j < cols; j++ {
									var s complex128
									for q := 0; q < m; q++ {
										if left {
											s += opA(b, i, q) * x[b*rows*cols+q*cols+j]
										} else {
											s += x[b*rows*cols+i*cols+q] * opA(b, q, j)
										}
									}
									if w := bv[b*rows*cols+i*cols+j]; !closeEnough(s, w, tol) {
										t.Fatalf("%v left=%v lower=%v unit=%v %s: residual at (%d,%d,%d): %v, want %v",
											ty, left, lower, unit, tr, b, i, j, s, w)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestLinalgErrors(t *testing.T) {
	err := runErr(t, `HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  ROOT l = f32[2,3] cholesky(a), lower=true
}
`, ir.MustNewLiteral(ir.MakeShape(ir.F32, 2, 3)))
	wantErr(t, err, "2x3", "square")
	err = runErr(t, `HloModule m
ENTRY e {
  a = f32[3,3] parameter(0)
  b = f32[4,2] parameter(1)
  ROOT x = f32[4,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
}
`, ir.MustNewLiteral(ir.MakeShape(ir.F32, 3, 3)), ir.MustNewLiteral(ir.MakeShape(ir.F32, 4, 2)))
	wantErr(t, err, "does not match")
}

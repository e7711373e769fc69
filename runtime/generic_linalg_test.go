package runtime

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// spdLiteral is a batch of well-conditioned Hermitian positive definite
// matrices (A·Aᴴ + n·I), with the last matrix of the batch made indefinite.
func spdLiteral(r *rand.Rand, t ir.ElementType, batch, n int) *ir.Literal {
	l := ir.MustNewLiteral(ir.MakeShape(t, batch, n, n))
	for b := 0; b < batch; b++ {
		a := make([]complex128, n*n)
		for i := range a {
			a[i] = complex(r.NormFloat64(), 0)
			if t.IsComplex() {
				a[i] += complex(0, r.NormFloat64())
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s complex128
				for k := 0; k < n; k++ {
					s += a[i*n+k] * complex(real(a[j*n+k]), -imag(a[j*n+k]))
				}
				if i == j {
					s += complex(float64(n), 0)
					if b == batch-1 && i == n-1 {
						s = -1
					}
				}
				if t.IsComplex() {
					l.SetComplex128At(b*n*n+i*n+j, s)
				} else {
					l.SetFloat64At(b*n*n+i*n+j, real(s))
				}
			}
		}
	}
	return l
}

func TestGenericCholeskyAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for _, typ := range []ir.ElementType{ir.F32, ir.F64, ir.C64, ir.C128, ir.F16} {
		for _, lower := range []bool{true, false} {
			for _, n := range []int{0, 1, 3, 8} {
				s := shapeText(typ, 3, n, n)
				hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  ROOT r = %s cholesky(p), lower=%v\n}\n", s, s, lower)
				if !validModule(hlo) {
					t.Fatalf("invalid module\n%s", hlo)
				}
				checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{spdLiteral(r, typ, 3, n)}})
			}
		}
	}
}

func TestGenericTriangularSolveAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	for _, typ := range []ir.ElementType{ir.F32, ir.F64, ir.C64, ir.BF16} {
		for _, left := range []bool{true, false} {
			for _, lower := range []bool{true, false} {
				for _, unit := range []bool{true, false} {
					for _, tr := range []string{"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"} {
						m, k := 4, 3
						bd := []int{2, m, k}
						if !left {
							bd = []int{2, k, m}
						}
						a := spdLiteral(r, typ, 2, m) // well-conditioned triangles
						hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  a = %s parameter(0)\n  b = %s parameter(1)\n  ROOT r = %s triangular-solve(a, b), left_side=%v, lower=%v, unit_diagonal=%v, transpose_a=%s\n}\n",
							shapeText(typ, 2, m, m), shapeText(typ, bd...), shapeText(typ, bd...), left, lower, unit, tr)
						if !validModule(hlo) {
							t.Fatalf("invalid module\n%s", hlo)
						}
						checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{a, randomLiteral(r, ir.MakeShape(typ, bd...))}})
					}
				}
			}
		}
	}
}

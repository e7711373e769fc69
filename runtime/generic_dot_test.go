package runtime

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// dotForms are dot operand shapes, result dims and dimension numbers.
var dotForms = []struct {
	l, r, out []int
	attrs     string
}{
	{[]int{3, 4}, []int{4, 5}, []int{3, 5}, "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
	{[]int{4, 3}, []int{5, 4}, []int{3, 5}, "lhs_contracting_dims={0}, rhs_contracting_dims={1}"},
	{[]int{2, 3, 4}, []int{2, 4, 5}, []int{2, 3, 5}, "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}"},
	{[]int{3, 2, 4}, []int{4, 5, 2}, []int{2, 3, 5}, "lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={2}, rhs_contracting_dims={0}"},
	{[]int{2, 3, 6}, []int{3, 6, 2}, []int{2, 2}, "lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}"},
	{[]int{7}, []int{7}, []int{}, "lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
	{[]int{3, 0}, []int{0, 4}, []int{3, 4}, "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
	{[]int{3}, []int{5}, []int{3, 5}, "lhs_contracting_dims={}, rhs_contracting_dims={}"},
}

// Same-type float32 and float64 dots run on the GEMM kernels, whose summation
// order differs; the rest run on the generic dot, exactly.
func TestGenericDotAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(131, 132))
	for _, c := range []struct{ l, r, out ir.ElementType }{
		{ir.S32, ir.S32, ir.S32}, {ir.S8, ir.S8, ir.S32}, {ir.U8, ir.U8, ir.U8}, {ir.BF16, ir.BF16, ir.F32}, {ir.BF16, ir.BF16, ir.BF16},
		{ir.F16, ir.F16, ir.F16}, {ir.C64, ir.C64, ir.C64}, {ir.C128, ir.C128, ir.C128}, {ir.PRED, ir.PRED, ir.PRED},
		{ir.S32, ir.S32, ir.F32}, {ir.F32, ir.F32, ir.C64}, {ir.F16, ir.F16, ir.F64},
	} {
		for _, f := range dotForms {
			l, rr := ir.MakeShape(c.l, f.l...), ir.MakeShape(c.r, f.r...)
			hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  a = %s parameter(0)\n  b = %s parameter(1)\n  ROOT r = %s dot(a, b), %s\n}\n",
				l.StringWithoutLayout(), rr.StringWithoutLayout(), shapeText(c.out, f.out...), f.attrs)
			if !validModule(hlo) {
				continue
			}
			checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, l, rr), allowReference: nil})
		}
	}
}

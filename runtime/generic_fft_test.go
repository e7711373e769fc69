package runtime

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

func TestGenericFFTAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(101, 102))
	for _, c := range []struct {
		typ  string
		in   ir.Shape
		lens []int
	}{
		{"FFT", ir.MakeShape(ir.C64, 3, 8), []int{8}},
		{"IFFT", ir.MakeShape(ir.C128, 2, 12), []int{12}},
		{"FFT", ir.MakeShape(ir.C64, 37), []int{37}}, // Bluestein
		{"IFFT", ir.MakeShape(ir.C64, 2, 6, 5), []int{6, 5}},
		{"FFT", ir.MakeShape(ir.C128, 2, 3, 4, 7), []int{3, 4, 7}},
		{"FFT", ir.MakeShape(ir.C64, 4, 1), []int{1}},
		{"FFT", ir.MakeShape(ir.C64, 0, 4), []int{4}},
		{"RFFT", ir.MakeShape(ir.F32, 3, 10), []int{10}},
		{"RFFT", ir.MakeShape(ir.F64, 2, 9), []int{9}},
		{"RFFT", ir.MakeShape(ir.F32, 4, 6, 41), []int{6, 41}},
		{"IRFFT", ir.MakeShape(ir.C64, 3, 6), []int{10}},
		{"IRFFT", ir.MakeShape(ir.C128, 2, 5), []int{9}},
		{"IRFFT", ir.MakeShape(ir.C64, 5, 3, 4), []int{3, 6}},
	} {
		typ, ok := ir.ParseFFTType(c.typ)
		if !ok {
			t.Fatal(c.typ)
		}
		out := append([]int{}, c.in.Dims...)
		et := c.in.Elem
		lead := len(out) - len(c.lens)
		switch typ {
		case ir.RFFT:
			et = ir.ComplexOf(et)
			out[len(out)-1] = c.lens[len(c.lens)-1]/2 + 1
		case ir.IRFFT:
			et = et.ComplexComponent()
			copy(out[lead:], c.lens)
		}
		hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  ROOT r = %s fft(p), fft_type=%s, fft_length=%s\n}\n",
			c.in.StringWithoutLayout(), shapeText(et, out...), c.typ, dimsText(c.lens))
		if !validModule(hlo) {
			t.Fatalf("invalid module\n%s", hlo)
		}
		in := ir.MustNewLiteral(c.in)
		for i := 0; i < in.ElementCount(); i++ {
			if c.in.Elem.IsComplex() {
				in.SetComplex128At(i, complex(r.NormFloat64(), r.NormFloat64()))
			} else {
				in.SetFloat64At(i, r.NormFloat64())
			}
		}
		checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{in}})
	}
}

package runtime

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// convForms are convolutions the canonical float32 path does not take:
// other dimension orders, base dilation, reversal, groups, 1-D and 3-D.
var convForms = []struct {
	lhs, rhs []int
	attrs    string
}{
	{[]int{2, 3, 6, 5}, []int{4, 3, 3, 2}, "window={size=3x2 pad=1_1x0_1}, dim_labels=bf01_oi01->bf01"},
	{[]int{1, 7, 3}, []int{3, 3, 5}, "window={size=3 stride=2 pad=2_1 lhs_dilate=2}, dim_labels=b0f_0io->b0f"},
	{[]int{2, 8, 4}, []int{3, 2, 6}, "window={size=3 pad=1_1 rhs_reversal=1}, dim_labels=b0f_0io->b0f, feature_group_count=2"},
	{[]int{4, 5, 2}, []int{2, 2, 6}, "window={size=2 stride=2 pad=-1_1}, dim_labels=b0f_0io->b0f, batch_group_count=2"},
	{[]int{1, 4, 4, 3, 2}, []int{2, 2, 2, 2, 3}, "window={size=2x2x2 rhs_dilate=1x2x1}, dim_labels=b012f_012io->b012f"},
	{[]int{5, 3}, []int{3, 4}, "dim_labels=bf_io->bf"},
	{[]int{3, 5, 2}, []int{2, 2, 4}, "window={size=2}, dim_labels=0bf_0io->f0b"},
	{[]int{0, 5, 2}, []int{2, 2, 4}, "window={size=2}, dim_labels=b0f_0io->b0f"},
}

// Float32 convolutions are canonicalised for the convolution kernels, whose
// summation order differs from the evaluator's; bfloat16 and binary16 ones
// in canonical form (the 3-D form here) run on them too, widened, rounding
// each output once as the evaluator does; every other type runs on the
// generic convolution, exactly.
func TestGenericConvolutionAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(141, 142))
	for _, c := range []struct{ l, r, out ir.ElementType }{
		{ir.F16, ir.F16, ir.F16}, {ir.BF16, ir.BF16, ir.F32}, {ir.S8, ir.S8, ir.S32},
		{ir.F64, ir.F64, ir.F64}, {ir.C64, ir.C64, ir.C64}, {ir.S32, ir.S32, ir.S32},
	} {
		for _, f := range convForms {
			l, k := ir.MakeShape(c.l, f.lhs...), ir.MakeShape(c.r, f.rhs...)
			m, err := ir.ParseModule(fmt.Sprintf("HloModule m\nENTRY e {\n  a = %s parameter(0)\n  b = %s parameter(1)\n  ROOT r = f32[1] convolution(a, b), %s\n}\n",
				l.StringWithoutLayout(), k.StringWithoutLayout(), f.attrs))
			if err != nil {
				t.Fatal(err)
			}
			root := m.Entry.Root
			os, err := ir.InferConvolutionShape(l, k, max(root.FeatureGroupCount, 1), max(root.BatchGroupCount, 1), windowOf(root, k), *root.ConvDims, c.out)
			if err != nil {
				t.Fatalf("%v: %s", err, f.attrs)
			}
			hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  a = %s parameter(0)\n  b = %s parameter(1)\n  ROOT r = %s convolution(a, b), %s\n}\n",
				l.StringWithoutLayout(), k.StringWithoutLayout(), os.StringWithoutLayout(), f.attrs)
			if !validModule(hlo) {
				t.Fatalf("invalid module\n%s", hlo)
			}
			checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, l, k)})
		}
	}
}

// windowOf is the convolution's window, or the kernel's spatial sizes when
// the instruction has none.
func windowOf(in *ir.Instruction, k ir.Shape) ir.Window {
	if in.Window != nil {
		return *in.Window
	}
	var w ir.Window
	for _, d := range in.ConvDims.KernelSpatial {
		w.Dims = append(w.Dims, ir.WindowDim{Size: k.Dims[d], Stride: 1, WindowDilation: 1, BaseDilation: 1})
	}
	return w
}

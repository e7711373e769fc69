package runtime

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// depthwiseHLO is a depthwise NHWC convolution of c channels over an h×w
// image (batch images) with a kh×kw kernel of type ty.
func depthwiseHLO(ty ir.ElementType, batch, h, w, c, kh, kw, stride, pad int) string {
	ho := (h+2*pad-kh)/stride + 1
	wo := (w+2*pad-kw)/stride + 1
	x := ir.MakeShape(ty, batch, h, w, c)
	k := ir.MakeShape(ty, kh, kw, 1, c)
	y := ir.MakeShape(ty, batch, ho, wo, c)
	return fmt.Sprintf("HloModule t\n\nENTRY e {\n  x = %s parameter(0)\n  w = %s parameter(1)\n  ROOT y = %s convolution(x, w), window={size=%dx%d stride=%dx%d pad=%d_%dx%d_%d}, dim_labels=b01f_01io->b01f, feature_group_count=%d\n}\n",
		x.StringWithoutLayout(), k.StringWithoutLayout(), y.StringWithoutLayout(), kh, kw, stride, stride, pad, pad, pad, pad, c)
}

// TestLowpDepthwise runs bfloat16 and binary16 depthwise convolutions with
// the weights bound at compile time on the narrow depthwise kernels, at
// every channel tail of the vectors (1 to 256), images of 1 to 56 pixels a
// side, padding 0 and 1, strides 1 and 2, on integer-valued operands whose
// sums are exact: the results must match the reference evaluator bit for
// bit.
func TestLowpDepthwise(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	channels := []int{1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 256}
	sizes := [][2]int{{1, 1}, {2, 2}, {3, 3}, {5, 5}, {7, 9}}
	if testing.Short() {
		channels = []int{1, 17, 64}
	}
	for _, ty := range []ir.ElementType{ir.BF16, ir.F16} {
		run := func(batch, h, w, c, kh, kw, stride, pad int) {
			hlo := depthwiseHLO(ty, batch, h, w, c, kh, kw, stride, pad)
			m, err := ir.ParseModule(hlo)
			if err != nil {
				t.Fatal(err)
			}
			ps := m.Entry.Parameters
			args := []*ir.Literal{smallIntLiteral(r, ps[0].Shape), smallIntLiteral(r, ps[1].Shape)}
			t.Run(fmt.Sprintf("%s/%dx%dx%dx%d/k%dx%d/s%d/p%d", ty, batch, h, w, c, kh, kw, stride, pad), func(t *testing.T) {
				checkBound(t, hlo, args, map[int]*Tensor{1: TensorFromLiteral(args[1].Clone())}, "conv-lowp-depthwise")
			})
		}
		for _, c := range channels {
			for _, s := range sizes {
				for _, stride := range []int{1, 2} {
					for _, pad := range []int{0, 1} {
						if s[0]+2*pad >= 3 && s[1]+2*pad >= 3 {
							run(1, s[0], s[1], c, 3, 3, stride, pad)
						}
					}
				}
			}
		}
		run(1, 56, 56, 256, 3, 3, 1, 1)
		run(2, 56, 56, 33, 3, 3, 2, 1)
		run(2, 11, 13, 24, 5, 5, 1, 2)
		run(1, 9, 17, 40, 1, 3, 1, 1)
	}
}

// TestLowpDepthwiseRandom runs the narrow depthwise kernels on normally
// distributed values with NaN and ±Inf among them against the reference
// evaluator: NaN where it has NaN, the same infinities, and within one
// unit in the last place elsewhere (the kernels fuse each multiply-add).
func TestLowpDepthwiseRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 13))
	for _, ty := range []ir.ElementType{ir.BF16, ir.F16} {
		for _, c := range []int{17, 64, 256} {
			hlo := depthwiseHLO(ty, 1, 14, 15, c, 3, 3, 1, 1)
			m, err := ir.ParseModule(hlo)
			if err != nil {
				t.Fatal(err)
			}
			ps := m.Entry.Parameters
			args := make([]*ir.Literal, 2)
			for i := range args {
				args[i] = ir.MustNewLiteral(ps[i].Shape)
				for j := 0; j < ps[i].Shape.ElementCount(); j++ {
					args[i].SetFloat64At(j, r.NormFloat64())
				}
			}
			n := ps[0].Shape.ElementCount()
			args[0].SetFloat64At(r.IntN(n), math.NaN())
			args[0].SetFloat64At(r.IntN(n), math.Inf(1))
			args[0].SetFloat64At(r.IntN(n), math.Inf(-1))
			want, err := eval.Run(m, args...)
			if err != nil {
				t.Fatal(err)
			}
			exe, err := Compile(m, WithParameter(1, TensorFromLiteral(args[1].Clone())))
			if err != nil {
				t.Fatal(err)
			}
			usesImpl("conv-lowp-depthwise")(t, exe)
			got, err := exe.Run(context.Background(), TensorFromLiteral(args[0].Clone()))
			if err != nil {
				t.Fatal(err)
			}
			nan := 0
			for j := 0; j < want[0].Shape().ElementCount(); j++ {
				if want[0].Float64At(j) != want[0].Float64At(j) {
					nan++
				}
			}
			if nan == 0 {
				t.Fatalf("%s c=%d: no NaN in the reference output; the case tests nothing of NaN", ty, c)
			}
			if msg := compareLiterals(got[0].Literal(), want[0], 1); msg != "" {
				t.Errorf("%s c=%d: %s", ty, c, msg)
			}
		}
	}
}

package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// TestInt8Convolution runs int8 convolutions into int32 (s8×s8 and u8×s8)
// over strides, padding (on any side, past the window), dilation, one to
// three spatial dimensions, batches and channel counts around the int8
// kernels' tiles, with the weights bound and as arguments, on operands
// spanning the whole int8 range (−128 included): the results must match
// the reference evaluator exactly, on the int8 GEMM — or, for groups, on
// the float32 kernels where the sums are exact in float32.
func TestInt8Convolution(t *testing.T) {
	r := rand.New(rand.NewPCG(95, 96))
	cases := []struct {
		xt           ir.ElementType
		x, w, y      []int
		window, dims string
		groups       int
		impl         string
	}{
		{ir.S8, []int{1, 9, 11, 5}, []int{3, 3, 5, 17}, []int{1, 9, 11, 17}, "size=3x3 pad=1_1x1_1", "b01f_01io->b01f", 1, "conv-int8"},
		{ir.U8, []int{2, 8, 7, 64}, []int{3, 3, 64, 70}, []int{2, 8, 7, 70}, "size=3x3 pad=1_1x1_1", "b01f_01io->b01f", 1, "conv-int8"},
		{ir.S8, []int{1, 12, 13, 3}, []int{3, 2, 3, 8}, []int{1, 6, 12, 8}, "size=3x2 stride=2x1 pad=0_1x1_0 rhs_dilate=1x2", "b01f_01io->b01f", 1, "conv-int8"},
		{ir.S8, []int{1, 5, 5, 4}, []int{3, 3, 4, 6}, []int{1, 7, 7, 6}, "size=3x3 pad=2_2x2_2", "b01f_01io->b01f", 1, "conv-int8"},
		{ir.U8, []int{3, 20, 6}, []int{5, 6, 7}, []int{3, 20, 7}, "size=5 pad=2_2", "b0f_0io->b0f", 1, "conv-int8"},
		{ir.S8, []int{1, 4, 5, 3, 2}, []int{2, 2, 2, 2, 3}, []int{1, 3, 4, 2, 3}, "size=2x2x2", "b012f_012io->b012f", 1, "conv-int8"},
		{ir.S8, []int{1, 16, 7, 7}, []int{32, 16, 1, 1}, []int{1, 32, 7, 7}, "size=1x1", "bf01_oi01->bf01", 1, "conv-int8"},
		// Groups: on the float32 kernels, whose sums of at most 512
		// int8 products are exact; more per output stay generic.
		{ir.S8, []int{1, 9, 10, 64}, []int{3, 3, 1, 64}, []int{1, 9, 10, 64}, "size=3x3 pad=1_1x1_1", "b01f_01io->b01f", 64, "conv-lowp"},
		{ir.U8, []int{2, 7, 7, 33}, []int{3, 3, 1, 33}, []int{2, 4, 4, 33}, "size=3x3 stride=2x2 pad=1_1x1_1", "b01f_01io->b01f", 33, "conv-lowp"},
		{ir.S8, []int{1, 6, 6, 64}, []int{3, 3, 16, 64}, []int{1, 6, 6, 64}, "size=3x3 pad=1_1x1_1", "b01f_01io->b01f", 4, "conv-lowp"},
		{ir.S8, []int{1, 5, 5, 128}, []int{3, 3, 64, 64}, []int{1, 5, 5, 64}, "size=3x3 pad=1_1x1_1", "b01f_01io->b01f", 2, "conv-generic"},
	}
	for i, c := range cases {
		hlo := fmt.Sprintf("HloModule q\n\nENTRY e {\n  x = %s parameter(0)\n  w = %s parameter(1)\n  ROOT y = %s convolution(x, w), window={%s}, dim_labels=%s, feature_group_count=%d\n}\n",
			ir.MakeShape(c.xt, c.x...).StringWithoutLayout(), ir.MakeShape(ir.S8, c.w...).StringWithoutLayout(),
			ir.MakeShape(ir.S32, c.y...).StringWithoutLayout(), c.window, c.dims, c.groups)
		m, err := ir.ParseModule(hlo)
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, hlo)
		}
		ps := m.Entry.Parameters
		args := make([]*ir.Literal, 2)
		for j, p := range ps {
			args[j] = ir.MustNewLiteral(p.Shape)
			for e := range p.Shape.ElementCount() {
				v := int64(r.IntN(256))
				if p.Shape.Elem == ir.S8 {
					v -= 128
				}
				args[j].SetInt64At(e, v)
			}
		}
		want, err := eval.Run(m, args...)
		if err != nil {
			t.Fatal(err)
		}
		for _, bound := range []bool{true, false} {
			e, run := compileWeights(t, m, args, bound)
			usesImpl(c.impl)(t, e)
			for rep := 0; rep < 2; rep++ { // the second run reuses the per-run pack
				got, err := e.Run(context.Background(), run...)
				if err != nil {
					t.Fatal(err)
				}
				if msg := compareLiterals(got[0].Literal(), want[0], -1); msg != "" {
					t.Fatalf("case %d bound=%v run %d: %s\n%s", i, bound, rep, msg, hlo)
				}
			}
		}
	}
}

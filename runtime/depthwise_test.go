package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// Depthwise convolutions over channel planes (NCHW, feature_group_count =
// channels) run as the planar kernel, reading the planes in place, and
// agree with the reference evaluator: one and two spatial dimensions,
// padding on any side (none, to more than the window), dilation, batches,
// planes of a few elements and of more than a vector, the weights as
// (channel, 1, …) and (1, channel, …).
func TestPlanarDepthwiseAgainstEval(t *testing.T) {
	cases := []struct {
		batch, c, h, w, kh, kw int
		window                 string
		kernelIO               bool // weights (1, channel, …) rather than (channel, 1, …)
	}{
		{1, 4, 7, 9, 3, 3, "size=3x3 pad=1_1x1_1", false},
		{2, 3, 5, 5, 3, 3, "size=3x3", false},
		{1, 2, 17, 33, 3, 3, "size=3x3 pad=2_0x0_3", true},
		{1, 5, 6, 6, 5, 5, "size=5x5 pad=2_2x2_2", false},
		{1, 3, 9, 11, 3, 3, "size=3x3 pad=2_2x2_2 rhs_dilate=2x2", false},
		{3, 2, 1, 1, 1, 1, "size=1x1", false},
		{1, 2, 4, 4, 3, 2, "size=3x2 pad=3_3x1_1", true},
		{1, 16, 56, 56, 3, 3, "size=3x3 pad=1_1x1_1", false},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			oh := c.h + padSum(c.window, 0) - dil(c.window, 0)*(c.kh-1)
			ow := c.w + padSum(c.window, 1) - dil(c.window, 1)*(c.kw-1)
			kshape, labels := fmt.Sprintf("f32[%d,1,%d,%d]", c.c, c.kh, c.kw), "bf01_oi01->bf01"
			if c.kernelIO {
				kshape, labels = fmt.Sprintf("f32[1,%d,%d,%d]", c.c, c.kh, c.kw), "bf01_io01->bf01"
			}
			text := fmt.Sprintf(`HloModule dw
ENTRY main {
  x = f32[%d,%d,%d,%d] parameter(0)
  k = %s parameter(1)
  ROOT y = f32[%d,%d,%d,%d] convolution(x, k), window={%s}, dim_labels=%s, feature_group_count=%d
}`, c.batch, c.c, c.h, c.w, kshape, c.batch, c.c, oh, ow, c.window, labels, c.c)
			for _, threads := range []int{1, 3} {
				m, e := compileText(t, text, WithThreads(threads))
				if impl := e.Stats().Kernels[0].Impl; len(e.Stats().Kernels) != 1 || impl != "conv-planar-depthwise" {
					t.Fatalf("threads %d: plan\n%s\nwant one conv-planar-depthwise kernel", threads, e.Stats())
				}
				checkAgainstEval(t, m, e, 1e-5)
			}
		})
	}
	// The one-dimensional form.
	m, e := compileText(t, `HloModule dw1
ENTRY main {
  x = f32[2,3,19] parameter(0)
  k = f32[3,1,4] parameter(1)
  ROOT y = f32[2,3,19] convolution(x, k), window={size=4 pad=1_2}, dim_labels=bf0_oi0->bf0, feature_group_count=3
}`)
	if impl := e.Stats().Kernels[0].Impl; impl != "conv-planar-depthwise" {
		t.Fatalf("1-D: plan\n%s", e.Stats())
	}
	checkAgainstEval(t, m, e, 1e-5)
}

// The bfloat16 and binary16 planar kernel on the same cases, one and two
// threads, the weights bound and as arguments, on integer-valued operands
// whose float32 sums are exact: bit for bit the reference evaluator (each
// output rounded once from its float32 sum, as XLA accumulates).
func TestPlanarDepthwiseNarrow(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	cases := []struct {
		batch, c, h, w, kh, kw int
		window                 string
	}{
		{1, 4, 7, 9, 3, 3, "size=3x3 pad=1_1x1_1"},
		{2, 3, 5, 5, 3, 3, "size=3x3"},
		{1, 2, 17, 33, 3, 3, "size=3x3 pad=2_0x0_3"},
		{1, 3, 9, 11, 3, 3, "size=3x3 pad=2_2x2_2 rhs_dilate=2x2"},
		{3, 2, 1, 1, 1, 1, "size=1x1"},
		{1, 16, 28, 28, 3, 3, "size=3x3 pad=1_1x1_1"},
	}
	for _, ty := range []ir.ElementType{ir.BF16, ir.F16} {
		for i, c := range cases {
			oh := c.h + padSum(c.window, 0) - dil(c.window, 0)*(c.kh-1)
			ow := c.w + padSum(c.window, 1) - dil(c.window, 1)*(c.kw-1)
			text := fmt.Sprintf(`HloModule dw
ENTRY main {
  x = %[1]s[%[2]d,%[3]d,%[4]d,%[5]d] parameter(0)
  k = %[1]s[%[3]d,1,%[6]d,%[7]d] parameter(1)
  ROOT y = %[1]s[%[2]d,%[3]d,%[8]d,%[9]d] convolution(x, k), window={%[10]s}, dim_labels=bf01_oi01->bf01, feature_group_count=%[3]d
}`, ty, c.batch, c.c, c.h, c.w, c.kh, c.kw, oh, ow, c.window)
			m, err := ir.ParseModule(text)
			if err != nil {
				t.Fatal(err)
			}
			ps := m.Entry.Parameters
			args := []*ir.Literal{smallIntLiteral(r, ps[0].Shape), smallIntLiteral(r, ps[1].Shape)}
			want, err := eval.Run(m, args...)
			if err != nil {
				t.Fatal(err)
			}
			for _, threads := range []int{1, 2} {
				for _, bound := range []bool{true, false} {
					e, run := compileWeights(t, m, args, bound, WithThreads(threads))
					if ks := e.Stats().Kernels; len(ks) != 1 || ks[0].Impl != "conv-planar-depthwise" {
						t.Fatalf("%s case %d: plan\n%s\nwant one conv-planar-depthwise kernel", ty, i, e.Stats())
					}
					got, err := e.Run(context.Background(), run...)
					if err != nil {
						t.Fatal(err)
					}
					if msg := compareLiterals(got[0].Literal(), want[0], -1); msg != "" {
						t.Errorf("%s case %d threads %d bound %v: %s", ty, i, threads, bound, msg)
					}
				}
			}
		}
	}
}

// padSum and dil read a window's padding and dilation along dimension d
// from its text (the cases above write both dimensions when they pad).
func padSum(window string, d int) int {
	var lo, hi [2]int
	for _, f := range splitFields(window) {
		if n, _ := fmt.Sscanf(f, "pad=%d_%dx%d_%d", &lo[0], &hi[0], &lo[1], &hi[1]); n == 4 {
			return lo[d] + hi[d]
		}
	}
	return 0
}

func dil(window string, d int) int {
	var r [2]int
	for _, f := range splitFields(window) {
		if n, _ := fmt.Sscanf(f, "rhs_dilate=%dx%d", &r[0], &r[1]); n == 2 {
			return r[d]
		}
	}
	return 1
}

func splitFields(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

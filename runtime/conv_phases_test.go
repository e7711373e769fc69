package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// TestTransposedConvolution runs convolutions with base (lhs) dilation —
// transposed convolutions, as jax.lax.conv_transpose writes them — over
// dilations 2 and 3, kernels smaller than, equal to and larger than the
// dilation, symmetric, asymmetric and negative padding, one and two
// spatial dimensions, groups, the NCHW labels, float32 and bfloat16, with
// the weights bound and as arguments, on integer-valued operands (exact
// sums): the results must match the reference evaluator bit for bit, and
// no convolution may run on the generic step.
func TestTransposedConvolution(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	type tcase struct {
		ty             ir.ElementType
		in, k          []int // spatial sizes
		ci, co, groups int
		dil            []int
		padLo, padHi   []int
		nchw           bool
	}
	var cases []tcase
	for _, d := range []int{2, 3} {
		for _, k := range []int{1, 2, 3, 4, 5} {
			for _, pad := range [][2]int{{0, 0}, {k - 1, k - 1}, {k / 2, (k - 1) / 2}, {1, 2}, {-1, 1}} {
				cases = append(cases, tcase{ty: ir.F32, in: []int{7}, k: []int{k}, ci: 3, co: 5, groups: 1, dil: []int{d}, padLo: []int{pad[0]}, padHi: []int{pad[1]}})
			}
		}
	}
	cases = append(cases,
		tcase{ty: ir.F32, in: []int{6, 5}, k: []int{3, 3}, ci: 8, co: 16, groups: 1, dil: []int{2, 2}, padLo: []int{1, 1}, padHi: []int{2, 2}},
		tcase{ty: ir.F32, in: []int{5, 6}, k: []int{4, 3}, ci: 6, co: 9, groups: 3, dil: []int{2, 3}, padLo: []int{2, 0}, padHi: []int{2, 1}},
		tcase{ty: ir.F32, in: []int{4, 4}, k: []int{3, 3}, ci: 4, co: 4, groups: 1, dil: []int{2, 1}, padLo: []int{2, 1}, padHi: []int{2, 1}, nchw: true},
		tcase{ty: ir.BF16, in: []int{6, 5}, k: []int{3, 3}, ci: 8, co: 16, groups: 1, dil: []int{2, 2}, padLo: []int{1, 1}, padHi: []int{2, 2}},
		tcase{ty: ir.F32, in: []int{7, 7}, k: []int{3, 3}, ci: 16, co: 16, groups: 16, dil: []int{2, 2}, padLo: []int{1, 1}, padHi: []int{2, 2}},
	)
	for _, c := range cases {
		ns := len(c.in)
		out := make([]int, ns)
		var win []string
		for i := range out {
			out[i] = (c.in[i]-1)*c.dil[i] + 1 + c.padLo[i] + c.padHi[i] - c.k[i] + 1
			win = append(win, fmt.Sprintf("%d_%d", c.padLo[i], c.padHi[i]))
		}
		join := func(xs []int) string {
			s := make([]string, len(xs))
			for i, x := range xs {
				s[i] = fmt.Sprint(x)
			}
			return strings.Join(s, "x")
		}
		sp := "0"
		if ns == 2 {
			sp = "01"
		}
		labels := fmt.Sprintf("b%sf_%sio->b%sf", sp, sp, sp)
		xs := append(append([]int{1}, c.in...), c.ci)
		ws := append(append([]int{}, c.k...), c.ci/c.groups, c.co)
		ys := append(append([]int{1}, out...), c.co)
		if c.nchw {
			labels = fmt.Sprintf("bf%s_oi%s->bf%s", sp, sp, sp)
			xs = append([]int{1, c.ci}, c.in...)
			ws = append([]int{c.co, c.ci / c.groups}, c.k...)
			ys = append([]int{1, c.co}, out...)
		}
		shape := func(dims []int) string { return ir.MakeShape(c.ty, dims...).StringWithoutLayout() }
		hlo := fmt.Sprintf("HloModule t\n\nENTRY e {\n  x = %s parameter(0)\n  w = %s parameter(1)\n  ROOT y = %s convolution(x, w), window={size=%s pad=%s lhs_dilate=%s}, dim_labels=%s, feature_group_count=%d\n}\n",
			shape(xs), shape(ws), shape(ys), join(c.k), strings.Join(win, "x"), join(c.dil), labels, c.groups)
		m, err := ir.ParseModule(hlo)
		if err != nil {
			t.Fatalf("%v\n%s", err, hlo)
		}
		ps := m.Entry.Parameters
		args := []*ir.Literal{smallIntLiteral(r, ps[0].Shape), smallIntLiteral(r, ps[1].Shape)}
		want, err := eval.Run(m, args...)
		if err != nil {
			t.Fatalf("%v\n%s", err, hlo)
		}
		for _, bound := range []bool{true, false} {
			exe, run := compileWeights(t, m, args, bound)
			for _, k := range exe.Stats().Kernels {
				if k.Impl == "conv-generic" || k.Impl == "reference" {
					t.Errorf("bound=%v: kernel %v runs generically\n%s", bound, k, hlo)
				}
			}
			got, err := exe.Run(context.Background(), run...)
			if err != nil {
				t.Fatal(err)
			}
			if msg := compareLiterals(got[0].Literal(), want[0], -1); msg != "" {
				t.Errorf("bound=%v: %s\n%s", bound, msg, hlo)
			}
		}
	}
}

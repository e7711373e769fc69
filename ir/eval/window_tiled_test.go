package eval

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// hideRoot rewrites a reducer so that no fold recognises it — its root
// behind a select of a true constant between the root and itself — which
// computes the same values and so runs as written, over tiles of outputs.
func hideRoot(red, rootType string) string {
	i := strings.LastIndex(red, "ROOT r = ")
	return red[:i] + "rr = " + red[i+len("ROOT r = "):len(red)-1] +
		fmt.Sprintf("  always = pred[] constant(true)\n  ROOT r = %s select(always, rr, rr)\n}", rootType)
}

// TestTiledReduceWindow checks reduce-windows whose reducer runs as
// written (tiles of outputs, a window offset at a time) against the same
// reducer folded directly (a standard add, JAX's argmax), over windows with
// strides, padding, window and base dilation, bit for bit.
func TestTiledReduceWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	type window struct{ size, stride, lo, hi, lhs, rhs []int }
	windows := []window{
		{[]int{1, 3}, []int{1, 2}, []int{0, 1}, []int{0, 1}, []int{1, 1}, []int{1, 1}},
		{[]int{2, 3}, []int{2, 1}, []int{1, 2}, []int{0, 2}, []int{1, 1}, []int{1, 2}},
		{[]int{3, 2}, []int{1, 3}, []int{0, 0}, []int{1, 0}, []int{2, 1}, []int{1, 1}},
		{[]int{4, 4}, []int{3, 3}, []int{2, 2}, []int{2, 2}, []int{2, 2}, []int{2, 1}},
	}
	for _, typ := range []string{"f32", "s32", "bf16"} {
		et, _ := ir.ParseElementType(typ)
		x := cumulativeInput(t, r, et, []int{23, 29})
		for _, w := range windows {
			win := fmt.Sprintf("size=%dx%d stride=%dx%d pad=%d_%dx%d_%d lhs_dilate=%dx%d rhs_dilate=%dx%d",
				w.size[0], w.size[1], w.stride[0], w.stride[1], w.lo[0], w.hi[0], w.lo[1], w.hi[1], w.lhs[0], w.lhs[1], w.rhs[0], w.rhs[1])
			out := reduceWindowDims([]int{23, 29}, w.size, w.stride, w.lo, w.hi, w.lhs, w.rhs)
			outS := fmt.Sprintf("%s[%d,%d]", typ, out[0], out[1])
			idxS := fmt.Sprintf("s32[%d,%d]", out[0], out[1])
			init := map[string]string{"f32": "-inf", "s32": "-2147483648", "bf16": "-inf"}[typ]
			arg := argReducer(typ, "GT", "LT")
			argMod := func(red string) string {
				return fmt.Sprintf("HloModule m\n%s\nENTRY e {\n  x = %s[23,29] parameter(0)\n  io = s32[23,29] iota(), iota_dimension=1\n  init = %s[] constant(%s)\n  z = s32[] constant(0)\n  ROOT r = (%s, %s) reduce-window(x, io, init, z), window={%s}, to_apply=red\n}",
					red, typ, typ, init, outS, idxS, win)
			}
			sum := binaryReducer(typ, "add")
			sumMod := func(red string) string {
				return fmt.Sprintf("HloModule m\n%s\nENTRY e {\n  x = %s[23,29] parameter(0)\n  init = %s[] constant(1)\n  ROOT r = %s reduce-window(x, init), window={%s}, to_apply=red\n}",
					red, typ, typ, outS, win)
			}
			for _, c := range []struct{ name, direct, hidden string }{
				{"argmax", argMod(arg), argMod(hideRoot(arg, fmt.Sprintf("(%s[], s32[])", typ)))},
				{"add", sumMod(sum), sumMod(hideRoot(sum, typ+"[]"))},
			} {
				t.Run(fmt.Sprintf("%s/%s/%s", typ, c.name, win), func(t *testing.T) {
					want := runModule(t, c.direct, x)
					got := runModule(t, c.hidden, x)
					for i := range want {
						if !bytes.Equal(got[i].Bytes(), want[i].Bytes()) {
							t.Errorf("result %d differs from the direct fold's:\n got %v\nwant %v", i, got[i], want[i])
						}
					}
				})
			}
		}
	}
}

// reduceWindowDims is the output dimensions of a window over a base of
// dimensions dims: sizes, strides, padding, base (lhs) and window (rhs)
// dilations per dimension.
func reduceWindowDims(dims, size, stride, lo, hi, lhs, rhs []int) []int {
	var out []int
	for d, n := range dims {
		base := (n-1)*lhs[d] + 1 + lo[d] + hi[d]
		w := (size[d]-1)*rhs[d] + 1
		out = append(out, (base-w)/stride[d]+1)
	}
	return out
}

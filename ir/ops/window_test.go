package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// TestWindowTaps checks the progressions of base indices a window covers
// along one dimension against the window's definition, element by
// element: window element k lies at o·stride − pad_low + k·dilation of the
// padded base, dilated by the base dilation, and covers a base element
// where that position is one.
func TestWindowTaps(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 20000; i++ {
		wd := ir.WindowDim{Size: r.IntN(7), Stride: 1 + r.IntN(3), PadLow: r.IntN(6) - 1, PadHigh: r.IntN(6) - 1,
			WindowDilation: 1 + r.IntN(4), BaseDilation: 1 + r.IntN(4)}
		base := r.IntN(9)
		padded := Dilated(base, wd.BaseDilation) + wd.PadLow + wd.PadHigh
		out := WindowCount(padded, Dilated(wd.Size, wd.WindowDilation), wd.Stride)
		for o := 0; o < out; o++ {
			var want []int
			for k := 0; k < wd.Size; k++ {
				u := o*wd.Stride - wd.PadLow + k*wd.WindowDilation
				if u >= 0 && u%wd.BaseDilation == 0 && u/wd.BaseDilation < base {
					want = append(want, u/wd.BaseDilation)
				}
			}
			got := windowTaps(o*wd.Stride-wd.PadLow, wd, base)
			ok := got.n == len(want)
			for j := 0; ok && j < got.n; j++ {
				ok = got.first+j*got.step == want[j]
			}
			if !ok {
				t.Fatalf("window %+v over %d, output %d: taps %+v, want %v", wd, base, o, got, want)
			}
		}
	}
}

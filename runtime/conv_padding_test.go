package runtime

import (
	"context"
	"math"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// A convolution with weights given at run time, padding, and an infinite
// weight on a tap that falls on the padding for the border pixels: as XLA's
// evaluator, the tap contributes nothing there (im2col's 0·Inf would make
// them NaN); the interior pixels, whose tap reads the input, are infinite.
func TestConvolutionSkipsPaddingTaps(t *testing.T) {
	m, err := ir.ParseModule(`HloModule m
ENTRY e {
  x = f32[1,4,4,2] parameter(0)
  w = f32[3,3,2,3] parameter(1)
  ROOT c = f32[1,4,4,3] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}`)
	if err != nil {
		t.Fatal(err)
	}
	x := ir.MustNewLiteral(ir.MakeShape(ir.F32, 1, 4, 4, 2))
	for i := range x.Float32s() {
		x.Float32s()[i] = float32(i%7) * 0.25
	}
	w := ir.MustNewLiteral(ir.MakeShape(ir.F32, 3, 3, 2, 3))
	for i := range w.Float32s() {
		w.Float32s()[i] = float32(i%5) - 2
	}
	w.Float32s()[0] = float32(math.Inf(1)) // tap (0, 0): on the padding for the top row and left column
	want, err := eval.Run(m, x, w)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := e.Run(context.Background(), TensorFromLiteral(x), TensorFromLiteral(w))
	if err != nil {
		t.Fatal(err)
	}
	got := outs[0].Float32s()
	nans := 0
	for i, v := range want[0].Float32s() {
		g := got[i]
		if v != v {
			nans++
		}
		if (v != v) != (g != g) || (v == v && math.Abs(float64(g-v)) > 1e-5*math.Max(1, math.Abs(float64(v))) && g != v) {
			t.Errorf("element %d is %v, want %v", i, g, v)
		}
	}
	if nans == len(got) {
		t.Errorf("every element of the reference is NaN: the test does not separate padding taps")
	}
}

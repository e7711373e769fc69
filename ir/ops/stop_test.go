package ops

import (
	"bytes"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// flag is a Stop whose answer the test sets.
type flag bool

func (f *flag) Stopped() bool { return bool(*f) }

// TestRunUntilStops runs a dot, a transpose and a top-k through RunUntil: with a Stop
// that never stops they write what Run writes, and with a stopped one they
// return without writing their outputs.
func TestRunUntilStops(t *testing.T) {
	const n = 200
	x := make([]byte, n*n*4)
	for i := range n * n {
		Elems[float32](x)[i] = float32(i%37) - 18
	}
	dot, err := NewDot(ir.F32, []int{n, n}, ir.F32, []int{n, n}, DefaultDotDims(2), ir.F32)
	if err != nil {
		t.Fatal(err)
	}
	topk, err := NewTopK(ir.F32, []int{n, n}, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := Transpose(4, []int{n, n}, []int{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	runs := []struct {
		name string
		out  int // bytes
		run  func(stop Stop, out []byte)
	}{
		{"dot", n * n * 4, func(stop Stop, out []byte) {
			dot.RunUntil(stop, out, x, x, make([]byte, dot.WorkBytes()))
		}},
		{"transpose", n * n * 4, func(stop Stop, out []byte) { tr.RunUntil(stop, out, x, 0, 0) }},
		{"topk", n * 5 * 8, func(stop Stop, out []byte) {
			topk.RunUntil(stop, out[:n*5*4], out[n*5*4:], x, make([]byte, topk.WorkBytes()))
		}},
	}
	for _, r := range runs {
		want, got := make([]byte, r.out), make([]byte, r.out)
		r.run(nil, want)
		var never flag
		r.run(&never, got)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: RunUntil with a Stop that never stops differs from Run", r.name)
		}
		stopped := flag(true)
		clear(got)
		r.run(&stopped, got)
		if !bytes.Equal(got, make([]byte, r.out)) {
			t.Errorf("%s: RunUntil with a stopped Stop wrote its output", r.name)
		}
	}
}

package runtime

import (
	"context"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// A token among a module's results comes back from Run as a token tensor
// (no bytes), and RunInto takes one; a token parameter is passed the same
// way.
func TestTokenResults(t *testing.T) {
	m, err := ir.ParseModule(`HloModule m
ENTRY e {
  t = token[] parameter(0)
  x = f32[2] parameter(1)
  a = token[] after-all(t)
  d = f32[2] add-dependency(x, a)
  ROOT r = (f32[2], token[]) tuple(d, a)
}`)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := NewTensor(ir.TokenShape())
	if err != nil {
		t.Fatal(err)
	}
	x, err := TensorFromSlice([]float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := e.Run(context.Background(), tok, x)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 2 || !outs[1].Shape().IsToken() || outs[1].Literal().String() != "token[]" {
		t.Fatalf("results %v, want the array and a token", outs)
	}
	if got := outs[0].Float32s(); got[0] != 1 || got[1] != 2 {
		t.Errorf("array result %v, want [1 2]", got)
	}
	if err := e.RunInto(context.Background(), outs, tok, x); err != nil {
		t.Errorf("RunInto with a token result: %v", err)
	}
}

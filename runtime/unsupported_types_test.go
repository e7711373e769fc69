package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// Values the compiler has no representation for (buffers) are refused by
// name, never computed.
func TestCompileRefusesUnsupportedElementTypes(t *testing.T) {
	text := "HloModule m\nENTRY e {\n  p = f32[16] parameter(0)\n  ROOT b = b(f32[16]) custom-call(p), custom_call_target=\"Pin\"\n}"
	m, err := ir.ParseModule(text)
	if err != nil {
		t.Fatal(err)
	}
	want := "b (custom-call) has a value of element type buffer"
	if _, err := Compile(m); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Compile: %v, want %q", err, want)
	}
}

// The narrow element types of newer XLA compile and compute: a sum in
// f8e4m3fnuz, and two-bit integers that wrap (1+1 = -2, -2+-2 = 0 in s2).
func TestCompileNarrowElementTypes(t *testing.T) {
	for _, tc := range []struct{ text, arg, want string }{
		{"HloModule m\nENTRY e {\n  p = f8e4m3fnuz[4] parameter(0)\n  ROOT r = f8e4m3fnuz[4] add(p, p)\n}",
			"f8e4m3fnuz[4] {1, 2, 3, 0.5}", "f8e4m3fnuz[4] {2, 4, 6, 1}"},
		{"HloModule m\nENTRY e {\n  p = s2[2] parameter(0)\n  c = s2[2] constant({1, -2})\n  ROOT r = s2[2] add(p, c)\n}",
			"s2[2] {1, -2}", "s2[2] {-2, 0}"},
	} {
		m, err := ir.ParseModule(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		exe, err := Compile(m)
		if err != nil {
			t.Fatalf("Compile: %v", err)
		}
		arg, err := ir.ParseLiteral(tc.arg)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := exe.Run(context.Background(), TensorFromLiteral(arg))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got := outs[0].Literal().String(); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

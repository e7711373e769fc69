package runtime

import (
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// Element types the ir package reads but the compiler does not handle yet
// (those outside ir.ElementTypes) are refused by name, never computed.
func TestCompileRefusesUnsupportedElementTypes(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"HloModule m\nENTRY e {\n  p = f8e4m3fnuz[4] parameter(0)\n  ROOT r = f8e4m3fnuz[4] add(p, p)\n}",
			"p (parameter) has a value of element type f8e4m3fnuz"},
		{"HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  c = s2[2] constant({1, -2})\n  ROOT t = (f32[4], s2[2]) tuple(p, c)\n}",
			"c (constant) has a value of element type s2"},
		{"HloModule m\nENTRY e {\n  p = f32[16] parameter(0)\n  ROOT b = b(f32[16]) custom-call(p), custom_call_target=\"Pin\"\n}",
			"b (custom-call) has a value of element type buffer"},
	} {
		m, err := ir.ParseModule(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Compile(m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile: %v, want %q", err, tc.want)
		}
	}
}

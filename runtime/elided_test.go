package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// Compile refuses a module with a constant printed as {...}, naming it, and
// with WithElidedConstants takes the values the function supplies.
func TestCompileElidedConstants(t *testing.T) {
	const text = `HloModule m
ENTRY e {
  p = s32[4] parameter(0)
  c = s32[4] constant({...})
  ROOT r = s32[4] add(p, c)
}`
	m, err := ir.ParseModule(text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(m); err == nil || !strings.Contains(err.Error(), `constant "c" of shape s32[4] has its value elided`) {
		t.Fatalf("Compile without values: %v", err)
	}
	// XLA's deterministic fill: the words 0, 1, 2, 3.
	e, err := Compile(m, WithElidedConstants(ir.NewElidedConstantFiller()))
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Run(context.Background(), TensorFromLiteral(ir.MustLiteralFromSlice([]int32{10, 20, 30, 40})))
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Literal().String(); got != "s32[4] {10, 21, 32, 43}" {
		t.Errorf("result %s, want s32[4] {10, 21, 32, 43}", got)
	}
	// A caller's own values.
	m2, _ := ir.ParseModule(text)
	seven := func(c *ir.Instruction) (*ir.Literal, error) {
		return ir.MustLiteralFromSlice([]int32{7, 7, 7, 7}), nil
	}
	e2, err := Compile(m2, WithElidedConstants(seven))
	if err != nil {
		t.Fatal(err)
	}
	out, err = e2.Run(context.Background(), TensorFromLiteral(ir.MustLiteralFromSlice([]int32{1, 2, 3, 4})))
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Literal().String(); got != "s32[4] {8, 9, 10, 11}" {
		t.Errorf("result %s, want s32[4] {8, 9, 10, 11}", got)
	}
}

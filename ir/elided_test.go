package ir

import (
	"strings"
	"testing"
)

// TestElidedConstantFiller checks XLA's fill of constants printed as
// {...}: 32-bit little-endian words counting up across constants, PRED
// masked to its low bit, the trailing bytes of a size that is not a
// multiple of four from an 8-bit counter written at offset size/4+i, and
// sub-byte types cut to their bits.
func TestElidedConstantFiller(t *testing.T) {
	m, err := ParseModule(`HloModule m
ENTRY e {
  a = s32[3] constant({...})
  b = pred[8] constant({...})
  c = u8[6] constant({...})
  d = s4[4] constant({...})
  e = f32[2] constant({0, 1})
  ROOT t = (s32[3], pred[8], u8[6], s4[4], f32[2]) tuple(a, b, c, d, e)
}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.ElidedConstants()); n != 4 {
		t.Fatalf("%d elided constants, want 4", n)
	}
	if err := m.FillElidedConstants(NewElidedConstantFiller()); err != nil {
		t.Fatal(err)
	}
	// a: words 0, 1, 2. b: words 3 and 4 masked with 0x01010101: bytes
	// 1,0,0,0 then 0,0,0,0. c: word 5 (bytes 5,0,0,0), then the 2 trailing
	// bytes 0 and 1 written at offsets 6/4+0 = 1 and 2. d: word 6, bytes
	// 6,0,0,0, as s4 values 6, 0, 0, 0.
	want := map[string]string{
		"a": "{0, 1, 2}",
		"b": "{true, false, false, false, false, false, false, false}",
		"c": "{5, 0, 1, 0, 0, 0}",
		"d": "{6, 0, 0, 0}",
	}
	for name, w := range want {
		in := m.Entry.Instruction(name)
		if in.LiteralElided || in.Literal == nil {
			t.Fatalf("%s still elided", name)
		}
		if got := in.Literal.ValueString(); got != w {
			t.Errorf("%s = %s, want %s", name, got, w)
		}
	}
	if err := m.Verify(); err != nil {
		t.Errorf("filled module does not verify: %v", err)
	}
	// The filled module prints its values and reads back.
	if strings.Contains(m.String(), "{...}") {
		t.Error("filled module still prints {...}")
	}
	if _, err := ParseModule(m.String()); err != nil {
		t.Error(err)
	}
}

// TestParseElidedAndScalarConstants covers the constant forms XLA writes
// for values it does not print in full: `{...}` (any array rank of 1 or
// more, refused for scalars) and a single value given for an array, which
// XLA's parser takes as element 0 of a zero array.
func TestParseElidedAndScalarConstants(t *testing.T) {
	in := parseOne(t, "", "r = f32[2,3] constant({...})")
	if !in.LiteralElided || in.Literal != nil {
		t.Errorf("elided: %+v", in.Attrs)
	}
	if got := in.String(); got != "%r = f32[2,3] constant({...})" {
		t.Errorf("prints %s", got)
	}
	in = parseOne(t, "", "r = s32[2,3] constant(7)")
	if got := in.Literal.String(); got != "s32[2,3] {{7, 0, 0}, {0, 0, 0}}" {
		t.Errorf("single value for an array: %s", got)
	}
	// It prints back as written while the literal is what the value stands
	// for, and in full once it is not.
	if got := in.String(); got != "%r = s32[2,3] constant(7)" {
		t.Errorf("prints %s", got)
	}
	Set[int32](in.Literal, 5, 1, 2)
	if got := in.String(); got != "%r = s32[2,3] constant({{7, 0, 0}, {0, 0, 5}})" {
		t.Errorf("changed, prints %s", got)
	}
	for _, tc := range []struct{ line, want string }{
		{"r = f32[] constant({...})", "an elided value {...} needs an array shape of rank 1 or more"},
		{"r = f32[0] constant(1)", "which has no elements"},
		{"r = u8[2] constant(300)", "out of range for u8"},
	} {
		_, err := ParseModule("HloModule m\nENTRY e {\n  " + tc.line + "\n}")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.line, err, tc.want)
		}
	}
}

package ir

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// FuzzParseLiteral checks that no input panics the literal parser, that
// every error is positioned, and that whatever parses prints and parses back
// to a bit-identical literal that prints the same.
func FuzzParseLiteral(f *testing.F) {
	seeds := []string{
		"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[] 1.5", "pred[2] {true, false}", "pred[3] {1, 0, 1}", "pred[] true",
		"c64[2] {(1, 2), (3, -4)}", "c128[] (0.1, -inf)", "(f32[], s32[2]) (1, {1, 2})", "( f32[] 1, s32[2] {1, 2} )",
		"(\nf32[] 1,\ns32[2] {1, 2}\n)", "token[]", "token", "() ()", "((), token[]) ((), token)", "f32[0] {}", "f32[2,0] {{}, {}}",
		"f32[<=10](3) {1, 2, 3}", "f32[<=4,2] {{1, 2}}", "f32[2,2]{0,1} {{1, 2}, {3, 4}}", "f32[2,2]{1,0:T(2,128)(2,1)E(32)S(1)} {{1,2},{3,4}}",
		"f32[2,2] {\n  { 1, 2 },\n  { 3, 4 }\n}", "f32[1,1,1,2] {\n{ /*i0=0*/\n{ /*i1=0*/\n  { 1, 2 }\n}\n}\n}",
		"f32[4] {nan, -nan, nan(0x1), -inf}", "f64[2] {0.30000000000000004, 4.94065645841247e-324}",
		"f16[3] {0.1, 6.55e+04, nan(0x1ff)}", "bf16[3] {0.1001, 3.39e+38, -nan}", "f8e5m2[3] {0.9, 6e+04, nan(0x3)}",
		"f8e4m3fn[3] {448, 464, -nan}", "s4[2] {-8, 7}", "u4[2] {15, 0x0}", "s8[2] {-0x80, 127}", "s16[1] {-32768}",
		"s32[2] {2147483647, -2147483648}", "s64[1] {-9223372036854775808}", "u8[1] {255}", "u16[1] {65535}",
		"u32[1] {0xFFFFFFFF}", "u64[1] {18446744073709551615}", "f32[2] {1., .5e-3}",
		// Errors.
		"f32[2] {1 2}", "s8[1] {128}", "f16[] 70000", "f32[2] {...}", "f32[] 1 /* x", "f32[?] {}", "(f32[] 1, s32[])",
		"f32[<=2](3) {1, 2, 3}", "f8e4m3fn[] nan(0x1)", "c64[] (1 2)", "((((", "f32[2]{1,0} {1, 2}", "-", "nan(",
		// Literals whose shapes claim far more than their text holds (the
		// hostile-file probes' --arg values): 8 GB, 20 GB (beyond the
		// per-tensor cap), an overflowing element count.
		"f32[2000000000] {1}", "f32[5000000000] {1}", "f32[2048,1024,1024] {...}", "s8[4294967296,4294967296,4294967296] {}",
		"(f32[2000000000], s32[]) ({1}, 2)",
	}
	rng := rand.New(rand.NewPCG(5, 9))
	for _, et := range AllElementTypes {
		seeds = append(seeds, randomLiteral(rng, MakeShape(et, 2, 2)).String(), randomLiteral(rng, Scalar(et)).String())
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		l, err := ParseLiteral(text)
		if err != nil {
			var se *LiteralSyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 || se.Offset < 0 || se.Offset > len(text) {
				t.Fatalf("ParseLiteral(%q): error without a valid position: %v", text, err)
			}
			return
		}
		printed := l.String()
		back, err := ParseLiteral(printed)
		if err != nil {
			t.Fatalf("ParseLiteral(%q) printed %q, which does not parse: %v", text, printed, err)
		}
		if !back.Equal(l) {
			t.Fatalf("ParseLiteral(%q) printed %q, which parses to %q", text, printed, back.String())
		}
		if again := back.String(); again != printed {
			t.Fatalf("%q reprints as %q", printed, again)
		}
		value, err := ParseLiteralValue(l.Shape(), l.ValueString())
		if err != nil || !value.Equal(l) {
			t.Fatalf("ParseLiteralValue(%v, %q): %v", l.Shape(), l.ValueString(), err)
		}
	})
}

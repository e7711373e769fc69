package ir

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustParseLiteral(t *testing.T, text string) *Literal {
	t.Helper()
	l, err := ParseLiteral(text)
	if err != nil {
		t.Fatalf("ParseLiteral(%q): %v", text, err)
	}
	return l
}

func TestLiteralStringForms(t *testing.T) {
	dyn := MustNewLiteral(MakeDynamicShape(F32, []int{3}, []bool{true}))
	copy(dyn.Float32s(), []float32{1, 2, 3})
	colMajor := MustNewLiteral(MakeShape(S32, 2, 2).WithLayout(MakeLayout(0, 1)))
	copy(colMajor.Int32s(), []int32{1, 2, 3, 4})
	s4 := MustLiteralFromSlice([]Int4{-8, 7, 0})
	u4 := MustLiteralFromSlice([]Uint4{15, 0})
	for _, tc := range []struct {
		lit  *Literal
		want string
	}{
		{MustLiteralFromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3), "f32[2,3] {{1, 2, 3}, {4, 5, 6}}"},
		{ScalarLiteral[float32](1.5), "f32[] 1.5"},
		{MustLiteralFromSlice([]bool{true, false}), "pred[2] {true, false}"},
		{ScalarLiteral(true), "pred[] true"},
		{MustLiteralFromSlice([]complex64{complex(1, 2), complex(3, -4)}), "c64[2] {(1, 2), (3, -4)}"},
		{NewTupleLiteral(ScalarLiteral[float32](1), MustLiteralFromSlice([]int32{1, 2})), "(f32[], s32[2]) (1, {1, 2})"},
		{NewTokenLiteral(), "token[]"},
		{MustLiteralFromSlice([]float32{}), "f32[0] {}"},
		{MustLiteralFromSlice([]float32{}, 2, 0), "f32[2,0] {{}, {}}"},
		{MustLiteralFromSlice([]float32{}, 0, 2), "f32[0,2] {}"},
		{dyn, "f32[<=3](3) {1, 2, 3}"},
		{colMajor, "s32[2,2]{0,1} {{1, 2}, {3, 4}}"},
		{s4, "s4[3] {-8, 7, 0}"},
		{u4, "u4[2] {15, 0}"},
		{MustLiteralFromSlice([]int64{math.MinInt64, math.MaxInt64}), "s64[2] {-9223372036854775808, 9223372036854775807}"},
		{MustLiteralFromSlice([]uint64{math.MaxUint64}), "u64[1] {18446744073709551615}"},
		{MustLiteralFromSlice([]float64{0.1, 1.0 / 3, 1e300, math.Inf(-1)}), "f64[4] {0.1, 0.33333333333333331, 1e+300, -inf}"},
		{MustLiteralFromSlice([]float32{0.1, 1e10, 1.5e-7, math.MaxFloat32, float32(math.Sqrt2), -0.0}),
			"f32[6] {0.1, 1e+10, 1.5e-07, 3.40282347e+38, 1.41421354, 0}"},
		{MustLiteralFromSlice([]float32{float32(math.Copysign(0, -1)), math.Float32frombits(0x7fc00000), math.Float32frombits(0xffc00000),
			math.Float32frombits(0x7f800001), math.Float32frombits(0x00000001)}),
			"f32[5] {-0, nan, -nan, nan(0x1), 1.4013e-45}"},
		{MustLiteralFromSlice([]Float16{0x3c00, 0x2e66, 0x7bff, 0x0001, 0x7c00, 0xfe00, 0x7c01}),
			"f16[7] {1, 0.099976, 65504, 5.9605e-08, inf, -nan, nan(0x1)}"},
		{MustLiteralFromSlice([]BFloat16{0x3f80, 0x3dcd, 0x7f7f, 0xffc0, 0x4049}),
			"bf16[5] {1, 0.1001, 3.39e+38, -nan, 3.141}"},
		{MustLiteralFromSlice([]Float8E5M2{0x3c, 0x3f, 0x7b, 0x01, 0x7e, 0x7d, 0xfc}),
			"f8e5m2[7] {1, 1.8, 5.7e+04, 1.5e-05, nan, nan(0x1), -inf}"},
		{MustLiteralFromSlice([]Float8E4M3FN{0x38, 0x7e, 0x01, 0x7f, 0xff, 0x3a}),
			"f8e4m3fn[6] {1, 448, 0.00195, nan, -nan, 1.25}"},
		{NewTupleLiteral(), "() ()"},
		{NewTupleLiteral(NewTupleLiteral(), NewTokenLiteral()), "((), token[]) ((), token)"},
	} {
		if got := tc.lit.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	if got := MustLiteralFromSlice([]int32{1, 2, 3, 4}, 2, 2).ValueString(); got != "{{1, 2}, {3, 4}}" {
		t.Errorf("ValueString = %q", got)
	}
	if got := NewTupleLiteral(ScalarLiteral[int32](1), MustLiteralFromSlice([]int32{1, 2})).ValueString(); got != "(1, {1, 2})" {
		t.Errorf("tuple ValueString = %q", got)
	}
}

// TestFormatFloatMatchesC compares with strings printed by a C program that
// applies the same rule with glibc's printf("%.*g") and strtof/strtod (F32,
// F64) and gcc's _Float16 (F16); the BF16 and F8 strings are worked out by
// hand from the types' neighbouring values.
func TestFormatFloatMatchesC(t *testing.T) {
	for _, tc := range []struct {
		t    ElementType
		v    float64
		want string
	}{
		{F32, 1e6, "1e+06"},
		{F32, 100000, "100000"},
		{F32, 123456789, "123456792"},
		{F32, 0.0001, "0.0001"},
		{F32, 0.00001, "1e-05"},
		{F32, 1e-5 * 1024, "0.01024"},
		{F32, 16777216, "16777216"},
		{F32, 33554432, "33554432"},
		{F32, 1.0 / 3, "0.333333343"},
		{F32, 2.5, "2.5"},
		{F32, math.SmallestNonzeroFloat32, "1.4013e-45"},
		{F32, 0.1, "0.1"},
		{F32, 1e10, "1e+10"},
		{F32, 1.5e-7, "1.5e-07"},
		{F32, math.MaxFloat32, "3.40282347e+38"},
		{F32, math.Sqrt2, "1.41421354"},
		{F32, 0.7, "0.7"},
		{F32, 1234567, "1234567"},
		{F32, 9999999, "9999999"},
		{F32, 1e-3, "0.001"},
		{F64, 1e21, "1e+21"},
		{F64, 123456789012345678, "1.2345678901234568e+17"},
		{F64, math.Float64frombits(0x3fd3333333333334), "0.30000000000000004"}, // 0.1 + 0.2
		{F64, 5e-324, "4.94065645841247e-324"},
		{F64, 1e-5, "1e-05"},
		{F64, 0.1, "0.1"},
		{F64, 1.0 / 3, "0.33333333333333331"},
		{F64, 1e300, "1e+300"},
		{F64, 1e15, "1e+15"},
		{F64, 1e16, "1e+16"},
		{F64, 123456789012345.6, "123456789012345.59"},
		{F16, 0.5, "0.5"},
		{F16, 2048, "2048"},
		{F16, 0.1, "0.099976"},
		{F16, 65504, "65504"},
		{F16, math.Ldexp(1, -24), "5.9605e-08"},
		{F16, 1.0 / 3, "0.33325"},
		{F16, 1000, "1000"},
		{F16, 1e-4, "0.00010002"},
		{F16, 3.140625, "3.1406"},
		{F16, math.Ldexp(1, -14), "6.1035e-05"},
		{BF16, 256, "256"},         // 300 and 260 are bf16 values
		{BF16, 3.140625, "3.141"},  // %.4g, bf16's max_digits10
		{BF16, 0.1, "0.1001"},      // 0x3dcd is 0.10009765625
		{F8E5M2, 1.75, "1.8"},      // %.2g
		{F8E5M2, 57344, "5.7e+04"}, // %.2g
		{F8E5M2, 0.875, "0.88"},    // %.2g
		{F8E4M3FN, 448, "448"},     // %.3g
		{F8E4M3FN, 1.25, "1.25"},   // %.3g
		{F8E4M3FN, math.Ldexp(1, -9), "0.00195"},
		{F32, math.Inf(1), "inf"},
		{F64, math.Inf(-1), "-inf"},
		{F64, math.Float64frombits(0x7ff8000000000000), "nan"},
		{F64, math.NaN(), "nan(0x8000000000001)"}, // Go's NaN has a payload bit
		{F64, math.Float64frombits(0xfff8000000000000), "-nan"},
		{F64, math.Copysign(0, -1), "-0"},
		{C64, 0.1, "0.1"}, // the component type: f32
	} {
		if got := FormatFloat(tc.t, tc.v); got != tc.want {
			t.Errorf("FormatFloat(%v, %v) = %q, want %q", tc.t, tc.v, got, tc.want)
		}
	}
}

// TestParseXLAForms parses text in the forms XLA writes (Literal::ToString,
// ToStringOneline, HLO constant bodies) and compares with literals built
// directly.
func TestParseXLAForms(t *testing.T) {
	f32x := func(dims []int, v ...float32) *Literal { return MustLiteralFromSlice(v, dims...) }
	for _, tc := range []struct {
		text string
		want *Literal
	}{
		{"f32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5, 6 }\n}", f32x([]int{2, 3}, 1, 2, 3, 4, 5, 6)},
		{"f32[2,2] { { 1, 2 }, { 3, 4 } }", f32x([]int{2, 2}, 1, 2, 3, 4)},
		{"f32[2,1,1,2] {\n{ /*i0=0*/\n{ /*i1=0*/\n  { 1, 2 }\n}\n},\n{ /*i0=1*/\n{ /*i1=0*/\n  { 3, 4 }\n}\n}\n}",
			f32x([]int{2, 1, 1, 2}, 1, 2, 3, 4)},
		{"pred[3] {1, 0, 1}", MustLiteralFromSlice([]bool{true, false, true})},
		{"pred[] false", ScalarLiteral(false)},
		{"(\nf32[] 1,\ns32[2] {1, 2}\n)", NewTupleLiteral(ScalarLiteral[float32](1), MustLiteralFromSlice([]int32{1, 2}))},
		{"( f32[] 1, token )", NewTupleLiteral(ScalarLiteral[float32](1), NewTokenLiteral())},
		{"( ( s32[] 1 ), ( ) )", NewTupleLiteral(NewTupleLiteral(ScalarLiteral[int32](1)), NewTupleLiteral())},
		{"token", NewTokenLiteral()},
		{"u32[2] {0xFFFFFFFF, 0x10}", MustLiteralFromSlice([]uint32{math.MaxUint32, 16})},
		{"s8[2] {-0x80, -0}", MustLiteralFromSlice([]int8{-128, 0})},
		{"f32[6] {1., .5, -2.5E+3, 1e-2, 7, -0}", f32x(nil, 1, 0.5, -2500, 0.01, 7, float32(math.Copysign(0, -1)))},
		{"f32[3] {inf, -inf, nan}", f32x(nil, float32(math.Inf(1)), float32(math.Inf(-1)), math.Float32frombits(0x7fc00000))},
		{"f32[2] {nan(0x400001), -nan}", f32x(nil, math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00000))},
		{"f64[] -nan(0x1)", ScalarLiteral(math.Float64frombits(0xfff0000000000001))},
		{"c64[2] {(1, 0), (-0.5, inf)}", MustLiteralFromSlice([]complex64{1, complex(-0.5, float32(math.Inf(1)))})},
		{"c128[] (0.1, -2)", ScalarLiteral(complex(0.1, -2))},
		{"bf16[3] {0.1001, 3.141, -nan}", MustLiteralFromSlice([]BFloat16{0x3dcd, 0x4049, 0xffc0})},
		{"f16[3] {0.099976, 65504, 5.9605e-08}", MustLiteralFromSlice([]Float16{0x2e66, 0x7bff, 0x0001})},
		{"f8e5m2[3] {0.88, 5.7e+04, nan(0x3)}", MustLiteralFromSlice([]Float8E5M2{0x3b, 0x7b, 0x7f})},
		{"f8e4m3fn[3] {448, 464, -nan}", MustLiteralFromSlice([]Float8E4M3FN{0x7e, 0x7e, 0xff})},
		{"s4[4] {-8, 7, -1, 0}", MustLiteralFromSlice([]Int4{-8, 7, -1, 0})},
		{"u4[2] {15, 0x0}", MustLiteralFromSlice([]Uint4{15, 0})},
		{"u64[1] {18446744073709551615}", MustLiteralFromSlice([]uint64{math.MaxUint64})},
		{"s64[1] {-9223372036854775808}", MustLiteralFromSlice([]int64{math.MinInt64})},
		{"f32[2] {1, // one\n 2}", f32x(nil, 1, 2)},
		{"f32[] 16777217", ScalarLiteral[float32](16777216)},
		{"f32[] 3.4028235e+38", ScalarLiteral[float32](math.MaxFloat32)}, // rounds down to the largest finite
	} {
		got, err := ParseLiteral(tc.text)
		if err != nil {
			t.Errorf("ParseLiteral(%q): %v", tc.text, err)
			continue
		}
		if !got.Equal(tc.want) {
			t.Errorf("ParseLiteral(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}

	// Shapes: dynamic sizes, layouts with tiles.
	dyn := mustParseLiteral(t, "f32[<=10,2](3,2) {{1, 2}, {3, 4}, {5, 6}}")
	if s := dyn.Shape(); !s.Equal(MakeDynamicShape(F32, []int{3, 2}, []bool{true, false})) {
		t.Errorf("dynamic literal shape %v", s)
	}
	if got := dyn.String(); got != "f32[<=3,2](3,2) {{1, 2}, {3, 4}, {5, 6}}" {
		t.Errorf("dynamic literal prints %q", got)
	}
	inferred := mustParseLiteral(t, "s32[<=4] {7, 8}")
	if s := inferred.Shape(); s.Dims[0] != 2 || !s.IsDynamicDim(0) {
		t.Errorf("s32[<=4] {7, 8} has shape %v", s)
	}
	tiled := mustParseLiteral(t, "f32[2,2]{1,0:T(2,128)(2,1)E(32)S(1)} {{1,2},{3,4}}")
	if got := tiled.String(); got != "f32[2,2]{1,0:T(2,128)(2,1)E(32)S(1)} {{1, 2}, {3, 4}}" {
		t.Errorf("tiled literal prints %q", got)
	}
	extra := mustParseLiteral(t, "f32[2]{0:T(2)L(4)} {1, 2}")
	if got := extra.Shape().Layout; got == nil || got.Extra != "L(4)" || len(got.Tiles) != 1 {
		t.Errorf("layout with an unknown attribute: %+v", got)
	}
	if got := extra.String(); got != "f32[2]{0:T(2)L(4)} {1, 2}" {
		t.Errorf("layout with an unknown attribute prints %q", got)
	}
	colMajor := mustParseLiteral(t, "f32[2,2]{0,1} {{1, 2}, {3, 4}}")
	if got := colMajor.Float32s(); got[1] != 2 || colMajor.Shape().Layout == nil {
		t.Errorf("column-major literal: values %v (logical row-major order expected), layout %v", got, colMajor.Shape().Layout)
	}

	// Bodies of HLO constants.
	for _, tc := range []struct {
		shape Shape
		text  string
		want  *Literal
	}{
		{Scalar(F32), "-inf", ScalarLiteral(float32(math.Inf(-1)))},
		{MakeShape(S32, 2, 2), "{ { 1, 2 }, { 3, 4 } }", MustLiteralFromSlice([]int32{1, 2, 3, 4}, 2, 2)},
		{MakeShape(PRED, 2), "{1, 0}", MustLiteralFromSlice([]bool{true, false})},
		{MakeTuple(Scalar(F32), MakeShape(S32, 2)), "(1, {1, 2})", NewTupleLiteral(ScalarLiteral[float32](1), MustLiteralFromSlice([]int32{1, 2}))},
		{TokenShape(), "", NewTokenLiteral()},
		{MakeDynamicShape(F32, []int{4}, []bool{true}), "{1, 2}", func() *Literal {
			l := MustNewLiteral(MakeDynamicShape(F32, []int{2}, []bool{true}))
			copy(l.Float32s(), []float32{1, 2})
			return l
		}()},
	} {
		got, err := ParseLiteralValue(tc.shape, tc.text)
		if err != nil {
			t.Errorf("ParseLiteralValue(%v, %q): %v", tc.shape, tc.text, err)
			continue
		}
		if !got.Equal(tc.want) {
			t.Errorf("ParseLiteralValue(%v, %q) = %v, want %v", tc.shape, tc.text, got, tc.want)
		}
	}
	l, end, err := ParseLiteralValuePrefix(MakeShape(S32, 2), "{1, 2}), metadata={}")
	if err != nil || end != 6 || !l.Equal(MustLiteralFromSlice([]int32{1, 2})) {
		t.Errorf("ParseLiteralValuePrefix: %v, end %d, err %v", l, end, err)
	}
}

func TestParseLiteralErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"f32[2] {1 2}", `1:11: expected ',' or '}' after element 0 of dimension 0 of f32[2], found "2"`},
		{"f32[2,2] {{1,2},{3}}", "1:19: expected 2 elements along dimension 1 of f32[2,2] at index [1], found 1"},
		{"f32[2] {1, 2, 3}", "1:15: expected 2 elements along dimension 0 of f32[2], found more"},
		{"f32[<=2] {1, 2, 3}", "1:17: expected 2 elements at most along dimension 0 of f32[<=2], found more"},
		{"f32[2,<=3] {{1, 2}, {3}}", "1:23: expected 2 elements along dimension 1 of f32[2,<=3] at index [1], found 1"},
		{"f32[2,3] {1, 2}", `1:11: expected '{' to start dimension 1 of f32[2,3] at index [0], found "1"`},
		{"f32[] {1}", "1:7: expected a f32 value, found '{'"},
		{"f32[2] {1, 2} x", `1:15: expected end of input after the literal, found "x"`},
		{"f32[2] {1, 2", "1:13: expected ',' or '}' after element 1 of dimension 0 of f32[2], found end of input"},
		{"f32[2] {1, }", "1:12: expected a f32 value, found '}'"},
		{"s8[1] {128}", "1:8: value 128 is out of range for s8 [-128, 127]"},
		{"s4[] -9", "1:6: value -9 is out of range for s4 [-8, 7]"},
		{"u8[] -1", "1:6: value -1 is out of range for u8 [0, 255]"},
		{"u64[] 18446744073709551616", "1:7: value 18446744073709551616 is out of range for u64 [0, 18446744073709551615]"},
		{"pred[] 2", "1:8: value 2 is out of range for pred (true, false, 1 or 0)"},
		{"f16[2] {\n  1,\n  70000}", "3:3: value 70000 is out of range for f16 (largest finite 65504)"},
		{"f32[] 1e39", "1:7: value 1e39 is out of range for f32 (largest finite 3.4028234663852886e+38)"},
		{"f64[] -1e400", "1:7: value -1e400 is out of range for f64 (largest finite 1.7976931348623157e+308)"},
		{"f8e4m3fn[] 465", "1:12: value 465 is out of range for f8e4m3fn (largest finite 448)"},
		{"f8e5m2[] 61440", "1:10: value 61440 is out of range for f8e5m2 (largest finite 57344)"},
		{"s32[] 1.5", `1:7: expected an integer for s32, found "1.5"`},
		{"s32[] true", `1:7: expected an integer for s32, found "true"`},
		{"f32[] true", `1:7: expected a number for f32, found "true"`},
		{"pred[] 0.5", `1:8: expected true, false, 1 or 0 for pred, found "0.5"`},
		{"f32[] 1.2.3", `1:7: expected a f32 value, found "1.2.3"`},
		{"f32[] Inf", `1:7: expected a f32 value, found "Inf"`},
		{"f32[] nan(0x800000)", "1:7: NaN payload 0x800000 does not fit f32: it must be nonzero and below 0x800000"},
		{"f16[] nan(0x0)", "1:7: NaN payload 0x0 does not fit f16: it must be nonzero and below 0x400"},
		{"f8e4m3fn[] nan(0x1)", "1:12: f8e4m3fn NaNs take no payload; found nan(0x1)"},
		{"c64[] 1", `1:7: expected '(' to start a c64 value (real, imaginary), found "1"`},
		{"c64[] (1 2)", `1:10: expected ',' between the parts of a c64 value, found "2"`},
		{"(f32[], s32[]) (1)", "1:18: expected 2 tuple elements for (f32[], s32[]), found 1"},
		{"(f32[]) (1, 2)", "1:11: expected ')' after the 1 elements of the tuple (f32[]), found ','"},
		{"(f32[] 1, s32[])", "1:11: tuple element 1 has the shape s32[] but no value"},
		{"(f32[] 1 s32[] 2)", `1:10: expected ',' or ')' after tuple element 0, found "s32"`},
		{"f33[2] {1}", `1:1: expected an element type such as f32, found "f33"`},
		{"tuple[] 1", `1:1: expected an element type such as f32, found "tuple"`},
		{"f32[2", "1:6: expected ',' or ']' in the dimensions, found end of input"},
		{"f32[-1] {}", `1:5: expected a dimension size (a non-negative integer), found "-1"`},
		{"f32[?] {}", "1:5: unbounded dynamic dimensions ('?') are not supported in literals"},
		{"f32[<=2](3) {1, 2, 3}", "1:10: dynamic size 3 of dimension 0 exceeds its bound in f32[<=2]"},
		{"f32[3]", "1:7: expected a value after the shape f32[3], found end of input"},
		{"f32[] @", "1:7: unexpected character '@'"},
		{"f32[] 1 /* x", "1:9: unterminated /* comment"},
		{"{1, 2}", "1:1: expected a shape such as f32[2,3], or '(' to start a tuple, found '{'"},
		{"", "1:1: expected a shape such as f32[2,3], or '(' to start a tuple, found end of input"},
		{"token[1]", `1:7: expected ']' (a token has no dimensions), found "1"`},
		{"f32[2]{1,0} {1, 2}", "1:13: expected end of input after the literal, found '{'"},                                                    // {1,0} is no rank-1 layout: the value
		{"f32[] 3.4028235677973366e+38", "1:7: value 3.4028235677973366e+38 is out of range for f32 (largest finite 3.4028234663852886e+38)"}, // the overflow tie
	} {
		_, err := ParseLiteral(tc.text)
		if err == nil {
			t.Errorf("ParseLiteral(%q) succeeded, want error %q", tc.text, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("ParseLiteral(%q):\n got  %q\n want %q", tc.text, err.Error(), tc.want)
		}
		var se *LiteralSyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseLiteral(%q): error %T is not a *LiteralSyntaxError", tc.text, err)
		}
	}
	_, err := ParseLiteral("f32[2] {...}")
	if !errors.Is(err, ErrElidedLiteral) || !strings.HasPrefix(err.Error(), "1:9: ") {
		t.Errorf("elided literal: %v", err)
	}
	_, err = ParseLiteralValue(MakeShape(S32, 2), "{1, 2} 3")
	if err == nil || err.Error() != `1:8: expected end of input after the value, found "3"` {
		t.Errorf("trailing text after a value: %v", err)
	}
	_, err = ParseLiteralValue(MakeShape(S32, -1), "{}")
	if err == nil || !strings.Contains(err.Error(), "negative size") {
		t.Errorf("invalid shape: %v", err)
	}
}

// specialBits lists interesting bit patterns of each float type: zeros,
// infinities, NaNs with and without payloads, the smallest and largest
// subnormals and normals, ±1.
func specialBits(t ElementType) []uint64 {
	switch t {
	case F64:
		return []uint64{0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000000,
			0x7ff0000000000001, 0x7fffffffffffffff, 1, 0x000fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff,
			0xffefffffffffffff, 0x3ff0000000000000, 0xbff0000000000000, 0x3fb999999999999a}
	case F32:
		return []uint64{0, 1 << 31, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xffffffff,
			1, 0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x3dcccccd}
	}
	f, ok := narrowFormatOf(t)
	if !ok {
		return nil
	}
	var out []uint64
	for _, b := range []uint32{0, f.signBit(), f.inf(), f.signBit() | f.inf(), f.quietNaN(), f.signBit() | f.quietNaN(),
		1, f.manMask(), f.manMask() + 1, f.signBit() | 1} {
		out = append(out, uint64(b))
	}
	if f.ieee {
		out = append(out, uint64(f.inf()|1), uint64(f.inf()|f.manMask()), uint64(f.inf()-1), uint64(f.signBit()|f.inf()-1))
	} else {
		out = append(out, uint64(f.maxFiniteBits()), uint64(f.signBit()|f.maxFiniteBits()))
	}
	mask := uint64(1)<<t.BitWidth() - 1
	for i := range out {
		out[i] &= mask
	}
	return out
}

// randomLiteral fills a literal of shape s with random elements, mixing in
// each float type's special values.
func randomLiteral(rng *rand.Rand, s Shape) *Literal {
	l := MustNewLiteral(s)
	t := s.Elem
	n := l.ElementCount()
	specials := specialBits(t.ComplexComponent())
	for i := range n {
		switch {
		case t == PRED:
			l.data[i] = byte(rng.IntN(2))
		case t.IsInteger():
			storeInt(t, unsafePointerAt(l, i), int64(rng.Uint64()))
		case t.IsFloat() || t.IsComplex():
			c := t.ComplexComponent()
			parts := 1
			if t.IsComplex() {
				parts = 2
			}
			for k := range parts {
				b := rng.Uint64() & (uint64(1)<<c.BitWidth() - 1)
				if c.BitWidth() == 64 {
					b = rng.Uint64()
				}
				if specials != nil && rng.IntN(3) == 0 {
					b = specials[rng.IntN(len(specials))]
				}
				storeFloatBits(c, unsafePointerAt2(l, i, k, c.ByteSize()), b)
			}
		}
	}
	return l
}

func TestLiteralTextRoundTripEveryType(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	shapes := [][]int{nil, {1}, {7}, {0}, {2, 3}, {2, 0, 3}, {3, 0}, {1, 2, 1, 2}, {2, 1, 2, 1, 2}}
	for _, et := range AllElementTypes {
		for _, dims := range shapes {
			for range 20 {
				l := randomLiteral(rng, MakeShape(et, dims...))
				checkLiteralTextRoundTrip(t, l)
			}
		}
		// A dynamic shape, a non-default layout, and a tuple holding them.
		dyn := randomLiteral(rng, MakeDynamicShape(et, []int{2, 3}, []bool{false, true}))
		laid := randomLiteral(rng, MakeShape(et, 2, 3).WithLayout(MakeLayout(0, 1)))
		checkLiteralTextRoundTrip(t, dyn)
		checkLiteralTextRoundTrip(t, laid)
		checkLiteralTextRoundTrip(t, NewTupleLiteral(dyn, laid, NewTupleLiteral(randomLiteral(rng, Scalar(et))), NewTokenLiteral()))
	}
	checkLiteralTextRoundTrip(t, NewTupleLiteral())
	checkLiteralTextRoundTrip(t, NewTokenLiteral())
}

// checkLiteralTextRoundTrip prints l with and without its shape, parses
// both, and requires bit-identical literals and identical reprinting.
func checkLiteralTextRoundTrip(t *testing.T, l *Literal) {
	t.Helper()
	text := l.String()
	back, err := ParseLiteral(text)
	if err != nil {
		t.Fatalf("ParseLiteral(%q): %v", text, err)
	}
	if !back.Equal(l) {
		t.Fatalf("round trip of %q gave %q (different bits)", text, back.String())
	}
	if !back.Shape().Equal(l.Shape()) && !(l.Shape().HasDefaultLayout() && back.Shape().HasDefaultLayout()) {
		t.Fatalf("round trip of %q changed the shape from %v to %v", text, l.Shape(), back.Shape())
	}
	if again := back.String(); again != text {
		t.Fatalf("reprinting %q gave %q", text, again)
	}
	value, err := ParseLiteralValue(l.Shape(), l.ValueString())
	if err != nil {
		t.Fatalf("ParseLiteralValue(%v, %q): %v", l.Shape(), l.ValueString(), err)
	}
	if !value.Equal(l) {
		t.Fatalf("value round trip of %q gave %q", l.ValueString(), value.ValueString())
	}
}

func TestLiteralTextEveryNarrowFloatPattern(t *testing.T) {
	for _, et := range []ElementType{F16, BF16, F8E5M2, F8E4M3FN} {
		n := 1 << et.BitWidth()
		l := MustNewLiteral(MakeShape(et, n))
		for i := range n {
			storeFloatBits(et, unsafePointerAt(l, i), uint64(i))
		}
		checkLiteralTextRoundTrip(t, l)
	}
}

func TestLiteralTextFloat32Sample(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const n = 200000
	l := MustNewLiteral(MakeShape(F32, n))
	f := l.Float32s()
	for i := range f {
		f[i] = math.Float32frombits(rng.Uint32())
	}
	checkLiteralTextRoundTrip(t, l)
	d := MustNewLiteral(MakeShape(F64, n/4))
	for i := range d.Float64s() {
		d.Float64s()[i] = math.Float64frombits(rng.Uint64())
	}
	checkLiteralTextRoundTrip(t, d)
}

// TestParseRoundsDecimalsOnce: a decimal just above a tie of a narrow type
// rounds up; rounding it through float32 first would land on the tie and
// round to even.
func TestParseRoundsDecimalsOnce(t *testing.T) {
	for _, tc := range []struct {
		text string
		want *Literal
	}{
		{"f8e5m2[] 1.12500001", ScalarLiteral(Float8E5M2(0x3d))},
		{"bf16[] 1.0039062500000002", ScalarLiteral(BFloat16(0x3f81))},
		{"f16[] 1.0004882812500002", ScalarLiteral(Float16(0x3c01))},
		{"f16[] 1.00048828125", ScalarLiteral(Float16(0x3c00))}, // the tie itself: even
	} {
		got := mustParseLiteral(t, tc.text)
		if !got.Equal(tc.want) {
			t.Errorf("ParseLiteral(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func BenchmarkLiteralText(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	l := MustNewLiteral(MakeShape(F32, 256, 256))
	for i := range l.Float32s() {
		l.Float32s()[i] = float32(rng.NormFloat64())
	}
	text := l.String()
	b.Run("String/f32[256,256]", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			_ = l.String()
		}
	})
	b.Run("Parse/f32[256,256]", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if _, err := ParseLiteral(text); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package ir

import (
	"math"
	"strings"
	"testing"
	"unsafe"
)

// rawScalar builds a rank-0 literal of type t from raw bits (integers as
// their value, floats and narrow floats as their bit pattern).
func rawScalar(t *testing.T, et ElementType, bits uint64) *Literal {
	t.Helper()
	l := MustNewLiteral(Scalar(et))
	b := l.Bytes()
	for i := range b {
		b[i] = byte(bits >> (8 * i)) // little-endian test machines; checked below
	}
	return l
}

func init() {
	// rawScalar writes little-endian; the literal stores native order.
	x := uint16(1)
	if *(*byte)(unsafe.Pointer(&x)) != 1 {
		panic("convert tests assume a little-endian machine")
	}
}

func rawBits(l *Literal) uint64 {
	var v uint64
	for i, b := range l.Bytes() {
		v |= uint64(b) << (8 * i)
	}
	return v
}

func f32b(f float32) uint64 { return uint64(math.Float32bits(f)) }
func f64b(f float64) uint64 { return math.Float64bits(f) }

func TestConvertHandComputed(t *testing.T) {
	const (
		maxU64 = math.MaxUint64
	)
	nan32 := uint64(0x7fc00000)
	for _, tc := range []struct {
		from ElementType
		in   uint64
		to   ElementType
		want uint64
	}{
		// float → integer: truncate toward zero, saturate, NaN → 0.
		{F32, f32b(1e10), S32, 2147483647},
		{F32, f32b(-1e10), S32, uint64(0xffffffff80000000)},
		{F32, nan32, S32, 0},
		{F32, f32b(-1.9), S32, uint64(0xffffffffffffffff)},
		{F32, f32b(2.9), S32, 2},
		{F32, f32b(float32(math.Inf(1))), S32, 2147483647},
		{F32, f32b(float32(math.Inf(-1))), S32, uint64(0xffffffff80000000)},
		{F32, f32b(2147483520), S32, 2147483520},
		{F32, f32b(2147483648), S32, 2147483647},
		{F32, f32b(2.9), U8, 2},
		{F32, f32b(-3), U8, 0},
		{F32, f32b(300.5), U8, 255},
		{F32, f32b(-0.5), U8, 0},
		{F32, nan32, U8, 0},
		{F64, f64b(9.3e18), S64, math.MaxInt64},
		{F64, f64b(-9.3e18), S64, 1 << 63},
		{F64, f64b(-9223372036854775808), S64, 1 << 63},
		{F64, f64b(9223372036854774784), S64, 9223372036854774784},
		{F64, f64b(18446744073709551616), U64, maxU64},
		{F64, f64b(18446744073709549568), U64, 18446744073709549568},
		{F32, f32b(7.9), S4, 7},
		{F32, f32b(8), S4, 7},
		{F32, f32b(-9), S4, 0xf8}, // -8, stored sign-extended in a byte
		{F32, f32b(-8.5), S4, 0xf8},
		{F32, f32b(15.5), U4, 15},
		{F32, f32b(16), U4, 15},
		{F16, 0x7c00, S8, 127},     // +Inf
		{F16, 0xfc00, S8, 0x80},    // -Inf → -128
		{BF16, 0x4780, S16, 32767}, // 65536
		// integer → integer: wrap.
		{S32, 300, S8, 44},
		{S32, uint64(0xffffffffffffff7f) & 0xffffffff, S8, 127}, // -129
		{S32, 0xffffffff, U8, 255},                              // -1
		{S32, 9, S4, 0xf9},                                      // -7
		{S32, uint64(0xfffffff7), S4, 7},                        // -9
		{S32, 17, U4, 1},
		{S32, 0xffffffff, U4, 15},
		{U32, 0xffffffff, S64, 4294967295},
		{U32, 0xffffffff, S32, 0xffffffff},
		{U64, maxU64, S64, maxU64},
		{S8, 0x80, U64, 0xffffffffffffff80},
		{S4, 0xf8, U8, 0xf8},
		{U4, 0xf, S8, 15},
		// integer → float: round to nearest even.
		{U64, maxU64, F32, f32b(18446744073709551616)},
		{U64, maxU64, F64, f64b(18446744073709551616)},
		{S64, 1<<53 + 1, F64, f64b(1 << 53)},
		{S64, 1<<53 + 3, F64, f64b(1<<53 + 4)},
		{S32, 16777219, F32, f32b(16777220)},
		{S32, 16777217, F32, f32b(16777216)},
		{S64, 65519, F16, 0x7bff},
		{S64, 65520, F16, 0x7c00},
		{S64, uint64(0xfffffffffffeee90), F16, 0xfc00}, // -70000
		{S32, 1000, F8E4M3FN, 0x7f},
		{S32, 464, F8E4M3FN, 0x7e},
		{S32, 257, BF16, 0x4380},               // tie between 256 and 258: 256
		{S64, 1<<60 + 1<<52 + 1, BF16, 0x5d80}, // through float32 (2^60+2^52, a tie): 2^60
		{PRED, 1, F32, f32b(1)},
		{PRED, 1, S32, 1},
		// float → float.
		{F64, f64b(1 + 1.0/256 + 1.0/(1<<30)), BF16, 0x3f80}, // through float32; BFloat16FromFloat64 gives 0x3f81
		{F64, f64b(1e40), F32, f32b(float32(math.Inf(1)))},
		{F64, f64b(0.1), F32, f32b(0.1)},
		{F16, 0x7c01, F32, 0x7f802000},             // signaling NaN payload kept, not quieted
		{F32, 0x7f800001, F16, 0x7e00},             // payload below f16's bits: quiet NaN
		{F64, 0xfff0000020000001, F32, 0xff800001}, // top 23 payload bits kept
		{F8E5M2, 0x7b, F16, 0x7b00},                // 57344
		{F16, 0x7bff, F8E5M2, 0x7c},                // 65504 overflows e5m2: Inf
		{F16, 0x5f00, F8E4M3FN, 0x7e},              // 448
		{F16, 0x7c00, F8E4M3FN, 0x7f},              // Inf: NaN
		{BF16, 0xff81, F32, 0xff810000},
		// → PRED: x != 0.
		{F32, f32b(0.5), PRED, 1},
		{F32, 0x80000000, PRED, 0},
		{F32, nan32, PRED, 1},
		{S32, 2, PRED, 1},
		{S32, 0, PRED, 0},
		{U4, 0x10, PRED, 0}, // only the low 4 bits count
		// complex.
		{C64, f32b(1) | f32b(2)<<32, F32, f32b(1)},
		{C64, f32b(-3.7) | f32b(2)<<32, S32, uint64(0xfffffffd)},
		{C64, f32b(0) | f32b(2)<<32, PRED, 0},
		{F32, f32b(3), C64, f32b(3)},
		{S32, 5, C64, f32b(5)},
		{S32, 16777217, C64, f32b(16777216)},
	} {
		in := rawScalar(t, tc.from, tc.in)
		out, err := ConvertLiteral(in, tc.to)
		if err != nil {
			t.Fatalf("%v %#x → %v: %v", tc.from, tc.in, tc.to, err)
		}
		if out.Shape().Elem != tc.to {
			t.Fatalf("%v → %v: result has type %v", tc.from, tc.to, out.Shape().Elem)
		}
		got := rawBits(out)
		if tc.to == S32 || tc.to == U32 {
			got &= 0xffffffff
			tc.want &= 0xffffffff
		}
		if got != tc.want {
			t.Errorf("%v %#x → %v: got %#x, want %#x", tc.from, tc.in, tc.to, got, tc.want)
		}
	}
	// complex → complex, one part at a time.
	c := MustLiteralFromSlice([]complex128{complex(0.1, -0.2)})
	out, err := ConvertLiteral(c, C64)
	if err != nil {
		t.Fatal(err)
	}
	if got := Values[complex64](out)[0]; got != complex(float32(0.1), float32(-0.2)) {
		t.Errorf("c128 → c64: got %v", got)
	}
	out, err = ConvertLiteral(MustLiteralFromSlice([]int32{7}), C128)
	if err != nil {
		t.Fatal(err)
	}
	if got := Values[complex128](out)[0]; got != complex(7, 0) {
		t.Errorf("s32 → c128: got %v", got)
	}
}

// wrapOracle reduces v modulo 2^bits into the signed or unsigned range.
func wrapOracle(v int64, bits int, signed bool) int64 {
	if bits == 64 {
		return v // the tests' values fit
	}
	m := int64(1) << bits
	r := ((v % m) + m) % m
	if signed && r >= m/2 {
		r -= m
	}
	return r
}

func TestConvertEverySmallIntegerToEveryIntegerType(t *testing.T) {
	for _, from := range []ElementType{PRED, S4, U4, S8, U8} {
		var values []int64
		switch from {
		case PRED:
			values = []int64{0, 1}
		case S4:
			for v := int64(-8); v < 8; v++ {
				values = append(values, v)
			}
		case U4:
			for v := int64(0); v < 16; v++ {
				values = append(values, v)
			}
		case S8:
			for v := int64(-128); v < 128; v++ {
				values = append(values, v)
			}
		case U8:
			for v := int64(0); v < 256; v++ {
				values = append(values, v)
			}
		}
		in := MustNewLiteral(MakeShape(from, len(values)))
		for i, v := range values {
			in.SetInt64At(i, v)
		}
		for _, to := range []ElementType{PRED, S4, S8, S16, S32, S64, U4, U8, U16, U32} {
			out, err := ConvertLiteral(in, to)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range values {
				want := wrapOracle(v, to.BitWidth(), to.IsSigned())
				if to == PRED {
					want = 0
					if v != 0 {
						want = 1
					}
				}
				if got := out.Int64At(i); got != want {
					t.Fatalf("%v %d → %v: got %d, want %d", from, v, to, got, want)
				}
				if got := out.Float64At(i); got != float64(want) {
					t.Fatalf("%v %d → %v, read as f64: got %v, want %d", from, v, to, got, want)
				}
			}
		}
	}
}

func TestConvertEveryF16ToIntegers(t *testing.T) {
	in := MustNewLiteral(MakeShape(F16, 1<<16))
	h := Values[Float16](in)
	for i := range h {
		h[i] = Float16(i)
	}
	for _, to := range []ElementType{S8, U8, S16, U16, S32, S4, U4} {
		out, err := ConvertLiteral(in, to)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := -math.Ldexp(1, to.BitWidth()-1), math.Ldexp(1, to.BitWidth()-1)-1
		if to.IsUnsigned() {
			lo, hi = 0, math.Ldexp(1, to.BitWidth())-1
		}
		for i, x := range h {
			v := x.Float64()
			want := math.Trunc(v)
			switch {
			case math.IsNaN(v):
				want = 0
			case want < lo:
				want = lo
			case want > hi:
				want = hi
			}
			if got := out.Int64At(i); float64(got) != want {
				t.Fatalf("f16 %#x (%v) → %v: got %d, want %v", uint16(x), v, to, got, want)
			}
		}
	}
}

func TestLiteralElementAccessors(t *testing.T) {
	l := MustLiteralFromSlice([]float32{1.5, -2.5, float32(math.NaN()), 3e9})
	if got := l.Float64At(0); got != 1.5 {
		t.Errorf("Float64At(0) = %v", got)
	}
	if got := l.Int64At(1); got != -2 {
		t.Errorf("Int64At(1) = %v, want -2", got)
	}
	if got := l.Int64At(2); got != 0 {
		t.Errorf("Int64At(NaN) = %v, want 0", got)
	}
	if got := l.Uint64At(1); got != 0 {
		t.Errorf("Uint64At(-2.5) = %v, want 0", got)
	}
	if got := l.Uint64At(3); got != 3000000000 {
		t.Errorf("Uint64At(3e9) = %v", got)
	}
	if got := l.Complex128At(0); got != complex(1.5, 0) {
		t.Errorf("Complex128At(0) = %v", got)
	}
	l.SetInt64At(0, 16777217)
	l.SetUint64At(1, math.MaxUint64)
	l.SetComplex128At(2, complex(4, 5))
	l.SetFloat64At(3, 0.1)
	want := []float32{16777216, 18446744073709551616, 4, 0.1}
	for i, w := range want {
		if got := l.Float32s()[i]; got != w {
			t.Errorf("after Set, element %d = %v, want %v", i, got, w)
		}
	}

	s := MustLiteralFromSlice([]int8{-1, 100})
	if got := s.Uint64At(0); got != math.MaxUint64 {
		t.Errorf("s8 -1 as u64 = %#x", got)
	}
	s.SetFloat64At(0, 1e6)
	s.SetInt64At(1, 300)
	if got := Values[int8](s); got[0] != 127 || got[1] != 44 {
		t.Errorf("s8 after SetFloat64At(1e6), SetInt64At(300) = %v, want [127 44]", got)
	}
	u := MustLiteralFromSlice([]uint64{math.MaxUint64})
	if got := u.Int64At(0); got != -1 {
		t.Errorf("u64 max as s64 = %d, want -1", got)
	}
	if got := u.Float64At(0); got != 18446744073709551616 {
		t.Errorf("u64 max as f64 = %v", got)
	}
}

func TestConvertLiteralKeepsShapeAndRefusesNonArrays(t *testing.T) {
	s := MakeDynamicShape(S32, []int{2, 3}, []bool{false, true})
	s.Layout = MakeLayout(0, 1)
	l := MustNewLiteral(s)
	for i := range 6 {
		l.SetInt64At(i, int64(i*10))
	}
	out, err := ConvertLiteral(l, F16)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Shape().Equal(s.WithElem(F16)) {
		t.Errorf("shape %v, want %v", out.Shape(), s.WithElem(F16))
	}
	for i := range 6 {
		if got := out.Float64At(i); got != float64(i*10) {
			t.Errorf("element %d = %v", i, got)
		}
	}
	same, err := ConvertLiteral(l, S32)
	if err != nil || !same.Equal(l) || &same.Bytes()[0] == &l.Bytes()[0] {
		t.Errorf("same-type convert should copy: %v", err)
	}
	if _, err := ConvertLiteral(NewTupleLiteral(l), F32); err == nil || !strings.Contains(err.Error(), "not an array") {
		t.Errorf("tuple convert: err = %v", err)
	}
	if _, err := ConvertLiteral(l, TOKEN); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("convert to token: err = %v", err)
	}
}

func TestConvertElementAndScalarRules(t *testing.T) {
	dst := make([]byte, 2)
	src := []byte{0x00, 0x00, 0x80, 0x3f} // f32 1.0
	ConvertElement(dst, F16, src, F32)
	if dst[0] != 0x00 || dst[1] != 0x3c {
		t.Errorf("ConvertElement f32 1 → f16 = % x, want 00 3c", dst)
	}
	if got := SaturateFloatToInt(-1e30, S16); got != -32768 {
		t.Errorf("SaturateFloatToInt(-1e30, s16) = %d", got)
	}
	if got := SaturateFloatToInt(1e30, U64); uint64(got) != math.MaxUint64 {
		t.Errorf("SaturateFloatToInt(1e30, u64) = %#x", uint64(got))
	}
	if got := WrapInt(-1, U16); got != 65535 {
		t.Errorf("WrapInt(-1, u16) = %d", got)
	}
	if got := IntToFloat(-1, true, F64); got != 18446744073709551616 {
		t.Errorf("IntToFloat(all ones, unsigned, f64) = %v", got)
	}
	if got := RoundToFloatType(0.1, F16); got != 0.0999755859375 {
		t.Errorf("RoundToFloatType(0.1, f16) = %v", got)
	}
}

package ir

import (
	"encoding/binary"
	"math"
	"testing"
)

// convertFromF64 converts v to type t through the public conversion (which,
// as XLA's does, rounds to f32 first) and returns the element's byte.
func convertFromF64(t ElementType, v float64) byte {
	var src [8]byte
	binary.NativeEndian.PutUint64(src[:], math.Float64bits(v))
	dst := make([]byte, 1)
	ConvertElement(dst, t, src[:], F64)
	return dst[0]
}

// TestNarrowFormatsHandComputed checks the 8- and 4-bit formats added for
// XLA's newer types against values worked out from their definitions
// (ml_dtypes' semantics: round to nearest even, non-saturating).
func TestNarrowFormatsHandComputed(t *testing.T) {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	cases := []struct {
		t    ElementType
		in   float64
		want byte
	}{
		// f8e4m3: IEEE-like, bias 7, largest finite 1.875×2^7 = 240.
		{F8E4M3, 1, 0x38}, {F8E4M3, 240, 0x77}, {F8E4M3, -240, 0xf7}, {F8E4M3, 248, 0x78}, {F8E4M3, inf, 0x78},
		{F8E4M3, math.Ldexp(1, -9), 0x01}, {F8E4M3, negZero, 0x80},
		// f8e3m4: bias 3, largest finite 1.9375×2^3 = 15.5.
		{F8E3M4, 1, 0x30}, {F8E3M4, 15.5, 0x6f}, {F8E3M4, 16, 0x70}, {F8E3M4, 0.0625, 0x04},
		// f8e4m3fnuz: bias 8, no Inf, 0x80 the only NaN, no -0; 1.875×2^7 = 240 is finite.
		{F8E4M3FNUZ, 1, 0x40}, {F8E4M3FNUZ, 240, 0x7f}, {F8E4M3FNUZ, -240, 0xff}, {F8E4M3FNUZ, 256, 0x80},
		{F8E4M3FNUZ, inf, 0x80}, {F8E4M3FNUZ, nan, 0x80}, {F8E4M3FNUZ, negZero, 0x00}, {F8E4M3FNUZ, math.Ldexp(1, -10), 0x01},
		{F8E4M3FNUZ, -math.Ldexp(1, -12), 0x00}, // rounds to zero, which has no sign
		// f8e5m2fnuz: bias 16, largest finite 1.75×2^15 = 57344.
		{F8E5M2FNUZ, 1, 0x40}, {F8E5M2FNUZ, 57344, 0x7f}, {F8E5M2FNUZ, 65536, 0x80},
		// f8e4m3b11fnuz: bias 11, largest finite 1.875×2^4 = 30.
		{F8E4M3B11FNUZ, 1, 0x58}, {F8E4M3B11FNUZ, 30, 0x7f}, {F8E4M3B11FNUZ, 32, 0x80},
		// f4e2m1fn: values 0, 0.5, 1, 1.5, 2, 3, 4, 6; overflow saturates.
		{F4E2M1FN, 1, 0x2}, {F4E2M1FN, 6, 0x7}, {F4E2M1FN, 100, 0x7}, {F4E2M1FN, -6, 0xf}, {F4E2M1FN, 0.5, 0x1},
		{F4E2M1FN, 0.25, 0x0}, {F4E2M1FN, 0.75, 0x2}, {F4E2M1FN, 5, 0x6}, {F4E2M1FN, inf, 0x7}, {F4E2M1FN, -inf, 0xf},
		{F4E2M1FN, nan, 0x8},
		// f8e8m0fnu: 2^(e-127); ties to the even exponent field; negative is NaN.
		{F8E8M0FNU, 1, 0x7f}, {F8E8M0FNU, 2, 0x80}, {F8E8M0FNU, 0.5, 0x7e}, {F8E8M0FNU, 3, 0x80}, {F8E8M0FNU, 3.5, 0x81},
		{F8E8M0FNU, -1, 0xff}, {F8E8M0FNU, nan, 0xff}, {F8E8M0FNU, inf, 0xff}, {F8E8M0FNU, 0, 0x00},
		{F8E8M0FNU, math.Ldexp(1, 127), 0xfe}, {F8E8M0FNU, math.Ldexp(1.9, 127), 0xff},
	}
	for _, c := range cases {
		if got := convertFromF64(c.t, c.in); got != c.want {
			t.Errorf("%v(%v) = %#x, want %#x", c.t, c.in, got, c.want)
		}
	}
	// Widening: the patterns above read back as their values.
	for _, c := range []struct {
		t    ElementType
		bits byte
		want float64
	}{
		{F8E4M3, 0x77, 240}, {F8E4M3, 0x78, inf}, {F8E4M3FNUZ, 0x7f, 240}, {F8E4M3FNUZ, 0x01, math.Ldexp(1, -10)},
		{F8E5M2FNUZ, 0x7f, 57344}, {F8E4M3B11FNUZ, 0x58, 1}, {F4E2M1FN, 0x7, 6}, {F4E2M1FN, 0xd, -3},
		{F8E8M0FNU, 0x00, math.Ldexp(1, -127)}, {F8E8M0FNU, 0xfe, math.Ldexp(1, 127)},
	} {
		l, _ := LiteralFromBytes(Scalar(c.t), []byte{c.bits})
		if got := l.Float64At(0); got != c.want {
			t.Errorf("%v %#x = %v, want %v", c.t, c.bits, got, c.want)
		}
	}
	for _, c := range []struct {
		t    ElementType
		bits byte
	}{{F8E4M3FNUZ, 0x80}, {F8E5M2FNUZ, 0x80}, {F8E4M3B11FNUZ, 0x80}, {F8E8M0FNU, 0xff}, {F8E4M3, 0x79}} {
		l, _ := LiteralFromBytes(Scalar(c.t), []byte{c.bits})
		if !math.IsNaN(l.Float64At(0)) {
			t.Errorf("%v %#x is not NaN", c.t, c.bits)
		}
	}
}

// TestNarrowFormatsEveryPatternRoundTrips widens every pattern of the new
// formats and narrows it back: finite values and infinities come back
// bit for bit, NaNs as the format's NaN of their sign.
func TestNarrowFormatsEveryPatternRoundTrips(t *testing.T) {
	for _, typ := range []ElementType{F8E4M3, F8E3M4, F8E4M3FNUZ, F8E5M2FNUZ, F8E4M3B11FNUZ, F4E2M1FN, F8E8M0FNU} {
		f, _ := narrowFormatOf(typ)
		for b := uint32(0); b < 1<<f.width(); b++ {
			v := f.toFloat64(b)
			want := b
			if f.isNaN(b) && !f.hasPayload() {
				want = f.nanWithPayload(b&f.signBit() != 0, 0)
			}
			if got := f.fromFloat64(v); got != want {
				t.Errorf("%v %#x: widened to %v, narrowed back to %#x", typ, b, v, got)
			}
			if got := f.fromFloat32(f.toFloat32(b)); got != want {
				t.Errorf("%v %#x: through float32 came back as %#x", typ, b, got)
			}
		}
	}
}

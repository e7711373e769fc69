package eval

import (
	"errors"
	"math"
	"math/cmplx"
	"strconv"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// binop evaluates op(x, y) for two array arguments of the same shape.
func binop(t *testing.T, op ir.Opcode, shape, out string, x, y *ir.Literal) *ir.Literal {
	t.Helper()
	b := newModb(t)
	p, q := b.param(shape), b.param(shape)
	return b.run1(b.op(op, out, p, q), x, y)
}

// unop evaluates op(x).
func unop(t *testing.T, op ir.Opcode, shape, out string, x *ir.Literal) *ir.Literal {
	t.Helper()
	b := newModb(t)
	return b.run1(b.op(op, out, b.param(shape)), x)
}

func TestSignedIntegerDivisionAndRemainderFollowXLA(t *testing.T) {
	x := vec[int32](7, -7, 7, -7, 5, math.MinInt32, math.MinInt32, 0)
	y := vec[int32](2, 2, -2, -2, 0, -1, 1, 0)
	wantValues(t, binop(t, ir.OpDivide, "s32[8]", "s32[8]", x, y), dims(8),
		int32(3), -3, -3, 3, -1, math.MinInt32, math.MinInt32, -1)
	wantValues(t, binop(t, ir.OpRemainder, "s32[8]", "s32[8]", x, y), dims(8),
		int32(1), -1, 1, -1, 5, 0, 0, 0)
	// The same rules at 8 and 4 bits.
	wantValues(t, binop(t, ir.OpDivide, "s8[3]", "s8[3]", vec[int8](-128, 9, -9), vec[int8](-1, 0, 4)), dims(3),
		int8(-128), -1, -2)
	wantValues(t, binop(t, ir.OpRemainder, "s8[3]", "s8[3]", vec[int8](-128, 9, -9), vec[int8](-1, 0, 4)), dims(3),
		int8(0), 9, -1)
	wantValues(t, binop(t, ir.OpDivide, "s4[3]", "s4[3]", vec[ir.Int4](-8, 7, -7), vec[ir.Int4](-1, 0, 2)), dims(3),
		ir.Int4(-8), -1, -3)
}

func TestUnsignedIntegerDivisionByZero(t *testing.T) {
	wantValues(t, binop(t, ir.OpDivide, "u8[3]", "u8[3]", vec[uint8](200, 7, 0), vec[uint8](0, 2, 0)), dims(3),
		uint8(255), 3, 255)
	wantValues(t, binop(t, ir.OpRemainder, "u8[3]", "u8[3]", vec[uint8](200, 7, 0), vec[uint8](0, 2, 0)), dims(3),
		uint8(200), 1, 0)
	wantValues(t, binop(t, ir.OpDivide, "u64[2]", "u64[2]", vec[uint64](math.MaxUint64, 10), vec[uint64](3, 0)), dims(2),
		uint64(math.MaxUint64/3), math.MaxUint64)
	wantValues(t, binop(t, ir.OpDivide, "u4[2]", "u4[2]", vec[ir.Uint4](15, 9), vec[ir.Uint4](0, 2)), dims(2),
		ir.Uint4(15), 4)
}

func TestNarrowIntegersWrap(t *testing.T) {
	wantValues(t, binop(t, ir.OpAdd, "s4[3]", "s4[3]", vec[ir.Int4](7, -8, 5), vec[ir.Int4](1, -1, 5)), dims(3),
		ir.Int4(-8), 7, -6)
	wantValues(t, binop(t, ir.OpAdd, "u4[2]", "u4[2]", vec[ir.Uint4](15, 9), vec[ir.Uint4](1, 9)), dims(2),
		ir.Uint4(0), 2)
	wantValues(t, binop(t, ir.OpMultiply, "s8[2]", "s8[2]", vec[int8](100, -128), vec[int8](3, -1)), dims(2),
		int8(44), -128)
	wantValues(t, unop(t, ir.OpNegate, "s4[2]", "s4[2]", vec[ir.Int4](-8, 3)), dims(2), ir.Int4(-8), -3)
	wantValues(t, unop(t, ir.OpAbs, "s8[2]", "s8[2]", vec[int8](-128, -5)), dims(2), int8(-128), 5)
}

func TestShiftsPastTheBitWidth(t *testing.T) {
	x := vec[int32](1, -16, -16, 5, 5)
	y := vec[int32](31, 2, 32, -1, 40)
	wantValues(t, binop(t, ir.OpShiftLeft, "s32[5]", "s32[5]", x, y), dims(5),
		int32(math.MinInt32), -64, 0, 0, 0)
	wantValues(t, binop(t, ir.OpShiftRightArithmetic, "s32[5]", "s32[5]", x, y), dims(5),
		int32(0), -4, -1, 0, 0)
	wantValues(t, binop(t, ir.OpShiftRightLogical, "s32[5]", "s32[5]", x, y), dims(5),
		int32(0), 0x3ffffffc, 0, 0, 0)
	// Unsigned: arithmetic shift fills with the top bit.
	wantValues(t, binop(t, ir.OpShiftRightArithmetic, "u8[3]", "u8[3]", vec[uint8](0x80, 0x80, 0x40), vec[uint8](1, 8, 9)), dims(3),
		uint8(0xc0), 0xff, 0)
	wantValues(t, binop(t, ir.OpShiftLeft, "u8[2]", "u8[2]", vec[uint8](0x81, 1), vec[uint8](1, 8)), dims(2),
		uint8(0x02), 0)
	// 4-bit: the width is 4.
	wantValues(t, binop(t, ir.OpShiftLeft, "s4[2]", "s4[2]", vec[ir.Int4](1, 1), vec[ir.Int4](3, 4)), dims(2),
		ir.Int4(-8), 0)
	wantValues(t, binop(t, ir.OpShiftRightArithmetic, "s4[2]", "s4[2]", vec[ir.Int4](-8, -8), vec[ir.Int4](2, 4)), dims(2),
		ir.Int4(-2), -1)
	wantValues(t, binop(t, ir.OpShiftRightLogical, "u4[2]", "u4[2]", vec[ir.Uint4](8, 8), vec[ir.Uint4](3, 4)), dims(2),
		ir.Uint4(1), 0)
}

func TestIntegerPower(t *testing.T) {
	wantValues(t, binop(t, ir.OpPower, "s32[7]", "s32[7]",
		vec[int32](2, 2, 1, -1, 0, -1, 3), vec[int32](10, -1, -5, -1, 0, 3, 0)), dims(7),
		int32(1024), 0, 1, 0, 1, -1, 1)
	wantValues(t, binop(t, ir.OpPower, "s8[1]", "s8[1]", vec[int8](3), vec[int8](5)), dims(1), int8(-13)) // 243 wraps
	wantValues(t, binop(t, ir.OpPower, "u64[1]", "u64[1]", vec[uint64](2), vec[uint64](64)), dims(1), uint64(0))
}

func TestFloatMaxMinPropagateNaNAndOrderZeros(t *testing.T) {
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	x := vec(nan, 1, negZero, 0, 3)
	y := vec(1, nan, 0, negZero, -2)
	wantValues(t, binop(t, ir.OpMaximum, "f32[5]", "f32[5]", x, y), dims(5), nan, nan, 0, 0, 3)
	wantValues(t, binop(t, ir.OpMinimum, "f32[5]", "f32[5]", x, y), dims(5), nan, nan, negZero, negZero, -2)
}

func TestCompareTotalOrderAndFloat(t *testing.T) {
	negNaN := math.Float32frombits(0xffc00000)
	nan := math.Float32frombits(0x7fc00000)
	inf := float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	x := vec[float32](negNaN, -inf, negZero, 0, nan, nan, 1)
	y := vec[float32](-inf, negZero, 0, inf, nan, 1, 1)
	b := newModb(t)
	p, q := b.param("f32[7]"), b.param("f32[7]")
	lt := b.op(ir.OpCompare, "pred[7]", p, q)
	lt.Direction, lt.CompareType = ir.CmpLT, ir.CmpTypeTotalOrder
	wantValues(t, b.run1(lt, x, y), dims(7), true, true, true, true, false, false, false)

	b = newModb(t)
	p, q = b.param("f32[7]"), b.param("f32[7]")
	eq := b.op(ir.OpCompare, "pred[7]", p, q)
	eq.Direction, eq.CompareType = ir.CmpEQ, ir.CmpTypeTotalOrder
	wantValues(t, b.run1(eq, x, y), dims(7), false, false, false, false, true, false, true)

	// IEEE: NaN unordered, -0 == +0.
	for _, c := range []struct {
		d    ir.ComparisonDirection
		want []bool
	}{
		{ir.CmpEQ, []bool{false, false, true, false, false, false, true}},
		{ir.CmpNE, []bool{true, true, false, true, true, true, false}},
		{ir.CmpLT, []bool{false, true, false, true, false, false, false}},
		{ir.CmpGE, []bool{false, false, true, false, false, false, true}},
	} {
		b := newModb(t)
		p, q := b.param("f32[7]"), b.param("f32[7]")
		cmp := b.op(ir.OpCompare, "pred[7]", p, q)
		cmp.Direction = c.d
		wantValues(t, b.run1(cmp, vec[float32](negNaN, -inf, negZero, 0, nan, nan, 1), y), dims(7), c.want...)
	}
}

func TestCompareTotalOrderOnNarrowFloats(t *testing.T) {
	// bf16 and f16 bit patterns: -NaN, -Inf, -0, +0, +Inf, +NaN in increasing total order.
	for _, c := range []struct {
		shape string
		mk    func([]uint16) *ir.Literal
	}{
		{"bf16[6]", func(b []uint16) *ir.Literal {
			v := make([]ir.BFloat16, len(b))
			for i := range b {
				v[i] = ir.BFloat16(b[i])
			}
			return vec(v...)
		}},
		{"f16[6]", func(b []uint16) *ir.Literal {
			v := make([]ir.Float16, len(b))
			for i := range b {
				v[i] = ir.Float16(b[i])
			}
			return vec(v...)
		}},
	} {
		var bits []uint16
		if strings.HasPrefix(c.shape, "bf16") {
			bits = []uint16{0xffc0, 0xff80, 0x8000, 0x0000, 0x7f80, 0x7fc0}
		} else {
			bits = []uint16{0xfe00, 0xfc00, 0x8000, 0x0000, 0x7c00, 0x7e00}
		}
		// Compare each with its right neighbour (rotated).
		rot := append(append([]uint16{}, bits[1:]...), bits[0])
		b := newModb(t)
		p, q := b.param(c.shape), b.param(c.shape)
		cmp := b.op(ir.OpCompare, "pred[6]", p, q)
		cmp.Direction, cmp.CompareType = ir.CmpLT, ir.CmpTypeTotalOrder
		wantValues(t, b.run1(cmp, c.mk(bits), c.mk(rot)), dims(6), true, true, true, true, true, false)
	}
}

func TestCompareIntegers(t *testing.T) {
	b := newModb(t)
	p, q := b.param("u32[2]"), b.param("u32[2]")
	cmp := b.op(ir.OpCompare, "pred[2]", p, q)
	cmp.Direction = ir.CmpLT
	wantValues(t, b.run1(cmp, vec[uint32](1, 0xffffffff), vec[uint32](0x80000000, 1)), dims(2), true, false)

	b = newModb(t)
	p, q = b.param("s4[2]"), b.param("s4[2]")
	cmp = b.op(ir.OpCompare, "pred[2]", p, q)
	cmp.Direction = ir.CmpGT
	wantValues(t, b.run1(cmp, vec[ir.Int4](-8, 7), vec[ir.Int4](7, -1)), dims(2), false, true)

	b = newModb(t)
	p, q = b.param("pred[2]"), b.param("pred[2]")
	cmp = b.op(ir.OpCompare, "pred[2]", p, q)
	cmp.Direction = ir.CmpLT
	wantValues(t, b.run1(cmp, vec(false, true), vec(true, true)), dims(2), true, false)
}

func TestRoundingOps(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	x := vec(0.5, 1.5, 2.5, -0.5, -2.5, 2.4, negZero)
	wantValues(t, unop(t, ir.OpRoundNearestAfz, "f32[7]", "f32[7]", x), dims(7), float32(1), 2, 3, -1, -3, 2, negZero)
	wantValues(t, unop(t, ir.OpRoundNearestEven, "f32[7]", "f32[7]", x), dims(7), float32(0), 2, 2, negZero, -2, 2, negZero)
	wantValues(t, unop(t, ir.OpFloor, "f32[7]", "f32[7]", x), dims(7), float32(0), 1, 2, -1, -3, 2, negZero)
	wantValues(t, unop(t, ir.OpCeil, "f32[7]", "f32[7]", x), dims(7), float32(1), 2, 3, negZero, -2, 3, negZero)
}

func TestSignOfSpecialValues(t *testing.T) {
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	wantValues(t, unop(t, ir.OpSign, "f32[6]", "f32[6]", vec[float32](nan, negZero, 0, -3, 5, float32(math.Inf(-1)))), dims(6),
		nan, negZero, 0, -1, 1, -1)
	wantValues(t, unop(t, ir.OpSign, "s32[3]", "s32[3]", vec[int32](-9, 0, 9)), dims(3), int32(-1), 0, 1)
	wantValues(t, unop(t, ir.OpSign, "u8[2]", "u8[2]", vec[uint8](0, 200)), dims(2), uint8(0), 1)
	wantValues(t, unop(t, ir.OpSign, "c64[2]", "c64[2]", vec[complex64](3+4i, 0)), dims(2), complex64(0.6+0.8i), 0)
}

func TestBitCountingOps(t *testing.T) {
	wantValues(t, unop(t, ir.OpPopulationCount, "s4[3]", "s4[3]", vec[ir.Int4](-1, 5, -8)), dims(3), ir.Int4(4), 2, 1)
	wantValues(t, unop(t, ir.OpClz, "s4[3]", "s4[3]", vec[ir.Int4](1, 0, -8)), dims(3), ir.Int4(3), 4, 0)
	wantValues(t, unop(t, ir.OpClz, "u32[3]", "u32[3]", vec[uint32](1, 0, 0x80000000)), dims(3), uint32(31), 32, 0)
	wantValues(t, unop(t, ir.OpPopulationCount, "s64[2]", "s64[2]", vec[int64](-1, 0x0f0f)), dims(2), int64(64), 8)
	wantValues(t, unop(t, ir.OpNot, "pred[2]", "pred[2]", vec(true, false)), dims(2), false, true)
	wantValues(t, unop(t, ir.OpNot, "u8[2]", "u8[2]", vec[uint8](0, 0x0f)), dims(2), uint8(0xff), 0xf0)
	wantValues(t, unop(t, ir.OpNot, "s4[2]", "s4[2]", vec[ir.Int4](0, 7)), dims(2), ir.Int4(-1), -8)
}

func TestBooleanOpsOnPred(t *testing.T) {
	x, y := vec(false, false, true, true), vec(false, true, false, true)
	wantValues(t, binop(t, ir.OpAnd, "pred[4]", "pred[4]", x, y), dims(4), false, false, false, true)
	wantValues(t, binop(t, ir.OpOr, "pred[4]", "pred[4]", x, y), dims(4), false, true, true, true)
	wantValues(t, binop(t, ir.OpXor, "pred[4]", "pred[4]", x, y), dims(4), false, true, true, false)
	wantValues(t, binop(t, ir.OpAnd, "s8[2]", "s8[2]", vec[int8](0x5a, -1), vec[int8](0x0f, 3)), dims(2), int8(0x0a), 3)
}

func TestTranscendentalsOnF32(t *testing.T) {
	x := vec[float32](-1, 0, 0.5, 2)
	check := func(op ir.Opcode, f func(float64) float64) {
		t.Helper()
		got := ir.Values[float32](unop(t, op, "f32[4]", "f32[4]", x))
		for i, v := range ir.Values[float32](x) {
			want := float32(f(float64(v)))
			if got[i] != want && !(got[i] != got[i] && want != want) {
				t.Errorf("%v(%g) = %g, want %g", op, v, got[i], want)
			}
		}
	}
	check(ir.OpExp, math.Exp)
	check(ir.OpExpm1, math.Expm1)
	check(ir.OpLog1p, math.Log1p)
	check(ir.OpErf, math.Erf)
	check(ir.OpCbrt, math.Cbrt)
	check(ir.OpTanh, math.Tanh)
	check(ir.OpLogistic, func(v float64) float64 { return 1 / (1 + math.Exp(-v)) })
	// Known values.
	wantValues(t, unop(t, ir.OpLogistic, "f32[3]", "f32[3]", vec[float32](0, -200, 200)), dims(3), float32(0.5), 0, 1)
	wantValues(t, unop(t, ir.OpCbrt, "f64[2]", "f64[2]", vec(-27.0, 8)), dims(2), -3.0, 2)
	wantValues(t, unop(t, ir.OpRsqrt, "f32[2]", "f32[2]", vec[float32](4, 0)), dims(2), float32(0.5), float32(math.Inf(1)))
	wantValues(t, unop(t, ir.OpIsFinite, "f32[4]", "pred[4]", vec(float32(math.NaN()), float32(math.Inf(-1)), 0, 3)), dims(4),
		false, false, true, true)
	wantValues(t, binop(t, ir.OpAtan2, "f64[2]", "f64[2]", vec(1.0, 0), vec(1.0, -1)), dims(2), math.Pi/4, math.Pi)
	wantValues(t, binop(t, ir.OpRemainder, "f32[3]", "f32[3]", vec[float32](5.5, -5.5, 1), vec[float32](2, 2, 0)), dims(3),
		float32(1.5), -1.5, float32(math.NaN()))
	wantValues(t, binop(t, ir.OpPower, "f32[3]", "f32[3]", vec(float32(1), float32(math.NaN()), 2), vec(float32(math.NaN()), 0, -1)), dims(3),
		float32(1), 1, 0.5)
}

func TestF16ArithmeticRoundsLikeF32ThenF16(t *testing.T) {
	one := ir.Float16FromFloat32(1)
	ulpHalf := ir.Float16FromFloat32(float32(math.Ldexp(1, -11))) // half an f16 ulp at 1
	// 1 + 2^-11 is a tie → 1 (even); 1 + 3*2^-11 rounds up to 1 + 2^-9.
	got := binop(t, ir.OpAdd, "f16[2]", "f16[2]", vec(one, one), vec(ulpHalf, ir.Float16FromFloat32(float32(3*math.Ldexp(1, -11)))))
	wantValues(t, got, dims(2), one, ir.Float16FromFloat32(float32(1+math.Ldexp(1, -9))))
	// Overflow to Inf: 65504 + 16 rounds up past the largest f16.
	big := ir.Float16FromFloat32(65504)
	wantValues(t, binop(t, ir.OpAdd, "f16[1]", "f16[1]", vec(big), vec(ir.Float16FromFloat32(16))), dims(1), ir.Float16(0x7c00))
	// bf16 sqrt of 2 rounded to bf16.
	wantValues(t, unop(t, ir.OpSqrt, "bf16[1]", "bf16[1]", vec(ir.BFloat16FromFloat32(2))), dims(1),
		ir.BFloat16FromFloat32(float32(math.Sqrt2)))
}

func TestComplexArithmetic(t *testing.T) {
	x := vec[complex64](1+2i, -4, 3+4i)
	y := vec[complex64](3-1i, 2i, 1)
	wantValues(t, binop(t, ir.OpMultiply, "c64[3]", "c64[3]", x, y), dims(3), complex64(5+5i), complex(float32(math.Copysign(0, -1)), -8), 3+4i) // -4*0 - 0*2 = -0
	wantValues(t, binop(t, ir.OpDivide, "c64[3]", "c64[3]", x, y), dims(3), complex64(0.1+0.7i), 2i, 3+4i)
	wantValues(t, unop(t, ir.OpSqrt, "c64[3]", "c64[3]", x), dims(3),
		complex64(cmplx.Sqrt(1+2i)), 2i, 2+1i)
	wantValues(t, unop(t, ir.OpAbs, "c64[3]", "f32[3]", x), dims(3), float32(math.Sqrt(5)), 4, 5)
	wantValues(t, unop(t, ir.OpReal, "c64[3]", "f32[3]", x), dims(3), float32(1), -4, 3)
	wantValues(t, unop(t, ir.OpImag, "c64[3]", "f32[3]", x), dims(3), float32(2), 0, 4)
	wantValues(t, unop(t, ir.OpImag, "f32[2]", "f32[2]", vec[float32](3, -1)), dims(2), float32(0), 0)
	wantValues(t, unop(t, ir.OpExp, "c128[1]", "c128[1]", vec[complex128](complex(0, math.Pi))), dims(1), cmplx.Exp(complex(0, math.Pi)))
	wantValues(t, unop(t, ir.OpLog, "c128[1]", "c128[1]", vec[complex128](-1)), dims(1), complex(0, math.Pi))
	wantValues(t, binop(t, ir.OpPower, "c128[3]", "c128[3]", vec[complex128](1i, 1, complex(math.Inf(1), 0)), vec[complex128](2, complex(math.NaN(), 1), -2)), dims(3),
		cmplx.Pow(1i, 2), 1, 0)
	b := newModb(t)
	re, im := b.param("f32[2]"), b.param("f32[2]")
	wantValues(t, b.run1(b.op(ir.OpComplex, "c64[2]", re, im), vec[float32](1, -2), vec[float32](3, 0.5)), dims(2), complex64(1+3i), -2+0.5i)
	// Complex compare: EQ only in the IEEE sense.
	b = newModb(t)
	p, q := b.param("c64[2]"), b.param("c64[2]")
	cmp := b.op(ir.OpCompare, "pred[2]", p, q)
	cmp.Direction = ir.CmpNE
	wantValues(t, b.run1(cmp, vec[complex64](1+1i, 2), vec[complex64](1+1i, 2i)), dims(2), false, true)
}

func TestConvert(t *testing.T) {
	conv := func(from, to string, x *ir.Literal) *ir.Literal {
		t.Helper()
		return unop(t, ir.OpConvert, from, to, x)
	}
	wantValues(t, conv("s32[3]", "f32[3]", vec[int32](0, 1, 2)), dims(3), float32(0), 1, 2) // seed example
	wantValues(t, conv("f32[7]", "s32[7]", vec(float32(3e9), -3e9, float32(math.NaN()), -0.9, 2.9, float32(math.Inf(-1)), -2.5)), dims(7),
		int32(math.MaxInt32), math.MinInt32, 0, 0, 2, math.MinInt32, -2)
	wantValues(t, conv("f32[3]", "u8[3]", vec[float32](-5, 300, 7.99)), dims(3), uint8(0), 255, 7)
	wantValues(t, conv("s64[2]", "f32[2]", vec[int64](1<<24+1, 1<<24+3)), dims(2), float32(1<<24), 1<<24+4)
	wantValues(t, conv("f32[3]", "f8e4m3fn[3]", vec[float32](464, 470, -0.1)), dims(3),
		ir.Float8E4M3FNFromFloat32(448), ir.Float8E4M3FN(0x7f), ir.Float8E4M3FNFromFloat32(-0.1))
	wantValues(t, conv("f32[2]", "f16[2]", vec[float32](65520, 65519)), dims(2), ir.Float16(0x7c00), ir.Float16(0x7bff))
	wantValues(t, conv("f32[2]", "pred[2]", vec[float32](0, -0.5)), dims(2), false, true)
	wantValues(t, conv("pred[2]", "f32[2]", vec(true, false)), dims(2), float32(1), 0)
	wantValues(t, conv("s32[2]", "s4[2]", vec[int32](9, -9)), dims(2), ir.Int4(-7), 7)
	wantValues(t, conv("s8[2]", "u8[2]", vec[int8](-1, 5)), dims(2), uint8(255), 5)
	wantValues(t, conv("f32[1]", "c64[1]", vec[float32](2.5)), dims(1), complex64(2.5))
	wantValues(t, conv("c64[1]", "c128[1]", vec[complex64](1+2i)), dims(1), complex128(1+2i))
	wantValues(t, conv("f64[1]", "f32[1]", vec(1+math.Ldexp(1, -30))), dims(1), float32(1))
	wantValues(t, conv("bf16[1]", "f16[1]", vec(ir.BFloat16FromFloat32(3.140625))), dims(1), ir.Float16FromFloat32(3.140625))
	b := newModb(t)
	err := b.runErr(b.op(ir.OpConvert, "f32[1]", b.param("c64[1]")), vec[complex64](1))
	if !strings.Contains(err.Error(), "complex") {
		t.Errorf("convert c64→f32: error %q does not name the complex conversion", err)
	}
}

func TestBitcastConvertAcrossWidths(t *testing.T) {
	// f32 1.0 is 0x3f800000: little-endian bytes 00 00 80 3f.
	wantValues(t, unop(t, ir.OpBitcastConvert, "f32[2]", "u8[2,4]", vec[float32](1, -2)), dims(2, 4),
		uint8(0), 0, 0x80, 0x3f, 0, 0, 0, 0xc0)
	wantValues(t, unop(t, ir.OpBitcastConvert, "u8[4]", "f32[]", vec[uint8](0, 0, 0x80, 0x3f)), nil, float32(1))
	wantValues(t, unop(t, ir.OpBitcastConvert, "f32[]", "f16[2]", scalar[float32](1)), dims(2), ir.Float16(0), ir.Float16(0x3f80))
	wantValues(t, unop(t, ir.OpBitcastConvert, "f16[2,2]", "f32[2]", lit(dims(2, 2), ir.Float16(0), ir.Float16(0x3f80), ir.Float16(0), ir.Float16(0xc000))), dims(2),
		float32(1), -2)
	wantValues(t, unop(t, ir.OpBitcastConvert, "s32[1]", "f32[1]", vec[int32](0x40490fdb)), dims(1), float32(math.Pi))
	// 4-bit: the low nibble first.
	wantValues(t, unop(t, ir.OpBitcastConvert, "s8[1]", "s4[1,2]", vec[int8](-0x3e)), dims(1, 2), ir.Int4(2), -4) // 0xc2
	wantValues(t, unop(t, ir.OpBitcastConvert, "u4[2]", "s4[2]", vec[ir.Uint4](15, 8)), dims(2), ir.Int4(-1), -8)
	wantValues(t, unop(t, ir.OpBitcastConvert, "s4[1,2]", "u8[1]", lit(dims(1, 2), ir.Int4(2), ir.Int4(-4))), dims(1), uint8(0xc2))
}

func TestReducePrecision(t *testing.T) {
	rp := func(x *ir.Literal, shape string, e, m int) *ir.Literal {
		t.Helper()
		b := newModb(t)
		in := b.op(ir.OpReducePrecision, shape, b.param(shape))
		in.ExponentBits, in.MantissaBits = e, m
		return b.run1(in, x)
	}
	third := float32(1.0 / 3)
	f16third := ir.Float16FromFloat32(third).Float32()
	nan := math.Float32frombits(0x7fc00123)
	got := rp(vec(third, 1e5, 1e-6, -1e-6, nan, 65519, float32(math.Inf(-1))), "f32[7]", 5, 10)
	negZero := float32(math.Copysign(0, -1))
	wantValues(t, got, dims(7), f16third, float32(math.Inf(1)), 0, negZero, nan, 65504, float32(math.Inf(-1)))
	if b := math.Float32bits(ir.Values[float32](got)[4]); b != 0x7fc00123 {
		t.Errorf("NaN payload became %#x, want it kept (0x7fc00123)", b)
	}
	// Mantissa rounding ties to even: 1 + 2^-11 with 10 mantissa bits → 1; 1 + 3*2^-11 → 1 + 2^-9.
	wantValues(t, rp(vec(1+math.Ldexp(1, -11), 1+3*math.Ldexp(1, -11)), "f64[2]", 11, 10), dims(2), 1.0, 1+math.Ldexp(1, -9))
	// With no mantissa bits a NaN becomes +Inf, and 3 (a tie between 2 and
	// 4) goes to the even exponent, 2.
	wantValues(t, rp(vec(float32(math.NaN()), 3, 6), "f32[3]", 8, 0), dims(3), float32(math.Inf(1)), 2, 8)
	// bf16, computed on its f32 value: 2^-20 is below the range of 5
	// exponent bits and flushes to 0; with bf16's own 8 exponent bits (as
	// many as f32's) nothing is flushed, not even the denormal 2^-130.
	small := ir.BFloat16FromFloat32(float32(math.Ldexp(1, -20)))
	tiny := ir.BFloat16FromFloat32(float32(math.Ldexp(1, -130)))
	wantValues(t, rp(vec(small, tiny), "bf16[2]", 5, 7), dims(2), ir.BFloat16(0), ir.BFloat16(0))
	wantValues(t, rp(vec(small, tiny), "bf16[2]", 8, 7), dims(2), small, tiny)
}

func TestSelectAndClamp(t *testing.T) {
	// Seed examples.
	b := newModb(t)
	p, x, y := b.param("pred[4]"), b.param("s32[4]"), b.param("s32[4]")
	wantValues(t, b.run1(b.op(ir.OpSelect, "s32[4]", p, x, y), vec(true, false, false, true), vec[int32](1, 2, 3, 4), vec[int32](100, 200, 300, 400)), dims(4),
		int32(1), 200, 300, 4)
	b = newModb(t)
	p, x, y = b.param("pred[]"), b.param("s32[4]"), b.param("s32[4]")
	wantValues(t, b.run1(b.op(ir.OpSelect, "s32[4]", p, x, y), scalar(true), vec[int32](1, 2, 3, 4), vec[int32](100, 200, 300, 400)), dims(4),
		int32(1), 2, 3, 4)
	b = newModb(t)
	lo, v, hi := b.param("s32[]"), b.param("s32[3]"), b.param("s32[]")
	wantValues(t, b.run1(b.op(ir.OpClamp, "s32[3]", lo, v, hi), scalar[int32](0), vec[int32](-1, 5, 9), scalar[int32](6)), dims(3),
		int32(0), 5, 6)
	// Float clamp propagates NaN; unsigned clamp compares unsigned.
	b = newModb(t)
	lo, v, hi = b.param("f32[3]"), b.param("f32[3]"), b.param("f32[3]")
	nan := float32(math.NaN())
	wantValues(t, b.run1(b.op(ir.OpClamp, "f32[3]", lo, v, hi), vec[float32](0, 0, nan), vec(nan, -1, 0.5), vec[float32](1, 1, 1)), dims(3),
		nan, 0, nan)
	b = newModb(t)
	lo, v, hi = b.param("u8[]"), b.param("u8[2]"), b.param("u8[]")
	wantValues(t, b.run1(b.op(ir.OpClamp, "u8[2]", lo, v, hi), scalar[uint8](10), vec[uint8](200, 3), scalar[uint8](100)), dims(2),
		uint8(100), 10)
}

func TestElementwiseErrors(t *testing.T) {
	b := newModb(t)
	err := b.runErr(b.op(ir.OpExp, "s32[2]", b.param("s32[2]")), vec[int32](1, 2))
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "exponential") || !strings.Contains(err.Error(), "s32") {
		t.Errorf("exp on s32: got %v, want an UnsupportedError naming the op and type", err)
	}
	b = newModb(t)
	err = b.runErr(b.op(ir.OpAdd, "f32[3]", b.param("f32[3]"), b.param("f32[2]")), vec[float32](1, 2, 3), vec[float32](1, 2))
	if !strings.Contains(err.Error(), "f32[2]") {
		t.Errorf("add of mismatched shapes: error %q does not name the shape", err)
	}
	b = newModb(t)
	err = b.runErr(b.op(ir.OpShiftLeft, "pred[1]", b.param("pred[1]"), b.param("pred[1]")), vec(true), vec(true))
	if !errors.As(err, &ue) {
		t.Errorf("shift-left on pred: got %v, want an UnsupportedError", err)
	}
}

func TestBitcastConvertSeedShapes(t *testing.T) {
	// f32[10] → f16[10,2], f32[] → f16[2], f16[10,2] → f32[10], and back.
	x := make([]float32, 10)
	for i := range x {
		x[i] = float32(i) - 4.75
	}
	halves := unop(t, ir.OpBitcastConvert, "f32[10]", "f16[10,2]", vec(x...))
	if !ir.SameDimensions(halves.Shape(), ir.MakeShape(ir.F16, 10, 2)) {
		t.Fatalf("shape %v", halves.Shape())
	}
	back := unop(t, ir.OpBitcastConvert, "f16[10,2]", "f32[10]", halves)
	wantValues(t, back, dims(10), x...)
	two := unop(t, ir.OpBitcastConvert, "f32[]", "f16[2]", scalar[float32](-2))
	wantValues(t, two, dims(2), ir.Float16(0), ir.Float16(0xc000))
}

func TestPropertyNarrowFloatsRoundTripThroughF32Exhaustively(t *testing.T) {
	// Every f16, bf16 and f8 value converts to f32 and back unchanged (NaNs
	// stay NaN), and the f32 value is what ir's exact widening gives.
	for _, c := range []struct {
		et ir.ElementType
		n  int
	}{{ir.F16, 1 << 16}, {ir.BF16, 1 << 16}, {ir.F8E5M2, 256}, {ir.F8E4M3FN, 256}} {
		x := ir.MustNewLiteral(ir.MakeShape(c.et, c.n))
		raw := x.Bytes()
		for i := 0; i < c.n; i++ {
			if c.et.ByteSize() == 2 {
				raw[2*i], raw[2*i+1] = byte(i), byte(i>>8)
			} else {
				raw[i] = byte(i)
			}
		}
		b := newModb(t)
		shape := shp(t, c.et.String()+"["+strconv.Itoa(c.n)+"]")
		up := b.op(ir.OpConvert, "f32["+strconv.Itoa(c.n)+"]", b.paramShape(shape))
		down := b.opShape(ir.OpConvert, shape, up)
		tup := b.op(ir.OpTuple, "(f32["+strconv.Itoa(c.n)+"], "+c.et.String()+"["+strconv.Itoa(c.n)+"])", up, down)
		out := b.run(tup, x)
		wide, back := out[0], out[1]
		for i := 0; i < c.n; i++ {
			w := float64(ir.Values[float32](wide)[i])
			orig := x.Float64At(i)
			if orig != orig {
				if w == w || back.Float64At(i) == back.Float64At(i) {
					t.Fatalf("%v NaN %#x did not stay NaN", c.et, i)
				}
				continue
			}
			if w != orig || back.Float64At(i) != orig || math.Signbit(w) != math.Signbit(orig) {
				t.Fatalf("%v bits %#x: f32 %v, back %v, want %v", c.et, i, w, back.Float64At(i), orig)
			}
		}
	}
}

func TestPropertyIntegerConversionsWidenAndNarrowBack(t *testing.T) {
	// Every s8 and u8 value survives s8/u8 → s64 → s8/u8, and every s4/u4
	// value survives → s32 → back; s8 → u8 wraps to v & 0xff.
	for _, c := range []struct{ narrow, wide string }{{"s8", "s64"}, {"u8", "s64"}, {"s4", "s32"}, {"u4", "s32"}, {"s8", "u8"}} {
		et, _ := ir.ParseElementType(c.narrow)
		lo, hi := intRange(et)
		n := int(hi - lo + 1)
		x := ir.MustNewLiteral(ir.MakeShape(et, n))
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = lo + int64(i)
		}
		setInts(x, vals)
		b := newModb(t)
		ns := c.narrow + "[" + strconv.Itoa(n) + "]"
		ws := c.wide + "[" + strconv.Itoa(n) + "]"
		up := b.op(ir.OpConvert, ws, b.param(ns))
		down := b.op(ir.OpConvert, ns, up)
		out := b.run(b.op(ir.OpTuple, "("+ws+", "+ns+")", up, down), x)
		wet, _ := ir.ParseElementType(c.wide)
		got, back := intValues(out[0]), intValues(out[1])
		for i, v := range vals {
			if want := wrapInt(wet, v); got[i] != want {
				t.Fatalf("%s %d → %s = %d, want %d", c.narrow, v, c.wide, got[i], want)
			}
			if back[i] != v {
				t.Fatalf("%s %d → %s → %s = %d", c.narrow, v, c.wide, c.narrow, back[i])
			}
		}
	}
}

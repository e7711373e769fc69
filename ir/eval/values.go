package eval

// This file holds the element helpers every op family shares: reading an
// array literal into one wide Go slice per element-type family and writing a
// wide slice back with XLA's rounding to the target type.
//
// The wide forms are
//
//	real floats (F16, BF16, F8*, F32, F64)  []float64     exact: every value of these types is a float64
//	integers and PRED                       []int64       signed types sign-extended, unsigned zero-extended
//	                                                      (U64 keeps its bits), PRED as 0/1
//	complex (C64, C128)                     []complex128  exact
//
// Writing rounds to the target type. Types narrower than F32 are rounded
// through F32 (round-to-nearest-even twice, with ir's conversions for the
// second step), which is what XLA does: its CPU backend computes F16/BF16/F8
// arithmetic on values upcast to F32 and rounds the F32 result, and its
// HloEvaluator converts F64 to F16 via F32 as Eigen::half does. Integers
// wrap to the target width (two's complement), so S4/U4 arithmetic wraps at
// 4 bits.

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/kilnml/kiln/ir"
)

// newArray allocates a zero array literal of type t and the given dimensions,
// refusing sizes above ir.MaxLiteralBytes before allocating.
func newArray(t ir.ElementType, dims []int) (*ir.Literal, error) {
	return ir.NewLiteral(ir.MakeShape(t, dims...))
}

// newArrayLike allocates a zero literal with the dims (and dynamic flags) of s
// and element type t.
func newArrayLike(s ir.Shape, t ir.ElementType) (*ir.Literal, error) {
	out := ir.Shape{Elem: t, Dims: s.Dims, Dynamic: s.Dynamic}
	return ir.NewLiteral(out)
}

// floatValues reads a real floating-point array literal as float64 values.
func floatValues(l *ir.Literal) []float64 {
	n := l.ElementCount()
	out := make([]float64, n)
	switch l.Shape().Elem {
	case ir.F64:
		copy(out, ir.Values[float64](l))
	case ir.F32:
		for i, v := range ir.Values[float32](l) {
			out[i] = float64(v)
		}
	case ir.F16:
		for i, v := range ir.Values[ir.Float16](l) {
			out[i] = v.Float64()
		}
	case ir.BF16:
		for i, v := range ir.Values[ir.BFloat16](l) {
			out[i] = v.Float64()
		}
	case ir.F8E5M2:
		for i, v := range ir.Values[ir.Float8E5M2](l) {
			out[i] = v.Float64()
		}
	case ir.F8E4M3FN:
		for i, v := range ir.Values[ir.Float8E4M3FN](l) {
			out[i] = v.Float64()
		}
	default:
		panic("eval: floatValues of " + l.Shape().Elem.String())
	}
	return out
}

// setFloats stores v into the real floating-point array literal l, rounding
// each value to l's element type (narrow types through F32).
func setFloats(l *ir.Literal, v []float64) {
	switch l.Shape().Elem {
	case ir.F64:
		copy(ir.Values[float64](l), v)
	case ir.F32:
		dst := ir.Values[float32](l)
		for i, x := range v {
			dst[i] = float32(x)
		}
	case ir.F16:
		dst := ir.Values[ir.Float16](l)
		for i, x := range v {
			dst[i] = ir.Float16FromFloat32(float32(x))
		}
	case ir.BF16:
		dst := ir.Values[ir.BFloat16](l)
		for i, x := range v {
			dst[i] = ir.BFloat16FromFloat32(float32(x))
		}
	case ir.F8E5M2:
		dst := ir.Values[ir.Float8E5M2](l)
		for i, x := range v {
			dst[i] = ir.Float8E5M2FromFloat32(float32(x))
		}
	case ir.F8E4M3FN:
		dst := ir.Values[ir.Float8E4M3FN](l)
		for i, x := range v {
			dst[i] = ir.Float8E4M3FNFromFloat32(float32(x))
		}
	default:
		panic("eval: setFloats of " + l.Shape().Elem.String())
	}
}

// intValues reads an integer or PRED array literal as int64 values: signed
// types sign-extended, unsigned types zero-extended (U64 values above
// MaxInt64 keep their bits), PRED as 0 or 1.
func intValues(l *ir.Literal) []int64 {
	n := l.ElementCount()
	out := make([]int64, n)
	switch l.Shape().Elem {
	case ir.PRED:
		for i, v := range ir.Values[bool](l) {
			if v {
				out[i] = 1
			}
		}
	case ir.S4:
		for i, v := range ir.Values[ir.Int4](l) {
			out[i] = signExtend(int64(v), 4)
		}
	case ir.S8:
		for i, v := range ir.Values[int8](l) {
			out[i] = int64(v)
		}
	case ir.S16:
		for i, v := range ir.Values[int16](l) {
			out[i] = int64(v)
		}
	case ir.S32:
		for i, v := range ir.Values[int32](l) {
			out[i] = int64(v)
		}
	case ir.S64:
		copy(out, ir.Values[int64](l))
	case ir.U4:
		for i, v := range ir.Values[ir.Uint4](l) {
			out[i] = int64(v & 0xf)
		}
	case ir.U8:
		for i, v := range ir.Values[uint8](l) {
			out[i] = int64(v)
		}
	case ir.U16:
		for i, v := range ir.Values[uint16](l) {
			out[i] = int64(v)
		}
	case ir.U32:
		for i, v := range ir.Values[uint32](l) {
			out[i] = int64(v)
		}
	case ir.U64:
		for i, v := range ir.Values[uint64](l) {
			out[i] = int64(v)
		}
	default:
		panic("eval: intValues of " + l.Shape().Elem.String())
	}
	return out
}

// setInts stores v into the integer or PRED array literal l, wrapping each
// value to l's width (PRED stores v != 0).
func setInts(l *ir.Literal, v []int64) {
	switch l.Shape().Elem {
	case ir.PRED:
		dst := ir.Values[bool](l)
		for i, x := range v {
			dst[i] = x != 0
		}
	case ir.S4:
		dst := ir.Values[ir.Int4](l)
		for i, x := range v {
			dst[i] = ir.Int4(signExtend(x, 4))
		}
	case ir.S8:
		dst := ir.Values[int8](l)
		for i, x := range v {
			dst[i] = int8(x)
		}
	case ir.S16:
		dst := ir.Values[int16](l)
		for i, x := range v {
			dst[i] = int16(x)
		}
	case ir.S32:
		dst := ir.Values[int32](l)
		for i, x := range v {
			dst[i] = int32(x)
		}
	case ir.S64:
		copy(ir.Values[int64](l), v)
	case ir.U4:
		dst := ir.Values[ir.Uint4](l)
		for i, x := range v {
			dst[i] = ir.Uint4(x & 0xf)
		}
	case ir.U8:
		dst := ir.Values[uint8](l)
		for i, x := range v {
			dst[i] = uint8(x)
		}
	case ir.U16:
		dst := ir.Values[uint16](l)
		for i, x := range v {
			dst[i] = uint16(x)
		}
	case ir.U32:
		dst := ir.Values[uint32](l)
		for i, x := range v {
			dst[i] = uint32(x)
		}
	case ir.U64:
		dst := ir.Values[uint64](l)
		for i, x := range v {
			dst[i] = uint64(x)
		}
	default:
		panic("eval: setInts of " + l.Shape().Elem.String())
	}
}

// complexValues reads a C64 or C128 array literal as complex128 values.
func complexValues(l *ir.Literal) []complex128 {
	n := l.ElementCount()
	out := make([]complex128, n)
	switch l.Shape().Elem {
	case ir.C128:
		copy(out, ir.Values[complex128](l))
	case ir.C64:
		for i, v := range ir.Values[complex64](l) {
			out[i] = complex128(v)
		}
	default:
		panic("eval: complexValues of " + l.Shape().Elem.String())
	}
	return out
}

// setComplex stores v into the C64 or C128 literal l (C64 rounds each part
// to nearest even).
func setComplex(l *ir.Literal, v []complex128) {
	switch l.Shape().Elem {
	case ir.C128:
		copy(ir.Values[complex128](l), v)
	case ir.C64:
		dst := ir.Values[complex64](l)
		for i, x := range v {
			dst[i] = complex64(x)
		}
	default:
		panic("eval: setComplex of " + l.Shape().Elem.String())
	}
}

// signExtend returns the low `width` bits of x as a signed value.
func signExtend(x int64, width int) int64 {
	shift := 64 - width
	return x << shift >> shift
}

// wrapInt returns x wrapped to the representation intValues uses for type t:
// sign-extended from t's width for signed types, zero-extended for unsigned
// types, 0/1 for PRED.
func wrapInt(t ir.ElementType, x int64) int64 {
	switch {
	case t == ir.PRED:
		if x != 0 {
			return 1
		}
		return 0
	case t.IsSigned():
		return signExtend(x, t.BitWidth())
	}
	w := t.BitWidth()
	if w == 64 {
		return x
	}
	return x & (1<<w - 1)
}

// intRange returns the smallest and largest values of integer type t in the
// representation intValues uses (U64's maximum is -1 as int64 bits).
func intRange(t ir.ElementType) (lo, hi int64) {
	w := t.BitWidth()
	if t.IsSigned() {
		return -1 << (w - 1), 1<<(w-1) - 1
	}
	if t == ir.PRED {
		return 0, 1
	}
	if w == 64 {
		return 0, -1
	}
	return 0, 1<<w - 1
}

// intToFloat converts an integer value of type from (in intValues form) to
// the float64 that, stored with setFloats (or setComplex) into type to,
// gives XLA's conversion: round-to-nearest-even straight to F64 or F32, and
// through F32 for narrower types (ir.IntToFloat).
func intToFloat(from, to ir.ElementType, x int64) float64 {
	unsigned := from.IsUnsigned() || from == ir.PRED
	return ir.IntToFloat(x, unsigned, to.ComplexComponent())
}

// floatToInt converts a float to integer type t (or PRED) as XLA does:
// truncation toward zero, saturating at the type's range, NaN to 0; PRED is
// x != 0. The result is in intValues form.
func floatToInt(t ir.ElementType, x float64) int64 { return ir.SaturateFloatToInt(x, t) }

// scalarIndex reads element i of an integer array literal as an int64 (used
// for start indices, branch indices and iteration counts). Unsigned values
// above MaxInt64 saturate to MaxInt64 so that they clamp like any other
// too-large index.
func scalarIndex(l *ir.Literal, i int) (int64, error) {
	t := l.Shape().Elem
	switch t {
	case ir.S4:
		return signExtend(int64(ir.Values[ir.Int4](l)[i]), 4), nil
	case ir.S8:
		return int64(ir.Values[int8](l)[i]), nil
	case ir.S16:
		return int64(ir.Values[int16](l)[i]), nil
	case ir.S32:
		return int64(ir.Values[int32](l)[i]), nil
	case ir.S64:
		return ir.Values[int64](l)[i], nil
	case ir.U4:
		return int64(ir.Values[ir.Uint4](l)[i] & 0xf), nil
	case ir.U8:
		return int64(ir.Values[uint8](l)[i]), nil
	case ir.U16:
		return int64(ir.Values[uint16](l)[i]), nil
	case ir.U32:
		return int64(ir.Values[uint32](l)[i]), nil
	case ir.U64:
		v := ir.Values[uint64](l)[i]
		if v > math.MaxInt64 {
			return math.MaxInt64, nil
		}
		return int64(v), nil
	}
	return 0, fmt.Errorf("index operand has element type %v, want an integer type", t)
}

// elementBytes is the storage size of one element of l.
func elementBytes(l *ir.Literal) int { return l.Shape().Elem.ByteSize() }

// floatBits returns the raw bits of element i of a real float literal, and
// the width of the type in bits.
func floatBits(l *ir.Literal) ([]uint64, int) {
	n := l.ElementCount()
	out := make([]uint64, n)
	switch l.Shape().Elem {
	case ir.F64:
		for i, v := range ir.Values[float64](l) {
			out[i] = math.Float64bits(v)
		}
		return out, 64
	case ir.F32:
		for i, v := range ir.Values[float32](l) {
			out[i] = uint64(math.Float32bits(v))
		}
		return out, 32
	case ir.F16:
		for i, v := range ir.Values[ir.Float16](l) {
			out[i] = uint64(v)
		}
		return out, 16
	case ir.BF16:
		for i, v := range ir.Values[ir.BFloat16](l) {
			out[i] = uint64(v)
		}
		return out, 16
	case ir.F8E5M2:
		for i, v := range ir.Values[ir.Float8E5M2](l) {
			out[i] = uint64(v)
		}
		return out, 8
	case ir.F8E4M3FN:
		for i, v := range ir.Values[ir.Float8E4M3FN](l) {
			out[i] = uint64(v)
		}
		return out, 8
	}
	panic("eval: floatBits of " + l.Shape().Elem.String())
}

// totalOrderKey maps the bits of a float of the given width to an integer
// whose signed order is XLA's total order: -NaN < -Inf < … < -0 < +0 < … <
// +Inf < +NaN.
func totalOrderKey(b uint64, width int) int64 {
	k := int64(b << (64 - width)) // sign bit to bit 63; magnitude above the zeros
	if k < 0 {
		k ^= math.MaxInt64 // flip the magnitude of negatives
	}
	return k
}

// leadingZeros counts the leading zero bits of x as a value of width bits.
func leadingZeros(x int64, width int) int64 {
	u := uint64(x)
	if width < 64 {
		u &= 1<<width - 1
	}
	return int64(bits.LeadingZeros64(u) - (64 - width))
}

// popCount counts the set bits of x as a value of width bits.
func popCount(x int64, width int) int64 {
	u := uint64(x)
	if width < 64 {
		u &= 1<<width - 1
	}
	return int64(bits.OnesCount64(u))
}

// floatAt returns element i of a real floating-point literal.
func floatAt(l *ir.Literal, i int) float64 {
	switch l.Shape().Elem {
	case ir.F64:
		return ir.Values[float64](l)[i]
	case ir.F32:
		return float64(ir.Values[float32](l)[i])
	case ir.F16:
		return ir.Values[ir.Float16](l)[i].Float64()
	case ir.BF16:
		return ir.Values[ir.BFloat16](l)[i].Float64()
	case ir.F8E5M2:
		return ir.Values[ir.Float8E5M2](l)[i].Float64()
	case ir.F8E4M3FN:
		return ir.Values[ir.Float8E4M3FN](l)[i].Float64()
	}
	panic("eval: floatAt of " + l.Shape().Elem.String())
}

// setFloatAt stores v, rounded to the literal's type as setFloats does, at element i.
func setFloatAt(l *ir.Literal, i int, v float64) {
	switch l.Shape().Elem {
	case ir.F64:
		ir.Values[float64](l)[i] = v
	case ir.F32:
		ir.Values[float32](l)[i] = float32(v)
	case ir.F16:
		ir.Values[ir.Float16](l)[i] = ir.Float16FromFloat32(float32(v))
	case ir.BF16:
		ir.Values[ir.BFloat16](l)[i] = ir.BFloat16FromFloat32(float32(v))
	case ir.F8E5M2:
		ir.Values[ir.Float8E5M2](l)[i] = ir.Float8E5M2FromFloat32(float32(v))
	case ir.F8E4M3FN:
		ir.Values[ir.Float8E4M3FN](l)[i] = ir.Float8E4M3FNFromFloat32(float32(v))
	default:
		panic("eval: setFloatAt of " + l.Shape().Elem.String())
	}
}

// intAt returns element i of an integer or PRED literal in intValues form.
func intAt(l *ir.Literal, i int) int64 {
	switch l.Shape().Elem {
	case ir.PRED:
		if ir.Values[bool](l)[i] {
			return 1
		}
		return 0
	case ir.S4:
		return signExtend(int64(ir.Values[ir.Int4](l)[i]), 4)
	case ir.S8:
		return int64(ir.Values[int8](l)[i])
	case ir.S16:
		return int64(ir.Values[int16](l)[i])
	case ir.S32:
		return int64(ir.Values[int32](l)[i])
	case ir.S64:
		return ir.Values[int64](l)[i]
	case ir.U4:
		return int64(ir.Values[ir.Uint4](l)[i] & 0xf)
	case ir.U8:
		return int64(ir.Values[uint8](l)[i])
	case ir.U16:
		return int64(ir.Values[uint16](l)[i])
	case ir.U32:
		return int64(ir.Values[uint32](l)[i])
	case ir.U64:
		return int64(ir.Values[uint64](l)[i])
	}
	panic("eval: intAt of " + l.Shape().Elem.String())
}

// setIntAt stores v, wrapped to the literal's type as setInts does, at element i.
func setIntAt(l *ir.Literal, i int, v int64) {
	switch l.Shape().Elem {
	case ir.PRED:
		ir.Values[bool](l)[i] = v != 0
	case ir.S4:
		ir.Values[ir.Int4](l)[i] = ir.Int4(signExtend(v, 4))
	case ir.S8:
		ir.Values[int8](l)[i] = int8(v)
	case ir.S16:
		ir.Values[int16](l)[i] = int16(v)
	case ir.S32:
		ir.Values[int32](l)[i] = int32(v)
	case ir.S64:
		ir.Values[int64](l)[i] = v
	case ir.U4:
		ir.Values[ir.Uint4](l)[i] = ir.Uint4(v & 0xf)
	case ir.U8:
		ir.Values[uint8](l)[i] = uint8(v)
	case ir.U16:
		ir.Values[uint16](l)[i] = uint16(v)
	case ir.U32:
		ir.Values[uint32](l)[i] = uint32(v)
	case ir.U64:
		ir.Values[uint64](l)[i] = uint64(v)
	default:
		panic("eval: setIntAt of " + l.Shape().Elem.String())
	}
}

package ir

import (
	"fmt"
	"math"
	"unsafe"
)

// Element conversion with the semantics of XLA's ConvertElementType as its
// HloEvaluator computes it (a static_cast per element, with the saturating
// float-to-integer rule XLA adopted in 2023). Every rule, by source and
// target:
//
//   - integer → integer: two's-complement truncation to the target width
//     (wrap), after sign extension for signed sources and zero extension for
//     unsigned ones; S4 and U4 keep the low 4 bits (S4 sign-extends them).
//   - integer → float: round to nearest, ties to even, once for F32 and F64.
//     F16, BF16 and the F8 types are reached through F32, as Eigen::half,
//     Eigen::bfloat16 and ml_dtypes' constructors convert an integer
//     through float.
//   - float → integer: truncate toward zero, then saturate at the target's
//     range; NaN gives 0 (LLVM's fptosi.sat, which XLA's CPU and GPU
//     backends and its evaluator use since 2023, where static_cast would be
//     undefined).
//   - float → float: round to nearest, ties to even. F64 to F16, BF16 and the
//     F8 types goes through F32 (Eigen's half(double) and bfloat16(double)
//     take a float; ir/eval does the same); the exported Float16FromFloat64
//     and friends round once instead. Overflow gives ±Inf, or NaN for
//     F8E4M3FN (ml_dtypes' non-saturating conversion). A NaN keeps its sign
//     and the top bits of its payload, not quieted (the quiet NaN if no
//     payload bit survives).
//   - anything → PRED: x != 0 (so NaN gives true); PRED → anything: 0 or 1.
//   - real → complex: the value (rounded to the component type) with a zero
//     imaginary part; complex → complex: each part rounded.
//   - complex → real (and → PRED): the real part, converted by the rules
//     above. XLA's shape inference refuses a complex-to-real convert op;
//     these helpers define it because readers such as Float64At need it.

// ConvertLiteral returns a new array literal with l's dimensions, dynamic
// flags and layout and element type to, each element converted by the rules
// above.
func ConvertLiteral(l *Literal, to ElementType) (*Literal, error) {
	if !l.shape.IsArray() {
		return nil, fmt.Errorf("convert: literal of shape %v is not an array", l.shape)
	}
	if !to.IsArray() {
		return nil, fmt.Errorf("convert: target element type %v is not an array element type", to)
	}
	from := l.shape.Elem
	if from == to {
		return l.Clone(), nil
	}
	out, err := NewLiteral(l.shape.WithElem(to))
	if err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	n := l.ElementCount()
	fs, ts := from.ByteSize(), to.ByteSize()
	for i := range n {
		convertElem(to, unsafe.Pointer(&out.data[i*ts]), from, unsafe.Pointer(&l.data[i*fs]))
	}
	return out, nil
}

// ConvertElement converts one element stored in src (native byte order, the
// layout Literal documents) from type from to type to and stores it in dst.
// It panics if a slice is shorter than its type's ByteSize or a type is not
// an array element type.
func ConvertElement(dst []byte, to ElementType, src []byte, from ElementType) {
	if !to.IsArray() || !from.IsArray() {
		panic(fmt.Sprintf("ir.ConvertElement: %v to %v: not array element types", from, to))
	}
	ts, fs := to.ByteSize(), from.ByteSize()
	_, _ = dst[ts-1], src[fs-1]
	// The slices need not be aligned for their types (32-bit ARM faults on
	// an unaligned float store): convert between aligned words.
	var in, out [2]uint64
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&in[0])), 16), src[:fs])
	convertElem(to, unsafe.Pointer(&out[0]), from, unsafe.Pointer(&in[0]))
	copy(dst[:ts], unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 16))
}

// Float64At returns element i (row-major) of an array literal converted to F64.
func (l *Literal) Float64At(i int) float64 {
	var v float64
	l.loadAs(i, F64, unsafe.Pointer(&v))
	return v
}

// Complex128At returns element i (row-major) of an array literal converted to C128.
func (l *Literal) Complex128At(i int) complex128 {
	var v complex128
	l.loadAs(i, C128, unsafe.Pointer(&v))
	return v
}

// Int64At returns element i (row-major) of an array literal converted to S64
// (floats truncated and saturated, U64 values above MaxInt64 wrapped).
func (l *Literal) Int64At(i int) int64 {
	var v int64
	l.loadAs(i, S64, unsafe.Pointer(&v))
	return v
}

// Uint64At returns element i (row-major) of an array literal converted to U64
// (floats truncated and saturated, negative integers wrapped).
func (l *Literal) Uint64At(i int) uint64 {
	var v uint64
	l.loadAs(i, U64, unsafe.Pointer(&v))
	return v
}

// SetFloat64At stores v, converted from F64 to the literal's element type,
// as element i (row-major).
func (l *Literal) SetFloat64At(i int, v float64) { l.storeFrom(i, F64, unsafe.Pointer(&v)) }

// SetComplex128At stores v, converted from C128 to the literal's element
// type, as element i (row-major).
func (l *Literal) SetComplex128At(i int, v complex128) { l.storeFrom(i, C128, unsafe.Pointer(&v)) }

// SetInt64At stores v, converted from S64 to the literal's element type, as
// element i (row-major).
func (l *Literal) SetInt64At(i int, v int64) { l.storeFrom(i, S64, unsafe.Pointer(&v)) }

// SetUint64At stores v, converted from U64 to the literal's element type, as
// element i (row-major).
func (l *Literal) SetUint64At(i int, v uint64) { l.storeFrom(i, U64, unsafe.Pointer(&v)) }

func (l *Literal) elemPointer(i int) unsafe.Pointer {
	t := l.shape.Elem
	if !t.IsArray() {
		panic(fmt.Sprintf("ir: element access on a literal of shape %v", l.shape))
	}
	s := t.ByteSize()
	_ = l.data[i*s+s-1] // bounds check
	return unsafe.Pointer(&l.data[i*s])
}

func (l *Literal) loadAs(i int, to ElementType, dst unsafe.Pointer) {
	convertElem(to, dst, l.shape.Elem, l.elemPointer(i))
}

func (l *Literal) storeFrom(i int, from ElementType, src unsafe.Pointer) {
	convertElem(l.shape.Elem, l.elemPointer(i), from, src)
}

// SaturateFloatToInt converts v to the integer type to (or PRED) by XLA's
// convert rule: truncation toward zero, saturated at the type's range, NaN
// to 0; for PRED, v != 0. The result is the integer's value as an int64 (a
// U64 result above MaxInt64 keeps its bits).
func SaturateFloatToInt(v float64, to ElementType) int64 {
	if to == PRED {
		if v != 0 {
			return 1
		}
		return 0
	}
	if math.IsNaN(v) {
		return 0
	}
	t := math.Trunc(v)
	bits := to.BitWidth()
	if to.IsUnsigned() {
		if t <= 0 {
			return 0
		}
		if t >= math.Ldexp(1, bits) {
			return int64(uint64(math.MaxUint64) >> (64 - bits))
		}
		return int64(uint64(t))
	}
	lo := -math.Ldexp(1, bits-1) // exact: a power of two
	if t <= lo {
		return math.MinInt64 >> (64 - bits)
	}
	if t >= -lo {
		return math.MaxInt64 >> (64 - bits)
	}
	return int64(t)
}

// WrapInt converts the integer v (sign- or zero-extended to 64 bits) to the
// integer type to (or PRED) by XLA's convert rule: two's-complement
// truncation to the type's width, sign-extended for signed types; for PRED,
// v != 0. A U64 result above MaxInt64 keeps its bits.
func WrapInt(v int64, to ElementType) int64 {
	switch {
	case to == PRED:
		if v != 0 {
			return 1
		}
		return 0
	case to.IsSigned():
		s := 64 - to.BitWidth()
		return v << s >> s
	case to.IsUnsigned():
		s := 64 - to.BitWidth()
		return int64(uint64(v) << s >> s)
	}
	panic(fmt.Sprintf("ir.WrapInt: %v is not an integer type", to))
}

// IntToFloat converts the integer v (unsigned says whether its 64 bits are
// an unsigned value) to the float type to by XLA's convert rule and returns
// the rounded value, which that type represents exactly.
func IntToFloat(v int64, unsigned bool, to ElementType) float64 {
	switch to {
	case F64:
		if unsigned {
			return float64(uint64(v))
		}
		return float64(v)
	case F32:
		var f float32
		if unsigned {
			f = float32(uint64(v))
		} else {
			f = float32(v)
		}
		return float64(f)
	}
	if _, ok := narrowFormatOf(to); ok {
		var f float32
		if unsigned {
			f = float32(uint64(v))
		} else {
			f = float32(v)
		}
		return RoundToFloatType(float64(f), to)
	}
	panic(fmt.Sprintf("ir.IntToFloat: %v is not a real float type", to))
}

// RoundToFloatType rounds v to the float type to by XLA's convert rule (F16,
// BF16 and F8 through F32) and returns the rounded value as a float64.
func RoundToFloatType(v float64, to ElementType) float64 {
	switch to {
	case F64:
		return v
	case F32:
		return widenFloat32(narrowToFloat32(v))
	}
	if f, ok := narrowFormatOf(to); ok {
		return f.toFloat64(f.fromFloat32(narrowToFloat32(v)))
	}
	panic(fmt.Sprintf("ir.RoundToFloatType: %v is not a real float type", to))
}

// narrowToFloat32 is float32(v) with NaN payloads moved as bits (the top 23
// payload bits, not quieted) instead of by the hardware, which quiets them.
func narrowToFloat32(v float64) float32 {
	if v == v {
		return float32(v)
	}
	b := math.Float64bits(v)
	payload := uint32(b>>29) & 0x7fffff
	if payload == 0 {
		payload = 1 << 22
	}
	return math.Float32frombits(uint32(b>>63)<<31 | 0x7f800000 | payload)
}

// Float32ToFloat64 widens f exactly; a NaN keeps its sign and payload,
// moved as bits to the top of the float64 mantissa — a signalling NaN stays
// signalling, where float64(f) would quiet it.
func Float32ToFloat64(f float32) float64 { return widenFloat32(f) }

// Float64ToFloat32 rounds v to float32 (to nearest, ties to even); a NaN
// keeps its sign and the top bits of its payload, not quieted (the quiet
// NaN if no payload bit survives), where float32(v) would quiet it.
func Float64ToFloat32(v float64) float32 { return narrowToFloat32(v) }

// widenFloat32 is float64(f) with NaN payloads moved as bits.
func widenFloat32(f float32) float64 {
	if f == f {
		return float64(f)
	}
	b := math.Float32bits(f)
	return math.Float64frombits(uint64(b>>31)<<63 | 0x7ff<<52 | uint64(b&0x7fffff)<<29)
}

// loadInt reads a PRED or integer element, sign-extended for signed types and
// zero-extended for unsigned ones.
func loadInt(t ElementType, p unsafe.Pointer) int64 {
	switch t {
	case PRED:
		if *(*uint8)(p) != 0 {
			return 1
		}
		return 0
	case S1:
		return int64(*(*int8)(p)) << 63 >> 63
	case S2:
		return int64(*(*int8)(p)) << 62 >> 62
	case S4:
		return int64(*(*int8)(p)) << 60 >> 60
	case S8:
		return int64(*(*int8)(p))
	case S16:
		return int64(*(*int16)(p))
	case S32:
		return int64(*(*int32)(p))
	case S64:
		return *(*int64)(p)
	case U1:
		return int64(*(*uint8)(p) & 0x1)
	case U2:
		return int64(*(*uint8)(p) & 0x3)
	case U4:
		return int64(*(*uint8)(p) & 0xf)
	case U8:
		return int64(*(*uint8)(p))
	case U16:
		return int64(*(*uint16)(p))
	case U32:
		return int64(*(*uint32)(p))
	case U64:
		return int64(*(*uint64)(p))
	}
	panic("ir: loadInt of " + t.String())
}

func storeInt(t ElementType, p unsafe.Pointer, v int64) {
	switch t {
	case PRED:
		*(*uint8)(p) = uint8(WrapInt(v, PRED))
	case S1:
		*(*int8)(p) = int8(v << 63 >> 63)
	case S2:
		*(*int8)(p) = int8(v << 62 >> 62)
	case S4:
		*(*int8)(p) = int8(v << 60 >> 60)
	case S8:
		*(*int8)(p) = int8(v)
	case S16:
		*(*int16)(p) = int16(v)
	case S32:
		*(*int32)(p) = int32(v)
	case S64:
		*(*int64)(p) = v
	case U1:
		*(*uint8)(p) = uint8(v) & 0x1
	case U2:
		*(*uint8)(p) = uint8(v) & 0x3
	case U4:
		*(*uint8)(p) = uint8(v) & 0xf
	case U8:
		*(*uint8)(p) = uint8(v)
	case U16:
		*(*uint16)(p) = uint16(v)
	case U32:
		*(*uint32)(p) = uint32(v)
	case U64:
		*(*uint64)(p) = uint64(v)
	default:
		panic("ir: storeInt of " + t.String())
	}
}

// loadFloat reads a real float element exactly as a float64 (NaN payloads
// moved as bits).
func loadFloat(t ElementType, p unsafe.Pointer) float64 {
	switch t {
	case F64:
		return *(*float64)(p)
	case F32:
		return widenFloat32(*(*float32)(p))
	case F16:
		return (*(*Float16)(p)).Float64()
	case BF16:
		return (*(*BFloat16)(p)).Float64()
	}
	if f, ok := narrowFormatOf(t); ok {
		return f.toFloat64(uint32(*(*uint8)(p)) & (1<<f.width() - 1))
	}
	panic("ir: loadFloat of " + t.String())
}

// storeFloat rounds v to the real float type t and stores it.
func storeFloat(t ElementType, p unsafe.Pointer, v float64) {
	switch t {
	case F64:
		*(*float64)(p) = v
	case F32:
		*(*float32)(p) = narrowToFloat32(v)
	case F16:
		*(*Float16)(p) = Float16FromFloat32(narrowToFloat32(v))
	case BF16:
		*(*BFloat16)(p) = BFloat16FromFloat32(narrowToFloat32(v))
	default:
		f, ok := narrowFormatOf(t)
		if !ok || t.ByteSize() != 1 {
			panic("ir: storeFloat of " + t.String())
		}
		*(*uint8)(p) = uint8(f.fromFloat32(narrowToFloat32(v)))
	}
}

func loadComplex(t ElementType, p unsafe.Pointer) complex128 {
	if t == C64 {
		c := *(*[2]float32)(p)
		return complex(widenFloat32(c[0]), widenFloat32(c[1]))
	}
	return *(*complex128)(p)
}

func storeComplex(t ElementType, p unsafe.Pointer, v complex128) {
	if t == C64 {
		*(*[2]float32)(p) = [2]float32{narrowToFloat32(real(v)), narrowToFloat32(imag(v))}
		return
	}
	*(*complex128)(p) = v
}

// convertElem converts the element at src of type from to type to at dst.
func convertElem(to ElementType, dst unsafe.Pointer, from ElementType, src unsafe.Pointer) {
	switch {
	case from.IsComplex():
		c := loadComplex(from, src)
		if to.IsComplex() {
			storeComplex(to, dst, c)
			return
		}
		convertFromFloat(to, dst, real(c))
	case from.IsFloat():
		convertFromFloat(to, dst, loadFloat(from, src))
	default: // PRED and integers
		v := loadInt(from, src)
		unsigned := !from.IsSigned()
		switch {
		case to == PRED || to.IsInteger():
			storeInt(to, dst, v)
		case to.IsFloat():
			storeFloat(to, dst, IntToFloat(v, unsigned, to))
		case to.IsComplex():
			storeComplex(to, dst, complex(IntToFloat(v, unsigned, to.ComplexComponent()), 0))
		default:
			panic("ir: convert to " + to.String())
		}
	}
}

func convertFromFloat(to ElementType, dst unsafe.Pointer, v float64) {
	switch {
	case to == PRED || to.IsInteger():
		storeInt(to, dst, SaturateFloatToInt(v, to))
	case to.IsFloat():
		storeFloat(to, dst, v)
	case to.IsComplex():
		storeComplex(to, dst, complex(v, 0))
	default:
		panic("ir: convert to " + to.String())
	}
}

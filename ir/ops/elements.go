package ops

// Element access: typed views of element storage, and the wide forms every
// op computes in — float64 for real floats, int64 for integers and PRED,
// complex128 for complex types — read exactly (every value of these types is
// a value of its wide form) and written with XLA's rounding:
//
//   - Real floats narrower than F32 are rounded through F32
//     (round-to-nearest-even twice), which is what XLA does: its CPU backend
//     computes F16/BF16/F8 arithmetic on values upcast to F32 and rounds the
//     F32 result, and its HloEvaluator converts F64 to F16 via F32 as
//     Eigen::half does.
//   - Integers wrap to their width (two's complement), so S4/U4 arithmetic
//     wraps at 4 bits; signed types are held sign-extended, unsigned types
//     zero-extended (U64 keeps its bits), PRED as 0 or 1.
//   - C64 is held in complex128 and each part rounded to float32.
//
// Element storage is dense, in the machine's byte order, with ir.Literal's
// encodings (PRED one byte 0/1, S4/U4 one per byte, F16/BF16/F8 their bits),
// and aligned for its element type.

import (
	"math"
	"sync"
	"unsafe"

	"github.com/kilnml/kiln/ir"
)

// MaxRank bounds the rank of the arrays the structured ops handle, so their
// index counters live in fixed arrays on the stack.
const MaxRank = 16

// Elems views element storage as a slice of T (the memory must be aligned
// for T).
func Elems[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// Kind is the wide form an element type computes in.
type Kind uint8

// The wide forms.
const (
	KindFloat   Kind = iota // float64
	KindInt                 // int64 (integers and PRED)
	KindComplex             // complex128
)

// KindOf returns the wide form of element type t.
func KindOf(t ir.ElementType) Kind {
	switch {
	case t.IsFloat():
		return KindFloat
	case t.IsComplex():
		return KindComplex
	}
	return KindInt
}

// WideBytes is the size of one wide value: a register slot holds the
// largest form.
const WideBytes = 16

// Reg is a register of wide values over scratch memory: the same bytes seen
// as each form (and as raw bits).
type Reg struct {
	U []uint64
	F []float64
	I []int64
	C []complex128
}

// RegAt returns register r of n values in scratch, registers being stride
// values apart (register r starts at byte r·stride·WideBytes).
func RegAt(scratch []byte, r, stride, n int) Reg {
	b := scratch[r*stride*WideBytes : (r*stride+n)*WideBytes]
	return Reg{U: Elems[uint64](b)[:n], F: Elems[float64](b)[:n], I: Elems[int64](b)[:n], C: Elems[complex128](b)[:n]}
}

// LoadWide reads elements [start, start+n) of src, of type t, into the
// register's wide form for t.
func LoadWide(r Reg, n int, src []byte, t ir.ElementType, start int) {
	switch KindOf(t) {
	case KindFloat:
		LoadFloats(r.F[:n], src, t, start)
	case KindComplex:
		LoadComplex(r.C[:n], src, t, start)
	default:
		LoadInts(r.I[:n], src, t, start)
	}
}

// StoreWide writes n wide values of the register, rounded or wrapped to t,
// as elements [start, start+n) of dst.
func StoreWide(dst []byte, t ir.ElementType, start int, r Reg, n int) {
	switch KindOf(t) {
	case KindFloat:
		StoreFloats(dst, t, start, r.F[:n])
	case KindComplex:
		StoreComplex(dst, t, start, r.C[:n])
	default:
		StoreInts(dst, t, start, r.I[:n])
	}
}

// FillWide repeats value 0 of the register over its first n values.
func FillWide(r Reg, k Kind, n int) {
	switch k {
	case KindFloat:
		v := r.F[0]
		for j := 1; j < n; j++ {
			r.F[j] = v
		}
	case KindComplex:
		v := r.C[0]
		for j := 1; j < n; j++ {
			r.C[j] = v
		}
	default:
		v := r.I[0]
		for j := 1; j < n; j++ {
			r.I[j] = v
		}
	}
}

// RoundWide rounds or wraps n wide values to type t in place, as storing
// and reloading them would.
func RoundWide(r Reg, t ir.ElementType, n int) {
	switch {
	case t == ir.F64 || t == ir.S64 || t == ir.U64 || t == ir.C128:
	case t == ir.F32:
		for j, x := range r.F[:n] {
			r.F[j] = roundF32(x)
		}
	case t.IsFloat():
		for j, x := range r.F[:n] {
			r.F[j] = RoundFloat(t, x)
		}
	case t == ir.C64:
		for j, x := range r.C[:n] {
			r.C[j] = RoundComplex(ir.C64, x)
		}
	default:
		for j, x := range r.I[:n] {
			r.I[j] = WrapInt(t, x)
		}
	}
}

// LoadFloats reads real float elements [start, start+len(dst)) of src as
// float64 (exactly).
func LoadFloats(dst []float64, src []byte, t ir.ElementType, start int) {
	n := len(dst)
	switch t {
	case ir.F64:
		copy(dst, Elems[float64](src)[start:start+n])
	case ir.F32:
		for i, v := range Elems[float32](src)[start : start+n] {
			dst[i] = float64(v)
			if v != v {
				dst[i] = ir.Float32ToFloat64(v) // a signalling NaN stays one
			}
		}
	case ir.F16:
		tab := f16Table()
		for i, v := range Elems[ir.Float16](src)[start : start+n] {
			dst[i] = tab[v]
		}
	case ir.BF16:
		for i, v := range Elems[ir.BFloat16](src)[start : start+n] {
			dst[i] = bf16Float64(v)
		}
	case ir.F8E5M2:
		for i, v := range Elems[ir.Float8E5M2](src)[start : start+n] {
			dst[i] = f8e5m2Table[v]
		}
	case ir.F8E4M3FN:
		for i, v := range Elems[ir.Float8E4M3FN](src)[start : start+n] {
			dst[i] = f8e4m3fnTable[v]
		}
	default:
		if !t.IsFloat() {
			panic("ops: LoadFloats of " + t.String())
		}
		// The narrow formats of newer XLA, through ir's conversions.
		es := t.ByteSize()
		for i := range dst {
			ir.ConvertElement(Bytes(dst[i:i+1]), ir.F64, src[(start+i)*es:], t)
		}
	}
}

// StoreFloats rounds float64 values to real float type t (narrow types
// through float32) and writes them as elements [start, start+len(v)) of dst.
func StoreFloats(dst []byte, t ir.ElementType, start int, v []float64) {
	n := len(v)
	switch t {
	case ir.F64:
		copy(Elems[float64](dst)[start:start+n], v)
	case ir.F32:
		d := Elems[float32](dst)[start : start+n]
		for i, x := range v {
			d[i] = ir.Float64ToFloat32(x)
		}
	case ir.F16:
		d := Elems[ir.Float16](dst)[start : start+n]
		for i, x := range v {
			d[i] = ir.Float16FromFloat32(ir.Float64ToFloat32(x))
		}
	case ir.BF16:
		d := Elems[ir.BFloat16](dst)[start : start+n]
		for i, x := range v {
			d[i] = ir.BFloat16FromFloat32(ir.Float64ToFloat32(x))
		}
	case ir.F8E5M2:
		d := Elems[ir.Float8E5M2](dst)[start : start+n]
		for i, x := range v {
			d[i] = ir.Float8E5M2FromFloat32(ir.Float64ToFloat32(x))
		}
	case ir.F8E4M3FN:
		d := Elems[ir.Float8E4M3FN](dst)[start : start+n]
		for i, x := range v {
			d[i] = ir.Float8E4M3FNFromFloat32(ir.Float64ToFloat32(x))
		}
	default:
		if !t.IsFloat() {
			panic("ops: StoreFloats of " + t.String())
		}
		// The narrow formats of newer XLA: rounded to F32, then converted.
		es := t.ByteSize()
		for i, x := range v {
			f := [1]float32{ir.Float64ToFloat32(x)}
			ir.ConvertElement(dst[(start+i)*es:], t, Bytes(f[:]), ir.F32)
		}
	}
}

// LoadInts reads integer or PRED elements [start, start+len(dst)) of src as
// int64: signed types sign-extended, unsigned zero-extended, PRED as 0/1.
func LoadInts(dst []int64, src []byte, t ir.ElementType, start int) {
	n := len(dst)
	switch t {
	case ir.PRED:
		for i, v := range src[start : start+n] {
			dst[i] = 0
			if v != 0 {
				dst[i] = 1
			}
		}
	case ir.S4:
		for i, v := range src[start : start+n] {
			dst[i] = int64(v) << 60 >> 60
		}
	case ir.S8:
		for i, v := range Elems[int8](src)[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.S16:
		for i, v := range Elems[int16](src)[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.S32:
		for i, v := range Elems[int32](src)[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.S64:
		copy(dst, Elems[int64](src)[start:start+n])
	case ir.U4:
		for i, v := range src[start : start+n] {
			dst[i] = int64(v & 0xf)
		}
	case ir.U8:
		for i, v := range src[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.U16:
		for i, v := range Elems[uint16](src)[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.U32:
		for i, v := range Elems[uint32](src)[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.U64:
		for i, v := range Elems[uint64](src)[start : start+n] {
			dst[i] = int64(v)
		}
	default:
		// The one- and two-bit integers of newer XLA, one per byte.
		w := t.BitWidth()
		if !t.IsInteger() || w >= 8 {
			panic("ops: LoadInts of " + t.String())
		}
		for i, v := range src[start : start+n] {
			dst[i] = WrapInt(t, int64(v))
		}
	}
}

// StoreInts wraps int64 values to integer type t (PRED stores v != 0) and
// writes them as elements [start, start+len(v)) of dst.
func StoreInts(dst []byte, t ir.ElementType, start int, v []int64) {
	n := len(v)
	switch t {
	case ir.PRED:
		d := dst[start : start+n]
		for i, x := range v {
			d[i] = 0
			if x != 0 {
				d[i] = 1
			}
		}
	case ir.S4:
		d := dst[start : start+n]
		for i, x := range v {
			d[i] = uint8(x << 60 >> 60)
		}
	case ir.S8, ir.U8:
		d := dst[start : start+n]
		for i, x := range v {
			d[i] = uint8(x)
		}
	case ir.U4:
		d := dst[start : start+n]
		for i, x := range v {
			d[i] = uint8(x) & 0xf
		}
	case ir.S16, ir.U16:
		d := Elems[uint16](dst)[start : start+n]
		for i, x := range v {
			d[i] = uint16(x)
		}
	case ir.S32, ir.U32:
		d := Elems[uint32](dst)[start : start+n]
		for i, x := range v {
			d[i] = uint32(x)
		}
	case ir.S64, ir.U64:
		copy(Elems[int64](dst)[start:start+n], v)
	default:
		// The one- and two-bit integers of newer XLA, one per byte.
		if !t.IsInteger() || t.BitWidth() >= 8 {
			panic("ops: StoreInts of " + t.String())
		}
		d := dst[start : start+n]
		for i, x := range v {
			d[i] = uint8(WrapInt(t, x))
		}
	}
}

// LoadComplex reads C64 or C128 elements [start, start+len(dst)) of src as
// complex128.
func LoadComplex(dst []complex128, src []byte, t ir.ElementType, start int) {
	n := len(dst)
	switch t {
	case ir.C128:
		copy(dst, Elems[complex128](src)[start:start+n])
	case ir.C64:
		for i, v := range Elems[complex64](src)[start : start+n] {
			dst[i] = complex(ir.Float32ToFloat64(real(v)), ir.Float32ToFloat64(imag(v)))
		}
	default:
		panic("ops: LoadComplex of " + t.String())
	}
}

// StoreComplex writes complex128 values as C64 (each part rounded to
// nearest even) or C128 elements [start, start+len(v)) of dst.
func StoreComplex(dst []byte, t ir.ElementType, start int, v []complex128) {
	n := len(v)
	switch t {
	case ir.C128:
		copy(Elems[complex128](dst)[start:start+n], v)
	case ir.C64:
		d := Elems[complex64](dst)[start : start+n]
		for i, x := range v {
			d[i] = complex(ir.Float64ToFloat32(real(x)), ir.Float64ToFloat32(imag(x)))
		}
	default:
		panic("ops: StoreComplex of " + t.String())
	}
}

// LoadBits reads the raw bits of elements [start, start+len(dst)) of src,
// of any type but complex, into the low bits of each value (S4/U4: 4 bits).
func LoadBits(dst []uint64, src []byte, t ir.ElementType, start int) {
	n := len(dst)
	switch t.ByteSize() {
	case 8:
		copy(dst, Elems[uint64](src)[start:start+n])
	case 4:
		for i, v := range Elems[uint32](src)[start : start+n] {
			dst[i] = uint64(v)
		}
	case 2:
		for i, v := range Elems[uint16](src)[start : start+n] {
			dst[i] = uint64(v)
		}
	default:
		mask := uint64(1)<<min(t.BitWidth(), 8) - 1
		for i, v := range src[start : start+n] {
			dst[i] = uint64(v) & mask
		}
	}
}

// StoreBits writes bit patterns (the low bits of each value) as elements
// [start, start+len(v)) of dst, of any type but complex; S4 is stored
// sign-extended, PRED as 0/1.
func StoreBits(dst []byte, t ir.ElementType, start int, v []uint64) {
	n := len(v)
	switch {
	case t == ir.PRED:
		d := dst[start : start+n]
		for i, x := range v {
			d[i] = 0
			if x&1 != 0 {
				d[i] = 1
			}
		}
	case t.IsInteger() && t.BitWidth() < 8:
		d := dst[start : start+n]
		for i, x := range v {
			d[i] = uint8(WrapInt(t, int64(x)))
		}
	case t.ByteSize() == 1 && t.BitWidth() < 8:
		d := dst[start : start+n]
		for i, x := range v {
			d[i] = uint8(x) & (1<<t.BitWidth() - 1)
		}
	case t.ByteSize() == 1:
		d := dst[start : start+n]
		for i, x := range v {
			d[i] = uint8(x)
		}
	case t.ByteSize() == 2:
		d := Elems[uint16](dst)[start : start+n]
		for i, x := range v {
			d[i] = uint16(x)
		}
	case t.ByteSize() == 4:
		d := Elems[uint32](dst)[start : start+n]
		for i, x := range v {
			d[i] = uint32(x)
		}
	default:
		copy(Elems[uint64](dst)[start:start+n], v)
	}
}

// FloatAt returns element i of real float storage as a float64.
func FloatAt(src []byte, t ir.ElementType, i int) float64 {
	var x [1]float64
	LoadFloats(x[:], src, t, i)
	return x[0]
}

// SetFloatAt stores v, rounded to t, as element i of real float storage.
func SetFloatAt(dst []byte, t ir.ElementType, i int, v float64) {
	x := [1]float64{v}
	StoreFloats(dst, t, i, x[:])
}

// IntAt returns element i of integer or PRED storage in its wide form.
func IntAt(src []byte, t ir.ElementType, i int) int64 {
	var x [1]int64
	LoadInts(x[:], src, t, i)
	return x[0]
}

// SetIntAt stores v, wrapped to t, as element i of integer or PRED storage.
func SetIntAt(dst []byte, t ir.ElementType, i int, v int64) {
	x := [1]int64{v}
	StoreInts(dst, t, i, x[:])
}

// ComplexAt returns element i of complex storage as a complex128.
func ComplexAt(src []byte, t ir.ElementType, i int) complex128 {
	var x [1]complex128
	LoadComplex(x[:], src, t, i)
	return x[0]
}

// SetComplexAt stores v, rounded to t, as element i of complex storage.
func SetComplexAt(dst []byte, t ir.ElementType, i int, v complex128) {
	x := [1]complex128{v}
	StoreComplex(dst, t, i, x[:])
}

// IndexAt reads element i of integer storage as an index: an int64, U64
// values above MaxInt64 saturating so that they clamp like any other
// too-large index. Other element types read as 0.
func IndexAt(b []byte, t ir.ElementType, i int) int64 {
	switch t {
	case ir.S4:
		return int64(b[i]) << 60 >> 60
	case ir.S8:
		return int64(int8(b[i]))
	case ir.S16:
		return int64(Elems[int16](b)[i])
	case ir.S32:
		return int64(Elems[int32](b)[i])
	case ir.S64:
		return Elems[int64](b)[i]
	case ir.U4:
		return int64(b[i] & 0xf)
	case ir.U8:
		return int64(b[i])
	case ir.U16:
		return int64(Elems[uint16](b)[i])
	case ir.U32:
		return int64(Elems[uint32](b)[i])
	case ir.U64:
		v := Elems[uint64](b)[i]
		if v > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(v)
	}
	if t.IsInteger() {
		return WrapInt(t, int64(b[i]))
	}
	return 0
}

// TotalOrderKey maps the bits of a float of the given width to an integer
// whose signed order is XLA's total order: -NaN < -Inf < … < -0 < +0 < … <
// +Inf < +NaN.
func TotalOrderKey(b uint64, width int) int64 {
	k := int64(b << (64 - width)) // sign bit to bit 63; magnitude above the zeros
	if k < 0 {
		k ^= math.MaxInt64 // flip the magnitude of negatives
	}
	return k
}

// SignExtend returns the low width bits of x as a signed value.
func SignExtend(x int64, width int) int64 {
	shift := 64 - width
	return x << shift >> shift
}

// WrapInt wraps x to the wide form of integer or PRED type t: sign-extended
// from t's width for signed types, zero-extended for unsigned types, 0/1 for
// PRED.
func WrapInt(t ir.ElementType, x int64) int64 {
	switch {
	case t == ir.PRED:
		if x != 0 {
			return 1
		}
		return 0
	case t.IsSigned():
		return SignExtend(x, t.BitWidth())
	}
	if w := t.BitWidth(); w < 64 {
		return x & (1<<w - 1)
	}
	return x
}

// RoundFloat rounds a float64 to real float type t as StoreFloats stores it.
func RoundFloat(t ir.ElementType, x float64) float64 {
	switch t {
	case ir.F64:
		return x
	case ir.F32:
		return roundF32(x)
	case ir.F16:
		return f16Table()[ir.Float16FromFloat32(ir.Float64ToFloat32(x))]
	case ir.BF16:
		return bf16Float64(ir.BFloat16FromFloat32(ir.Float64ToFloat32(x)))
	case ir.F8E5M2:
		return f8e5m2Table[ir.Float8E5M2FromFloat32(ir.Float64ToFloat32(x))]
	case ir.F8E4M3FN:
		return f8e4m3fnTable[ir.Float8E4M3FNFromFloat32(ir.Float64ToFloat32(x))]
	}
	var b [2]byte
	SetFloatAt(b[:], t, 0, x)
	return FloatAt(b[:], t, 0)
}

// roundF32 rounds x to float32 and back; a NaN keeps its payload and
// whether it signals (the wide form holds what an f32 buffer holds).
func roundF32(x float64) float64 {
	if x == x {
		return float64(float32(x))
	}
	return ir.Float32ToFloat64(ir.Float64ToFloat32(x))
}

// RoundComplex rounds each part of x to t's component type.
func RoundComplex(t ir.ElementType, x complex128) complex128 {
	if t == ir.C64 {
		return complex(roundF32(real(x)), roundF32(imag(x)))
	}
	return x
}

// IntRange returns the smallest and largest values of integer or PRED type
// t in wide form (U64's maximum is -1 as int64 bits).
func IntRange(t ir.ElementType) (lo, hi int64) {
	w := t.BitWidth()
	switch {
	case t == ir.PRED:
		return 0, 1
	case t.IsSigned():
		return -1 << (w - 1), 1<<(w-1) - 1
	case w == 64:
		return 0, -1
	}
	return 0, 1<<w - 1
}

// FloatBits returns the function giving the stored bits of a wide value of
// real float type t, and the type's width in bits.
func FloatBits(t ir.ElementType) (func(float64) uint64, int) {
	switch t {
	case ir.F64:
		return math.Float64bits, 64
	case ir.F32:
		return func(x float64) uint64 { return uint64(math.Float32bits(ir.Float64ToFloat32(x))) }, 32
	case ir.F16:
		return func(x float64) uint64 { return uint64(ir.Float16FromFloat64(x)) }, 16
	case ir.BF16:
		return func(x float64) uint64 { return uint64(ir.BFloat16FromFloat64(x)) }, 16
	case ir.F8E5M2:
		return func(x float64) uint64 { return uint64(ir.Float8E5M2FromFloat64(x)) }, 8
	case ir.F8E4M3FN:
		return func(x float64) uint64 { return uint64(ir.Float8E4M3FNFromFloat64(x)) }, 8
	}
	return func(x float64) uint64 {
		var b [2]byte
		y := [1]float64{x}
		ir.ConvertElement(b[:], t, Bytes(y[:]), ir.F64)
		return uint64(b[0])
	}, t.BitWidth()
}

// Strides returns the element strides of dense row-major storage of dims.
func Strides(dims []int) []int {
	s := make([]int, len(dims))
	st := 1
	for d := len(dims) - 1; d >= 0; d-- {
		s[d] = st
		st *= dims[d]
	}
	return s
}

// Count is the number of elements of an array of dims.
func Count(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// FillElements repeats the element val (its bytes) over dst.
func FillElements(dst, val []byte) {
	if len(dst) == 0 {
		return
	}
	switch len(val) {
	case 1:
		v := val[0]
		for i := range dst {
			dst[i] = v
		}
	case 2:
		fillT(Elems[uint16](dst), Elems[uint16](val)[0])
	case 4:
		fillT(Elems[uint32](dst), Elems[uint32](val)[0])
	case 8:
		fillT(Elems[uint64](dst), Elems[uint64](val)[0])
	default:
		n := copy(dst, val)
		for n < len(dst) {
			n += copy(dst[n:], dst[:n])
		}
	}
}

func fillT[T any](dst []T, v T) {
	for i := range dst {
		dst[i] = v
	}
}

// unsafeBytes views a slice of int64 as its bytes.
func unsafeBytes(x []int64) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), len(x)*8)
}

// unsafeBytesU views a slice of uint64 as its bytes.
func unsafeBytesU(x []uint64) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), len(x)*8)
}

// littleEndian reports whether the machine stores the least significant
// byte first (bitcast-convert between widths is then a copy of bytes).
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Bytes views a slice of fixed-size values as its bytes.
func Bytes[T any](x []T) []byte {
	if len(x) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), len(x)*int(unsafe.Sizeof(z)))
}

// The values of the narrow float types, decoded once: ir's decoders keep
// every NaN's payload exactly (a hardware float32→float64 conversion may
// quiet a signalling NaN), at a cost the loops over elements should not pay.
var (
	f8e5m2Table   = narrowTable[ir.Float8E5M2](256)
	f8e4m3fnTable = narrowTable[ir.Float8E4M3FN](256)
	f16Table      = sync.OnceValue(func() []float64 { return narrowTable[ir.Float16](1 << 16) })
)

func narrowTable[T interface {
	~uint8 | ~uint16
	Float64() float64
}](n int) []float64 {
	tab := make([]float64, n)
	for i := range tab {
		tab[i] = T(i).Float64()
	}
	return tab
}

// bf16Float64 is v's value: a bfloat16 is the top half of a float32.
func bf16Float64(v ir.BFloat16) float64 {
	if v&0x7f80 != 0x7f80 {
		return float64(math.Float32frombits(uint32(v) << 16))
	}
	return v.Float64() // Inf and NaN, payload kept
}

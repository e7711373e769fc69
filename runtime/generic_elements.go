package runtime

// Element access shared by the generic implementations: typed views of
// frame memory, and the "wide" forms the reference evaluator computes in —
// float64 for real floats, int64 for integers and PRED, complex128 for
// complex types — read and written exactly as ir/eval reads and writes them
// (narrow floats rounded through float32, integers wrapped to their width),
// so a generic op agrees with the evaluator bit for bit.

import (
	"math"
	"unsafe"

	"github.com/kilnml/kiln/ir"
)

// elems views bytes as a slice of T (the memory must be aligned for T;
// frame memory is 64-byte aligned and holds elements at multiples of their
// size).
func elems[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// wideKind is the wide form an element type computes in.
type wideKind uint8

const (
	wideFloat wideKind = iota
	wideInt
	wideComplex
)

func wideKindOf(t ir.ElementType) wideKind {
	switch {
	case t.IsFloat():
		return wideFloat
	case t.IsComplex():
		return wideComplex
	}
	return wideInt
}

// wideBytes is the size of one wide value: every register holds the largest.
const wideBytes = 16

// wideReg is a register of wide values over scratch memory: the same bytes
// viewed as each of the three forms.
type wideReg struct {
	u []uint64 // raw bits
	f []float64
	i []int64
	c []complex128
}

// regAt returns register r of n wide values in scratch, registers being
// stride values apart.
func regAt(scratch []byte, r, stride, n int) wideReg {
	b := scratch[r*stride*wideBytes : (r*stride+n)*wideBytes]
	return wideReg{u: elems[uint64](b)[:n], f: elems[float64](b)[:n], i: elems[int64](b)[:n], c: elems[complex128](b)[:n]}
}

// loadWide reads elements [start, start+len) of src, of type t, into the
// register's wide form for t (n elements).
func loadWide(r wideReg, n int, src []byte, t ir.ElementType, start int) {
	switch wideKindOf(t) {
	case wideFloat:
		loadFloats(r.f[:n], src, t, start)
	case wideComplex:
		loadComplex(r.c[:n], src, t, start)
	default:
		loadInts(r.i[:n], src, t, start)
	}
}

// storeWide writes n wide values of the register, rounded or wrapped to t,
// as elements [start, start+n) of dst.
func storeWide(dst []byte, t ir.ElementType, start int, r wideReg, n int) {
	switch wideKindOf(t) {
	case wideFloat:
		storeFloats(dst, t, start, r.f[:n])
	case wideComplex:
		storeComplex(dst, t, start, r.c[:n])
	default:
		storeInts(dst, t, start, r.i[:n])
	}
}

// fillWide repeats value 0 of the register over its first n values.
func fillWide(r wideReg, k wideKind, n int) {
	switch k {
	case wideFloat:
		v := r.f[0]
		for j := 1; j < n; j++ {
			r.f[j] = v
		}
	case wideComplex:
		v := r.c[0]
		for j := 1; j < n; j++ {
			r.c[j] = v
		}
	default:
		v := r.i[0]
		for j := 1; j < n; j++ {
			r.i[j] = v
		}
	}
}

// loadFloats reads real float elements as float64 (exact), as eval's
// floatValues does.
func loadFloats(dst []float64, src []byte, t ir.ElementType, start int) {
	n := len(dst)
	switch t {
	case ir.F64:
		copy(dst, elems[float64](src)[start:start+n])
	case ir.F32:
		for i, v := range elems[float32](src)[start : start+n] {
			dst[i] = float64(v)
		}
	case ir.F16:
		for i, v := range elems[ir.Float16](src)[start : start+n] {
			dst[i] = v.Float64()
		}
	case ir.BF16:
		for i, v := range elems[ir.BFloat16](src)[start : start+n] {
			dst[i] = v.Float64()
		}
	case ir.F8E5M2:
		for i, v := range elems[ir.Float8E5M2](src)[start : start+n] {
			dst[i] = v.Float64()
		}
	case ir.F8E4M3FN:
		for i, v := range elems[ir.Float8E4M3FN](src)[start : start+n] {
			dst[i] = v.Float64()
		}
	}
}

// storeFloats rounds float64 values to real float type t (narrow types
// through float32), as eval's setFloats does.
func storeFloats(dst []byte, t ir.ElementType, start int, v []float64) {
	n := len(v)
	switch t {
	case ir.F64:
		copy(elems[float64](dst)[start:start+n], v)
	case ir.F32:
		d := elems[float32](dst)[start : start+n]
		for i, x := range v {
			d[i] = float32(x)
		}
	case ir.F16:
		d := elems[ir.Float16](dst)[start : start+n]
		for i, x := range v {
			d[i] = ir.Float16FromFloat32(float32(x))
		}
	case ir.BF16:
		d := elems[ir.BFloat16](dst)[start : start+n]
		for i, x := range v {
			d[i] = ir.BFloat16FromFloat32(float32(x))
		}
	case ir.F8E5M2:
		d := elems[ir.Float8E5M2](dst)[start : start+n]
		for i, x := range v {
			d[i] = ir.Float8E5M2FromFloat32(float32(x))
		}
	case ir.F8E4M3FN:
		d := elems[ir.Float8E4M3FN](dst)[start : start+n]
		for i, x := range v {
			d[i] = ir.Float8E4M3FNFromFloat32(float32(x))
		}
	}
}

// loadInts reads integer or PRED elements as int64: signed types
// sign-extended, unsigned zero-extended, PRED as 0/1 (eval's intValues).
func loadInts(dst []int64, src []byte, t ir.ElementType, start int) {
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
		for i, v := range elems[int8](src)[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.S16:
		for i, v := range elems[int16](src)[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.S32:
		for i, v := range elems[int32](src)[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.S64:
		copy(dst, elems[int64](src)[start:start+n])
	case ir.U4:
		for i, v := range src[start : start+n] {
			dst[i] = int64(v & 0xf)
		}
	case ir.U8:
		for i, v := range src[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.U16:
		for i, v := range elems[uint16](src)[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.U32:
		for i, v := range elems[uint32](src)[start : start+n] {
			dst[i] = int64(v)
		}
	case ir.U64:
		for i, v := range elems[uint64](src)[start : start+n] {
			dst[i] = int64(v)
		}
	}
}

// storeInts wraps int64 values to integer type t (PRED: v != 0), as eval's
// setInts does.
func storeInts(dst []byte, t ir.ElementType, start int, v []int64) {
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
		d := elems[uint16](dst)[start : start+n]
		for i, x := range v {
			d[i] = uint16(x)
		}
	case ir.S32, ir.U32:
		d := elems[uint32](dst)[start : start+n]
		for i, x := range v {
			d[i] = uint32(x)
		}
	case ir.S64, ir.U64:
		copy(elems[int64](dst)[start:start+n], v)
	}
}

// loadComplex reads C64 or C128 elements as complex128.
func loadComplex(dst []complex128, src []byte, t ir.ElementType, start int) {
	n := len(dst)
	if t == ir.C128 {
		copy(dst, elems[complex128](src)[start:start+n])
		return
	}
	for i, v := range elems[complex64](src)[start : start+n] {
		dst[i] = complex128(v)
	}
}

// storeComplex stores complex128 values as C64 (each part rounded) or C128.
func storeComplex(dst []byte, t ir.ElementType, start int, v []complex128) {
	n := len(v)
	if t == ir.C128 {
		copy(elems[complex128](dst)[start:start+n], v)
		return
	}
	d := elems[complex64](dst)[start : start+n]
	for i, x := range v {
		d[i] = complex64(x)
	}
}

// loadBits reads the raw bits of real float elements (for the total order).
func loadBits(dst []uint64, src []byte, t ir.ElementType, start int) {
	n := len(dst)
	switch t.ByteSize() {
	case 8:
		copy(dst, elems[uint64](src)[start:start+n])
	case 4:
		for i, v := range elems[uint32](src)[start : start+n] {
			dst[i] = uint64(v)
		}
	case 2:
		for i, v := range elems[uint16](src)[start : start+n] {
			dst[i] = uint64(v)
		}
	default:
		for i, v := range src[start : start+n] {
			dst[i] = uint64(v)
		}
	}
}

// totalOrderKey maps the bits of a float of the given width to an integer
// whose signed order is XLA's total order: -NaN < -Inf < … < -0 < +0 < … <
// +Inf < +NaN.
func totalOrderKey(b uint64, width int) int64 {
	k := int64(b << (64 - width))
	if k < 0 {
		k ^= math.MaxInt64
	}
	return k
}

// signExtend returns the low width bits of x as a signed value.
func signExtend(x int64, width int) int64 {
	shift := 64 - width
	return x << shift >> shift
}

// wrapInt wraps x to the int64 form of type t (loadInts' representation).
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
	if w := t.BitWidth(); w < 64 {
		return x & (1<<w - 1)
	}
	return x
}

// roundFloat rounds a float64 to real float type t as storeFloats stores it.
func roundFloat(t ir.ElementType, x float64) float64 {
	switch t {
	case ir.F64:
		return x
	case ir.F32:
		return float64(float32(x))
	case ir.F16:
		return ir.Float16FromFloat32(float32(x)).Float64()
	case ir.BF16:
		return ir.BFloat16FromFloat32(float32(x)).Float64()
	case ir.F8E5M2:
		return ir.Float8E5M2FromFloat32(float32(x)).Float64()
	}
	return ir.Float8E4M3FNFromFloat32(float32(x)).Float64()
}

// roundComplex rounds each part of x to t's component type.
func roundComplex(t ir.ElementType, x complex128) complex128 {
	if t == ir.C64 {
		return complex128(complex64(x))
	}
	return x
}

// indexAt reads element i of an integer array (start indices) as an int64,
// U64 values above MaxInt64 saturating so they clamp like any too-large
// index (eval's scalarIndex and indexValues).
func indexAt(b []byte, t ir.ElementType, i int) int64 {
	switch t {
	case ir.S4:
		return int64(b[i]) << 60 >> 60
	case ir.S8:
		return int64(int8(b[i]))
	case ir.S16:
		return int64(elems[int16](b)[i])
	case ir.S32:
		return int64(elems[int32](b)[i])
	case ir.S64:
		return elems[int64](b)[i]
	case ir.U4:
		return int64(b[i] & 0xf)
	case ir.U8:
		return int64(b[i])
	case ir.U16:
		return int64(elems[uint16](b)[i])
	case ir.U32:
		return int64(elems[uint32](b)[i])
	case ir.U64:
		v := elems[uint64](b)[i]
		if v > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(v)
	}
	return 0
}

// maxGenericRank bounds the rank the generic implementations handle, so
// their index counters live in fixed arrays on the stack.
const maxGenericRank = 16

// scratchPlan hands out byte ranges of a step's per-worker scratch at
// compile time; the step then views them at run time.
type scratchPlan struct{ size int }

// take reserves n bytes (64-byte aligned) and returns their offset.
func (s *scratchPlan) take(n int) int {
	off := roundUp(s.size, 64)
	s.size = off + n
	return off
}

// reserve makes the program's per-worker scratch at least the plan's size.
func (s *scratchPlan) reserve(p *program) { p.scratch = max(p.scratch, roundUp(s.size, 64)) }

// denseStrides returns the element strides of dense row-major storage.
func denseStrides(dims []int) []int {
	s := make([]int, len(dims))
	st := 1
	for d := len(dims) - 1; d >= 0; d-- {
		s[d] = st
		st *= dims[d]
	}
	return s
}

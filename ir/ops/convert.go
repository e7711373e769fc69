package ops

// select, convert, bitcast-convert and reduce-precision on element storage:
// ops that move or reinterpret the bits of elements rather than compute
// with their values. convert follows ir's conversion rules (XLA's
// ConvertElementType: round to nearest even, float to integer truncating
// toward zero and saturating, NaN to 0, NaN payloads kept where the target
// type can hold them), with direct loops for the common pairs.

import (
	"fmt"
	"math"

	"github.com/kilnml/kiln/ir"
)

// Select writes out[i] = pred[i] ? x[i] : y[i] for n elements of es bytes;
// a scalar predicate (scalarPred) picks one whole operand.
func Select(out, pred, x, y []byte, es, n int, scalarPred bool) {
	if scalarPred {
		if pred[0] != 0 {
			copy(out[:n*es], x)
		} else {
			copy(out[:n*es], y)
		}
		return
	}
	switch es {
	case 1:
		selectElems(out[:n], pred, x, y)
	case 2:
		selectElems(Elems[uint16](out)[:n], pred, Elems[uint16](x), Elems[uint16](y))
	case 4:
		selectElems(Elems[uint32](out)[:n], pred, Elems[uint32](x), Elems[uint32](y))
	case 8:
		selectElems(Elems[uint64](out)[:n], pred, Elems[uint64](x), Elems[uint64](y))
	case 16:
		selectElems(Elems[[2]uint64](out)[:n], pred, Elems[[2]uint64](x), Elems[[2]uint64](y))
	}
}

func selectElems[T any](out []T, pred []byte, x, y []T) {
	x, y = x[:len(out)], y[:len(out)]
	for i, p := range pred[:len(out)] {
		if p != 0 {
			out[i] = x[i]
		} else {
			out[i] = y[i]
		}
	}
}

// CheckConvert reports a conversion XLA does not define: complex to real.
func CheckConvert(from, to ir.ElementType) error {
	if from.IsComplex() && !to.IsComplex() {
		return fmt.Errorf("conversion from complex type %v to real type %v is not defined; use real/imag", from, to)
	}
	if !from.IsArray() || !to.IsArray() {
		return fmt.Errorf("conversion between %v and %v", from, to)
	}
	return nil
}

// Convert converts n elements of src (type from) to dst (type to).
func Convert(dst []byte, to ir.ElementType, src []byte, from ir.ElementType, n int) {
	if from == to {
		copy(dst[:n*to.ByteSize()], src)
		return
	}
	if convertFast(dst, to, src, from, n) {
		return
	}
	fs, ts := from.ByteSize(), to.ByteSize()
	for i := 0; i < n; i++ {
		ir.ConvertElement(dst[i*ts:], to, src[i*fs:], from)
	}
}

// convertFast converts the common pairs with direct loops that give the
// same values as ir.ConvertElement; NaNs go through ConvertElement, which
// moves their payload bits. It reports false for other pairs.
func convertFast(dst []byte, to ir.ElementType, src []byte, from ir.ElementType, n int) bool {
	switch {
	case from == ir.F32 && to == ir.F64:
		d, x := Elems[float64](dst)[:n], Elems[float32](src)[:n]
		for i, v := range x {
			if v != v {
				ir.ConvertElement(dst[i*8:], to, src[i*4:], from)
				continue
			}
			d[i] = float64(v)
		}
	case from == ir.F64 && to == ir.F32:
		d, x := Elems[float32](dst)[:n], Elems[float64](src)[:n]
		for i, v := range x {
			if v != v {
				ir.ConvertElement(dst[i*4:], to, src[i*8:], from)
				continue
			}
			d[i] = float32(v)
		}
	case from == ir.F32 && to == ir.BF16:
		d, x := Elems[ir.BFloat16](dst)[:n], Elems[float32](src)[:n]
		for i, v := range x {
			if v != v {
				ir.ConvertElement(dst[i*2:], to, src[i*4:], from)
				continue
			}
			d[i] = ir.BFloat16FromFloat32(v)
		}
	case from == ir.F32 && to == ir.F16:
		d, x := Elems[ir.Float16](dst)[:n], Elems[float32](src)[:n]
		for i, v := range x {
			if v != v {
				ir.ConvertElement(dst[i*2:], to, src[i*4:], from)
				continue
			}
			d[i] = ir.Float16FromFloat32(v)
		}
	case from == ir.BF16 && to == ir.F32:
		d, x := Elems[float32](dst)[:n], Elems[ir.BFloat16](src)[:n]
		for i, v := range x {
			d[i] = math.Float32frombits(uint32(v) << 16) // exact, NaN payload included
		}
	case from == ir.F16 && to == ir.F32:
		d, x := Elems[float32](dst)[:n], Elems[ir.Float16](src)[:n]
		for i, v := range x {
			if v.IsNaN() {
				ir.ConvertElement(dst[i*4:], to, src[i*2:], from)
				continue
			}
			d[i] = v.Float32()
		}
	case from == ir.S32 && to == ir.F32:
		d, x := Elems[float32](dst)[:n], Elems[int32](src)[:n]
		for i, v := range x {
			d[i] = float32(v)
		}
	case from == ir.F32 && to == ir.S32:
		d, x := Elems[int32](dst)[:n], Elems[float32](src)[:n]
		for i, v := range x {
			d[i] = int32(ir.SaturateFloatToInt(float64(v), ir.S32))
		}
	case from == ir.PRED && to == ir.F32:
		d := Elems[float32](dst)[:n]
		for i, v := range src[:n] {
			d[i] = 0
			if v != 0 {
				d[i] = 1
			}
		}
	case from == ir.PRED && to == ir.S32:
		d := Elems[int32](dst)[:n]
		for i, v := range src[:n] {
			d[i] = 0
			if v != 0 {
				d[i] = 1
			}
		}
	case from == ir.F32 && to == ir.PRED:
		d := dst[:n]
		for i, v := range Elems[float32](src)[:n] {
			d[i] = 0
			if v != 0 || v != v {
				d[i] = 1
			}
		}
	case (from.IsInteger() || from == ir.PRED) && (to.IsInteger() || to == ir.PRED):
		var buf [Tile]int64
		for start := 0; start < n; start += len(buf) {
			m := min(len(buf), n-start)
			LoadInts(buf[:m], src, from, start)
			StoreInts(dst, to, start, buf[:m])
		}
	default:
		return false
	}
	return true
}

// BitcastConvertPlan reinterprets the bits of each element: between types
// of equal width element for element; between different widths the wider
// element holds the narrower ones in its bits from least significant up
// (the byte order of a little-endian machine), with the extra minor
// dimension of size wide/narrow on the narrow side.
type BitcastConvertPlan struct {
	From, To ir.ElementType
	OutDims  []int
	n        int // output elements
}

// NewBitcastConvert plans bitcast-convert of an operand of type from and
// dimensions dims to type to.
func NewBitcastConvert(from ir.ElementType, dims []int, to ir.ElementType) (*BitcastConvertPlan, error) {
	if from.IsComplex() || to.IsComplex() {
		if from != to {
			return nil, &UnsupportedError{Op: ir.OpBitcastConvert, Detail: fmt.Sprintf("bitcast between %v and %v: complex types bitcast only to themselves", from, to)}
		}
	}
	if to == ir.PRED && from != ir.PRED {
		return nil, &UnsupportedError{Op: ir.OpBitcastConvert, Detail: fmt.Sprintf("bitcast from %v to pred: pred holds only 0 and 1", from)}
	}
	fw, tw := from.BitWidth(), to.BitWidth()
	var out []int
	switch {
	case fw == tw:
		out = append([]int{}, dims...)
	case fw > tw:
		if fw%tw != 0 {
			return nil, fmt.Errorf("cannot bitcast %v to %v: widths %d and %d", from, to, fw, tw)
		}
		out = append(append([]int{}, dims...), fw/tw)
	default:
		if tw%fw != 0 || len(dims) == 0 || dims[len(dims)-1] != tw/fw {
			return nil, fmt.Errorf("bitcast of %v to the wider %v needs a last dimension of size %d, found dimensions %v", from, to, tw/max(fw, 1), dims)
		}
		out = append([]int{}, dims[:len(dims)-1]...)
	}
	return &BitcastConvertPlan{From: from, To: to, OutDims: out, n: Count(out)}, nil
}

// Run reinterprets src into dst.
func (p *BitcastConvertPlan) Run(dst, src []byte) {
	if p.From.IsComplex() {
		copy(dst[:p.n*p.To.ByteSize()], src)
		return
	}
	fw, tw := p.From.BitWidth(), p.To.BitWidth()
	if fw != 4 && tw != 4 && p.From != ir.PRED && (littleEndian || fw == tw) {
		// Each element's bits are its bytes.
		copy(dst[:p.n*p.To.ByteSize()], src)
		return
	}
	var b [1]uint64
	switch {
	case fw == tw:
		for i := 0; i < p.n; i++ {
			LoadBits(b[:], src, p.From, i)
			StoreBits(dst, p.To, i, b[:])
		}
	case fw > tw:
		k := fw / tw
		mask := uint64(1)<<tw - 1
		for i := 0; i < p.n/k; i++ {
			LoadBits(b[:], src, p.From, i)
			v := b[0]
			for j := 0; j < k; j++ {
				x := [1]uint64{v >> (j * tw) & mask}
				StoreBits(dst, p.To, i*k+j, x[:])
			}
		}
	default:
		k := tw / fw
		for i := 0; i < p.n; i++ {
			var v uint64
			for j := 0; j < k; j++ {
				LoadBits(b[:], src, p.From, i*k+j)
				v |= b[0] << (j * fw)
			}
			x := [1]uint64{v}
			StoreBits(dst, p.To, i, x[:])
		}
	}
}

// CheckReducePrecision checks reduce-precision's type and attributes.
func CheckReducePrecision(t ir.ElementType, expBits, mantBits int) error {
	if !t.IsFloat() {
		return notDefined(ir.OpReducePrecision, t)
	}
	if expBits < 1 || mantBits < 0 {
		return fmt.Errorf("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, found %d and %d", expBits, mantBits)
	}
	return nil
}

// ReducePrecisionElements applies reduce-precision to n elements of type t:
// on their bits for F64 and F32, on their F32 values for narrower types.
func ReducePrecisionElements(dst, src []byte, t ir.ElementType, n, expBits, mantBits int) {
	switch t {
	case ir.F64:
		x, d := Elems[uint64](src)[:n], Elems[uint64](dst)[:n]
		for i, v := range x {
			d[i] = ReducePrecisionBits(v, 11, 52, expBits, mantBits)
		}
	case ir.F32:
		x, d := Elems[uint32](src)[:n], Elems[uint32](dst)[:n]
		for i, v := range x {
			d[i] = uint32(ReducePrecisionBits(uint64(v), 8, 23, expBits, mantBits))
		}
	default:
		var buf [Tile]float64
		for start := 0; start < n; start += len(buf) {
			m := min(len(buf), n-start)
			xs := buf[:m]
			LoadFloats(xs, src, t, start)
			for i, v := range xs {
				xs[i] = ReducePrecision(t, v, expBits, mantBits)
			}
			StoreFloats(dst, t, start, xs)
		}
	}
}

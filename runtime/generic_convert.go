package runtime

// select, convert, bitcast-convert and reduce-precision for every element
// type: ops that move or reinterpret the bits of elements rather than
// compute with their values. convert follows ir's conversion rules (the ones
// the reference evaluator uses), with direct loops for the common pairs.

import (
	"math"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
)

// selectStep picks, per element (or once, for a scalar predicate), the
// element of on_true or on_false, whatever their type.
type selectStep struct {
	pred, x, y loc
	out        loc
	es, n      int
	scalarPred bool
	// whole-value selection of tuples: the leaves of each side
	xs, ys, outs []loc
}

func buildSelect(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	pb, xb, yb := inputBuffer(k, v.Args[0]), inputBuffer(k, v.Args[1]), inputBuffer(k, v.Args[2])
	if pb == nil || xb == nil || yb == nil || !denseArray(v.Args[0].Shape) || v.Args[0].Shape.Elem != ir.PRED {
		return nil, nil
	}
	s := &selectStep{pred: c.loc(pb), scalarPred: v.Args[0].Shape.IsScalar()}
	if !v.Shape.IsArray() {
		if !s.scalarPred || !v.Args[1].Shape.Equal(v.Shape) || !v.Args[2].Shape.Equal(v.Shape) {
			return nil, nil
		}
		s.xs, s.ys, s.outs = c.leaves(xb), c.leaves(yb), c.leaves(k.Out)
		return s, nil
	}
	if !denseArray(v.Shape) || !denseArray(v.Args[1].Shape) || !denseArray(v.Args[2].Shape) ||
		!ir.SameDimensions(v.Args[1].Shape, v.Shape) || !ir.SameDimensions(v.Args[2].Shape, v.Shape) ||
		(!s.scalarPred && !ir.SameDimensions(v.Args[0].Shape, v.Shape)) {
		return nil, nil
	}
	s.x, s.y, s.out = c.loc(xb), c.loc(yb), c.loc(k.Out)
	s.es, s.n = v.Shape.Elem.ByteSize(), v.Shape.ElementCount()
	return s, nil
}

func (s *selectStep) name() string { return "select" }

func (s *selectStep) exec(fr *frame) error {
	pred := fr.bytes(s.pred)
	if s.outs != nil {
		src := s.ys
		if pred[0] != 0 {
			src = s.xs
		}
		for i, l := range src {
			copy(fr.bytes(s.outs[i]), fr.bytes(l))
		}
		return nil
	}
	x, y, out := fr.bytes(s.x), fr.bytes(s.y), fr.bytes(s.out)
	if s.scalarPred {
		if pred[0] != 0 {
			copy(out, x)
		} else {
			copy(out, y)
		}
		return nil
	}
	switch s.es {
	case 1:
		selectElems(out, pred, x, y)
	case 2:
		selectElems(elems[uint16](out), pred, elems[uint16](x), elems[uint16](y))
	case 4:
		selectElems(elems[uint32](out), pred, elems[uint32](x), elems[uint32](y))
	case 8:
		selectElems(elems[uint64](out), pred, elems[uint64](x), elems[uint64](y))
	case 16:
		selectElems(elems[[2]uint64](out), pred, elems[[2]uint64](x), elems[[2]uint64](y))
	}
	return nil
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

// convertStep converts every element to the result type.
type convertStep struct {
	in, out  loc
	from, to ir.ElementType
	n        int
}

func buildConvert(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	args, ok := operandLocs(c, k)
	if !ok || !denseArray(v.Shape) || !ir.SameDimensions(v.Shape, v.Args[0].Shape) {
		return nil, nil
	}
	from, to := v.Args[0].Shape.Elem, v.Shape.Elem
	if from.IsComplex() && !to.IsComplex() {
		return nil, nil // not defined; the evaluator reports it
	}
	return &convertStep{in: args[0], out: c.loc(k.Out), from: from, to: to, n: v.Shape.ElementCount()}, nil
}

func (s *convertStep) name() string { return "convert" }

func (s *convertStep) exec(fr *frame) error {
	src, dst := fr.bytes(s.in), fr.bytes(s.out)
	if s.from == s.to {
		copy(dst, src)
		return nil
	}
	if convertFast(dst, s.to, src, s.from, s.n) {
		return nil
	}
	fs, ts := s.from.ByteSize(), s.to.ByteSize()
	for i := 0; i < s.n; i++ {
		ir.ConvertElement(dst[i*ts:], s.to, src[i*fs:], s.from)
	}
	return nil
}

// convertFast converts the common pairs with direct loops that give the
// same values as ir.ConvertElement; NaNs go through ConvertElement, which
// moves their payload bits. It reports false for other pairs.
func convertFast(dst []byte, to ir.ElementType, src []byte, from ir.ElementType, n int) bool {
	switch {
	case from == ir.F32 && to == ir.F64:
		d, x := elems[float64](dst)[:n], elems[float32](src)[:n]
		for i, v := range x {
			if v != v {
				ir.ConvertElement(dst[i*8:], to, src[i*4:], from)
				continue
			}
			d[i] = float64(v)
		}
	case from == ir.F64 && to == ir.F32:
		d, x := elems[float32](dst)[:n], elems[float64](src)[:n]
		for i, v := range x {
			if v != v {
				ir.ConvertElement(dst[i*4:], to, src[i*8:], from)
				continue
			}
			d[i] = float32(v)
		}
	case from == ir.F32 && to == ir.BF16:
		d, x := elems[ir.BFloat16](dst)[:n], elems[float32](src)[:n]
		for i, v := range x {
			if v != v {
				ir.ConvertElement(dst[i*2:], to, src[i*4:], from)
				continue
			}
			d[i] = ir.BFloat16FromFloat32(v)
		}
	case from == ir.F32 && to == ir.F16:
		d, x := elems[ir.Float16](dst)[:n], elems[float32](src)[:n]
		for i, v := range x {
			if v != v {
				ir.ConvertElement(dst[i*2:], to, src[i*4:], from)
				continue
			}
			d[i] = ir.Float16FromFloat32(v)
		}
	case from == ir.BF16 && to == ir.F32:
		d, x := elems[float32](dst)[:n], elems[ir.BFloat16](src)[:n]
		for i, v := range x {
			d[i] = math.Float32frombits(uint32(v) << 16) // exact, NaN payload included
		}
	case from == ir.F16 && to == ir.F32:
		d, x := elems[float32](dst)[:n], elems[ir.Float16](src)[:n]
		for i, v := range x {
			if v.IsNaN() {
				ir.ConvertElement(dst[i*4:], to, src[i*2:], from)
				continue
			}
			d[i] = v.Float32()
		}
	case from == ir.S32 && to == ir.F32:
		d, x := elems[float32](dst)[:n], elems[int32](src)[:n]
		for i, v := range x {
			d[i] = float32(v)
		}
	case from == ir.F32 && to == ir.S32:
		d, x := elems[int32](dst)[:n], elems[float32](src)[:n]
		for i, v := range x {
			d[i] = int32(ir.SaturateFloatToInt(float64(v), ir.S32))
		}
	case from == ir.PRED && to == ir.F32:
		d := elems[float32](dst)[:n]
		for i, v := range src[:n] {
			d[i] = 0
			if v != 0 {
				d[i] = 1
			}
		}
	case from == ir.PRED && to == ir.S32:
		d := elems[int32](dst)[:n]
		for i, v := range src[:n] {
			d[i] = 0
			if v != 0 {
				d[i] = 1
			}
		}
	case from == ir.F32 && to == ir.PRED:
		d := dst[:n]
		for i, v := range elems[float32](src)[:n] {
			d[i] = 0
			if v != 0 || v != v {
				d[i] = 1
			}
		}
	case (from.IsInteger() || from == ir.PRED) && (to.IsInteger() || to == ir.PRED):
		var buf [elementwiseTile]int64
		for start := 0; start < n; start += len(buf) {
			m := min(len(buf), n-start)
			loadInts(buf[:m], src, from, start)
			storeInts(dst, to, start, buf[:m])
		}
	default:
		return false
	}
	return true
}

// bitcastConvertStep reinterprets the bits of each element: between types
// of equal width element for element, between different widths the wider
// element holding the narrower ones from its least significant bits up.
type bitcastConvertStep struct {
	in, out  loc
	from, to ir.ElementType
	n        int // output elements
	raw      bool
}

func buildBitcastConvert(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	args, ok := operandLocs(c, k)
	if !ok || !denseArray(v.Shape) {
		return nil, nil
	}
	from, to := v.Args[0].Shape.Elem, v.Shape.Elem
	if from.IsComplex() != to.IsComplex() || (from.IsComplex() && from != to) || (to == ir.PRED && from != ir.PRED) {
		return nil, nil
	}
	fw, tw := from.BitWidth(), to.BitWidth()
	in, out := v.Args[0].Shape.ElementCount(), v.Shape.ElementCount()
	if !(fw == tw && in == out || fw > tw && fw%tw == 0 && out == in*(fw/tw) || fw < tw && tw%fw == 0 && in == out*(tw/fw)) {
		return nil, nil
	}
	s := &bitcastConvertStep{in: args[0], out: c.loc(k.Out), from: from, to: to, n: v.Shape.ElementCount()}
	// Outside 4-bit types each element's bits are its bytes, so on a
	// little-endian machine the whole op is a copy.
	s.raw = fw != 4 && tw != 4 && from != ir.PRED && (nativeLittleEndian || fw == tw)
	return s, nil
}

func (s *bitcastConvertStep) name() string { return "bitcast-convert" }

func (s *bitcastConvertStep) exec(fr *frame) error {
	src, dst := fr.bytes(s.in), fr.bytes(s.out)
	if s.raw {
		copy(dst, src)
		return nil
	}
	fw, tw := s.from.BitWidth(), s.to.BitWidth()
	switch {
	case fw == tw:
		for i := 0; i < s.n; i++ {
			storeRawBits(dst, s.to, i, rawBitsAt(src, s.from, i))
		}
	case fw > tw:
		k := fw / tw
		mask := uint64(1)<<tw - 1
		for i := 0; i < s.n/k; i++ {
			b := rawBitsAt(src, s.from, i)
			for j := 0; j < k; j++ {
				storeRawBits(dst, s.to, i*k+j, b>>(j*tw)&mask)
			}
		}
	default:
		k := tw / fw
		for i := 0; i < s.n; i++ {
			var b uint64
			for j := 0; j < k; j++ {
				b |= rawBitsAt(src, s.from, i*k+j) << (j * fw)
			}
			storeRawBits(dst, s.to, i, b)
		}
	}
	return nil
}

// rawBitsAt returns the bits of element i in the low BitWidth bits.
func rawBitsAt(b []byte, t ir.ElementType, i int) uint64 {
	switch t.ByteSize() {
	case 8:
		return elems[uint64](b)[i]
	case 4:
		return uint64(elems[uint32](b)[i])
	case 2:
		return uint64(elems[uint16](b)[i])
	}
	switch t {
	case ir.PRED:
		if b[i] != 0 {
			return 1
		}
		return 0
	case ir.S4, ir.U4:
		return uint64(b[i] & 0xf)
	}
	return uint64(b[i])
}

// storeRawBits stores bits as element i (4-bit types stored as their type
// keeps them: S4 sign-extended, U4 masked; PRED as bits != 0).
func storeRawBits(b []byte, t ir.ElementType, i int, bits uint64) {
	switch t.ByteSize() {
	case 8:
		elems[uint64](b)[i] = bits
		return
	case 4:
		elems[uint32](b)[i] = uint32(bits)
		return
	case 2:
		elems[uint16](b)[i] = uint16(bits)
		return
	}
	switch t {
	case ir.PRED:
		b[i] = 0
		if bits != 0 {
			b[i] = 1
		}
	case ir.S4:
		b[i] = uint8(int64(bits) << 60 >> 60)
	case ir.U4:
		b[i] = uint8(bits & 0xf)
	default:
		b[i] = uint8(bits)
	}
}

// reducePrecisionStep rounds each float to a narrower exponent and mantissa.
type reducePrecisionStep struct {
	in, out          loc
	t                ir.ElementType
	n                int
	expBits, manBits int
}

func buildReducePrecision(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	args, ok := operandLocs(c, k)
	t := v.Shape.Elem
	if !ok || !denseArray(v.Shape) || !t.IsFloat() || v.Args[0].Shape.Elem != t ||
		v.Attrs.ExponentBits < 1 || v.Attrs.MantissaBits < 0 {
		return nil, nil
	}
	return &reducePrecisionStep{in: args[0], out: c.loc(k.Out), t: t, n: v.Shape.ElementCount(),
		expBits: v.Attrs.ExponentBits, manBits: v.Attrs.MantissaBits}, nil
}

func (s *reducePrecisionStep) name() string { return "reduce-precision" }

func (s *reducePrecisionStep) exec(fr *frame) error {
	src, dst := fr.bytes(s.in), fr.bytes(s.out)
	switch s.t {
	case ir.F64:
		x, d := elems[uint64](src)[:s.n], elems[uint64](dst)[:s.n]
		for i, v := range x {
			d[i] = reducePrecisionBits(v, 11, 52, s.expBits, s.manBits)
		}
	case ir.F32:
		x, d := elems[uint32](src)[:s.n], elems[uint32](dst)[:s.n]
		for i, v := range x {
			d[i] = uint32(reducePrecisionBits(uint64(v), 8, 23, s.expBits, s.manBits))
		}
	default:
		var buf [elementwiseTile]float64
		for start := 0; start < s.n; start += len(buf) {
			m := min(len(buf), s.n-start)
			xs := buf[:m]
			loadFloats(xs, src, s.t, start)
			for i, v := range xs {
				b := reducePrecisionBits(uint64(math.Float32bits(float32(v))), 8, 23, s.expBits, s.manBits)
				xs[i] = float64(math.Float32frombits(uint32(b)))
			}
			storeFloats(dst, s.t, start, xs)
		}
	}
	return nil
}

// reducePrecisionBits is XLA's ReducePrecision on the bits of a float with
// srcExp exponent and srcMan mantissa bits (the evaluator's rule: round the
// mantissa to nearest even, flush out-of-range exponents to ±0 or ±Inf, NaN
// kept, or +Inf when no mantissa bit is left).
func reducePrecisionBits(v uint64, srcExp, srcMan, expBits, mantBits int) uint64 {
	width := 1 + srcExp + srcMan
	expMask := (uint64(1)<<srcExp - 1) << srcMan
	isNaN := v&expMask == expMask && v&(uint64(1)<<srcMan-1) != 0
	orig := v
	if mantBits < srcMan {
		lastBit := uint64(1) << (srcMan - mantBits)
		baseBias := lastBit>>1 - 1
		xLast := (v & lastBit) >> (srcMan - mantBits)
		v += xLast + baseBias
		v &^= lastBit - 1
	}
	if expBits < srcExp {
		signMask := uint64(1) << (width - 1)
		bias := uint64(1)<<(srcExp-1) - 1
		reducedBias := uint64(1)<<(expBits-1) - 1
		maxExp := bias + reducedBias
		minExp := bias - reducedBias
		xExp := v & expMask
		signedZero := v & signMask
		signedInf := signedZero | expMask
		switch {
		case xExp > maxExp<<srcMan:
			v = signedInf
		case xExp <= minExp<<srcMan:
			v = signedZero
		}
	}
	if width < 64 {
		v &= 1<<width - 1
	}
	if isNaN {
		if mantBits > 0 {
			return orig
		}
		return expMask
	}
	return v
}

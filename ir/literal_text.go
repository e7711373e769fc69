package ir

// XLA's literal text format, printed (literal_parse.go reads it back).
//
// String and ValueString write one line:
//
//	f32[2,3] {{1, 2, 3}, {4, 5, 6}}     f32[] 1.5     pred[2] {true, false}
//	c64[2] {(1, 2), (3, -4)}            f32[2,0] {{}, {}}     token[]
//	(f32[], s32[2]) (1, {1, 2})         f32[<=4](3) {1, 2, 3}
//
// This is XLA's Literal::ToStringOneline with the spaces inside braces
// dropped, and two differences: PRED elements of arrays print as true/false
// (XLA writes 1/0 there; both parse), and a tuple prints its shape once and
// then its values, the form XLA's HLO parser reads for tuple constants
// (XLA's ToString writes each element with its own shape,
// `( f32[] 1, s32[2] {1, 2} )`, which parses too). A non-default layout
// prints after the dimensions, `f32[2,2]{0,1} {{1, 2}, {3, 4}}`, the values
// still in logical row-major order. A dynamic array prints its bounded shape
// and then, as XLA's ToString does, its dynamic sizes in parentheses; a Kiln
// literal's dimensions are its actual sizes, so the bound printed is the
// size. Floats print as FormatFloat describes.

import (
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// String returns l in the literal text format with its shape:
// `f32[2,3] {{1, 2, 3}, {4, 5, 6}}`, `(f32[], s32[2]) (1, {1, 2})`, `token[]`.
func (l *Literal) String() string {
	if l == nil {
		return "<nil>"
	}
	var b strings.Builder
	switch {
	case l.shape.IsToken():
		b.WriteString("token[]")
		return b.String()
	case l.shape.IsArray():
		writeLiteralShape(&b, l.shape)
		if l.shape.IsDynamic() {
			b.WriteByte('(')
			for i, d := range l.shape.Dims {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(d))
			}
			b.WriteByte(')')
		}
	default:
		writeLiteralShape(&b, l.shape)
	}
	b.WriteByte(' ')
	l.writeValue(&b)
	return b.String()
}

// ValueString returns l's value without its shape: `{{1, 2, 3}, {4, 5, 6}}`,
// `1.5`, `(1, {1, 2})` for a tuple, `token` for a token — the form HLO text
// writes inside constant(...).
func (l *Literal) ValueString() string {
	var b strings.Builder
	l.writeValue(&b)
	return b.String()
}

// writeLiteralShape writes s as Shape.String does, but with a layout only
// where it is not the default.
func writeLiteralShape(b *strings.Builder, s Shape) {
	switch {
	case s.IsTuple():
		b.WriteByte('(')
		for i, e := range s.Tuple {
			if i > 0 {
				b.WriteString(", ")
			}
			writeLiteralShape(b, e)
		}
		b.WriteByte(')')
	case s.HasDefaultLayout():
		b.WriteString(s.StringWithoutLayout())
	default:
		b.WriteString(s.String())
	}
}

// hloValueString is ValueString as XLA's HLO printer writes a constant's
// value: arrays of rank above 3 note the index of each sub-array they open
// (`{ /*i0=1*/ {…`), as XLA's Literal printing does.
func (l *Literal) hloValueString() string {
	var b strings.Builder
	l.writeValueAnnotated(&b, true)
	return b.String()
}

func (l *Literal) writeValue(b *strings.Builder) { l.writeValueAnnotated(b, false) }

func (l *Literal) writeValueAnnotated(b *strings.Builder, annotate bool) {
	switch {
	case l.shape.IsTuple():
		b.WriteByte('(')
		for i, e := range l.elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.writeValueAnnotated(b, annotate)
		}
		b.WriteByte(')')
	case l.shape.IsToken():
		b.WriteString("token")
	case len(l.shape.Dims) == 0:
		l.writeElement(b, 0)
	default:
		next := 0
		l.writeArray(b, 0, -1, &next, annotate && len(l.shape.Dims) > 3)
	}
}

// writeArray writes the sub-array at dimension dim, which is element index
// of its parent (-1 for the whole array).
func (l *Literal) writeArray(b *strings.Builder, dim, index int, next *int, annotate bool) {
	b.WriteByte('{')
	last := dim == len(l.shape.Dims)-1
	if annotate && dim > 0 && !last {
		b.WriteString("/*i")
		b.WriteString(strconv.Itoa(dim - 1))
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(index))
		b.WriteString("*/")
	}
	for j := range l.shape.Dims[dim] {
		if j > 0 {
			b.WriteString(", ")
		}
		if last {
			l.writeElement(b, *next)
			*next++
		} else {
			l.writeArray(b, dim+1, j, next, annotate)
		}
	}
	b.WriteByte('}')
}

func (l *Literal) writeElement(b *strings.Builder, i int) {
	t := l.shape.Elem
	p := unsafe.Pointer(&l.data[i*t.ByteSize()])
	var buf [96]byte
	out := buf[:0]
	switch {
	case t == PRED:
		if *(*uint8)(p) != 0 {
			out = append(out, "true"...)
		} else {
			out = append(out, "false"...)
		}
	case t == U64:
		out = strconv.AppendUint(out, *(*uint64)(p), 10)
	case t.IsInteger():
		out = strconv.AppendInt(out, loadInt(t, p), 10)
	case t.IsComplex():
		c := t.ComplexComponent()
		out = append(out, '(')
		out = appendFloatBits(out, c, floatBitsAt(c, p))
		out = append(out, ", "...)
		out = appendFloatBits(out, c, floatBitsAt(c, unsafe.Add(p, c.ByteSize())))
		out = append(out, ')')
	default:
		out = appendFloatBits(out, t, floatBitsAt(t, p))
	}
	b.Write(out)
}

// floatBitsAt reads the raw bits of a real float element.
func floatBitsAt(t ElementType, p unsafe.Pointer) uint64 {
	switch t.ByteSize() {
	case 1:
		return uint64(*(*uint8)(p)) & (1<<t.BitWidth() - 1)
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// narrowFormatOf returns the narrow format of F16, BF16 and the 8- and 4-bit
// float types.
func narrowFormatOf(t ElementType) (narrowFormat, bool) {
	switch t {
	case F16:
		return narrowF16, true
	case BF16:
		return narrowBF16, true
	case F8E5M2:
		return narrowE5M2, true
	case F8E4M3FN:
		return narrowE4M3FN, true
	case F8E4M3:
		return narrowE4M3, true
	case F8E3M4:
		return narrowE3M4, true
	case F8E4M3FNUZ:
		return narrowE4M3FNUZ, true
	case F8E5M2FNUZ:
		return narrowE5M2FNUZ, true
	case F8E4M3B11FNUZ:
		return narrowE4M3B11FNUZ, true
	case F4E2M1FN:
		return narrowE2M1FN, true
	case F8E8M0FNU:
		return narrowE8M0FNU, true
	}
	return narrowFormat{}, false
}

// FormatFloat formats v, a value of the real float type t (for C64 and C128,
// of their component type), as the literal text format writes it — XLA's
// RoundTripFpToString:
//
//   - F32: C's %.6g (FLT_DIG digits) if that parses back to the same float,
//     else %.9g (max_digits10); F64: %.15g, else %.17g — XLA's FloatToBuffer
//     and DoubleToBuffer rule.
//   - the narrow types (F16, BF16, the F8 and F4 types): C's %.Ng with N
//     the type's max_digits10 (5 for F16, 4 for BF16, 3 for F8E4M3FN, 2 for
//     F8E5M2, …), as XLA's GenericRoundTripFpToString does.
//   - inf, -inf; nan and -nan (C's printing of a NaN with its sign bit); a
//     NaN whose mantissa is not just the quiet bit prints its mantissa as
//     nan(0x…) (XLA's RoundTripNanPayload). F8E4M3FN's one NaN is nan or -nan.
//
// Exponents print as C prints them (1e+10, 1.5e-07). Values that are not of
// type t are rounded to it first; other types format as F64.
func FormatFloat(t ElementType, v float64) string {
	t = t.ComplexComponent()
	switch t {
	case F32:
		return formatFloatBits(F32, uint64(math.Float32bits(narrowToFloat32(v))))
	}
	if f, ok := narrowFormatOf(t); ok {
		return formatFloatBits(t, uint64(f.fromFloat64(v)))
	}
	return formatFloatBits(F64, math.Float64bits(v))
}

// formatFloatBits formats the float of type t with the given bits.
func formatFloatBits(t ElementType, b uint64) string {
	var buf [40]byte
	return string(appendFloatBits(buf[:0], t, b))
}

var (
	digitsF64 = []int{15, 17}
	digitsF32 = []int{6, 9}
	// A narrow type prints with as many digits as it needs to round-trip
	// in the worst case, its max_digits10 (see maxDigits10).
)

// appendFloatBits appends the text of the float of type t with the given
// bits to dst.
func appendFloatBits(dst []byte, t ElementType, b uint64) []byte {
	var neg, nan, inf, hasPayload bool
	var payload, quiet uint64
	var value float64
	var tries []int
	switch t {
	case F64:
		neg, payload, quiet, hasPayload = b>>63 != 0, b&(1<<52-1), 1<<51, true
		nan = b>>52&0x7ff == 0x7ff && payload != 0
		inf = b>>52&0x7ff == 0x7ff && payload == 0
		value, tries = math.Float64frombits(b), digitsF64
	case F32:
		neg, payload, quiet, hasPayload = b>>31&1 != 0, b&(1<<23-1), 1<<22, true
		nan = b>>23&0xff == 0xff && payload != 0
		inf = b>>23&0xff == 0xff && payload == 0
		value, tries = float64(math.Float32frombits(uint32(b))), digitsF32
	default:
		f, _ := narrowFormatOf(t)
		x := uint32(b)
		neg, nan, inf = x&f.signBit() != 0, f.isNaN(x), f.isInf(x)
		payload, hasPayload = uint64(x&f.manMask()), f.hasPayload()
		if f.manBits > 0 {
			quiet = 1 << (f.manBits - 1)
		}
		if !nan {
			value = f.toFloat64(x)
		}
		tries = []int{maxDigits10(t), 17}
	}
	if (nan || inf) && neg {
		dst = append(dst, '-')
	}
	switch {
	case nan && hasPayload && payload != quiet:
		dst = append(dst, "nan(0x"...)
		dst = strconv.AppendUint(dst, payload, 16)
		return append(dst, ')')
	case nan:
		return append(dst, "nan"...)
	case inf:
		return append(dst, "inf"...)
	}
	if value == math.Trunc(value) && math.Abs(value) < math.Pow10(tries[0]) {
		// An integer of fewer digits than the first precision tried prints
		// as %g prints it, without a point or exponent, and reads back exactly.
		if value == 0 && math.Signbit(value) {
			return append(dst, "-0"...)
		}
		return strconv.AppendInt(dst, int64(value), 10)
	}
	n := len(dst)
	for _, prec := range tries {
		dst = strconv.AppendFloat(dst[:n], value, 'g', prec, 64)
		// The digits are parsed in place; ParseFloat keeps no reference.
		text := unsafe.String(&dst[n], len(dst)-n)
		if parsed, err := strconv.ParseFloat(text, 64); err == nil && floatBitsOf(t, parsed) == b {
			break
		}
	}
	return dst
}

// floatBitsOf rounds a parsed float64 to type t, once (Float16FromFloat64
// and the like), and returns its bits.
func floatBitsOf(t ElementType, v float64) uint64 {
	switch t {
	case F64:
		return math.Float64bits(v)
	case F32:
		return uint64(math.Float32bits(narrowToFloat32(v)))
	}
	f, _ := narrowFormatOf(t)
	return uint64(f.fromFloat64(v))
}

// maxDigits10 is std::numeric_limits<T>::max_digits10 of a float type: the
// decimal digits that always round-trip its precision of p = mantissa+1
// bits, ceil(1 + p·log10(2)).
func maxDigits10(t ElementType) int {
	p := float64(t.MantissaBits() + 1)
	return int(math.Ceil(1 + p*math.Log10(2)))
}

package ir

import (
	"math"
	"math/bits"
)

// narrowFormat describes a binary floating-point format narrower than
// float32's significand so that one rounding routine serves all of them: F16,
// BF16 and the 8- and 4-bit formats of ml_dtypes, whose semantics XLA uses.
//
// The formats differ in what they reserve (kind):
//   - IEEE-like (F16, BF16, F8E5M2, F8E4M3, F8E3M4): the all-ones exponent
//     holds Inf (mantissa 0) and NaN (mantissa ≠ 0).
//   - FN, "finite and NaN" (F8E4M3FN): no Inf; the all-ones exponent holds
//     normal numbers except S.1111.111, its only NaN, so its largest finite
//     value is 1.110b × 2^8 = 448.
//   - FNUZ, "finite, NaN, unsigned zero" (F8E4M3FNUZ, F8E5M2FNUZ,
//     F8E4M3B11FNUZ): no Inf and no negative zero; the pattern of -0 (the sign
//     bit alone) is the only NaN, and every other pattern is finite. Their
//     exponent bias is one more than the IEEE one (or 11 for B11).
//   - finite (F4E2M1FN): neither Inf nor NaN; ml_dtypes converts Inf to the
//     largest finite value of its sign, NaN to the pattern of -0 (of +0 for
//     a negative NaN), and overflow saturates.
//   - E8M0 (F8E8M0FNU): unsigned, exponent only (value 2^(e-127)), no zero
//     and no Inf; 0xFF is NaN.
//
// Conversions into every kind are ml_dtypes' non-saturating ones, which
// XLA's convert uses: overflow gives Inf where the format has one, else NaN
// (the largest finite value for the finite kind).
type narrowFormat struct {
	expBits int
	manBits int
	ieee    bool // kind == narrowIEEE, kept as a field for brevity
	kind    narrowKind
	biasAdj int // added to the IEEE bias 2^(expBits-1)-1
}

type narrowKind uint8

const (
	narrowIEEE narrowKind = iota
	narrowFN
	narrowFNUZ
	narrowFinite
	narrowE8M0
)

var (
	narrowF16         = narrowFormat{expBits: 5, manBits: 10, ieee: true}
	narrowBF16        = narrowFormat{expBits: 8, manBits: 7, ieee: true}
	narrowE5M2        = narrowFormat{expBits: 5, manBits: 2, ieee: true}
	narrowE4M3FN      = narrowFormat{expBits: 4, manBits: 3, kind: narrowFN}
	narrowE4M3        = narrowFormat{expBits: 4, manBits: 3, ieee: true}
	narrowE3M4        = narrowFormat{expBits: 3, manBits: 4, ieee: true}
	narrowE4M3FNUZ    = narrowFormat{expBits: 4, manBits: 3, kind: narrowFNUZ, biasAdj: 1}
	narrowE5M2FNUZ    = narrowFormat{expBits: 5, manBits: 2, kind: narrowFNUZ, biasAdj: 1}
	narrowE4M3B11FNUZ = narrowFormat{expBits: 4, manBits: 3, kind: narrowFNUZ, biasAdj: 4}
	narrowE2M1FN      = narrowFormat{expBits: 2, manBits: 1, kind: narrowFinite}
	narrowE8M0FNU     = narrowFormat{expBits: 8, manBits: 0, kind: narrowE8M0}
)

func (f narrowFormat) bias() int { return 1<<(f.expBits-1) - 1 + f.biasAdj }

// signBit is the sign bit's mask; E8M0 has none (a bit above its 8).
func (f narrowFormat) signBit() uint32       { return 1 << (f.expBits + f.manBits) }
func (f narrowFormat) manMask() uint32       { return 1<<f.manBits - 1 }
func (f narrowFormat) expField(b uint32) int { return int(b>>f.manBits) & (1<<f.expBits - 1) }
func (f narrowFormat) width() int {
	if f.kind == narrowE8M0 {
		return f.expBits
	}
	return 1 + f.expBits + f.manBits
}

// hasPayload reports whether NaNs carry a payload (the IEEE-like formats).
func (f narrowFormat) hasPayload() bool { return f.kind == narrowIEEE }

// hasInf reports whether the format has infinities.
func (f narrowFormat) hasInf() bool { return f.kind == narrowIEEE }

// hasNaN reports whether the format has a NaN.
func (f narrowFormat) hasNaN() bool { return f.kind != narrowFinite }

// quietNaN is the format's default NaN (quiet bit set, no other payload),
// positive where the format has signed NaNs.
func (f narrowFormat) quietNaN() uint32 {
	switch f.kind {
	case narrowFN:
		return f.signBit() - 1 // S.1111.111
	case narrowFNUZ, narrowFinite:
		return f.signBit() // the pattern of -0
	case narrowE8M0:
		return 0xff
	}
	return uint32(1<<f.expBits-1)<<f.manBits | 1<<(f.manBits-1)
}

// maxFiniteBits is the largest finite positive pattern.
func (f narrowFormat) maxFiniteBits() uint32 {
	switch f.kind {
	case narrowFN:
		return f.signBit() - 2
	case narrowFNUZ, narrowFinite:
		return f.signBit() - 1
	case narrowE8M0:
		return 0xfe
	}
	return f.inf() - 1
}

// inf is the positive infinity of an IEEE-like format; for the others, what
// ml_dtypes converts +Inf and overflow to: the NaN (FN, FNUZ, E8M0) or the
// largest finite value (finite).
func (f narrowFormat) inf() uint32 {
	switch f.kind {
	case narrowFN, narrowFNUZ, narrowE8M0:
		return f.quietNaN()
	case narrowFinite:
		return f.maxFiniteBits()
	}
	return uint32(1<<f.expBits-1) << f.manBits
}

// negate flips the sign as ml_dtypes' operator- does: FNUZ zero and NaN
// have no negative; E8M0 has no sign (a negative value is NaN).
func (f narrowFormat) negate(b uint32) uint32 {
	switch f.kind {
	case narrowFNUZ:
		if b&^f.signBit() == 0 {
			return b
		}
	case narrowE8M0:
		return 0xff
	}
	return b ^ f.signBit()
}

func (f narrowFormat) isNaN(b uint32) bool {
	switch f.kind {
	case narrowFN:
		return b&^f.signBit() == f.quietNaN()
	case narrowFNUZ:
		return b == f.signBit()
	case narrowFinite:
		return false
	case narrowE8M0:
		return b == 0xff
	}
	b &^= f.signBit()
	return f.expField(b) == 1<<f.expBits-1 && b&f.manMask() != 0
}

func (f narrowFormat) isInf(b uint32) bool {
	return f.kind == narrowIEEE && b&^f.signBit() == f.inf()
}

// nanWithPayload is the NaN with the given sign and mantissa bits. A payload
// that is zero (it would read as Inf) becomes the quiet bit. Formats without
// payloads give their NaN of that sign (for the finite kind, ml_dtypes'
// stand-in for NaN).
func (f narrowFormat) nanWithPayload(neg bool, payload uint64) uint32 {
	b := f.quietNaN()
	if f.kind == narrowIEEE && payload&uint64(f.manMask()) != 0 {
		b = b&^f.manMask() | uint32(payload)&f.manMask()
	}
	if neg {
		b = f.negate(b)
	}
	return b
}

// withSign applies the sign of a rounded magnitude b.
func (f narrowFormat) withSign(neg bool, b uint32) uint32 {
	if neg {
		return f.negate(b)
	}
	return b
}

// round encodes ±m × 2^e2 (m > 0) with round-to-nearest-even, producing a
// subnormal, a normal, or on overflow what f.inf gives (Inf, NaN, or the
// largest finite value for the finite kind).
func (f narrowFormat) round(neg bool, m uint64, e2 int) uint32 {
	if f.kind == narrowE8M0 {
		return f.roundE8M0(neg, m, e2)
	}
	M := f.manBits
	emin := 1 - f.bias()
	k := bits.Len64(m) - 1 + e2 // exponent of m's leading bit
	qe := max(k, emin) - M      // exponent of the result's last mantissa bit
	shift := qe - e2
	var q uint64
	switch {
	case shift <= 0:
		q = m << uint(-shift) // exact: shift ≥ -M here
	case shift > 64:
		q = 0 // below half the smallest quantum
	default:
		var rem, half uint64
		if shift == 64 {
			q, rem, half = 0, m, 1<<63
		} else {
			q, rem, half = m>>uint(shift), m&(1<<uint(shift)-1), 1<<uint(shift-1)
		}
		if rem > half || rem == half && q&1 == 1 {
			q++
		}
	}
	if q < 1<<M { // zero or subnormal (also when rounding left it below the normal range)
		return f.withSign(neg, uint32(q))
	}
	if q == 1<<(M+1) { // rounding carried into a new binade
		q >>= 1
		qe++
	}
	field := qe + M + f.bias()
	mant := uint32(q) & f.manMask()
	maxField := 1<<f.expBits - 1
	var overflow bool
	switch f.kind {
	case narrowIEEE:
		overflow = field >= maxField
	case narrowFN:
		overflow = field > maxField || field == maxField && mant == f.manMask()
	default:
		overflow = field > maxField
	}
	if overflow {
		return f.withSign(neg, f.inf())
	}
	return f.withSign(neg, uint32(field)<<M|mant)
}

// roundE8M0 rounds m × 2^e2 to the nearest power of two 2^(field-127),
// ties to the even field; a negative value is NaN, overflow is NaN, and
// values below the smallest power (2^-127) take it, as the format has no
// zero.
func (f narrowFormat) roundE8M0(neg bool, m uint64, e2 int) uint32 {
	if neg {
		return 0xff
	}
	l := bits.Len64(m)
	field := l - 1 + e2 + 127
	if l >= 2 {
		frac := m - 1<<(l-1)
		half := uint64(1) << (l - 2)
		if frac > half || frac == half && field&1 == 1 {
			field++
		}
	}
	switch {
	case field > 254:
		return 0xff
	case field < 0:
		return 0
	}
	return uint32(field)
}

// fromFloat64 rounds x to the format (round-to-nearest-even, once). A NaN
// keeps its sign and the top bits of its payload where the format can.
func (f narrowFormat) fromFloat64(x float64) uint32 {
	b := math.Float64bits(x)
	neg := b>>63 != 0
	exp := int(b>>52) & 0x7ff
	frac := b & (1<<52 - 1)
	switch {
	case exp == 0x7ff && frac != 0:
		return f.nanWithPayload(neg, frac>>(52-f.manBits))
	case exp == 0x7ff:
		return f.withSign(neg, f.inf())
	case exp == 0 && frac == 0:
		if f.kind == narrowE8M0 {
			return 0 // no zero: the nearest value, 2^-127
		}
		return f.withSign(neg, 0)
	case exp == 0:
		return f.round(neg, frac, -1074)
	}
	return f.round(neg, frac|1<<52, exp-1075)
}

// fromFloat32 is fromFloat64 for a float32, reading NaN payloads from the
// float32 bits (a float64 conversion would quiet a signaling NaN).
func (f narrowFormat) fromFloat32(x float32) uint32 {
	b := math.Float32bits(x)
	if b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 {
		return f.nanWithPayload(b>>31 != 0, uint64(b&0x7fffff)>>(23-f.manBits))
	}
	return f.fromFloat64(float64(x))
}

// toFloat64 widens b exactly. A NaN's payload moves to the top of the
// float64 mantissa (as a bit shift, without quieting), so narrowing gives the
// same bits back. The NaNs of formats without payloads widen to the default
// quiet NaN with the pattern's sign.
func (f narrowFormat) toFloat64(b uint32) float64 {
	if f.kind == narrowE8M0 {
		if b == 0xff {
			return math.NaN()
		}
		return math.Ldexp(1, int(b&0xff)-127)
	}
	var sign uint64
	if b&f.signBit() != 0 {
		sign = 1 << 63
	}
	exp := f.expField(b)
	man := uint64(b & f.manMask())
	switch {
	case f.isNaN(b):
		payload := man << (52 - f.manBits)
		if !f.hasPayload() {
			payload = 1 << 51
		}
		return math.Float64frombits(sign | 0x7ff<<52 | payload)
	case f.isInf(b):
		return math.Float64frombits(sign | 0x7ff<<52)
	case exp == 0 && man == 0:
		return math.Float64frombits(sign)
	case exp == 0: // subnormal: normalise; every narrow subnormal is a float64 normal
		lead := bits.Len64(man) - 1
		e := lead + 1 - f.bias() - f.manBits
		return math.Float64frombits(sign | uint64(e+1023)<<52 | (man<<(52-lead))&(1<<52-1))
	}
	return math.Float64frombits(sign | uint64(exp-f.bias()+1023)<<52 | man<<(52-f.manBits))
}

// toFloat32 widens b exactly to float32, NaN payloads moving to the top of
// the float32 mantissa.
func (f narrowFormat) toFloat32(b uint32) float32 {
	if f.isNaN(b) {
		payload := (b & f.manMask()) << (23 - f.manBits)
		if !f.hasPayload() {
			payload = 1 << 22
		}
		var sign uint32
		if b&f.signBit() != 0 {
			sign = 1 << 31
		}
		return math.Float32frombits(sign | 0x7f800000 | payload)
	}
	return float32(f.toFloat64(b)) // exact: every finite or infinite value fits
}

package ir

import (
	"math"
	"math/bits"
)

// narrowFormat describes a binary floating-point format narrower than
// float32's significand (F16, BF16, F8E5M2, F8E4M3FN) so that one rounding
// routine serves all of them.
//
// IEEE-like formats reserve the all-ones exponent for Inf (mantissa 0) and
// NaN (mantissa ≠ 0). F8E4M3FN ("finite, NaN") has no Inf: the all-ones
// exponent holds normal numbers except S.1111.111, its only NaN, so its
// largest finite value is 1.110b × 2^8 = 448.
type narrowFormat struct {
	expBits int
	manBits int
	ieee    bool
}

var (
	narrowF16    = narrowFormat{expBits: 5, manBits: 10, ieee: true}
	narrowBF16   = narrowFormat{expBits: 8, manBits: 7, ieee: true}
	narrowE5M2   = narrowFormat{expBits: 5, manBits: 2, ieee: true}
	narrowE4M3FN = narrowFormat{expBits: 4, manBits: 3, ieee: false}
)

func (f narrowFormat) bias() int             { return 1<<(f.expBits-1) - 1 }
func (f narrowFormat) signBit() uint32       { return 1 << (f.expBits + f.manBits) }
func (f narrowFormat) manMask() uint32       { return 1<<f.manBits - 1 }
func (f narrowFormat) expField(b uint32) int { return int(b>>f.manBits) & (1<<f.expBits - 1) }

// quietNaN is the format's default NaN (quiet bit set, no other payload), positive.
func (f narrowFormat) quietNaN() uint32 {
	if !f.ieee {
		return f.signBit() - 1 // S.1111.111
	}
	return uint32(1<<f.expBits-1)<<f.manBits | 1<<(f.manBits-1)
}

// inf is the positive infinity of an IEEE-like format; for F8E4M3FN, whose
// conversions turn infinities and overflow into NaN (ml_dtypes' non-saturating
// conversion), it is the NaN.
func (f narrowFormat) inf() uint32 {
	if !f.ieee {
		return f.quietNaN()
	}
	return uint32(1<<f.expBits-1) << f.manBits
}

func (f narrowFormat) isNaN(b uint32) bool {
	b &^= f.signBit()
	if !f.ieee {
		return b == f.quietNaN()
	}
	return f.expField(b) == 1<<f.expBits-1 && b&f.manMask() != 0
}

func (f narrowFormat) isInf(b uint32) bool {
	return f.ieee && b&^f.signBit() == f.inf()
}

// nanWithPayload is the NaN with the given sign and mantissa bits. A payload
// that is zero (it would read as Inf) becomes the quiet bit.
func (f narrowFormat) nanWithPayload(neg bool, payload uint64) uint32 {
	b := f.quietNaN()
	if f.ieee && payload&uint64(f.manMask()) != 0 {
		b = b&^f.manMask() | uint32(payload)&f.manMask()
	}
	if neg {
		b |= f.signBit()
	}
	return b
}

// round encodes ±m × 2^e2 (m > 0) with round-to-nearest-even, producing a
// subnormal, a normal, or on overflow Inf (IEEE-like) or NaN (F8E4M3FN).
func (f narrowFormat) round(neg bool, m uint64, e2 int) uint32 {
	var sign uint32
	if neg {
		sign = f.signBit()
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
		return sign | uint32(q)
	}
	if q == 1<<(M+1) { // rounding carried into a new binade
		q >>= 1
		qe++
	}
	field := qe + M + f.bias()
	mant := uint32(q) & f.manMask()
	maxField := 1<<f.expBits - 1
	if f.ieee && field >= maxField || !f.ieee && (field > maxField || field == maxField && mant == f.manMask()) {
		return sign | f.inf()
	}
	return sign | uint32(field)<<M | mant
}

// fromFloat64 rounds x to the format (round-to-nearest-even, once). A NaN
// keeps its sign and the top bits of its payload.
func (f narrowFormat) fromFloat64(x float64) uint32 {
	b := math.Float64bits(x)
	neg := b>>63 != 0
	exp := int(b>>52) & 0x7ff
	frac := b & (1<<52 - 1)
	switch {
	case exp == 0x7ff && frac != 0:
		return f.nanWithPayload(neg, frac>>(52-f.manBits))
	case exp == 0x7ff:
		if neg {
			return f.signBit() | f.inf()
		}
		return f.inf()
	case exp == 0 && frac == 0:
		if neg {
			return f.signBit()
		}
		return 0
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
// same bits back. F8E4M3FN's NaN widens to the default quiet NaN.
func (f narrowFormat) toFloat64(b uint32) float64 {
	var sign uint64
	if b&f.signBit() != 0 {
		sign = 1 << 63
	}
	exp := f.expField(b)
	man := uint64(b & f.manMask())
	switch {
	case f.isNaN(b):
		payload := man << (52 - f.manBits)
		if !f.ieee {
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
		if !f.ieee {
			payload = 1 << 22
		}
		return math.Float32frombits(b>>(f.expBits+f.manBits)<<31 | 0x7f800000 | payload)
	}
	return float32(f.toFloat64(b)) // exact: every finite or infinite value fits
}

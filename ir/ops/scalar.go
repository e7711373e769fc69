package ops

// The scalar semantics of the elementwise ops, on wide values. XLA's rules
// where the specification leaves the value to the implementation (each
// matches XLA's HloEvaluator and CPU backend):
//
//   - Integer divide: truncating; x/0 is -1 for signed types and all ones
//     for unsigned types; INT_MIN/-1 is INT_MIN.
//   - Integer remainder: sign of the dividend; x%0 is x; INT_MIN%-1 is 0.
//   - Integer power: x^0 = 1 and 1^y = 1; a negative exponent gives 0
//     (other than for base 1); otherwise repeated squaring, wrapping.
//   - Shifts: an amount outside [0, width) (read as unsigned) gives 0 for
//     shift-left and shift-right-logical, and the sign fill (0 or -1) for
//     shift-right-arithmetic. shift-right-arithmetic on unsigned types shifts
//     the bits as signed; shift-right-logical on signed types as unsigned.
//   - maximum/minimum on floats: a NaN operand gives that NaN (lhs first);
//     -0 orders below +0, as LLVM's llvm.maximum/llvm.minimum used by the CPU
//     backend.
//   - clamp(lo, x, hi) = minimum(maximum(x, lo), hi) with those rules, so NaN
//     propagates (the CPU backend's elemental clamp).
//   - Float remainder is C's fmod; float power is C's pow after XLA's
//     special cases 1^y = 1 and x^0 = 1.
//   - F16, BF16 and F8 arithmetic is computed on values upcast to F32 and
//     the F32 result rounded to the type; transcendental functions are
//     evaluated in float64 and rounded to F32 first.
//   - Complex functions follow C99/std::complex (Go's math/cmplx); C64 is
//     computed in complex128 and each part rounded to float32.
//   - PRED arithmetic is integer arithmetic on 0/1 with a nonzero result
//     meaning true (add is or, multiply is and), as C++ bool arithmetic in
//     XLA's evaluator gives.

import (
	"math"
	"math/bits"
	"math/cmplx"

	"github.com/kilnml/kiln/ir"
)

var floatUnary = map[ir.Opcode]func(float64) float64{
	ir.OpAbs:              math.Abs,
	ir.OpCbrt:             math.Cbrt,
	ir.OpCeil:             math.Ceil,
	ir.OpCos:              math.Cos,
	ir.OpErf:              math.Erf,
	ir.OpExp:              math.Exp,
	ir.OpExpm1:            math.Expm1,
	ir.OpFloor:            math.Floor,
	ir.OpLog:              FloatLog,
	ir.OpLog1p:            math.Log1p,
	ir.OpNegate:           func(x float64) float64 { return -x },
	ir.OpLogistic:         func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
	ir.OpRoundNearestAfz:  math.Round,
	ir.OpRoundNearestEven: math.RoundToEven,
	ir.OpRsqrt:            func(x float64) float64 { return 1 / math.Sqrt(x) },
	ir.OpSign:             FloatSign,
	ir.OpSin:              math.Sin,
	ir.OpSqrt:             math.Sqrt,
	ir.OpTan:              math.Tan,
	ir.OpTanh:             math.Tanh,
	ir.OpReal:             func(x float64) float64 { return x },
	ir.OpImag:             func(float64) float64 { return 0 },
	ir.OpCopy:             func(x float64) float64 { return x },
	ir.OpSinh:             math.Sinh,
	ir.OpCosh:             math.Cosh,
	ir.OpAsin:             math.Asin,
	ir.OpAcos:             math.Acos,
	ir.OpAtan:             math.Atan,
	ir.OpAsinh:            math.Asinh,
	ir.OpAcosh:            math.Acosh,
	ir.OpAtanh:            math.Atanh,
}

// NaN bits. The wide form holds a float's NaN as its type holds it, a
// signalling NaN included (ir.Float32ToFloat64). The ops that move or
// choose values — copy, negate, abs, sign, real, maximum, minimum, clamp,
// select — give the NaN operand's bits, signalling or not, as XLA's
// evaluator and CPU backend do (sign-bit operations and selects); the ops
// that compute return a quiet NaN, as the hardware's arithmetic does (the
// library functions that hand a NaN argument back get it quieted here).
var preservesNaNBits = map[ir.Opcode]bool{
	ir.OpAbs: true, ir.OpNegate: true, ir.OpCopy: true, ir.OpReal: true, ir.OpSign: true, ir.OpImag: true,
	ir.OpMaximum: true, ir.OpMinimum: true,
	// The hardware's arithmetic quiets a NaN by itself.
	ir.OpAdd: true, ir.OpSubtract: true, ir.OpMultiply: true, ir.OpDivide: true,
}

// QuietNaN is x, with the quiet bit set when x is a NaN.
func QuietNaN(x float64) float64 {
	if x != x {
		return math.Float64frombits(math.Float64bits(x) | 1<<51)
	}
	return x
}

func init() {
	for op, f := range floatUnary {
		if !preservesNaNBits[op] {
			floatUnary[op] = func(x float64) float64 { return QuietNaN(f(x)) }
		}
	}
	for op, f := range floatBinary {
		if !preservesNaNBits[op] {
			floatBinary[op] = func(a, b float64) float64 { return QuietNaN(f(a, b)) }
		}
	}
}

// FloatUnary returns the function of unary op on real floats, or nil where
// the op is not defined on them.
func FloatUnary(op ir.Opcode) func(float64) float64 { return floatUnary[op] }

// FloatSign is sign on real floats: ±1, and ±0 and NaN their own sign.
func FloatSign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x
}

var complexUnary = map[ir.Opcode]func(complex128) complex128{
	ir.OpNegate:   func(x complex128) complex128 { return -x },
	ir.OpSqrt:     cmplx.Sqrt,
	ir.OpRsqrt:    func(x complex128) complex128 { return 1 / cmplx.Sqrt(x) },
	ir.OpExp:      cmplx.Exp,
	ir.OpExpm1:    func(x complex128) complex128 { return cmplx.Exp(x) - 1 },
	ir.OpLog:      complexLog,
	ir.OpLog1p:    func(x complex128) complex128 { return complexLog(x + 1) },
	ir.OpLogistic: func(x complex128) complex128 { return 1 / (1 + cmplx.Exp(-x)) },
	ir.OpSin:      cmplx.Sin,
	ir.OpCos:      cmplx.Cos,
	ir.OpTan:      cmplx.Tan,
	ir.OpTanh:     cmplx.Tanh,
	ir.OpSign: func(x complex128) complex128 {
		a := cmplx.Abs(x)
		if a == 0 {
			return 0
		}
		return x / complex(a, 0)
	},
	ir.OpCopy:  func(x complex128) complex128 { return x },
	ir.OpSinh:  cmplx.Sinh,
	ir.OpCosh:  cmplx.Cosh,
	ir.OpAsin:  cmplx.Asin,
	ir.OpAcos:  cmplx.Acos,
	ir.OpAtan:  cmplx.Atan,
	ir.OpAsinh: cmplx.Asinh,
	ir.OpAcosh: cmplx.Acosh,
	ir.OpAtanh: cmplx.Atanh,
}

// ComplexUnary returns the function of a complex-to-complex unary op, or
// nil.
func ComplexUnary(op ir.Opcode) func(complex128) complex128 { return complexUnary[op] }

var complexToReal = map[ir.Opcode]func(complex128) float64{
	ir.OpAbs:  cmplx.Abs,
	ir.OpReal: func(x complex128) float64 { return real(x) },
	ir.OpImag: func(x complex128) float64 { return imag(x) },
}

// ComplexToReal returns the function of a unary op that takes a complex
// operand to its component type (abs, real, imag), or nil.
func ComplexToReal(op ir.Opcode) func(complex128) float64 { return complexToReal[op] }

// complexLog is log|x| + i·arg(x), with FloatLog's care for subnormal |x|.
func complexLog(x complex128) complex128 {
	return complex(FloatLog(cmplx.Abs(x)), cmplx.Phase(x))
}

// FloatLog is math.Log, corrected for subnormal arguments, which the amd64
// assembly version of math.Log mishandles (log(2^-1024) came out near
// log(2^-1022.7)).
func FloatLog(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// FloatAtan2 is math.Atan2 with the sign of the result always that of y:
// math.Atan2 computes atan(y/x) and loses y's sign when y/x underflows to
// zero (atan2(-tiny, -huge) came out +π instead of -π).
func FloatAtan2(y, x float64) float64 {
	r := math.Atan2(y, x)
	if r == r {
		r = math.Copysign(r, y)
	}
	return r
}

// FloatPower is XLA's power on real floats: 1^y = x^0 = 1, otherwise C's
// pow.
func FloatPower(x, y float64) float64 {
	if x == 1 || y == 0 {
		return 1
	}
	return floatPow(x, y)
}

// floatPow is C's pow. math.Pow agrees with it except for a subnormal base
// with a non-integer exponent, where it calls the amd64 math.Log that
// mishandles subnormals; there the base is split as m·2^e and
// pow = m^y · 2^(e·y), with the product e·y kept exact through an FMA.
func floatPow(x, y float64) float64 {
	ax := math.Abs(x)
	if ax == 0 || ax >= 0x1p-1022 || ax != ax || y == math.Trunc(y) || math.IsInf(y, 0) || y != y {
		return math.Pow(x, y)
	}
	if x < 0 {
		return math.NaN() // negative base, non-integer exponent
	}
	m, e := math.Frexp(x)
	p := float64(e) * y
	perr := math.FMA(float64(e), y, -p) // e·y = p + perr exactly
	pi := math.Floor(p)
	if pi > 4096 || pi < -4096 {
		return math.Pow(m, y) * math.Exp2(p) // certain overflow or underflow
	}
	r := math.Pow(m, y) * math.Exp2(p-pi) * math.Exp2(perr)
	return math.Ldexp(r, int(pi))
}

// ComplexPower is XLA's complex power: 1^y = x^0 = 1; inf^(a+0i) is inf
// for a > 0 and 0 for a < 0; otherwise C99's cpow.
func ComplexPower(a, b complex128) complex128 {
	if a == 1 || b == 0 {
		return 1
	}
	if math.IsInf(real(a), 0) && imag(a) == 0 && imag(b) == 0 {
		switch {
		case real(b) > 0:
			return complex(math.Inf(1), 0)
		case real(b) < 0:
			return 0
		}
	}
	return cmplx.Pow(a, b)
}

// FloatMax is XLA's maximum on real floats: NaN-propagating (the first NaN
// operand wins), -0 < +0.
func FloatMax(a, b float64) float64 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a == b: // ±0: +0 wins
		if math.Signbit(a) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

// FloatMin is XLA's minimum on real floats: NaN-propagating, -0 < +0.
func FloatMin(a, b float64) float64 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a == b: // ±0: -0 wins
		if math.Signbit(a) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

var floatBinary = map[ir.Opcode]func(a, b float64) float64{
	ir.OpAdd:       func(a, b float64) float64 { return a + b },
	ir.OpSubtract:  func(a, b float64) float64 { return a - b },
	ir.OpMultiply:  func(a, b float64) float64 { return a * b },
	ir.OpDivide:    func(a, b float64) float64 { return a / b },
	ir.OpRemainder: math.Mod,
	ir.OpPower:     FloatPower,
	ir.OpMaximum:   FloatMax,
	ir.OpMinimum:   FloatMin,
	ir.OpAtan2:     FloatAtan2,
}

// FloatBinary returns the function of a binary op on real floats, or nil.
func FloatBinary(op ir.Opcode) func(a, b float64) float64 { return floatBinary[op] }

var complexBinary = map[ir.Opcode]func(a, b complex128) complex128{
	ir.OpAdd:      func(a, b complex128) complex128 { return a + b },
	ir.OpSubtract: func(a, b complex128) complex128 { return a - b },
	ir.OpMultiply: func(a, b complex128) complex128 { return a * b },
	ir.OpDivide:   func(a, b complex128) complex128 { return a / b },
	ir.OpPower:    ComplexPower,
}

// ComplexBinary returns the function of a binary op on complex values, or
// nil.
func ComplexBinary(op ir.Opcode) func(a, b complex128) complex128 { return complexBinary[op] }

// IntUnary returns the function of a unary op on integers of type t (wide
// form; the result is wrapped when stored), or nil.
func IntUnary(op ir.Opcode, t ir.ElementType) func(int64) int64 {
	w := t.BitWidth()
	unsigned := t.IsUnsigned()
	switch op {
	case ir.OpAbs:
		if unsigned {
			return func(x int64) int64 { return x }
		}
		return func(x int64) int64 {
			if x < 0 {
				return -x // abs(INT_MIN) wraps to INT_MIN
			}
			return x
		}
	case ir.OpNegate:
		return func(x int64) int64 { return -x }
	case ir.OpSign:
		return func(x int64) int64 {
			switch {
			case x == 0:
				return 0
			case x > 0 || unsigned:
				return 1
			}
			return -1
		}
	case ir.OpNot:
		return func(x int64) int64 { return ^x }
	case ir.OpPopulationCount:
		return func(x int64) int64 { return int64(bits.OnesCount64(lowBits(x, w))) }
	case ir.OpClz:
		return func(x int64) int64 { return int64(bits.LeadingZeros64(lowBits(x, w)) - (64 - w)) }
	case ir.OpCopy:
		return func(x int64) int64 { return x }
	}
	return nil
}

// lowBits returns the low width bits of x.
func lowBits(x int64, width int) uint64 {
	u := uint64(x)
	if width < 64 {
		u &= 1<<width - 1
	}
	return u
}

// IntBinary returns the function of a binary op on integers (or PRED) of
// type t, with XLA's rules for division by zero, overflowing division,
// shifts and negative powers, or nil.
func IntBinary(op ir.Opcode, t ir.ElementType) func(a, b int64) int64 {
	w := uint64(t.BitWidth())
	signed := t.IsSigned()
	lo, _ := IntRange(t)
	var mask uint64 = math.MaxUint64
	if w < 64 {
		mask = 1<<w - 1
	}
	switch op {
	case ir.OpAdd:
		return func(a, b int64) int64 { return a + b }
	case ir.OpSubtract:
		return func(a, b int64) int64 { return a - b }
	case ir.OpMultiply:
		return func(a, b int64) int64 { return a * b }
	case ir.OpAnd:
		return func(a, b int64) int64 { return a & b }
	case ir.OpOr:
		return func(a, b int64) int64 { return a | b }
	case ir.OpXor:
		return func(a, b int64) int64 { return a ^ b }
	case ir.OpDivide:
		if signed {
			return func(a, b int64) int64 {
				switch {
				case b == 0:
					return -1
				case b == -1 && a == lo:
					return a
				}
				return a / b
			}
		}
		return func(a, b int64) int64 {
			if b == 0 {
				return -1 // all ones once wrapped
			}
			return int64(uint64(a) / uint64(b))
		}
	case ir.OpRemainder:
		if signed {
			return func(a, b int64) int64 {
				switch {
				case b == 0:
					return a
				case b == -1 && a == lo:
					return 0
				}
				return a % b
			}
		}
		return func(a, b int64) int64 {
			if b == 0 {
				return a
			}
			return int64(uint64(a) % uint64(b))
		}
	case ir.OpMaximum:
		if signed || t == ir.PRED {
			return func(a, b int64) int64 { return max(a, b) }
		}
		return func(a, b int64) int64 { return int64(max(uint64(a), uint64(b))) }
	case ir.OpMinimum:
		if signed || t == ir.PRED {
			return func(a, b int64) int64 { return min(a, b) }
		}
		return func(a, b int64) int64 { return int64(min(uint64(a), uint64(b))) }
	case ir.OpPower:
		return func(a, b int64) int64 {
			if a == 1 || b == 0 {
				return 1
			}
			if signed && b < 0 {
				return 0
			}
			base, exp, result := uint64(a), uint64(b), uint64(1)
			for exp != 0 {
				if exp&1 != 0 {
					result *= base
				}
				exp >>= 1
				base *= base
			}
			return int64(result)
		}
	case ir.OpMulhi:
		// The high half of the full product, of twice the type's width.
		switch {
		case w == 64 && signed:
			return func(a, b int64) int64 {
				hi, _ := bits.Mul64(uint64(a), uint64(b))
				if a < 0 {
					hi -= uint64(b)
				}
				if b < 0 {
					hi -= uint64(a)
				}
				return int64(hi)
			}
		case w == 64:
			return func(a, b int64) int64 {
				hi, _ := bits.Mul64(uint64(a), uint64(b))
				return int64(hi)
			}
		case signed:
			return func(a, b int64) int64 { return SignExtend(a, int(w)) * SignExtend(b, int(w)) >> w }
		}
		return func(a, b int64) int64 { return int64((uint64(a) & mask) * (uint64(b) & mask) >> w) }
	case ir.OpShiftLeft:
		return func(a, b int64) int64 {
			if uint64(b) >= w {
				return 0
			}
			return a << uint64(b)
		}
	case ir.OpShiftRightArithmetic:
		return func(a, b int64) int64 {
			sa := SignExtend(a, int(w))
			if uint64(b) >= w {
				if sa < 0 {
					return -1
				}
				return 0
			}
			return sa >> uint64(b)
		}
	case ir.OpShiftRightLogical:
		return func(a, b int64) int64 {
			if uint64(b) >= w {
				return 0
			}
			return int64(uint64(a) & mask >> uint64(b))
		}
	}
	return nil
}

// predBinary lists the binary ops defined on PRED.
var predBinary = map[ir.Opcode]bool{
	ir.OpAnd: true, ir.OpOr: true, ir.OpXor: true, ir.OpMaximum: true, ir.OpMinimum: true,
	ir.OpAdd: true, ir.OpMultiply: true,
}

// PredBinary reports whether binary op is defined on PRED (as IntBinary's
// integer op on 0/1).
func PredBinary(op ir.Opcode) bool { return predBinary[op] }

// Ordering is the result of comparing two values: -1, 0, 1, or Unordered.
type Ordering int8

// Unordered is the ordering of a NaN with anything under IEEE comparison.
const Unordered Ordering = 2

// CompareResult is the value of compare with direction d for two values in
// ordering o: an unordered pair satisfies only NE.
func CompareResult(d ir.ComparisonDirection, o Ordering) bool {
	if o == Unordered {
		return d == ir.CmpNE
	}
	switch d {
	case ir.CmpEQ:
		return o == 0
	case ir.CmpNE:
		return o != 0
	case ir.CmpLT:
		return o < 0
	case ir.CmpLE:
		return o <= 0
	case ir.CmpGT:
		return o > 0
	case ir.CmpGE:
		return o >= 0
	}
	return false
}

// Cmp3 orders a and b (Unordered when a NaN is involved).
func Cmp3[T int64 | uint64 | float64 | int32](a, b T) Ordering {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	return Unordered
}

// ReducePrecisionBits is XLA's reduce-precision on the bits of a float with
// srcExp exponent and srcMan mantissa bits: round the mantissa to mantBits
// (nearest even), then flush values outside the exponent range of expBits
// to ±0 (denormals included) or ±Inf. A NaN stays the same NaN, or becomes
// +Inf when mantBits is 0 (no NaN is representable then).
func ReducePrecisionBits(v uint64, srcExp, srcMan, expBits, mantBits int) uint64 {
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
		return expMask // +Inf
	}
	return v
}

// ReducePrecision is reduce-precision on a wide value of real float type t:
// on the bits of the value in t for F64 and F32, on its F32 value for the
// narrower types (XLA's evaluator computes them as float).
func ReducePrecision(t ir.ElementType, x float64, expBits, mantBits int) float64 {
	if t == ir.F64 {
		return math.Float64frombits(ReducePrecisionBits(math.Float64bits(x), 11, 52, expBits, mantBits))
	}
	b := ReducePrecisionBits(uint64(math.Float32bits(float32(x))), 8, 23, expBits, mantBits)
	return float64(math.Float32frombits(uint32(b)))
}

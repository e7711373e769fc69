package runtime

// The scalar semantics of the elementwise ops on wide values, written to
// agree with ir/eval exactly: the same functions (math and math/cmplx, with
// the evaluator's corrections for subnormal logarithms and powers and the
// sign of atan2), the same integer rules (XLA's division by zero, shifts
// out of range, wrapping powers) and the same NaN and signed-zero rules for
// maximum and minimum. Results are rounded or wrapped to the element type
// when stored (storeWide), as the evaluator rounds when it stores.

import (
	"math"
	"math/bits"
	"math/cmplx"

	"github.com/kilnml/kiln/ir"
)

var floatUnaryFns = map[ir.Opcode]func(float64) float64{
	ir.OpAbs:              math.Abs,
	ir.OpCbrt:             math.Cbrt,
	ir.OpCeil:             math.Ceil,
	ir.OpCos:              math.Cos,
	ir.OpErf:              math.Erf,
	ir.OpExp:              math.Exp,
	ir.OpExpm1:            math.Expm1,
	ir.OpFloor:            math.Floor,
	ir.OpLog:              floatLog,
	ir.OpLog1p:            math.Log1p,
	ir.OpNegate:           func(x float64) float64 { return -x },
	ir.OpLogistic:         func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
	ir.OpRoundNearestAfz:  math.Round,
	ir.OpRoundNearestEven: math.RoundToEven,
	ir.OpRsqrt:            func(x float64) float64 { return 1 / math.Sqrt(x) },
	ir.OpSign:             signF64,
	ir.OpSin:              math.Sin,
	ir.OpSqrt:             math.Sqrt,
	ir.OpTan:              math.Tan,
	ir.OpTanh:             math.Tanh,
	ir.OpReal:             func(x float64) float64 { return x },
	ir.OpImag:             func(float64) float64 { return 0 },
	ir.OpCopy:             func(x float64) float64 { return x },
}

var complexUnaryFns = map[ir.Opcode]func(complex128) complex128{
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
	ir.OpCopy: func(x complex128) complex128 { return x },
}

// complexToRealFns take a complex operand to its component type.
var complexToRealFns = map[ir.Opcode]func(complex128) float64{
	ir.OpAbs:  cmplx.Abs,
	ir.OpReal: func(x complex128) float64 { return real(x) },
	ir.OpImag: func(x complex128) float64 { return imag(x) },
}

// floatLog is math.Log corrected for subnormal arguments, as the evaluator
// computes it.
func floatLog(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

func complexLog(x complex128) complex128 {
	return complex(floatLog(cmplx.Abs(x)), cmplx.Phase(x))
}

// floatAtan2 keeps the sign of y in the result, as the evaluator does.
func floatAtan2(y, x float64) float64 {
	r := math.Atan2(y, x)
	if r == r {
		r = math.Copysign(r, y)
	}
	return r
}

// floatPow is C's pow with the evaluator's treatment of subnormal bases.
func floatPow(x, y float64) float64 {
	ax := math.Abs(x)
	if ax == 0 || ax >= 0x1p-1022 || ax != ax || y == math.Trunc(y) || math.IsInf(y, 0) || y != y {
		return math.Pow(x, y)
	}
	if x < 0 {
		return math.NaN()
	}
	m, e := math.Frexp(x)
	p := float64(e) * y
	perr := math.FMA(float64(e), y, -p)
	pi := math.Floor(p)
	if pi > 4096 || pi < -4096 {
		return math.Pow(m, y) * math.Exp2(p)
	}
	r := math.Pow(m, y) * math.Exp2(p-pi) * math.Exp2(perr)
	return math.Ldexp(r, int(pi))
}

func complexPow(a, b complex128) complex128 {
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

// floatMax and floatMin are XLA's maximum and minimum: a NaN operand wins
// (the first one first), -0 orders below +0.
func floatMax(a, b float64) float64 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a == b:
		if math.Signbit(a) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

func floatMin(a, b float64) float64 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a == b:
		if math.Signbit(a) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

var floatBinaryFns = map[ir.Opcode]func(a, b float64) float64{
	ir.OpAdd:       func(a, b float64) float64 { return a + b },
	ir.OpSubtract:  func(a, b float64) float64 { return a - b },
	ir.OpMultiply:  func(a, b float64) float64 { return a * b },
	ir.OpDivide:    func(a, b float64) float64 { return a / b },
	ir.OpRemainder: math.Mod,
	ir.OpPower: func(a, b float64) float64 {
		if a == 1 || b == 0 {
			return 1
		}
		return floatPow(a, b)
	},
	ir.OpMaximum: floatMax,
	ir.OpMinimum: floatMin,
	ir.OpAtan2:   floatAtan2,
}

var complexBinaryFns = map[ir.Opcode]func(a, b complex128) complex128{
	ir.OpAdd:      func(a, b complex128) complex128 { return a + b },
	ir.OpSubtract: func(a, b complex128) complex128 { return a - b },
	ir.OpMultiply: func(a, b complex128) complex128 { return a * b },
	ir.OpDivide:   func(a, b complex128) complex128 { return a / b },
	ir.OpPower:    complexPow,
}

// intUnaryFn is an integer unary op on values of type t (loadInts form; the
// store wraps), or nil.
func intUnaryFn(op ir.Opcode, t ir.ElementType) func(int64) int64 {
	w := t.BitWidth()
	unsigned := t.IsUnsigned()
	switch op {
	case ir.OpAbs:
		if unsigned {
			return func(x int64) int64 { return x }
		}
		return func(x int64) int64 {
			if x < 0 {
				return -x
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
		return func(x int64) int64 { return popCount(x, w) }
	case ir.OpClz:
		return func(x int64) int64 { return leadingZeros(x, w) }
	case ir.OpCopy:
		return func(x int64) int64 { return x }
	}
	return nil
}

func leadingZeros(x int64, width int) int64 {
	u := uint64(x)
	if width < 64 {
		u &= 1<<width - 1
	}
	return int64(bits.LeadingZeros64(u) - (64 - width))
}

func popCount(x int64, width int) int64 {
	u := uint64(x)
	if width < 64 {
		u &= 1<<width - 1
	}
	return int64(bits.OnesCount64(u))
}

// intBinaryFn is an integer (or PRED) binary op on values of type t, with
// XLA's rules for division by zero, overflowing division, shifts and
// negative powers, or nil.
func intBinaryFn(op ir.Opcode, t ir.ElementType) func(a, b int64) int64 {
	w := uint64(t.BitWidth())
	signed := t.IsSigned()
	var lo int64
	if signed {
		lo = -1 << (w - 1)
	}
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
				return -1
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
	case ir.OpShiftLeft:
		return func(a, b int64) int64 {
			if uint64(b) >= w {
				return 0
			}
			return a << uint64(b)
		}
	case ir.OpShiftRightArithmetic:
		return func(a, b int64) int64 {
			sa := signExtend(a, int(w))
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

// predBinary lists the binary ops defined on PRED (computed as integer ops
// on 0/1, a nonzero result meaning true).
var predBinary = map[ir.Opcode]bool{
	ir.OpAnd: true, ir.OpOr: true, ir.OpXor: true, ir.OpMaximum: true, ir.OpMinimum: true,
	ir.OpAdd: true, ir.OpMultiply: true,
}

// ordering is the result of comparing two elements: -1, 0, 1 or unordered.
type ordering int8

const unordered ordering = 2

func compareResult(d ir.ComparisonDirection, o ordering) bool {
	if o == unordered {
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

func cmp3[T int64 | uint64 | float64](a, b T) ordering {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	return unordered
}

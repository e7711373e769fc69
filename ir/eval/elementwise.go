package eval

// Elementwise ops: unary and binary arithmetic, compare, select, clamp,
// convert, bitcast-convert, reduce-precision and the complex ops.
//
// XLA's rules chosen where the specification leaves the value to the
// implementation (each matches XLA's HloEvaluator and CPU backend):
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

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(evalUnary, ir.OpAbs, ir.OpCbrt, ir.OpCeil, ir.OpClz, ir.OpCos, ir.OpErf,
		ir.OpExp, ir.OpExpm1, ir.OpFloor, ir.OpImag, ir.OpIsFinite, ir.OpLog, ir.OpLog1p,
		ir.OpLogistic, ir.OpNegate, ir.OpNot, ir.OpPopulationCount, ir.OpReal,
		ir.OpRoundNearestAfz, ir.OpRoundNearestEven, ir.OpRsqrt, ir.OpSign, ir.OpSin,
		ir.OpSqrt, ir.OpTan, ir.OpTanh)
	register(evalBinary, ir.OpAdd, ir.OpSubtract, ir.OpMultiply, ir.OpDivide,
		ir.OpRemainder, ir.OpPower, ir.OpMaximum, ir.OpMinimum, ir.OpAtan2, ir.OpAnd,
		ir.OpOr, ir.OpXor, ir.OpShiftLeft, ir.OpShiftRightArithmetic,
		ir.OpShiftRightLogical, ir.OpComplex)
	register(evalCompare, ir.OpCompare)
	register(evalSelect, ir.OpSelect)
	register(evalClamp, ir.OpClamp)
	register(evalConvert, ir.OpConvert)
	register(evalBitcastConvert, ir.OpBitcastConvert)
	register(evalReducePrecision, ir.OpReducePrecision)
}

// notDefined reports an elementwise op applied to an element type it is not
// defined for.
func notDefined(in *ir.Instruction, t ir.ElementType) error {
	return &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
		Detail: fmt.Sprintf("not defined for element type %v", t)}
}

// checkArity reports an instruction with the wrong number of operands.
func checkArity(in *ir.Instruction, ops []*ir.Literal, n int) error {
	if len(ops) != n {
		return fmt.Errorf("expected %d operands, found %d", n, len(ops))
	}
	for i, o := range ops {
		if !o.Shape().IsArray() {
			return fmt.Errorf("operand %d has shape %v, expected an array", i, o.Shape())
		}
	}
	return nil
}

// elementwiseDims returns the dimensions of an elementwise result over ops:
// the operands that are not scalars must have equal dimensions (their
// actual sizes, which for a bounded dynamic shape may be below the
// instruction's bounds); scalars are broadcast implicitly, as XLA allows for
// clamp and select and as the builder's scalar broadcasting produces.
func elementwiseDims(in *ir.Instruction, ops []*ir.Literal) ([]int, error) {
	var dims []int
	first := -1
	for i, o := range ops {
		s := o.Shape()
		if s.Rank() == 0 {
			continue
		}
		if first < 0 {
			dims, first = s.Dims, i
			continue
		}
		if !ir.SameDimensions(s, ops[first].Shape()) {
			return nil, fmt.Errorf("operand %d has shape %v and operand %d %v, expected equal dimensions or a scalar",
				first, ops[first].Shape().StringWithoutLayout(), i, s.StringWithoutLayout())
		}
	}
	if first < 0 {
		return in.Shape.Dims, nil
	}
	return dims, nil
}

// stride returns 0 for a scalar operand broadcast over n > 1 elements, else 1.
func stride(l *ir.Literal) int {
	if l.Shape().Rank() == 0 {
		return 0
	}
	return 1
}

// ---- unary ----------------------------------------------------------------

var floatUnary = map[ir.Opcode]func(float64) float64{
	ir.OpAbs:    math.Abs,
	ir.OpCbrt:   math.Cbrt,
	ir.OpCeil:   math.Ceil,
	ir.OpCos:    math.Cos,
	ir.OpErf:    math.Erf,
	ir.OpExp:    math.Exp,
	ir.OpExpm1:  math.Expm1,
	ir.OpFloor:  math.Floor,
	ir.OpLog:    floatLog,
	ir.OpLog1p:  math.Log1p,
	ir.OpNegate: func(x float64) float64 { return -x },
	ir.OpLogistic: func(x float64) float64 {
		return 1 / (1 + math.Exp(-x))
	},
	ir.OpRoundNearestAfz:  math.Round,
	ir.OpRoundNearestEven: math.RoundToEven,
	ir.OpRsqrt:            func(x float64) float64 { return 1 / math.Sqrt(x) },
	ir.OpSign: func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x // ±0 and NaN are their own sign
	},
	ir.OpSin:  math.Sin,
	ir.OpSqrt: math.Sqrt,
	ir.OpTan:  math.Tan,
	ir.OpTanh: math.Tanh,
	ir.OpReal: func(x float64) float64 { return x },
	ir.OpImag: func(float64) float64 { return 0 },
}

var complexUnary = map[ir.Opcode]func(complex128) complex128{
	ir.OpNegate: func(x complex128) complex128 { return -x },
	ir.OpSqrt:   cmplx.Sqrt,
	ir.OpRsqrt:  func(x complex128) complex128 { return 1 / cmplx.Sqrt(x) },
	ir.OpExp:    cmplx.Exp,
	ir.OpExpm1:  func(x complex128) complex128 { return cmplx.Exp(x) - 1 },
	ir.OpLog:    complexLog,
	ir.OpLog1p:  func(x complex128) complex128 { return complexLog(x + 1) },
	ir.OpLogistic: func(x complex128) complex128 {
		return 1 / (1 + cmplx.Exp(-x))
	},
	ir.OpSin:  cmplx.Sin,
	ir.OpCos:  cmplx.Cos,
	ir.OpTan:  cmplx.Tan,
	ir.OpTanh: cmplx.Tanh,
	ir.OpSign: func(x complex128) complex128 {
		a := cmplx.Abs(x)
		if a == 0 {
			return 0
		}
		return x / complex(a, 0)
	},
}

// complexLog is log|x| + i·arg(x), with floatLog's care for subnormal |x|.
func complexLog(x complex128) complex128 {
	return complex(floatLog(cmplx.Abs(x)), cmplx.Phase(x))
}

// complexToReal are the unary ops that take a complex operand to its real
// component type.
var complexToReal = map[ir.Opcode]func(complex128) float64{
	ir.OpAbs:  cmplx.Abs,
	ir.OpReal: func(x complex128) float64 { return real(x) },
	ir.OpImag: func(x complex128) float64 { return imag(x) },
}

// intUnary returns the function of an integer unary op on values of type t
// (intValues form, result wrapped by setInts), or nil.
func intUnary(op ir.Opcode, t ir.ElementType) func(int64) int64 {
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
		return func(x int64) int64 { return popCount(x, w) }
	case ir.OpClz:
		return func(x int64) int64 { return leadingZeros(x, w) }
	}
	return nil
}

func evalUnary(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if err := checkArity(in, ops, 1); err != nil {
		return nil, err
	}
	x := ops[0]
	t := x.Shape().Elem
	out, err := newArrayLike(x.Shape(), in.Shape.Elem)
	if err != nil {
		return nil, err
	}
	switch {
	case in.Opcode == ir.OpIsFinite:
		if !t.IsFloat() {
			return nil, notDefined(in, t)
		}
		if out.Shape().Elem != ir.PRED {
			return nil, fmt.Errorf("is-finite produces pred, the instruction declares %v", out.Shape().Elem)
		}
		xs := floatValues(x)
		dst := ir.Values[bool](out)
		for i, v := range xs {
			dst[i] = !math.IsInf(v, 0) && !math.IsNaN(v)
		}
	case t.IsFloat():
		f := floatUnary[in.Opcode]
		if f == nil || out.Shape().Elem != t {
			return nil, notDefined(in, t)
		}
		xs := floatValues(x)
		for i, v := range xs {
			xs[i] = f(v)
		}
		setFloats(out, xs)
	case t.IsComplex():
		xs := complexValues(x)
		if f := complexToReal[in.Opcode]; f != nil {
			if out.Shape().Elem != t.ComplexComponent() {
				return nil, fmt.Errorf("%v of %v produces %v, the instruction declares %v",
					in.Opcode, t, t.ComplexComponent(), out.Shape().Elem)
			}
			res := make([]float64, len(xs))
			for i, v := range xs {
				res[i] = f(v)
			}
			setFloats(out, res)
			break
		}
		f := complexUnary[in.Opcode]
		if f == nil || out.Shape().Elem != t {
			return nil, notDefined(in, t)
		}
		for i, v := range xs {
			xs[i] = f(v)
		}
		setComplex(out, xs)
	case t == ir.PRED:
		if in.Opcode != ir.OpNot || out.Shape().Elem != t {
			return nil, notDefined(in, t)
		}
		src, dst := ir.Values[bool](x), ir.Values[bool](out)
		for i, v := range src {
			dst[i] = !v
		}
	case t.IsInteger():
		f := intUnary(in.Opcode, t)
		if f == nil || out.Shape().Elem != t {
			return nil, notDefined(in, t)
		}
		xs := intValues(x)
		for i, v := range xs {
			xs[i] = f(v)
		}
		setInts(out, xs)
	default:
		return nil, notDefined(in, t)
	}
	return out, nil
}

// ---- binary ---------------------------------------------------------------

// floatMax is XLA's maximum: NaN-propagating, -0 < +0.
func floatMax(a, b float64) float64 {
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

// floatMin is XLA's minimum: NaN-propagating, -0 < +0.
func floatMin(a, b float64) float64 {
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

// floatLog is math.Log, corrected for subnormal arguments, which the amd64
// assembly version of math.Log mishandles (log(2^-1024) came out near
// log(2^-1022.7)).
func floatLog(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// floatAtan2 is math.Atan2 with the sign of the result always that of y:
// math.Atan2 computes atan(y/x) and loses y's sign when y/x underflows to
// zero (atan2(-tiny, -huge) came out +π instead of -π).
func floatAtan2(y, x float64) float64 {
	r := math.Atan2(y, x)
	if r == r {
		r = math.Copysign(r, y)
	}
	return r
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

// complexPow is XLA's complex power: 1^y = x^0 = 1; inf^(a+0i) is inf for
// a > 0 and 0 for a < 0; otherwise C99's cpow.
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

var complexBinary = map[ir.Opcode]func(a, b complex128) complex128{
	ir.OpAdd:      func(a, b complex128) complex128 { return a + b },
	ir.OpSubtract: func(a, b complex128) complex128 { return a - b },
	ir.OpMultiply: func(a, b complex128) complex128 { return a * b },
	ir.OpDivide:   func(a, b complex128) complex128 { return a / b },
	ir.OpPower:    complexPow,
}

// intBinary returns the function of an integer binary op on values of type t
// (intValues form; setInts wraps the result), or nil.
func intBinary(op ir.Opcode, t ir.ElementType) func(a, b int64) int64 {
	w := uint64(t.BitWidth())
	signed := t.IsSigned()
	lo, _ := intRange(t)
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

// predBinary lists the binary ops defined on PRED, computed as integer ops
// on 0/1 with a nonzero result meaning true (add is or, subtract is xor,
// multiply is and — what C++ bool arithmetic in XLA's evaluator gives).
var predBinary = map[ir.Opcode]bool{
	ir.OpAnd: true, ir.OpOr: true, ir.OpXor: true, ir.OpMaximum: true, ir.OpMinimum: true,
	ir.OpAdd: true, ir.OpMultiply: true,
}

func evalBinary(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if err := checkArity(in, ops, 2); err != nil {
		return nil, err
	}
	a, b := ops[0], ops[1]
	t := a.Shape().Elem
	if b.Shape().Elem != t {
		return nil, fmt.Errorf("operands have element types %v and %v, expected equal types", t, b.Shape().Elem)
	}
	dims, err := elementwiseDims(in, ops)
	if err != nil {
		return nil, err
	}
	out, err := newArray(in.Shape.Elem, dims)
	if err != nil {
		return nil, err
	}
	n := out.ElementCount()
	sa, sb := stride(a), stride(b)
	if in.Opcode == ir.OpComplex {
		if !t.IsFloat() || ir.ComplexOf(t) != out.Shape().Elem {
			return nil, fmt.Errorf("complex of %v operands must produce %v, the instruction declares %v",
				t, ir.ComplexOf(t), out.Shape().Elem)
		}
		xs, ys := floatValues(a), floatValues(b)
		res := make([]complex128, n)
		for i := range res {
			res[i] = complex(xs[i*sa], ys[i*sb])
		}
		setComplex(out, res)
		return out, nil
	}
	if out.Shape().Elem != t {
		return nil, fmt.Errorf("%v of %v operands produces %v, the instruction declares %v", in.Opcode, t, t, out.Shape().Elem)
	}
	switch {
	case t.IsFloat():
		f := floatBinary[in.Opcode]
		if f == nil {
			return nil, notDefined(in, t)
		}
		xs, ys := floatValues(a), floatValues(b)
		res := make([]float64, n)
		for i := range res {
			res[i] = f(xs[i*sa], ys[i*sb])
		}
		setFloats(out, res)
	case t.IsComplex():
		f := complexBinary[in.Opcode]
		if f == nil {
			return nil, notDefined(in, t)
		}
		xs, ys := complexValues(a), complexValues(b)
		res := make([]complex128, n)
		for i := range res {
			res[i] = f(xs[i*sa], ys[i*sb])
		}
		setComplex(out, res)
	case t == ir.PRED || t.IsInteger():
		f := intBinary(in.Opcode, t)
		if f == nil || (t == ir.PRED && !predBinary[in.Opcode]) {
			return nil, notDefined(in, t)
		}
		xs, ys := intValues(a), intValues(b)
		res := make([]int64, n)
		for i := range res {
			res[i] = f(xs[i*sa], ys[i*sb])
		}
		setInts(out, res)
	default:
		return nil, notDefined(in, t)
	}
	return out, nil
}

// ---- compare --------------------------------------------------------------

// ordering is the result of comparing two elements: -1, 0, 1, or unordered.
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

func evalCompare(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if err := checkArity(in, ops, 2); err != nil {
		return nil, err
	}
	a, b := ops[0], ops[1]
	t := a.Shape().Elem
	if b.Shape().Elem != t {
		return nil, fmt.Errorf("operands have element types %v and %v, expected equal types", t, b.Shape().Elem)
	}
	if in.Shape.Elem != ir.PRED {
		return nil, fmt.Errorf("compare produces pred, the instruction declares %v", in.Shape.Elem)
	}
	d := in.Direction
	if d == ir.CmpInvalid {
		return nil, fmt.Errorf("compare has no direction")
	}
	dims, err := elementwiseDims(in, ops)
	if err != nil {
		return nil, err
	}
	out, err := newArray(ir.PRED, dims)
	if err != nil {
		return nil, err
	}
	dst := ir.Values[bool](out)
	sa, sb := stride(a), stride(b)
	ct := in.CompareType
	if ct == ir.CmpTypeDefault {
		ct = ir.DefaultComparisonType(t)
	}
	switch {
	case t.IsFloat() && ct == ir.CmpTypeTotalOrder:
		xs, w := floatBits(a)
		ys, _ := floatBits(b)
		for i := range dst {
			dst[i] = compareResult(d, cmp3(totalOrderKey(xs[i*sa], w), totalOrderKey(ys[i*sb], w)))
		}
	case t.IsFloat():
		xs, ys := floatValues(a), floatValues(b)
		for i := range dst {
			dst[i] = compareResult(d, cmp3(xs[i*sa], ys[i*sb]))
		}
	case t.IsComplex():
		if d != ir.CmpEQ && d != ir.CmpNE {
			return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
				Detail: fmt.Sprintf("direction %v is not defined for element type %v (only EQ and NE)", d, t)}
		}
		xs, ys := complexValues(a), complexValues(b)
		for i := range dst {
			dst[i] = (xs[i*sa] == ys[i*sb]) == (d == ir.CmpEQ)
		}
	case t == ir.PRED || t.IsInteger():
		xs, ys := intValues(a), intValues(b)
		w := t.BitWidth()
		switch ct {
		case ir.CmpTypeSigned:
			for i := range dst {
				dst[i] = compareResult(d, cmp3(signExtend(xs[i*sa], w), signExtend(ys[i*sb], w)))
			}
		case ir.CmpTypeUnsigned:
			var mask uint64 = math.MaxUint64
			if w < 64 {
				mask = 1<<w - 1
			}
			for i := range dst {
				dst[i] = compareResult(d, cmp3(uint64(xs[i*sa])&mask, uint64(ys[i*sb])&mask))
			}
		default:
			return nil, fmt.Errorf("comparison type %v is not defined for element type %v", ct, t)
		}
	default:
		return nil, notDefined(in, t)
	}
	return out, nil
}

// ---- select and clamp -----------------------------------------------------

func evalSelect(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 3 {
		return nil, fmt.Errorf("expected 3 operands, found %d", len(ops))
	}
	p, x, y := ops[0], ops[1], ops[2]
	if p.Shape().Elem != ir.PRED {
		return nil, fmt.Errorf("predicate has element type %v, expected pred", p.Shape().Elem)
	}
	if !x.Shape().EqualIgnoringLayout(y.Shape()) {
		return nil, fmt.Errorf("on_true has shape %v and on_false %v, expected equal shapes",
			x.Shape().StringWithoutLayout(), y.Shape().StringWithoutLayout())
	}
	if !x.Shape().IsArray() || p.Shape().Rank() == 0 {
		// A scalar predicate picks a whole operand (tuples included).
		if p.Shape().Rank() != 0 {
			return nil, fmt.Errorf("selecting between tuples needs a scalar predicate, found %v", p.Shape())
		}
		if ir.Values[bool](p)[0] {
			return x.Clone(), nil
		}
		return y.Clone(), nil
	}
	if !ir.SameDimensions(p.Shape(), x.Shape()) {
		return nil, fmt.Errorf("predicate has shape %v, expected dimensions %v or a scalar",
			p.Shape().StringWithoutLayout(), x.Shape().Dims)
	}
	out := x.Clone()
	es := elementBytes(x)
	dst, src := out.Bytes(), y.Bytes()
	for i, v := range ir.Values[bool](p) {
		if !v {
			copy(dst[i*es:(i+1)*es], src[i*es:(i+1)*es])
		}
	}
	return out, nil
}

func evalClamp(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if err := checkArity(in, ops, 3); err != nil {
		return nil, err
	}
	lo, x, hi := ops[0], ops[1], ops[2]
	t := x.Shape().Elem
	if lo.Shape().Elem != t || hi.Shape().Elem != t {
		return nil, fmt.Errorf("operands have element types %v, %v and %v, expected equal types",
			lo.Shape().Elem, t, hi.Shape().Elem)
	}
	dims, err := elementwiseDims(in, ops)
	if err != nil {
		return nil, err
	}
	out, err := newArray(t, dims)
	if err != nil {
		return nil, err
	}
	n := out.ElementCount()
	sl, sx, sh := stride(lo), stride(x), stride(hi)
	switch {
	case t.IsFloat():
		ls, xs, hs := floatValues(lo), floatValues(x), floatValues(hi)
		res := make([]float64, n)
		for i := range res {
			res[i] = floatMin(floatMax(xs[i*sx], ls[i*sl]), hs[i*sh])
		}
		setFloats(out, res)
	case t == ir.PRED || t.IsInteger():
		maxf, minf := intBinary(ir.OpMaximum, t), intBinary(ir.OpMinimum, t)
		ls, xs, hs := intValues(lo), intValues(x), intValues(hi)
		res := make([]int64, n)
		for i := range res {
			res[i] = minf(maxf(xs[i*sx], ls[i*sl]), hs[i*sh])
		}
		setInts(out, res)
	default:
		return nil, notDefined(in, t)
	}
	return out, nil
}

// ---- convert --------------------------------------------------------------

func evalConvert(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if err := checkArity(in, ops, 1); err != nil {
		return nil, err
	}
	return convertLiteral(ops[0], in.Shape.Elem)
}

// convertLiteral converts every element of x to type to with XLA's
// ConvertElementType semantics (ir.ConvertLiteral). Complex to real is
// refused, as XLA's shape inference refuses it.
func convertLiteral(x *ir.Literal, to ir.ElementType) (*ir.Literal, error) {
	from := x.Shape().Elem
	if from.IsComplex() && !to.IsComplex() {
		return nil, fmt.Errorf("conversion from complex type %v to real type %v is not defined; use real/imag", from, to)
	}
	return ir.ConvertLiteral(x, to)
}

// ---- bitcast-convert ------------------------------------------------------

// rawBits returns each element's bits, in the low BitWidth bits (S4/U4: 4).
func rawBits(l *ir.Literal) []uint64 {
	t := l.Shape().Elem
	if t.IsFloat() {
		b, _ := floatBits(l)
		return b
	}
	vals := intValues(l)
	out := make([]uint64, len(vals))
	w := t.BitWidth()
	for i, v := range vals {
		out[i] = uint64(v)
		if w < 64 {
			out[i] &= 1<<w - 1
		}
	}
	return out
}

// setRawBits stores bit patterns into an integer or real float literal.
func setRawBits(l *ir.Literal, b []uint64) {
	switch l.Shape().Elem {
	case ir.F64:
		dst := ir.Values[float64](l)
		for i, v := range b {
			dst[i] = math.Float64frombits(v)
		}
	case ir.F32:
		dst := ir.Values[float32](l)
		for i, v := range b {
			dst[i] = math.Float32frombits(uint32(v))
		}
	case ir.F16:
		dst := ir.Values[ir.Float16](l)
		for i, v := range b {
			dst[i] = ir.Float16(v)
		}
	case ir.BF16:
		dst := ir.Values[ir.BFloat16](l)
		for i, v := range b {
			dst[i] = ir.BFloat16(v)
		}
	case ir.F8E5M2:
		dst := ir.Values[ir.Float8E5M2](l)
		for i, v := range b {
			dst[i] = ir.Float8E5M2(v)
		}
	case ir.F8E4M3FN:
		dst := ir.Values[ir.Float8E4M3FN](l)
		for i, v := range b {
			dst[i] = ir.Float8E4M3FN(v)
		}
	default:
		vals := make([]int64, len(b))
		for i, v := range b {
			vals[i] = int64(v)
		}
		setInts(l, vals) // wraps and sign-extends S4
	}
}

// evalBitcastConvert reinterprets the bits of each element. Between types of
// different widths the wider element holds the narrower ones in its bits
// from least significant up (the byte order of a little-endian machine),
// with the extra minor dimension of size wide/narrow on the narrow side.
func evalBitcastConvert(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if err := checkArity(in, ops, 1); err != nil {
		return nil, err
	}
	x := ops[0]
	from, to := x.Shape().Elem, in.Shape.Elem
	if from.IsComplex() || to.IsComplex() {
		if from != to {
			return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
				Detail: fmt.Sprintf("bitcast between %v and %v: complex types bitcast only to themselves", from, to)}
		}
		out := x.Clone()
		return out, nil
	}
	if to == ir.PRED && from != ir.PRED {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
			Detail: fmt.Sprintf("bitcast from %v to pred: pred holds only 0 and 1", from)}
	}
	fw, tw := from.BitWidth(), to.BitWidth()
	xd := x.Shape().Dims
	var dims []int
	switch {
	case fw == tw:
		dims = xd
	case fw > tw:
		if fw%tw != 0 {
			return nil, fmt.Errorf("cannot bitcast %v to %v: widths %d and %d", from, to, fw, tw)
		}
		dims = append(append([]int{}, xd...), fw/tw)
	default:
		if tw%fw != 0 || len(xd) == 0 || xd[len(xd)-1] != tw/fw {
			return nil, fmt.Errorf("bitcast of %v to the wider %v needs a last dimension of size %d, found shape %v",
				from, to, tw/max(fw, 1), x.Shape().StringWithoutLayout())
		}
		dims = xd[:len(xd)-1]
	}
	out, err := newArray(to, dims)
	if err != nil {
		return nil, err
	}
	src := rawBits(x)
	res := make([]uint64, out.ElementCount())
	switch {
	case fw == tw:
		copy(res, src)
	case fw > tw:
		k := fw / tw
		mask := uint64(1)<<tw - 1
		for i, v := range src {
			for j := 0; j < k; j++ {
				res[i*k+j] = v >> (j * tw) & mask
			}
		}
	default:
		k := tw / fw
		for i := range res {
			var v uint64
			for j := 0; j < k; j++ {
				v |= src[i*k+j] << (j * fw)
			}
			res[i] = v
		}
	}
	setRawBits(out, res)
	return out, nil
}

// ---- reduce-precision -----------------------------------------------------

// reducePrecisionBits is XLA's ReducePrecision on the bits of a float with
// srcExp exponent and srcMan mantissa bits: round the mantissa to mantBits
// (nearest even), then flush values outside the exponent range of expBits
// to ±0 (denormals included) or ±Inf. A NaN stays the same NaN, or becomes
// +Inf when mantBits is 0 (no NaN is representable then).
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
		return expMask // +Inf
	}
	return v
}

func evalReducePrecision(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if err := checkArity(in, ops, 1); err != nil {
		return nil, err
	}
	x := ops[0]
	t := x.Shape().Elem
	if !t.IsFloat() {
		return nil, notDefined(in, t)
	}
	eb, mb := in.ExponentBits, in.MantissaBits
	if eb < 1 || mb < 0 {
		return nil, fmt.Errorf("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, found %d and %d", eb, mb)
	}
	out, err := newArrayLike(x.Shape(), t)
	if err != nil {
		return nil, err
	}
	switch t {
	case ir.F64:
		src, dst := ir.Values[float64](x), ir.Values[float64](out)
		for i, v := range src {
			dst[i] = math.Float64frombits(reducePrecisionBits(math.Float64bits(v), 11, 52, eb, mb))
		}
	case ir.F32:
		src, dst := ir.Values[float32](x), ir.Values[float32](out)
		for i, v := range src {
			dst[i] = math.Float32frombits(uint32(reducePrecisionBits(uint64(math.Float32bits(v)), 8, 23, eb, mb)))
		}
	default:
		// Narrower types on their F32 value, rounded back (XLA's evaluator
		// computes them as float).
		xs := floatValues(x)
		for i, v := range xs {
			b := reducePrecisionBits(uint64(math.Float32bits(float32(v))), 8, 23, eb, mb)
			xs[i] = float64(math.Float32frombits(uint32(b)))
		}
		setFloats(out, xs)
	}
	return out, nil
}

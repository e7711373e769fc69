package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// The bfloat16 and binary16 variants of the elementwise kernels: against
// their twins at every level and tail, against the float32 function they
// mirror (widen, compute, round: bit for bit), and against ir/eval for the
// ops whose float32 computation rounded to the narrow type is XLA's result
// exactly (+ − × ÷ and √ are correctly rounded in float32, and float32 has
// more than twice the narrow types' precision plus two bits, so rounding
// twice gives the correctly rounded result).

// typedCase is one typed function and the float32 function it mirrors.
type typedCase struct {
	name   string
	shape  string // "unary", "binary", "scalar", "scalars2", "ternary", "scalarAdd", "cmp", "cmpScalar", "select"
	bf, f  any    // the bfloat16 and binary16 functions
	f32    any    // the float32 function
	hlo    string // the HLO op for the comparison with ir/eval ("" when the op is not computed exactly)
	domain float64
}

var typedCases = []typedCase{
	{"Add", "binary", AddBF16, AddF16, Add, "add", 100},
	{"Sub", "binary", SubBF16, SubF16, Sub, "subtract", 100},
	{"Mul", "binary", MulBF16, MulF16, Mul, "multiply", 100},
	{"Div", "binary", DivBF16, DivF16, Div, "divide", 100},
	{"Maximum", "binary", MaximumBF16, MaximumF16, Maximum, "maximum", 100},
	{"Minimum", "binary", MinimumBF16, MinimumF16, Minimum, "minimum", 100},
	{"Pow", "binary", PowBF16, PowF16, Pow, "", 4},
	{"AddScalar", "scalar", AddScalarBF16, AddScalarF16, AddScalar, "add", 100},
	{"SubScalar", "scalar", SubScalarBF16, SubScalarF16, SubScalar, "subtract", 100},
	{"RSubScalar", "scalar", RSubScalarBF16, RSubScalarF16, RSubScalar, "", 100},
	{"MulScalar", "scalar", MulScalarBF16, MulScalarF16, MulScalar, "multiply", 100},
	{"DivScalar", "scalar", DivScalarBF16, DivScalarF16, DivScalar, "divide", 100},
	{"RDivScalar", "scalar", RDivScalarBF16, RDivScalarF16, RDivScalar, "", 100},
	{"MaximumScalar", "scalar", MaximumScalarBF16, MaximumScalarF16, MaximumScalar, "maximum", 100},
	{"MinimumScalar", "scalar", MinimumScalarBF16, MinimumScalarF16, MinimumScalar, "minimum", 100},
	{"PowScalar", "scalar", PowScalarBF16, PowScalarF16, PowScalar, "", 4},
	{"RPowScalar", "scalar", RPowScalarBF16, RPowScalarF16, RPowScalar, "", 4},
	{"Clamp", "scalars2", ClampBF16, ClampF16, Clamp, "", 100},
	{"MulAddScalars", "scalars2", MulAddScalarsBF16, MulAddScalarsF16, MulAddScalars, "", 100},
	{"MulAdd", "ternary", MulAddBF16, MulAddF16, MulAdd, "", 100},
	{"MulScalarAdd", "scalarAdd", MulScalarAddBF16, MulScalarAddF16, MulScalarAdd, "", 100},
	{"Equal", "cmp", EqualBF16, EqualF16, Equal, "EQ", 4},
	{"NotEqual", "cmp", NotEqualBF16, NotEqualF16, NotEqual, "NE", 4},
	{"Less", "cmp", LessBF16, LessF16, Less, "LT", 4},
	{"LessEqual", "cmp", LessEqualBF16, LessEqualF16, LessEqual, "LE", 4},
	{"Greater", "cmp", GreaterBF16, GreaterF16, Greater, "GT", 4},
	{"GreaterEqual", "cmp", GreaterEqualBF16, GreaterEqualF16, GreaterEqual, "GE", 4},
	{"EqualScalar", "cmpScalar", EqualScalarBF16, EqualScalarF16, EqualScalar, "", 4},
	{"NotEqualScalar", "cmpScalar", NotEqualScalarBF16, NotEqualScalarF16, NotEqualScalar, "", 4},
	{"LessScalar", "cmpScalar", LessScalarBF16, LessScalarF16, LessScalar, "", 4},
	{"LessEqualScalar", "cmpScalar", LessEqualScalarBF16, LessEqualScalarF16, LessEqualScalar, "", 4},
	{"GreaterScalar", "cmpScalar", GreaterScalarBF16, GreaterScalarF16, GreaterScalar, "", 4},
	{"GreaterEqualScalar", "cmpScalar", GreaterEqualScalarBF16, GreaterEqualScalarF16, GreaterEqualScalar, "", 4},
	{"Select", "select", SelectBF16, SelectF16, Select, "select", 100},
	{"Neg", "unary", NegBF16, NegF16, Neg, "negate", 100},
	{"Abs", "unary", AbsBF16, AbsF16, Abs, "abs", 100},
	{"Sqrt", "unary", SqrtBF16, SqrtF16, Sqrt, "sqrt", 100},
	{"Rsqrt", "unary", RsqrtBF16, RsqrtF16, Rsqrt, "", 100},
	{"Reciprocal", "unary", ReciprocalBF16, ReciprocalF16, Reciprocal, "", 100},
	{"Exp", "unary", ExpBF16, ExpF16, Exp, "", 10},
	{"Expm1", "unary", Expm1BF16, Expm1F16, Expm1, "", 10},
	{"Log", "unary", LogBF16, LogF16, Log, "", 100},
	{"Log1p", "unary", Log1pBF16, Log1pF16, Log1p, "", 100},
	{"Tanh", "unary", TanhBF16, TanhF16, Tanh, "", 5},
	{"Logistic", "unary", LogisticBF16, LogisticF16, Logistic, "", 10},
	{"Erf", "unary", ErfBF16, ErfF16, Erf, "", 4},
	{"Gelu", "unary", GeluBF16, GeluF16, Gelu, "", 6},
	{"GeluTanh", "unary", GeluTanhBF16, GeluTanhF16, GeluTanh, "", 6},
	{"Floor", "unary", FloorBF16, FloorF16, Floor, "floor", 100},
	{"Ceil", "unary", CeilBF16, CeilF16, Ceil, "ceil", 100},
	{"RoundToEven", "unary", RoundToEvenBF16, RoundToEvenF16, RoundToEven, "round-nearest-even", 100},
	{"Round", "unary", RoundBF16, RoundF16, Round, "round-nearest-afz", 100},
	{"Sign", "unary", SignBF16, SignF16, Sign, "sign", 100},
	{"Relu", "unary", ReluBF16, ReluF16, Relu, "", 100},
}

// narrowKind is one of the two narrow float types as the tests see it.
type narrowKind struct {
	name   string
	elem   ir.ElementType
	widen  func(uint16) float32
	narrow func(float32) uint16
}

var narrowKinds = []narrowKind{
	{"bf16", ir.BF16, func(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }, func(f float32) uint16 { return uint16(ir.BFloat16FromFloat32(f)) }},
	{"f16", ir.F16, f16ToF32, func(f float32) uint16 { return uint16(ir.Float16FromFloat32(f)) }},
}

// narrowOperand is a random narrow-float operand: mostly values of the
// case's domain, some special values and random bit patterns.
func narrowOperand(r *rand.Rand, nk narrowKind, domain float64) uint16 {
	switch p := r.IntN(40); {
	case p == 0:
		return uint16(r.Uint32())
	case p == 1:
		return nk.narrow(float32(math.NaN()))
	case p == 2:
		return nk.narrow(float32(math.Inf(1 - 2*r.IntN(2))))
	case p == 3:
		return nk.narrow(float32(math.Copysign(0, float64(1-2*r.IntN(2)))))
	case p == 4:
		return uint16(r.IntN(8)) | uint16(r.IntN(2))<<15 // subnormals
	}
	return nk.narrow(float32((2*r.Float64() - 1) * domain))
}

// runTyped runs the typed function of c for kind nk (or, with f32 set, the
// float32 function on the widened operands, rounding the result) on
// operands given as narrow bits, and returns the result as bits (narrow
// floats) or mask bytes.
func runTyped(c typedCase, nk narrowKind, f32 bool, in [][]uint16, s []float32, mask []uint8) []uint16 {
	n := len(in[0])
	fn := c.bf
	if nk.elem == ir.F16 {
		fn = c.f
	}
	if f32 {
		fn = c.f32
	}
	wide := make([][]float32, len(in))
	for i := range in {
		wide[i] = make([]float32, n)
		for j, h := range in[i] {
			wide[i][j] = nk.widen(h)
		}
	}
	out := make([]uint16, n)
	outF := make([]float32, n)
	outM := make([]uint8, n)
	switch g := fn.(type) {
	case func(dst, x []uint16):
		g(out, in[0])
	case func(dst, x, y []uint16):
		g(out, in[0], in[1])
	case func(dst, x, y, z []uint16):
		g(out, in[0], in[1], in[2])
	case func(dst, x []uint16, s float32):
		g(out, in[0], s[0])
	case func(dst, x []uint16, a, b float32):
		g(out, in[0], s[0], s[1])
	case func(dst, x []uint16, s float32, y []uint16):
		g(out, in[0], s[0], in[1])
	case func(dst []uint8, x, y []uint16):
		g(outM, in[0], in[1])
	case func(dst []uint8, x []uint16, s float32):
		g(outM, in[0], s[0])
	case func(dst []uint16, m []uint8, x, y []uint16):
		g(out, mask, in[0], in[1])
	case func(dst, x []float32):
		g(outF, wide[0])
	case func(dst, x, y []float32):
		g(outF, wide[0], wide[1])
	case func(dst, x, y, z []float32):
		g(outF, wide[0], wide[1], wide[2])
	case func(dst, x []float32, s float32):
		g(outF, wide[0], s[0])
	case func(dst, x []float32, a, b float32):
		g(outF, wide[0], s[0], s[1])
	case func(dst, x []float32, s float32, y []float32):
		g(outF, wide[0], s[0], wide[1])
	case func(dst []uint8, x, y []float32):
		g(outM, wide[0], wide[1])
	case func(dst []uint8, x []float32, s float32):
		g(outM, wide[0], s[0])
	case func(dst []float32, m []uint8, x, y []float32):
		g(outF, mask, wide[0], wide[1])
	default:
		panic(fmt.Sprintf("%s: unexpected function type %T", c.name, fn))
	}
	if strings.HasPrefix(c.shape, "cmp") {
		for i, m := range outM {
			out[i] = uint16(m)
		}
	} else if f32 {
		for i, v := range outF {
			out[i] = nk.narrow(v)
		}
	}
	return out
}

func typedOperands(r *rand.Rand, c typedCase, nk narrowKind, n, off int) ([][]uint16, []float32, []uint8) {
	slices := map[string]int{"unary": 1, "binary": 2, "scalar": 1, "scalars2": 1, "ternary": 3, "scalarAdd": 2, "cmp": 2, "cmpScalar": 1, "select": 2}[c.shape]
	in := make([][]uint16, slices)
	for i := range in {
		buf := make([]uint16, n+off)
		for j := range buf {
			buf[j] = narrowOperand(r, nk, c.domain)
		}
		in[i] = buf[off:]
	}
	s := []float32{nk.widen(narrowOperand(r, nk, c.domain)), nk.widen(narrowOperand(r, nk, c.domain))}
	if c.name == "Clamp" && s[0] > s[1] {
		s[0], s[1] = s[1], s[0]
	}
	mask := make([]uint8, n)
	for j := range mask {
		mask[j] = uint8(r.IntN(3))
	}
	return in, s, mask
}

// sameNarrow compares results: narrow bits equal, any NaN matching any NaN.
func sameNarrow(nk narrowKind, cmp bool, a, b uint16) bool {
	if cmp || a == b {
		return a == b
	}
	fa, fb := nk.widen(a), nk.widen(b)
	return fa != fa && fb != fb
}

// TestTypedEltwiseMatchesFloat32 checks every typed function, at every
// level, every tail length and unaligned, against the float32 function on
// the widened operands with the result rounded by ir's conversion, and
// against the twins (the generic level).
func TestTypedEltwiseMatchesFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	lengths := testLengths()
	if testing.Short() {
		lengths = []int{0, 1, 7, 16, 17, 33, 97}
	}
	for _, c := range typedCases {
		for _, nk := range narrowKinds {
			forEachLevel(t, func(level string) {
				for _, n := range lengths {
					in, s, mask := typedOperands(r, c, nk, n, n%3)
					got := runTyped(c, nk, false, in, s, mask)
					want := runTyped(c, nk, true, in, s, mask)
					for i := range got {
						if !sameNarrow(nk, strings.HasPrefix(c.shape, "cmp"), got[i], want[i]) {
							t.Fatalf("%s %s%s n=%d element %d: operands %v (scalars %v): got %#04x, want %#04x", level, c.name, strings.ToUpper(nk.name), n, i, column(in, i), s, got[i], want[i])
						}
					}
				}
			})
		}
	}
}

func column(in [][]uint16, i int) []string {
	var s []string
	for _, x := range in {
		s = append(s, fmt.Sprintf("%#04x", x[i]))
	}
	return s
}

// TestTypedEltwiseAgainstEval compares the typed functions whose result is
// exact with ir/eval's evaluation of the HLO op on bfloat16 and binary16
// arrays, bit for bit (NaN payloads aside).
func TestTypedEltwiseAgainstEval(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	const n = 4099
	for _, c := range typedCases {
		if c.hlo == "" {
			continue
		}
		for _, nk := range narrowKinds {
			in, s, mask := typedOperands(r, c, nk, n, 0)
			want := evalTyped(t, c, nk, in, s, mask)
			forEachLevel(t, func(level string) {
				got := runTyped(c, nk, false, in, s, mask)
				for i := range got {
					if !sameNarrow(nk, strings.HasPrefix(c.shape, "cmp"), got[i], want[i]) {
						t.Fatalf("%s %s%s element %d: operands %v (scalar %v): got %#04x, ir/eval %#04x", level, c.name, strings.ToUpper(nk.name), i, column(in, i), s[0], got[i], want[i])
					}
				}
			})
		}
	}
}

// evalTyped evaluates the case's HLO op with ir/eval.
func evalTyped(t *testing.T, c typedCase, nk narrowKind, in [][]uint16, s []float32, mask []uint8) []uint16 {
	t.Helper()
	n := len(in[0])
	ty := fmt.Sprintf("%s[%d]", nk.name, n)
	var body string
	args := []*ir.Literal{}
	lit := func(e ir.ElementType, b []byte) *ir.Literal {
		l, err := ir.NewLiteralView(ir.MakeShape(e, n), b)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	bytesOf := func(h []uint16) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&h[0])), 2*len(h)) }
	scalar := fmt.Sprintf("  c = %s[] constant(%v)\n  s = %s broadcast(c), dimensions={}\n", nk.name, s[0], ty)
	switch c.shape {
	case "unary":
		body = fmt.Sprintf("  p0 = %s parameter(0)\n  ROOT r = %s %s(p0)\n", ty, ty, c.hlo)
		args = append(args, lit(nk.elem, bytesOf(in[0])))
	case "binary":
		body = fmt.Sprintf("  p0 = %s parameter(0)\n  p1 = %s parameter(1)\n  ROOT r = %s %s(p0, p1)\n", ty, ty, ty, c.hlo)
		args = append(args, lit(nk.elem, bytesOf(in[0])), lit(nk.elem, bytesOf(in[1])))
	case "scalar":
		body = fmt.Sprintf("  p0 = %s parameter(0)\n%s  ROOT r = %s %s(p0, s)\n", ty, scalar, ty, c.hlo)
		args = append(args, lit(nk.elem, bytesOf(in[0])))
	case "cmp":
		body = fmt.Sprintf("  p0 = %s parameter(0)\n  p1 = %s parameter(1)\n  ROOT r = pred[%d] compare(p0, p1), direction=%s\n", ty, ty, n, c.hlo)
		args = append(args, lit(nk.elem, bytesOf(in[0])), lit(nk.elem, bytesOf(in[1])))
	case "select":
		m := make([]byte, n)
		for i, v := range mask {
			m[i] = b2u8(v != 0)
		}
		body = fmt.Sprintf("  m = pred[%d] parameter(0)\n  p0 = %s parameter(1)\n  p1 = %s parameter(2)\n  ROOT r = %s select(m, p0, p1)\n", n, ty, ty, ty)
		args = append(args, lit(ir.PRED, m), lit(nk.elem, bytesOf(in[0])), lit(nk.elem, bytesOf(in[1])))
	default:
		t.Fatalf("%s: no HLO form for shape %s", c.name, c.shape)
	}
	m, err := ir.ParseModule("HloModule typed\n\nENTRY e {\n" + body + "}\n")
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	res, err := eval.Run(m, args...)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	out := make([]uint16, n)
	b := res[0].Bytes()
	for i := range out {
		if c.shape == "cmp" {
			out[i] = uint16(b[i])
		} else {
			out[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
	}
	return out
}

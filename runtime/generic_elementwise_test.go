package runtime

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

var unaryOps = []string{"abs", "cbrt", "ceil", "count-leading-zeros", "cosine", "erf", "exponential",
	"exponential-minus-one", "floor", "imag", "is-finite", "log", "log-plus-one", "logistic", "negate",
	"not", "popcnt", "real", "round-nearest-afz", "round-nearest-even", "rsqrt", "sign", "sine", "sqrt",
	"tan", "tanh"}

var binaryOps = []string{"add", "subtract", "multiply", "divide", "remainder", "power", "maximum",
	"minimum", "atan2", "and", "or", "xor", "shift-left", "shift-right-arithmetic",
	"shift-right-logical", "complex"}

// resultType is the element type of elementwise op on operands of type t.
func resultType(op string, t ir.ElementType) ir.ElementType {
	switch {
	case op == "is-finite" || op == "compare":
		return ir.PRED
	case t.IsComplex() && (op == "real" || op == "imag" || op == "abs"):
		return t.ComplexComponent()
	case op == "complex":
		return ir.ComplexOf(t)
	}
	return t
}

// elementTypes are every element type (float32 ops the loop covers run
// there; the rest run on the generic steps).
var elementTypes = ir.ElementTypes

func TestGenericElementwiseUnaryAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, typ := range elementTypes {
		for _, op := range unaryOps {
			dims := testShapes[r.IntN(len(testShapes))]
			in := ir.MakeShape(typ, dims...)
			hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  ROOT r = %s %s(p)\n}\n",
				in.StringWithoutLayout(), shapeText(resultType(op, typ), dims...), op)
			if !validModule(hlo) {
				continue
			}
			if checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, in)}) {
				checked++
			}
		}
	}
	t.Logf("%d unary op/type pairs checked", checked)
}

func TestGenericElementwiseBinaryAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for _, typ := range elementTypes {
		for _, op := range binaryOps {
			for _, dims := range [][]int{{}, {0}, {5}, {2, 3, 4}, {ops.Tile*2 + 1}} {
				in := ir.MakeShape(typ, dims...)
				hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  q = %s parameter(1)\n  ROOT r = %s %s(p, q)\n}\n",
					in.StringWithoutLayout(), in.StringWithoutLayout(), shapeText(resultType(op, typ), dims...), op)
				if !validModule(hlo) {
					continue
				}
				if checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, in, in)}) {
					checked++
				}
			}
		}
	}
	t.Logf("%d binary op/type/shape cases checked", checked)
}

func TestGenericCompareAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, typ := range elementTypes {
		for _, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
			for _, ct := range []string{"", ", type=TOTALORDER", ", type=FLOAT", ", type=SIGNED", ", type=UNSIGNED"} {
				in := ir.MakeShape(typ, 9)
				hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  q = %s parameter(1)\n  ROOT r = pred[9] compare(p, q), direction=%s%s\n}\n",
					in.StringWithoutLayout(), in.StringWithoutLayout(), dir, ct)
				if !validModule(hlo) {
					continue
				}
				a, b := randomLiteral(r, in), randomLiteral(r, in)
				// Equal elements, so EQ/LE/GE see both outcomes.
				es := typ.ByteSize()
				copy(b.Bytes()[:3*es], a.Bytes()[:3*es])
				checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{a, b}})
			}
		}
	}
}

func TestGenericSelectClampAgreeWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, typ := range elementTypes {
		for _, dims := range [][]int{{}, {0}, {6}, {2, 3}} {
			x := ir.MakeShape(typ, dims...)
			p := ir.MakeShape(ir.PRED, dims...)
			s := x.StringWithoutLayout()
			hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  x = %s parameter(1)\n  y = %s parameter(2)\n  ROOT r = %s select(p, x, y)\n}\n",
				p.StringWithoutLayout(), s, s, s)
			checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, p, x, x)})
			sp := ir.Scalar(ir.PRED)
			hlo = fmt.Sprintf("HloModule m\nENTRY e {\n  p = pred[] parameter(0)\n  x = %s parameter(1)\n  y = %s parameter(2)\n  ROOT r = %s select(p, x, y)\n}\n", s, s, s)
			if validModule(hlo) {
				checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, sp, x, x)})
			}
			hlo = fmt.Sprintf("HloModule m\nENTRY e {\n  lo = %s parameter(0)\n  x = %s parameter(1)\n  hi = %s parameter(2)\n  ROOT r = %s clamp(lo, x, hi)\n}\n", s, s, s, s)
			if validModule(hlo) {
				checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, x, x, x)})
			}
			sc := ir.Scalar(typ).StringWithoutLayout()
			hlo = fmt.Sprintf("HloModule m\nENTRY e {\n  lo = %s parameter(0)\n  x = %s parameter(1)\n  hi = %s parameter(2)\n  ROOT r = %s clamp(lo, x, hi)\n}\n", sc, s, sc, s)
			if validModule(hlo) {
				checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, ir.Scalar(typ), x, ir.Scalar(typ))})
			}
		}
	}
}

func TestGenericConvertAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, from := range elementTypes {
		for _, to := range elementTypes {
			in := ir.MakeShape(from, 37)
			hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  ROOT r = %s convert(p)\n}\n",
				in.StringWithoutLayout(), shapeText(to, 37))
			if !validModule(hlo) {
				continue
			}
			checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, in)})
		}
	}
}

func TestGenericBitcastConvertAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, from := range elementTypes {
		for _, to := range elementTypes {
			fw, tw := from.BitWidth(), to.BitWidth()
			inDims, outDims := []int{3, 5}, []int{3, 5}
			switch {
			case fw > tw && fw%tw == 0:
				outDims = append(outDims, fw/tw)
			case fw < tw && tw%fw == 0:
				inDims = append(inDims, tw/fw)
			case fw != tw:
				continue
			}
			in := ir.MakeShape(from, inDims...)
			hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  ROOT r = %s bitcast-convert(p)\n}\n",
				in.StringWithoutLayout(), shapeText(to, outDims...))
			if !validModule(hlo) {
				continue
			}
			checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, in)})
		}
	}
}

func TestGenericReducePrecisionAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, typ := range []ir.ElementType{ir.F64, ir.F32, ir.F16, ir.BF16, ir.F8E5M2} {
		for _, eb := range []int{1, 2, 5, 8} {
			for _, mb := range []int{0, 1, 7, 10} {
				in := ir.MakeShape(typ, 41)
				hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  ROOT r = %s reduce-precision(p), exponent_bits=%d, mantissa_bits=%d\n}\n",
					in.StringWithoutLayout(), in.StringWithoutLayout(), eb, mb)
				if validModule(hlo) {
					checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, in)})
				}
			}
		}
	}
}

// validModule reports whether hlo parses and verifies (forms XLA's shape
// inference rejects are skipped by the tests that enumerate forms).
func validModule(hlo string) bool {
	m, err := ir.ParseModule(hlo)
	return err == nil && m.Verify() == nil
}

func TestGenericMapAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, c := range []struct {
		body string
		typ  ir.ElementType
	}{
		{"c = T[] constant(3)\n  m = T[] multiply(a, c)\n  ROOT r = T[] add(m, b)", ir.S32},
		{"c = T[] constant(0.5)\n  m = T[] multiply(a, c)\n  e = T[] exponential(m)\n  ROOT r = T[] maximum(e, b)", ir.F16},
		{"c = T[] constant(0.5)\n  m = T[] multiply(a, c)\n  e = T[] exponential(m)\n  ROOT r = T[] maximum(e, b)", ir.F32},
		{"g = pred[] compare(a, b), direction=LT\n  ROOT r = T[] select(g, a, b)", ir.F64},
		{"ROOT r = T[] constant(7)", ir.U8},
	} {
		ts := strings.TrimSuffix(ir.Scalar(c.typ).StringWithoutLayout(), "[]")
		for _, dims := range [][]int{{}, {0}, {3, 5}, {ops.Tile + 9}} {
			s := shapeText(c.typ, dims...)
			hlo := fmt.Sprintf("HloModule m\nf {\n  a = T[] parameter(0)\n  b = T[] parameter(1)\n  %s\n}\nENTRY e {\n  p = %s parameter(0)\n  q = %s parameter(1)\n  ROOT r = %s map(p, q), dimensions=%s, to_apply=f\n}\n",
				c.body, s, s, s, dimsText(iotaDims(len(dims))))
			hlo = strings.ReplaceAll(hlo, "T[]", ts+"[]")
			x := ir.MakeShape(c.typ, dims...)
			checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, x, x)})
		}
	}
}

func iotaDims(n int) []int {
	d := make([]int, n)
	for i := range d {
		d[i] = i
	}
	return d
}

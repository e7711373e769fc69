package eval

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// Helpers shared by the tests of the numeric ops.

// runErr parses and evaluates a module and returns the error.
func runErr(t *testing.T, text string, args ...*ir.Literal) error {
	t.Helper()
	_, err := Run(parseHLO(t, text), args...)
	return err
}

// wantErr fails unless err is non-nil and its message contains every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected an error mentioning %q, got none", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not mention %q", err, p)
		}
	}
}

// wideOf reads any numeric literal as complex128 values (reals with zero
// imaginary parts).
func wideOf(l *ir.Literal) []complex128 {
	switch t := l.Shape().Elem; {
	case t.IsComplex():
		return complexValues(l)
	case t.IsFloat():
		v := floatValues(l)
		out := make([]complex128, len(v))
		for i, x := range v {
			out[i] = complex(x, 0)
		}
		return out
	default:
		v := intValues(l)
		out := make([]complex128, len(v))
		for i, x := range v {
			if t.IsUnsigned() {
				out[i] = complex(float64(uint64(x)), 0)
			} else {
				out[i] = complex(float64(x), 0)
			}
		}
		return out
	}
}

// expectClose checks a literal's shape and values: each value within
// tol·max(1, |want|) of want (tol 0: exact, NaN equal to NaN).
func expectClose(t *testing.T, got *ir.Literal, shape string, want []complex128, tol float64) {
	t.Helper()
	if s := got.Shape().StringWithoutLayout(); s != shape {
		t.Fatalf("result shape %s, want %s", s, shape)
	}
	g := wideOf(got)
	if len(g) != len(want) {
		t.Fatalf("%d values, want %d", len(g), len(want))
	}
	for i := range g {
		if !closeEnough(g[i], want[i], tol) {
			t.Fatalf("element %d = %v, want %v (tolerance %g)\ngot  %v\nwant %v", i, g[i], want[i], tol, g, want)
		}
	}
}

func closeEnough(g, w complex128, tol float64) bool {
	if cmplx.IsNaN(w) || cmplx.IsNaN(g) {
		return cmplx.IsNaN(w) && cmplx.IsNaN(g)
	}
	if tol == 0 {
		return g == w
	}
	if cmplx.IsInf(w) || cmplx.IsInf(g) {
		return g == w
	}
	return cmplx.Abs(g-w) <= tol*math.Max(1, cmplx.Abs(w))
}

// reals converts float64 values to the complex form expectClose takes.
func reals(v ...float64) []complex128 {
	out := make([]complex128, len(v))
	for i, x := range v {
		out[i] = complex(x, 0)
	}
	return out
}

// randLiteral returns a literal of type ty and dims with deterministic
// pseudo-random values: integers in [-9, 9] (unsigned [0, 9]), floats in
// [-1, 1) rounded to the type, complex parts likewise.
func randLiteral(r *rand.Rand, ty ir.ElementType, dims ...int) *ir.Literal {
	l := ir.MustNewLiteral(ir.MakeShape(ty, dims...))
	n := l.ElementCount()
	switch {
	case ty.IsFloat():
		v := make([]float64, n)
		for i := range v {
			v[i] = 2*r.Float64() - 1
		}
		setFloats(l, v)
	case ty.IsComplex():
		v := make([]complex128, n)
		for i := range v {
			v[i] = complex(2*r.Float64()-1, 2*r.Float64()-1)
		}
		setComplex(l, v)
	case ty == ir.PRED:
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(r.IntN(2))
		}
		setInts(l, v)
	default:
		v := make([]int64, n)
		for i := range v {
			if ty.IsUnsigned() {
				v[i] = int64(r.IntN(10))
			} else {
				v[i] = int64(r.IntN(19) - 9)
			}
		}
		setInts(l, v)
	}
	return l
}

// shapeText prints a shape the way HLO text writes it.
func shapeText(ty ir.ElementType, dims ...int) string {
	return ir.MakeShape(ty, dims...).StringWithoutLayout()
}

// scalarComputation returns the text of a computation named name applying
// the binary op to two scalars of type ty.
func scalarComputation(name, op string, ty ir.ElementType) string {
	return fmt.Sprintf(`%s {
  a = %s[] parameter(0)
  b = %s[] parameter(1)
  ROOT r = %s[] %s(a, b)
}
`, name, ty, ty, ty, op)
}

// numericGolden is one case of testdata/eval/numeric_golden.json, written by
// testdata/gen/gen_numeric.py with numpy.
type numericGolden struct {
	Name string          `json:"name"`
	HLO  string          `json:"hlo"`
	Args []goldenLiteral `json:"args"`
	Want []goldenLiteral `json:"want"`
	Tol  float64         `json:"tol"`
}

type goldenLiteral struct {
	Type string `json:"type"`
	Dims []int  `json:"dims"`
	Hex  string `json:"hex"`
}

func (g goldenLiteral) literal() (*ir.Literal, error) {
	t, ok := ir.ParseElementType(g.Type)
	if !ok {
		return nil, fmt.Errorf("unknown element type %q", g.Type)
	}
	b, err := hex.DecodeString(g.Hex)
	if err != nil {
		return nil, err
	}
	return ir.LiteralFromBytes(ir.MakeShape(t, g.Dims...), b)
}

func TestNumericGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.FromSlash("../../testdata/eval/numeric_golden.json"))
	if err != nil {
		t.Fatalf("%v (regenerate with /usr/bin/python3 testdata/gen/gen_numeric.py)", err)
	}
	var cases []numericGolden
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			args := make([]*ir.Literal, len(c.Args))
			for i, a := range c.Args {
				if args[i], err = a.literal(); err != nil {
					t.Fatal(err)
				}
			}
			out := runHLO(t, c.HLO, args...)
			if len(out) != len(c.Want) {
				t.Fatalf("%d results, want %d", len(out), len(c.Want))
			}
			for i, w := range c.Want {
				wl, err := w.literal()
				if err != nil {
					t.Fatal(err)
				}
				expectClose(t, out[i], wl.Shape().StringWithoutLayout(), wideOf(wl), c.Tol)
			}
		})
	}
}

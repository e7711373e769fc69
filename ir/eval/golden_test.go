package eval

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// The golden cases are computed by testdata/gen/eval_golden.py with numpy
// (and Python integers where C leaves the result undefined); see that
// script for the file format.
const goldenPath = "../../testdata/eval/golden.txt"

type goldenCase struct {
	name   string
	module string
	args   []*ir.Literal
	want   *ir.Literal
	cmp    string
	line   int
}

func readGolden(t *testing.T) []goldenCase {
	t.Helper()
	f, err := os.Open(filepath.FromSlash(goldenPath))
	if err != nil {
		t.Fatalf("golden cases: %v (regenerate with /usr/bin/python3 testdata/gen/eval_golden.py)", err)
	}
	defer f.Close()
	var cases []goldenCase
	var cur *goldenCase
	inModule := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#") && cur == nil:
		case strings.HasPrefix(line, "=== "):
			cases = append(cases, goldenCase{name: line[4:], line: lineNo})
			cur = &cases[len(cases)-1]
			inModule = true
		case inModule && line == "---":
			inModule = false
		case inModule:
			cur.module += line + "\n"
		case strings.HasPrefix(line, "arg "), strings.HasPrefix(line, "want "):
			l, err := decodeGoldenLiteral(strings.Fields(line)[1:])
			if err != nil {
				t.Fatalf("%s:%d: %v", goldenPath, lineNo, err)
			}
			if strings.HasPrefix(line, "arg ") {
				cur.args = append(cur.args, l)
			} else {
				cur.want = l
			}
		case strings.HasPrefix(line, "cmp "):
			cur.cmp = line[4:]
		default:
			t.Fatalf("%s:%d: unexpected line %q", goldenPath, lineNo, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// decodeGoldenLiteral decodes "TYPE DIMS HEX" (DIMS may be missing for scalars).
func decodeGoldenLiteral(f []string) (*ir.Literal, error) {
	if len(f) == 2 { // scalar: empty DIMS field collapsed by Fields
		f = []string{f[0], "", f[1]}
	}
	if len(f) != 3 {
		return nil, fmt.Errorf("want TYPE DIMS HEX, found %d fields", len(f))
	}
	et, ok := ir.ParseElementType(f[0])
	if !ok {
		return nil, fmt.Errorf("unknown element type %q", f[0])
	}
	var d []int
	if f[1] != "" {
		for _, s := range strings.Split(f[1], ",") {
			n, err := strconv.Atoi(s)
			if err != nil {
				return nil, err
			}
			d = append(d, n)
		}
	}
	data, err := hex.DecodeString(f[2])
	if err != nil {
		return nil, err
	}
	return ir.LiteralFromBytes(ir.MakeShape(et, d...), data)
}

func TestGoldenNumpyCases(t *testing.T) {
	cases := readGolden(t)
	if len(cases) < 100 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := ir.ParseModule(c.module)
			if err != nil {
				t.Fatalf("line %d: %v\n%s", c.line, err, c.module)
			}
			out, err := Run(m, c.args...)
			if err != nil {
				t.Fatalf("line %d: %v", c.line, err)
			}
			if len(out) != 1 {
				t.Fatalf("%d outputs, want 1", len(out))
			}
			if err := goldenCompare(out[0], c.want, c.cmp); err != nil {
				t.Errorf("line %d: %v", c.line, err)
			}
		})
	}
}

// goldenCompare checks got against want under the case's comparison rule.
func goldenCompare(got, want *ir.Literal, cmp string) error {
	if !got.Shape().EqualIgnoringLayout(want.Shape()) {
		return fmt.Errorf("shape %v, want %v", got.Shape(), want.Shape())
	}
	et := want.Shape().Elem
	ulps := -1 // exact bytes
	switch {
	case cmp == "exact":
	case cmp == "nan":
		ulps = 0
	case strings.HasPrefix(cmp, "ulp:"):
		n, err := strconv.Atoi(cmp[4:])
		if err != nil {
			return err
		}
		ulps = n
	default:
		return fmt.Errorf("unknown comparison %q", cmp)
	}
	if ulps < 0 || !et.IsFloatOrComplex() {
		gb, wb := got.Bytes(), want.Bytes()
		es := et.ByteSize()
		for i := 0; i < len(wb); i += es {
			if string(gb[i:i+es]) != string(wb[i:i+es]) {
				return fmt.Errorf("element %d: got bytes %x, want %x", i/es, gb[i:i+es], wb[i:i+es])
			}
		}
		return nil
	}
	// Compare real components in units in the last place of the type.
	part := et.ComplexComponent()
	gl, wl := componentLiteral(got, part), componentLiteral(want, part)
	gbits, w := floatBits(gl)
	wbits, _ := floatBits(wl)
	for i := range wbits {
		g, x := gbits[i], wbits[i]
		gNaN, wNaN := isNaNBits(g, part), isNaNBits(x, part)
		if gNaN || wNaN {
			if gNaN != wNaN {
				return fmt.Errorf("element %d: got %v, want %v", i, gl.Float64At(i), wl.Float64At(i))
			}
			continue
		}
		d := totalOrderKey(g, w) - totalOrderKey(x, w)
		if d < 0 {
			d = -d
		}
		if d > int64(ulps) {
			return fmt.Errorf("element %d: got %v, want %v (%d ulps apart, %d allowed)", i, gl.Float64At(i), wl.Float64At(i), d, ulps)
		}
	}
	return nil
}

// componentLiteral views a complex literal as a real one of twice the
// elements (real, imaginary, …); a real literal is returned unchanged.
func componentLiteral(l *ir.Literal, part ir.ElementType) *ir.Literal {
	if !l.Shape().Elem.IsComplex() {
		return l
	}
	c, err := ir.LiteralFromBytes(ir.MakeShape(part, 2*l.ElementCount()), l.Bytes())
	if err != nil {
		panic(err)
	}
	return c
}

func isNaNBits(b uint64, t ir.ElementType) bool {
	switch t {
	case ir.F64:
		return math.IsNaN(math.Float64frombits(b))
	case ir.F32:
		f := math.Float32frombits(uint32(b))
		return f != f
	case ir.F16:
		return ir.Float16(b).IsNaN()
	case ir.BF16:
		return ir.BFloat16(b).IsNaN()
	case ir.F8E5M2:
		return ir.Float8E5M2(b).IsNaN()
	case ir.F8E4M3FN:
		return ir.Float8E4M3FN(b).IsNaN()
	}
	return false
}

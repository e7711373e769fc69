package runtime

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// comparators are sort comparators over (x, payload) pairs of parameters
// x0 x1 (type T) and y0 y1 (s32), by name.
var comparators = []string{
	"ROOT r = pred[] compare(x0, x1), direction=LT",
	"ROOT r = pred[] compare(x0, x1), direction=GT",
	"ROOT r = pred[] compare(x1, x0), direction=LT",
	"ROOT r = pred[] compare(x0, x1), direction=LT, type=TOTALORDER",
	"ROOT r = pred[] compare(x0, x1), direction=GT, type=TOTALORDER",
	"ROOT r = pred[] compare(y0, y1), direction=GT",
	"ROOT r = pred[] compare(x0, x1), direction=LE",
	// Lexicographic: x descending, then payload ascending.
	"g = pred[] compare(x0, x1), direction=GT\n  e = pred[] compare(x0, x1), direction=EQ\n  l = pred[] compare(y0, y1), direction=LT\n  a = pred[] and(e, l)\n  ROOT r = pred[] or(g, a)",
}

func TestGenericSortAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	for _, typ := range []ir.ElementType{ir.F32, ir.F64, ir.F16, ir.S32, ir.U8, ir.S8, ir.PRED, ir.U64} {
		ts := typeName(typ)
		for _, cmp := range comparators {
			for _, c := range []struct {
				dims []int
				dim  int
			}{{[]int{37}, 0}, {[]int{4, 9}, 1}, {[]int{9, 4}, 0}, {[]int{3, 5, 2}, 1}, {[]int{0, 3}, 1}, {[]int{3, 1}, 1}, {[]int{300}, 0}} {
				x := ir.MakeShape(typ, c.dims...)
				y := ir.MakeShape(ir.S32, c.dims...)
				body := strings.ReplaceAll(cmp, "T[]", ts+"[]")
				// Two-operand sort (keys and a payload) and one-operand sort.
				hlo := fmt.Sprintf("HloModule m\ncmp {\n  x0 = %s[] parameter(0)\n  x1 = %s[] parameter(1)\n  y0 = s32[] parameter(2)\n  y1 = s32[] parameter(3)\n  %s\n}\nENTRY e {\n  p = %s parameter(0)\n  q = %s parameter(1)\n  ROOT r = (%s, %s) sort(p, q), dimensions={%d}, to_apply=cmp\n}\n",
					ts, ts, body, x.StringWithoutLayout(), y.StringWithoutLayout(), x.StringWithoutLayout(), y.StringWithoutLayout(), c.dim)
				if !validModule(hlo) {
					continue
				}
				xl := randomLiteral(r, x)
				if n := xl.ElementCount(); n > 8 { // repeated keys, for stability
					es := typ.ByteSize()
					copy(xl.Bytes()[es*(n/2):es*(n/2+4)], xl.Bytes()[:es*4])
				}
				yl := ir.MustNewLiteral(y)
				for i := 0; i < yl.ElementCount(); i++ {
					yl.SetInt64At(i, int64(i))
				}
				checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{xl, yl}})
				if strings.Contains(cmp, "y0") {
					continue
				}
				hlo = fmt.Sprintf("HloModule m\ncmp {\n  x0 = %s[] parameter(0)\n  x1 = %s[] parameter(1)\n  %s\n}\nENTRY e {\n  p = %s parameter(0)\n  ROOT r = %s sort(p), dimensions={%d}, to_apply=cmp\n}\n",
					ts, ts, body, x.StringWithoutLayout(), x.StringWithoutLayout(), c.dim)
				if validModule(hlo) {
					checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{xl}})
				}
			}
		}
	}
}

func TestGenericTopKAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	for _, typ := range []ir.ElementType{ir.F32, ir.BF16, ir.S32, ir.U8, ir.F64} {
		for _, largest := range []bool{true, false} {
			for _, c := range []struct {
				dims []int
				k    int
			}{{[]int{4, 8}, 2}, {[]int{17}, 17}, {[]int{3, 5}, 0}, {[]int{0, 5}, 3}, {[]int{2, 3, 40}, 7}} {
				x := ir.MakeShape(typ, c.dims...)
				out := append(append([]int{}, c.dims[:len(c.dims)-1]...), c.k)
				hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  ROOT r = (%s, %s) topk(p), k=%d, largest=%v\n}\n",
					x.StringWithoutLayout(), shapeText(typ, out...), shapeText(ir.S32, out...), c.k, largest)
				if !validModule(hlo) {
					t.Fatalf("invalid module\n%s", hlo)
				}
				checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, x)})
			}
		}
	}
}

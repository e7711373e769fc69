package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// Sorts with the comparators JAX writes, spelled several ways, against
// ir/eval bit for bit: the sorted keys, the indices of an argsort and the
// gathered payloads, at row lengths around the radix sort's digit widths;
// comparators that are not a standard order (or look like one but are not)
// must stay on the generic sort and still agree.

// comparators are scalar computations of T keys (parameters 0 and 1; an
// argsort's index parameters 2 and 3 unused), by name, with the path the
// sort must take ("" generic).
var sortComparators = []struct {
	name, body, impl string
}{
	{"jax-canonical-lt", `  a = T[] parameter(0)
  b = T[] parameter(1)
  ne.a = pred[] compare(a, a), direction=NE
  nan = T[] constant(nan)
  zero = T[] constant(0)
  eq.a = pred[] compare(a, zero), direction=EQ
  s.a = T[] select(eq.a, zero, a)
  c.a = T[] select(ne.a, nan, s.a)
  ne.b = pred[] compare(b, b), direction=NE
  eq.b = pred[] compare(b, zero), direction=EQ
  s.b = T[] select(eq.b, zero, b)
  c.b = T[] select(ne.b, nan, s.b)
  ROOT lt = pred[] compare(c.a, c.b), direction=LT, type=TOTALORDER`, "sort-radix"},
	{"jax-canonical-gt-swapped", `  a = T[] parameter(0)
  b = T[] parameter(1)
  nan = T[] constant(nan)
  zero = T[] constant(-0)
  ne.b = pred[] compare(b, b), direction=NE
  eq.b = pred[] compare(b, zero), direction=EQ
  s.b = T[] select(eq.b, zero, b)
  c.b = T[] select(ne.b, nan, s.b)
  ne.a = pred[] compare(a, a), direction=NE
  eq.a = pred[] compare(a, zero), direction=EQ
  s.a = T[] select(eq.a, zero, a)
  c.a = T[] select(ne.a, nan, s.a)
  ROOT gt = pred[] compare(c.b, c.a), direction=GT, type=TOTALORDER`, "sort-radix"},
	{"total-gt", `  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT, type=TOTALORDER`, "sort-radix"},
	{"total-lt", `  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER`, "sort-radix"},
	// NaNs mapped below -Inf: an order no radix sort implements.
	{"nan-first", `  a = T[] parameter(0)
  b = T[] parameter(1)
  ninf = T[] constant(-inf)
  ne.a = pred[] compare(a, a), direction=NE
  c.a = T[] select(ne.a, ninf, a)
  ne.b = pred[] compare(b, b), direction=NE
  c.b = T[] select(ne.b, ninf, b)
  ROOT lt = pred[] compare(c.a, c.b), direction=LT, type=TOTALORDER`, ""},
	// The canonicalisation of one side only.
	{"one-sided", `  a = T[] parameter(0)
  b = T[] parameter(1)
  nan = T[] constant(nan)
  ne.a = pred[] compare(a, a), direction=NE
  c.a = T[] select(ne.a, nan, a)
  ROOT lt = pred[] compare(c.a, b), direction=LT, type=TOTALORDER`, ""},
	// A constant that changes the order of one value.
	{"special-value", `  a = T[] parameter(0)
  b = T[] parameter(1)
  one = T[] constant(1)
  big = T[] constant(100)
  eq.a = pred[] compare(a, one), direction=EQ
  c.a = T[] select(eq.a, big, a)
  eq.b = pred[] compare(b, one), direction=EQ
  c.b = T[] select(eq.b, big, b)
  ROOT lt = pred[] compare(c.a, c.b), direction=LT, type=TOTALORDER`, ""},
	// IEEE less-than: not a strict weak order with NaNs.
	{"float-lt", `  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT`, ""},
}

var sortIntComparators = []struct {
	name, body, impl string
}{
	{"int-lt", `  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT`, "sort-radix"},
	{"int-gt", `  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT`, "sort-radix"},
	{"int-le", `  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT le = pred[] compare(a, b), direction=LE`, ""},
}

// TestSortFastComparators sorts rows of keys alone, as an argsort (keys
// and an iota) and with a payload before the keys, with each comparator.
func TestSortFastComparators(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 24))
	run := func(t *testing.T, ty ir.ElementType, name, body, impl string) {
		// The evaluator's sort runs the comparator per comparison: the
		// cases that stay generic run shorter rows.
		lengths := []int{1, 2, 3, 17, 255, 256, 257, 1025}
		if testing.Short() {
			lengths = []int{2, 17, 257}
		}
		if impl == "" {
			lengths = []int{2, 17, 257}
		}
		for _, n := range lengths {
			rows := 2
			cmp := strings.ReplaceAll(body, "T[", ty.String()+"[")
			x := fmt.Sprintf("%s[%d,%d]", ty, rows, n)
			one := fmt.Sprintf("HloModule t\n\ncmp {\n%s\n}\n\nENTRY e {\n  x = %s parameter(0)\n  ROOT s = %s sort(x), dimensions={1}, to_apply=cmp\n}\n", cmp, x, x)
			// The argsort: the comparator's index parameters are unused.
			arg := strings.Replace(cmp, "  b = ", "  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  b = ", 1)
			idx := fmt.Sprintf("s32[%d,%d]", rows, n)
			two := fmt.Sprintf("HloModule t\n\ncmp {\n%s\n}\n\nENTRY e {\n  x = %s parameter(0)\n  i = %s iota(), iota_dimension=1\n  ROOT s = (%s, %s) sort(x, i), dimensions={1}, is_stable=true, to_apply=cmp\n}\n",
				arg, x, idx, x, idx)
			// A payload first: the key is operand 1.
			pay := strings.NewReplacer("parameter(0)", "parameter(2)", "parameter(1)", "parameter(3)").Replace(cmp)
			pay = "  p = f32[] parameter(0)\n  q = f32[] parameter(1)\n" + pay
			pf := fmt.Sprintf("f32[%d,%d]", rows, n)
			three := fmt.Sprintf("HloModule t\n\ncmp {\n%s\n}\n\nENTRY e {\n  p = %s parameter(0)\n  x = %s parameter(1)\n  ROOT s = (%s, %s) sort(p, x), dimensions={1}, is_stable=true, to_apply=cmp\n}\n",
				pay, pf, x, pf, x)
			keys := sortKeysLiteral(r, ir.MakeShape(ty, rows, n))
			t.Run(fmt.Sprintf("%s/%s/keys/%d", ty, name, n), func(t *testing.T) {
				checkGeneric(t, genericCase{hlo: one, args: []*ir.Literal{keys}, ulps: -1, check: sortImpl(n, impl)})
			})
			t.Run(fmt.Sprintf("%s/%s/argsort/%d", ty, name, n), func(t *testing.T) {
				checkGeneric(t, genericCase{hlo: two, args: []*ir.Literal{keys}, ulps: -1, check: sortImpl(n, impl)})
			})
			payload := randomLiteral(r, ir.MakeShape(ir.F32, rows, n))
			t.Run(fmt.Sprintf("%s/%s/payload/%d", ty, name, n), func(t *testing.T) {
				checkGeneric(t, genericCase{hlo: three, args: []*ir.Literal{payload, keys}, ulps: -1, check: sortImpl(n, impl)})
			})
		}
	}
	for _, ty := range []ir.ElementType{ir.F32, ir.BF16, ir.F16} {
		for _, c := range sortComparators {
			run(t, ty, c.name, c.body, c.impl)
		}
	}
	for _, ty := range []ir.ElementType{ir.S32, ir.U32, ir.S16, ir.U16} {
		for _, c := range sortIntComparators {
			run(t, ty, c.name, c.body, c.impl)
		}
	}
}

// sortImpl checks the sort's implementation: the radix sort (rows of one
// key are simplified away) or the generic one.
func sortImpl(n int, impl string) func(*testing.T, *Executable) {
	return func(t *testing.T, e *Executable) {
		t.Helper()
		if n <= 1 {
			return
		}
		for _, k := range e.Stats().Kernels {
			if strings.Contains(strings.Join(k.Ops, " "), "sort") {
				want := impl
				if want == "" {
					want = "sort"
				}
				if k.Impl != want {
					t.Errorf("the sort runs %s, expected %s", k.Impl, want)
				}
				return
			}
		}
		t.Errorf("no kernel sorts")
	}
}

// sortKeysLiteral fills keys with many duplicates, both zeros, infinities
// and NaNs of both signs and several payloads (integers: random bits and a
// few repeated values).
func sortKeysLiteral(r *rand.Rand, s ir.Shape) *ir.Literal {
	l := ir.MustNewLiteral(s)
	es := s.Elem.ByteSize()
	b := l.Bytes()
	for i := 0; i < s.ElementCount(); i++ {
		if !s.Elem.IsFloat() {
			v := r.Uint64()
			if r.IntN(3) == 0 {
				v = uint64(r.IntN(5))
			}
			putBits(b[i*es:(i+1)*es], es, v)
			continue
		}
		switch r.IntN(10) {
		case 0:
			putNaN(b[i*es:(i+1)*es], s.Elem, r)
		case 1:
			l.SetFloat64At(i, []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1)}[r.IntN(6)])
		default:
			l.SetFloat64At(i, float64(r.IntN(41)-20)/4)
		}
	}
	return l
}

// putNaN writes a NaN of either sign with a random payload.
func putNaN(dst []byte, t ir.ElementType, r *rand.Rand) {
	var v uint64
	switch t {
	case ir.F32:
		v = 0x7f800000 | uint64(1+r.IntN(0x7fffff))
		v |= uint64(r.IntN(2)) << 31
	case ir.BF16:
		v = 0x7f80 | uint64(1+r.IntN(0x7f))
		v |= uint64(r.IntN(2)) << 15
	default:
		v = 0x7c00 | uint64(1+r.IntN(0x3ff))
		v |= uint64(r.IntN(2)) << 15
	}
	putBits(dst, t.ByteSize(), v)
}

// TestSortFastTopK runs sort followed by slices of a prefix (the selection)
// and the top-k op, largest and smallest, over row lengths and k on both
// sides of the selection's limits.
func TestSortFastTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 26))
	canon := sortComparators[0].body
	desc := sortComparators[1].body
	for _, ty := range []ir.ElementType{ir.F32, ir.BF16, ir.F16} {
		rowLengths := []int{1, 7, 100, 1000, 5003}
		if testing.Short() {
			rowLengths = []int{7, 1000}
		}
		for _, n := range rowLengths {
			for _, k := range []int{1, 2, 5, 10, 64, 130, n} {
				if k > n {
					continue
				}
				rows := 2
				keys := sortKeysLiteral(r, ir.MakeShape(ty, rows, n))
				for ci, body := range []string{canon, desc} {
					if n > 1000 || k > 64 {
						continue // the evaluator's sort runs the comparator per comparison
					}
					cmp := strings.ReplaceAll(body, "T[", ty.String()+"[")
					cmp = strings.Replace(cmp, "  b = ", "  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  b = ", 1)
					x, idx := fmt.Sprintf("%s[%d,%d]", ty, rows, n), fmt.Sprintf("s32[%d,%d]", rows, n)
					xk, ik := fmt.Sprintf("%s[%d,%d]", ty, rows, k), fmt.Sprintf("s32[%d,%d]", rows, k)
					hlo := fmt.Sprintf(`HloModule t

cmp {
%s
}

ENTRY e {
  x = %s parameter(0)
  i = %s iota(), iota_dimension=1
  s = (%s, %s) sort(x, i), dimensions={1}, is_stable=true, to_apply=cmp
  v = %s get-tuple-element(s), index=0
  w = %s get-tuple-element(s), index=1
  vs = %s slice(v), slice={[0:%d], [0:%d]}
  ws = %s slice(w), slice={[0:%d], [0:%d]}
  ROOT t = (%s, %s) tuple(vs, ws)
}
`, cmp, x, idx, x, idx, x, idx, xk, rows, k, ik, rows, k, xk, ik)
					impl := "sort-topk"
					if 16*k > n || k > 128 {
						impl = "sort-radix"
					}
					if n == 1 {
						impl = ""
					}
					t.Run(fmt.Sprintf("%s/sort-slice/%d/%d/%d", ty, n, k, ci), func(t *testing.T) {
						checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{keys}, ulps: -1, check: sortImpl(n, impl)})
					})
				}
				for _, largest := range []bool{true, false} {
					hlo := fmt.Sprintf("HloModule t\n\nENTRY e {\n  x = %[1]s[%[2]d,%[3]d] parameter(0)\n  ROOT t = (%[1]s[%[2]d,%[4]d], s32[%[2]d,%[4]d]) topk(x), k=%[4]d, largest=%[5]v\n}\n", ty, rows, n, k, largest)
					t.Run(fmt.Sprintf("%s/topk/%d/%d/%v", ty, n, k, largest), func(t *testing.T) {
						checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{keys}, ulps: -1, check: usesImpl("topk-select")})
					})
				}
			}
		}
	}
}

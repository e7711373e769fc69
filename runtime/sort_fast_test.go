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
	// XLA's optimized form of jax-canonical-lt: its comparison expander
	// compares the total order's integer keys (I the signed type of T's
	// width, IMAX its largest value).
	{"xla-total-order-key", `  a = T[] parameter(0)
  b = T[] parameter(1)
  nan = T[] constant(nan)
  zero = T[] constant(0)
  izero = I[] constant(0)
  imax = I[] constant(IMAX)
  ne.a = pred[] compare(a, a), direction=NE
  eq.a = pred[] compare(a, zero), direction=EQ
  s.a = T[] select(eq.a, zero, a)
  c.a = T[] select(ne.a, nan, s.a)
  ne.b = pred[] compare(b, b), direction=NE
  eq.b = pred[] compare(b, zero), direction=EQ
  s.b = T[] select(eq.b, zero, b)
  c.b = T[] select(ne.b, nan, s.b)
  bits.a = I[] bitcast(c.a)
  x.a = I[] xor(imax, bits.a)
  neg.a = pred[] compare(bits.a, izero), direction=LT
  k.a = I[] select(neg.a, x.a, bits.a)
  bits.b = I[] bitcast(c.b)
  x.b = I[] xor(imax, bits.b)
  neg.b = pred[] compare(bits.b, izero), direction=LT
  k.b = I[] select(neg.b, x.b, bits.b)
  ROOT lt = pred[] compare(k.a, k.b), direction=LT`, "sort-radix"},
	// The keys of the total order alone, descending, the xor's operands
	// the other way round.
	{"xla-total-order-key-gt", `  a = T[] parameter(0)
  b = T[] parameter(1)
  izero = I[] constant(0)
  imax = I[] constant(IMAX)
  bits.a = I[] bitcast(a)
  x.a = I[] xor(bits.a, imax)
  neg.a = pred[] compare(bits.a, izero), direction=LT
  k.a = I[] select(neg.a, x.a, bits.a)
  bits.b = I[] bitcast(b)
  x.b = I[] xor(bits.b, imax)
  neg.b = pred[] compare(bits.b, izero), direction=LT
  k.b = I[] select(neg.b, x.b, bits.b)
  ROOT gt = pred[] compare(k.a, k.b), direction=GT`, "sort-radix"},
	// A key that flips one bit too few: no order a radix sort implements.
	{"xla-key-wrong-mask", `  a = T[] parameter(0)
  b = T[] parameter(1)
  izero = I[] constant(0)
  imax = I[] constant(3)
  bits.a = I[] bitcast(a)
  x.a = I[] xor(imax, bits.a)
  neg.a = pred[] compare(bits.a, izero), direction=LT
  k.a = I[] select(neg.a, x.a, bits.a)
  bits.b = I[] bitcast(b)
  x.b = I[] xor(imax, bits.b)
  neg.b = pred[] compare(bits.b, izero), direction=LT
  k.b = I[] select(neg.b, x.b, bits.b)
  ROOT lt = pred[] compare(k.a, k.b), direction=LT`, ""},
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
			cmp := comparatorFor(body, ty)
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

// TestSortFastStrided sorts along a dimension other than the last (JAX's
// sort and argsort with axis=0): keys alone, an argsort and a payload
// before the keys, for the standard comparators over every key type, lines
// short (insertion) and long (radix passes), bit for bit against ir/eval.
func TestSortFastStrided(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 26))
	cases := []struct {
		dims []int
		d    int
	}{{[]int{6, 37}, 0}, {[]int{3, 40, 5}, 1}, {[]int{300, 3}, 0}, {[]int{2, 5, 1, 7}, 1}}
	for _, ty := range []ir.ElementType{ir.F32, ir.BF16, ir.F16, ir.S32, ir.U16} {
		comps := sortComparators[:4]
		if !ty.IsFloat() {
			comps = sortIntComparators[:2]
		}
		for _, c := range comps {
			for _, cs := range cases {
				shape := func(et ir.ElementType) string {
					return ir.MakeShape(et, cs.dims...).String()
				}
				cmp := comparatorFor(c.body, ty)
				arg := strings.Replace(cmp, "  b = ", "  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  b = ", 1)
				pay := "  p = f32[] parameter(0)\n  q = f32[] parameter(1)\n" + strings.NewReplacer("parameter(0)", "parameter(2)", "parameter(1)", "parameter(3)").Replace(cmp)
				x, i, p := shape(ty), shape(ir.S32), shape(ir.F32)
				mods := map[string]string{
					"keys": fmt.Sprintf("HloModule t\n\ncmp {\n%s\n}\n\nENTRY e {\n  x = %s parameter(0)\n  ROOT s = %s sort(x), dimensions={%d}, to_apply=cmp\n}\n", cmp, x, x, cs.d),
					"argsort": fmt.Sprintf("HloModule t\n\ncmp {\n%s\n}\n\nENTRY e {\n  x = %s parameter(0)\n  i = %s iota(), iota_dimension=%d\n  ROOT s = (%s, %s) sort(x, i), dimensions={%d}, is_stable=true, to_apply=cmp\n}\n",
						arg, x, i, cs.d, x, i, cs.d),
					"payload": fmt.Sprintf("HloModule t\n\ncmp {\n%s\n}\n\nENTRY e {\n  p = %s parameter(0)\n  x = %s parameter(1)\n  ROOT s = (%s, %s) sort(p, x), dimensions={%d}, is_stable=true, to_apply=cmp\n}\n",
						pay, p, x, p, x, cs.d),
				}
				keys := sortKeysLiteral(r, ir.MakeShape(ty, cs.dims...))
				payload := randomLiteral(r, ir.MakeShape(ir.F32, cs.dims...))
				for _, form := range []string{"keys", "argsort", "payload"} {
					args := []*ir.Literal{keys}
					if form == "payload" {
						args = []*ir.Literal{payload, keys}
					}
					t.Run(fmt.Sprintf("%s/%s/%v/dim%d/%s", ty, c.name, cs.dims, cs.d, form), func(t *testing.T) {
						checkGeneric(t, genericCase{hlo: mods[form], args: args, ulps: -1, check: sortImpl(cs.dims[cs.d], c.impl)})
					})
				}
			}
		}
	}
}

// comparatorFor writes a comparator body for keys of type ty: T is ty, I
// the signed integer type of its width and IMAX that type's largest value.
func comparatorFor(body string, ty ir.ElementType) string {
	it, imax := "s32", "2147483647"
	if ty.BitWidth() == 16 {
		it, imax = "s16", "32767"
	}
	return strings.NewReplacer("T[", ty.String()+"[", "I[", it+"[", "IMAX", imax).Replace(body)
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
				// Its kind in Stats: the dedicated sort's own, the
				// generic sort's sched's.
				wantKind := "sort"
				if impl == "" {
					wantKind = "generic"
				}
				if k.Kind != wantKind {
					t.Errorf("the sort's kernel is of kind %s, expected %s", k.Kind, wantKind)
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
					cmp := comparatorFor(body, ty)
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
						checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{keys}, ulps: -1, check: func(t *testing.T, e *Executable) {
							usesImpl("topk-select")(t, e)
							for _, k := range e.Stats().Kernels {
								if k.Impl == "topk-select" && k.Kind != "top-k" {
									t.Errorf("the top-k's kernel is of kind %s, expected top-k", k.Kind)
								}
							}
						}})
					})
				}
			}
		}
	}
}

// lexComparators are comparators of two keys — operand 0 (s32) and
// operand 1 (T, a float type) — and a payload (operand 2), with the path
// the sort must take ("" generic).
var lexComparators = []struct {
	name, body, impl string
}{
	// lax.sort((k1, k2, v), num_keys=2) as JAX writes it.
	{"jax-two-keys", `  a = s32[] parameter(0)
  b = s32[] parameter(1)
  p = f32[] parameter(4)
  q = f32[] parameter(5)
  lt.k = pred[] compare(a, b), direction=LT
  eq.k = pred[] compare(a, b), direction=EQ
  x = T[] parameter(2)
  y = T[] parameter(3)
  ne.x = pred[] compare(x, x), direction=NE
  nan = T[] constant(nan)
  zero = T[] constant(0)
  eq.x = pred[] compare(x, zero), direction=EQ
  s.x = T[] select(eq.x, zero, x)
  c.x = T[] select(ne.x, nan, s.x)
  ne.y = pred[] compare(y, y), direction=NE
  eq.y = pred[] compare(y, zero), direction=EQ
  s.y = T[] select(eq.y, zero, y)
  c.y = T[] select(ne.y, nan, s.y)
  lt.c = pred[] compare(c.x, c.y), direction=LT, type=TOTALORDER
  and = pred[] and(eq.k, lt.c)
  ROOT or = pred[] or(lt.k, and)`, "sort-radix"},
	// The float key first, descending, in the total order; operands of
	// or and and the other way round.
	{"float-first-desc", `  a = s32[] parameter(0)
  b = s32[] parameter(1)
  p = f32[] parameter(4)
  q = f32[] parameter(5)
  x = T[] parameter(2)
  y = T[] parameter(3)
  gt.x = pred[] compare(x, y), direction=GT, type=TOTALORDER
  eq.x = pred[] compare(y, x), direction=EQ, type=TOTALORDER
  lt.k = pred[] compare(a, b), direction=LT
  and = pred[] and(lt.k, eq.x)
  ROOT or = pred[] or(and, gt.x)`, "sort-radix"},
	// Equality in IEEE comparison (NaN unequal to itself): not the order's
	// equivalence, so not lexicographic.
	{"ieee-equality", `  a = s32[] parameter(0)
  b = s32[] parameter(1)
  p = f32[] parameter(4)
  q = f32[] parameter(5)
  x = T[] parameter(2)
  y = T[] parameter(3)
  lt.x = pred[] compare(x, y), direction=LT, type=TOTALORDER
  eq.x = pred[] compare(x, y), direction=EQ
  lt.k = pred[] compare(a, b), direction=LT
  and = pred[] and(eq.x, lt.k)
  ROOT or = pred[] or(lt.x, and)`, ""},
	// The tie broken by the same key: not lexicographic.
	{"same-key-twice", `  a = s32[] parameter(0)
  b = s32[] parameter(1)
  x = T[] parameter(2)
  y = T[] parameter(3)
  p = f32[] parameter(4)
  q = f32[] parameter(5)
  lt.k = pred[] compare(a, b), direction=LT
  eq.k = pred[] compare(a, b), direction=EQ
  gt.k = pred[] compare(a, b), direction=GT
  and = pred[] and(eq.k, gt.k)
  ROOT or = pred[] or(lt.k, and)`, ""},
}

// TestSortFastLexicographic sorts by two keys in turn (an s32 key and a
// float key, and the reverse), with a payload, along the last dimension
// and along a leading one, short and long lines, against ir/eval bit for
// bit; comparators that only look lexicographic stay generic.
func TestSortFastLexicographic(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 34))
	for _, ty := range []ir.ElementType{ir.F32, ir.BF16} {
		for _, c := range lexComparators {
			for _, cs := range []struct {
				dims []int
				d    int
			}{{[]int{3, 19}, 1}, {[]int{2, 700}, 1}, {[]int{40, 3}, 0}} {
				if c.impl == "" && cs.dims[cs.d] > 100 {
					continue // the evaluator's comparator calls: short lines only
				}
				shape := func(et ir.ElementType) string { return ir.MakeShape(et, cs.dims...).String() }
				cmp := comparatorFor(c.body, ty)
				hlo := fmt.Sprintf("HloModule t\n\ncmp {\n%s\n}\n\nENTRY e {\n  k = %s parameter(0)\n  x = %s parameter(1)\n  v = %s parameter(2)\n  ROOT s = (%s, %s, %s) sort(k, x, v), dimensions={%d}, is_stable=true, to_apply=cmp\n}\n",
					cmp, shape(ir.S32), shape(ty), shape(ir.F32), shape(ir.S32), shape(ty), shape(ir.F32), cs.d)
				keys := ir.MustNewLiteral(ir.MakeShape(ir.S32, cs.dims...))
				for i := range ir.Values[int32](keys) {
					ir.Values[int32](keys)[i] = int32(r.IntN(4)) - 1 // many ties for the second key to break
				}
				args := []*ir.Literal{keys, sortKeysLiteral(r, ir.MakeShape(ty, cs.dims...)), randomLiteral(r, ir.MakeShape(ir.F32, cs.dims...))}
				t.Run(fmt.Sprintf("%s/%s/%v/dim%d", ty, c.name, cs.dims, cs.d), func(t *testing.T) {
					checkGeneric(t, genericCase{hlo: hlo, args: args, ulps: -1, check: sortImpl(cs.dims[cs.d], c.impl)})
				})
			}
		}
	}
}

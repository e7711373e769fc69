package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func TestSortSeedExample(t *testing.T) {
	// operand0 = [3, 1], operand1 = [42, 50], operand2 = [-3.0, 1.1],
	// comparator LT on operand0 → ([1, 3], [50, 42], [1.1, -3.0]).
	out := runHLO(t, `HloModule m
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  e = f32[] parameter(4)
  f = f32[] parameter(5)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = s32[2] parameter(0)
  y = s32[2] parameter(1)
  z = f32[2] parameter(2)
  ROOT s = (s32[2], s32[2], f32[2]) sort(x, y, z), dimensions={0}, to_apply=cmp
}
`, vec[int32](3, 1), vec[int32](42, 50), vec[float32](-3, 1.1))
	expectClose(t, out[0], "s32[2]", reals(1, 3), 0)
	expectClose(t, out[1], "s32[2]", reals(50, 42), 0)
	expectClose(t, out[2], "f32[2]", reals(float64(float32(1.1)), -3), 0)
}

func sortModule(ty ir.ElementType, dims []int, dim int, dir, ctype string, slow bool) string {
	cmp := fmt.Sprintf("  ROOT r = pred[] compare(a, b), direction=%s%s", dir, ctype)
	if slow {
		cmp = fmt.Sprintf("  ca = %s[] copy(a)\n  ROOT r = pred[] compare(ca, b), direction=%s%s", ty, dir, ctype)
	}
	s := shapeText(ty, dims...)
	is := shapeText(ir.S32, dims...)
	return fmt.Sprintf(`HloModule m
cmp {
  a = %s[] parameter(0)
  b = %s[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
%s
}
ENTRY e {
  x = %s parameter(0)
  i = %s iota(), iota_dimension=%d
  ROOT s = (%s, %s) sort(x, i), dimensions={%d}, is_stable=true, to_apply=cmp
}
`, ty, ty, cmp, s, is, dim, s, is, dim)
}

// TestSortIsSortedStablePermutation checks, for several types, directions
// and dimensions, that each sorted slice is ordered by the comparator, is a
// permutation of the input slice (the carried iota says which), keeps equal
// keys in input order, and that the typed fast path equals the general path.
func TestSortIsSortedStablePermutation(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	dims := []int{4, 6, 5}
	for _, ty := range []ir.ElementType{ir.F32, ir.F16, ir.BF16, ir.F64, ir.S8, ir.S32, ir.U16, ir.U64, ir.PRED} {
		for _, dir := range []string{"LT", "GT"} {
			for dim := 0; dim < 3; dim++ {
				ctype := ""
				x := randLiteral(r, ty, dims...)
				if ty.IsFloat() {
					ctype = ", type=TOTALORDER"
					specialFloats(r, x)
				}
				fast := runHLO(t, sortModule(ty, dims, dim, dir, ctype, false), x)
				slow := runHLO(t, sortModule(ty, dims, dim, dir, ctype, true), x)
				name := fmt.Sprintf("%v/%s/dim%d", ty, dir, dim)
				if !fast[0].Equal(slow[0]) || !fast[1].Equal(slow[1]) {
					t.Fatalf("%s: fast and general comparator paths differ", name)
				}
				checkSorted(t, name, x, fast[0], fast[1], dims, dim, dir == "LT")
			}
		}
	}
}

// orderKey ranks an element in the total order (floats) or numerically.
func orderKey(l *ir.Literal, i int) float64 {
	t := l.Shape().Elem
	if t.IsFloat() {
		b, w := floatBits(l)
		return float64(totalOrderKey(b[i], w))
	}
	v := wideOf(l)
	return real(v[i])
}

func checkSorted(t *testing.T, name string, in, keys, perm *ir.Literal, dims []int, dim int, asc bool) {
	t.Helper()
	idx := ir.Values[int32](perm)
	st := ops.Strides(dims)
	inBytes, outBytes := in.Bytes(), keys.Bytes()
	es := in.Shape().Elem.ByteSize()
	for base := 0; base < numElements(dims); base++ {
		if (base/st[dim])%dims[dim] != 0 {
			continue // not the first element of a slice
		}
		seen := make([]bool, dims[dim])
		for k := 0; k < dims[dim]; k++ {
			p := base + k*st[dim]
			src := int(idx[p])
			if src < 0 || src >= dims[dim] || seen[src] {
				t.Fatalf("%s: slice at %d is not a permutation: %v", name, base, idx)
			}
			seen[src] = true
			q := base + src*st[dim]
			if string(outBytes[p*es:(p+1)*es]) != string(inBytes[q*es:(q+1)*es]) {
				t.Fatalf("%s: element %d is not input element %d", name, p, q)
			}
			if k == 0 {
				continue
			}
			prev := base + (k-1)*st[dim]
			a, b := orderKey(keys, prev), orderKey(keys, p)
			if (asc && a > b) || (!asc && a < b) {
				t.Fatalf("%s: slice at %d not sorted at %d: %v then %v", name, base, k, a, b)
			}
			if a == b && idx[prev] > idx[p] {
				t.Fatalf("%s: equal keys out of input order at %d", name, p)
			}
		}
	}
}

// TestSortMultiKeyGeneralComparator sorts by (key0 ascending, key1
// descending) with a comparator the fast path does not recognise.
func TestSortMultiKeyGeneralComparator(t *testing.T) {
	out := runHLO(t, `HloModule m
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  lt = pred[] compare(a, b), direction=LT
  eq = pred[] compare(a, b), direction=EQ
  gt = pred[] compare(c, d), direction=GT
  tie = pred[] and(eq, gt)
  ROOT r = pred[] or(lt, tie)
}
ENTRY e {
  x = s32[6] parameter(0)
  y = f32[6] parameter(1)
  ROOT s = (s32[6], f32[6]) sort(x, y), dimensions={0}, to_apply=cmp
}
`, vec[int32](2, 1, 2, 1, 0, 2), vec[float32](5, 6, 7, 8, 9, 1))
	expectClose(t, out[0], "s32[6]", reals(0, 1, 1, 2, 2, 2), 0)
	expectClose(t, out[1], "f32[6]", reals(9, 8, 6, 7, 5, 1), 0)
}

func TestSortFloatLTWithNaNIsDeterministic(t *testing.T) {
	x := vec(float32(3), float32(math.NaN()), 1, 2)
	a := runHLO(t, sortModule(ir.F32, []int{4}, 0, "LT", "", false), x)
	b := runHLO(t, sortModule(ir.F32, []int{4}, 0, "LT", "", true), x)
	if !a[0].Equal(b[0]) {
		t.Fatalf("fast %v, general %v", wideOf(a[0]), wideOf(b[0]))
	}
}

func TestSortMillionElements(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	n := 1 << 20
	x := randLiteral(r, ir.F32, n)
	out := runHLO(t, fmt.Sprintf(`HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[%d] parameter(0)
  ROOT s = f32[%d] sort(x), dimensions={0}, to_apply=cmp
}
`, n, n), x)
	got := out[0].Float32s()
	want := slices.Clone(x.Float32s())
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("1M-element sort differs from slices.Sort")
	}
}

func TestTopKSeedExample(t *testing.T) {
	out := runHLO(t, `HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  ROOT t = (f32[2,1], s32[2,1]) topk(x), k=1, largest=true
}
`, lit([]int{2, 3}, float32(0.1), 0.3, 0.1, 0.7, 0.2, -0.1))
	expectClose(t, out[0], "f32[2,1]", reals(float64(float32(0.3)), float64(float32(0.7))), 0)
	expectClose(t, out[1], "s32[2,1]", reals(1, 0), 0)
}

func TestTopKTiesNaNAndSmallest(t *testing.T) {
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	x := vec(float32(1), nan, 5, 5, negZero, 0, float32(math.Inf(1)), -2)
	out := runHLO(t, `HloModule m
ENTRY e {
  x = f32[8] parameter(0)
  ROOT t = (f32[5], s32[5]) topk(x), k=5, largest=true
}
`, x)
	// Total order, largest first: +NaN, +Inf, 5 (index 2 before 3), 5, 1.
	expectClose(t, out[1], "s32[5]", reals(1, 6, 2, 3, 0), 0)
	out = runHLO(t, `HloModule m
ENTRY e {
  x = f32[8] parameter(0)
  ROOT t = (f32[3], s32[3]) topk(x), k=3, largest=false
}
`, x)
	// Smallest first: -2, -0, +0.
	expectClose(t, out[1], "s32[3]", reals(7, 4, 5), 0)
	out = runHLO(t, `HloModule m
ENTRY e {
  x = u8[2,4] parameter(0)
  ROOT t = (u8[2,2], s32[2,2]) topk(x), k=2, largest=true
}
`, lit([]int{2, 4}, uint8(200), 3, 200, 7, 0, 0, 1, 0))
	expectClose(t, out[0], "u8[2,2]", reals(200, 200, 1, 0), 0)
	expectClose(t, out[1], "s32[2,2]", reals(0, 2, 2, 0), 0)
}

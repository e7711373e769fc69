package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"unsafe"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// sortKeyF32 is the reference order of float32 bits: the total order, or
// JAX's canonical order.
func sortKeyF32(b uint32, canon bool) int64 {
	if canon {
		switch {
		case b == 0x80000000:
			b = 0
		case b&0x7fffffff > 0x7f800000:
			b = 0x7fc00000
		}
	}
	k := int64(int32(b))
	if k < 0 {
		k ^= math.MaxInt32
	}
	return k
}

// interestingKeys32 is a row of float32 bits with duplicates, both zeros,
// infinities, NaNs of both signs and payloads, subnormals.
func interestingKeys32(r *rand.Rand, n int) []uint32 {
	specials := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800123, 0x00000001, 0x80000001, 0x3f800000, 0xbf800000}
	x := make([]uint32, n)
	for i := range x {
		switch p := r.IntN(10); {
		case p == 0:
			x[i] = specials[r.IntN(len(specials))]
		case p == 1 && i > 0:
			x[i] = x[r.IntN(i)] // a duplicate
		case p == 2:
			x[i] = r.Uint32()
		default:
			x[i] = math.Float32bits(float32(r.NormFloat64() * 100))
		}
	}
	return x
}

func TestSortF32AgainstStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	for _, n := range []int{1, 2, 3, 7, 16, 17, 100, 255, 256, 257, 1000, 4099} {
		for _, order := range []SortOrder{SortAscending, SortDescending, SortCanonicalNaN, SortDescending | SortCanonicalNaN} {
			rows := 3
			x := interestingKeys32(r, rows*n)
			keys := make([]float32, len(x))
			for i, b := range x {
				keys[i] = math.Float32frombits(b)
			}
			idx := make([]int32, len(x))
			for i := range idx {
				idx[i] = int32(i % n)
			}
			SortF32(keys, idx, n, order)
			for row := 0; row < rows; row++ {
				want := make([]int32, n)
				for i := range want {
					want[i] = int32(i)
				}
				canon := order&SortCanonicalNaN != 0
				src := x[row*n : (row+1)*n]
				sort.SliceStable(want, func(a, b int) bool {
					ka, kb := sortKeyF32(src[want[a]], canon), sortKeyF32(src[want[b]], canon)
					if order&SortDescending != 0 {
						return ka > kb
					}
					return ka < kb
				})
				for i, p := range want {
					got := math.Float32bits(keys[row*n+i])
					if idx[row*n+i] != p || got != src[p] {
						t.Fatalf("n=%d order=%d row %d position %d: key %#08x index %d, want %#08x index %d", n, order, row, i, got, idx[row*n+i], src[p], p)
					}
				}
			}
		}
	}
}

// TestSortAgainstEval sorts rows of every key type with ir/eval's sort of
// the HLO JAX writes — keys and an iota payload, a TOTALORDER comparator
// (through JAX's canonicalisation for SortCanonicalNaN), LT or GT, stable —
// and compares keys and indices.
func TestSortAgainstEval(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	const rows, n = 4, 333
	type kind struct {
		name  string
		ty    ir.ElementType
		float bool
		sort  func(keys []byte, idx []int32, order SortOrder)
	}
	kinds := []kind{
		{"f32", ir.F32, true, func(k []byte, idx []int32, o SortOrder) { SortF32(asSlice[float32](k, rows*n), idx, n, o) }},
		{"bf16", ir.BF16, true, func(k []byte, idx []int32, o SortOrder) { SortBF16(asSlice[uint16](k, rows*n), idx, n, o) }},
		{"f16", ir.F16, true, func(k []byte, idx []int32, o SortOrder) { SortF16(asSlice[uint16](k, rows*n), idx, n, o) }},
		{"s32", ir.S32, false, func(k []byte, idx []int32, o SortOrder) { SortS32(asSlice[int32](k, rows*n), idx, n, o) }},
		{"u32", ir.U32, false, func(k []byte, idx []int32, o SortOrder) { SortU32(asSlice[uint32](k, rows*n), idx, n, o) }},
		{"s16", ir.S16, false, func(k []byte, idx []int32, o SortOrder) { SortS16(asSlice[int16](k, rows*n), idx, n, o) }},
		{"u16", ir.U16, false, func(k []byte, idx []int32, o SortOrder) { SortU16(asSlice[uint16](k, rows*n), idx, n, o) }},
	}
	for _, k := range kinds {
		for _, order := range []SortOrder{SortAscending, SortDescending, SortCanonicalNaN, SortDescending | SortCanonicalNaN} {
			if !k.float && order&SortCanonicalNaN != 0 {
				continue
			}
			size := k.ty.ByteSize()
			keys := make([]byte, rows*n*size)
			x32 := interestingKeys32(r, rows*n)
			for i := range rows * n {
				switch {
				case k.ty == ir.F32 || size == 4:
					*(*uint32)(unsafe.Pointer(&keys[4*i])) = x32[i]
				case k.float:
					// The top half of a float32 is a bfloat16; binary16 from
					// a conversion, with its own specials.
					v := uint16(x32[i] >> 16)
					if k.ty == ir.F16 {
						v = f32ToF16(math.Float32frombits(x32[i]))
						if r.IntN(20) == 0 {
							v = uint16(r.Uint32()) | 0x7c01
						}
					}
					*(*uint16)(unsafe.Pointer(&keys[2*i])) = v
				default:
					*(*uint16)(unsafe.Pointer(&keys[2*i])) = uint16(r.IntN(300)) // duplicates
				}
			}
			want, wantIdx := evalSort(t, k.ty, keys, rows, n, order)
			got := append([]byte(nil), keys...)
			idx := make([]int32, rows*n)
			for i := range idx {
				idx[i] = int32(i % n)
			}
			forEachLevel(t, func(level string) {
				g := append([]byte(nil), keys...)
				gi := append([]int32(nil), idx...)
				k.sort(g, gi, order)
				copy(got, g)
				for i := range gi {
					if gi[i] != wantIdx[i] || string(g[i*size:(i+1)*size]) != string(want[i*size:(i+1)*size]) {
						t.Fatalf("%s %s order=%d element %d: key %s index %d, ir/eval key %s index %d", level, k.name, order, i, hexBytes(g[i*size:(i+1)*size]), gi[i], hexBytes(want[i*size:(i+1)*size]), wantIdx[i])
					}
				}
				// Keys alone (no payload): the same keys in the same order.
				g = append([]byte(nil), keys...)
				k.sort(g, nil, order)
				if string(g) != string(want) {
					for i := 0; i < rows*n; i++ {
						if string(g[i*size:(i+1)*size]) != string(want[i*size:(i+1)*size]) {
							t.Fatalf("%s %s order=%d without indices, element %d: key %s, ir/eval key %s", level, k.name, order, i, hexBytes(g[i*size:(i+1)*size]), hexBytes(want[i*size:(i+1)*size]))
						}
					}
				}
			})
		}
	}
}

// evalSort runs ir/eval's sort of keys with an iota payload along the last
// dimension, with the comparator JAX writes for the order.
func evalSort(t *testing.T, ty ir.ElementType, keys []byte, rows, n int, order SortOrder) ([]byte, []int32) {
	t.Helper()
	name := ty.String()
	dir := "LT"
	if order&SortDescending != 0 {
		dir = "GT"
	}
	cmpType := ""
	body := ""
	if ty.IsFloat() {
		cmpType = ", type=TOTALORDER"
	}
	a, b := "p0", "p1"
	if order&SortCanonicalNaN != 0 {
		// JAX's _canonicalize_float_for_sort: x == 0 → 0, x != x → NaN.
		body = fmt.Sprintf(`  zero = %[1]s[] constant(0)
  nan = %[1]s[] constant(nan)
  z0 = pred[] compare(p0, zero), direction=EQ
  c0 = %[1]s[] select(z0, zero, p0)
  n0 = pred[] compare(p0, p0), direction=NE
  a = %[1]s[] select(n0, nan, c0)
  z1 = pred[] compare(p1, zero), direction=EQ
  c1 = %[1]s[] select(z1, zero, p1)
  n1 = pred[] compare(p1, p1), direction=NE
  b = %[1]s[] select(n1, nan, c1)
`, name)
		a, b = "a", "b"
	}
	hlo := fmt.Sprintf(`HloModule s

cmp {
  p0 = %[1]s[] parameter(0)
  p1 = %[1]s[] parameter(1)
  i0 = s32[] parameter(2)
  i1 = s32[] parameter(3)
%[2]s  ROOT r = pred[] compare(%[3]s, %[4]s), direction=%[5]s%[6]s
}

ENTRY e {
  k = %[1]s[%[7]d,%[8]d] parameter(0)
  i = s32[%[7]d,%[8]d] iota(), iota_dimension=1
  ROOT s = (%[1]s[%[7]d,%[8]d], s32[%[7]d,%[8]d]) sort(k, i), dimensions={1}, is_stable=true, to_apply=cmp
}
`, name, body, a, b, dir, cmpType, rows, n)
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatalf("%v\n%s", err, hlo)
	}
	lit, err := ir.NewLiteralView(ir.MakeShape(ty, rows, n), keys)
	if err != nil {
		t.Fatal(err)
	}
	res, err := eval.Run(m, lit)
	if err != nil {
		t.Fatal(err)
	}
	parts := res
	if len(res) == 1 {
		parts = res[0].Elements()
	}
	return parts[0].Bytes(), asSlice[int32](parts[1].Bytes(), rows*n)
}

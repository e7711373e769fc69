package kiln

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestVectorSortKernel sorts random unsigned keys (full width, and few
// distinct ones) of every power-of-two length the kernel takes with the
// level's vector sort and compares with slices.Sort.
func TestVectorSortKernel(t *testing.T) {
	vs := kernels().sortU32
	if vs == nil {
		t.Skipf("level %s has no vector sort", kernels().level)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for m := 256; m <= 16384; m *= 2 {
		for _, distinct := range []uint32{0, 1, 2, 7, 1000} {
			keys := make([]uint32, m)
			for i := range keys {
				keys[i] = r.Uint32()
				if distinct != 0 {
					keys[i] = (keys[i]%distinct)*0x9e3779b9 | uint32(i%3)<<31
				}
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			var tab [96]uint32
			copy(tab[:], vectorSortPerm[:])
			tab[84] = keys[0]
			vs(&keys[0], m, &keys[0], m, &tab)
			if i := firstDiff(keys, want); i >= 0 {
				t.Fatalf("m=%d distinct=%d position %d: %#08x, want %#08x", m, distinct, i, keys[i], want[i])
			}
		}
	}
}

func firstDiff(a, b []uint32) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// TestSortKeysAloneVectorLengths sorts rows of keys alone (float32 with
// specials, full-width and duplicate-heavy, int32, uint32) of lengths
// about the vector sort's powers of two and bounds, in every order, and
// compares with a stable sort of the keys by the order's key (for keys
// alone, the row a stable sort gives).
func TestSortKeysAloneVectorLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var lengths []int
	for _, p := range []int{16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192} {
		lengths = append(lengths, p-1, p, p+1)
	}
	lengths = append(lengths, 255, 257, 300, 1000, 1536, 2047, 2049, 3000, 4095, 4097, 6143, 6144, 6145)
	for _, n := range lengths {
		for _, data := range []string{"interesting", "full", "dups", "equal", "nan"} {
			rows := 2
			x := make([]uint32, rows*n)
			switch data {
			case "interesting":
				x = interestingKeys32(r, rows*n)
			case "full":
				for i := range x {
					x[i] = r.Uint32()
				}
			case "dups":
				for i := range x {
					x[i] = []uint32{0x3f800000, 0xbf800000, 0, 0x80000000, 0x7f800000, 0xff800000, 0x12345678}[r.IntN(7)]
				}
			case "equal":
				for i := range x {
					x[i] = 0x40490fdb
				}
			case "nan":
				for i := range x {
					x[i] = r.Uint32() | 0x7f800000 // NaNs and infinities of both signs
				}
			}
			for _, order := range []SortOrder{SortAscending, SortDescending, SortCanonicalNaN, SortDescending | SortCanonicalNaN} {
				f := make([]float32, len(x))
				for i, b := range x {
					f[i] = math.Float32frombits(b)
				}
				SortF32(f, nil, n, order)
				s := make([]int32, len(x))
				u := slices.Clone(x)
				for i, b := range x {
					s[i] = int32(b)
				}
				if order&SortCanonicalNaN == 0 {
					SortS32(s, nil, n, order)
					SortU32(u, nil, n, order)
				}
				for row := range rows {
					src := x[row*n : (row+1)*n]
					desc := order&SortDescending != 0
					canon := order&SortCanonicalNaN != 0
					check := func(kind string, got func(i int) uint32, key func(b uint32) int64) {
						want := slices.Clone(src)
						slices.SortStableFunc(want, func(a, b uint32) int {
							ka, kb := key(a), key(b)
							if desc {
								ka, kb = kb, ka
							}
							switch {
							case ka < kb:
								return -1
							case ka > kb:
								return 1
							}
							return 0
						})
						for i, w := range want {
							if g := got(row*n + i); g != w {
								t.Fatalf("%s n=%d %s order=%d row %d position %d: %#08x, want %#08x", kind, n, data, order, row, i, g, w)
							}
						}
					}
					check("f32", func(i int) uint32 { return math.Float32bits(f[i]) }, func(b uint32) int64 { return sortKeyF32(b, canon) })
					if !canon {
						check("s32", func(i int) uint32 { return uint32(s[i]) }, func(b uint32) int64 { return int64(int32(b)) })
						check("u32", func(i int) uint32 { return u[i] }, func(b uint32) int64 { return int64(b) })
					}
				}
			}
		}
	}
}

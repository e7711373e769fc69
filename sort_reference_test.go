package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortRefKind is a key type of the row sorts, as the reference sort sees
// it: keys are held as uint32 bits (16-bit kinds in the low half).
type sortRefKind struct {
	name   string
	bits   int
	float  bool
	signed bool
	inf    uint32 // the 16-bit floats' infinity
	sort   func(keys []uint32, idx []int32, n int, order SortOrder)
}

func sortRefKinds() []sortRefKind {
	to16 := func(k []uint32) []uint16 {
		out := make([]uint16, len(k))
		for i, v := range k {
			out[i] = uint16(v)
		}
		return out
	}
	back16 := func(dst []uint32, src []uint16) {
		for i, v := range src {
			dst[i] = uint32(v)
		}
	}
	f16 := func(f func([]uint16, []int32, int, SortOrder)) func([]uint32, []int32, int, SortOrder) {
		return func(k []uint32, idx []int32, n int, o SortOrder) {
			h := to16(k)
			f(h, idx, n, o)
			back16(k, h)
		}
	}
	return []sortRefKind{
		{name: "f32", bits: 32, float: true, sort: func(k []uint32, idx []int32, n int, o SortOrder) {
			SortF32(asSlice[float32](asBytes(k), len(k)), idx, n, o)
		}},
		{name: "bf16", bits: 16, float: true, inf: 0x7f80, sort: f16(SortBF16)},
		{name: "f16", bits: 16, float: true, inf: 0x7c00, sort: f16(SortF16)},
		{name: "s32", bits: 32, signed: true, sort: func(k []uint32, idx []int32, n int, o SortOrder) {
			SortS32(asSlice[int32](asBytes(k), len(k)), idx, n, o)
		}},
		{name: "u32", bits: 32, sort: SortU32},
		{name: "s16", bits: 16, signed: true, sort: f16(func(k []uint16, idx []int32, n int, o SortOrder) {
			SortS16(asSlice[int16](asBytes(k), len(k)), idx, n, o)
		})},
		{name: "u16", bits: 16, sort: f16(SortU16)},
	}
}

// refKey is the reference order of key bits b: the canonical form first
// where canon (JAX's: -0 is +0, every NaN one positive NaN), then the
// total order of floats, or the integers' order.
func (k sortRefKind) refKey(b uint32, canon bool) int64 {
	if k.bits == 32 {
		switch {
		case k.float:
			return sortKeyF32(b, canon)
		case k.signed:
			return int64(int32(b))
		}
		return int64(b)
	}
	switch {
	case k.float:
		if canon {
			switch {
			case b == 0x8000:
				b = 0
			case b&0x7fff > k.inf:
				b = k.inf | 1
			}
		}
		v := int64(int16(b))
		if v < 0 {
			v ^= 0x7fff
		}
		return v
	case k.signed:
		return int64(int16(b))
	}
	return int64(b)
}

// refKeysRow is a row of key bits of one of several kinds of content, for
// the widths the radix and counting sorts choose between: full-width
// random bits with specials (±0, ±Inf, NaNs of both signs and several
// payloads, subnormals) and duplicates; float32 values of bfloat16s (the
// low half zero) with the specials that keep that; integers within windows
// of several widths and offsets; a few distinct values; one value.
func refKeysRow(r *rand.Rand, k sortRefKind, n int, flavour int) []uint32 {
	x := make([]uint32, n)
	pool := make([]uint32, 1+r.IntN(5))
	for i := range pool {
		pool[i] = r.Uint32()
	}
	base := r.Uint32()
	span := []uint32{3, 200, 60000, 1 << 20}[r.IntN(4)]
	specials32 := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800123, 0x7fff0000, 0x00000001, 0x80000001, 0x3f800000, 0xbf800000}
	specialsBF := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f810000, 0xff850000, 0x3f800000, 0xbf800000}
	for i := range x {
		var v uint32
		switch flavour {
		case 0: // full width
			switch p := r.IntN(10); {
			case p == 0:
				v = specials32[r.IntN(len(specials32))]
			case p == 1 && i > 0:
				v = x[r.IntN(i)]
			case p == 2:
				v = r.Uint32()
			default:
				v = math.Float32bits(float32(r.NormFloat64() * 100))
			}
		case 1: // float32 of bfloat16 values
			if r.IntN(12) == 0 {
				v = specialsBF[r.IntN(len(specialsBF))]
			} else {
				v = math.Float32bits(float32(r.NormFloat64())) &^ 0xffff
			}
		case 2: // normal values only (no specials)
			v = math.Float32bits(float32(r.NormFloat64()))
			if r.IntN(2) == 0 {
				v &^= 0xffff
			}
		case 3: // integers in a window
			v = base + uint32(r.IntN(int(span)))
		case 4: // few values
			v = pool[r.IntN(len(pool))]
		case 5: // one value
			v = pool[0]
		case 10, 11, 12, 13: // full width normal values, one kind of special or none
			v = math.Float32bits(float32(r.NormFloat64()))
			if r.IntN(12) == 0 {
				switch flavour {
				case 11:
					v = []uint32{0, 0x80000000}[r.IntN(2)]
				case 12:
					v = []uint32{0x7fc00000, 0x7f800001, 0xffc00000, 0xff800123, 0x7f800000, 0xff800000}[r.IntN(6)]
				case 13:
					v = []uint32{0x00000001, 0x80000001, 0x807fffff, 0x003fffff, 0x7f800000, 0xff800000}[r.IntN(6)]
				}
			}
		default: // float32 of bfloat16 values, one kind of special or none
			v = math.Float32bits(float32(r.NormFloat64())) &^ 0xffff
			if r.IntN(12) == 0 {
				switch flavour {
				case 6:
					v = []uint32{0, 0x80000000}[r.IntN(2)]
				case 7:
					v = []uint32{0x7fc00000, 0x7f810000, 0x7fff0000}[r.IntN(3)]
				case 8:
					v = []uint32{0xffc00000, 0xff810000}[r.IntN(2)]
				}
			}
		}
		if k.bits == 16 {
			switch {
			case flavour != 3 && flavour != 4 && flavour != 5 && k.name == "f16":
				h := f32ToF16(math.Float32frombits(v))
				if r.IntN(20) == 0 {
					h = uint16(r.Uint32()) | 0x7c01 // a NaN with a payload of its own
				}
				v = uint32(h)
			case flavour != 3 && flavour != 4 && flavour != 5:
				v >>= 16
			case flavour == 3:
				v = base>>16 + uint32(r.IntN(int(min(span, 1<<16))))
			}
			v &= 0xffff
		}
		x[i] = v
	}
	return x
}

// TestSortAgainstReference sorts rows of every key type, order and length
// (insertion into short rows, the radix passes of short rows, the counting
// sort and the radix passes of keys alone, keys with a payload), the rows
// of one call of several kinds of content in turn, and compares keys and
// payloads with a stable sort by the reference order.
func TestSortAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(85, 86))
	lengths := []int{1, 2, 3, 5, 7, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 61, 63, 64, 65, 255, 256, 257, 1021,
		1535, 1536, 1537, 2039, 2046, 2047, 2048, 2049, 2053, 4093, 4096, 4099, 50000, 65535, 65537}
	for _, k := range sortRefKinds() {
		for _, n := range lengths {
			if testing.Short() && n > 10000 && k.name != "f32" && k.name != "bf16" {
				continue // the long rows of the other kinds take the same paths
			}
			rows := 4
			if n > 10000 {
				rows = 2
			}
			for _, order := range []SortOrder{SortAscending, SortDescending, SortCanonicalNaN, SortDescending | SortCanonicalNaN} {
				if !k.float && order&SortCanonicalNaN != 0 {
					continue
				}
				canon := order&SortCanonicalNaN != 0
				var x []uint32
				for row := range rows {
					// Odd rows hold one kind of special (or none) among
					// bfloat16 values or full-width normal ones, after a
					// row of any kind, half of them bfloat16 values
					// without specials: the rows the counting sort takes
					// after such a row, and the 11-bit radix passes.
					flavour := 6 + r.IntN(8)
					if row%2 == 0 {
						flavour = r.IntN(14)
						if r.IntN(2) == 0 {
							flavour = 9
						}
					}
					x = append(x, refKeysRow(r, k, n, flavour)...)
				}
				// The reference: positions stably sorted by the order.
				want := make([]int32, len(x))
				rk := make([]int64, len(x))
				for i, b := range x {
					want[i] = int32(i % n)
					rk[i] = k.refKey(b, canon)
				}
				for row := range rows {
					src := rk[row*n : (row+1)*n]
					slices.SortStableFunc(want[row*n:(row+1)*n], func(a, b int32) int {
						if order&SortDescending != 0 {
							a, b = b, a
						}
						switch {
						case src[a] < src[b]:
							return -1
						case src[a] > src[b]:
							return 1
						}
						return 0
					})
				}
				for _, payload := range []bool{true, false} {
					name := fmt.Sprintf("%s n=%d order=%d payload=%v", k.name, n, order, payload)
					got := append([]uint32(nil), x...)
					var idx []int32
					if payload {
						idx = make([]int32, len(x))
						for i := range idx {
							idx[i] = int32(i % n)
						}
					}
					k.sort(got, idx, n, order)
					for i, p := range want {
						row := i / n
						if w := x[row*n+int(p)]; got[i] != w || payload && idx[i] != p {
							gi := int32(-1)
							if payload {
								gi = idx[i]
							}
							t.Fatalf("%s: row %d position %d: key %#x index %d, want key %#x index %d", name, row, i%n, got[i], gi, w, p)
						}
					}
				}
			}
		}
	}
	// No rows at all.
	SortF32(nil, nil, 4, SortAscending)
	SortBF16([]uint16{}, nil, 1, SortCanonicalNaN)
}

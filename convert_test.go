package kiln

import (
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"
)

// f16Value is the exact value of binary16 bits (NaN for NaN), computed from
// the fields: an oracle independent of the conversions under test.
func f16Value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	switch {
	case e == 31 && m == 0:
		return sign * math.Inf(1)
	case e == 31:
		return math.NaN()
	case e == 0:
		return sign * math.Ldexp(m, -24)
	}
	return sign * math.Ldexp(1024+m, e-25)
}

// f16Table is every finite non-negative binary16 value in increasing order
// (the bits are the index), for nearest-value searches.
var f16Table = func() []float64 {
	t := make([]float64, 0x7c00)
	for h := range t {
		t[h] = f16Value(uint16(h))
	}
	return t
}()

// nearestF16 rounds x to binary16 by searching the table: the nearest value,
// ties to the even bit pattern, and ±Inf from 65520 up (halfway between the
// largest finite value and the next power of two).
func nearestF16(x float32) uint16 {
	v := float64(x)
	var sign uint16
	if math.Signbit(v) {
		sign, v = 0x8000, -v
	}
	if v >= 65520 {
		return sign | 0x7c00
	}
	i := sort.SearchFloat64s(f16Table, v) // first ≥ v
	if i == len(f16Table) {
		return sign | 0x7bff // above 65504, below 65520
	}
	if f16Table[i] == v {
		return sign | uint16(i)
	}
	lo, hi := i-1, i
	dlo, dhi := v-f16Table[lo], f16Table[hi]-v
	switch {
	case dlo < dhi:
		return sign | uint16(lo)
	case dhi < dlo:
		return sign | uint16(hi)
	case lo%2 == 0:
		return sign | uint16(lo)
	}
	return sign | uint16(hi)
}

// nanF16 is the binary16 NaN a float32 NaN becomes: sign, the top 10 payload
// bits, the quiet bit when those are zero.
func nanF16(x float32) uint16 {
	b := math.Float32bits(x)
	p := uint16(b>>13) & 0x3ff
	if p == 0 {
		p = 0x200
	}
	return uint16(b>>16)&0x8000 | 0x7c00 | p
}

// sampleStride is the stride through all float32 bit patterns of the
// conversion tests: wider where the tests run under emulation.
func sampleStride() uint32 {
	if testing.Short() || runtime.GOARCH != "amd64" {
		return 1 << 15
	}
	return 1 << 11
}

// interestingF32 is a sample of float32 bit patterns: a stride through all
// of them, every float32 around each binary16 rounding boundary (the
// midpoints between consecutive binary16 values and the values themselves),
// and special values.
func interestingF32(stride uint32) []float32 {
	var xs []float32
	for b := uint64(0x17); b < 1<<32; b += uint64(stride) {
		xs = append(xs, math.Float32frombits(uint32(b)))
	}
	for h := 0; h+1 < len(f16Table); h += 3 {
		for _, v := range []float64{f16Table[h], (f16Table[h] + f16Table[h+1]) / 2} {
			f := float32(v)
			for d := -1; d <= 1; d++ {
				y := math.Float32frombits(uint32(int32(math.Float32bits(f)) + int32(d)))
				xs = append(xs, y, -y)
			}
		}
	}
	return append(xs, specials...)
}

// TestF32ToF16 checks the conversion against a nearest-value search over
// the binary16 table, at the chosen level, with the twin alongside.
func TestF32ToF16(t *testing.T) {
	xs := interestingF32(sampleStride())
	got := make([]uint16, len(xs))
	F32ToF16(got, xs)
	twin := make([]uint16, len(xs))
	f32ToF16Go(twin, xs)
	for i, x := range xs {
		want := nearestF16(x)
		if x != x {
			want = nanF16(x)
		}
		if got[i] != want || twin[i] != want {
			t.Fatalf("F32ToF16(%v = %#08x) = %#04x (twin %#04x), want %#04x", x, math.Float32bits(x), got[i], twin[i], want)
		}
	}
	// Known values.
	for _, c := range []struct {
		x    float32
		want uint16
	}{{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65519.99, 0x7bff}, {65520, 0x7c00}, {0x1p-24, 0x0001},
		{0x1p-25, 0x0000}, {0x1.8p-25, 0x0001}, {0x1.8p-24, 0x0002}, {float32(math.Copysign(0, -1)), 0x8000}, {1.0 / 3, 0x3555},
		{math.Float32frombits(0x7fc00000), 0x7e00}, {math.Float32frombits(0x7f802000), 0x7c01}, {math.Float32frombits(0xffa00000), 0xfd00},
		{float32(math.Inf(-1)), 0xfc00}, {0x1p-14, 0x0400}, {0x1.ffcp-15, 0x0400}} {
		got := make([]uint16, 1)
		F32ToF16(got, []float32{c.x})
		if got[0] != c.want {
			t.Errorf("F32ToF16(%v) = %#04x, want %#04x", c.x, got[0], c.want)
		}
	}
}

// TestF16ToF32 converts every binary16 bit pattern and checks the value,
// the NaN payload and the round trip back.
func TestF16ToF32(t *testing.T) {
	hs := make([]uint16, 1<<16)
	for i := range hs {
		hs[i] = uint16(i)
	}
	got := make([]float32, len(hs))
	F16ToF32(got, hs)
	twin := make([]float32, len(hs))
	f16ToF32Go(twin, hs)
	back := make([]uint16, len(hs))
	F32ToF16(back, got)
	for i, h := range hs {
		want := f16Value(h)
		g := got[i]
		if math.Float32bits(g) != math.Float32bits(twin[i]) {
			t.Fatalf("F16ToF32(%#04x) = %#08x, twin %#08x", h, math.Float32bits(g), math.Float32bits(twin[i]))
		}
		if want != want {
			if wantBits := uint32(h&0x8000)<<16 | 0x7f800000 | uint32(h&0x3ff)<<13; math.Float32bits(g) != wantBits {
				t.Fatalf("F16ToF32(%#04x) = %#08x, want the NaN %#08x", h, math.Float32bits(g), wantBits)
			}
		} else if float64(g) != want || math.Signbit(float64(g)) != math.Signbit(want) {
			t.Fatalf("F16ToF32(%#04x) = %v, want %v", h, g, want)
		}
		if back[i] != h {
			t.Fatalf("binary16 %#04x does not round-trip: %#04x", h, back[i])
		}
	}
}

// nearestBF16 rounds x to bfloat16 with big.Float (8 significant bits,
// ties to even) above the subnormal range and on the 2^-133 grid below.
func nearestBF16(x float32) uint16 {
	v := float64(x)
	sign := uint16(0)
	if math.Signbit(v) {
		sign, v = 0x8000, -v
	}
	var r float64
	if v < 0x1p-126 {
		r = math.RoundToEven(v*0x1p133) * 0x1p-133
	} else {
		f := new(big.Float).SetPrec(8).SetMode(big.ToNearestEven).SetFloat64(v)
		r, _ = f.Float64()
	}
	if r >= 0x1p128 {
		return sign | 0x7f80
	}
	return sign | uint16(math.Float32bits(float32(r))>>16)
}

func TestF32ToBF16(t *testing.T) {
	xs := interestingF32(sampleStride())
	// Around every bfloat16 rounding boundary of a few binades too.
	for b := uint32(0x3f800000); b < 0x40800000; b += 0x8000 {
		for d := int32(-1); d <= 1; d++ {
			xs = append(xs, math.Float32frombits(uint32(int32(b)+d)), math.Float32frombits(uint32(int32(b)+d)|1<<31))
		}
	}
	got := make([]uint16, len(xs))
	F32ToBF16(got, xs)
	twin := make([]uint16, len(xs))
	f32ToBF16Go(twin, xs)
	for i, x := range xs {
		var want uint16
		if x != x {
			b := math.Float32bits(x)
			want = uint16(b >> 16)
			if want&0x7f == 0 {
				want |= 0x40
			}
		} else {
			want = nearestBF16(x)
		}
		if got[i] != want || twin[i] != want {
			t.Fatalf("F32ToBF16(%v = %#08x) = %#04x (twin %#04x), want %#04x", x, math.Float32bits(x), got[i], twin[i], want)
		}
	}
}

// TestF32ToBF16KnownValues checks values whose bfloat16 bits are known:
// ties to even, the carry into the exponent and to Inf, subnormals, NaN
// payloads.
func TestF32ToBF16KnownValues(t *testing.T) {
	for _, c := range []struct {
		bits uint32
		want uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0x3f808000, 0x3f80}, // 1 + 2^-8: a tie, to even
		{0x3f818000, 0x3f82}, // 1 + 3·2^-8: a tie, to even (up)
		{0x3f808001, 0x3f81}, // just above the tie
		{0x3f7fffff, 0x3f80}, // carry into the exponent
		{0x7f7fffff, 0x7f80}, // the largest float32 rounds to Inf
		{0x7f7f7fff, 0x7f7f}, // the largest bfloat16
		{0x80000000, 0x8000}, // -0
		{0x00000001, 0x0000}, // the smallest subnormal rounds to 0
		{0x00008000, 0x0000}, // a subnormal tie, to even (down)
		{0x00018000, 0x0002}, // a subnormal tie, to even (up)
		{0xff800000, 0xff80}, // -Inf
		{0x7fc00000, 0x7fc0}, // the quiet NaN
		{0x7f800001, 0x7fc0}, // a NaN whose top 7 payload bits are 0: quiet bit
		{0xffa10000, 0xffa1}, // a signalling NaN keeps its payload and sign
	} {
		got := make([]uint16, 1)
		F32ToBF16(got, []float32{math.Float32frombits(c.bits)})
		if got[0] != c.want {
			t.Errorf("F32ToBF16(%#08x) = %#04x, want %#04x", c.bits, got[0], c.want)
		}
	}
}

func TestBF16ToF32(t *testing.T) {
	hs := make([]uint16, 1<<16)
	for i := range hs {
		hs[i] = uint16(i)
	}
	got := make([]float32, len(hs))
	BF16ToF32(got, hs)
	back := make([]uint16, len(hs))
	F32ToBF16(back, got)
	for i, h := range hs {
		if math.Float32bits(got[i]) != uint32(h)<<16 {
			t.Fatalf("BF16ToF32(%#04x) = %#08x, want %#08x", h, math.Float32bits(got[i]), uint32(h)<<16)
		}
		if back[i] != h {
			t.Fatalf("bfloat16 %#04x does not round-trip: %#04x", h, back[i])
		}
	}
}

func TestF32ToS32(t *testing.T) {
	xs := interestingF32(sampleStride())
	got := make([]int32, len(xs))
	F32ToS32(got, xs)
	twin := make([]int32, len(xs))
	f32ToS32Go(twin, xs)
	for i, x := range xs {
		var want int32
		switch v := float64(x); {
		case v != v:
			want = 0
		case v >= 0x1p31:
			want = math.MaxInt32
		case v < -0x1p31:
			want = math.MinInt32
		default:
			want = int32(math.Trunc(v))
		}
		if got[i] != want || twin[i] != want {
			t.Fatalf("F32ToS32(%v) = %d (twin %d), want %d", x, got[i], twin[i], want)
		}
	}
}

func TestS32ToF32(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	xs := []int32{0, 1, -1, math.MaxInt32, math.MinInt32, 1 << 24, 1<<24 + 1, 1<<24 + 3, -(1<<24 + 1)}
	for len(xs) < 5000 {
		xs = append(xs, int32(r.Uint32())>>(r.IntN(32)))
	}
	got := make([]float32, len(xs))
	S32ToF32(got, xs)
	for i, x := range xs {
		if want := float32(x); got[i] != want {
			t.Fatalf("S32ToF32(%d) = %v, want %v", x, got[i], want)
		}
	}
}

func TestU8S8ToF32(t *testing.T) {
	u := make([]uint8, 256+37)
	s := make([]int8, len(u))
	for i := range u {
		u[i] = uint8(i * 7)
		s[i] = int8(i * 7)
	}
	gu := make([]float32, len(u))
	gs := make([]float32, len(u))
	U8ToF32(gu, u)
	S8ToF32(gs, s)
	for i := range u {
		if gu[i] != float32(u[i]) || gs[i] != float32(s[i]) {
			t.Fatalf("element %d: U8ToF32(%d) = %v, S8ToF32(%d) = %v", i, u[i], gu[i], s[i], gs[i])
		}
	}
}

// TestConversionsMatchTwin runs every conversion at every level on every
// tail length, unaligned, against its twin.
func TestConversionsMatchTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	forEachLevel(t, func(level string) {
		for _, n := range testLengths() {
			off := n % 3
			f := make([]float32, n+off)[off:]
			h := make([]uint16, n+off)[off:]
			i32 := make([]int32, n+off)[off:]
			u8 := make([]uint8, n+off)[off:]
			for j := range f {
				f[j] = operand(r, uniform(-70000, 70000))
				h[j] = uint16(r.Uint32())
				i32[j] = int32(r.Uint32())
				u8[j] = uint8(r.Uint32())
			}
			s8 := make([]int8, n)
			for j := range s8 {
				s8[j] = int8(u8[j])
			}
			checkU16 := func(name string, fn, twin func([]uint16, []float32)) {
				a, b := make([]uint16, n), make([]uint16, n)
				fn(a, f)
				twin(b, f)
				for j := range a {
					if a[j] != b[j] {
						t.Fatalf("%s %s n=%d: element %d (%v): %#04x, twin %#04x", level, name, n, j, f[j], a[j], b[j])
					}
				}
			}
			checkF32 := func(name string, fn, twin func([]float32)) {
				a, b := make([]float32, n), make([]float32, n)
				fn(a)
				twin(b)
				for j := range a {
					if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
						t.Fatalf("%s %s n=%d: element %d: %#08x, twin %#08x", level, name, n, j, math.Float32bits(a[j]), math.Float32bits(b[j]))
					}
				}
			}
			checkU16("F32ToF16", F32ToF16, f32ToF16Go)
			checkU16("F32ToBF16", F32ToBF16, f32ToBF16Go)
			checkF32("F16ToF32", func(d []float32) { F16ToF32(d, h) }, func(d []float32) { f16ToF32Go(d, h) })
			checkF32("BF16ToF32", func(d []float32) { BF16ToF32(d, h) }, func(d []float32) { bf16ToF32Go(d, h) })
			checkF32("S32ToF32", func(d []float32) { S32ToF32(d, i32) }, func(d []float32) { s32ToF32Go(d, i32) })
			checkF32("U8ToF32", func(d []float32) { U8ToF32(d, u8) }, func(d []float32) { u8ToF32Go(d, u8) })
			checkF32("S8ToF32", func(d []float32) { S8ToF32(d, s8) }, func(d []float32) { s8ToF32Go(d, s8) })
			a, b := make([]int32, n), make([]int32, n)
			F32ToS32(a, f)
			f32ToS32Go(b, f)
			for j := range a {
				if a[j] != b[j] {
					t.Fatalf("%s F32ToS32 n=%d: element %d (%v): %d, twin %d", level, n, j, f[j], a[j], b[j])
				}
			}
		}
	})
}

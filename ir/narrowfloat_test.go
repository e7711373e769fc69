package ir

import (
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"
)

// narrowCase describes one narrow type for the table-driven tests below,
// through the exported API only.
type narrowCase struct {
	name       string
	width      int // bits
	exp, man   int
	ieee       bool
	fromF32    func(float32) uint32
	fromF64    func(float64) uint32
	toF32      func(uint32) float32
	toF64      func(uint32) float64
	defaultNaN uint32
}

var narrowCases = []narrowCase{
	{"f16", 16, 5, 10, true,
		func(f float32) uint32 { return uint32(Float16FromFloat32(f)) },
		func(f float64) uint32 { return uint32(Float16FromFloat64(f)) },
		func(b uint32) float32 { return Float16(b).Float32() },
		func(b uint32) float64 { return Float16(b).Float64() }, 0x7e00},
	{"bf16", 16, 8, 7, true,
		func(f float32) uint32 { return uint32(BFloat16FromFloat32(f)) },
		func(f float64) uint32 { return uint32(BFloat16FromFloat64(f)) },
		func(b uint32) float32 { return BFloat16(b).Float32() },
		func(b uint32) float64 { return BFloat16(b).Float64() }, 0x7fc0},
	{"f8e5m2", 8, 5, 2, true,
		func(f float32) uint32 { return uint32(Float8E5M2FromFloat32(f)) },
		func(f float64) uint32 { return uint32(Float8E5M2FromFloat64(f)) },
		func(b uint32) float32 { return Float8E5M2(b).Float32() },
		func(b uint32) float64 { return Float8E5M2(b).Float64() }, 0x7e},
	{"f8e4m3fn", 8, 4, 3, false,
		func(f float32) uint32 { return uint32(Float8E4M3FNFromFloat32(f)) },
		func(f float64) uint32 { return uint32(Float8E4M3FNFromFloat64(f)) },
		func(b uint32) float32 { return Float8E4M3FN(b).Float32() },
		func(b uint32) float64 { return Float8E4M3FN(b).Float64() }, 0x7f},
}

// kind classifies a bit pattern from the format's definition: 'n' NaN, 'i'
// Inf, 'f' finite.
func (c narrowCase) kind(b uint32) byte {
	mag := b &^ (1 << (c.width - 1))
	e := int(mag >> c.man)
	m := mag & (1<<c.man - 1)
	all := 1<<c.exp - 1
	switch {
	case c.ieee && e == all && m != 0:
		return 'n'
	case c.ieee && e == all:
		return 'i'
	case !c.ieee && e == all && m == 1<<c.man-1:
		return 'n'
	}
	return 'f'
}

// value is the pattern's value from the textbook formula (finite patterns
// only; for the pattern just past the largest finite, the value it would have
// as a normal number).
func (c narrowCase) value(b uint32) float64 {
	sign := 1.0
	if b>>(c.width-1) != 0 {
		sign = -1
	}
	mag := b &^ (1 << (c.width - 1))
	e := int(mag >> c.man)
	m := float64(mag & (1<<c.man - 1))
	bias := 1<<(c.exp-1) - 1
	if e == 0 {
		return sign * math.Ldexp(m, 1-bias-c.man)
	}
	return sign * math.Ldexp(m+float64(int(1)<<c.man), e-bias-c.man)
}

func TestNarrowEveryPatternRoundTrips(t *testing.T) {
	for _, c := range narrowCases {
		for b := uint32(0); b < 1<<c.width; b++ {
			f32, f64 := c.toF32(b), c.toF64(b)
			switch c.kind(b) {
			case 'n':
				if !math.IsNaN(f64) || !math.IsNaN(float64(f32)) {
					t.Fatalf("%s %#x: widened to %v / %v, want NaN", c.name, b, f32, f64)
				}
				if math.Signbit(f64) != (b>>(c.width-1) != 0) || math.Signbit(float64(f32)) != math.Signbit(f64) {
					t.Fatalf("%s %#x: NaN lost its sign", c.name, b)
				}
			case 'i':
				if !math.IsInf(f64, 0) || !math.IsInf(float64(f32), 0) || math.Signbit(f64) != (b>>(c.width-1) != 0) {
					t.Fatalf("%s %#x: widened to %v / %v, want Inf", c.name, b, f32, f64)
				}
			default:
				want := c.value(b)
				if f64 != want || float64(f32) != want || math.Signbit(f64) != math.Signbit(want) {
					t.Fatalf("%s %#x: widened to %v / %v, want %v", c.name, b, f32, f64, want)
				}
			}
			wantBack := b
			if c.kind(b) == 'n' && !c.ieee {
				wantBack = b | 0x7f // the one NaN of each sign
			}
			if got := c.fromF32(f32); got != wantBack {
				t.Fatalf("%s %#x: through float32 (%#x) came back as %#x", c.name, b, math.Float32bits(f32), got)
			}
			if got := c.fromF64(f64); got != wantBack {
				t.Fatalf("%s %#x: through float64 (%#x) came back as %#x", c.name, b, math.Float64bits(f64), got)
			}
		}
	}
}

// TestNarrowHandComputed checks bit patterns worked out by hand from the
// format definitions.
func TestNarrowHandComputed(t *testing.T) {
	type tc struct {
		in   float64
		want uint32
	}
	tables := map[string][]tc{
		"f16": {
			{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {0.5, 0x3800},
			{math.Ldexp(1, -14), 0x0400},              // smallest normal
			{math.Ldexp(1, -24), 0x0001},              // smallest subnormal
			{math.Ldexp(1023, -24), 0x03ff},           // largest subnormal
			{1 + math.Ldexp(1, -11), 0x3c00},          // tie between 0x3c00 and 0x3c01: even
			{1 + 3*math.Ldexp(1, -11), 0x3c02},        // tie between 0x3c01 and 0x3c02: even
			{1 + math.Ldexp(1, -11) + 1e-12, 0x3c01},  // just above the tie
			{math.Ldexp(1, -25), 0x0000},              // half the smallest subnormal: ties to 0
			{math.Ldexp(1, -25) * (1 + 1e-9), 0x0001}, // just above it
			{3 * math.Ldexp(1, -25), 0x0002},          // tie between subnormals 1 and 2
			{math.Ldexp(2047, -25), 0x0400},           // rounds up from the largest subnormal into the normals
			{65519.99, 0x7bff},                        // below the overflow tie
			{65520, 0x7c00},                           // tie between 65504 (odd) and 2^16: even is Inf
			{-65520, 0xfc00},                          // negative overflow
			{1e10, 0x7c00}, {math.Inf(-1), 0xfc00},    // overflow, infinity
			{math.Copysign(0, -1), 0x8000}, // negative zero
			{1.0 / 3, 0x3555},              // 0.333251953125
			{0.1, 0x2e66},                  // 0.0999755859375
			{2049, 0x6800},                 // tie at spacing 2: to 2048
			{2051, 0x6802},                 // tie at spacing 2: to 2052
		},
		"bf16": {
			{1, 0x3f80}, {-1, 0xbf80}, {0.1, 0x3dcd}, {3, 0x4040},
			{1 + math.Ldexp(1, -8), 0x3f80},                      // tie: even
			{1 + 3*math.Ldexp(1, -8), 0x3f82},                    // tie: even
			{1 + math.Ldexp(1, -8) + math.Ldexp(1, -30), 0x3f81}, // direct; through float32 it would be 0x3f80
			{math.Ldexp(1, -133), 0x0001},                        // smallest subnormal
			{math.Ldexp(1, -134), 0x0000},                        // tie with zero
			{math.Ldexp(3, -134), 0x0002},                        // tie between subnormals 1 and 2
			{math.MaxFloat32, 0x7f80},                            // rounds up past the largest finite 0x7f7f
			{math.Float64frombits(0x47efe00000000000), 0x7f7f},   // 0x7f7f's value
			{math.Ldexp(0x1ff, 119), 0x7f80},                     // tie between 0x7f7f (odd) and 2^128: Inf
			{math.Ldexp(0x1ff, 119) * (1 - 1e-9), 0x7f7f},
			{1e39, 0x7f80},
		},
		"f8e5m2": {
			{1, 0x3c}, {-1, 0xbc}, {1.25, 0x3d}, {1.5, 0x3e}, {1.75, 0x3f},
			{57344, 0x7b},                // largest finite
			{math.Ldexp(1, -16), 0x01},   // smallest subnormal
			{math.Ldexp(1, -14), 0x04},   // smallest normal
			{1.125, 0x3c},                // tie: even
			{1.375, 0x3e},                // tie: even
			{61439, 0x7b}, {61440, 0x7c}, // overflow tie (57344 odd): Inf
			{-61440, 0xfc}, {math.Inf(1), 0x7c}, // negative overflow, infinity
			{math.Ldexp(1, -17), 0x00}, // half the smallest subnormal
			{math.Ldexp(3, -17), 0x02},
		},
		"f8e4m3fn": {
			{1, 0x38}, {-1, 0xb8}, {448, 0x7e}, {-448, 0xfe},
			{256, 0x78}, {288, 0x79}, {416, 0x7d}, // normals in the all-ones exponent
			{math.Ldexp(1, -9), 0x01},  // smallest subnormal
			{math.Ldexp(1, -6), 0x08},  // smallest normal
			{math.Ldexp(7, -9), 0x07},  // largest subnormal
			{math.Ldexp(1, -10), 0x00}, // half the smallest subnormal: ties to 0
			{math.Ldexp(3, -10), 0x02}, // tie between subnormals 1 and 2
			{1.0625, 0x38},             // tie: even
			{1.1875, 0x3a},             // tie: even
			{464, 0x7e},                // tie between 448 (even) and 480: stays 448
			{464.0001, 0x7f},           // beyond: NaN
			{-464.0001, 0xff},
			{1e6, 0x7f}, {math.Inf(1), 0x7f}, {math.Inf(-1), 0xff},
		},
	}
	for _, c := range narrowCases {
		for _, x := range tables[c.name] {
			if got := c.fromF64(x.in); got != x.want {
				t.Errorf("%s from float64 %v: got %#x, want %#x", c.name, x.in, got, x.want)
			}
			if f := float32(x.in); float64(f) == x.in || math.IsInf(x.in, 0) {
				if got := c.fromF32(f); got != x.want {
					t.Errorf("%s from float32 %v: got %#x, want %#x", c.name, f, got, x.want)
				}
			}
		}
	}
}

func TestNarrowNaNs(t *testing.T) {
	qnan := math.Float32frombits(0x7fc00000)
	snan1 := math.Float32frombits(0x7f800001) // payload only in the low bits
	negPayload := math.Float32frombits(0xffa00000)
	for _, tc := range []struct {
		name string
		in   float32
		want [4]uint32 // f16, bf16, e5m2, e4m3fn
	}{
		{"quiet", qnan, [4]uint32{0x7e00, 0x7fc0, 0x7e, 0x7f}},
		{"low payload", snan1, [4]uint32{0x7e00, 0x7fc0, 0x7e, 0x7f}},
		{"negative signaling", negPayload, [4]uint32{0xfd00, 0xffa0, 0xfd, 0xff}},
	} {
		for i, c := range narrowCases {
			if got := c.fromF32(tc.in); got != tc.want[i] {
				t.Errorf("%s NaN %s from float32: got %#x, want %#x", c.name, tc.name, got, tc.want[i])
			}
		}
	}
	// Widening keeps the payload on top and does not quiet it.
	if got := math.Float32bits(Float16(0x7c01).Float32()); got != 0x7f802000 {
		t.Errorf("f16 0x7c01 widened to %#x, want 0x7f802000", got)
	}
	if got := math.Float64bits(Float8E5M2(0xfd).Float64()); got != 0xfff4000000000000 {
		t.Errorf("f8e5m2 0xfd widened to %#x, want 0xfff4000000000000", got)
	}
	if got := math.Float32bits(Float8E4M3FN(0xff).Float32()); got != 0xffc00000 {
		t.Errorf("f8e4m3fn 0xff widened to %#x, want 0xffc00000", got)
	}
}

// TestBFloat16NaNsEveryPayload checks BFloat16FromFloat32's own NaN rule
// (written out so that the conversion inlines) against the generic one of
// the format, narrowBF16.nanWithPayload, for every float32 NaN.
func TestBFloat16NaNsEveryPayload(t *testing.T) {
	for sign := uint32(0); sign < 2; sign++ {
		for m := uint32(1); m < 1<<23; m++ {
			b := sign<<31 | 0x7f800000 | m
			want := narrowBF16.nanWithPayload(sign == 1, uint64(m)>>16)
			if got := uint32(BFloat16FromFloat32(math.Float32frombits(b))); got != want {
				t.Fatalf("NaN %#08x: %#04x, the format's rule gives %#04x", b, got, want)
			}
		}
	}
}

// nearestOracle rounds x to the format by searching its sorted finite values
// for the nearest, ties to the even pattern, with exact big.Float arithmetic.
type nearestOracle struct {
	c        narrowCase
	values   []float64 // non-negative finite values, ascending
	patterns []uint32
	beyond   float64 // value of the pattern after the largest finite, as if finite
	maxOdd   bool    // whether the largest finite pattern is odd
}

func newNearestOracle(c narrowCase) *nearestOracle {
	o := &nearestOracle{c: c}
	var maxPat uint32
	for b := uint32(0); b < 1<<(c.width-1); b++ {
		if c.kind(b) == 'f' {
			o.values = append(o.values, c.value(b))
			o.patterns = append(o.patterns, b)
			maxPat = b
		}
	}
	sort.Sort(byValue{o})
	o.beyond = c.value(maxPat + 1)
	o.maxOdd = maxPat&1 == 1
	return o
}

type byValue struct{ o *nearestOracle }

func (s byValue) Len() int           { return len(s.o.values) }
func (s byValue) Less(i, j int) bool { return s.o.values[i] < s.o.values[j] }
func (s byValue) Swap(i, j int) {
	s.o.values[i], s.o.values[j] = s.o.values[j], s.o.values[i]
	s.o.patterns[i], s.o.patterns[j] = s.o.patterns[j], s.o.patterns[i]
}

func exactCmpDistance(a, lo, hi float64) int {
	x, l, h := new(big.Float).SetPrec(2200), new(big.Float).SetPrec(2200), new(big.Float).SetPrec(2200)
	x.SetFloat64(a)
	l.SetFloat64(lo)
	h.SetFloat64(hi)
	dl := new(big.Float).SetPrec(2200).Sub(x, l)
	dh := new(big.Float).SetPrec(2200).Sub(h, x)
	return dl.Cmp(dh)
}

func (o *nearestOracle) round(x float64) uint32 {
	sign := uint32(0)
	if math.Signbit(x) {
		sign = 1 << (o.c.width - 1)
	}
	a := math.Abs(x)
	n := len(o.values)
	overflow := sign | uint32(1<<(o.c.width-1)-1) // e4m3fn NaN
	if o.c.ieee {
		overflow = sign | uint32(1<<o.c.exp-1)<<o.c.man
	}
	if a >= o.values[n-1] {
		if a == o.values[n-1] {
			return sign | o.patterns[n-1]
		}
		switch cmp := exactCmpDistance(a, o.values[n-1], o.beyond); {
		case cmp < 0 || cmp == 0 && o.maxOdd == false:
			return sign | o.patterns[n-1]
		default:
			return overflow
		}
	}
	i := sort.SearchFloat64s(o.values, a) // first value >= a
	if o.values[i] == a {
		return sign | o.patterns[i]
	}
	lo, hi := i-1, i
	switch cmp := exactCmpDistance(a, o.values[lo], o.values[hi]); {
	case cmp < 0:
		return sign | o.patterns[lo]
	case cmp > 0:
		return sign | o.patterns[hi]
	case o.patterns[lo]&1 == 0:
		return sign | o.patterns[lo]
	}
	return sign | o.patterns[hi]
}

func TestNarrowRoundingMatchesNearestSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range narrowCases {
		o := newNearestOracle(c)
		var inputs []float64
		// Every value, every midpoint, and their float64 and float32 neighbours.
		for i, v := range o.values {
			pts := []float64{v}
			if i+1 < len(o.values) {
				pts = append(pts, (v+o.values[i+1])/2)
			} else {
				pts = append(pts, (v+o.beyond)/2)
			}
			for _, p := range pts {
				inputs = append(inputs, p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)),
					float64(math.Nextafter32(float32(p), 0)), float64(math.Nextafter32(float32(p), float32(math.Inf(1)))))
			}
		}
		// Random values over the whole exponent range of the format and beyond.
		bias := 1<<(c.exp-1) - 1
		for range 20000 {
			e := rng.IntN(2*bias+c.man+8) - bias - c.man - 4
			inputs = append(inputs, math.Ldexp(1+rng.Float64(), e))
		}
		for _, x := range inputs {
			for _, s := range []float64{x, -x} {
				want := o.round(s)
				if got := c.fromF64(s); got != want {
					t.Fatalf("%s from float64 %v (%#x): got %#x, want %#x", c.name, s, math.Float64bits(s), got, want)
				}
				if f := float32(s); !math.IsInf(float64(f), 0) {
					want := o.round(float64(f))
					if got := c.fromF32(f); got != want {
						t.Fatalf("%s from float32 %v (%#x): got %#x, want %#x", c.name, f, math.Float32bits(f), got, want)
					}
				}
			}
		}
	}
}

func BenchmarkNarrowConversions(b *testing.B) {
	src := make([]float32, 4096)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range src {
		src[i] = float32(rng.NormFloat64())
	}
	h := make([]Float16, len(src))
	bf := make([]BFloat16, len(src))
	e5 := make([]Float8E5M2, len(src))
	dst := make([]float32, len(src))
	b.Run("Float16FromFloat32", func(b *testing.B) {
		b.SetBytes(int64(4 * len(src)))
		for b.Loop() {
			for i, f := range src {
				h[i] = Float16FromFloat32(f)
			}
		}
	})
	b.Run("Float16.Float32", func(b *testing.B) {
		b.SetBytes(int64(4 * len(src)))
		for b.Loop() {
			for i, x := range h {
				dst[i] = x.Float32()
			}
		}
	})
	b.Run("BFloat16FromFloat32", func(b *testing.B) {
		b.SetBytes(int64(4 * len(src)))
		for b.Loop() {
			for i, f := range src {
				bf[i] = BFloat16FromFloat32(f)
			}
		}
	})
	b.Run("Float8E5M2FromFloat32", func(b *testing.B) {
		b.SetBytes(int64(4 * len(src)))
		for b.Loop() {
			for i, f := range src {
				e5[i] = Float8E5M2FromFloat32(f)
			}
		}
	})
}

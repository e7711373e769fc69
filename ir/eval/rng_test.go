package eval

import (
	"fmt"
	"math"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// Known-answer vectors of the Random123 distribution (kat_vectors) for
// Threefry-2x32 with 20 rounds and Philox-4x32 with 10 rounds.
func TestThreefryKnownAnswers(t *testing.T) {
	for _, c := range []struct{ key, ctr, want [2]uint32 }{
		{[2]uint32{0, 0}, [2]uint32{0, 0}, [2]uint32{0x6b200159, 0x99ba4efe}},
		{[2]uint32{0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [2]uint32{0x1cb996fc, 0xbb002be7}},
		{[2]uint32{0x13198a2e, 0x03707344}, [2]uint32{0x243f6a88, 0x85a308d3}, [2]uint32{0xc4923a9c, 0x483df7a0}},
	} {
		if got := ops.Threefry2x32(c.key, c.ctr); got != c.want {
			t.Errorf("ops.Threefry2x32(key %#x, ctr %#x) = %#x, want %#x", c.key, c.ctr, got, c.want)
		}
	}
}

func TestPhiloxKnownAnswers(t *testing.T) {
	for _, c := range []struct {
		key  [2]uint32
		ctr  [4]uint32
		want [4]uint32
	}{
		{[2]uint32{0, 0}, [4]uint32{0, 0, 0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[2]uint32{0xffffffff, 0xffffffff}, [4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
			[4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
			[4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	} {
		if got := ops.Philox4x32(c.key, c.ctr); got != c.want {
			t.Errorf("ops.Philox4x32(key %#x, ctr %#x) = %#x, want %#x", c.key, c.ctr, got, c.want)
		}
	}
}

func rbgModule(alg, state, out string) string {
	return fmt.Sprintf(`HloModule m
ENTRY e {
  s = %s parameter(0)
  ROOT r = (%s, %s) rng-bit-generator(s), algorithm=%s
}
`, state, state, out, alg)
}

func tf(key, ctr uint64) [2]uint32 {
	return ops.Threefry2x32([2]uint32{uint32(key), uint32(key >> 32)}, [2]uint32{uint32(ctr), uint32(ctr >> 32)})
}

// TestThreeFryExpansion checks XLA's ThreeFry layout: 64-bit elements take
// one counter each; 32-bit elements split the shape along its first even
// dimension (else its largest) and interleave the two output words.
func TestThreeFryExpansion(t *testing.T) {
	key, ctr := uint64(0x0123456789abcdef), uint64(0xfffffffffffffffe) // the counter wraps
	st := vec(key, ctr)
	out := runHLO(t, rbgModule("rng_three_fry", "u64[2]", "u64[3]"), st)
	for i, v := range ir.Values[uint64](out[1]) {
		x := tf(key, ctr+uint64(i))
		if want := uint64(x[0]) | uint64(x[1])<<32; v != want {
			t.Fatalf("u64 element %d = %#x, want %#x", i, v, want)
		}
	}
	if got := ir.Values[uint64](out[0]); got[0] != key || got[1] != ctr+3 {
		t.Fatalf("new state %#x, want [%#x %#x]", got, key, ctr+3)
	}
	// u32[3,4]: dimension 1 (size 4) is split; element (r, 2a+b) is word b
	// of counter ctr + r*2 + a. The counter advances by 6.
	out = runHLO(t, rbgModule("rng_three_fry", "u64[2]", "u32[3,4]"), st)
	got := ir.Values[uint32](out[1])
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			x := tf(key, ctr+uint64(r*2+c/2))
			if got[r*4+c] != x[c%2] {
				t.Fatalf("u32[3,4] element (%d,%d) = %#x, want %#x", r, c, got[r*4+c], x[c%2])
			}
		}
	}
	if s := ir.Values[uint64](out[0]); s[1] != ctr+6 {
		t.Fatalf("new counter %#x, want %#x", s[1], ctr+6)
	}
	// u32[5]: no even dimension, the largest (0) is split in halves of 3.
	out = runHLO(t, rbgModule("rng_three_fry", "u64[2]", "u32[5]"), st)
	got = ir.Values[uint32](out[1])
	for i := 0; i < 5; i++ {
		if x := tf(key, ctr+uint64(i/2)); got[i] != x[i%2] {
			t.Fatalf("u32[5] element %d = %#x, want %#x", i, got[i], x[i%2])
		}
	}
	// A scalar is word 0 of the first counter; the counter advances by 1.
	out = runHLO(t, rbgModule("rng_three_fry", "u64[2]", "u32[]"), st)
	if x := tf(key, ctr); ir.Values[uint32](out[1])[0] != x[0] || ir.Values[uint64](out[0])[1] != ctr+1 {
		t.Fatalf("scalar: %#x state %#x", ir.Values[uint32](out[1]), ir.Values[uint64](out[0]))
	}
	// Narrow and float types take the low bits of the same 32-bit stream.
	words := ir.Values[uint32](runHLO(t, rbgModule("rng_three_fry", "u64[2]", "u32[3,4]"), st)[1])
	u8 := ir.Values[uint8](runHLO(t, rbgModule("rng_three_fry", "u64[2]", "u8[3,4]"), st)[1])
	f16 := ir.Values[ir.Float16](runHLO(t, rbgModule("rng_three_fry", "u64[2]", "f16[3,4]"), st)[1])
	f32 := ir.Values[float32](runHLO(t, rbgModule("rng_three_fry", "u64[2]", "f32[3,4]"), st)[1])
	s4 := ir.Values[ir.Int4](runHLO(t, rbgModule("rng_three_fry", "u64[2]", "s4[3,4]"), st)[1])
	for i, w := range words {
		s := int8(w&0xf) << 4 >> 4
		if u8[i] != uint8(w) || uint16(f16[i]) != uint16(w) || math.Float32bits(f32[i]) != w || int8(s4[i]) != s {
			t.Fatalf("element %d: u8 %#x f16 %#x f32 %#x s4 %d from word %#x", i, u8[i], f16[i], math.Float32bits(f32[i]), s4[i], w)
		}
	}
}

func px(key, lo, hi uint64) [4]uint32 {
	return ops.Philox4x32([2]uint32{uint32(key), uint32(key >> 32)},
		[4]uint32{uint32(lo), uint32(lo >> 32), uint32(hi), uint32(hi >> 32)})
}

// TestPhiloxExpansion checks XLA's Philox layout: 32-bit element 4i+j is
// word j of block counter+i (128-bit counter, low word state[1]); 64-bit
// element 2i+j joins words 2j and 2j+1; u64[2] states use state[0] as the
// counter's high half and return only the low half.
func TestPhiloxExpansion(t *testing.T) {
	key, lo, hi := uint64(42), uint64(math.MaxUint64), uint64(7) // the low half carries
	st := vec(key, lo, hi)
	out := runHLO(t, rbgModule("rng_philox", "u64[3]", "u32[2,3]"), st)
	got := ir.Values[uint32](out[1])
	for i := 0; i < 6; i++ {
		b := uint64(i / 4)
		l, h := lo+b, hi
		if l < lo {
			h++
		}
		if w := px(key, l, h)[i%4]; got[i] != w {
			t.Fatalf("u32 element %d = %#x, want %#x", i, got[i], w)
		}
	}
	if s := ir.Values[uint64](out[0]); s[0] != key || s[1] != 1 || s[2] != 8 {
		t.Fatalf("new state %v, want [42 1 8]", s)
	}
	out = runHLO(t, rbgModule("rng_philox", "u64[3]", "u64[3]"), vec(key, 5, 0))
	g64 := ir.Values[uint64](out[1])
	for i := 0; i < 3; i++ {
		w := px(key, 5+uint64(i/2), 0)
		j := 2 * (i % 2)
		if want := uint64(w[j]) | uint64(w[j+1])<<32; g64[i] != want {
			t.Fatalf("u64 element %d = %#x, want %#x", i, g64[i], want)
		}
	}
	if s := ir.Values[uint64](out[0]); s[1] != 7 {
		t.Fatalf("counter after 2 blocks %d, want 7", s[1])
	}
	// u64[2] state: counter (low state[1], high state[0]).
	out = runHLO(t, rbgModule("rng_philox", "u64[2]", "u32[4]"), vec(key, uint64(9)))
	if w := px(key, 9, key); [4]uint32(ir.Values[uint32](out[1])) != w {
		t.Fatalf("u64[2] state stream %#x, want %#x", ir.Values[uint32](out[1]), w)
	}
	if s := ir.Values[uint64](out[0]); s[0] != key || s[1] != 10 {
		t.Fatalf("u64[2] new state %v, want [42 10]", s)
	}
	// RNG_DEFAULT is PHILOX.
	a := runHLO(t, rbgModule("rng_default", "u64[3]", "u32[7]"), st)
	b := runHLO(t, rbgModule("rng_philox", "u64[3]", "u32[7]"), st)
	if !a[1].Equal(b[1]) || !a[0].Equal(b[0]) {
		t.Fatalf("rng_default differs from rng_philox")
	}
}

func TestRngBitGeneratorErrors(t *testing.T) {
	err := runErr(t, rbgModule("rng_three_fry", "u64[3]", "u32[4]"), vec[uint64](1, 2, 3))
	wantErr(t, err, "THREE_FRY", "u64[2]")
	err = runErr(t, rbgModule("rng_philox", "u64[4]", "u32[4]"), vec[uint64](1, 2, 3, 4))
	wantErr(t, err, "u64[4]", "u64[3]")
	err = runErr(t, rbgModule("rng_philox", "u64[3]", "pred[4]"), vec[uint64](1, 2, 3))
	wantErr(t, err, "pred")
}

func rngModule(dist, ty string, n int) string {
	return fmt.Sprintf(`HloModule m
ENTRY e {
  a = %[2]s[] parameter(0)
  b = %[2]s[] parameter(1)
  r1 = %[2]s[%[3]d] rng(a, b), distribution=%[1]s
  r2 = %[2]s[%[3]d] rng(a, b), distribution=%[1]s
  ROOT t = (%[2]s[%[3]d], %[2]s[%[3]d]) tuple(r1, r2)
}
`, dist, ty, n)
}

func TestRngUniformFloatRangeAndState(t *testing.T) {
	n := 100000
	m := parseHLO(t, rngModule("rng_uniform", "f32", n))
	out, err := RunWithOptions(m, Options{Seed: 5}, scalar[float32](-2), scalar[float32](3))
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, v := range out[0].Float32s() {
		if v < -2 || v >= 3 {
			t.Fatalf("value %v outside [-2, 3)", v)
		}
		sum += float64(v)
	}
	if mean := sum / float64(n); math.Abs(mean-0.5) > 0.03 {
		t.Fatalf("mean %v, want about 0.5", mean)
	}
	if out[0].Equal(out[1]) {
		t.Fatalf("two rng ops gave the same values: the state did not advance")
	}
	again, _ := RunWithOptions(m, Options{Seed: 5}, scalar[float32](-2), scalar[float32](3))
	other, _ := RunWithOptions(m, Options{Seed: 6}, scalar[float32](-2), scalar[float32](3))
	if !again[0].Equal(out[0]) || other[0].Equal(out[0]) {
		t.Fatalf("rng must be a function of the seed")
	}
	// The first value follows XLA's bits-to-float mapping of the Philox
	// stream with key = seed and counter 0.
	w := px(5, 0, 0)[0]
	want := float32(w>>9) * float32(math.Ldexp(1, -23))
	want = want*5 + -2
	if got := out[0].Float32s()[0]; got != want {
		t.Fatalf("first value %v, want %v", got, want)
	}
}

func TestRngNormalMoments(t *testing.T) {
	n := 200000
	out, err := RunWithOptions(parseHLO(t, rngModule("rng_normal", "f64", n)), Options{Seed: 1}, scalar(10.0), scalar(2.0))
	if err != nil {
		t.Fatal(err)
	}
	var s, s2 float64
	for _, v := range out[0].Float64s() {
		s += v
		s2 += v * v
	}
	mean := s / float64(n)
	sd := math.Sqrt(s2/float64(n) - mean*mean)
	if math.Abs(mean-10) > 0.03 || math.Abs(sd-2) > 0.03 {
		t.Fatalf("mean %v sd %v, want 10 and 2", mean, sd)
	}
}

func TestRngUniformIntegers(t *testing.T) {
	for _, ty := range []string{"s32", "u64", "s8"} {
		out, err := RunWithOptions(parseHLO(t, rngModule("rng_uniform", ty, 5000)), Options{Seed: 3},
			literalOf(typeNamed(ty), nil, reals(-3)[0:1]), literalOf(typeNamed(ty), nil, reals(4)))
		if ty == "u64" {
			out, err = RunWithOptions(parseHLO(t, rngModule("rng_uniform", ty, 5000)), Options{Seed: 3},
				scalar[uint64](10), scalar[uint64](17))
		}
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := -3.0, 4.0
		if ty == "u64" {
			lo, hi = 10, 17
		}
		hit := map[float64]bool{}
		for _, v := range wideOf(out[0]) {
			if real(v) < lo || real(v) >= hi {
				t.Fatalf("%s value %v outside [%v, %v)", ty, real(v), lo, hi)
			}
			hit[real(v)] = true
		}
		if len(hit) != int(hi-lo) {
			t.Fatalf("%s: %d distinct values, want %d", ty, len(hit), int(hi-lo))
		}
	}
}

func typeNamed(s string) ir.ElementType {
	t, _ := ir.ParseElementType(s)
	return t
}

func TestRngBitGeneratorEmptyStateIsAnError(t *testing.T) {
	err := runErr(t, rbgModule("rng_philox", "u64[0]", "u32[4]"), ir.MustNewLiteral(ir.MakeShape(ir.U64, 0)))
	wantErr(t, err, "u64[0]", "expected u64[2] or u64[3]")
}

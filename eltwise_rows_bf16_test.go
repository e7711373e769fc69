package kiln

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bf16RowInputs are bfloat16 rows of n elements: random values around a
// row scale, with zeros of both signs, subnormals, infinities and NaNs
// (signalling and quiet) sprinkled in.
func bf16RowInput(r *rand.Rand, n int, special bool) []uint16 {
	x := make([]uint16, n)
	scale := math.Ldexp(1, r.IntN(60)-30)
	for i := range x {
		x[i] = f32ToBF16(float32((r.Float64()*2 - 1) * scale))
		if special && r.IntN(8) == 0 {
			x[i] = []uint16{0, 0x8000, 0x0001, 0x8042, 0x007f, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81, 0x7f7f, 0xff7f, 0x0080}[r.IntN(13)]
		}
	}
	return x
}

func sameBits16(t *testing.T, what string, n int, got, want []uint16) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s n=%d: element %d is %#04x, the separate kernels give %#04x", what, n, i, got[i], want[i])
		}
	}
}

// TestSubMulDivScalarBF16 checks the fused passes against the typed
// kernels run one after the other, at every tail, on random rows with
// special values and divisors across the range (the reciprocal taken
// where it is exact, division elsewhere).
func TestSubMulDivScalarBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	divisors := []float32{1, -1, 3, 0.1, 1e-30, -7e30, 0x1p-126, 0x1p-130, 0x1p126, 0x1p127, 0, float32(math.Inf(1)), float32(math.NaN()), 255}
	for n := 0; n <= 130; n++ {
		for rep := 0; rep < 6; rep++ {
			x := bf16RowInput(r, n, rep%2 == 1)
			s := bf16Widen(bf16RowInput(r, 1, rep == 5)[0])
			tt := divisors[r.IntN(len(divisors))]
			if rep < 2 {
				tt = bf16Widen(f32ToBF16(float32(math.Ldexp(r.Float64()+0.5, r.IntN(260)-130))))
			}
			tt = bf16Widen(f32ToBF16(tt))
			d := make([]uint16, n)
			SubScalarBF16(d, x, s)
			want, got := make([]uint16, n), make([]uint16, n)
			DivScalarBF16(want, d, tt)
			SubDivScalarBF16(got, x, s, tt)
			sameBits16(t, "SubDivScalarBF16", n, got, want)
			MulScalarBF16(want, d, tt)
			SubMulScalarBF16(got, x, s, tt)
			sameBits16(t, "SubMulScalarBF16", n, got, want)
			// In place: dst over x.
			copy(got, x)
			DivScalarBF16(want, d, tt)
			SubDivScalarBF16(got, got, s, tt)
			sameBits16(t, "SubDivScalarBF16 in place", n, got, want)
		}
	}
}

// TestSumSqDevBF16 checks the fused sum of rounded squared deviations
// against the typed kernels run one after the other at every tail: bit
// for bit on random rows (the same accumulation order), and on rows whose
// sums are exact in any order, against a float64 sum.
func TestSumSqDevBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 300; n++ {
		for rep := 0; rep < 3; rep++ {
			x := bf16RowInput(r, n, rep == 2)
			s := float32(0.5)
			if n > 0 {
				s = bf16Widen(x[r.IntN(n)])
			}
			d, sq := make([]uint16, n), make([]uint16, n)
			SubScalarBF16(d, x, s)
			MulBF16(sq, d, d)
			want, got := SumBF16(sq), SumSqDevBF16(x, s)
			if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
				t.Fatalf("n=%d: SumSqDevBF16 = %v, the separate kernels give %v", n, got, want)
			}
		}
		// Small integers: every rounded square and every sum exact.
		x := make([]uint16, n)
		exact := 0.0
		for i := range x {
			v := float32(r.IntN(33) - 16)
			x[i] = f32ToBF16(v)
			exact += float64(bf16Widen(f32ToBF16((v - 3) * (v - 3))))
		}
		if got := SumSqDevBF16(x, 3); float64(got) != exact {
			t.Fatalf("n=%d: SumSqDevBF16 of small integers = %v, want %v", n, got, exact)
		}
	}
}

// TestBF16RowKernelTwins checks the assembly kernels against their pure-Go
// twins at every length of the vector part (the exported functions run the
// twins on the tails).
func TestBF16RowKernelTwins(t *testing.T) {
	k := kernels().reduce
	r := rand.New(rand.NewPCG(5, 6))
	for m := k.lanes; m <= 40*k.lanes; m += k.lanes {
		x := bf16RowInput(r, m, true)
		s, q := bf16Widen(bf16RowInput(r, 1, false)[0]), float32(r.Float64()*4-2)
		got, want := make([]uint16, m), make([]uint16, m)
		k.subDivRoundBF16(got, x, s, q)
		subDivRoundBF16Go(want, x, s, q)
		sameBits16(t, "subDivRoundBF16", m, got, want)
		bk := k.subMulRoundBF16(got, x, s, q)
		bt := subMulRoundBF16Go(want, x, s, q)
		sameBits16(t, "subMulRoundBF16", m, got, want)
		if bk != bt {
			t.Fatalf("subMulRoundBF16 m=%d: counts %v products out of range, its twin %v", m, bk, bt)
		}
		// Sums of small integers are exact in any order.
		for i := range x {
			x[i] = f32ToBF16(float32(r.IntN(33) - 16))
		}
		if a, b := k.sumSqDevRoundBF16(x, 3), sumSqDevRoundBF16Go(x, 3); a != b {
			t.Fatalf("sumSqDevRoundBF16 m=%d: %v, its twin %v", m, a, b)
		}
	}
	// The out-of-range count: products at and around the limits.
	x := make([]uint16, 64)
	for i := range x {
		x[i] = f32ToBF16(float32(math.Ldexp(1, i%8-4)))
	}
	for _, q := range []float32{0x1p127, 0x1p-121, 0x1p124, 0x1p-126, 1} {
		d := make([]uint16, len(x))
		if a, b := k.subMulRoundBF16(d, x, 0, q), subMulRoundBF16Go(d, x, 0, q); a != b {
			t.Fatalf("subMulRoundBF16 by %g: counts %v out of range, its twin %v", q, a, b)
		}
	}
	if n := subMulRoundBF16(make([]uint16, len(x)), x, 0, 0x1p-123); n != len(x)/8*2 {
		t.Fatalf("subMulRoundBF16 by 2^-123 counts %d products below 2^-125, want %d", n, len(x)/8*2)
	}
	if n := subMulRoundBF16(make([]uint16, len(x)), x, 0, 0x1p125); n != len(x)/8*2 {
		t.Fatalf("subMulRoundBF16 by 2^125 counts %d products from 2^127 up, want %d", n, len(x)/8*2)
	}
}

// TestBF16ReciprocalDivision checks the fact SubDivScalarBF16 rests on:
// for bfloat16 x and t with 1/t and x/t normal float32 values,
// bf16(x/t) = bf16(x·RN(1/t)) (each product and quotient rounded to
// float32 first) — over every pair of significands (both signs), at
// exponent differences that put the quotient across the whole float32
// range and the reciprocal near both of its ends. Pairs outside the
// normal range must be the ones bf16Reciprocal or the product check turn
// away.
func TestBF16ReciprocalDivision(t *testing.T) {
	checked := 0
	var tExps = []int{-133, -127, -126, -125, -100, -64, -20, -3, -1, 0, 1, 2, 7, 30, 64, 100, 124, 125, 126, 127}
	var xExps = []int{-133, -130, -126, -125, -64, -10, 0, 1, 10, 64, 120, 126, 127}
	for sx := 0; sx < 256; sx++ {
		for st := 0; st < 256; st++ {
			for _, et := range tExps {
				tv := bf16Of(st, et)
				rcp, ok := bf16Reciprocal(tv)
				for _, ex := range xExps {
					xv := bf16Of(sx, ex)
					quo := xv / tv
					if !ok || !normal32(quo) {
						continue
					}
					prod := xv * rcp
					if f32ToBF16(quo) != f32ToBF16(prod) {
						t.Fatalf("x=%g t=%g: bf16(x/t) = %#04x, bf16(x·(1/t)) = %#04x", xv, tv, f32ToBF16(quo), f32ToBF16(prod))
					}
					if a := math.Abs(float64(prod)); a < 0x1p-125 || a >= 0x1p127 {
						continue // the kernel divides these
					}
					checked++
				}
			}
		}
	}
	if checked < 1<<20 {
		t.Fatalf("only %d pairs checked", checked)
	}
}

// bf16Of is the bfloat16 value of significand bits sig (the low 7 bits
// the fraction, bit 7 the sign) times 2^e, as float32 (subnormal or zero
// below bfloat16's range, infinite above it excluded by the callers'
// exponents).
func bf16Of(sig, e int) float32 {
	m := 1 + float64(sig&0x7f)/128
	if sig&0x80 != 0 {
		m = -m
	}
	return bf16Widen(f32ToBF16(float32(math.Ldexp(m, e))))
}

func normal32(v float32) bool {
	a := math.Abs(float64(v))
	return a >= 0x1p-126 && a <= math.MaxFloat32
}

package kiln

import (
	"fmt"
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
// special values and divisors across the range, and the division through
// the reciprocal wherever BF16Reciprocal allows it.
func TestSubMulDivScalarBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	divisors := []float32{1, -1, 3, 0.1, 1e-30, -7e30, 0x1p-126, 0x1p-130, 0x1p126, 0x1p127, 0, float32(math.Inf(1)), float32(math.NaN()), 255}
	recip := 0
	for n := 0; n <= 130; n++ {
		for rep := 0; rep < 8; rep++ {
			x := bf16RowInput(r, n, rep%2 == 1)
			s := bf16Widen(bf16RowInput(r, 1, rep == 5)[0])
			tt := divisors[r.IntN(len(divisors))]
			if rep < 4 {
				tt = float32(math.Ldexp(r.Float64()+0.5, r.IntN(270)-135))
			}
			tt = bf16Widen(f32ToBF16(tt))
			d := make([]uint16, n)
			SubScalarBF16(d, x, s)
			want, got := make([]uint16, n), make([]uint16, n)
			DivScalarBF16(want, d, tt)
			SubDivScalarBF16(got, x, s, tt)
			sameBits16(t, "SubDivScalarBF16", n, got, want)
			_, lo, hi := SumSqDevBF16(x, s)
			if rcp, ok := BF16Reciprocal(tt, lo, hi); ok {
				SubMulScalarBF16(got, x, s, rcp)
				sameBits16(t, fmt.Sprintf("SubMulScalarBF16 by 1/%g (|d| in [%g, %g])", tt, lo, hi), n, got, want)
				recip++
			}
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
	if recip < 200 {
		t.Fatalf("the reciprocal was taken for only %d rows", recip)
	}
}

// devRange is the least non-zero and the largest |bf16(x[i] − s)|, NaNs
// skipped, and whether there is a NaN.
func devRange(x []uint16, s float32) (lo, hi float32, nan bool) {
	lo = float32(math.Inf(1))
	for _, h := range x {
		d := bf16Widen(f32ToBF16(bf16Widen(h) - s))
		a := float32(math.Abs(float64(d)))
		switch {
		case d != d:
			nan = true
		case a != 0:
			lo = min(lo, a)
		}
		if a > hi {
			hi = a
		}
	}
	return lo, hi, nan
}

// TestSumSqDevBF16 checks the fused sum of rounded squared deviations
// against the typed kernels run one after the other at every tail: bit
// for bit on random rows (the same accumulation order), and on rows whose
// sums are exact in any order, against a float64 sum; and the range of
// the deviations it returns.
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
			want := SumBF16(sq)
			got, lo, hi := SumSqDevBF16(x, s)
			if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
				t.Fatalf("n=%d: SumSqDevBF16 = %v, the separate kernels give %v", n, got, want)
			}
			wlo, whi, nan := devRange(x, s)
			if (lo != wlo || hi != whi) && !(nan && (lo != lo || hi != hi)) {
				t.Fatalf("n=%d: SumSqDevBF16's deviations lie in [%g, %g], want [%g, %g]", n, lo, hi, wlo, whi)
			}
			got2, hi2 := SumSqDevBoundBF16(x, s)
			if math.Float32bits(got2) != math.Float32bits(want) && !(got2 != got2 && want != want) {
				t.Fatalf("n=%d: SumSqDevBoundBF16 = %v, the separate kernels give %v", n, got2, want)
			}
			// The bound: the largest |d| itself, or the pair kernels'
			// 2·√sum rounded up to a power of two (at most the tail's
			// largest above it).
			if !nan && !(hi2 >= whi && (hi2 == whi || float64(hi2) <= 4*math.Sqrt(float64(got2))*(1+0x1p-20))) {
				t.Fatalf("n=%d s=%g: SumSqDevBoundBF16's bound is %g; the largest deviation %g, the sum %g", n, s, hi2, whi, got2)
			}
			if f, ok := BF16DevFloor(s); ok && wlo < f {
				t.Fatalf("n=%d: a deviation %g from %g lies below BF16DevFloor's %g", n, wlo, s, f)
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
		if got, _, _ := SumSqDevBF16(x, 3); float64(got) != exact {
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
		k.subMulRoundBF16(got, x, s, q)
		subMulRoundBF16Go(want, x, s, q)
		sameBits16(t, "subMulRoundBF16", m, got, want)
		_, lo, hi := k.sumSqDevRoundBF16(x, s)
		_, wlo, whi := sumSqDevRoundBF16Go(x, s)
		if _, _, nan := devRange(x, s); (lo != wlo || hi != whi) && !(nan && (lo != lo || hi != hi)) {
			t.Fatalf("sumSqDevRoundBF16 m=%d: deviations in [%g, %g], its twin [%g, %g]", m, lo, hi, wlo, whi)
		}
		_, hi2 := k.sumSqDevMaxRoundBF16(x, s)
		if _, _, nan := devRange(x, s); hi2 != whi && !(nan && hi2 != hi2) {
			t.Fatalf("sumSqDevMaxRoundBF16 m=%d: largest deviation %g, sumSqDevRoundBF16Go's %g", m, hi2, whi)
		}
		// Sums of small integers are exact in any order.
		for i := range x {
			x[i] = f32ToBF16(float32(r.IntN(33) - 16))
		}
		if a, _ := k.sumSqDevMaxRoundBF16(x, 3); a != func() float64 { v, _ := sumSqDevMaxRoundBF16Go(x, 3); return v }() {
			t.Fatalf("sumSqDevMaxRoundBF16 m=%d: %v differs from its twin", m, a)
		}
		if a, _, _ := k.sumSqDevRoundBF16(x, 3); a != func() float64 { v, _, _ := sumSqDevRoundBF16Go(x, 3); return v }() {
			t.Fatalf("sumSqDevRoundBF16 m=%d: %v differs from its twin", m, a)
		}
	}
}

// TestBF16DevFloor checks the bound on the deviations from every normal
// non-zero bfloat16 s: the values x nearest s (its neighbours, those of
// the exponent below and the bound's own neighbourhood) and random ones
// give no non-zero bf16(x − s) below it, and the bound is reached.
func TestBF16DevFloor(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for sb := 0; sb < 1<<16; sb++ {
		s := bf16Widen(uint16(sb))
		f, ok := BF16DevFloor(s)
		if e := sb >> 7 & 0xff; ok != (e != 0 && e != 0xff) {
			t.Fatalf("BF16DevFloor(%g) ok = %v", s, ok)
		}
		if !ok {
			continue
		}
		if e := sb >> 7 & 0xff; float64(f) != math.Ldexp(1, e-127-8) {
			t.Fatalf("BF16DevFloor(%g) = %g, want 2^%d", s, f, e-127-8)
		}
		var xs []uint16
		for k := -3; k <= 3; k++ {
			xs = append(xs, uint16(sb+k), uint16(sb^0x8000+k))
		}
		for range 8 {
			xs = append(xs, uint16(r.Uint32()))
		}
		reached := false
		for _, xb := range xs {
			if e := xb >> 7 & 0xff; e == 0xff {
				continue
			}
			d := float32(math.Abs(float64(bf16Widen(f32ToBF16(bf16Widen(xb) - s)))))
			if d != 0 && d < f {
				t.Fatalf("bf16(%g − %g) = %g lies below BF16DevFloor's %g", bf16Widen(xb), s, d, f)
			}
			reached = reached || d == f
		}
		// The neighbour below a power of two lies half an ulp away.
		if sb&0x7f == 0 && sb>>7&0xff > 1 && !reached {
			t.Fatalf("BF16DevFloor(%g) = %g is not reached by its neighbours", s, f)
		}
	}
}

// TestBF16ReciprocalDivision checks the fact SubMulScalarBF16 by
// BF16Reciprocal's reciprocal rests on: bf16(d/t) = bf16(d·RN(1/t)) (each
// product and quotient rounded to float32 first) wherever BF16Reciprocal
// allows it — over every pair of significands (both signs) at exponent
// differences that put the quotient across the whole float32 range, the
// reciprocal near both of its ends and d among bfloat16's subnormals.
func TestBF16ReciprocalDivision(t *testing.T) {
	checked := 0
	tExps := []int{-133, -127, -126, -125, -100, -64, -20, -3, -1, 0, 1, 2, 7, 30, 64, 100, 124, 125, 126, 127}
	xExps := []int{-133, -130, -126, -125, -64, -10, 0, 1, 10, 64, 120, 126, 127}
	for sx := 0; sx < 256; sx++ {
		for st := 0; st < 256; st++ {
			for _, et := range tExps {
				tv := bf16Of(st, et)
				for _, ex := range xExps {
					xv := bf16Of(sx, ex)
					a := float32(math.Abs(float64(xv)))
					rcp, ok := BF16Reciprocal(tv, a, a)
					if !ok {
						continue
					}
					if q, p := f32ToBF16(xv/tv), f32ToBF16(xv*rcp); q != p {
						t.Fatalf("d=%g t=%g: bf16(d/t) = %#04x, bf16(d·(1/t)) = %#04x", xv, tv, q, p)
					}
					checked++
				}
			}
		}
	}
	if checked < 1<<23 {
		t.Fatalf("only %d pairs checked", checked)
	}
	// What BF16Reciprocal turns away: quotients near the ends of float32's
	// normal range, divisors that are not bfloat16 values or whose
	// reciprocal is not normal, unknown ranges.
	for _, c := range []struct{ t, lo, hi float32 }{
		{1, 0x1p-126, 1}, {1, 1, 0x1p126}, {0x1p-127, 1, 1}, {0x1p127, 1, 1}, {0, 1, 1},
		{float32(math.Inf(1)), 1, 1}, {float32(math.NaN()), 1, 1}, {1.5 + 0x1p-20, 1, 1}, {1, float32(math.NaN()), 1}, {1, 1, float32(math.NaN())},
	} {
		if _, ok := BF16Reciprocal(c.t, c.lo, c.hi); ok {
			t.Errorf("BF16Reciprocal(%g, %g, %g) allows the reciprocal", c.t, c.lo, c.hi)
		}
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

// TestBF16PairKernels checks the kernels that read rows 32 elements at a
// time (where the level has them) against the per-lane twins: the scaled
// deviations bit for bit (also from the deviations the keeping variance
// pass stored, whose sum must be the plain pass's, and which must be
// keepPairsGo's wherever that pass's sum is not NaN), the sum of squares
// exactly where every sum is exact (small integers), within the twins'
// error bound elsewhere, and NaN or the twin's where that is infinite or
// NaN, on rows of every multiple of the pair width up to 40 of them with
// special values, for row scalars at the edge of the range where no value
// rounded can be subnormal.
func TestBF16PairKernels(t *testing.T) {
	p := kernels().bf16Pairs
	if p == nil {
		t.Skip("this level has no pair kernels")
	}
	r := rand.New(rand.NewPCG(11, 12))
	scalar := func(rep int) float32 {
		switch rep % 4 {
		case 0: // the least scalar whose deviations' squares stay normal
			return math.Float32frombits(72 << 23)
		case 1:
			return -math.Float32frombits(72<<23 | uint32(r.IntN(128))<<16)
		}
		for {
			s := bf16Widen(bf16RowInput(r, 1, false)[0])
			if pairsDeviationsNormal(s) {
				return s
			}
		}
	}
	for m := pairsWidth; m <= 40*pairsWidth; m += pairsWidth {
		for rep := 0; rep < 4; rep++ {
			s := scalar(rep)
			x := bf16RowInput(r, m, true)
			if rep < 2 {
				// Deviations down to the floor: x within a few units of s.
				for i := range x {
					if r.IntN(2) == 0 {
						x[i] = uint16(int(f32ToBF16(s)) + r.IntN(5) - 2)
					}
				}
			}
			if !pairsDeviationsNormal(s) {
				t.Fatalf("scalar %g: deviations may be subnormal", s)
			}
			q := float32(math.Ldexp(r.Float64()+0.5, r.IntN(60)-30))
			if rep == 0 {
				f, _ := BF16DevFloor(s)
				q = float32(0x1p-126 / float64(f)) // the least product exactly 2^-126
			}
			keep := make([]uint16, m)
			ksum := p.sumSqDevRow(x, keep, s)
			if sum := p.sumSqDevRow(x, nil, s); math.Float64bits(ksum) != math.Float64bits(sum) && sum == sum {
				t.Fatalf("sumSqDevKeepPairs m=%d s=%g: %g; sumSqDevPairs %g", m, s, ksum, sum)
			}
			if ksum == ksum {
				want := make([]uint16, m)
				keepPairsGo(want, x, s)
				sameBits16(t, fmt.Sprintf("sumSqDevKeepPairs s=%g: the kept deviations", s), m, keep, want)
			}
			if pairsProductsNormal(s, q) {
				got, want := make([]uint16, m), make([]uint16, m)
				p.subMul(got, x, s, q)
				subMulRoundBF16Go(want, x, s, q)
				sameBits16(t, fmt.Sprintf("subMulPairs s=%g r=%g", s, q), m, got, want)
				keepPairsGo(keep, x, s)
				p.mulKeptRow(got, keep, q)
				sameBits16(t, fmt.Sprintf("mulKeptPairs s=%g r=%g", s, q), m, got, want)
			} else if rep == 0 {
				t.Fatalf("s=%g r=%g: the least product is normal, pairsProductsNormal says no", s, q)
			}
			sum := p.sumSqDevRow(x, nil, s)
			wsum, _ := sumSqDevMaxRoundBF16Go(x, s)
			if math.IsInf(wsum, 0) || wsum != wsum {
				// An infinite or NaN element: the kernel may give NaN
				// for an infinite sum (sumSqDevBound then recomputes it).
				if sum == sum && sum != wsum {
					t.Fatalf("sumSqDevPairs m=%d: %g, its twin %g", m, sum, wsum)
				}
				continue
			}
			// Both sums hold m terms in float32 partial sums of at most
			// reduceFlush·2 terms each, folded in float64.
			if bound := 2 * float64(2*reduceFlush) * 0x1p-24 * math.Abs(wsum); math.Abs(sum-wsum) > bound {
				t.Fatalf("sumSqDevPairs m=%d s=%g: %g, its twin %g (bound %g)", m, s, sum, wsum, bound)
			}
		}
		// Small integers: every square and every sum exact.
		x := make([]uint16, m)
		for i := range x {
			x[i] = f32ToBF16(float32(r.IntN(33) - 16))
		}
		sum := p.sumSqDevRow(x, nil, 3)
		if want, _ := sumSqDevMaxRoundBF16Go(x, 3); sum != want {
			t.Fatalf("sumSqDevPairs m=%d of small integers: %v, want %v", m, sum, want)
		}
	}
}

// TestBF16PairsSubnormalEdge checks the exported passes at row scalars on
// either side of the pair kernels' limit, with deviations at the floor
// whose squares (or products) are subnormal below it: the results are the
// separate kernels', which keep subnormals (the pair kernels would flush
// them).
func TestBF16PairsSubnormalEdge(t *testing.T) {
	for _, e := range []uint32{70, 71, 72, 73} {
		s := math.Float32frombits(e << 23)
		n := 8 * pairsWidth
		x := make([]uint16, n)
		for i := range x {
			x[i] = f32ToBF16(s) + uint16(i%3) - 1 // s − 1 unit, s, s + 1 unit
		}
		d, sq := make([]uint16, n), make([]uint16, n)
		SubScalarBF16(d, x, s)
		MulBF16(sq, d, d)
		want := SumBF16(sq)
		if got, _ := SumSqDevBoundBF16(x, s); got != want || got == 0 {
			t.Fatalf("s=%g: SumSqDevBoundBF16 = %g, the separate kernels give %g", s, got, want)
		}
		f, _ := BF16DevFloor(s)
		for _, q := range []float32{float32(0x1p-126 / float64(f)), float32(0x1p-127 / float64(f))} {
			got, w := make([]uint16, n), make([]uint16, n)
			SubMulScalarBF16(got, x, s, q)
			MulScalarBF16(w, d, q)
			sameBits16(t, fmt.Sprintf("SubMulScalarBF16 s=%g r=%g", s, q), n, got, w)
		}
	}
}

// TestSubMulKeptBF16 checks the passes that keep the deviations between
// them against the ones that compute them twice, on every level: the sum
// and the bound of SumSqDevBoundKeepBF16 bit for bit those of
// SumSqDevBoundBF16, and SubMulKeptBF16 bit for bit SubMulScalarBF16 (also
// in place), at every tail around the pair width, for row scalars on
// either side of the pair kernels' limit and scales whose products fall
// on either side of 2^-126 — and with a keep left by another row, that
// only SubMulScalarBF16's results are taken where the pair kernels did
// not keep the deviations.
func TestSubMulKeptBF16(t *testing.T) {
	forEachLevel(t, func(level string) {
		r := rand.New(rand.NewPCG(21, 22))
		kept := 0
		for _, n := range []int{0, 1, 31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128, 129, 200, 768, 777} {
			for rep := 0; rep < 12; rep++ {
				x := bf16RowInput(r, n, rep%3 == 1)
				s := bf16Widen(bf16RowInput(r, 1, false)[0])
				var q float32
				switch rep % 4 {
				case 0: // at the limit: deviations down to the floor
					s = math.Float32frombits(uint32(70+rep%5) << 23)
					for i := range x {
						if r.IntN(2) == 0 {
							x[i] = uint16(int(f32ToBF16(s)) + r.IntN(5) - 2)
						}
					}
					f, _ := BF16DevFloor(s)
					q = float32(math.Ldexp(0x1p-126/float64(f), r.IntN(3)-1))
				case 1:
					q = float32(math.Ldexp(r.Float64()+0.5, r.IntN(60)-30))
				case 2:
					_, lo, hi := SumSqDevBF16(x, s)
					if rcp, ok := BF16Reciprocal(bf16Widen(f32ToBF16(float32(r.Float64()*8+0.5))), lo, hi); ok {
						q = rcp
					} else {
						q = 3
					}
				default:
					q = float32(math.Ldexp(r.Float64()+0.5, r.IntN(270)-135))
				}
				// A keep holding another row's deviations: where the
				// kept values are not used, they must not show.
				keep := make([]uint16, n+3)
				for i := range keep {
					keep[i] = uint16(r.Uint32())
				}
				keep = keep[3:] // unaligned
				sum, hi := SumSqDevBoundKeepBF16(x, keep, s)
				wsum, whi := SumSqDevBoundBF16(x, s)
				if math.Float32bits(sum) != math.Float32bits(wsum) || math.Float32bits(hi) != math.Float32bits(whi) {
					t.Fatalf("%s n=%d s=%g: SumSqDevBoundKeepBF16 = %g, %g; SumSqDevBoundBF16 = %g, %g", level, n, s, sum, hi, wsum, whi)
				}
				got, want := make([]uint16, n), make([]uint16, n)
				SubMulKeptBF16(got, x, keep, s, q)
				SubMulScalarBF16(want, x, s, q)
				sameBits16(t, fmt.Sprintf("%s SubMulKeptBF16 n=%d s=%g r=%g", level, n, s, q), n, got, want)
				copy(got, x)
				SubMulKeptBF16(got, got, keep, s, q)
				sameBits16(t, fmt.Sprintf("%s SubMulKeptBF16 in place n=%d", level, n), n, got, want)
				if kernels().bf16Pairs != nil && n >= pairsWidth && pairsDeviationsNormal(s) && pairsProductsNormal(s, q) {
					kept++
				}
			}
		}
		if kernels().bf16Pairs != nil && kept < 50 {
			t.Fatalf("%s: the kept deviations were scaled in only %d rows", level, kept)
		}
	})
}

// TestBF16PairSum checks the pair kernels' row sum against the level's
// reduce.sumBF16 bit for bit: rows of every multiple of 16 up to past two
// float64 folds, random values around scales across the range, with the
// special values (NaN payloads included) sprinkled in.
func TestBF16PairSum(t *testing.T) {
	p := kernels().bf16Pairs
	if p == nil {
		t.Skip("this level has no pair kernels")
	}
	r := rand.New(rand.NewPCG(13, 14))
	k := kernels().reduce
	for m := 0; m <= 4200; m += 16 {
		for rep := 0; rep < 2; rep++ {
			x := bf16RowInput(r, m+1, rep == 1)[1:] // unaligned
			got, want := p.sumRow(x), k.sumBF16(x)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("m=%d specials=%v: pair sum %g (%#x), sumBF16 %g (%#x)", m, rep == 1, got, math.Float64bits(got), want, math.Float64bits(want))
			}
		}
	}
}

// TestSumSqDevBoundOf checks the power-of-two bound against 2·√total
// across the float64 range: at least it, less than twice it.
func TestSumSqDevBoundOf(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	if b := sumSqDevBoundOf(0); b != 0 {
		t.Fatalf("sumSqDevBoundOf(0) = %g", b)
	}
	if b := sumSqDevBoundOf(math.Inf(1)); !math.IsInf(float64(b), 1) {
		t.Fatalf("sumSqDevBoundOf(+Inf) = %g", b)
	}
	for i := 0; i < 100000; i++ {
		total := math.Ldexp(1+r.Float64(), r.IntN(2*300)-300)
		if i%7 == 0 {
			total = math.Ldexp(1, r.IntN(600)-300) // powers of two: the edge
		}
		b, want := float64(sumSqDevBoundOf(total)), 2*math.Sqrt(total)
		if math.IsInf(b, 1) || want > math.MaxFloat32 {
			// A power of two in [want, 2·want) beyond float32's range.
			if !math.IsInf(b, 1) || want <= 0x1p126 {
				t.Fatalf("sumSqDevBoundOf(%g) = %g, 2·√total is %g", total, b, want)
			}
			continue
		}
		if !(b >= want && b < 2*want*(1+0x1p-50)) || math.Float64bits(b)&(1<<52-1) != 0 {
			t.Fatalf("sumSqDevBoundOf(%g) = %g, want a power of two in [%g, %g)", total, b, want, 2*want)
		}
	}
}

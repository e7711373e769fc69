package kiln

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// testLengths: every length up to two of the widest vectors plus 3 (every
// tail of every level), then primes and a few large sizes.
func testLengths() []int {
	var n []int
	for i := 0; i <= 2*16+3; i++ {
		n = append(n, i)
	}
	return append(n, 37, 61, 67, 97, 127, 251, 257, 509, 1031, 4099)
}

// sameFloat reports bit equality, any NaN equal to any NaN.
func sameFloat(a, b float32) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float32bits(a) == math.Float32bits(b)
}

// ulp32 is the spacing of float32 numbers at |x| (x a real number).
func ulp32(x float64) float64 {
	a := math.Abs(x)
	if a < 0x1p-126 {
		return 0x1p-149
	}
	if a >= 0x1p128 {
		return 0x1p104
	}
	_, e := math.Frexp(a)
	return math.Ldexp(1, e-24)
}

// ulpError is the error of a float32 result against a float64 reference,
// in ULPs of the reference: 0 for matching NaNs and infinities, +Inf for a
// NaN or an infinity on one side only (an infinite result counts as ±2^128
// against a finite reference, so overflow by rounding costs about an ULP).
func ulpError(got float32, want float64) float64 {
	g := float64(got)
	switch {
	case math.IsNaN(want) || math.IsNaN(g):
		if math.IsNaN(want) && math.IsNaN(g) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(want, 0):
		if g == want {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(g, 0) && float32(want) == got: // overflow, correctly rounded
		return 0
	case math.IsInf(g, 0):
		g = math.Copysign(0x1p128, g)
	}
	return math.Abs(g-want) / ulp32(want)
}

// forEachLevel runs f at every level this CPU and build can run.
func forEachLevel(t *testing.T, f func(level string)) {
	t.Helper()
	for _, level := range ISALevels() {
		prev, err := SetISA(level)
		if err != nil {
			t.Fatal(err)
		}
		f(level)
		SetISA(prev)
	}
}

// operands fills slices of n elements (at offset off into larger arrays, so
// that they start unaligned) and scalars for a case.
func makeOperands(r *rand.Rand, c fcase, n, off int) ([][]float32, []float32) {
	in := make([][]float32, c.slices)
	for i := range in {
		buf := make([]float32, n+off)
		for j := range buf {
			buf[j] = operand(r, c.typical)
		}
		in[i] = buf[off:]
	}
	s := make([]float32, c.scalars)
	for i := range s {
		s[i] = operand(r, c.typical)
	}
	return in, s
}

// TestEltwiseMatchesTwin runs every function at every level on every tail
// length, unaligned, and in place, against its pure-Go twin: they must
// agree bit for bit (any NaN matching any NaN).
func TestEltwiseMatchesTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := floatCases()
	forEachLevel(t, func(level string) {
		for _, c := range cases {
			for _, n := range testLengths() {
				off := n % 4
				in, s := makeOperands(r, c, n, off)
				want := make([]float32, n)
				c.twin(want, in, s)
				got := make([]float32, n+off)[off:]
				c.fn(got, in, s)
				for i := range want {
					if !sameFloat(got[i], want[i]) {
						args := []float32{}
						for _, x := range in {
							args = append(args, x[i])
						}
						t.Fatalf("%s %s n=%d: element %d of %v %v: got %v (%#08x), twin %v (%#08x)", level, c.name, n, i, args, s, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
					}
				}
				// In place: dst is the first operand.
				if n > 0 {
					alias := slices.Clone(in[0])
					in2 := append([][]float32{alias}, in[1:]...)
					c.fn(alias, in2, s)
					for i := range want {
						if !sameFloat(alias[i], want[i]) {
							t.Fatalf("%s %s n=%d in place: element %d: got %v, twin %v", level, c.name, n, i, alias[i], want[i])
						}
					}
				}
			}
		}
	})
}

// TestEltwiseAgainstFloat64 checks every function at the chosen level
// against its float64 reference within its stated bound, on typical
// operands, special values and random bit patterns.
func TestEltwiseAgainstFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range floatCases() {
		n := 4096
		in, _ := makeOperands(r, c, n, 0)
		// Every special value on every operand position, with the others typical.
		for pos := range in {
			for j, v := range specials {
				in[pos][j*7%n] = v
			}
		}
		scal := make([]float32, c.scalars)
		for trial := 0; trial < 4; trial++ {
			for i := range scal {
				scal[i] = operand(r, c.typical)
			}
			got := make([]float32, n)
			c.fn(got, in, scal)
			args := make([]float64, c.slices+c.scalars)
			for i := range got {
				for k := range in {
					args[k] = float64(in[k][i])
				}
				for k, v := range scal {
					args[c.slices+k] = float64(v)
				}
				want := c.ref(args)
				e := ulpError(got[i], want)
				if e > c.ulps {
					t.Fatalf("%s%v: got %v (%#08x), want %v: error %.3g ULP, bound %v", c.name, args, got[i], math.Float32bits(got[i]), want, e, c.ulps)
				}
				if c.zeroSign && want == 0 && got[i] == 0 && math.Signbit(want) != math.Signbit(float64(got[i])) {
					t.Fatalf("%s%v: got %v, want %v (sign of zero)", c.name, args, got[i], want)
				}
			}
		}
	}
}

// ulpSweepSamples is how many float32 bit patterns TestULPSweep tries per
// function: a stride through all 2^32 (KILN_ULP_SAMPLES=4294967296 tries
// them all). Fewer at the generic level (the twins are slower, and agree
// with the assembly bit for bit anyway) and on other architectures, whose
// tests run under emulation in CI.
func ulpSweepSamples() uint64 {
	if s := os.Getenv("KILN_ULP_SAMPLES"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err == nil && n > 0 {
			return min(n, 1<<32)
		}
	}
	switch {
	case testing.Short():
		return 1 << 16
	case runtime.GOARCH != "amd64" || active.Load().level == levelGeneric:
		return 1 << 18
	}
	return 1 << 24
}

// TestULPSweep runs each elementary function over a dense, evenly strided
// sample of all float32 bit patterns and checks its documented error bound
// against float64 math; it logs the largest error found and where.
func TestULPSweep(t *testing.T) {
	samples := ulpSweepSamples()
	stride := (uint64(1) << 32) / samples
	const chunk = 1 << 16
	for _, c := range floatCases() {
		if c.slices != 1 || c.scalars != 0 || c.ulps == 0.5 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			x := make([]float32, chunk)
			y := make([]float32, chunk)
			worst, worstX := 0.0, float32(0)
			// An odd offset varies the low bits across the sample.
			bits := uint64(0x2b)
			for done := uint64(0); done < samples; {
				n := min(uint64(chunk), samples-done)
				for i := range x[:n] {
					x[i] = math.Float32frombits(uint32(bits))
					bits += stride
				}
				c.fn(y[:n], [][]float32{x[:n]}, nil)
				for i := range y[:n] {
					want := c.ref([]float64{float64(x[i])})
					if e := ulpError(y[i], want); e > worst || e != e {
						worst, worstX = e, x[i]
						if e > c.ulps || e != e {
							t.Fatalf("%s(%v = %#08x) = %v, want %v: error %.3g ULP, bound %v", c.name, x[i], math.Float32bits(x[i]), y[i], want, e, c.ulps)
						}
					}
				}
				done += n
			}
			t.Logf("%s: %d samples, largest error %.3f ULP at x = %v (%#08x)", c.name, samples, worst, worstX, math.Float32bits(worstX))
		})
	}
}

func TestLengthMismatchPanics(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("Add with unequal lengths did not panic")
		}
		if msg := fmt.Sprint(r); msg != "kiln: Add: the lengths of dst, x, y must be equal, found [3 3 4]" {
			t.Fatalf("panic message %q", msg)
		}
	}()
	Add(make([]float32, 3), make([]float32, 3), make([]float32, 4))
}

// TestNonTemporalVariants lowers the non-temporal threshold so that the
// functions with non-temporal kernels take that path (aligned head, the
// variant, the tail) at every level, and checks them against the twins.
func TestNonTemporalVariants(t *testing.T) {
	defer func(old int) { ntMinElems = old }(ntMinElems)
	ntMinElems = 40
	r := rand.New(rand.NewPCG(5, 6))
	names := map[string]bool{"Add": true, "Sub": true, "Mul": true, "Div": true, "AddScalar": true, "MulScalar": true,
		"Exp": true, "MulAdd": true, "MulScalarAdd": true}
	forEachLevel(t, func(level string) {
		for _, c := range floatCases() {
			if !names[c.name] {
				continue
			}
			for _, n := range []int{40, 41, 63, 64, 97, 255, 1031} {
				for off := 0; off < 4; off++ {
					in, s := makeOperands(r, c, n, off)
					want := make([]float32, n)
					c.twin(want, in, s)
					got := make([]float32, n+off)[off:]
					c.fn(got, in, s)
					for i := range want {
						if !sameFloat(got[i], want[i]) {
							t.Fatalf("%s %s n=%d offset %d: element %d: %v, twin %v", level, c.name, n, off, i, got[i], want[i])
						}
					}
				}
			}
		}
		for _, n := range []int{40, 77, 1031} {
			d := make([]float32, n+3)[3:]
			Fill(d, -1.25)
			for i, v := range d {
				if v != -1.25 {
					t.Fatalf("%s Fill n=%d: element %d = %v", level, n, i, v)
				}
			}
		}
	})
}

// TestPowSweep checks Pow on pairs drawn across the whole float32 range
// (random bit patterns for x, and y from integers, halves, small and huge
// values, and random bit patterns) against float64 math.Pow.
func TestPowSweep(t *testing.T) {
	n := 1 << 21
	if testing.Short() || runtime.GOARCH != "amd64" || active.Load().level == levelGeneric {
		n = 1 << 16
	}
	r := rand.New(rand.NewPCG(15, 16))
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = math.Float32frombits(r.Uint32())
		switch r.IntN(6) {
		case 0:
			y[i] = float32(r.IntN(41) - 20)
		case 1:
			y[i] = float32(r.IntN(41)-20) + 0.5
		case 2:
			y[i] = float32(r.NormFloat64())
		case 3:
			x[i] = float32(r.Float64() * 4)
			y[i] = float32(r.NormFloat64() * 30)
		default:
			y[i] = math.Float32frombits(r.Uint32())
		}
	}
	got := make([]float32, n)
	Pow(got, x, y)
	worst := 0.0
	for i := range got {
		want := powRef(float64(x[i]), float64(y[i]))
		e := ulpError(got[i], want)
		if e > ulpPow || e != e {
			t.Fatalf("Pow(%v, %v) = %v, want %v: error %.3g ULP", x[i], y[i], got[i], want, e)
		}
		worst = max(worst, e)
	}
	t.Logf("Pow: %d pairs, largest error %.3f ULP", n, worst)
}

// TestFMA32 checks the twins' float32 FMA against big-float arithmetic on
// products and addends chosen to land near float32 rounding midpoints.
func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for i := 0; i < 200000; i++ {
		a := math.Float32frombits(r.Uint32())
		b := math.Float32frombits(r.Uint32())
		if i%2 == 0 {
			a, b = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		p := float64(a) * float64(b)
		// c makes a·b + c sit on a float32 midpoint plus a tiny offset.
		c := float32(-p)
		switch i % 4 {
		case 1:
			c = math.Float32frombits(r.Uint32())
		case 2:
			mid := float64(float32(p)) + ulp32(p)/2
			c = float32(mid - p)
		}
		if i%16 == 15 { // exact zeros of either sign: 0·b ± 0, −a·b + a·b
			a = float32(math.Copysign(0, float64(r.IntN(2)*2-1)))
			c = float32(math.Copysign(0, float64(r.IntN(2)*2-1)))
			p = float64(a) * float64(b)
		}
		want := fma32Reference(p, float64(c))
		if got := fma32(a, b, c); !sameFloat(got, want) || got == 0 && math.Signbit(float64(got)) != math.Signbit(float64(want)) {
			t.Fatalf("fma32(%v, %v, %v) = %v, want %v", a, b, c, got, want)
		}
	}
}

// fma32Reference rounds p + c (p exact) to float32 once, with big floats.
func fma32Reference(p, c float64) float32 {
	if math.IsNaN(p+c) || math.IsInf(p, 0) || math.IsInf(c, 0) {
		return float32(p + c)
	}
	s := new(big.Float).SetPrec(300).SetFloat64(p)
	s.Add(s, new(big.Float).SetPrec(300).SetFloat64(c))
	if s.Sign() == 0 {
		return float32(p + c) // the sign of an exact zero follows IEEE in float64 too
	}
	f, _ := s.Float32()
	return f
}

package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRowsBF16 checks the batch passes against the row functions they
// stand for, bit for bit, on every level: batches of rows of every width
// around the pair width (and none), with special values, row scalars on
// either side of the pair kernels' limit and without a deviation floor,
// divisors whose reciprocal is and is not allowed, with and without kept
// deviations, and in place.
func TestRowsBF16(t *testing.T) {
	forEachLevel(t, func(level string) {
		r := rand.New(rand.NewPCG(41, 42))
		for _, n := range []int{0, 1, 31, 32, 33, 64, 95, 96, 128, 768, 777} {
			for rep := 0; rep < 6; rep++ {
				rows := 1 + r.IntN(9)
				x := bf16RowInput(r, rows*n, rep%3 == 1)
				s := make([]float32, rows)
				for j := range s {
					switch (rep + j) % 5 {
					case 0: // at the pair kernels' limit: deviations down to the floor
						s[j] = math.Float32frombits(uint32(70+r.IntN(5)) << 23)
						for i := j * n; i < j*n+n; i++ {
							if r.IntN(2) == 0 {
								x[i] = uint16(int(f32ToBF16(s[j])) + r.IntN(5) - 2)
							}
						}
					case 1: // no floor: zero, subnormal
						s[j] = []float32{0, bf16Widen(0x0003)}[r.IntN(2)]
					default:
						s[j] = bf16Widen(bf16RowInput(r, 1, false)[0])
						if n > 0 && r.IntN(2) == 0 {
							s[j] = bf16Widen(x[j*n+r.IntN(n)])
						}
					}
				}
				// SumRowsBF16.
				sums := make([]float32, rows)
				SumRowsBF16(sums, x, n)
				for j := range rows {
					if want := SumBF16(x[j*n : j*n+n]); math.Float32bits(sums[j]) != math.Float32bits(want) {
						t.Fatalf("%s n=%d row %d: SumRowsBF16 %g, SumBF16 %g", level, n, j, sums[j], want)
					}
				}
				for _, withKeep := range []bool{true, false} {
					var keep []uint16
					if withKeep {
						keep = make([]uint16, rows*n)
						for i := range keep {
							keep[i] = uint16(r.Uint32()) // another row's
						}
					}
					lows, highs := make([]float32, rows), make([]float32, rows)
					SqDevRowsBF16(sums, lows, highs, x, keep, nil, n, s)
					wkeep := make([]uint16, n)
					for j := range rows {
						row := x[j*n : j*n+n]
						var ws, wlo, whi float32
						if f, ok := BF16DevFloor(s[j]); ok {
							wlo = f
							if withKeep {
								ws, whi = SumSqDevBoundKeepBF16(row, wkeep, s[j])
							} else {
								ws, whi = SumSqDevBoundBF16(row, s[j])
							}
						} else {
							ws, wlo, whi = SumSqDevBF16(row, s[j])
						}
						if b := []float32{sums[j], lows[j], highs[j]}; fmt.Sprint(b) != fmt.Sprint([]float32{ws, wlo, whi}) {
							t.Fatalf("%s n=%d row %d s=%g: SqDevRowsBF16 %v, the row functions %v", level, n, j, s[j], b, []float32{ws, wlo, whi})
						}
					}
					// Divisors: random, and the row's own scale (whose
					// reciprocal is allowed where the bounds are finite).
					div := make([]float32, rows)
					for j := range div {
						if r.IntN(2) == 0 {
							div[j] = bf16Widen(f32ToBF16(float32(math.Sqrt(float64(sums[j])/float64(max(n, 1)) + 1e-5))))
						} else {
							div[j] = bf16Widen(bf16RowInput(r, 1, rep%2 == 0)[0])
						}
					}
					got, want := make([]uint16, rows*n), make([]uint16, rows*n)
					for j := range rows {
						row, w := x[j*n:j*n+n], want[j*n:j*n+n]
						SubDivScalarBF16(w, row, s[j], div[j])
					}
					SubDivRowsBF16(got, x, keep, nil, n, s, div, lows, highs)
					sameBits16(t, fmt.Sprintf("%s SubDivRowsBF16 keep=%v", level, withKeep), rows*n, got, want)
					if withKeep {
						// In place, with the deviations kept again.
						SqDevRowsBF16(sums, lows, highs, x, keep, nil, n, s)
						copy(got, x)
						SubDivRowsBF16(got, got, keep, x, n, s, div, lows, highs)
						sameBits16(t, fmt.Sprintf("%s SubDivRowsBF16 in place", level), rows*n, got, want)
					}
				}
			}
		}
	})
}

// TestRowsBF16Misuse checks that the batch passes name the argument that
// is too short or has the wrong number of row scalars.
func TestRowsBF16Misuse(t *testing.T) {
	x := make([]uint16, 3*32)
	one := []float32{1, 1, 1}
	for _, c := range []struct {
		want string
		f    func()
	}{
		{"x has 96 elements, fewer than 4 rows of 32", func() { SumRowsBF16(make([]float32, 4), x, 32) }},
		{"keep has 95 elements", func() {
			SqDevRowsBF16(make([]float32, 3), make([]float32, 3), make([]float32, 3), x, x[1:], nil, 32, one)
		}},
		{"sums, lows, highs", func() {
			SqDevRowsBF16(make([]float32, 2), make([]float32, 3), make([]float32, 3), x, nil, nil, 32, one)
		}},
		{"dst has 64 elements", func() { SubDivRowsBF16(x[:64], x, nil, nil, 32, one, one, one, one) }},
		{"out has 64 elements", func() { SqDevRowsBF16(one, one, one, x, x, x[:64], 32, one) }},
		{"next has 64 elements", func() { SubDivRowsBF16(x, x, x, x[:64], 32, one, one, one, one) }},
		{"t, lows, highs", func() { SubDivRowsBF16(x, x, nil, nil, 32, one, one[:2], one, one) }},
		{"is not a bfloat16 value", func() { SqDevRowsBF16(one, one, one, x, nil, nil, 32, []float32{1, 1.1, 1}) }},
	} {
		func() {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.Contains(msg, c.want) {
					t.Errorf("panic %q, want it to say %q", msg, c.want)
				}
			}()
			c.f()
		}()
	}
}

// TestPairsNormalBits checks the exponent tests against the float ones
// they stand for: every bfloat16 exponent of s, with NaNs and infinities,
// and normal reciprocals r of every exponent.
func TestPairsNormalBits(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for e := uint32(0); e < 256; e++ {
		for rep := 0; rep < 8; rep++ {
			s := math.Float32frombits(e<<23 | uint32(r.IntN(128))<<16 | uint32(r.IntN(2))<<31)
			if got, want := pairsDeviationsNormalBits(s), pairsDeviationsNormal(s); got != want {
				t.Fatalf("s=%g: pairsDeviationsNormalBits %v, pairsDeviationsNormal %v", s, got, want)
			}
			if !pairsDeviationsNormal(s) {
				continue
			}
			for f := uint32(1); f < 255; f++ {
				q := math.Float32frombits(f<<23 | uint32(r.IntN(1<<23)) | uint32(r.IntN(2))<<31)
				if got, want := pairsProductsNormalBits(s, q), pairsProductsNormal(s, q); got != want {
					t.Fatalf("s=%g r=%g: pairsProductsNormalBits %v, pairsProductsNormal %v", s, q, got, want)
				}
			}
		}
	}
}

// TestRowsBF16DoNotAllocate checks that the row and batch passes, whose
// kernels are called through the dispatch table with stack arrays of
// scalars and results, allocate nothing.
func TestRowsBF16DoNotAllocate(t *testing.T) {
	const n, rows = 96, 5
	r := rand.New(rand.NewPCG(45, 46))
	x := bf16RowInput(r, rows*n, false)
	keep, dst := make([]uint16, rows*n), make([]uint16, rows*n)
	s, sums, lows, highs, div := make([]float32, rows), make([]float32, rows), make([]float32, rows), make([]float32, rows), make([]float32, rows)
	for j := range s {
		s[j], div[j] = 0.5, 2
	}
	forEachLevel(t, func(level string) {
		if a := testing.AllocsPerRun(20, func() {
			SumRowsBF16(sums, x, n)
			SqDevRowsBF16(sums, lows, highs, x, keep, nil, n, s)
			SubDivRowsBF16(dst, x, keep, nil, n, s, div, lows, highs)
			SumBF16(x[:n])
			SumSqDevBoundKeepBF16(x[:n], keep, 0.5)
			SubMulKeptBF16(dst[:n], x[:n], keep, 0.5, 0.5)
		}); a != 0 {
			t.Errorf("%s: %v allocations per run, want 0", level, a)
		}
	})
}

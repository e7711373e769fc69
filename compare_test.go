package kiln

import (
	"math"
	"math/rand/v2"
	"testing"
)

type compareCase struct {
	name   string
	fn     func(dst []uint8, x, y []float32)
	scalar func(dst []uint8, x []float32, s float32)
	twin   func(dst []uint8, x, y []float32)
	rel    func(x, y float32) bool
}

func compareCases() []compareCase {
	return []compareCase{
		{"Equal", Equal, EqualScalar, equalF32Go, func(x, y float32) bool { return x == y }},
		{"NotEqual", NotEqual, NotEqualScalar, notEqualF32Go, func(x, y float32) bool { return x != y }},
		{"Less", Less, LessScalar, lessF32Go, func(x, y float32) bool { return x < y }},
		{"LessEqual", LessEqual, LessEqualScalar, lessEqualF32Go, func(x, y float32) bool { return x <= y }},
		{"Greater", Greater, GreaterScalar, greaterF32Go, func(x, y float32) bool { return x > y }},
		{"GreaterEqual", GreaterEqual, GreaterEqualScalar, greaterEqualF32Go, func(x, y float32) bool { return x >= y }},
	}
}

// TestCompareAndSelect checks every comparison (slice and scalar forms) and
// select at every level and tail length against Go's comparisons, with
// operands that are often equal, ±0 and NaN.
func TestCompareAndSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	small := func(r *rand.Rand) float32 { return float32(r.IntN(5) - 2) }
	forEachLevel(t, func(level string) {
		for _, n := range testLengths() {
			off := n % 4
			x := make([]float32, n+off)[off:]
			y := make([]float32, n+off)[off:]
			for i := range x {
				x[i], y[i] = operand(r, small), operand(r, small)
			}
			s := operand(r, small)
			for _, c := range compareCases() {
				got := make([]uint8, n+off)[off:]
				c.fn(got, x, y)
				gotS := make([]uint8, n)
				c.scalar(gotS, x, s)
				twin := make([]uint8, n)
				c.twin(twin, x, y)
				for i := range got {
					if want := b2u8(c.rel(x[i], y[i])); got[i] != want || twin[i] != want {
						t.Fatalf("%s %s(%v, %v) n=%d = %d (twin %d), want %d", level, c.name, x[i], y[i], n, got[i], twin[i], want)
					}
					if want := b2u8(c.rel(x[i], s)); gotS[i] != want {
						t.Fatalf("%s %sScalar(%v, %v) n=%d = %d, want %d", level, c.name, x[i], s, n, gotS[i], want)
					}
				}
			}
			// Select reads any non-zero byte as true.
			mask := make([]uint8, n+off)[off:]
			for i := range mask {
				mask[i] = uint8(r.IntN(3)) * uint8(r.IntN(200))
			}
			got := make([]float32, n)
			Select(got, mask, x, y)
			for i := range got {
				want := y[i]
				if mask[i] != 0 {
					want = x[i]
				}
				if math.Float32bits(got[i]) != math.Float32bits(want) {
					t.Fatalf("%s Select n=%d element %d (mask %d): %v, want %v", level, n, i, mask[i], got[i], want)
				}
			}
			// In place: dst is x.
			xc := append([]float32(nil), x...)
			Select(xc, mask, xc, y)
			for i := range xc {
				if math.Float32bits(xc[i]) != math.Float32bits(got[i]) {
					t.Fatalf("%s Select in place n=%d element %d: %v, want %v", level, n, i, xc[i], got[i])
				}
			}
		}
	})
}

// TestFloat64Binary checks the float64 forms at every level against Go's
// float64 arithmetic and XLA's max/min.
func TestFloat64Binary(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	ops := []struct {
		name string
		fn   func(dst, x, y []float64)
		ref  func(x, y float64) float64
	}{
		{"AddF64", AddF64, add64}, {"SubF64", SubF64, sub64}, {"MulF64", MulF64, mul64}, {"DivF64", DivF64, div64},
		{"MaximumF64", MaximumF64, maxXLA64}, {"MinimumF64", MinimumF64, minXLA64},
	}
	forEachLevel(t, func(level string) {
		for _, n := range testLengths() {
			x, y := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i] = float64(operand(r, uniform(-3, 3))) * (1 + r.Float64()*1e-9)
				y[i] = float64(operand(r, uniform(-3, 3)))
				if r.IntN(8) == 0 {
					y[i] = x[i]
				}
			}
			for _, op := range ops {
				got := make([]float64, n)
				op.fn(got, x, y)
				for i := range got {
					want := op.ref(x[i], y[i])
					if !(got[i] == want && math.Signbit(got[i]) == math.Signbit(want) || got[i] != got[i] && want != want) {
						t.Fatalf("%s %s(%v, %v) = %v, want %v", level, op.name, x[i], y[i], got[i], want)
					}
				}
			}
		}
	})
}

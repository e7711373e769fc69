package kiln

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// sumBound is Sum's documented error bound for values with Σ|x| = absSum.
func sumBound(n int, absSum float64) float64 {
	return (reduceFlush+3+6)*0x1p-24*absSum + float64(n)*0x1p-53*absSum
}

func randSlice(r *rand.Rand, n int, gen func(r *rand.Rand) float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = gen(r)
	}
	return x
}

// TestSumAccuracy checks Sum and SumSquares at every level and length
// against float64 sums, within the documented bound.
func TestSumAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	forEachLevel(t, func(level string) {
		for _, n := range append(testLengths(), 100003) {
			off := n % 4
			x := make([]float32, n+off)[off:]
			for i := range x {
				x[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(6)-3)))
			}
			want, abs, wantSq := 0.0, 0.0, 0.0
			for _, v := range x {
				want += float64(v)
				abs += math.Abs(float64(v))
				wantSq += float64(v) * float64(v)
			}
			if got := Sum(x); math.Abs(float64(got)-want) > sumBound(n, abs)+ulp32(want)/2 {
				t.Fatalf("%s Sum n=%d: %v, want %v (bound %g)", level, n, got, want, sumBound(n, abs))
			}
			if got := SumSquares(x); math.Abs(float64(got)-wantSq) > sumBound(n, wantSq)+ulp32(wantSq)/2 {
				t.Fatalf("%s SumSquares n=%d: %v, want %v", level, n, got, wantSq)
			}
		}
	})
}

// TestSum16M sums 16M float32 (64 MiB; 4M under other architectures, whose
// tests run under emulation) where a float32 running sum loses most
// digits, and checks the bound against a float64 sum.
func TestSum16M(t *testing.T) {
	n := 1 << 24
	if testing.Short() || runtime.GOARCH != "amd64" {
		n = 1 << 22
	}
	r := rand.New(rand.NewPCG(23, 24))
	x := make([]float32, n)
	want, abs := 0.0, 0.0
	naive := float32(0)
	for i := range x {
		x[i] = 1 + r.Float32()
		want += float64(x[i])
		abs += math.Abs(float64(x[i]))
		naive += x[i]
	}
	got := Sum(x)
	bound := sumBound(n, abs) + ulp32(want)/2
	if math.Abs(float64(got)-want) > bound {
		t.Fatalf("Sum of %d: %v, want %v, error %g above the bound %g", n, got, want, math.Abs(float64(got)-want), bound)
	}
	t.Logf("Sum of %d elements: error %.3g (relative %.2g, bound %.2g); a float32 running sum errs by %.3g",
		n, math.Abs(float64(got)-want), math.Abs(float64(got)-want)/want, bound/want, math.Abs(float64(naive)-want))
}

// TestMaxMinProd checks the lanewise reductions at every level against
// sequential folds (exact for Max and Min, whose order does not matter).
func TestMaxMinProd(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	forEachLevel(t, func(level string) {
		for _, n := range testLengths() {
			for trial := 0; trial < 3; trial++ {
				x := randSlice(r, n, func(r *rand.Rand) float32 {
					switch trial {
					case 0:
						return float32(r.NormFloat64())
					case 1:
						return operand(r, uniform(-2, 2))
					}
					return []float32{0, float32(math.Copysign(0, -1)), -1}[r.IntN(3)]
				})
				if got, want := Max(x), reduceMaxF32Go(x); !sameFloat(got, want) {
					t.Fatalf("%s Max n=%d: %v, want %v", level, n, got, want)
				}
				if got, want := Min(x), reduceMinF32Go(x); !sameFloat(got, want) {
					t.Fatalf("%s Min n=%d: %v, want %v", level, n, got, want)
				}
				if got, want := maxAbs(x), maxAbsF32Go(x); !sameFloat(got, want) {
					t.Fatalf("%s maxAbs n=%d: %v, want %v", level, n, got, want)
				}
				if trial == 0 {
					for i := range x {
						x[i] = 1 + x[i]/64
					}
					want := 1.0
					for _, v := range x {
						want *= float64(v)
					}
					if got := Prod(x); math.Abs(float64(got)-want) > float64(n+2)*0x1p-23*math.Abs(want) {
						t.Fatalf("%s Prod n=%d: %v, want %v", level, n, got, want)
					}
				}
			}
		}
	})
}

// argRef is ArgMax (greater) or ArgMin by a plain loop.
func argRef(x []float32, greater bool) int {
	bi := -1
	for i, v := range x {
		if bi < 0 {
			bi = i
			continue
		}
		b := x[bi]
		switch {
		case b != b:
		case v != v:
			bi = i
		case greater && v > b, !greater && v < b:
			bi = i
		}
	}
	return bi
}

func TestArgMaxArgMin(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	forEachLevel(t, func(level string) {
		for _, n := range testLengths() {
			for trial := 0; trial < 6; trial++ {
				x := randSlice(r, n, func(r *rand.Rand) float32 {
					switch trial {
					case 0:
						return float32(r.NormFloat64())
					case 1: // many ties
						return float32(r.IntN(3))
					case 2:
						return []float32{0, float32(math.Copysign(0, -1))}[r.IntN(2)]
					case 3:
						return float32(math.Inf(-1 + 2*r.IntN(2)))
					case 4:
						return operand(r, uniform(-1, 1))
					}
					return float32(r.IntN(1000))
				})
				if trial == 5 && n > 0 { // a single NaN somewhere
					x[r.IntN(n)] = float32(math.NaN())
				}
				if got, want := ArgMax(x), argRef(x, true); got != want {
					t.Fatalf("%s ArgMax(%v) = %d, want %d", level, x, got, want)
				}
				if got, want := ArgMin(x), argRef(x, false); got != want {
					t.Fatalf("%s ArgMin(%v) = %d, want %d", level, x, got, want)
				}
			}
		}
	})
}

// TestRowAndColumnReductions checks the [rows, n] forms against loops.
func TestRowAndColumnReductions(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	for _, shape := range [][2]int{{1, 1}, {3, 5}, {7, 16}, {9, 33}, {17, 64}, {16, 100}, {65, 7}, {2, 1031}, {0, 5}, {4, 0}} {
		rows, n := shape[0], shape[1]
		x := randSlice(r, rows*n, func(r *rand.Rand) float32 { return float32(r.NormFloat64()) })
		rs := make([]float32, rows)
		if n == 0 { // rows of nothing reduce to the identity
			rs[0] = 7
			RowSum(rs, nil, 0)
			ra := make([]int32, rows)
			RowArgMax(ra, nil, 0)
			if rs[0] != 0 || ra[0] != -1 {
				t.Fatalf("RowSum/RowArgMax of empty rows: %v %v", rs, ra)
			}
			continue
		}
		RowSum(rs, x, n)
		rm := make([]float32, rows)
		RowMax(rm, x, n)
		ra := make([]int32, rows)
		RowArgMax(ra, x, n)
		for i := 0; i < rows; i++ {
			row := x[i*n : i*n+n]
			want, abs := 0.0, 0.0
			for _, v := range row {
				want += float64(v)
				abs += math.Abs(float64(v))
			}
			if math.Abs(float64(rs[i])-want) > sumBound(n, abs)+ulp32(want)/2 {
				t.Fatalf("RowSum %v row %d: %v, want %v", shape, i, rs[i], want)
			}
			if rm[i] != reduceMaxF32Go(row) || int(ra[i]) != argRef(row, true) {
				t.Fatalf("RowMax/RowArgMax %v row %d: %v %d", shape, i, rm[i], ra[i])
			}
		}
		cs := make([]float32, n)
		ColSum(cs, x)
		cm := make([]float32, n)
		ColMax(cm, x)
		cn := make([]float32, n)
		ColMin(cn, x)
		for j := 0; j < n; j++ {
			want, abs := 0.0, 0.0
			mx, mn := float32(math.Inf(-1)), float32(math.Inf(1))
			for i := 0; i < rows; i++ {
				v := x[i*n+j]
				want += float64(v)
				abs += math.Abs(float64(v))
				mx, mn = maxXLA32(mx, v), minXLA32(mn, v)
			}
			if bound := (float64(rows)/8+4)*0x1p-24*abs + ulp32(want); math.Abs(float64(cs[j])-want) > bound {
				t.Fatalf("ColSum %v column %d: %v, want %v", shape, j, cs[j], want)
			}
			if cm[j] != mx || cn[j] != mn {
				t.Fatalf("ColMax/ColMin %v column %d: %v %v, want %v %v", shape, j, cm[j], cn[j], mx, mn)
			}
		}
	}
}

// TestReduceKernelsMatchTwins runs the accumulating kernels' wrappers at
// every level against the twins' results for the operations whose result
// does not depend on the order (Max, Min) and the elementwise ones exactly.
func TestColumnKernelsMatchTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	forEachLevel(t, func(level string) {
		for _, n := range testLengths() {
			rows := 8 + n%5
			x := randSlice(r, rows*n, func(r *rand.Rand) float32 { return operand(r, uniform(-2, 2)) })
			for _, c := range []struct {
				name string
				fn   func(dst, x []float32)
				twin func(dst, r0, r1, r2, r3, r4, r5, r6, r7 []float32)
				id   float32
				one  func(a, b float32) float32
			}{
				{"ColSum", ColSum, colAccSumF32Go, 0, func(a, b float32) float32 { return a + b }},
				{"ColMax", ColMax, colAccMaxF32Go, float32(math.Inf(-1)), maxXLA32},
				{"ColMin", ColMin, colAccMinF32Go, float32(math.Inf(1)), minXLA32},
				{"ColProd", ColProd, colAccProdF32Go, 1, func(a, b float32) float32 { return a * b }},
			} {
				got := make([]float32, n)
				c.fn(got, x)
				want := make([]float32, n)
				for i := range want {
					want[i] = c.id
				}
				row := func(i int) []float32 { return x[i*n : i*n+n] }
				c.twin(want, row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
				for i := 8; i < rows; i++ {
					for j := range want {
						want[j] = c.one(want[j], row(i)[j])
					}
				}
				for j := range got {
					if !sameFloat(got[j], want[j]) {
						t.Fatalf("%s %s n=%d rows=%d column %d: %v, twin %v", level, c.name, n, rows, j, got[j], want[j])
					}
				}
			}
		}
	})
}

package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// The bfloat16 and binary16 reductions, Softmax and LayerNorm run the
// float32 programs on elements widened in registers, so at every level they
// must give exactly what the float32 functions give on the widened rows
// (and, for Softmax and LayerNorm, that result rounded once).

func widenAll(nk narrowKind, x []uint16) []float32 {
	w := make([]float32, len(x))
	for i, h := range x {
		w[i] = nk.widen(h)
	}
	return w
}

func narrowRow(r *rand.Rand, nk narrowKind, n int, domain float64, specials bool) []uint16 {
	x := make([]uint16, n+1)[1:] // unaligned
	for i := range x {
		if specials {
			x[i] = narrowOperand(r, nk, domain)
		} else {
			x[i] = nk.narrow(float32((2*r.Float64() - 1) * domain))
		}
	}
	return x
}

// typedReduceFuncs are the typed functions of each kind.
type typedReduceFuncs struct {
	sum, sumSquares, max, min func([]uint16) float32
	argMax, argMin            func([]uint16) int
	rowSum, rowMax            func([]float32, []uint16, int)
	colSum, colMax, colMin    func([]float32, []uint16)
	softmax                   func(dst, x []uint16, n int)
	layerNorm                 func(dst, x []uint16, n int, gamma, beta []uint16, eps float32)
}

var typedReduces = map[string]typedReduceFuncs{
	"bf16": {SumBF16, SumSquaresBF16, MaxBF16, MinBF16, ArgMaxBF16, ArgMinBF16, RowSumBF16, RowMaxBF16, ColSumBF16, ColMaxBF16, ColMinBF16, SoftmaxBF16, LayerNormBF16},
	"f16":  {SumF16, SumSquaresF16, MaxF16, MinF16, ArgMaxF16, ArgMinF16, RowSumF16, RowMaxF16, ColSumF16, ColMaxF16, ColMinF16, SoftmaxF16, LayerNormF16},
}

func sameF32(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

func TestTypedReductionsMatchFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for _, nk := range narrowKinds {
		f := typedReduces[nk.name]
		forEachLevel(t, func(level string) {
			for _, n := range testLengths() {
				for _, specials := range []bool{false, true} {
					x := narrowRow(r, nk, n, 50, specials)
					w := widenAll(nk, x)
					name := fmt.Sprintf("%s %s n=%d specials=%v", level, nk.name, n, specials)
					for _, c := range []struct {
						op        string
						got, want float32
					}{
						{"Sum", f.sum(x), Sum(w)}, {"SumSquares", f.sumSquares(x), SumSquares(w)},
						{"Max", f.max(x), Max(w)}, {"Min", f.min(x), Min(w)},
						{"ArgMax", float32(f.argMax(x)), float32(ArgMax(w))}, {"ArgMin", float32(f.argMin(x)), float32(ArgMin(w))},
					} {
						if !sameF32(c.got, c.want) {
							t.Fatalf("%s: %s = %v, float32 %v", name, c.op, c.got, c.want)
						}
					}
				}
			}
			// Rows and columns.
			for _, cols := range []int{1, 15, 16, 17, 63, 100} {
				for _, rows := range []int{0, 1, 7, 8, 9, 17} {
					x := narrowRow(r, nk, rows*cols, 50, true)
					w := widenAll(nk, x)
					got, want := make([]float32, rows), make([]float32, rows)
					f.rowSum(got, x, cols)
					RowSum(want, w, cols)
					f32Equal(t, fmt.Sprintf("%s %s RowSum %dx%d", level, nk.name, rows, cols), got, want)
					f.rowMax(got, x, cols)
					RowMax(want, w, cols)
					f32Equal(t, fmt.Sprintf("%s %s RowMax %dx%d", level, nk.name, rows, cols), got, want)
					gc, wc := make([]float32, cols), make([]float32, cols)
					for _, c := range []struct {
						name string
						f    func([]float32, []uint16)
						g    func([]float32, []float32)
					}{{"ColSum", f.colSum, ColSum}, {"ColMax", f.colMax, ColMax}, {"ColMin", f.colMin, ColMin}} {
						c.f(gc, x)
						c.g(wc, w)
						f32Equal(t, fmt.Sprintf("%s %s %s %dx%d", level, nk.name, c.name, rows, cols), gc, wc)
					}
				}
			}
		})
	}
}

func f32Equal(t *testing.T, name string, got, want []float32) {
	t.Helper()
	for i := range got {
		if !sameF32(got[i], want[i]) {
			t.Fatalf("%s: element %d = %v, float32 %v", name, i, got[i], want[i])
		}
	}
}

func TestTypedSoftmaxLayerNormMatchFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for _, nk := range narrowKinds {
		f := typedReduces[nk.name]
		forEachLevel(t, func(level string) {
			for _, n := range []int{1, 2, 3, 7, 15, 16, 17, 31, 33, 64, 100, 257, 768, 4097} {
				rows := 3
				x := narrowRow(r, nk, rows*n, 8, false)
				w := widenAll(nk, x)
				got, want := make([]uint16, len(x)), make([]float32, len(x))
				f.softmax(got, x, n)
				Softmax(want, w, n)
				narrowEqual(t, fmt.Sprintf("%s %s Softmax n=%d", level, nk.name, n), nk, got, want)
				// In place.
				inPlace := append([]uint16(nil), x...)
				f.softmax(inPlace, inPlace, n)
				narrowEqual(t, fmt.Sprintf("%s %s Softmax in place n=%d", level, nk.name, n), nk, inPlace, want)

				gamma, beta := narrowRow(r, nk, n, 2, false), narrowRow(r, nk, n, 2, false)
				wg, wb := widenAll(nk, gamma), widenAll(nk, beta)
				for _, c := range []struct {
					g, b   []uint16
					wg, wb []float32
				}{{gamma, beta, wg, wb}, {nil, nil, nil, nil}, {gamma, nil, wg, nil}, {nil, beta, nil, wb}} {
					f.layerNorm(got, x, n, c.g, c.b, 1e-5)
					LayerNorm(want, w, n, c.wg, c.wb, 1e-5)
					narrowEqual(t, fmt.Sprintf("%s %s LayerNorm n=%d gamma=%v beta=%v", level, nk.name, n, c.g != nil, c.b != nil), nk, got, want)
				}
			}
		})
	}
}

func narrowEqual(t *testing.T, name string, nk narrowKind, got []uint16, want []float32) {
	t.Helper()
	for i := range got {
		if w := nk.narrow(want[i]); !sameNarrow(nk, false, got[i], w) {
			t.Fatalf("%s: element %d = %#04x, float32 %v rounds to %#04x", name, i, got[i], want[i], w)
		}
	}
}

// TestTypedMaxAgainstEval compares MaxBF16/MaxF16 (exact) with ir/eval's
// reduce of the narrow array with maximum.
func TestTypedMaxAgainstEval(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	for _, nk := range narrowKinds {
		for _, n := range []int{1, 17, 1000} {
			x := narrowRow(r, nk, n, 1000, false)
			hlo := fmt.Sprintf(`HloModule m

max {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT m = %[1]s[] maximum(a, b)
}

ENTRY e {
  p = %[1]s[%[2]d] parameter(0)
  init = %[1]s[] constant(-inf)
  ROOT r = %[1]s[] reduce(p, init), dimensions={0}, to_apply=max
}
`, nk.name, n)
			m, err := ir.ParseModule(hlo)
			if err != nil {
				t.Fatal(err)
			}
			lit, err := ir.NewLiteralView(ir.MakeShape(nk.elem, n), unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 2*n))
			if err != nil {
				t.Fatal(err)
			}
			res, err := eval.Run(m, lit)
			if err != nil {
				t.Fatal(err)
			}
			b := res[0].Bytes()
			want := nk.widen(uint16(b[0]) | uint16(b[1])<<8)
			forEachLevel(t, func(level string) {
				if got := typedReduces[nk.name].max(x); !sameF32(got, want) {
					t.Fatalf("%s %s Max n=%d = %v, ir/eval %v", level, nk.name, n, got, want)
				}
			})
		}
	}
}

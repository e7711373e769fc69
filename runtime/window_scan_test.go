package runtime

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// TestScanF32 runs float32 cumulative reductions (JAX's cumsum, cumprod,
// cummax, cummin) on the scan path — along the last dimension (a running
// fold per line) and along outer ones (rows folded with the vector
// kernels, split by blocks or by columns between threads), the reducer's
// operands either way round — and checks them bit for bit against the
// evaluator (NaNs as NaNs: their payloads are not defined), with zeros of
// both signs, infinities and NaNs among the values, and that a run
// allocates nothing.
func TestScanF32(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for _, dims := range [][]int{{2, 3001}, {1, 1000, 40}, {3, 129, 17}, {64, 40, 1}, {4096, 1}} {
		x, err := ir.NewLiteral(ir.MakeShape(ir.F32, dims...))
		if err != nil {
			t.Fatal(err)
		}
		pool := []float32{-1.5, -1, -0.75, float32(math.Copysign(0, -1)), 0, 0.5, 1, 1.25, 2}
		vals := ir.Values[float32](x)
		for i := range vals {
			vals[i] = pool[r.IntN(len(pool))]
			if r.IntN(500) == 0 {
				vals[i] = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}[r.IntN(3)]
			}
		}
		for d := range dims {
			if dims[d] < 2 {
				continue
			}
			for _, op := range []string{"add", "multiply", "maximum", "minimum"} {
				for _, swap := range []bool{false, true} {
					for _, threads := range []int{1, 2} {
						name := fmt.Sprintf("%v/dim%d/%s/swap=%v/threads=%d", dims, d, op, swap, threads)
						t.Run(name, func(t *testing.T) {
							m := scanModule(t, dims, d, op, swap)
							want, err := eval.Run(m, x)
							if err != nil {
								t.Fatal(err)
							}
							exe, err := Compile(m, WithThreads(threads))
							if err != nil {
								t.Fatal(err)
							}
							if k := exe.Stats().Kernels; len(k) != 1 || k[0].Impl != "reduce-window-scan" {
								t.Fatalf("runs %v, want the scan", k)
							}
							got := runLiterals(t, exe, []*ir.Literal{x})[0]
							if g, w := got.Bytes(), want[0].Bytes(); !bytes.Equal(g, w) {
								for i := 0; i < len(g); i += 4 {
									gv, wv := got.Float64At(i/4), want[0].Float64At(i/4)
									if !bytes.Equal(g[i:i+4], w[i:i+4]) && !(gv != gv && wv != wv) {
										t.Fatalf("element %d: %v, the evaluator's %v", i/4, got.Float64At(i/4), want[0].Float64At(i/4))
									}
								}
							}
							if raceEnabled {
								return
							}
							in := []*Tensor{TensorFromLiteral(x)}
							out, err := NewTensor(exe.ResultShapes()[0])
							if err != nil {
								t.Fatal(err)
							}
							if a := steadyAllocs(5, func() { _ = exe.RunInto(context.Background(), []*Tensor{out}, in...) }); a != 0 {
								t.Errorf("%v allocations per run", a)
							}
						})
					}
				}
			}
		}
	}
}

// scanModule is a cumulative reduction of f32 x along dimension d.
func scanModule(t testing.TB, dims []int, d int, op string, swap bool) *ir.Module {
	t.Helper()
	ds := strings.Trim(strings.ReplaceAll(fmt.Sprint(dims), " ", ","), "[]")
	var size, pad []string
	for i, n := range dims {
		if i == d {
			size, pad = append(size, fmt.Sprint(n)), append(pad, fmt.Sprintf("%d_0", n-1))
		} else {
			size, pad = append(size, "1"), append(pad, "0_0")
		}
	}
	args := "a, b"
	if swap {
		args = "b, a"
	}
	init := map[string]string{"add": "0", "multiply": "1", "maximum": "-inf", "minimum": "inf"}[op]
	m, err := ir.ParseModule(fmt.Sprintf(`HloModule m
red {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] %s(%s)
}
ENTRY e {
  x = f32[%s] parameter(0)
  init = f32[] constant(%s)
  ROOT r = f32[%s] reduce-window(x, init), window={size=%s pad=%s}, to_apply=red
}`, op, args, ds, init, ds, strings.Join(size, "x"), strings.Join(pad, "x")))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// BenchmarkCumsum is jnp.cumsum over 8 rows of 50,000 float32 (the top-p
// sampling step over a vocabulary), along the rows, and over 50,000 rows
// of 8 (along a leading dimension): one running fold, ns per element
// reported.
func BenchmarkCumsum(b *testing.B) {
	for _, c := range []struct {
		name string
		dims []int
		d    int
	}{{"rows", []int{8, 50000}, 1}, {"columns", []int{50000, 8}, 0}} {
		b.Run(c.name, func(b *testing.B) {
			m := scanModule(b, c.dims, c.d, "add", false)
			exe, err := Compile(m, WithThreads(1))
			if err != nil {
				b.Fatal(err)
			}
			x, err := ir.NewLiteral(ir.MakeShape(ir.F32, c.dims...))
			if err != nil {
				b.Fatal(err)
			}
			in := []*Tensor{TensorFromLiteral(x)}
			out, err := NewTensor(exe.ResultShapes()[0])
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := exe.RunInto(context.Background(), []*Tensor{out}, in...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(x.ElementCount()), "ns/element")
		})
	}
}

package runtime

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// layerNormHLO is JAX's layer_norm exported for a narrow type T over rows
// of n: the statistics accumulated in float32, each narrow op rounding its
// result, with flax's scale and bias tail when affine.
func layerNormHLO(t ir.ElementType, rows, n int, eps string, affine bool) string {
	tail := "ROOT y = T[@R,@N] divide(d, sb)"
	params := ""
	if affine {
		params = "\n  scale = T[@N] parameter(1)\n  bias = T[@N] parameter(2)"
		tail = `y = T[@R,@N] divide(d, sb)
  scb = T[@R,@N] broadcast(scale), dimensions={1}
  ys = T[@R,@N] multiply(y, scb)
  bb = T[@R,@N] broadcast(bias), dimensions={1}
  ROOT o = T[@R,@N] add(ys, bb)`
	}
	src := fmt.Sprintf(`HloModule ln

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY e {
  x = T[1,@R,@N] parameter(0)%[1]s
  xf = f32[1,@R,@N] convert(x)
  z = f32[] constant(0)
  s1 = f32[1,@R] reduce(xf, z), dimensions={2}, to_apply=add
  s1r = f32[1,@R,1] reshape(s1)
  k = f32[] constant(%[2]d)
  kb = f32[1,@R,1] broadcast(k), dimensions={}
  m = f32[1,@R,1] divide(s1r, kb)
  mc = T[1,@R,1] convert(m)
  mr = T[@R] reshape(mc)
  mb = T[1,@R,@N] broadcast(mr), dimensions={1}
  d3 = T[1,@R,@N] subtract(x, mb)
  sq = T[1,@R,@N] multiply(d3, d3)
  sqf = f32[1,@R,@N] convert(sq)
  s2 = f32[1,@R] reduce(sqf, z), dimensions={2}, to_apply=add
  s2r = f32[1,@R,1] reshape(s2)
  v = f32[1,@R,1] divide(s2r, kb)
  vc = T[1,@R,1] convert(v)
  ep = T[] constant(%[3]s)
  epb = T[1,@R,1] broadcast(ep), dimensions={}
  ve = T[1,@R,1] add(vc, epb)
  sd = T[1,@R,1] sqrt(ve)
  sdr = T[@R] reshape(sd)
  sb = T[@R,@N] broadcast(sdr), dimensions={0}
  d = T[@R,@N] reshape(d3)
  %[4]s
}
`, params, n, eps, tail)
	return strings.NewReplacer("T[", t.String()+"[", "@R", fmt.Sprint(rows), "@N", fmt.Sprint(n)).Replace(src)
}

// exactRowsLiteral fills [1, rows, n] with rows whose float32 sums, and the
// sums of their squared deviations, are exact in any order: each row is
// m + e_j·2^k with the e_j small integers in pairs ±e (a 0 for odd n), so
// its mean is m·2^k exactly and every deviation and square is a small
// integer times a power of two; the compiled row program, folding in its
// own order, must then match the evaluator bit for bit. Some rows hold a
// NaN or an infinity (or both infinities).
func exactRowsLiteral(r *rand.Rand, t ir.ElementType, rows, n int) *ir.Literal {
	l := ir.MustNewLiteral(ir.MakeShape(t, 1, rows, n))
	maxE, maxK := 16, 20
	if t == ir.F16 {
		maxE, maxK = 8, 2
	}
	for row := 0; row < rows; row++ {
		scale := math.Ldexp(1, r.IntN(2*maxK+1)-maxK)
		m := float64(r.IntN(17) - 8)
		vals := make([]float64, n)
		for j := 0; j+1 < n; j += 2 {
			e := float64(r.IntN(2*maxE+1) - maxE)
			vals[j], vals[j+1] = e, -e
		}
		for j := range vals {
			vals[j] = (m + vals[j]) * scale
		}
		r.Shuffle(n, func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		if n > 0 {
			switch r.IntN(6) {
			case 0:
				vals[r.IntN(n)] = math.NaN()
			case 1:
				vals[r.IntN(n)] = math.Inf(1 - 2*r.IntN(2))
			case 2:
				if n > 1 {
					vals[0], vals[n-1] = math.Inf(1), math.Inf(-1)
				}
			}
		}
		for j, v := range vals {
			l.SetFloat64At(row*n+j, v)
		}
	}
	return l
}

// TestLowpRowPrograms runs JAX's narrow layer-norm, with and without the
// affine tail, as one row program, against ir/eval, at row lengths around
// every vector width and several row counts.
func TestLowpRowPrograms(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 22))
	lengths := []int{0, 1, 2, 7, 13, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 767, 768, 769}
	counts := []int{1, 3, 8}
	if testing.Short() {
		lengths, counts = []int{1, 17, 33, 65, 768}, []int{3}
	}
	for _, ty := range []ir.ElementType{ir.BF16, ir.F16} {
		for _, n := range lengths {
			for _, rows := range counts {
				for _, affine := range []bool{false, true} {
					eps := []string{"1.001e-05", "0.001", "1e-06"}[r.IntN(3)]
					hlo := layerNormHLO(ty, rows, n, eps, affine)
					args := []*ir.Literal{exactRowsLiteral(r, ty, rows, n)}
					if affine {
						args = append(args, randomArgs(r, ir.MakeShape(ty, n), ir.MakeShape(ty, n))...)
					}
					t.Run(fmt.Sprintf("%s/%dx%d/affine=%v", ty, rows, n, affine), func(t *testing.T) {
						// The rows stage forms bfloat16 programs only, whose
						// passes run fused (a row of one is a scalar).
						impl := "loop-lowp-row-program-fused"
						if ty != ir.BF16 || n == 1 {
							impl = ""
						}
						checkGeneric(t, genericCase{hlo: hlo, args: args, check: usesImpl(nonEmpty(n, impl))})
					})
				}
			}
		}
	}
}

// TestLowpRowsFlatLoop checks the flat row loop against the general row
// loop bit for bit: a bfloat16 layer-norm (which takes the flat loop, its
// division reading the deviations its sum of squares kept) on
// rows of random values at scales across the range, with zeros, infinities,
// NaNs and subnormals sprinkled in, at row lengths around the kernels'
// widths, run once with the flat steps and once without. The row count
// leaves a partial batch of rows (flatBatch), the longest rows run on two
// threads, whose parts are shorter than a batch, and a second form divides
// by a per-row parameter instead of the row length, a scalar the loop
// reads by each row's index.
func TestLowpRowsFlatLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	specials := []uint16{0, 0x8000, 0x0001, 0x8042, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f7f, 0x0080}
	for _, perRow := range []bool{false, true} {
		for _, n := range []int{2, 7, 16, 31, 32, 33, 64, 65, 100, 768} {
			const rows = 45
			hlo := layerNormHLO(ir.BF16, rows, n, "1.001e-05", false)
			if perRow {
				hlo = strings.Replace(hlo, "kb = f32[1,45,1] broadcast(k), dimensions={}", "kb = f32[1,45,1] parameter(1)", 1)
			}
			m, err := ir.ParseModule(hlo)
			if err != nil {
				t.Fatal(err)
			}
			threads := 1
			if n == 768 {
				threads = 2
			}
			exe, err := Compile(m, WithThreads(threads))
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("n=%d perRow=%v", n, perRow)
			for rep := 0; rep < 6; rep++ {
				lit := ir.MustNewLiteral(ir.MakeShape(ir.BF16, 1, rows, n))
				x := ops.Elems[uint16](lit.Bytes())
				for i := range x {
					scale := math.Ldexp(1, r.IntN(40)-20)
					x[i] = uint16(ir.BFloat16FromFloat32(float32((r.Float64()*2 - 1) * scale)))
					if rep%2 == 1 && r.IntN(16) == 0 {
						x[i] = specials[r.IntN(len(specials))]
					}
				}
				args := []*Tensor{TensorFromLiteral(lit)}
				if perRow {
					k := ir.MustNewLiteral(ir.MakeShape(ir.F32, 1, rows, 1))
					ks := ops.Elems[float32](k.Bytes())
					for i := range ks {
						ks[i] = float32(n) * float32(0.5+r.Float64())
					}
					args = append(args, TensorFromLiteral(k))
				}
				checkFlatLoop(t, name, exe, args)
			}
		}
	}
}

// checkFlatLoop runs exe, whose one row program must have a flat row loop
// that keeps the deviations for its division, with and without that loop,
// and compares the results bit for bit.
func checkFlatLoop(t *testing.T, name string, exe *Executable, args []*Tensor) {
	t.Helper()
	var step *lowpLoopStep
	for _, st := range exe.entry.steps {
		if s, ok := st.(*lowpLoopStep); ok {
			step = s
		}
	}
	if step == nil || step.flat == nil {
		t.Fatalf("%s: the layer-norm has no flat row loop (plan %v)", name, exe.entry.plan)
	}
	flat := step.flat
	keeps := false
	for _, st := range flat {
		keeps = keeps || st.keep
	}
	if !keeps {
		t.Fatalf("%s: the flat loop does not keep the deviations for the division", name)
	}
	got, _ := NewTensor(exe.ResultShapes()[0])
	want, _ := NewTensor(exe.ResultShapes()[0])
	if err := exe.RunInto(context.Background(), []*Tensor{got}, args...); err != nil {
		t.Fatal(err)
	}
	step.flat = nil
	err := exe.RunInto(context.Background(), []*Tensor{want}, args...)
	step.flat = flat
	if err != nil {
		t.Fatal(err)
	}
	g, w := ops.Elems[uint16](got.data), ops.Elems[uint16](want.data)
	for i := range w {
		if g[i] != w[i] {
			t.Fatalf("%s: element %d is %#04x in the flat loop, %#04x in the general one", name, i, g[i], w[i])
		}
	}
}

// TestLowpRowProgramRunsWithoutAllocating runs a bfloat16 layer-norm's
// row program, without its affine tail (the flat row loop, its rows in
// batches) and with it (the general row loop), on one thread and on two,
// and checks that a run allocates nothing.
func TestLowpRowProgramRunsWithoutAllocating(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled work memory at random")
	}
	r := rand.New(rand.NewPCG(41, 42))
	for _, affine := range []bool{false, true} {
		m, err := ir.ParseModule(layerNormHLO(ir.BF16, 96, 768, "1.001e-05", affine))
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 2} {
			exe, err := Compile(m, WithThreads(threads))
			if err != nil {
				t.Fatal(err)
			}
			flat := false
			for _, st := range exe.entry.steps {
				if s, ok := st.(*lowpLoopStep); ok && s.flat != nil {
					flat = true
				}
			}
			if flat == affine {
				t.Fatalf("affine=%v: the flat row loop is used: %v", affine, flat)
			}
			args := []*Tensor{TensorFromLiteral(exactRowsLiteral(r, ir.BF16, 96, 768))}
			if affine {
				for _, l := range randomArgs(r, ir.MakeShape(ir.BF16, 768), ir.MakeShape(ir.BF16, 768)) {
					args = append(args, TensorFromLiteral(l))
				}
			}
			out, _ := NewTensor(exe.ResultShapes()[0])
			run := func() {
				if err := exe.RunInto(context.Background(), []*Tensor{out}, args...); err != nil {
					t.Fatal(err)
				}
			}
			run()
			if allocs := steadyAllocs(20, run); allocs != 0 {
				t.Errorf("affine=%v threads=%d: %v allocations per run, want 0", affine, threads, allocs)
			}
		}
	}
}

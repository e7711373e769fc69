package runtime

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// compileText parses and compiles an HLO module, failing the test on error.
func compileText(t *testing.T, text string, opts ...Option) (*ir.Module, *Executable) {
	t.Helper()
	m, err := ir.ParseModule(text)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile(m, opts...)
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, text)
	}
	return m, e
}

// checkAgainstEval runs e and the reference evaluator on the same random
// arguments and compares the results within a relative tolerance.
func checkAgainstEval(t *testing.T, m *ir.Module, e *Executable, tol float64) {
	t.Helper()
	var lits []*ir.Literal
	var args []*Tensor
	for i, p := range m.Entry.Parameters {
		l := detrand.Literal(p.Shape, detrand.Seed(t.Name(), i))
		lits = append(lits, l)
		args = append(args, TensorFromLiteral(l))
	}
	want, err := eval.Run(m, lits...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Run(context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		g, w := got[i].Literal(), want[i]
		for j := 0; j < w.ElementCount(); j++ {
			a, b := g.Float64At(j), w.Float64At(j)
			if math.Abs(a-b) > tol*math.Max(1, math.Abs(b)) {
				t.Fatalf("output %d element %d: compiled %v, reference %v", i, j, a, b)
			}
		}
	}
}

func kernelOps(k KernelStat) string { return strings.Join(k.Ops, " ") }

func TestFusionElementwiseChainIsOneLoop(t *testing.T) {
	m, e := compileText(t, `HloModule chain
ENTRY main {
  x = f32[1000] parameter(0)
  y = f32[1000] parameter(1)
  c = f32[] constant(0.5)
  cb = f32[1000] broadcast(c), dimensions={}
  a1 = f32[1000] add(x, y)
  a2 = f32[1000] multiply(a1, cb)
  a3 = f32[1000] exponential(a2)
  a4 = f32[1000] subtract(a3, x)
  a5 = f32[1000] tanh(a4)
  a6 = f32[1000] maximum(a5, y)
  a7 = f32[1000] negate(a6)
  a8 = f32[1000] abs(a7)
  a9 = f32[1000] multiply(a8, a8)
  ROOT a10 = f32[1000] add(a9, cb)
}`)
	st := e.Stats()
	if len(st.Kernels) != 1 || st.Kernels[0].Kind != "loop" || st.Kernels[0].Impl != "loop" {
		t.Fatalf("want one fused loop kernel, got:\n%v", st)
	}
	if n := len(st.Kernels[0].Ops); n < 10 {
		t.Errorf("the loop computes %d values, want the ops of the chain (the simplifier may shorten it by one) and the broadcast:\n%v", n, st)
	}
	if st.Fusions != 1 {
		t.Errorf("Fusions = %d, want 1", st.Fusions)
	}
	checkAgainstEval(t, m, e, 1e-6)
}

func TestFusionDotBiasReluIsOneGemm(t *testing.T) {
	m, e := compileText(t, `HloModule dense
ENTRY main {
  x = f32[8,64] parameter(0)
  w = f32[64,32] parameter(1)
  b = f32[32] parameter(2)
  d = f32[8,32] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[8,32] broadcast(b), dimensions={1}
  s = f32[8,32] add(d, bb)
  z = f32[] constant(0)
  zb = f32[8,32] broadcast(z), dimensions={}
  ROOT r = f32[8,32] maximum(s, zb)
}`)
	st := e.Stats()
	if len(st.Kernels) != 1 {
		t.Fatalf("want one kernel, got:\n%v", st)
	}
	k := st.Kernels[0]
	if k.Kind != "dot" || !strings.HasPrefix(k.Impl, "gemm") || !strings.Contains(kernelOps(k), "add") || !strings.Contains(kernelOps(k), "maximum") {
		t.Fatalf("want a GEMM with the bias and ReLU in its epilogue, got:\n%v", st)
	}
	checkAgainstEval(t, m, e, 1e-5)
}

func TestFusionDoesNotDuplicateExpensiveWork(t *testing.T) {
	// exp(x) feeds two results: it must be computed once, into memory, not
	// recomputed inside each consumer.
	m, e := compileText(t, `HloModule shared
ENTRY main {
  x = f32[4096] parameter(0)
  ex = f32[4096] exponential(x)
  one = f32[] constant(1)
  ob = f32[4096] broadcast(one), dimensions={}
  a = f32[4096] add(ex, ob)
  b = f32[4096] multiply(ex, ex)
  ROOT t = (f32[4096], f32[4096]) tuple(a, b)
}`)
	st := e.Stats()
	exps := 0
	for _, k := range st.Kernels {
		for _, op := range k.Ops {
			if op == "exponential" {
				exps++
			}
		}
	}
	if exps != 1 || len(st.Kernels) != 3 {
		t.Fatalf("exponential computed in %d kernels of %d, want once in its own kernel:\n%v", exps, len(st.Kernels), st)
	}
	checkAgainstEval(t, m, e, 1e-6)
}

func TestFusionThroughReshapeWhenStrided(t *testing.T) {
	// The transpose feeds a reshape that splits its last dimension: the
	// composed map is strided, so all of it is one loop.
	m, e := compileText(t, `HloModule heads
ENTRY main {
  x = f32[16,96] parameter(0)
  y = f32[16,3,32] parameter(1)
  n = f32[16,96] negate(x)
  r = f32[16,3,32] reshape(n)
  ROOT s = f32[16,3,32] add(r, y)
}`)
	st := e.Stats()
	if len(st.Kernels) != 1 || st.Kernels[0].Kind != "loop" {
		t.Fatalf("want one loop through the reshape, got:\n%v", st)
	}
	checkAgainstEval(t, m, e, 1e-6)
}

func TestNoFusionThroughNonStridedMap(t *testing.T) {
	// transpose then flatten: element i of the result reads x[i mod 4, i
	// floordiv 4], which no strided loop expresses, so the transposed values
	// are materialised before the reshape reads them.
	m, e := compileText(t, `HloModule flat
ENTRY main {
  x = f32[4,6] parameter(0)
  y = f32[24] parameter(1)
  e = f32[4,6] exponential(x)
  t = f32[6,4] transpose(e), dimensions={1,0}
  r = f32[24] reshape(t)
  ROOT s = f32[24] add(r, y)
}`)
	st := e.Stats()
	if len(st.Kernels) < 2 {
		t.Fatalf("a non-strided map was fused:\n%v", st)
	}
	checkAgainstEval(t, m, e, 1e-6)
}

func TestFusionIntoReduction(t *testing.T) {
	m, e := compileText(t, `HloModule sumsq
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[64,300] parameter(0)
  sq = f32[64,300] multiply(x, x)
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(sq, z), dimensions={1}, to_apply=add
}`)
	st := e.Stats()
	if len(st.Kernels) != 1 || st.Kernels[0].Kind != "reduce" || !strings.Contains(kernelOps(st.Kernels[0]), "multiply") {
		t.Fatalf("want the square fused into the reduction, got:\n%v", st)
	}
	checkAgainstEval(t, m, e, 1e-5) // the sum is accumulated more accurately than the evaluator's order
}

func TestInPlaceReuseShrinksArena(t *testing.T) {
	// Each exponential is the last reader of its input: chains of unfusable
	// steps (a dot in between) reuse buffers in place.
	_, e := compileText(t, `HloModule reuse
ENTRY main {
  x = f32[64,64] parameter(0)
  w = f32[64,64] parameter(1)
  a = f32[64,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[64,64] exponential(a)
  c = f32[64,64] dot(b, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d = f32[64,64] tanh(c)
  ROOT e = f32[64,64] dot(d, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`)
	st := e.Stats()
	loops := 0
	for _, k := range st.Kernels {
		if k.Kind == "loop" {
			loops++
			if !strings.HasPrefix(k.Out, "alias(") {
				t.Errorf("loop %s writes %s, want its input's memory", kernelOps(k), k.Out)
			}
		}
	}
	if loops != 2 || st.ArenaBytes > st.LowerBoundBytes {
		t.Fatalf("%d loops, arena %d B, intermediates %d B, lower bound %d B: want in-place reuse down to the bound\n%v",
			loops, st.ArenaBytes, st.IntermediateBytes, st.LowerBoundBytes, st)
	}
}

func TestFusionConvBiasReluIsOneKernel(t *testing.T) {
	m, e := compileText(t, `HloModule convlayer
ENTRY main {
  x = f32[1,12,12,5] parameter(0)
  w = f32[3,3,5,7] parameter(1)
  b = f32[7] parameter(2)
  c = f32[1,12,12,7] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[1,12,12,7] broadcast(b), dimensions={3}
  s = f32[1,12,12,7] add(c, bb)
  z = f32[] constant(0)
  zb = f32[1,12,12,7] broadcast(z), dimensions={}
  ROOT r = f32[1,12,12,7] maximum(s, zb)
}`)
	st := e.Stats()
	if len(st.Kernels) != 1 || st.Kernels[0].Kind != "conv" || !strings.Contains(kernelOps(st.Kernels[0]), "maximum") {
		t.Fatalf("want one convolution kernel with the bias and ReLU in its epilogue, got:\n%v", st)
	}
	checkAgainstEval(t, m, e, 1e-5)
	// With the weights bound the convolution kernels run on packed weights.
	var opts []Option
	for i := 1; i < 3; i++ {
		opts = append(opts, WithParameter(i, TensorFromLiteral(detrand.Literal(m.Entry.Parameters[i].Shape, detrand.Seed(t.Name(), i)))))
	}
	if _, e2 := compileText(t, m.String(), opts...); e2.Stats().Kernels[0].Impl != "conv" {
		t.Errorf("with constant weights the implementation is %q, want conv", e2.Stats().Kernels[0].Impl)
	}
}

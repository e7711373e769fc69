package runtime

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// convPerRunCases are convolutions whose weights are arguments, with the
// implementation each must run on: dense, grouped and depthwise float32
// layers with fused epilogues on the convolution kernels (weights packed on
// every run, a 1×1 layer among them), bfloat16 and binary16 depthwise
// layers on the narrow depthwise kernels, and dense narrow layers band by
// band.
var convPerRunCases = []struct{ name, hlo, impl string }{
	{"f32-dense-bias-relu", `HloModule m
ENTRY e {
  x = f32[2,9,11,5] parameter(0)
  w = f32[3,3,5,17] parameter(1)
  b = f32[17] parameter(2)
  c = f32[2,9,11,17] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[2,9,11,17] broadcast(b), dimensions={3}
  a = f32[2,9,11,17] add(c, bb)
  z = f32[] constant(0)
  zb = f32[2,9,11,17] broadcast(z), dimensions={}
  ROOT r = f32[2,9,11,17] maximum(a, zb)
}`, "conv-packed-per-run"},
	{"f32-strided-dilated", `HloModule m
ENTRY e {
  x = f32[1,12,13,16] parameter(0)
  w = f32[3,2,16,33] parameter(1)
  ROOT c = f32[1,6,12,33] convolution(x, w), window={size=3x2 stride=2x1 pad=0_1x1_0 rhs_dilate=1x2}, dim_labels=b01f_01io->b01f
}`, "conv-packed-per-run"},
	{"f32-grouped", `HloModule m
ENTRY e {
  x = f32[1,10,10,32] parameter(0)
  w = f32[3,3,8,64] parameter(1)
  ROOT c = f32[1,10,10,64] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=4
}`, "conv-packed-per-run"},
	{"f32-depthwise", `HloModule m
ENTRY e {
  x = f32[1,14,15,67] parameter(0)
  w = f32[3,3,1,67] parameter(1)
  ROOT c = f32[1,14,15,67] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=67
}`, "conv-packed-per-run"},
	{"f32-1d", `HloModule m
ENTRY e {
  x = f32[3,20,6] parameter(0)
  w = f32[5,6,7] parameter(1)
  ROOT c = f32[3,20,7] convolution(x, w), window={size=5 pad=2_2}, dim_labels=b0f_0io->b0f
}`, "conv-packed-per-run"},
	{"f32-3d", `HloModule m
ENTRY e {
  x = f32[1,5,6,4,3] parameter(0)
  w = f32[3,3,3,3,8] parameter(1)
  ROOT c = f32[1,5,6,4,8] convolution(x, w), window={size=3x3x3 pad=1_1x1_1x1_1}, dim_labels=b012f_012io->b012f
}`, "conv-packed-per-run"},
	{"f32-1x1", `HloModule m
ENTRY e {
  x = f32[1,7,7,12] parameter(0)
  w = f32[1,1,12,20] parameter(1)
  ROOT c = f32[1,7,7,20] convolution(x, w), window={size=1x1}, dim_labels=b01f_01io->b01f
}`, "conv-packed-per-run"},
	{"bf16-depthwise", depthwiseHLO(ir.BF16, 2, 13, 11, 65, 3, 3, 1, 1), "conv-lowp-depthwise-per-run"},
	{"f16-depthwise-strided", depthwiseHLO(ir.F16, 1, 17, 16, 96, 3, 3, 2, 1), "conv-lowp-depthwise-per-run"},
	{"bf16-dense", `HloModule m
ENTRY e {
  x = bf16[1,12,9,6] parameter(0)
  w = bf16[3,3,6,10] parameter(1)
  ROOT c = bf16[1,12,9,10] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}`, "conv-lowp-per-run"},
	{"f16-grouped-to-f32", `HloModule m
ENTRY e {
  x = f16[1,8,8,16] parameter(0)
  w = f16[3,3,8,16] parameter(1)
  ROOT c = f32[1,8,8,16] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
}`, "conv-lowp-per-run"},
}

// TestConvWeightsPerRun runs each case on integer-valued operands, whose
// sums every order computes exactly, with every parameter an argument: the
// plan must run the case's implementation, and the results must match the
// reference evaluator bit for bit, on two runs with different weights (the
// second must not see the first's packing).
func TestConvWeightsPerRun(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, c := range convPerRunCases {
		t.Run(c.name, func(t *testing.T) {
			m, err := ir.ParseModule(c.hlo)
			if err != nil {
				t.Fatal(err)
			}
			exe, err := Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			usesImpl(c.impl)(t, exe)
			for run := 0; run < 2; run++ {
				args := make([]*ir.Literal, len(m.Entry.Parameters))
				tensors := make([]*Tensor, len(args))
				for i, p := range m.Entry.Parameters {
					args[i] = smallIntLiteral(r, p.Shape)
					tensors[i] = TensorFromLiteral(args[i].Clone())
				}
				want, err := eval.Run(m, args...)
				if err != nil {
					t.Fatal(err)
				}
				got, err := exe.Run(context.Background(), tensors...)
				if err != nil {
					t.Fatal(err)
				}
				if msg := compareLiterals(got[0].Literal(), want[0], -1); msg != "" {
					t.Fatalf("run %d: %s", run, msg)
				}
			}
		})
	}
}

// TestConvWeightsPerRunConcurrent runs one executable from several
// goroutines at once, each with its own weights: each run packs into its
// own frame, so every result is its own weights' (and the runs allocate
// nothing once warm).
func TestConvWeightsPerRunConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	for _, name := range []string{"f32-grouped", "bf16-depthwise"} {
		var hlo string
		for _, c := range convPerRunCases {
			if c.name == name {
				hlo = c.hlo
			}
		}
		m, err := ir.ParseModule(hlo)
		if err != nil {
			t.Fatal(err)
		}
		exe, err := Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		const workers = 4
		type job struct {
			args []*Tensor
			want *ir.Literal
		}
		jobs := make([]job, workers)
		for i := range jobs {
			lits := make([]*ir.Literal, len(m.Entry.Parameters))
			for j, p := range m.Entry.Parameters {
				lits[j] = smallIntLiteral(r, p.Shape)
				jobs[i].args = append(jobs[i].args, TensorFromLiteral(lits[j].Clone()))
			}
			want, err := eval.Run(m, lits...)
			if err != nil {
				t.Fatal(err)
			}
			jobs[i].want = want[0]
		}
		var wg sync.WaitGroup
		errs := make([]string, workers)
		for i := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := NewTensor(exe.ResultShapes()[0])
				if err != nil {
					errs[i] = err.Error()
					return
				}
				outs := []*Tensor{out}
				for rep := 0; rep < 20; rep++ {
					if err := exe.RunInto(context.Background(), outs, jobs[i].args...); err != nil {
						errs[i] = err.Error()
						return
					}
					if msg := compareLiterals(outs[0].Literal(), jobs[i].want, -1); msg != "" {
						errs[i] = fmt.Sprintf("repetition %d: %s", rep, msg)
						return
					}
				}
			}()
		}
		wg.Wait()
		for i, e := range errs {
			if e != "" {
				t.Errorf("%s goroutine %d: %s", name, i, e)
			}
		}
		if raceEnabled {
			continue
		}
		out, err := NewTensor(exe.ResultShapes()[0])
		if err != nil {
			t.Fatal(err)
		}
		outs := []*Tensor{out}
		if a := testing.AllocsPerRun(10, func() { _ = exe.RunInto(context.Background(), outs, jobs[0].args...) }); a != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, a)
		}
	}
}

// convBatchNormHLO is a convolution of groups groups followed by an
// inference batch-norm (Flax's form, the variance squared to keep it
// positive), a residual add when residual, and a ReLU, every parameter an
// argument.
func convBatchNormHLO(ci, co, groups int, residual bool) string {
	res, out := "", "z"
	if residual {
		res = fmt.Sprintf("\n  rin = f32[1,9,10,%d] parameter(6)\n  zr = f32[1,9,10,%d] add(z, rin)", co, co)
		out = "zr"
	}
	return fmt.Sprintf(`HloModule cbn
ENTRY main {
  x = f32[1,9,10,%[1]d] parameter(0)
  w = f32[3,3,%[3]d,%[2]d] parameter(1)
  mean = f32[%[2]d] parameter(2)
  v0 = f32[%[2]d] parameter(3)
  scale = f32[%[2]d] parameter(4)
  bias = f32[%[2]d] parameter(5)
  c = f32[1,9,10,%[2]d] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=%[4]d
  mb = f32[1,9,10,%[2]d] broadcast(mean), dimensions={3}
  d = f32[1,9,10,%[2]d] subtract(c, mb)
  var = f32[%[2]d] multiply(v0, v0)
  eps = f32[] constant(0.001)
  e = f32[%[2]d] broadcast(eps), dimensions={}
  ve = f32[%[2]d] add(var, e)
  r = f32[%[2]d] rsqrt(ve)
  k = f32[%[2]d] multiply(r, scale)
  kb = f32[1,9,10,%[2]d] broadcast(k), dimensions={3}
  y = f32[1,9,10,%[2]d] multiply(d, kb)
  bb = f32[1,9,10,%[2]d] broadcast(bias), dimensions={3}
  z = f32[1,9,10,%[2]d] add(y, bb)%[5]s
  zero = f32[] constant(0)
  zb = f32[1,9,10,%[2]d] broadcast(zero), dimensions={}
  ROOT relu = f32[1,9,10,%[2]d] maximum(%[6]s, zb)
}`, ci, co, ci/groups, groups, res, out)
}

// TestConvBatchNormPerRun runs batch-norms after dense, grouped and
// depthwise convolutions with every parameter an argument: the
// convolution's kernel must scale the weights as it packs them (one
// convolution kernel, no loop over the activations), and the results
// agree with the reference evaluator within the fold's reassociation.
func TestConvBatchNormPerRun(t *testing.T) {
	for _, c := range []struct {
		ci, co, groups int
		residual       bool
	}{{5, 17, 1, false}, {16, 70, 1, true}, {12, 36, 3, false}, {33, 33, 33, true}} {
		t.Run(fmt.Sprintf("ci=%d/co=%d/groups=%d/residual=%v", c.ci, c.co, c.groups, c.residual), func(t *testing.T) {
			m, e := compileText(t, convBatchNormHLO(c.ci, c.co, c.groups, c.residual))
			usesImpl("conv-packed-per-run-scaled")(t, e)
			for _, k := range e.Stats().Kernels {
				if k.Kind == "loop" && slices.Contains(k.Ops, "broadcast") && slices.Contains(k.Ops, "maximum") {
					t.Errorf("a loop runs over the activations: %v", k)
				}
			}
			r := rand.New(rand.NewPCG(uint64(c.co), 65))
			lits := make([]*ir.Literal, len(m.Entry.Parameters))
			args := make([]*Tensor, len(lits))
			for i, p := range m.Entry.Parameters {
				lits[i] = ir.MustNewLiteral(p.Shape)
				for j := range p.Shape.ElementCount() {
					lits[i].SetFloat64At(j, r.NormFloat64())
				}
				args[i] = TensorFromLiteral(lits[i].Clone())
			}
			want, err := eval.Run(m, lits...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Run(context.Background(), args...)
			if err != nil {
				t.Fatal(err)
			}
			g, w := got[0].Literal(), want[0]
			for j := range w.ElementCount() {
				a, b := g.Float64At(j), w.Float64At(j)
				if math.IsNaN(a) || math.IsNaN(b) || math.Abs(a-b) > 1e-4*math.Max(1, math.Abs(b)) {
					t.Fatalf("element %d: compiled %v, reference %v", j, a, b)
				}
			}
		})
	}
}

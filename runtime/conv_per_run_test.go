package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
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

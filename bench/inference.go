package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"time"

	"github.com/kilnml/kiln"
	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

// InferenceCase is one timed case of the inference comparison
// (modelreport): a model or a block run by Kiln, with the names of the
// peers' rows timing the same work.
type InferenceCase struct {
	Name string
	// Peer is torch_bench.py's case name for the same model ("" when no
	// peer runs it); GoMLXPeer GoMLX's when it differs.
	Peer, GoMLXPeer string
	// Flops is the work of one run (dots and convolutions, two per
	// multiply-add), Bytes the memory it must move at least; either may
	// be 0.
	Flops, Bytes float64
	run          func()
	// Detail, when set, says more after a timing (where the time went).
	Detail func() string
}

// Median times the case as the peers do: runs repeated to take at least
// 4 ms per sample, the median of 7 samples, in µs.
func (c *InferenceCase) Median() float64 {
	c.run()
	c.run()
	start := time.Now()
	c.run()
	one := time.Since(start).Seconds()
	inner := 1
	if one > 0 {
		inner = max(1, min(int(0.004/one), 100000))
	}
	samples := make([]float64, 7)
	for i := range samples {
		t := time.Now()
		for j := 0; j < inner; j++ {
			c.run()
		}
		samples[i] = time.Since(t).Seconds() / float64(inner)
	}
	slices.Sort(samples)
	return samples[len(samples)/2] * 1e6
}

// Allocs is the number of heap allocations one run makes (over 20 runs).
func (c *InferenceCase) Allocs() float64 {
	c.run()
	var m0, m1 goruntime.MemStats
	goruntime.ReadMemStats(&m0)
	const runs = 20
	for i := 0; i < runs; i++ {
		c.run()
	}
	goruntime.ReadMemStats(&m1)
	return float64(m1.Mallocs-m0.Mallocs) / runs
}

// Note describes a timing of µs microseconds: the rate, the allocations of
// a run (models only), and the case's detail.
func (c *InferenceCase) Note(us float64) string {
	var parts []string
	if c.Flops > 0 {
		parts = append(parts, fmt.Sprintf("%g allocs/run", c.Allocs()))
	}
	if c.Flops > 0 && us > 0 {
		parts = append(parts, fmt.Sprintf("%.1f GFLOP/s", c.Flops/us/1e3))
	}
	if c.Bytes > 0 && us > 0 {
		parts = append(parts, fmt.Sprintf("%.2f GB/s", c.Bytes/us/1e3))
	}
	if c.Detail != nil {
		parts = append(parts, c.Detail())
	}
	return strings.Join(parts, "; ")
}

// kilnRunner compiles a module with the given options and returns a run
// of it over args (the unbound parameters' values) into preallocated
// results, checking that a run allocates nothing.
func kilnRunner(m *ir.Module, args []*ir.Literal, opts ...runtime.Option) (*runtime.Executable, func(), error) {
	exe, err := runtime.Compile(m, opts...)
	if err != nil {
		return nil, nil, err
	}
	var in []*runtime.Tensor
	for _, a := range args {
		in = append(in, runtime.TensorFromLiteral(a))
	}
	var outs []*runtime.Tensor
	for _, s := range exe.ResultShapes() {
		t, err := runtime.NewTensor(s)
		if err != nil {
			return nil, nil, err
		}
		outs = append(outs, t)
	}
	ctx := context.Background()
	run := func() {
		if err := exe.RunInto(ctx, outs, in...); err != nil {
			panic(err)
		}
	}
	run()
	return exe, run, nil
}

// modelCase makes the cases of one model: weights bound at compile time,
// and weights passed on every run.
func modelCase(m *model, name, peer string, flops float64, threads int) ([]InferenceCase, error) {
	var out []InferenceCase
	for _, bound := range []bool{true, false} {
		opts := []runtime.Option{runtime.WithThreads(threads)}
		args := m.Args
		suffix := "/weights-args"
		if bound {
			opts = m.compileOptions(opts...)
			args = m.Args[:1]
			suffix = "/weights-bound"
		}
		exe, run, err := kilnRunner(m.Module, args, opts...)
		if err != nil {
			return nil, fmt.Errorf("%s%s: %w", name, suffix, err)
		}
		c := InferenceCase{Name: name + suffix, Peer: peer, Flops: flops, run: run}
		if bound {
			c.GoMLXPeer = peer + "(const-weights)"
		}
		if m.Name == "resnet" {
			c.Detail = func() string { return convShare(exe, args, flops) }
		}
		out = append(out, c)
	}
	return out, nil
}

// convShare profiles a compiled ResNet and reports the rate of its
// convolutions and dots alone, against the FMA loop's.
func convShare(exe *runtime.Executable, args []*ir.Literal, flops float64) string {
	var in []*runtime.Tensor
	for _, a := range args {
		in = append(in, runtime.TensorFromLiteral(a))
	}
	var outs []*runtime.Tensor
	for _, s := range exe.ResultShapes() {
		t, _ := runtime.NewTensor(s)
		outs = append(outs, t)
	}
	kt, err := exe.Profile(context.Background(), 5, outs, in...)
	if err != nil {
		return err.Error()
	}
	var conv, total time.Duration
	for _, k := range kt {
		total += k.Time
		if k.Kernel.Kind == "conv" || k.Kernel.Kind == "dot" {
			conv += k.Time
		}
	}
	peak := fmaPeak()
	rate := flops / conv.Seconds() / 1e9
	return fmt.Sprintf("convolutions and dots %.0f%% of the time at %.1f GFLOP/s = %.2f of the FMA loop (%.1f GFLOP/s)",
		100*conv.Seconds()/total.Seconds(), rate, rate/peak, peak)
}

// fmaPeak is the FMA loop's rate on one core, GFLOP/s (median of 5).
func fmaPeak() float64 {
	const iters = 1 << 16
	var rates []float64
	for i := 0; i < 5; i++ {
		t := time.Now()
		flops := kiln.FMAPeak(iters)
		rates = append(rates, float64(flops)/time.Since(t).Seconds()/1e9)
	}
	slices.Sort(rates)
	return rates[2]
}

// InferenceCases are the cases modelreport times, at the given threads.
func InferenceCases(threads int) ([]InferenceCase, error) {
	var cases []InferenceCase
	enc, err := loadModel("encoder", 1)
	if err != nil {
		return nil, err
	}
	cs, err := modelCase(enc, "bert-encoder-layer-s128-b1", "bert_base_encoder_layer_s128_b1", modelFLOPs("encoder", 1), threads)
	if err != nil {
		return nil, err
	}
	cases = append(cases, cs...)
	for _, batch := range []int{64, 1} {
		mlp, err := loadMLP(batch)
		if err != nil {
			return nil, err
		}
		cs, err := modelCase(mlp, fmt.Sprintf("mlp-b%d", batch), fmt.Sprintf("mlp784-512-512-10_b%d", batch), modelFLOPs("mlp", batch), threads)
		if err != nil {
			return nil, err
		}
		cases = append(cases, cs...)
	}
	rn, flops, err := resnetModel(resnet50)
	if err != nil {
		return nil, err
	}
	cs, err = modelCase(rn, "resnet50-b1", "resnet50_b1", flops, threads)
	if err != nil {
		return nil, err
	}
	cases = append(cases, cs...)
	blocks, err := xlaBlocks(threads)
	if err != nil {
		return nil, err
	}
	return append(cases, blocks...), nil
}

// loadMLP is the bundled MLP at any batch: the batch-32 module with its
// batch dimension (the leading dimension of the input, the activations and
// the logits) changed.
func loadMLP(batch int) (*model, error) {
	if batch == 1 || batch == 32 {
		return loadModel("mlp", batch)
	}
	text, err := os.ReadFile(filepath.Join(examplesDir, fmt.Sprintf(modelFiles["mlp"], 32)))
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	src := strings.ReplaceAll(string(text), "f32[32,", fmt.Sprintf("f32[%d,", batch))
	m, err := ir.ParseModule(src)
	if err != nil {
		return nil, fmt.Errorf("bench: mlp at batch %d: %w", batch, err)
	}
	if err := m.Verify(); err != nil {
		return nil, fmt.Errorf("bench: mlp at batch %d: %w", batch, err)
	}
	md := &model{Name: "mlp", Batch: batch, Module: m, ByPath: map[string]*ir.Literal{}}
	for i, p := range m.Entry.Parameters {
		l := detrand.Literal(p.Shape, detrand.Seed(fmt.Sprintf("mlp_b%d", batch), i))
		md.Args = append(md.Args, l)
		md.ByPath[jaxPath(p)] = l
	}
	return md, nil
}

package bench

// The bfloat16 blocks of XLA's CPU benchmark set through the compiled path,
// one thread, each beside its peers measured in the same run:
//
//   - the same module written in float32 (every bf16 replaced by f32): the
//     bfloat16 block must be no slower (f32/bf16 ≥ 1);
//   - STREAM: the "scale" kernel (b = 3·a, kiln.MulScalar) over two arrays
//     of 256 MiB, beyond the caches, counting the bytes read and written;
//     the bandwidth-bound blocks (sum, mean, layer-norm, depthwise) count
//     the bfloat16 bytes of their input and output once, and must reach 80 %
//     of it (vs-stream ≥ 0.8). Their data is a few MiB and lives in the
//     last-level cache between runs, so "copy" — Go's copy() of the same
//     bytes — is reported beside it as the in-cache peer;
//   - the attention block against the FMA loop (kiln.FMAPeak) counted in
//     its dots' FLOPs: vs-fma ≥ 0.5;
//   - the sorts against NumPy's np.sort / np.argsort(kind='stable') on the
//     same data (Debian's python3-numpy, run as a child process; the
//     bfloat16 keys as the float32 values they are): kiln/numpy ≤ 1;
//   - top-10 of 50,000 against the full sort of the same row: ≤ 0.1.
//
// The modules are XLA's own (testdata/lowp: layer_norm, sum_axis,
// sort_full, topk_logits from xla/backends/cpu/benchmarks/hlo) or written
// as JAX exports them (mean, argsort, depthwise, attention). Weights are
// parameters bound at compile time (the depthwise block runs a second time
// with its weights as arguments, packed on every run). Each block also
// checks that its plan has no generic step.
//
//	go test -run '^$' -bench LowpBlocks -benchtime 20x

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

// lowpBlock is one benchmark module.
type lowpBlock struct {
	name, file string
	bound      []int   // parameters bound at compile time
	bandwidth  bool    // compared with STREAM
	flops      float64 // attention: the FLOPs of its dots
}

var lowpBlocks = []lowpBlock{
	{name: "layer_norm_1x4096x768", file: "layer_norm_1x4096x768_bf16.hlo", bandwidth: true},
	{name: "sum_1x4096x1024", file: "sum_axis_1x4096x1024_bf16.hlo", bandwidth: true},
	{name: "mean_1x4096x1024", file: "mean_axis_1x4096x1024_bf16.hlo", bandwidth: true},
	{name: "depthwise_3x3_256x56x56", file: "depthwise_3x3_1x56x56x256_bf16.hlo", bound: []int{1}, bandwidth: true},
	{name: "depthwise_3x3_256x56x56_weights_as_args", file: "depthwise_3x3_1x56x56x256_bf16.hlo", bandwidth: true},
	{name: "attention_12h_128", file: "attention_12h_128_bf16.hlo", bound: []int{1, 2, 3, 4},
		flops: 4*2*128*768*768 + 2*2*12*128*128*64},
}

// lowpModule is a compiled block with its arguments and result tensors.
type lowpModule struct {
	exe  *runtime.Executable
	args []*runtime.Tensor
	outs []*runtime.Tensor
}

func (m *lowpModule) run() {
	if err := m.exe.RunInto(context.Background(), m.outs, m.args...); err != nil {
		panic(err)
	}
}

// compileLowp compiles text, one thread, with the parameters in bound
// bound to deterministic random values; the others get random arguments
// (lowpRandom's).
func compileLowp(tb testing.TB, text string, bound []int) *lowpModule {
	tb.Helper()
	return compileLowpData(tb, text, bound, lowpRandom)
}

// compileLowpData is compileLowp with the values of each parameter from
// random.
func compileLowpData(tb testing.TB, text string, bound []int, random func(ir.Shape, uint64) *ir.Literal) *lowpModule {
	tb.Helper()
	m, err := ir.ParseModule(text)
	if err != nil {
		tb.Fatal(err)
	}
	entry := m.Entry
	var params []*ir.Instruction
	for _, in := range entry.Instructions {
		if in.Opcode == ir.OpParameter {
			params = append(params, in)
		}
	}
	slices.SortFunc(params, func(a, b *ir.Instruction) int { return a.Attrs.ParameterNumber - b.Attrs.ParameterNumber })
	opts := []runtime.Option{runtime.WithThreads(1)}
	lm := &lowpModule{}
	for i, p := range params {
		lit := random(p.Shape, uint64(i+1))
		if slices.Contains(bound, i) {
			opts = append(opts, runtime.WithParameter(i, runtime.TensorFromLiteral(lit)))
			continue
		}
		lm.args = append(lm.args, runtime.TensorFromLiteral(lit))
	}
	if lm.exe, err = runtime.Compile(m, opts...); err != nil {
		tb.Fatal(err)
	}
	for _, s := range lm.exe.ResultShapes() {
		t, err := runtime.NewTensor(s)
		if err != nil {
			tb.Fatal(err)
		}
		lm.outs = append(lm.outs, t)
	}
	return lm
}

// lowpRandom fills a shape with values of a normal distribution (the same
// values for bf16 and f32 up to bf16's rounding: both come from the seed).
func lowpRandom(s ir.Shape, seed uint64) *ir.Literal {
	r := rand.New(rand.NewPCG(seed, 99))
	l := ir.MustNewLiteral(s)
	for i := 0; i < s.ElementCount(); i++ {
		if s.Elem.IsFloat() {
			l.SetFloat64At(i, float64(ir.BFloat16FromFloat32(float32(r.NormFloat64())).Float32()))
		} else {
			l.SetInt64At(i, int64(r.IntN(100)))
		}
	}
	return l
}

// fullRandom fills a shape of floats with values of a normal distribution
// at the full width of its type (float32 keys with every mantissa bit, not
// bfloat16 values widened).
func fullRandom(s ir.Shape, seed uint64) *ir.Literal {
	r := rand.New(rand.NewPCG(seed, 99))
	l := ir.MustNewLiteral(s)
	for i := 0; i < s.ElementCount(); i++ {
		l.SetFloat64At(i, float64(float32(r.NormFloat64())))
	}
	return l
}

// genericImpls are the implementations of generic (per-element or
// reference) steps: none may appear in a block's plan.
var genericImpls = []string{"generic", "elementwise", "reference", "sort", "topk", "convert", "select", "gather"}

// checkNoGeneric fails when a kernel of the plan runs a generic step.
func checkNoGeneric(tb testing.TB, name string, e *runtime.Executable) {
	tb.Helper()
	var impls []string
	for _, k := range e.Stats().Kernels {
		impls = append(impls, k.Impl)
		for _, g := range genericImpls {
			if k.Impl == g || strings.Contains(k.Impl, "generic") || strings.Contains(k.Impl, "reference") {
				tb.Errorf("%s: kernel %v runs the generic step %q", name, k.Ops, k.Impl)
				break
			}
		}
	}
	tb.Logf("%s: %v", name, impls)
}

// medianTimes runs the contenders in interleaved rounds (each round times
// every contender over enough calls to last about 20 ms) and returns each
// one's median time per call.
func medianTimes(rounds int, fns ...func()) []time.Duration {
	per := make([][]time.Duration, len(fns))
	reps := make([]int, len(fns))
	for i, f := range fns {
		f() // warm
		t0 := time.Now()
		f()
		d := time.Since(t0)
		reps[i] = max(1, int(20*time.Millisecond/max(d, time.Microsecond)))
	}
	for range rounds {
		for i, f := range fns {
			t0 := time.Now()
			for range reps[i] {
				f()
			}
			per[i] = append(per[i], time.Since(t0)/time.Duration(reps[i]))
		}
	}
	out := make([]time.Duration, len(fns))
	for i, p := range per {
		slices.Sort(p)
		out[i] = p[len(p)/2]
	}
	return out
}

// stream holds the STREAM arrays, made once.
var stream struct {
	once sync.Once
	a, b []float32
}

// streamScale runs one pass of b = 3·a over arrays beyond the caches and
// returns the bytes it moved.
func streamScale() float64 {
	stream.once.Do(func() {
		stream.a = make([]float32, 64<<20) // 256 MiB each
		stream.b = make([]float32, 64<<20)
		for i := range stream.a {
			stream.a[i] = float32(i & 1023)
		}
	})
	kiln.MulScalar(stream.b, stream.a, 3)
	return 2 * 4 * float64(len(stream.a))
}

// BenchmarkLowpBlocks times each bfloat16 block and reports its peers.
func BenchmarkLowpBlocks(b *testing.B) {
	prev := kiln.SetThreads(1)
	defer kiln.SetThreads(prev)
	for _, blk := range lowpBlocks {
		b.Run(blk.name, func(b *testing.B) {
			text, err := os.ReadFile(filepath.Join("testdata", "lowp", blk.file))
			if err != nil {
				b.Fatal(err)
			}
			bf := compileLowp(b, string(text), blk.bound)
			f32 := compileLowp(b, strings.ReplaceAll(string(text), "bf16", "f32"), blk.bound)
			checkNoGeneric(b, blk.name+" (bf16)", bf.exe)
			var ioBytes float64
			for _, t := range append(append([]*runtime.Tensor{}, bf.args...), bf.outs...) {
				ioBytes += float64(len(t.Bytes()))
			}
			b.ResetTimer()
			for b.Loop() {
				bf.run()
			}
			b.StopTimer()
			src := make([]byte, int(ioBytes)/2)
			dst := make([]byte, len(src))
			var moved float64
			ts := medianTimes(7, bf.run, f32.run, func() { moved = streamScale() }, func() { copy(dst, src) })
			b.ReportMetric(float64(ts[0].Microseconds()), "bf16-µs")
			b.ReportMetric(float64(ts[1].Microseconds()), "f32-µs")
			b.ReportMetric(ts[1].Seconds()/ts[0].Seconds(), "f32/bf16")
			streamGB := moved / ts[2].Seconds() / 1e9
			b.ReportMetric(streamGB, "stream-GB/s")
			if blk.bandwidth {
				gb := ioBytes / ts[0].Seconds() / 1e9
				b.ReportMetric(gb, "bf16-GB/s")
				b.ReportMetric(gb/streamGB, "vs-stream")
				b.ReportMetric(gb/(ioBytes/ts[3].Seconds()/1e9), "vs-copy")
			}
			if blk.flops > 0 {
				iters := 1 << 16
				peak := medianTimes(7, func() { kiln.FMAPeak(iters) })
				peakFlops := float64(kiln.FMAPeak(iters)) / peak[0].Seconds()
				b.ReportMetric(blk.flops/ts[0].Seconds()/1e9, "GFLOP/s")
				b.ReportMetric(blk.flops/ts[0].Seconds()/peakFlops, "vs-fma")
			}
		})
	}
}

// sortModule is the text of sort_full with the shape of its keys replaced.
func sortModule(tb testing.TB, file string, rows, n int) string {
	text, err := os.ReadFile(filepath.Join("testdata", "lowp", file))
	if err != nil {
		tb.Fatal(err)
	}
	return strings.ReplaceAll(string(text), "[1024,4096]", fmt.Sprintf("[%d,%d]", rows, n))
}

// BenchmarkLowpSort times the compiled sort and argsort of 1024×4096
// bfloat16 and float32 rows beside NumPy's on the same data (normal keys:
// the float32 ones at full width, not bfloat16 values), and the top-10 of
// 50,000 beside the full sort of the same row.
func BenchmarkLowpSort(b *testing.B) {
	prev := kiln.SetThreads(1)
	defer kiln.SetThreads(prev)
	for _, ty := range []string{"bf16", "f32"} {
		for _, file := range []string{"sort_full_1024x4096_bf16.hlo", "argsort_1024x4096_bf16.hlo"} {
			name := strings.Split(file, "_")[0] + "/" + ty
			b.Run(name, func(b *testing.B) {
				text := sortModule(b, file, 1024, 4096)
				random := lowpRandom
				if ty == "f32" {
					text = strings.ReplaceAll(text, "bf16", "f32")
					random = fullRandom
				}
				m := compileLowpData(b, text, nil, random)
				checkNoGeneric(b, name, m.exe)
				b.ResetTimer()
				for b.Loop() {
					m.run()
				}
				b.StopTimer()
				ts := medianTimes(5, m.run)
				b.ReportMetric(float64(ts[0].Microseconds())/1e3, "kiln-ms")
				numpy, err := numpySortMillis(m.args[0], strings.HasPrefix(file, "argsort"))
				if err != nil {
					b.Logf("no NumPy peer: %v", err)
					return
				}
				b.ReportMetric(numpy, "numpy-ms")
				b.ReportMetric(float64(ts[0].Microseconds())/1e3/numpy, "kiln/numpy")
			})
		}
	}
	b.Run("topk10_1x50000/bf16", func(b *testing.B) {
		text, err := os.ReadFile(filepath.Join("testdata", "lowp", "topk_logits_k10_1x50000_bf16.hlo"))
		if err != nil {
			b.Fatal(err)
		}
		topk := compileLowp(b, string(text), nil)
		full := compileLowp(b, sortModule(b, "sort_full_1024x4096_bf16.hlo", 1, 50000), nil)
		checkNoGeneric(b, "topk", topk.exe)
		checkNoGeneric(b, "full sort", full.exe)
		b.ResetTimer()
		for b.Loop() {
			topk.run()
		}
		b.StopTimer()
		ts := medianTimes(7, topk.run, full.run)
		b.ReportMetric(float64(ts[0].Nanoseconds())/1e3, "topk-µs")
		b.ReportMetric(float64(ts[1].Nanoseconds())/1e3, "sort-µs")
		b.ReportMetric(ts[0].Seconds()/ts[1].Seconds(), "topk/sort")
	})
}

// numpySortMillis times np.sort (or np.argsort(kind='stable')) along the
// last axis of the keys (as float32) in a child Python, median of 7 runs.
func numpySortMillis(keys *runtime.Tensor, arg bool) (float64, error) {
	s := keys.Shape()
	var f32 []float32
	switch s.Elem {
	case ir.F32:
		f32 = keys.Float32s()
	case ir.BF16:
		raw := keys.Bytes()
		f32 = make([]float32, len(raw)/2)
		for i := range f32 {
			f32[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[2*i:])) << 16)
		}
	default:
		return 0, fmt.Errorf("keys of type %v", s.Elem)
	}
	f, err := os.CreateTemp("", "kiln-sort-*.f32")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	buf := make([]byte, 4*len(f32))
	for i, v := range f32 {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	if _, err := f.Write(buf); err != nil {
		return 0, err
	}
	f.Close()
	call := "np.sort(x, axis=1)"
	if arg {
		call = "np.argsort(x, axis=1, kind='stable')"
	}
	script := fmt.Sprintf(`import numpy as np, time
x = np.fromfile(%q, dtype=np.float32).reshape(%d, %d)
ts = []
for _ in range(7):
    t0 = time.perf_counter(); %s; ts.append(time.perf_counter() - t0)
ts.sort()
print(ts[len(ts)//2] * 1e3)
`, f.Name(), s.Dims[0], s.Dims[1], call)
	python := "/usr/bin/python3" // Debian's, with python3-numpy
	if _, err := os.Stat(python); err != nil {
		python = "python3"
	}
	out, err := exec.Command(python, "-c", script).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	var ms float64
	if _, err := fmt.Sscan(string(out), &ms); err != nil {
		return 0, fmt.Errorf("reading %q: %v", out, err)
	}
	return ms, nil
}

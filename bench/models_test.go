package bench

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/kilnml/kiln/ir/eval"
	"github.com/kilnml/kiln/runtime"
)

// forwarder is a gonum version of a model: it computes the output of the
// model's input.
type forwarder interface {
	forward(x []float32) []float32
}

func newGonum(m *model) forwarder {
	switch m.Name {
	case "mlp":
		return newGonumMLP(m)
	case "cnn":
		return newGonumCNN(m)
	case "encoder":
		return newGonumEncoder(m)
	}
	panic("bench: no gonum version of " + m.Name)
}

// tolerance bounds |got − want| ≤ atol + rtol·|want| for a model's outputs
// computed in float32 by two implementations that sum in different orders.
// Measured here: at most 2.3e-7 between gonum and Kiln for the MLP and CNN
// logits (sums of up to 1024 products of values of order one), 1.2e-6 for
// the encoder's layer-normalised outputs (whose 3072-term feed-forward sums
// are scaled by 1/σ); the bounds leave about ten times that for other
// kernels' summation orders.
var tolerance = map[string]struct{ atol, rtol float64 }{
	"mlp":     {2e-6, 1e-5},
	"cnn":     {2e-6, 1e-5},
	"encoder": {2e-5, 1e-5},
}

// compare returns the first element where got and want differ by more than
// name's tolerance, and the largest difference.
func compare(name string, got, want []float32) (bad int, maxDiff float64) {
	tol := tolerance[name]
	bad = -1
	if len(got) != len(want) {
		return 0, math.Inf(1)
	}
	for i := range want {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		maxDiff = max(maxDiff, d)
		if bad < 0 && d > tol.atol+tol.rtol*math.Abs(float64(want[i])) {
			bad = i
		}
	}
	return bad, maxDiff
}

// TestGonumModelsMatchKiln checks that each gonum version computes the same
// function as the HLO model, against the reference evaluator and against
// Kiln's compiled plan, on the same deterministic weights, so the benchmarks
// time equal work.
func TestGonumModelsMatchKiln(t *testing.T) {
	for _, c := range []struct {
		name  string
		batch int
		eval  bool // also check against ir/eval (slow for the bigger cases)
	}{
		{"mlp", 1, true}, {"mlp", 32, true}, {"cnn", 1, true}, {"cnn", 32, false}, {"encoder", 1, true},
	} {
		t.Run(fmt.Sprintf("%s_b%d", c.name, c.batch), func(t *testing.T) {
			m, err := loadModel(c.name, c.batch)
			if err != nil {
				t.Fatal(err)
			}
			got := append([]float32(nil), newGonum(m).forward(m.input())...)
			k, err := m.compileKiln()
			if err != nil {
				t.Fatal(err)
			}
			if err := k.Run(); err != nil {
				t.Fatal(err)
			}
			kilnOut := k.Outs[0].Float32s()
			if bad, d := compare(c.name, got, kilnOut); bad >= 0 {
				t.Errorf("gonum vs kiln: element %d is %v, kiln %v (max |diff| %.3g)", bad, got[bad], kilnOut[bad], d)
			} else {
				t.Logf("gonum vs kiln: max |diff| %.3g over %d outputs", d, len(got))
			}
			if !c.eval {
				return
			}
			ref, err := eval.Run(m.Module, m.Args...)
			if err != nil {
				t.Fatal(err)
			}
			want := ref[0].Float32s()
			if bad, d := compare(c.name, got, want); bad >= 0 {
				t.Errorf("gonum vs ir/eval: element %d is %v, reference %v (max |diff| %.3g)", bad, got[bad], want[bad], d)
			}
			if bad, d := compare(c.name, kilnOut, want); bad >= 0 {
				t.Errorf("kiln vs ir/eval: element %d is %v, reference %v (max |diff| %.3g)", bad, kilnOut[bad], want[bad], d)
			}
		})
	}
}

// modelCases are the benchmarked models: latency at batch 1, throughput at
// batch 32.
var modelCases = []struct {
	name  string
	batch int
}{
	{"mlp", 1}, {"mlp", 32}, {"cnn", 1}, {"cnn", 32}, {"encoder", 1}, {"encoder", 32},
}

// BenchmarkModel times one forward pass of each example model, Kiln (weights
// bound at compile time, RunInto into preallocated outputs) beside the gonum
// version, at 1 and 2 threads. Compare with benchstat -col /impl; ns/op is
// the mean latency, p50-us the median one, samples/s the throughput.
func BenchmarkModel(b *testing.B) {
	for _, c := range modelCases {
		m, err := loadModel(c.name, c.batch)
		if err != nil {
			b.Fatal(err)
		}
		flops := modelFLOPs(c.name, c.batch)
		report := func(b *testing.B) {
			sec := b.Elapsed().Seconds()
			b.ReportMetric(flops*float64(b.N)/sec/1e9, "GFLOP/s")
			b.ReportMetric(float64(c.batch*b.N)/sec, "samples/s")
		}
		for _, threads := range []int{1, 2} {
			withThreads(threads, func() {
				prefix := fmt.Sprintf("model=%s/batch=%d/threads=%d", c.name, c.batch, threads)
				b.Run(prefix+"/impl=kiln", func(b *testing.B) {
					k, err := m.compileKiln(runtime.WithThreads(threads))
					if err != nil {
						b.Fatal(err)
					}
					if err := k.Run(); err != nil { // warm the frame pool and the workers
						b.Fatal(err)
					}
					timeRuns(b, func() {
						if err := k.Run(); err != nil {
							b.Fatal(err)
						}
					})
					report(b)
				})
				b.Run(prefix+"/impl=gonum", func(b *testing.B) {
					g := newGonum(m)
					x := m.input()
					g.forward(x)
					timeRuns(b, func() { g.forward(x) })
					report(b)
				})
			})
		}
	}
}

// timeRuns calls run b.N times, timing each call, and reports the median
// call as p50-us beside the mean (ns/op): on a shared machine the median is
// the steadier figure, as a few descheduled runs move the mean. Allocations
// are reported per call.
func timeRuns(b *testing.B, run func()) {
	times := make([]time.Duration, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range times {
		start := time.Now()
		run()
		times[i] = time.Since(start)
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "p50-us")
}

// BenchmarkCompile times runtime.Compile of each example model at batch 1,
// with its weights bound (packing them included) and with every parameter
// left to Run. Parsing is excluded.
func BenchmarkCompile(b *testing.B) {
	for _, name := range []string{"mlp", "cnn", "encoder"} {
		m, err := loadModel(name, 1)
		if err != nil {
			b.Fatal(err)
		}
		for _, weights := range []string{"bound", "args"} {
			var opts []runtime.Option
			if weights == "bound" {
				opts = m.compileOptions()
			}
			b.Run(fmt.Sprintf("model=%s/weights=%s", name, weights), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := runtime.Compile(m.Module, opts...); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

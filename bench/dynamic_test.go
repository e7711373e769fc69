package bench

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/internal/examplemodels"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

// dynamicBatches are the batch sizes BenchmarkDynamicBatch times.
var dynamicBatches = []int{1, 7, 32, 64}

// BenchmarkDynamicBatch times one executable serving every batch size up
// to 64 (the bundled batch-32 module compiled with WithDynamicDim(0, 0, 64))
// beside an executable compiled for exactly the batch timed (the same model
// written at that batch), both with the same weights bound. The two run in
// turns within each iteration, so a machine shared with other work slows
// both alike; p50-us-exact and p50-us-dynamic are their median latencies
// and dynamic/exact the median of the ratios of the two runs of each
// iteration (the target is at most 1.10); dynamic/exact-cpu is the same
// ratio in the process's CPU time, which other tenants' time slices do not
// inflate.
func BenchmarkDynamicBatch(b *testing.B) {
	gens := map[string]func(int) string{"mlp": examplemodels.MLP, "encoder": examplemodels.Encoder}
	for _, name := range []string{"mlp", "encoder"} {
		m, err := loadModel(name, 32)
		if err != nil {
			b.Fatal(err)
		}
		dyn, err := runtime.Compile(m.Module, m.compileOptions(runtime.WithDynamicDim(0, 0, 64))...)
		if err != nil {
			b.Fatal(err)
		}
		for _, batch := range dynamicBatches {
			b.Run(fmt.Sprintf("model=%s/batch=%d", name, batch), func(b *testing.B) {
				mod, err := ir.ParseModule(gens[name](batch))
				if err != nil {
					b.Fatal(err)
				}
				exact, err := runtime.Compile(mod, m.compileOptions()...)
				if err != nil {
					b.Fatal(err)
				}
				x := runtime.TensorFromLiteral(detrand.Literal(exact.ParameterShapes()[0], detrand.Seed(name, batch)))
				outExact, err := runtime.NewTensor(exact.ResultShapes()[0])
				if err != nil {
					b.Fatal(err)
				}
				outDyn, err := runtime.NewTensor(dyn.ResultShapes()[0])
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				// run returns a run's wall time and the process's CPU time
				// it took (other tenants' time slices do not count).
				run := func(e *runtime.Executable, out *runtime.Tensor) (time.Duration, float64) {
					c0, start := processCPU(), time.Now()
					if err := e.RunInto(ctx, []*runtime.Tensor{out}, x); err != nil {
						b.Fatal(err)
					}
					return time.Since(start), processCPU() - c0
				}
				run(exact, outExact) // warm the frame pools and the workers
				run(dyn, outDyn)
				te, td := make([]time.Duration, b.N), make([]time.Duration, b.N)
				ce, cd := make([]float64, b.N), make([]float64, b.N)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if i%2 == 0 {
						te[i], ce[i] = run(exact, outExact)
						td[i], cd[i] = run(dyn, outDyn)
					} else {
						td[i], cd[i] = run(dyn, outDyn)
						te[i], ce[i] = run(exact, outExact)
					}
				}
				b.StopTimer()
				ratios, cpuRatios := make([]float64, b.N), make([]float64, b.N)
				var total time.Duration
				for i := range ratios {
					ratios[i] = float64(td[i]) / float64(te[i])
					if ce[i] > 0 {
						cpuRatios[i] = cd[i] / ce[i]
					}
					total += td[i]
				}
				slices.Sort(te)
				slices.Sort(td)
				slices.Sort(ratios)
				slices.Sort(cpuRatios)
				b.ReportMetric(float64(te[b.N/2].Nanoseconds())/1e3, "p50-us-exact")
				b.ReportMetric(float64(td[b.N/2].Nanoseconds())/1e3, "p50-us-dynamic")
				b.ReportMetric(ratios[b.N/2], "dynamic/exact")
				b.ReportMetric(cpuRatios[b.N/2], "dynamic/exact-cpu")
				b.ReportMetric(modelFLOPs(name, batch)*float64(b.N)/total.Seconds()/1e9, "GFLOP/s-dynamic")
			})
		}
	}
}

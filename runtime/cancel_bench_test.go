package runtime

import (
	"context"
	"math/bits"
	"slices"
	"testing"
	"time"
)

// BenchmarkCancelLatency stops runs at 100 random deadlines per iteration
// and reports the median and the largest time from a deadline to the
// return of the run it stopped (the target is 5 ms): the encoder layer at
// batch 32, its deadlines drawn over the length of a whole run (every
// step), and the fused reduce over a billion elements, seconds long, its
// deadlines drawn over its first 100 ms. Run it alone (-run '^$'
// -benchtime 1x) on a quiet machine: a loaded one adds its scheduling
// delays.
func BenchmarkCancelLatency(b *testing.B) {
	if bits.UintSize < 64 {
		b.Skip("a billion float32 values do not fit a 32-bit int's bytes")
	}
	b.Run("encoder_b32", func(b *testing.B) {
		e, in := exampleModel(b, "transformer/encoder_b32")
		outs, err := e.Run(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := e.RunInto(context.Background(), outs, in); err != nil {
			b.Fatal(err)
		}
		reportLatencies(b, e, outs, []*Tensor{in}, time.Since(start))
	})
	b.Run("reduce_1e9", func(b *testing.B) {
		e, p := bigReduce(b, 1_000_000_000)
		reportLatencies(b, e, []*Tensor{newTensor(b, e.ResultShapes()[0])}, []*Tensor{p}, 100*time.Millisecond)
	})
}

func reportLatencies(b *testing.B, e *Executable, outs, args []*Tensor, most time.Duration) {
	var all []time.Duration
	seed := uint64(0)
	for b.Loop() {
		seed++
		lat, _ := latencies(b, e, outs, args, 100, most, seed)
		all = append(all, lat...)
	}
	if len(all) == 0 {
		b.Fatal("no run was stopped by its deadline")
	}
	slices.Sort(all)
	b.ReportMetric(float64(all[len(all)/2])/1e6, "median-ms")
	b.ReportMetric(float64(all[len(all)-1])/1e6, "max-ms")
	b.ReportMetric(float64(len(all))/float64(b.N), "stopped/100")
}

// BenchmarkRunContext times runs of the example models under
// context.Background (no cancellation: the polls are an atomic load) and
// under a context with a deadline (the polls also read the clock and the
// Done channel), to show what cancellation within steps costs. Besides the
// time per run it reports the process's CPU time per run, which the load of
// other processes on a shared machine does not inflate.
func BenchmarkRunContext(b *testing.B) {
	for _, name := range []string{"mlp/mlp_b1", "mlp/mlp_b32", "cnn/cnn_b1", "transformer/encoder_b1"} {
		e, in := exampleModel(b, name)
		outs, err := e.Run(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		deadline, cancel := context.WithTimeout(context.Background(), time.Hour)
		for _, c := range []struct {
			name string
			ctx  context.Context
		}{{"background", context.Background()}, {"deadline", deadline}} {
			b.Run(name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu := processCPUTime()
				for b.Loop() {
					if err := e.RunInto(c.ctx, outs, in); err != nil {
						b.Fatal(err)
					}
				}
				if cpu := processCPUTime() - cpu; cpu > 0 {
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
			})
		}
		cancel()
	}
}

package runtime

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/kilnml/kiln/ir"
)

// bigReduceHLO sums sin(i·p) over a billion elements: one fused reduce
// whose operand the loop computes on the fly (iota, broadcast, multiply,
// sine), nothing of it in memory, one row seconds long on one core.
const bigReduceHLO = `HloModule big_reduce

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[] parameter(0)
  i = f32[%d] iota(), iota_dimension=0
  b = f32[%d] broadcast(p), dimensions={}
  m = f32[%d] multiply(i, b)
  t = f32[%d] sine(m)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(t, z), dimensions={0}, to_apply=add
}
`

// bigReduce compiles bigReduceHLO over n elements and checks that it is
// the one fused reduce it is meant to measure.
func bigReduce(t testing.TB, n int) (*Executable, *Tensor) {
	t.Helper()
	e, err := Compile(parse(t, fmt.Sprintf(bigReduceHLO, n, n, n, n)))
	if err != nil {
		t.Fatal(err)
	}
	if ks := e.Stats().Kernels; len(ks) != 1 || ks[0].Impl != "reduce-fused-add" {
		t.Fatalf("the reduce compiles to %v, want one fused reduce", ks)
	}
	p := newTensor(t, ir.MakeShape(ir.F32))
	p.Float32s()[0] = 1e-3
	return e, p
}

// latencies runs e under trials deadlines drawn uniformly from [0, most)
// and returns, for each run the deadline stopped, the time from the
// deadline to RunInto's return; runs that finished first are counted in
// finished.
func latencies(t testing.TB, e *Executable, outs []*Tensor, args []*Tensor, trials int, most time.Duration, seed uint64) (lat []time.Duration, finished int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 17))
	for range trials {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.Int64N(int64(most))))
		err := e.RunInto(ctx, outs, args...)
		end := time.Now()
		deadline, _ := ctx.Deadline()
		cancel()
		switch {
		case err == nil:
			finished++
		case errors.Is(err, context.DeadlineExceeded):
			lat = append(lat, max(end.Sub(deadline), 0))
		default:
			t.Fatalf("a run under a deadline: %v", err)
		}
	}
	slices.Sort(lat)
	return lat, finished
}

// maxLatency is the test's bound on the time from a deadline to the
// return of the run it stops. The target is 5 ms (BenchmarkCancelLatency
// measures it); the bound is generous because the machines that run the
// tests are shared and loaded. For the same reason a few runs in a hundred
// may exceed it — a thread the operating system keeps off the processors
// for a hundred milliseconds holds its run up as long — but none may take
// worstLatency: a step that ignores the deadline would hold most runs up
// by its whole length.
const (
	maxLatency   = 100 * time.Millisecond
	worstLatency = time.Second
)

// checkLatencies applies maxLatency and worstLatency to the latencies of
// runs stopped by their deadlines, sorted.
func checkLatencies(t *testing.T, lat []time.Duration) {
	t.Helper()
	late := len(lat) - sort.Search(len(lat), func(i int) bool { return lat[i] > maxLatency })
	if raceEnabled {
		return
	}
	if late > len(lat)/20 {
		t.Errorf("%d of %d runs returned more than %v after their deadline", late, len(lat), maxLatency)
	}
	if worst := lat[len(lat)-1]; worst > worstLatency {
		t.Errorf("a run returned %v after its deadline, want at most %v", worst, worstLatency)
	}
}

// TestCancelWithinSteps stops the encoder layer at batch 32 (its first
// GEMMs alone are tens of milliseconds) and a fused reduce over a billion
// elements (seconds long) at 100 random deadlines each within their first
// 30 and 20 ms: the runs return the deadline's error within the bounds of
// checkLatencies, and the executables, run again without a deadline, give
// the results they gave before.
func TestCancelWithinSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two hundred deadlines")
	}
	if bits.UintSize < 64 {
		t.Skip("a billion float32 values do not fit a 32-bit int's bytes")
	}
	check := func(t *testing.T, lat []time.Duration, finished, trials int) {
		if len(lat) < trials/2 {
			t.Fatalf("only %d of %d runs were stopped by their deadline (%d finished first)", len(lat), trials, finished)
		}
		t.Logf("%d runs stopped, %d finished first: latency median %v, max %v", len(lat), finished, lat[len(lat)/2], lat[len(lat)-1])
		checkLatencies(t, lat)
	}
	t.Run("encoder", func(t *testing.T) {
		e, in := exampleModel(t, "transformer/encoder_b32")
		want, err := e.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := e.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		lat, finished := latencies(t, e, outs, []*Tensor{in}, 100, 30*time.Millisecond, 1)
		check(t, lat, finished, 100)
		if err := e.RunInto(context.Background(), outs, in); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(outs[0].Float32s(), want[0].Float32s()) {
			t.Error("after the cancelled runs the encoder's result differs from its first")
		}
	})
	t.Run("reduce", func(t *testing.T) {
		e, p := bigReduce(t, 1_000_000_000)
		outs := []*Tensor{newTensor(t, e.ResultShapes()[0])}
		lat, finished := latencies(t, e, outs, []*Tensor{p}, 100, 20*time.Millisecond, 2)
		check(t, lat, finished, 100)
		if finished != 0 {
			t.Errorf("%d runs of seconds finished within 20 ms", finished)
		}
	})
	t.Run("reduce-answers", func(t *testing.T) {
		// The same reduce over ten million elements (tens of ms): stopped
		// runs leave the next ones right.
		e, p := bigReduce(t, 10_000_000)
		want, err := e.Run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		outs := []*Tensor{newTensor(t, e.ResultShapes()[0])}
		lat, _ := latencies(t, e, outs, []*Tensor{p}, 10, 5*time.Millisecond, 3)
		if len(lat) == 0 {
			t.Fatal("no run was stopped by its deadline")
		}
		if err := e.RunInto(context.Background(), outs, p); err != nil {
			t.Fatal(err)
		}
		if got, w := outs[0].Float32s()[0], want[0].Float32s()[0]; got != w {
			t.Errorf("after the cancelled runs the reduce gives %v, before %v", got, w)
		}
	})
}

// TestCancelKeepsRunsAllocationFree checks that a run under a context that
// can be cancelled (and is not) allocates nothing either: the run's
// cancellation is polled, never registered.
func TestCancelKeepsRunsAllocationFree(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	e, in := exampleModel(t, "mlp/mlp_b1")
	outs, err := e.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	allocs := steadyAllocs(20, func() {
		if err := e.RunInto(ctx, outs, in); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("RunInto under a deadline allocates %v times per run, want 0", allocs)
	}
}

// TestCancelStopsLongSteps stops, 2 ms in, single steps of each kind that
// polls, each tens of milliseconds or more of work on the one thread it is
// given (one part: only the step's own polls can stop it early): each run
// returns the deadline's error within maxLatency, with part of its result
// never written.
func TestCancelStopsLongSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of megabytes per case")
	}
	cases := longStepCases()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := Compile(parse(t, c.hlo), WithThreads(1), WithElidedConstants(ir.NewElidedConstantFiller()))
			if err != nil {
				t.Fatal(err)
			}
			if ks := e.Stats().Kernels; len(ks) != 1 || ks[0].Impl != c.impl {
				t.Fatalf("compiles to %v, want one %s kernel", ks, c.impl)
			}
			arg, err := NewTensor(e.ParameterShapes()[0])
			if err != nil {
				t.Fatal(err)
			}
			out, err := NewTensor(e.ResultShapes()[0])
			if err != nil {
				t.Fatal(err)
			}
			for i := range out.data {
				out.data[i] = 0xA5
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
			defer cancel()
			err = e.RunInto(ctx, []*Tensor{out}, arg)
			end := time.Now()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a run stopped 2 ms in returned %v, want the deadline's error", err)
			}
			deadline, _ := ctx.Deadline()
			if lat := end.Sub(deadline); lat > worstLatency && !raceEnabled {
				t.Errorf("the run returned %v after its deadline, want at most %v", lat, worstLatency)
			}
			untouched := 0
			for _, b := range out.data {
				if b == 0xA5 {
					untouched++
				}
			}
			if untouched == 0 && !c.whole {
				t.Errorf("the stopped run wrote its whole result")
			}
		})
	}
}

func newTensor(t testing.TB, s ir.Shape) *Tensor {
	t.Helper()
	x, err := NewTensor(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// longStepCases are modules of one step each, of each kind that polls,
// sized to run for 150 ms or more on one thread at the best ISA level
// (seconds at the others).
func longStepCases() []struct {
	name, impl, hlo string
	whole           bool
} {
	const add = `add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
`
	// whole: the step writes all of its result before its long part (the
	// reduce initialises its small result, the sort copies its operand).
	return []struct {
		name, impl, hlo string
		whole           bool
	}{
		{"loop", "loop", `HloModule m
ENTRY e {
  p = f32[] parameter(0)
  b = f32[16777216] broadcast(p), dimensions={}
  i = f32[16777216] iota(), iota_dimension=0
  m = f32[16777216] multiply(i, b)
  s = f32[16777216] sine(m)
  x = f32[16777216] exponential(s)
  ROOT r = f32[16777216] cosine(x)
}`, false},
		{"gemm", "gemm", `HloModule m
ENTRY e {
  p = f32[2560,2560] parameter(0)
  ROOT d = f32[2560,2560] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, false},
		{"reduce-rows", "reduce-fused-add", `HloModule m
` + add + `ENTRY e {
  p = f32[] parameter(0)
  b = f32[4,16777216] broadcast(p), dimensions={}
  i = f32[4,16777216] iota(), iota_dimension=1
  m = f32[4,16777216] multiply(i, b)
  s = f32[4,16777216] sine(m)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(s, z), dimensions={1}, to_apply=add
}`, false},
		{"reduce-columns", "reduce-add", `HloModule m
` + add + `ENTRY e {
  p = f32[4194304,4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(p, z), dimensions={0}, to_apply=add
}`, true},
		{"generic-loop", "loop-generic", `HloModule m
ENTRY e {
  p = f64[] parameter(0)
  b = f64[8388608] broadcast(p), dimensions={}
  i = f64[8388608] iota(), iota_dimension=0
  m = f64[8388608] multiply(i, b)
  s = f64[8388608] sine(m)
  ROOT r = f64[8388608] exponential(s)
}`, false},
		{"f64-gemm", "gemm", `HloModule m
ENTRY e {
  p = f64[1536,1536] parameter(0)
  ROOT d = f64[1536,1536] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, false},
		{"sort", "sort", `HloModule m
lt { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT }
ENTRY e {
  p = f32[64,262144] parameter(0)
  ROOT s = f32[64,262144] sort(p), dimensions={1}, to_apply=lt
}`, true},
		{"lowp-loop", "loop-lowp", `HloModule m
ENTRY e {
  p = bf16[] parameter(0)
  b = bf16[16777216] broadcast(p), dimensions={}
  i = bf16[16777216] iota(), iota_dimension=0
  m = bf16[16777216] multiply(i, b)
  s = bf16[16777216] sine(m)
  x = bf16[16777216] exponential(s)
  ROOT r = bf16[16777216] cosine(x)
}`, false},
		{"radix-sort", "sort-radix", `HloModule m
lt { a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER }
ENTRY e {
  p = bf16[64,262144] parameter(0)
  ROOT s = bf16[64,262144] sort(p), dimensions={1}, to_apply=lt
}`, true},
		{"generic-dot", "dot-generic", `HloModule m
ENTRY e {
  p = s32[768,768] parameter(0)
  ROOT d = s32[768,768] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, false},
		{"movement", "transpose", `HloModule m
ENTRY e {
  p = s8[8192,8192] parameter(0)
  ROOT t = s8[8192,8192] transpose(p), dimensions={1,0}
}`, false},
		{"conv", "conv", `HloModule m
ENTRY e {
  x = f32[8,128,128,64] parameter(0)
  w = f32[5,5,64,64] constant({...})
  ROOT c = f32[8,128,128,64] convolution(x, w), window={size=5x5 pad=2_2x2_2}, dim_labels=b01f_01io->b01f
}`, false},
	}
}

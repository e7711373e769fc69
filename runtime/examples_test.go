package runtime

import (
	"context"
	"fmt"
	"math"
	"os"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
)

// exampleModel compiles one of the bundled example models with its weights
// (every parameter but the first) bound, as a service would, and returns the
// executable and a deterministic input. Extra options are passed on to
// Compile.
func exampleModel(t testing.TB, name string, extra ...Option) (*Executable, *Tensor) {
	t.Helper()
	text, err := os.ReadFile("../examples/" + name + ".hlo")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		t.Fatal(err)
	}
	var opts []Option
	var input *Tensor
	for i, p := range m.Entry.Parameters {
		tn := TensorFromLiteral(detrand.Literal(p.Shape, detrand.Seed(name, i)))
		if i == 0 {
			input = tn
		} else {
			opts = append(opts, WithParameter(i, tn))
		}
	}
	e, err := Compile(m, append(opts, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	return e, input
}

var exampleNames = []string{"mlp/mlp_b1", "cnn/cnn_b1", "transformer/encoder_b1"}

// exampleModels lists the models a test runs: all three, or, in -short mode
// (under emulation), the two small ones.
func exampleModels() []string {
	if testing.Short() {
		return exampleNames[:2]
	}
	return exampleNames
}

// TestExamplesRunWithoutAllocating checks the steady state of every example
// model: RunInto allocates nothing, and no kernel runs on the reference
// evaluator.
func TestExamplesRunWithoutAllocating(t *testing.T) {
	for _, name := range exampleModels() {
		t.Run(name, func(t *testing.T) {
			e, in := exampleModel(t, name)
			for _, k := range e.Stats().Kernels {
				if k.Impl == "reference" {
					t.Errorf("kernel %v runs on the reference evaluator", k)
				}
			}
			outs, err := e.Run(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			allocs := steadyAllocs(5, func() {
				if err := e.RunInto(ctx, outs, in); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 && !raceEnabled {
				t.Errorf("RunInto allocates %v times per run, want 0", allocs)
			}
		})
	}
}

// TestRunIntoAllocatesNothingAfterCollections checks that the frames of
// finished runs survive garbage collections: a run right after two
// collections (which would empty a sync.Pool) still allocates nothing. It runs on
// one thread: with helpers, a run that has to wait for one may take a fresh
// sudog from Go's scheduler, whose caches a collection empties too.
func TestRunIntoAllocatesNothingAfterCollections(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	e, in := exampleModel(t, "mlp/mlp_b1", WithThreads(1))
	ctx := context.Background()
	outs, err := e.Run(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	// The counts are of the whole process, where finalizers of earlier
	// tests' garbage may run after a collection; a frame lost to the
	// collector would show in every round, so the smallest count is kept.
	var before, after goruntime.MemStats
	least := ^uint64(0)
	for range 5 {
		goruntime.GC()
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		err := e.RunInto(ctx, outs, in)
		goruntime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		least = min(least, after.Mallocs-before.Mallocs)
	}
	if least != 0 {
		t.Fatalf("RunInto after two collections allocated %d times (the least of 5 rounds), want 0", least)
	}
}

// TestExamplesConcurrentRuns runs each example model from several goroutines
// at once, each on its own input, and checks every result against a
// sequential run of the same input (run under -race in make race).
func TestExamplesConcurrentRuns(t *testing.T) {
	for _, name := range exampleModels() {
		t.Run(name, func(t *testing.T) {
			e, in := exampleModel(t, name)
			const workers = 4
			inputs := make([]*Tensor, workers)
			want := make([][]*Tensor, workers)
			for w := range inputs {
				l := detrand.Literal(in.Shape(), detrand.Seed(name+fmt.Sprint(w), 0))
				inputs[w] = TensorFromLiteral(l)
				out, err := e.Run(context.Background(), inputs[w])
				if err != nil {
					t.Fatal(err)
				}
				want[w] = out
			}
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					outs, err := e.Run(context.Background(), inputs[w])
					if err != nil {
						errs <- err
						return
					}
					for r := 0; r < 3; r++ {
						if err := e.RunInto(context.Background(), outs, inputs[w]); err != nil {
							errs <- err
							return
						}
						g, x := outs[0].Float32s(), want[w][0].Float32s()
						for i := range x {
							if g[i] != x[i] && !(math.IsNaN(float64(g[i])) && math.IsNaN(float64(x[i]))) {
								errs <- fmt.Errorf("worker %d run %d: element %d is %v, a sequential run gave %v", w, r, i, g[i], x[i])
								return
							}
						}
					}
				}(w)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestRunHonoursCancellation checks that a cancelled context stops a run
// with the context's error.
func TestRunHonoursCancellation(t *testing.T) {
	e, in := exampleModel(t, "mlp/mlp_b1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Run(ctx, in); err != context.Canceled {
		t.Fatalf("Run with a cancelled context: %v, want context.Canceled", err)
	}
}

package runtime

import (
	"context"
	"fmt"
	"math"
	"os"
	"sync"
	"testing"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
)

// exampleModel compiles one of the bundled example models with its weights
// (every parameter but the first) bound, as a service would, and returns the
// executable and a deterministic input.
func exampleModel(t testing.TB, name string) (*Executable, *Tensor) {
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
	e, err := Compile(m, opts...)
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
			allocs := testing.AllocsPerRun(5, func() {
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

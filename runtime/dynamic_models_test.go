package runtime

// One executable for every batch size: the example MLP and transformer
// encoder layer compiled once with WithDynamicDim(0, 0, 64) must give, at
// every batch from 1 to 64, what an executable compiled for exactly that
// batch gives (the modules written by the same generator at that batch),
// and agree with ir/eval; they run without allocating at any batch, and
// arguments outside the bounds are refused.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/internal/examplemodels"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// dynamicModel is a model generator with the weights shared by every
// batch size (parameter 0 is the input).
type dynamicModel struct {
	name    string
	gen     func(batch int) string
	weights []*Tensor
}

func newDynamicModel(t testing.TB, name string, gen func(int) string) *dynamicModel {
	m := &dynamicModel{name: name, gen: gen}
	mod := m.module(t, 1)
	for i, p := range mod.Entry.Parameters {
		if i > 0 {
			m.weights = append(m.weights, TensorFromLiteral(detrand.Literal(p.Shape, detrand.Seed(name, i))))
		}
	}
	return m
}

func (m *dynamicModel) module(t testing.TB, batch int) *ir.Module {
	t.Helper()
	mod, err := ir.ParseModule(m.gen(batch))
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

func (m *dynamicModel) compile(t testing.TB, batch int, opts ...Option) *Executable {
	t.Helper()
	for i, w := range m.weights {
		opts = append(opts, WithParameter(i+1, w))
	}
	e, err := Compile(m.module(t, batch), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// input is the model's input at a batch size.
func (m *dynamicModel) input(t testing.TB, batch int) *Tensor {
	s := m.module(t, 1).Entry.Parameters[0].Shape.Clone()
	s.Dims[0] = batch
	return TensorFromLiteral(detrand.Literal(s, detrand.Seed(m.name+"-x", batch)))
}

// smallEncoder is the encoder layer at sizes a test can run at every batch.
var smallEncoder = examplemodels.EncoderSizes{Seq: 8, Hidden: 32, Heads: 4, FFN: 64}

func dynamicModels(t testing.TB) []*dynamicModel {
	return []*dynamicModel{
		newDynamicModel(t, "mlp", examplemodels.MLP),
		newDynamicModel(t, "encoder-small", func(b int) string { return examplemodels.EncoderOf(b, smallEncoder) }),
	}
}

// closeTo compares two results: equal shapes, elements within tol·max|want|.
func closeTo(got, want *Tensor, tol float64) string {
	if !got.Shape().Equal(want.Shape()) {
		return fmt.Sprintf("shape %v, want %v", got.Shape(), want.Shape())
	}
	g, w := got.Float32s(), want.Float32s()
	scale := 1.0
	for _, x := range w {
		scale = math.Max(scale, math.Abs(float64(x)))
	}
	for i := range w {
		if d := math.Abs(float64(g[i] - w[i])); d > tol*scale || math.IsNaN(float64(g[i])) != math.IsNaN(float64(w[i])) {
			return fmt.Sprintf("element %d is %v, want %v", i, g[i], w[i])
		}
	}
	return ""
}

// checkBatches runs the dynamic executable and an exact one at each batch.
func checkBatches(t *testing.T, m *dynamicModel, dyn *Executable, batches []int) {
	ctx := context.Background()
	for _, b := range batches {
		exact := m.compile(t, b)
		x := m.input(t, b)
		want, err := exact.Run(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dyn.Run(ctx, x)
		if err != nil {
			t.Fatalf("batch %d: %v", b, err)
		}
		if msg := closeTo(got[0], want[0], 1e-6); msg != "" {
			t.Errorf("%s at batch %d: %s", m.name, b, msg)
		}
	}
}

func TestDynamicBatchMatchesExactExecutables(t *testing.T) {
	var all []int
	for b := 1; b <= 64; b++ {
		all = append(all, b)
	}
	for _, m := range dynamicModels(t) {
		t.Run(m.name, func(t *testing.T) {
			// Exported at batch 32 (the bundled files' largest), relaxed
			// to any batch up to 64.
			dyn := m.compile(t, 32, WithDynamicDim(0, 0, 64))
			if s := dyn.ParameterShapes()[0]; !s.IsDynamicDim(0) || s.Dims[0] != 64 {
				t.Fatalf("parameter shape %v, want a dynamic batch of up to 64", s)
			}
			for _, k := range dyn.Stats().Kernels {
				if k.Impl == "dynamic" || k.Impl == "per-size" {
					t.Errorf("kernel %v does not run a fast step at the actual size", k)
				}
			}
			checkBatches(t, m, dyn, all)
		})
	}
}

// TestDynamicBatchBERTEncoder checks the bundled BERT-size encoder at a few
// batches (all 64 with KILN_LONG_TESTS=1).
func TestDynamicBatchBERTEncoder(t *testing.T) {
	if testing.Short() {
		t.Skip("BERT-size encoder")
	}
	batches := []int{1, 3}
	if os.Getenv("KILN_LONG_TESTS") != "" {
		batches = nil
		for b := 1; b <= 64; b++ {
			batches = append(batches, b)
		}
	}
	m := newDynamicModel(t, "encoder", examplemodels.Encoder)
	dyn := m.compile(t, 1, WithDynamicDim(0, 0, 64))
	checkBatches(t, m, dyn, batches)
}

// TestDynamicBatchMatchesEvaluator compares the relaxed modules run by
// ir/eval with the compiled executable.
func TestDynamicBatchMatchesEvaluator(t *testing.T) {
	for _, m := range dynamicModels(t) {
		t.Run(m.name, func(t *testing.T) {
			dyn := m.compile(t, 1, WithDynamicDim(0, 0, 64))
			relaxed, err := ir.RelaxDimensions(m.module(t, 1), []ir.DynamicDimension{{Param: 0, Dim: 0, Bound: 64}})
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range []int{1, 5, 64} {
				x := m.input(t, b)
				args := []*ir.Literal{x.Literal()}
				for _, w := range m.weights {
					args = append(args, w.Literal())
				}
				want, err := eval.Run(relaxed, args...)
				if err != nil {
					t.Fatal(err)
				}
				got, err := dyn.Run(context.Background(), x)
				if err != nil {
					t.Fatal(err)
				}
				w, err := want[0].Reshape(want[0].Shape().Dims...)
				if err != nil {
					t.Fatal(err)
				}
				if msg := closeTo(got[0], TensorFromLiteral(w), 1e-4); msg != "" {
					t.Errorf("batch %d: %s", b, msg)
				}
			}
		})
	}
}

// TestDynamicBatchWithoutAllocating reuses result tensors across runs of
// alternating batch sizes: no run allocates, and each result has its
// run's size.
func TestDynamicBatchWithoutAllocating(t *testing.T) {
	ctx := context.Background()
	for _, m := range dynamicModels(t) {
		t.Run(m.name, func(t *testing.T) {
			dyn := m.compile(t, 1, WithDynamicDim(0, 0, 64))
			out, err := NewTensor(dyn.ResultShapes()[0])
			if err != nil {
				t.Fatal(err)
			}
			batches := []int{1, 64, 7, 0, 32, 2}
			var ins []*Tensor
			for _, b := range batches {
				ins = append(ins, m.input(t, b))
			}
			for i, x := range ins {
				if err := dyn.RunInto(ctx, []*Tensor{out}, x); err != nil {
					t.Fatal(err)
				}
				if got := out.Shape().Dims[0]; got != batches[i] {
					t.Errorf("result batch %d after a run at %d", got, batches[i])
				}
			}
			i := 0
			allocs := steadyAllocs(10, func() {
				if err := dyn.RunInto(ctx, []*Tensor{out}, ins[i%len(ins)]); err != nil {
					t.Fatal(err)
				}
				i++
			})
			if allocs != 0 && !raceEnabled {
				t.Errorf("RunInto allocates %v times per run", allocs)
			}
		})
	}
}

// TestDynamicBatchConcurrentRuns runs batches of different sizes from
// several goroutines at once against their exact results.
func TestDynamicBatchConcurrentRuns(t *testing.T) {
	m := dynamicModels(t)[1]
	dyn := m.compile(t, 1, WithDynamicDim(0, 0, 64))
	batches := []int{1, 9, 64, 33}
	want := map[int]*Tensor{}
	for _, b := range batches {
		out, err := m.compile(t, b).Run(context.Background(), m.input(t, b))
		if err != nil {
			t.Fatal(err)
		}
		want[b] = out[0]
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 8; i++ {
				b := batches[(g+i)%len(batches)]
				got, err := dyn.Run(context.Background(), m.input(t, b))
				if err != nil {
					errs <- err.Error()
					return
				}
				if msg := closeTo(got[0], want[b], 1e-6); msg != "" {
					errs <- fmt.Sprintf("batch %d: %s", b, msg)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestDynamicBatchErrors(t *testing.T) {
	m := dynamicModels(t)[0]
	dyn := m.compile(t, 1, WithDynamicDim(0, 0, 64))
	ctx := context.Background()
	tensor := func(t *testing.T, s ir.Shape) *Tensor {
		x, err := NewTensor(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, c := range []struct {
		name string
		arg  *Tensor
		want string
	}{
		{"above the bound", tensor(t, ir.MakeShape(ir.F32, 65, 784)), "above its bound 64"},
		{"wrong static dimension", tensor(t, ir.MakeShape(ir.F32, 8, 785)), "dimension 1 has size 785, want 784"},
		{"wrong rank", tensor(t, ir.MakeShape(ir.F32, 8)), "want f32[<=64,784]"},
		{"wrong element type", tensor(t, ir.MakeShape(ir.F64, 8, 784)), "want f32[<=64,784]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := dyn.Run(ctx, c.arg)
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrArgument) {
				t.Errorf("error %v, want an ErrArgument saying %q", err, c.want)
			}
		})
	}
	t.Run("result tensor too small", func(t *testing.T) {
		out := tensor(t, ir.MakeShape(ir.F32, 2, 10))
		err := dyn.RunInto(ctx, []*Tensor{out}, m.input(t, 3))
		if err == nil || !strings.Contains(err.Error(), "needs 120") || !errors.Is(err, ErrArgument) {
			t.Errorf("error %v, want one about the result's size", err)
		}
		if err := dyn.RunInto(ctx, []*Tensor{out}, m.input(t, 2)); err != nil {
			t.Errorf("a result tensor of the run's size: %v", err)
		}
	})
	t.Run("parameters that must agree", func(t *testing.T) {
		mod, err := ir.ParseModule(`HloModule m
ENTRY e {
  x = f32[<=8,4] parameter(0)
  y = f32[<=8,4] parameter(1)
  ROOT a = f32[<=8,4] add(x, y)
}`)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Compile(mod)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Run(ctx, tensor(t, ir.MakeShape(ir.F32, 3, 4)), tensor(t, ir.MakeShape(ir.F32, 5, 4)))
		if err == nil || !strings.Contains(err.Error(), "needs them equal") || !errors.Is(err, ErrArgument) {
			t.Errorf("error %v, want one saying the sizes must agree", err)
		}
	})
	t.Run("compile", func(t *testing.T) {
		for _, c := range []struct {
			opt  Option
			want string
		}{
			{WithDynamicDim(9, 0, 64), "parameter 9 does not exist"},
			{WithDynamicDim(0, 2, 64), "has no dimension 2"},
			{WithDynamicDim(0, 0, 0), "bound 0 must be at least 1"},
			{WithDynamicDim(1, 0, 1000), "relax it too"},
		} {
			mod := m.module(t, 1)
			_, err := Compile(mod, c.opt)
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrArgument) {
				t.Errorf("%s: error %v", c.want, err)
			}
		}
	})
}

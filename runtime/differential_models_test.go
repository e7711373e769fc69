package runtime_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

// modelTolerance is the bound for the example models: every output element
// within modelTolerance·max(1, max|want|) of ir/eval's (normwise relative).
// The models chain dots of up to 3072 terms, layer norms, softmax and GELU
// in float32; reassociated sums and transcendental kernels of a few ULPs
// stay two orders of magnitude below it, a wrong kernel does not.
const modelTolerance = 1e-4

// TestDifferentialModels compiles the three example models, with every
// parameter filled from detrand as `make run` fills them, once with the
// weights as run-time arguments and once bound at compile time (folded and
// prepacked), and compares their outputs with ir/eval.
func TestDifferentialModels(t *testing.T) {
	for _, rel := range []string{"mlp/mlp_b1.hlo", "cnn/cnn_b1.hlo", "transformer/encoder_b1.hlo"} {
		name := strings.TrimSuffix(filepath.Base(rel), ".hlo")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text, err := os.ReadFile(filepath.Join("..", "examples", rel))
			if err != nil {
				t.Fatal(err)
			}
			m, err := ir.ParseModule(string(text))
			if err != nil {
				t.Fatal(err)
			}
			args := make([]*ir.Literal, len(m.Entry.Parameters))
			for i, p := range m.Entry.Parameters {
				args[i] = detrand.Literal(p.Shape, detrand.Seed(name, i))
			}
			want, err := evalFlat(m, args)
			if err != nil {
				t.Fatalf("ir/eval: %v", err)
			}
			// Parameter 0 is the input; the others are weights.
			var bound []runtime.Option
			for i := 1; i < len(args); i++ {
				bound = append(bound, runtime.WithParameter(i, runtime.TensorFromLiteral(args[i])))
			}
			for _, mode := range []struct {
				name string
				opts []runtime.Option
				args []*ir.Literal
			}{
				{"weights as arguments", nil, args},
				{"weights bound", bound, args[:1]},
			} {
				exe, err := runtime.Compile(m, mode.opts...)
				if err != nil {
					t.Errorf("%s: Compile: %v", mode.name, err)
					continue
				}
				for _, k := range exe.Stats().Kernels {
					if k.Impl == "reference" {
						t.Errorf("%s: kernel %s runs on the reference evaluator, which the example models must never use", mode.name, k)
					}
				}
				ins := make([]*runtime.Tensor, len(mode.args))
				for i, a := range mode.args {
					ins[i] = runtime.TensorFromLiteral(a)
				}
				outs, err := exe.Run(context.Background(), ins...)
				if err != nil {
					t.Errorf("%s: Run: %v", mode.name, err)
					continue
				}
				if len(outs) != len(want) {
					t.Fatalf("%s: %d outputs, ir/eval has %d", mode.name, len(outs), len(want))
				}
				for i, o := range outs {
					if msg := compareModelOutput(o.Literal(), want[i]); msg != "" {
						t.Errorf("%s: output %d: %s\nplan: %s", mode.name, i, msg, exe.Stats())
					}
				}
			}
		})
	}
}

// compareModelOutput checks got against want under modelTolerance and
// describes the worst element when it fails.
func compareModelOutput(got, want *ir.Literal) string {
	if got.ElementCount() != want.ElementCount() {
		return "element counts differ"
	}
	scale := 1.0
	for i := range want.ElementCount() {
		scale = math.Max(scale, math.Abs(want.Float64At(i)))
	}
	worst, at := 0.0, -1
	for i := range want.ElementCount() {
		d := math.Abs(got.Float64At(i) - want.Float64At(i))
		if math.IsNaN(d) && !(math.IsNaN(got.Float64At(i)) && math.IsNaN(want.Float64At(i))) {
			d = math.Inf(1)
		}
		if d > worst {
			worst, at = d, i
		}
	}
	if worst <= modelTolerance*scale {
		return ""
	}
	return describe(got, want, want.Shape().Elem, at,
		"|diff| ≤ 1e-4·max(1, max|want|) = "+ir.FormatFloat(ir.F64, modelTolerance*scale))
}

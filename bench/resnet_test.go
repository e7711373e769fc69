package bench

import (
	"math"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
	"github.com/kilnml/kiln/runtime"
)

// The ResNet generator's module runs on Kiln as on the reference evaluator
// (a small one: 32×32 images, two stages of one bottleneck block, stride
// 2 and projection included), with the weights bound — the batch norms
// folded into the convolutions — and passed as arguments, without
// allocating.
func TestResNetMatchesEval(t *testing.T) {
	cfg := resnetConfig{Batch: 2, Image: 32, Filters: 4, Classes: 10, Stages: []int{1, 2}}
	m, _, err := resnetModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := eval.Run(m.Module, m.Args...)
	if err != nil {
		t.Fatal(err)
	}
	want := ref[0].Float32s()
	for _, bound := range []bool{true, false} {
		args, opts := m.Args, []runtime.Option(nil)
		if bound {
			args, opts = m.Args[:1], m.compileOptions()
		}
		exe, run, err := kilnRunner(m.Module, args, opts...)
		if err != nil {
			t.Fatal(err)
		}
		outs := runOnce(t, exe, args)
		got := outs[0].Float32s()
		for i := range want {
			if d := math.Abs(float64(got[i] - want[i])); d > 1e-4+1e-4*math.Abs(float64(want[i])) || math.IsNaN(float64(got[i])) {
				t.Fatalf("bound %v: logit %d is %v, reference %v\n%v", bound, i, got[i], want[i], exe.Stats())
			}
		}
		if a := testing.AllocsPerRun(3, run); a != 0 {
			t.Errorf("bound %v: %v allocations per run", bound, a)
		}
	}
}

func runOnce(t *testing.T, exe *runtime.Executable, args []*ir.Literal) []*ir.Literal {
	t.Helper()
	var in []*runtime.Tensor
	for _, a := range args {
		in = append(in, runtime.TensorFromLiteral(a))
	}
	outs, err := exe.Run(t.Context(), in...)
	if err != nil {
		t.Fatal(err)
	}
	var lits []*ir.Literal
	for _, o := range outs {
		lits = append(lits, o.Literal())
	}
	return lits
}

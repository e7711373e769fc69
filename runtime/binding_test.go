package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

func TestParameterNamesRule(t *testing.T) {
	m := mlpModule(t)
	got := strings.Join(ParameterNames(m.Entry.Parameters[1]), " | ")
	want := "Arg_1.2 | params['Dense_0']['kernel'] | Dense_0/kernel | params/Dense_0/kernel | Dense_0.kernel | params.Dense_0.kernel"
	if got != want {
		t.Errorf("ParameterNames = %s\nwant %s", got, want)
	}
	if got := ParameterNames(m.Entry.Parameters[0]); len(got) != 2 || got[0] != "Arg_0.1" || got[1] != "x" {
		t.Errorf("ParameterNames(x) = %q, want [Arg_0.1 x]", got)
	}
}

func TestWeightsBindByNameAndDescribeWhatIsLeft(t *testing.T) {
	m := mlpModule(t)
	w, x := mlpWeights(t, m)
	e, err := Compile(m, WithWeights(w))
	if err != nil {
		t.Fatal(err)
	}
	params, results := e.Parameters(), e.Results()
	if len(params) != 1 || params[0].Name != "Arg_0.1" || params[0].Shape.StringWithoutLayout() != "f32[1,784]" {
		t.Errorf("Parameters() = %v, want [Arg_0.1: f32[1,784]]", params)
	}
	if len(results) != 1 || results[0].Shape.StringWithoutLayout() != "f32[1,10]" || results[0].Name != m.Entry.Root.Name {
		t.Errorf("Results() = %v, want [%s: f32[1,10]]", results, m.Entry.Root.Name)
	}
	if _, err := e.Run(context.Background(), x); err != nil {
		t.Fatal(err)
	}
}

func TestMisnamedWeightFailsCompile(t *testing.T) {
	m := mlpModule(t)
	w, _ := mlpWeights(t, m)
	// A name that differs only in case binds to nothing.
	w["dense_0/kernel"] = w["Dense_0/kernel"]
	delete(w, "Dense_0/kernel")
	_, err := Compile(m, WithWeights(w))
	if err == nil {
		t.Fatal("Compile accepted a tensor that binds to nothing")
	}
	if !errors.Is(err, ErrArgument) {
		t.Errorf("error %v does not wrap ErrArgument", err)
	}
	for _, want := range []string{`tensor "dense_0/kernel" f32[784,512] binds to no parameter`, `did you mean "Dense_0/kernel"`,
		"Parameters left unbound: Arg_0.1 f32[1,784]", `Arg_1.2 f32[784,512] (bound by a tensor named "Arg_1.2" or "params['Dense_0']['kernel']" or "Dense_0/kernel"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	// AllowUnusedWeights accepts it, and the parameter is left to Run.
	e, err := Compile(m, WithWeights(w), AllowUnusedWeights())
	if err != nil {
		t.Fatal(err)
	}
	if p := e.Parameters(); len(p) != 2 || p[1].Name != "Arg_1.2" {
		t.Errorf("Parameters() = %v, want x and Arg_1.2", p)
	}
}

func TestTwoTensorsForOneParameterFailCompile(t *testing.T) {
	m := mlpModule(t)
	w, _ := mlpWeights(t, m)
	w["Dense_0.kernel"] = w["Dense_0/kernel"]
	_, err := Compile(m, WithWeights(w))
	if err == nil || !strings.Contains(err.Error(), `tensor "Dense_0.kernel" f32[784,512] names parameter 1 (Arg_1.2), which tensor "Dense_0/kernel" already binds`) {
		t.Fatalf("got %v, want an error naming both tensors", err)
	}
	w2, _ := mlpWeights(t, m)
	_, err = Compile(m, WithWeights(w2), WithParameter(1, w2["Dense_0/kernel"]))
	if err == nil || !strings.Contains(err.Error(), "which WithParameter binds") {
		t.Fatalf("got %v, want an error naming WithParameter", err)
	}
}

func TestWeightOfTheWrongShapeFailsCompile(t *testing.T) {
	m := mlpModule(t)
	w, _ := mlpWeights(t, m)
	w["Dense_0/bias"] = w["Dense_2/bias"]
	_, err := Compile(m, WithWeights(w))
	if err == nil || !errors.Is(err, ErrArgument) ||
		!strings.Contains(err.Error(), `WithWeights: tensor "Dense_0/bias": parameter 2 (Arg_2.3) has shape f32[512], the tensor has f32[10]`) {
		t.Fatalf("got %v, want an ErrArgument naming the tensor and both shapes", err)
	}
}

func TestTupleParametersAndResultsAreNamedByLeaf(t *testing.T) {
	const hlo = `HloModule tuples
ENTRY main {
  state = (f32[2], (s32[], f32[3])) parameter(0)
  a = f32[2] get-tuple-element(state), index=0
  inner = (s32[], f32[3]) get-tuple-element(state), index=1
  b = f32[3] get-tuple-element(inner), index=1
  n = f32[2] negate(a)
  ROOT out = (f32[2], f32[3]) tuple(n, b)
}
`
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range e.Parameters() {
		got = append(got, v.String())
	}
	for _, v := range e.Results() {
		got = append(got, v.String())
	}
	want := "state.0: f32[2], state.1.0: s32[], state.1.1: f32[3], n: f32[2], b: f32[3]"
	if strings.Join(got, ", ") != want {
		t.Errorf("Parameters and Results: %s\nwant %s", strings.Join(got, ", "), want)
	}
}

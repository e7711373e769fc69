package runtime

import (
	"testing"

	"github.com/kilnml/kiln/ir"
)

// compileWeights compiles m with its parameter 1 (the weights) bound at
// compile time when bound, and returns the executable and the arguments a
// run takes: parameter 0, then the weights when they are not bound.
func compileWeights(t *testing.T, m *ir.Module, args []*ir.Literal, bound bool, opts ...Option) (*Executable, []*Tensor) {
	t.Helper()
	run := []*Tensor{TensorFromLiteral(args[0].Clone())}
	if bound {
		opts = append(opts, WithParameter(1, TensorFromLiteral(args[1].Clone())))
	} else {
		run = append(run, TensorFromLiteral(args[1].Clone()))
	}
	e, err := Compile(m, opts...)
	if err != nil {
		t.Fatalf("bound=%v: %v", bound, err)
	}
	return e, run
}

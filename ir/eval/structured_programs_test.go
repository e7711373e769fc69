package eval

import (
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/internal/testmodules"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// TestStructuredProgramsMatchGeneralPath checks that the called
// computations of testmodules.StructuredPrograms compile to scalar
// programs (ir/ops' scalarize.go) that give what calling the computation
// gives.
func TestStructuredProgramsMatchGeneralPath(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, text := range testmodules.StructuredPrograms {
		m := parseHLO(t, text)
		root := m.Entry.Root
		if !compiles(root.ToApply) {
			_, err := opsCompile(root.ToApply)
			t.Fatalf("%s: not compiled to a scalar program: %v", m.Name, err)
		}
		args := make([]*ir.Literal, len(m.Entry.Parameters))
		for k, p := range m.Entry.Parameters {
			args[k] = randomLiteral(r, p.Shape.Elem, p.Shape.Dims)
			if m.Name == "indexed_conditional_movement" && k == 1 {
				for j := range ir.Values[float32](args[k]) {
					ir.Values[float32](args[k])[j] = float32(r.IntN(5) - 1) // branch indices, some out of range
				}
			}
		}
		fast, err := Run(m, args...)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		compilePrograms = false
		general, err := Run(m, args...)
		compilePrograms = true
		if err != nil {
			t.Fatalf("%s (general path): %v", m.Name, err)
		}
		for k := range fast {
			if !fast[k].Equal(general[k]) {
				t.Errorf("%s output %d: scalar program %v\ngeneral path %v", m.Name, k, fast[k], general[k])
			}
		}
	}
}

func opsCompile(c *ir.Computation) (*ops.Func, error) { return ops.CompileFunc(opsComputation(c)) }

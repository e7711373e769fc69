package runtime

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/internal/testmodules"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// TestStructuredCalledComputations runs testmodules.StructuredPrograms
// compiled (their called computations as ir/ops' scalar programs) and
// checks them against ir/eval bit for bit.
func TestStructuredCalledComputations(t *testing.T) {
	for i, text := range testmodules.StructuredPrograms {
		m, err := ir.ParseModule(text)
		if err != nil {
			t.Fatal(err)
		}
		var args []*ir.Literal
		for k, p := range m.Entry.Parameters {
			l := detrand.Literal(p.Shape, detrand.Seed(fmt.Sprint("called", i), k))
			if m.Name == "indexed_conditional_movement" && k == 1 {
				for j := range l.Float32s() {
					l.Float32s()[j] = float32(j%5 - 1) // branch indices, some out of range
				}
			}
			args = append(args, l)
		}
		want, err := eval.Run(m, args...)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		e, err := Compile(m)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		got := runLiterals(t, e, args)
		for k := range want {
			if !bytes.Equal(got[k].Bytes(), want[k].Bytes()) {
				t.Errorf("%s output %d: %v, want %v", m.Name, k, got[k], want[k])
			}
		}
	}
}

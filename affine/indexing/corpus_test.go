package indexing

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// Every instruction of the HLO corpus and of the example models is analysed
// in both directions without an error: verified HLO gives maps, unknown
// indexing, or an UnsupportedError naming the form it does not analyse.
func TestCorpus(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../ir/testdata/hlo/*.hlo", "../../examples/*/*.hlo"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no HLO files found")
	}
	analysed := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ir.ParseModule(string(text))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := m.Verify(); err != nil {
			t.Logf("%s: not analysed: %v", f, err)
			continue
		}
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				n := 1
				if in.Shape.IsTuple() {
					n = len(in.Shape.Tuple)
				}
				for o := range n {
					_, err := OutputToInput(in, o)
					allowed(t, f, in, err)
				}
				for k := range in.Operands {
					_, err := InputToOutput(in, k)
					allowed(t, f, in, err)
				}
				analysed++
			}
		}
	}
	t.Logf("%d instructions of %d files", analysed, len(files))
}

func allowed(t *testing.T, file string, in *ir.Instruction, err error) {
	t.Helper()
	var u *UnsupportedError
	if err != nil && !errors.As(err, &u) {
		t.Errorf("%s: %s (%s): %v", file, in.Name, in.Opcode, err)
	}
}

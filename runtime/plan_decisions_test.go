package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The runtime carries out the plan sched made and decides nothing again:
// of sched's functions it calls Schedule only (the GEMM shape, the
// convolution's geometry and algorithm, the reducer, epilogues, in-place
// writes and parallel splits are read from the plan's kernels), which this
// test checks on the package's sources.
func TestRuntimeReDerivesNoDecision(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		schedName := ""
		for _, imp := range f.Imports {
			if imp.Path.Value == `"github.com/kilnml/kiln/sched"` {
				schedName = "sched"
				if imp.Name != nil {
					schedName = imp.Name.Name
				}
			}
		}
		if schedName == "" {
			continue
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == schedName && sel.Sel.Name != "Schedule" {
				t.Errorf("%s: the runtime calls sched.%s: the decision belongs in the plan", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("only %d files import sched", checked)
	}
}

package runtime

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnml/kiln/internal/npy"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// jaxExports is the directory of the modules JAX exported with their
// inputs and JAX's outputs on the CPU (export.py there made them).
const jaxExports = "../testdata/jax"

// TestJAXExports runs every module of testdata/jax — each case as jax.jit
// lowers it (NAME.hlo) and as XLA's CPU compiler optimizes it
// (NAME.opt.hlo: fusions, XLA's TopK custom call, comparators rewritten
// with bitcasts) — on the compiled path and on the reference evaluator,
// with the inputs JAX was given, and compares each result with JAX's:
// integers and predicates exactly, floats to within a small part of the
// result's largest magnitude (the two compute exp, tanh, sums in other
// orders, as any two XLA backends do). A module lowered with bfloat16
// arithmetic is held to bfloat16's precision instead: Kiln rounds every
// bf16 op's result as the module's types say, where XLA's CPU compiler, by
// default, drops the f32→bf16→f32 round trips between them
// (xla_allow_excess_precision) — the optimized module, which spells out
// what XLA computed, is held to the tight bound.
func TestJAXExports(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(jaxExports, "*.hlo"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no modules in %s (%v)", jaxExports, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".hlo")
		t.Run(name, func(t *testing.T) {
			base := filepath.Join(jaxExports, strings.TrimSuffix(name, ".opt"))
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ir.ParseModule(string(src))
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Verify(); err != nil {
				t.Fatal(err)
			}
			var args []*ir.Literal
			for i := range m.Entry.Parameters {
				args = append(args, readJAXArray(t, fmt.Sprintf("%s.in%d", base, i)))
			}
			var wants []*ir.Literal
			for i := 0; jaxArrayExists(fmt.Sprintf("%s.out%d", base, i)); i++ {
				wants = append(wants, readJAXArray(t, fmt.Sprintf("%s.out%d", base, i)))
			}
			tol := 2e-5
			if strings.Contains(name, "bf16") && !strings.HasSuffix(name, ".opt") {
				tol = 0x1p-6
			}
			exe, err := Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			in := make([]*Tensor, len(args))
			for i, a := range args {
				in[i] = TensorFromLiteral(a)
			}
			outs, err := exe.Run(context.Background(), in...)
			if err != nil {
				t.Fatal(err)
			}
			var got []*ir.Literal
			for _, o := range outs {
				got = append(got, o.Literal())
			}
			compareWithJAX(t, "compiled", got, wants, tol)
			ref, err := eval.Run(m, args...)
			if err != nil {
				t.Fatal(err)
			}
			if len(ref) == 1 && ref[0].Shape().IsTuple() {
				ref = ref[0].Elements()
			}
			compareWithJAX(t, "reference", ref, wants, tol)
		})
	}
}

func jaxArrayExists(base string) bool {
	for _, ext := range []string{".npy", ".bf16.npy"} {
		if _, err := os.Stat(base + ext); err == nil {
			return true
		}
	}
	return false
}

// readJAXArray reads base.npy, or base.bf16.npy (bfloat16 bits as uint16)
// as a bf16 literal.
func readJAXArray(t *testing.T, base string) *ir.Literal {
	t.Helper()
	if l, err := npy.ReadFile(base + ".npy"); err == nil {
		return l
	}
	l, err := npy.ReadFile(base + ".bf16.npy")
	if err != nil {
		t.Fatal(err)
	}
	out, err := ir.LiteralFromBytes(ir.MakeShape(ir.BF16, l.Shape().Dims...), l.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// compareWithJAX checks each result against JAX's: the same shape; integer
// and predicate elements equal; float elements NaN where JAX's are, equal
// infinities, and otherwise within tol of the result's largest finite
// magnitude.
func compareWithJAX(t *testing.T, path string, got, want []*ir.Literal, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, JAX gave %d", path, len(got), len(want))
	}
	for i := range want {
		gs, ws := got[i].Shape(), want[i].Shape()
		if gs.Elem != ws.Elem || !ir.SameDimensions(gs, ws) {
			t.Errorf("%s: result %d is %v, JAX's %v", path, i, gs, ws)
			continue
		}
		g64, err := ir.ConvertLiteral(got[i], ir.F64)
		if err != nil {
			t.Fatal(err)
		}
		w64, err := ir.ConvertLiteral(want[i], ir.F64)
		if err != nil {
			t.Fatal(err)
		}
		g, w := ir.Values[float64](g64), ir.Values[float64](w64)
		scale := 0.0
		for _, v := range w {
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				scale = math.Max(scale, math.Abs(v))
			}
		}
		bound := 0.0
		if ws.Elem.IsFloatOrComplex() {
			bound = tol * math.Max(scale, 1e-30)
		}
		for j := range w {
			ok := g[j] == w[j] || math.IsNaN(g[j]) && math.IsNaN(w[j]) ||
				!math.IsInf(w[j], 0) && math.Abs(g[j]-w[j]) <= bound
			if !ok {
				t.Errorf("%s: result %d (%v) element %d = %v, JAX's %v (allowed %.3g)", path, i, ws, j, g[j], w[j], bound)
				break
			}
		}
	}
}

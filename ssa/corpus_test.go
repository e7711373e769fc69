package ssa

import (
	"bufio"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// The whole pipeline over the HLO corpus of the ir package and the
// evaluator's golden modules (every elementwise op and conversion on edge
// values: ±0, ±∞, NaN, extremes): each optimised program verifies and, where
// the evaluator runs the original, gives its results (bit for bit but for
// NaN payloads; within tolerance where batch-norm was decomposed).

func TestCorpusPipeline(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "ir", "testdata", "hlo", "*.hlo"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			pipelineEquivalent(t, string(text), nil)
		})
	}
}

func TestGoldenPipeline(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "eval", "golden.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var name string
	var module strings.Builder
	var args []string
	inModule := false
	flush := func() {
		if name == "" {
			return
		}
		text, hexArgs := module.String(), args
		t.Run(name, func(t *testing.T) { pipelineEquivalent(t, text, hexArgs) })
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "=== "):
			flush()
			name, inModule, args = strings.TrimPrefix(line, "=== "), true, nil
			module.Reset()
		case line == "---":
			inModule = false
		case inModule:
			module.WriteString(line + "\n")
		case strings.HasPrefix(line, "arg "):
			fields := strings.Fields(line)
			args = append(args, fields[len(fields)-1])
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// pipelineEquivalent optimises a module and compares it with the original
// on the given arguments (hex bytes per parameter) or random ones.
func pipelineEquivalent(t *testing.T, text string, hexArgs []string) {
	t.Helper()
	m, err := ir.ParseModule(text)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := m.Verify(); err != nil {
		t.Skipf("does not verify: %v", err)
	}
	p, err := Lower(m)
	if err != nil {
		t.Skipf("not lowered: %v", err)
	}
	if err := Optimize(p, Options{Verify: true}); err != nil {
		t.Fatal(err)
	}
	raised := raiseChecked(t, p)

	args := randomArgs(m, 1)
	if hexArgs != nil {
		if len(hexArgs) != len(m.Entry.Parameters) {
			t.Fatalf("%d arguments for %d parameters", len(hexArgs), len(m.Entry.Parameters))
		}
		for i, h := range hexArgs {
			data, err := hex.DecodeString(h)
			if err != nil {
				t.Fatal(err)
			}
			if args[i], err = ir.LiteralFromBytes(m.Entry.Parameters[i].Shape.WithoutLayout(), data); err != nil {
				t.Skipf("argument %d: %v", i, err)
			}
		}
	}
	want, err := eval.Run(m, args...)
	if err != nil {
		t.Skipf("the evaluator does not run the original: %v", err)
	}
	// Parameters and results are bound in the layouts the module declares.
	src, err := Lower(m)
	if err != nil {
		t.Fatal(err)
	}
	pargs := make([]*ir.Literal, len(args))
	for i, a := range args {
		pargs[i] = physicalLiteral(a, declaredParamShape(src, src.Entry.Params[i]))
	}
	got, err := eval.RunWithOptions(raised, eval.Options{CustomCalls: kilnCalls}, pargs...)
	if err != nil {
		t.Fatalf("evaluating the optimised program: %v\n%s", err, raised)
	}
	result := declaredResultShape(src)
	var wantPhys []*ir.Literal
	if result.IsTuple() {
		wantPhys = physicalLiteral(ir.NewTupleLiteral(want...), result).Elements()
	} else {
		wantPhys = []*ir.Literal{physicalLiteral(want[0], result)}
	}
	tol := exact
	if strings.Contains(text, "batch-norm") {
		tol = tolerance{1e-4, 1e-4}
	}
	if len(got) != len(wantPhys) {
		t.Fatalf("%d results, want %d", len(got), len(wantPhys))
	}
	for i := range got {
		if msg := compareLiterals(got[i], wantPhys[i], tol); msg != "" {
			t.Fatalf("result %d: %s\n%s", i, msg, raised)
		}
	}
}

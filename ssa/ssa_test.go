package ssa

import (
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// tinyModule builds, without the parser:
//
//	callee(a, b) = a * b
//	main(x, y):  s1 = x + y; s2 = y + x (same as s1); dead = x - y;
//	             c = call callee(s1, s2); root = c
func tinyModule() *ir.Module {
	f32 := ir.MakeShape(ir.F32, 4)
	callee := &ir.Computation{Name: "callee"}
	a := callee.Add(&ir.Instruction{Name: "a", Opcode: ir.OpParameter, Shape: f32})
	b := callee.Add(&ir.Instruction{Name: "b", Opcode: ir.OpParameter, Shape: f32, Attrs: ir.Attrs{ParameterNumber: 1}})
	callee.Root = callee.Add(&ir.Instruction{Name: "mul", Opcode: ir.OpMultiply, Shape: f32, Operands: []*ir.Instruction{a, b}})

	main := &ir.Computation{Name: "main"}
	x := main.Add(&ir.Instruction{Name: "x", Opcode: ir.OpParameter, Shape: f32})
	y := main.Add(&ir.Instruction{Name: "y", Opcode: ir.OpParameter, Shape: f32, Attrs: ir.Attrs{ParameterNumber: 1}})
	s1 := main.Add(&ir.Instruction{Name: "s1", Opcode: ir.OpAdd, Shape: f32, Operands: []*ir.Instruction{x, y}})
	s2 := main.Add(&ir.Instruction{Name: "s2", Opcode: ir.OpAdd, Shape: f32, Operands: []*ir.Instruction{y, x}})
	main.Add(&ir.Instruction{Name: "dead", Opcode: ir.OpSubtract, Shape: f32, Operands: []*ir.Instruction{x, y}})
	main.Root = main.Add(&ir.Instruction{Name: "c", Opcode: ir.OpCall, Shape: f32, Operands: []*ir.Instruction{s1, s2}, ToApply: callee})
	m := &ir.Module{Name: "tiny"}
	m.AddComputation(callee, false)
	m.AddComputation(main, true)
	return m
}

func TestLowerAndOptimize(t *testing.T) {
	p, err := Lower(tinyModule())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Funcs) != 2 || p.Entry.Name != "main" {
		t.Fatalf("lowered %d funcs, entry %s; want 2, main", len(p.Funcs), p.Entry.Name)
	}
	if err := Optimize(p, Options{Verify: true}); err != nil {
		t.Fatal(err)
	}
	if len(p.Funcs) != 1 {
		t.Errorf("after inlining, %d funcs remain, want 1:\n%s", len(p.Funcs), p)
	}
	var ops []string
	for _, v := range p.Entry.Values {
		ops = append(ops, v.Op.String())
	}
	if got, want := strings.Join(ops, " "), "parameter parameter add multiply"; got != want {
		t.Errorf("values after optimisation: %s, want %s\n%s", got, want, p)
	}
	root := p.Entry.Root
	if root.Op != OpMultiply || root.Args[0] != root.Args[1] {
		t.Errorf("root should multiply the one remaining add by itself:\n%s", p)
	}
}

func TestDisablePass(t *testing.T) {
	p, err := Lower(tinyModule())
	if err != nil {
		t.Fatal(err)
	}
	if err := Optimize(p, Options{Disable: []string{"inline", "cse"}, Verify: true}); err != nil {
		t.Fatal(err)
	}
	if p.Entry.Root.Op != OpCall {
		t.Errorf("with inline disabled the root should stay a call, got %s", p.Entry.Root.Op)
	}
	if err := Optimize(p, Options{Disable: []string{"no-such-pass"}}); err == nil || !strings.Contains(err.Error(), "no-such-pass") {
		t.Errorf("unknown pass name: got %v, want an error naming it", err)
	}
}

func TestDumpAfter(t *testing.T) {
	p, err := Lower(tinyModule())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Optimize(p, Options{DumpAfter: []string{"cse"}, DumpTo: &b}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "// after cse\nfunc main(") || strings.Count(out, "// after") != 1 {
		t.Errorf("dump after cse:\n%s", out)
	}
}

func TestVerifyCatchesUseBeforeDef(t *testing.T) {
	p, err := Lower(tinyModule())
	if err != nil {
		t.Fatal(err)
	}
	f := p.Entry
	f.Values[2], f.Values[len(f.Values)-1] = f.Values[len(f.Values)-1], f.Values[2]
	if err := Verify(p); err == nil || !strings.Contains(err.Error(), "not defined before its use") {
		t.Errorf("Verify on a reordered function: %v", err)
	}
	f.Sort()
	if err := Verify(p); err != nil {
		t.Errorf("after Sort: %v", err)
	}
}

func TestRaiseRoundTrip(t *testing.T) {
	m := tinyModule()
	p, err := Lower(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Raise(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Computations) != 2 || back.Entry.Name != "main" || back.Entry.Root.Opcode != ir.OpCall ||
		back.Entry.Root.ToApply != back.Computation("callee") {
		t.Fatalf("raised module does not match the original structure")
	}
	for i, in := range back.Entry.Instructions {
		orig := m.Entry.Instructions[i]
		if in.Name != orig.Name || in.Opcode != orig.Opcode || len(in.Operands) != len(orig.Operands) {
			t.Errorf("instruction %d: got %s %s, want %s %s", i, in.Name, in.Opcode, orig.Name, orig.Opcode)
		}
	}
}

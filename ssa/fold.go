package ssa

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// Bounds of constant folding.
const (
	// maxFoldBytes bounds the size of a folded result.
	maxFoldBytes = 64 << 10
	// maxFoldInputBytes bounds the constants an evaluation reads, so that
	// folding stays cheap next to compiling.
	maxFoldInputBytes = 1 << 20
	// maxExpandBytes bounds results larger than their inputs (broadcast,
	// iota, pad, …): beyond it a broadcast of a constant stays symbolic,
	// which the scheduler recomputes for free, rather than becoming a copy
	// of the constant repeated in memory.
	maxExpandBytes = 256
)

// constantFold replaces every value whose arguments are all constants by the
// constant it evaluates to. The value is raised to a one-instruction HLO
// computation (its regions raised with it) and run by the reference
// evaluator, so folding has exactly the evaluator's semantics. Values with
// side effects, Kiln's ops, control flow and tuples are left alone, and so
// are results beyond the bounds above.
func constantFold(p *Program) error {
	for _, f := range p.Funcs {
		foldFunc(p, f)
	}
	return nil
}

func foldFunc(p *Program, f *Func) {
	b := &builder{f: f}
	repl := map[*Value]*Value{}
	n := len(f.Values)
	for i := 0; i < n; i++ {
		v := f.Values[i]
		for j, a := range v.Args {
			if r, ok := repl[a]; ok {
				v.Args[j] = r
			}
		}
		if !foldable(v) {
			continue
		}
		lit, err := foldEval(p, v)
		if err != nil {
			continue // the evaluator refuses this form: keep it symbolic
		}
		c := b.constant(lit)
		c.Shape = v.Shape.Clone()
		repl[v] = c
	}
	if len(repl) == 0 {
		return
	}
	if r, ok := repl[f.Root]; ok {
		f.Root = r
	}
	f.Sort()
	deadcodeFunc(f)
}

// notFoldable lists the opcodes never folded: they have no value of their
// own (parameters, constants, tuples), depend on the run (ids, rng, sizes
// of dynamic shapes), or are control flow and barriers whose structure the
// later stages keep.
var notFoldable = map[ir.Opcode]bool{
	ir.OpParameter: true, ir.OpConstant: true, ir.OpTuple: true, ir.OpGetTupleElement: true,
	ir.OpWhile: true, ir.OpConditional: true, ir.OpCall: true, ir.OpFusion: true,
	ir.OpCustomCall: true, ir.OpOptimizationBarrier: true, ir.OpDomain: true,
	ir.OpAfterAll: true, ir.OpAddDependency: true, ir.OpReplicaID: true, ir.OpPartitionID: true,
	ir.OpRng: true, ir.OpRngBitGenerator: true, ir.OpRngGetAndUpdateState: true,
	ir.OpSetDimensionSize: true, ir.OpGetDimensionSize: true, ir.OpDynamicReshape: true,
}

func foldable(v *Value) bool {
	op, ok := v.Op.IR()
	if !ok || notFoldable[op] || v.Op.HasSideEffect() || !eval.Supported(op) {
		return false
	}
	if !v.Shape.IsArray() || v.Shape.IsDynamic() {
		return false
	}
	in, splats := 0, 0
	for _, a := range v.Args {
		if !a.Shape.IsArray() || a.Shape.IsDynamic() {
			return false
		}
		if !a.IsConstant() {
			// A splat of a constant scalar (kept symbolic when large) is
			// a constant operand of the values it feeds, next to a
			// constant of its own (a value of splats alone stays a splat).
			s, ok := constantSplat(a)
			if !ok {
				return false
			}
			splats++
			in += s.Shape.ByteSize()
			continue
		}
		in += a.Shape.ByteSize()
	}
	if splats > 0 && splats == len(v.Args) {
		return false
	}
	out := v.Shape.ByteSize()
	return out >= 0 && out <= maxFoldBytes && in <= maxFoldInputBytes && out <= max(in, maxExpandBytes)
}

// constantSplat returns the constant scalar a broadcast of one spreads.
func constantSplat(a *Value) (*Value, bool) {
	if a.Op == OpBroadcast && len(a.Args) == 1 && a.Args[0].IsConstant() && a.Args[0].Shape.IsScalar() {
		return a.Args[0], true
	}
	return nil, false
}

// foldEval evaluates v on its constant arguments.
func foldEval(p *Program, v *Value) (*ir.Literal, error) {
	r := &raiser{comps: map[*Func]*ir.Computation{}}
	c := &ir.Computation{Name: "fold"}
	insts := make(map[*Value]*ir.Instruction, len(v.Args))
	for i, a := range v.Args {
		if _, ok := insts[a]; ok {
			continue
		}
		if s, ok := constantSplat(a); ok && !a.IsConstant() {
			sc := c.Add(&ir.Instruction{Name: fmt.Sprintf("fold.scalar%d", i), Opcode: ir.OpConstant,
				Shape: s.Shape.Clone(), Attrs: ir.Attrs{Literal: s.Attrs.Literal}})
			insts[a] = c.Add(&ir.Instruction{Name: fmt.Sprintf("fold.arg%d", i), Opcode: ir.OpBroadcast,
				Shape: a.Shape.Clone(), Operands: []*ir.Instruction{sc}, Attrs: ir.Attrs{Dimensions: []int{}}})
			continue
		}
		insts[a] = c.Add(&ir.Instruction{Name: fmt.Sprintf("fold.arg%d", i), Opcode: ir.OpConstant,
			Shape: a.Shape.Clone(), Attrs: ir.Attrs{Literal: a.Attrs.Literal}})
	}
	in, err := r.instruction(v, insts)
	if err != nil {
		return nil, err
	}
	in.Name = "fold.value"
	c.Root = c.Add(in)
	m := &ir.Module{Name: "fold"}
	for _, g := range p.Funcs {
		if comp, ok := r.comps[g]; ok {
			m.AddComputation(comp, false)
		}
	}
	m.AddComputation(c, true)
	res, err := eval.Run(m)
	if err != nil {
		return nil, err
	}
	if len(res) != 1 || !res[0].Shape().IsArray() || !ir.SameDimensions(res[0].Shape(), v.Shape) || res[0].Shape().Elem != v.Shape.Elem {
		return nil, fmt.Errorf("fold of %v (%s): evaluator returned an unexpected shape", v, v.Op)
	}
	return res[0], nil
}

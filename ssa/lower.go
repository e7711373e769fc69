package ssa

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// Lower translates an HLO module into SSA form: one Func per computation
// reachable from the entry (a computation called from several places is
// lowered once and shared), values in the computation's order.
func Lower(m *ir.Module) (*Program, error) {
	if m == nil || m.Entry == nil {
		return nil, fmt.Errorf("ssa: module has no entry computation")
	}
	l := &lowerer{prog: &Program{Source: m}, funcs: map[*ir.Computation]*Func{}}
	entry, err := l.computation(m.Entry, 0)
	if err != nil {
		return nil, err
	}
	l.prog.Entry = entry
	return l.prog, nil
}

type lowerer struct {
	prog  *Program
	funcs map[*ir.Computation]*Func
}

// maxRegionDepth bounds the nesting of called computations, so a module
// whose computations call each other in a cycle is refused.
const maxRegionDepth = 64

func (l *lowerer) computation(c *ir.Computation, depth int) (*Func, error) {
	if f, ok := l.funcs[c]; ok {
		if f == nil {
			return nil, fmt.Errorf("ssa: computation %s calls itself", c.Name)
		}
		return f, nil
	}
	if depth > maxRegionDepth {
		return nil, fmt.Errorf("ssa: computations nested deeper than %d at %s", maxRegionDepth, c.Name)
	}
	l.funcs[c] = nil // in progress
	f := &Func{Name: c.Name, Program: l.prog}
	vals := make(map[*ir.Instruction]*Value, len(c.Instructions))
	for _, in := range c.Instructions {
		if in.Opcode.IsAsync() {
			return nil, fmt.Errorf("ssa: %s: op %q (an async pair) is not supported by the compiler", in.Name, in.Opcode)
		}
		v := f.NewValue(FromIR(in.Opcode), in.Shape.Clone())
		v.Name = in.Name
		v.Attrs = in.Attrs
		v.Raw = in.Raw
		for i, o := range in.Operands {
			a, ok := vals[o]
			if !ok {
				return nil, fmt.Errorf("ssa: %s: operand %d (%s) is used before it is defined", in.Name, i, o.Name)
			}
			v.Args = append(v.Args, a)
		}
		if ir.IsIdentityAnnotation(in) {
			// A sharding or placement annotation is the identity on one
			// device: its users read the operand.
			vals[in] = v.Args[0]
			continue
		}
		for _, callee := range calledInRoleOrder(in) {
			g, err := l.computation(callee, depth+1)
			if err != nil {
				return nil, err
			}
			v.Funcs = append(v.Funcs, g)
		}
		if in.Opcode == ir.OpParameter {
			for len(f.Params) <= in.ParameterNumber {
				f.Params = append(f.Params, nil)
			}
			f.Params[in.ParameterNumber] = v
		}
		vals[in] = v
		f.Values = append(f.Values, v)
	}
	for i, p := range f.Params {
		if p == nil {
			return nil, fmt.Errorf("ssa: computation %s has no parameter %d", c.Name, i)
		}
	}
	if c.Root == nil {
		return nil, fmt.Errorf("ssa: computation %s has no root", c.Name)
	}
	f.Root = vals[c.Root]
	l.funcs[c] = f
	l.prog.Funcs = append(l.prog.Funcs, f)
	return f, nil
}

// calledInRoleOrder lists an instruction's called computations in the order
// Value.Funcs documents.
func calledInRoleOrder(in *ir.Instruction) []*ir.Computation {
	switch in.Opcode {
	case ir.OpWhile:
		return []*ir.Computation{in.Condition, in.Body}
	case ir.OpConditional:
		return in.Branches
	case ir.OpSelectAndScatter:
		return []*ir.Computation{in.Select, in.Scatter}
	case ir.OpFusion:
		return []*ir.Computation{in.Calls}
	case ir.OpCustomCall:
		return in.CalledComputations
	}
	if in.ToApply != nil {
		return []*ir.Computation{in.ToApply}
	}
	return nil
}

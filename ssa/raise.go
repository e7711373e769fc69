package ssa

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// Raise translates a program back into an HLO module: the inverse of Lower.
// Kiln's own ops become custom-calls whose target is the op's name
// (`kiln.softmax`), with Aux in backend_config, so that any program can be
// printed as HLO text; only programs without them can be evaluated by ir/eval.
func Raise(p *Program) (*ir.Module, error) {
	r := &raiser{comps: map[*Func]*ir.Computation{}}
	m := &ir.Module{Name: "kiln"}
	if p.Source != nil {
		m.Name = p.Source.Name
	}
	for _, f := range p.Funcs {
		c, err := r.raise(f)
		if err != nil {
			return nil, err
		}
		m.AddComputation(c, f == p.Entry)
	}
	return m, nil
}

type raiser struct {
	comps map[*Func]*ir.Computation
}

func (r *raiser) raise(f *Func) (*ir.Computation, error) {
	if c, ok := r.comps[f]; ok {
		return c, nil
	}
	c := &ir.Computation{Name: f.Name}
	insts := make(map[*Value]*ir.Instruction, len(f.Values))
	for _, v := range f.Values {
		in, err := r.instruction(v, insts)
		if err != nil {
			return nil, fmt.Errorf("func %s: %w", f.Name, err)
		}
		insts[v] = c.Add(in)
	}
	c.Root = insts[f.Root]
	r.comps[f] = c
	return c, nil
}

// instruction builds the HLO instruction of v; its regions must have been
// raised already (Program.Funcs lists callees first).
func (r *raiser) instruction(v *Value, insts map[*Value]*ir.Instruction) (*ir.Instruction, error) {
	name := v.Name
	if name == "" {
		name = fmt.Sprintf("%s.v%d", opBaseName(v.Op), v.ID)
	}
	in := &ir.Instruction{Name: name, Shape: v.Shape.Clone(), Attrs: v.Attrs, Raw: v.Raw}
	for _, a := range v.Args {
		o, ok := insts[a]
		if !ok {
			return nil, fmt.Errorf("%v (%s): argument %v is not defined before its use", v, v.Op, a)
		}
		in.Operands = append(in.Operands, o)
	}
	regions := make([]*ir.Computation, len(v.Funcs))
	for i, g := range v.Funcs {
		c, ok := r.comps[g]
		if !ok {
			var err error
			if c, err = r.raise(g); err != nil {
				return nil, err
			}
		}
		regions[i] = c
	}
	op, isIR := v.Op.IR()
	if !isIR {
		in.Opcode = ir.OpCustomCall
		in.CustomCallTarget = v.Op.String()
		in.BackendConfig = fmt.Sprintf("%q", fmt.Sprint(v.Aux))
		in.CalledComputations = regions
		return in, nil
	}
	in.Opcode = op
	switch op {
	case ir.OpWhile:
		in.Condition, in.Body = regions[0], regions[1]
	case ir.OpConditional:
		in.Branches = regions
	case ir.OpSelectAndScatter:
		in.Select, in.Scatter = regions[0], regions[1]
	case ir.OpFusion:
		in.Calls = regions[0]
	case ir.OpCustomCall:
		in.CalledComputations = regions
	default:
		if len(regions) == 1 {
			in.ToApply = regions[0]
		}
	}
	return in, nil
}

func opBaseName(op Op) string {
	s := op.String()
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[i+1:]
		}
	}
	return s
}

// RaiseValue builds an HLO module whose entry computation applies v's op to
// parameters of v's argument shapes, with v's regions raised as called
// computations. The runtime evaluates such modules for ops that have no
// dedicated implementation. It returns the module and the instruction.
func RaiseValue(v *Value) (*ir.Module, *ir.Instruction, error) {
	r := &raiser{comps: map[*Func]*ir.Computation{}}
	m := &ir.Module{Name: "kiln_" + opBaseName(v.Op)}
	var add func(f *Func) error
	add = func(f *Func) error {
		if _, ok := r.comps[f]; ok {
			return nil
		}
		for _, w := range f.Values {
			for _, g := range w.Funcs {
				if err := add(g); err != nil {
					return err
				}
			}
		}
		c, err := r.raise(f)
		if err != nil {
			return err
		}
		m.AddComputation(c, false)
		return nil
	}
	for _, g := range v.Funcs {
		if err := add(g); err != nil {
			return nil, nil, err
		}
	}
	entry := &ir.Computation{Name: "entry"}
	insts := map[*Value]*ir.Instruction{}
	for i, a := range v.Args {
		if _, dup := insts[a]; dup {
			continue
		}
		p := &ir.Instruction{Name: fmt.Sprintf("arg%d", i), Opcode: ir.OpParameter, Shape: a.Shape.Clone()}
		p.ParameterNumber = len(entry.Parameters)
		insts[a] = entry.Add(p)
	}
	in, err := r.instruction(v, insts)
	if err != nil {
		return nil, nil, err
	}
	entry.Root = entry.Add(in)
	m.AddComputation(entry, true)
	return m, in, nil
}

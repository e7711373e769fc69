package indexing

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// Adaptor is a set of instructions analysed as one fusion, XLA's
// HloFusionAdaptor: the instructions of a fused computation, a single
// instruction, or a producer fused into its consumer. The parameters of a
// fused computation stand for the fusion's operands.
type Adaptor struct {
	// Instrs are the adaptor's instructions in post-order (operands first),
	// parameters of fused computations left out.
	Instrs []*ir.Instruction
	// outside maps a parameter of a fused computation to the operand of the
	// fusion it stands for.
	outside map[*ir.Instruction]*ir.Instruction
}

// AdaptorFor is XLA's HloFusionAdaptor::ForInstruction: the instructions of
// a fusion's computation, or the instruction alone.
func AdaptorFor(in *ir.Instruction) *Adaptor {
	a := &Adaptor{outside: map[*ir.Instruction]*ir.Instruction{}}
	a.addInstruction(in)
	return a
}

// AdaptorForProducerConsumer is XLA's HloFusionAdaptor::ForProducerConsumer:
// the producer's instructions, then the consumer's.
func AdaptorForProducerConsumer(producer, consumer *ir.Instruction) *Adaptor {
	a := &Adaptor{outside: map[*ir.Instruction]*ir.Instruction{}}
	a.addInstruction(producer)
	a.addInstruction(consumer)
	return a
}

func (a *Adaptor) addInstruction(in *ir.Instruction) {
	if in.Opcode != ir.OpFusion || in.Calls == nil {
		a.Instrs = append(a.Instrs, in)
		return
	}
	for _, p := range in.Calls.Parameters {
		if p.ParameterNumber >= 0 && p.ParameterNumber < len(in.Operands) {
			a.outside[p] = in.Operands[p.ParameterNumber]
		}
	}
	seen := map[*ir.Instruction]bool{}
	var visit func(x *ir.Instruction)
	visit = func(x *ir.Instruction) {
		if seen[x] {
			return
		}
		seen[x] = true
		for _, o := range x.Operands {
			visit(o)
		}
		if x.Opcode != ir.OpParameter {
			a.Instrs = append(a.Instrs, x)
		}
	}
	if in.Calls.Root != nil {
		visit(in.Calls.Root)
	}
}

// Contains reports whether in is one of the adaptor's instructions or a
// parameter of one of its fused computations.
func (a *Adaptor) Contains(in *ir.Instruction) bool {
	_, param := a.outside[in]
	return param || slices.Contains(a.Instrs, in)
}

// operand is the instruction operand k of in stands for: a parameter of a
// fused computation stands for the fusion's operand.
func (a *Adaptor) operand(in *ir.Instruction, k int) *ir.Instruction {
	o := in.Operands[k]
	if out, ok := a.outside[o]; ok {
		return out
	}
	return o
}

// Grouped is the set of maps that reach one instruction.
type Grouped struct {
	Instr  *ir.Instruction
	Maps   []*affine.IndexingMap
	Extras []*Extras
}

// GroupedOutputToInput is XLA's ComputeGroupedOutputToInputIndexing: the
// maps from the elements of target to the elements of every instruction it
// reads within the adaptor, and of the operands the adaptor reads from
// outside, composed through every path, simplified and stripped of unused
// symbols. Target itself gets the identity. A target that is a parameter of
// a fused computation gives the identity on the fusion's operand alone.
func GroupedOutputToInput(a *Adaptor, target *ir.Instruction) (out []Grouped, err error) {
	defer recoverInternal(target.Opcode, &err)
	if !target.Shape.IsArray() {
		return nil, fmt.Errorf("grouped indexing: the target %s has the non-array shape %v", target.Name, target.Shape)
	}
	id := identityMap(target.Shape.Dims)
	if o, ok := a.outside[target]; ok {
		return []Grouped{{Instr: o, Maps: []*affine.IndexingMap{id}, Extras: []*Extras{nil}}}, nil
	}
	var order []*ir.Instruction
	maps := map[*ir.Instruction]*valueMaps{}
	at := func(in *ir.Instruction) *valueMaps {
		v, ok := maps[in]
		if !ok {
			v = &valueMaps{}
			maps[in] = v
			order = append(order, in)
		}
		return v
	}
	at(target).add(id, nil)
	i := slices.Index(a.Instrs, target)
	for ; i >= 0; i-- {
		in := a.Instrs[i]
		consumer, ok := maps[in]
		if !ok || consumer.empty() {
			continue
		}
		producer, err := OutputToInput(in, 0)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", in.Opcode, in.Name, err)
		}
		for k := range in.Operands {
			target := at(a.operand(in, k))
			if consumer.unknown || producer.Unknown[k] {
				target.setUnknown()
				continue
			}
			for ci, c := range consumer.maps {
				for pi, p := range producer.Operands[k] {
					m, e, err := composeIndexing(c, consumer.extras[ci], p, producer.ExtrasOf(k, pi))
					if err != nil {
						return nil, fmt.Errorf("%s %s, operand %d: %w", in.Opcode, in.Name, k, err)
					}
					target.add(m, e)
				}
			}
		}
	}
	for _, in := range order {
		v := maps[in]
		g := Grouped{Instr: in, Maps: v.maps, Extras: v.extras}
		if v.unknown {
			u := affine.Undefined()
			g.Maps, g.Extras = []*affine.IndexingMap{&u}, []*Extras{nil}
		}
		out = append(out, g)
	}
	return out, nil
}

// EpilogueInputToOutput is XLA's ComputeEpilogueInputToOutputIndexing: the
// map from the elements of parent to the elements of root, composing the
// input-to-output maps of the chain of users that leads from one to the
// other, each composition simplified and stripped of unused symbols.
func EpilogueInputToOutput(parent, root *ir.Instruction) (m *affine.IndexingMap, err error) {
	defer recoverInternal(root.Opcode, &err)
	chain := useChain(parent, root)
	if chain == nil {
		return nil, fmt.Errorf("epilogue: %s is not used, directly or not, by %s", parent.Name, root.Name)
	}
	if !parent.Shape.IsArray() {
		return nil, fmt.Errorf("epilogue: %s has the non-array shape %v", parent.Name, parent.Shape)
	}
	cur := identityMap(parent.Shape.Dims)
	var e *Extras
	for i := 1; i < len(chain); i++ {
		producer, user := chain[i-1], chain[i]
		k := slices.Index(user.Operands, producer)
		x, err := InputToOutput(user, k)
		if err != nil {
			return nil, err
		}
		if x.Unknown[0] || len(x.Operands[0]) == 0 {
			u := affine.Undefined()
			return &u, nil
		}
		cur, e, err = composeIndexing(cur, e, x.Operands[0][0], x.ExtrasOf(0, 0))
		if err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// useChain is a path of users from parent to root, both included, or nil.
func useChain(parent, root *ir.Instruction) []*ir.Instruction {
	if parent == root {
		return []*ir.Instruction{root}
	}
	// Search backwards from root through operands: the users of parent are
	// not recorded in the IR.
	seen := map[*ir.Instruction]bool{}
	var path []*ir.Instruction
	var find func(x *ir.Instruction) bool
	find = func(x *ir.Instruction) bool {
		if seen[x] {
			return false
		}
		seen[x] = true
		path = append(path, x)
		if x == parent {
			return true
		}
		for _, o := range x.Operands {
			if find(o) {
				return true
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if !find(root) {
		return nil
	}
	slices.Reverse(path)
	return path
}

package indexing

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// OutputToInput returns the maps from the elements of output `output` of the
// instruction (0 unless its result is a tuple) to the elements of each of
// its operands, as XLA's ComputeOutputToInputIndexing does. For a fusion or
// a call they are composed through the called computation, from the output
// of its root (the element `output` of a tuple root) back to each parameter.
// Runtime variables are named after the instructions that hold them, and
// those read from a constant or an iota — through the parameters of fusions
// to the operands that feed them — are replaced by their values.
func OutputToInput(in *ir.Instruction, output int) (x *Indexing, err error) {
	defer recoverInternal(in.Opcode, &err)
	g, err := singleGroup(in)
	if err != nil {
		return nil, err
	}
	return g.nodeOutputToInput(len(g.Nodes)-1, output)
}

// InputToOutput returns the maps from the elements of operand `operand` of
// the instruction to the elements of each of its outputs (one unless its
// result is a tuple), as XLA's ComputeInputToOutputIndexing does: for the
// ops it covers (see Op.InputToOutput); every output of other ops, fusions
// and calls included, is unknown.
func InputToOutput(in *ir.Instruction, operand int) (x *Indexing, err error) {
	defer recoverInternal(in.Opcode, &err)
	if operand < 0 || operand >= len(in.Operands) {
		return nil, fmt.Errorf("%s %s: operand %d does not exist: the instruction has %d", in.Opcode, in.Name, operand, len(in.Operands))
	}
	op := OpOf(in)
	return op.inputToOutput(operand)
}

// singleGroup is the group of one instruction reading its operands: one node
// per operand, with no operands of its own, then the instruction.
func singleGroup(in *ir.Instruction) (*Group, error) {
	g := &Group{}
	args := make([]int, len(in.Operands))
	for k, o := range in.Operands {
		g.Nodes = append(g.Nodes, Node{Op: Op{Opcode: o.Opcode, Attrs: &o.Attrs, Shape: o.Shape}, Instr: o})
		args[k] = k
	}
	n := Node{Op: OpOf(in), Args: args, Instr: in}
	if body := calledBody(in); body != nil {
		b, err := GroupOf(body)
		if err != nil {
			return nil, err
		}
		if err := checkBodyArity(in, b); err != nil {
			return nil, err
		}
		n.Body = b
	}
	g.Nodes = append(g.Nodes, n)
	return g, nil
}

// calledBody is the computation whose maps make up those of a fusion or a
// call, or nil.
func calledBody(in *ir.Instruction) *ir.Computation {
	switch in.Opcode {
	case ir.OpFusion:
		return in.Calls
	case ir.OpCall:
		return in.ToApply
	}
	return nil
}

func checkBodyArity(in *ir.Instruction, g *Group) error {
	if g.NumInputs != len(in.Operands) {
		return fmt.Errorf("%s %s: the called computation has %d parameters, the instruction %d operands", in.Opcode, in.Name, g.NumInputs, len(in.Operands))
	}
	return nil
}

// GroupOf returns the group of the instructions of a computation that its
// root depends on, the root last; parameters are the group's inputs, by
// parameter number. Fusions and calls inside it are analysed through their
// own bodies.
func GroupOf(c *ir.Computation) (*Group, error) {
	return groupOf(c, map[*ir.Computation]*Group{}, 0)
}

// maxNesting bounds the depth of fusions inside fusions, so that a cycle of
// calls in a malformed module cannot recurse forever.
const maxNesting = 64

func groupOf(c *ir.Computation, done map[*ir.Computation]*Group, depth int) (*Group, error) {
	if g, ok := done[c]; ok {
		return g, nil
	}
	if depth > maxNesting {
		return nil, fmt.Errorf("computation %s: calls nested deeper than %d", c.Name, maxNesting)
	}
	if c.Root == nil {
		return nil, fmt.Errorf("computation %s has no root", c.Name)
	}
	g := &Group{NumInputs: len(c.Parameters), Params: c.Parameters}
	index := map[*ir.Instruction]int{}
	state := map[*ir.Instruction]uint8{} // 1: being visited, 2: done
	var visit func(in *ir.Instruction) error
	visit = func(in *ir.Instruction) error {
		switch state[in] {
		case 1:
			return fmt.Errorf("computation %s: %s depends on itself", c.Name, in.Name)
		case 2:
			return nil
		}
		if in.Opcode == ir.OpParameter {
			n := in.ParameterNumber
			if n < 0 || n >= len(c.Parameters) || c.Parameters[n] != in {
				return fmt.Errorf("computation %s: parameter %s has number %d, not one of its %d parameters", c.Name, in.Name, n, len(c.Parameters))
			}
			index[in] = Input(n)
			state[in] = 2
			return nil
		}
		state[in] = 1
		for _, o := range in.Operands {
			if err := visit(o); err != nil {
				return err
			}
		}
		node := Node{Op: OpOf(in), Args: make([]int, len(in.Operands)), Instr: in}
		for k, o := range in.Operands {
			node.Args[k] = index[o]
		}
		if body := calledBody(in); body != nil {
			b, err := groupOf(body, done, depth+1)
			if err != nil {
				return err
			}
			if b.NumInputs != len(in.Operands) {
				return fmt.Errorf("%s %s: the called computation has %d parameters, the instruction %d operands", in.Opcode, in.Name, b.NumInputs, len(in.Operands))
			}
			node.Body = b
		}
		index[in] = len(g.Nodes)
		g.Nodes = append(g.Nodes, node)
		state[in] = 2
		return nil
	}
	if err := visit(c.Root); err != nil {
		return nil, err
	}
	if c.Root.Opcode == ir.OpParameter {
		// The group still needs a node for its result.
		g.Nodes = append(g.Nodes, Node{
			Op:   Op{Opcode: ir.OpCopy, Operands: []ir.Shape{c.Root.Shape}, Shape: c.Root.Shape},
			Args: []int{index[c.Root]},
		})
	}
	done[c] = g
	return g, nil
}

package indexing

import (
	"errors"
	"fmt"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// Group is a set of ops fused together — the body of a fusion, or the values
// the compiler puts in one kernel — whose maps compose from the group's
// result back to its inputs, as XLA's ComputeGroupedOutputToInputIndexing
// composes them through a fusion.
type Group struct {
	// Nodes are in topological order: every node after the nodes it reads.
	// The last node is the group's result.
	Nodes []Node
	// NumInputs is the number of values the group reads from outside.
	NumInputs int
}

// Node is one op of a group.
type Node struct {
	Op Op
	// Args says where each operand comes from: a node of the group, by
	// index, or, when negative, input -1-Args[i] of the group.
	Args []int
	// Body, if set, is the group the node runs (a nested fusion or call):
	// the node's maps are composed through it instead of taken from Op.
	Body *Group
}

// Input returns the Args entry for input k of the group.
func Input(k int) int { return -1 - k }

// valueMaps is what is known of the maps that reach one value: from the
// group's result to it (output to input), or from a group input to it.
type valueMaps struct {
	maps    []*affine.IndexingMap
	unknown bool
}

func (v *valueMaps) add(m *affine.IndexingMap) {
	if v.unknown {
		return
	}
	for _, o := range v.maps {
		if o == m || o.Equal(*m) {
			return
		}
	}
	v.maps = append(v.maps, m)
}

func (v *valueMaps) setUnknown() { v.unknown, v.maps = true, nil }

func (v *valueMaps) empty() bool { return !v.unknown && len(v.maps) == 0 }

// OutputToInput returns the maps from the elements of output `output` of the
// group's result to the elements of each input of the group, composed
// through every path and simplified; an input read through several distinct
// maps has them all, and one read through an op whose indexing is unknown is
// unknown. An input the result does not depend on has no maps.
func (g *Group) OutputToInput(output int) (x *Indexing, err error) {
	defer recoverInternal(ir.OpFusion, &err)
	return g.outputToInput(output)
}

func (g *Group) outputToInput(output int) (*Indexing, error) {
	if len(g.Nodes) == 0 {
		return nil, fmt.Errorf("group: no nodes")
	}
	if err := g.check(); err != nil {
		return nil, err
	}
	nodes := make([][]valueMaps, len(g.Nodes))
	for i := range g.Nodes {
		nodes[i] = make([]valueMaps, g.Nodes[i].Op.NumOutputs())
	}
	inputs := make([]valueMaps, g.NumInputs)
	at := func(arg, output int) *valueMaps {
		if arg < 0 {
			return &inputs[-1-arg]
		}
		return &nodes[arg][output]
	}
	root := len(g.Nodes) - 1
	out, err := g.Nodes[root].Op.outputShape(output)
	if err != nil {
		return nil, err
	}
	if !out.IsArray() {
		nodes[root][output].setUnknown()
	} else {
		nodes[root][output].add(identityMap(out.Dims))
	}
	for i := root; i >= 0; i-- {
		n := &g.Nodes[i]
		for o := range nodes[i] {
			consumer := &nodes[i][o]
			if consumer.empty() {
				continue
			}
			if n.Op.Opcode == ir.OpGetTupleElement && n.Body == nil {
				// The element's maps are those of one output of the tuple.
				if len(n.Args) != 1 {
					return nil, fmt.Errorf("get-tuple-element (node %d): %d operands", i, len(n.Args))
				}
				src := n.Args[0]
				idx := n.Op.attrs().TupleIndex
				if src >= 0 && (idx < 0 || idx >= len(nodes[src])) {
					return nil, fmt.Errorf("get-tuple-element (node %d): index %d of a tuple of %d", i, idx, len(nodes[src]))
				}
				if src < 0 || consumer.unknown {
					at(src, idx).setUnknown()
					continue
				}
				for _, m := range consumer.maps {
					nodes[src][idx].add(m)
				}
				continue
			}
			producer, err := n.outputToInput(o)
			if err != nil {
				return nil, fmt.Errorf("%s (node %d): %w", n.Op.Opcode, i, err)
			}
			if producer == nil {
				producer = unknownIndexing(len(n.Args))
			}
			for k, arg := range n.Args {
				target := at(arg, 0)
				if consumer.unknown || producer.Unknown[k] || (arg >= 0 && g.Nodes[arg].Op.Shape.IsTuple()) {
					target.setUnknown()
					continue
				}
				for _, c := range consumer.maps {
					for _, p := range producer.Operands[k] {
						m, err := compose(c, p)
						if err != nil {
							return nil, fmt.Errorf("%s (node %d), operand %d: %w", n.Op.Opcode, i, k, err)
						}
						target.add(m)
					}
				}
			}
		}
	}
	x := newIndexing(g.NumInputs)
	for k := range inputs {
		x.Operands[k], x.Unknown[k] = inputs[k].maps, inputs[k].unknown
	}
	return x, nil
}

// InputToOutput returns the maps from the elements of input `input` of the
// group to the elements of each output of the group's result, composed
// forwards through every path.
func (g *Group) InputToOutput(input int) (x *Indexing, err error) {
	defer recoverInternal(ir.OpFusion, &err)
	return g.inputToOutput(input)
}

func (g *Group) inputToOutput(input int) (*Indexing, error) {
	if len(g.Nodes) == 0 {
		return nil, fmt.Errorf("group: no nodes")
	}
	if input < 0 || input >= g.NumInputs {
		return nil, fmt.Errorf("group: input %d does not exist: the group has %d", input, g.NumInputs)
	}
	if err := g.check(); err != nil {
		return nil, err
	}
	// The shape of the input is that of an operand that reads it.
	var shape *ir.Shape
	for i := range g.Nodes {
		for k, a := range g.Nodes[i].Args {
			if a == Input(input) {
				shape = &g.Nodes[i].Op.Operands[k]
			}
		}
	}
	root := len(g.Nodes) - 1
	x := newIndexing(g.Nodes[root].Op.NumOutputs())
	if shape == nil {
		return x, nil
	}
	start := valueMaps{}
	if shape.IsArray() {
		start.add(identityMap(shape.Dims))
	} else {
		start.setUnknown()
	}
	nodes := make([][]valueMaps, len(g.Nodes))
	for i := range g.Nodes {
		n := &g.Nodes[i]
		nodes[i] = make([]valueMaps, n.Op.NumOutputs())
		for k, arg := range n.Args {
			var src *valueMaps
			switch {
			case arg == Input(input):
				src = &start
			case arg < 0:
				continue
			case n.Op.Opcode == ir.OpGetTupleElement && n.Body == nil:
				idx := n.Op.attrs().TupleIndex
				if idx < 0 || idx >= len(nodes[arg]) {
					return nil, fmt.Errorf("get-tuple-element (node %d): index %d of a tuple of %d", i, idx, len(nodes[arg]))
				}
				for _, m := range nodes[arg][idx].maps {
					nodes[i][0].add(m)
				}
				if nodes[arg][idx].unknown {
					nodes[i][0].setUnknown()
				}
				continue
			case g.Nodes[arg].Op.Shape.IsTuple():
				// A tuple read whole: what reaches it is unknown.
				for o := range nodes[arg] {
					if !nodes[arg][o].empty() {
						for o2 := range nodes[i] {
							nodes[i][o2].setUnknown()
						}
					}
				}
				continue
			default:
				src = &nodes[arg][0]
			}
			if src.empty() {
				continue
			}
			consumer, err := n.inputToOutput(k)
			if err != nil {
				return nil, fmt.Errorf("%s (node %d): %w", n.Op.Opcode, i, err)
			}
			if consumer == nil {
				consumer = unknownIndexing(len(nodes[i]))
			}
			for o := range nodes[i] {
				target := &nodes[i][o]
				if src.unknown || consumer.Unknown[o] {
					target.setUnknown()
					continue
				}
				for _, p := range src.maps {
					for _, c := range consumer.Operands[o] {
						m, err := compose(p, c)
						if err != nil {
							return nil, fmt.Errorf("%s (node %d), operand %d: %w", n.Op.Opcode, i, k, err)
						}
						target.add(m)
					}
				}
			}
		}
	}
	for o := range nodes[root] {
		x.Operands[o], x.Unknown[o] = nodes[root][o].maps, nodes[root][o].unknown
	}
	return x, nil
}

// compose is first.Compose(second), without the work when second is an
// identity whose domain holds every result of first — an elementwise op,
// the most common link of a fusion: first, already simplified, is then the
// composition.
func compose(first, second *affine.IndexingMap) (*affine.IndexingMap, error) {
	if isIdentity(second) && first.NumResults() == second.NumDims() {
		inside := true
		for i := range first.NumResults() {
			if !second.DimBound(i).ContainsInterval(first.RangeOf(first.Result(i))) {
				inside = false
				break
			}
		}
		if inside {
			return first, nil
		}
	}
	m, err := first.Compose(*second)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// isIdentity reports whether m is (d0, ..., dn) -> (d0, ..., dn) over a
// box, without variables or constraints of other kinds.
func isIdentity(m *affine.IndexingMap) bool {
	if m.NumRangeVars() != 0 || m.NumRuntimeVars() != 0 || m.NumConstraints() != 0 || m.NumResults() != m.NumDims() || m.IsKnownEmpty() {
		return false
	}
	for i := range m.NumResults() {
		if r := m.Result(i); r.Kind() != affine.KindDim || r.Index() != i {
			return false
		}
	}
	return true
}

// outputToInput is the node's own output-to-input indexing, through its
// body if it has one. A form of an op the analysis does not support gives
// (nil, nil): its operands are unknown, and the rest of the group is still
// analysed.
func (n *Node) outputToInput(output int) (*Indexing, error) {
	if n.Body == nil {
		return unsupportedAsUnknown(n.Op.outputToInput(output))
	}
	x, err := n.Body.outputToInput(output)
	if err != nil {
		return nil, err
	}
	if len(x.Operands) != len(n.Args) {
		return nil, fmt.Errorf("the body reads %d inputs, the node has %d operands", len(x.Operands), len(n.Args))
	}
	return x, nil
}

// inputToOutput is the node's own input-to-output indexing, through its
// body if it has one.
func (n *Node) inputToOutput(operand int) (*Indexing, error) {
	if n.Body == nil {
		return unsupportedAsUnknown(n.Op.inputToOutput(operand))
	}
	return n.Body.inputToOutput(operand)
}

func unsupportedAsUnknown(x *Indexing, err error) (*Indexing, error) {
	var u *UnsupportedError
	if errors.As(err, &u) {
		return nil, nil
	}
	return x, err
}

// check reports an error unless every argument names an earlier node or an
// input of the group.
func (g *Group) check() error {
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if len(n.Args) != len(n.Op.Operands) {
			return fmt.Errorf("group: node %d (%s) has %d arguments for %d operands", i, n.Op.Opcode, len(n.Args), len(n.Op.Operands))
		}
		for k, a := range n.Args {
			if a >= i || -1-a >= g.NumInputs {
				return fmt.Errorf("group: operand %d of node %d (%s) reads %d, which is neither an earlier node nor one of the %d inputs", k, i, n.Op.Opcode, a, g.NumInputs)
			}
		}
	}
	return nil
}

// Chain composes the output-to-input maps along a chain of ops, each reading
// the one before: ops[0] is the producer, and ops[i+1] reads ops[i] as its
// operand via[i]. It returns the maps from the elements of output 0 of the
// last op (the consumer) to the elements of each operand of the producer.
func Chain(ops []Op, via []int) (*Indexing, error) {
	if len(ops) == 0 || len(via) != len(ops)-1 {
		return nil, fmt.Errorf("chain: %d ops need %d links, found %d", len(ops), max(len(ops)-1, 0), len(via))
	}
	g := Group{Nodes: make([]Node, len(ops))}
	inputs := 0
	fresh := func() int { inputs++; return Input(inputs - 1) }
	for i := range ops {
		args := make([]int, len(ops[i].Operands))
		if i > 0 && (via[i-1] < 0 || via[i-1] >= len(args)) {
			return nil, fmt.Errorf("chain: op %d (%s) has no operand %d", i, ops[i].Opcode, via[i-1])
		}
		for k := range args {
			if i > 0 && k == via[i-1] {
				args[k] = i - 1
			} else {
				args[k] = fresh()
			}
		}
		g.Nodes[i] = Node{Op: ops[i], Args: args}
	}
	g.NumInputs = inputs
	x, err := g.OutputToInput(0)
	if err != nil {
		return nil, err
	}
	n := len(ops[0].Operands)
	return &Indexing{Operands: x.Operands[:n], Unknown: x.Unknown[:n]}, nil
}

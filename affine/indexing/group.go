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
	// Params, when the group was built from a computation, are its
	// parameters, by number: they name runtime variables read from inputs.
	Params []*ir.Instruction
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
	// Instr, when the group was built from a computation, is the
	// instruction of the node.
	Instr *ir.Instruction
}

// Input returns the Args entry for input k of the group.
func Input(k int) int { return -1 - k }

// opaque is the value of a runtime variable that comes from inside a nested
// group: it cannot be resolved further.
const opaque = -1 << 30

// valueMaps is what is known of the maps that reach one value: from the
// group's result to it (output to input), or from a group input to it.
type valueMaps struct {
	maps    []*affine.IndexingMap
	extras  []*Extras
	unknown bool
}

func (v *valueMaps) add(m *affine.IndexingMap, e *Extras) {
	if v.unknown {
		return
	}
	for i, o := range v.maps {
		if (o == m || o.Equal(*m)) && e.equal(v.extras[i]) {
			return
		}
	}
	v.maps = append(v.maps, m)
	v.extras = append(v.extras, e)
}

func (v *valueMaps) setUnknown() { v.unknown, v.maps, v.extras = true, nil, nil }

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
	root := len(g.Nodes) - 1
	out, err := g.Nodes[root].Op.outputShape(output)
	if err != nil {
		return nil, err
	}
	var start valueMaps
	if !out.IsArray() {
		start.setUnknown()
	} else {
		start.add(identityMap(out.Dims), nil)
	}
	nodes, inputs, err := g.propagate(root, output, start)
	if err != nil {
		return nil, err
	}
	_ = nodes
	x := newIndexing(g.NumInputs)
	for k := range inputs {
		x.Operands[k], x.Extras[k], x.Unknown[k] = inputs[k].maps, inputs[k].extras, inputs[k].unknown
	}
	return x, nil
}

// propagate composes maps from output `output` of node `from` back through
// the nodes it depends on (XLA's ComputeGroupedOutputToInputIndexing): it
// returns the maps that reach every node and every input.
func (g *Group) propagate(from, output int, start valueMaps) ([][]valueMaps, []valueMaps, error) {
	if err := g.check(); err != nil {
		return nil, nil, err
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
	nodes[from][output] = start
	for i := from; i >= 0; i-- {
		n := &g.Nodes[i]
		for o := range nodes[i] {
			consumer := &nodes[i][o]
			if consumer.empty() {
				continue
			}
			if n.Op.Opcode == ir.OpGetTupleElement && n.Body == nil {
				// The element's maps are those of one output of the tuple.
				if len(n.Args) != 1 {
					return nil, nil, fmt.Errorf("get-tuple-element (node %d): %d operands", i, len(n.Args))
				}
				src := n.Args[0]
				idx := n.Op.attrs().TupleIndex
				if src >= 0 && (idx < 0 || idx >= len(nodes[src])) {
					return nil, nil, fmt.Errorf("get-tuple-element (node %d): index %d of a tuple of %d", i, idx, len(nodes[src]))
				}
				if src < 0 || consumer.unknown {
					at(src, idx).setUnknown()
					continue
				}
				for j, m := range consumer.maps {
					nodes[src][idx].add(m, consumer.extras[j])
				}
				continue
			}
			producer, err := g.nodeOutputToInput(i, o)
			if err != nil {
				return nil, nil, fmt.Errorf("%s (node %d): %w", n.Op.Opcode, i, err)
			}
			for k, arg := range n.Args {
				target := at(arg, 0)
				if consumer.unknown || producer.Unknown[k] || (arg >= 0 && g.Nodes[arg].Op.Shape.IsTuple()) {
					target.setUnknown()
					continue
				}
				for ci, c := range consumer.maps {
					for pi, p := range producer.Operands[k] {
						m, e, err := composeIndexing(c, consumer.extras[ci], p, producer.ExtrasOf(k, pi))
						if err != nil {
							return nil, nil, fmt.Errorf("%s (node %d), operand %d: %w", n.Op.Opcode, i, k, err)
						}
						target.add(m, e)
					}
				}
			}
		}
	}
	return nodes, inputs, nil
}

// nodeOutputToInput is the output-to-input indexing of node i, its runtime
// variables resolved to values of the group (and folded where they are
// constants or iotas of the group). A form of an op the analysis does not
// support makes its operands unknown, and the rest of the group is still
// analysed.
func (g *Group) nodeOutputToInput(i, output int) (*Indexing, error) {
	n := &g.Nodes[i]
	var x *Indexing
	var err error
	if n.Body == nil {
		x, err = unsupportedAsUnknown(n.Op.outputToInput(output))
	} else {
		x, err = n.Body.outputToInput(output)
		if err == nil && len(x.Operands) != len(n.Args) {
			err = fmt.Errorf("the body reads %d inputs, the node has %d operands", len(x.Operands), len(n.Args))
		}
	}
	if err != nil {
		return nil, err
	}
	if x == nil {
		return unknownIndexing(len(n.Args)), nil
	}
	g.resolveRuntimeVars(n, x)
	return x, nil
}

// resolveRuntimeVars rewrites the runtime variables of the node's indexing in
// terms of the group's values, names them after the instructions that hold
// them, and folds those that are constants or iotas of the group.
func (g *Group) resolveRuntimeVars(n *Node, x *Indexing) {
	for k, maps := range x.Operands {
		ex := x.extras(k)
		for i, m := range maps {
			e := ex[i]
			if e == nil || len(e.RuntimeVars) == 0 {
				continue
			}
			r := &Extras{ReplicaID: e.ReplicaID, RuntimeVars: make([]RuntimeVar, len(e.RuntimeVars))}
			for j, v := range e.RuntimeVars {
				switch {
				case n.Body != nil && v.Operand < 0 && v.Operand != opaque:
					// An input of the body is an operand of the node.
					v.Operand = n.Args[-1-v.Operand]
				case n.Body != nil:
					v.Operand = opaque
				case v.Operand >= 0 && v.Operand < len(n.Args):
					arg := n.Args[v.Operand]
					if v.Origin == nil {
						v.Origin = g.instrOf(arg)
					}
					v.Operand = arg
				default:
					v.Operand = opaque
				}
				r.RuntimeVars[j] = v
			}
			nm, ne := g.foldRuntimeVars(*m, r)
			maps[i], ex[i] = nm, ne
		}
	}
}

// instrOf is the instruction of a value of the group, when known.
func (g *Group) instrOf(v int) *ir.Instruction {
	switch {
	case v >= 0 && v < len(g.Nodes):
		return g.Nodes[v].Instr
	case v < 0 && v != opaque && -1-v < len(g.Params):
		return g.Params[-1-v]
	}
	return nil
}

// foldRuntimeVars replaces the runtime variables that are elements of a
// constant or of an iota of the group by their values, as XLA's
// OptimizeRTVar does: an iota by the index its map gives along the iota
// dimension, a constant by its element when that lies within the variable's
// range (one outside is kept, for the runtime to clamp).
func (g *Group) foldRuntimeVars(m affine.IndexingMap, e *Extras) (*affine.IndexingMap, *Extras) {
	folded := false
	for j, v := range e.RuntimeVars {
		if v.Operand < 0 || v.Operand >= len(g.Nodes) || j >= m.NumRuntimeVars() {
			continue
		}
		if r, ok := runtimeValue(&g.Nodes[v.Operand].Op, v.Map, m.RuntimeVarBound(j)); ok {
			sub := make([]affine.Expr, m.NumRuntimeVars())
			for i := range sub {
				sub[i] = affine.RuntimeVar(i)
			}
			sub[j] = r
			res := m.Results()
			for i, x := range res {
				res[i] = x.Replace(nil, nil, sub)
			}
			nm, err := affine.NewIndexingMapVars(res, m.DimVars(), m.RangeVars(), m.RuntimeVars(), constraintsWith(m, sub)...)
			if err == nil {
				m = nm
				folded = true
			}
		}
	}
	if !folded {
		return &m, e
	}
	m, e = removeUnusedSymbols(m, e)
	return &m, e
}

func constraintsWith(m affine.IndexingMap, rt []affine.Expr) []affine.Constraint {
	cs := m.Constraints()
	for i := range cs {
		cs[i].Expr = cs[i].Expr.Replace(nil, nil, rt)
	}
	return cs
}

// runtimeValue is the value of a runtime variable read from the op (an iota
// or a constant) through map rt, when it is known without running.
func runtimeValue(op *Op, rt *affine.IndexingMap, bound affine.Interval) (affine.Expr, bool) {
	switch op.Opcode {
	case ir.OpIota:
		d := op.attrs().IotaDimension
		if d < 0 || d >= rt.NumResults() || rt.NumRangeVars() != 0 || rt.NumRuntimeVars() != 0 {
			return affine.Expr{}, false
		}
		return rt.Result(d), true
	case ir.OpConstant:
		lit := op.attrs().Literal
		if lit == nil || !op.Shape.IsArray() || rt.NumResults() != len(op.Shape.Dims) {
			return affine.Expr{}, false
		}
		s := affine.Simplify(*rt)
		idx := 0
		for i := range s.NumResults() {
			c, ok := s.Result(i).Constant()
			if !ok || c < 0 || c >= int64(op.Shape.Dims[i]) {
				return affine.Expr{}, false
			}
			idx = idx*op.Shape.Dims[i] + int(c)
		}
		if !op.Shape.Elem.IsInteger() {
			return affine.Expr{}, false
		}
		v := lit.Int64At(idx)
		if !bound.Contains(v) {
			return affine.Expr{}, false
		}
		return affine.Const(v), true
	}
	return affine.Expr{}, false
}

// InputToOutput returns the maps from the elements of input `input` of the
// group to the elements of each output of the group's result, composed
// forwards through every path from the input-to-output maps of each op (an
// op XLA has none for makes what it reaches unknown). XLA composes only
// epilogues this way; see EpilogueInputToOutput.
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
		start.add(identityMap(shape.Dims), nil)
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
					nodes[i][0].add(m, nil)
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
			consumer, err := g.nodeInputToOutput(i, k)
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
				for pi, p := range src.maps {
					for ci, c := range consumer.Operands[o] {
						m, e, err := composeIndexing(p, src.extras[pi], c, consumer.ExtrasOf(o, ci))
						if err != nil {
							return nil, fmt.Errorf("%s (node %d), operand %d: %w", n.Op.Opcode, i, k, err)
						}
						target.add(m, e)
					}
				}
			}
		}
	}
	for o := range nodes[root] {
		x.Operands[o], x.Extras[o], x.Unknown[o] = nodes[root][o].maps, nodes[root][o].extras, nodes[root][o].unknown
	}
	return x, nil
}

// nodeInputToOutput is the input-to-output indexing of node i from its
// operand k, through its body if it has one.
func (g *Group) nodeInputToOutput(i, k int) (*Indexing, error) {
	n := &g.Nodes[i]
	switch {
	case n.Body != nil:
		return n.Body.inputToOutput(k)
	case n.Op.Opcode == ir.OpTuple:
		// Within a group, operand k of a tuple is its output k (XLA's
		// tuple indexing lists that one output alone).
		x := newIndexing(n.Op.NumOutputs())
		if s := n.Op.Operands[k]; s.IsArray() && k < len(x.Operands) {
			x.set(k, identityMap(s.Dims), nil)
		} else if k < len(x.Operands) {
			x.setUnknown(k)
		}
		return x, nil
	}
	return unsupportedAsUnknown(n.Op.inputToOutput(k))
}

// composeIndexing is XLA's ComposeOperandIndexing followed by Simplify and
// RemoveUnusedSymbols: the map of the consumer c composed with the map of
// the producer p, the consumer's runtime variables followed by the
// producer's (whose maps are composed with c), and the replica map of
// whichever has one.
func composeIndexing(c *affine.IndexingMap, ce *Extras, p *affine.IndexingMap, pe *Extras) (*affine.IndexingMap, *Extras, error) {
	if ce.empty() && pe.empty() {
		if m, ok := composeWithIdentity(c, p); ok {
			return m, nil, nil
		}
	}
	raw, e, err := composeOperandIndexing(c, ce, p, pe)
	if err != nil || raw.IsUndefined() {
		return raw, e, err
	}
	s := affine.Simplify(*raw)
	s, e = removeUnusedSymbols(s, e)
	return &s, e, nil
}

// composeOperandIndexing is XLA's ComposeOperandIndexing: c then p, with
// their extras combined, not simplified.
func composeOperandIndexing(c *affine.IndexingMap, ce *Extras, p *affine.IndexingMap, pe *Extras) (*affine.IndexingMap, *Extras, error) {
	raw, err := affine.ComposeIndexingMaps(*c, *p)
	if err != nil {
		return nil, nil, err
	}
	var e *Extras
	if !ce.empty() || !pe.empty() {
		e = &Extras{}
		if ce != nil {
			e.RuntimeVars = append(e.RuntimeVars, ce.RuntimeVars...)
		}
		if pe != nil {
			for _, v := range pe.RuntimeVars {
				vm, err := affine.ComposeIndexingMaps(*c, *v.Map)
				if err != nil {
					return nil, nil, err
				}
				e.RuntimeVars = append(e.RuntimeVars, RuntimeVar{Map: &vm, Operand: v.Operand, Origin: v.Origin})
			}
		}
		switch {
		case ce != nil && ce.ReplicaID != nil && pe != nil && pe.ReplicaID != nil:
			// Chained collectives are not supported: XLA gives up.
			u := affine.Undefined()
			return &u, nil, nil
		case ce != nil && ce.ReplicaID != nil:
			e.ReplicaID = ce.ReplicaID
		case pe != nil && pe.ReplicaID != nil:
			r, err := affine.ComposeIndexingMaps(*c, *pe.ReplicaID)
			if err != nil {
				return nil, nil, err
			}
			e.ReplicaID = &r
		}
	}
	return &raw, e, nil
}

// composeWithIdentity is the composition of c with an identity p whose
// domain holds every result of c — an elementwise op, the most common link
// of a fusion — when Simplify would leave c as it is.
func composeWithIdentity(c, p *affine.IndexingMap) (*affine.IndexingMap, bool) {
	if !isIdentity(p) || c.NumResults() != p.NumDims() {
		return nil, false
	}
	for i := range c.NumResults() {
		if !p.DimBound(i).ContainsInterval(c.RangeOf(c.Result(i))) {
			return nil, false
		}
	}
	s, changed := affine.SimplifyMap(*c, affine.SimplifyOptions{})
	if changed {
		return nil, false
	}
	s, removed := s.RemoveUnusedSymbols()
	for _, flags := range [][]bool{removed.Range, removed.Runtime} {
		for _, f := range flags {
			if f {
				return nil, false
			}
		}
	}
	return c, true
}

// isIdentity reports whether m is (d0, ..., dn) -> (d0, ..., dn) over a
// box, without variables or constraints of other kinds.
func isIdentity(m *affine.IndexingMap) bool {
	if m.NumRangeVars() != 0 || m.NumRuntimeVars() != 0 || m.NumConstraints() != 0 || m.NumResults() != m.NumDims() || m.IsKnownEmpty() || m.IsUndefined() {
		return false
	}
	for i := range m.NumResults() {
		if r := m.Result(i); r.Kind() != affine.KindDim || r.Index() != i {
			return false
		}
	}
	return true
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
	return &Indexing{Operands: x.Operands[:n], Unknown: x.Unknown[:n], Extras: x.Extras[:n]}, nil
}

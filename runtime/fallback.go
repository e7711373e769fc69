package runtime

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// fallbackStep runs one value through the reference evaluator, on views of
// its buffers. It is the implementation of every op without a dedicated one:
// always correct (it is the oracle), but it allocates and is slow, so Stats
// reports it as "reference" and the example models never use it.
type fallbackStep struct {
	module *ir.Module
	inst   *ir.Instruction
	params []fallbackParam // one per operand of the instruction
	out    []loc           // the result's array leaves
	shapes []ir.Shape      // their shapes
}

// fallbackParam is one operand: its shape and its array leaves.
type fallbackParam struct {
	shape  ir.Shape
	leaves []loc
}

func (c *compiler) fallbackStep(k *sched.Kernel) (step, error) {
	if len(k.Values) != 1 {
		return c.fallbackGroupStep(k)
	}
	v := k.Root
	if _, isIR := v.Op.IR(); !isIR {
		return nil, unsupportedError(fmt.Errorf("op %s has no implementation", v.Op))
	}
	if !eval.Supported(mustIR(v.Op)) {
		return nil, unsupportedError(fmt.Errorf("op %q is not supported by the compiler", v.Op))
	}
	if mustIR(v.Op) == ir.OpCustomCall {
		if err := checkCustomCall(v); err != nil {
			return nil, err
		}
	}
	m, inst, err := ssa.RaiseValue(v)
	if err != nil {
		return nil, err
	}
	s := &fallbackStep{module: m, inst: inst}
	// EvalInstruction takes one literal per operand of the instruction, so
	// a value used twice (map(x, x)) is passed twice.
	for _, a := range v.Args {
		i := indexOf(k.Inputs, a)
		if i < 0 {
			return nil, fmt.Errorf("argument %v has no buffer", a)
		}
		s.params = append(s.params, fallbackParam{shape: a.Shape, leaves: c.leaves(k.In[i])})
	}
	s.out = c.leaves(k.Out)
	s.shapes = leafShapes(v.Shape)
	return s, nil
}

func (s *fallbackStep) name() string { return "reference" }

func (s *fallbackStep) exec(fr *frame) error {
	ops := make([]*ir.Literal, len(s.params))
	for i, p := range s.params {
		l, _, err := literalOf(fr, p.shape, p.leaves)
		if err != nil {
			return err
		}
		ops[i] = l
	}
	res, err := eval.EvalInstruction(s.module, s.inst, eval.Options{Context: fr.ctx}, ops...)
	if err != nil {
		return err
	}
	leaves := literalLeaves(res, nil)
	for i, l := range leaves {
		copy(fr.bytes(s.out[i]), l.Bytes())
	}
	return nil
}

// literalOf builds a literal of shape s over the frame memory of its leaves
// (consumed from the front); it returns the unconsumed leaves.
func literalOf(fr *frame, s ir.Shape, leaves []loc) (*ir.Literal, []loc, error) {
	if s.IsTuple() {
		elems := make([]*ir.Literal, len(s.Tuple))
		for i, e := range s.Tuple {
			var err error
			if elems[i], leaves, err = literalOf(fr, e, leaves); err != nil {
				return nil, nil, err
			}
		}
		return ir.NewTupleLiteral(elems...), leaves, nil
	}
	if s.IsToken() {
		return ir.NewTokenLiteral(), leaves[1:], nil
	}
	l, err := ir.NewLiteralView(s.WithoutLayout(), fr.bytes(leaves[0]))
	return l, leaves[1:], err
}

// literalLeaves lists a literal's array leaves, depth first.
func literalLeaves(l *ir.Literal, out []*ir.Literal) []*ir.Literal {
	if l.Shape().IsTuple() {
		for _, e := range l.Elements() {
			out = literalLeaves(e, out)
		}
		return out
	}
	return append(out, l)
}

// leafShapes lists a shape's array (and token) leaves, depth first.
func leafShapes(s ir.Shape) []ir.Shape {
	if !s.IsTuple() {
		return []ir.Shape{s}
	}
	var out []ir.Shape
	for _, e := range s.Tuple {
		out = append(out, leafShapes(e)...)
	}
	return out
}

func mustIR(op ssa.Op) ir.Opcode {
	o, _ := op.IR()
	return o
}

func indexOf[T comparable](s []T, x T) int {
	for i, y := range s {
		if y == x {
			return i
		}
	}
	return -1
}

// named is implemented by steps to report their implementation in Stats.
type named interface{ name() string }

func implName(s step) string {
	if n, ok := s.(named); ok {
		return n.name()
	}
	return fmt.Sprintf("%T", s)
}

// fallbackGroupStep runs a fused kernel that no dedicated implementation
// took value by value through the reference evaluator, keeping the fused
// intermediates as literals.
type fallbackGroupStep struct {
	parts []fallbackPart
	out   []loc
}

// fallbackPart is one value of the group: its raised instruction and where
// each of its arguments comes from: an earlier part, or a kernel
// input's leaves.
type fallbackPart struct {
	module *ir.Module
	inst   *ir.Instruction
	from   []int // index of an earlier part, or -1
	param  []fallbackParam
}

func (c *compiler) fallbackGroupStep(k *sched.Kernel) (step, error) {
	s := &fallbackGroupStep{out: c.leaves(k.Out)}
	index := map[*ssa.Value]int{}
	for i, v := range k.Values {
		if _, isIR := v.Op.IR(); !isIR || !eval.Supported(mustIR(v.Op)) {
			return nil, fmt.Errorf("op %s has no implementation", v.Op)
		}
		m, inst, err := ssa.RaiseValue(v)
		if err != nil {
			return nil, err
		}
		part := fallbackPart{module: m, inst: inst}
		for _, a := range v.Args {
			if j, ok := index[a]; ok {
				part.from = append(part.from, j)
				part.param = append(part.param, fallbackParam{})
				continue
			}
			in := indexOf(k.Inputs, a)
			if in < 0 {
				return nil, fmt.Errorf("argument %v has no buffer", a)
			}
			part.from = append(part.from, -1)
			part.param = append(part.param, fallbackParam{shape: a.Shape, leaves: c.leaves(k.In[in])})
		}
		index[v] = i
		s.parts = append(s.parts, part)
	}
	return s, nil
}

func (s *fallbackGroupStep) name() string { return "reference" }

func (s *fallbackGroupStep) exec(fr *frame) error {
	results := make([]*ir.Literal, len(s.parts))
	for i, p := range s.parts {
		ops := make([]*ir.Literal, len(p.from))
		for j, from := range p.from {
			if from >= 0 {
				ops[j] = results[from]
				continue
			}
			l, _, err := literalOf(fr, p.param[j].shape, p.param[j].leaves)
			if err != nil {
				return err
			}
			ops[j] = l
		}
		res, err := eval.EvalInstruction(p.module, p.inst, eval.Options{Context: fr.ctx}, ops...)
		if err != nil {
			return err
		}
		results[i] = res
	}
	for i, l := range literalLeaves(results[len(results)-1], nil) {
		copy(fr.bytes(s.out[i]), l.Bytes())
	}
	return nil
}

package eval

// Control flow and called computations: while, conditional, call, fusion
// and map.
//
// Rules following XLA: a conditional with an out-of-range branch index runs
// the last branch; a while loop that has run Options.MaxWhileIterations
// iterations and still wants another fails instead of looping on.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() {
	register(evalWhile, ir.OpWhile)
	register(evalConditional, ir.OpConditional)
	register(evalCall, ir.OpCall)
	register(evalFusion, ir.OpFusion)
	register(evalMap, ir.OpMap)
}

func evalWhile(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(args))
	}
	if in.Condition == nil || in.Body == nil {
		return nil, fmt.Errorf("while needs a condition and a body computation")
	}
	state := args[0]
	for iter := 0; ; iter++ {
		if err := e.checkContext(); err != nil {
			return nil, err
		}
		c, err := e.call(in.Condition, []*ir.Literal{state})
		if err != nil {
			return nil, fmt.Errorf("condition %s: %w", in.Condition.Name, err)
		}
		if !c.Shape().IsScalar() || c.Shape().Elem != ir.PRED {
			return nil, fmt.Errorf("condition %s returned %v, expected pred[]", in.Condition.Name, c.Shape())
		}
		if !ir.Values[bool](c)[0] {
			return state, nil
		}
		if iter >= e.opts.MaxWhileIterations {
			return nil, fmt.Errorf("while loop did not finish within %d iterations (Options.MaxWhileIterations)", e.opts.MaxWhileIterations)
		}
		state, err = e.call(in.Body, []*ir.Literal{state})
		if err != nil {
			return nil, fmt.Errorf("body %s, iteration %d: %w", in.Body.Name, iter, err)
		}
	}
}

func evalConditional(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("expected a selector and branch operands, found %d operands", len(args))
	}
	sel := args[0]
	nb := len(in.Branches)
	if nb == 0 || len(args)-1 != nb {
		return nil, fmt.Errorf("%d branch computations for %d branch operands", nb, len(args)-1)
	}
	if !sel.Shape().IsScalar() {
		return nil, fmt.Errorf("selector has shape %v, expected a pred or s32 scalar", sel.Shape())
	}
	var b int
	switch t := sel.Shape().Elem; {
	case t == ir.PRED:
		if nb != 2 {
			return nil, fmt.Errorf("a pred selector needs 2 branches, found %d", nb)
		}
		if !ir.Values[bool](sel)[0] {
			b = 1 // Branches are [true_computation, false_computation].
		}
	case t.IsInteger():
		v, err := scalarIndex(sel, 0)
		if err != nil {
			return nil, err
		}
		b = int(v)
		if v < 0 || v >= int64(nb) {
			b = nb - 1
		}
	default:
		return nil, fmt.Errorf("selector has element type %v, expected pred or s32", t)
	}
	c := in.Branches[b]
	out, err := e.call(c, []*ir.Literal{args[1+b]})
	if err != nil {
		return nil, fmt.Errorf("branch %d (%s): %w", b, c.Name, err)
	}
	return out, nil
}

func evalCall(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if in.ToApply == nil {
		return nil, fmt.Errorf("call has no to_apply computation")
	}
	out, err := e.call(in.ToApply, args)
	if err != nil {
		return nil, fmt.Errorf("computation %s: %w", in.ToApply.Name, err)
	}
	return out, nil
}

func evalFusion(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if in.Calls == nil {
		return nil, fmt.Errorf("fusion has no calls= computation")
	}
	out, err := e.call(in.Calls, args)
	if err != nil {
		return nil, fmt.Errorf("fused computation %s: %w", in.Calls.Name, err)
	}
	return out, nil
}

// ---- map ------------------------------------------------------------------

func evalMap(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	c := in.ToApply
	if c == nil {
		return nil, fmt.Errorf("map has no to_apply computation")
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("map has no operands")
	}
	dims := args[0].Shape().Dims
	for i, o := range args {
		if !o.Shape().IsArray() || !ir.SameDimensions(o.Shape(), args[0].Shape()) {
			return nil, fmt.Errorf("operand %d has shape %v, expected dimensions %v", i, o.Shape(), dims)
		}
	}
	if len(in.Dimensions) != 0 {
		for i, d := range in.Dimensions {
			if d != i || len(in.Dimensions) != len(dims) {
				return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
					Detail: fmt.Sprintf("dimensions=%v: only maps over every dimension in order are defined", in.Dimensions)}
			}
		}
	}
	f, err := e.function(c)
	if err != nil {
		return nil, err
	}
	p, err := ops.NewMap(elementTypes(args), in.Shape.Elem, f)
	if err != nil {
		return nil, err
	}
	out, err := newResult(in.Shape, dims)
	if err != nil {
		return nil, err
	}
	if err := p.Run(out.Bytes(), arrayBytes(args), out.ElementCount(), make([]byte, p.ScratchBytes())); err != nil {
		return nil, err
	}
	return out, nil
}

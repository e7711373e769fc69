package eval

// dot (DotGeneral), as ir/ops defines it (dot.go, accumulate.go).

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() { register(evalDot, ir.OpDot) }

func evalDot(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	args, err := denseOperands(in, args)
	if err != nil {
		return nil, err
	}
	l, r := args[0], args[1]
	if !l.Shape().IsArray() || !r.Shape().IsArray() {
		return nil, fmt.Errorf("operands must be arrays, found %v and %v", l.Shape(), r.Shape())
	}
	p, err := ops.NewDot(l.Shape().Elem, l.Shape().Dims, r.Shape().Elem, r.Shape().Dims, in.DotDims, in.Shape.Elem)
	if err != nil {
		return nil, unsupported(in, err)
	}
	out, err := newResult(in.Shape, p.OutDims)
	if err != nil {
		return nil, err
	}
	p.Run(out.Bytes(), l.Bytes(), r.Bytes(), make([]byte, p.WorkBytes()))
	return out, nil
}

func init() { register(evalScaledDot, ir.OpScaledDot) }

// evalScaledDot is scaled-dot, as ir/ops defines it (scaled_dot.go).
func evalScaledDot(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 4 {
		return nil, fmt.Errorf("expected 4 operands (lhs, rhs, lhs scale, rhs scale), found %d", len(args))
	}
	for i, a := range args {
		if !a.Shape().IsArray() {
			return nil, fmt.Errorf("operand %d has shape %v, expected an array", i, a.Shape())
		}
	}
	l, r, ls, rs := args[0].Shape(), args[1].Shape(), args[2].Shape(), args[3].Shape()
	p, err := ops.NewScaledDot(l.Elem, l.Dims, r.Elem, r.Dims, ls.Elem, ls.Dims, rs.Elem, rs.Dims, in.DotDims, in.Shape.Elem)
	if err != nil {
		return nil, unsupported(in, err)
	}
	out, err := newResult(in.Shape, p.OutDims)
	if err != nil {
		return nil, err
	}
	p.Run(out.Bytes(), args[0].Bytes(), args[1].Bytes(), args[2].Bytes(), args[3].Bytes(), make([]byte, p.WorkBytes()))
	return out, nil
}

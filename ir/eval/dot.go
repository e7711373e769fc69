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

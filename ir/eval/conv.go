package eval

// convolution, as ir/ops defines it (conv.go, accumulate.go).

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() { register(evalConvolution, ir.OpConvolution) }

func evalConvolution(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	args, err := denseOperands(in, args)
	if err != nil {
		return nil, err
	}
	l, r := args[0], args[1]
	if !l.Shape().IsArray() || !r.Shape().IsArray() {
		return nil, fmt.Errorf("operands must be arrays, found %v and %v", l.Shape(), r.Shape())
	}
	p, err := ops.NewConvolution(l.Shape().Elem, l.Shape().Dims, r.Shape().Elem, r.Shape().Dims, in.Shape.Elem,
		in.ConvDims, in.Window, in.FeatureGroupCount, in.BatchGroupCount)
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

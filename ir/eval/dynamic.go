package eval

// get-dimension-size and set-dimension-size on bounded dynamic shapes, as
// ir/ops defines them (dynamic.go). A literal of a dynamic shape holds
// exactly its actual elements: its Dims are the actual sizes and Dynamic
// marks which dimensions are dynamic.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() {
	register(evalGetDimensionSize, ir.OpGetDimensionSize)
	register(evalSetDimensionSize, ir.OpSetDimensionSize)
}

func evalGetDimensionSize(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 1 || !args[0].Shape().IsArray() {
		return nil, fmt.Errorf("expected one array operand")
	}
	d, err := oneDimension(in, args[0].Shape().Rank())
	if err != nil {
		return nil, err
	}
	if in.Shape.Elem != ir.S32 || !in.Shape.IsScalar() {
		return nil, fmt.Errorf("result shape %v, expected s32[]", in.Shape)
	}
	return ir.ScalarLiteral(int32(args[0].Shape().Dims[d])), nil
}

func oneDimension(in *ir.Instruction, rank int) (int, error) {
	if len(in.Dimensions) != 1 {
		return 0, fmt.Errorf("expected one dimension, found %v", in.Dimensions)
	}
	d := in.Dimensions[0]
	if d < 0 || d >= rank {
		return 0, fmt.Errorf("dimension %d is out of range for rank %d", d, rank)
	}
	return d, nil
}

func evalSetDimensionSize(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 2 || !args[0].Shape().IsArray() {
		return nil, fmt.Errorf("expected an array operand and a size")
	}
	x, sz := args[0], args[1]
	d, err := oneDimension(in, x.Shape().Rank())
	if err != nil {
		return nil, err
	}
	if !sz.Shape().IsScalar() || sz.Shape().Elem != ir.S32 {
		return nil, fmt.Errorf("size has shape %v, expected s32[]", sz.Shape())
	}
	if in.Shape.Rank() != x.Shape().Rank() || in.Shape.Elem != x.Shape().Elem {
		return nil, fmt.Errorf("result shape %v, operand %v", in.Shape, x.Shape())
	}
	dims, err := ops.SetDimensionSize(x.Shape().Dims, d, int(ir.Values[int32](sz)[0]), in.Shape.Dims[d])
	if err != nil {
		return nil, err
	}
	dynamic := make([]bool, len(dims))
	for i := range dynamic {
		dynamic[i] = in.Shape.IsDynamicDim(i) || (i != d && x.Shape().IsDynamicDim(i))
	}
	dynamic[d] = true
	out, err := ir.NewLiteral(ir.MakeDynamicShape(x.Shape().Elem, dims, dynamic))
	if err != nil {
		return nil, err
	}
	ops.CopyPrefix(out.Bytes(), x.Bytes(), x.Shape().Elem.ByteSize(), x.Shape().Dims, dims, d)
	return out, nil
}

package eval

// get-dimension-size and set-dimension-size on bounded dynamic shapes. A
// literal of a dynamic shape holds exactly its actual elements: its Dims are
// the actual sizes and Dynamic marks which dimensions are dynamic.
//
// set-dimension-size keeps the leading `size` elements along the dimension
// (size must lie in [0, bound]); elements beyond the operand's own size, which
// in XLA's padded buffers hold whatever was there, are zero here.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(evalGetDimensionSize, ir.OpGetDimensionSize)
	register(evalSetDimensionSize, ir.OpSetDimensionSize)
}

func evalGetDimensionSize(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 || !ops[0].Shape().IsArray() {
		return nil, fmt.Errorf("expected one array operand")
	}
	d, err := oneDimension(in, ops[0].Shape().Rank())
	if err != nil {
		return nil, err
	}
	if in.Shape.Elem != ir.S32 || !in.Shape.IsScalar() {
		return nil, fmt.Errorf("result shape %v, expected s32[]", in.Shape)
	}
	return ir.ScalarLiteral(int32(ops[0].Shape().Dims[d])), nil
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

func evalSetDimensionSize(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 2 || !ops[0].Shape().IsArray() {
		return nil, fmt.Errorf("expected an array operand and a size")
	}
	x, sz := ops[0], ops[1]
	d, err := oneDimension(in, x.Shape().Rank())
	if err != nil {
		return nil, err
	}
	if !sz.Shape().IsScalar() || sz.Shape().Elem != ir.S32 {
		return nil, fmt.Errorf("size has shape %v, expected s32[]", sz.Shape())
	}
	size := int(ir.Values[int32](sz)[0])
	if in.Shape.Rank() != x.Shape().Rank() || in.Shape.Elem != x.Shape().Elem {
		return nil, fmt.Errorf("result shape %v, operand %v", in.Shape, x.Shape())
	}
	bound := in.Shape.Dims[d]
	if size < 0 || size > bound {
		return nil, fmt.Errorf("size %d is outside [0, %d] for dimension %d", size, bound, d)
	}
	dims := append([]int{}, x.Shape().Dims...)
	have := dims[d]
	dims[d] = size
	dynamic := make([]bool, len(dims))
	for i := range dynamic {
		dynamic[i] = in.Shape.IsDynamicDim(i) || (i != d && x.Shape().IsDynamicDim(i))
	}
	dynamic[d] = true
	out, err := ir.NewLiteral(ir.MakeDynamicShape(x.Shape().Elem, dims, dynamic))
	if err != nil {
		return nil, err
	}
	es := x.Shape().Elem.ByteSize()
	outer := numElements(dims[:d])
	inner := numElements(dims[d+1:]) * es
	keep := min(size, have) * inner
	src, dst := x.Bytes(), out.Bytes()
	for o := 0; o < outer; o++ {
		copy(dst[o*size*inner:o*size*inner+keep], src[o*have*inner:o*have*inner+keep])
	}
	return out, nil
}

package eval

// sort and topk, as ir/ops defines them (sort.go).

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() {
	register(evalSort, ir.OpSort)
	register(evalTopK, ir.OpTopK)
}

func evalSort(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("sort needs at least one operand")
	}
	dims := args[0].Shape().Dims
	for i, o := range args {
		if !o.Shape().IsArray() || !ir.SameDimensions(o.Shape(), args[0].Shape()) {
			return nil, fmt.Errorf("operand %d has shape %v, expected an array with dimensions %v", i, o.Shape(), dims)
		}
	}
	if in.ToApply == nil {
		return nil, fmt.Errorf("sort has no comparator")
	}
	f, err := e.function(in.ToApply)
	if err != nil {
		return nil, err
	}
	d := len(dims) - 1
	if len(in.Dimensions) > 0 {
		d = in.Dimensions[0]
	}
	ts := elementTypes(args)
	p, err := ops.NewSort(ts, dims, d, f)
	if err != nil {
		return nil, err
	}
	outs, err := newResults(in.Shape, ts, dims)
	if err != nil {
		return nil, err
	}
	if err := p.Run(arrayBytes(outs), arrayBytes(args), make([]byte, p.WorkBytes()), make([]byte, p.ScratchBytes())); err != nil {
		return nil, err
	}
	return packResults(outs, in.Shape), nil
}

func evalTopK(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 1 || !args[0].Shape().IsArray() {
		return nil, fmt.Errorf("expected 1 array operand, found %d operands", len(args))
	}
	return runTopK(in, args[0], in.K, in.Largest)
}

// runTopK is topk of x with k and largest, into in's result shape.
func runTopK(in *ir.Instruction, x *ir.Literal, k int, largest bool) (*ir.Literal, error) {
	t := x.Shape().Elem
	p, err := ops.NewTopK(t, x.Shape().Dims, k, largest)
	if err != nil {
		return nil, unsupported(in, err)
	}
	if !in.Shape.IsTuple() || len(in.Shape.Tuple) != 2 || in.Shape.Tuple[0].Elem != t || in.Shape.Tuple[1].Elem != ir.S32 {
		return nil, fmt.Errorf("result shape %v, expected (%v%v, s32%v)", in.Shape, t, p.OutDims, p.OutDims)
	}
	vals, err := newResult(in.Shape.Tuple[0].WithElem(t), p.OutDims)
	if err != nil {
		return nil, err
	}
	idxs, err := newResult(in.Shape.Tuple[1], p.OutDims)
	if err != nil {
		return nil, err
	}
	p.Run(vals.Bytes(), idxs.Bytes(), x.Bytes(), make([]byte, p.WorkBytes()))
	return ir.NewTupleLiteral(vals, idxs), nil
}

package eval

// reduce, reduce-window and select-and-scatter, as ir/ops defines them
// (reduce.go, window.go): sequential folds with the accumulator as the
// computation's first argument, windows in row-major order.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() {
	register(evalReduce, ir.OpReduce)
	register(evalReduceWindow, ir.OpReduceWindow)
	register(evalSelectAndScatter, ir.OpSelectAndScatter)
}

// splitOperands checks a variadic reducing op's operands: n arrays followed
// by n scalar init values.
func splitOperands(args []*ir.Literal) (arrays, inits []*ir.Literal, err error) {
	if len(args) == 0 || len(args)%2 != 0 {
		return nil, nil, fmt.Errorf("expected an even, non-zero number of operands (arrays then init values), found %d", len(args))
	}
	n := len(args) / 2
	arrays, inits = args[:n], args[n:]
	for i := range arrays {
		if !arrays[i].Shape().IsArray() {
			return nil, nil, fmt.Errorf("operand %d has shape %v, expected an array", i, arrays[i].Shape())
		}
		if !ir.SameDimensions(arrays[i].Shape(), arrays[0].Shape()) {
			return nil, nil, fmt.Errorf("operand %d has dimensions %v, operand 0 has %v, expected equal", i, arrays[i].Shape().Dims, arrays[0].Shape().Dims)
		}
		if !inits[i].Shape().IsScalar() {
			return nil, nil, fmt.Errorf("init value %d has shape %v, expected a scalar", i, inits[i].Shape())
		}
		if !ops.SameUpToPrecision(inits[i].Shape().Elem, arrays[i].Shape().Elem) {
			return nil, nil, fmt.Errorf("init value %d has type %v, operand %d %v", i, inits[i].Shape().Elem, i, arrays[i].Shape().Elem)
		}
	}
	return arrays, inits, nil
}

// newResults allocates the arrays of a variadic op's result with dims.
func newResults(s ir.Shape, ts []ir.ElementType, dims []int) ([]*ir.Literal, error) {
	shapes, err := resultArrayShapes(s, len(ts))
	if err != nil {
		return nil, err
	}
	outs := make([]*ir.Literal, len(ts))
	for i, sh := range shapes {
		if sh.Elem != ts[i] {
			return nil, fmt.Errorf("result %d has element type %v, expected %v", i, sh.Elem, ts[i])
		}
		if outs[i], err = newResult(sh, dims); err != nil {
			return nil, fmt.Errorf("result %d: %w", i, err)
		}
	}
	return outs, nil
}

func evalReduce(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	arrays, inits, err := splitOperands(args)
	if err != nil {
		return nil, err
	}
	f, err := e.function(in.ToApply)
	if err != nil {
		return nil, err
	}
	ts := elementTypes(arrays)
	p, err := ops.NewReduce(ts, elementTypes(inits), arrays[0].Shape().Dims, in.Dimensions, f)
	if err != nil {
		return nil, err
	}
	outs, err := newResults(in.Shape, p.Out, p.OutDims)
	if err != nil {
		return nil, err
	}
	if err := p.Run(arrayBytes(arrays), arrayBytes(inits), arrayBytes(outs), make([]byte, p.ScratchBytes())); err != nil {
		return nil, err
	}
	return packResults(outs, in.Shape), nil
}

func evalReduceWindow(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	arrays, inits, err := splitOperands(args)
	if err != nil {
		return nil, err
	}
	f, err := e.function(in.ToApply)
	if err != nil {
		return nil, err
	}
	ts := elementTypes(arrays)
	p, err := ops.NewReduceWindow(ts, elementTypes(inits), arrays[0].Shape().Dims, in.Window, f)
	if err != nil {
		return nil, err
	}
	outs, err := newResults(in.Shape, p.Out, p.OutDims())
	if err != nil {
		return nil, err
	}
	if err := p.Run(arrayBytes(arrays), arrayBytes(inits), arrayBytes(outs), make([]byte, p.ScratchBytes()), make([]byte, p.WorkBytes())); err != nil {
		return nil, err
	}
	return packResults(outs, in.Shape), nil
}

func evalSelectAndScatter(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("expected 3 operands (operand, source, init_value), found %d", len(args))
	}
	operand, source, init := args[0], args[1], args[2]
	if !operand.Shape().IsArray() || !source.Shape().IsArray() {
		return nil, fmt.Errorf("operand and source must be arrays")
	}
	if !init.Shape().IsScalar() || init.Shape().Elem != source.Shape().Elem {
		return nil, fmt.Errorf("init value has shape %v, expected a %v scalar", init.Shape(), source.Shape().Elem)
	}
	if in.Select == nil || in.Scatter == nil {
		return nil, fmt.Errorf("select-and-scatter needs select and scatter computations")
	}
	sel, err := e.function(in.Select)
	if err != nil {
		return nil, err
	}
	sc, err := e.function(in.Scatter)
	if err != nil {
		return nil, err
	}
	st := source.Shape().Elem
	p, err := ops.NewSelectAndScatter(operand.Shape().Elem, operand.Shape().Dims, st, source.Shape().Dims, in.Window, sel, sc)
	if err != nil {
		return nil, err
	}
	if in.Shape.Elem != st {
		return nil, fmt.Errorf("result shape %v, expected %v with the operand's dimensions %v", in.Shape, st, operand.Shape().Dims)
	}
	out, err := newResult(in.Shape, operand.Shape().Dims)
	if err != nil {
		return nil, err
	}
	if err := p.Run(operand.Bytes(), source.Bytes(), init.Bytes(), out.Bytes(), make([]byte, p.ScratchBytes()), make([]byte, p.WorkBytes())); err != nil {
		return nil, err
	}
	return out, nil
}

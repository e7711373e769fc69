package eval

// Called computations (reducers, comparators, scatter and select updates,
// map bodies) as ir/ops functions: compiled to a program of elementwise ops
// when they are scalar computations, else evaluated by calling the
// computation for every application.

import (
	"errors"
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// opsComputation describes computation c as ir/ops' node list, with the
// computations its nodes call.
func opsComputation(c *ir.Computation) *ops.Computation {
	return ops.Describe(c.Name, c.Instructions, c.Parameters, c.Root, func(in *ir.Instruction) (ops.Node, []*ir.Instruction) {
		nd := ops.Node{Op: in.Opcode, Attrs: &in.Attrs, Shape: in.Shape, Param: in.ParameterNumber, Literal: in.Literal}
		var called []*ir.Computation
		switch in.Opcode {
		case ir.OpCall, ir.OpReduce, ir.OpMap:
			called = []*ir.Computation{in.ToApply}
		case ir.OpFusion:
			called = []*ir.Computation{in.Calls}
		case ir.OpConditional:
			called = in.Branches
		}
		for _, f := range called {
			if f != nil {
				nd.Called = append(nd.Called, opsComputation(f))
			}
		}
		return nd, in.Operands
	})
}

// compilePrograms turns compiled programs on; tests turn it off to compare
// them with calling the computation.
var compilePrograms = true

// function returns computation c as an ops.Func.
func (e *evaluator) function(c *ir.Computation) (*ops.Func, error) {
	if c == nil {
		return nil, nil
	}
	if f, ok := e.funcs[c]; ok {
		return f, nil
	}
	for _, p := range c.Parameters {
		if p == nil {
			return nil, fmt.Errorf("computation %s has a missing parameter", c.Name)
		}
	}
	f, err := ops.CompileFunc(opsComputation(c))
	var ue *ops.UnsupportedError
	switch {
	case !compilePrograms:
		f, err = e.callFunc(c)
	case errors.As(err, &ue):
		f, err = e.callFunc(c)
	case err != nil:
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if e.funcs == nil {
		e.funcs = map[*ir.Computation]*ops.Func{}
	}
	e.funcs[c] = f
	return f, nil
}

// callFunc returns c as a function of scalars that calls the evaluator.
func (e *evaluator) callFunc(c *ir.Computation) (*ops.Func, error) {
	var paramT, resultT []ir.ElementType
	for i, p := range c.Parameters {
		if !p.Shape.IsScalar() {
			return nil, fmt.Errorf("computation %s: parameter %d has shape %v, expected a scalar", c.Name, i, p.Shape)
		}
		paramT = append(paramT, p.Shape.Elem)
	}
	if c.Root == nil {
		return nil, fmt.Errorf("computation %s has no root", c.Name)
	}
	roots := []ir.Shape{c.Root.Shape}
	if c.Root.Shape.IsTuple() {
		roots = c.Root.Shape.Tuple
	}
	for j, s := range roots {
		if !s.IsScalar() {
			return nil, fmt.Errorf("computation %s: result %d has shape %v, expected a scalar", c.Name, j, s)
		}
		resultT = append(resultT, s.Elem)
	}
	n := len(paramT)
	var f *ops.Func
	f = ops.NewCallFunc(c.Name, paramT, resultT, func(regs []byte) error {
		if err := e.checkContext(); err != nil {
			return err
		}
		args := make([]*ir.Literal, n)
		for i, t := range paramT {
			args[i] = ir.MustNewLiteral(ir.Scalar(t))
			ops.StoreWide(args[i].Bytes(), t, 0, f.Param(regs, i), 1)
		}
		res, err := e.call(c, args)
		if err != nil {
			return err
		}
		vals := []*ir.Literal{res}
		if res.Shape().IsTuple() {
			vals = res.Elements()
		}
		if len(vals) != len(resultT) {
			return fmt.Errorf("computation %s returned %d values, expected %d", c.Name, len(vals), len(resultT))
		}
		for j, v := range vals {
			if !v.Shape().IsScalar() || v.Shape().Elem != resultT[j] {
				return fmt.Errorf("computation %s returned %v as value %d, expected %v[]", c.Name, v.Shape(), j, resultT[j])
			}
			ops.LoadWide(f.Result(regs, j), 1, v.Bytes(), resultT[j], 0)
		}
		return nil
	})
	return f, nil
}

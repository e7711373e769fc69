package eval

// cholesky and triangular-solve, as ir/ops defines them (linalg.go).

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() {
	register(evalCholesky, ir.OpCholesky)
	register(evalTriangularSolve, ir.OpTriangularSolve)
}

func evalCholesky(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 1 || !args[0].Shape().IsArray() {
		return nil, fmt.Errorf("expected 1 array operand, found %d operands", len(args))
	}
	s := args[0].Shape()
	p, err := ops.NewCholesky(s.Elem, s.Dims, in.Lower)
	if err != nil {
		return nil, err
	}
	if !s.Compatible(in.Shape) {
		return nil, fmt.Errorf("result shape %v, expected the operand's %v", in.Shape, s)
	}
	out, err := ir.NewLiteral(s)
	if err != nil {
		return nil, err
	}
	p.Run(out.Bytes(), args[0].Bytes(), make([]byte, p.WorkBytes()))
	return out, nil
}

func evalTriangularSolve(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 2 || !args[0].Shape().IsArray() || !args[1].Shape().IsArray() {
		return nil, fmt.Errorf("expected 2 array operands (a, b), found %d operands", len(args))
	}
	as, bs := args[0].Shape(), args[1].Shape()
	if as.Elem != bs.Elem {
		return nil, fmt.Errorf("a %v and b %v need the same element type", as, bs)
	}
	p, err := ops.NewTriangularSolve(as.Elem, as.Dims, bs.Dims, in.TriangularSolve)
	if err != nil {
		return nil, err
	}
	if !bs.Compatible(in.Shape) {
		return nil, fmt.Errorf("result shape %v, expected b's %v", in.Shape, bs)
	}
	out, err := ir.NewLiteral(bs)
	if err != nil {
		return nil, err
	}
	p.Run(out.Bytes(), args[0].Bytes(), args[1].Bytes(), make([]byte, p.WorkBytes()))
	return out, nil
}

package eval

// Asynchronous wrappers, evaluated synchronously: what matters of them is
// the value the done op returns.
//
//   - async-start(operands…) (or `<op>-start`, XLA's shorthand) returns the
//     tuple of its declared shape: (the operands, the result, a context),
//     the result and context zero until done. async-update(prev, more…)
//     appends operands (late binding). async-done(prev) runs the wrapped
//     computation (calls=, or the op named by the shorthand with the start's
//     attributes) on all the operands gathered, and returns its result.
//   - copy-start(x) returns (x, copy of x, context); copy-done returns the
//     copy.
//   - all-reduce-start, all-gather-start and collective-permute-start compute
//     their collective; the done op returns its result.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(evalAsyncStart, ir.OpAsyncStart)
	register(evalAsyncUpdate, ir.OpAsyncUpdate)
	register(evalAsyncDone, ir.OpAsyncDone)
	register(evalCopyStart, ir.OpCopyStart)
	register(evalCopyDone, ir.OpCopyDone)
	register(evalCollectiveStart, ir.OpAllReduceStart, ir.OpAllGatherStart, ir.OpCollectivePermuteStart)
	register(evalCollectiveDone, ir.OpAllReduceDone, ir.OpAllGatherDone, ir.OpCollectivePermuteDone)
}

// asyncState builds the value of an async-start or -update of shape s: its
// gathered operands, then zeros for the rest of the declared tuple.
func asyncState(s ir.Shape, operands []*ir.Literal) (*ir.Literal, error) {
	if !s.IsTuple() || len(s.Tuple) < 2 {
		return nil, fmt.Errorf("result shape %v, expected a tuple (operands, result, context…)", s)
	}
	elems := []*ir.Literal{ir.NewTupleLiteral(operands...)}
	for _, e := range s.Tuple[1:] {
		z, err := ir.NewLiteral(e)
		if err != nil {
			return nil, err
		}
		elems = append(elems, z)
	}
	return ir.NewTupleLiteral(elems...), nil
}

func evalAsyncStart(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	return asyncState(in.Shape, args)
}

func evalAsyncUpdate(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) == 0 || !args[0].Shape().IsTuple() || len(args[0].Elements()) == 0 {
		return nil, fmt.Errorf("async-update needs the state of an async-start or -update")
	}
	operands := append(append([]*ir.Literal{}, args[0].Element(0).Elements()...), args[1:]...)
	return asyncState(in.Shape, operands)
}

// asyncStart finds the async-start an update or done continues.
func asyncStart(in *ir.Instruction) (*ir.Instruction, error) {
	for in != nil && in.Opcode != ir.OpAsyncStart {
		if (in.Opcode != ir.OpAsyncUpdate && in.Opcode != ir.OpAsyncDone) || len(in.Operands) == 0 {
			return nil, fmt.Errorf("%s (%v) does not continue an async-start", in.Name, in.Opcode)
		}
		in = in.Operands[0]
	}
	if in == nil {
		return nil, fmt.Errorf("no async-start")
	}
	return in, nil
}

func evalAsyncDone(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 1 || !args[0].Shape().IsTuple() || len(args[0].Elements()) == 0 {
		return nil, fmt.Errorf("async-done needs the state of an async-start or -update")
	}
	start, err := asyncStart(in)
	if err != nil {
		return nil, err
	}
	operands := args[0].Element(0).Elements()
	if start.Calls != nil && (start.AsyncWrapped == ir.OpInvalid || start.AsyncWrapped == ir.OpFusion || start.AsyncWrapped == ir.OpCall) {
		return e.call(start.Calls, operands)
	}
	if start.AsyncWrapped == ir.OpInvalid {
		return nil, fmt.Errorf("async-start %s wraps no computation", start.Name)
	}
	wrapped := *start
	wrapped.Opcode, wrapped.AsyncWrapped = start.AsyncWrapped, ir.OpInvalid
	wrapped.Shape = in.Shape
	wrapped.Operands = nil
	return e.instruction(&wrapped, operands)
}

func evalCopyStart(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(args))
	}
	if !in.Shape.IsTuple() || len(in.Shape.Tuple) < 2 {
		return nil, fmt.Errorf("result shape %v, expected (operand, copy, context)", in.Shape)
	}
	elems := []*ir.Literal{args[0], args[0].Clone()}
	for _, s := range in.Shape.Tuple[2:] {
		z, err := ir.NewLiteral(s)
		if err != nil {
			return nil, err
		}
		elems = append(elems, z)
	}
	return ir.NewTupleLiteral(elems...), nil
}

func evalCopyDone(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 1 || !args[0].Shape().IsTuple() || len(args[0].Elements()) < 2 {
		return nil, fmt.Errorf("copy-done needs the state of a copy-start")
	}
	return args[0].Element(1), nil
}

// syncCollective is the synchronous op of a collective start.
var syncCollective = map[ir.Opcode]ir.Opcode{
	ir.OpAllReduceStart:         ir.OpAllReduce,
	ir.OpAllGatherStart:         ir.OpAllGather,
	ir.OpCollectivePermuteStart: ir.OpCollectivePermute,
}

func evalCollectiveStart(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	// The start of an all-reduce has the all-reduce's shape; the others a
	// tuple (operands, results, contexts…).
	resultShape := in.Shape
	tupled := in.Opcode != ir.OpAllReduceStart && in.Shape.IsTuple() && len(in.Shape.Tuple) >= 2
	if tupled {
		resultShape = in.Shape.Tuple[1]
	}
	op := *in
	op.Opcode, op.Shape, op.Operands = syncCollective[in.Opcode], resultShape, nil
	res, err := e.instruction(&op, args)
	if err != nil || !tupled {
		return res, err
	}
	first := args[0]
	if len(args) > 1 {
		first = ir.NewTupleLiteral(args...)
	}
	elems := []*ir.Literal{first, res}
	for _, s := range in.Shape.Tuple[2:] {
		z, err := ir.NewLiteral(s)
		if err != nil {
			return nil, err
		}
		elems = append(elems, z)
	}
	return ir.NewTupleLiteral(elems...), nil
}

func evalCollectiveDone(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(args))
	}
	if args[0].Shape().IsTuple() && in.Opcode != ir.OpAllReduceDone && len(args[0].Elements()) >= 2 {
		return args[0].Element(1), nil
	}
	return args[0], nil
}

// Package eval is Kiln's reference evaluator: it executes an HLO module
// instruction by instruction, following XLA's semantics for every op and
// every element type. It is written for clarity rather than speed, and it is
// the oracle every compiled plan and every kernel is tested against.
package eval

import (
	"context"
	"errors"
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// Options control an evaluation. The zero value is usable.
type Options struct {
	// MaxWhileIterations bounds the trip count of every while loop; a loop
	// that runs longer fails with an error. 0 means DefaultMaxWhileIterations.
	MaxWhileIterations int

	// CustomCalls resolves custom-call targets. nil means DefaultCustomCalls.
	CustomCalls *CustomCallRegistry

	// Seed seeds the generator behind the stateful `rng` op.
	Seed uint64

	// Infeed supplies the values read by infeed ops, in order; Outfeed
	// receives the values written by outfeed ops. Send and Recv exchange
	// values over Channels, keyed by channel_id.
	Infeed   <-chan *ir.Literal
	Outfeed  chan<- *ir.Literal
	Channels map[int64]chan *ir.Literal

	// Context, if set, is checked between instructions and loop iterations.
	Context context.Context
}

// DefaultMaxWhileIterations is the while-loop trip limit used when
// Options.MaxWhileIterations is 0.
const DefaultMaxWhileIterations = 1 << 24

// Run evaluates the module's entry computation on args (one literal per
// parameter, in parameter order). A tuple-shaped result is returned as its
// elements; any other result as a single literal.
func Run(m *ir.Module, args ...*ir.Literal) ([]*ir.Literal, error) {
	return RunWithOptions(m, Options{}, args...)
}

// RunWithOptions is Run with explicit options.
func RunWithOptions(m *ir.Module, opts Options, args ...*ir.Literal) ([]*ir.Literal, error) {
	if m == nil || m.Entry == nil {
		return nil, errors.New("eval: module has no entry computation")
	}
	e := newEvaluator(m, opts, 0, 1)
	out, err := e.call(m.Entry, args)
	if err != nil {
		return nil, err
	}
	if out.Shape().IsTuple() {
		return out.Elements(), nil
	}
	return []*ir.Literal{out}, nil
}

// RunComputation evaluates computation c (of module m) on args and returns
// its root value (a tuple literal for tuple-shaped roots). It is how reducers,
// comparators, loop bodies and branches are evaluated.
func RunComputation(m *ir.Module, c *ir.Computation, opts Options, args ...*ir.Literal) (*ir.Literal, error) {
	return newEvaluator(m, opts, 0, 1).call(c, args)
}

// evaluator holds the state of one evaluation (of one replica).
type evaluator struct {
	module    *ir.Module
	opts      Options
	replica   int // this replica's id
	replicas  int // number of replicas
	partition int
	rng       *rngState
	// collective is set by RunReplicated: the rendezvous of all replicas.
	collective *rendezvous
	// funcs caches called computations compiled to ir/ops functions.
	funcs map[*ir.Computation]*ops.Func
}

func newEvaluator(m *ir.Module, opts Options, replica, replicas int) *evaluator {
	if opts.MaxWhileIterations <= 0 {
		opts.MaxWhileIterations = DefaultMaxWhileIterations
	}
	if opts.CustomCalls == nil {
		opts.CustomCalls = DefaultCustomCalls
	}
	return &evaluator{module: m, opts: opts, replica: replica, replicas: replicas, rng: newRNGState(opts.Seed)}
}

// handler evaluates one instruction given its operand values.
type handler func(e *evaluator, in *ir.Instruction, operands []*ir.Literal) (*ir.Literal, error)

// handlers maps each opcode to its evaluation function. Each op family's file
// registers its opcodes from an init function, so the table reads as the list
// of everything the evaluator executes.
var handlers = map[ir.Opcode]handler{}

func register(h handler, ops ...ir.Opcode) {
	for _, op := range ops {
		if _, dup := handlers[op]; dup {
			panic("eval: opcode registered twice: " + op.String())
		}
		handlers[op] = h
	}
}

// Supported reports whether the evaluator executes opcode op.
func Supported(op ir.Opcode) bool {
	_, ok := handlers[op]
	return ok
}

// call evaluates computation c on args.
func (e *evaluator) call(c *ir.Computation, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != len(c.Parameters) {
		return nil, fmt.Errorf("computation %s takes %d arguments, got %d", c.Name, len(c.Parameters), len(args))
	}
	for i, p := range c.Parameters {
		if p == nil {
			return nil, fmt.Errorf("computation %s has no parameter %d", c.Name, i)
		}
		if args[i] == nil {
			return nil, fmt.Errorf("computation %s: argument %d is nil", c.Name, i)
		}
		if !args[i].Shape().Compatible(p.Shape) {
			return nil, fmt.Errorf("computation %s: argument %d (%s) has shape %v, want %v",
				c.Name, i, p.Name, args[i].Shape().StringWithoutLayout(), p.Shape.StringWithoutLayout())
		}
	}
	values := make(map[*ir.Instruction]*ir.Literal, len(c.Instructions))
	for _, in := range c.Instructions {
		if err := e.checkContext(); err != nil {
			return nil, err
		}
		if in.Opcode == ir.OpParameter {
			values[in] = args[in.ParameterNumber]
			continue
		}
		ops := make([]*ir.Literal, len(in.Operands))
		for i, o := range in.Operands {
			v, ok := values[o]
			if !ok {
				return nil, fmt.Errorf("%s: operand %d (%s) is not computed before its use", in.Name, i, o.Name)
			}
			ops[i] = v
		}
		v, err := e.instruction(in, ops)
		if err != nil {
			return nil, err
		}
		values[in] = v
	}
	if c.Root == nil {
		return nil, fmt.Errorf("computation %s has no root", c.Name)
	}
	return values[c.Root], nil
}

// instruction evaluates one instruction and checks that the result has the
// instruction's shape.
func (e *evaluator) instruction(in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	h, ok := handlers[in.Opcode]
	if !ok {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name}
	}
	if err := checkShapeSize(in.Shape); err != nil {
		return nil, fmt.Errorf("%s (%v): %w", in.Name, in.Opcode, err)
	}
	v, err := h(e, in, ops)
	if err != nil {
		var ue *UnsupportedError
		if errors.As(err, &ue) {
			return nil, err
		}
		return nil, fmt.Errorf("%s (%v): %w", in.Name, in.Opcode, err)
	}
	if !v.Shape().Compatible(in.Shape) {
		return nil, fmt.Errorf("%s (%v): evaluated to shape %v, the instruction declares %v",
			in.Name, in.Opcode, v.Shape().StringWithoutLayout(), in.Shape.StringWithoutLayout())
	}
	return v, nil
}

func (e *evaluator) checkContext() error {
	if e.opts.Context != nil {
		return e.opts.Context.Err()
	}
	return nil
}

// checkShapeSize refuses shapes whose storage would exceed ir.MaxLiteralBytes
// before anything is allocated.
func checkShapeSize(s ir.Shape) error {
	n := s.ByteSize()
	if n < 0 || n > ir.MaxLiteralBytes {
		return fmt.Errorf("result shape %v needs %d bytes, above the limit of %d", s, n, ir.MaxLiteralBytes)
	}
	return nil
}

// UnsupportedError reports an op (or a form of an op) the evaluator does not
// execute.
type UnsupportedError struct {
	Op          ir.Opcode
	Instruction string
	Detail      string // what form of the op is unsupported, if not the op itself
}

func (e *UnsupportedError) Error() string {
	msg := fmt.Sprintf("eval: op %q is not supported", e.Op.String())
	if e.Detail != "" {
		msg = fmt.Sprintf("eval: %s: %s", e.Op, e.Detail)
	}
	if e.Instruction != "" {
		msg += " (instruction " + e.Instruction + ")"
	}
	return msg
}

// EvalInstruction evaluates a single instruction of module m on the given
// operand values (its called computations run as usual). The compiler's
// runtime uses it for ops that have no dedicated implementation.
func EvalInstruction(m *ir.Module, in *ir.Instruction, opts Options, operands ...*ir.Literal) (*ir.Literal, error) {
	if len(operands) != len(in.Operands) {
		return nil, fmt.Errorf("%s (%v): %d operands given, the instruction has %d", in.Name, in.Opcode, len(operands), len(in.Operands))
	}
	return newEvaluator(m, opts, 0, 1).instruction(in, operands)
}

package runtime

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// CustomCallFunc implements a custom-call target. It receives the operands
// (one tensor per array leaf of the custom-call's operands, in order), the
// results to fill (one zeroed tensor per array leaf of its result shape,
// in order) and the instruction's backend_config string, unquoted ("" when
// it has none). Tensors are row-major in the machine's byte order; the
// operands must not be changed, and neither may be kept after the function
// returns. An error fails the run that called it.
//
// The function may be called from many goroutines at once (one per run in
// flight), so it must be safe for concurrent use.
type CustomCallFunc func(operands, results []*Tensor, backendConfig string) error

// customCalls holds the registered targets.
var customCalls = struct {
	sync.RWMutex
	fns map[string]CustomCallFunc
}{fns: map[string]CustomCallFunc{}}

// RegisterCustomCall installs fn as the implementation of the custom-call
// target named target, for the compiled path and the reference evaluator
// alike, replacing any earlier one. Compile binds the function registered
// when it runs, and refuses a module that calls a target nothing registered
// (with an error wrapping ErrUnsupported that names it), so register before
// compiling. It is safe to call at any time, also while executables run.
//
// The annotation targets JAX emits for a single-device program (Sharding,
// SPMDFullToShardShape, SPMDShardToFullShape, xla.sdy.FuncResultSharding,
// xla.sdy.GlobalToLocalShape, xla.sdy.LocalToGlobalShape, annotate_device_placement,
// MoveToHost, MoveToDevice) need no registration: they are the identity.
func RegisterCustomCall(target string, fn CustomCallFunc) {
	customCalls.Lock()
	customCalls.fns[target] = fn
	customCalls.Unlock()
	eval.DefaultCustomCalls.Register(target, func(in *ir.Instruction, operands []*ir.Literal) (*ir.Literal, error) {
		var ops []*Tensor
		for _, o := range operands {
			for _, l := range literalLeaves(o, nil) {
				if l.Shape().IsArray() {
					ops = append(ops, TensorFromLiteral(l))
				}
			}
		}
		res, err := ir.NewLiteral(in.Shape.WithoutLayout())
		if err != nil {
			return nil, fmt.Errorf("custom-call %q: result %v: %w", target, in.Shape, err)
		}
		var outs []*Tensor
		for _, l := range literalLeaves(res, nil) {
			if l.Shape().IsArray() {
				outs = append(outs, TensorFromLiteral(l))
			}
		}
		if err := fn(ops, outs, backendConfig(in.BackendConfig)); err != nil {
			return nil, fmt.Errorf("custom-call %q (instruction %s): %w", target, in.Name, err)
		}
		return res, nil
	})
}

// literalLeaves lists a literal's leaves, depth first.
func literalLeaves(l *ir.Literal, out []*ir.Literal) []*ir.Literal {
	if l.Shape().IsTuple() {
		for _, e := range l.Elements() {
			out = literalLeaves(e, out)
		}
		return out
	}
	return append(out, l)
}

// backendConfig unquotes an instruction's backend_config as the HLO text
// holds it (C escapes within double quotes).
func backendConfig(raw string) string {
	if s, err := strconv.Unquote(raw); err == nil {
		return s
	}
	return raw
}

func init() { genericSteps[ssa.Op(ir.OpCustomCall)] = buildCustomCall }

// customCallStep runs a registered Go function over views of its buffers.
type customCallStep struct {
	fn       CustomCallFunc
	target   string
	inst     string // the instruction's name, for errors
	config   string
	in, out  []loc
	inShapes []ir.Shape
	outShape []ir.Shape
	views    sync.Pool // *callViews: the tensors a call sees, reused (a function may not keep them)
}

// callViews are the tensors of one call of a custom-call step.
type callViews struct {
	ops, outs []*Tensor
	t         []Tensor
}

// buildCustomCall compiles a custom-call to the function registered for its
// target; a target neither registered nor an identity annotation is refused
// by name.
func buildCustomCall(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	target := v.Attrs.CustomCallTarget
	if ir.IsAnnotationTarget(target) {
		// The identities were removed when lowering; one that is left
		// changes its operand's shape.
		return nil, unsupportedError(fmt.Errorf("custom-call %q (instruction %s) turns %s into %v: a program partitioned across devices, which Kiln does not run",
			target, v.Name, argShapeList(v), v.Shape.StringWithoutLayout()))
	}
	customCalls.RLock()
	fn, ok := customCalls.fns[target]
	customCalls.RUnlock()
	if !ok && ops.IsLapackTarget(target) {
		var err error
		if fn, err = lapackCall(v); err != nil {
			return nil, unsupportedError(fmt.Errorf("custom-call %q (instruction %s): %w", target, v.Name, err))
		}
		ok = true
	}
	if !ok {
		return nil, unsupportedError(fmt.Errorf("custom-call target %q (instruction %s) is not registered: runtime.RegisterCustomCall provides an implementation", target, v.Name))
	}
	s := &customCallStep{fn: fn, target: target, inst: v.Name, config: backendConfig(v.Attrs.BackendConfig)}
	for _, a := range v.Args {
		b := inputBuffer(k, a)
		if b == nil {
			return nil, fmt.Errorf("custom-call %q: operand %v has no buffer", target, a)
		}
		locs, shapes := c.leaves(b), leafShapes(a.Shape)
		if len(locs) != len(shapes) {
			return nil, fmt.Errorf("custom-call %q: operand of shape %v has %d buffers", target, a.Shape, len(locs))
		}
		for i, sh := range shapes {
			if sh.IsArray() {
				s.in = append(s.in, locs[i])
				s.inShapes = append(s.inShapes, sh.WithoutLayout())
			}
		}
	}
	locs, shapes := c.leaves(k.Out), leafShapes(v.Shape)
	if len(locs) != len(shapes) {
		return nil, fmt.Errorf("custom-call %q: result of shape %v has %d buffers", target, v.Shape, len(locs))
	}
	for i, sh := range shapes {
		if sh.IsArray() {
			s.out = append(s.out, locs[i])
			s.outShape = append(s.outShape, sh.WithoutLayout())
		}
	}
	return s, nil
}

func (s *customCallStep) name() string { return "custom-call" }

func (s *customCallStep) exec(fr *frame) error {
	v, _ := s.views.Get().(*callViews)
	if v == nil {
		v = &callViews{t: make([]Tensor, len(s.in)+len(s.out))}
		for i := range s.in {
			v.ops = append(v.ops, &v.t[i])
		}
		for i := range s.out {
			v.outs = append(v.outs, &v.t[len(s.in)+i])
		}
	}
	defer s.views.Put(v)
	for i, l := range s.in {
		*v.ops[i] = Tensor{shape: s.inShapes[i], data: fr.bytes(l)}
	}
	for i, l := range s.out {
		b := fr.bytes(l)
		clear(b)
		*v.outs[i] = Tensor{shape: s.outShape[i], data: b}
	}
	err := s.fn(v.ops, v.outs, s.config)
	clear(v.t) // no views of this frame's memory kept
	if err != nil {
		return fmt.Errorf("custom-call %q (instruction %s): %w", s.target, s.inst, err)
	}
	return nil
}

func argShapeList(v *ssa.Value) string {
	parts := make([]string, len(v.Args))
	for i, a := range v.Args {
		parts[i] = a.Shape.StringWithoutLayout()
	}
	return strings.Join(parts, ", ")
}

// lapackCall is the function that runs one of jaxlib's LAPACK custom calls
// (ops.NewLapack, the evaluator's too) on the custom-call v's shapes.
func lapackCall(v *ssa.Value) (CustomCallFunc, error) {
	shapes := make([]ir.Shape, len(v.Args))
	for i, a := range v.Args {
		shapes[i] = a.Shape.WithoutLayout()
	}
	p, err := ops.NewLapack(v.Attrs.CustomCallTarget, v.Attrs.BackendConfig, shapes, v.Shape.WithoutLayout())
	if err != nil {
		return nil, err
	}
	return func(operands, results []*Tensor, _ string) error {
		var inA, outA [8][]byte // jaxlib's routines take at most 2 operands and give 5 results
		in, out := inA[:0], outA[:0]
		for _, t := range operands {
			in = append(in, t.Bytes())
		}
		for _, t := range results {
			out = append(out, t.Bytes())
		}
		return p.Run(out, in)
	}, nil
}

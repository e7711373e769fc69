package eval

import (
	"fmt"
	"sort"
	"sync"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// CustomCallFunc implements a custom-call target: it receives the
// instruction (for its shape, backend_config and other attributes) and the
// operand values, and returns the result.
type CustomCallFunc func(in *ir.Instruction, operands []*ir.Literal) (*ir.Literal, error)

// CustomCallRegistry maps custom_call_target names to Go functions. It is
// safe for concurrent use.
type CustomCallRegistry struct {
	mu      sync.RWMutex
	targets map[string]CustomCallFunc
}

// NewCustomCallRegistry returns an empty registry.
func NewCustomCallRegistry() *CustomCallRegistry {
	return &CustomCallRegistry{targets: map[string]CustomCallFunc{}}
}

// DefaultCustomCalls is the registry used when Options.CustomCalls is nil.
var DefaultCustomCalls = NewCustomCallRegistry()

// Register installs f as the implementation of target, replacing any earlier one.
func (r *CustomCallRegistry) Register(target string, f CustomCallFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.targets[target] = f
}

// Lookup returns the implementation of target.
func (r *CustomCallRegistry) Lookup(target string) (CustomCallFunc, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.targets[target]
	return f, ok
}

// Targets lists the registered target names, sorted.
func (r *CustomCallRegistry) Targets() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.targets))
	for n := range r.targets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func init() { register(evalCustomCall, ir.OpCustomCall) }

func evalCustomCall(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if ir.IsIdentityAnnotation(in) {
		// Sharding and placement annotations are the identity on one device.
		return args[0].Clone(), nil
	}
	f, ok := e.opts.CustomCalls.Lookup(in.CustomCallTarget)
	if !ok && in.CustomCallTarget == XLATopKTarget {
		k, largest, err := XLATopK(e.module, in)
		if err != nil {
			return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name, Detail: err.Error()}
		}
		if len(args) != 1 {
			return nil, fmt.Errorf("expected 1 operand, found %d", len(args))
		}
		return runTopK(in, args[0], k, largest)
	}
	if !ok && ops.IsLapackTarget(in.CustomCallTarget) {
		return evalLapack(in, args)
	}
	if !ok {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
			Detail: fmt.Sprintf("custom-call target %q is not registered (registered: %v)", in.CustomCallTarget, e.opts.CustomCalls.Targets())}
	}
	return f(in, args)
}

// evalLapack runs one of jaxlib's LAPACK custom calls (ops.NewLapack).
func evalLapack(in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	shapes := make([]ir.Shape, len(args))
	for i, a := range args {
		shapes[i] = a.Shape()
	}
	p, err := ops.NewLapack(in.CustomCallTarget, in.BackendConfig, shapes, in.Shape.WithoutLayout())
	if err != nil {
		return nil, unsupported(in, err)
	}
	res, err := ir.NewLiteral(in.Shape.WithoutLayout())
	if err != nil {
		return nil, err
	}
	outs := []*ir.Literal{res}
	if res.Shape().IsTuple() {
		outs = res.Elements()
	}
	if err := p.Run(arrayBytes(outs), arrayBytes(args)); err != nil {
		return nil, err
	}
	return res, nil
}

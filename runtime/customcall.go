package runtime

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
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

// RegisterCustomCall installs fn as the implementation of the custom-call
// target named target, for the compiled path and the reference evaluator
// alike, replacing any earlier one. Compile refuses a module that calls a
// target nothing registered (with an error wrapping ErrUnsupported that
// names it), so register before compiling. It is safe to call at any time,
// also while executables run.
//
// The annotation targets JAX emits for a single-device program (Sharding,
// SPMDFullToShardShape, SPMDShardToFullShape, annotate_device_placement,
// MoveToHost, MoveToDevice) need no registration: they are the identity.
func RegisterCustomCall(target string, fn CustomCallFunc) {
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

// backendConfig unquotes an instruction's backend_config as the HLO text
// holds it (C escapes within double quotes).
func backendConfig(raw string) string {
	if s, err := strconv.Unquote(raw); err == nil {
		return s
	}
	return raw
}

// checkCustomCall refuses a custom-call whose target is neither an
// annotation nor registered.
func checkCustomCall(v *ssa.Value) error {
	target := v.Attrs.CustomCallTarget
	if ir.IsAnnotationTarget(target) {
		if len(v.Args) == 1 && v.Args[0].Shape.EqualIgnoringLayout(v.Shape) {
			return nil
		}
		return unsupportedError(fmt.Errorf("custom-call %q (instruction %s) turns %s into %v: a program partitioned across devices, which Kiln does not run",
			target, v.Name, argShapes(v), v.Shape.StringWithoutLayout()))
	}
	if _, ok := eval.DefaultCustomCalls.Lookup(target); !ok {
		return unsupportedError(fmt.Errorf("custom-call target %q (instruction %s) is not registered: runtime.RegisterCustomCall provides an implementation", target, v.Name))
	}
	return nil
}

func argShapes(v *ssa.Value) string {
	parts := make([]string, len(v.Args))
	for i, a := range v.Args {
		parts[i] = a.Shape.StringWithoutLayout()
	}
	return strings.Join(parts, ", ")
}

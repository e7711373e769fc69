package runtime

// Compiling and binding programs with run-time sizes from their entry
// parameters (dynamic_sizes.go): relaxing the dimensions WithDynamicDim
// names, choosing how the program follows the sizes, checking each run's
// arguments against the bounds and giving the results their actual sizes.

import (
	"errors"
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// relaxModule returns m with the dimensions WithDynamicDim named made
// bounded dynamic dimensions (m itself when there are none).
func relaxModule(m *ir.Module, cfg *config) (*ir.Module, error) {
	if len(cfg.dynamicDims) == 0 {
		return m, nil
	}
	r, err := ir.RelaxDimensions(m, cfg.dynamicDims)
	if err != nil {
		return nil, argumentError(fmt.Errorf("runtime: WithDynamicDim: %w", err))
	}
	return r, nil
}

// stripSizes decides how a program with dynamic parameters follows their
// sizes. When every run-time size in the lowered program is a multiple of
// a parameter's and reaches only ops that compute on a valid prefix at the
// bounds (analyzeSizes), the dynamic marks are dropped: the program is
// optimised and scheduled as a static one at the bounds (fusions, GEMM
// epilogues and packed weights as for a static batch), and the sizes are
// derived again after scheduling. Otherwise the program keeps its marks and
// its dynamic values run op by op.
func stripSizes(prog *ssa.Program, cfg *config) (dims []paramDim, stripped bool) {
	dims = dynamicParamDims(prog)
	if cfg.keepDynamic || len(dims) == 0 {
		return dims, false
	}
	t, err := analyzeSizes(prog, dims, true, false)
	if err != nil {
		return dims, false
	}
	for _, s := range t.syms {
		if s.bound < 2 {
			return dims, false
		}
	}
	stripDynamic(prog)
	return dims, true
}

// followSizes derives the sizes of the scheduled program's values: for a
// stripped program every one must follow (an error sends Compile back to
// the program with its marks); otherwise those that do are recorded and
// the rest travel in arena slots.
func followSizes(prog *ssa.Program, dims []paramDim, stripped bool) (*sizeTable, error) {
	if stripped {
		t, err := analyzeSizes(prog, dims, false, false)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errNotSized, err)
		}
		return t, nil
	}
	if len(dims) == 0 {
		return nil, nil
	}
	return analyzeSizes(prog, dims, true, true)
}

// keepDynamic is the option Compile retries with when a program compiled
// at its bounds cannot follow its run-time sizes.
func keepDynamic() Option { return func(c *config) { c.keepDynamic = true } }

// retrySized reports whether Compile's error calls for the retry with
// keepDynamic.
func retrySized(err error, cfg *config) bool {
	return errors.Is(err, errNotSized) && !cfg.keepDynamic
}

// runSizes is what binding a run of an executable with run-time sizes
// needs.
type runSizes struct {
	syms []symbol
	// args[i] lists the dynamic dimensions of argument i and their symbols.
	args [][]argSym
	// results[i] holds the sizes of result leaf i when they follow the
	// symbols (nil otherwise: static, or in an arena slot).
	results []leafSizes
	// marked: the program kept its dynamic marks and runs its dynamic
	// values op by op.
	marked bool
}

type argSym struct{ dim, sym int }

// newRunSizes records the symbols of the arguments and results.
func (e *Executable) newRunSizes(t *sizeTable, plan *sched.Plan) *runSizes {
	if t == nil || len(t.syms) == 0 {
		return nil
	}
	r := &runSizes{syms: t.syms, args: make([][]argSym, len(e.params)), results: make([]leafSizes, len(plan.Results)), marked: t.checkFlags}
	for i, leaf := range e.argIndex {
		for s, sym := range t.syms {
			if sym.leaf == leaf {
				r.args[i] = append(r.args[i], argSym{dim: sym.dim, sym: t.find(s)})
			}
		}
	}
	root := plan.Func.Root
	sizes := t.sizesOf(root)
	for i := range r.results {
		if i < len(sizes) && sizes[i].dynamic() {
			r.results[i] = sizes[i]
			e.results[i] = markDynamic(e.results[i], sizes[i])
		}
	}
	return r
}

// markDynamic is s with the dimensions of symbolic size marked dynamic.
func markDynamic(s ir.Shape, l leafSizes) ir.Shape {
	out := s.Clone()
	for d, x := range l {
		if !x.isStatic() && d < out.Rank() {
			if out.Dynamic == nil {
				out.Dynamic = make([]bool, out.Rank())
			}
			out.Dynamic[d] = true
		}
	}
	return out
}

// checkArg checks argument i: the parameter's shape, or for a parameter
// with dynamic dimensions, its static dimensions and a size within the
// bound of each dynamic one.
func (e *Executable) checkArg(i int, a *Tensor) error {
	want := e.params[i]
	if a == nil {
		return argShapeError("argument", i, a, want)
	}
	if a.shape.Equal(want) || (a.shape.EqualIgnoringLayout(want) && a.shape.HasDefaultLayout() && want.HasDefaultLayout()) {
		return nil
	}
	if !want.IsDynamic() || !a.shape.IsArray() || a.shape.Elem != want.Elem || a.shape.Rank() != want.Rank() ||
		!a.shape.HasDefaultLayout() || !want.HasDefaultLayout() {
		return argShapeError("argument", i, a, want)
	}
	for d, n := range want.Dims {
		got := a.shape.Dims[d]
		if want.IsDynamicDim(d) {
			if got > n {
				return argumentError(fmt.Errorf("runtime: argument %d has shape %v: dimension %d has size %d, above its bound %d (want %v)", i, a.shape, d, got, n, want))
			}
			continue
		}
		if got != n {
			return argumentError(fmt.Errorf("runtime: argument %d has shape %v: dimension %d has size %d, want %d (want %v)", i, a.shape, d, got, n, want))
		}
	}
	if len(a.data) < a.shape.ByteSize() {
		return argumentError(fmt.Errorf("runtime: argument %d of shape %v holds %d bytes, want %d", i, a.shape, len(a.data), a.shape.ByteSize()))
	}
	return nil
}

// bindSizes sets the symbols' values of a run from its arguments, checking
// that the symbols the program equates get one value.
func (e *Executable) bindSizes(fr *frame, args []*Tensor) error {
	r := e.sized
	if r == nil {
		return nil
	}
	syms := fr.sizes.syms
	for i := range syms {
		syms[i] = -1
	}
	for i, list := range r.args {
		for _, as := range list {
			n := args[i].shape.Dims[as.dim]
			switch old := syms[as.sym]; {
			case old < 0:
				syms[as.sym] = n
			case old != n:
				return argumentError(fmt.Errorf("runtime: argument %d has size %d in dimension %d, where another argument has %d: the program needs them equal", i, n, as.dim, old))
			}
		}
	}
	for i := range syms {
		syms[i] = max(syms[i], 0)
	}
	return nil
}

// resultNeeds is the bytes result i takes at this run's sizes (its bounds'
// when its sizes travel in an arena slot).
func (e *Executable) resultNeeds(fr *frame, i int) int {
	if e.sized != nil && e.sized.results[i] != nil {
		n := e.results[i].Elem.ByteSize()
		for _, x := range e.sized.results[i] {
			n *= x.eval(fr.sizes.syms)
		}
		return n
	}
	return e.results[i].ByteSize()
}

// checkOut checks result tensor o for result i: the result's shape, or for
// a result of run-time size a shape within its bounds whose storage has
// room for this run's size (the tensor is resized to it).
func (e *Executable) checkOut(fr *frame, i int, o *Tensor) error {
	want := e.results[i]
	if o == nil {
		return argShapeError("result tensor", i, o, want)
	}
	if !want.IsDynamic() {
		if !o.shape.Equal(want) && !(o.shape.EqualIgnoringLayout(want) && o.shape.HasDefaultLayout() && want.HasDefaultLayout()) {
			return argShapeError("result tensor", i, o, want)
		}
		return nil
	}
	if !o.shape.IsArray() || o.shape.Elem != want.Elem || o.shape.Rank() != want.Rank() || !o.shape.Compatible(want) {
		return argShapeError("result tensor", i, o, want)
	}
	if need := e.resultNeeds(fr, i); cap(o.data) < need {
		return argumentError(fmt.Errorf("runtime: result tensor %d of shape %v holds %d bytes, this run's result needs %d (allocate it at %v)", i, o.shape, cap(o.data), need, want))
	}
	return nil
}

// resultBytes is the memory a run writes result i into.
func (e *Executable) resultBytes(fr *frame, i int, o *Tensor) []byte {
	if !e.results[i].IsDynamic() {
		return o.data
	}
	return o.data[:max(len(o.data), e.resultNeeds(fr, i))]
}

// setResultSizes gives each result of run-time size its actual shape.
func (e *Executable) setResultSizes(fr *frame, outs []*Tensor) {
	setResultDims(fr, e.resultDims, outs, e.results)
	if e.sized == nil {
		return
	}
	for i, l := range e.sized.results {
		if l == nil || i >= len(outs) {
			continue
		}
		// The tensor's dimensions are rewritten in place (no allocation).
		o := outs[i]
		if len(o.shape.Dims) != len(l) {
			o.shape = e.results[i].Clone()
		}
		o.shape.Dynamic = nil
		l.eval(fr.sizes.syms, o.shape.Dims)
		o.data = o.data[:o.shape.ByteSize()]
	}
}

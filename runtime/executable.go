package runtime

import (
	"context"
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// Executable is a compiled module: a plan of steps over Kiln's kernels that
// can be run many times, concurrently from many goroutines.
type Executable struct {
	module  *ir.Module
	entry   *program
	params  []ir.Shape // the unbound parameters, in the order Run takes them
	results []ir.Shape
	// bound[i] is the tensor bound to entry parameter leaf i at compile time
	// (nil for the leaves Run takes).
	bound []*Tensor
	// argIndex maps each argument of Run to its entry parameter leaf.
	argIndex []int
	frames   framePool
	stats    Stats
	threads  int
	// resultDims are the arena slots of the actual sizes of dynamic results.
	resultDims []loc
}

// Compile compiles module m. Options bind parameters to fixed tensors (which
// then become constants for every pass: weights are folded and prepacked),
// set the number of threads, and control the passes.
func Compile(m *ir.Module, opts ...Option) (*Executable, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(cfg)
	}
	if elided := m.ElidedConstants(); len(elided) > 0 {
		if cfg.elided == nil {
			c := elided[0]
			return nil, fmt.Errorf("runtime: constant %q of shape %s has its value elided ({...}) in the module text; export the module with its constants, or pass WithElidedConstants to fill them",
				c.Name, c.Shape.StringWithoutLayout())
		}
		if err := m.FillElidedConstants(cfg.elided); err != nil {
			return nil, fmt.Errorf("runtime: %w", err)
		}
	}
	if in, t := m.InstructionWithTypeOutside(ir.AllElementTypes); in != nil {
		return nil, fmt.Errorf("runtime: %s (%v) has a value of element type %v, which the compiler does not support", in.Name, in.Opcode, t)
	}
	if err := m.Verify(); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	prog, err := ssa.Lower(m)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	e := &Executable{module: m, threads: cfg.threads}
	if err := e.bindParameters(prog, cfg); err != nil {
		return nil, err
	}
	if err := ssa.Optimize(prog, cfg.passes); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	plan, err := sched.Schedule(prog, sched.Options{NoFusion: cfg.noFusion, Threads: cfg.threads})
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	c := &compiler{module: m, cfg: cfg}
	if e.entry, err = c.program(plan); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	for _, r := range plan.Results {
		e.results = append(e.results, r.Shape)
	}
	e.resultDims = c.resultDims(plan)
	if err := e.declareResultLayouts(m); err != nil {
		return nil, err
	}
	e.frames.make = e.entry.newFrame
	e.stats = collectStats(plan, e.entry)
	return e, nil
}

// declareResultLayouts replaces the plan's shape of each result the module
// declares with a non-default layout by the declared shape. The plan writes
// such a result as the dense row-major array of its physical shape (the
// dimensions in the layout's major-to-minor order), which is exactly the
// declared shape's bytes; the caller must see the logical dimensions and
// the layout, as for parameters.
func (e *Executable) declareResultLayouts(m *ir.Module) error {
	declared := m.Entry.Root.Shape
	if m.EntryLayout != nil {
		declared = m.EntryLayout.Result
	}
	leaves := leafShapes(declared)
	if len(leaves) != len(e.results) {
		return fmt.Errorf("runtime: the module declares %d results, the plan has %d", len(leaves), len(e.results))
	}
	for i, d := range leaves {
		if !d.IsArray() || d.Layout == nil || d.HasDefaultLayout() {
			continue
		}
		if d.ByteSize() != e.results[i].ByteSize() {
			return fmt.Errorf("runtime: result %d is declared %v, the plan writes %v", i, d, e.results[i])
		}
		e.results[i] = d.Clone()
	}
	return nil
}

// bindParameters replaces the parameters bound by options with constants and
// records the shapes of the ones Run takes.
func (e *Executable) bindParameters(prog *ssa.Program, cfg *config) error {
	entry := prog.Entry
	leaf := 0
	for i, p := range entry.Params {
		t, ok := cfg.params[i]
		if !ok && cfg.weights != nil && p.Shape.IsArray() {
			t, ok = cfg.weights.lookup(e.module.Entry.Parameters[i])
		}
		if !ok {
			for _, s := range leafShapes(p.Shape) {
				e.params = append(e.params, s)
				e.argIndex = append(e.argIndex, leaf)
				e.bound = append(e.bound, nil)
				leaf++
			}
			continue
		}
		if !p.Shape.IsArray() {
			return fmt.Errorf("runtime: WithParameter(%d): parameter %s is a %v, only array parameters can be bound", i, p.Name, p.Shape)
		}
		if !t.shape.Compatible(p.Shape) {
			return fmt.Errorf("runtime: parameter %d (%s) has shape %v, the bound tensor has %v",
				i, p.Name, p.Shape.StringWithoutLayout(), t.shape.StringWithoutLayout())
		}
		e.bound = append(e.bound, t)
		leaf++
		c := entry.NewValue(ssa.OpConstant, p.Shape.Clone())
		c.Attrs.Literal = t.Literal()
		c.Name = p.Name
		entry.Values = append([]*ssa.Value{c}, entry.Values...)
		entry.Replace(p, c)
	}
	for i := range cfg.params {
		if i < 0 || i >= len(entry.Params) {
			return fmt.Errorf("runtime: WithParameter(%d): the entry computation has %d parameters", i, len(entry.Params))
		}
	}
	// The bound parameters stay in the function's signature (the plan binds
	// nothing to them); Run fills only the unbound ones.
	return nil
}

// ParameterShapes are the shapes of the arguments Run takes, in order.
func (e *Executable) ParameterShapes() []ir.Shape { return e.params }

// ResultShapes are the shapes of the tensors Run returns, in order (a tuple
// result is flattened).
func (e *Executable) ResultShapes() []ir.Shape { return e.results }

// Run executes the plan on args (one tensor per unbound parameter) and
// returns newly allocated results. Use RunInto to reuse result tensors.
func (e *Executable) Run(ctx context.Context, args ...*Tensor) ([]*Tensor, error) {
	outs := make([]*Tensor, len(e.results))
	for i, s := range e.results {
		t, err := NewTensor(s)
		if err != nil {
			return nil, err
		}
		outs[i] = t
	}
	if err := e.RunInto(ctx, outs, args...); err != nil {
		return nil, err
	}
	return outs, nil
}

// RunInto executes the plan on args and writes the results into outs, whose
// shapes must match ResultShapes. In steady state it allocates nothing. It
// is safe to call from many goroutines at once; ctx is checked between steps
// and inside loops.
func (e *Executable) RunInto(ctx context.Context, outs []*Tensor, args ...*Tensor) error {
	if len(args) != len(e.params) {
		return fmt.Errorf("runtime: %d arguments given, the executable takes %d", len(args), len(e.params))
	}
	if len(outs) != len(e.results) {
		return fmt.Errorf("runtime: %d result tensors given, the executable returns %d", len(outs), len(e.results))
	}
	fr, err := e.bind(ctx, outs, args)
	if err != nil {
		return err
	}
	err = e.entry.run(fr)
	if err == nil {
		setResultDims(fr, e.resultDims, outs, e.results)
	}
	e.release(fr)
	return err
}

// bind checks the arguments and result tensors and binds them to a frame
// taken from the pool.
func (e *Executable) bind(ctx context.Context, outs, args []*Tensor) (*frame, error) {
	for i, a := range args {
		if a == nil || !a.shape.Equal(e.params[i]) && !(a.shape.EqualIgnoringLayout(e.params[i]) && a.shape.HasDefaultLayout() && e.params[i].HasDefaultLayout()) {
			return nil, argShapeError("argument", i, a, e.params[i])
		}
	}
	for i, o := range outs {
		if o == nil || !o.shape.Equal(e.results[i]) && !(o.shape.EqualIgnoringLayout(e.results[i]) && o.shape.HasDefaultLayout() && e.results[i].HasDefaultLayout()) &&
			!sameBounds(o.shape, e.results[i]) {
			return nil, argShapeError("result tensor", i, o, e.results[i])
		}
	}
	fr := e.frames.get()
	fr.ctx = ctx
	for i, a := range args {
		fr.params[e.argIndex[i]] = a.data
	}
	for i, t := range e.bound {
		if t != nil {
			fr.params[i] = t.data
		}
	}
	for i, o := range outs {
		fr.results[i] = o.data
	}
	return fr, nil
}

// release returns a frame to the pool, dropping its references to the
// caller's tensors.
func (e *Executable) release(fr *frame) {
	fr.ctx = nil
	clear(fr.params)
	clear(fr.results)
	e.frames.put(fr)
}

func argShapeError(what string, i int, t *Tensor, want ir.Shape) error {
	if t == nil {
		return fmt.Errorf("runtime: %s %d is nil, want %v", what, i, want)
	}
	return fmt.Errorf("runtime: %s %d has shape %v, want %v", what, i, t.shape, want)
}

// Stats describes the compiled plan.
func (e *Executable) Stats() Stats { return e.stats }

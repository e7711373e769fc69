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
	// paramInfo and resultInfo name them.
	paramInfo, resultInfo []ValueInfo
	// bound[i] is the tensor bound to entry parameter leaf i at compile time
	// (nil for the leaves Run takes).
	bound []*Tensor
	// argIndex maps each argument of Run to its entry parameter leaf.
	argIndex []int
	frames   framePool
	stats    Stats
	threads  int
	// memoryLimit bounds each argument and result tensor (0: no limit).
	memoryLimit int64
	// resultDims are the arena slots of the actual sizes of dynamic results.
	resultDims []loc
	// sized binds run-time sizes from dynamic parameters (nil if none).
	sized *runSizes
}

// Compile compiles module m. Options bind parameters to fixed tensors (which
// then become constants for every pass: weights are folded and prepacked),
// set the number of threads, bound the memory and the runs in flight, and
// control the passes.
//
// Errors wrap ErrArgument (options that do not fit the module, such as a
// weights tensor that binds to nothing), ErrUnsupported (an op or feature
// Kiln does not run, named) or ErrMemoryLimit where they apply.
func Compile(m *ir.Module, opts ...Option) (*Executable, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(cfg)
	}
	log := newStageLog(cfg.logger, m)
	if elided := m.ElidedConstants(); len(elided) > 0 {
		if cfg.elided == nil {
			c := elided[0]
			return nil, fmt.Errorf("runtime: constant %q of shape %s has its value elided ({...}) in the module text; export the module with its constants, or pass WithElidedConstants to fill them",
				c.Name, c.Shape.StringWithoutLayout())
		}
		if err := checkElidedMemory(elided, cfg.memoryLimit); err != nil {
			return nil, err
		}
		if err := m.FillElidedConstants(cfg.elided); err != nil {
			return nil, fmt.Errorf("runtime: %w", err)
		}
	}
	if in, t := m.InstructionWithTypeOutside(ir.AllElementTypes); in != nil {
		return nil, unsupportedError(fmt.Errorf("runtime: %s (%v) has a value of element type %v, which the compiler does not support", in.Name, in.Opcode, t))
	}
	if err := m.Verify(); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	log.stage("verify")
	orig := m
	m, err := relaxModule(m, cfg)
	if err != nil {
		return nil, err
	}
	prog, err := ssa.Lower(m)
	if err != nil {
		return nil, classify(fmt.Errorf("runtime: %w", err))
	}
	log.stage("lower")
	e := &Executable{module: m, threads: cfg.threads, memoryLimit: cfg.memoryLimit}
	if err := e.bindParameters(prog, cfg); err != nil {
		return nil, err
	}
	log.stage("bind")
	dynDims, stripped := stripSizes(prog, cfg)
	if err := ssa.Optimize(prog, cfg.passes); err != nil {
		return nil, classify(fmt.Errorf("runtime: %w", err))
	}
	log.stage("optimize")
	plan, err := sched.Schedule(prog, sched.Options{NoFusion: cfg.noFusion, Threads: cfg.threads})
	if err != nil {
		return nil, classify(fmt.Errorf("runtime: %w", err))
	}
	log.stage("schedule")
	c := &compiler{module: m, cfg: cfg, constants: map[*ir.Literal]bool{}}
	if c.sizes, err = followSizes(prog, dynDims, stripped); err == nil {
		e.entry, err = c.program(plan)
	}
	if retrySized(err, cfg) {
		// The program compiled at its bounds cannot follow its run-time
		// sizes: compile it again on its dynamic marks.
		return Compile(orig, append(opts, keepDynamic())...)
	}
	if err != nil {
		return nil, classify(fmt.Errorf("runtime: %w", err))
	}
	log.stage("steps")
	for _, r := range plan.Results {
		e.results = append(e.results, r.Shape)
	}
	e.resultDims = c.resultDims(plan)
	if e.sized = e.newRunSizes(c.sizes, plan); e.sized != nil {
		e.entry.sized.symbols = len(e.sized.syms)
	}
	if err := e.declareResultLayouts(m); err != nil {
		return nil, err
	}
	e.resultInfo = resultInfos(m.Entry.Root, m.Entry.Root.Shape)
	for i := range e.resultInfo {
		if i < len(e.results) {
			e.resultInfo[i].Shape = e.results[i]
		}
	}
	e.stats = collectStats(plan, e.entry, c)
	// Steps compiled while running (dynamic shapes) are not counted: the
	// compiler may then be used from many runs at once.
	c.constants = nil
	limit, err := e.checkMemory(cfg)
	if err != nil {
		return nil, err
	}
	e.frames.init(e.entry.newFrame, limit, cfg.idleFrames, cfg.idleAfter)
	e.stats.MaxFrames = limit
	log.done(e.stats)
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

// bindParameters replaces the parameters bound by options with constants
// holding copies of the bound tensors, and records the shapes of the ones
// Run takes.
func (e *Executable) bindParameters(prog *ssa.Program, cfg *config) error {
	entry := prog.Entry
	for i := range cfg.params {
		if i < 0 || i >= len(entry.Params) {
			return argumentError(fmt.Errorf("runtime: WithParameter(%d): the entry computation has %d parameters", i, len(entry.Params)))
		}
	}
	var byName map[int]string
	if cfg.weights != nil {
		var err error
		if byName, err = matchWeights(e.module.Entry, cfg.weights, cfg.params, cfg.allowUnused); err != nil {
			return err
		}
	}
	leaf := 0
	for i, p := range entry.Params {
		t, ok := cfg.params[i]
		what := fmt.Sprintf("WithParameter(%d)", i)
		if name, byWeights := byName[i]; !ok && byWeights {
			t, ok = cfg.weights[name], true
			what = fmt.Sprintf("WithWeights: tensor %q", name)
		}
		if !ok {
			param := e.module.Entry.Parameters[i]
			e.paramInfo = append(e.paramInfo, leafInfos(param.Name, param.Shape)...)
			for _, s := range leafShapes(p.Shape) {
				e.params = append(e.params, s)
				e.argIndex = append(e.argIndex, leaf)
				e.bound = append(e.bound, nil)
				leaf++
			}
			continue
		}
		if t == nil {
			return argumentError(fmt.Errorf("runtime: %s: the tensor is nil", what))
		}
		if !p.Shape.IsArray() {
			return argumentError(fmt.Errorf("runtime: %s: parameter %d (%s) is a %v, only array parameters can be bound", what, i, p.Name, p.Shape))
		}
		if !t.shape.Compatible(p.Shape) {
			return argumentError(fmt.Errorf("runtime: %s: parameter %d (%s) has shape %v, the tensor has %v",
				what, i, p.Name, p.Shape.StringWithoutLayout(), t.shape.StringWithoutLayout()))
		}
		// The executable's own copy: the caller may change, drop or Close
		// the tensor's storage afterwards.
		own := t.Clone()
		e.bound = append(e.bound, own)
		leaf++
		c := entry.NewValue(ssa.OpConstant, p.Shape.Clone())
		c.Attrs.Literal = own.Literal()
		c.Name = p.Name
		entry.Values = append([]*ssa.Value{c}, entry.Values...)
		entry.Replace(p, c)
	}
	// The bound parameters stay in the function's signature (the plan binds
	// nothing to them); Run fills only the unbound ones.
	return nil
}

// Parameters describes the arguments Run takes, in order: one per array
// leaf of every entry parameter not bound at compile time.
func (e *Executable) Parameters() []ValueInfo { return cloneInfos(e.paramInfo) }

// Results describes the tensors Run returns, in order (a tuple result is
// flattened to its array leaves).
func (e *Executable) Results() []ValueInfo { return cloneInfos(e.resultInfo) }

func cloneInfos(in []ValueInfo) []ValueInfo {
	out := make([]ValueInfo, len(in))
	for i, v := range in {
		out[i] = ValueInfo{Name: v.Name, Shape: v.Shape.Clone()}
	}
	return out
}

// ParameterShapes are the shapes of the arguments Run takes, in order.
func (e *Executable) ParameterShapes() []ir.Shape { return e.params }

// ResultShapes are the shapes of the tensors Run returns, in order (a tuple
// result is flattened).
func (e *Executable) ResultShapes() []ir.Shape { return e.results }

// Run executes the plan on args (one tensor per unbound parameter) and
// returns newly allocated results. Use RunInto to reuse result tensors.
func (e *Executable) Run(ctx context.Context, args ...*Tensor) ([]*Tensor, error) {
	if err := e.checkArgs(args); err != nil {
		return nil, err
	}
	outs := make([]*Tensor, len(e.results))
	for i, s := range e.results {
		if err := e.checkTensorBytes("result", i, int64(s.ByteSize())); err != nil {
			return nil, err
		}
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
// is safe to call from many goroutines at once; ctx is checked before each
// step and each while-loop iteration, within long steps between blocks of
// well under a millisecond of work (cancel.go), and while waiting for a
// frame (WithMaxConcurrentRuns). A run stopped by ctx returns ctx.Err()
// (leaving outs unfinished); wrong arguments return an error wrapping
// ErrArgument.
func (e *Executable) RunInto(ctx context.Context, outs []*Tensor, args ...*Tensor) error {
	if err := e.checkArgs(args); err != nil {
		return err
	}
	if len(outs) != len(e.results) {
		return argumentError(fmt.Errorf("runtime: %d result tensors given, the executable returns %d", len(outs), len(e.results)))
	}
	fr, err := e.bind(ctx, outs, args)
	if err != nil {
		return err
	}
	err = e.entry.run(fr)
	if err == nil {
		e.setResultSizes(fr, outs)
	}
	e.release(fr)
	return classify(err)
}

// checkArgs checks the number of arguments and, under a memory limit,
// their sizes.
func (e *Executable) checkArgs(args []*Tensor) error {
	if len(args) != len(e.params) {
		return argumentError(fmt.Errorf("runtime: %d arguments given, the executable takes %d (%s)", len(args), len(e.params), infoList(e.paramInfo)))
	}
	for i, a := range args {
		if a != nil {
			if err := e.checkTensorBytes("argument", i, int64(len(a.data))); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *Executable) checkTensorBytes(what string, i int, n int64) error {
	if e.memoryLimit > 0 && n > e.memoryLimit {
		return memoryError(fmt.Errorf("runtime: %s %d needs %d bytes, the memory limit allows %d", what, i, n, e.memoryLimit))
	}
	return nil
}

// bind checks the arguments and result tensors and binds them to a frame
// taken from the pool.
func (e *Executable) bind(ctx context.Context, outs, args []*Tensor) (*frame, error) {
	for i, a := range args {
		if err := e.checkArg(i, a); err != nil {
			return nil, err
		}
	}
	fr, err := e.frames.get(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.bindSizes(fr, args); err != nil {
		e.frames.put(fr)
		return nil, err
	}
	for i, o := range outs {
		if err := e.checkOut(fr, i, o); err != nil {
			e.frames.put(fr)
			return nil, err
		}
	}
	fr.ctx = ctx
	fr.watch(ctx)
	for i, a := range args {
		fr.params[e.argIndex[i]] = a.data
	}
	for i, t := range e.bound {
		if t != nil {
			fr.params[i] = t.data
		}
	}
	for i, o := range outs {
		fr.results[i] = e.resultBytes(fr, i, o)
	}
	return fr, nil
}

// release returns a frame to the pool, dropping its references to the
// caller's tensors.
func (e *Executable) release(fr *frame) {
	fr.ctx = nil
	fr.cancel.Watch(nil)
	clear(fr.params)
	clear(fr.results)
	e.frames.put(fr)
}

func argShapeError(what string, i int, t *Tensor, want ir.Shape) error {
	if t == nil {
		return argumentError(fmt.Errorf("runtime: %s %d is nil, want %v", what, i, want))
	}
	return argumentError(fmt.Errorf("runtime: %s %d has shape %v, want %v", what, i, t.shape, want))
}

// Stats describes the compiled plan and the memory it holds now.
func (e *Executable) Stats() Stats {
	s := e.stats
	s.FramesHeld = e.frames.held()
	return s
}

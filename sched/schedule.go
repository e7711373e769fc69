package sched

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// stage is one named step of scheduling a function.
type stage struct {
	name string
	fn   func(s *scheduler) error
	// off runs in the stage's place when it is disabled; a stage without
	// it cannot be disabled (the plan needs it).
	off      func(s *scheduler) error
	optional bool
}

// stages are the scheduler's steps, in order, each in its own file and
// named like ssa's passes: any optional one can be turned off
// (KILN_DISABLE_PASS=name) and the plan printed after any
// (KILN_DUMP=after:name). (Set by init: the select stage schedules subplans
// with the same stages.)
var stages [7]stage

func init() {
	stages = [...]stage{
		// fusion groups values into kernels: elementwise loops absorbing their
		// producers, reductions computing their operand, dot and convolution
		// epilogues (off: one value per kernel).
		{name: "fusion", fn: fusion, off: noFusion, optional: true},
		// rows fuses chains of kernels over the same rows (row reductions,
		// the loops over their results and the loops reading them along the
		// rows) into one loop computing each row whole: the bfloat16
		// layer-norms, whose row arithmetic the runtime runs as fused
		// passes (see rows.go).
		{name: "rows", fn: fuseRows, optional: true},
		// select binds every kernel's inputs and output to buffers and decides
		// how it runs: its loop program and maps, GEMM shape and packing,
		// convolution algorithm, reducer.
		{name: "select", fn: selectKernels},
		// ordering reorders kernels to keep the peak of live bytes low.
		{name: "ordering", fn: order, optional: true},
		// in-place lets loops write over an input they read last, element for
		// element, and decides which results may be written over parameters.
		{name: "in-place", fn: reuseInPlace, off: noInPlace, optional: true},
		// buffers places the arena buffers by their live ranges.
		{name: "buffers", fn: placeBuffers},
		// parallel decides how many parts each kernel's work is split into.
		{name: "parallel", fn: splitParallel, off: noSplit, optional: true},
	}
	ssa.RegisterLaterStages(StageNames()...)
}

// StageNames lists the scheduler's stages in order.
func StageNames() []string {
	names := make([]string, len(stages))
	for i, st := range stages {
		names[i] = st.name
	}
	return names
}

// Options configure Schedule.
type Options struct {
	// NoFusion keeps every value in a kernel of its own, as Disable
	// "fusion" does (for debugging and for differential tests of the fusion
	// itself).
	NoFusion bool
	// Threads is the number of workers big kernels may be split across.
	Threads int
	// Disable names optional stages to skip; DumpAfter names stages after
	// which the plan is printed to DumpTo ("all": after every stage).
	// Names of ssa's passes are ignored, so that one list serves both.
	Disable   []string
	DumpAfter []string
	DumpTo    io.Writer
}

// OptionsFromEnv reads the stage names of KILN_DISABLE_PASS (comma
// separated) and KILN_DUMP (comma-separated `after:NAME` items), dumping to
// stderr. Schedule applies them when its options name no stages.
func OptionsFromEnv() Options {
	var o Options
	if s := os.Getenv("KILN_DISABLE_PASS"); s != "" {
		o.Disable = strings.Split(s, ",")
	}
	if s := os.Getenv("KILN_DUMP"); s != "" {
		for _, item := range strings.Split(s, ",") {
			if name, ok := strings.CutPrefix(strings.TrimSpace(item), "after:"); ok {
				o.DumpAfter = append(o.DumpAfter, name)
			}
		}
		o.DumpTo = os.Stderr
	}
	return o
}

// Schedule plans the entry function of an optimised program, and the region
// functions the runtime runs as subplans of it.
func Schedule(p *ssa.Program, opts Options) (*Plan, error) {
	if opts.Threads <= 0 {
		opts.Threads = 1
	}
	if opts.Disable == nil && opts.DumpAfter == nil && opts.DumpTo == nil {
		env := OptionsFromEnv()
		opts.Disable, opts.DumpAfter, opts.DumpTo = env.Disable, env.DumpAfter, env.DumpTo
	}
	for _, name := range opts.Disable {
		i := slices.IndexFunc(stages[:], func(st stage) bool { return st.name == name })
		if i >= 0 && !stages[i].optional {
			return nil, fmt.Errorf("sched: stage %q cannot be disabled (optional stages: %s)", name, strings.Join(optionalStages(), ", "))
		}
	}
	if opts.NoFusion && !slices.Contains(opts.Disable, "fusion") {
		opts.Disable = append(slices.Clone(opts.Disable), "fusion")
	}
	return scheduleFunc(p.Entry, opts, funcRole{aliases: moduleAliases(p)})
}

func optionalStages() []string {
	var names []string
	for _, st := range stages {
		if st.optional {
			names = append(names, st.name)
		}
	}
	return names
}

// funcRole says how the runtime uses a function's plan: the pairs of result
// and parameter leaves whose memory may be shared (a while body's state,
// the module's input_output_alias).
type funcRole struct {
	aliases []ResultAlias
}

// scheduleFunc plans one function by running the stages over it.
func scheduleFunc(f *ssa.Func, opts Options, role funcRole) (*Plan, error) {
	pl := &Plan{Func: f, Values: map[*ssa.Value]*Buffer{}, Subplans: map[*ssa.Func]*Plan{}, Aliases: role.aliases}
	s := &scheduler{plan: pl, opts: opts, cls: classes{}}
	for _, st := range stages {
		fn := st.fn
		if slices.Contains(opts.Disable, st.name) {
			fn = st.off
		}
		if fn != nil {
			if err := fn(s); err != nil {
				return nil, fmt.Errorf("sched: stage %s: %w", st.name, err)
			}
		}
		if opts.DumpTo != nil && (slices.Contains(opts.DumpAfter, st.name) || slices.Contains(opts.DumpAfter, "all")) {
			fmt.Fprintf(opts.DumpTo, "// after %s\n%s\n", st.name, pl)
		}
	}
	return pl, nil
}

type scheduler struct {
	plan *Plan
	opts Options
	cls  classes
}

func (s *scheduler) newBuffer(kind BufferKind, shape ir.Shape) *Buffer {
	b := &Buffer{ID: len(s.plan.Buffers), Kind: kind, Shape: shape, First: -1, Last: -1}
	s.plan.Buffers = append(s.plan.Buffers, b)
	return b
}

// kindOf is the kernel kind that executes a single value: the dedicated
// kinds by op, and Loop for every value an elementwise loop can compute (by
// its class).
func kindOf(v *ssa.Value, cls classes) KernelKind {
	switch v.Op {
	case ssa.OpDot:
		return Dot
	case ssa.OpConvolution:
		return Conv
	case ssa.OpReduce:
		return Reduce
	case ssa.OpSoftmax:
		return Softmax
	case ssa.OpLayerNorm:
		return LayerNorm
	case ssa.OpWhile:
		return While
	case ssa.OpConditional:
		return Conditional
	case ssa.OpCopy:
		return Copy
	}
	if cls.of(v) != Opaque {
		return Loop
	}
	return Generic
}

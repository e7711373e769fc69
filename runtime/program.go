package runtime

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// step is one unit of a compiled program. Everything a step needs is fixed
// when it is compiled; per-run state lives in the frame, so one step serves
// concurrent runs, and exec allocates nothing.
type step interface {
	exec(fr *frame) error
}

// program is a compiled plan: its steps and the memory a run of it needs.
type program struct {
	plan     *sched.Plan
	steps    []step
	arena    int // bytes of this program's own arena
	nParams  int
	nResults int
	id       int        // index of this program's frame in frame.sub
	subs     []*program // programs of subplans (while bodies, branches), recursively
	all      []*program // on the entry program: every program of the tree, by id
	scratch  int        // bytes of per-worker scratch any step of the tree needs
	workers  int
	sized    programSizes // run-time sizes (dynamic_steps.go)
	// donated (entry program): the module's input_output_alias pairs the
	// plan cannot write in place; a run whose caller passes the same memory
	// as the parameter and the result first moves the parameter into the
	// frame's own copy.
	donated []sched.ResultAlias
}

// frame is the state of one run of a program tree: the arena, the bound
// parameters and results of each program, and per-worker scratch.
type frame struct {
	ctx context.Context
	// cancel watches ctx for the whole tree of frames (shared): steps and
	// kernels poll it between blocks of their work (cancel.go).
	cancel  *kiln.Cancel
	arena   []byte
	params  [][]byte
	results [][]byte
	sub     []*frame    // frames of every program of the tree, by program id (shared)
	scratch [][]byte    // one scratch area per worker (shared by the tree)
	task    task        // this frame's parallel task (steps of one program run one at a time)
	sizes   *frameSizes // run-time sizes and the steps sized by them (nil when all are static)
	// idleSince is when the frame was last returned to its pool.
	idleSince time.Time
	own       [][]byte // per donated alias of the program, the parameter's copy
}

// loc is where a buffer lives at run time, resolved at compile time: which
// memory (arena, a parameter, a result, or constant data) and the byte
// range within it.
type loc struct {
	kind  sched.BufferKind
	index int // parameter or result index
	off   int
	size  int
	data  []byte // Constant
}

// bytes returns the memory of l in this frame. A parameter or result of a
// run-time size may be shorter than its bounds: its bytes end there.
func (fr *frame) bytes(l loc) []byte {
	switch l.kind {
	case sched.Arena:
		return fr.arena[l.off : l.off+l.size : l.off+l.size]
	case sched.Param:
		return within(fr.params[l.index], l.off, l.size)
	case sched.Result:
		return within(fr.results[l.index], l.off, l.size)
	}
	return l.data
}

// within is b[off:off+size], cut at the end of b.
func within(b []byte, off, size int) []byte {
	end := min(off+size, len(b))
	off = min(off, end)
	return b[off:end:end]
}

// run executes the program's steps in order, checking for cancellation
// between them and after the last: a step stopped early by it leaves its
// output unfinished, and the run must not go on as if it were done.
func (p *program) run(fr *frame) error {
	for i, a := range p.donated {
		if prm, res := fr.params[a.Param], fr.results[a.Result]; overlaps(prm, res) {
			copy(fr.own[i], prm)
			fr.params[a.Param] = fr.own[i][:len(prm):len(prm)]
		}
	}
	for _, s := range p.steps {
		if err := fr.cancelled(); err != nil {
			return err
		}
		if err := s.exec(fr); err != nil {
			return err
		}
	}
	return fr.cancelled()
}

// newFrame allocates the frames of the whole program tree: one arena holding
// every program's arena, and one scratch area per worker.
func (p *program) newFrame() *frame {
	total := 0
	for _, q := range p.all {
		total += roundUp(q.arena, 64)
	}
	arena := alignedBytes(total)
	frames := make([]*frame, len(p.all))
	cancel := new(kiln.Cancel)
	scratch := make([][]byte, max(p.workers, 1))
	for i := range scratch {
		scratch[i] = alignedBytes(p.scratch)
	}
	off := 0
	for i, q := range p.all {
		n := roundUp(q.arena, 64)
		frames[i] = &frame{
			arena:   arena[off : off+q.arena : off+q.arena],
			params:  make([][]byte, q.nParams),
			results: make([][]byte, q.nResults),
			sub:     frames,
			scratch: scratch,
			cancel:  cancel,
		}
		off += n
	}
	for _, q := range p.all {
		for _, a := range q.donated {
			frames[q.id].own = append(frames[q.id].own, alignedBytes(paramLeafSize(q.plan, a.Param)))
		}
	}
	attachSizes(p.all, frames)
	return frames[p.id]
}

// noteConstant records a constant literal a step reads, during Compile.
func (c *compiler) noteConstant(l *ir.Literal) {
	if c.constants != nil {
		c.constants[l] = true
	}
}

// notePacked records n bytes of weights packed for a kernel, during Compile.
func (c *compiler) notePacked(n int) {
	if c.constants != nil {
		c.packedBytes += n
	}
}

// frameBytes is the memory newFrame allocates for its arenas, scratch and
// the copies of donated parameters.
func (p *program) frameBytes() int {
	total := 0
	for _, q := range p.all {
		total += roundUp(q.arena, 64)
		for _, a := range q.donated {
			total += roundUp(paramLeafSize(q.plan, a.Param), 64)
		}
	}
	return total + max(p.workers, 1)*p.scratch
}

// paramLeafSize is the size in bytes of parameter leaf i of a plan.
func paramLeafSize(plan *sched.Plan, i int) int {
	for _, b := range plan.Buffers {
		if b.Kind == sched.Param && b.Param == i {
			return b.Size()
		}
	}
	return 0
}

// overlaps reports whether two byte slices share memory.
func overlaps(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// countLeafParams is the number of array leaves of the plan's parameters:
// frames hold parameters leaf by leaf.
func countLeafParams(plan *sched.Plan) int {
	n := 0
	for _, b := range plan.Buffers {
		if b.Kind == sched.Param {
			n++
		}
	}
	return n
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// compiler turns plans into programs.
type compiler struct {
	module *ir.Module
	cfg    *config
	all    []*program
	// constants records the constant literals the steps read, and
	// packedBytes the size of the weights packed for kernels (Stats), while
	// Compile runs; steps compiled during runs (dynamic shapes) are not
	// counted, and leave both alone.
	constants   map[*ir.Literal]bool
	packedBytes int
	// dims holds the arena slots of the actual sizes of dynamic values.
	dims map[dimsKey]loc
	// lowp is what the narrow-type paths decided for later kernels.
	lowp lowpState
	// sizes holds the run-time sizes of values that follow the entry
	// parameters' dynamic dimensions (nil when there are none).
	sizes *sizeTable
}

// program compiles a plan and, recursively, its subplans.
func (c *compiler) program(plan *sched.Plan) (*program, error) {
	p := &program{plan: plan, arena: plan.ArenaBytes, nParams: countLeafParams(plan), nResults: len(plan.Results),
		id: len(c.all), workers: c.cfg.threads}
	c.all = append(c.all, p)
	for _, k := range plan.Kernels {
		s, err := c.kernel(plan, k, p)
		if err != nil {
			return nil, err
		}
		p.steps = append(p.steps, s)
	}
	if p.id == 0 {
		for _, a := range plan.Aliases {
			if !a.InPlace {
				p.donated = append(p.donated, a)
			}
		}
		p.all = c.all
		for _, q := range c.all {
			p.scratch = max(p.scratch, q.scratch)
		}
	}
	return p, nil
}

// loc resolves an array buffer to where it lives, following aliases.
func (c *compiler) loc(b *sched.Buffer) loc {
	root, off := b.Root()
	l := loc{kind: root.Kind, off: off, size: b.Size()}
	switch root.Kind {
	case sched.Arena:
		l.off += root.Offset
	case sched.Param:
		l.index = root.Param
	case sched.Result:
		l.index = root.Result
	case sched.Constant:
		l.data = root.Literal.Bytes()[off : off+b.Size()]
		c.noteConstant(root.Literal)
	}
	return l
}

// leaves resolves a buffer to the locations of its array leaves, depth first.
func (c *compiler) leaves(b *sched.Buffer) []loc {
	if b.Kind != sched.Tuple {
		return []loc{c.loc(b)}
	}
	var out []loc
	for _, e := range b.Elems {
		out = append(out, c.leaves(e)...)
	}
	return out
}

// genericSteps holds, per op, the builder of its generic step: the op's
// semantics as ir/ops plans them (generic_*.go). Each op family's file
// registers its builders from an init function.
var genericSteps = map[ssa.Op]func(c *compiler, k *sched.Kernel, p *program) (step, error){}

// kernel compiles one kernel into a step: a dedicated implementation when
// one applies, the generic one otherwise. A kernel that touches arrays with
// dynamic dimensions runs value by value on their run-time sizes.
func (c *compiler) kernel(plan *sched.Plan, k *sched.Kernel, p *program) (step, error) {
	var s step
	var err error
	if c.runtimeSized(k) {
		s, err = c.sizedKernel(plan, k, p)
	} else {
		s, err = c.staticKernel(plan, k, p)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k, err)
	}
	k.Impl = implName(s)
	return s, nil
}

// staticKernel compiles a kernel whose arrays all have static shapes.
func (c *compiler) staticKernel(plan *sched.Plan, k *sched.Kernel, p *program) (step, error) {
	s, err := c.lowpKernel(plan, k, p)
	if s != nil || err != nil {
		return s, err
	}
	switch k.Kind {
	case sched.Copy:
		s, err = c.copyStep(k)
	case sched.While:
		s, err = c.whileStep(plan, k)
	case sched.Conditional:
		s, err = c.conditionalStep(plan, k)
	case sched.Dot:
		s, err = c.dotStep(k, p)
	case sched.Attention:
		s, err = c.attentionStep(k, p)
	case sched.Conv:
		s, err = c.convStep(k, p)
	case sched.Softmax:
		s, err = c.softmaxStep(k)
	case sched.LayerNorm:
		s, err = c.layerNormStep(k)
	case sched.Loop:
		if s, err = c.loopStep(k, p); s == nil && err == nil {
			if is := c.intLoopStep(k, p); is != nil {
				s = is
			}
		}
	case sched.Reduce:
		s, err = c.reduceStep(k, p)
	}
	if s != nil || err != nil {
		return s, err
	}
	if len(k.Values) == 1 {
		build, ok := genericSteps[k.Root.Op]
		if !ok {
			return nil, unsupportedError(fmt.Errorf("op %q is not supported by the compiled path", k.Root.Op))
		}
		return build(c, k, p)
	}
	if k.Kind == sched.Loop || k.Kind == sched.Reduce {
		if s, err = c.genericFusedStep(k, p); s != nil && err == nil {
			return s, nil
		}
	}
	return c.groupStep(plan, k, p)
}

func prod(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

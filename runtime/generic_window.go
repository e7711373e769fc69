package runtime

// reduce-window and select-and-scatter, as ir/ops plans them; float32
// pooling takes the vector path of window_f32.go.

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.OpReduceWindow] = buildReduceWindow
	genericSteps[ssa.OpSelectAndScatter] = buildSelectAndScatter
}

// reduceWindowStep folds each window onto the init values.
type reduceWindowStep struct {
	ins, inits, outs []loc
	plan             *ops.ReduceWindowPlan
	regs             int // scratch offset of the reducer's memory
	work             loc // the window's position list
}

func buildReduceWindow(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Args) == 0 || len(v.Args)%2 != 0 {
		return nil, errorf("reduce-window has %d operands, expected arrays then as many init values", len(v.Args))
	}
	n := len(v.Args) / 2
	if n > maxVariadic {
		return nil, errorf("reduce-window of %d operands, above the limit of %d", n, maxVariadic)
	}
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		a, init := v.Args[i], v.Args[n+i]
		if !init.Shape.IsScalar() || !sameDims(a.Shape.Dims, v.Args[0].Shape.Dims) {
			return nil, errorf("reduce-window operand %d (%v) and init value (%v) do not match", i, a.Shape, init.Shape)
		}
	}
	f, err := c.oneFunc(v)
	if err != nil {
		return nil, err
	}
	ts := argTypes(v.Args[:n])
	plan, err := ops.NewReduceWindow(ts, argTypes(v.Args[n:]), v.Args[0].Shape.Dims, v.Attrs.Window, f)
	if err != nil {
		return nil, err
	}
	s := &reduceWindowStep{ins: locs[:n], inits: locs[n:], outs: c.leaves(k.Out), plan: plan}
	if len(s.outs) != n {
		return nil, errorf("reduce-window of %d operands has %d results", n, len(s.outs))
	}
	for i, os := range leafShapes(v.Shape) {
		if os.Elem != plan.Out[i] || !sameDims(os.Dims, plan.OutDims()) {
			return nil, errorf("reduce-window result %d is %v, the window gives %v%v", i, os, plan.Out[i], plan.OutDims())
		}
	}
	if r := plan.Reducer(); r != nil && r.Standard && ts[0] == ir.F32 && r.Inits[0] == ir.F32 && r.Acc[0] == ir.F32 && ops.Count(plan.OutDims()) > 0 {
		if scan := newScanF32(plan, r, s.ins[0], s.inits[0], s.outs[0], c.cfg.threads); scan != nil {
			return scan, nil
		}
		if fast := newReduceWindowF32(v.Attrs.Window, v.Args[0].Shape.Dims, plan.OutDims(), r.Op, r.Swapped, s.ins[0], s.inits[0], s.outs[0], c.cfg.threads); fast != nil {
			return fast, nil
		}
	}
	var sp scratchPlan
	s.regs = sp.take(plan.ScratchBytes())
	sp.reserve(p)
	s.work = privateArena(p, plan.WorkBytes())
	if r := plan.Reducer(); r != nil && ops.Count(plan.OutDims()) > 0 {
		if narrow := newReduceWindowNarrow(v.Attrs.Window, v.Args[0].Shape.Dims, plan.OutDims(), r, s, p, c.cfg.threads); narrow != nil {
			return narrow, nil
		}
	}
	return s, nil
}

func (s *reduceWindowStep) name() string { return "reduce-window" }

func (s *reduceWindowStep) exec(fr *frame) error {
	var ins, inits, outs [maxVariadic][]byte
	return s.plan.Run(bytesOf(fr, ins[:], s.ins), bytesOf(fr, inits[:], s.inits), bytesOf(fr, outs[:], s.outs), fr.scratch[0][s.regs:], fr.bytes(s.work))
}

// selectAndScatterStep is select-and-scatter.
type selectAndScatterStep struct {
	operand, source, init, out loc
	plan                       *ops.SelectAndScatterPlan
	regs                       int
	work                       loc
}

func buildSelectAndScatter(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Args) != 3 || len(v.Funcs) != 2 {
		return nil, errorf("select-and-scatter needs 3 operands and 2 computations")
	}
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	op, src, init := v.Args[0].Shape, v.Args[1].Shape, v.Args[2].Shape
	if !init.IsScalar() || init.Elem != src.Elem || v.Shape.Elem != src.Elem || !sameDims(v.Shape.Dims, op.Dims) {
		return nil, errorf("select-and-scatter of %v with source %v and init %v to %v", op, src, init, v.Shape)
	}
	sel, err := c.function(v.Funcs[0])
	if err != nil {
		return nil, err
	}
	sc, err := c.function(v.Funcs[1])
	if err != nil {
		return nil, err
	}
	plan, err := ops.NewSelectAndScatter(op.Elem, op.Dims, src.Elem, src.Dims, v.Attrs.Window, sel, sc)
	if err != nil {
		return nil, err
	}
	s := &selectAndScatterStep{operand: locs[0], source: locs[1], init: locs[2], out: c.loc(k.Out), plan: plan}
	var sp scratchPlan
	s.regs = sp.take(plan.ScratchBytes())
	sp.reserve(p)
	s.work = privateArena(p, plan.WorkBytes())
	return s, nil
}

func (s *selectAndScatterStep) name() string { return "select-and-scatter" }

func (s *selectAndScatterStep) exec(fr *frame) error {
	return s.plan.Run(fr.bytes(s.operand), fr.bytes(s.source), fr.bytes(s.init), fr.bytes(s.out), fr.scratch[0][s.regs:], fr.bytes(s.work))
}

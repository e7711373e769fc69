package runtime

// gather and scatter, as ir/ops plans them (every form of dimension
// numbers, batching dimensions included).

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.Op(ir.OpGather)] = buildGather
	genericSteps[ssa.OpScatter] = buildScatter
}

// gatherStep copies one slice of the operand per index vector.
type gatherStep struct {
	x, idx, out loc
	plan        *ops.GatherPlan
}

func buildGather(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	if len(v.Args) != 2 || v.Args[0].Shape.Elem != v.Shape.Elem {
		return nil, errorf("gather needs an operand of the result's type and indices")
	}
	x, ind := v.Args[0].Shape, v.Args[1].Shape
	plan, err := ops.NewGather(x.Elem.ByteSize(), x.Dims, ind.Elem, ind.Dims, v.Attrs.GatherDims, v.Attrs.GatherSliceSizes)
	if err == nil {
		err = checkOutDims(v, plan.OutDims)
	}
	if err != nil {
		return nil, err
	}
	return &gatherStep{x: locs[0], idx: locs[1], out: c.loc(k.Out), plan: plan}, nil
}

func (s *gatherStep) name() string { return "gather" }

func (s *gatherStep) exec(fr *frame) error {
	s.plan.Run(fr.bytes(s.out), fr.bytes(s.x), fr.bytes(s.idx))
	return nil
}

// scatterStep copies the operands into the results, then combines each
// in-bounds update window into them.
type scatterStep struct {
	xs, us []loc // operands and updates
	outs   []loc
	idx    loc
	plan   *ops.ScatterPlan
	regs   int // scratch offset of the update computation's registers
}

func buildScatter(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Args) < 3 || len(v.Args)%2 == 0 {
		return nil, errorf("scatter has %d operands, expected N operands, the indices and N updates", len(v.Args))
	}
	n := (len(v.Args) - 1) / 2
	if n > maxVariadic {
		return nil, errorf("scatter of %d operands, above the limit of %d", n, maxVariadic)
	}
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	xs, ind, upds := v.Args[:n], v.Args[n], v.Args[n+1:]
	for i := range xs {
		if !ir.SameDimensions(xs[i].Shape, xs[0].Shape) || !ir.SameDimensions(upds[i].Shape, upds[0].Shape) || xs[i].Shape.Elem != upds[i].Shape.Elem {
			return nil, errorf("scatter operand %d (%v) and update %d (%v) do not match operand 0 and update 0", i, xs[i].Shape, i, upds[i].Shape)
		}
	}
	f, err := c.oneFunc(v)
	if err != nil {
		return nil, err
	}
	plan, err := ops.NewScatter(argTypes(xs), xs[0].Shape.Dims, ind.Shape.Elem, ind.Shape.Dims, upds[0].Shape.Dims, v.Attrs.ScatterDims, f)
	if err != nil {
		return nil, err
	}
	s := &scatterStep{xs: locs[:n], idx: locs[n], us: locs[n+1:], outs: c.leaves(k.Out), plan: plan}
	if len(s.outs) != n {
		return nil, errorf("scatter of %d operands has %d results", n, len(s.outs))
	}
	var sp scratchPlan
	s.regs = sp.take(plan.ScratchBytes())
	sp.reserve(p)
	return s, nil
}

func (s *scatterStep) name() string { return "scatter" }

func (s *scatterStep) exec(fr *frame) error {
	var xs, us, outs [maxVariadic][]byte
	return s.plan.Run(bytesOf(fr, outs[:], s.outs), bytesOf(fr, xs[:], s.xs), fr.bytes(s.idx), bytesOf(fr, us[:], s.us), fr.scratch[0][s.regs:])
}

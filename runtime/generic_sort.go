package runtime

// sort and top-k, as ir/ops plans them.

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.OpSort] = buildSort
	genericSteps[ssa.Op(ir.OpTopK)] = buildTopK
}

// sortStep sorts every slice of its operands along one dimension.
type sortStep struct {
	ins, outs []loc
	plan      *ops.SortPlan
	regs      int // scratch offset of the comparator's registers
	work      loc // positions, permutations and keys
}

func buildSort(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	n := len(v.Args)
	if n == 0 || n > maxVariadic {
		return nil, errorf("sort of %d operands (1 to %d)", n, maxVariadic)
	}
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	dims := v.Args[0].Shape.Dims
	for i, a := range v.Args {
		if !sameDims(a.Shape.Dims, dims) {
			return nil, errorf("sort operand %d has shape %v, operand 0 dimensions %v", i, a.Shape, dims)
		}
	}
	f, err := c.oneFunc(v)
	if err != nil {
		return nil, err
	}
	d := len(dims) - 1
	if len(v.Attrs.Dimensions) > 0 {
		d = v.Attrs.Dimensions[0]
	}
	ts := argTypes(v.Args)
	plan, err := ops.NewSort(ts, dims, d, f)
	if err != nil {
		return nil, err
	}
	s := &sortStep{ins: locs, outs: c.leaves(k.Out), plan: plan}
	if len(s.outs) != n {
		return nil, errorf("sort of %d operands has %d results", n, len(s.outs))
	}
	for i, os := range leafShapes(v.Shape) {
		if os.Elem != ts[i] || !sameDims(os.Dims, dims) {
			return nil, errorf("sort result %d is %v, operand %d %v", i, os, i, v.Args[i].Shape)
		}
	}
	var sp scratchPlan
	s.regs = sp.take(plan.ScratchBytes())
	sp.reserve(p)
	s.work = privateArena(p, plan.WorkBytes())
	return s, nil
}

func (s *sortStep) name() string { return "sort" }

func (s *sortStep) exec(fr *frame) error {
	var ins, outs [maxVariadic][]byte
	return s.plan.RunUntil(fr.cancel, bytesOf(fr, outs[:], s.outs), bytesOf(fr, ins[:], s.ins), fr.bytes(s.work), fr.scratch[0][s.regs:])
}

// topKStep writes, per row of the last dimension, the k first elements in
// rank order and their indices.
type topKStep struct {
	in, vals, idxs loc
	plan           *ops.TopKPlan
	work           loc
}

func buildTopK(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	outs := c.leaves(k.Out)
	if len(locs) != 1 || len(outs) != 2 {
		return nil, errorf("topk needs one operand and two results")
	}
	x := v.Args[0].Shape
	plan, err := ops.NewTopK(x.Elem, x.Dims, v.Attrs.K, v.Attrs.Largest)
	if err != nil {
		return nil, err
	}
	res := leafShapes(v.Shape)
	if res[0].Elem != x.Elem || res[1].Elem != ir.S32 || !sameDims(res[0].Dims, plan.OutDims) || !sameDims(res[1].Dims, plan.OutDims) {
		return nil, errorf("topk results %v, expected (%v%v, s32%v)", v.Shape, x.Elem, plan.OutDims, plan.OutDims)
	}
	return &topKStep{in: locs[0], vals: outs[0], idxs: outs[1], plan: plan, work: privateArena(p, plan.WorkBytes())}, nil
}

func (s *topKStep) name() string { return "topk" }

func (s *topKStep) exec(fr *frame) error {
	s.plan.RunUntil(fr.cancel, fr.bytes(s.vals), fr.bytes(s.idxs), fr.bytes(s.in), fr.bytes(s.work))
	return nil
}

package runtime

// map, as ir/ops plans it: the mapped computation compiled to a program
// and run over tiles of the operands.

import (
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() { genericSteps[ssa.OpMap] = buildMap }

type mapStep struct {
	args []loc
	out  loc
	n    int
	plan *ops.MapPlan
	regs int
}

func buildMap(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Args) == 0 || len(v.Args) > maxVariadic {
		return nil, errorf("map of %d operands (1 to %d)", len(v.Args), maxVariadic)
	}
	for i, d := range v.Attrs.Dimensions {
		if d != i || len(v.Attrs.Dimensions) != v.Shape.Rank() {
			return nil, errorf("map with dimensions=%v: only maps over every dimension in order are defined", v.Attrs.Dimensions)
		}
	}
	args, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	for i, a := range v.Args {
		if !sameDims(a.Shape.Dims, v.Shape.Dims) {
			return nil, errorf("map operand %d has shape %v, the result %v", i, a.Shape, v.Shape)
		}
	}
	f, err := c.oneFunc(v)
	if err != nil {
		return nil, err
	}
	plan, err := ops.NewMap(argTypes(v.Args), v.Shape.Elem, f)
	if err != nil {
		return nil, err
	}
	s := &mapStep{args: args, out: c.loc(k.Out), n: v.Shape.ElementCount(), plan: plan}
	var sp scratchPlan
	s.regs = sp.take(plan.ScratchBytes())
	sp.reserve(p)
	return s, nil
}

func (s *mapStep) name() string { return "map" }

func (s *mapStep) exec(fr *frame) error {
	var buf [maxVariadic][]byte
	return s.plan.Run(fr.bytes(s.out), bytesOf(fr, buf[:], s.args), s.n, fr.scratch[0][s.regs:])
}

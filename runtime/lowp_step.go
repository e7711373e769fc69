package runtime

// The compiled paths of the narrow element types and of the sorts: each
// kernel of the plan is offered to them first (lowpKernel); a kernel they do
// not take goes on to the float32 paths and the generic steps.

import (
	"math"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

var (
	negInf = math.Inf(-1)
	posInf = math.Inf(1)
)

// lowpKernel compiles kernel k on a narrow-type or sort path, or returns
// nil when none applies.
func (c *compiler) lowpKernel(plan *sched.Plan, k *sched.Kernel, p *program) (step, error) {
	switch k.Kind {
	case sched.Loop:
		if k.Dequant != nil {
			return c.dequantLoop(k), nil
		}
		if s := c.lowpLoopStep(k, p); s != nil {
			return s, nil
		}
	case sched.Reduce:
		if s := c.lowpReduceStep(k, p); s != nil {
			return s, nil
		}
	case sched.Dot:
		if k.Dequant != nil {
			return c.s8WeightsDot(k)
		}
	case sched.Generic:
		switch k.Root.Op {
		case ssa.OpSort:
			if s := c.fastSortStep(plan, k, p); s != nil {
				return s, nil
			}
		case ssa.Op(ir.OpTopK):
			if s := c.fastTopKStep(k, p); s != nil {
				return s, nil
			}
		}
	}
	return nil, nil
}

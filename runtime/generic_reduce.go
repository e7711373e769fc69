package runtime

// reduce for every element type and any number of operands, as ir/ops
// plans it: the reducer's standard forms fold wide values directly, any
// other runs as a compiled scalar program per element.

import (
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() { genericSteps[ssa.OpReduce] = buildReduce }

// reduceGenericStep is reduce over any types and operand count.
type reduceGenericStep struct {
	ins, inits, outs []loc
	plan             *ops.ReducePlan
	regs             int // scratch offset of the reducer's memory
}

func buildReduce(c *compiler, k *sched.Kernel, p *program) (step, error) {
	return buildReduceOver(c, k, p, nil)
}

// buildReduceOver compiles reduce k.Root reading its operands from
// operands (nil: from the kernel's inputs).
func buildReduceOver(c *compiler, k *sched.Kernel, p *program, operands []loc) (step, error) {
	v := k.Root
	if len(v.Args) == 0 || len(v.Args)%2 != 0 {
		return nil, errorf("reduce has %d operands, expected arrays then as many init values", len(v.Args))
	}
	n := len(v.Args) / 2
	if n > maxVariadic {
		return nil, errorf("reduce of %d operands, above the limit of %d", n, maxVariadic)
	}
	s := &reduceGenericStep{outs: c.leaves(k.Out)}
	for i := 0; i < n; i++ {
		a, init := v.Args[i], v.Args[n+i]
		ib := inputBuffer(k, init)
		if ib == nil || !denseArray(a.Shape) || !init.Shape.IsScalar() ||
			!sameDims(a.Shape.Dims, v.Args[0].Shape.Dims) {
			return nil, errorf("reduce operand %d (%v) and init value (%v) do not match", i, a.Shape, init.Shape)
		}
		if operands != nil {
			s.ins = append(s.ins, operands[i])
		} else if ab := inputBuffer(k, a); ab != nil {
			s.ins = append(s.ins, c.loc(ab))
		} else {
			return nil, errorf("reduce operand %d has no buffer", i)
		}
		s.inits = append(s.inits, c.loc(ib))
	}
	f, err := c.oneFunc(v)
	if err != nil {
		return nil, err
	}
	ts := argTypes(v.Args[:n])
	plan, err := ops.NewReduce(ts, argTypes(v.Args[n:]), v.Args[0].Shape.Dims, v.Attrs.Dimensions, f)
	if err != nil {
		return nil, err
	}
	if len(s.outs) != n {
		return nil, errorf("reduce of %d operands has %d results", n, len(s.outs))
	}
	for i, os := range leafShapes(v.Shape) {
		if os.Elem != plan.Out[i] || !sameDims(os.Dims, plan.OutDims) {
			return nil, errorf("reduce result %d is %v, the reduction gives %v%v", i, os, plan.Out[i], plan.OutDims)
		}
	}
	s.plan = plan
	var sp scratchPlan
	s.regs = sp.take(plan.ScratchBytes())
	sp.reserve(p)
	return s, nil
}

func (s *reduceGenericStep) name() string {
	if s.plan.Reducer() == nil {
		return "reduce-empty"
	}
	return "reduce-generic"
}

func (s *reduceGenericStep) exec(fr *frame) error {
	var ins, inits, outs [maxVariadic][]byte
	return s.plan.Run(bytesOf(fr, ins[:], s.ins), bytesOf(fr, inits[:], s.inits), bytesOf(fr, outs[:], s.outs), fr.scratch[0][s.regs:])
}

func sameDims(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

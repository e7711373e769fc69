package runtime

// Fused kernels that no fused implementation takes (a loop with an op the
// wide programs do not cover, a dot or convolution epilogue on element
// types the GEMM path does not handle) run value by value: each value gets
// its own generic step, the intermediates buffers of their own in the
// program's arena.

import (
	"strings"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// groupStep compiles the values of fused kernel k one by one.
func (c *compiler) groupStep(plan *sched.Plan, k *sched.Kernel, p *program) (step, error) {
	bufs := map[*ssa.Value]*sched.Buffer{}
	for i, v := range k.Inputs {
		bufs[v] = k.In[i]
	}
	s := &sequenceStep{}
	var names []string
	for _, v := range k.Values {
		out := k.Out
		if v != k.Root {
			out = arenaBuffer(p, v.Shape)
		}
		sub := &sched.Kernel{Kind: sched.Generic, Root: v, Values: []*ssa.Value{v}, Out: out}
		for _, a := range v.Args {
			if indexOf(sub.Inputs, a) >= 0 {
				continue
			}
			b, ok := bufs[a]
			if !ok {
				return nil, errorf("%v: operand %v has no buffer", v.Op, a)
			}
			sub.Inputs = append(sub.Inputs, a)
			sub.In = append(sub.In, b)
		}
		st, err := c.kernel(plan, sub, p)
		if err != nil {
			return nil, err
		}
		bufs[v] = out
		s.steps = append(s.steps, st)
		names = append(names, sub.Impl)
	}
	s.names = "group(" + strings.Join(names, " ") + ")"
	return s, nil
}

// arenaBuffer reserves a buffer of shape s in p's arena, for one step's
// own use (tuples element by element).
func arenaBuffer(p *program, s ir.Shape) *sched.Buffer {
	if s.IsTuple() {
		b := &sched.Buffer{Kind: sched.Tuple, Shape: s}
		for _, e := range s.Tuple {
			b.Elems = append(b.Elems, arenaBuffer(p, e))
		}
		return b
	}
	l := privateArena(p, s.ByteSize())
	return &sched.Buffer{Kind: sched.Arena, Shape: s, Offset: l.off}
}

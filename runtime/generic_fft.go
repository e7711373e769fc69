package runtime

// fft, as ir/ops plans it: twiddles and chirps at compile time, the working
// arrays in the program's arena.

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() { genericSteps[ssa.Op(ir.OpFft)] = buildFFT }

type fftStep struct {
	in, out loc
	plan    *ops.FFTPlan
	work    loc
}

func buildFFT(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	if len(locs) != 1 || !denseArray(v.Shape) {
		return nil, errorf("fft of %d operands to %v", len(locs), v.Shape)
	}
	x := v.Args[0].Shape
	plan, err := ops.NewFFT(v.Attrs.FFTType, v.Attrs.FFTLength, x.Elem, x.Dims, v.Shape.Elem, v.Shape.Dims)
	if err != nil {
		return nil, err
	}
	return &fftStep{in: locs[0], out: c.loc(k.Out), plan: plan, work: privateArena(p, plan.WorkBytes())}, nil
}

func (s *fftStep) name() string { return "fft" }

func (s *fftStep) exec(fr *frame) error {
	s.plan.Run(fr.bytes(s.out), fr.bytes(s.in), fr.bytes(s.work))
	return nil
}

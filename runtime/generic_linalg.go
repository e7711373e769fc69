package runtime

// cholesky and triangular-solve, as ir/ops plans them, their working
// matrices in the program's arena.

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.Op(ir.OpCholesky)] = buildCholesky
	genericSteps[ssa.Op(ir.OpTriangularSolve)] = buildTriangularSolve
}

type choleskyStep struct {
	in, out loc
	plan    *ops.CholeskyPlan
	work    loc
}

func buildCholesky(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	x := v.Args[0].Shape
	if !v.Shape.EqualIgnoringLayout(x) {
		return nil, errorf("cholesky of %v to %v", x, v.Shape)
	}
	plan, err := ops.NewCholesky(x.Elem, x.Dims, v.Attrs.Lower)
	if err != nil {
		return nil, err
	}
	return &choleskyStep{in: locs[0], out: c.loc(k.Out), plan: plan, work: privateArena(p, plan.WorkBytes())}, nil
}

func (s *choleskyStep) name() string { return "cholesky" }

func (s *choleskyStep) exec(fr *frame) error {
	s.plan.Run(fr.bytes(s.out), fr.bytes(s.in), fr.bytes(s.work))
	return nil
}

type triangularSolveStep struct {
	a, b, out loc
	plan      *ops.TriangularSolvePlan
	work      loc
}

func buildTriangularSolve(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	as, bs := v.Args[0].Shape, v.Args[1].Shape
	if as.Elem != bs.Elem || !v.Shape.EqualIgnoringLayout(bs) {
		return nil, errorf("triangular-solve of %v and %v to %v", as, bs, v.Shape)
	}
	plan, err := ops.NewTriangularSolve(as.Elem, as.Dims, bs.Dims, v.Attrs.TriangularSolve)
	if err != nil {
		return nil, err
	}
	return &triangularSolveStep{a: locs[0], b: locs[1], out: c.loc(k.Out), plan: plan, work: privateArena(p, plan.WorkBytes())}, nil
}

func (s *triangularSolveStep) name() string { return "triangular-solve" }

func (s *triangularSolveStep) exec(fr *frame) error {
	s.plan.Run(fr.bytes(s.out), fr.bytes(s.a), fr.bytes(s.b), fr.bytes(s.work))
	return nil
}

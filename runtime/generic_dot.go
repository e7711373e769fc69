package runtime

// dot and convolution in every form the float32 GEMM and convolution
// paths do not take (integer, PRED, narrow-float, complex and
// mixed-precision operands, any dimension numbers), as ir/ops plans them:
// operands converted to the accumulation type and transposed in the
// program's arena, then accumulated element by element.

import (
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.OpDot] = buildDot
	genericSteps[ssa.OpConvolution] = buildConvolution
}

// contractStep runs a dot or a convolution plan.
type contractStep struct {
	op            string
	lhs, rhs, out loc
	run           func(out, lhs, rhs, work []byte)
	work          loc
}

func buildDot(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	if len(locs) != 2 {
		return nil, errorf("dot with %d operands (sparse dots are not supported)", len(locs))
	}
	ls, rs := v.Args[0].Shape, v.Args[1].Shape
	plan, err := ops.NewDot(ls.Elem, ls.Dims, rs.Elem, rs.Dims, v.Attrs.DotDims, v.Shape.Elem)
	if err == nil {
		err = checkOutDims(v, plan.OutDims)
	}
	if err != nil {
		return nil, err
	}
	return &contractStep{op: "dot-generic", lhs: locs[0], rhs: locs[1], out: c.loc(k.Out), run: plan.Run,
		work: privateArena(p, plan.WorkBytes())}, nil
}

func buildConvolution(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	if len(locs) != 2 {
		return nil, errorf("convolution with %d operands", len(locs))
	}
	ls, rs := v.Args[0].Shape, v.Args[1].Shape
	plan, err := ops.NewConvolution(ls.Elem, ls.Dims, rs.Elem, rs.Dims, v.Shape.Elem, v.Attrs.ConvDims, v.Attrs.Window,
		v.Attrs.FeatureGroupCount, v.Attrs.BatchGroupCount)
	if err == nil {
		err = checkOutDims(v, plan.OutDims)
	}
	if err != nil {
		return nil, err
	}
	return &contractStep{op: "conv-generic", lhs: locs[0], rhs: locs[1], out: c.loc(k.Out), run: plan.Run,
		work: privateArena(p, plan.WorkBytes())}, nil
}

func (s *contractStep) name() string { return s.op }

func (s *contractStep) exec(fr *frame) error {
	s.run(fr.bytes(s.out), fr.bytes(s.lhs), fr.bytes(s.rhs), fr.bytes(s.work))
	return nil
}

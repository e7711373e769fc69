package runtime

// dot and convolution in every form the float32 GEMM and convolution
// paths do not take (integer, PRED, narrow-float, complex and
// mixed-precision operands, any dimension numbers), as ir/ops plans them:
// operands converted to the accumulation type and transposed in the
// program's arena, then accumulated element by element.

import (
	"github.com/kilnml/kiln/ir"
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
	run           func(stop ops.Stop, out, lhs, rhs, work []byte)
	work          loc
}

func buildDot(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	locs, sparse, err := sparseOperands(c, k, p, locs)
	if err != nil {
		return nil, err
	}
	if len(locs) != 2 {
		return nil, errorf("dot with %d operands", len(locs))
	}
	ls, err := denseShape(v, 0)
	if err != nil {
		return nil, err
	}
	rs, err := denseShape(v, 1)
	if err != nil {
		return nil, err
	}
	plan, err := ops.NewDot(ls.Elem, ls.Dims, rs.Elem, rs.Dims, v.Attrs.DotDims, v.Shape.Elem)
	if err == nil {
		err = checkOutDims(v, plan.OutDims)
	}
	if err != nil {
		return nil, err
	}
	return withSparse(sparse, &contractStep{op: "dot-generic", lhs: locs[0], rhs: locs[1], out: c.loc(k.Out), run: plan.RunUntil,
		work: privateArena(p, plan.WorkBytes())}), nil
}

func buildConvolution(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	locs, sparse, err := sparseOperands(c, k, p, locs)
	if err != nil {
		return nil, err
	}
	if len(locs) != 2 {
		return nil, errorf("convolution with %d operands", len(locs))
	}
	ls, err := denseShape(v, 0)
	if err != nil {
		return nil, err
	}
	rs, err := denseShape(v, 1)
	if err != nil {
		return nil, err
	}
	plan, err := ops.NewConvolution(ls.Elem, ls.Dims, rs.Elem, rs.Dims, v.Shape.Elem, v.Attrs.ConvDims, v.Attrs.Window,
		v.Attrs.FeatureGroupCount, v.Attrs.BatchGroupCount)
	if err == nil {
		err = checkOutDims(v, plan.OutDims)
	}
	if err != nil {
		return nil, err
	}
	return withSparse(sparse, &contractStep{op: "conv-generic", lhs: locs[0], rhs: locs[1], out: c.loc(k.Out), run: plan.RunUntil,
		work: privateArena(p, plan.WorkBytes())}), nil
}

func (s *contractStep) name() string { return s.op }

func (s *contractStep) exec(fr *frame) error {
	s.run(fr.cancel, fr.bytes(s.out), fr.bytes(s.lhs), fr.bytes(s.rhs), fr.bytes(s.work))
	return nil
}

// sparseStep materializes the sparse operands of a dot or convolution
// (sparsity_config) into the program's arena, then runs the op on them.
type sparseStep struct {
	plans       []*ops.SparsePlan
	x, meta     []loc
	dense       []loc
	contraction step
}

// sparseOperands handles a dot or convolution with sparse operands: it
// returns the locations of the two dense operands and the step filling
// them, or nil when the value has no sparse operand.
func sparseOperands(c *compiler, k *sched.Kernel, p *program, locs []loc) ([]loc, *sparseStep, error) {
	v := k.Root
	ds, err := ir.ParseSparsity(v.Raw)
	if err != nil || len(ds) == 0 {
		return locs, nil, err
	}
	if len(locs) != 2+len(ds) {
		return nil, nil, errorf("%v has %d operands and %d sparse ones", v.Op, len(locs), len(ds))
	}
	s := &sparseStep{}
	out := []loc{locs[0], locs[1]}
	for _, d := range ds {
		x, meta := v.Args[d.Operand].Shape, v.Args[d.MetaIndex].Shape
		plan, err := ops.NewSparse(x.Elem.ByteSize(), x.Dims, d, meta.Elem, meta.Dims)
		if err != nil {
			return nil, nil, err
		}
		dense := privateArena(p, ops.Count(plan.DenseDims)*x.Elem.ByteSize())
		s.plans = append(s.plans, plan)
		s.x, s.meta, s.dense = append(s.x, locs[d.Operand]), append(s.meta, locs[d.MetaIndex]), append(s.dense, dense)
		out[d.Operand] = dense
	}
	return out, s, nil
}

// denseShape is operand i of a sparse value as the dense array it stands
// for.
func denseShape(v *ssa.Value, i int) (ir.Shape, error) {
	ds, err := ir.ParseSparsity(v.Raw)
	if err != nil {
		return ir.Shape{}, err
	}
	for _, d := range ds {
		if d.Operand == i {
			return d.DenseShape(v.Args[i].Shape)
		}
	}
	return v.Args[i].Shape, nil
}

// withSparse runs the materialization of sparse operands before st.
func withSparse(s *sparseStep, st step) step {
	if s == nil {
		return st
	}
	s.contraction = st
	return s
}

func (s *sparseStep) name() string { return "sparse+" + implName(s.contraction) }

func (s *sparseStep) exec(fr *frame) error {
	for i, p := range s.plans {
		if err := p.Run(fr.bytes(s.dense[i]), fr.bytes(s.x[i]), fr.bytes(s.meta[i])); err != nil {
			return err
		}
	}
	return s.contraction.exec(fr)
}

func init() { genericSteps[ssa.Op(ir.OpScaledDot)] = buildScaledDot }

// scaledDotStep is scaled-dot, as ir/ops plans it.
type scaledDotStep struct {
	args [4]loc
	out  loc
	plan *ops.ScaledDotPlan
	work loc
}

func buildScaledDot(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	if len(locs) != 4 {
		return nil, errorf("scaled-dot has %d operands, expected 4", len(locs))
	}
	s := argShapes(v)
	plan, err := ops.NewScaledDot(s[0].Elem, s[0].Dims, s[1].Elem, s[1].Dims, s[2].Elem, s[2].Dims, s[3].Elem, s[3].Dims, v.Attrs.DotDims, v.Shape.Elem)
	if err == nil {
		err = checkOutDims(v, plan.OutDims)
	}
	if err != nil {
		return nil, err
	}
	return &scaledDotStep{args: [4]loc(locs), out: c.loc(k.Out), plan: plan, work: privateArena(p, plan.WorkBytes())}, nil
}

func (s *scaledDotStep) name() string { return "scaled-dot" }

func (s *scaledDotStep) exec(fr *frame) error {
	s.plan.Run(fr.bytes(s.out), fr.bytes(s.args[0]), fr.bytes(s.args[1]), fr.bytes(s.args[2]), fr.bytes(s.args[3]), fr.bytes(s.work))
	return nil
}

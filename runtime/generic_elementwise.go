package runtime

// Elementwise ops for every element type the float32 loop does not cover:
// ir/ops' kernels over tiles of wide values, run in parts by the workers.

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.Op(ir.OpBitcastConvert)] = buildBitcastConvert
	for _, op := range ir.Opcodes() {
		if !op.IsElementwise() {
			continue
		}
		switch op {
		case ir.OpMap, ir.OpStochasticConvert, ir.OpCopy:
		case ir.OpSelect:
			genericSteps[ssa.Op(op)] = buildSelect
		case ir.OpConvert:
			genericSteps[ssa.Op(op)] = buildConvert
		case ir.OpBitcastConvert:
			genericSteps[ssa.Op(op)] = buildBitcastConvert
		case ir.OpReducePrecision:
			genericSteps[ssa.Op(op)] = buildReducePrecision
		default:
			genericSteps[ssa.Op(op)] = buildElementwise
		}
	}
}

// elementwiseStep runs an elementwise op over the output in parts.
type elementwiseStep struct {
	k      *ops.Elementwise
	out    loc
	args   []loc
	scalar []bool // operand is a scalar spread over the output
	n      int
	regs   int // scratch offset of the registers
	// Big arrays are split into parts of whole tiles, run by the workers.
	parts, perPart, threads int
}

func buildElementwise(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	op, _ := v.Op.IR()
	args, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	e, err := ops.NewElementwise(op, &v.Attrs, argTypes(v.Args), v.Shape.Elem)
	if err != nil {
		return nil, err
	}
	s := &elementwiseStep{k: e, out: c.loc(k.Out), args: args, n: v.Shape.ElementCount()}
	for _, a := range v.Args {
		s.scalar = append(s.scalar, a.Shape.IsScalar() && v.Shape.Rank() > 0)
	}
	var sp scratchPlan
	s.regs = sp.take(e.ScratchBytes())
	sp.reserve(p)
	s.threads = c.cfg.threads
	s.parts, s.perPart = splitTiles(s.n, ops.Tile, s.threads)
	return s, nil
}

func (s *elementwiseStep) name() string { return "elementwise" }

func (s *elementwiseStep) exec(fr *frame) error {
	if s.n == 0 {
		return nil
	}
	parallelFor(fr, &fr.task, s, s.parts, s.threads)
	return nil
}

// part computes the elements [p·perPart, min((p+1)·perPart, n)) on worker w.
func (s *elementwiseStep) part(fr *frame, p, w int) {
	var buf [3][]byte
	args := bytesOf(fr, buf[:], s.args)
	for lo, hi := p*s.perPart, min((p+1)*s.perPart, s.n); lo < hi && !fr.stopped(); lo += pollGenericElements {
		s.k.Run(fr.bytes(s.out), args, s.scalar, lo, min(lo+pollGenericElements, hi), fr.scratch[w][s.regs:])
	}
}

// selectStep picks, per element (or once, for a scalar predicate), the
// element of on_true or on_false, whatever their type.
type selectStep struct {
	pred, x, y loc
	out        loc
	es, n      int
	scalarPred bool
	// whole-value selection of tuples: the leaves of each side
	xs, ys, outs []loc
}

func buildSelect(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Args) != 3 {
		return nil, errorf("select has %d operands, expected 3", len(v.Args))
	}
	pb, xb, yb := inputBuffer(k, v.Args[0]), inputBuffer(k, v.Args[1]), inputBuffer(k, v.Args[2])
	if pb == nil || xb == nil || yb == nil || v.Args[0].Shape.Elem != ir.PRED {
		return nil, errorf("select needs a pred predicate and two operands with buffers")
	}
	s := &selectStep{pred: c.loc(pb), scalarPred: v.Args[0].Shape.IsScalar()}
	if !v.Shape.IsArray() {
		if !s.scalarPred {
			return nil, errorf("selecting between tuples needs a scalar predicate, found %v", v.Args[0].Shape)
		}
		s.xs, s.ys, s.outs = c.leaves(xb), c.leaves(yb), c.leaves(k.Out)
		return s, nil
	}
	if _, err := argLocs(c, k); err != nil {
		return nil, err
	}
	s.x, s.y, s.out = c.loc(xb), c.loc(yb), c.loc(k.Out)
	s.es, s.n = v.Shape.Elem.ByteSize(), v.Shape.ElementCount()
	return s, nil
}

func (s *selectStep) name() string { return "select" }

func (s *selectStep) exec(fr *frame) error {
	pred := fr.bytes(s.pred)
	if s.outs != nil {
		src := s.ys
		if pred[0] != 0 {
			src = s.xs
		}
		for i, l := range src {
			copy(fr.bytes(s.outs[i]), fr.bytes(l))
		}
		return nil
	}
	ops.Select(fr.bytes(s.out), pred, fr.bytes(s.x), fr.bytes(s.y), s.es, s.n, s.scalarPred)
	return nil
}

// convertStep converts every element to the result type.
type convertStep struct {
	in, out  loc
	from, to ir.ElementType
	n        int
}

func buildConvert(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	args, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	from, to := v.Args[0].Shape.Elem, v.Shape.Elem
	if err := ops.CheckConvert(from, to); err != nil {
		return nil, err
	}
	return &convertStep{in: args[0], out: c.loc(k.Out), from: from, to: to, n: v.Shape.ElementCount()}, nil
}

func (s *convertStep) name() string { return "convert" }

func (s *convertStep) exec(fr *frame) error {
	ops.Convert(fr.bytes(s.out), s.to, fr.bytes(s.in), s.from, s.n)
	return nil
}

// bitcastConvertStep reinterprets the bits of each element.
type bitcastConvertStep struct {
	in, out loc
	plan    *ops.BitcastConvertPlan
}

func buildBitcastConvert(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	args, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	plan, err := ops.NewBitcastConvert(v.Args[0].Shape.Elem, v.Args[0].Shape.Dims, v.Shape.Elem)
	if err != nil {
		return nil, err
	}
	return &bitcastConvertStep{in: args[0], out: c.loc(k.Out), plan: plan}, nil
}

func (s *bitcastConvertStep) name() string { return "bitcast-convert" }

func (s *bitcastConvertStep) exec(fr *frame) error {
	s.plan.Run(fr.bytes(s.out), fr.bytes(s.in))
	return nil
}

// reducePrecisionStep rounds each float to a narrower exponent and mantissa.
type reducePrecisionStep struct {
	in, out          loc
	t                ir.ElementType
	n                int
	expBits, manBits int
}

func buildReducePrecision(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	args, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	t := v.Args[0].Shape.Elem
	if err := ops.CheckReducePrecision(t, v.Attrs.ExponentBits, v.Attrs.MantissaBits); err != nil {
		return nil, err
	}
	return &reducePrecisionStep{in: args[0], out: c.loc(k.Out), t: t, n: v.Shape.ElementCount(),
		expBits: v.Attrs.ExponentBits, manBits: v.Attrs.MantissaBits}, nil
}

func (s *reducePrecisionStep) name() string { return "reduce-precision" }

func (s *reducePrecisionStep) exec(fr *frame) error {
	ops.ReducePrecisionElements(fr.bytes(s.out), fr.bytes(s.in), s.t, s.n, s.expBits, s.manBits)
	return nil
}

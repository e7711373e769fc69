package runtime

// Fused loops of any element type: the loop program sched derived (loads
// through strided accesses, iotas, scalar constants and elementwise ops)
// run tile by tile over ir/ops' wide registers, each op's result rounded to
// its type as it is computed, the last one stored into the output. The
// float32 loop takes the float32/PRED programs; this one takes the rest
// (integer index arithmetic, f64, f16/bf16, complex, conversions between
// them).

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// genericLoopTile is the number of output elements a generic loop computes
// at a time.
const genericLoopTile = 256

type loopInstrKind uint8

const (
	loopLoad loopInstrKind = iota
	loopIota
	loopConst
	loopOp
)

// genericLoopInstr is one op of a compiled generic loop.
type genericLoopInstr struct {
	kind    loopInstrKind
	t       ir.ElementType
	reg     int
	args    [3]int // argument registers
	nargs   int
	kernel  ops.Kernel
	input   int // load: index into the step's inputs
	strides []int
	offset  int
	linear  bool // load: a contiguous run of the input
	scalar  bool // load or iota: one value for the whole loop
	value   []byte
}

type genericLoopStep struct {
	out    loc
	outT   ir.ElementType
	dims   []int
	total  int
	ins    []loc
	instrs []genericLoopInstr
	regs   int // scratch offset of the registers
	raw    int // scratch offset of the gather buffer
	// Big loops are split into parts of whole tiles, run by the workers.
	parts, perPart, threads int
}

// genericFusedStep compiles a fused kernel the dedicated paths did not
// take: a Loop kernel as a generic loop; a Reduce kernel with fused
// producers as a generic loop computing the reduce's operand into the
// arena, then the generic reduce.
func (c *compiler) genericFusedStep(k *sched.Kernel, p *program) (step, error) {
	switch {
	case k.Kind == sched.Loop:
		return c.genericLoopStep(k, k.Loop, c.loc(k.Out), k.Root.Shape, p)
	case k.Kind == sched.Reduce && k.Loop != nil && len(k.Values) > 1 && len(k.Root.Args) == 2:
		x := k.Root.Args[0].Shape
		if !denseArray(x) {
			return nil, fmt.Errorf("fused reduce of a %v operand", x)
		}
		operand := privateArena(p, x.ByteSize())
		loop, err := c.genericLoopStep(k, k.Loop, operand, x, p)
		if err != nil {
			return nil, err
		}
		red, err := buildReduceOver(c, k, p, []loc{operand})
		if err != nil {
			return nil, err
		}
		return &sequenceStep{steps: []step{loop, red}, names: "loop-generic+" + implName(red)}, nil
	}
	return nil, nil
}

// genericLoopStep compiles loop program lp of kernel k, writing a value of
// shape outShape at out, over wide registers.
func (c *compiler) genericLoopStep(k *sched.Kernel, lp *sched.LoopProgram, out loc, outShape ir.Shape, p *program) (step, error) {
	if lp == nil || len(lp.Ops) == 0 {
		return nil, fmt.Errorf("fused loop without a program")
	}
	if !denseArray(outShape) || len(lp.Dims) > ops.MaxRank || ops.Count(lp.Dims) != outShape.ElementCount() {
		return nil, fmt.Errorf("fused loop over %v writing %v", lp.Dims, outShape)
	}
	for _, in := range k.Inputs {
		if in.Shape.IsArray() && !denseArray(in.Shape) {
			return nil, fmt.Errorf("fused loop input of shape %v", in.Shape)
		}
	}
	s := &genericLoopStep{out: out, outT: outShape.Elem}
	for _, b := range k.In {
		if b.Kind == sched.Tuple {
			s.ins = append(s.ins, loc{})
			continue
		}
		s.ins = append(s.ins, c.loc(b))
	}
	dims, strides := collapseDims(lp)
	s.dims, s.total = dims, ops.Count(dims)
	last := make([]int, len(lp.Ops))
	for i, op := range lp.Ops {
		for _, a := range op.Args {
			last[a] = i
		}
	}
	last[len(lp.Ops)-1] = len(lp.Ops)
	var ra ops.RegAllocator
	regOf := make([]int, len(lp.Ops))
	for i, op := range lp.Ops {
		in := genericLoopInstr{t: op.Type}
		switch op.Op {
		case ssa.OpParameter, ssa.OpIota:
			in.kind = loopLoad
			if op.Op == ssa.OpIota {
				in.kind = loopIota
			} else {
				in.input = op.Access.Input
			}
			in.strides, in.offset = strides[i], op.Access.Offset
			in.scalar = op.Access.IsScalar()
			in.linear = op.Op == ssa.OpParameter && (&sched.Access{Strides: in.strides}).IsLinear(dims)
		case ssa.OpConstant:
			if op.Scalar == nil || !op.Scalar.Shape().IsScalar() {
				return nil, fmt.Errorf("fused loop constant that is not a scalar")
			}
			in.kind, in.value = loopConst, op.Scalar.Bytes()
		default:
			irOp, isIR := op.Op.IR()
			if op.Value == nil || len(op.Args) > 3 || !isIR {
				return nil, fmt.Errorf("fused loop op %v has no generic form", op.Op)
			}
			argT := make([]ir.ElementType, len(op.Args))
			for j, a := range op.Args {
				argT[j] = lp.Ops[a].Type
				in.args[j] = regOf[a]
			}
			in.nargs = len(op.Args)
			k, err := ops.WideKernel(irOp, &op.Value.Attrs, argT, op.Type)
			if err != nil {
				return nil, err
			}
			in.kernel, in.kind = k, loopOp
		}
		in.reg = ra.Get()
		regOf[i] = in.reg
		for j, a := range op.Args {
			// An op reading a value twice (subtract(x, x)) frees its
			// register once: a register freed twice would be handed to
			// two live values.
			if last[a] == i && !slices.Contains(op.Args[:j], a) {
				ra.Put(regOf[a])
			}
		}
		s.instrs = append(s.instrs, in)
	}
	var sp scratchPlan
	s.regs = sp.take(ra.Count() * genericLoopTile * ops.WideBytes)
	s.raw = sp.take(genericLoopTile * ops.WideBytes)
	sp.reserve(p)
	s.threads = c.cfg.threads
	s.parts, s.perPart = splitTiles(s.total, genericLoopTile, s.threads)
	return s, nil
}

func (s *genericLoopStep) name() string { return "loop-generic" }

func (s *genericLoopStep) exec(fr *frame) error {
	if s.total == 0 {
		return nil
	}
	parallelFor(fr, &fr.task, s, s.parts, s.threads)
	return nil
}

// part computes the elements [p·perPart, min((p+1)·perPart, total)) on
// worker w.
func (s *genericLoopStep) part(fr *frame, p, w int) {
	lo, hi := p*s.perPart, min((p+1)*s.perPart, s.total)
	scratch := fr.scratch[w]
	regs, raw := scratch[s.regs:], scratch[s.raw:s.raw+genericLoopTile*ops.WideBytes]
	out := fr.bytes(s.out)
	var args [3]ops.Reg
	for start := lo; start < hi; start += genericLoopTile {
		if (start-lo)%pollGenericElements == 0 && fr.stopped() {
			return
		}
		n := min(genericLoopTile, hi-start)
		var dst ops.Reg
		for i := range s.instrs {
			in := &s.instrs[i]
			dst = ops.RegAt(regs, in.reg, genericLoopTile, n)
			switch in.kind {
			case loopLoad:
				src := fr.bytes(s.ins[in.input])
				switch {
				case in.scalar:
					ops.LoadWide(dst, 1, src, in.t, in.offset)
					ops.FillWide(dst, ops.KindOf(in.t), n)
				case in.linear:
					ops.LoadWide(dst, n, src, in.t, in.offset+start)
				default:
					gatherRaw(raw, src, in.t.ByteSize(), n, s.dims, in.strides, in.offset, start)
					ops.LoadWide(dst, n, raw, in.t, 0)
				}
			case loopIota:
				ops.Positions(dst.I[:n], s.dims, in.strides, in.offset, start)
				toWide(dst, in.t, n)
			case loopConst:
				ops.LoadWide(dst, 1, in.value, in.t, 0)
				ops.FillWide(dst, ops.KindOf(in.t), n)
			default:
				for j := 0; j < in.nargs; j++ {
					args[j] = ops.RegAt(regs, in.args[j], genericLoopTile, n)
				}
				in.kernel(dst, args, n)
				ops.RoundWide(dst, in.t, n)
			}
		}
		ops.StoreWide(out, s.outT, start, dst, n)
	}
}

// gatherRaw copies n elements of es bytes, at the positions a strided
// access reads for the output elements start, start+1, …, into raw.
func gatherRaw(raw, src []byte, es, n int, dims, strides []int, offset, start int) {
	switch es {
	case 1:
		gather(raw[:n], src, dims, strides, offset, start)
	case 2:
		gather(ops.Elems[uint16](raw)[:n], ops.Elems[uint16](src), dims, strides, offset, start)
	case 4:
		gather(ops.Elems[uint32](raw)[:n], ops.Elems[uint32](src), dims, strides, offset, start)
	case 8:
		gather(ops.Elems[uint64](raw)[:n], ops.Elems[uint64](src), dims, strides, offset, start)
	case 16:
		gather(ops.Elems[[2]uint64](raw)[:n], ops.Elems[[2]uint64](src), dims, strides, offset, start)
	}
}

// toWide converts n int64 index values in r.I to the wide form of type t
// in place, as an s64 iota converts to t.
func toWide(r ops.Reg, t ir.ElementType, n int) {
	switch ops.KindOf(t) {
	case ops.KindFloat:
		for j, x := range r.I[:n] {
			r.F[j] = ir.IntToFloat(x, false, t)
		}
	case ops.KindComplex:
		// Backwards: complex value j covers the int64 values 2j and 2j+1,
		// which are read before it is written.
		c := t.ComplexComponent()
		for j := n - 1; j >= 0; j-- {
			r.C[j] = complex(ir.IntToFloat(r.I[j], false, c), 0)
		}
	default:
		for j, x := range r.I[:n] {
			r.I[j] = ops.WrapInt(t, x)
		}
	}
}

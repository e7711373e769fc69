package eval

// Elementwise ops: unary and binary arithmetic, compare, select, clamp,
// convert, bitcast-convert, reduce-precision and the complex ops, as ir/ops
// defines them (its scalar.go states XLA's rules), applied to literals.
// Operands that are scalars are broadcast over the others, as XLA allows
// for clamp and select and as the builder's scalar broadcasting produces.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() {
	var computed []ir.Opcode
	for _, op := range ir.Opcodes() {
		if !op.IsElementwise() {
			continue
		}
		switch op {
		case ir.OpSelect, ir.OpConvert, ir.OpBitcastConvert, ir.OpReducePrecision, ir.OpCopy, ir.OpMap, ir.OpStochasticConvert:
			continue
		}
		computed = append(computed, op)
	}
	register(evalElementwise, computed...)
	register(evalSelect, ir.OpSelect)
	register(evalConvert, ir.OpConvert)
	register(evalBitcastConvert, ir.OpBitcastConvert)
	register(evalReducePrecision, ir.OpReducePrecision)
}

// checkArity reports an instruction with the wrong number of operands.
func checkArity(ops []*ir.Literal, n int) error {
	if len(ops) != n {
		return fmt.Errorf("expected %d operands, found %d", n, len(ops))
	}
	for i, o := range ops {
		if !o.Shape().IsArray() {
			return fmt.Errorf("operand %d has shape %v, expected an array", i, o.Shape())
		}
	}
	return nil
}

// elementwiseDims returns the dimensions of an elementwise result over ops:
// the operands that are not scalars must have equal dimensions (their
// actual sizes, which for a bounded dynamic shape may be below the
// instruction's bounds) but for the dimensions the instruction declares
// dynamic, along which the result is the valid region (ops.ValidDims);
// scalars are broadcast.
func elementwiseDims(in *ir.Instruction, args []*ir.Literal) ([]int, error) {
	var all [][]int
	first := -1
	for i, o := range args {
		s := o.Shape()
		if s.Rank() == 0 {
			continue
		}
		if first < 0 {
			first = i
		}
		all = append(all, s.Dims)
	}
	if first < 0 {
		return in.Shape.Dims, nil
	}
	dims, ok := ops.ValidDims(all, func(d int) bool { return in.Shape.IsArray() && d < in.Shape.Rank() && in.Shape.IsDynamicDim(d) })
	if !ok {
		for i, o := range args {
			if s := o.Shape(); s.Rank() > 0 && !ir.SameDimensions(s, args[first].Shape()) {
				return nil, fmt.Errorf("operand %d has shape %v and operand %d %v, expected equal dimensions or a scalar",
					first, args[first].Shape().StringWithoutLayout(), i, s.StringWithoutLayout())
			}
		}
	}
	return dims, nil
}

// validRegion returns the operands cut to the result's dimensions dims
// (copies of the leading region of those that are larger: a static operand
// meeting a dynamic one); scalars stay as they are.
func validRegion(args []*ir.Literal, dims []int) []*ir.Literal {
	out := args
	for i, a := range args {
		s := a.Shape()
		if s.Rank() == 0 || ir.SameDimensions(s, ir.Shape{Dims: dims}) {
			continue
		}
		if &out[0] == &args[0] {
			out = append([]*ir.Literal{}, args...)
		}
		c := ir.MustNewLiteral(ir.MakeShape(s.Elem, dims...))
		ops.CopyRegion(c.Bytes(), a.Bytes(), s.Elem.ByteSize(), s.Dims, dims)
		out[i] = c
	}
	return out
}

func evalElementwise(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) == 0 || len(args) > 3 {
		return nil, fmt.Errorf("expected 1 to 3 operands, found %d", len(args))
	}
	if err := checkArity(args, len(args)); err != nil {
		return nil, err
	}
	k, err := ops.NewElementwise(in.Opcode, &in.Attrs, elementTypes(args), in.Shape.Elem)
	if err != nil {
		return nil, unsupported(in, err)
	}
	dims, err := elementwiseDims(in, args)
	if err != nil {
		return nil, err
	}
	args = validRegion(args, dims)
	out, err := newResult(in.Shape, dims)
	if err != nil {
		return nil, err
	}
	scalar := make([]bool, len(args))
	for i, a := range args {
		scalar[i] = a.Shape().Rank() == 0 && len(dims) > 0
	}
	k.Run(out.Bytes(), arrayBytes(args), scalar, 0, out.ElementCount(), make([]byte, k.ScratchBytes()))
	return out, nil
}

func evalSelect(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("expected 3 operands, found %d", len(args))
	}
	if args[1].Shape().IsArray() {
		dims, err := elementwiseDims(in, args)
		if err != nil {
			return nil, err
		}
		args = validRegion(args, dims)
	}
	p, x, y := args[0], args[1], args[2]
	if p.Shape().Elem != ir.PRED {
		return nil, fmt.Errorf("predicate has element type %v, expected pred", p.Shape().Elem)
	}
	if xs, ys := x.Shape(), y.Shape(); xs.Elem != ys.Elem || (xs.IsArray() && !ir.SameDimensions(xs, ys)) || (!xs.IsArray() && !xs.EqualIgnoringLayout(ys)) {
		return nil, fmt.Errorf("on_true has shape %v and on_false %v, expected equal shapes",
			x.Shape().StringWithoutLayout(), y.Shape().StringWithoutLayout())
	}
	if !x.Shape().IsArray() {
		// A scalar predicate picks a whole operand (tuples included).
		if p.Shape().Rank() != 0 {
			return nil, fmt.Errorf("selecting between tuples needs a scalar predicate, found %v", p.Shape())
		}
		if p.Bytes()[0] != 0 {
			return x.Clone(), nil
		}
		return y.Clone(), nil
	}
	if p.Shape().Rank() != 0 && !ir.SameDimensions(p.Shape(), x.Shape()) {
		return nil, fmt.Errorf("predicate has shape %v, expected dimensions %v or a scalar",
			p.Shape().StringWithoutLayout(), x.Shape().Dims)
	}
	out, err := newResult(in.Shape.WithElem(x.Shape().Elem), x.Shape().Dims)
	if err != nil {
		return nil, err
	}
	ops.Select(out.Bytes(), p.Bytes(), x.Bytes(), y.Bytes(), x.Shape().Elem.ByteSize(), out.ElementCount(), p.Shape().Rank() == 0)
	return out, nil
}

func evalConvert(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if err := checkArity(args, 1); err != nil {
		return nil, err
	}
	x := args[0]
	if err := ops.CheckConvert(x.Shape().Elem, in.Shape.Elem); err != nil {
		return nil, err
	}
	out, err := ir.NewLiteral(x.Shape().WithElem(in.Shape.Elem))
	if err != nil {
		return nil, err
	}
	ops.Convert(out.Bytes(), in.Shape.Elem, x.Bytes(), x.Shape().Elem, out.ElementCount())
	return out, nil
}

// evalBitcastConvert reinterprets the bits of each element (ops'
// BitcastConvertPlan).
func evalBitcastConvert(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if err := checkArity(args, 1); err != nil {
		return nil, err
	}
	x := args[0]
	p, err := ops.NewBitcastConvert(x.Shape().Elem, x.Shape().Dims, in.Shape.Elem)
	if err != nil {
		return nil, unsupported(in, err)
	}
	out, err := newResult(in.Shape, p.OutDims)
	if err != nil {
		return nil, err
	}
	p.Run(out.Bytes(), x.Bytes())
	return out, nil
}

func evalReducePrecision(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if err := checkArity(args, 1); err != nil {
		return nil, err
	}
	x := args[0]
	t := x.Shape().Elem
	if err := ops.CheckReducePrecision(t, in.ExponentBits, in.MantissaBits); err != nil {
		return nil, unsupported(in, err)
	}
	out, err := ir.NewLiteral(x.Shape())
	if err != nil {
		return nil, err
	}
	ops.ReducePrecisionElements(out.Bytes(), x.Bytes(), t, out.ElementCount(), in.ExponentBits, in.MantissaBits)
	return out, nil
}

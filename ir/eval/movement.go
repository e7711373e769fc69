package eval

// Data-movement ops, as ir/ops defines them (movement.go, gather.go): they
// rearrange elements without looking at their values, so they work on
// element storage whatever the element type. bitcast is the exception that
// sees layouts: it reinterprets the physical bytes under both shapes'
// layouts (tiled and padded layouts are refused), and literals hold their
// elements in row-major order whatever layout they were produced under.

import (
	"fmt"
	"strconv"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() {
	register(evalReshape, ir.OpReshape)
	register(evalDynamicReshape, ir.OpDynamicReshape)
	register(evalTranspose, ir.OpTranspose)
	register(evalBroadcast, ir.OpBroadcast)
	register(evalSlice, ir.OpSlice)
	register(evalDynamicSlice, ir.OpDynamicSlice)
	register(evalDynamicUpdateSlice, ir.OpDynamicUpdateSlice)
	register(evalPad, ir.OpPad)
	register(evalConcatenate, ir.OpConcatenate)
	register(evalReverse, ir.OpReverse)
	register(evalIota, ir.OpIota)
	register(evalGather, ir.OpGather)
	register(evalScatter, ir.OpScatter)
	register(evalBitcast, ir.OpBitcast)
	register(evalCopy, ir.OpCopy, ir.OpDomain)
	register(evalTuple, ir.OpTuple)
	register(evalGetTupleElement, ir.OpGetTupleElement)
	register(evalConstant, ir.OpConstant)
	register(evalOptimizationBarrier, ir.OpOptimizationBarrier)
}

// arrayOperand checks that args has n operands and that the first is an
// array.
func arrayOperand(args []*ir.Literal, n int) (*ir.Literal, error) {
	if len(args) != n {
		return nil, fmt.Errorf("expected %d operands, found %d", n, len(args))
	}
	if !args[0].Shape().IsArray() {
		return nil, fmt.Errorf("operand has shape %v, expected an array", args[0].Shape())
	}
	return args[0], nil
}

// copyInto allocates the result (actual dimensions dims) and runs copy from
// x into it.
func copyInto(in *ir.Instruction, x *ir.Literal, c ops.Strided, dims []int) (*ir.Literal, error) {
	out, err := newResult(in.Shape.WithElem(x.Shape().Elem), dims)
	if err != nil {
		return nil, err
	}
	if c.Count() > 0 {
		c.Run(out.Bytes(), x.Bytes(), 0, 0)
	}
	return out, nil
}

// operandBounds is the bounded shape of operand i: its instruction's shape,
// or, for an instruction evaluated on its own, the literal's.
func operandBounds(in *ir.Instruction, i int, x *ir.Literal) []int {
	if i < len(in.Operands) && in.Operands[i] != nil && in.Operands[i].Shape.Rank() == x.Shape().Rank() {
		return in.Operands[i].Shape.Dims
	}
	return x.Shape().Dims
}

func evalReshape(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(args, 1)
	if err != nil {
		return nil, err
	}
	inferred := -1
	if v, ok := in.RawAttr("inferred_dimension"); ok {
		if inferred, err = strconv.Atoi(v); err != nil {
			return nil, fmt.Errorf("inferred_dimension=%s is not an integer", v)
		}
	}
	dims, err := ops.ReshapeDims(operandBounds(in, 0, x), x.Shape().Dims, in.Shape, inferred)
	if err != nil {
		return nil, err
	}
	out, err := newResult(in.Shape.WithElem(x.Shape().Elem), dims)
	if err != nil {
		return nil, err
	}
	copy(out.Bytes(), x.Bytes())
	return out, nil
}

func evalDynamicReshape(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) < 1 || !args[0].Shape().IsArray() {
		return nil, fmt.Errorf("expected an array operand and its sizes")
	}
	x := args[0]
	dims, err := ops.DynamicReshapeDims(x.ElementCount(), arrayBytes(args[1:]), elementTypes(args[1:]), in.Shape)
	if err != nil {
		return nil, err
	}
	out, err := newResult(in.Shape.WithElem(x.Shape().Elem), dims)
	if err != nil {
		return nil, err
	}
	copy(out.Bytes(), x.Bytes())
	return out, nil
}

func evalTranspose(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(args, 1)
	if err != nil {
		return nil, err
	}
	c, dims, err := ops.Transpose(x.Shape().Elem.ByteSize(), x.Shape().Dims, in.Dimensions)
	if err != nil {
		return nil, err
	}
	return copyInto(in, x, c, dims)
}

func evalBroadcast(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(args, 1)
	if err != nil {
		return nil, err
	}
	dims := ops.BroadcastDims(in.Shape, in.Dimensions, x.Shape().Dims)
	c, err := ops.Broadcast(x.Shape().Elem.ByteSize(), x.Shape().Dims, dims, in.Dimensions)
	if err != nil {
		return nil, err
	}
	return copyInto(in, x, c, dims)
}

func evalReverse(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(args, 1)
	if err != nil {
		return nil, err
	}
	c, err := ops.Reverse(x.Shape().Elem.ByteSize(), x.Shape().Dims, in.Dimensions)
	if err != nil {
		return nil, err
	}
	return copyInto(in, x, c, x.Shape().Dims)
}

func evalSlice(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(args, 1)
	if err != nil {
		return nil, err
	}
	sl := ops.ValidSlice(in.Slice, x.Shape())
	c, dims, err := ops.Slice(x.Shape().Elem.ByteSize(), x.Shape().Dims, sl)
	if err != nil {
		return nil, err
	}
	return copyInto(in, x, c, dims)
}

func evalDynamicSlice(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) < 1 || !args[0].Shape().IsArray() {
		return nil, fmt.Errorf("expected an array operand and start indices")
	}
	x := args[0]
	p, err := ops.DynamicSlice(x.Shape().Elem.ByteSize(), x.Shape().Dims, in.DynamicSliceSizes, shapesOf(args[1:]))
	if err != nil {
		return nil, err
	}
	out, err := newResult(in.Shape.WithElem(x.Shape().Elem), in.DynamicSliceSizes)
	if err != nil {
		return nil, err
	}
	p.Run(out.Bytes(), x.Bytes(), arrayBytes(args[1:]))
	return out, nil
}

func evalDynamicUpdateSlice(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) < 2 || !args[0].Shape().IsArray() || !args[1].Shape().IsArray() {
		return nil, fmt.Errorf("expected an array operand, an array update and start indices")
	}
	x, u := args[0], args[1]
	if u.Shape().Elem != x.Shape().Elem {
		return nil, fmt.Errorf("update has element type %v, operand %v", u.Shape().Elem, x.Shape().Elem)
	}
	p, err := ops.DynamicUpdateSlice(x.Shape().Elem.ByteSize(), x.Shape().Dims, u.Shape().Dims, shapesOf(args[2:]))
	if err != nil {
		return nil, err
	}
	out, err := ir.NewLiteral(x.Shape())
	if err != nil {
		return nil, err
	}
	p.Run(out.Bytes(), x.Bytes(), u.Bytes(), arrayBytes(args[2:]))
	return out, nil
}

// shapesOf lists the shapes of literals.
func shapesOf(ls []*ir.Literal) []ir.Shape {
	out := make([]ir.Shape, len(ls))
	for i, l := range ls {
		out[i] = l.Shape()
	}
	return out
}

func evalPad(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(args, 2)
	if err != nil {
		return nil, err
	}
	pv := args[1]
	if !pv.Shape().IsScalar() {
		return nil, fmt.Errorf("padding value has shape %v, expected a scalar", pv.Shape())
	}
	// The operand and the padding value may have other types than the
	// result (XLA's relaxed pad): both are converted to the result's.
	t := in.Shape.Elem
	if x, err = convertTo(x, t); err != nil {
		return nil, fmt.Errorf("operand: %w", err)
	}
	if pv, err = convertTo(pv, t); err != nil {
		return nil, fmt.Errorf("padding value: %w", err)
	}
	p, err := ops.Pad(t.ByteSize(), x.Shape().Dims, in.Padding)
	if err != nil {
		return nil, err
	}
	out, err := newResult(in.Shape, p.OutDims)
	if err != nil {
		return nil, err
	}
	p.Run(out.Bytes(), x.Bytes(), pv.Bytes())
	return out, nil
}

// convertTo returns x converted to element type t (x itself when it has
// that type).
func convertTo(x *ir.Literal, t ir.ElementType) (*ir.Literal, error) {
	from := x.Shape().Elem
	if from == t {
		return x, nil
	}
	if err := ops.CheckConvert(from, t); err != nil {
		return nil, err
	}
	out, err := ir.NewLiteral(x.Shape().WithElem(t))
	if err != nil {
		return nil, err
	}
	ops.Convert(out.Bytes(), t, x.Bytes(), from, out.ElementCount())
	return out, nil
}

func evalConcatenate(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("concatenate needs at least one operand")
	}
	if len(in.Dimensions) != 1 {
		return nil, fmt.Errorf("dimensions=%v, expected one concatenation dimension", in.Dimensions)
	}
	t := args[0].Shape().Elem
	dims := make([][]int, len(args))
	for i, a := range args {
		if !a.Shape().IsArray() || a.Shape().Elem != t {
			return nil, fmt.Errorf("operand %d has shape %v, operand 0 %v", i, a.Shape().StringWithoutLayout(), args[0].Shape().StringWithoutLayout())
		}
		dims[i] = a.Shape().Dims
	}
	parts, outDims, err := ops.Concatenate(t.ByteSize(), dims, in.Dimensions[0])
	if err != nil {
		return nil, err
	}
	out, err := newResult(in.Shape.WithElem(t), outDims)
	if err != nil {
		return nil, err
	}
	for i := range parts {
		if parts[i].Count() > 0 {
			parts[i].Run(out.Bytes(), args[i].Bytes(), 0, 0)
		}
	}
	return out, nil
}

func evalIota(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 0 {
		return nil, fmt.Errorf("iota takes no operands, found %d", len(args))
	}
	s := in.Shape
	if !s.IsArray() {
		return nil, fmt.Errorf("iota of shape %v", s)
	}
	c, row, err := ops.Iota(s.Elem, s.Dims, in.IotaDimension)
	if err != nil {
		return nil, err
	}
	out, err := newArray(s.Elem, s.Dims)
	if err != nil {
		return nil, err
	}
	if c.Count() > 0 {
		c.Run(out.Bytes(), row, 0, 0)
	}
	return out, nil
}

func evalGather(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(args, 2)
	if err != nil {
		return nil, err
	}
	idx := args[1]
	p, err := ops.NewGather(x.Shape().Elem.ByteSize(), x.Shape().Dims, idx.Shape().Elem, idx.Shape().Dims, in.GatherDims, in.GatherSliceSizes)
	if err != nil {
		return nil, err
	}
	out, err := newResult(in.Shape.WithElem(x.Shape().Elem), p.OutDims)
	if err != nil {
		return nil, err
	}
	p.Run(out.Bytes(), x.Bytes(), idx.Bytes())
	return out, nil
}

func evalScatter(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) < 3 || len(args)%2 == 0 {
		return nil, fmt.Errorf("scatter takes N operands, the indices and N updates; found %d operands", len(args))
	}
	n := (len(args) - 1) / 2
	operands, idx, updates := args[:n], args[n], args[n+1:]
	xd, ud := operands[0].Shape().Dims, updates[0].Shape().Dims
	for i := 0; i < n; i++ {
		if !operands[i].Shape().IsArray() || !ir.SameDimensions(operands[i].Shape(), operands[0].Shape()) {
			return nil, fmt.Errorf("operand %d has shape %v, operand 0 has dimensions %v", i, operands[i].Shape(), xd)
		}
		if !updates[i].Shape().IsArray() || !ir.SameDimensions(updates[i].Shape(), updates[0].Shape()) {
			return nil, fmt.Errorf("update %d has shape %v, update 0 has dimensions %v", i, updates[i].Shape(), ud)
		}
		if updates[i].Shape().Elem != operands[i].Shape().Elem {
			return nil, fmt.Errorf("update %d has element type %v, operand %d %v", i, updates[i].Shape().Elem, i, operands[i].Shape().Elem)
		}
	}
	if in.ToApply == nil {
		return nil, fmt.Errorf("scatter has no to_apply computation")
	}
	f, err := e.function(in.ToApply)
	if err != nil {
		return nil, err
	}
	p, err := ops.NewScatter(elementTypes(operands), xd, idx.Shape().Elem, idx.Shape().Dims, ud, in.ScatterDims, f)
	if err != nil {
		return nil, err
	}
	results := make([]*ir.Literal, n)
	for i, o := range operands {
		results[i] = o.Clone()
	}
	if err := p.Run(arrayBytes(results), arrayBytes(results), idx.Bytes(), arrayBytes(updates), make([]byte, p.ScratchBytes())); err != nil {
		return nil, err
	}
	return packResults(results, in.Shape), nil
}

// ---- bitcast, copy, tuples, constants -------------------------------------

// evalBitcast reinterprets the operand's bytes in memory, laid out under its
// shape's layout, as the result shape under its own layout. With default
// layouts on both sides that is a reshape; an element type of the same
// width is reinterpreted as bitcast-convert does (XLA's optimized modules
// write `s32[] bitcast(f32[] x)`).
func evalBitcast(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(args, 1)
	if err != nil {
		return nil, err
	}
	// The operand's layout is its instruction's: literals are row-major
	// whatever layout they were produced under.
	xs, rs := x.Shape(), in.Shape
	if len(in.Operands) == 1 && in.Operands[0].Shape.Layout != nil {
		xs = xs.WithLayout(in.Operands[0].Shape.Layout)
	}
	for _, s := range []ir.Shape{xs, rs} {
		if s.Layout != nil && (s.Layout.Tiles != nil || s.Layout.PaddedDims != nil || s.Layout.ElementSizeBits != 0) {
			return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
				Detail: fmt.Sprintf("bitcast with the tiled, padded or sub-byte layout %v", s.Layout)}
		}
	}
	if xs.ByteSize() != rs.ByteSize() {
		return nil, fmt.Errorf("bitcast of %v to %v: sizes differ", xs, rs)
	}
	if xs.Elem.ByteSize() != rs.Elem.ByteSize() {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
			Detail: fmt.Sprintf("bitcast between element types of different widths (%v to %v)", xs.Elem, rs.Elem)}
	}
	if xs.Elem != rs.Elem && (xs.Elem.BitWidth() < 8 || rs.Elem.BitWidth() < 8) {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
			Detail: fmt.Sprintf("bitcast between the sub-byte types %v and %v", xs.Elem, rs.Elem)}
	}
	out, err := newArray(rs.Elem, rs.Dims)
	if err != nil {
		return nil, err
	}
	es := x.Shape().Elem.ByteSize()
	src, dst := x.Bytes(), out.Bytes()
	if xs.HasDefaultLayout() && rs.HasDefaultLayout() {
		copy(dst, src)
		return out, nil
	}
	// Physical position p holds operand element xs.MultiIndex(p) and result
	// element rs.MultiIndex(p).
	xIdx := make([]int, xs.Rank())
	rIdx := make([]int, rs.Rank())
	n := out.ElementCount()
	for p := 0; p < n; p++ {
		xs.MultiIndexInto(p, xIdx)
		rs.MultiIndexInto(p, rIdx)
		si := ir.RowMajorIndex(xs.Dims, xIdx) * es
		di := ir.RowMajorIndex(rs.Dims, rIdx) * es
		copy(dst[di:di+es], src[si:si+es])
	}
	return out, nil
}

func evalCopy(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(ops))
	}
	return ops[0].Clone(), nil
}

func evalTuple(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	return ir.NewTupleLiteral(ops...), nil
}

func evalGetTupleElement(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 || !ops[0].Shape().IsTuple() {
		return nil, fmt.Errorf("expected one tuple operand")
	}
	t := ops[0]
	if in.TupleIndex < 0 || in.TupleIndex >= len(t.Elements()) {
		return nil, fmt.Errorf("index %d is out of range for a tuple of %d elements", in.TupleIndex, len(t.Elements()))
	}
	return t.Element(in.TupleIndex), nil
}

func evalConstant(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if in.LiteralElided || in.Literal == nil {
		return nil, fmt.Errorf("constant of shape %v has no value (printed as {...}); the module must be exported with its constants", in.Shape.StringWithoutLayout())
	}
	return in.Literal.Clone(), nil
}

func evalOptimizationBarrier(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(ops))
	}
	return ops[0], nil
}

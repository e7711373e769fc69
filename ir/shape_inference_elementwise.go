package ir

import "slices"

// Shape inference of the elementwise ops: unary, binary (with the
// broadcasting rules of XLA's client API), compare, select, clamp, the
// conversions, reduce-precision and map.

// InferUnaryOpShape is the shape of an elementwise unary op applied to
// operand, with XLA's element-type rules: floor, ceil, erf and the roundings
// take floats; the transcendental ops floats or complex; real, imag and abs
// of a complex are its component type; abs and sign take signed types
// (floats included); not takes PRED or integers; popcnt and clz integers;
// is-finite floats and yields PRED. copy and domain pass any shape through.
func InferUnaryOpShape(op Opcode, operand Shape) (Shape, error) {
	name := op.String()
	if op == OpCopy || op == OpDomain {
		return operand.Clone(), nil
	}
	if err := expectArray(name, "operand", operand); err != nil {
		return Shape{}, err
	}
	t := operand.Elem
	bad := func(want string) (Shape, error) {
		return Shape{}, errf(name, "operand must have %s element type, found %s", want, human(operand))
	}
	switch op {
	case OpFloor, OpCeil, OpErf, OpRoundNearestAfz, OpRoundNearestEven:
		if !t.IsFloat() {
			return bad("a floating-point")
		}
		return operand.Clone(), nil
	case OpCos, OpSin, OpExp, OpExpm1, OpLog, OpLog1p, OpLogistic, OpRsqrt, OpSqrt, OpCbrt, OpTan, OpTanh,
		OpAcos, OpAcosh, OpAsin, OpAsinh, OpAtan, OpAtanh, OpCosh, OpSinh:
		if !t.IsFloatOrComplex() {
			return bad("a floating-point or complex")
		}
		return operand.Clone(), nil
	case OpReal, OpImag:
		switch {
		case t.IsComplex():
			return operand.WithElem(t.ComplexComponent()), nil
		case t.IsFloat():
			return operand.Clone(), nil
		}
		return bad("a floating-point or complex")
	case OpAbs:
		switch {
		case t.IsComplex():
			return operand.WithElem(t.ComplexComponent()), nil
		case elementIsSigned(t):
			return operand.Clone(), nil
		}
		return bad("a signed integer, floating-point or complex")
	case OpClz, OpPopulationCount:
		if !t.IsInteger() {
			return bad("an integer")
		}
		return operand.Clone(), nil
	case OpNegate:
		if !t.IsInteger() && !t.IsFloatOrComplex() {
			return bad("an integer, floating-point or complex")
		}
		return operand.Clone(), nil
	case OpSign:
		if !elementIsSigned(t) && !t.IsComplex() {
			return bad("a signed integer, floating-point or complex")
		}
		return operand.Clone(), nil
	case OpNot:
		if t != PRED && !t.IsInteger() {
			return bad("a pred or integer")
		}
		return operand.Clone(), nil
	case OpIsFinite:
		if !t.IsFloat() {
			return bad("a floating-point")
		}
		return operand.WithElem(PRED), nil
	}
	return Shape{}, errf(name, "not an elementwise unary operation")
}

// InferBinaryOpShape is the shape of an elementwise binary op, with XLA's
// element-type rules and the broadcasting rules of the broadcasting
// semantics: operands of equal rank broadcast their size-1 (degenerate)
// dimensions; a scalar broadcasts to any shape; otherwise broadcastDims maps
// each dimension of the lower-rank operand to a dimension of the higher-rank
// one (strictly increasing), after which degenerate dimensions broadcast.
// HLO instructions require equal shapes; the Builder inserts the broadcasts.
//
// Types: add, subtract, multiply, divide and power take integers, floats or
// complex; remainder integers or floats; atan2 floats or complex; maximum
// and minimum any type; and, or and xor PRED or integers; the shifts and
// mulhi (the high half of the double-width product) integers; complex
// takes two f32 (giving c64) or two f64 (giving c128); compare takes any
// type and gives PRED.
func InferBinaryOpShape(op Opcode, lhs, rhs Shape, broadcastDims []int) (Shape, error) {
	name := op.String()
	if err := expectArray(name, "lhs", lhs); err != nil {
		return Shape{}, err
	}
	if err := expectArray(name, "rhs", rhs); err != nil {
		return Shape{}, err
	}
	if lhs.Elem != rhs.Elem {
		return Shape{}, errf(name, "operands must have the same element type, found lhs %s and rhs %s", human(lhs), human(rhs))
	}
	t := lhs.Elem
	bad := func(want string) (Shape, error) {
		return Shape{}, errf(name, "operands must have %s element type, found %s", want, t)
	}
	result := t
	switch op {
	case OpAdd, OpSubtract, OpMultiply, OpDivide, OpPower:
		if !t.IsInteger() && !t.IsFloatOrComplex() {
			return bad("an integer, floating-point or complex")
		}
	case OpRemainder:
		if !t.IsInteger() && !t.IsFloat() {
			return bad("an integer or floating-point")
		}
	case OpAtan2:
		if !t.IsFloatOrComplex() {
			return bad("a floating-point or complex")
		}
	case OpMaximum, OpMinimum:
	case OpAnd, OpOr, OpXor:
		if t != PRED && !t.IsInteger() {
			return bad("a pred or integer")
		}
	case OpShiftLeft, OpShiftRightArithmetic, OpShiftRightLogical, OpMulhi:
		if !t.IsInteger() {
			return bad("an integer")
		}
	case OpComplex:
		if !t.IsFloat() {
			return bad("a floating-point")
		}
		result = ComplexOf(t)
		if result == InvalidType {
			return Shape{}, errf(name, "parts must be f32 or f64, found %s", t)
		}
	case OpCompare:
		result = PRED
	default:
		return Shape{}, errf(name, "not an elementwise binary operation")
	}
	s, err := inferElementwiseBinaryShape(name, lhs, rhs, broadcastDims)
	if err != nil {
		return Shape{}, err
	}
	s.Elem = result
	return checkResult(name, s)
}

// InferCompareShape is InferBinaryOpShape for compare, also checking that the
// direction is set and that the comparison type suits the element type
// (FLOAT, TOTALORDER or PARTIALORDER for floats, FLOAT or TOTALORDER for
// complex, SIGNED for signed integers, UNSIGNED for unsigned and PRED).
func InferCompareShape(lhs, rhs Shape, broadcastDims []int, dir ComparisonDirection, typ ComparisonType) (Shape, error) {
	s, err := InferBinaryOpShape(OpCompare, lhs, rhs, broadcastDims)
	if err != nil {
		return Shape{}, err
	}
	if dir < CmpEQ || dir > CmpLT {
		return Shape{}, errf("compare", "comparison direction is not set")
	}
	if typ == CmpTypeDefault {
		return s, nil
	}
	t := lhs.Elem
	ok := false
	switch {
	case t.IsFloat():
		ok = typ == CmpTypeFloat || typ == CmpTypeTotalOrder || typ == CmpTypePartialOrder
	case t.IsComplex():
		ok = typ == CmpTypeFloat || typ == CmpTypeTotalOrder
	case t.IsSigned():
		ok = typ == CmpTypeSigned
	default:
		ok = typ == CmpTypeUnsigned
	}
	if !ok {
		return Shape{}, errf("compare", "comparison type %v does not apply to element type %s (expected %v)", typ, t, DefaultComparisonType(t))
	}
	return s, nil
}

// inferElementwiseBinaryShape is XLA's InferElementwiseBinaryOpShape, for
// operands of the same element type.
func inferElementwiseBinaryShape(op string, lhs, rhs Shape, broadcastDims []int) (Shape, error) {
	if lhs.Rank() == rhs.Rank() {
		if len(broadcastDims) != 0 {
			for i, d := range broadcastDims {
				if d != i || len(broadcastDims) != lhs.Rank() {
					return Shape{}, errf(op, "broadcast_dimensions %s must be empty or the identity for operands of the same rank %d", intList(broadcastDims), lhs.Rank())
				}
			}
		}
		if slices.Equal(lhs.Dims, rhs.Dims) {
			flags := dynamicFlags(lhs)
			for i := range flags {
				flags[i] = flags[i] || rhs.IsDynamicDim(i)
			}
			return makeShape(lhs.Elem, lhs.Dims, flags), nil
		}
		return inferDegenerateBroadcastShape(op, lhs, rhs)
	}
	larger, smaller := lhs, rhs
	if rhs.Rank() > lhs.Rank() {
		larger, smaller = rhs, lhs
	}
	indim, err := inferInDimBroadcastShape(op, smaller, larger, broadcastDims)
	if err != nil {
		return Shape{}, err
	}
	return inferDegenerateBroadcastShape(op, indim, larger)
}

// inferDegenerateBroadcastShape broadcasts two shapes of equal rank along
// their size-1 dimensions: each dimension takes the size that is not 1.
func inferDegenerateBroadcastShape(op string, lhs, rhs Shape) (Shape, error) {
	dims := make([]int, lhs.Rank())
	dyn := make([]bool, lhs.Rank())
	for i := range dims {
		l, r := lhs.Dims[i], rhs.Dims[i]
		switch {
		case l == 1 || r == 1:
			if l == 1 {
				dims[i], dyn[i] = r, rhs.IsDynamicDim(i)
			} else {
				dims[i], dyn[i] = l, lhs.IsDynamicDim(i)
			}
		case l == r:
			dims[i], dyn[i] = l, lhs.IsDynamicDim(i) || rhs.IsDynamicDim(i)
		default:
			return Shape{}, errf(op, "incompatible shapes %s and %s: dimension %d has size %d and %d, and neither is 1", human(lhs), human(rhs), i, l, r)
		}
	}
	return makeShape(lhs.Elem, dims, dyn), nil
}

// inferInDimBroadcastShape maps the dimensions of the lower-rank operand onto
// the higher-rank one through broadcastDims. The result has the larger
// operand's rank; dimensions named in broadcastDims take the smaller
// operand's sizes (so a size-1 dimension stays 1 for degenerate broadcasting
// to expand).
func inferInDimBroadcastShape(op string, smaller, larger Shape, broadcastDims []int) (Shape, error) {
	if len(broadcastDims) == 0 && !smaller.IsScalar() {
		return Shape{}, errf(op, "operands of different ranks %s and %s need broadcast_dimensions (only a scalar broadcasts implicitly)", human(smaller), human(larger))
	}
	if len(broadcastDims) != smaller.Rank() {
		return Shape{}, errf(op, "broadcast_dimensions %s must have one entry per dimension of the lower-rank operand %s", intList(broadcastDims), human(smaller))
	}
	dims := slices.Clone(larger.Dims)
	dyn := dynamicFlags(larger)
	for i, d := range broadcastDims {
		if d < 0 || d >= larger.Rank() {
			return Shape{}, errf(op, "broadcast dimension %d is %d, out of range for the higher-rank operand %s", i, d, human(larger))
		}
		if i > 0 && broadcastDims[i-1] >= d {
			return Shape{}, errf(op, "broadcast_dimensions %s must be strictly increasing", intList(broadcastDims))
		}
		small, large := smaller.Dims[i], larger.Dims[d]
		if small != large && small != 1 && large != 1 {
			return Shape{}, errf(op, "broadcast dimension %d maps operand dimension of size %d to dimension %d of size %d (%s and %s)", i, small, d, large, human(smaller), human(larger))
		}
		sd, ld := smaller.IsDynamicDim(i), larger.IsDynamicDim(d)
		if sd != ld && small != large && !(small == 1 && !sd) && !(large == 1 && !ld) {
			return Shape{}, errf(op, "broadcast dimension %d: dynamic and static sizes do not match (%s and %s)", i, human(smaller), human(larger))
		}
		dims[d] = small
		dyn[d] = sd
	}
	return makeShape(smaller.Elem, dims, dyn), nil
}

// InferSelectShape is the shape of select(pred, on_true, on_false): on_true
// and on_false must have the same shape; pred is PRED with their dimensions,
// or a PRED scalar (which also selects between tuples).
func InferSelectShape(pred, onTrue, onFalse Shape) (Shape, error) {
	const op = "select"
	if err := expectArray(op, "pred", pred); err != nil {
		return Shape{}, err
	}
	if !compatible(onTrue, onFalse) {
		return Shape{}, errf(op, "on_true and on_false must have the same shape, found %s and %s", human(onTrue), human(onFalse))
	}
	if pred.Elem != PRED {
		return Shape{}, errf(op, "pred must have element type pred, found %s", human(pred))
	}
	if pred.IsScalar() && !onTrue.IsArray() {
		return onTrue.Clone(), nil
	}
	if err := expectArray(op, "on_true", onTrue); err != nil {
		return Shape{}, err
	}
	if !pred.IsScalar() && !slices.Equal(pred.Dims, onTrue.Dims) {
		return Shape{}, errf(op, "pred %s must be a scalar or have the dimensions of on_true %s", human(pred), human(onTrue))
	}
	flags := dynamicFlags(onTrue)
	for i := range flags {
		flags[i] = flags[i] || onFalse.IsDynamicDim(i) || (!pred.IsScalar() && pred.IsDynamicDim(i))
	}
	return makeShape(onTrue.Elem, onTrue.Dims, flags), nil
}

// InferClampShape is the shape of clamp(min, operand, max): all three of one
// element type; min and max each the operand's shape or a scalar.
func InferClampShape(min, operand, max Shape) (Shape, error) {
	const op = "clamp"
	for _, x := range []struct {
		what string
		s    Shape
	}{{"min", min}, {"operand", operand}, {"max", max}} {
		if err := expectArray(op, x.what, x.s); err != nil {
			return Shape{}, err
		}
	}
	if min.Elem != operand.Elem || max.Elem != operand.Elem {
		return Shape{}, errf(op, "min, operand and max must have the same element type, found %s, %s and %s", human(min), human(operand), human(max))
	}
	if !min.IsScalar() && !slices.Equal(min.Dims, operand.Dims) {
		return Shape{}, errf(op, "min %s must be a scalar or have the shape of operand %s", human(min), human(operand))
	}
	if !max.IsScalar() && !slices.Equal(max.Dims, operand.Dims) {
		return Shape{}, errf(op, "max %s must be a scalar or have the shape of operand %s", human(max), human(operand))
	}
	return operand.Clone(), nil
}

// InferTernaryOpShape dispatches select and clamp.
func InferTernaryOpShape(op Opcode, a, b, c Shape) (Shape, error) {
	switch op {
	case OpSelect:
		return InferSelectShape(a, b, c)
	case OpClamp:
		return InferClampShape(a, b, c)
	}
	return Shape{}, errf(op.String(), "not a ternary elementwise operation")
}

// InferConvertShape is the shape of convert(operand) to element type t.
func InferConvertShape(operand Shape, t ElementType) (Shape, error) {
	const op = "convert"
	if !operand.IsArray() || !t.IsArray() {
		return Shape{}, errf(op, "converts arrays only, found %s to %v", human(operand), t)
	}
	return operand.WithElem(t), nil
}

// InferBitcastConvertShape is the shape of bitcast-convert(operand) to
// element type t. Between types of the same width the dimensions are kept;
// to a narrower type a new minor dimension of size (old width / new width)
// is added; to a wider type the minor dimension, which must have size
// (new width / old width), is removed. Complex and real types do not mix.
func InferBitcastConvertShape(operand Shape, t ElementType) (Shape, error) {
	const op = "bitcast-convert"
	if !operand.IsArray() || !t.IsArray() {
		return Shape{}, errf(op, "converts arrays only, found %s to %v", human(operand), t)
	}
	from := operand.Elem
	if from.IsComplex() != t.IsComplex() {
		return Shape{}, errf(op, "cannot convert between complex and real types, found %s to %v", human(operand), t)
	}
	in, out := from.BitWidth(), t.BitWidth()
	if max(in, out)%min(in, out) != 0 {
		return Shape{}, errf(op, "bit widths %d (%v) and %d (%v) do not divide one another", in, from, out, t)
	}
	s := operand.WithoutLayout()
	s.Elem = t
	switch {
	case in > out:
		s.Dims = append(s.Dims, in/out)
		if s.Dynamic != nil {
			s.Dynamic = append(s.Dynamic, false)
		}
	case in < out:
		ratio := out / in
		last := operand.Rank() - 1
		if last < 0 || operand.Dims[last] != ratio {
			return Shape{}, errf(op, "converting %s to the wider type %v needs a minor dimension of size %d", human(operand), t, ratio)
		}
		s.Dims = s.Dims[:last]
		if s.Dynamic != nil {
			s = makeShape(t, s.Dims, s.Dynamic[:last])
		}
	}
	return s, nil
}

// InferReducePrecisionShape is the shape of reduce-precision: the operand's,
// which must be floating point, with at least one exponent bit and a
// non-negative number of mantissa bits.
func InferReducePrecisionShape(operand Shape, exponentBits, mantissaBits int) (Shape, error) {
	const op = "reduce-precision"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if !operand.Elem.IsFloat() {
		return Shape{}, errf(op, "operand must have a floating-point element type, found %s", human(operand))
	}
	if exponentBits < 1 {
		return Shape{}, errf(op, "exponent_bits must be at least 1, found %d", exponentBits)
	}
	if mantissaBits < 0 {
		return Shape{}, errf(op, "mantissa_bits must not be negative, found %d", mantissaBits)
	}
	return operand.Clone(), nil
}

// InferStochasticConvertShape is the shape of stochastic-convert(operand,
// random) to type t: operand floating point, random unsigned of the same
// width and dimensions.
func InferStochasticConvertShape(operand, random Shape, t ElementType) (Shape, error) {
	const op = "stochastic-convert"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if err := expectArray(op, "random", random); err != nil {
		return Shape{}, err
	}
	if !operand.Elem.IsFloat() {
		return Shape{}, errf(op, "operand must have a floating-point element type, found %s", human(operand))
	}
	if !random.Elem.IsUnsigned() {
		return Shape{}, errf(op, "random must have an unsigned integer element type, found %s", human(random))
	}
	if random.Elem.BitWidth() != operand.Elem.BitWidth() {
		return Shape{}, errf(op, "random %s must have the bit width of operand %s", human(random), human(operand))
	}
	if !slices.Equal(random.Dims, operand.Dims) {
		return Shape{}, errf(op, "random %s must have the dimensions of operand %s", human(random), human(operand))
	}
	if !t.IsArray() {
		return Shape{}, errf(op, "result element type %v is not an array element type", t)
	}
	return operand.WithElem(t), nil
}

// InferMapShape is the shape of map(operands…) with computation toApply
// over dimensions (which must be all of them, in order): the operands'
// dimensions with the computation's scalar result type. Scalar operands
// broadcast; every other operand has the same dimensions.
func InferMapShape(operands []Shape, toApply ProgramShape, dimensions []int) (Shape, error) {
	const op = "map"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	arg := operands[0]
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
		if slices.Equal(s.Dims, arg.Dims) || s.IsScalar() {
			continue
		}
		if arg.IsScalar() {
			arg = s
			continue
		}
		return Shape{}, errf(op, "operands must have the same dimensions, found %s and %s", human(arg), human(s))
	}
	if len(dimensions) != arg.Rank() {
		return Shape{}, errf(op, "dimensions %s must list all %d dimensions of the operands", intList(dimensions), arg.Rank())
	}
	for i, d := range dimensions {
		if d != i {
			return Shape{}, errf(op, "dimensions %s must be 0, 1, …, %d in order", intList(dimensions), arg.Rank()-1)
		}
	}
	if len(toApply.Parameters) != len(operands) {
		return Shape{}, errf(op, "computation takes %d parameters for %d operands", len(toApply.Parameters), len(operands))
	}
	if !toApply.Result.IsScalar() {
		return Shape{}, errf(op, "computation must return a scalar, found %s", human(toApply.Result))
	}
	for i, p := range toApply.Parameters {
		if !p.IsScalar() {
			return Shape{}, errf(op, "computation parameter %d must be a scalar, found %s", i, human(p))
		}
		if p.Elem != operands[i].Elem {
			return Shape{}, errf(op, "computation parameter %d has type %s, operand %d has element type %s", i, human(p), i, operands[i].Elem)
		}
	}
	return makeShape(toApply.Result.Elem, arg.Dims, dynamicFlags(arg)), nil
}

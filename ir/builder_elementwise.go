package ir

import "slices"

// The Builder's elementwise operations: unary, binary (with XLA's client
// broadcasting), comparisons, select, clamp, conversions, reduce-precision
// and map.

func (b *Builder) unary(op Opcode, x Op) Op {
	if !b.use(op.String(), x) {
		return Op{b: b}
	}
	s, err := InferUnaryOpShape(op, x.in.Shape)
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: op, Shape: s, Operands: []*Instruction{x.in}})
}

// Abs adds abs(x): |x|; of a complex, its magnitude.
func (b *Builder) Abs(x Op) Op { return b.unary(OpAbs, x) }

// Acos adds arccos(x).
func (b *Builder) Acos(x Op) Op { return b.unary(OpAcos, x) }

// Acosh adds the inverse hyperbolic cosine of x.
func (b *Builder) Acosh(x Op) Op { return b.unary(OpAcosh, x) }

// Asin adds arcsin(x).
func (b *Builder) Asin(x Op) Op { return b.unary(OpAsin, x) }

// Asinh adds the inverse hyperbolic sine of x.
func (b *Builder) Asinh(x Op) Op { return b.unary(OpAsinh, x) }

// Atan adds arctan(x).
func (b *Builder) Atan(x Op) Op { return b.unary(OpAtan, x) }

// Atanh adds the inverse hyperbolic tangent of x.
func (b *Builder) Atanh(x Op) Op { return b.unary(OpAtanh, x) }

// Cosh adds the hyperbolic cosine of x.
func (b *Builder) Cosh(x Op) Op { return b.unary(OpCosh, x) }

// Sinh adds the hyperbolic sine of x.
func (b *Builder) Sinh(x Op) Op { return b.unary(OpSinh, x) }

// Cbrt adds the cube root of x.
func (b *Builder) Cbrt(x Op) Op { return b.unary(OpCbrt, x) }

// Ceil adds ceil(x).
func (b *Builder) Ceil(x Op) Op { return b.unary(OpCeil, x) }

// Clz adds the count of leading zero bits of each element of x.
func (b *Builder) Clz(x Op) Op { return b.unary(OpClz, x) }

// Cos adds cos(x).
func (b *Builder) Cos(x Op) Op { return b.unary(OpCos, x) }

// Erf adds the error function of x.
func (b *Builder) Erf(x Op) Op { return b.unary(OpErf, x) }

// Exp adds e^x.
func (b *Builder) Exp(x Op) Op { return b.unary(OpExp, x) }

// Expm1 adds e^x - 1.
func (b *Builder) Expm1(x Op) Op { return b.unary(OpExpm1, x) }

// Floor adds floor(x).
func (b *Builder) Floor(x Op) Op { return b.unary(OpFloor, x) }

// Imag adds the imaginary part of x (0 for a real x).
func (b *Builder) Imag(x Op) Op { return b.unary(OpImag, x) }

// IsFinite adds a PRED array: whether each element of x is finite.
func (b *Builder) IsFinite(x Op) Op { return b.unary(OpIsFinite, x) }

// Log adds ln(x).
func (b *Builder) Log(x Op) Op { return b.unary(OpLog, x) }

// Log1p adds ln(1+x).
func (b *Builder) Log1p(x Op) Op { return b.unary(OpLog1p, x) }

// Logistic adds 1/(1+e^-x).
func (b *Builder) Logistic(x Op) Op { return b.unary(OpLogistic, x) }

// Neg adds -x.
func (b *Builder) Neg(x Op) Op { return b.unary(OpNegate, x) }

// Not adds the logical (PRED) or bitwise (integers) not of x.
func (b *Builder) Not(x Op) Op { return b.unary(OpNot, x) }

// PopulationCount adds the number of set bits of each element of x.
func (b *Builder) PopulationCount(x Op) Op { return b.unary(OpPopulationCount, x) }

// Real adds the real part of x (x itself for a real x).
func (b *Builder) Real(x Op) Op { return b.unary(OpReal, x) }

// Round adds x rounded to the nearest integer, halfway cases away from zero.
func (b *Builder) Round(x Op) Op { return b.unary(OpRoundNearestAfz, x) }

// RoundNearestEven adds x rounded to the nearest integer, halfway cases to even.
func (b *Builder) RoundNearestEven(x Op) Op { return b.unary(OpRoundNearestEven, x) }

// Rsqrt adds 1/sqrt(x).
func (b *Builder) Rsqrt(x Op) Op { return b.unary(OpRsqrt, x) }

// Sign adds the sign of x (-1, -0, NaN, +0 or 1).
func (b *Builder) Sign(x Op) Op { return b.unary(OpSign, x) }

// Sin adds sin(x).
func (b *Builder) Sin(x Op) Op { return b.unary(OpSin, x) }

// Sqrt adds sqrt(x).
func (b *Builder) Sqrt(x Op) Op { return b.unary(OpSqrt, x) }

// Tan adds tan(x).
func (b *Builder) Tan(x Op) Op { return b.unary(OpTan, x) }

// Tanh adds tanh(x).
func (b *Builder) Tanh(x Op) Op { return b.unary(OpTanh, x) }

// Copy adds a copy of x.
func (b *Builder) Copy(x Op) Op { return b.unary(OpCopy, x) }

// binary adds an elementwise binary op the way XlaBuilder::BinaryOp does:
// the lower-rank operand is broadcast along broadcastDims, then degenerate
// (size-1) dimensions and scalars are broadcast explicitly, so that the HLO
// instruction sees operands of its result's dimensions.
func (b *Builder) binary(op Opcode, lhs, rhs Op, broadcastDims []int, dir ComparisonDirection, typ ComparisonType) Op {
	name := op.String()
	if !b.use(name, lhs, rhs) {
		return Op{b: b}
	}
	ls, rs := lhs.in.Shape, rhs.in.Shape
	var s Shape
	var err error
	if op == OpCompare {
		s, err = InferCompareShape(ls, rs, broadcastDims, dir, typ)
	} else {
		s, err = InferBinaryOpShape(op, ls, rs, broadcastDims)
	}
	if err != nil {
		return b.fail(err)
	}
	l, r := lhs, rhs
	if len(broadcastDims) > 0 && ls.Rank() != rs.Rank() {
		from, fs := rhs, rs
		if ls.Rank() < rs.Rank() {
			from, fs = lhs, ls
		}
		size := slices.Clone(s.Dims)
		dyn := make([]bool, len(size))
		for fromDim, toDim := range broadcastDims {
			size[toDim] = fs.Dims[fromDim]
			dyn[toDim] = fs.IsDynamicDim(fromDim)
		}
		bc := b.inDimBroadcast(makeShape(fs.Elem, size, dyn), from, broadcastDims)
		if ls.Rank() < rs.Rank() {
			l = bc
		} else {
			r = bc
		}
	}
	if b.err == nil && !slices.Equal(s.Dims, l.Shape().Dims) {
		l = b.addBroadcastSequence(s, l)
	}
	if b.err == nil && !slices.Equal(s.Dims, r.Shape().Dims) {
		r = b.addBroadcastSequence(s, r)
	}
	if b.err != nil {
		return Op{b: b}
	}
	in := &Instruction{Opcode: op, Shape: s, Operands: []*Instruction{l.in, r.in}}
	if op == OpCompare {
		in.Direction, in.CompareType = dir, typ
	}
	return b.emit(in)
}

// Add adds lhs + rhs. Operands of different ranks need broadcastDims (the
// dimensions of the higher-rank operand that the lower-rank one's map to),
// unless one is a scalar; size-1 dimensions broadcast (see the broadcasting
// semantics). Every binary method takes broadcastDims the same way.
func (b *Builder) Add(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpAdd, lhs, rhs, broadcastDims, 0, 0)
}

// Sub adds lhs - rhs.
func (b *Builder) Sub(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpSubtract, lhs, rhs, broadcastDims, 0, 0)
}

// Mul adds lhs * rhs.
func (b *Builder) Mul(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpMultiply, lhs, rhs, broadcastDims, 0, 0)
}

// Div adds lhs / rhs.
func (b *Builder) Div(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpDivide, lhs, rhs, broadcastDims, 0, 0)
}

// Rem adds the remainder of lhs / rhs, with the sign of lhs.
func (b *Builder) Rem(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpRemainder, lhs, rhs, broadcastDims, 0, 0)
}

// Mulhi adds the high half of the double-width product of the integers lhs
// and rhs.
func (b *Builder) Mulhi(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpMulhi, lhs, rhs, broadcastDims, 0, 0)
}

// Max adds max(lhs, rhs).
func (b *Builder) Max(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpMaximum, lhs, rhs, broadcastDims, 0, 0)
}

// Min adds min(lhs, rhs).
func (b *Builder) Min(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpMinimum, lhs, rhs, broadcastDims, 0, 0)
}

// Pow adds lhs ^ rhs.
func (b *Builder) Pow(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpPower, lhs, rhs, broadcastDims, 0, 0)
}

// Atan2 adds atan2(lhs, rhs).
func (b *Builder) Atan2(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpAtan2, lhs, rhs, broadcastDims, 0, 0)
}

// Complex adds the complex number with real part lhs and imaginary part rhs.
func (b *Builder) Complex(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpComplex, lhs, rhs, broadcastDims, 0, 0)
}

// And adds the logical or bitwise and of lhs and rhs.
func (b *Builder) And(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpAnd, lhs, rhs, broadcastDims, 0, 0)
}

// Or adds the logical or bitwise or of lhs and rhs.
func (b *Builder) Or(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpOr, lhs, rhs, broadcastDims, 0, 0)
}

// Xor adds the logical or bitwise exclusive or of lhs and rhs.
func (b *Builder) Xor(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpXor, lhs, rhs, broadcastDims, 0, 0)
}

// ShiftLeft adds lhs << rhs.
func (b *Builder) ShiftLeft(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpShiftLeft, lhs, rhs, broadcastDims, 0, 0)
}

// ShiftRightArithmetic adds lhs >> rhs, shifting in the sign bit.
func (b *Builder) ShiftRightArithmetic(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpShiftRightArithmetic, lhs, rhs, broadcastDims, 0, 0)
}

// ShiftRightLogical adds lhs >> rhs, shifting in zeros.
func (b *Builder) ShiftRightLogical(lhs, rhs Op, broadcastDims ...int) Op {
	return b.binary(OpShiftRightLogical, lhs, rhs, broadcastDims, 0, 0)
}

// Compare adds a PRED array comparing lhs and rhs in direction dir with
// comparison type typ (CmpTypeDefault: the element type's default).
func (b *Builder) Compare(lhs, rhs Op, dir ComparisonDirection, typ ComparisonType, broadcastDims ...int) Op {
	return b.binary(OpCompare, lhs, rhs, broadcastDims, dir, typ)
}

func (b *Builder) cmp(lhs, rhs Op, dir ComparisonDirection, total bool, dims []int) Op {
	typ := CmpTypeDefault
	if total && lhs.in != nil && lhs.in.Shape.Elem.IsFloatOrComplex() {
		typ = CmpTypeTotalOrder
	}
	return b.binary(OpCompare, lhs, rhs, dims, dir, typ)
}

// Eq adds lhs == rhs.
func (b *Builder) Eq(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpEQ, false, broadcastDims)
}

// Ne adds lhs != rhs.
func (b *Builder) Ne(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpNE, false, broadcastDims)
}

// Ge adds lhs >= rhs.
func (b *Builder) Ge(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpGE, false, broadcastDims)
}

// Gt adds lhs > rhs.
func (b *Builder) Gt(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpGT, false, broadcastDims)
}

// Le adds lhs <= rhs.
func (b *Builder) Le(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpLE, false, broadcastDims)
}

// Lt adds lhs < rhs.
func (b *Builder) Lt(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpLT, false, broadcastDims)
}

// EqTotalOrder adds lhs == rhs under the total order of floating-point
// values (-NaN < -Inf < … < -0 < +0 < … < +Inf < +NaN).
func (b *Builder) EqTotalOrder(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpEQ, true, broadcastDims)
}

// NeTotalOrder adds lhs != rhs under the floating-point total order.
func (b *Builder) NeTotalOrder(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpNE, true, broadcastDims)
}

// GeTotalOrder adds lhs >= rhs under the floating-point total order.
func (b *Builder) GeTotalOrder(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpGE, true, broadcastDims)
}

// GtTotalOrder adds lhs > rhs under the floating-point total order.
func (b *Builder) GtTotalOrder(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpGT, true, broadcastDims)
}

// LeTotalOrder adds lhs <= rhs under the floating-point total order.
func (b *Builder) LeTotalOrder(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpLE, true, broadcastDims)
}

// LtTotalOrder adds lhs < rhs under the floating-point total order.
func (b *Builder) LtTotalOrder(lhs, rhs Op, broadcastDims ...int) Op {
	return b.cmp(lhs, rhs, CmpLT, true, broadcastDims)
}

// ternary adds select or clamp the way XlaBuilder::TernaryOp does: scalar
// array operands are broadcast explicitly to the shape of the non-scalar
// ones, which must agree.
func (b *Builder) ternary(op Opcode, x, y, z Op) Op {
	name := op.String()
	if !b.use(name, x, y, z) {
		return Op{b: b}
	}
	ops := []Op{x, y, z}
	var full *Shape
	for _, o := range ops {
		s := o.in.Shape
		if !s.IsArray() || s.Rank() == 0 {
			continue
		}
		if full == nil {
			full = &s
		} else if !slices.Equal(full.Dims, s.Dims) {
			return b.failf(name, "operands %s and %s have different shapes; only scalars broadcast implicitly", human(*full), human(s))
		}
	}
	if full != nil {
		for i, o := range ops {
			if s := o.in.Shape; s.IsArray() && s.Rank() == 0 {
				ops[i] = b.addBroadcastSequence(makeShape(s.Elem, full.Dims, nil), o)
			}
		}
		if b.err != nil {
			return Op{b: b}
		}
	}
	s, err := InferTernaryOpShape(op, ops[0].in.Shape, ops[1].in.Shape, ops[2].in.Shape)
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: op, Shape: s, Operands: instructions(ops)})
}

// Select adds on_true where pred holds, on_false elsewhere. A scalar pred
// selects whole operands (tuples too); scalar arrays broadcast.
func (b *Builder) Select(pred, onTrue, onFalse Op) Op {
	return b.ternary(OpSelect, pred, onTrue, onFalse)
}

// Clamp adds min(max(x, lo), hi); lo and hi may be scalars.
func (b *Builder) Clamp(lo, x, hi Op) Op { return b.ternary(OpClamp, lo, x, hi) }

// ConvertElementType adds x converted elementwise to type t.
func (b *Builder) ConvertElementType(x Op, t ElementType) Op {
	const op = "convert"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferConvertShape(x.in.Shape, t)
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpConvert, Shape: s, Operands: []*Instruction{x.in}})
}

// BitcastConvertType adds x's bits reinterpreted as type t; between widths,
// a minor dimension is added or removed (see InferBitcastConvertShape).
func (b *Builder) BitcastConvertType(x Op, t ElementType) Op {
	const op = "bitcast-convert"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferBitcastConvertShape(x.in.Shape, t)
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpBitcastConvert, Shape: s, Operands: []*Instruction{x.in}})
}

// ReducePrecision adds x rounded to a float format of the given exponent and
// mantissa bits and back.
func (b *Builder) ReducePrecision(x Op, exponentBits, mantissaBits int) Op {
	const op = "reduce-precision"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferReducePrecisionShape(x.in.Shape, exponentBits, mantissaBits)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpReducePrecision, Shape: s, Operands: []*Instruction{x.in}}
	in.ExponentBits, in.MantissaBits = exponentBits, mantissaBits
	return b.emit(in)
}

// Map adds comp applied elementwise to the operands over dimensions (all of
// them, in order); scalar operands broadcast.
func (b *Builder) Map(operands []Op, comp *Computation, dimensions []int) Op {
	const op = "map"
	if !b.use(op, operands...) {
		return Op{b: b}
	}
	p, ok := b.useComputation(op, "to_apply", comp)
	if !ok {
		return Op{b: b}
	}
	s, err := InferMapShape(shapesOf(operands), p, dimensions)
	if err != nil {
		return b.fail(err)
	}
	ops := slices.Clone(operands)
	for i, o := range ops {
		if o.in.Shape.Rank() != s.Rank() {
			ops[i] = b.inDimBroadcast(makeShape(o.in.Shape.Elem, s.Dims, nil), o, nil)
		}
	}
	if b.err != nil {
		return Op{b: b}
	}
	in := &Instruction{Opcode: OpMap, Shape: s, Operands: instructions(ops), ToApply: comp}
	in.Dimensions = slices.Clone(dimensions)
	return b.emit(in)
}

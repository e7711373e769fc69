package affine

import "iter"

// Terms iterates over the summands of e as (coefficient, operand) pairs: a
// summand x * c, with c constant, is (c, x), any other non-constant summand
// x is (1, x). Constant summands are left out; Offset is their sum. A
// summand may appear more than once in an expression that is not
// simplified.
func (e Expr) Terms() iter.Seq2[int64, Expr] {
	return func(yield func(int64, Expr) bool) {
		e.terms(yield)
	}
}

func (e Expr) terms(yield func(int64, Expr) bool) bool {
	if e.op() == opAdd {
		return e.n.lhs.terms(yield) && e.n.rhs.terms(yield)
	}
	if _, ok := e.Constant(); ok {
		return true
	}
	x, c := baseAndCoefficient(e)
	return yield(c, x)
}

// Offset is the sum of the constant summands of e: for d0 + 5 it is 5, for
// d0 / 2 it is 0.
func (e Expr) Offset() int64 {
	if e.op() == opAdd {
		return e.n.lhs.Offset() + e.n.rhs.Offset()
	}
	v, _ := e.Constant()
	return v
}

// Operands returns the operands of a product, quotient or remainder by a
// constant, (x, c); for other expressions it returns (e, 1).
func (e Expr) Operands() (Expr, int64) {
	switch e.op() {
	case opMul, opFloorDiv, opCeilDiv, opMod:
		if c, ok := e.n.rhs.Constant(); ok {
			return e.n.lhs, c
		}
	}
	return e, 1
}

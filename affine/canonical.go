package affine

import "slices"

// Canonicalize rewrites e into XLA's canonical form without using any
// bounds (SymbolicExpr::Canonicalize): operands are canonicalized first,
// operations on constants are evaluated, and then
//
//   - sums are flattened, equal summands collected (x*2 + x*3 → x*5),
//     constants added up, and the summands sorted in XLA's order (Compare);
//   - products fold constants, distribute over sums, and keep a constant
//     operand on the right;
//   - min(x, x + k) and max(x, x + k) pick the operand a constant apart;
//   - (a * c1) floordiv c2, ceildiv c2 and mod c2 divide out gcd(c1, c2);
//     (a*c1 + b) floordiv c2 splits off a*c1 when c2 divides c1; x ceildiv c
//     becomes (x + c - 1) floordiv c, and x floordiv -1 becomes -x;
//   - x mod c becomes x - (x floordiv c) * c unless the quotient is 0, for a
//     constant c > 0 (XLA rewrites any divisor, which is wrong for the
//     others).
func (e Expr) Canonicalize() Expr {
	if !e.IsBinary() {
		return e
	}
	o := e.n.op
	lhs := e.n.lhs.Canonicalize()
	rhs := e.n.rhs.Canonicalize()
	if a, ok := lhs.Constant(); ok {
		if b, ok := rhs.Constant(); ok {
			if v, ok := evalOp(o, a, b); ok {
				return Const(v)
			}
		}
	}
	switch o {
	case opAdd, opMul, opMin, opMax:
		if rhs.Compare(lhs) < 0 {
			lhs, rhs = rhs, lhs
		}
	}
	switch o {
	case opAdd:
		return canonicalAdd(lhs, rhs)
	case opMul:
		return canonicalMul(lhs, rhs)
	case opMin:
		if d, ok := constDifference(lhs, rhs); ok {
			if d <= 0 {
				return lhs
			}
			return rhs
		}
		return binary(opMin, lhs, rhs)
	case opMax:
		if d, ok := constDifference(lhs, rhs); ok {
			if d >= 0 {
				return lhs
			}
			return rhs
		}
		return binary(opMax, lhs, rhs)
	case opFloorDiv:
		return canonicalFloorDiv(lhs, rhs)
	case opCeilDiv:
		return canonicalCeilDiv(lhs, rhs)
	default:
		return canonicalMod(lhs, rhs)
	}
}

// baseAndCoefficient splits e into base * coefficient, looking through nested
// products by constants.
func baseAndCoefficient(e Expr) (Expr, int64) {
	if k, ok := e.constRHS(opMul); ok {
		b, c := baseAndCoefficient(e.n.lhs)
		return b, c * k
	}
	return e, 1
}

type scaledTerm struct {
	base Expr
	coef int64
}

func appendScaledTerms(ts []scaledTerm, e Expr) []scaledTerm {
	if e.op() == opAdd {
		ts = appendScaledTerms(ts, e.n.lhs)
		return appendScaledTerms(ts, e.n.rhs)
	}
	b, c := baseAndCoefficient(e)
	return append(ts, scaledTerm{b, c})
}

func canonicalAdd(lhs, rhs Expr) Expr {
	ts := appendScaledTerms(appendScaledTerms(make([]scaledTerm, 0, 8), lhs), rhs)
	slices.SortStableFunc(ts, func(a, b scaledTerm) int { return a.base.Compare(b.base) })
	exprs := make([]Expr, 0, len(ts))
	var constant int64
	for i := 0; i < len(ts); i++ {
		base, coef := ts[i].base, ts[i].coef
		for i+1 < len(ts) && ts[i+1].base.Equal(base) {
			coef += ts[i+1].coef
			i++
		}
		if coef == 0 {
			continue
		}
		if v, ok := base.Constant(); ok {
			constant += v * coef
			continue
		}
		exprs = append(exprs, base.Times(Const(coef)).Canonicalize())
	}
	if constant != 0 {
		exprs = append(exprs, Const(constant))
	}
	if len(exprs) == 0 {
		return Expr{}
	}
	slices.SortStableFunc(exprs, Expr.Compare)
	r := exprs[0]
	for _, x := range exprs[1:] {
		r = binary(opAdd, r, x)
	}
	return r
}

func canonicalMul(lhs, rhs Expr) Expr {
	if c, ok := rhs.Constant(); ok {
		if r, ok := (builder{}).mulByConst(lhs, c); ok {
			if r.isConstOrSame(lhs) {
				return r
			}
			return r.Canonicalize()
		}
	}
	if lhs.op() == opAdd {
		return lhs.n.lhs.Times(rhs).Add(lhs.n.rhs.Times(rhs)).Canonicalize()
	}
	if rhs.op() == opAdd {
		return lhs.Times(rhs.n.lhs).Add(lhs.Times(rhs.n.rhs)).Canonicalize()
	}
	return binary(opMul, lhs, rhs)
}

func (e Expr) isConstOrSame(f Expr) bool {
	_, ok := e.Constant()
	return ok || e.n == f.n
}

// constDifference reports whether a - b canonicalizes to a constant.
func constDifference(a, b Expr) (int64, bool) {
	return a.Sub(b).Canonicalize().Constant()
}

// divModByGCD rewrites (a * c1) op c2 by dividing out g = gcd(c1, c2) > 1.
func divModByGCD(o op, lhs Expr, divisor int64) (Expr, bool) {
	c1, ok := lhs.constRHS(opMul)
	if !ok {
		return Expr{}, false
	}
	g := gcd(c1, divisor)
	if g <= 1 {
		return Expr{}, false
	}
	a := lhs.n.lhs
	switch o {
	case opFloorDiv:
		return a.Times(Const(c1 / g)).FloorDiv(divisor / g).Canonicalize(), true
	case opCeilDiv:
		return a.Times(Const(c1 / g)).CeilDiv(divisor / g).Canonicalize(), true
	default:
		return a.Times(Const(c1 / g)).Mod(divisor / g).Times(Const(g)).Canonicalize(), true
	}
}

// floorDivSplit rewrites (a + b) floordiv c as a/c + b floordiv c when a is a
// constant or a product by a constant that c divides.
func floorDivSplit(a, b Expr, c int64) (Expr, bool) {
	var coef int64
	var rest Expr
	if k, ok := a.constRHS(opMul); ok {
		coef, rest = k, a.n.lhs
	} else if v, ok := a.Constant(); ok {
		coef, rest = v, Const(1)
	} else {
		return Expr{}, false
	}
	if coef%c != 0 {
		return Expr{}, false
	}
	return rest.Times(Const(coef / c)).Add(b.FloorDiv(c)).Canonicalize(), true
}

func canonicalFloorDiv(lhs, rhs Expr) Expr {
	if lhs.IsConst(0) {
		return lhs
	}
	if d, ok := rhs.Constant(); ok && d != 0 {
		switch d {
		case 1:
			return lhs
		case -1:
			return lhs.Neg()
		}
		if r, ok := divModByGCD(opFloorDiv, lhs, d); ok {
			return r
		}
		if lhs.op() == opAdd {
			if r, ok := floorDivSplit(lhs.n.lhs, lhs.n.rhs, d); ok {
				return r
			}
			if r, ok := floorDivSplit(lhs.n.rhs, lhs.n.lhs, d); ok {
				return r
			}
		}
	}
	return binary(opFloorDiv, lhs, rhs)
}

func canonicalCeilDiv(lhs, rhs Expr) Expr {
	if lhs.IsConst(0) {
		return lhs
	}
	if d, ok := rhs.Constant(); ok && d != 0 {
		switch d {
		case 1:
			return lhs
		case -1:
			return lhs.Neg()
		}
		if r, ok := divModByGCD(opCeilDiv, lhs, d); ok {
			return r
		}
		if d > 0 {
			return lhs.Add(Const(d - 1)).Canonicalize().FloorDivBy(rhs).Canonicalize()
		}
		return lhs.FloorDiv(-d).Neg()
	}
	return binary(opCeilDiv, lhs, rhs)
}

func canonicalMod(lhs, rhs Expr) Expr {
	if lhs.IsConst(0) {
		return lhs
	}
	if lhs.Equal(rhs) {
		return Expr{}
	}
	d, isConst := rhs.Constant()
	if isConst && d == 0 {
		return binary(opMod, lhs, rhs)
	}
	if isConst {
		if r, ok := divModByGCD(opMod, lhs, d); ok {
			return r
		}
	}
	if !isConst || d < 0 {
		// x - (x floordiv d) * d is the remainder only for d > 0 (XLA's
		// remainder by a negative divisor is that by its magnitude).
		return binary(opMod, lhs, rhs)
	}
	q := lhs.FloorDivBy(rhs).Canonicalize()
	if q.IsConst(0) {
		return lhs
	}
	return lhs.Sub(q.Times(rhs).Canonicalize()).Canonicalize()
}

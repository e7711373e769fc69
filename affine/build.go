package affine

// The operations below build expressions as XLA's SymbolicExpr operators do:
// they fold constants and drop neutral elements, and otherwise keep the
// expression as written. Canonicalize and Simplify reach normal forms.

// Add returns e + f, dropping a zero operand.
func (e Expr) Add(f Expr) Expr { return builder{}.add(e, f) }

func (b builder) add(e, f Expr) Expr {
	if f.IsConst(0) {
		return e
	}
	if e.IsConst(0) {
		return f
	}
	return b.binary(opAdd, e, f)
}

// AddConst returns e + c.
func (e Expr) AddConst(c int64) Expr { return e.Add(Const(c)) }

// Neg returns -e in canonical form (-1 · e, folded and distributed over sums).
func (e Expr) Neg() Expr { return e.Times(Const(-1)).Canonicalize() }

// Sub returns e - f, that is e + (-f).
func (e Expr) Sub(f Expr) Expr { return e.Add(f.Neg()) }

// Mul returns e * c.
func (e Expr) Mul(c int64) Expr { return builder{}.mul(e, c) }

// mul is times(e, c) without building the constant c unless the product
// keeps it.
func (b builder) mul(e Expr, c int64) Expr {
	if r, ok := b.mulByConst(e, c); ok {
		return r
	}
	return b.binary(opMul, e, b.constant(c))
}

// Times returns e * f: a product by 0 is 0, by 1 the other operand, and
// (x * c1) * c2 becomes x * (c1·c2). A constant factor is put on the right:
// 2 * x is x * 2, as XLA prints it.
func (e Expr) Times(f Expr) Expr { return builder{}.times(e, f) }

func (b builder) times(e, f Expr) Expr {
	if c, ok := f.Constant(); ok {
		if r, ok := b.mulByConst(e, c); ok {
			return r
		}
	} else if c, ok := e.Constant(); ok {
		if r, ok := b.mulByConst(f, c); ok {
			return r
		}
		return b.binary(opMul, f, e)
	}
	return b.binary(opMul, e, f)
}

// mulByConst folds x * c where XLA's SimplifyMulByConstantRHS does.
func (b builder) mulByConst(x Expr, c int64) (Expr, bool) {
	switch {
	case c == 0:
		return Expr{}, true
	case c == 1:
		return x, true
	}
	if k, ok := x.constRHS(opMul); ok {
		if p, ok := mulChecked(k, c); ok {
			return b.binary(opMul, x.n.lhs, b.constant(p)), true
		}
	}
	return Expr{}, false
}

// FloorDiv returns e floordiv k, the quotient rounded towards -∞; a
// quotient by 1 is e itself.
func (e Expr) FloorDiv(k int64) Expr { return builder{}.floorDiv(e, k) }

func (b builder) floorDiv(e Expr, k int64) Expr {
	if k == 1 {
		return e
	}
	return b.binary(opFloorDiv, e, b.constant(k))
}

// CeilDiv returns e ceildiv k, the quotient rounded towards +∞; a quotient
// by 1 is e itself.
func (e Expr) CeilDiv(k int64) Expr {
	if k == 1 {
		return e
	}
	return binary(opCeilDiv, e, Const(k))
}

// Mod returns e mod k, the remainder of FloorDiv; a remainder by 1 is 0.
func (e Expr) Mod(k int64) Expr { return builder{}.mod(e, k) }

func (b builder) mod(e Expr, k int64) Expr {
	if k == 1 {
		return Expr{}
	}
	return b.binary(opMod, e, b.constant(k))
}

// FloorDivBy returns e floordiv f for any divisor expression.
func (e Expr) FloorDivBy(f Expr) Expr { return binary(opFloorDiv, e, f) }

// CeilDivBy returns e ceildiv f for any divisor expression.
func (e Expr) CeilDivBy(f Expr) Expr { return binary(opCeilDiv, e, f) }

// ModBy returns e mod f for any divisor expression.
func (e Expr) ModBy(f Expr) Expr { return binary(opMod, e, f) }

// Min returns min(e, f).
func (e Expr) Min(f Expr) Expr { return binary(opMin, e, f) }

// Max returns max(e, f).
func (e Expr) Max(f Expr) Expr { return binary(opMax, e, f) }

// Binary builds the operation of the given kind (KindAdd ... KindMin) on two
// operands as it is, folding only an operation on two constants.
func Binary(k ExprKind, lhs, rhs Expr) Expr {
	for o, ok := range opKinds {
		if ok == k {
			return binary(op(o), lhs, rhs)
		}
	}
	panic("affine: Binary of kind " + k.String())
}

// Replace substitutes expressions for variables: d_i becomes dims[i], s_i
// becomes rangeVars[i] and rt_i becomes runtimeVars[i]. Variables beyond the
// slices given, or whose replacement is the zero Expr in a slice marked
// absent by passing nil, are kept. The operations around a replaced variable
// are rebuilt as they are, folding only operations on two constants (XLA's
// ReplaceVariables).
func (e Expr) Replace(dims, rangeVars, runtimeVars []Expr) Expr {
	return e.replaceVars(func(c varClass, i int) (Expr, bool) {
		var s []Expr
		switch c {
		case classDim:
			s = dims
		case classRange:
			s = rangeVars
		default:
			s = runtimeVars
		}
		if i < len(s) {
			return s[i], true
		}
		return Expr{}, false
	})
}

func (e Expr) replaceVars(sub func(c varClass, i int) (Expr, bool)) Expr {
	switch e.op() {
	case opConst:
		return e
	case opVar:
		if r, ok := sub(splitVarID(e.n.val())); ok {
			return r
		}
		return e
	}
	l := e.n.lhs.replaceVars(sub)
	r := e.n.rhs.replaceVars(sub)
	if l.n == e.n.lhs.n && r.n == e.n.rhs.n {
		return e
	}
	return binary(e.n.op, l, r)
}

// ReplaceExpr replaces every occurrence of the subexpression from by to (XLA's
// SymbolicExpr::Replace), rebuilding the operations around it as they are.
func (e Expr) ReplaceExpr(from, to Expr) Expr {
	return e.replaceFunc(func(x Expr) (Expr, bool) {
		if x.Equal(from) {
			return to, true
		}
		return Expr{}, false
	})
}

func (e Expr) replaceFunc(f func(Expr) (Expr, bool)) Expr {
	if r, ok := f(e); ok {
		return r
	}
	if !e.IsBinary() {
		return e
	}
	l := e.n.lhs.replaceFunc(f)
	r := e.n.rhs.replaceFunc(f)
	if l.n == e.n.lhs.n && r.n == e.n.rhs.n {
		return e
	}
	return binary(e.n.op, l, r)
}

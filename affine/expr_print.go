package affine

import "strconv"

// Expressions print as XLA prints them (its AffineMapPrinter, after MLIR's
// AsmPrinter): a sum is printed as MLIR's left-nested chain of additions,
// a term with coefficient -1 as subtraction or unary minus, a negative
// coefficient as "- x * c", a negative constant as "- c", and the operands of
// '*', floordiv, ceildiv and mod in parentheses when they are compound:
//
//	d0 * 2 + d1 floordiv 2, d2 + (d1 mod 2) * 4, -d1 + 16, (d1 - 3) mod 7

// String prints e with the default variable names d_i, s_i and rt_i.
func (e Expr) String() string {
	return string(appendExpr(make([]byte, 0, 32), e, false))
}

var rtPrefix = []byte("rt")

func appendExpr(b []byte, e Expr, parens bool) []byte {
	if len(e.terms) == 0 {
		return strconv.AppendInt(b, e.c, 10)
	}
	if len(e.terms) == 1 && e.c == 0 {
		return appendTerm(b, e.terms[0], parens)
	}
	if parens {
		b = append(b, '(')
	}
	b = appendTerm(b, e.terms[0], false)
	for _, t := range e.terms[1:] {
		switch {
		case t.coef == 1:
			b = append(b, " + "...)
			b = appendAtom(b, t.atom, false)
		case t.coef == -1:
			b = append(b, " - "...)
			b = appendAtom(b, t.atom, true)
		case t.coef < 0:
			b = append(b, " - "...)
			b = appendAtom(b, t.atom, true)
			b = append(b, " * "...)
			b = strconv.AppendInt(b, -t.coef, 10)
		default:
			b = append(b, " + "...)
			b = appendAtom(b, t.atom, true)
			b = append(b, " * "...)
			b = strconv.AppendInt(b, t.coef, 10)
		}
	}
	switch {
	case e.c > 0:
		b = append(b, " + "...)
		b = strconv.AppendInt(b, e.c, 10)
	case e.c < 0:
		b = append(b, " - "...)
		b = strconv.AppendInt(b, -e.c, 10)
	}
	if parens {
		b = append(b, ')')
	}
	return b
}

func appendTerm(b []byte, t term, parens bool) []byte {
	if t.coef == 1 {
		return appendAtom(b, t.atom, parens)
	}
	if parens {
		b = append(b, '(')
	}
	if t.coef == -1 {
		b = append(b, '-')
		b = appendAtom(b, t.atom, true)
	} else {
		b = appendAtom(b, t.atom, true)
		b = append(b, " * "...)
		b = strconv.AppendInt(b, t.coef, 10)
	}
	if parens {
		b = append(b, ')')
	}
	return b
}

var divSpelling = [...]string{atomFloorDiv: " floordiv ", atomCeilDiv: " ceildiv ", atomMod: " mod "}

func appendAtom(b []byte, a *atom, parens bool) []byte {
	switch a.kind {
	case atomDim:
		return strconv.AppendInt(append(b, 'd'), int64(a.index), 10)
	case atomRange:
		return strconv.AppendInt(append(b, 's'), int64(a.index), 10)
	case atomRuntime:
		return strconv.AppendInt(append(b, rtPrefix...), int64(a.index), 10)
	}
	if parens {
		b = append(b, '(')
	}
	b = appendExpr(b, a.lhs, true)
	b = append(b, divSpelling[a.kind]...)
	b = strconv.AppendInt(b, a.k, 10)
	if parens {
		b = append(b, ')')
	}
	return b
}

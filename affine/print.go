package affine

import "strconv"

// Syntax selects how floor division is written.
type Syntax uint8

const (
	// SyntaxXLA writes floor division as '/', as current XLA prints maps:
	// (d0) -> (d0 / 8).
	SyntaxXLA Syntax = iota
	// SyntaxMLIR writes it as 'floordiv', as MLIR's affine maps and older
	// XLA do: (d0) -> (d0 floordiv 8).
	SyntaxMLIR
)

// PrintOptions say how expressions and maps are printed.
type PrintOptions struct {
	Syntax Syntax
}

// namer names the variables of an expression.
type namer func(c varClass, i int) string

func defaultName(c varClass, i int) string {
	switch c {
	case classDim:
		return "d" + strconv.Itoa(i)
	case classRange:
		return "s" + strconv.Itoa(i)
	}
	return "rt" + strconv.Itoa(i)
}

// String prints e with the default variable names d_i, s_i and rt_i, in
// XLA's current syntax.
func (e Expr) String() string { return string(e.appendTo(nil, defaultName, PrintOptions{})) }

// Format prints e with the default variable names in the given syntax.
func (e Expr) Format(opts PrintOptions) string {
	return string(e.appendTo(nil, defaultName, opts))
}

func (e Expr) appendTo(b []byte, name namer, opts PrintOptions) []byte {
	p := printer{name: name, opts: opts}
	return p.expr(b, e, false)
}

type printer struct {
	name namer
	opts PrintOptions
}

// expr prints e as XLA prints a SymbolicExpr, token for token as MLIR prints
// affine expressions: products, quotients and remainders put their operands
// in parentheses (except a left operand that is the same operation), x * -1
// prints as -x, and a sum whose right operand is negative prints as a
// difference.
func (p *printer) expr(b []byte, e Expr, parens bool) []byte {
	switch e.op() {
	case opConst:
		return strconv.AppendInt(b, e.value(), 10)
	case opVar:
		return append(b, p.name(splitVarID(e.n.val()))...)
	case opMin, opMax:
		if e.n.op == opMin {
			b = append(b, "min("...)
		} else {
			b = append(b, "max("...)
		}
		b = p.expr(b, e.n.lhs, false)
		b = append(b, ", "...)
		b = p.expr(b, e.n.rhs, false)
		return append(b, ')')
	case opAdd:
		return p.sum(b, e, parens)
	}
	lhs, rhs := e.n.lhs, e.n.rhs
	if parens {
		b = append(b, '(')
	}
	if e.n.op == opMul && rhs.IsConst(-1) {
		b = append(b, '-')
		b = p.expr(b, lhs, true)
	} else {
		// A chain of the same operation on the left needs no parentheses:
		// XLA prints d0 / 128 / 128 for (d0 / 128) / 128.
		b = p.expr(b, lhs, lhs.op() != e.n.op)
		switch e.n.op {
		case opMul:
			b = append(b, " * "...)
		case opFloorDiv:
			if p.opts.Syntax == SyntaxMLIR {
				b = append(b, " floordiv "...)
			} else {
				b = append(b, " / "...)
			}
		case opCeilDiv:
			b = append(b, " ceildiv "...)
		default:
			b = append(b, " mod "...)
		}
		b = p.expr(b, rhs, true)
	}
	if parens {
		b = append(b, ')')
	}
	return b
}

func (p *printer) sum(b []byte, e Expr, parens bool) []byte {
	lhs, rhs := e.n.lhs, e.n.rhs
	if parens {
		b = append(b, '(')
	}
	b = p.expr(b, lhs, false)
	if k, ok := rhs.constRHS(opMul); ok && k <= -1 {
		b = append(b, " - "...)
		inner := rhs.n.lhs
		if k == -1 {
			b = p.expr(b, inner, inner.op() == opAdd)
		} else {
			b = p.expr(b, inner, true)
			b = append(b, " * "...)
			b = strconv.AppendUint(b, absU(k), 10)
		}
	} else if c, ok := rhs.Constant(); ok && c < 0 {
		b = append(b, " - "...)
		b = strconv.AppendUint(b, absU(c), 10)
	} else {
		b = append(b, " + "...)
		b = p.expr(b, rhs, false)
	}
	if parens {
		b = append(b, ')')
	}
	return b
}

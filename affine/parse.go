package affine

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseError is an error in the text of a map or expression, at a position
// of the text.
type ParseError struct {
	Line   int // 1-based line
	Column int // 1-based column, in bytes
	Offset int // 0-based byte offset
	Msg    string
}

// Error formats the error as "line:column: message".
func (e *ParseError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg) }

// keywords cannot name variables.
var keywords = map[string]bool{
	"floordiv": true, "ceildiv": true, "mod": true, "in": true, "domain": true,
	"is_simplified": true, "min": true, "max": true,
}

type varRef struct {
	class varClass
	index int
}

// maxNesting bounds the nesting of parentheses and unary minus, so that
// hostile input cannot recurse without limit.
const maxNesting = 1000

type parser struct {
	lx    lexer
	tok   token
	depth int
	vars  map[string]varRef
	names []string // declared variable names, in order
	// defaultNames resolves d<i>, s<i> and rt<i> for any i (ParseExpr).
	defaultNames bool
}

// bail aborts parsing with a positioned error; parse recovers it.
type bail struct{ err *ParseError }

func (p *parser) errorAt(pos int, format string, args ...any) {
	line, col := lineColumn(p.lx.src, pos)
	panic(bail{&ParseError{Line: line, Column: col, Offset: pos, Msg: fmt.Sprintf(format, args...)}})
}

func lineColumn(src string, pos int) (int, int) {
	line, col := 1, 1
	for i := 0; i < pos && i < len(src); i++ {
		if src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func (p *parser) advance() token {
	t := p.tok
	p.tok = p.lx.next()
	if p.tok.kind == tokIllegal {
		p.errorAt(p.tok.pos, "unexpected character %q", p.tok.text)
	}
	return t
}

func (p *parser) expect(k tokKind, what string) token {
	if p.tok.kind != k {
		p.errorAt(p.tok.pos, "expected %s, found %s", what, p.tok.describe())
	}
	return p.advance()
}

func (p *parser) isKeyword(word string) bool { return p.tok.kind == tokIdent && p.tok.text == word }

func (p *parser) expectKeyword(word, context string) {
	if !p.isKeyword(word) {
		p.errorAt(p.tok.pos, "expected '%s'%s, found %s", word, context, p.tok.describe())
	}
	p.advance()
}

func run[T any](src string, f func(p *parser) T) (result T, err error) {
	p := &parser{lx: lexer{src: src}, vars: map[string]varRef{}}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	p.advance()
	return f(p), nil
}

// Parse reads a map in XLA's text format, such as
//
//	(d0, d1)[s0]{rt0} -> (d0 + s0, d1 / 8), domain: d0 in [0, 9], d1 in [0, 15], s0 in [0, 3], rt0 in [0, 5], d1 mod 8 in [0, 0]
//
// or the texts KNOWN EMPTY and UNDEFINED. Floor division may be written '/'
// (current XLA) or floordiv (MLIR and older XLA). Variables may have any
// names that are not keywords: they are bound by position, the first list to
// dimension variables, the bracketed one to range variables and the braced
// one to runtime variables. The domain must give the range of every
// variable, in order, before any constraint.
//
// Expressions use MLIR's precedence: '*', '/', floordiv, ceildiv and mod
// bind tighter than '+' and '-', all are left-associative, unary minus binds
// tightest; min(a, b) and max(a, b) are functions. They are built as XLA's
// parser builds them: a - b is a + (-b) with -b in canonical form, a
// constant factor goes to the right of a product, and nothing else is
// simplified. A map is built as NewIndexingMapVars builds it, so a variable
// with empty bounds or a constraint that cannot hold makes it known empty.
//
// Errors are *ParseError values with the line and column of the fault.
func Parse(text string) (IndexingMap, error) {
	return run(text, (*parser).parseMap)
}

// MustParse is Parse for texts known to be valid, such as those in tests;
// it panics on an error.
func MustParse(text string) IndexingMap {
	m, err := Parse(text)
	if err != nil {
		panic("affine: MustParse: " + err.Error())
	}
	return m
}

// ParseExpr reads one expression whose variables are named d<i>, s<i> (range
// variables) and rt<i> (runtime variables).
func ParseExpr(text string) (Expr, error) {
	return run(text, func(p *parser) Expr {
		p.defaultNames = true
		e := p.parseExpr()
		if p.tok.kind != tokEOF {
			p.errorAt(p.tok.pos, "expected an operator or end of input, found %s", p.tok.describe())
		}
		return e
	})
}

// ParseExprIn reads one expression over the variables of m, named as m
// prints them (d<i>, s<i> and rt<i> unless the map names them).
func ParseExprIn(m IndexingMap, text string) (Expr, error) {
	return run(text, func(p *parser) Expr {
		for c := classDim; c <= classRuntime; c++ {
			for i := range m.varsOf(c) {
				name := m.varName(c, i)
				p.vars[name] = varRef{c, i}
				p.names = append(p.names, name)
			}
		}
		e := p.parseExpr()
		if p.tok.kind != tokEOF {
			p.errorAt(p.tok.pos, "expected an operator or end of input, found %s", p.tok.describe())
		}
		return e
	})
}

func (p *parser) parseMap() IndexingMap {
	switch {
	case p.isKeyword("KNOWN"):
		p.advance()
		p.expectKeyword("EMPTY", " after 'KNOWN'")
		p.expect(tokEOF, "end of input after 'KNOWN EMPTY'")
		return KnownEmpty(0, 0, 0, 0)
	case p.isKeyword("UNDEFINED"):
		p.advance()
		p.expect(tokEOF, "end of input after 'UNDEFINED'")
		return Undefined()
	}
	var names [3][]string
	names[classDim] = p.parseVarList(classDim, tokLParen, tokRParen, "'(' to open the list of dimension variables")
	if p.tok.kind == tokLBrack {
		names[classRange] = p.parseVarList(classRange, tokLBrack, tokRBrack, "'['")
	}
	if p.tok.kind == tokLBrace {
		names[classRuntime] = p.parseVarList(classRuntime, tokLBrace, tokRBrace, "'{'")
	}
	p.expect(tokArrow, "'->' after the variables")
	p.expect(tokLParen, "'(' to open the list of results")
	var results []Expr
	if p.tok.kind != tokRParen {
		for {
			results = append(results, p.parseExpr())
			if p.tok.kind != tokComma {
				break
			}
			p.advance()
		}
	}
	p.expect(tokRParen, "',' or ')' after a result")
	var vars [3][]Variable
	for c := range names {
		vars[c] = make([]Variable, len(names[c]))
		for i, n := range names[c] {
			if n != defaultName(varClass(c), i) {
				vars[c][i].Name = n
			}
		}
	}
	nd, nr := len(vars[classDim]), len(vars[classRange])
	nvars := nd + nr + len(vars[classRuntime])
	var constraints []Constraint
	if p.tok.kind == tokEOF {
		if nvars > 0 {
			p.errorAt(p.tok.pos, "expected ', domain:' with the ranges of the variables, found end of input")
		}
	} else {
		p.expect(tokComma, "',' or end of input after the results")
		p.expectKeyword("domain", " after the results")
		p.expect(tokColon, "':' after 'domain'")
		k := 0 // variables given so far, in order dims, range vars, runtime vars
		for entries := 0; p.tok.kind != tokEOF; entries++ {
			if entries > 0 {
				p.expect(tokComma, "',' or end of input")
			}
			if k < nvars {
				c, idx := ordinalVar(k, nd, nr)
				want := names[c][idx]
				if p.tok.kind != tokIdent || p.tok.text != want {
					p.errorAt(p.tok.pos, "expected the range of %s, found %s", want, p.tok.describe())
				}
				p.advance()
				p.expectKeyword("in", " after "+want)
				vars[c][idx].Bounds = p.parseInterval(want)
				k++
				continue
			}
			if p.isKeyword("is_simplified") {
				// Printed by some versions of XLA; it carries no information.
				p.advance()
				p.expect(tokColon, "':' after 'is_simplified'")
				if !p.isKeyword("true") && !p.isKeyword("false") {
					p.errorAt(p.tok.pos, "expected 'true' or 'false', found %s", p.tok.describe())
				}
				p.advance()
				continue
			}
			e := p.parseExpr()
			p.expectKeyword("in", " after a constraint's expression")
			constraints = append(constraints, Constraint{e, p.parseInterval("the constraint " + e.String())})
		}
		if k < nvars {
			c, idx := ordinalVar(k, nd, nr)
			p.errorAt(p.tok.pos, "expected the range of %s, found end of input", names[c][idx])
		}
	}
	m, err := NewIndexingMapVars(results, vars[classDim], vars[classRange], vars[classRuntime], constraints...)
	if err != nil {
		p.errorAt(p.tok.pos, "%v", err)
	}
	return m
}

// ordinalVar is the k-th variable in the order of the domain.
func ordinalVar(k, nd, nr int) (varClass, int) {
	switch {
	case k < nd:
		return classDim, k
	case k < nd+nr:
		return classRange, k - nd
	}
	return classRuntime, k - nd - nr
}

func (p *parser) parseVarList(c varClass, open, close tokKind, what string) []string {
	p.expect(open, what)
	var names []string
	if p.tok.kind == close {
		p.advance()
		return names
	}
	closeText := map[tokKind]string{tokRParen: "')'", tokRBrack: "']'", tokRBrace: "'}'"}[close]
	for {
		t := p.tok
		if t.kind != tokIdent || keywords[t.text] {
			p.errorAt(t.pos, "expected a variable name, found %s", t.describe())
		}
		if _, dup := p.vars[t.text]; dup {
			p.errorAt(t.pos, "variable %s is declared twice", t.text)
		}
		p.vars[t.text] = varRef{c, len(names)}
		p.names = append(p.names, t.text)
		names = append(names, t.text)
		p.advance()
		if p.tok.kind != tokComma {
			break
		}
		p.advance()
	}
	p.expect(close, "',' or "+closeText+" after a variable name")
	return names
}

// parseInterval reads [lo, hi]. An empty interval is accepted: it makes the
// map known empty, as in XLA.
func (p *parser) parseInterval(of string) Interval {
	p.expect(tokLBrack, "'[' to open the range of "+of)
	lo := p.parseSignedInt()
	p.expect(tokComma, "',' between the bounds of "+of)
	hi := p.parseSignedInt()
	p.expect(tokRBrack, "']' to close the range of "+of)
	return Interval{lo, hi}
}

func (p *parser) parseSignedInt() int64 {
	neg := false
	if p.tok.kind == tokMinus {
		neg = true
		p.advance()
	}
	t := p.expect(tokInt, "an integer")
	text := t.text
	if neg {
		text = "-" + text
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		p.errorAt(t.pos, "integer %s does not fit in int64", text)
	}
	return v
}

// parseExpr parses a sum: term (('+' | '-') term)*.
func (p *parser) parseExpr() Expr {
	e := p.parseTerm()
	for p.tok.kind == tokPlus || p.tok.kind == tokMinus {
		op := p.advance()
		rhs := p.parseTerm()
		if op.kind == tokMinus {
			e = e.Sub(rhs)
		} else {
			e = binary(opAdd, e, rhs)
		}
	}
	return e
}

// parseTerm parses a product or quotient:
// unary (('*' | '/' | floordiv | ceildiv | mod) unary)*.
func (p *parser) parseTerm() Expr {
	e := p.parseUnary()
	for {
		var o op
		switch {
		case p.tok.kind == tokStar:
			o = opMul
		case p.tok.kind == tokSlash, p.isKeyword("floordiv"):
			o = opFloorDiv
		case p.isKeyword("ceildiv"):
			o = opCeilDiv
		case p.isKeyword("mod"):
			o = opMod
		default:
			return e
		}
		opTok := p.advance()
		rhs := p.parseUnary()
		if o == opMul {
			if _, lc := e.Constant(); lc {
				if _, rc := rhs.Constant(); !rc {
					e, rhs = rhs, e
				}
			}
		} else if rhs.IsConst(0) {
			p.errorAt(opTok.pos, "%s %s 0: division by zero", e, opTok.text)
		}
		e = binary(o, e, rhs)
	}
}

// parseUnary parses '-'* primary; negation binds tighter than every binary
// operator, as in MLIR.
func (p *parser) parseUnary() Expr {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		p.errorAt(p.tok.pos, "expression nested more than %d levels deep", maxNesting)
	}
	if p.tok.kind == tokMinus {
		p.advance()
		if p.tok.kind == tokInt {
			t := p.advance()
			v, err := strconv.ParseInt("-"+t.text, 10, 64)
			if err != nil {
				p.errorAt(t.pos, "integer -%s does not fit in int64", t.text)
			}
			return Const(v)
		}
		return p.parseUnary().Neg()
	}
	return p.parsePrimary()
}

func (p *parser) parsePrimary() Expr {
	t := p.tok
	switch t.kind {
	case tokInt:
		p.advance()
		v, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			p.errorAt(t.pos, "integer %s does not fit in int64", t.text)
		}
		return Const(v)
	case tokLParen:
		p.advance()
		e := p.parseExpr()
		p.expect(tokRParen, "')' to close '(' at "+p.position(t.pos))
		return e
	case tokIdent:
		if t.text == "min" || t.text == "max" {
			p.advance()
			p.expect(tokLParen, "'(' after "+t.text)
			a := p.parseExpr()
			p.expect(tokComma, "',' between the operands of "+t.text)
			b := p.parseExpr()
			p.expect(tokRParen, "')' to close "+t.text+"(")
			if t.text == "min" {
				return a.Min(b)
			}
			return a.Max(b)
		}
		if keywords[t.text] {
			break
		}
		p.advance()
		if v, ok := p.vars[t.text]; ok {
			return variable(v.class, v.index)
		}
		if p.defaultNames {
			if v, ok := defaultVarName(t.text); ok {
				return variable(v.class, v.index)
			}
		}
		p.errorAt(t.pos, "unknown variable %s: expected %s", t.text, p.declaredNames())
	}
	p.errorAt(t.pos, "expected an expression, found %s", t.describe())
	return Expr{}
}

// declaredNames describes the variables an expression may use.
func (p *parser) declaredNames() string {
	if p.defaultNames {
		return "d<i>, s<i> or rt<i>"
	}
	if len(p.names) == 0 {
		return "no variable: the map declares none"
	}
	if len(p.names) > 8 {
		return "one of the map's " + strconv.Itoa(len(p.names)) + " variables, " + strings.Join(p.names[:8], ", ") + ", ..."
	}
	return "one of " + strings.Join(p.names, ", ")
}

func (p *parser) position(pos int) string {
	line, col := lineColumn(p.lx.src, pos)
	return fmt.Sprintf("%d:%d", line, col)
}

// defaultVarName resolves d<i>, s<i> and rt<i>.
func defaultVarName(name string) (varRef, bool) {
	for _, c := range []struct {
		prefix string
		class  varClass
	}{{"rt", classRuntime}, {"d", classDim}, {"s", classRange}} {
		digits, ok := strings.CutPrefix(name, c.prefix)
		if !ok || digits == "" || (len(digits) > 1 && digits[0] == '0') {
			continue
		}
		i, err := strconv.Atoi(digits)
		if err == nil && i < 1<<20 {
			return varRef{c.class, i}, true
		}
	}
	return varRef{}, false
}

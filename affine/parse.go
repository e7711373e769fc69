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
	"is_simplified": true, "KNOWN": true, "EMPTY": true,
}

type varRef struct {
	kind  atomKind
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
	line, col := 1, 1
	for i := 0; i < pos && i < len(p.lx.src); i++ {
		if p.lx.src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	panic(bail{&ParseError{Line: line, Column: col, Offset: pos, Msg: fmt.Sprintf(format, args...)}})
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
//	(d0, d1)[s0]{rt0} -> (d0 + s0, d1 floordiv 8), domain: d0 in [0, 9], d1 in [0, 15], s0 in [0, 3], rt0 in [0, 5], d1 mod 8 in [0, 0]
//
// or the text KNOWN EMPTY (which gives a known-empty map without variables).
// Variables may have any names that are not keywords: they are bound by
// position, the first list to dimension variables, the bracketed one to range
// variables and the braced one to runtime variables. The domain must give the
// range of every variable, in order, before any constraint. Expressions use
// MLIR's syntax and precedence: '*', floordiv, ceildiv and mod bind tighter
// than '+' and '-', all are left-associative, unary minus binds tightest, and
// products, divisors and moduli must involve a constant.
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

func (p *parser) parseMap() IndexingMap {
	if p.isKeyword("KNOWN") {
		p.advance()
		p.expectKeyword("EMPTY", " after 'KNOWN'")
		p.expect(tokEOF, "end of input after 'KNOWN EMPTY'")
		return KnownEmpty(0, 0, 0, 0)
	}
	var names [3][]string
	names[atomDim] = p.parseVarList(atomDim, tokLParen, tokRParen, "'(' to open the list of dimension variables")
	if p.tok.kind == tokLBrack {
		names[atomRange] = p.parseVarList(atomRange, tokLBrack, tokRBrack, "'['")
	}
	if p.tok.kind == tokLBrace {
		names[atomRuntime] = p.parseVarList(atomRuntime, tokLBrace, tokRBrace, "'{'")
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
	m := IndexingMap{
		results:   results,
		dims:      make([]Interval, len(names[atomDim])),
		rangeVars: make([]Interval, len(names[atomRange])),
		rtVars:    make([]Interval, len(names[atomRuntime])),
	}
	nvars := len(m.dims) + len(m.rangeVars) + len(m.rtVars)
	if p.tok.kind == tokEOF {
		if nvars > 0 {
			p.errorAt(p.tok.pos, "expected ', domain:' with the ranges of the variables, found end of input")
		}
		return m
	}
	p.expect(tokComma, "',' or end of input after the results")
	p.expectKeyword("domain", " after the results")
	p.expect(tokColon, "':' after 'domain'")
	type pending struct {
		e   Expr
		r   Interval
		pos int
	}
	var constraints []pending
	k := 0       // variables given so far, in order dims, range vars, runtime vars
	entries := 0 // entries of the domain read so far
	for ; p.tok.kind != tokEOF; entries++ {
		if entries > 0 {
			p.expect(tokComma, "',' or end of input")
		}
		if k < nvars {
			kind, idx := varOfOrdinal(k, len(m.dims), len(m.rangeVars))
			want := names[kind][idx]
			if p.tok.kind != tokIdent || p.tok.text != want {
				p.errorAt(p.tok.pos, "expected the range of %s, found %s", want, p.tok.describe())
			}
			p.advance()
			p.expectKeyword("in", " after "+want)
			m.vars(kind)[idx] = p.parseInterval(want)
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
		pos := p.tok.pos
		e := p.parseExpr()
		p.expectKeyword("in", " after a constraint's expression")
		constraints = append(constraints, pending{e, p.parseInterval("the constraint " + e.String()), pos})
	}
	if k < nvars {
		kind, idx := varOfOrdinal(k, len(m.dims), len(m.rangeVars))
		p.errorAt(p.tok.pos, "expected the range of %s, found end of input", names[kind][idx])
	}
	for _, c := range constraints {
		m.addConstraint(c.e, c.r)
	}
	return m
}

// varOfOrdinal is the k-th variable in the order of the domain.
func varOfOrdinal(k, nd, nr int) (atomKind, int) {
	switch {
	case k < nd:
		return atomDim, k
	case k < nd+nr:
		return atomRange, k - nd
	}
	return atomRuntime, k - nd - nr
}

func (p *parser) parseVarList(kind atomKind, open, close tokKind, what string) []string {
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
		p.vars[t.text] = varRef{kind, len(names)}
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

func (p *parser) parseInterval(of string) Interval {
	start := p.tok.pos
	p.expect(tokLBrack, "'[' to open the range of "+of)
	lo := p.parseSignedInt()
	p.expect(tokComma, "',' between the bounds of "+of)
	hi := p.parseSignedInt()
	p.expect(tokRBrack, "']' to close the range of "+of)
	iv := Interval{lo, hi}
	if iv.IsEmpty() {
		p.errorAt(start, "the range %s of %s is empty: its lower bound is greater than its upper bound", iv, of)
	}
	return iv
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
		k := int64(1)
		if op.kind == tokMinus {
			k = -1
		}
		r, err := addScaled(e, rhs, k)
		if err != nil {
			p.errorAt(op.pos, "%s %s %s: %v", e, op.text, rhs, err)
		}
		e = r
	}
	return e
}

// parseTerm parses a product or division: unary (('*' | floordiv | ceildiv | mod) unary)*.
func (p *parser) parseTerm() Expr {
	e := p.parseUnary()
	for {
		var kind atomKind
		switch {
		case p.tok.kind == tokStar:
		case p.isKeyword("floordiv"):
			kind = atomFloorDiv
		case p.isKeyword("ceildiv"):
			kind = atomCeilDiv
		case p.isKeyword("mod"):
			kind = atomMod
		default:
			return e
		}
		op := p.advance()
		rpos := p.tok.pos
		rhs := p.parseUnary()
		if op.kind == tokStar {
			lc, lok := e.Constant()
			rc, rok := rhs.Constant()
			var r Expr
			var err error
			switch {
			case rok:
				r, err = scale(e, rc)
			case lok:
				r, err = scale(rhs, lc)
			default:
				p.errorAt(op.pos, "non-affine product %s * %s: one operand of '*' must be a constant", e, rhs)
			}
			if err != nil {
				p.errorAt(op.pos, "%s * %s: %v", e, rhs, err)
			}
			e = r
			continue
		}
		k, ok := rhs.Constant()
		if !ok {
			p.errorAt(rpos, "the right operand of %s must be a constant, found %s", op.text, rhs)
		}
		r, err := divide(kind, e, k)
		if err != nil {
			p.errorAt(op.pos, "%s %s %d: %v", e, op.text, k, err)
		}
		e = r
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
		return must(scale(p.parseUnary(), -1))
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
		return Expr{c: v}
	case tokLParen:
		p.advance()
		e := p.parseExpr()
		p.expect(tokRParen, "')' to close '(' at "+p.position(t.pos))
		return e
	case tokIdent:
		if keywords[t.text] {
			break
		}
		p.advance()
		if v, ok := p.vars[t.text]; ok {
			return varExpr(v.kind, v.index)
		}
		if p.defaultNames {
			if v, ok := defaultVarName(t.text); ok {
				return varExpr(v.kind, v.index)
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
	line, col := 1, 1
	for i := 0; i < pos; i++ {
		if p.lx.src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%d:%d", line, col)
}

// defaultVarName resolves d<i>, s<i> and rt<i>.
func defaultVarName(name string) (varRef, bool) {
	for _, c := range []struct {
		prefix string
		kind   atomKind
	}{{"rt", atomRuntime}, {"d", atomDim}, {"s", atomRange}} {
		digits, ok := strings.CutPrefix(name, c.prefix)
		if !ok || digits == "" || (len(digits) > 1 && digits[0] == '0') {
			continue
		}
		i, err := strconv.Atoi(digits)
		if err == nil && i < 1<<20 {
			return varRef{c.kind, i}, true
		}
	}
	return varRef{}, false
}

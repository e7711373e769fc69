package ir

// Parsing of the literal text format (see literal_text.go for the format).
//
// The parser accepts what String writes and what XLA writes: its multi-line
// ToString layout with `/*i0=0*/` index comments (any /* */ or // comment
// is skipped), 1 and 0 for PRED, XLA's tuple form with a shape before each
// element, integers in decimal or 0x hexadecimal, floats in any decimal form
// (`1.`, `.5`, `-2.5E+3`), inf, -inf, nan, -nan and nan(0x…) payloads (the
// payload is the mantissa, as XLA's RoundTripNanPayload prints it). It is
// stricter than XLA's parser in three places: elements must be separated by
// commas (XLA's skips commas, so it takes `{1 2}`), `inf` is refused for
// F8E4M3FN, which has none (XLA would store NaN), and a NaN payload must fit
// the type's mantissa.
//
// A decimal is rounded to float64 and then once to the element type; a value
// that rounds beyond the type's largest finite value is an error naming the
// value and the type, and so is an integer outside its type's range. A
// dynamic dimension takes as many elements as the text has, up to its bound,
// unless its size is given after the shape (`f32[<=10](3)`). Braces right
// after a shape's dimensions are its layout only when they form a valid
// layout for the rank and a value follows them (or, inside a tuple shape,
// they touch the ']'); `f32[2] {1, 0}` is a value.
//
// Errors are *LiteralSyntaxError with a line and column (1-based, in bytes)
// and say what was expected and what was found.

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// LiteralSyntaxError is an error in literal text, at a 1-based line and
// column (in bytes) and a 0-based byte offset of the text parsed.
type LiteralSyntaxError struct {
	Line, Column int
	Offset       int
	Msg          string
	Err          error // an underlying cause such as ErrElidedLiteral, or nil
}

func (e *LiteralSyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg) }

// Unwrap returns the underlying cause.
func (e *LiteralSyntaxError) Unwrap() error { return e.Err }

// ErrElidedLiteral is the cause of the error for the `{...}` value XLA
// prints in place of a large constant: the text has no values to parse.
var ErrElidedLiteral = errors.New("the literal's values are elided ({...})")

// ParseLiteral parses a literal with its shape, as String writes it or as
// XLA's Literal::ToString does: `f32[2,3] {{1, 2, 3}, {4, 5, 6}}`,
// `(f32[], s32[2]) (1, {1, 2})`, `( f32[] 1, s32[2] {1, 2} )`, `token[]`.
func ParseLiteral(text string) (*Literal, error) {
	p := newLiteralParser(text)
	it, err := p.parseItem()
	if err != nil {
		return nil, err
	}
	if it.lit == nil {
		z, ok := valuelessLiteral(it.shape)
		if !ok {
			return nil, p.errorf(p.tok.pos, "expected a value after the shape %v, found %s", it.shape, p.describe())
		}
		it.lit = z
	}
	if p.tok.kind != litEOF || p.lexErr != nil {
		return nil, p.errorf(p.tok.pos, "expected end of input after the literal, found %s", p.describe())
	}
	return it.lit, nil
}

// ParseLiteralValue parses the value of a literal of shape s, as
// ValueString writes it or as HLO text writes a constant:
// `{{1, 2, 3}, {4, 5, 6}}`, `1.5`, `(1, {1, 2})`. A dynamic dimension takes
// as many elements as the text has, up to its bound.
func ParseLiteralValue(s Shape, text string) (*Literal, error) {
	p, l, err := parseLiteralValue(s, text)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != litEOF || p.lexErr != nil {
		return nil, p.errorf(p.tok.pos, "expected end of input after the value, found %s", p.describe())
	}
	return l, nil
}

// ParseLiteralValuePrefix is ParseLiteralValue for a value at the start of
// text followed by anything: it returns the literal and the byte offset just
// past the value.
func ParseLiteralValuePrefix(s Shape, text string) (*Literal, int, error) {
	p, l, err := parseLiteralValue(s, text)
	if err != nil {
		return nil, 0, err
	}
	return l, p.prevEnd, nil
}

func parseLiteralValue(s Shape, text string) (*literalParser, *Literal, error) {
	if err := s.CheckValid(); err != nil {
		return nil, nil, fmt.Errorf("literal value: %w", err)
	}
	p := newLiteralParser(text)
	if s.IsToken() && p.tok.kind == litEOF && p.lexErr == nil {
		return p, NewTokenLiteral(), nil
	}
	l, err := p.parseValue(s, nil)
	return p, l, err
}

// valuelessLiteral is the literal of a shape that needs no value text: a
// token, or tuples of those and of empty tuples.
func valuelessLiteral(s Shape) (*Literal, bool) {
	switch {
	case s.IsToken():
		return NewTokenLiteral(), true
	case s.IsTuple():
		elems := make([]*Literal, len(s.Tuple))
		for i, e := range s.Tuple {
			z, ok := valuelessLiteral(e)
			if !ok {
				return nil, false
			}
			elems[i] = z
		}
		return NewTupleLiteral(elems...), true
	}
	return nil, false
}

// The lexer.

type litTokKind uint8

const (
	litEOF litTokKind = iota
	litWord
	litLBrace
	litRBrace
	litLParen
	litRParen
	litLBracket
	litRBracket
	litComma
	litColon
	litStar
	litQuestion
	litLessEq
)

type litToken struct {
	kind     litTokKind
	text     string
	pos, end int
}

// literalParser reads literal text one token ahead.
type literalParser struct {
	src     string
	pos     int // next byte to lex
	tok     litToken
	prevEnd int   // end of the last token consumed
	lexErr  error // a lexing error at tok (tok is then EOF)
	depth   int   // tuple nesting
}

const maxLiteralTupleDepth = 1000

func newLiteralParser(src string) *literalParser {
	p := &literalParser{src: src}
	p.advance()
	return p
}

func isLitWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
}

// advance consumes tok and lexes the next token.
func (p *literalParser) advance() {
	p.prevEnd = p.tok.end
	src := p.src
	for p.pos < len(src) {
		c := src[p.pos]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			p.pos++
			continue
		}
		if c == '/' && p.pos+1 < len(src) && src[p.pos+1] == '*' {
			end := strings.Index(src[p.pos+2:], "*/")
			if end < 0 {
				p.setLexError(p.pos, "unterminated /* comment")
				return
			}
			p.pos += 2 + end + 2
			continue
		}
		if c == '/' && p.pos+1 < len(src) && src[p.pos+1] == '/' {
			end := strings.IndexByte(src[p.pos:], '\n')
			if end < 0 {
				p.pos = len(src)
			} else {
				p.pos += end + 1
			}
			continue
		}
		break
	}
	start := p.pos
	if start >= len(src) {
		p.tok = litToken{kind: litEOF, pos: start, end: start}
		return
	}
	kind := litEOF
	switch src[start] {
	case '{':
		kind = litLBrace
	case '}':
		kind = litRBrace
	case '(':
		kind = litLParen
	case ')':
		kind = litRParen
	case '[':
		kind = litLBracket
	case ']':
		kind = litRBracket
	case ',':
		kind = litComma
	case ':':
		kind = litColon
	case '*':
		kind = litStar
	case '?':
		kind = litQuestion
	case '<':
		if start+1 < len(src) && src[start+1] == '=' {
			p.pos += 2
			p.tok = litToken{kind: litLessEq, text: "<=", pos: start, end: p.pos}
			return
		}
	}
	if kind != litEOF {
		p.pos++
		p.tok = litToken{kind: kind, text: src[start:p.pos], pos: start, end: p.pos}
		return
	}
	c := src[start]
	if !isLitWordByte(c) && !(c == '-' && start+1 < len(src) && isLitWordByte(src[start+1])) {
		p.setLexError(start, fmt.Sprintf("unexpected character %q", rune(c)))
		return
	}
	i := start + 1
	numeric := c >= '0' && c <= '9' || c == '.' || c == '-' && (src[i] >= '0' && src[i] <= '9' || src[i] == '.')
	hex := strings.HasPrefix(strings.TrimPrefix(src[start:], "-"), "0x") || strings.HasPrefix(strings.TrimPrefix(src[start:], "-"), "0X")
	for i < len(src) {
		b := src[i]
		if isLitWordByte(b) {
			i++
			continue
		}
		if (b == '+' || b == '-') && numeric && !hex && (src[i-1] == 'e' || src[i-1] == 'E') {
			i++
			continue
		}
		break
	}
	// A NaN payload is part of the word: nan(0x1f).
	if w := src[start:i]; (w == "nan" || w == "-nan") && i < len(src) && src[i] == '(' {
		if j := strings.IndexByte(src[i:], ')'); j > 0 && j < 24 {
			i += j + 1
		}
	}
	p.pos = i
	p.tok = litToken{kind: litWord, text: src[start:i], pos: start, end: i}
}

// setLexError records a lexing error; the token becomes the end of input,
// so the parser stops there and reports this error.
func (p *literalParser) setLexError(pos int, msg string) {
	p.lexErr = newLiteralSyntaxError(p.src, pos, msg, nil)
	p.tok = litToken{kind: litEOF, pos: pos, end: pos}
	p.pos = len(p.src)
}

// errorf reports an error at byte offset pos, or the lexing error that
// stopped the token stream.
func (p *literalParser) errorf(pos int, format string, args ...any) error {
	if p.lexErr != nil {
		return p.lexErr
	}
	return newLiteralSyntaxError(p.src, pos, fmt.Sprintf(format, args...), nil)
}

func newLiteralSyntaxError(src string, pos int, msg string, cause error) *LiteralSyntaxError {
	line := 1 + strings.Count(src[:pos], "\n")
	col := pos - strings.LastIndexByte(src[:pos], '\n')
	return &LiteralSyntaxError{Line: line, Column: col, Offset: pos, Msg: msg, Err: cause}
}

// describe names the current token for an error message.
func (p *literalParser) describe() string {
	switch p.tok.kind {
	case litEOF:
		return "end of input"
	case litWord:
		return strconv.Quote(p.tok.text)
	}
	return "'" + p.tok.text + "'"
}

func (p *literalParser) expect(kind litTokKind, what string) error {
	if p.tok.kind != kind {
		return p.errorf(p.tok.pos, "expected %s, found %s", what, p.describe())
	}
	p.advance()
	return nil
}

// The parser.

// litItem is a shape with or without a value: XLA's tuple form writes
// `( f32[] 1, s32[] 2 )`, Kiln's writes `(f32[], s32[]) (1, 2)`, and which
// one a `(` starts is known only after its items.
type litItem struct {
	shape Shape
	lit   *Literal // nil for a shape alone
	pos   int
}

func (p *literalParser) parseItem() (litItem, error) {
	start := p.tok.pos
	switch p.tok.kind {
	case litLParen:
		if p.depth >= maxLiteralTupleDepth {
			return litItem{}, p.errorf(start, "tuples nested deeper than %d", maxLiteralTupleDepth)
		}
		p.depth++
		defer func() { p.depth-- }()
		p.advance()
		var items []litItem
		if p.tok.kind != litRParen {
			for {
				it, err := p.parseItem()
				if err != nil {
					return litItem{}, err
				}
				items = append(items, it)
				if p.tok.kind == litComma {
					p.advance()
					continue
				}
				if p.tok.kind == litRParen {
					break
				}
				return litItem{}, p.errorf(p.tok.pos, "expected ',' or ')' after tuple element %d, found %s", len(items)-1, p.describe())
			}
		}
		p.advance()
		shapes := make([]Shape, len(items))
		allShapes := true
		for i, it := range items {
			shapes[i] = it.shape
			allShapes = allShapes && it.lit == nil
		}
		if allShapes {
			s := MakeTuple(shapes...)
			if p.tok.kind != litLParen {
				return litItem{shape: s, pos: start}, nil
			}
			l, err := p.parseValue(s, nil)
			if err != nil {
				return litItem{}, err
			}
			return litItem{shape: s, lit: l, pos: start}, nil
		}
		elems := make([]*Literal, len(items))
		for i, it := range items {
			elems[i] = it.lit
			if it.lit == nil {
				z, ok := valuelessLiteral(it.shape)
				if !ok {
					return litItem{}, p.errorf(it.pos, "tuple element %d has the shape %v but no value", i, it.shape)
				}
				elems[i] = z
			}
		}
		l := NewTupleLiteral(elems...)
		return litItem{shape: l.shape, lit: l, pos: start}, nil
	case litWord:
		if p.tok.text == "token" {
			p.advance()
			if p.tok.kind != litLBracket {
				return litItem{shape: TokenShape(), lit: NewTokenLiteral(), pos: start}, nil
			}
			p.advance()
			if err := p.expect(litRBracket, "']' (a token has no dimensions)"); err != nil {
				return litItem{}, err
			}
			if p.tok.kind == litWord && p.tok.text == "token" {
				p.advance()
				return litItem{shape: TokenShape(), lit: NewTokenLiteral(), pos: start}, nil
			}
			return litItem{shape: TokenShape(), pos: start}, nil
		}
		s, sizes, err := p.parseArrayShape()
		if err != nil {
			return litItem{}, err
		}
		if k := p.tok.kind; k == litComma || k == litRParen || k == litEOF {
			if sizes != nil {
				return litItem{}, p.errorf(p.tok.pos, "expected a value after the shape %v and its dynamic sizes, found %s", s, p.describe())
			}
			return litItem{shape: s, pos: start}, nil
		}
		l, err := p.parseValue(s, sizes)
		if err != nil {
			return litItem{}, err
		}
		return litItem{shape: l.shape, lit: l, pos: start}, nil
	}
	return litItem{}, p.errorf(start, "expected a shape such as f32[2,3], or '(' to start a tuple, found %s", p.describe())
}

// parseArrayShape parses `f32[2,<=3]{1,0}` and, after a dynamic shape, its
// optional dynamic sizes `(2,3)`.
func (p *literalParser) parseArrayShape() (Shape, []int, error) {
	start := p.tok.pos
	name := p.tok.text
	t, ok := ParseElementType(name)
	if !ok || !t.IsArray() {
		return Shape{}, nil, p.errorf(start, "expected an element type such as f32, found %s", p.describe())
	}
	p.advance()
	if err := p.expect(litLBracket, fmt.Sprintf("'[' after the element type %s", name)); err != nil {
		return Shape{}, nil, err
	}
	s := Shape{Elem: t, Dims: []int{}}
	var dynamic []bool
	for p.tok.kind != litRBracket {
		if len(s.Dims) > 0 {
			if err := p.expect(litComma, "',' or ']' in the dimensions"); err != nil {
				return Shape{}, nil, err
			}
		}
		dyn := false
		if p.tok.kind == litLessEq {
			dyn = true
			p.advance()
		} else if p.tok.kind == litQuestion {
			return Shape{}, nil, p.errorf(p.tok.pos, "unbounded dynamic dimensions ('?') are not supported in literals")
		}
		d, err := p.parseSize("a dimension size")
		if err != nil {
			return Shape{}, nil, err
		}
		s.Dims = append(s.Dims, d)
		dynamic = append(dynamic, dyn)
	}
	bracketEnd := p.tok.end
	p.advance()
	for _, d := range dynamic {
		if d {
			s.Dynamic = dynamic
			break
		}
	}
	if len(s.Dims) == 0 {
		s.Dims = nil
	}
	if p.tok.kind == litLBrace {
		p.tryLayout(&s, p.tok.pos == bracketEnd)
	}
	if err := s.CheckValid(); err != nil {
		return Shape{}, nil, p.errorf(start, "%v", err)
	}
	var sizes []int
	if s.IsDynamic() && p.tok.kind == litLParen {
		p.advance()
		for i := range s.Dims {
			if i > 0 {
				if err := p.expect(litComma, fmt.Sprintf("',' and the size of dimension %d of %v", i, s)); err != nil {
					return Shape{}, nil, err
				}
			}
			pos := p.tok.pos
			n, err := p.parseSize("a dynamic size")
			if err != nil {
				return Shape{}, nil, err
			}
			if n > s.Dims[i] {
				return Shape{}, nil, p.errorf(pos, "dynamic size %d of dimension %d exceeds its bound in %v", n, i, s)
			}
			if !s.IsDynamicDim(i) && n != s.Dims[i] {
				return Shape{}, nil, p.errorf(pos, "size %d given for static dimension %d of %v", n, i, s)
			}
			sizes = append(sizes, n)
		}
		if err := p.expect(litRParen, fmt.Sprintf("')' after the %d dynamic sizes of %v", len(s.Dims), s)); err != nil {
			return Shape{}, nil, err
		}
	}
	return s, sizes, nil
}

func (p *literalParser) parseSize(what string) (int, error) {
	if p.tok.kind != litWord {
		return 0, p.errorf(p.tok.pos, "expected %s, found %s", what, p.describe())
	}
	n, err := strconv.ParseUint(p.tok.text, 10, 62)
	if err != nil {
		return 0, p.errorf(p.tok.pos, "expected %s (a non-negative integer), found %s", what, p.describe())
	}
	p.advance()
	return int(n), nil
}

// tryLayout reads `{1,0}` after a shape's dimensions as its layout when it
// is one. `f32[2] {1, 0}` is a value, so braces are taken as a layout only
// when they form a valid layout for the rank and either a value follows
// them or they touch the ']' inside a tuple shape, `(f32[2]{0}, s32[])`, as
// printed shapes write them.
func (p *literalParser) tryLayout(s *Shape, touching bool) {
	saved := *p
	l, err := p.parseLayout()
	if err == nil && l.checkFor(len(s.Dims)) == nil {
		switch p.tok.kind {
		case litLBrace, litLParen, litWord:
			s.Layout = l
			return
		case litComma, litRParen, litEOF:
			if touching && p.depth > 0 {
				s.Layout = l
				return
			}
		}
	}
	*p = saved
}

// parseLayout parses `{1,0}` or `{1,0:T(8,128)(2,1)E(4)S(1)}`; attributes
// other than T, E and S are kept verbatim in Layout.Extra.
func (p *literalParser) parseLayout() (*Layout, error) {
	if err := p.expect(litLBrace, "'{'"); err != nil {
		return nil, err
	}
	l := &Layout{MinorToMajor: []int{}}
	for p.tok.kind != litRBrace && p.tok.kind != litColon {
		if len(l.MinorToMajor) > 0 {
			if err := p.expect(litComma, "',' in the layout"); err != nil {
				return nil, err
			}
		}
		d, err := p.parseSize("a dimension number")
		if err != nil {
			return nil, err
		}
		l.MinorToMajor = append(l.MinorToMajor, d)
	}
	if p.tok.kind == litColon {
		p.advance()
		for p.tok.kind != litRBrace {
			if p.tok.kind != litWord {
				return nil, p.errorf(p.tok.pos, "expected a layout attribute, found %s", p.describe())
			}
			switch p.tok.text {
			case "T":
				p.advance()
				if p.tok.kind != litLParen {
					return nil, p.errorf(p.tok.pos, "expected '(' after T, found %s", p.describe())
				}
				for p.tok.kind == litLParen {
					p.advance()
					tile := []int{}
					for p.tok.kind != litRParen {
						if len(tile) > 0 {
							if err := p.expect(litComma, "',' in the tile"); err != nil {
								return nil, err
							}
						}
						if p.tok.kind == litStar {
							tile = append(tile, -1)
							p.advance()
							continue
						}
						d, err := p.parseSize("a tile size")
						if err != nil {
							return nil, err
						}
						tile = append(tile, d)
					}
					p.advance()
					l.Tiles = append(l.Tiles, tile)
				}
			case "E", "S":
				which := p.tok.text
				p.advance()
				if err := p.expect(litLParen, "'(' after "+which); err != nil {
					return nil, err
				}
				n, err := p.parseSize("an integer")
				if err != nil {
					return nil, err
				}
				if err := p.expect(litRParen, "')'"); err != nil {
					return nil, err
				}
				if which == "E" {
					l.ElementSizeBits = n
				} else {
					l.MemorySpace = n
				}
			default:
				start := p.tok.pos
				nest := 0
				for p.tok.kind != litEOF && (p.tok.kind != litRBrace || nest > 0) {
					switch p.tok.kind {
					case litLParen, litLBrace:
						nest++
					case litRParen, litRBrace:
						nest--
					}
					p.advance()
				}
				l.Extra = strings.TrimSpace(p.src[start:p.tok.pos])
			}
		}
	}
	return l, p.expect(litRBrace, "'}' closing the layout")
}

// parseValue parses the value of shape s; sizes, when not nil, are the
// dynamic sizes given after the shape.
func (p *literalParser) parseValue(s Shape, sizes []int) (*Literal, error) {
	switch {
	case s.IsTuple():
		if err := p.expect(litLParen, fmt.Sprintf("'(' to start the value of the tuple %v", s)); err != nil {
			return nil, err
		}
		elems := make([]*Literal, len(s.Tuple))
		for i, e := range s.Tuple {
			if i > 0 {
				if p.tok.kind == litRParen {
					return nil, p.errorf(p.tok.pos, "expected %d tuple elements for %v, found %d", len(s.Tuple), s, i)
				}
				if err := p.expect(litComma, fmt.Sprintf("',' after tuple element %d", i-1)); err != nil {
					return nil, err
				}
			}
			l, err := p.parseValue(e, nil)
			if err != nil {
				return nil, err
			}
			elems[i] = l
		}
		if p.tok.kind != litRParen {
			return nil, p.errorf(p.tok.pos, "expected ')' after the %d elements of the tuple %v, found %s", len(s.Tuple), s, p.describe())
		}
		p.advance()
		return NewTupleLiteral(elems...), nil
	case s.IsToken():
		if p.tok.kind != litWord || p.tok.text != "token" {
			return nil, p.errorf(p.tok.pos, "expected token, found %s", p.describe())
		}
		p.advance()
		return NewTokenLiteral(), nil
	}
	start := p.tok.pos
	a := arrayValueParser{p: p, s: s, size: make([]int, len(s.Dims))}
	for d := range s.Dims {
		switch {
		case sizes != nil:
			a.size[d] = sizes[d]
		case s.IsDynamicDim(d):
			a.size[d] = -1 // as many as the text has, up to the bound
		default:
			a.size[d] = s.Dims[d]
		}
	}
	if err := a.parse(0, make([]int, 0, len(s.Dims))); err != nil {
		return nil, err
	}
	out := s.Clone()
	for d, n := range a.size {
		if n >= 0 {
			out.Dims[d] = n
		}
	}
	l, err := NewLiteral(out)
	if err != nil {
		return nil, p.errorf(start, "%v", err)
	}
	copy(l.data, a.buf)
	return l, nil
}

// arrayValueParser reads the nested braces of an array value, collecting
// the elements' bytes in row-major order.
type arrayValueParser struct {
	p    *literalParser
	s    Shape
	size []int // per dimension: the size, or -1 until the first list of a dynamic dimension closes
	buf  []byte
}

func (a *arrayValueParser) parse(dim int, index []int) error {
	p := a.p
	if dim == len(a.s.Dims) {
		return a.parseElement()
	}
	if p.tok.kind != litLBrace {
		return p.errorf(p.tok.pos, "expected '{' to start dimension %d of %v%s, found %s", dim, a.s, indexSuffix(index), p.describe())
	}
	p.advance()
	if p.tok.kind == litWord && p.tok.text == "..." {
		return newLiteralSyntaxError(p.src, p.tok.pos, fmt.Sprintf("the values of %v are elided ({...})", a.s), ErrElidedLiteral)
	}
	limit := a.size[dim]
	if limit < 0 {
		limit = a.s.Dims[dim]
	}
	n := 0
	for p.tok.kind != litRBrace {
		if n > 0 {
			if p.tok.kind != litComma {
				return p.errorf(p.tok.pos, "expected ',' or '}' after element %d of dimension %d of %v%s, found %s", n-1, dim, a.s, indexSuffix(index), p.describe())
			}
			p.advance()
		}
		if n == limit {
			what := "elements"
			if a.size[dim] < 0 {
				what = "elements at most"
			}
			return p.errorf(p.tok.pos, "expected %d %s along dimension %d of %v%s, found more", limit, what, dim, a.s, indexSuffix(index))
		}
		if err := a.parse(dim+1, append(index, n)); err != nil {
			return err
		}
		n++
	}
	if a.size[dim] >= 0 && n != a.size[dim] {
		return p.errorf(p.tok.pos, "expected %d elements along dimension %d of %v%s, found %d", a.size[dim], dim, a.s, indexSuffix(index), n)
	}
	a.size[dim] = n
	p.advance()
	return nil
}

// indexSuffix names the list being read: " at index [1,0]".
func indexSuffix(index []int) string {
	if len(index) == 0 {
		return ""
	}
	parts := make([]string, len(index))
	for i, v := range index {
		parts[i] = strconv.Itoa(v)
	}
	return " at index [" + strings.Join(parts, ",") + "]"
}

func (a *arrayValueParser) parseElement() error {
	var tmp [2]uint64
	ptr := unsafe.Pointer(&tmp[0])
	t := a.s.Elem
	if t.IsComplex() {
		p := a.p
		if p.tok.kind != litLParen {
			return p.errorf(p.tok.pos, "expected '(' to start a %v value (real, imaginary), found %s", t, p.describe())
		}
		p.advance()
		c := t.ComplexComponent()
		if err := a.p.parseScalar(c, ptr); err != nil {
			return err
		}
		if err := p.expect(litComma, fmt.Sprintf("',' between the parts of a %v value", t)); err != nil {
			return err
		}
		if err := a.p.parseScalar(c, unsafe.Add(ptr, c.ByteSize())); err != nil {
			return err
		}
		if err := p.expect(litRParen, fmt.Sprintf("')' closing a %v value", t)); err != nil {
			return err
		}
	} else if err := a.p.parseScalar(t, ptr); err != nil {
		return err
	}
	a.buf = append(a.buf, unsafe.Slice((*byte)(ptr), t.ByteSize())...)
	return nil
}

// maxFinite is the largest finite value of each real float type.
func maxFinite(t ElementType) float64 {
	switch t {
	case F64:
		return math.MaxFloat64
	case F32:
		return math.MaxFloat32
	}
	f, _ := narrowFormatOf(t)
	return f.toFloat64(f.maxFiniteBits())
}

// parseScalar parses one PRED, integer or real float value of type t at the
// current token and stores it at dst.
func (p *literalParser) parseScalar(t ElementType, dst unsafe.Pointer) error {
	if p.tok.kind != litWord {
		return p.errorf(p.tok.pos, "expected a %v value, found %s", t, p.describe())
	}
	w, pos := p.tok.text, p.tok.pos
	n, ok := parseNumberWord(w)
	if !ok {
		return p.errorf(pos, "expected a %v value, found %s", t, p.describe())
	}
	switch {
	case t == PRED:
		switch {
		case n.kind == numBool:
			*(*uint8)(dst) = uint8(n.mag)
		case n.kind == numInt && n.mag <= 1 && !n.overflow:
			*(*uint8)(dst) = uint8(n.mag)
		case n.kind == numInt:
			return p.errorf(pos, "value %s is out of range for pred (true, false, 1 or 0)", w)
		default:
			return p.errorf(pos, "expected true, false, 1 or 0 for pred, found %s", p.describe())
		}
	case t.IsInteger():
		if n.kind != numInt {
			return p.errorf(pos, "expected an integer for %v, found %s", t, p.describe())
		}
		bits := t.BitWidth()
		var lo int64
		var hi uint64
		if t.IsSigned() {
			lo, hi = -1<<(bits-1), 1<<(bits-1)-1
		} else {
			hi = math.MaxUint64 >> (64 - bits)
		}
		var v int64
		switch {
		case n.overflow:
		case !n.neg && n.mag <= hi:
			v = int64(n.mag)
		case n.neg && n.mag <= uint64(-lo):
			v = -int64(n.mag)
		default:
			n.overflow = true
		}
		if n.overflow {
			return p.errorf(pos, "value %s is out of range for %v [%d, %d]", w, t, lo, hi)
		}
		storeInt(t, dst, v)
	case t.IsFloat():
		switch n.kind {
		case numBool:
			return p.errorf(pos, "expected a number for %v, found %s", t, p.describe())
		case numNaN:
			b, err := nanBits(t, n)
			if err != nil {
				return p.errorf(pos, "%v", err)
			}
			storeFloatBits(t, dst, b)
		case numInf:
			// A type without infinities takes what converting ±Inf gives
			// (its NaN, or its largest value), as XLA's parser stores it.
			inf := math.Inf(1)
			if n.neg {
				inf = math.Inf(-1)
			}
			storeFloat(t, dst, inf)
		default:
			v := n.value
			if math.IsInf(v, 0) {
				return p.errorf(pos, "value %s is out of range for %v (largest finite %s)", w, t, strconv.FormatFloat(maxFinite(t), 'g', -1, 64))
			}
			b := floatBitsOf(t, v)
			storeFloatBits(t, dst, b)
			if r := loadFloat(t, dst); math.IsInf(r, 0) || math.IsNaN(r) {
				return p.errorf(pos, "value %s is out of range for %v (largest finite %s)", w, t, strconv.FormatFloat(maxFinite(t), 'g', -1, 64))
			}
		}
	default:
		return p.errorf(pos, "element type %v has no scalar values", t)
	}
	p.advance()
	return nil
}

type numKind uint8

const (
	numInt numKind = iota
	numFloat
	numInf
	numNaN
	numBool
)

// litNumber is a scalar word: an integer (mag, neg, overflow past 64 bits),
// a float (value, correctly rounded to float64; ±Inf past its range), ±inf,
// a NaN (neg; payload when hasPayload), or a bool (mag 0 or 1).
type litNumber struct {
	kind       numKind
	neg        bool
	mag        uint64
	overflow   bool
	value      float64
	payload    uint64
	hasPayload bool
}

func isDigits(s string, hex bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' || hex && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			continue
		}
		return false
	}
	return true
}

// parseNumberWord classifies a scalar word.
func parseNumberWord(w string) (litNumber, bool) {
	switch w {
	case "true":
		return litNumber{kind: numBool, mag: 1}, true
	case "false":
		return litNumber{kind: numBool}, true
	}
	var n litNumber
	body := w
	if strings.HasPrefix(body, "-") {
		n.neg = true
		body = body[1:]
	}
	switch {
	case body == "inf":
		n.kind = numInf
		return n, true
	case body == "nan":
		n.kind = numNaN
		return n, true
	case strings.HasPrefix(body, "nan(") && strings.HasSuffix(body, ")"):
		h := body[4 : len(body)-1]
		if !strings.HasPrefix(h, "0x") && !strings.HasPrefix(h, "0X") || !isDigits(h[2:], true) {
			return n, false
		}
		v, err := strconv.ParseUint(h[2:], 16, 64)
		if err != nil {
			return n, false
		}
		n.kind, n.payload, n.hasPayload = numNaN, v, true
		return n, true
	case len(body) > 2 && (body[:2] == "0x" || body[:2] == "0X"):
		if !isDigits(body[2:], true) {
			return n, false
		}
		n.kind = numInt
		v, err := strconv.ParseUint(body[2:], 16, 64)
		n.mag, n.overflow = v, err != nil
		n.value = intWordValue(n, body[2:], 16)
		return n, true
	case isDigits(body, false):
		n.kind = numInt
		v, err := strconv.ParseUint(body, 10, 64)
		n.mag, n.overflow = v, err != nil
		n.value = intWordValue(n, body, 10)
		return n, true
	}
	// A decimal float: digits with an optional point, or a point and digits,
	// then an optional exponent.
	mant, exp := body, ""
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		mant, exp = body[:i], body[i+1:]
		if strings.HasPrefix(exp, "+") || strings.HasPrefix(exp, "-") {
			exp = exp[1:]
		}
		if !isDigits(exp, false) {
			return n, false
		}
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if ip == "" && fp == "" || ip != "" && !isDigits(ip, false) || fp != "" && !isDigits(fp, false) {
		return n, false
	}
	v, err := strconv.ParseFloat(w, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return n, false
	}
	n.kind, n.value = numFloat, v
	return n, true
}

// intWordValue is an integer word's value as a float64, correctly rounded
// (±Inf beyond float64's range).
func intWordValue(n litNumber, digits string, base int) float64 {
	var v float64
	if !n.overflow {
		v = float64(n.mag)
	} else if base == 10 {
		v, _ = strconv.ParseFloat(digits, 64)
	} else {
		v, _ = strconv.ParseFloat("0x"+digits+"p0", 64)
	}
	if n.neg {
		v = -v
	}
	return v
}

// nanBits builds the NaN of type t a nan, -nan or nan(0x…) word names: the
// payload is the mantissa; without one, the quiet NaN.
func nanBits(t ElementType, n litNumber) (uint64, error) {
	var man, expAll, sign uint64
	var quiet uint64
	switch t {
	case F64:
		man, expAll, sign, quiet = 52, 0x7ff<<52, 1<<63, 1<<51
	case F32:
		man, expAll, sign, quiet = 23, 0xff<<23, 1<<31, 1<<22
	default:
		f, _ := narrowFormatOf(t)
		if !f.hasPayload() {
			if n.hasPayload {
				return 0, fmt.Errorf("%v NaNs take no payload; found nan(0x%x)", t, n.payload)
			}
			return uint64(f.nanWithPayload(n.neg, 0)), nil
		}
		man, expAll, sign, quiet = uint64(f.manBits), uint64(f.inf()), uint64(f.signBit()), 1<<(f.manBits-1)
	}
	payload := quiet
	if n.hasPayload {
		if n.payload == 0 || n.payload >= 1<<man {
			return 0, fmt.Errorf("NaN payload 0x%x does not fit %v: it must be nonzero and below 0x%x", n.payload, t, uint64(1)<<man)
		}
		payload = n.payload
	}
	b := expAll | payload
	if n.neg {
		b |= sign
	}
	return b, nil
}

func storeFloatBits(t ElementType, dst unsafe.Pointer, b uint64) {
	switch t.ByteSize() {
	case 1:
		*(*uint8)(dst) = uint8(b)
	case 2:
		*(*uint16)(dst) = uint16(b)
	case 4:
		*(*uint32)(dst) = uint32(b)
	default:
		*(*uint64)(dst) = b
	}
}

package affine

// tokKind is the kind of a token of the text format.
type tokKind uint8

const (
	tokEOF tokKind = iota
	tokIdent
	tokInt
	tokLParen
	tokRParen
	tokLBrack
	tokRBrack
	tokLBrace
	tokRBrace
	tokComma
	tokColon
	tokArrow
	tokPlus
	tokMinus
	tokStar
	tokSlash
	tokIllegal
)

type token struct {
	kind tokKind
	text string
	pos  int // byte offset in the source
}

// describe names the token in error messages.
func (t token) describe() string {
	if t.kind == tokEOF {
		return "end of input"
	}
	return "'" + t.text + "'"
}

type lexer struct {
	src string
	pos int
}

func isLetter(c byte) bool { return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

func (l *lexer) next() token {
	for l.pos < len(l.src) {
		switch l.src[l.pos] {
		case ' ', '\t', '\n', '\r':
			l.pos++
			continue
		}
		break
	}
	start := l.pos
	if start >= len(l.src) {
		return token{kind: tokEOF, pos: start}
	}
	c := l.src[start]
	one := func(k tokKind) token {
		l.pos++
		return token{kind: k, text: l.src[start:l.pos], pos: start}
	}
	switch {
	case isLetter(c):
		for l.pos < len(l.src) && (isLetter(l.src[l.pos]) || isDigit(l.src[l.pos])) {
			l.pos++
		}
		return token{kind: tokIdent, text: l.src[start:l.pos], pos: start}
	case isDigit(c):
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
		return token{kind: tokInt, text: l.src[start:l.pos], pos: start}
	case c == '-':
		if start+1 < len(l.src) && l.src[start+1] == '>' {
			l.pos += 2
			return token{kind: tokArrow, text: "->", pos: start}
		}
		return one(tokMinus)
	case c == '(':
		return one(tokLParen)
	case c == ')':
		return one(tokRParen)
	case c == '[':
		return one(tokLBrack)
	case c == ']':
		return one(tokRBrack)
	case c == '{':
		return one(tokLBrace)
	case c == '}':
		return one(tokRBrace)
	case c == ',':
		return one(tokComma)
	case c == ':':
		return one(tokColon)
	case c == '+':
		return one(tokPlus)
	case c == '*':
		return one(tokStar)
	case c == '/':
		return one(tokSlash)
	}
	// One illegal character, or one UTF-8 sequence, so that the error quotes it whole.
	l.pos++
	for l.pos < len(l.src) && l.src[l.pos]&0xC0 == 0x80 {
		l.pos++
	}
	return token{kind: tokIllegal, text: l.src[start:l.pos], pos: start}
}

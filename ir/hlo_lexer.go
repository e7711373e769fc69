package ir

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds the character-level scanner the HLO text parser reads with:
// positions, whitespace and comments, identifiers, numbers, quoted strings,
// and the balanced capture of attribute values Kiln keeps verbatim.

// ParseError is an error in HLO text, at a 1-based line and column (columns
// count bytes).
type ParseError struct {
	Line, Column int
	Msg          string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg) }

// hloMaxNesting bounds the nesting of tuple shapes and brackets the parser
// follows, so that hostile input cannot exhaust the stack.
const hloMaxNesting = 200

// hloScanner walks HLO text byte by byte. Tokens are read on demand by the
// parser, which knows what it expects next; that lets attribute values with
// their own small grammars (`1_1x2_2`, `b01f_01io->b01f`) be read directly.
type hloScanner struct {
	src string
	pos int
}

// errorAt returns a ParseError at byte offset pos.
func (s *hloScanner) errorAt(pos int, format string, args ...any) *ParseError {
	if pos > len(s.src) {
		pos = len(s.src)
	}
	line := 1 + strings.Count(s.src[:pos], "\n")
	col := pos + 1
	if i := strings.LastIndexByte(s.src[:pos], '\n'); i >= 0 {
		col = pos - i
	}
	return &ParseError{Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// errorf returns a ParseError at the next token.
func (s *hloScanner) errorf(format string, args ...any) *ParseError {
	s.skipSpace()
	return s.errorAt(s.pos, format, args...)
}

// skipSpace skips whitespace and /* … */ and // comments.
func (s *hloScanner) skipSpace() {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.pos++
		case c == '/' && s.pos+1 < len(s.src) && s.src[s.pos+1] == '*':
			end := strings.Index(s.src[s.pos+2:], "*/")
			if end < 0 {
				return // left for the caller to report as unexpected '/'
			}
			s.pos += end + 4
		case c == '/' && s.pos+1 < len(s.src) && s.src[s.pos+1] == '/':
			end := strings.IndexByte(s.src[s.pos:], '\n')
			if end < 0 {
				s.pos = len(s.src)
			} else {
				s.pos += end
			}
		default:
			return
		}
	}
}

// atEOF reports whether only whitespace and comments remain.
func (s *hloScanner) atEOF() bool {
	s.skipSpace()
	return s.pos >= len(s.src)
}

// peek returns the next significant byte, or 0 at the end.
func (s *hloScanner) peek() byte {
	s.skipSpace()
	if s.pos < len(s.src) {
		return s.src[s.pos]
	}
	return 0
}

// accept consumes c if it is the next significant byte.
func (s *hloScanner) accept(c byte) bool {
	if s.peek() == c {
		s.pos++
		return true
	}
	return false
}

// acceptString consumes lit if the next significant bytes spell it.
func (s *hloScanner) acceptString(lit string) bool {
	s.skipSpace()
	if strings.HasPrefix(s.src[s.pos:], lit) {
		s.pos += len(lit)
		return true
	}
	return false
}

// expect consumes c or reports what was found instead; where names the
// construct being read ("in shape").
func (s *hloScanner) expect(c byte, where string) error {
	if s.accept(c) {
		return nil
	}
	return s.errorf("expected '%c' %s, found %s", c, where, s.found())
}

// found describes the next token for error messages.
func (s *hloScanner) found() string {
	s.skipSpace()
	if s.pos >= len(s.src) {
		return "end of input"
	}
	c := s.src[s.pos]
	switch {
	case hloIdentStart(c) || c == '%':
		end := s.pos + 1
		for end < len(s.src) && hloIdentChar(s.src[end]) {
			end++
		}
		return strconv.Quote(s.src[s.pos:end])
	case hloIsDigit(c) || c == '-':
		end := s.pos + 1
		for end < len(s.src) && (hloIsDigit(s.src[end]) || s.src[end] == '.' || s.src[end] == 'e') {
			end++
		}
		return strconv.Quote(s.src[s.pos:end])
	case c >= 0x80:
		r, n := utf8.DecodeRuneInString(s.src[s.pos:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Sprintf("byte 0x%02x (not UTF-8)", c)
		}
		return fmt.Sprintf("character %q (U+%04X)", r, r)
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("'%c'", c)
}

func hloIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func hloIdentChar(c byte) bool {
	return hloIdentStart(c) || hloIsDigit(c) || c == '.' || c == '-'
}

func hloIsDigit(c byte) bool { return c >= '0' && c <= '9' }

// ident reads an identifier ([A-Za-z_][A-Za-z0-9_.-]*), or returns "" and
// consumes nothing.
func (s *hloScanner) ident() string {
	s.skipSpace()
	if s.pos >= len(s.src) || !hloIdentStart(s.src[s.pos]) {
		return ""
	}
	start := s.pos
	for s.pos < len(s.src) && hloIdentChar(s.src[s.pos]) {
		s.pos++
	}
	// An identifier never ends in '-': that dash belongs to a following '->'.
	for s.pos > start+1 && s.src[s.pos-1] == '-' {
		s.pos--
	}
	return s.src[start:s.pos]
}

// peekIdent returns the identifier at the next position without consuming it.
func (s *hloScanner) peekIdent() string {
	save := s.pos
	id := s.ident()
	s.pos = save
	return id
}

// acceptKeyword consumes the identifier kw if it is next (whole word).
func (s *hloScanner) acceptKeyword(kw string) bool {
	save := s.pos
	if s.ident() == kw {
		return true
	}
	s.pos = save
	return false
}

// name reads an instruction or computation name, with or without '%'.
func (s *hloScanner) name(what string) (string, error) {
	s.skipSpace()
	pct := s.pos < len(s.src) && s.src[s.pos] == '%'
	if pct {
		s.pos++
		// XLA's names after '%' may also start with a digit.
		start := s.pos
		for s.pos < len(s.src) && hloIdentChar(s.src[s.pos]) {
			s.pos++
		}
		for s.pos > start+1 && s.src[s.pos-1] == '-' {
			s.pos--
		}
		if s.pos > start {
			return s.src[start:s.pos], nil
		}
		return "", s.errorAt(s.pos, "expected %s after '%%', found %s", what, s.found())
	}
	if id := s.ident(); id != "" {
		return id, nil
	}
	return "", s.errorf("expected %s, found %s", what, s.found())
}

// int64Value reads a decimal integer with an optional sign.
func (s *hloScanner) int64Value(what string) (int64, error) {
	s.skipSpace()
	start := s.pos
	end := s.pos
	if end < len(s.src) && (s.src[end] == '-' || s.src[end] == '+') {
		end++
	}
	digits := end
	for end < len(s.src) && hloIsDigit(s.src[end]) {
		end++
	}
	if end == digits {
		return 0, s.errorAt(start, "expected %s, found %s", what, s.found())
	}
	v, err := strconv.ParseInt(s.src[start:end], 10, 64)
	if err != nil {
		return 0, s.errorAt(start, "%s %s is out of range", what, s.src[start:end])
	}
	s.pos = end
	return v, nil
}

// intValue reads an integer that must fit an int.
func (s *hloScanner) intValue(what string) (int, error) {
	start := s.pos
	v, err := s.int64Value(what)
	if err != nil {
		return 0, err
	}
	if v > math.MaxInt || v < math.MinInt {
		return 0, s.errorAt(start, "%s %d is out of range", what, v)
	}
	return int(v), nil
}

// nonNegInt reads an integer that must be >= 0.
func (s *hloScanner) nonNegInt(what string) (int, error) {
	s.skipSpace()
	start := s.pos
	v, err := s.intValue(what)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, s.errorAt(start, "%s must not be negative, found %d", what, v)
	}
	return v, nil
}

// floatValue reads a decimal floating-point number (also inf, -inf, nan).
func (s *hloScanner) floatValue(what string) (float64, error) {
	s.skipSpace()
	start := s.pos
	end := s.pos
	for end < len(s.src) {
		c := s.src[end]
		if hloIsDigit(c) || c == '.' || c == '-' || c == '+' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			end++
			continue
		}
		break
	}
	v, err := strconv.ParseFloat(s.src[start:end], 64)
	if err != nil || end == start {
		return 0, s.errorAt(start, "expected %s, found %s", what, s.found())
	}
	s.pos = end
	return v, nil
}

// boolValue reads true or false.
func (s *hloScanner) boolValue(what string) (bool, error) {
	save := s.pos
	switch s.ident() {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	s.pos = save
	return false, s.errorf("expected true or false for %s, found %s", what, s.found())
}

// quoted reads a double-quoted string with C escapes and returns its value.
func (s *hloScanner) quoted(what string) (string, error) {
	s.skipSpace()
	start := s.pos
	if s.pos >= len(s.src) || s.src[s.pos] != '"' {
		return "", s.errorf("expected quoted string for %s, found %s", what, s.found())
	}
	end, err := s.scanQuoted(s.pos)
	if err != nil {
		return "", err
	}
	v, err := cUnescape(s.src[start+1 : end-1])
	if err != nil {
		return "", s.errorAt(start, "%s: %v", what, err)
	}
	s.pos = end
	return v, nil
}

// scanQuoted returns the offset just past the string literal starting at
// the '"' at start.
func (s *hloScanner) scanQuoted(start int) (int, error) {
	for i := start + 1; i < len(s.src); i++ {
		switch s.src[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, s.errorAt(start, "unterminated string")
}

// word reads a run of bytes that may form an attribute value written
// without brackets (`1_1x2_2`, `b01f_01io->b01f`, `kLoop`, `-3`).
func (s *hloScanner) word() string {
	s.skipSpace()
	start := s.pos
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		if hloIdentChar(c) || c == '?' || c == '>' || c == '+' {
			s.pos++
			continue
		}
		break
	}
	return s.src[start:s.pos]
}

// rawValue captures an attribute value verbatim: a quoted string, or a run
// of text that ends at whitespace, ',' or an unmatched closing bracket at
// the top level, with (), [], {} and quoted strings balanced inside.
func (s *hloScanner) rawValue(what string) (string, error) {
	s.skipSpace()
	start := s.pos
	var stack []byte
	var opens []int
	i := s.pos
loop:
	for i < len(s.src) {
		c := s.src[i]
		switch c {
		case '"':
			end, err := s.scanQuoted(i)
			if err != nil {
				return "", err
			}
			i = end
			continue
		case '(', '[', '{':
			stack = append(stack, hloCloser(c))
			opens = append(opens, i)
		case ')', ']', '}':
			if len(stack) == 0 {
				break loop
			}
			if stack[len(stack)-1] != c {
				return "", s.errorAt(i, "expected '%c' in value of %s, found '%c'", stack[len(stack)-1], what, c)
			}
			stack = stack[:len(stack)-1]
			opens = opens[:len(opens)-1]
		case ' ', '\t', '\r', '\n', ',':
			if len(stack) == 0 {
				break loop
			}
		}
		i++
	}
	if len(stack) > 0 {
		return "", s.errorAt(opens[len(opens)-1], "unterminated '%c' in value of %s", s.src[opens[len(opens)-1]], what)
	}
	if i == start {
		return "", s.errorAt(start, "expected value for %s, found %s", what, s.found())
	}
	s.pos = i
	return s.src[start:i], nil
}

// balanced captures the text between an opening bracket (already consumed
// at open-1) and its matching closer, which it consumes; the closer is not
// part of the result.
func (s *hloScanner) balanced(open byte, openPos int, what string) (string, error) {
	stack := []byte{hloCloser(open)}
	opens := []int{openPos}
	start := s.pos
	for i := s.pos; i < len(s.src); i++ {
		c := s.src[i]
		switch c {
		case '"':
			end, err := s.scanQuoted(i)
			if err != nil {
				return "", err
			}
			i = end - 1
		case '(', '[', '{':
			stack = append(stack, hloCloser(c))
			opens = append(opens, i)
		case ')', ']', '}':
			if stack[len(stack)-1] != c {
				return "", s.errorAt(i, "expected '%c' in %s, found '%c'", stack[len(stack)-1], what, c)
			}
			stack = stack[:len(stack)-1]
			opens = opens[:len(opens)-1]
			if len(stack) == 0 {
				s.pos = i + 1
				return s.src[start:i], nil
			}
		}
	}
	return "", s.errorAt(opens[len(opens)-1], "unterminated '%c' in %s", s.src[opens[len(opens)-1]], what)
}

func hloCloser(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}

// cUnescape decodes the C escapes XLA writes in strings (absl::CUnescape).
func cUnescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", fmt.Errorf("string ends in a lone backslash")
		}
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\', '"', '\'', '?':
			b.WriteByte(e)
		case 'x':
			j := i + 1
			v := 0
			for j < len(s) && j < i+3 && hloIsHex(s[j]) {
				v = v*16 + hloHexVal(s[j])
				j++
			}
			if j == i+1 {
				return "", fmt.Errorf("\\x without hex digits")
			}
			b.WriteByte(byte(v))
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			v := 0
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				v = v*8 + int(s[j]-'0')
				j++
			}
			if v > 255 {
				return "", fmt.Errorf("octal escape \\%s out of range", s[i:j])
			}
			b.WriteByte(byte(v))
			i = j - 1
		default:
			return "", fmt.Errorf("unknown escape \\%c", e)
		}
	}
	return b.String(), nil
}

func hloIsHex(c byte) bool { return hloIsDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hloHexVal(c byte) int {
	switch {
	case hloIsDigit(c):
		return int(c - '0')
	case c >= 'a':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// cEscape encodes s as XLA writes strings (absl::CEscape): \n \r \t \" \'
// \\ and other bytes outside printable ASCII as three-digit octal.
func cEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '"':
			b.WriteString(`\"`)
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, "\\%03o", c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

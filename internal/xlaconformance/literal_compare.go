package xlaconformance

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// printedLiteral is a literal read back from printed output: an array's
// element type, dimensions and elements in row-major order (float64, int64
// or uint64 held as float64 where exact, bool, or [2]float64 for complex),
// or a tuple.
type printedLiteral struct {
	dtype   string
	shape   []int
	flat    []any
	tuple   []*printedLiteral
	isTuple bool
}

var (
	literalToken = regexp.MustCompile(`^\s*(\(|\)|\{|\}|,|[a-z][a-z0-9]*\[[^\]]*\](?:\{[0-9,\s]*\})?|` +
		`-?nan(?:\([^)]*\))?|-?inf|true|false|[-+]?[0-9][0-9a-fA-Fx.eE+\-]*|` +
		`[-+]?\.[0-9]+(?:[eE][-+]?[0-9]+)?|\S)`)
	shapeToken = regexp.MustCompile(`^([a-z][a-z0-9]*)\[([^\]]*)\]`)
	intToken   = regexp.MustCompile(`^[-+]?[0-9]+$`)
)

func literalTokens(text string) []string {
	var out []string
	for pos := 0; pos < len(text); {
		m := literalToken.FindStringSubmatchIndex(text[pos:])
		if m == nil {
			break
		}
		if m[2] >= 0 {
			out = append(out, text[pos+m[2]:pos+m[3]])
		}
		pos += m[1]
	}
	return out
}

// literalReader reads a sequence of literals from printed text, as a reader
// of `kiln run`'s output would: `f32[2,2] {{1, 2}, {3, 4}}`, `(lit, lit)`.
type literalReader struct {
	toks []string
	i    int
}

func (r *literalReader) peek() string {
	if r.i < len(r.toks) {
		return r.toks[r.i]
	}
	return ""
}

func (r *literalReader) next() string {
	t := r.peek()
	r.i++
	return t
}

func readLiterals(text string) ([]*printedLiteral, error) {
	r := &literalReader{toks: literalTokens(text)}
	var out []*printedLiteral
	for r.peek() != "" {
		if r.peek() == "(" || shapeToken.MatchString(r.peek()) {
			l, err := r.literal()
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		} else {
			r.next()
		}
	}
	return out, nil
}

func (r *literalReader) literal() (*printedLiteral, error) {
	tok := r.next()
	if tok == "(" {
		l := &printedLiteral{isTuple: true}
		for r.peek() != ")" && r.peek() != "" {
			if r.peek() == "," {
				r.next()
				continue
			}
			e, err := r.literal()
			if err != nil {
				return nil, err
			}
			l.tuple = append(l.tuple, e)
		}
		r.next()
		return l, nil
	}
	m := shapeToken.FindStringSubmatch(tok)
	if m == nil {
		return nil, fmt.Errorf("expected a literal, found %q", tok)
	}
	l := &printedLiteral{dtype: m[1]}
	n := 1
	for _, d := range strings.Split(m[2], ",") {
		d = strings.TrimPrefix(strings.TrimSpace(d), "<=")
		if d == "" {
			continue
		}
		v, err := strconv.Atoi(d)
		if err != nil {
			return nil, fmt.Errorf("bad dimension %q in %q", d, tok)
		}
		l.shape = append(l.shape, v)
		n *= v
	}
	for len(l.flat) < n && r.peek() != "" {
		t := r.peek()
		switch {
		case t == "(" && strings.HasPrefix(l.dtype, "c"):
			r.next()
			re := r.next()
			if r.peek() == "," {
				r.next()
			}
			im := r.next()
			r.next()
			l.flat = append(l.flat, [2]any{tokenValue(re), tokenValue(im)})
		case t == "{" || t == "}" || t == ",":
			r.next()
		case shapeToken.MatchString(t) || t == "(" || t == ")":
			n = len(l.flat) // a shorter literal than its shape: stop here
		default:
			r.next()
			l.flat = append(l.flat, tokenValue(t))
		}
	}
	for r.peek() == "}" {
		r.next()
	}
	return l, nil
}

// tokenValue reads one printed element: a bool, NaN, ±Inf, an integer, a
// hexadecimal integer or a float; anything else stays a string.
func tokenValue(tok string) any {
	t := strings.ToLower(tok)
	switch {
	case t == "true":
		return true
	case t == "false":
		return false
	case strings.Contains(t, "nan"):
		return math.NaN()
	case t == "inf" || t == "+inf":
		return math.Inf(1)
	case t == "-inf":
		return math.Inf(-1)
	case intToken.MatchString(t):
		if v, err := strconv.ParseInt(t, 10, 64); err == nil {
			return v
		}
		if v, err := strconv.ParseUint(strings.TrimPrefix(t, "+"), 10, 64); err == nil {
			return v
		}
		if v, err := strconv.ParseFloat(t, 64); err == nil {
			return v
		}
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "-0x"):
		if v, err := strconv.ParseInt(t, 0, 64); err == nil {
			return v
		}
	}
	if v, err := strconv.ParseFloat(t, 64); err == nil {
		return v
	}
	return tok
}

// comparison is how a case compares literals: "equal", or "near" within an
// absolute or a relative error.
type comparison struct {
	Kind string  `json:"kind"`
	Abs  float64 `json:"abs"`
	Rel  float64 `json:"rel"`
}

// toFloat reads an expected or printed element as a float64 (NaN for what
// is not a number).
func toFloat(v any) float64 {
	switch x := v.(type) {
	case string:
		switch x {
		case "inf":
			return math.Inf(1)
		case "-inf":
			return math.Inf(-1)
		}
		return math.NaN()
	case bool:
		if x {
			return 1
		}
		return 0
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
		return math.NaN()
	case float64:
		return x
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	}
	return math.NaN()
}

// exactInt reads v as an integer when it is one, so that 64-bit values
// compare exactly.
func exactInt(v any) (string, bool) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case json.Number:
		s := x.String()
		if intToken.MatchString(s) {
			return strings.TrimPrefix(s, "+"), true
		}
	}
	return "", false
}

// roundTo rounds x to the precision of dtype, so that an exact comparison
// of narrow floats does not depend on how many digits were printed.
func roundTo(x float64, dtype string) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	switch dtype {
	case "f32":
		return float64(float32(x))
	case "bf16", "f16":
		bits := 8
		if dtype == "f16" {
			bits = 11
		}
		if x == 0 {
			return x
		}
		m, e := math.Frexp(x)
		return math.Ldexp(math.RoundToEven(m*float64(int(1)<<bits))/float64(int(1)<<bits), e)
	}
	return x
}

// sameElement compares one printed element with one expected element.
func sameElement(got, want any, dtype string, cmp comparison) bool {
	if dtype == "c64" || dtype == "c128" {
		g, ok := got.([2]any)
		w, ok2 := want.([]any)
		if !ok || !ok2 || len(w) != 2 {
			return false
		}
		part := "f32"
		if dtype == "c128" {
			part = "f64"
		}
		return sameElement(g[0], w[0], part, cmp) && sameElement(g[1], w[1], part, cmp)
	}
	if _, isStr := got.(string); isStr {
		if _, wantStr := want.(string); !wantStr {
			return false
		}
	}
	if gi, ok := exactInt(got); ok {
		if wi, ok := exactInt(want); ok && cmp.Kind != "near" {
			return gi == wi
		}
	}
	fg, fw := toFloat(got), toFloat(want)
	if math.IsNaN(fg) || math.IsNaN(fw) {
		return math.IsNaN(fg) && math.IsNaN(fw)
	}
	if cmp.Kind == "near" {
		if fg == fw {
			return true
		}
		err := math.Abs(fg - fw)
		return err <= cmp.Abs || (fw != 0 && err/math.Abs(fw) <= cmp.Rel)
	}
	return roundTo(fg, dtype) == roundTo(fw, dtype)
}

// compareLiteral returns "" when got matches want, or why it does not.
func compareLiteral(got *printedLiteral, want jsonLiteral, cmp comparison) string {
	if got == nil {
		return "missing output"
	}
	if want.isTuple {
		if !got.isTuple || len(got.tuple) != len(want.Tuple) {
			return "tuple arity differs"
		}
		for i := range want.Tuple {
			if why := compareLiteral(got.tuple[i], want.Tuple[i], cmp); why != "" {
				return why
			}
		}
		return ""
	}
	if got.isTuple {
		return "got a tuple, want an array"
	}
	exp := flatValues(want)
	if !sameInts(got.shape, want.Shape) && !want.Dynamic {
		if len(got.flat) != product(want.Shape) {
			return fmt.Sprintf("shape %v, want %v", got.shape, want.Shape)
		}
	}
	if len(got.flat) != len(exp) {
		return fmt.Sprintf("%d values, want %d", len(got.flat), len(exp))
	}
	for k := range exp {
		if !sameElement(got.flat[k], exp[k], want.Dtype, cmp) {
			return fmt.Sprintf("element %d: got %v, want %v", k, got.flat[k], exp[k])
		}
	}
	return ""
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func product(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

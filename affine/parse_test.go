package affine

import (
	"errors"
	"strings"
	"testing"
)

// Maps print back as they were written, in XLA's format.
func TestParsePrintRoundTrip(t *testing.T) {
	for _, text := range []string{
		"(d0, d1) -> (d0 mod 2 + d1), domain: d0 in [0, 3], d1 in [-4, 4]",
		"(){r0, r1} -> (r0), domain: r0 in [1, 1], r1 in [0, 1]",
		"(d0, d1)[s0, s1, s2]{r0} -> (s2, d0 + d1, s1, s0, r0), domain: d0 in [0, 3], d1 in [0, 4], s0 in [0, 1], s1 in [0, 1], s2 in [0, 3], r0 in [0, 100], (r0 + 1) mod 5 in [1, 1], d0 mod 4 in [0, 0], d1 + s0 in [0, 45]",
		"(th_x, bl_x)[s0, vector_elem]{gpu} -> (th_x * gpu + bl_x, vector_elem, s0), domain: th_x in [0, 3], bl_x in [0, 4], s0 in [0, 1], vector_elem in [0, 1], gpu in [0, 1], (th_x * gpu) mod 4 in [0, 0]",
		"(d0) -> (d0 / 100663296), domain: d0 in [0, 2415919103]",
		"(d0) -> (min(d0, 3), max(d0 ceildiv 2, 1)), domain: d0 in [0, 9]",
		"() -> (7)",
		"KNOWN EMPTY",
		"UNDEFINED",
	} {
		m, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q): %v", text, err)
		}
		if got := m.String(); got != text {
			t.Errorf("round trip:\n  %s\n  %s", text, got)
		}
	}
}

// Both spellings of floor division, white space anywhere, ceildiv, unary
// minus and named variables.
func TestParseForms(t *testing.T) {
	cases := []struct{ in, want string }{
		{"(d0, d1) -> (d0 floordiv 4, d1 / 2), domain: d0 in [0, 9], d1 in [0, 9]", "(d0, d1) -> (d0 / 4, d1 / 2), domain: d0 in [0, 9], d1 in [0, 9]"},
		{"(d0)->(d0),\n  domain : d0 in[0, 3]", "(d0) -> (d0), domain: d0 in [0, 3]"},
		{"(d0, d1) -> (-((d0 * -11 - d1 + 109) floordiv 11) + 9), domain: d0 in [0, 7], d1 in [0, 8]",
			"(d0, d1) -> (-((d0 * -11 - d1 + 109) / 11) + 9), domain: d0 in [0, 7], d1 in [0, 8]"},
		// Negation is XLA's operator-: in canonical form, which here splits
		// the quotient.
		{"(d0) -> (-((d0 * -11 + 109) floordiv 11)), domain: d0 in [0, 7]", "(d0) -> (d0 - 9), domain: d0 in [0, 7]"},
		{"(d0) -> (2 * d0 - 3), domain: d0 in [0, 7]", "(d0) -> (d0 * 2 - 3), domain: d0 in [0, 7]"},
		{"(d0) -> (d0), domain: d0 in [0, 49], 0 in [-10, 5]", "(d0) -> (d0), domain: d0 in [0, 49]"},
		{"(d0) -> (d0), domain: d0 in [0, 49], 0 in [10, 15]", "KNOWN EMPTY"},
		{"(d0) -> (d0), domain: d0 in [10, 0]", "KNOWN EMPTY"},
		{"(d0)[s0] -> (d0), domain: d0 in [0, 9], s0 in [0, 9], s0 in [2, 20]", "(d0)[s0] -> (d0), domain: d0 in [0, 9], s0 in [2, 9]"},
		{"(d0) -> (d0), domain: d0 in [0, 9], is_simplified: true", "(d0) -> (d0), domain: d0 in [0, 9]"},
	}
	for _, c := range cases {
		m, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		if got := m.String(); got != c.want {
			t.Errorf("Parse(%q):\n  got  %s\n  want %s", c.in, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in, msg   string
		line, col int
	}{
		{"(d0) -> (d1), domain: d0 in [0, 9]", "unknown variable d1", 1, 10},
		{"(d0 -> (d0)", "expected ',' or ')' after a variable name", 1, 5},
		{"(d0) -> (d0 mod 0), domain: d0 in [0, 9]", "division by zero", 1, 13},
		{"(d0) -> (d0),\ndomain:\n  d1 in [0, 9]", "expected the range of d0", 3, 3},
		{"(d0) -> (d0 * 99999999999999999999), domain: d0 in [0, 9]", "does not fit in int64", 1, 15},
		{"(d0) -> (d0)", "expected ', domain:'", 1, 13},
		{"(d0, d0) -> (d0), domain: d0 in [0, 9]", "declared twice", 1, 6},
		{"(d0) -> (min(d0 2)), domain: d0 in [0, 9]", "',' between the operands of min", 1, 17},
		{"(d0) -> (d0 ? 2)", "unexpected character", 1, 13},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("Parse(%q): error %v is not a *ParseError", c.in, err)
		}
		if !strings.Contains(pe.Msg, c.msg) || pe.Line != c.line || pe.Column != c.col {
			t.Errorf("Parse(%q): %v, want %q at %d:%d", c.in, err, c.msg, c.line, c.col)
		}
	}
	if _, err := ParseExpr("d0 +"); err == nil {
		t.Error("ParseExpr(\"d0 +\"): no error")
	}
}

func TestParseSymbolicMap(t *testing.T) {
	sm, err := ParseSymbolicMap("(d0)[s0, s1, s2] -> (d0 * 4 + s1 + 2 * s2 - 42)")
	if err != nil {
		t.Fatal(err)
	}
	m, err := sm.IndexingMap([]Variable{{Bounds: Interval{0, 31}}}, []Variable{{Bounds: Interval{0, 1}}, {Bounds: Interval{0, 2}}}, []Variable{{Bounds: Interval{0, 3}, Name: "off"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "(d0)[s0, s1]{off} -> (d0 * 4 + s1 + off * 2 - 42), domain: d0 in [0, 31], s0 in [0, 1], s1 in [0, 2], off in [0, 3]"; m.String() != want {
		t.Errorf("got  %s\nwant %s", m, want)
	}
	if _, err := sm.IndexingMap(nil, nil, nil); err == nil {
		t.Error("variables that do not match the symbolic map: no error")
	}
}

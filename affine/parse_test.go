package affine

import (
	"errors"
	"strings"
	"testing"
)

// Bad input is an error at the position of the fault, saying what was
// expected and what was found.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		text      string
		line, col int
		msg       string
	}{
		{"(d0 -> (d0), domain: d0 in [0, 9]", 1, 5, "expected ',' or ')' after a variable name, found '->'"},
		{"(d0) -> (d0, domain: d0 in [0, 9]", 1, 14, "expected an expression, found 'domain'"},
		{"(d0) -> (d0 domain: d0 in [0, 9]", 1, 13, "expected ',' or ')' after a result, found 'domain'"},
		{"(d0) -> ((d0 + 1, d0), domain: d0 in [0, 9]", 1, 17, "expected ')' to close '(' at 1:10, found ','"},
		{"(d0) -> (d0)), domain: d0 in [0, 9]", 1, 13, "expected ',' or end of input after the results, found ')'"},
		{"(d0)[s0 -> (d0), domain: d0 in [0, 9]", 1, 9, "expected ',' or ']' after a variable name, found '->'"},
		{"(d0){rt0 -> (d0)", 1, 10, "expected ',' or '}' after a variable name, found '->'"},
		{"d0) -> (d0)", 1, 1, "expected '(' to open the list of dimension variables, found 'd0'"},
		{"(d0) -> (d1), domain: d0 in [0, 9]", 1, 10, "unknown variable d1: expected one of d0"},
		{"(d0) -> (d0 + s0), domain: d0 in [0, 9]", 1, 15, "unknown variable s0: expected one of d0"},
		{"(d0) -> (d0), domain: d0 in [0, 9], d0 + rt0 in [0, 3]", 1, 42, "unknown variable rt0: expected one of d0"},
		{"(d0) -> (d0), domain: d0 in [9, 0]", 1, 29, "the range [9, 0] of d0 is empty: its lower bound is greater than its upper bound"},
		{"(d0) -> (d0), domain: d0 in [0, 9], d0 mod 2 in [1, 0]", 1, 49, "the range [1, 0] of the constraint d0 mod 2 is empty"},
		{"(d0) -> (d0 * 9223372036854775808), domain: d0 in [0, 9]", 1, 15, "integer 9223372036854775808 does not fit in int64"},
		{"(d0) -> (d0), domain: d0 in [0, 99999999999999999999]", 1, 33, "integer 99999999999999999999 does not fit in int64"},
		{"(d0) -> (d0 * 4611686018427387904 * 2), domain: d0 in [0, 9]", 1, 35, "integer overflow"},
		{"(d0) -> (9223372036854775807 + 1), domain: d0 in [0, 9]", 1, 30, "integer overflow"},
		{"(d0, d1) -> (d0 * d1), domain: d0 in [0, 9], d1 in [0, 9]", 1, 17, "non-affine product d0 * d1: one operand of '*' must be a constant"},
		{"(d0, d1) -> (d0 floordiv d1), domain: d0 in [0, 9], d1 in [0, 9]", 1, 26, "the right operand of floordiv must be a constant, found d1"},
		{"(d0) -> (d0 mod 0), domain: d0 in [0, 9]", 1, 13, "division by zero"},
		{"(d0) -> (d0)", 1, 13, "expected ', domain:' with the ranges of the variables, found end of input"},
		{"(d0, d1) -> (d0), domain: d1 in [0, 9], d0 in [0, 9]", 1, 27, "expected the range of d0, found 'd1'"},
		{"(d0, d1) -> (d0), domain: d0 in [0, 9]", 1, 39, "expected the range of d1, found end of input"},
		{"(d0) -> (d0), domain: d0 in [0, 9],", 1, 36, "expected an expression, found end of input"},
		{"(d0) -> (d0), domain: d0 [0, 9]", 1, 26, "expected 'in' after d0, found '['"},
		{"(d0) -> (d0), domain: d0 in 0, 9]", 1, 29, "expected '[' to open the range of d0, found '0'"},
		{"(d0, d0) -> (d0), domain: d0 in [0, 9]", 1, 6, "variable d0 is declared twice"},
		{"(mod) -> (mod), domain: mod in [0, 9]", 1, 2, "expected a variable name, found 'mod'"},
		{"(d0) -> (d0 ? 2), domain: d0 in [0, 9]", 1, 13, "unexpected character \"?\""},
		{"(d0) -> (d0 + é), domain: d0 in [0, 9]", 1, 15, "unexpected character \"é\""},
		{"(d0) -> (d0 +), domain: d0 in [0, 9]", 1, 14, "expected an expression, found ')'"},
		{"(d0) -> (d0 in), domain: d0 in [0, 9]", 1, 13, "expected ',' or ')' after a result, found 'in'"},
		{"KNOWN", 1, 6, "expected 'EMPTY' after 'KNOWN', found end of input"},
		{"(d0) -> (d0),\ndomain:\nd0 in [0, 9],\nd0 floordiv s1 in [0, 1]", 4, 13, "unknown variable s1: expected one of d0"},
		{"(d0, d1) -> (d0),\ndomain:\nd0 in [0, 9]\nd1 in [0, 2]", 4, 1, "expected ',' or end of input, found 'd1'"},
		{"", 1, 1, "expected '(' to open the list of dimension variables, found end of input"},
	}
	for _, c := range cases {
		_, err := Parse(c.text)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q): error %v is not a *ParseError", c.text, err)
			continue
		}
		if pe.Line != c.line || pe.Column != c.col || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("Parse(%q):\n  %v\nwant %d:%d: %s", c.text, err, c.line, c.col, c.msg)
		}
		if !strings.HasPrefix(err.Error(), strings.Join([]string{itoa(c.line), itoa(c.col)}, ":")+": ") {
			t.Errorf("error text %q does not start with line:column", err)
		}
	}
}

func itoa(i int) string { return Const(int64(i)).String() }

func TestParseAccepts(t *testing.T) {
	cases := []struct{ text, want string }{
		// Any names, bound by position.
		{"(x, y)[r]{off} -> (x + off, y * 2 + r), domain: x in [0, 9], y in [0, 4], r in [0, 1], off in [0, 5]",
			"(d0, d1)[s0]{rt0} -> (d0 + rt0, d1 * 2 + s0), domain: d0 in [0, 9], d1 in [0, 4], s0 in [0, 1], rt0 in [0, 5]"},
		// No variables, no domain.
		{"() -> (5, -3)", "() -> (5, -3)"},
		{"() -> ()", "() -> ()"},
		{"()[s0] -> (), domain: s0 in [0, 0]", "()[s0] -> (), domain: s0 in [0, 0]"},
		// Empty brackets.
		{"(d0)[]{} -> (d0), domain: d0 in [0, 1]", "(d0) -> (d0), domain: d0 in [0, 1]"},
		// Constraints on one variable tighten its bounds; equal expressions intersect.
		{"(d0) -> (d0), domain: d0 in [0, 9], d0 in [2, 20], d0 mod 3 in [0, 1], d0 mod 3 in [1, 2]",
			"(d0) -> (d0), domain: d0 in [2, 9], d0 mod 3 in [1, 1]"},
		// Constraints print sorted by their text, whatever their order.
		{"(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d1 mod 2 in [0, 0], (d0 + d1) mod 3 in [0, 0], d0 mod 2 in [0, 0]",
			"(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], (d0 + d1) mod 3 in [0, 0], d0 mod 2 in [0, 0], d1 mod 2 in [0, 0]"},
		// A constant constraint that fails makes the map known empty.
		{"(d0) -> (d0), domain: d0 in [0, 9], 5 in [0, 3]", "KNOWN EMPTY"},
		{"(d0) -> (d0), domain: d0 in [0, 9], d0 in [20, 30]", "KNOWN EMPTY"},
		{"KNOWN EMPTY", "KNOWN EMPTY"},
		// The marker some versions of XLA print.
		{"(d0) -> (d0), domain: d0 in [0, 9], is_simplified: true", "(d0) -> (d0), domain: d0 in [0, 9]"},
		// Negative bounds, extreme constants, white space.
		{"(d0)\n->\n(d0 - 9223372036854775807),\n  domain:\td0 in [-9223372036854775808, 9223372036854775807]",
			"(d0) -> (d0 - 9223372036854775807), domain: d0 in [-9223372036854775808, 9223372036854775807]"},
	}
	for _, c := range cases {
		m, err := Parse(c.text)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.text, err)
			continue
		}
		if got := m.String(); got != c.want {
			t.Errorf("Parse(%q)\n  = %s\nwant %s", c.text, got, c.want)
		}
	}
}

func TestParseExpr(t *testing.T) {
	e, err := ParseExpr("d12 * 3 + s7 - rt2 floordiv 4")
	// Like MLIR, XLA parenthesises the operand of a subtraction.
	if err != nil || e.String() != "d12 * 3 + s7 - (rt2 floordiv 4)" {
		t.Errorf("ParseExpr: %s, %v", e, err)
	}
	for _, bad := range []string{"d01", "x", "d0 +", "d0 d1", "s", ""} {
		if _, err := ParseExpr(bad); err == nil {
			t.Errorf("ParseExpr(%q) gave no error", bad)
		}
	}
}

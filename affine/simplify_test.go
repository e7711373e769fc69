package affine

import (
	"testing"
)

// applyRule applies the rule named name to result 0 of the map, with the
// ranges of the map's variables, and returns what it rewrote the result to,
// or "-" when the rule does not apply.
func applyRule(t *testing.T, name, text string) string {
	t.Helper()
	m := MustParse(text)
	s := exprSimplifier{rng: rangeEval{m: &m, useConstraints: true}, replacePoints: true}
	e := m.Result(0)
	for _, r := range rules[e.op()] {
		if r.name == name {
			out, ok := r.apply(&s, e)
			if !ok {
				return "-"
			}
			return out.String()
		}
	}
	t.Fatalf("no rule %q for %s", name, e.Kind())
	return ""
}

// Each rule of the simplifier, on the expressions that pin what it does and
// what it leaves alone.
func TestRules(t *testing.T) {
	cases := []struct{ rule, in, want string }{
		// Sums: summands simplified, collected, constants added up, sorted
		// products, remainders, quotients, variables, constant.
		{"sum", "(d0, d1) -> (d1 + d0 * 2 + 3 + d1 - 1), domain: d0 in [0, 9], d1 in [0, 9]", "d0 * 2 + d1 * 2 + 2"},
		{"sum", "(d0, d1) -> (d1 + d0 mod 3), domain: d0 in [0, 9], d1 in [0, 9]", "d0 mod 3 + d1"},
		{"sum", "(d0)[s0] -> (s0 + d0 * 5), domain: d0 in [0, 9], s0 in [0, 9]", "d0 * 5 + s0"},
		// (x mod c) * d + (x floordiv c) * (c * d) = x * d.
		{"sum", "(d0) -> ((d0 mod 4) * 2 + (d0 / 4) * 8), domain: d0 in [0, 99]", "d0 * 2"},
		// x - (x floordiv c) * c = x mod c, also multiplied.
		{"sum", "(d0) -> (d0 - (d0 / 4) * 4), domain: d0 in [0, 99]", "d0 mod 4"},
		{"sum", "(d0, d1) -> (d1 - (d0 / 4) * 8 + d0 * 2), domain: d0 in [0, 99], d1 in [0, 9]", "(d0 mod 4) * 2 + d1"},
		// Products by constants distribute over sums.
		{"mul-distribute", "(d0, d1) -> ((d0 + d1 * 2) * 3), domain: d0 in [0, 9], d1 in [0, 9]", "d1 * 6 + d0 * 3"},
		{"mul-distribute", "(d0) -> ((d0 mod 3) * 1), domain: d0 in [0, 9]", "d0 mod 3"},
		{"mul-distribute", "(d0, d1) -> (d0 * d1), domain: d0 in [0, 9], d1 in [0, 9]", "d0 * d1"},
		// A remainder by a divisor that is not one point is left alone.
		{"mod-zero-divisor", "(d0, d1) -> (d0 mod d1), domain: d0 in [0, 9], d1 in [1, 4]", "d0 mod d1"},
		{"mod-zero-divisor", "(d0) -> (d0 mod 4), domain: d0 in [0, 9]", "-"},
		// Within one period the remainder is a shift.
		{"mod-no-wraparound", "(d0) -> (d0 mod 16), domain: d0 in [0, 15]", "d0"},
		{"mod-no-wraparound", "(d0) -> (d0 mod 16), domain: d0 in [17, 30]", "d0 - 16"},
		{"mod-no-wraparound", "(d0) -> (d0 mod 5), domain: d0 in [-5, -1]", "d0 + 5"},
		{"mod-no-wraparound", "(d0) -> (d0 mod 5), domain: d0 in [-4, 0]", "-"},
		// (c * a) mod (a * b) = (c mod b) * a for a > 0.
		{"mod-of-product", "(d0) -> ((d0 * 4) mod 12), domain: d0 in [0, 99]", "(d0 mod 3) * 4"},
		{"mod-of-product", "(d0) -> ((d0 * -4) mod 12), domain: d0 in [0, 99]", "-"},
		// Multiples of the modulus and constants leave the remainder.
		{"mod-extract", "(d0, d1) -> ((d0 * 8 + d1 + 6) mod 4), domain: d0 in [0, 9], d1 in [0, 99]", "(d1 + 2) mod 4"},
		// a*g + b with 0 <= b < g and g dividing the modulus.
		{"mod-extract", "(d0, d1) -> ((d0 * 4 + d1) mod 8), domain: d0 in [0, 9], d1 in [0, 3]", "(d0 * 4) mod 8 + d1"},
		// A common factor of every summand and the modulus.
		{"mod-extract", "(d0, d1) -> ((d0 * 6 + d1 * 4) mod 8), domain: d0 in [0, 9], d1 in [0, 9]", "((d0 * 3 + d1 * 2) mod 4) * 2"},
		{"mod-extract", "(d0) -> ((-d0) mod 2), domain: d0 in [0, 127]", "(-d0) mod 2"},
		// Quotients.
		{"div-non-constant-divisor", "(d0, d1) -> (d0 / d1), domain: d0 in [0, 9], d1 in [1, 4]", "d0 / d1"},
		{"div-of-mod", "(d0) -> ((d0 mod 12) / 4), domain: d0 in [0, 99]", "(d0 / 4) mod 3"},
		{"div-of-mod", "(d0) -> ((d0 mod 10) / 4), domain: d0 in [0, 99]", "-"},
		{"div-of-div", "(d0) -> ((d0 / 2) / 3), domain: d0 in [0, 99]", "d0 / 6"},
		{"div-of-div", "(d0) -> ((d0 / 2) / -7), domain: d0 in [0, 99]", "-"},
		{"div-of-sum", "(d0, d1) -> ((d0 * 6 + d1) / 3), domain: d0 in [0, 9], d1 in [0, 99]", "d1 / 3 + d0 * 2"},
		{"div-of-sum", "(d0, d1) -> ((d0 * 6 + d1) / 9), domain: d0 in [0, 9], d1 in [0, 2]", "(d0 * 2) / 3"},
		{"div-of-sum", "(d0) -> ((d0 * 6 + 9) / 18), domain: d0 in [0, 99]", "(d0 * 2 + 3) / 6"},
		{"div-of-sum", "(d0, d1) -> ((d0 / 4 + d1) / 2), domain: d0 in [0, 99], d1 in [0, 9]", "(d0 + d1 * 4) / 8"},
		// Two inner quotients are not merged: each rounds down.
		{"div-of-sum", "(d0, d1) -> ((d0 / 3 + d1 / 3) / 6), domain: d0 in [0, 99], d1 in [0, 99]", "-"},
		{"div-operand", "(d0) -> ((d0 + d0) / 4), domain: d0 in [0, 99]", "(d0 * 2) / 4"},
		{"ceildiv-operand", "(d0) -> ((d0 + d0) ceildiv 4), domain: d0 in [0, 99]", "(d0 * 2) ceildiv 4"},
		// min and max.
		{"min-ordered", "(d0) -> (min(d0, d0 + 2)), domain: d0 in [0, 10]", "d0"},
		{"min-ordered", "(d0) -> (min(12, d0)), domain: d0 in [0, 10]", "d0"},
		{"min-ordered", "(d0, d1) -> (min(d0, d1)), domain: d0 in [0, 10], d1 in [0, 10]", "-"},
		{"max-ordered", "(d0) -> (max(d0 - 3, d0)), domain: d0 in [0, 10]", "d0"},
		{"max-ordered", "(d0) -> (max(0, d0)), domain: d0 in [0, 10]", "d0"},
		{"max-operands", "(d0, d1) -> (max(d0 + d0, d1)), domain: d0 in [0, 10], d1 in [0, 10]", "max(d0 * 2, d1)"},
	}
	for _, c := range cases {
		if got := applyRule(t, c.rule, c.in); got != c.want {
			t.Errorf("rule %s on %s:\n  got  %s\n  want %s", c.rule, c.in, got, c.want)
		}
	}
}

// Whole maps simplified to their normal form: the rules applied to a fixed
// point, point variables replaced by their values.
func TestSimplifyNormalForm(t *testing.T) {
	cases := []struct{ in, want string }{
		// A variable whose range is one point is that constant.
		{"(d0, d1) -> (d0 + d1, d1), domain: d0 in [0, 9], d1 in [4, 4]", "(d0, d1) -> (d0 + 4, 4), domain: d0 in [0, 9], d1 in [4, 4]"},
		// Reshape chains: the row-major index of a split dimension is the
		// dimension again.
		{"(d0, d1) -> ((d0 * 8 + d1) / 8, (d0 * 8 + d1) mod 8), domain: d0 in [0, 5], d1 in [0, 7]", "(d0, d1) -> (d0, d1), domain: d0 in [0, 5], d1 in [0, 7]"},
		{"(d0) -> (((d0 / 6) mod 5) * 6 + d0 mod 6 + (d0 / 30) * 30), domain: d0 in [0, 119]", "(d0) -> (d0), domain: d0 in [0, 119]"},
		{"(d0, d1, d2) -> ((d0 * 12 + d1 * 4 + d2) / 3, (d0 * 12 + d1 * 4 + d2) mod 3), domain: d0 in [0, 3], d1 in [0, 2], d2 in [0, 3]",
			"(d0, d1, d2) -> (d0 * 4 + (d1 * 4 + d2) / 3, (d1 * 4 + d2) mod 3), domain: d0 in [0, 3], d1 in [0, 2], d2 in [0, 3]"},
		// A quotient whose range is one point.
		{"(d0) -> (d0 / 16), domain: d0 in [0, 15]", "(d0) -> (0), domain: d0 in [0, 15]"},
		// Constant folding through every operation.
		{"() -> (7 mod 3 + 7 / 2 + min(2, 5) * max(1, 3))", "() -> (10)"},
	}
	for _, c := range cases {
		m := MustParse(c.in)
		if got := Simplify(m).String(); got != c.want {
			t.Errorf("Simplify(%s):\n  got  %s\n  want %s", c.in, got, c.want)
		}
	}
}

// Point dimensions stay variables under PreservePointDimensions, and
// SimplifyMap reports whether anything changed.
func TestSimplifyPreserveAndReport(t *testing.T) {
	m := MustParse("(d0) -> (d0), domain: d0 in [5, 5]")
	if s, changed := SimplifyMap(m, SimplifyOptions{PreservePointDimensions: true}); changed || s.String() != m.String() {
		t.Errorf("preserving point dimensions changed %s into %s (%v)", m, s, changed)
	}
	if s, changed := SimplifyMap(m, SimplifyOptions{}); !changed || s.String() != "(d0) -> (5), domain: d0 in [5, 5]" {
		t.Errorf("simplifying %s gave %s (%v)", m, s, changed)
	}
	for _, text := range []string{
		"(d0) -> (d0 mod 5), domain: d0 in [-4, 0]",
		"()[s0] -> ((s0 / 2) / -7), domain: s0 in [0, 99]",
	} {
		if s, changed := SimplifyMap(MustParse(text), SimplifyOptions{}); changed {
			t.Errorf("%s reported as changed into %s", text, s)
		}
	}
	// Simplifying twice changes nothing more.
	twice := MustParse("(d0, d1)[s0] -> (((d0 + d0 mod 3) / 3 + s0 + (s0 + s0) mod 3) + ((d0 + s0) mod 3 + 0)), domain: d0 in [0, 9], d1 in [0, 19], s0 in [0, 29]")
	s, changed := SimplifyMap(twice, SimplifyOptions{})
	if !changed {
		t.Fatalf("%s: no change reported", twice)
	}
	if again, changed := SimplifyMap(s, SimplifyOptions{}); changed {
		t.Errorf("simplifying %s again changed it into %s", s, again)
	}
}

// The constraint rules and their resulting ranges.
func TestSimplifyConstraints(t *testing.T) {
	cases := []struct{ in, want string }{
		// e + c in r: e in r - c.
		{"(d0) -> (d0), domain: d0 in [0, 99], d0 + 5 in [10, 20]", "(d0) -> (d0), domain: d0 in [5, 15]"},
		{"(d0) -> (d0), domain: d0 in [0, 99], d0 mod 8 + 5 in [6, 7]", "(d0) -> (d0), domain: d0 in [0, 99], d0 mod 8 in [1, 2]"},
		// e * k in r: e in r / k, rounded inwards, for either sign of k.
		{"(d0) -> (d0), domain: d0 in [0, 99], d0 * 3 in [4, 10]", "(d0) -> (d0), domain: d0 in [2, 3]"},
		{"(d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [-50, 50], s0 * -4 in [-9, 9]", "(d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [-2, 2]"},
		// e floordiv k in [lo, hi]: e in [lo*k, (hi+1)*k - 1] for k > 0 ...
		{"(d0) -> (d0), domain: d0 in [0, 99], d0 / 10 in [2, 4]", "(d0) -> (d0), domain: d0 in [20, 49]"},
		{"(d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [-50, 50], s0 / 4 in [-3, -1]", "(d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [-12, -1]"},
		// ... and e in [(hi+1)*k + 1, lo*k] for k < 0.
		{"(d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [-50, 50], s0 / -4 in [-3, -1]", "(d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [1, 12]"},
		// a*g + b in [0, u] with 0 <= b < g, b not changing the quotient.
		{"(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 99], s0 in [0, 3], d0 * 4 + s0 in [0, 39]", "(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 9], s0 in [0, 3]"},
		{"(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 99], s0 in [0, 3], d0 * 4 + s0 in [0, 38]", "(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 99], s0 in [0, 3], d0 * 4 + s0 in [0, 38]"},
		// A constraint that always holds is dropped.
		{"(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [0, 18]", "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9]"},
		// One that cannot hold empties the map.
		{"(d0) -> (d0), domain: d0 in [0, 19], d0 / 20 in [2, 2]", "KNOWN EMPTY"},
		// Mod constraints on one variable merge, and round its bounds.
		{"(d0) -> (d0), domain: d0 in [1, 40], d0 mod 2 in [0, 0], d0 mod 3 in [0, 0]", "(d0) -> (d0), domain: d0 in [6, 36], d0 mod 6 in [0, 0]"},
		{"(d0)[s0] -> (d0), domain: d0 in [0, 9], s0 in [-9, -2], s0 mod 4 in [3, 3]", "(d0)[s0] -> (d0), domain: d0 in [0, 9], s0 in [-9, -5], s0 mod 4 in [3, 3]"},
	}
	for _, c := range cases {
		m := MustParse(c.in)
		if got := Simplify(m).String(); got != c.want {
			t.Errorf("Simplify(%s):\n  got  %s\n  want %s", c.in, got, c.want)
		}
		checkSameFunction(t, m, Simplify(m))
	}
}

// RangeOf over the variables' bounds and the constraints on
// subexpressions.
func TestRangeOf(t *testing.T) {
	m := MustParse("(d0, d1, d2) -> (0), domain: d0 in [0, 9], d1 in [-10, -1], d2 in [-1, 2], d0 mod 4 in [1, 2]")
	cases := []struct {
		e    string
		want Interval
	}{
		{"d0 * 2 + d1", Interval{-10, 17}},
		{"d1 * d2", Interval{-20, 10}},
		{"d0 / 4", Interval{0, 2}},
		{"d1 / 4", Interval{-3, -1}},
		{"d0 mod 4", Interval{1, 2}},
		{"d0 mod 16", Interval{0, 9}},
		{"d1 mod 3", Interval{0, 2}},
		{"min(d0, d1)", Interval{-10, -1}},
		{"max(d0, d2)", Interval{0, 9}},
		{"d0 ceildiv 4", Interval{0, 3}},
	}
	for _, c := range cases {
		e, err := ParseExpr(c.e)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.RangeOf(e); got != c.want {
			t.Errorf("RangeOf(%s) = %v, want %v", c.e, got, c.want)
		}
	}
}

package affine

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func mustExpr(t *testing.T, text string) Expr {
	t.Helper()
	e, err := ParseExpr(text)
	if err != nil {
		t.Fatalf("ParseExpr(%q): %v", text, err)
	}
	return e
}

// Building folds constants and neutral elements, and nothing else.
func TestBuildKeepsTheShape(t *testing.T) {
	d0, d1 := Dim(0), Dim(1)
	cases := []struct {
		e    Expr
		want string
	}{
		{d0.Add(Const(0)), "d0"},
		{Const(2).Add(Const(3)), "5"},
		{d0.Add(d1).AddConst(2), "d0 + d1 + 2"},
		// A sum prints without its association, as in MLIR and XLA.
		{d0.Add(d1.AddConst(2)), "d0 + d1 + 2"},
		{d0.Mul(1), "d0"},
		{d0.Mul(0), "0"},
		{d0.Mul(2).Mul(3), "d0 * 6"},
		{Const(2).Times(d0), "d0 * 2"},
		{d0.Times(d1), "d0 * d1"},
		{d0.FloorDiv(1), "d0"},
		{d0.Mod(1), "0"},
		{d0.FloorDiv(4).FloorDiv(2), "d0 / 4 / 2"},
		{d0.Sub(d1), "d0 - d1"},
		{d0.Sub(d1.Mul(3)), "d0 - d1 * 3"},
		{d0.Sub(d1.Add(Const(4))), "d0 + -d1 - 4"},
		{d1.Add(d0).Neg(), "-d0 - d1"},
		{d0.FloorDiv(3).Neg().AddConst(9), "-(d0 / 3) + 9"},
		{d0.Min(d1.AddConst(1)), "min(d0, d1 + 1)"},
		{RangeVar(0).Add(RuntimeVar(1)), "s0 + rt1"},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// Printing follows XLA token for token, in either syntax.
func TestPrint(t *testing.T) {
	cases := []struct{ in, xla, mlir string }{
		{"d0 floordiv 4", "d0 / 4", "d0 floordiv 4"},
		{"(d0 floordiv 4) mod 2", "(d0 / 4) mod 2", "(d0 floordiv 4) mod 2"},
		{"(d0 * 64) floordiv 715 * 715", "((d0 * 64) / 715) * 715", "((d0 * 64) floordiv 715) * 715"},
		{"(d0 + d1) floordiv 3", "(d0 + d1) / 3", "(d0 + d1) floordiv 3"},
		{"d0 ceildiv 3", "d0 ceildiv 3", "d0 ceildiv 3"},
		{"-(d0 floordiv 2)", "-(d0 / 2)", "-(d0 floordiv 2)"},
		{"(-d0) mod 2", "(-d0) mod 2", "(-d0) mod 2"},
		{"d0 + d1 * -3", "d0 - d1 * 3", "d0 - d1 * 3"},
		{"d0 - 7", "d0 - 7", "d0 - 7"},
		{"s0 * rt0", "s0 * rt0", "s0 * rt0"},
		{"max(d0, 2 * d1)", "max(d0, d1 * 2)", "max(d0, d1 * 2)"},
	}
	for _, c := range cases {
		e := mustExpr(t, c.in)
		if got := e.String(); got != c.xla {
			t.Errorf("%q prints %q, want %q", c.in, got, c.xla)
		}
		if got := e.Format(PrintOptions{Syntax: SyntaxMLIR}); got != c.mlir {
			t.Errorf("%q prints %q in MLIR syntax, want %q", c.in, got, c.mlir)
		}
		if back := mustExpr(t, e.String()); !back.Equal(e) {
			t.Errorf("%q does not parse back to itself: %s", e, back)
		}
	}
}

// Compare is XLA's order of expressions.
func TestCompareIsXLAsOrder(t *testing.T) {
	sorted := []string{"d0 + d1", "d0 * 2", "d1 * 2", "s0 * 2", "d0 mod 3", "d0 / 3", "d0 ceildiv 3", "max(d0, 1)", "min(d0, 1)", "d0", "d1", "s0", "s1", "rt0", "-5", "3"}
	var es []Expr
	for _, s := range sorted {
		es = append(es, mustExpr(t, s))
	}
	shuffled := slices.Clone(es)
	slices.Reverse(shuffled)
	sortExprs(shuffled)
	for i := range es {
		if !shuffled[i].Equal(es[i]) {
			t.Fatalf("sorted order %v, want %v", shuffled, es)
		}
	}
	for i, a := range es {
		for j, b := range es {
			if c := a.Compare(b); (c < 0) != (i < j) || (c == 0) != (i == j) {
				t.Errorf("Compare(%s, %s) = %d", a, b, c)
			}
		}
	}
}

func TestCanonicalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"d1 + d0 + d1 * 2 + 3 - 1", "d1 * 3 + d0 + 2"},
		{"(d0 + d1) * 3", "d0 * 3 + d1 * 3"},
		{"d0 * 2 * 3", "d0 * 6"},
		{"min(d0 + 3, d0)", "d0"},
		{"max(d0 + 3, d0)", "d0 + 3"},
		{"(d0 * 6) floordiv 4", "(d0 * 3) / 2"},
		{"(d0 * 6) mod 4", "((d0 * 3) / 2) * -4 + d0 * 6"},
		{"(d0 * 8 + d1) floordiv 4", "d0 * 2 + d1 / 4"},
		{"d0 ceildiv 4", "(d0 + 3) / 4"},
		{"d0 floordiv -1", "-d0"},
		{"d0 mod 4", "(d0 / 4) * -4 + d0"},
		{"d0 mod -4", "d0 mod -4"},
		{"3 mod 2 + 7 floordiv 2", "4"},
	}
	for _, c := range cases {
		if got := mustExpr(t, c.in).Canonicalize().String(); got != c.want {
			t.Errorf("Canonicalize(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// Evaluation uses XLA's semantics, with errors instead of crashes.
func TestEval(t *testing.T) {
	p := Point{Dims: []int64{7, -7}, Range: []int64{3}, Runtime: []int64{2}}
	cases := []struct {
		e    string
		want int64
	}{
		{"d0 floordiv 2", 3}, {"d1 floordiv 2", -4}, {"d1 ceildiv 2", -3}, {"d0 ceildiv 2", 4},
		{"d1 mod 3", 2}, {"d0 mod -3", 1}, {"d0 floordiv -2", -4}, {"min(d0, d1)", -7},
		{"max(s0, rt0)", 3}, {"d0 * s0 + rt0", 23},
	}
	for _, c := range cases {
		got, err := mustExpr(t, c.e).Eval(p)
		if err != nil || got != c.want {
			t.Errorf("%s at %v = %d, %v; want %d", c.e, p, got, err, c.want)
		}
	}
	for _, e := range []Expr{Dim(0).ModBy(Dim(1).AddConst(7)), Dim(0).FloorDivBy(Const(0)), Dim(3)} {
		if _, err := e.Eval(p); err == nil {
			t.Errorf("%s at %v: no error", e, p)
		}
	}
	big := Const(math.MaxInt64).Add(Dim(0))
	if _, err := big.Eval(p); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("%s: overflow not reported: %v", big, err)
	}
}

func TestTermsAndOffset(t *testing.T) {
	e := mustExpr(t, "d0 * 3 + s0 + (d1 mod 2) * 4 - 6")
	var got []string
	for c, x := range e.Terms() {
		got = append(got, x.String()+"×"+Const(c).String())
	}
	if want := []string{"d0×3", "s0×1", "d1 mod 2×4"}; !slices.Equal(got, want) {
		t.Errorf("Terms = %v, want %v", got, want)
	}
	if e.Offset() != -6 {
		t.Errorf("Offset = %d", e.Offset())
	}
	if x, k := mustExpr(t, "d0 floordiv 8").Operands(); x.String() != "d0" || k != 8 {
		t.Errorf("Operands = %s, %d", x, k)
	}
}

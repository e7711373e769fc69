package affine

import (
	"math"
	"testing"
)

func mustExpr(t *testing.T, s string) Expr {
	t.Helper()
	e, err := ParseExpr(s)
	if err != nil {
		t.Fatalf("ParseExpr(%q): %v", s, err)
	}
	return e
}

// Expressions print as XLA prints them, in canonical form.
func TestExprCanonicalText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"d0", "d0"},
		{"d0 + 0", "d0"},
		{"0 + d0", "d0"},
		{"d0 * 1", "d0"},
		{"1 * d0", "d0"},
		{"d0 floordiv 1", "d0"},
		{"d0 ceildiv 1", "d0"},
		{"d0 mod 1", "0"},
		{"d0 * 0", "0"},
		{"3 + 4 * 5", "23"},
		{"-7 floordiv 2", "-4"},
		{"-7 ceildiv 2", "-3"},
		{"-7 mod 2", "1"},
		{"7 mod -2", "-1"},
		{"d1 + d0", "d0 + d1"},
		{"s0 + rt0 + d1 + 5 + d0", "d0 + d1 + s0 + rt0 + 5"},
		{"(d0 + 2) + (d1 + 3)", "d0 + d1 + 5"},
		{"d0 + d0", "d0 * 2"},
		{"d0 - d0", "0"},
		{"2 * (d0 + 3 * d1)", "d0 * 2 + d1 * 6"},
		{"-d0", "-d0"},
		{"-(d0 + d1)", "-d0 - d1"},
		{"16 - d1", "-d1 + 16"},
		{"d0 - 5", "d0 - 5"},
		{"d0 - rt0", "d0 - rt0"},
		{"d0 - 3 * d1", "d0 - d1 * 3"},
		{"-3 * d0 + 1", "d0 * -3 + 1"},
		{"d1 * 7 + 3", "d1 * 7 + 3"},
		{"(d1 - 3) floordiv 7", "(d1 - 3) floordiv 7"},
		{"d0 floordiv 8", "d0 floordiv 8"},
		{"(d0 * 2) floordiv 3", "(d0 * 2) floordiv 3"},
		{"(-d0) floordiv 3", "(-d0) floordiv 3"},
		{"d0 floordiv -3", "(-d0) floordiv 3"},
		{"d0 mod -3", "-((-d0) mod 3)"},
		{"-(d0 floordiv 2)", "-(d0 floordiv 2)"},
		{"(d1 mod 2) * 4 + d2", "d2 + (d1 mod 2) * 4"},
		{"(d0 mod 2) * 2 + d1 floordiv 4", "d1 floordiv 4 + (d0 mod 2) * 2"},
		{"d1 floordiv 2 + d0 * 2", "d0 * 2 + d1 floordiv 2"},
		{"d0 mod 3 + d0 ceildiv 3 + d0 floordiv 3", "d0 floordiv 3 + d0 ceildiv 3 + d0 mod 3"},
		{"d1 floordiv 2 + d0 floordiv 2", "d0 floordiv 2 + d1 floordiv 2"},
		{"d0 - (d1 floordiv 2) * 3", "d0 - (d1 floordiv 2) * 3"},
		{"((d0 floordiv 2) floordiv 3) mod 4", "((d0 floordiv 2) floordiv 3) mod 4"},
		{"(d0 * 4 + 8) floordiv 4", "d0 + 2"},
		{"(d0 * 4 + 8) mod 4", "0"},
		{"(d0 * 6 + 3) floordiv 4", "(d0 * 6 + 3) floordiv 4"},
		{"d0 + d1 mod 2", "d0 + d1 mod 2"},
		{"- - d0", "d0"},
		{"d0 * 2 * 3", "d0 * 6"},
		{"rt12 + s64 + d100", "d100 + s64 + rt12"},
	}
	for _, c := range cases {
		e := mustExpr(t, c.in)
		if got := e.String(); got != c.want {
			t.Errorf("%s printed as %q, want %q", c.in, got, c.want)
		}
		if p := mustExpr(t, e.String()); !p.Equal(e) {
			t.Errorf("%s does not parse back: %s", e, p)
		}
	}
}

// Equal, Compare, Hash and Key agree, whatever way an expression is built.
func TestExprEquality(t *testing.T) {
	built := Dim(1).Mul(4).Add(Dim(0)).FloorDiv(8).Add(RangeVar(0).Mod(3).Mul(2))
	parsed := mustExpr(t, "(4 * d1 + d0) floordiv 8 + 2 * (s0 mod 3)")
	if !built.Equal(parsed) || built.Compare(parsed) != 0 || built.Hash() != parsed.Hash() || built.Key() != parsed.Key() {
		t.Errorf("%s and %s differ", built, parsed)
	}
	others := []string{"d0", "d1", "s0", "rt0", "d0 + 1", "d0 * 2", "d0 floordiv 2", "d0 ceildiv 2", "d0 mod 2", "d0 floordiv 3", "(d0 + 1) floordiv 2", "5", "-5", "d0 + d1", "d0 - d1"}
	for i, a := range others {
		for j, b := range others {
			ea, eb := mustExpr(t, a), mustExpr(t, b)
			eq := ea.Equal(eb)
			if eq != (i == j) || (ea.Compare(eb) == 0) != eq || (ea.Key() == eb.Key()) != eq {
				t.Errorf("%s vs %s: Equal %v, Compare %d, keys %q %q", a, b, eq, ea.Compare(eb), ea.Key(), eb.Key())
			}
			if eq && ea.Hash() != eb.Hash() {
				t.Errorf("equal %s and %s hash differently", a, b)
			}
			if c1, c2 := ea.Compare(eb), eb.Compare(ea); c1 != -c2 {
				t.Errorf("Compare is not antisymmetric on %s, %s", a, b)
			}
		}
	}
	var zero Expr
	if !zero.Equal(Const(0)) || zero.String() != "0" {
		t.Errorf("the zero Expr is %q", zero)
	}
}

// Evaluation uses floor semantics: floordiv rounds towards -∞, mod has the
// sign of the divisor.
func TestExprEvalFloorSemantics(t *testing.T) {
	for x := int64(-20); x <= 20; x++ {
		for _, k := range []int64{-7, -3, -1, 1, 2, 3, 5} {
			p := Point{Dims: []int64{x}}
			fd, _ := Dim(0).FloorDiv(k).Eval(p)
			cd, _ := Dim(0).CeilDiv(k).Eval(p)
			md, _ := Dim(0).Mod(k).Eval(p)
			wantF := int64(math.Floor(float64(x) / float64(k)))
			wantC := int64(math.Ceil(float64(x) / float64(k)))
			if fd != wantF || cd != wantC || md != x-k*wantF {
				t.Fatalf("x=%d k=%d: floordiv %d ceildiv %d mod %d, want %d %d %d", x, k, fd, cd, md, wantF, wantC, x-k*wantF)
			}
			if md != 0 && (md < 0) != (k < 0) {
				t.Fatalf("%d mod %d = %d does not have the divisor's sign", x, k, md)
			}
		}
	}
	e := mustExpr(t, "d0 * 3 + s1 - rt0 floordiv 2")
	v, err := e.Eval(Point{Dims: []int64{2}, Range: []int64{0, 5}, Runtime: []int64{-3}})
	if err != nil || v != 6+5+2 {
		t.Errorf("Eval = %d, %v; want 13", v, err)
	}
	if _, err := e.Eval(Point{Dims: []int64{2}}); err == nil {
		t.Errorf("Eval without s1 and rt0 gave no error")
	}
	if _, err := Dim(0).Mul(1 << 40).Eval(Point{Dims: []int64{1 << 40}}); err == nil {
		t.Errorf("Eval that overflows gave no error")
	}
}

func TestExprAccessors(t *testing.T) {
	cases := []struct {
		e     string
		kind  ExprKind
		index int
	}{
		{"7", KindConstant, -1},
		{"d2", KindDim, 2},
		{"s1", KindRangeVar, 1},
		{"rt3", KindRuntimeVar, 3},
		{"d0 + 1", KindAdd, -1},
		{"d0 + d1", KindAdd, -1},
		{"d0 * 4", KindMul, -1},
		{"-d0", KindMul, -1},
		{"d0 floordiv 4", KindFloorDiv, -1},
		{"d0 ceildiv 4", KindCeilDiv, -1},
		{"d0 mod 4", KindMod, -1},
		{"(d0 mod 4) * 3", KindMul, -1},
	}
	for _, c := range cases {
		e := mustExpr(t, c.e)
		if e.Kind() != c.kind || e.Index() != c.index {
			t.Errorf("%s: kind %v index %d, want %v %d", c.e, e.Kind(), e.Index(), c.kind, c.index)
		}
	}
	e := mustExpr(t, "d0 * 8 + d1 + (s0 mod 2) * 4 - 3")
	if e.Offset() != -3 || e.NumTerms() != 3 || e.Coefficient(Dim(0)) != 8 || e.Coefficient(Dim(1)) != 1 || e.Coefficient(RangeVar(0)) != 0 {
		t.Errorf("linear form of %s: offset %d, %d terms, coefficients %d %d %d", e, e.Offset(), e.NumTerms(), e.Coefficient(Dim(0)), e.Coefficient(Dim(1)), e.Coefficient(RangeVar(0)))
	}
	var terms []string
	for coef, x := range e.Terms() {
		terms = append(terms, Const(coef).String()+"·"+x.String())
	}
	if got := terms; len(got) != 3 || got[0] != "8·d0" || got[1] != "1·d1" || got[2] != "4·s0 mod 2" {
		t.Errorf("Terms of %s: %q", e, got)
	}
	if x, k := mustExpr(t, "(d0 + 1) mod 6").Operands(); x.String() != "d0 + 1" || k != 6 {
		t.Errorf("Operands of a mod: %s, %d", x, k)
	}
	if x, k := mustExpr(t, "(d0 floordiv 2) * -5").Operands(); x.String() != "d0 floordiv 2" || k != -5 {
		t.Errorf("Operands of a product: %s, %d", x, k)
	}
	if !e.UsesVar(RangeVar(0)) || e.UsesVar(RuntimeVar(0)) {
		t.Errorf("UsesVar on %s", e)
	}
	r := e.Replace([]Expr{RangeVar(1), Const(2)}, nil, nil)
	if got := r.String(); got != "s1 * 8 + (s0 mod 2) * 4 - 1" {
		t.Errorf("Replace: %s", got)
	}
}

// The arithmetic that could overflow int64 panics (the methods) or reports
// an error (the parser); it never wraps.
func TestExprOverflowPanics(t *testing.T) {
	big := Dim(0).Mul(math.MaxInt64 / 2)
	for name, f := range map[string]func(){
		"Mul":       func() { big.Mul(3) },
		"Add":       func() { big.Add(big).Add(big) },
		"AddConst":  func() { Const(math.MaxInt64).AddConst(1) },
		"FloorDiv0": func() { Dim(0).FloorDiv(0) },
		"Mod0":      func() { Dim(0).Mod(0) },
		"MinInt64":  func() { Const(math.MinInt64) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
	if got := Const(math.MaxInt64).Neg(); got.String() != "-9223372036854775807" {
		t.Errorf("-MaxInt64 = %s", got)
	}
}

// Building variables and small expressions allocates little.
func TestExprAllocations(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = Dim(3); _ = RangeVar(1); _ = RuntimeVar(0) }); n != 0 {
		t.Errorf("variables allocate %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Dim(0).AddConst(5) }); n != 0 {
		t.Errorf("d0 + 5 allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Dim(0).Mul(8).Add(Dim(1)) }); n > 2 {
		t.Errorf("d0 * 8 + d1 allocates %v times", n)
	}
}

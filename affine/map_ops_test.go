package affine

import (
	"slices"
	"testing"
)

func TestComposeIndexingMaps(t *testing.T) {
	cases := []struct{ first, second, want string }{
		// The second map's symbols first, then the first's; the first's
		// results must lie in the second's dimensions.
		{"(d0)[s0] -> (d0, s0), domain: d0 in [0, 9], s0 in [0, 7]",
			"(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 5], d1 in [0, 5], s0 in [0, 6], s1 in [0, 1]",
			"(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 5], s0 in [0, 6], s1 in [0, 1], s2 in [0, 5]"},
		// Constraints of both maps carry over; constraints that are not on
		// a variable are kept as they are.
		{"(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3], s0 mod 2 in [0, 0]",
			"(d0) -> (d0 * 2), domain: d0 in [0, 10], d0 mod 3 in [1, 1]",
			"(d0)[s0] -> ((d0 + s0) * 2), domain: d0 in [0, 9], s0 in [0, 3], (d0 + s0) mod 3 in [1, 1], d0 + s0 in [0, 10], s0 mod 2 in [0, 0]"},
		// Runtime variables: the second's, then the first's, names kept.
		{"(d0){a} -> (d0 + a * 2), domain: d0 in [0, 9], a in [0, 3]",
			"(d0){b} -> (d0 + b), domain: d0 in [0, 20], b in [0, 1]",
			"(d0){b, a} -> (d0 + a * 2 + b), domain: d0 in [0, 9], b in [0, 1], a in [0, 3], d0 + a * 2 in [0, 20]"},
		{"(d0) -> (d0), domain: d0 in [0, 9]", "(d0) -> (d0), domain: d0 in [0, -1]", "KNOWN EMPTY"},
	}
	for _, c := range cases {
		got, err := ComposeIndexingMaps(MustParse(c.first), MustParse(c.second))
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != c.want {
			t.Errorf("ComposeIndexingMaps(\n  %s,\n  %s)\n= %s\nwant %s", c.first, c.second, got, c.want)
		}
	}
	if _, err := ComposeIndexingMaps(MustParse("(d0) -> (d0, d0), domain: d0 in [0, 9]"), MustParse("(d0) -> (d0), domain: d0 in [0, 9]")); err == nil {
		t.Error("composing maps that do not match: no error")
	}
	if u, _ := ComposeIndexingMaps(Undefined(), Identity(4)); !u.IsUndefined() {
		t.Errorf("composing with the undefined map gave %s", u)
	}
	// Compose also simplifies and removes the unused symbols.
	c, err := MustParse("(d0) -> (d0 floordiv 4, d0 mod 4), domain: d0 in [0, 31]").Compose(
		MustParse("(d0, d1)[s0] -> (d0 * 4 + d1), domain: d0 in [0, 7], d1 in [0, 3], s0 in [0, 9]"))
	if err != nil || c.String() != "(d0) -> (d0), domain: d0 in [0, 31]" {
		t.Errorf("Compose = %s, %v", c, err)
	}
}

func TestRemoveUnused(t *testing.T) {
	cases := []struct {
		in, want string
		vars     bool
		removed  VarSet
	}{
		// A constraint on unused symbols only goes with them.
		{"(d0, d1)[s0, s1] -> (d0, d1, s1), domain: d0 in [0, 49], d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], s0 mod 3 in [0, 0]",
			"(d0, d1)[s0] -> (d0, d1, s0), domain: d0 in [0, 49], d1 in [0, 59], s0 in [0, 19]", false,
			VarSet{Dims: []bool{false, false}, Range: []bool{true, false}, Runtime: []bool{}}},
		// One that involves a used symbol keeps its symbols.
		{"(d0)[s0, s1] -> (d0 + s1), domain: d0 in [0, 9], s0 in [0, 4], s1 in [0, 4], s0 + s1 in [1, 6]",
			"(d0)[s0, s1] -> (d0 + s1), domain: d0 in [0, 9], s0 in [0, 4], s1 in [0, 4], s0 + s1 in [1, 6]", false, VarSet{}},
		// Unused runtime variables go too.
		{"(d0){rt0, rt1} -> (d0 + rt1), domain: d0 in [0, 9], rt0 in [0, 4], rt1 in [0, 4]",
			"(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 4]", false,
			VarSet{Dims: []bool{false}, Range: []bool{}, Runtime: []bool{true, false}}},
		// RemoveUnusedVars removes dimensions, and a constraint on them
		// alone.
		{"(d0, d1)[s0, s1] -> (s0, d1, s1), domain: d0 in [0, 49], d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], d0 mod 3 in [0, 0]",
			"(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 59], s0 in [0, 69], s1 in [0, 19]", true,
			VarSet{Dims: []bool{true, false}, Range: []bool{false, false}, Runtime: []bool{}}},
		// A dimension in a constraint with a used symbol stays.
		{"(d0, d1)[s0] -> (d1, s0), domain: d0 in [0, 49], d1 in [0, 59], s0 in [0, 69], d0 + s0 in [1, 100]",
			"(d0, d1)[s0] -> (d1, s0), domain: d0 in [0, 49], d1 in [0, 59], s0 in [0, 69], d0 + s0 in [1, 100]", true, VarSet{}},
	}
	for _, c := range cases {
		m := MustParse(c.in)
		var got IndexingMap
		var removed VarSet
		if c.vars {
			got, removed = m.RemoveUnusedVars()
		} else {
			got, removed = m.RemoveUnusedSymbols()
		}
		if got.String() != c.want {
			t.Errorf("remove unused (dims %v) from\n  %s\n= %s\nwant %s", c.vars, c.in, got, c.want)
		}
		if !slices.Equal(removed.Dims, c.removed.Dims) || !slices.Equal(removed.Range, c.removed.Range) || !slices.Equal(removed.Runtime, c.removed.Runtime) {
			t.Errorf("%s: removed %+v, want %+v", c.in, removed, c.removed)
		}
	}
}

func TestRescaleSymbols(t *testing.T) {
	cases := []struct{ in, want string }{
		{"(d0)[s0, s1] -> (s1, d0, s0), domain: d0 in [0, 3], s0 in [0, 41], s1 in [0, 5], s0 mod 6 in [3, 3]",
			"(d0)[s0, s1] -> (s1, d0, s0 * 6 + 3), domain: d0 in [0, 3], s0 in [0, 6], s1 in [0, 5]"},
		{"(d0)[s0] -> (s0 / 6), domain: d0 in [0, 3], s0 in [0, 11], s0 mod 2 in [0, 0], s0 mod 3 in [0, 0]",
			"(d0)[s0] -> ((s0 * 6) / 6), domain: d0 in [0, 3], s0 in [0, 1]"},
		{"(d0)[s0, s1] -> (s0), domain: d0 in [0, 3], s0 in [0, 9], s1 in [0, 5], s0 * s1 in [0, 28], s0 mod 6 in [3, 3]",
			"(d0)[s0, s1] -> (s0 * 6 + 3), domain: d0 in [0, 3], s0 in [0, 1], s1 in [0, 5], (s0 * 6 + 3) * s1 in [0, 28]"},
	}
	for _, c := range cases {
		m := MustParse(c.in)
		got, changed := m.RescaleSymbols()
		if !changed || got.String() != c.want {
			t.Errorf("RescaleSymbols(%s)\n= %s (%v)\nwant %s", c.in, got, changed, c.want)
		}
	}
	if _, changed := MustParse("(d0)[s0] -> (s0), domain: d0 in [0, 3], s0 in [0, 9]").RescaleSymbols(); changed {
		t.Error("a map without mod constraints was rescaled")
	}
}

func TestConvertVariables(t *testing.T) {
	m := MustParse("(d0)[s0, s1]{rt0} -> (d0 * 4 + s0 + s1 * 2 + rt0), domain: d0 in [0, 31], s0 in [0, 0], s1 in [0, 1], rt0 in [0, 3], d0 * 4 + s1 in [0, 100]")
	if got, want := m.ConvertSymbolsToDimensions().String(),
		"(d0, d1, d2, d3) -> (d0 * 4 + d1 + d2 * 2 + d3), domain: d0 in [0, 31], d1 in [0, 0], d2 in [0, 1], d3 in [0, 3], d0 * 4 + d2 in [0, 100]"; got != want {
		t.Errorf("ConvertSymbolsToDimensions:\n  got  %s\n  want %s", got, want)
	}
	n := MustParse("(d0)[a, b, c]{rt0} -> (a + b + c + rt0 + d0), domain: d0 in [0, 3], a in [0, 1], b in [0, 2], c in [0, 3], rt0 in [0, 4]")
	got, err := n.ConvertRangeVariablesToDimensions([]int{0, 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := "(d0, a, c)[b]{rt0} -> (a + b + c + rt0 + d0), domain: d0 in [0, 3], a in [0, 1], c in [0, 3], b in [0, 2], rt0 in [0, 4]"; got.String() != want {
		t.Errorf("ConvertRangeVariablesToDimensions:\n  got  %s\n  want %s", got, want)
	}
	for _, bad := range [][]int{{2, 0}, {3}} {
		if _, err := n.ConvertRangeVariablesToDimensions(bad); err == nil {
			t.Errorf("indices %v: no error", bad)
		}
	}
}

func TestAddConstraint(t *testing.T) {
	m := MustParse("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9]")
	cases := []struct {
		e    Expr
		r    Interval
		want string
	}{
		{Dim(0), Interval{2, 20}, "(d0, d1) -> (d0), domain: d0 in [2, 9], d1 in [0, 9]"},
		{Dim(0).Add(Dim(1)), Interval{1, 5}, "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [1, 5]"},
		{Const(3), Interval{0, 2}, "KNOWN EMPTY"},
		{Dim(1), Interval{10, 12}, "KNOWN EMPTY"},
		{Dim(1), Interval{4, 3}, "KNOWN EMPTY"},
	}
	for _, c := range cases {
		if got := m.AddConstraint(c.e, c.r).String(); got != c.want {
			t.Errorf("AddConstraint(%s, %s) = %s, want %s", c.e, c.r, got, c.want)
		}
	}
	// Constraints on one expression intersect.
	two := m.AddConstraint(Dim(0).Add(Dim(1)), Interval{1, 5}).AddConstraint(Dim(0).Add(Dim(1)), Interval{3, 8})
	if want := "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [3, 5]"; two.String() != want {
		t.Errorf("got %s, want %s", two, want)
	}
}

package affine

import (
	"slices"
	"strings"
	"testing"
)

func TestComposeVariablesAndConstraints(t *testing.T) {
	// The consumer's symbols come after the producer's, as in XLA's
	// ComposeIndexingMaps; the producer's domain becomes constraints.
	first := MustParse("(d0)[s0]{rt0} -> (d0 + s0, d0 + rt0), domain: d0 in [0, 9], s0 in [0, 3], rt0 in [0, 5]")
	second := MustParse("(d0, d1)[s0]{rt0} -> (d0 * 2 + s0, d1 + rt0), domain: d0 in [0, 7], d1 in [2, 12], s0 in [0, 1], rt0 in [0, 2]")
	raw, err := composeRaw(first, second)
	if err != nil {
		t.Fatal(err)
	}
	want := "(d0)[s0, s1]{rt0, rt1} -> (d0 * 2 + s0 + s1 * 2, d0 + rt0 + rt1), domain: d0 in [0, 9], s0 in [0, 1], s1 in [0, 3], rt0 in [0, 2], rt1 in [0, 5], d0 + rt1 in [2, 12], d0 + s1 in [0, 7]"
	if raw.String() != want {
		t.Errorf("composeRaw\n   = %s\nwant %s", raw, want)
	}
	c, err := first.Compose(second)
	if err != nil {
		t.Fatal(err)
	}
	// Simplified: d0 + s1 in [0, 7] with s1 >= 0 bounds d0 by 7.
	want = "(d0)[s0, s1]{rt0, rt1} -> (d0 * 2 + s0 + s1 * 2, d0 + rt0 + rt1), domain: d0 in [0, 7], s0 in [0, 1], s1 in [0, 3], rt0 in [0, 2], rt1 in [0, 5], d0 + rt1 in [2, 12], d0 + s1 in [0, 7]"
	if c.String() != want {
		t.Errorf("Compose\n   = %s\nwant %s", c, want)
	}

	if _, err := first.Compose(Identity(3)); err == nil || !strings.Contains(err.Error(), "2 results but the second has 1") {
		t.Errorf("mismatched compose: %v", err)
	}
	// The consumer's constraints come along, with the producer's results
	// substituted for its dimensions.
	pad := MustParse("(d0) -> ((d0 - 1) floordiv 2), domain: d0 in [1, 7], (d0 - 1) mod 2 in [0, 0]")
	slice := MustParse("(d0) -> (d0 + 2), domain: d0 in [0, 5]")
	c, err = slice.Compose(pad)
	if err != nil {
		t.Fatal(err)
	}
	if want := "(d0) -> ((d0 + 1) floordiv 2), domain: d0 in [1, 5], (d0 + 1) mod 2 in [0, 0]"; c.String() != want {
		t.Errorf("Compose\n   = %s\nwant %s", c, want)
	}
	// Composing with a known-empty map is known empty; its symbols are unused.
	e, err := slice.Compose(KnownEmpty(1, 2, 0, 3))
	if err != nil || !e.IsKnownEmpty() || e.NumDims() != 1 || e.NumRangeVars() != 0 || e.NumResults() != 3 {
		t.Errorf("compose with known empty: %v %v", e, err)
	}
	// An overflow is an error, not a wrapped coefficient.
	huge := FromTensorSizes([]Expr{Dim(0).Mul(1 << 62)}, []int64{2}, nil)
	if _, err := huge.Compose(huge); err == nil {
		t.Errorf("overflowing composition gave no error")
	}
}

func TestRemoveUnusedSymbols(t *testing.T) {
	cases := []struct{ in, want, removed string }{
		{"(d0)[s0, s1]{rt0} -> (d0 + s1), domain: d0 in [0, 9], s0 in [0, 3], s1 in [0, 3], rt0 in [0, 5]",
			"(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]", "s0 rt0"},
		// A constraint couples an unused symbol to a used one.
		{"(d0)[s0, s1] -> (d0 + s1), domain: d0 in [0, 9], s0 in [0, 3], s1 in [0, 3], s0 + s1 in [2, 3]",
			"(d0)[s0, s1] -> (d0 + s1), domain: d0 in [0, 9], s0 in [0, 3], s1 in [0, 3], s0 + s1 in [2, 3]", ""},
		// A constraint on unused symbols only goes with them when it can hold...
		{"(d0)[s0, s1] -> (d0), domain: d0 in [0, 9], s0 in [0, 3], s1 in [0, 3], s0 + s1 in [2, 3]",
			"(d0) -> (d0), domain: d0 in [0, 9]", "s0 s1"},
		// ... and makes the map empty when it cannot.
		{"(d0)[s0] -> (d0), domain: d0 in [0, 9], s0 in [0, 3], (s0 * 4) mod 8 in [1, 3]",
			"KNOWN EMPTY", "s0"},
		// Dimensions stay.
		{"(d0, d1)[s0] -> (s0), domain: d0 in [0, 9], d1 in [0, 2], s0 in [0, 3]",
			"(d0, d1)[s0] -> (s0), domain: d0 in [0, 9], d1 in [0, 2], s0 in [0, 3]", ""},
	}
	for _, c := range cases {
		m := MustParse(c.in)
		r, removed := m.RemoveUnusedSymbols()
		if r.String() != c.want {
			t.Errorf("RemoveUnusedSymbols(%s)\n   = %s\nwant %s", c.in, r, c.want)
		}
		var names []string
		for i, x := range removed.Range {
			if x {
				names = append(names, RangeVar(i).String())
			}
		}
		for i, x := range removed.Runtime {
			if x {
				names = append(names, RuntimeVar(i).String())
			}
		}
		if got := strings.Join(names, " "); got != c.removed {
			t.Errorf("RemoveUnusedSymbols(%s) removed %q, want %q", c.in, got, c.removed)
		}
		if slices.Contains(removed.Dims, true) {
			t.Errorf("RemoveUnusedSymbols removed a dimension")
		}
	}
	m := MustParse("(d0, d1, d2)[s0] -> (d1 + s0), domain: d0 in [0, 9], d1 in [0, 2], d2 in [0, 4], s0 in [0, 3], d2 mod 2 in [0, 0]")
	r, removed := m.RemoveUnusedVars()
	if want := "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 2], s0 in [0, 3]"; r.String() != want || !slices.Equal(removed.Dims, []bool{true, false, true}) {
		t.Errorf("RemoveUnusedVars = %s, %v", r, removed.Dims)
	}
}

func TestInverseErrors(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{"(d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1), domain: d0 in [0, 19], d1 in [0, 29], rt0 in [0, 15], rt1 in [0, 20]",
			"result 0 (d0 - rt0) depends on a runtime variable"},
		{"(d0) -> ((d0 - 1) floordiv 2), domain: d0 in [1, 7], (d0 - 1) mod 2 in [0, 0]",
			"maps with constraints are not supported"},
		{"(d0, d1) -> (d0 + d1), domain: d0 in [0, 3], d1 in [0, 3]",
			"the results range over 7 elements, the dimensions over 16"},
		{"(d0) -> (d0, d0), domain: d0 in [0, 3]",
			"the results range over 16 elements, the dimensions over 4"},
		{"(d0) -> (d0 mod 2, d0 floordiv 2), domain: d0 in [0, 3]",
			"the linear index of the results is d0 floordiv 2 + (d0 mod 2) * 2, not d0"},
	} {
		_, err := MustParse(c.in).Inverse()
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Inverse(%s): %v, want an error saying %q", c.in, err, c.msg)
		}
	}
	inv, err := KnownEmpty(2, 1, 0, 3).Inverse()
	if err != nil || !inv.IsKnownEmpty() || inv.NumDims() != 3 || inv.NumResults() != 2 {
		t.Errorf("inverse of known empty: %v, %v", inv, err)
	}
}

func TestMapAccessorsAndConstructors(t *testing.T) {
	m, err := NewIndexingMap([]Expr{Dim(0).Add(RangeVar(0)), RuntimeVar(0)},
		[]Interval{{0, 9}}, []Interval{{0, 3}}, []Interval{{1, 5}},
		Constraint{Dim(0).Mod(2), Interval{0, 0}}, Constraint{RangeVar(0), Interval{1, 7}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "(d0)[s0]{rt0} -> (d0 + s0, rt0), domain: d0 in [0, 9], s0 in [1, 3], rt0 in [1, 5], d0 mod 2 in [0, 0]"; m.String() != want {
		t.Errorf("NewIndexingMap = %s", m)
	}
	if m.NumDims() != 1 || m.NumRangeVars() != 1 || m.NumRuntimeVars() != 1 || m.NumResults() != 2 || m.NumConstraints() != 1 ||
		m.DimBound(0) != (Interval{0, 9}) || m.RangeVarBound(0) != (Interval{1, 3}) || m.RuntimeVarBound(0) != (Interval{1, 5}) ||
		!m.Result(1).Equal(RuntimeVar(0)) || m.Constraints()[0].String() != "d0 mod 2 in [0, 0]" || m.IsKnownEmpty() {
		t.Errorf("accessors of %s", m)
	}
	// Returned slices are copies.
	m.Results()[0] = Const(1)
	m.DimBounds()[0] = Interval{5, 5}
	if m.Result(0).String() != "d0 + s0" || m.DimBound(0) != (Interval{0, 9}) {
		t.Errorf("accessors returned the map's own slices")
	}
	if r := m.RangeOf(Dim(0).Mod(2)); r != (Interval{0, 0}) {
		t.Errorf("RangeOf uses constraints: %s", r)
	}
	if r := m.RangeOf(Dim(0).Add(RangeVar(0)).Mul(2)); r != (Interval{2, 24}) {
		t.Errorf("RangeOf = %s", r)
	}
	if _, err := NewIndexingMap([]Expr{Dim(1)}, []Interval{{0, 9}}, nil, nil); err == nil || err.Error() != "result 0 (d1): uses d1, but the map has 1 dimension variables" {
		t.Errorf("NewIndexingMap with an unknown variable: %v", err)
	}
	if e, _ := NewIndexingMap([]Expr{Dim(0)}, []Interval{{0, -1}}, nil, nil); !e.IsKnownEmpty() {
		t.Errorf("empty bounds do not make the map known empty")
	}
	if got := KnownEmpty(2, 1, 0, 1).MultilineString(); got != KnownEmptyText {
		t.Errorf("known empty prints %q", got)
	}
	if got := Identity(2, 3).MultilineString(); got != "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 1],\nd1 in [0, 2]" {
		t.Errorf("MultilineString = %q", got)
	}
	a := m.AddConstraint(Dim(0).Add(RangeVar(0)), Interval{0, 4})
	if m.NumConstraints() != 1 || a.NumConstraints() != 2 {
		t.Errorf("AddConstraint modified its receiver")
	}
	var points [][]int64
	if err := MustParse("(d0)[s0] -> (d0 * 10 + s0), domain: d0 in [0, 2], s0 in [0, 1], d0 + s0 in [1, 2]").ForEachPoint(func(p Point, res []int64) bool {
		points = append(points, []int64{p.Dims[0], p.Range[0], res[0]})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if want := [][]int64{{0, 1, 1}, {1, 0, 10}, {1, 1, 11}, {2, 0, 20}}; !slices.EqualFunc(points, want, slices.Equal) {
		t.Errorf("ForEachPoint visited %v, want %v", points, want)
	}
	if err := MustParse("(d0) -> (d0), domain: d0 in [0, 9223372036854775807]").ForEachPoint(func(Point, []int64) bool { return false }); err == nil {
		t.Errorf("enumerating an unbounded map gave no error")
	}
	if _, err := m.Contains(Point{Dims: []int64{1}}); err == nil {
		t.Errorf("Contains with a short point gave no error")
	}
}

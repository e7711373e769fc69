package affine

import (
	"strings"
	"testing"
)

func TestSymbolicTile(t *testing.T) {
	cases := []struct{ in, want string }{
		// A strided slice: offsets are the starts, strides the steps.
		{"(d0, d1) -> (d0 * 2 + 40, d1 * 4 + 20), domain: d0 in [0, 9], d1 in [0, 20]",
			"offset_map: (d0, d1) -> (40, 20) size_map: (d0, d1) -> (d0, d1) stride_map: (d0, d1) -> (2, 4)"},
		// A reverse reads backwards from the end.
		{"(d0) -> (-d0 + 178), domain: d0 in [0, 178]",
			"offset_map: (d0) -> (178) size_map: (d0) -> (d0) stride_map: (d0) -> (-1)"},
		// A reduced dimension is read whole.
		{"(d0)[s0] -> (s0, d0), domain: d0 in [0, 149], s0 in [0, 124]",
			"offset_map: (d0) -> (0, 0) size_map: (d0) -> (125, d0) stride_map: (d0) -> (1, 1)"},
		// A collapsed dimension: the tile must divide the period or be a
		// multiple of it.
		{"(d0) -> (d0 / 6, d0 mod 6), domain: d0 in [0, 47]",
			"offset_map: (d0) -> (0, 0) size_map: (d0) -> ((d0 + 5) / 6, d0 - ((d0 - 1) / 6) * 6) stride_map: (d0) -> (1, 1) constraints: 6 mod d0 in [0, 0] || d0 mod 6 in [0, 0]"},
		// A sum of symbols nests its strides.
		{"()[s0, s1] -> (s1 * 2 + s0), domain: s0 in [0, 1], s1 in [0, 8]",
			"offset_map: () -> (0) size_map: () -> (18) stride_map: () -> (1)"},
		// Runtime variables stay in the offsets and are listed.
		{"(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 3], rt0 in [0, 12]",
			"offset_map: (d0)[s0] -> (s0) size_map: (d0) -> (d0) stride_map: (d0) -> (1) rt_vars: s0 in [0, 12],"},
		// A point dimension stays a tile size.
		{"(d0) -> (d0), domain: d0 in [0, 0]",
			"offset_map: (d0) -> (0) size_map: (d0) -> (d0) stride_map: (d0) -> (1)"},
	}
	for _, c := range cases {
		tile, ok := SymbolicTileFromIndexingMap(MustParse(c.in))
		if !ok {
			t.Errorf("no tile for %s", c.in)
			continue
		}
		got := strings.Join(strings.Fields(tile.String()), " ")
		if want := "Symbolic tile with " + c.want; got != want {
			t.Errorf("tile of %s:\n  got  %s\n  want %s", c.in, got, want)
		}
	}
	for _, in := range []string{
		// A constraint other than an upper bound on a result.
		"(d0) -> (d0), domain: d0 in [0, 9], d0 mod 2 in [0, 0]",
		// A result that is not strided.
		"(d0) -> (d0 * d0), domain: d0 in [0, 9]",
		"(d0) -> ((d0 + 1) / 3), domain: d0 in [0, 9]",
	} {
		if tile, ok := SymbolicTileFromIndexingMap(MustParse(in)); ok {
			t.Errorf("tile %s derived from %s", tile, in)
		}
	}
	if _, ok := SymbolicTileFromIndexingMap(Undefined()); ok {
		t.Error("tile derived from the undefined map")
	}
}

func TestConstraintExpression(t *testing.T) {
	a := ConstraintOf(Dim(0), Interval{1, 4})
	b := ConstraintOf(Dim(1), Interval{2, 2})
	c := ConstraintOf(Dim(0), Interval{3, 9})
	if got := a.And(b).Or(c).String(); got != "d0 in [1, 4] && d1 in [2, 2] || d0 in [3, 9]" {
		t.Errorf("(a && b) || c = %s", got)
	}
	// Conjunction distributes and intersects ranges of one expression.
	if got := a.Or(b).And(c).String(); got != "d0 in [3, 4] || d0 in [3, 9] && d1 in [2, 2]" {
		t.Errorf("(a || b) && c = %s", got)
	}
	if got := a.And(ConstraintOf(Dim(0), Interval{5, 6})); got.IsSatisfiable() {
		t.Errorf("disjoint ranges: %s", got)
	}
	if !AlwaysSatisfied().And(a).Or(AlwaysSatisfied()).IsAlwaysSatisfied() {
		t.Error("a || true is not always satisfied")
	}
	s := ConstraintOf(Const(3), Interval{0, 5}).Or(ConstraintOf(Const(7), Interval{0, 5})).Simplify()
	if !s.IsAlwaysSatisfied() {
		t.Errorf("3 in [0, 5] || 7 in [0, 5] simplified to %s", s)
	}
	ok, err := a.And(b).IsSatisfiedBy([]int64{2, 2})
	if err != nil || !ok {
		t.Errorf("(2, 2): %v, %v", ok, err)
	}
}

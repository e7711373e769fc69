package affine

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The maps of the specification (XLA's "HLO indexing analysis"), copied
// verbatim with their line breaks. Each is checked token for token against
// what the package prints.

type seedMap struct {
	name string
	text string
	// fixed is the text with the specification's typo corrected, when it has
	// one; the comment at the entry says what was wrong.
	fixed string
}

func (s seedMap) want() string {
	if s.fixed != "" {
		return s.fixed
	}
	return s.text
}

var seedMaps = []seedMap{
	{name: "elementwise", text: `(d0, d1) -> (d0, d1),
domain:
d0 in [0, 9],
d1 in [0, 19]`},
	{name: "broadcast output->input", text: `(d0, d1, d2) -> (d1),
domain:
d0 in [0, 9],
d1 in [0, 19],
d2 in [0, 29]`},
	{name: "broadcast input->output", text: `(d0)[s0, s1] -> (s0, d0, s1),
domain:
d0 in [0, 19],
s0 in [0, 9],
s1 in [0, 29]`},
	{name: "dynamic-slice src", text: `(d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2),
domain:
d0 in [0, 0],
d1 in [0, 1],
d2 in [0, 31],
rt0 in [0, 1],
rt1 in [0, 0],
rt2 in [0, 226]`},
	{name: "dynamic-slice offsets", text: `(d0, d1, d2) -> (),
domain:
d0 in [0, 0],
d1 in [0, 1],
d2 in [0, 31]`},
	{name: "dynamic-update-slice src", text: `(d0, d1) -> (d0, d1),
domain:
d0 in [0, 19],
d1 in [0, 29]`},
	{name: "dynamic-update-slice upd", text: `(d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1),
domain:
d0 in [0, 19],
d1 in [0, 29],
rt0 in [0, 15],
rt1 in [0, 20]`},
	{name: "dynamic-update-slice offsets", text: `(d0, d1) -> (),
domain:
d0 in [0, 19],
d1 in [0, 29]`},
	{name: "gather operand", text: `(d0, d1, d2, d3){rt0, rt1} -> (d1 + rt0, d2 + rt1, d3),
domain:
d0 in [0, 1805],
d1 in [0, 6],
d2 in [0, 7],
d3 in [0, 3],
rt0 in [0, 26],
rt1 in [0, 68]`},
	{name: "gather indices", text: `(d0, d1, d2, d3)[s0] -> (d0, s0),
domain:
d0 in [0, 1805],
d1 in [0, 6],
d2 in [0, 7],
d3 in [0, 3],
s0 in [0, 1]`},
	// The specification ends this map with a stray comma.
	{name: "transpose output->input", text: `(d0, d1, d2, d3) -> (d0, d3, d1, d2),
domain:
d0 in [0, 2],
d1 in [0, 5],
d2 in [0, 127],
d3 in [0, 12287],`, fixed: `(d0, d1, d2, d3) -> (d0, d3, d1, d2),
domain:
d0 in [0, 2],
d1 in [0, 5],
d2 in [0, 127],
d3 in [0, 12287]`},
	{name: "transpose input->output", text: `(d0, d1, d2, d3) -> (d0, d2, d3, d1),
domain:
d0 in [0, 2],
d1 in [0, 12287],
d2 in [0, 5],
d3 in [0, 127]`},
	{name: "reverse", text: `(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3),
domain:
d0 in [0, 0],
d1 in [0, 16],
d2 in [0, 8],
d3 in [0, 8]`},
	{name: "reduce output->input", text: `(d0)[s0] -> (s0, d0),
domain:
d0 in [0, 9],
s0 in [0, 255]`},
	{name: "reduce output->init", text: `(d0) -> (),
domain:
d0 in [0, 9]`},
	{name: "reduce input->output", text: `(d0, d1) -> (d1),
domain:
d0 in [0, 255],
d1 in [0, 9]`},
	{name: "reduce init->output", text: `()[s0] -> (s0),
domain:
s0 in [0, 9]`},
	{name: "slice output->input", text: `(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2),
domain:
d0 in [0, 4],
d1 in [0, 2],
d2 in [0, 24]`},
	{name: "slice input->output", text: `(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2),
domain:
d0 in [5, 9],
d1 in [3, 17],
d2 in [0, 48],
(d1 - 3) mod 7 in [0, 0],
d2 mod 2 in [0, 0]`},
	{name: "collapse shape output->input", text: `(d0) -> (d0 floordiv 8, d0 mod 8),
domain:
d0 in [0, 31]`},
	{name: "collapse shape input->output", text: `(d0, d1) -> (d0 * 8 + d1),
domain:
d0 in [0, 3],
d1 in [0, 7]`},
	{name: "generic reshape 1 output->input", text: `(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, d2 + (d1 mod 2) * 4),
domain:
d0 in [0, 1],
d1 in [0, 3],
d2 in [0, 3]`},
	{name: "generic reshape 1 input->output", text: `(d0, d1) -> (d0 floordiv 2, d1 floordiv 4 + (d0 mod 2) * 2, d1 mod 4),
domain:
d0 in [0, 3],
d1 in [0, 7]`},
	// The specification misses the comma after d1's range.
	{name: "generic reshape 2 output->input", text: `(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2),
domain:
d0 in [0, 31],
d1 in [0, 2]
d2 in [0, 3]`, fixed: `(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2),
domain:
d0 in [0, 31],
d1 in [0, 2],
d2 in [0, 3]`},
	{name: "generic reshape 2 input->output", text: `(d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4),
domain:
d0 in [0, 3],
d1 in [0, 7],
d2 in [0, 11]`},
	{name: "concatenate output->input 1", text: `(d0, d1, d2) -> (d0, d1, d2),
domain:
d0 in [0, 1],
d1 in [0, 4],
d2 in [0, 6]`},
	{name: "concatenate output->input 2", text: `(d0, d1, d2) -> (d0, d1 - 5, d2),
domain:
d0 in [0, 1],
d1 in [5, 15],
d2 in [0, 6]`},
	{name: "concatenate output->input 3", text: `(d0, d1, d2) -> (d0, d1 - 16, d2),
domain:
d0 in [0, 1],
d1 in [16, 32],
d2 in [0, 6]`},
	{name: "concatenate input 2->output", text: `(d0, d1, d2) -> (d0, d1 + 5, d2),
domain:
d0 in [0, 1],
d1 in [0, 10],
d2 in [0, 6]`},
	{name: "concatenate input 3->output", text: `(d0, d1, d2) -> (d0, d1 + 16, d2),
domain:
d0 in [0, 1],
d1 in [0, 16],
d2 in [0, 6]`},
	{name: "dot output->lhs", text: `(d0, d1, d2)[s0] -> (d0, d1, s0),
domain:
d0 in [0, 3],
d1 in [0, 127],
d2 in [0, 63],
s0 in [0, 255]`},
	{name: "dot output->rhs", text: `(d0, d1, d2)[s0] -> (d0, s0, d2),
domain:
d0 in [0, 3],
d1 in [0, 127],
d2 in [0, 63],
s0 in [0, 255]`},
	{name: "dot lhs->output", text: `(d0, d1, d2)[s0] -> (d0, d1, s0),
domain:
d0 in [0, 3],
d1 in [0, 127],
d2 in [0, 255],
s0 in [0, 63]`},
	{name: "dot rhs->output as printed by the specification", text: `(d0, d1, d2)[s0] -> (d0, s0, d1),
domain:
d0 in [0, 3],
d1 in [0, 255],
d2 in [0, 63],
s0 in [0, 127]`},
	{name: "pad output->input", text: `(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4),
domain:
d0 in [1, 7],
d1 in [4, 7],
(d0 - 1) mod 2 in [0, 0]`},
	{name: "pad output->init", text: `(d0, d1) -> (),
domain:
d0 in [0, 11],
d1 in [0, 15]`},
	{name: "reduce-window output->input", text: `(d0, d1)[s0] -> (d0, d1 + s0),
domain:
d0 in [0, 1023],
d1 in [0, 2],
s0 in [0, 511]`},
	{name: "reduce-window output->init", text: `(d0, d1) -> (),
domain:
d0 in [0, 1023],
d1 in [0, 2]`},
	{name: "softmax parameter 0, through the reductions", text: `(d0, d1, d2)[s0] -> (d0, d1, s0),
domain:
d0 in [0, 1],
d1 in [0, 64],
d2 in [0, 124],
s0 in [0, 124]`},
	{name: "softmax parameter 0, elementwise", text: `(d0, d1, d2) -> (d0, d1, d2),
domain:
d0 in [0, 1],
d1 in [0, 64],
d2 in [0, 124]`},
}

func seed(t *testing.T, name string) seedMap {
	t.Helper()
	for _, s := range seedMaps {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("no seed map %q", name)
	return seedMap{}
}

// sameText reports whether got has exactly the tokens of want.
func sameText(got, want string) bool { return slices.Equal(Fields(got), Fields(want)) }

func parseSeed(t *testing.T, text string) IndexingMap {
	t.Helper()
	m, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return m
}

// Every map of the specification parses, prints back with the same tokens,
// and is already simplified: the analysis prints simplified maps.
func TestSeedMapsPrintAsTheSpecification(t *testing.T) {
	for _, s := range seedMaps {
		t.Run(s.name, func(t *testing.T) {
			if s.fixed != "" {
				if _, err := Parse(s.text); err == nil {
					t.Errorf("the specification's text with its typo parsed without error")
				}
			}
			m := parseSeed(t, s.want())
			if got := m.String(); !sameText(got, s.want()) {
				t.Errorf("printed\n  %s\nwant\n  %s", got, fields(s.want()))
			}
			if got := m.MultilineString(); !sameText(got, s.want()) {
				t.Errorf("multi-line printed\n%s\nwant\n%s", got, s.want())
			}
			if got := Simplify(m); !sameText(got.String(), s.want()) {
				t.Errorf("Simplify changed the map to\n  %s", got)
			}
		})
	}
}

// The input-to-output maps of the specification are the inverses of its
// output-to-input maps.
func TestSeedInverses(t *testing.T) {
	pairs := []struct{ from, to string }{
		{"elementwise", "elementwise"},
		{"broadcast output->input", "broadcast input->output"},
		{"transpose output->input", "transpose input->output"},
		{"transpose input->output", "transpose output->input"},
		{"reverse", "reverse"},
		{"reduce output->input", "reduce input->output"},
		{"reduce output->init", "reduce init->output"},
		{"slice output->input", "slice input->output"},
		{"collapse shape output->input", "collapse shape input->output"},
		{"collapse shape input->output", "collapse shape output->input"}, // the expanding reshape
		{"generic reshape 1 output->input", "generic reshape 1 input->output"},
		{"generic reshape 1 input->output", "generic reshape 1 output->input"},
		{"generic reshape 2 output->input", "generic reshape 2 input->output"},
		{"generic reshape 2 input->output", "generic reshape 2 output->input"},
		{"concatenate output->input 1", "concatenate output->input 1"},
		{"concatenate output->input 2", "concatenate input 2->output"},
		{"concatenate output->input 3", "concatenate input 3->output"},
		{"dot output->lhs", "dot lhs->output"},
	}
	for _, p := range pairs {
		t.Run(p.from, func(t *testing.T) {
			from, to := seed(t, p.from), seed(t, p.to)
			inv, err := parseSeed(t, from.want()).Inverse()
			if err != nil {
				t.Fatal(err)
			}
			if !sameText(inv.String(), to.want()) {
				t.Errorf("inverse\n  %s\nwant\n  %s", inv, fields(to.want()))
			}
		})
	}
}

// The specification prints the rhs->output map of its dot as
// (d0, d1, d2)[s0] -> (d0, s0, d1) with d1 in [0, 255]: d1 is the contracting
// dimension there, yet it indexes the output's last dimension, of size 64.
// The inverse of its own output->rhs map reads the output's last dimension
// from the rhs's last one, d2.
func TestSeedDotRhsInverse(t *testing.T) {
	inv, err := parseSeed(t, seed(t, "dot output->rhs").text).Inverse()
	if err != nil {
		t.Fatal(err)
	}
	want := `(d0, d1, d2)[s0] -> (d0, s0, d2), domain: d0 in [0, 3], d1 in [0, 255], d2 in [0, 63], s0 in [0, 127]`
	if !sameText(inv.String(), want) {
		t.Errorf("inverse\n  %s\nwant\n  %s", inv, want)
	}
	printed := parseSeed(t, seed(t, "dot rhs->output as printed by the specification").text)
	if r := printed.RangeOf(printed.Result(2)); r != (Interval{0, 255}) {
		t.Errorf("range of the printed map's last result: %s", r)
	}
}

// seedNotation turns the simplifier section's informal notation (100d0,
// floorDiv) into the text format: 100 * d0, floordiv.
func seedNotation(s string) string {
	s = strings.ReplaceAll(s, "floorDiv", "floordiv")
	return regexp.MustCompile(`\b(\d+)([ds]\d+)`).ReplaceAllString(s, "$1 * $2")
}

func withDomain(s string, dims ...Interval) string {
	var b strings.Builder
	b.WriteString(s)
	b.WriteString(", domain: ")
	for i, d := range dims {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Dim(i).String() + " in " + d.String())
	}
	return b.String()
}

// The rewrites listed in the specification's section on the simplifier.
func TestSeedSimplifierRewrites(t *testing.T) {
	d := func(lo, hi int64) Interval { return Interval{lo, hi} }
	cases := []struct {
		name      string
		in        string // in the specification's notation
		dims      []Interval
		want      string // in the specification's notation
		wantPrint string // as XLA prints it
	}{
		{
			name: "div and mod by more than the range",
			in:   "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16)", dims: []Interval{d(0, 6), d(0, 14)},
			want: "(d0, d1) -> (d0, d1)", wantPrint: "(d0, d1) -> (d0, d1)",
		},
		{
			name: "nested div and mod of a linearised index",
			in:   "(d0, d1, d2) -> ((100d0 + 10d1 + d2) floorDiv 100, ((100d0 + 10d1 + d2) mod 100) floordiv 10, d2 mod 10)",
			dims: []Interval{d(0, 9), d(0, 9), d(0, 9)},
			want: "(d0, d1, d2) -> (d0, d1, d2)", wantPrint: "(d0, d1, d2) -> (d0, d1, d2)",
		},
		{
			name: "sum split by divisibility",
			in:   "(d0, d1, d2) -> ((16d0 + 4d1 + d2) floordiv 8, (16d0 + 4d1 + d2) mod 8)",
			dims: []Interval{d(0, 9), d(0, 9), d(0, 9)},
			want: "(d0, d1, d2) -> (2d0 + (4d1 + d2) floordiv 8,(4d1 + d2) mod 8)",
			// XLA writes the constant factor after the operand.
			wantPrint: "(d0, d1, d2) -> (d0 * 2 + (d1 * 4 + d2) floordiv 8, (d1 * 4 + d2) mod 8)",
		},
		{
			// The specification writes -(-11d0 - d1 + 109) floordiv 11 + 9
			// for the negation of the quotient, as XLA's printer writes
			// -((d0 * -11 - d1 + 109) floordiv 11) + 9. In the text format
			// unary minus binds tighter than floordiv (see the next test).
			name: "negated division of a reversed index",
			in:   "(d0, d1) -> (-((-11d0 - d1 + 109) floordiv 11) + 9)", dims: []Interval{d(0, 9), d(0, 10)},
			want: "(d0, d1) -> (d0)", wantPrint: "(d0, d1) -> (d0)",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := parseSeed(t, withDomain(seedNotation(c.in), c.dims...))
			s := Simplify(m)
			checkSameFunction(t, m, s)
			want := parseSeed(t, withDomain(seedNotation(c.want), c.dims...))
			if !s.Equal(want) {
				t.Errorf("Simplify(%s)\n  = %s\nwant %s", m, s, want)
			}
			if wantText := withDomain(c.wantPrint, c.dims...); !sameText(s.String(), wantText) {
				t.Errorf("printed %s\nwant    %s", s, wantText)
			}
		})
	}
}

// Read with the text format's precedence, where -x floordiv 11 is
// (-x) floordiv 11, the specification's fourth example is another function:
// it is d0 - 1 wherever d1 < 10, and Simplify must not turn it into d0.
func TestSeedNegatedDivisionPrecedence(t *testing.T) {
	m := parseSeed(t, withDomain(seedNotation("(d0, d1) -> (-(-11d0 - d1 + 109) floordiv 11 + 9)"), Interval{0, 9}, Interval{0, 10}))
	if got, want := m.Result(0).String(), "(d0 * 11 + d1 - 109) floordiv 11 + 9"; got != want {
		t.Errorf("parsed as %s, want %s", got, want)
	}
	s := Simplify(m)
	checkSameFunction(t, m, s)
	if got := evalAt(t, s, Point{Dims: []int64{3, 0}}); got[0] != 2 {
		t.Errorf("at (3, 0): %d, want 2", got[0])
	}
}

// reshapeMap is the output-to-input map of a reshape from shape `from` to
// shape `to`: the output index is linearised over `to` and delinearised over
// `from`, before any simplification.
func reshapeMap(from, to []int64) IndexingMap {
	dims := make([]Expr, len(to))
	for i := range dims {
		dims[i] = Dim(i)
	}
	lin, _, err := linearize(dims, to)
	if err != nil {
		panic(err)
	}
	res := make([]Expr, len(from))
	stride := int64(1)
	for j := len(from) - 1; j >= 0; j-- {
		res[j] = lin.FloorDiv(stride)
		if j > 0 {
			res[j] = res[j].Mod(from[j])
		}
		stride *= from[j]
	}
	return FromTensorSizes(res, to, nil)
}

// p0 = f32[10, 10, 10]; reshape1 = f32[50, 20] reshape(p0);
// reshape2 = f32[10, 10, 10] reshape(reshape1): the two reshapes cancel.
func TestSeedChainedReshapesCancel(t *testing.T) {
	reshape1 := reshapeMap([]int64{10, 10, 10}, []int64{50, 20})
	reshape2 := reshapeMap([]int64{50, 20}, []int64{10, 10, 10})
	want := "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]"
	// Composed as they come, then simplified, and composed after each was
	// simplified on its own, as the analysis of a fusion does.
	raw, err := composeRaw(reshape2, reshape1)
	if err != nil {
		t.Fatal(err)
	}
	if s := Simplify(raw); !sameText(s.String(), want) {
		t.Errorf("Simplify of the raw composition %s\n  = %s", raw, s)
	} else {
		checkSameFunction(t, raw, s)
	}
	c, err := Simplify(reshape2).Compose(Simplify(reshape1))
	if err != nil {
		t.Fatal(err)
	}
	if !sameText(c.String(), want) {
		t.Errorf("Compose = %s, want %s", c, want)
	}
}

// The simplified reshape maps are the specification's.
func TestSeedReshapeMaps(t *testing.T) {
	cases := []struct {
		from, to []int64
		name     string
	}{
		{[]int64{4, 8}, []int64{32}, "collapse shape output->input"},
		{[]int64{32}, []int64{4, 8}, "collapse shape input->output"},
		{[]int64{4, 8}, []int64{2, 4, 4}, "generic reshape 1 output->input"},
		{[]int64{2, 4, 4}, []int64{4, 8}, "generic reshape 1 input->output"},
		{[]int64{4, 8, 12}, []int64{32, 3, 4}, "generic reshape 2 output->input"},
		{[]int64{32, 3, 4}, []int64{4, 8, 12}, "generic reshape 2 input->output"},
	}
	for _, c := range cases {
		m := reshapeMap(c.from, c.to)
		s := Simplify(m)
		checkSameFunction(t, m, s)
		if want := seed(t, c.name).want(); !sameText(s.String(), want) {
			t.Errorf("reshape %v -> %v: %s\nwant %s", c.from, c.to, s, fields(want))
		}
	}
}

// Fusions: the maps of a fusion's root back to a parameter are compositions
// of the maps of the ops on the way.
func TestSeedFusionMaps(t *testing.T) {
	transposeMap := func(perm []int64, outSizes []int64) IndexingMap {
		// transpose(x, dimensions=perm): out[i] = x[j] with j[perm[k]] = i[k].
		res := make([]Expr, len(perm))
		for k, p := range perm {
			res[p] = Dim(k)
		}
		return FromTensorSizes(res, outSizes, nil)
	}
	compose := func(maps ...IndexingMap) IndexingMap {
		t.Helper()
		c := maps[0]
		for _, m := range maps[1:] {
			var err error
			if c, err = c.Compose(m); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}

	// p0 + transpose(p0): p0 is read twice, through two different maps.
	direct := Identity(1000, 1000)
	transposed := compose(Identity(1000, 1000), transposeMap([]int64{1, 0}, []int64{1000, 1000}))
	if direct.Equal(transposed) {
		t.Errorf("p0 + transpose(p0): the two maps are equal")
	}
	for _, c := range []struct {
		m    IndexingMap
		want string
	}{{direct, "(d0, d1) -> (d0, d1)"}, {transposed, "(d0, d1) -> (d1, d0)"}} {
		if want := withDomain(c.want, Interval{0, 999}, Interval{0, 999}); !sameText(c.m.String(), want) {
			t.Errorf("got %s, want %s", c.m, want)
		}
	}

	// The transposes around the two exponentials give one map.
	lhs := compose(
		Identity(10, 50, 20), // add
		transposeMap([]int64{0, 2, 1}, []int64{10, 50, 20}), // lhs_transpose_2
		Identity(10, 20, 50), // lhs_e
		transposeMap([]int64{1, 0, 2}, []int64{10, 20, 50}), // lhs_transpose_1
	)
	rhs := compose(
		Identity(10, 50, 20),
		transposeMap([]int64{1, 0, 2}, []int64{10, 50, 20}), // rhs_transpose_2
		Identity(50, 10, 20), // rhs_log
		transposeMap([]int64{2, 1, 0}, []int64{50, 10, 20}), // rhs_transpose_1
	)
	if !lhs.Equal(rhs) {
		t.Errorf("the two paths give different maps:\n  %s\n  %s", lhs, rhs)
	}
	if want := withDomain("(d0, d1, d2) -> (d2, d0, d1)", Interval{0, 9}, Interval{0, 49}, Interval{0, 19}); !sameText(lhs.String(), want) {
		t.Errorf("got %s, want %s", lhs, want)
	}

	// Softmax over f32[2, 65, 125]: the output reads parameter 0 elementwise
	// (exp(p0 - max)) and through broadcasts of reductions over the last
	// dimension (the max, and the sum of the exponentials, which itself reads
	// p0 elementwise and through the max).
	bcast := MustParse("(d0, d1, d2) -> (d0, d1), domain: d0 in [0, 1], d1 in [0, 64], d2 in [0, 124]")
	reduce := MustParse("(d0, d1)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], d1 in [0, 64], s0 in [0, 124]")
	elementwise := Identity(2, 65, 125)
	maps := []IndexingMap{
		compose(elementwise, elementwise),                  // p0 in exp(p0 - max)
		compose(bcast, reduce),                             // p0 in the max
		compose(bcast, reduce, elementwise),                // p0 in the sum of exp(p0 - max)
		compose(bcast, reduce, bcast, reduce),              // the max inside the sum
		compose(bcast, reduce, elementwise, bcast, reduce), // likewise, through the subtraction
	}
	var distinct []IndexingMap
	for _, m := range maps {
		if !slices.ContainsFunc(distinct, m.Equal) {
			distinct = append(distinct, m)
		}
	}
	want := []string{
		seed(t, "softmax parameter 0, elementwise").text,
		seed(t, "softmax parameter 0, through the reductions").text,
	}
	if len(distinct) != len(want) {
		t.Fatalf("%d distinct maps, want %d: %v", len(distinct), len(want), distinct)
	}
	for i, m := range distinct {
		if !sameText(m.String(), want[i]) {
			t.Errorf("map %d: %s\nwant %s", i, m, fields(want[i]))
		}
	}
}

// The maps of the specification's prose.
func TestSeedProseMaps(t *testing.T) {
	// The broadcast of tensor<20xf32> to tensor<10x20x30xf32> is
	// (i, j, k) -> (j) with i in [0, 10], j in [0, 20] and k in [0, 30].
	m := parseSeed(t, "(i, j, k) -> (j), domain: i in [0, 10], j in [0, 20], k in [0, 30]")
	if want := "(d0, d1, d2) -> (d1), domain: d0 in [0, 10], d1 in [0, 20], d2 in [0, 30]"; !sameText(m.String(), want) {
		t.Errorf("got %s, want %s", m, want)
	}
	// The reduction of tensor<2x4x8x16xf32> to tensor<4x8xf32> is
	// (d0, d1) -> (r0, d0, d1, r1) with r0 in [0, 1] and r1 in [0, 15].
	m = parseSeed(t, "(d0, d1)[r0, r1] -> (r0, d0, d1, r1), domain: d0 in [0, 3], d1 in [0, 7], r0 in [0, 1], r1 in [0, 15]")
	if want := "(d0, d1)[s0, s1] -> (s0, d0, d1, s1), domain: d0 in [0, 3], d1 in [0, 7], s0 in [0, 1], s1 in [0, 15]"; !sameText(m.String(), want) {
		t.Errorf("got %s, want %s", m, want)
	}
	// A typical AffineMap: (d0)[s0, s1] -> (s0 + 5, d0 * 2, s1 * 3 + 50).
	m = FromTensorSizes([]Expr{RangeVar(0).AddConst(5), Dim(0).Mul(2), RangeVar(1).Mul(3).AddConst(50)}, []int64{4}, []int64{2, 3})
	if want := "(d0)[s0, s1] -> (s0 + 5, d0 * 2, s1 * 3 + 50), domain: d0 in [0, 3], s0 in [0, 1], s1 in [0, 2]"; !sameText(m.String(), want) {
		t.Errorf("got %s, want %s", m, want)
	}
}

// The specification's constraint rewrites: lo <= e (op) c <= hi becomes
// bounds on e, always-true constraints are dropped, expressions inside
// constraints are simplified.
func TestSeedConstraintRewrites(t *testing.T) {
	cases := []struct{ in, want string }{
		// d0 + s0 in [0, 20] always holds for d0 in [0, 5] and s0 in [1, 3].
		{"(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3], d0 + s0 in [0, 20]",
			"(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3]"},
		// floordiv, +, -, * by a constant.
		{"(d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], (d0 + d1) floordiv 8 in [1, 2]",
			"(d0, d1) -> (d0, d1), domain: d0 in [0, 23], d1 in [0, 23], d0 + d1 in [8, 23]"},
		{"(d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 + d1 + 10 in [15, 30]",
			"(d0, d1) -> (d0, d1), domain: d0 in [0, 20], d1 in [0, 20], d0 + d1 in [5, 20]"},
		{"(d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 - d1 - 3 in [0, 4]",
			"(d0, d1) -> (d0, d1), domain: d0 in [3, 99], d1 in [0, 96], d0 - d1 in [3, 7]"},
		{"(d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], (d0 + d1 * 2) * 3 in [10, 20]",
			"(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 3], d0 + d1 * 2 in [4, 6]"},
		{"(d0) -> (d0), domain: d0 in [0, 99], d0 * 3 in [10, 20]",
			"(d0) -> (d0), domain: d0 in [4, 6]"},
		// The expression of a constraint is simplified with the ranges.
		{"(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 14], (d0 + d1 floordiv 16) mod 4 in [1, 1]",
			"(d0, d1) -> (d0, d1), domain: d0 in [1, 9], d1 in [0, 14], d0 mod 4 in [1, 1]"},
		// A constraint that cannot hold.
		{"(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 14], (d0 * 4 + 2) mod 8 in [1, 1]", "KNOWN EMPTY"},
	}
	for _, c := range cases {
		m := parseSeed(t, c.in)
		s := Simplify(m)
		checkSameFunction(t, m, s)
		if !sameText(s.String(), c.want) {
			t.Errorf("Simplify(%s)\n  = %s\nwant %s", c.in, s, c.want)
		}
	}
}

package affine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// source is where random maps draw their choices from: a PRNG in property
// tests, the fuzzer's bytes in fuzz targets.
type source interface {
	IntN(n int) int
}

// byteSource turns fuzz input into choices; past its end every choice is 0.
type byteSource struct {
	data []byte
	pos  int
}

func (b *byteSource) IntN(n int) int {
	if b.pos >= len(b.data) {
		return 0
	}
	v := int(b.data[b.pos])
	b.pos++
	if b.pos+1 < len(b.data) && n > 256 {
		v = v<<8 | int(b.data[b.pos])
		b.pos++
	}
	return v % n
}

// gen builds random maps with small domains, biased towards the shapes the
// simplifier rewrites: linearised indices, div/mod pairs, strides.
type gen struct {
	r                 source
	nd, nr, nt        int
	dims, ranges, rts []Interval
}

func (g *gen) between(lo, hi int) int64 { return int64(lo + g.r.IntN(hi-lo+1)) }

func (g *gen) bound() Interval {
	lo := int64(0)
	if g.r.IntN(4) == 0 {
		lo = g.between(-3, 3)
	}
	return Interval{lo, lo + g.between(0, 4)}
}

// vars draws the variables and their bounds; the box stays below a few
// hundred points.
func (g *gen) vars() {
	g.nd = g.r.IntN(4)
	g.nr = g.r.IntN(3)
	g.nt = g.r.IntN(2)
	if g.nd+g.nr+g.nt > 4 {
		g.nr, g.nt = 0, min(g.nt, 4-g.nd)
	}
	g.dims, g.ranges, g.rts = nil, nil, nil
	for range g.nd {
		g.dims = append(g.dims, g.bound())
	}
	for range g.nr {
		g.ranges = append(g.ranges, g.bound())
	}
	for range g.nt {
		g.rts = append(g.rts, g.bound())
	}
}

func (g *gen) variable() Expr {
	n := g.nd + g.nr + g.nt
	if n == 0 {
		return Const(g.between(-5, 5))
	}
	i := g.r.IntN(n)
	switch {
	case i < g.nd:
		return Dim(i)
	case i < g.nd+g.nr:
		return RangeVar(i - g.nd)
	}
	return RuntimeVar(i - g.nd - g.nr)
}

func (g *gen) divisor() int64 {
	if g.r.IntN(8) == 0 {
		return -g.between(1, 5)
	}
	return []int64{1, 2, 2, 3, 4, 4, 5, 6, 8, 9, 10, 16}[g.r.IntN(12)]
}

func (g *gen) expr(depth int) Expr {
	if depth <= 0 {
		if g.r.IntN(6) == 0 {
			return Const(g.between(-6, 6))
		}
		return g.variable()
	}
	switch g.r.IntN(15) {
	case 0:
		return Const(g.between(-12, 12))
	case 1, 2:
		return g.variable()
	case 3, 4:
		return g.expr(depth - 1).Add(g.expr(depth - 1))
	case 5:
		return g.expr(depth - 1).Mul(g.between(-4, 6)).Add(g.variable())
	case 6:
		return g.expr(depth - 1).FloorDiv(g.divisor())
	case 7:
		return g.expr(depth - 1).Mod(g.divisor())
	case 8:
		return g.expr(depth - 1).CeilDiv(g.divisor())
	case 9, 10:
		// A linearised index, divided: what reshapes produce.
		lin := Const(g.between(-2, 2))
		stride := int64(1)
		for range 1 + g.r.IntN(3) {
			lin = lin.Add(g.variable().Mul(stride))
			stride *= g.between(1, 5)
		}
		k := []int64{2, 3, 4, 5, 6, 8, 10, 12}[g.r.IntN(8)]
		if g.r.IntN(2) == 0 {
			return lin.FloorDiv(k)
		}
		return lin.Mod(k)
	case 11:
		// The pair (x floordiv k)·k + x mod k that reshape chains produce.
		x := g.expr(depth - 1)
		k := g.between(2, 6)
		c := g.between(1, 3)
		return x.FloorDiv(k).Mul(k * c).Add(x.Mod(k).Mul(c))
	case 13:
		if g.r.IntN(2) == 0 {
			return g.expr(depth - 1).Min(g.expr(depth - 1))
		}
		return g.expr(depth - 1).Max(g.expr(depth - 1))
	case 14:
		// A sum built as XLA builds one, in any association.
		return Binary(KindAdd, g.expr(depth-1), Binary(KindAdd, g.variable(), g.expr(depth-1)))
	default:
		// A negated division, as reversed dimensions produce.
		return g.expr(depth - 1).Neg().AddConst(g.between(0, 12)).FloorDiv(g.divisor()).Neg().AddConst(g.between(-3, 9))
	}
}

// indexingMap draws a whole map: variables, results and constraints.
func (g *gen) indexingMap() IndexingMap {
	g.vars()
	n := 1 + g.r.IntN(3)
	if g.r.IntN(8) == 0 {
		n = 0
	}
	res := make([]Expr, n)
	for i := range res {
		res[i] = g.expr(2 + g.r.IntN(2))
	}
	return g.withResults(res)
}

func (g *gen) withResults(res []Expr) IndexingMap {
	m, err := NewIndexingMap(res, g.dims, g.ranges, g.rts)
	if err != nil {
		panic(err)
	}
	for range g.r.IntN(3) {
		e := g.expr(1 + g.r.IntN(2))
		iv := m.RangeOf(e)
		if iv.IsEmpty() || !iv.IsBounded() {
			continue
		}
		lo := iv.Lo + int64(g.r.IntN(int(min(iv.Hi-iv.Lo+1, 4))))
		hi := lo + g.between(0, 3)
		if g.r.IntN(6) == 0 {
			hi = lo - 1 + g.between(0, 1) // sometimes a constraint that cannot hold
		}
		m = m.AddConstraint(e, Interval{lo, hi})
	}
	return m
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x5deece66d)) }

// forEachBoxPoint visits every point of the box of m's bounds, whether or not
// it satisfies the constraints.
func forEachBoxPoint(m IndexingMap, f func(p Point)) {
	all := slices.Concat(varBounds(m.dims), varBounds(m.rangeVars), varBounds(m.rtVars))
	for _, b := range all {
		if b.IsEmpty() {
			return
		}
	}
	vals := make([]int64, len(all))
	for i, b := range all {
		vals[i] = b.Lo
	}
	nd, nr := len(m.dims), len(m.rangeVars)
	for {
		f(Point{Dims: vals[:nd:nd], Range: vals[nd : nd+nr : nd+nr], Runtime: vals[nd+nr:]})
		i := len(vals) - 1
		for ; i >= 0; i-- {
			if vals[i] < all[i].Hi {
				vals[i]++
				break
			}
			vals[i] = all[i].Lo
		}
		if i < 0 {
			return
		}
	}
}

func boxSize(m IndexingMap) int64 {
	n := int64(1)
	for _, b := range slices.Concat(varBounds(m.dims), varBounds(m.rangeVars), varBounds(m.rtVars)) {
		k := b.NumElements()
		if k == 0 {
			return 0
		}
		if k > 1<<20 || n*k > 1<<20 {
			return 1 << 21
		}
		n *= k
	}
	return n
}

// contained is Contains for a point that may lie outside m's bounds.
func contained(t testing.TB, m IndexingMap, p Point) bool {
	t.Helper()
	if m.IsKnownEmpty() {
		return false
	}
	ok, err := m.Contains(p)
	if err != nil {
		t.Fatalf("Contains(%v) on %s: %v", p, m, err)
	}
	return ok
}

func evalAt(t testing.TB, m IndexingMap, p Point) []int64 {
	t.Helper()
	r, err := m.Eval(p)
	if err != nil {
		t.Fatalf("Eval(%v) on %s: %v", p, m, err)
	}
	return r
}

// checkSameFunction checks the law of simplification: a point of the box of
// m is in the domain of s exactly when it is in the domain of m, and there
// the two maps give the same results. s's bounds may only be tighter. Boxes
// too big to enumerate are sampled; points where m itself overflows int64
// are skipped.
func checkSameFunction(t testing.TB, m, s IndexingMap) {
	t.Helper()
	if s.NumDims() != m.NumDims() || s.NumRangeVars() != m.NumRangeVars() || s.NumRuntimeVars() != m.NumRuntimeVars() || s.NumResults() != m.NumResults() {
		t.Fatalf("simplified map changed arity:\n  %s\n  %s", m, s)
	}
	check := func(p Point) {
		inM, err := m.Contains(p)
		if err != nil || m.IsKnownEmpty() {
			return // m is undefined here
		}
		want, err := m.Eval(p)
		if err != nil && inM {
			return
		}
		inS := contained(t, s, p)
		if inM != inS {
			t.Fatalf("point %v is in the domain of one map only (original %v, simplified %v):\n  original   %s\n  simplified %s", p, inM, inS, m, s)
		}
		if inM {
			if got := evalAt(t, s, p); !slices.Equal(want, got) {
				t.Fatalf("at %v results differ: %v vs %v:\n  original   %s\n  simplified %s", p, want, got, m, s)
			}
		}
	}
	if boxSize(m) <= 1<<16 {
		forEachBoxPoint(m, check)
		return
	}
	r := newRand(uint64(len(m.String())))
	all := slices.Concat(varBounds(m.dims), varBounds(m.rangeVars), varBounds(m.rtVars))
	vals := make([]int64, len(all))
	nd, nr := len(m.dims), len(m.rangeVars)
	for i := range 1 << 14 {
		for j, b := range all {
			switch {
			case i%7 == 0:
				vals[j] = b.Lo
			case i%7 == 1:
				vals[j] = b.Hi
			default:
				vals[j] = b.Lo + int64(r.Uint64N(uint64(b.Hi-b.Lo)+1))
			}
		}
		check(Point{Dims: vals[:nd:nd], Range: vals[nd : nd+nr : nd+nr], Runtime: vals[nd+nr:]})
	}
}

// relation is the set of (dims, results) pairs of a map over its domain,
// with range and runtime variables projected away.
func relation(t testing.TB, m IndexingMap) map[string]bool {
	t.Helper()
	rel := map[string]bool{}
	if err := m.ForEachPoint(func(p Point, res []int64) bool {
		rel[fmt.Sprint(p.Dims, res)] = true
		return true
	}); err != nil {
		t.Fatalf("ForEachPoint on %s: %v", m, err)
	}
	return rel
}

func sameRelation(a, b map[string]bool) (string, bool) {
	for k := range a {
		if !b[k] {
			return "only in the first: " + k, false
		}
	}
	for k := range b {
		if !a[k] {
			return "only in the second: " + k, false
		}
	}
	return "", true
}

// checkRoundTrip checks that the text of m parses back to a map with the
// same variables, bounds and constraints that relates every point as m does.
// (The trees may differ: the parser builds a - b as a + (-b) in canonical
// form, as XLA's does.)
func checkRoundTrip(t testing.TB, m IndexingMap) {
	t.Helper()
	text := m.String()
	p, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	if m.IsKnownEmpty() || m.IsUndefined() {
		if p.String() != text {
			t.Fatalf("%q parsed to %s", text, p)
		}
		return
	}
	if !slices.Equal(p.DimBounds(), m.DimBounds()) || !slices.Equal(p.RangeVarBounds(), m.RangeVarBounds()) ||
		!slices.Equal(p.RuntimeVarBounds(), m.RuntimeVarBounds()) || p.NumConstraints() != m.NumConstraints() {
		t.Fatalf("round trip changed the domain:\n  %s\n  %s", m, p)
	}
	checkSameFunction(t, m, p)
	if ml, err := Parse(m.MultilineString()); err != nil || ml.String() != p.String() {
		t.Fatalf("multi-line round trip of %s: %v, %s", m, err, ml)
	}
}

// fields is Fields joined by spaces, for readable failure messages.
func fields(s string) string { return strings.Join(Fields(s), " ") }

func fmtPair(a, b []int64) string { return fmt.Sprint(a, "->", b) }

package affine

import (
	"slices"
	"testing"
)

// The law every transformation must keep, checked on random maps: the set of
// (point, result) pairs does not change.

const propertyMaps = 4000

func TestPropertySimplifyKeepsEveryPoint(t *testing.T) {
	r := newRand(1)
	g := &gen{r: r}
	empties, changed := 0, 0
	for i := range propertyMaps {
		m := g.indexingMap()
		s := Simplify(m)
		checkSameFunction(t, m, s)
		if s.IsKnownEmpty() {
			empties++
			// Known empty must mean empty.
			if err := m.ForEachPoint(func(p Point, _ []int64) bool {
				t.Fatalf("map %d: Simplify says known empty but %v is in the domain of %s", i, p, m)
				return false
			}); err != nil {
				t.Fatal(err)
			}
		}
		if !s.Equal(m) {
			changed++
		}
		// Simplify reaches a fixed point.
		if s2 := Simplify(s); !s2.Equal(s) {
			t.Fatalf("map %d: Simplify is not idempotent:\n  %s\n  %s\n  %s", i, m, s, s2)
		}
	}
	t.Logf("%d maps: %d simplified to something else, %d known empty", propertyMaps, changed, empties)
	if changed < propertyMaps/4 || empties == 0 {
		t.Fatalf("the generator is too tame: %d of %d maps changed, %d known empty", changed, propertyMaps, empties)
	}
}

func TestPropertyPrintParseRoundTrip(t *testing.T) {
	g := &gen{r: newRand(2)}
	for range propertyMaps {
		m := g.indexingMap()
		checkRoundTrip(t, m)
		checkRoundTrip(t, Simplify(m))
		for _, e := range m.results {
			p, err := ParseExpr(e.String())
			if err != nil || !p.Equal(e) {
				t.Fatalf("ParseExpr(%q) = %s, %v", e, p, err)
			}
		}
	}
}

func TestPropertyRangeOfContainsEveryValue(t *testing.T) {
	g := &gen{r: newRand(3)}
	for range propertyMaps / 2 {
		m := g.indexingMap()
		for _, e := range m.results {
			iv := m.RangeOf(e)
			if err := m.ForEachPoint(func(p Point, _ []int64) bool {
				v, err := e.Eval(p)
				if err != nil {
					t.Fatal(err)
				}
				if !iv.Contains(v) {
					t.Fatalf("RangeOf(%s) = %s over %s, but it is %d at %v", e, iv, m, v, p)
				}
				return true
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// composablePair draws a map and a second one whose dimensions range around
// the results of the first, so that compositions are rarely empty.
func composablePair(g *gen) (IndexingMap, IndexingMap) {
	a := g.indexingMap()
	g.vars()
	dims := make([]Interval, a.NumResults())
	for i, r := range a.results {
		iv := a.RangeOf(r)
		if iv.IsEmpty() || !iv.IsBounded() {
			iv = Interval{0, 3}
		}
		lo := iv.Lo + int64(g.r.IntN(2))
		dims[i] = Interval{lo, max(lo, min(iv.Hi, lo+5)-int64(g.r.IntN(2)))}
	}
	g.nd, g.dims = len(dims), dims
	res := make([]Expr, g.r.IntN(4))
	for i := range res {
		res[i] = g.expr(2)
	}
	return a, g.withResults(res)
}

func TestPropertyComposeAppliesOneMapThenTheOther(t *testing.T) {
	g := &gen{r: newRand(4)}
	nonEmpty := 0
	for i := range propertyMaps / 2 {
		a, b := composablePair(g)
		raw, err := composeRaw(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if boxSize(raw) > 1<<14 {
			continue
		}
		// Pointwise: the raw composition is b after a, point by point, its
		// range variables being b's then a's.
		na, nb := a.NumRangeVars(), b.NumRangeVars()
		ta, tb := a.NumRuntimeVars(), b.NumRuntimeVars()
		forEachBoxPoint(raw, func(p Point) {
			pa := Point{Dims: p.Dims, Range: p.Range[nb : nb+na], Runtime: p.Runtime[tb : tb+ta]}
			want := contained(t, a, pa)
			var mid []int64
			if want {
				mid = evalAt(t, a, pa)
				pb := Point{Dims: mid, Range: p.Range[:nb], Runtime: p.Runtime[:tb]}
				want = contained(t, b, pb)
				if want {
					if got, exp := evalAt(t, raw, p), evalAt(t, b, pb); !slices.Equal(got, exp) {
						t.Fatalf("map %d: at %v the composition gives %v, b(a(p)) = %v\n  a %s\n  b %s\n  c %s", i, p, got, exp, a, b, raw)
					}
				}
			}
			if got := contained(t, raw, p); got != want {
				t.Fatalf("map %d: %v in the composition's domain: %v, want %v\n  a %s\n  b %s\n  c %s", i, p, got, want, a, b, raw)
			}
		})
		// As relations: Compose (simplified, unused symbols removed) relates
		// each point to the same results as the raw composition.
		c, err := a.Compose(b)
		if err != nil {
			t.Fatal(err)
		}
		relRaw := relation(t, raw)
		if len(relRaw) > 0 {
			nonEmpty++
		}
		if diff, ok := sameRelation(relRaw, relation(t, c)); !ok {
			t.Fatalf("map %d: Compose changed the relation (%s)\n  a %s\n  b %s\n  raw %s\n  c %s", i, diff, a, b, raw, c)
		}
		checkRoundTrip(t, c)
	}
	if nonEmpty < propertyMaps/8 {
		t.Fatalf("only %d compositions were not empty", nonEmpty)
	}
}

func TestPropertyRemoveUnusedSymbolsKeepsTheRelation(t *testing.T) {
	g := &gen{r: newRand(5)}
	removed := 0
	for range propertyMaps / 2 {
		m := g.indexingMap()
		for _, dims := range []bool{false, true} {
			var r IndexingMap
			var gone VarSet
			if dims {
				r, gone = m.RemoveUnusedVars()
			} else {
				r, gone = m.RemoveUnusedSymbols()
			}
			if slices.Contains(gone.Range, true) || slices.Contains(gone.Runtime, true) {
				removed++
			}
			if dims {
				// Removed dims change what a point is; compare emptiness only.
				if len(relation(t, m)) == 0 != (len(relation(t, r)) == 0) {
					t.Fatalf("RemoveUnusedVars changed emptiness:\n  %s\n  %s", m, r)
				}
				continue
			}
			if diff, ok := sameRelation(relation(t, m), relation(t, r)); !ok {
				t.Fatalf("RemoveUnusedSymbols changed the relation (%s):\n  %s\n  %s", diff, m, r)
			}
		}
	}
	if removed == 0 {
		t.Fatal("no symbol was ever removed")
	}
}

// randomInvertible draws maps of the kinds Inverse handles: per-variable
// affine results (permutations, reversals, offsets, strides, broadcasts,
// reductions) and reshapes.
func randomInvertible(g *gen) IndexingMap {
	if g.r.IntN(2) == 0 {
		// A reshape from sizes a (the map's dims) to sizes b (its results),
		// as an output-to-input map: delinearise the linear index.
		a := randomShape(g)
		total := int64(1)
		for _, s := range a {
			total *= s
		}
		b := factorShape(g, total)
		dims := make([]Expr, len(a))
		for i := range dims {
			dims[i] = Dim(i)
		}
		lin, _, _ := linearize(dims, a)
		res := make([]Expr, len(b))
		stride := int64(1)
		for j := len(b) - 1; j >= 0; j-- {
			res[j] = lin.FloorDiv(stride).Mod(b[j])
			stride *= b[j]
		}
		return Simplify(FromTensorSizes(res, a, nil))
	}
	g.vars()
	vars := []Expr{}
	for i := range g.nd {
		vars = append(vars, Dim(i))
	}
	for i := range g.nr {
		vars = append(vars, RangeVar(i))
	}
	g.rts, g.nt = nil, 0
	perm := make([]int, len(vars))
	for i := range perm {
		perm[i] = i
	}
	for i := len(perm) - 1; i > 0; i-- {
		j := g.r.IntN(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	var res []Expr
	for _, i := range perm[:g.r.IntN(len(perm)+1)] {
		a := []int64{1, 1, 1, -1, 2, 3, -2}[g.r.IntN(7)]
		res = append(res, vars[i].Mul(a).AddConst(g.between(-3, 3)))
	}
	if g.r.IntN(4) == 0 {
		res = slices.Insert(res, g.r.IntN(len(res)+1), Const(g.between(0, 3)))
	}
	m, err := NewIndexingMap(res, g.dims, g.ranges, nil)
	if err != nil {
		panic(err)
	}
	return m
}

func randomShape(g *gen) []int64 {
	s := make([]int64, 1+g.r.IntN(3))
	for i := range s {
		s[i] = g.between(1, 6)
	}
	return s
}

// factorShape splits n into a random product of sizes.
func factorShape(g *gen, n int64) []int64 {
	var s []int64
	for n > 1 && len(s) < 3 {
		var divs []int64
		for d := int64(2); d <= n; d++ {
			if n%d == 0 {
				divs = append(divs, d)
			}
		}
		d := divs[g.r.IntN(len(divs))]
		s = append(s, d)
		n /= d
	}
	if n > 1 || len(s) == 0 {
		s = append(s, n)
	}
	return s
}

// swapped is the relation of m with each pair reversed.
func swappedRelation(t testing.TB, m IndexingMap) map[string]bool {
	rel := map[string]bool{}
	if err := m.ForEachPoint(func(p Point, res []int64) bool {
		rel[fmtPair(res, p.Dims)] = true
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return rel
}

func TestPropertyInverseSwapsTheRelation(t *testing.T) {
	g := &gen{r: newRand(6)}
	for i := range propertyMaps / 2 {
		m := randomInvertible(g)
		inv, err := m.Inverse()
		if err != nil {
			t.Fatalf("map %d: %v", i, err)
		}
		fwd := swappedRelation(t, m)
		back := map[string]bool{}
		if err := inv.ForEachPoint(func(p Point, res []int64) bool {
			back[fmtPair(p.Dims, res)] = true
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if diff, ok := sameRelation(fwd, back); !ok {
			t.Fatalf("map %d: the inverse relates other points (%s):\n  m   %s\n  inv %s", i, diff, m, inv)
		}
	}
}

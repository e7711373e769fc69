package affine

import (
	"slices"
	"testing"
)

// The law of simplification, checked on thousands of random maps over small
// domains: every point of the box is in the domain of the simplified map
// exactly when it is in the domain of the original, and there both give the
// same results.
func TestPropertySimplifyKeepsEveryPoint(t *testing.T) {
	r := newRand(1)
	g := &gen{r: r}
	n := 4000
	if testing.Short() {
		n = 500
	}
	for range n {
		m := g.indexingMap()
		s, _ := SimplifyMap(m, SimplifyOptions{})
		checkSameFunction(t, m, s)
		p, _ := SimplifyMap(m, SimplifyOptions{PreservePointDimensions: true})
		checkSameFunction(t, m, p)
	}
}

// Canonicalize keeps the value of an expression at every point.
func TestPropertyCanonicalizeKeepsValues(t *testing.T) {
	g := &gen{r: newRand(3)}
	for range 2000 {
		m := g.indexingMap()
		res := m.Results()
		for i, r := range res {
			res[i] = r.Canonicalize()
		}
		c, err := NewIndexingMapVars(res, m.dims, m.rangeVars, m.rtVars, m.Constraints()...)
		if err != nil {
			t.Fatal(err)
		}
		checkSameFunction(t, m, c)
	}
}

func TestPropertyPrintParseRoundTrip(t *testing.T) {
	g := &gen{r: newRand(4)}
	for range 1000 {
		m := g.indexingMap()
		checkRoundTrip(t, m)
		checkRoundTrip(t, Simplify(m))
	}
}

func TestPropertyRangeOfContainsEveryValue(t *testing.T) {
	g := &gen{r: newRand(5)}
	for range 2000 {
		m := g.indexingMap()
		if m.IsKnownEmpty() {
			continue
		}
		for _, e := range m.Results() {
			iv := m.RangeOf(e)
			if err := m.ForEachPoint(func(p Point, _ []int64) bool {
				v, err := e.Eval(p)
				if err != nil {
					return true
				}
				if !iv.Contains(v) {
					t.Fatalf("%s = %d at %v, outside RangeOf %s in %s", e, v, p, iv, m)
				}
				return true
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// composablePair draws two maps where the first's results index the
// second's dimensions.
func composablePair(g *gen) (IndexingMap, IndexingMap) {
	second := g.indexingMap()
	nd := second.NumDims()
	g.vars()
	res := make([]Expr, nd)
	for i := range res {
		res[i] = g.expr(1 + g.r.IntN(2))
	}
	return g.withResults(res), second
}

// ComposeIndexingMaps relates a point of the first map's domain to the
// results of the second map at the first's results, for some values of the
// second's range variables.
func TestPropertyComposeAppliesOneMapThenTheOther(t *testing.T) {
	g := &gen{r: newRand(6)}
	for range 1500 {
		first, second := composablePair(g)
		c, err := ComposeIndexingMaps(first, second)
		if err != nil {
			t.Fatal(err)
		}
		if boxSize(c) > 1<<14 || boxSize(first) > 1<<14 {
			continue
		}
		want := map[string]bool{}
		_ = first.ForEachPoint(func(p Point, mid []int64) bool {
			q := Point{Dims: mid}
			for _, b := range [][]Interval{second.RangeVarBounds(), second.RuntimeVarBounds()} {
				_ = b
			}
			forSymbols(second, func(rng, rt []int64) {
				q.Range, q.Runtime = rng, rt
				if ok, err := second.Contains(q); err != nil || !ok {
					return
				}
				out, err := second.Eval(q)
				if err == nil {
					want[fmtPair(append(slices.Clone(p.Dims), concat(p.Range, p.Runtime)...), out)] = true
				}
			})
			return true
		})
		got := map[string]bool{}
		nrSecond, ntSecond := second.NumRangeVars(), second.NumRuntimeVars()
		_ = c.ForEachPoint(func(p Point, out []int64) bool {
			// The composed map's symbols are the second's, then the first's.
			firstSyms := concat(p.Range[nrSecond:], p.Runtime[ntSecond:])
			got[fmtPair(append(slices.Clone(p.Dims), firstSyms...), out)] = true
			return true
		})
		if msg, ok := sameRelation(want, got); !ok {
			t.Fatalf("compose of\n  %s\n  %s\ngives\n  %s\n%s", first, second, c, msg)
		}
	}
}

func concat(a, b []int64) []int64 { return append(slices.Clone(a), b...) }

// forSymbols calls f for every value of m's range and runtime variables.
func forSymbols(m IndexingMap, f func(rng, rt []int64)) {
	b := append(m.RangeVarBounds(), m.RuntimeVarBounds()...)
	vals := make([]int64, len(b))
	for i, iv := range b {
		if iv.IsEmpty() {
			return
		}
		vals[i] = iv.Lo
	}
	nr := m.NumRangeVars()
	for {
		f(vals[:nr:nr], vals[nr:])
		i := len(vals) - 1
		for ; i >= 0; i-- {
			if vals[i] < b[i].Hi {
				vals[i]++
				break
			}
			vals[i] = b[i].Lo
		}
		if i < 0 {
			return
		}
	}
}

// RemoveUnusedSymbols keeps the relation between dimensions and results.
func TestPropertyRemoveUnusedSymbolsKeepsTheRelation(t *testing.T) {
	g := &gen{r: newRand(7)}
	for range 1500 {
		m := Simplify(g.indexingMap())
		if boxSize(m) > 1<<14 {
			continue
		}
		r, _ := m.RemoveUnusedSymbols()
		// Dropping a constraint on removed symbols only can widen the
		// relation when the constraint cannot hold: XLA drops it anyway.
		if msg, ok := sameRelation(relation(t, m), relation(t, r)); !ok && !droppedUnsatisfiable(m) {
			t.Fatalf("RemoveUnusedSymbols changed\n  %s\ninto\n  %s\n%s", m, r, msg)
		}
	}
}

// droppedUnsatisfiable reports whether m has a constraint on symbols only.
func droppedUnsatisfiable(m IndexingMap) bool {
	for _, c := range m.constraints {
		dims := false
		c.Expr.visitVars(func(k varClass, _ int) { dims = dims || k == classDim })
		if !dims {
			return true
		}
	}
	return false
}

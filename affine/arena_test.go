package affine

import "testing"

// noScratch fails if a node of e belongs to a simplifier's arena, or was
// one that the arena has since cleared (an operation without operands or
// hash, which building never makes).
func noScratch(t *testing.T, what string, e Expr) {
	t.Helper()
	e.Walk(func(x Expr) {
		if x.isScratch() {
			t.Fatalf("%s: %s keeps the arena's node %s", what, e, x)
		}
		if x.IsBinary() && x.n.x == 0 && x.n.lhs.n == nil && x.n.rhs.n == nil {
			t.Fatalf("%s: %s keeps a node the arena cleared", what, e)
		}
	})
}

// What Simplify returns lives on the heap: the next simplification reuses
// the arena, and the maps simplified before keep their expressions.
func TestSimplifyDetachesArena(t *testing.T) {
	g := &gen{r: newRand(11)}
	type kept struct {
		m, s IndexingMap
		text string
	}
	var maps []kept
	for i := range 300 {
		m := g.indexingMap()
		if i == 0 {
			m = fusionMap6DWhole(t)
		}
		s, _ := SimplifyMap(m, SimplifyOptions{PreservePointDimensions: i%2 == 1})
		for _, r := range s.Results() {
			noScratch(t, "result", r)
		}
		for _, c := range s.Constraints() {
			noScratch(t, "constraint", c.Expr)
		}
		maps = append(maps, kept{m, s, s.String()})
	}
	for _, k := range maps {
		if got := k.s.String(); got != k.text {
			t.Fatalf("a simplified map changed after later simplifications:\nwas %s\nnow %s", k.text, got)
		}
		checkSameFunction(t, k.m, k.s)
	}
}

// An arena hands out distinct nodes across chunks and forgets them on reset.
func TestArenaResets(t *testing.T) {
	var a arena
	b := builder{&a}
	seen := map[*node]bool{}
	e := Dim(0)
	for i := range 3 * arenaChunk {
		e = b.binary(opAdd, e, Dim(i%5))
		if seen[e.n] {
			t.Fatalf("node %d handed out twice", i)
		}
		seen[e.n] = true
		if !e.isScratch() {
			t.Fatalf("node %d of the arena is not marked scratch", i)
		}
	}
	if h := binary(opMul, e, Const(3)); !h.isScratch() {
		t.Errorf("a heap node above an arena node is not marked scratch")
	}
	var d detacher
	c := d.detach(e)
	noScratch(t, "detached", c)
	if !c.Equal(e) || c.String() != e.String() {
		t.Errorf("detach changed the expression")
	}
	a.reset()
	if a.cur != 0 || a.next != 0 {
		t.Fatalf("reset left the arena at chunk %d node %d", a.cur, a.next)
	}
	if a.chunks[0][0].lhs.n != nil {
		t.Errorf("reset kept a pointer in a freed node")
	}
}

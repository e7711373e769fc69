package affine

// The expression simplifier: XLA's AffineExprSimplifier, on canonical linear
// forms. Every rule rewrites an expression into one with the same value at
// every point of the box of the variables' bounds; rules that would overflow
// int64 are skipped. The rules for divisions are listed in divRules, in the
// order they are tried, each named after what it proves; recombine works on
// sums:
//
//	range      x floordiv k, x ceildiv k and x mod k whose range is one value
//	           become that constant; x mod k is x - q·k when x stays in one
//	           period [q·k, q·k + k - 1]. Variables and sums are not replaced
//	           by their value when their range is a point: XLA keeps d0 with
//	           d0 in [0, 0].
//	gcd        (g·x) floordiv (g·k) → x floordiv k; (g·x) mod (g·k) → (x mod k)·g
//	div-div    (x floordiv a) floordiv b → x floordiv (a·b)
//	mod-div    (x mod (a·b)) floordiv b → (x floordiv b) mod a
//	mod-mod    (x mod (a·b)) mod b → x mod b
//	extract    (a·k·x + y) floordiv k → a·x + y floordiv k, likewise ceildiv;
//	           (a·k·x + y) mod k → y mod k
//	split      (g·x + r) floordiv k → x floordiv (k/g) and
//	           (g·x + r) mod k → (g·x) mod k + r, when g divides k and
//	           0 ≤ r < g over the box: (d1 * 4 + d2) mod 8 with d2 < 4 is
//	           (d1 mod 2) * 4 + d2
//	inner-div  (x floordiv a + y) floordiv b → (x + a·y) floordiv (a·b)
//	recombine  (x floordiv k)·k·c + (x mod k)·c → x·c, whatever form the
//	           simplifier gave x floordiv k

// maxPasses bounds the rewrites of one expression; the rules shrink
// expressions, so the limit is only a guard.
const maxPasses = 16

type exprSimplifier struct {
	r rangeEval
	// Results for atoms already simplified, and quotients already derived
	// for recombine, found by pointer: a map has few entries, so slices
	// searched linearly are cheaper than maps.
	memo      []atomResult
	quotients []atomResult
}

type atomResult struct {
	a *atom
	e Expr
}

func lookup(rs []atomResult, a *atom) (Expr, bool) {
	for i := range rs {
		if rs[i].a == a {
			return rs[i].e, true
		}
	}
	return Expr{}, false
}

func newExprSimplifier(m *IndexingMap) exprSimplifier {
	return exprSimplifier{r: rangeEval{m: m}}
}

// simplify rewrites e until no rule applies.
func (s *exprSimplifier) simplify(e Expr) Expr {
	for range maxPasses {
		f := s.once(e)
		if f.sameAs(e) || f.Equal(e) {
			return e
		}
		e = f
	}
	return e
}

// once simplifies every operand of e, then the sum.
func (s *exprSimplifier) once(e Expr) Expr {
	if len(e.terms) == 0 {
		return e
	}
	var b sumBuilder
	b.addConst(e.c)
	changed := false
	for _, t := range e.terms {
		if t.atom.isVar() {
			b.addTerm(t.coef, t.atom)
			continue
		}
		d := s.atom(t.atom)
		if len(d.terms) == 1 && d.c == 0 && d.terms[0].coef == 1 && d.terms[0].atom == t.atom {
			b.addTerm(t.coef, t.atom)
			continue
		}
		b.add(d, t.coef)
		changed = true
	}
	if changed {
		f, err := b.build()
		if err != nil {
			return e
		}
		e = f
	}
	return s.recombine(e)
}

// atom simplifies a division atom, returning the expression it equals.
func (s *exprSimplifier) atom(a *atom) Expr {
	if r, ok := lookup(s.memo, a); ok {
		return r
	}
	r := s.division(a.kind, s.simplify(a.lhs), a.k, a)
	if s.memo == nil {
		s.memo = make([]atomResult, 0, 8)
	}
	s.memo = append(s.memo, atomResult{a, r})
	return r
}

// division simplifies y op k for a simplified y and k ≥ 2: the first rule of
// divRules[op] that applies rewrites it, and its result is simplified in
// turn. orig, if not nil, is the atom y op k came from, kept when nothing
// changes.
func (s *exprSimplifier) division(kind atomKind, y Expr, k int64, orig *atom) Expr {
	for _, rule := range divRules[kind] {
		if r, ok := rule.rewrite(s, y, k); ok {
			return s.simplify(r)
		}
	}
	if orig != nil && y.sameAs(orig.lhs) {
		return atomExpr(orig)
	}
	r, err := divide(kind, y, k)
	if err != nil {
		return atomExpr(orig)
	}
	return r
}

// A divRule rewrites y op k, for a simplified dividend y and k ≥ 2, into an
// expression with the same value at every point of the box, or reports that
// it does not apply. A rule that would overflow int64 does not apply.
type divRule struct {
	name    string
	rewrite func(s *exprSimplifier, y Expr, k int64) (Expr, bool)
}

// divRules are the rules for floordiv, ceildiv and mod, in the order they are
// tried; the first that applies wins. (They are set in init because they
// call back into the simplifier.)
var divRules [atomMod + 1][]divRule

func init() {
	divRules[atomFloorDiv] = []divRule{
		{"range", (*exprSimplifier).floorDivRange},
		{"gcd", (*exprSimplifier).floorDivGCD},
		{"div-div", (*exprSimplifier).floorDivOfFloorDiv},
		{"mod-div", (*exprSimplifier).floorDivOfMod},
		{"extract", (*exprSimplifier).floorDivExtract},
		{"split", (*exprSimplifier).floorDivSplit},
		{"inner-div", (*exprSimplifier).floorDivInnerDiv},
	}
	divRules[atomCeilDiv] = []divRule{
		{"range", (*exprSimplifier).ceilDivRange},
		{"gcd", (*exprSimplifier).ceilDivGCD},
		{"extract", (*exprSimplifier).ceilDivExtract},
	}
	divRules[atomMod] = []divRule{
		{"range", (*exprSimplifier).modRange},
		{"gcd", (*exprSimplifier).modGCD},
		{"mod-mod", (*exprSimplifier).modOfMod},
		{"extract", (*exprSimplifier).modExtract},
		{"split", (*exprSimplifier).modSplit},
	}
}

// ok turns the result of a checked construction into a rule's answer.
func ok(e Expr, err error) (Expr, bool) { return e, err == nil }

// onePeriod reports the q for which the interval lies within [q·k, q·k + k - 1].
func onePeriod(iv Interval, k int64) (int64, bool) {
	if iv.IsEmpty() || !iv.IsBounded() {
		return 0, false
	}
	q := floorDiv(iv.Lo, k)
	return q, q == floorDiv(iv.Hi, k)
}

// contentGCD is the gcd of k and every coefficient and the constant of e.
func contentGCD(e Expr, k int64) int64 {
	g := gcd(k, e.c)
	for _, t := range e.terms {
		if g == 1 {
			break
		}
		g = gcd(g, t.coef)
	}
	return g
}

// soleAtom returns the atom of e = 1·atom.
func soleAtom(e Expr) (*atom, bool) {
	if len(e.terms) == 1 && e.c == 0 && e.terms[0].coef == 1 {
		return e.terms[0].atom, true
	}
	return nil, false
}

// anyMultiple reports whether k divides some coefficient of e.
func anyMultiple(e Expr, k int64) bool {
	for _, t := range e.terms {
		if t.coef%k == 0 {
			return true
		}
	}
	return false
}

// extractMultiples splits y into Σ (a/k)·t over its summands a·t with k | a,
// and the rest.
func extractMultiples(y Expr, k int64) (quotient, rest Expr, err error) {
	var qb, rb sumBuilder
	rb.addConst(y.c)
	for _, t := range y.terms {
		if t.coef%k == 0 {
			qb.addTerm(t.coef/k, t.atom)
		} else {
			rb.addTerm(t.coef, t.atom)
		}
	}
	if quotient, err = qb.build(); err != nil {
		return
	}
	rest, err = rb.build()
	return
}

// range: y floordiv k is constant when y stays within one quotient.
func (s *exprSimplifier) floorDivRange(y Expr, k int64) (Expr, bool) {
	q, ok := onePeriod(s.r.expr(y), k)
	return Expr{c: q}, ok
}

// gcd: (g·x) floordiv (g·k) → x floordiv k.
func (s *exprSimplifier) floorDivGCD(y Expr, k int64) (Expr, bool) {
	if g := contentGCD(y, k); g > 1 {
		return ok(divide(atomFloorDiv, divExact(y, g), k/g))
	}
	return Expr{}, false
}

// div-div: (x floordiv a) floordiv k → x floordiv (a·k).
func (s *exprSimplifier) floorDivOfFloorDiv(y Expr, k int64) (Expr, bool) {
	if a, isAtom := soleAtom(y); isAtom && a.kind == atomFloorDiv {
		if ak, fits := mulChecked(a.k, k); fits {
			return ok(divide(atomFloorDiv, a.lhs, ak))
		}
	}
	return Expr{}, false
}

// mod-div: (x mod (a·k)) floordiv k → (x floordiv k) mod a.
func (s *exprSimplifier) floorDivOfMod(y Expr, k int64) (Expr, bool) {
	if a, isAtom := soleAtom(y); isAtom && a.kind == atomMod && a.k%k == 0 {
		q, err := divide(atomFloorDiv, a.lhs, k)
		if err != nil {
			return Expr{}, false
		}
		return ok(divide(atomMod, q, a.k/k))
	}
	return Expr{}, false
}

// extract: (a·k·x + y) floordiv k → a·x + y floordiv k.
func (s *exprSimplifier) floorDivExtract(y Expr, k int64) (Expr, bool) {
	if !anyMultiple(y, k) {
		return Expr{}, false
	}
	q, rest, err := extractMultiples(y, k)
	if err != nil {
		return Expr{}, false
	}
	d, err := divide(atomFloorDiv, rest, k)
	if err != nil {
		return Expr{}, false
	}
	return ok(addScaled(q, d, 1))
}

// split: (g·x + r) floordiv k → x floordiv (k/g) when g | k and 0 ≤ r < g.
func (s *exprSimplifier) floorDivSplit(y Expr, k int64) (Expr, bool) {
	if g, m, _, found := s.split(y, k); found {
		return ok(divide(atomFloorDiv, divExact(m, g), k/g))
	}
	return Expr{}, false
}

// inner-div: (x floordiv a + y) floordiv k → (x + a·y) floordiv (a·k).
func (s *exprSimplifier) floorDivInnerDiv(y Expr, k int64) (Expr, bool) {
	if r, rk, found := innerDiv(y, k); found {
		return ok(divide(atomFloorDiv, r, rk))
	}
	return Expr{}, false
}

// range: y ceildiv k is constant when y stays within one quotient.
func (s *exprSimplifier) ceilDivRange(y Expr, k int64) (Expr, bool) {
	iv := s.r.expr(y)
	if !iv.IsEmpty() && iv.IsBounded() && ceilDiv(iv.Lo, k) == ceilDiv(iv.Hi, k) {
		return Expr{c: ceilDiv(iv.Lo, k)}, true
	}
	return Expr{}, false
}

// gcd: (g·x) ceildiv (g·k) → x ceildiv k.
func (s *exprSimplifier) ceilDivGCD(y Expr, k int64) (Expr, bool) {
	if g := contentGCD(y, k); g > 1 {
		return ok(divide(atomCeilDiv, divExact(y, g), k/g))
	}
	return Expr{}, false
}

// extract: (a·k·x + y) ceildiv k → a·x + y ceildiv k.
func (s *exprSimplifier) ceilDivExtract(y Expr, k int64) (Expr, bool) {
	if !anyMultiple(y, k) {
		return Expr{}, false
	}
	q, rest, err := extractMultiples(y, k)
	if err != nil {
		return Expr{}, false
	}
	d, err := divide(atomCeilDiv, rest, k)
	if err != nil {
		return Expr{}, false
	}
	return ok(addScaled(q, d, 1))
}

// range: y mod k is constant when y is, and y - q·k when y stays within one
// period [q·k, q·k + k - 1].
func (s *exprSimplifier) modRange(y Expr, k int64) (Expr, bool) {
	iv := s.r.expr(y)
	if iv.IsPoint() {
		return Expr{c: floorMod(iv.Lo, k)}, true
	}
	if q, found := onePeriod(iv, k); found {
		if qk, fits := mulChecked(q, k); fits {
			return ok(addScaled(y, Expr{c: qk}, -1))
		}
	}
	return Expr{}, false
}

// gcd: (g·x) mod (g·k) → (x mod k)·g.
func (s *exprSimplifier) modGCD(y Expr, k int64) (Expr, bool) {
	if g := contentGCD(y, k); g > 1 {
		r, err := divide(atomMod, divExact(y, g), k/g)
		if err != nil {
			return Expr{}, false
		}
		return ok(scale(r, g))
	}
	return Expr{}, false
}

// mod-mod: (x mod (a·k)) mod k → x mod k.
func (s *exprSimplifier) modOfMod(y Expr, k int64) (Expr, bool) {
	if a, isAtom := soleAtom(y); isAtom && a.kind == atomMod && a.k%k == 0 {
		return ok(divide(atomMod, a.lhs, k))
	}
	return Expr{}, false
}

// extract: (a·k·x + y) mod k → y mod k. The constant is reduced keeping its
// sign (C's remainder), as XLA does, so that (d0 - 1) mod 2 stays as written.
func (s *exprSimplifier) modExtract(y Expr, k int64) (Expr, bool) {
	if !anyMultiple(y, k) && y.c%k == y.c {
		return Expr{}, false
	}
	_, rest, err := extractMultiples(y, k)
	if err != nil {
		return Expr{}, false
	}
	rest.c %= k
	return ok(divide(atomMod, rest, k))
}

// split: (g·x + r) mod k → (g·x) mod k + r when g | k and 0 ≤ r < g.
func (s *exprSimplifier) modSplit(y Expr, k int64) (Expr, bool) {
	if _, m, small, found := s.split(y, k); found {
		mm, err := divide(atomMod, m, k)
		if err != nil {
			return Expr{}, false
		}
		return ok(addScaled(mm, small, 1))
	}
	return Expr{}, false
}

// split finds the largest g > 1 dividing k such that y = m + r where g
// divides every coefficient of m (and its constant) and r stays in [0, g-1]
// over the box. The constant of y goes to r, or to m when that is needed.
func (s *exprSimplifier) split(y Expr, k int64) (g int64, m, r Expr, ok bool) {
	if len(y.terms) < 2 && y.c == 0 {
		return 0, Expr{}, Expr{}, false
	}
	var buf [8]Interval
	ranges := buf[:0]
	for _, t := range y.terms {
		ranges = append(ranges, s.r.atom(t.atom).Scale(t.coef))
	}
	var bestConstInM bool
	var best int64
	for _, t := range y.terms {
		cand := gcd(k, t.coef)
		if cand <= 1 || cand <= best {
			continue
		}
		for _, constInM := range []bool{false, true} {
			if constInM && (y.c == 0 || y.c%cand != 0) {
				continue
			}
			gm := k
			rr := pointInterval(0)
			if constInM {
				gm = gcd(gm, y.c)
			} else {
				rr = pointInterval(y.c)
			}
			for i, u := range y.terms {
				if u.coef%cand == 0 {
					gm = gcd(gm, u.coef)
				} else {
					rr = rr.Add(ranges[i])
				}
			}
			if gm > best && !rr.IsEmpty() && rr.Lo >= 0 && rr.Hi < gm {
				best, g, bestConstInM = gm, cand, constInM
			}
		}
	}
	if best == 0 {
		return 0, Expr{}, Expr{}, false
	}
	var mb, rb sumBuilder
	if bestConstInM {
		mb.addConst(y.c)
	} else {
		rb.addConst(y.c)
	}
	for _, u := range y.terms {
		if u.coef%g == 0 {
			mb.addTerm(u.coef, u.atom)
		} else {
			rb.addTerm(u.coef, u.atom)
		}
	}
	me, err1 := mb.build()
	re, err2 := rb.build()
	if err1 != nil || err2 != nil {
		return 0, Expr{}, Expr{}, false
	}
	return best, me, re, true
}

// innerDiv rewrites (x floordiv a + y) floordiv k to (x + a·y) floordiv (a·k)
// when exactly one summand is a floordiv with coefficient 1: with several,
// the roundings of the inner divisions do not add up.
func innerDiv(y Expr, k int64) (Expr, int64, bool) {
	idx := -1
	for i, t := range y.terms {
		if t.atom.kind == atomFloorDiv && t.coef == 1 {
			if idx >= 0 {
				return Expr{}, 0, false
			}
			idx = i
		}
	}
	if idx < 0 || len(y.terms) == 1 && y.c == 0 {
		return Expr{}, 0, false
	}
	inner := y.terms[idx].atom
	kk, ok := mulChecked(inner.k, k)
	if !ok {
		return Expr{}, 0, false
	}
	var b sumBuilder
	b.add(inner.lhs, 1)
	c, ok := mulChecked(y.c, inner.k)
	if !ok {
		return Expr{}, 0, false
	}
	b.addConst(c)
	for i, t := range y.terms {
		if i == idx {
			continue
		}
		coef, ok := mulChecked(t.coef, inner.k)
		if !ok {
			return Expr{}, 0, false
		}
		b.addTerm(coef, t.atom)
	}
	r, err := b.build()
	if err != nil {
		return Expr{}, 0, false
	}
	return r, kk, true
}

// recombine rewrites (y floordiv k)·k·c + (y mod k)·c to y·c. The floordiv
// may appear in any form the simplifier gives it: when y is x floordiv j (or
// w floordiv j + r, which is (w + j·r) floordiv j), y floordiv k is
// x floordiv (j·k), which may have been simplified further; so the quotient
// is simplified and looked for among the other summands.
func (s *exprSimplifier) recombine(e Expr) Expr {
	// Each rewrite replaces a mod and the summands of its quotient by the
	// smaller dividend, so the loop ends.
	for {
		f, ok := s.recombineOnce(e)
		if !ok {
			return e
		}
		e = f
	}
}

func (s *exprSimplifier) recombineOnce(e Expr) (Expr, bool) {
	if len(e.terms) < 2 {
		return e, false
	}
	for _, t := range e.terms {
		if t.atom.kind != atomMod {
			continue
		}
		y := t.atom.lhs
		ck, ok := mulChecked(t.coef, t.atom.k)
		if !ok {
			continue
		}
		for _, qr := range s.quotientsOf(t.atom) {
			q := qr.e
			if len(q.terms) == 0 || !containsScaled(e, q, ck) {
				continue
			}
			var b sumBuilder
			b.add(e, 1)
			b.add(q, -ck)
			b.addTerm(-t.coef, t.atom)
			b.add(y, t.coef)
			f, err := b.build()
			if err != nil {
				continue
			}
			return f, true
		}
	}
	return e, false
}

// quotientsOf returns the simplified forms of y floordiv k for the atom
// y mod k: as written, and, when y is x floordiv j (or w floordiv j + r,
// which is (w + j·r) floordiv j), as x floordiv (j·k).
func (s *exprSimplifier) quotientsOf(mod *atom) []atomResult {
	for i := range s.quotients {
		if s.quotients[i].a == mod {
			j := i + 1
			for j < len(s.quotients) && s.quotients[j].a == mod {
				j++
			}
			return s.quotients[i:j]
		}
	}
	y, k := mod.lhs, mod.k
	type dividend struct {
		x Expr
		k int64
	}
	cands := []dividend{{y, k}}
	if a, ok := soleAtom(y); ok && a.kind == atomFloorDiv {
		if jk, ok := mulChecked(a.k, k); ok {
			cands = append(cands, dividend{a.lhs, jk})
		}
	} else if z, j, ok := innerDiv(y, 1); ok {
		if jk, ok := mulChecked(j, k); ok {
			cands = append(cands, dividend{z, jk})
		}
	}
	// Simplifying a quotient may record others: build this atom's list
	// first, then append it in one piece.
	var qbuf [2]atomResult
	qs := qbuf[:0]
	for _, c := range cands {
		q, err := divide(atomFloorDiv, c.x, c.k)
		if err != nil {
			continue
		}
		qs = append(qs, atomResult{mod, s.simplify(q)})
	}
	if len(qs) == 0 {
		qs = append(qs, atomResult{mod, Expr{}}) // remember that there is none
	}
	if s.quotients == nil {
		s.quotients = make([]atomResult, 0, 8)
	}
	start := len(s.quotients)
	s.quotients = append(s.quotients, qs...)
	return s.quotients[start:]
}

// containsScaled reports whether every summand of k·q is a summand of e.
func containsScaled(e, q Expr, k int64) bool {
	for _, u := range q.terms {
		want, ok := mulChecked(u.coef, k)
		if !ok {
			return false
		}
		found := false
		for _, t := range e.terms {
			if t.coef == want && atomEqual(t.atom, u.atom) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

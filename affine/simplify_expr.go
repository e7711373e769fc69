package affine

import "sync"

// The expression simplifier is XLA's SymbolicExprSimplifier: a set of
// rewrite rules, each keyed by the kind of the expression it rewrites and
// using the ranges of subexpressions over the map's domain, applied to a
// fixed point. One pass (once) rewrites the top of an expression with the
// first rule of its kind that applies; the rules themselves simplify the
// operands they look at by one pass. simplify repeats passes until the
// expression no longer changes.

// exprSimplifier holds what the rules need: the ranges of subexpressions and
// whether an expression whose range is one point becomes that constant.
type exprSimplifier struct {
	rng           rangeEval
	replacePoints bool
	// The rules simplify and bound the operands they look at, each on its
	// own, so the same subexpression is simplified and bounded many times:
	// the memo keeps that cheap. It is valid while the map's bounds and
	// constraints stay the same (see reset).
	memo *simplifyMemo
	// b builds the rewritten expressions in the memo's arena.
	b builder
}

// simplifyMemo remembers the ranges and the one-pass simplifications of
// expressions, in direct-mapped tables indexed by structural hash: a
// collision only loses an entry. Entries of older generations are stale, so
// that forgetting everything costs one increment. It also holds the arena
// of the expressions the simplifier builds, which lives as long as one
// simplification.
type simplifyMemo struct {
	gen    uint32
	ranges [memoSize]rangeEntry
	onces  [memoSize]onceEntry
	nodes  arena
}

const memoSize = 512

type rangeEntry struct {
	n   *node
	gen uint32
	iv  Interval
}

type onceEntry struct {
	in, out Expr
	gen     uint32
}

var memoPool = sync.Pool{New: func() any { return &simplifyMemo{gen: 1} }}

func newExprSimplifier(m *IndexingMap, useConstraints, replacePoints bool) exprSimplifier {
	memo := memoPool.Get().(*simplifyMemo)
	return exprSimplifier{rng: rangeEval{m: m, useConstraints: useConstraints}, replacePoints: replacePoints, memo: memo, b: builder{&memo.nodes}}
}

// release returns the memo and its arena to the pool. Every expression the
// simplifier built must have been detached.
func (s *exprSimplifier) release() {
	if s.memo != nil {
		s.memo.reset()
		s.memo.nodes.reset()
		memoPool.Put(s.memo)
		s.memo = nil
		s.b = builder{}
	}
}

// reset forgets the memo, after the map's bounds or constraints change. The
// arena stays as it is.
func (s *exprSimplifier) reset() {
	if s.memo != nil {
		s.memo.reset()
	}
}

func (m *simplifyMemo) reset() {
	m.gen++
	if m.gen == 0 {
		m.ranges, m.onces = [memoSize]rangeEntry{}, [memoSize]onceEntry{}
		m.gen = 1
	}
}

// rule is one rewrite: it returns the rewritten expression, or false when it
// does not apply.
type rule struct {
	name  string
	apply func(s *exprSimplifier, e Expr) (Expr, bool)
}

// rules lists, for each kind of expression, the rewrites tried in order; the
// first that applies wins. The name of each rule says what it does.
var rules [opConst + 1][]rule

func init() {
	rules = [opConst + 1][]rule{
		opAdd: {
			{"sum", (*exprSimplifier).rewriteSum},
		},
		opMul: {
			{"mul-distribute", (*exprSimplifier).rewriteMul},
		},
		opMod: {
			{"mod-zero-divisor", (*exprSimplifier).modByZero},
			{"mod-no-wraparound", (*exprSimplifier).modNoWraparound},
			{"mod-of-product", (*exprSimplifier).modOfProduct},
			{"mod-extract", (*exprSimplifier).modExtract},
		},
		opFloorDiv: {
			{"div-non-constant-divisor", (*exprSimplifier).divNonConstant},
			{"div-of-mod", (*exprSimplifier).divOfMod},
			{"div-of-div", (*exprSimplifier).divOfDiv},
			{"div-of-sum", (*exprSimplifier).divOfSum},
			{"div-operand", (*exprSimplifier).divOperand},
		},
		opCeilDiv: {
			{"ceildiv-operand", (*exprSimplifier).ceilDivOperand},
		},
		opMin: {
			{"min-ordered", (*exprSimplifier).minOrdered},
			{"min-operands", (*exprSimplifier).minMaxOperands},
		},
		opMax: {
			{"max-ordered", (*exprSimplifier).maxOrdered},
			{"max-operands", (*exprSimplifier).minMaxOperands},
		},
	}
}

func (s *exprSimplifier) rangeOf(e Expr) Interval {
	if s.memo == nil || !e.IsBinary() {
		return s.rng.of(e)
	}
	en := &s.memo.ranges[e.n.x%memoSize]
	if en.gen == s.memo.gen && en.n == e.n {
		return en.iv
	}
	iv := s.rng.combine(e, s.rangeOf(e.n.lhs), s.rangeOf(e.n.rhs))
	en = &s.memo.ranges[e.n.x%memoSize]
	*en = rangeEntry{e.n, s.memo.gen, iv}
	return iv
}

// constantRHS reports whether e is an operation o whose right operand has a
// range of one point over the domain, and returns that value (XLA's
// GetConstantRhs).
func (s *exprSimplifier) constantRHS(e Expr, o op) (int64, bool) {
	if e.op() != o {
		return 0, false
	}
	r := s.rangeOf(e.n.rhs)
	return r.Lo, r.IsPoint()
}

// multiplier splits e into x * c when e is a product by a constant.
func (s *exprSimplifier) multiplier(e Expr) (Expr, int64) {
	if c, ok := s.constantRHS(e, opMul); ok {
		return e.n.lhs, c
	}
	return e, 1
}

// simplify applies passes until the expression no longer changes.
func (s *exprSimplifier) simplify(e Expr) Expr {
	for {
		r := s.once(e)
		if r.Equal(e) {
			return e
		}
		e = r
	}
}

// once is one pass over the top of e: an expression whose range is one point
// becomes that constant (rule "point"), otherwise the first rule of its kind
// that applies rewrites it.
func (s *exprSimplifier) once(e Expr) Expr {
	if !e.IsBinary() || s.memo == nil {
		// A variable only becomes its value when its range is one point:
		// that is cheaper to see than to look up.
		if e.isVar() {
			if s.replacePoints {
				if r := s.rng.of(e); r.IsPoint() {
					return s.b.constant(r.Lo)
				}
			}
			return e
		}
		if _, ok := e.Constant(); ok {
			return e
		}
		return s.onceUncached(e)
	}
	h := e.n.x
	en := &s.memo.onces[h%memoSize]
	if en.gen == s.memo.gen && (en.in.n == e.n || en.in.Equal(e)) {
		return en.out
	}
	s.b.meet(e)
	out := s.onceUncached(e)
	en = &s.memo.onces[h%memoSize]
	*en = onceEntry{e, out, s.memo.gen}
	return out
}

func (s *exprSimplifier) onceUncached(e Expr) Expr {
	if s.replacePoints {
		if r := s.rangeOf(e); r.IsPoint() {
			return s.b.constant(r.Lo)
		}
	}
	for _, r := range rules[e.op()] {
		if out, ok := r.apply(s, e); ok {
			return out
		}
	}
	return e
}

// mapSummands rewrites every summand of a nested sum with f, rebuilding the
// sum with b only where something changed (XLA's MapSummands).
func mapSummands(b builder, e Expr, f func(Expr) Expr) Expr {
	if e.op() != opAdd {
		return f(e)
	}
	l := mapSummands(b, e.n.lhs, f)
	r := mapSummands(b, e.n.rhs, f)
	if l.Equal(e.n.lhs) && r.Equal(e.n.rhs) {
		return e
	}
	return b.add(l, r)
}

// visitSummands calls f for every summand of a nested sum.
func visitSummands(e Expr, f func(Expr)) {
	if e.op() == opAdd {
		visitSummands(e.n.lhs, f)
		visitSummands(e.n.rhs, f)
		return
	}
	f(e)
}

// sumGCD is the gcd of the constant factors of the products among the
// summands of e, positive, or 1 when there is no product. (XLA keeps the
// sign of a single multiplier; the positive gcd gives the same rewrites
// where XLA's are right and keeps the constraint rules sound.)
func (s *exprSimplifier) sumGCD(e Expr) int64 {
	var g int64
	found := false
	visitSummands(e, func(x Expr) {
		if c, ok := s.constantRHS(x, opMul); ok {
			if found {
				g = gcd(g, c)
			} else {
				g, found = c, true
			}
		}
	})
	if !found || g == 0 {
		return 1
	}
	return absInt(g)
}

// splitSumByGCD splits a sum into multiplied * g + rest, where g = sumGCD(e)
// and rest holds the summands that are not products (XLA's SplitSumByGcd).
// With g = 1 it returns (0, 1, e).
func (s *exprSimplifier) splitSumByGCD(e Expr) (multiplied Expr, g int64, rest Expr) {
	g = s.sumGCD(e)
	if g == 1 {
		return Expr{}, 1, e
	}
	return s.multipliedByGCD(e, g), g, s.restByGCD(e)
}

// restByGCD is the sum of the summands of e that are not products by a
// constant: the rest of splitSumByGCD.
func (s *exprSimplifier) restByGCD(e Expr) (rest Expr) {
	visitSummands(e, func(x Expr) {
		if _, ok := s.constantRHS(x, opMul); !ok {
			rest = s.b.add(rest, x)
		}
	})
	return rest
}

// multipliedByGCD is the sum of the products by a constant among the
// summands of e, each divided by g: the multiplied part of splitSumByGCD.
// The rules build it only once they know they use it.
func (s *exprSimplifier) multipliedByGCD(e Expr, g int64) Expr {
	return mapSummands(s.b, e, func(x Expr) Expr {
		if c, ok := s.constantRHS(x, opMul); ok {
			return s.b.mul(x.n.lhs, c/g)
		}
		return Expr{}
	})
}

// rewriteMul ("mul-distribute"): a product by a constant distributes over a
// sum, (a + b) * c → a*c + b*c; x * 1 → x; otherwise the operand is
// simplified.
func (s *exprSimplifier) rewriteMul(e Expr) (Expr, bool) {
	r := s.rangeOf(e.n.rhs)
	if !r.IsPoint() {
		return e, true
	}
	c := r.Lo
	lhs := s.once(e.n.lhs)
	if lhs.op() == opAdd {
		return mapSummands(s.b, lhs, func(x Expr) Expr { return s.b.mul(x, c) }), true
	}
	if c == 1 {
		return lhs, true
	}
	if lhs.Equal(e.n.lhs) {
		return e, true
	}
	return s.b.mul(lhs, c), true
}

type scaledExpr struct {
	x    Expr
	coef int64
	gone bool
}

// rewriteSum ("sum") simplifies every summand, recombines
// (x mod c) * d + (x floordiv c) * (c*d) into x * d, rewrites
// (x floordiv c) * (-c*b) into (x mod c) * b - x * b, collects equal
// summands, adds the constants up and sorts the summands in XLA's order,
// the constant last.
func (s *exprSimplifier) rewriteSum(e Expr) (Expr, bool) {
	var buf [3][8]scaledExpr
	mods, divs, summands := buf[0][:0], buf[1][:0], buf[2][:0]
	add := func(x Expr, c int64) {
		summands = addScaled(summands, x, c)
	}
	var stack [16]Expr
	for _, x := range appendSummands(stack[:0], e) {
		lhs, c := s.multiplier(s.once(x))
		switch lhs.op() {
		case opMod:
			mods = append(mods, scaledExpr{x: lhs, coef: c})
		case opFloorDiv:
			divs = append(divs, scaledExpr{x: lhs, coef: c})
		default:
			summands = addScaled(summands, lhs, c)
		}
	}
	if len(divs) > 0 {
		for mi := range mods {
			mod := mods[mi]
			modC, ok := s.constantRHS(mod.x, opMod)
			if !ok {
				continue
			}
			// The quotient x floordiv c of the remainder, simplified, may
			// not contain c itself when x has a multiplier.
			quot := s.simplify(s.b.floorDiv(mod.x.n.lhs, modC))
			for di := range divs {
				div := divs[di]
				if div.gone || !quot.Equal(div.x) {
					continue
				}
				if mod.coef == 0 || div.coef%mod.coef != 0 || div.coef/mod.coef != modC {
					continue
				}
				add(mod.x.n.lhs, mod.coef)
				divs[di].gone = true
				mods[mi].gone = true
				break
			}
		}
		// (x - (x floordiv c) * c) * b = (x mod c) * b, even when x itself
		// is not in the sum.
		for di := range divs {
			div := divs[di]
			if div.gone || div.coef > 0 {
				continue
			}
			c, ok := s.constantRHS(div.x, opFloorDiv)
			if !ok || c < 0 || c == 0 || div.coef%c != 0 {
				continue
			}
			b := div.coef / c
			x := div.x.n.lhs
			visitSummands(x, func(t Expr) { add(t, b) })
			mods = append(mods, scaledExpr{x: s.b.mod(x, c), coef: -b})
			divs[di].gone = true
		}
	}
	for _, m := range mods {
		if !m.gone {
			add(m.x, m.coef)
		}
	}
	for _, d := range divs {
		if !d.gone {
			add(d.x, d.coef)
		}
	}
	var termBuf [16]Expr
	terms := termBuf[:0]
	var constant int64
	for _, t := range summands {
		if v, ok := t.x.Constant(); ok {
			constant += v * t.coef
			continue
		}
		terms = append(terms, s.b.mul(t.x, t.coef))
	}
	if constant != 0 {
		terms = append(terms, s.b.constant(constant))
	}
	sortExprs(terms)
	if isLeftSum(e, terms) {
		return e, true // the same sum: spare rebuilding it
	}
	var out Expr
	for _, t := range terms {
		out = s.b.add(out, t)
	}
	return out, true
}

// isLeftSum reports whether e is the sum ((t0 + t1) + ...) + tn of terms, as
// rewriteSum would build it.
func isLeftSum(e Expr, terms []Expr) bool {
	for i := len(terms) - 1; i > 0; i-- {
		if e.op() != opAdd || !e.n.rhs.Equal(terms[i]) {
			return false
		}
		e = e.n.lhs
	}
	return len(terms) > 0 && e.Equal(terms[0])
}

// addScaled adds c * x to a list of scaled summands.
func addScaled(summands []scaledExpr, x Expr, c int64) []scaledExpr {
	for i := range summands {
		if summands[i].x.Equal(x) {
			summands[i].coef += c
			return summands
		}
	}
	return append(summands, scaledExpr{x: x, coef: c})
}

// appendSummands appends the summands of a nested sum.
func appendSummands(out []Expr, e Expr) []Expr {
	if e.op() == opAdd {
		return appendSummands(appendSummands(out, e.n.lhs), e.n.rhs)
	}
	return append(out, e)
}

// sortExprs sorts by Compare (insertion sort: sums are short).
func sortExprs(xs []Expr) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j].Compare(xs[j-1]) < 0; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// modByZero ("mod-zero-divisor"): a remainder by a divisor that is 0 over the
// domain can only occur where its value does not matter; it becomes 0. A
// divisor that is not one point leaves the remainder as it is.
func (s *exprSimplifier) modByZero(e Expr) (Expr, bool) {
	r := s.rangeOf(e.n.rhs)
	if !r.IsPoint() {
		return e, true
	}
	if r.Lo == 0 {
		return Expr{}, true
	}
	return Expr{}, false
}

// modNoWraparound ("mod-no-wraparound"): x mod m where x stays within one
// period of m becomes x plus a constant.
func (s *exprSimplifier) modNoWraparound(e Expr) (Expr, bool) {
	m := s.rangeOf(e.n.rhs).Lo
	lhs := s.once(e.n.lhs)
	r := s.rangeOf(lhs)
	offset := -floorDiv(r.Lo, m) * m
	if hi, ok := addChecked(r.Hi, offset); ok && hi < m {
		return s.b.add(lhs, s.b.constant(offset)), true
	}
	return Expr{}, false
}

// modOfProduct ("mod-of-product"): (c * a) mod (a*b) → (c mod b) * a.
func (s *exprSimplifier) modOfProduct(e Expr) (Expr, bool) {
	m := s.rangeOf(e.n.rhs).Lo
	lhs := s.once(e.n.lhs)
	if k, ok := s.constantRHS(lhs, opMul); ok && k > 0 && m%k == 0 {
		return s.b.mul(s.b.mod(lhs.n.lhs, m/k), k), true
	}
	return Expr{}, false
}

// modExtract ("mod-extract"): summands that are multiples of the modulus
// leave the remainder, constants are reduced, and a sum a*g + b with
// 0 <= b < g and g dividing the modulus becomes (a*g) mod m + b.
func (s *exprSimplifier) modExtract(e Expr) (Expr, bool) {
	m := s.rangeOf(e.n.rhs).Lo
	lhs := s.once(e.n.lhs)
	var constant int64
	newLHS := mapSummands(s.b, lhs, func(x Expr) Expr {
		if v, ok := x.Constant(); ok {
			constant += v
			return Expr{}
		}
		if k, ok := s.constantRHS(x, opMul); ok && k%m == 0 {
			return Expr{}
		}
		return x
	})
	if constant%m != 0 {
		newLHS = s.b.add(newLHS, s.b.constant(constant%m))
	}
	if g := s.sumGCD(newLHS); g != 1 && m%g == 0 {
		rest := s.restByGCD(newLHS)
		restRange := s.rangeOf(rest)
		if restRange == (Interval{0, 0}) {
			mg := gcd(g, m)
			multiplied := s.multipliedByGCD(newLHS, g)
			if mg == g {
				newLHS = multiplied
			} else if mg > 1 {
				newLHS = mapSummands(s.b, multiplied, func(x Expr) Expr { return s.b.mul(x, g/mg) })
			}
			return s.b.mul(s.b.mod(newLHS, m/mg), mg), true
		}
		if (Interval{0, g - 1}).ContainsInterval(restRange) {
			return s.b.add(s.b.binary(opMod, s.b.mul(s.multipliedByGCD(newLHS, g), g), e.n.rhs), rest), true
		}
	}
	if newLHS.Equal(e.n.lhs) {
		return e, true
	}
	return s.b.mod(newLHS, m), true
}

// divNonConstant ("div-non-constant-divisor"): a quotient whose divisor is
// not one point only has its operands simplified.
func (s *exprSimplifier) divNonConstant(e Expr) (Expr, bool) {
	if s.rangeOf(e.n.rhs).IsPoint() {
		return Expr{}, false
	}
	return s.b.binary(opFloorDiv, s.once(e.n.lhs), s.once(e.n.rhs)), true
}

// divisor is the divisor of a quotient known to be one point above 1, and
// the simplified dividend.
func (s *exprSimplifier) divisor(e Expr) (Expr, int64, bool) {
	d := s.rangeOf(e.n.rhs).Lo
	if d <= 1 {
		return Expr{}, 0, false
	}
	return s.once(e.n.lhs), d, true
}

// divOfMod ("div-of-mod"): (c mod (a*b)) floordiv a → (c floordiv a) mod b.
func (s *exprSimplifier) divOfMod(e Expr) (Expr, bool) {
	lhs, d, ok := s.divisor(e)
	if !ok {
		return Expr{}, false
	}
	if m, ok := s.constantRHS(lhs, opMod); ok && m%d == 0 {
		return s.b.mod(s.b.floorDiv(lhs.n.lhs, d), m/d), true
	}
	return Expr{}, false
}

// divOfDiv ("div-of-div"): (a floordiv b) floordiv c → a floordiv (b*c) for
// c > 1.
func (s *exprSimplifier) divOfDiv(e Expr) (Expr, bool) {
	lhs, d, ok := s.divisor(e)
	if !ok {
		return Expr{}, false
	}
	if inner, ok := s.constantRHS(lhs, opFloorDiv); ok {
		if p, ok := mulChecked(d, inner); ok {
			return s.b.floorDiv(lhs.n.lhs, p), true
		}
	}
	return Expr{}, false
}

// divOfSum ("div-of-sum") rewrites a quotient of a sum: summands that are
// multiples of the divisor leave it ((a*6 + b) floordiv 3 → b floordiv 3 +
// a*2); a common factor of the products and the divisor is divided out when
// the other summands cannot change the quotient ((x*6 + y) floordiv 9 →
// (x*2) floordiv 3 for 0 <= y < 3) or are a constant sharing the factor; and
// a single inner quotient is merged, (a floordiv c0 + b) floordiv c1 →
// (a + b*c0) floordiv (c0*c1).
func (s *exprSimplifier) divOfSum(e Expr) (Expr, bool) {
	dividend, d, ok := s.divisor(e)
	if !ok {
		return Expr{}, false
	}
	var extracted Expr
	newDividend := mapSummands(s.b, dividend, func(x Expr) Expr {
		if k, ok := s.constantRHS(x, opMul); ok && k%d == 0 {
			extracted = s.b.add(extracted, s.b.mul(x.n.lhs, k/d))
			return Expr{}
		}
		return x
	})
	if g := s.sumGCD(newDividend); g != 1 {
		dg := gcd(d, g)
		restRange := s.rangeOf(s.restByGCD(newDividend))
		if dg != 1 && (Interval{0, dg - 1}).ContainsInterval(restRange) {
			newDividend = s.b.mul(s.multipliedByGCD(newDividend, g), g/dg)
			d /= dg
		} else if restRange.IsPoint() && restRange.Lo != 0 {
			dg = gcd(restRange.Lo, dg)
			if dg != 1 {
				newDividend = s.b.add(s.b.mul(s.multipliedByGCD(newDividend, g), g/dg), s.b.constant(restRange.Lo/dg))
				d /= dg
			}
		}
	}
	// Merging is only sound with a single inner quotient: each inner
	// dividend is rounded down, the sum of them need not be.
	var inner int64
	count := 0
	visitSummands(newDividend, func(x Expr) {
		if c, ok := s.constantRHS(x, opFloorDiv); ok {
			inner = c
			count++
		}
	})
	if count == 1 {
		newDividend = mapSummands(s.b, newDividend, func(x Expr) Expr {
			if _, ok := s.constantRHS(x, opFloorDiv); ok {
				return x.n.lhs
			}
			return s.b.mul(x, inner)
		})
		d *= inner
	}
	if newDividend.Equal(dividend) {
		return Expr{}, false
	}
	return s.b.add(s.b.floorDiv(newDividend, d), extracted), true
}

// divOperand ("div-operand"): otherwise only the dividend is simplified.
func (s *exprSimplifier) divOperand(e Expr) (Expr, bool) {
	lhs := s.once(e.n.lhs)
	if lhs.Equal(e.n.lhs) {
		return e, true
	}
	return s.b.floorDiv(lhs, s.rangeOf(e.n.rhs).Lo), true
}

// ceilDivOperand ("ceildiv-operand"): the operands of a ceildiv are
// simplified.
func (s *exprSimplifier) ceilDivOperand(e Expr) (Expr, bool) {
	lhs, rhs := s.once(e.n.lhs), s.once(e.n.rhs)
	if lhs.Equal(e.n.lhs) && rhs.Equal(e.n.rhs) {
		return e, true
	}
	return s.b.binary(opCeilDiv, lhs, rhs), true
}

// minOrdered ("min-ordered"): min(a, b) is the operand that is never larger
// over the domain, or the smaller one when the two differ by a constant.
func (s *exprSimplifier) minOrdered(e Expr) (Expr, bool) {
	a, b := e.n.lhs, e.n.rhs
	ra, rb := s.rangeOf(a), s.rangeOf(b)
	switch {
	case ra.Hi <= rb.Lo:
		return a, true
	case rb.Hi <= ra.Lo:
		return b, true
	}
	if d, ok := constDifference(a, b); ok {
		if d <= 0 {
			return a, true
		}
		return b, true
	}
	return Expr{}, false
}

// maxOrdered ("max-ordered"): max(a, b) is the operand that is never
// smaller over the domain, or the larger one when the two differ by a
// constant.
func (s *exprSimplifier) maxOrdered(e Expr) (Expr, bool) {
	a, b := e.n.lhs, e.n.rhs
	ra, rb := s.rangeOf(a), s.rangeOf(b)
	switch {
	case ra.Lo >= rb.Hi:
		return a, true
	case rb.Lo >= ra.Hi:
		return b, true
	}
	if d, ok := constDifference(a, b); ok {
		if d >= 0 {
			return a, true
		}
		return b, true
	}
	return Expr{}, false
}

// minMaxOperands ("min-operands", "max-operands"): otherwise the operands
// are simplified.
func (s *exprSimplifier) minMaxOperands(e Expr) (Expr, bool) {
	a, b := s.once(e.n.lhs), s.once(e.n.rhs)
	if a.Equal(e.n.lhs) && b.Equal(e.n.rhs) {
		return e, true
	}
	return s.b.binary(e.n.op, a, b), true
}

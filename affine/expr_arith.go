package affine

import "math"

// The arithmetic below keeps expressions canonical. The unexported forms
// report overflow and division by zero as errors, for the parser and the
// simplifier; the exported methods panic on them, like integer division by
// zero does in Go.

// sumBuilder accumulates k·e terms and builds one canonical expression. Its
// first terms live in the builder itself, which stays on the stack.
type sumBuilder struct {
	buf  [8]term
	n    int
	more []term // all the terms, once there are more than len(buf)
	c    int64
	err  error
}

func (b *sumBuilder) addConst(c int64) {
	if b.err != nil {
		return
	}
	s, ok := addChecked(b.c, c)
	if !ok {
		b.err = errOverflow
	}
	b.c = s
}

func (b *sumBuilder) addTerm(coef int64, a *atom) {
	if coef == 0 {
		return
	}
	if b.more == nil && b.n < len(b.buf) {
		b.buf[b.n] = term{coef, a}
		b.n++
		return
	}
	if b.more == nil {
		b.more = append(make([]term, 0, 2*len(b.buf)), b.buf[:b.n]...)
	}
	b.more = append(b.more, term{coef, a})
}

func (b *sumBuilder) terms() []term {
	if b.more != nil {
		return b.more
	}
	return b.buf[:b.n]
}

// add accumulates k·e.
func (b *sumBuilder) add(e Expr, k int64) {
	if b.err != nil || k == 0 {
		return
	}
	c, ok := mulChecked(e.c, k)
	if !ok {
		b.err = errOverflow
		return
	}
	b.addConst(c)
	for _, t := range e.terms {
		coef, ok := mulChecked(t.coef, k)
		if !ok {
			b.err = errOverflow
			return
		}
		b.addTerm(coef, t.atom)
	}
}

// build sorts the terms into canonical order and merges equal operands.
func (b *sumBuilder) build() (Expr, error) {
	if b.err != nil {
		return Expr{}, b.err
	}
	ts := b.terms()
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && compareAtoms(ts[j-1].atom, ts[j].atom) > 0; j-- {
			ts[j-1], ts[j] = ts[j], ts[j-1]
		}
	}
	n := 0
	for i := 0; i < len(ts); {
		t := ts[i]
		for i++; i < len(ts) && compareAtoms(ts[i].atom, t.atom) == 0; i++ {
			s, ok := addChecked(t.coef, ts[i].coef)
			if !ok {
				return Expr{}, errOverflow
			}
			t.coef = s
		}
		if t.coef != 0 {
			ts[n] = t
			n++
		}
	}
	if n == 0 {
		return Expr{c: b.c}, nil
	}
	if n == 1 && ts[0].coef == 1 && ts[0].atom.isVar() && ts[0].atom.index < preallocVars {
		return Expr{terms: varTerms[ts[0].atom.kind][ts[0].atom.index][:], c: b.c}, nil
	}
	out := make([]term, n)
	copy(out, ts[:n])
	return Expr{terms: out, c: b.c}, nil
}

// addScaled is a + k·b.
func addScaled(a, b Expr, k int64) (Expr, error) {
	if k == 0 || (len(b.terms) == 0 && b.c == 0) {
		return a, nil
	}
	if len(b.terms) == 0 {
		bc, ok := mulChecked(b.c, k)
		if !ok {
			return Expr{}, errOverflow
		}
		c, ok := addChecked(a.c, bc)
		if !ok {
			return Expr{}, errOverflow
		}
		return Expr{terms: a.terms, c: c}, nil
	}
	if len(a.terms) == 0 && k == 1 {
		c, ok := addChecked(a.c, b.c)
		if !ok {
			return Expr{}, errOverflow
		}
		return Expr{terms: b.terms, c: c}, nil
	}
	var s sumBuilder
	s.add(a, 1)
	s.add(b, k)
	return s.build()
}

// scale is k·e.
func scale(e Expr, k int64) (Expr, error) {
	switch k {
	case 0:
		return Expr{}, nil
	case 1:
		return e, nil
	}
	c, ok := mulChecked(e.c, k)
	if !ok {
		return Expr{}, errOverflow
	}
	if len(e.terms) == 0 {
		return Expr{c: c}, nil
	}
	out := make([]term, len(e.terms))
	for i, t := range e.terms {
		coef, ok := mulChecked(t.coef, k)
		if !ok {
			return Expr{}, errOverflow
		}
		out[i] = term{coef, t.atom}
	}
	return Expr{terms: out, c: c}, nil
}

// exactDivisor reports whether k divides every coefficient and the constant of e.
func exactDivisor(e Expr, k int64) bool {
	if e.c%k != 0 {
		return false
	}
	for _, t := range e.terms {
		if t.coef%k != 0 {
			return false
		}
	}
	return true
}

// divide builds e floordiv k, e ceildiv k or e mod k in canonical form.
func divide(kind atomKind, e Expr, k int64) (Expr, error) {
	if k == 0 {
		return Expr{}, errDivZero
	}
	if k == math.MinInt64 {
		return Expr{}, errOverflow
	}
	if k < 0 {
		// x floordiv k = (-x) floordiv -k, likewise ceildiv, and
		// x mod k = -((-x) mod -k): divisors are kept positive.
		neg, err := scale(e, -1)
		if err != nil {
			return Expr{}, err
		}
		if kind != atomMod {
			return divide(kind, neg, -k)
		}
		r, err := divide(kind, neg, -k)
		if err != nil {
			return Expr{}, err
		}
		return scale(r, -1)
	}
	if len(e.terms) == 0 {
		switch kind {
		case atomFloorDiv:
			return Expr{c: floorDiv(e.c, k)}, nil
		case atomCeilDiv:
			return Expr{c: ceilDiv(e.c, k)}, nil
		}
		return Expr{c: floorMod(e.c, k)}, nil
	}
	if k == 1 || exactDivisor(e, k) {
		if kind == atomMod {
			return Expr{}, nil
		}
		if k == 1 {
			return e, nil
		}
		return divExact(e, k), nil
	}
	return divAtomExpr(kind, e, k), nil
}

// divNode holds a division atom and the one-term sum that refers to it, so
// that building a division allocates once.
type divNode struct {
	a atom
	t [1]term
}

// divAtomExpr is the expression 1·(e op k) for k ≥ 2 and a non-constant e.
func divAtomExpr(kind atomKind, e Expr, k int64) Expr {
	n := &divNode{a: atom{kind: kind, lhs: e, k: k, hash: divHash(kind, e, k)}}
	n.t[0] = term{1, &n.a}
	return Expr{terms: n.t[:]}
}

// divExact is e/k for a k that divides every coefficient and the constant.
func divExact(e Expr, k int64) Expr {
	if len(e.terms) == 0 {
		return Expr{c: e.c / k}
	}
	out := make([]term, len(e.terms))
	for i, t := range e.terms {
		out[i] = term{t.coef / k, t.atom}
	}
	if len(out) == 1 && out[0].coef == 1 && out[0].atom.isVar() && out[0].atom.index < preallocVars {
		return Expr{terms: varTerms[out[0].atom.kind][out[0].atom.index][:], c: e.c / k}
	}
	return Expr{terms: out, c: e.c / k}
}

func must(e Expr, err error) Expr {
	if err != nil {
		panic("affine: " + err.Error())
	}
	return e
}

// Add returns e + f. It panics if a coefficient overflows int64.
func (e Expr) Add(f Expr) Expr { return must(addScaled(e, f, 1)) }

// Sub returns e - f. It panics if a coefficient overflows int64.
func (e Expr) Sub(f Expr) Expr { return must(addScaled(e, f, -1)) }

// AddConst returns e + c. It panics if the constant overflows int64.
func (e Expr) AddConst(c int64) Expr { return must(addScaled(e, Expr{c: c}, 1)) }

// Mul returns e * c. It panics if a coefficient overflows int64.
func (e Expr) Mul(c int64) Expr { return must(scale(e, c)) }

// Neg returns -e.
func (e Expr) Neg() Expr { return must(scale(e, -1)) }

// FloorDiv returns e floordiv k, the quotient rounded towards -∞. It panics
// if k is zero.
func (e Expr) FloorDiv(k int64) Expr { return must(divide(atomFloorDiv, e, k)) }

// CeilDiv returns e ceildiv k, the quotient rounded towards +∞. It panics if
// k is zero.
func (e Expr) CeilDiv(k int64) Expr { return must(divide(atomCeilDiv, e, k)) }

// Mod returns e mod k, the remainder of FloorDiv: its sign is that of k. It
// panics if k is zero.
func (e Expr) Mod(k int64) Expr { return must(divide(atomMod, e, k)) }

// Replace substitutes expressions for variables: d_i becomes dims[i],
// s_i becomes rangeVars[i] and rt_i becomes runtimeVars[i]. A nil slice
// leaves that kind of variable unchanged. It panics if a variable has no
// replacement in a non-nil slice or a coefficient overflows.
func (e Expr) Replace(dims, rangeVars, runtimeVars []Expr) Expr {
	subs := [3][]Expr{dims, rangeVars, runtimeVars}
	r, err := replaceVars(e, func(k atomKind, i int) (Expr, bool) {
		s := subs[k]
		if s == nil {
			return Expr{}, false
		}
		if i >= len(s) {
			panic("affine: Replace has no replacement for " + atomExpr(newVarAtom(k, i)).String())
		}
		return s[i], true
	})
	return must(r, err)
}

// replaceVars substitutes sub(kind, index) for every variable for which it
// returns true.
func replaceVars(e Expr, sub func(kind atomKind, index int) (Expr, bool)) (Expr, error) {
	var b sumBuilder
	b.addConst(e.c)
	changed := false
	for _, t := range e.terms {
		a := t.atom
		if a.isVar() {
			if s, ok := sub(a.kind, a.index); ok {
				b.add(s, t.coef)
				changed = true
				continue
			}
			b.addTerm(t.coef, a)
			continue
		}
		lhs, err := replaceVars(a.lhs, sub)
		if err != nil {
			return Expr{}, err
		}
		if lhs.sameAs(a.lhs) {
			b.addTerm(t.coef, a)
			continue
		}
		d, err := divide(a.kind, lhs, a.k)
		if err != nil {
			return Expr{}, err
		}
		b.add(d, t.coef)
		changed = true
	}
	if !changed {
		return e, nil
	}
	return b.build()
}

// sameAs reports whether e and f share their representation, a cheap
// sufficient condition for equality.
func (e Expr) sameAs(f Expr) bool {
	if e.c != f.c || len(e.terms) != len(f.terms) {
		return false
	}
	return len(e.terms) == 0 || &e.terms[0] == &f.terms[0]
}

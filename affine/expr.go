package affine

import (
	"cmp"
	"fmt"
	"iter"
)

// Expr is an affine expression over the variables of an indexing map: dimension
// variables d_i, range variables s_i, runtime variables rt_i, integer
// constants, sums, products by a constant, and floordiv, ceildiv and mod by a
// constant.
//
// An Expr is an immutable value, always kept in canonical form: a linear
// combination c + Σ aᵢ·tᵢ of distinct operands tᵢ (variables and
// floordiv/ceildiv/mod expressions) with non-zero coefficients, sorted in
// canonical order (dims, range vars, runtime vars by index, then floordivs,
// ceildivs and mods). Sums are therefore flattened and constants folded;
// x*1, x+0, x floordiv 1, x mod 1, divisions whose dividend is a multiple of
// the divisor and negative divisors never appear. Two expressions are equal
// exactly when Equal says so, and then they print identically.
//
// The zero Expr is the constant 0. Expressions share structure freely;
// variables with small indices are preallocated, so building them does not
// allocate.
type Expr struct {
	terms []term // sorted by compareAtoms, non-zero coefficients, distinct atoms
	c     int64  // the constant term
}

// term is one summand coef·atom of a canonical expression.
type term struct {
	coef int64
	atom *atom
}

// atomKind is the kind of a summand's operand. The order of the constants is
// the canonical order of summands.
type atomKind uint8

const (
	atomDim atomKind = iota
	atomRange
	atomRuntime
	atomFloorDiv
	atomCeilDiv
	atomMod
)

// atom is a variable or a division of an expression by a constant k ≥ 2.
type atom struct {
	kind  atomKind
	index int   // variables
	lhs   Expr  // divisions
	k     int64 // divisions
	hash  uint64
}

func (a *atom) isVar() bool { return a.kind <= atomRuntime }

// ExprKind says what an expression is at its top level.
type ExprKind uint8

// The kinds of expressions.
const (
	KindConstant   ExprKind = iota // an integer constant
	KindDim                        // a dimension variable d_i
	KindRangeVar                   // a range variable s_i
	KindRuntimeVar                 // a runtime variable rt_i
	KindAdd                        // a sum of several terms, or of a term and a constant
	KindMul                        // one operand times a constant other than 1
	KindFloorDiv                   // x floordiv k
	KindCeilDiv                    // x ceildiv k
	KindMod                        // x mod k
)

var kindNames = [...]string{"constant", "dim", "range var", "runtime var", "add", "mul", "floordiv", "ceildiv", "mod"}

// String names the kind: "constant", "dim", "floordiv", ...
func (k ExprKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ExprKind(%d)", k)
}

// preallocVars variables of each kind are built once, so that Dim(i) and its
// siblings do not allocate.
const preallocVars = 64

var varTerms [3][preallocVars][1]term

func init() {
	for k := atomDim; k <= atomRuntime; k++ {
		for i := range preallocVars {
			varTerms[k][i][0] = term{1, newVarAtom(k, i)}
		}
	}
}

func newVarAtom(k atomKind, i int) *atom {
	return &atom{kind: k, index: i, hash: mix(uint64(k)+1, uint64(i))}
}

func varExpr(k atomKind, i int) Expr {
	if i < 0 {
		panic(fmt.Sprintf("affine: negative variable index %d", i))
	}
	if i < preallocVars {
		return Expr{terms: varTerms[k][i][:]}
	}
	return Expr{terms: []term{{1, newVarAtom(k, i)}}}
}

// Const returns the constant expression c. It panics if c is math.MinInt64,
// which expressions never hold (so that negation cannot overflow).
func Const(c int64) Expr {
	if c == -c && c != 0 {
		panic("affine: constant math.MinInt64 is out of range")
	}
	return Expr{c: c}
}

// Dim returns the dimension variable d_i.
func Dim(i int) Expr { return varExpr(atomDim, i) }

// RangeVar returns the range variable s_i.
func RangeVar(i int) Expr { return varExpr(atomRange, i) }

// RuntimeVar returns the runtime variable rt_i.
func RuntimeVar(i int) Expr { return varExpr(atomRuntime, i) }

// Kind says what e is at its top level.
func (e Expr) Kind() ExprKind {
	switch {
	case len(e.terms) == 0:
		return KindConstant
	case len(e.terms) > 1 || e.c != 0:
		return KindAdd
	case e.terms[0].coef != 1:
		return KindMul
	}
	switch e.terms[0].atom.kind {
	case atomDim:
		return KindDim
	case atomRange:
		return KindRangeVar
	case atomRuntime:
		return KindRuntimeVar
	case atomFloorDiv:
		return KindFloorDiv
	case atomCeilDiv:
		return KindCeilDiv
	}
	return KindMod
}

// Constant reports whether e is a constant, and its value.
func (e Expr) Constant() (int64, bool) { return e.c, len(e.terms) == 0 }

// Offset is the constant term of e: for d0 + 5 it is 5, for d0 floordiv 2 it is 0.
func (e Expr) Offset() int64 { return e.c }

// Index is the index of the variable e (d_i, s_i or rt_i), or -1 if e is
// not a single variable.
func (e Expr) Index() int {
	if len(e.terms) == 1 && e.c == 0 && e.terms[0].coef == 1 && e.terms[0].atom.isVar() {
		return e.terms[0].atom.index
	}
	return -1
}

// Operands returns the operands of a product (x, factor) or of a division
// (x, divisor) — kinds KindMul, KindFloorDiv, KindCeilDiv and KindMod. For
// other kinds it returns (e, 1).
func (e Expr) Operands() (Expr, int64) {
	switch e.Kind() {
	case KindMul:
		return atomExpr(e.terms[0].atom), e.terms[0].coef
	case KindFloorDiv, KindCeilDiv, KindMod:
		a := e.terms[0].atom
		return a.lhs, a.k
	}
	return e, 1
}

// Terms iterates over the summands of e's linear form, without its constant
// term: each coefficient with its operand, which is a variable or a
// floordiv, ceildiv or mod expression, in canonical order.
func (e Expr) Terms() iter.Seq2[int64, Expr] {
	return func(yield func(int64, Expr) bool) {
		for _, t := range e.terms {
			if !yield(t.coef, atomExpr(t.atom)) {
				return
			}
		}
	}
}

// NumTerms is the number of summands of e, not counting the constant term.
func (e Expr) NumTerms() int { return len(e.terms) }

// Coefficient is the coefficient of the variable v (an expression of kind
// KindDim, KindRangeVar or KindRuntimeVar) in e's linear form; variables that
// appear only inside a division have coefficient 0.
func (e Expr) Coefficient(v Expr) int64 {
	if v.Index() < 0 {
		panic("affine: Coefficient of a non-variable " + v.String())
	}
	va := v.terms[0].atom
	for _, t := range e.terms {
		if t.atom.kind == va.kind && t.atom.index == va.index {
			return t.coef
		}
	}
	return 0
}

// atomExpr is the expression 1·a.
func atomExpr(a *atom) Expr {
	if a.isVar() && a.index < preallocVars {
		return Expr{terms: varTerms[a.kind][a.index][:]}
	}
	return Expr{terms: []term{{1, a}}}
}

// Equal reports whether e and f are the same expression.
func (e Expr) Equal(f Expr) bool {
	if e.c != f.c || len(e.terms) != len(f.terms) {
		return false
	}
	for i := range e.terms {
		if e.terms[i].coef != f.terms[i].coef || !atomEqual(e.terms[i].atom, f.terms[i].atom) {
			return false
		}
	}
	return true
}

func atomEqual(a, b *atom) bool {
	if a == b {
		return true
	}
	if a.hash != b.hash || a.kind != b.kind {
		return false
	}
	if a.isVar() {
		return a.index == b.index
	}
	return a.k == b.k && a.lhs.Equal(b.lhs)
}

// Compare orders expressions totally, consistently with Equal: it returns 0
// exactly when e.Equal(f).
func (e Expr) Compare(f Expr) int {
	n := min(len(e.terms), len(f.terms))
	for i := range n {
		if c := compareAtoms(e.terms[i].atom, f.terms[i].atom); c != 0 {
			return c
		}
		if c := cmp.Compare(e.terms[i].coef, f.terms[i].coef); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(len(e.terms), len(f.terms)); c != 0 {
		return c
	}
	return cmp.Compare(e.c, f.c)
}

// compareAtoms is the canonical order of summands: variables first (dims,
// range vars, runtime vars, each by index), then floordivs, ceildivs and mods
// ordered by dividend and divisor.
func compareAtoms(a, b *atom) int {
	if a == b {
		return 0
	}
	if c := cmp.Compare(a.kind, b.kind); c != 0 {
		return c
	}
	if a.isVar() {
		return cmp.Compare(a.index, b.index)
	}
	if c := a.lhs.Compare(b.lhs); c != 0 {
		return c
	}
	return cmp.Compare(a.k, b.k)
}

// Hash is a hash of e consistent with Equal, for use as a map key together
// with Equal.
func (e Expr) Hash() uint64 {
	h := mix(0x9e3779b97f4a7c15, uint64(e.c))
	for _, t := range e.terms {
		h = mix(mix(h, uint64(t.coef)), t.atom.hash)
	}
	return h
}

// Key is a canonical string of e: e.Key() == f.Key() exactly when e.Equal(f).
func (e Expr) Key() string { return e.String() }

func mix(h, v uint64) uint64 {
	h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	h *= 0xff51afd7ed558ccd
	return h ^ (h >> 33)
}

func divHash(kind atomKind, lhs Expr, k int64) uint64 {
	return mix(mix(uint64(kind)+1, lhs.Hash()), uint64(k))
}

// visitVars calls visit for every occurrence of a variable in e.
func (e Expr) visitVars(visit func(kind atomKind, index int)) {
	for _, t := range e.terms {
		if t.atom.isVar() {
			visit(t.atom.kind, t.atom.index)
		} else {
			t.atom.lhs.visitVars(visit)
		}
	}
}

// UsesVar reports whether the variable v (an expression of kind KindDim,
// KindRangeVar or KindRuntimeVar) occurs anywhere in e.
func (e Expr) UsesVar(v Expr) bool {
	if v.Index() < 0 {
		panic("affine: UsesVar of a non-variable " + v.String())
	}
	va := v.terms[0].atom
	found := false
	e.visitVars(func(k atomKind, i int) {
		if k == va.kind && i == va.index {
			found = true
		}
	})
	return found
}

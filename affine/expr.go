package affine

import (
	"fmt"
	"math"
	"math/bits"
)

// Expr is a symbolic integer expression over the variables of an indexing
// map, XLA's SymbolicExpr: integer constants, dimension variables d_i, range
// variables s_i, runtime variables rt_i, and the binary operations +, *,
// floordiv, ceildiv, mod, min and max.
//
// An Expr is an immutable tree. Unlike a linear form it keeps the shape in
// which it was built: d0 + (d1 + 2) and (d0 + d1) + 2 are different
// expressions that print differently, as they do in XLA. Building an
// expression applies only XLA's light folding (constants are folded, x + 0
// and x * 1 disappear, and x * c1 * c2 becomes x * (c1·c2)); the canonical
// form comes from Canonicalize and, with the bounds of a map, from Simplify.
//
// Division and remainder have floor semantics: x floordiv c rounds towards
// -∞ and x mod c has the sign of c. The zero Expr is the constant 0.
type Expr struct {
	n *node
}

// node is one vertex of an expression tree. Children of binary operations
// are never nil except where they are the constant 0.
type node struct {
	lhs, rhs Expr
	// x is, for a constant or a variable, its value (varClass<<varShift |
	// index for a variable); for an operation, the hash of the tree. A leaf's
	// hash is computed from its value, which keeps a node at 32 bytes.
	x  uint64
	op op
	// scratch marks a node of a simplifier's arena, or a node built above
	// one: it may not outlive the simplification (see arena).
	scratch bool
}

// val is the value of a constant or a variable.
func (n *node) val() int64 { return int64(n.x) }

// op is the kind of a node. Its order is XLA's order of SymbolicExprType,
// which sorts the summands of a canonical sum: sums, products, remainders,
// quotients, maxima and minima, then variables, then constants.
type op uint8

const (
	opAdd op = iota
	opMul
	opMod
	opFloorDiv
	opCeilDiv
	opMax
	opMin
	opVar
	opConst
)

// Variables are numbered so that comparing their numbers orders them as XLA
// orders a map's variables: dimensions, then range variables, then runtime
// variables, each by index.
type varClass uint8

const (
	classDim varClass = iota
	classRange
	classRuntime
)

const (
	varShift = 40
	maxVars  = 1 << varShift
)

func varID(c varClass, i int) int64 { return int64(c)<<varShift | int64(i) }

func splitVarID(v int64) (varClass, int) { return varClass(v >> varShift), int(v & (maxVars - 1)) }

// ExprKind says what an expression is at its top level.
type ExprKind uint8

// The kinds of expressions.
const (
	KindConstant   ExprKind = iota // an integer constant
	KindDim                        // a dimension variable d_i
	KindRangeVar                   // a range variable s_i
	KindRuntimeVar                 // a runtime variable rt_i
	KindAdd                        // lhs + rhs
	KindMul                        // lhs * rhs
	KindFloorDiv                   // lhs floordiv rhs
	KindCeilDiv                    // lhs ceildiv rhs
	KindMod                        // lhs mod rhs
	KindMax                        // max(lhs, rhs)
	KindMin                        // min(lhs, rhs)
)

var kindNames = [...]string{"constant", "dim", "range var", "runtime var", "add", "mul", "floordiv", "ceildiv", "mod", "max", "min"}

// String names the kind: "constant", "dim", "floordiv", ...
func (k ExprKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ExprKind(%d)", k)
}

var opKinds = [...]ExprKind{
	opAdd: KindAdd, opMul: KindMul, opMod: KindMod, opFloorDiv: KindFloorDiv,
	opCeilDiv: KindCeilDiv, opMax: KindMax, opMin: KindMin,
}

// Small constants and variables are built once, so that building them does
// not allocate.
const (
	preallocConsts = 256 // constants in [-preallocConsts, preallocConsts)
	preallocVars   = 64
)

var (
	constNodes [2 * preallocConsts]node
	varNodes   [3][preallocVars]node
)

func init() {
	for i := range constNodes {
		v := int64(i - preallocConsts)
		constNodes[i] = node{op: opConst, x: uint64(v)}
	}
	for c := range varNodes {
		for i := range varNodes[c] {
			v := varID(varClass(c), i)
			varNodes[c][i] = node{op: opVar, x: uint64(v)}
		}
	}
}

// The hashes of expressions index the simplifier's direct-mapped tables by
// their low bits, and one is computed for every node built: each is one
// multiplication, folded so that the low bits depend on every input bit.

func leafHash(o op, v int64) uint64 {
	return fold((uint64(v) ^ uint64(o)<<56 ^ 0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9)
}

func fold(h uint64) uint64 { return h ^ h>>29 ^ h>>47 }

// Const returns the constant expression c.
func Const(c int64) Expr {
	if c == 0 {
		return Expr{}
	}
	if -preallocConsts <= c && c < preallocConsts {
		return Expr{&constNodes[c+preallocConsts]}
	}
	return Expr{&node{op: opConst, x: uint64(c)}}
}

func variable(c varClass, i int) Expr {
	if i < 0 || int64(i) >= maxVars {
		panic(fmt.Sprintf("affine: variable index %d out of range", i))
	}
	if i < preallocVars {
		return Expr{&varNodes[c][i]}
	}
	v := varID(c, i)
	return Expr{&node{op: opVar, x: uint64(v)}}
}

// Dim returns the dimension variable d_i.
func Dim(i int) Expr { return variable(classDim, i) }

// RangeVar returns the range variable s_i (XLA's symbol).
func RangeVar(i int) Expr { return variable(classRange, i) }

// RuntimeVar returns the runtime variable rt_i.
func RuntimeVar(i int) Expr { return variable(classRuntime, i) }

// binary builds the node lhs op rhs on the heap (see builder.binary).
func binary(o op, lhs, rhs Expr) Expr { return builder{}.binary(o, lhs, rhs) }

// binaryHash is the hash of the operation o on operands with hashes l and r.
func binaryHash(o op, l, r uint64) uint64 {
	return fold((bits.RotateLeft64(l, 23) ^ r ^ (uint64(o)+1)*0x94d049bb133111eb) * 0xbf58476d1ce4e5b9)
}

// isScratch reports whether e must be copied out of a simplifier's arena
// before it outlives the simplification.
func (e Expr) isScratch() bool { return e.n != nil && e.n.scratch }

func (e Expr) op() op {
	if e.n == nil {
		return opConst
	}
	return e.n.op
}

// Kind says what e is at its top level.
func (e Expr) Kind() ExprKind {
	switch o := e.op(); o {
	case opConst:
		return KindConstant
	case opVar:
		c, _ := splitVarID(e.n.val())
		return KindDim + ExprKind(c)
	default:
		return opKinds[o]
	}
}

// IsBinary reports whether e is an operation with two operands.
func (e Expr) IsBinary() bool { return e.op() < opVar }

// LHS is the left operand of a binary operation, and the zero Expr otherwise.
func (e Expr) LHS() Expr {
	if !e.IsBinary() {
		return Expr{}
	}
	return e.n.lhs
}

// RHS is the right operand of a binary operation, and the zero Expr otherwise.
func (e Expr) RHS() Expr {
	if !e.IsBinary() {
		return Expr{}
	}
	return e.n.rhs
}

// Constant reports whether e is a constant, and its value.
func (e Expr) Constant() (int64, bool) {
	if e.n == nil {
		return 0, true
	}
	if e.n.op == opConst {
		return e.n.val(), true
	}
	return 0, false
}

// IsConst reports whether e is the constant c.
func (e Expr) IsConst(c int64) bool {
	v, ok := e.Constant()
	return ok && v == c
}

// Index is the index of the variable e (d_i, s_i or rt_i), or -1 if e is not
// a variable.
func (e Expr) Index() int {
	if e.op() != opVar {
		return -1
	}
	_, i := splitVarID(e.n.val())
	return i
}

func (e Expr) isVar() bool { return e.op() == opVar }

// constRHS reports whether e is an operation o whose right operand is a
// constant, and returns it.
func (e Expr) constRHS(o op) (int64, bool) {
	if e.op() != o {
		return 0, false
	}
	return e.n.rhs.Constant()
}

// Hash is a hash of e consistent with Equal.
func (e Expr) Hash() uint64 {
	if e.n == nil {
		return leafHash(opConst, 0)
	}
	if e.n.op >= opVar {
		return leafHash(e.n.op, e.n.val())
	}
	return e.n.x
}

// Equal reports whether e and f are the same expression tree.
func (e Expr) Equal(f Expr) bool {
	a, b := e.n, f.n
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false // the constant 0 has no other representation
	}
	// x is the value of a leaf and the hash of an operation.
	if a.op != b.op || a.x != b.x {
		return false
	}
	if a.op >= opVar {
		return true
	}
	return a.lhs.Equal(b.lhs) && a.rhs.Equal(b.rhs)
}

// Compare orders expressions totally, as XLA's SymbolicExpr::operator< does:
// by kind (sums, products, mod, floordiv, ceildiv, max, min, variables,
// constants), variables and constants by value, operations by their left and
// then their right operand. It returns 0 exactly when e.Equal(f).
func (e Expr) Compare(f Expr) int {
	if e.n == f.n {
		return 0
	}
	oe, of := e.op(), f.op()
	if oe != of {
		if oe < of {
			return -1
		}
		return 1
	}
	if oe >= opVar {
		ve, vf := e.value(), f.value()
		switch {
		case ve < vf:
			return -1
		case ve > vf:
			return 1
		}
		return 0
	}
	if c := e.n.lhs.Compare(f.n.lhs); c != 0 {
		return c
	}
	return e.n.rhs.Compare(f.n.rhs)
}

func (e Expr) value() int64 {
	if e.n == nil {
		return 0
	}
	return e.n.val()
}

// Key is a string that identifies e: e.Key() == f.Key() exactly when
// e.Equal(f).
func (e Expr) Key() string { return e.String() }

// Walk calls f for every subexpression of e, operands before the operation
// (post-order), ending with e itself.
func (e Expr) Walk(f func(Expr)) {
	if e.IsBinary() {
		e.n.lhs.Walk(f)
		e.n.rhs.Walk(f)
	}
	f(e)
}

// visitVars calls visit for every occurrence of a variable in e.
func (e Expr) visitVars(visit func(c varClass, index int)) {
	switch e.op() {
	case opConst:
	case opVar:
		c, i := splitVarID(e.n.val())
		visit(c, i)
	default:
		e.n.lhs.visitVars(visit)
		e.n.rhs.visitVars(visit)
	}
}

// UsesVar reports whether the variable v (an expression of kind KindDim,
// KindRangeVar or KindRuntimeVar) occurs anywhere in e.
func (e Expr) UsesVar(v Expr) bool {
	if !v.isVar() {
		return false
	}
	switch e.op() {
	case opConst:
		return false
	case opVar:
		return e.n.val() == v.n.val()
	}
	return e.n.lhs.UsesVar(v) || e.n.rhs.UsesVar(v)
}

// evalOp applies o to two values with XLA's semantics. It reports false for
// a division or remainder by zero and for a result that overflows int64.
func evalOp(o op, a, b int64) (int64, bool) {
	switch o {
	case opAdd:
		return addChecked(a, b)
	case opMul:
		return mulChecked(a, b)
	case opFloorDiv:
		if b == 0 || (a == math.MinInt64 && b == -1) {
			return 0, false
		}
		return floorDiv(a, b), true
	case opCeilDiv:
		if b == 0 || (a == math.MinInt64 && b == -1) {
			return 0, false
		}
		return ceilDiv(a, b), true
	case opMod:
		if b == 0 {
			return 0, false
		}
		return floorMod(a, b), true
	case opMax:
		return max(a, b), true
	case opMin:
		return min(a, b), true
	}
	return 0, false
}

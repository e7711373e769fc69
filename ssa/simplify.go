package ssa

import (
	"math"
	"slices"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// simplify rewrites values by the algebraic rules of simplifyRules until no
// rule applies: identities and absorbing elements, data movement of
// constants and splats, chains of reshapes, transposes and bitcasts proved
// identity (or a single transpose or reshape) with affine indexing maps,
// exact conversion round trips, slices of concatenations and the like.
//
// Every rule is exact: the replacement computes bit for bit what the value
// computed, under IEEE semantics for floating point. So x + 0 is not x (-0 +
// 0 is +0) but x + -0 is; x * 0 is 0 only for integers (NaN · 0 is NaN);
// x - x is 0 only for integers (∞ - ∞ is NaN). A replacement has the value's
// exact shape, element type and layout.
func simplify(p *Program) error {
	for _, f := range p.Funcs {
		if err := simplifyFunc(f); err != nil {
			return err
		}
	}
	return nil
}

// rule is one rewrite: when fn matches v (whose op is op, or any op when op
// is anyOp) it returns the value that replaces v, built with b; nil means no
// match. Rules are tried in table order; the first match wins.
type rule struct {
	op   Op
	name string // the rewrite in the notation (op args…) ⇒ replacement
	fn   func(b *builder, v *Value) *Value
}

const anyOp Op = 0

// maxSimplifyRounds bounds the passes over a function; each round applies
// every rule that matches, and rounds repeat while something changed.
const maxSimplifyRounds = 16

var simplifyRules = [...]rule{
	// Identities and absorbing elements, exact under IEEE semantics.
	{OpAdd, "(add x (splat -0.0)) ⇒ x, and (add x (splat 0)) ⇒ x for integers", addZero},
	{OpAdd, "(add x (negate y)) ⇒ (subtract x y)", addNegate},
	{OpSubtract, "(subtract x (splat +0.0)) ⇒ x", subtractZero},
	{OpSubtract, "(subtract x x) ⇒ (splat 0) for integers", subtractSelf},
	{OpSubtract, "(subtract x (negate y)) ⇒ (add x y)", subtractNegate},
	{OpMultiply, "(multiply x (splat 1)) ⇒ x", multiplyOne},
	{OpMultiply, "(multiply x z:(splat 0)) ⇒ z for integers", multiplyZero},
	{OpMultiply, "(multiply x (splat -1)) ⇒ (negate x) for floats and signed integers", multiplyMinusOne},
	{OpDivide, "(divide x (splat 1)) ⇒ x", divideOne},
	{OpDivide, "(divide x (splat -1)) ⇒ (negate x) for floats", divideMinusOne},
	{Op(ir.OpPower), "(power x (splat 1)) ⇒ x", powerOne},
	{OpMaximum, "(maximum x x) ⇒ x", sameOperands},
	{OpMaximum, "(maximum x (splat -inf)) ⇒ x", maximumNegInf},
	{OpMinimum, "(minimum x x) ⇒ x", sameOperands},
	{OpMinimum, "(minimum x (splat +inf)) ⇒ x", minimumPosInf},
	{Op(ir.OpAnd), "(and x x) ⇒ x", sameOperands},
	{Op(ir.OpAnd), "(and x (splat all-ones)) ⇒ x", andOnes},
	{Op(ir.OpAnd), "(and x z:(splat 0)) ⇒ z", andZero},
	{Op(ir.OpOr), "(or x x) ⇒ x", sameOperands},
	{Op(ir.OpOr), "(or x (splat 0)) ⇒ x", orZero},
	{Op(ir.OpOr), "(or x o:(splat all-ones)) ⇒ o", orOnes},
	{Op(ir.OpXor), "(xor x (splat 0)) ⇒ x", xorZero},
	{Op(ir.OpXor), "(xor x x) ⇒ (splat 0)", xorSelf},
	{Op(ir.OpNot), "(not (not x)) ⇒ x", involution},
	{OpNegate, "(negate (negate x)) ⇒ x", involution},
	{Op(ir.OpAbs), "(abs a:(abs x)) ⇒ a, (abs (negate x)) ⇒ (abs x)", absAbs},
	{OpSelect, "(select (splat true) a b) ⇒ a, (select (splat false) a b) ⇒ b", selectConstant},
	{OpSelect, "(select p a a) ⇒ a", selectSame},
	{OpSelect, "(select (not p) a b) ⇒ (select p b a)", selectNot},

	// Conversions.
	{OpConvert, "(convert x:T → T) ⇒ x", convertSame},
	{OpConvert, "(convert (convert x:A → B) → C) ⇒ (convert x → C) when A → B is exact (x when C = A)", convertRoundTrip},
	{OpCopy, "(copy x) ⇒ x", copyOperand},

	// Tuples.
	{OpGetTupleElement, "(get-tuple-element (tuple x…) i) ⇒ x_i", elementOfTuple},
	{OpTuple, "(tuple (get-tuple-element t 0) … (get-tuple-element t n-1)) ⇒ t", tupleOfElements},

	// Data movement of constants and splats.
	{OpReshape, "(reshape (constant c)) ⇒ (constant c reshaped), sharing its storage", reshapeConstant},
	{anyOp, "(reshape|transpose|broadcast|slice|reverse|copy (broadcast s:scalar)) ⇒ (broadcast s)", movementOfSplat},
	{anyOp, "(op (broadcast x d) (broadcast y d) …) ⇒ (broadcast (op x y …) d) for elementwise op", elementwiseOfBroadcasts},

	// Reshapes, transposes, bitcasts and broadcasts.
	{OpReshape, "(reshape x) ⇒ x when the dimensions are x's", reshapeSame},
	{OpReshape, "(reshape (reshape x)) ⇒ (reshape x)", reshapeReshape},
	{OpTranspose, "(transpose x {0,1,…}) ⇒ x", transposeIdentity},
	{OpTranspose, "(transpose (transpose x p) q) ⇒ (transpose x p∘q)", transposeTranspose},
	{anyOp, "(reshape|transpose|bitcast … x) ⇒ x, (transpose x p) or (reshape x) when the chain's composed indexing map is proved so", movementChain},
	{OpBroadcast, "(broadcast x {0,1,…}) ⇒ x when the dimensions are x's", broadcastIdentity},
	{OpBroadcast, "(broadcast (broadcast x d) e) ⇒ (broadcast x e∘d)", broadcastBroadcast},
	{OpBroadcast, "(broadcast (reshape x) d) ⇒ (broadcast x d') when the reshape only inserts or removes dimensions of size 1", broadcastOfUnitReshape},

	// Slices, pads, concatenations, reversals.
	{OpSlice, "(slice x) ⇒ x when it covers x", sliceWhole},
	{OpSlice, "(slice (slice x)) ⇒ (slice x)", sliceSlice},
	{OpSlice, "(slice (concatenate x…)) ⇒ (slice x_k) when it reads only operand k", sliceConcatenate},
	{Op(ir.OpDynamicSlice), "(dynamic-slice x (constant s)…) ⇒ (slice x) at the clamped starts", dynamicSliceConstant},
	{Op(ir.OpDynamicUpdateSlice), "(dynamic-update-slice x u s…) ⇒ u when u has x's dimensions", dynamicUpdateWhole},
	{OpPad, "(pad x v 0_0…) ⇒ x", padZero},
	{OpConcatenate, "(concatenate x) ⇒ x, and operands of size 0 dropped", concatenateTrivial},
	{Op(ir.OpReverse), "(reverse x {}) ⇒ x, dimensions of size 1 dropped, (reverse (reverse x d) d) ⇒ x", reverseTrivial},

	// Reductions.
	{OpReduce, "(reduce x init {} f) ⇒ x when init is f's identity, else (f init x) elementwise", reduceNoDimensions},
	{OpReduce, "(reduce x init d f) ⇒ (reshape x) when every dimension of d has size 1 and init is f's identity", reduceUnitDimensions},
}

var rulesByOp = func() map[Op][]*rule {
	m := map[Op][]*rule{}
	var any []*rule
	for i := range simplifyRules {
		if r := &simplifyRules[i]; r.op == anyOp {
			any = append(any, r)
		}
	}
	for i := range simplifyRules {
		r := &simplifyRules[i]
		if r.op != anyOp {
			m[r.op] = append(m[r.op], r)
		}
	}
	// anyOp rules are tried after the op's own, in table order.
	for op := range m {
		m[op] = append(m[op], any...)
	}
	m[anyOp] = any
	return m
}()

func rulesFor(op Op) []*rule {
	if rs, ok := rulesByOp[op]; ok {
		return rs
	}
	return rulesByOp[anyOp]
}

func simplifyFunc(f *Func) error {
	b := &builder{f: f}
	for round := 0; round < maxSimplifyRounds; round++ {
		repl := map[*Value]*Value{}
		resolve := func(v *Value) *Value {
			for {
				r, ok := repl[v]
				if !ok {
					return v
				}
				v = r
			}
		}
		// Values the rules create are appended to f.Values and visited in
		// the same round.
		before := len(f.Values)
		for i := 0; i < len(f.Values); i++ {
			v := f.Values[i]
			for j, a := range v.Args {
				v.Args[j] = resolve(a)
			}
			if w := applyRules(b, v); w != nil {
				repl[v] = w
			}
			if b.err != nil {
				return b.err
			}
		}
		if len(repl) == 0 {
			if len(f.Values) != before {
				deadcodeFunc(f) // values of rules whose result was refused
			}
			return nil
		}
		for _, v := range f.Values {
			for j, a := range v.Args {
				v.Args[j] = resolve(a)
			}
		}
		f.Root = resolve(f.Root)
		f.Sort()
		deadcodeFunc(f)
	}
	return nil
}

// applyRules returns the replacement of v by the first rule that matches,
// or nil.
func applyRules(b *builder, v *Value) *Value {
	if v.Op == OpParameter || v.Op == OpConstant || v.Op.HasSideEffect() || v.Shape.IsDynamic() {
		return nil
	}
	if _, ok := v.Op.IR(); !ok {
		return nil
	}
	for _, a := range v.Args {
		if a.Shape.IsDynamic() {
			return nil
		}
	}
	for _, r := range rulesFor(v.Op) {
		mark := b.f.Program.nextID
		w := r.fn(b, v)
		if w == nil || w == v {
			continue
		}
		if w.ID > mark && w.Shape.EqualIgnoringLayout(v.Shape) {
			// A value the rule made takes v's place, layout included.
			w.Shape = v.Shape.Clone()
		}
		if !w.Shape.Equal(v.Shape) {
			continue
		}
		return w
	}
	return nil
}

// ---- helpers ----------------------------------------------------------------

// commuted calls match with v's two operands, then, for a commutative op,
// with them swapped; it returns the first non-nil result.
func commuted(v *Value, match func(x, y *Value) *Value) *Value {
	if len(v.Args) != 2 {
		return nil
	}
	if w := match(v.Args[0], v.Args[1]); w != nil {
		return w
	}
	if v.Op.IsCommutative() {
		return match(v.Args[1], v.Args[0])
	}
	return nil
}

func elem(v *Value) ir.ElementType { return v.Shape.Elem }

func isSigned(t ir.ElementType) bool {
	switch t {
	case ir.S4, ir.S8, ir.S16, ir.S32, ir.S64:
		return true
	}
	return false
}

// zeroOf is the additive identity of type t: -0.0 for floats, 0 for
// integers.
func zeroOf(t ir.ElementType) float64 {
	if t.IsFloat() {
		return negZero
	}
	return 0
}

// ---- identities and absorbing elements --------------------------------------

func addZero(b *builder, v *Value) *Value {
	t := elem(v)
	if !t.IsFloat() && !t.IsInteger() {
		return nil
	}
	return commuted(v, func(x, y *Value) *Value {
		if isSplatOf(y, zeroOf(t)) {
			return x
		}
		return nil
	})
}

func addNegate(b *builder, v *Value) *Value {
	return commuted(v, func(x, y *Value) *Value {
		if y.Op == OpNegate {
			return b.binary(OpSubtract, x, y.Args[0])
		}
		return nil
	})
}

func subtractZero(b *builder, v *Value) *Value {
	if t := elem(v); (t.IsFloat() || t.IsInteger()) && isSplatOf(v.Args[1], 0) {
		return v.Args[0]
	}
	return nil
}

func subtractSelf(b *builder, v *Value) *Value {
	if elem(v).IsInteger() && v.Args[0] == v.Args[1] {
		return b.splat(elem(v), 0, v.Shape.Dims)
	}
	return nil
}

func subtractNegate(b *builder, v *Value) *Value {
	if y := v.Args[1]; y.Op == OpNegate {
		return b.binary(OpAdd, v.Args[0], y.Args[0])
	}
	return nil
}

func multiplyOne(b *builder, v *Value) *Value {
	return commuted(v, func(x, y *Value) *Value {
		if isSplatOf(y, 1) {
			return x
		}
		return nil
	})
}

func multiplyZero(b *builder, v *Value) *Value {
	if !elem(v).IsInteger() {
		return nil
	}
	return commuted(v, func(x, y *Value) *Value {
		if isSplatOf(y, 0) {
			return y
		}
		return nil
	})
}

func multiplyMinusOne(b *builder, v *Value) *Value {
	if t := elem(v); !t.IsFloat() && !isSigned(t) {
		return nil
	}
	return commuted(v, func(x, y *Value) *Value {
		if isSplatOf(y, -1) {
			return b.unary(OpNegate, x)
		}
		return nil
	})
}

func divideOne(b *builder, v *Value) *Value {
	if t := elem(v); (t.IsFloat() || t.IsInteger()) && isSplatOf(v.Args[1], 1) {
		return v.Args[0]
	}
	return nil
}

func divideMinusOne(b *builder, v *Value) *Value {
	if elem(v).IsFloat() && isSplatOf(v.Args[1], -1) {
		return b.unary(OpNegate, v.Args[0])
	}
	return nil
}

func powerOne(b *builder, v *Value) *Value {
	if t := elem(v); (t.IsFloat() || t.IsInteger()) && isSplatOf(v.Args[1], 1) {
		return v.Args[0]
	}
	return nil
}

func sameOperands(b *builder, v *Value) *Value {
	if v.Args[0] == v.Args[1] {
		return v.Args[0]
	}
	return nil
}

func maximumNegInf(b *builder, v *Value) *Value {
	if !elem(v).IsFloat() {
		return nil
	}
	return commuted(v, func(x, y *Value) *Value {
		if isSplatOf(y, negInf) {
			return x
		}
		return nil
	})
}

func minimumPosInf(b *builder, v *Value) *Value {
	if !elem(v).IsFloat() {
		return nil
	}
	return commuted(v, func(x, y *Value) *Value {
		if isSplatOf(y, posInf) {
			return x
		}
		return nil
	})
}

func isBits(t ir.ElementType) bool { return t == ir.PRED || t.IsInteger() }

func andOnes(b *builder, v *Value) *Value {
	if !isBits(elem(v)) {
		return nil
	}
	return commuted(v, func(x, y *Value) *Value {
		if isAllOnes(y) {
			return x
		}
		return nil
	})
}

func andZero(b *builder, v *Value) *Value {
	if !isBits(elem(v)) {
		return nil
	}
	return commuted(v, func(x, y *Value) *Value {
		if isSplatOf(y, 0) {
			return y
		}
		return nil
	})
}

func orZero(b *builder, v *Value) *Value {
	if !isBits(elem(v)) {
		return nil
	}
	return commuted(v, func(x, y *Value) *Value {
		if isSplatOf(y, 0) {
			return x
		}
		return nil
	})
}

func orOnes(b *builder, v *Value) *Value {
	if !isBits(elem(v)) {
		return nil
	}
	return commuted(v, func(x, y *Value) *Value {
		if isAllOnes(y) {
			return y
		}
		return nil
	})
}

func xorZero(b *builder, v *Value) *Value {
	if !isBits(elem(v)) {
		return nil
	}
	return commuted(v, func(x, y *Value) *Value {
		if isSplatOf(y, 0) {
			return x
		}
		return nil
	})
}

func xorSelf(b *builder, v *Value) *Value {
	if isBits(elem(v)) && v.Args[0] == v.Args[1] {
		return b.splat(elem(v), 0, v.Shape.Dims)
	}
	return nil
}

func involution(b *builder, v *Value) *Value {
	if x := v.Args[0]; x.Op == v.Op {
		return x.Args[0]
	}
	return nil
}

func absAbs(b *builder, v *Value) *Value {
	switch x := v.Args[0]; x.Op {
	case Op(ir.OpAbs):
		return x
	case OpNegate:
		return b.unary(Op(ir.OpAbs), x.Args[0])
	}
	return nil
}

func selectConstant(b *builder, v *Value) *Value {
	switch p := v.Args[0]; {
	case isSplatOf(p, 1):
		return v.Args[1]
	case isSplatOf(p, 0):
		return v.Args[2]
	}
	return nil
}

func selectSame(b *builder, v *Value) *Value {
	if v.Args[1] == v.Args[2] {
		return v.Args[1]
	}
	return nil
}

func selectNot(b *builder, v *Value) *Value {
	if p := v.Args[0]; p.Op == Op(ir.OpNot) {
		return b.value(OpSelect, v.Shape.Clone(), p.Args[0], v.Args[2], v.Args[1])
	}
	return nil
}

// ---- conversions ------------------------------------------------------------

func convertSame(b *builder, v *Value) *Value {
	if elem(v.Args[0]) == elem(v) {
		return v.Args[0]
	}
	return nil
}

func convertRoundTrip(b *builder, v *Value) *Value {
	x := v.Args[0]
	if x.Op != OpConvert {
		return nil
	}
	src := x.Args[0]
	if !exactConversion(elem(src), elem(x)) || elem(v).IsComplex() {
		return nil
	}
	return b.convert(src, elem(v))
}

// exactWidening lists the float types every value of which (NaN and ±∞
// included) the listed wider float types represent exactly.
var exactWidening = map[ir.ElementType][]ir.ElementType{
	ir.F16:      {ir.F32, ir.F64},
	ir.BF16:     {ir.F32, ir.F64},
	ir.F32:      {ir.F64},
	ir.F8E5M2:   {ir.F16, ir.BF16, ir.F32, ir.F64},
	ir.F8E4M3FN: {ir.F16, ir.BF16, ir.F32, ir.F64},
}

// mantissaDigits is the precision of each float type in bits, counting the
// implicit one: every integer of magnitude up to 2^digits is exact in it.
var mantissaDigits = map[ir.ElementType]int{
	ir.F8E5M2: 3, ir.F8E4M3FN: 4, ir.BF16: 8, ir.F16: 11, ir.F32: 24, ir.F64: 53,
}

// exactConversion reports whether converting from a to b keeps every value
// of a exactly, so that a later conversion from b sees a's value.
func exactConversion(a, c ir.ElementType) bool {
	switch {
	case a == c:
		return true
	case a.IsComplex() || c.IsComplex():
		return false
	case a == ir.PRED:
		return c.IsInteger() || c.IsFloat()
	case a.IsFloat():
		return slices.Contains(exactWidening[a], c)
	case a.IsInteger() && c.IsInteger():
		if isSigned(a) {
			return isSigned(c) && c.BitWidth() >= a.BitWidth()
		}
		if isSigned(c) {
			return c.BitWidth() > a.BitWidth()
		}
		return c.BitWidth() >= a.BitWidth()
	case a.IsInteger() && c.IsFloat():
		bits := a.BitWidth()
		if isSigned(a) {
			bits--
		}
		return bits <= mantissaDigits[c]
	}
	return false
}

func copyOperand(b *builder, v *Value) *Value { return v.Args[0] }

// ---- tuples -----------------------------------------------------------------

func elementOfTuple(b *builder, v *Value) *Value {
	if t := v.Args[0]; t.Op == OpTuple && v.Attrs.TupleIndex < len(t.Args) {
		return t.Args[v.Attrs.TupleIndex]
	}
	return nil
}

func tupleOfElements(b *builder, v *Value) *Value {
	if len(v.Args) == 0 || v.Args[0].Op != OpGetTupleElement {
		return nil
	}
	t := v.Args[0].Args[0]
	if len(t.Shape.Tuple) != len(v.Args) {
		return nil
	}
	for i, a := range v.Args {
		if a.Op != OpGetTupleElement || a.Args[0] != t || a.Attrs.TupleIndex != i {
			return nil
		}
	}
	return t
}

// ---- movement of constants and splats -----------------------------------------

func reshapeConstant(b *builder, v *Value) *Value {
	x := v.Args[0]
	if !x.IsConstant() || !x.Shape.IsArray() {
		return nil
	}
	l, err := x.Attrs.Literal.Reshape(v.Shape.Dims...)
	if err != nil {
		return nil
	}
	return b.constant(l)
}

func movementOfSplat(b *builder, v *Value) *Value {
	switch v.Op {
	case OpReshape, OpTranspose, OpBroadcast, OpSlice, Op(ir.OpReverse), OpCopy:
	default:
		return nil
	}
	x := v.Args[0]
	if x.Op != OpBroadcast {
		return nil
	}
	if s, ok := scalarOf(x); ok {
		return b.broadcast(s, v.Shape.Dims, nil)
	}
	return nil
}

func elementwiseOfBroadcasts(b *builder, v *Value) *Value {
	if !v.Op.IsElementwise() || v.Op == OpMap || len(v.Args) == 0 || len(v.Funcs) != 0 {
		return nil
	}
	first := v.Args[0]
	if first.Op != OpBroadcast {
		return nil
	}
	ops := make([]*Value, len(v.Args))
	for i, a := range v.Args {
		if a.Op != OpBroadcast || !slices.Equal(a.Attrs.Dimensions, first.Attrs.Dimensions) ||
			!slices.Equal(a.Args[0].Shape.Dims, first.Args[0].Shape.Dims) || !ir.SameDimensions(a.Shape, v.Shape) {
			return nil
		}
		ops[i] = a.Args[0]
	}
	inner := b.value(v.Op, ir.MakeShape(elem(v), first.Args[0].Shape.Dims...), ops...)
	inner.Attrs = v.Attrs
	inner.Raw = v.Raw
	return b.broadcast(inner, v.Shape.Dims, first.Attrs.Dimensions)
}

// ---- reshapes, transposes, bitcasts, broadcasts ---------------------------------

func reshapeSame(b *builder, v *Value) *Value {
	if ir.SameDimensions(v.Args[0].Shape, v.Shape) {
		return v.Args[0]
	}
	return nil
}

func reshapeReshape(b *builder, v *Value) *Value {
	if x := v.Args[0]; x.Op == OpReshape {
		return b.reshape(x.Args[0], v.Shape.Dims)
	}
	return nil
}

func transposeIdentity(b *builder, v *Value) *Value {
	if isIota(v.Attrs.Dimensions) {
		return v.Args[0]
	}
	return nil
}

func transposeTranspose(b *builder, v *Value) *Value {
	x := v.Args[0]
	if x.Op != OpTranspose {
		return nil
	}
	perm := make([]int, len(v.Attrs.Dimensions))
	for i, q := range v.Attrs.Dimensions {
		perm[i] = x.Attrs.Dimensions[q]
	}
	return b.transpose(x.Args[0], perm)
}

// maxChain bounds how far movementChain looks down a chain.
const maxChain = 8

// movementChain composes the indexing maps of a chain of reshapes,
// transposes and bitcasts ending at v and replaces v by the chain's source
// when the composed map is the identity, or by one reshape or one transpose
// (in that order of preference: a reshape costs nothing) of the deepest
// source for which the map is proved to be one.
func movementChain(b *builder, v *Value) *Value {
	m, ok := movementMap(v)
	if !ok {
		return nil
	}
	var (
		src  *Value
		perm []int
	)
	x := v.Args[0]
	for depth := 1; depth <= maxChain; depth++ {
		if depth == 1 {
			m = affine.Simplify(m)
		}
		if isIdentityMap(m) && ir.SameDimensions(x.Shape, v.Shape) {
			return x
		}
		// v itself is a one-step candidate of its own kind; a reshape is
		// never rewritten into a transpose, which would only go back.
		switch {
		case (depth > 1 || v.Op != OpReshape) && isReshapeMap(m, v.Shape.Dims, x.Shape.Dims):
			src, perm = x, nil
		case depth == 1 && v.Op != OpBitcast:
		default:
			if p, ok := permutationOf(m, v.Shape.Dims, x.Shape.Dims); ok {
				src, perm = x, p
			}
		}
		next, ok := movementMap(x)
		if !ok {
			break
		}
		c, err := m.Compose(next)
		if err != nil {
			break
		}
		m, x = c, x.Args[0]
	}
	switch {
	case src == nil:
		return nil
	case perm != nil:
		return b.transpose(src, perm)
	}
	return b.reshape(src, v.Shape.Dims)
}

func broadcastIdentity(b *builder, v *Value) *Value {
	if x := v.Args[0]; ir.SameDimensions(x.Shape, v.Shape) && isIota(v.Attrs.Dimensions) {
		return x
	}
	return nil
}

func broadcastBroadcast(b *builder, v *Value) *Value {
	x := v.Args[0]
	if x.Op != OpBroadcast {
		return nil
	}
	dims := make([]int, len(x.Attrs.Dimensions))
	for i, d := range x.Attrs.Dimensions {
		dims[i] = v.Attrs.Dimensions[d]
	}
	return b.broadcast(x.Args[0], v.Shape.Dims, dims)
}

func broadcastOfUnitReshape(b *builder, v *Value) *Value {
	r := v.Args[0]
	if r.Op != OpReshape {
		return nil
	}
	y := r.Args[0]
	var q []int // the dimensions of r that are not of size 1
	for d, n := range r.Shape.Dims {
		if n != 1 {
			q = append(q, d)
		}
	}
	if len(q) != y.Shape.Rank() {
		return nil
	}
	dims := make([]int, len(q))
	for i, d := range q {
		if y.Shape.Dims[i] != r.Shape.Dims[d] {
			return nil
		}
		dims[i] = v.Attrs.Dimensions[d]
	}
	return b.broadcast(y, v.Shape.Dims, dims)
}

// ---- slices, pads, concatenations, reversals -----------------------------------

func sliceWhole(b *builder, v *Value) *Value {
	x := v.Args[0]
	for i, s := range v.Attrs.Slice {
		if s.Start != 0 || s.Limit != x.Shape.Dims[i] || s.Stride != 1 {
			return nil
		}
	}
	return x
}

func sliceSlice(b *builder, v *Value) *Value {
	x := v.Args[0]
	if x.Op != OpSlice {
		return nil
	}
	sl := make([]ir.SliceDim, len(v.Attrs.Slice))
	for i, outer := range v.Attrs.Slice {
		inner := x.Attrs.Slice[i]
		start := inner.Start + inner.Stride*outer.Start
		stride := inner.Stride * outer.Stride
		if v.Shape.Dims[i] == 0 {
			// An empty outer slice may start past the inner one's end,
			// and so past the operand's: any empty range will do.
			sl[i] = ir.SliceDim{Start: 0, Limit: 0, Stride: 1}
			continue
		}
		limit := start + (v.Shape.Dims[i]-1)*stride + 1
		sl[i] = ir.SliceDim{Start: start, Limit: limit, Stride: stride}
	}
	return b.slice(x.Args[0], sl)
}

func sliceConcatenate(b *builder, v *Value) *Value {
	x := v.Args[0]
	if x.Op != OpConcatenate || len(x.Attrs.Dimensions) != 1 {
		return nil
	}
	c := x.Attrs.Dimensions[0]
	s, n := v.Attrs.Slice[c], v.Shape.Dims[c]
	if n == 0 {
		return nil
	}
	first, last := s.Start, s.Start+(n-1)*s.Stride
	off := 0
	for _, a := range x.Args {
		size := a.Shape.Dims[c]
		if first >= off && last < off+size {
			sl := slices.Clone(v.Attrs.Slice)
			sl[c] = ir.SliceDim{Start: first - off, Limit: last - off + 1, Stride: s.Stride}
			return b.slice(a, sl)
		}
		off += size
	}
	return nil
}

func dynamicSliceConstant(b *builder, v *Value) *Value {
	x := v.Args[0]
	rank := x.Shape.Rank()
	sizes := v.Attrs.DynamicSliceSizes
	if len(sizes) != rank {
		return nil
	}
	var starts []int64
	switch idx := v.Args[1:]; {
	case len(idx) == rank:
		for _, a := range idx {
			s, ok := constantIndex(a, 0)
			if !ok {
				return nil
			}
			starts = append(starts, s)
		}
	case len(idx) == 1 && idx[0].Shape.Rank() == 1 && idx[0].Shape.Dims[0] == rank:
		for i := 0; i < rank; i++ {
			s, ok := constantIndex(idx[0], i)
			if !ok {
				return nil
			}
			starts = append(starts, s)
		}
	default:
		return nil
	}
	sl := make([]ir.SliceDim, rank)
	for i, s := range starts {
		start := int(min(max(s, 0), int64(x.Shape.Dims[i]-sizes[i])))
		sl[i] = ir.SliceDim{Start: start, Limit: start + sizes[i], Stride: 1}
	}
	return b.slice(x, sl)
}

// constantIndex reads element i of an integer constant as a start index,
// saturating unsigned values beyond the int64 range as the evaluator does.
func constantIndex(v *Value, i int) (int64, bool) {
	if !v.IsConstant() || !elem(v).IsInteger() {
		return 0, false
	}
	l := v.Attrs.Literal
	if elem(v) == ir.U64 {
		u := l.Uint64At(i)
		if u > math.MaxInt64 {
			return math.MaxInt64, true
		}
		return int64(u), true
	}
	return l.Int64At(i), true
}

func dynamicUpdateWhole(b *builder, v *Value) *Value {
	if u := v.Args[1]; ir.SameDimensions(u.Shape, v.Args[0].Shape) && elem(u) == elem(v) {
		return u
	}
	return nil
}

func padZero(b *builder, v *Value) *Value {
	for _, p := range v.Attrs.Padding {
		if p != (ir.PaddingDim{}) {
			return nil
		}
	}
	return v.Args[0]
}

func concatenateTrivial(b *builder, v *Value) *Value {
	if len(v.Args) == 1 {
		return v.Args[0]
	}
	if len(v.Attrs.Dimensions) != 1 {
		return nil
	}
	c := v.Attrs.Dimensions[0]
	var kept []*Value
	for _, a := range v.Args {
		if a.Shape.Dims[c] != 0 {
			kept = append(kept, a)
		}
	}
	switch {
	case len(kept) == len(v.Args) || len(kept) == 0:
		return nil
	case len(kept) == 1:
		return kept[0]
	}
	w := b.value(OpConcatenate, v.Shape.Clone(), kept...)
	w.Attrs.Dimensions = []int{c}
	return w
}

func reverseTrivial(b *builder, v *Value) *Value {
	x := v.Args[0]
	var dims []int
	for _, d := range v.Attrs.Dimensions {
		if x.Shape.Dims[d] > 1 {
			dims = append(dims, d)
		}
	}
	if x.Op == Op(ir.OpReverse) && sameSet(x.Attrs.Dimensions, dims) {
		return x.Args[0]
	}
	if len(dims) == len(v.Attrs.Dimensions) {
		return nil
	}
	return b.reverse(x, dims)
}

func sameSet(a, c []int) bool {
	a, c = slices.Clone(a), slices.Clone(c)
	slices.Sort(a)
	slices.Sort(c)
	return slices.Equal(slices.Compact(a), slices.Compact(c))
}

// ---- reductions --------------------------------------------------------------

// plainReducers are the reducer ops without attributes.
var plainReducers = map[Op]bool{OpAdd: true, OpMultiply: true, OpMaximum: true, OpMinimum: true,
	Op(ir.OpAnd): true, Op(ir.OpOr): true, Op(ir.OpXor): true}

// singleReduce returns the reducer op of a one-operand reduce whose region
// is a plain binary op, and whether init is its exact identity.
func singleReduce(v *Value) (op Op, identity bool, ok bool) {
	if len(v.Args) != 2 || len(v.Funcs) != 1 || !v.Shape.IsArray() {
		return 0, false, false
	}
	op, ok = reducerOp(v.Funcs[0])
	// A reducer of another precision than its operand or init value
	// converts them: the rewrites below would not.
	if !ok || elem(v.Funcs[0].Root) != elem(v) || !plainReducers[op] || elem(v.Args[0]) != elem(v) || elem(v.Args[1]) != elem(v) {
		return 0, false, false
	}
	id, has := identityOf(op, elem(v))
	init := v.Args[1]
	identity = has && init.IsConstant() && init.Attrs.Literal.Equal(id)
	return op, identity, true
}

func reduceNoDimensions(b *builder, v *Value) *Value {
	if len(v.Attrs.Dimensions) != 0 {
		return nil
	}
	op, identity, ok := singleReduce(v)
	if !ok {
		return nil
	}
	x := v.Args[0]
	if identity {
		return x
	}
	init := b.broadcast(v.Args[1], v.Shape.Dims, nil)
	return b.binary(op, init, x)
}

func reduceUnitDimensions(b *builder, v *Value) *Value {
	x := v.Args[0]
	for _, d := range v.Attrs.Dimensions {
		if x.Shape.Dims[d] != 1 {
			return nil
		}
	}
	if _, identity, ok := singleReduce(v); ok && identity && len(v.Attrs.Dimensions) > 0 {
		return b.reshape(x, v.Shape.Dims)
	}
	return nil
}

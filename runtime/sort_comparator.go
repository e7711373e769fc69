package runtime

// Recognising sort comparators as the standard orders, by what they
// compute rather than how they are written.
//
// A comparator is taken as an ordering of one key operand when
//
//   - its root is compare(f(lhs), f(rhs)) with direction LT or GT, where lhs
//     and rhs are the two parameters of one operand (either way round) and
//     f is the same computation of each (structurally, its one parameter
//     exchanged): the comparator is then cmp(f(x), f(y)), and nothing else
//     — no other operand — takes part; and
//   - evaluated on the key type's values, it orders them exactly as one of
//     the row sorts' orders does: the total order or JAX's canonical order
//     (-0 = +0, every NaN equal and after +Inf), ascending or descending,
//     or the integers' order.
//
// The values: all of them for 16-bit keys (65,536, exhaustively). For
// 32-bit keys f must be built from comparisons, selections and logical ops
// of its parameter and constants; such an f is, between consecutive
// "breakpoints" (its constants and the special values), either the
// identity or a constant, so the breakpoints, their neighbours and the
// special values decide it completely. The check sorts the values in the
// candidate order and evaluates the comparator on every pair of neighbours,
// both ways round: strictly before where the order says so, neither way
// where it calls them equal. cmp(f(x), f(y)) being a strict weak order
// wherever that check passes (a NaN f value would be incomparable with a
// neighbour the order separates it from), the neighbours decide every pair.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/ssa"
)

// sortOrdering is a comparator recognised as a standard order of one key
// operand.
type sortOrdering struct {
	key   int // the key operand
	order kiln.SortOrder
}

// sortKeyTypes are the key types the row sorts take.
func sortKeyType(t ir.ElementType) bool {
	switch t {
	case ir.F32, ir.BF16, ir.F16, ir.S32, ir.U32, ir.S16, ir.U16:
		return true
	}
	return false
}

// recogniseComparator decides whether comparator f of a sort of operands of
// types ts is a standard ordering of one operand, and which.
func (c *compiler) recogniseComparator(f *ssa.Func, ts []ir.ElementType) (sortOrdering, bool) {
	if f == nil || len(f.Params) != 2*len(ts) || f.Root == nil {
		return sortOrdering{}, false
	}
	r := f.Root
	if r.Op != ssa.OpCompare || len(r.Args) != 2 || (r.Attrs.Direction != ir.CmpLT && r.Attrs.Direction != ir.CmpGT) {
		return sortOrdering{}, false
	}
	deps := paramDeps(f)
	u, w := r.Args[0], r.Args[1]
	a, okA := singleParam(deps[u])
	b, okB := singleParam(deps[w])
	if !okA || !okB || a == b || a/2 != b/2 {
		return sortOrdering{}, false
	}
	if !sameComputation(u, w, f.Params[a], f.Params[b], map[[2]*ssa.Value]bool{}) {
		return sortOrdering{}, false
	}
	key := a / 2
	t := ts[key]
	if !sortKeyType(t) {
		return sortOrdering{}, false
	}
	if u == f.Params[a] && w == f.Params[b] {
		// compare(lhs, rhs) itself: the keys' own order, as the
		// evaluator's keyed sort reads them (floats: the total order of
		// their bits).
		ct := r.Attrs.CompareType
		if ct == ir.CmpTypeDefault {
			ct = ir.DefaultComparisonType(t)
		}
		if ct != ir.DefaultComparisonType(t) && !(t.IsFloat() && ct == ir.CmpTypeTotalOrder) || t.IsFloat() && ct != ir.CmpTypeTotalOrder {
			return sortOrdering{}, false
		}
		order := kiln.SortAscending
		if (r.Attrs.Direction == ir.CmpGT) != (a%2 == 1) {
			order = kiln.SortDescending
		}
		return sortOrdering{key: key, order: order}, true
	}
	cacheKey := fmt.Sprint(ts, "\n", f)
	if v, ok := comparatorCache.Load(cacheKey); ok {
		o := v.(cachedOrdering)
		return o.ord, o.ok
	}
	ord, ok := c.evaluateComparator(f, ts, key, u, f.Params[a])
	comparatorCache.Store(cacheKey, cachedOrdering{ord, ok})
	return ord, ok
}

// comparatorCache holds the orders of the comparators recognised so far,
// by their text and operand types (the same computation orders the same
// way).
var comparatorCache sync.Map

type cachedOrdering struct {
	ord sortOrdering
	ok  bool
}

// evaluateComparator decides by evaluation which order the comparator f,
// of the form compare(u(lhs), u(rhs)) over key operand key, is.
func (c *compiler) evaluateComparator(f *ssa.Func, ts []ir.ElementType, key int, u, p *ssa.Value) (sortOrdering, bool) {
	t := ts[key]
	var sample []uint64
	switch t.BitWidth() {
	case 16:
		sample = make([]uint64, 1<<16)
		for i := range sample {
			sample[i] = uint64(i)
		}
	default:
		z := u
		if k, ok := totalOrderKey(u); ok && k.Shape.Elem == t {
			z = k
		}
		if !piecewise(z, p) {
			return sortOrdering{}, false
		}
		sample = breakpointSample(z, t)
	}
	fn, err := c.function(f)
	if err != nil || !fn.Tiled() {
		return sortOrdering{}, false
	}
	chk := &comparatorCheck{fn: fn, ts: ts, key: key, t: t}
	// A few values of every class first: most candidates fail on them.
	var probe []uint64
	for i := 0; i < len(sample); i += max(1, len(sample)/256) {
		probe = append(probe, sample[i])
	}
	for _, order := range candidateOrders(t) {
		if chk.matches(probe, order) && chk.matches(sample, order) {
			return sortOrdering{key: key, order: order}, true
		}
	}
	return sortOrdering{}, false
}

// paramDeps returns, for each value of f, the set of parameters it depends
// on (bit i for parameter i; parameters beyond 63 are not tracked, which
// only ever makes a comparator refused).
func paramDeps(f *ssa.Func) map[*ssa.Value]uint64 {
	deps := map[*ssa.Value]uint64{}
	for i, p := range f.Params {
		if i < 64 {
			deps[p] = 1 << i
		} else {
			deps[p] = ^uint64(0)
		}
	}
	for _, v := range f.Values {
		if v.Op == ssa.OpParameter {
			continue
		}
		var d uint64
		for _, a := range v.Args {
			d |= deps[a]
		}
		deps[v] = d
	}
	return deps
}

// singleParam returns the parameter of a set holding exactly one.
func singleParam(d uint64) (int, bool) {
	if d == 0 || d&(d-1) != 0 || d == ^uint64(0) {
		return 0, false
	}
	i := 0
	for d > 1 {
		d >>= 1
		i++
	}
	return i, true
}

// sameComputation reports whether u (a function of parameter pu) and w (of
// pw) are the same computation: the same ops with the same attributes over
// operands that correspond, pu in u's place where pw is in w's.
func sameComputation(u, w, pu, pw *ssa.Value, seen map[[2]*ssa.Value]bool) bool {
	if u == pu || w == pw {
		return u == pu && w == pw
	}
	if u == w {
		return true // a shared value (a constant)
	}
	if seen[[2]*ssa.Value{u, w}] {
		return true
	}
	if u.Op != w.Op || len(u.Args) != len(w.Args) || !u.Shape.Equal(w.Shape) || u.Aux != w.Aux || len(u.Funcs) != 0 || len(w.Funcs) != 0 {
		return false
	}
	switch u.Op {
	case ssa.OpConstant:
		if u.Attrs.Literal == nil || w.Attrs.Literal == nil || !u.Attrs.Literal.Equal(w.Attrs.Literal) {
			return false
		}
	case ssa.OpParameter:
		return false
	case ssa.OpCompare:
		if u.Attrs.Direction != w.Attrs.Direction || u.Attrs.CompareType != w.Attrs.CompareType {
			return false
		}
	case ssa.OpBitcast, ssa.FromIR(ir.OpBitcastConvert):
		if !u.Shape.IsScalar() {
			return false
		}
	default:
		if !u.Op.IsElementwise() {
			return false
		}
	}
	for i := range u.Args {
		if !sameComputation(u.Args[i], w.Args[i], pu, pw, seen) {
			return false
		}
	}
	seen[[2]*ssa.Value{u, w}] = true
	return true
}

// totalOrderKey recognises XLA's integer key of the floats' total order —
// its comparison expander writes compare(x, y, TOTALORDER) as a signed
// comparison of b < 0 ? b ^ MAX : b, b the bits of x as a signed integer of
// the same width, MAX that type's largest value — and returns the float x
// whose key u is. The key is a strictly increasing map of the total order
// onto the signed order (negative floats' magnitudes flipped, positives
// unchanged), so comparing keys compares x in the total order.
func totalOrderKey(u *ssa.Value) (*ssa.Value, bool) {
	if u.Op != ssa.OpSelect || len(u.Args) != 3 || !u.Shape.IsScalar() {
		return nil, false
	}
	c, flipped, b := u.Args[0], u.Args[1], u.Args[2]
	t := u.Shape.Elem
	if !t.IsSigned() || t.BitWidth() < 16 {
		return nil, false
	}
	x, ok := bitsOf(b)
	if !ok {
		return nil, false
	}
	// c: b < 0, signed.
	if c.Op != ssa.OpCompare || len(c.Args) != 2 || c.Args[0] != b || c.Attrs.Direction != ir.CmpLT ||
		!(c.Attrs.CompareType == ir.CmpTypeDefault || c.Attrs.CompareType == ir.CmpTypeSigned) || !scalarConstant(c.Args[1], 0) {
		return nil, false
	}
	// flipped: b ^ MAX, either way round.
	maxInt := uint64(1)<<(t.BitWidth()-1) - 1
	if flipped.Op != ssa.Op(ir.OpXor) || len(flipped.Args) != 2 {
		return nil, false
	}
	k, y := flipped.Args[0], flipped.Args[1]
	if y != b {
		k, y = y, k
	}
	if y != b || !scalarConstant(k, maxInt) {
		return nil, false
	}
	return x, true
}

// bitsOf returns the float whose bits v reinterprets as an integer of the
// same width (a bitcast, as lowering splits a retyping one).
func bitsOf(v *ssa.Value) (*ssa.Value, bool) {
	x := v
	for (x.Op == ssa.OpBitcast || x.Op == ssa.FromIR(ir.OpBitcastConvert)) && len(x.Args) == 1 && x.Args[0].Shape.IsScalar() {
		x = x.Args[0]
	}
	if x == v || !x.Shape.Elem.IsFloat() || x.Shape.Elem.BitWidth() != v.Shape.Elem.BitWidth() {
		return nil, false
	}
	return x, true
}

// scalarConstant reports whether v is a scalar integer constant with the
// given bits (in its width).
func scalarConstant(v *ssa.Value, bits uint64) bool {
	if v.Op != ssa.OpConstant || v.Attrs.Literal == nil || !v.Shape.IsScalar() || !v.Shape.Elem.IsInteger() {
		return false
	}
	w := v.Shape.Elem.BitWidth()
	got := uint64(ops.IntAt(v.Attrs.Literal.Bytes(), v.Shape.Elem, 0))
	if w < 64 {
		got &= 1<<w - 1
	}
	return got == bits
}

// piecewise reports whether u is built from its parameter p and constants
// by comparisons, selections and logical ops only.
func piecewise(u, p *ssa.Value) bool {
	ok := true
	var walk func(v *ssa.Value)
	seen := map[*ssa.Value]bool{}
	walk = func(v *ssa.Value) {
		if seen[v] || !ok {
			return
		}
		seen[v] = true
		switch v.Op {
		case ssa.OpParameter:
			ok = ok && v == p
		case ssa.OpConstant:
			ok = ok && v.Attrs.Literal != nil && v.Shape.IsScalar()
		case ssa.OpCompare, ssa.OpSelect, ssa.Op(ir.OpAnd), ssa.Op(ir.OpOr), ssa.Op(ir.OpXor), ssa.Op(ir.OpNot):
		default:
			ok = false
		}
		for _, a := range v.Args {
			walk(a)
		}
	}
	walk(u)
	return ok
}

// breakpointSample lists 32-bit key values of type t that decide a
// piecewise u: its constants of type t, the special values, each with its
// neighbours in the type's order, and values spread over the whole range.
func breakpointSample(u *ssa.Value, t ir.ElementType) []uint64 {
	var points []uint64
	var walk func(v *ssa.Value)
	seen := map[*ssa.Value]bool{}
	walk = func(v *ssa.Value) {
		if seen[v] {
			return
		}
		seen[v] = true
		if v.Op == ssa.OpConstant && v.Shape.Elem == t {
			points = append(points, uint64(ops.Elems[uint32](v.Attrs.Literal.Bytes())[0]))
		}
		for _, a := range v.Args {
			walk(a)
		}
	}
	walk(u)
	if t == ir.F32 {
		points = append(points, 0, 0x80000000, 0x7f800000, 0xff800000, 0x3f800000, 0xbf800000,
			0x7f7fffff, 0xff7fffff, 0x00800000, 0x80800000, 1, 0x80000001, 0x007fffff, 0x807fffff,
			0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffffff, 0xffffffff, 0x7fa00000, 0xffa00000)
	} else {
		points = append(points, 0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0x80000001, 0x7ffffffe, 0xfffffffe)
	}
	var sample []uint64
	for _, b := range points {
		sample = append(sample, b, (b+1)&0xffffffff, (b-1)&0xffffffff)
		if t == ir.F32 && b&0x7fffffff <= 0x7f800000 {
			// The float neighbours: one step away in magnitude, either way.
			f := math.Float32frombits(uint32(b))
			sample = append(sample, uint64(math.Float32bits(math.Nextafter32(f, float32(math.Inf(1))))),
				uint64(math.Float32bits(math.Nextafter32(f, float32(math.Inf(-1))))))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 4096 {
		sample = append(sample, uint64(r.Uint32()))
	}
	for e := uint64(0); e < 256; e++ { // every exponent, both signs
		sample = append(sample, e<<23|uint64(r.Uint32()&0x7fffff), 1<<31|e<<23|uint64(r.Uint32()&0x7fffff))
	}
	slices.Sort(sample)
	return slices.Compact(sample)
}

// candidateOrders are the orders a comparator of keys of type t may be.
func candidateOrders(t ir.ElementType) []kiln.SortOrder {
	if t.IsFloat() {
		return []kiln.SortOrder{kiln.SortCanonicalNaN, kiln.SortAscending,
			kiln.SortCanonicalNaN | kiln.SortDescending, kiln.SortDescending}
	}
	return []kiln.SortOrder{kiln.SortAscending, kiln.SortDescending}
}

// comparatorCheck evaluates a comparator on pairs of key values.
type comparatorCheck struct {
	fn  *ops.Func
	ts  []ir.ElementType
	key int
	t   ir.ElementType
}

// orderKey maps key bits of type t to an integer whose order is order's
// (ascending; the caller reverses for SortDescending).
func orderKey(t ir.ElementType, b uint64, order kiln.SortOrder) int64 {
	w := t.BitWidth()
	switch {
	case t.IsFloat():
		if order&kiln.SortCanonicalNaN != 0 {
			b = canonicalBits(t, b)
		}
		return ops.TotalOrderKey(b, w)
	case t.IsSigned():
		return int64(b<<(64-w)) >> (64 - w)
	}
	return int64(b)
}

// canonicalBits is JAX's canonicalisation of float bits: -0 to +0, every
// NaN to one positive NaN.
func canonicalBits(t ir.ElementType, b uint64) uint64 {
	w := t.BitWidth()
	sign := uint64(1) << (w - 1)
	var inf uint64
	switch t {
	case ir.F32:
		inf = 0x7f800000
	case ir.BF16:
		inf = 0x7f80
	default:
		inf = 0x7c00
	}
	switch {
	case b == sign:
		return 0
	case b&^sign > inf:
		return inf | 1
	}
	return b
}

// matches reports whether the comparator orders the sample as order does.
func (c *comparatorCheck) matches(sample []uint64, order kiln.SortOrder) bool {
	keys := make([]int64, len(sample))
	for i, b := range sample {
		keys[i] = orderKey(c.t, b, order)
		if order&kiln.SortDescending != 0 {
			keys[i] = ^keys[i]
		}
	}
	idx := make([]int, len(sample))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case keys[i] < keys[j]:
			return -1
		case keys[i] > keys[j]:
			return 1
		}
		return 0
	})
	m := len(idx) - 1
	if m <= 0 {
		return true
	}
	es := c.t.ByteSize()
	x := make([]byte, m*es)
	y := make([]byte, m*es)
	want := make([]bool, m)
	for i := 0; i < m; i++ {
		putBits(x[i*es:], es, sample[idx[i]])
		putBits(y[i*es:], es, sample[idx[i+1]])
		want[i] = keys[idx[i]] < keys[idx[i+1]]
	}
	fwd := c.eval(x, y, m)
	back := c.eval(y, x, m)
	for i := 0; i < m; i++ {
		if fwd[i] != want[i] || back[i] {
			return false
		}
	}
	return true
}

// putBits writes the low es bytes of b.
func putBits(dst []byte, es int, b uint64) {
	for i := 0; i < es; i++ {
		dst[i] = byte(b >> (8 * i))
	}
}

// eval computes comparator(x[i], y[i]) for the m key pairs, the other
// operands' parameters zero.
func (c *comparatorCheck) eval(x, y []byte, m int) []bool {
	fn := c.fn
	regs := make([]byte, fn.TileBytes())
	out := make([]byte, m)
	zeros := make([]byte, ops.Tile*8)
	fn.LoadConstsTile(regs)
	for start := 0; start < m; start += ops.Tile {
		n := min(ops.Tile, m-start)
		for i := range c.ts {
			if i == c.key {
				continue
			}
			fn.LoadTile(regs, 2*i, zeros, 0, n)
			fn.LoadTile(regs, 2*i+1, zeros, 0, n)
		}
		fn.LoadTile(regs, 2*c.key, x, start, n)
		fn.LoadTile(regs, 2*c.key+1, y, start, n)
		fn.RunTile(regs, n)
		fn.StoreTile(regs, 0, out, start, n)
	}
	res := make([]bool, m)
	for i, b := range out {
		res[i] = b != 0
	}
	return res
}

// recogniseLexicographic decides whether comparator f of a sort of
// operands of types ts orders by several keys in turn — jnp.lexsort's and
// lax.sort's with num_keys > 1, written
//
//	or(less₁, and(equal₁, rest))
//
// (either operand order of or and and) — and returns the keys' orders, the
// most significant first. less₁ must be a standard order of one key
// (recogniseComparator, on the sub-function it roots), equal₁ the compare
// EQ of the same two values in a total compare type (so true exactly when
// less₁ holds neither way), and rest depend on other keys only: a standard
// order of one or, recursively, lexicographic. A lone standard order is
// not taken here.
func (c *compiler) recogniseLexicographic(f *ssa.Func, ts []ir.ElementType) ([]sortOrdering, bool) {
	if f == nil || len(f.Params) != 2*len(ts) || f.Root == nil {
		return nil, false
	}
	ords, ok := c.lexicographic(f, ts, f.Root, paramDeps(f))
	if !ok || len(ords) < 2 {
		return nil, false
	}
	return ords, true
}

// lexicographic is recogniseLexicographic's recursion over the value r,
// which may also be a single key's order.
func (c *compiler) lexicographic(f *ssa.Func, ts []ir.ElementType, r *ssa.Value, deps map[*ssa.Value]uint64) ([]sortOrdering, bool) {
	sub := func(root *ssa.Value) *ssa.Func {
		g := *f
		g.Root = root
		return &g
	}
	if r.Op == ssa.OpCompare {
		ord, ok := c.recogniseComparator(sub(r), ts)
		return []sortOrdering{ord}, ok
	}
	if r.Op != ssa.Op(ir.OpOr) || len(r.Args) != 2 || r.Shape.Elem != ir.PRED {
		return nil, false
	}
	for _, pair := range [][2]*ssa.Value{{r.Args[0], r.Args[1]}, {r.Args[1], r.Args[0]}} {
		less, both := pair[0], pair[1]
		if less.Op != ssa.OpCompare || both.Op != ssa.Op(ir.OpAnd) || len(both.Args) != 2 {
			continue
		}
		for _, q := range [][2]*ssa.Value{{both.Args[0], both.Args[1]}, {both.Args[1], both.Args[0]}} {
			eq, rest := q[0], q[1]
			if !sameKeyEquality(less, eq) {
				continue
			}
			// less and eq read one key's two parameters, rest none of them.
			d := deps[less]
			lo := d & -d
			p, ok := singleParam(lo)
			if !ok || p%2 != 0 || d != lo|lo<<1 || deps[eq] != d || deps[rest]&d != 0 {
				continue
			}
			first, ok := c.recogniseComparator(sub(less), ts)
			if !ok || first.key != p/2 {
				continue
			}
			more, ok := c.lexicographic(f, ts, rest, deps)
			if !ok {
				continue
			}
			return append([]sortOrdering{first}, more...), true
		}
	}
	return nil, false
}

// sameKeyEquality reports whether eq is the compare EQ of less's two
// values (either way round) in a total compare type, so that eq holds
// exactly when less holds neither way: the floats' total order, or the
// integers'.
func sameKeyEquality(less, eq *ssa.Value) bool {
	if eq.Op != ssa.OpCompare || len(eq.Args) != 2 || len(less.Args) != 2 || eq.Attrs.Direction != ir.CmpEQ {
		return false
	}
	a, b := less.Args[0], less.Args[1]
	if !(eq.Args[0] == a && eq.Args[1] == b || eq.Args[0] == b && eq.Args[1] == a) {
		return false
	}
	t := a.Shape.Elem
	ct, lt := eq.Attrs.CompareType, less.Attrs.CompareType
	if ct == ir.CmpTypeDefault {
		ct = ir.DefaultComparisonType(t)
	}
	if lt == ir.CmpTypeDefault {
		lt = ir.DefaultComparisonType(t)
	}
	switch {
	case t.IsFloat():
		return ct == ir.CmpTypeTotalOrder && lt == ir.CmpTypeTotalOrder
	case t.IsInteger():
		return ct == lt && (ct == ir.CmpTypeSigned || ct == ir.CmpTypeUnsigned)
	}
	return false
}

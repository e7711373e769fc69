package ssa

import (
	"math"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// recognisePatterns replaces the float32 subgraphs JAX emits for softmax,
// layer normalisation and GELU by Kiln's fused ops, which the runtime runs
// as one kernel each:
//
//	softmax:    exp(x - bcast(reduce-max(x))) / bcast(reduce-add(exp(…)))
//	            along the last dimension (jax.nn.softmax, the numerically safe
//	            form; the max's init is -inf) ⇒ kiln.softmax(x)
//	layer-norm: (x - bcast(mean)) · bcast(rsqrt(var + ε)) [· bcast(scale)]
//	            [+ bcast(bias)] along the last dimension, the product in any
//	            association, or with (x - bcast(mean)) / bcast(sqrt(var + ε))
//	            (JAX's layer_norm) in place of the rsqrt product, mean = Σx · (1/N) or Σx / N, and var either
//	            flax's max(E[x²] - mean², 0) or the centred E[(x - mean)²]
//	            ⇒ kiln.layer-norm(x, scale, bias), ε in Attrs.Epsilon (a
//	            missing scale is ones, a missing bias zeros)
//	gelu tanh:  0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³))), products in
//	            any association (x³ as x·(x·x), (x·x)·x or power(x, 3)),
//	            halving as · 0.5 or / 2 ⇒ kiln.gelu(x) aux=GeluTanh
//	gelu erf:   0.5 · x · (1 + erf(x / √2)) (or x · (1/√2)) ⇒ kiln.gelu(x)
//	            aux=GeluErf
//
// Constants must equal the formula's to float32 precision (relative 1e-6;
// 1/N to within 1e-6·N). Subgraphs are matched from the last value back, so
// the largest match wins and its inner values are not matched again.
//
// What the replacement may change, beyond the rounding of each step: the
// kernels compute the formulas above in float32 with their own exp, tanh,
// erf and rsqrt (each within a few ULP) and their own order of summation,
// so softmax and GELU results agree with the original to a few ULP plus
// the summation's rounding (relative n·2⁻²⁴ at worst for a row of n).
// Layer-norm computes the centred variance E[(x - mean)²]: for the centred
// pattern that is the same formula; for flax's E[x²] - mean² it is the same
// quantity without that form's cancellation, so the results agree to a few
// ULP for well-conditioned rows (|mean| within a few std) and the kernel is
// the more accurate one when |mean| ≫ std, where the original loses up to
// log2(mean²/var) bits (and clamps a negative difference to 0).
func recognisePatterns(p *Program) error {
	for _, f := range p.Funcs {
		if err := recogniseFunc(f); err != nil {
			return err
		}
	}
	return nil
}

// pattern is one recognised subgraph: match returns the replacement of its
// root v and every value of the subgraph, or nil.
type pattern struct {
	name  string
	match func(b *builder, v *Value) (*Value, []*Value)
}

var patternTable = [...]pattern{
	{"softmax", matchSoftmax},
	{"layer-norm", matchLayerNorm},
	{"gelu-tanh", matchGeluTanh},
	{"gelu-erf", matchGeluErf},
}

func recogniseFunc(f *Func) error {
	b := &builder{f: f}
	repl := map[*Value]*Value{}
	matched := map[*Value]bool{}
	for i := len(f.Values) - 1; i >= 0; i-- {
		v := f.Values[i]
		// A value of dynamic shape keeps its HLO form: its ops run on the
		// actual sizes one by one, which Kiln's own ops do not.
		if matched[v] || v.Shape.Elem != ir.F32 || !v.Shape.IsArray() || v.Shape.Rank() == 0 || v.Shape.IsDynamic() {
			continue
		}
		for _, pt := range patternTable {
			w, seen := pt.match(b, v)
			if b.err != nil {
				return b.err
			}
			if w == nil {
				continue
			}
			w.Shape = v.Shape.Clone()
			repl[v] = w
			for _, s := range seen {
				matched[s] = true
			}
			break
		}
	}
	if len(repl) == 0 {
		return nil
	}
	for _, v := range f.Values {
		for j, a := range v.Args {
			if r, ok := repl[a]; ok {
				v.Args[j] = r
			}
		}
	}
	if r, ok := repl[f.Root]; ok {
		f.Root = r
	}
	f.Sort()
	return nil
}

// matcher collects the values of a subgraph being matched.
type matcher struct{ seen []*Value }

func (m *matcher) see(vs ...*Value) { m.seen = append(m.seen, vs...) }

// rowReduce matches a one-operand reduce of x over its last dimension with
// the reducer op, whose init is the op's neutral start (-inf for maximum, ±0
// for add), and returns x.
func (m *matcher) rowReduce(v *Value, op Op) (*Value, bool) {
	if v.Op != OpReduce || len(v.Args) != 2 || len(v.Funcs) != 1 {
		return nil, false
	}
	x, init := v.Args[0], v.Args[1]
	r := x.Shape.Rank()
	if r == 0 || !slices.Equal(v.Attrs.Dimensions, []int{r - 1}) {
		return nil, false
	}
	if o, ok := reducerOp(v.Funcs[0]); !ok || o != op {
		return nil, false
	}
	switch op {
	case OpMaximum:
		if !isSplatOf(init, negInf) {
			return nil, false
		}
	case OpAdd:
		if !isSplatOf(init, 0) && !isSplatOf(init, negZero) {
			return nil, false
		}
	}
	m.see(v, init)
	return x, true
}

// rowBroadcast matches a broadcast of a per-row value (an array of v's
// dimensions but the last) along the last dimension, directly or through a
// reshape that appends a dimension of size 1 (the keepdims form), and
// returns the per-row value.
func (m *matcher) rowBroadcast(v *Value) (*Value, bool) {
	rank := v.Shape.Rank()
	if v.Op != OpBroadcast || rank == 0 {
		return nil, false
	}
	a, rows := v.Args[0], v.Shape.Dims[:rank-1]
	if isIota(v.Attrs.Dimensions) && len(v.Attrs.Dimensions) == rank-1 && slices.Equal(a.Shape.Dims, rows) {
		m.see(v)
		return a, true
	}
	if a.Op == OpReshape && isIota(v.Attrs.Dimensions) && len(v.Attrs.Dimensions) == rank &&
		slices.Equal(a.Shape.Dims, append(slices.Clone(rows), 1)) && slices.Equal(a.Args[0].Shape.Dims, rows) {
		m.see(v, a)
		return a.Args[0], true
	}
	return nil, false
}

// featureBroadcast matches a broadcast of a vector of the last dimension's
// size along the last dimension and returns the vector.
func (m *matcher) featureBroadcast(v *Value) (*Value, bool) {
	rank := v.Shape.Rank()
	if v.Op != OpBroadcast || rank == 0 || !slices.Equal(v.Attrs.Dimensions, []int{rank - 1}) {
		return nil, false
	}
	a := v.Args[0]
	if !slices.Equal(a.Shape.Dims, v.Shape.Dims[rank-1:]) || a.Shape.Elem != v.Shape.Elem {
		return nil, false
	}
	m.see(v)
	return a, true
}

// product flattens a tree of multiplies and divisions by splat constants
// rooted at v into its non-constant factors (in order) and the product of
// its constant factors. It does not look into stop, nor deeper than depth.
func (m *matcher) product(v, stop *Value, depth int) (factors []*Value, c float64) {
	c = 1
	var walk func(v *Value, depth int)
	walk = func(v *Value, depth int) {
		if v != stop && depth > 0 {
			if k, ok := splatFloat(v); ok {
				m.see(v)
				c *= k
				return
			}
			switch v.Op {
			case OpMultiply:
				m.see(v)
				walk(v.Args[0], depth-1)
				walk(v.Args[1], depth-1)
				return
			case OpDivide:
				if d, ok := splatFloat(v.Args[1]); ok && d != 0 {
					m.see(v, v.Args[1])
					c /= d
					walk(v.Args[0], depth-1)
					return
				}
			}
		}
		factors = append(factors, v)
	}
	walk(v, depth)
	return factors, c
}

// near reports whether c equals want to float32 precision.
func near(c, want float64) bool { return math.Abs(c-want) <= 1e-6*math.Abs(want) }

// mean matches Σx · (1/N) or Σx / N over the last dimension of x (N its
// size) and returns x.
func (m *matcher) mean(v *Value) (*Value, bool) {
	fs, c := m.product(v, nil, 3)
	if len(fs) != 1 {
		return nil, false
	}
	x, ok := m.rowReduce(fs[0], OpAdd)
	if !ok || !near(c*float64(x.Shape.Dims[x.Shape.Rank()-1]), 1) {
		return nil, false
	}
	return x, true
}

// onePlus matches (1 + op(a)) in either order and returns a.
func (m *matcher) onePlus(v *Value, op Op) (*Value, bool) {
	if v.Op != OpAdd {
		return nil, false
	}
	for _, ab := range [2][2]*Value{{v.Args[0], v.Args[1]}, {v.Args[1], v.Args[0]}} {
		if ab[0].Op == op && isSplatOf(ab[1], 1) {
			m.see(v, ab[0], ab[1])
			return ab[0].Args[0], true
		}
	}
	return nil, false
}

func matchSoftmax(b *builder, v *Value) (*Value, []*Value) {
	m := &matcher{}
	if v.Op != OpDivide {
		return nil, nil
	}
	e := v.Args[0]
	if e.Op != OpExp {
		return nil, nil
	}
	z, ok := m.rowBroadcast(v.Args[1])
	if !ok {
		return nil, nil
	}
	if ez, ok := m.rowReduce(z, OpAdd); !ok || ez != e {
		return nil, nil
	}
	s := e.Args[0]
	if s.Op != OpSubtract {
		return nil, nil
	}
	x := s.Args[0]
	mx, ok := m.rowBroadcast(s.Args[1])
	if !ok {
		return nil, nil
	}
	if xm, ok := m.rowReduce(mx, OpMaximum); !ok || xm != x {
		return nil, nil
	}
	m.see(v, e, s)
	return b.value(OpSoftmax, v.Shape.Clone(), x), m.seen
}

func matchLayerNorm(b *builder, v *Value) (*Value, []*Value) {
	m := &matcher{}
	n := v.Shape.Dims[v.Shape.Rank()-1]
	prod, bias := v, (*Value)(nil)
	if v.Op == OpAdd {
		for _, ab := range [2][2]*Value{{v.Args[0], v.Args[1]}, {v.Args[1], v.Args[0]}} {
			if bv, ok := m.featureBroadcast(ab[1]); ok {
				prod, bias = ab[0], bv
				break
			}
		}
		if bias == nil {
			return nil, nil
		}
		m.see(v)
	}
	fs, c := m.product(prod, nil, 3)
	// A division by the per-row square root, as JAX's layer_norm writes
	// it: a / bcast(sqrt(w)) is a · bcast(rsqrt(w)).
	var sqrtOf *Value
	for i, f := range fs {
		if f.Op != OpDivide {
			continue
		}
		d, ok := m.rowBroadcast(f.Args[1])
		if !ok || d.Op != Op(ir.OpSqrt) {
			continue
		}
		sub, c2 := m.product(f.Args[0], nil, 3)
		m.see(f, d)
		fs = append(append(slices.Clone(fs[:i]), sub...), fs[i+1:]...)
		c *= c2
		sqrtOf = d.Args[0]
		break
	}
	if c != 1 || len(fs) < 1 || len(fs) > 3 {
		return nil, nil
	}
	var x, mean, r, scale *Value
	for _, f := range fs {
		switch {
		case f.Op == OpSubtract && x == nil:
			mu, ok := m.rowBroadcast(f.Args[1])
			if !ok {
				return nil, nil
			}
			m.see(f)
			x, mean = f.Args[0], mu
		default:
			if rr, ok := m.rowBroadcast(f); ok && rr.Op == OpRsqrt && r == nil {
				r = rr
			} else if s, ok := m.featureBroadcast(f); ok && scale == nil {
				scale = s
			} else {
				return nil, nil
			}
		}
	}
	if x == nil || (r == nil) == (sqrtOf == nil) || x.Shape.Elem != ir.F32 || !ir.SameDimensions(x.Shape, v.Shape) {
		return nil, nil
	}
	if xm, ok := m.mean(mean); !ok || xm != x {
		return nil, nil
	}
	ve := sqrtOf
	if r != nil {
		ve = r.Args[0]
		m.see(r)
	}
	m.see(ve)
	if ve.Op != OpAdd {
		return nil, nil
	}
	var variance *Value
	eps := math.NaN()
	for _, ab := range [2][2]*Value{{ve.Args[0], ve.Args[1]}, {ve.Args[1], ve.Args[0]}} {
		if e, ok := splatFloat(ab[1]); ok {
			variance, eps = ab[0], e
			m.see(ab[1])
			break
		}
	}
	if variance == nil || !(eps >= 0) || !m.variance(variance, x, mean) {
		return nil, nil
	}
	if scale == nil {
		scale = b.splat(ir.F32, 1, []int{n})
	}
	if bias == nil {
		bias = b.splat(ir.F32, 0, []int{n})
	}
	w := b.value(OpLayerNorm, v.Shape.Clone(), x, scale, bias)
	w.Attrs.Epsilon = float32(eps)
	return w, m.seen
}

// variance matches flax's max(E[x²] - mean², 0) or the centred
// E[(x - mean)²] over the last dimension.
func (m *matcher) variance(v, x, mean *Value) bool {
	if v.Op == OpMaximum {
		for _, ab := range [2][2]*Value{{v.Args[0], v.Args[1]}, {v.Args[1], v.Args[0]}} {
			d := ab[0]
			if !isSplatOf(ab[1], 0) || d.Op != OpSubtract {
				continue
			}
			sq, mm := d.Args[0], d.Args[1]
			if mm.Op != OpMultiply || mm.Args[0] != mean || mm.Args[1] != mean {
				continue
			}
			xx, ok := m.mean(sq)
			if !ok || xx.Op != OpMultiply || xx.Args[0] != x || xx.Args[1] != x {
				continue
			}
			m.see(v, ab[1], d, mm, xx)
			return true
		}
		return false
	}
	q, ok := m.mean(v)
	if !ok || q.Op != OpMultiply || q.Args[0] != q.Args[1] {
		return false
	}
	xc := q.Args[0]
	if xc.Op != OpSubtract || xc.Args[0] != x {
		return false
	}
	mu, ok := m.rowBroadcast(xc.Args[1])
	if !ok || mu != mean {
		return false
	}
	m.see(q, xc)
	return true
}

func matchGeluTanh(b *builder, v *Value) (*Value, []*Value) {
	if v.Op != OpMultiply && v.Op != OpDivide {
		return nil, nil
	}
	m := &matcher{}
	outer, _ := m.product(v, nil, 4)
	for _, p := range outer {
		w, ok := m.onePlus(p, OpTanh)
		if !ok {
			continue
		}
		ws, c1 := m.product(w, nil, 3)
		if len(ws) != 1 || !near(c1, math.Sqrt(2/math.Pi)) || ws[0].Op != OpAdd {
			continue
		}
		u := ws[0]
		for _, xt := range [2][2]*Value{{u.Args[0], u.Args[1]}, {u.Args[1], u.Args[0]}} {
			x := xt[0]
			if !m.isCubeTerm(xt[1], x) {
				continue
			}
			if fs, half := m.product(v, x, 4); half == 0.5 && len(fs) == 2 && (fs[0] == x && fs[1] == p || fs[0] == p && fs[1] == x) {
				m.see(u)
				g := b.value(OpGelu, v.Shape.Clone(), x)
				g.Aux = GeluTanh
				return g, m.seen
			}
		}
	}
	return nil, nil
}

// isCubeTerm matches 0.044715 · x³.
func (m *matcher) isCubeTerm(t, x *Value) bool {
	fs, c := m.product(t, x, 4)
	if !near(c, 0.044715) {
		return false
	}
	switch {
	case len(fs) == 3 && fs[0] == x && fs[1] == x && fs[2] == x:
		return true
	case len(fs) == 1 && fs[0].Op == Op(ir.OpPower) && fs[0].Args[0] == x && isSplatOf(fs[0].Args[1], 3):
		m.see(fs[0], fs[0].Args[1])
		return true
	}
	return false
}

func matchGeluErf(b *builder, v *Value) (*Value, []*Value) {
	if v.Op != OpMultiply && v.Op != OpDivide {
		return nil, nil
	}
	m := &matcher{}
	outer, _ := m.product(v, nil, 4)
	for _, p := range outer {
		z, ok := m.onePlus(p, OpErf)
		if !ok {
			continue
		}
		zs, c := m.product(z, nil, 3)
		if len(zs) != 1 || !near(c, 1/math.Sqrt2) {
			continue
		}
		x := zs[0]
		if fs, half := m.product(v, x, 4); half == 0.5 && len(fs) == 2 && (fs[0] == x && fs[1] == p || fs[0] == p && fs[1] == x) {
			g := b.value(OpGelu, v.Shape.Clone(), x)
			g.Aux = GeluErf
			return g, m.seen
		}
	}
	return nil, nil
}

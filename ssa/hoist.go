package ssa

import (
	"slices"

	"github.com/kilnml/kiln/ir"
)

// hoist moves elementwise work to the smallest index space that computes
// it, and data movement after the elementwise ops that do not need it, as
// XLA's algebraic simplifier does:
//
//	(op (broadcast x d) … (splat c) …)  ⇒ (broadcast (op x … (splat c) …) d)
//	                                      every non-splat operand a broadcast
//	                                      with the same d from the same shape:
//	                                      batch-norm's per-channel rsqrt,
//	                                      scale and shift are computed once per
//	                                      channel, not once per pixel
//	(op (reshape x) … (splat c) …)      ⇒ (reshape (op x … (splat c) …))
//	                                      every non-splat operand a reshape from
//	                                      the same dimensions: the keepdims
//	                                      reshapes JAX writes for
//	                                      broadcast_in_dim meet and cancel
//	(op (transpose x p) … (broadcast y e) … (splat c) …)
//	                                    ⇒ (transpose (op x … (broadcast y p⁻¹∘e) …) p)
//	                                      the transposes around convolutions
//	                                      of other layouts meet and cancel
//
// for every elementwise op. Each rewrite computes the same elements with the
// same operations (only where they are computed changes), so it is exact.
func hoist(p *Program) error {
	for _, f := range p.Funcs {
		for round := 0; round < maxSimplifyRounds; round++ {
			changed := false
			err := rewriteFunc(f, func(b *builder, v *Value) *Value {
				w := hoistValue(b, v)
				if w != nil {
					changed = true
				}
				return w
			})
			if err != nil {
				return err
			}
			if !changed {
				break
			}
		}
	}
	return nil
}

// hoistable reports whether v is an elementwise op whose operands all have
// its dimensions (no implicit scalars) and that computes nothing else.
func hoistable(v *Value) bool {
	if !v.Op.IsElementwise() || v.Op == OpMap || len(v.Funcs) != 0 || len(v.Args) == 0 ||
		!v.Shape.IsArray() || v.Shape.IsDynamic() || v.Op.HasSideEffect() {
		return false
	}
	if _, isIR := v.Op.IR(); !isIR {
		return false
	}
	for _, a := range v.Args {
		if !a.Shape.IsArray() || !ir.SameDimensions(a.Shape, v.Shape) {
			return false
		}
	}
	return true
}

func hoistValue(b *builder, v *Value) *Value {
	if !hoistable(v) {
		return nil
	}
	if w := hoistOverBroadcasts(b, v); w != nil {
		return w
	}
	if w := sinkReshapes(b, v); w != nil {
		return w
	}
	return sinkTransposes(b, v)
}

// splatSource returns the scalar a splat operand broadcasts.
func splatSource(a *Value) (*Value, bool) {
	if a.Op == OpBroadcast && a.Args[0].Shape.IsScalar() {
		return a.Args[0], true
	}
	return nil, false
}

// rebuild computes v's op over operands of dimensions dims: splats are
// broadcast to dims, the others are given by inner.
func rebuild(b *builder, v *Value, dims []int, inner func(i int, a *Value) *Value) *Value {
	ops := make([]*Value, len(v.Args))
	for i, a := range v.Args {
		if s, ok := splatSource(a); ok {
			ops[i] = b.broadcast(s, dims, nil)
			continue
		}
		ops[i] = inner(i, a)
	}
	w := b.value(v.Op, ir.MakeShape(v.Shape.Elem, dims...), ops...)
	w.Attrs = v.Attrs
	w.Raw = v.Raw
	w.Aux = v.Aux
	return w
}

func hoistOverBroadcasts(b *builder, v *Value) *Value {
	var first *Value
	for _, a := range v.Args {
		if _, ok := splatSource(a); ok {
			continue
		}
		if a.Op != OpBroadcast {
			return nil
		}
		if first == nil {
			first = a
			continue
		}
		if !slices.Equal(a.Attrs.Dimensions, first.Attrs.Dimensions) || !slices.Equal(a.Args[0].Shape.Dims, first.Args[0].Shape.Dims) {
			return nil
		}
	}
	if first == nil || first.Args[0].Shape.ElementCount() >= v.Shape.ElementCount() {
		return nil // all splats (simplify's), or nothing to gain
	}
	dims := first.Args[0].Shape.Dims
	inner := rebuild(b, v, dims, func(_ int, a *Value) *Value { return a.Args[0] })
	return b.broadcast(inner, v.Shape.Dims, first.Attrs.Dimensions)
}

func sinkReshapes(b *builder, v *Value) *Value {
	var from []int
	n := 0
	for _, a := range v.Args {
		if _, ok := splatSource(a); ok {
			continue
		}
		if a.Op != OpReshape || !a.Args[0].Shape.IsArray() || a.Args[0].Shape.IsDynamic() {
			return nil
		}
		if n == 0 {
			from = a.Args[0].Shape.Dims
		} else if !slices.Equal(a.Args[0].Shape.Dims, from) {
			return nil
		}
		n++
	}
	if n == 0 {
		return nil
	}
	inner := rebuild(b, v, from, func(_ int, a *Value) *Value { return a.Args[0] })
	return b.reshape(inner, v.Shape.Dims)
}

func sinkTransposes(b *builder, v *Value) *Value {
	var perm []int
	for _, a := range v.Args {
		if a.Op != OpTranspose {
			continue
		}
		if perm == nil {
			perm = a.Attrs.Dimensions
		} else if !slices.Equal(a.Attrs.Dimensions, perm) {
			return nil
		}
	}
	if perm == nil {
		return nil
	}
	// Output dimension j of v is dimension perm[j] of the untransposed
	// frame; a broadcast's operand dimension k, mapped to v's dimension
	// e[k], lands on perm[e[k]], which must keep the broadcast's order.
	from := make([]int, len(perm))
	for j, pj := range perm {
		from[pj] = v.Shape.Dims[j]
	}
	for _, a := range v.Args {
		if _, ok := splatSource(a); ok || a.Op == OpTranspose {
			continue
		}
		if a.Op != OpBroadcast {
			return nil
		}
		mapped := make([]int, len(a.Attrs.Dimensions))
		for k, e := range a.Attrs.Dimensions {
			mapped[k] = perm[e]
		}
		if !slices.IsSorted(mapped) {
			return nil
		}
	}
	inner := rebuild(b, v, from, func(_ int, a *Value) *Value {
		if a.Op == OpTranspose {
			return a.Args[0]
		}
		mapped := make([]int, len(a.Attrs.Dimensions))
		for k, e := range a.Attrs.Dimensions {
			mapped[k] = perm[e]
		}
		return b.broadcast(a.Args[0], from, mapped)
	})
	return b.transpose(inner, perm)
}

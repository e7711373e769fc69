package ssa

import (
	"slices"

	"github.com/kilnml/kiln/ir"
)

// canonDot rewrites every dot into the one form the GEMM kernels take, a
// batch of matrix products [B,M,K]·[B,K,N] → [B,M,N] (lhs_batch_dims={0},
// rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}):
//
//   - the lhs is transposed to [batch…, M…, K…] and the rhs to
//     [batch…, K…, N…], batch and contracting dimensions in the order the
//     dimension numbers pair them, free dimensions in their order;
//   - each is reshaped to rank 3 (an empty group has size 1, so a vector
//     operand gives M = 1 or N = 1);
//   - the [B,M,N] product is reshaped to the dot's shape, whose dimensions
//     are exactly batch…, lhs free…, rhs free… in that order.
//
// Identity transposes and reshapes are not inserted. Transposes and
// reshapes, never copies: the scheduler folds them into the GEMM's strides
// where it can. The products and their order of accumulation are the dot's.
func canonDot(p *Program) error {
	for _, f := range p.Funcs {
		if err := rewriteFunc(f, canonicalDot); err != nil {
			return err
		}
	}
	return nil
}

// canonicalDims are the dimension numbers of a canonical dot.
func canonicalDims() *ir.DotDimensionNumbers {
	return &ir.DotDimensionNumbers{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContracting: []int{2}, RhsContracting: []int{1}}
}

// IsCanonicalDot reports whether v is a dot in canon-dot's form
// [B,M,K]·[B,K,N] → [B,M,N].
func IsCanonicalDot(v *Value) bool {
	if v.Op != OpDot || len(v.Args) != 2 || v.Attrs.DotDims == nil ||
		v.Args[0].Shape.Rank() != 3 || v.Args[1].Shape.Rank() != 3 {
		return false
	}
	d, c := *v.Attrs.DotDims, canonicalDims()
	return slices.Equal(d.LhsBatch, c.LhsBatch) && slices.Equal(d.RhsBatch, c.RhsBatch) &&
		slices.Equal(d.LhsContracting, c.LhsContracting) && slices.Equal(d.RhsContracting, c.RhsContracting)
}

func canonicalDot(b *builder, v *Value) *Value {
	if v.Op != OpDot || len(v.Args) != 2 || IsCanonicalDot(v) || v.Shape.IsDynamic() {
		return nil
	}
	l, r := v.Args[0], v.Args[1]
	if !l.Shape.IsArray() || !r.Shape.IsArray() || l.Shape.IsDynamic() || r.Shape.IsDynamic() {
		return nil
	}
	var d ir.DotDimensionNumbers
	if v.Attrs.DotDims != nil {
		d = *v.Attrs.DotDims
	}
	lFree := freeDims(l.Shape.Rank(), d.LhsBatch, d.LhsContracting)
	rFree := freeDims(r.Shape.Rank(), d.RhsBatch, d.RhsContracting)
	lPerm := slices.Concat(d.LhsBatch, lFree, d.LhsContracting)
	rPerm := slices.Concat(d.RhsBatch, d.RhsContracting, rFree)
	batch := sizeOf(l.Shape.Dims, d.LhsBatch)
	m := sizeOf(l.Shape.Dims, lFree)
	k := sizeOf(l.Shape.Dims, d.LhsContracting)
	n := sizeOf(r.Shape.Dims, rFree)
	lhs := b.reshape(b.transpose(l, lPerm), []int{batch, m, k})
	rhs := b.reshape(b.transpose(r, rPerm), []int{batch, k, n})
	dims := canonicalDims()
	s, err := ir.InferDotShape(lhs.Shape, rhs.Shape, *dims, v.Shape.Elem)
	b.fail("dot", err)
	dot := b.value(OpDot, s, lhs, rhs)
	dot.Attrs = v.Attrs
	dot.Attrs.DotDims = dims
	dot.Raw = v.Raw
	return b.reshape(dot, v.Shape.Dims)
}

// freeDims lists, in order, the dimensions of a rank-n operand that are in
// neither list.
func freeDims(n int, a, c []int) []int {
	var free []int
	for i := 0; i < n; i++ {
		if !slices.Contains(a, i) && !slices.Contains(c, i) {
			free = append(free, i)
		}
	}
	return free
}

func sizeOf(dims, which []int) int {
	n := 1
	for _, d := range which {
		n *= dims[d]
	}
	return n
}

package ssa

import "github.com/kilnml/kiln/ir"

// The batch-norm fold of foldWeights for weights passed at run time. A
// model whose parameters are arguments (as jax.jit(apply)(params, x)
// exports it) computes its batch-norm factors on every run; the per-channel
// transform after a convolution is then a pass over the convolution's
// whole output. The same algebra moves it onto the weights and one bias,
// computed per run on per-channel vectors:
//
//	conv(x, W) · bcast(s)              ⇒ conv(x, W·bcastW(s))
//	(conv(x, W) ± bcast(b)) · bcast(s) ⇒ conv(x, W·bcastW(s)) ± bcast(b·s)
//	(conv ± bcast(c₁)) ± bcast(c₂)     ⇒ conv ± bcast(c₁ ± c₂)
//
// with s, b and c rank-1 values along the output feature dimension (or
// scalars), bcastW broadcasting along the weights' output-feature
// dimension. The product W·s reads each weight once, as the packing of
// run-time weights does, and the scheduler fuses it into that packing
// (sched: a convolution's weight scale), so the transform costs no pass
// over the activations. The scaling happens only where the weights are not
// a constant (constant weights with factors known only at run time keep
// their compile-time packing); the bias merge happens for any convolution.
// The numerics are those of the constant fold.

// runTimeConv reports whether v is a float32 convolution whose weights are
// not a constant and whose only user is user, and returns its
// output-feature dimension, its number of output channels and the
// weights' output-feature dimension.
func runTimeConv(v, user *Value, users map[*Value][]*Value) (outDim, n, kDim int, ok bool) {
	if v.Op != OpConvolution || v.Attrs.ConvDims == nil || len(v.Args) != 2 || v.Shape.Elem != ir.F32 ||
		v.Args[1].IsConstant() || v.Args[1].Shape.Elem != ir.F32 || !v.Args[1].Shape.IsArray() ||
		len(users[v]) != 1 || users[v][0] != user {
		return 0, 0, 0, false
	}
	dn := v.Attrs.ConvDims
	return dn.OutputFeature, v.Shape.Dims[dn.OutputFeature], dn.KernelOutputFeature, true
}

// channelVector returns the rank-1 float32 value of n elements that v
// broadcasts along dimension dim (a splat of a scalar becomes a rank-1
// broadcast of it), or false. Constant factors are the constant fold's.
func channelVector(b *builder, v *Value, dim, n int) (*Value, bool) {
	if v.Op != OpBroadcast || v.Shape.Elem != ir.F32 || len(v.Args) != 1 {
		return nil, false
	}
	c := v.Args[0]
	switch {
	case c.Shape.IsScalar() && len(v.Attrs.Dimensions) == 0:
		return b.broadcast(c, []int{n}, nil), true
	case c.Shape.Rank() == 1 && c.Shape.Dims[0] == n && len(v.Attrs.Dimensions) == 1 && v.Attrs.Dimensions[0] == dim:
		return c, true
	}
	return nil, false
}

// isChannelVector reports whether v is a broadcast channelVector accepts,
// without building anything.
func isChannelVector(v *Value, dim, n int) bool {
	if v.Op != OpBroadcast || v.Shape.Elem != ir.F32 || len(v.Args) != 1 {
		return false
	}
	c := v.Args[0]
	return c.Shape.IsScalar() && len(v.Attrs.Dimensions) == 0 ||
		c.Shape.Rank() == 1 && c.Shape.Dims[0] == n && len(v.Attrs.Dimensions) == 1 && v.Attrs.Dimensions[0] == dim
}

// runTimeScaled is conv c with its weights scaled by the rank-1 s along
// their output-feature dimension kDim.
func runTimeScaled(b *builder, c *Value, kDim int, s *Value) *Value {
	w := c.Args[1]
	sw := b.broadcast(s, w.Shape.Dims, []int{kDim})
	return newConv(b, c, b.binary(OpMultiply, w, sw))
}

// foldRunTimeAffineIntoConv applies one rewrite of the run-time fold to v,
// or returns nil. Rewrites whose factors are all constants are left to
// foldAffineIntoConv.
func foldRunTimeAffineIntoConv(b *builder, v *Value, users map[*Value][]*Value) *Value {
	if v.Shape.Elem != ir.F32 || !v.Shape.IsArray() || len(v.Args) != 2 {
		return nil
	}
	for i := 0; i < 2; i++ {
		y, f := v.Args[i], v.Args[1-i]
		switch v.Op {
		case OpMultiply:
			// conv · s
			if outDim, n, kDim, ok := runTimeConv(y, v, users); ok && isChannelVector(f, outDim, n) {
				s, _ := channelVector(b, f, outDim, n)
				return runTimeScaled(b, y, kDim, s)
			}
			// (conv ± c) · s
			conv, cv, outDim, ok := convPlusBroadcast(y, users, isChannelVector)
			if !ok {
				continue
			}
			_, n, kDim, ok := runTimeConv(conv, y, users)
			if !ok || !isChannelVector(f, outDim, n) {
				continue
			}
			s, _ := channelVector(b, f, outDim, n)
			c, _ := channelVector(b, cv, outDim, n)
			shift := b.broadcast(b.binary(OpMultiply, c, s), v.Shape.Dims, []int{outDim})
			return b.binary(y.Op, runTimeScaled(b, conv, kDim, s), shift)
		case OpAdd, OpSubtract:
			// (conv ± c₁) ± c₂
			if i == 1 && v.Op == OpSubtract {
				continue // c₂ − (…) is not of this form
			}
			conv, cv, dim, ok := convPlusBroadcast(y, users, isChannelVector)
			if !ok {
				continue
			}
			n := conv.Shape.Dims[dim]
			if !isChannelVector(f, dim, n) || cv.Args[0].IsConstant() && f.Args[0].IsConstant() {
				continue // not a vector, or the constant fold's
			}
			c1, _ := channelVector(b, cv, dim, n)
			c2, _ := channelVector(b, f, dim, n)
			// conv + c₁ ± c₂ = conv + (c₁ ± c₂); conv − c₁ + c₂ =
			// conv + (c₂ − c₁); conv − c₁ − c₂ = conv − (c₁ + c₂).
			switch {
			case y.Op == OpAdd:
				return b.binary(OpAdd, conv, b.broadcast(b.binary(v.Op, c1, c2), v.Shape.Dims, []int{dim}))
			case v.Op == OpAdd:
				return b.binary(OpAdd, conv, b.broadcast(b.binary(OpSubtract, c2, c1), v.Shape.Dims, []int{dim}))
			default:
				return b.binary(OpSubtract, conv, b.broadcast(b.binary(OpAdd, c1, c2), v.Shape.Dims, []int{dim}))
			}
		}
	}
	return nil
}

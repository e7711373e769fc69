package ssa

import (
	"github.com/kilnml/kiln/ir"
)

// foldWeights prepares constant weights for inference, once, at compile
// time (weights are constants when the caller binds them):
//
//   - Data movement of a constant feeding a dot or a convolution (the
//     transposes and reshapes canon-dot and canon-conv put on weights of
//     other layouts) is evaluated whatever its size, which constant folding
//     bounds: the kernels then pack the weights once instead of moving them
//     on every run.
//
//   - A per-channel affine transform of a float32 convolution's output
//     whose factors are constants — inference batch-norm in any of the
//     forms frameworks write, after hoisting and folding: y·s, (y + b)·s,
//     (y − m)·s, then + t — is folded into the weights and a bias:
//
//     conv(x, W) · bcast(s)              ⇒ conv(x, W·s)
//     (conv(x, W) ± bcast(b)) · bcast(s) ⇒ conv(x, W·s) + bcast(±b·s)
//     (conv ± bcast(c₁)) ± bcast(c₂)     ⇒ conv + bcast(±c₁ ± c₂)
//
//     with s per output channel (or a splat), W·s scaled along the
//     weights' output-feature dimension, and the convolution used only by
//     the transform. The bias then runs as the convolution's epilogue.
//
// The folds reassociate floating-point products and sums: the result
// differs from the unfolded program by the rounding of the reordered
// operations (a few ULP of each term, well inside the convolution's own
// accumulation error); this is the standard inference-time batch-norm
// fold. Factors known only at run time fold the same way into weights
// passed at run time (foldrunweights.go).
func foldWeights(p *Program) error {
	for _, f := range p.Funcs {
		materialiseWeights(p, f)
		for round := 0; round < maxSimplifyRounds; round++ {
			changed := false
			users := f.Users()
			err := rewriteFunc(f, func(b *builder, v *Value) *Value {
				w := foldAffineIntoConv(b, v, users)
				if w == nil {
					w = foldRunTimeAffineIntoConv(b, v, users)
				}
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
			deadcodeFunc(f)
		}
	}
	return nil
}

// isWeightMovement reports whether v only moves the elements of its one
// operand.
func isWeightMovement(v *Value) bool {
	switch v.Op {
	case OpTranspose, OpReshape, OpBitcast, Op(ir.OpReverse), OpCopy:
		return len(v.Args) == 1 && v.Shape.IsArray() && v.Shape.IsStatic() && v.Args[0].Shape.IsArray()
	}
	return false
}

// materialiseWeights evaluates the movement chains over constants that
// dots and convolutions read.
func materialiseWeights(p *Program, f *Func) {
	b := &builder{f: f}
	done := map[*Value]*Value{}
	var eval func(v *Value) *Value
	eval = func(v *Value) *Value {
		if v.IsConstant() {
			return v
		}
		if r, ok := done[v]; ok {
			return r
		}
		if !isWeightMovement(v) {
			return nil
		}
		a := eval(v.Args[0])
		if a == nil {
			return nil
		}
		w := *v
		w.Args = []*Value{a}
		lit, err := foldEval(p, &w)
		if err != nil {
			return nil
		}
		c := b.constant(lit)
		c.Shape = v.Shape.Clone()
		done[v] = c
		return c
	}
	changed := false
	for _, v := range f.Values {
		if v.Op != OpDot && v.Op != OpConvolution {
			continue
		}
		for i, a := range v.Args {
			if a.IsConstant() || !isWeightMovement(a) {
				continue
			}
			if c := eval(a); c != nil {
				v.Args[i] = c
				changed = true
			}
		}
	}
	if changed {
		f.Sort()
		deadcodeFunc(f)
	}
}

// channelFactor returns the float32 per-channel values of a broadcast of a
// constant along dimension dim of an array of n channels there (a rank-1
// constant broadcast along dim, or a splat), or false.
func channelFactor(v *Value, dim, n int) ([]float32, bool) {
	if v.Op != OpBroadcast || v.Shape.Elem != ir.F32 {
		return nil, false
	}
	c := v.Args[0]
	if !c.IsConstant() {
		return nil, false
	}
	switch {
	case c.Shape.IsScalar():
		out := make([]float32, n)
		x := c.Attrs.Literal.Float32s()[0]
		for i := range out {
			out[i] = x
		}
		return out, true
	case c.Shape.Rank() == 1 && c.Shape.Dims[0] == n && len(v.Attrs.Dimensions) == 1 && v.Attrs.Dimensions[0] == dim:
		return c.Attrs.Literal.Float32s(), true
	}
	return nil, false
}

// foldableConv reports whether v is a float32 convolution with constant
// weights whose only user is user, and returns its output-feature
// dimension, its number of output channels and the weights'
// output-feature dimension.
func foldableConv(v, user *Value, users map[*Value][]*Value) (outDim, n, kDim int, ok bool) {
	if v.Op != OpConvolution || v.Attrs.ConvDims == nil || len(v.Args) != 2 || v.Shape.Elem != ir.F32 ||
		!v.Args[1].IsConstant() || v.Args[1].Shape.Elem != ir.F32 || len(users[v]) != 1 || users[v][0] != user {
		return 0, 0, 0, false
	}
	dn := v.Attrs.ConvDims
	return dn.OutputFeature, v.Shape.Dims[dn.OutputFeature], dn.KernelOutputFeature, true
}

// scaledWeights returns the constant weights w scaled by s along dimension
// dim, rounded in float32.
func scaledWeights(b *builder, w *Value, dim int, s []float32) *Value {
	lit := ir.MustNewLiteral(w.Shape.WithoutLayout())
	src, dst := w.Attrs.Literal.Float32s(), lit.Float32s()
	inner := 1
	for _, d := range w.Shape.Dims[dim+1:] {
		inner *= d
	}
	n := w.Shape.Dims[dim]
	for i, x := range src {
		dst[i] = x * s[(i/inner)%n]
	}
	c := b.constant(lit)
	c.Shape = w.Shape.Clone()
	return c
}

// channelBroadcast broadcasts the per-channel values xs along dimension dim
// of shape s.
func channelBroadcast(b *builder, xs []float32, s ir.Shape, dim int) *Value {
	lit := ir.MustNewLiteral(ir.MakeShape(ir.F32, len(xs)))
	copy(lit.Float32s(), xs)
	return b.broadcast(b.constant(lit), s.Dims, []int{dim})
}

func foldAffineIntoConv(b *builder, v *Value, users map[*Value][]*Value) *Value {
	if v.Shape.Elem != ir.F32 || !v.Shape.IsArray() || len(v.Args) != 2 {
		return nil
	}
	for i := 0; i < 2; i++ {
		y, f := v.Args[i], v.Args[1-i]
		switch v.Op {
		case OpMultiply:
			// conv · s
			if outDim, n, kDim, ok := foldableConv(y, v, users); ok {
				s, ok := channelFactor(f, outDim, n)
				if !ok {
					continue
				}
				return newConv(b, y, scaledWeights(b, y.Args[1], kDim, s))
			}
			// (conv ± b) · s
			c, bv, outDim, ok := convPlusBroadcast(y, users, isConstantChannel)
			if !ok {
				continue
			}
			_, n, kDim, ok := foldableConv(c, y, users)
			if !ok {
				continue
			}
			s, ok1 := channelFactor(f, outDim, n)
			bias, _ := channelFactor(bv, outDim, n)
			if !ok1 {
				continue
			}
			shift := make([]float32, n)
			for k := range shift {
				shift[k] = bias[k] * s[k]
				if y.Op == OpSubtract {
					shift[k] = -shift[k]
				}
			}
			conv := newConv(b, c, scaledWeights(b, c.Args[1], kDim, s))
			return b.binary(OpAdd, conv, channelBroadcast(b, shift, v.Shape, outDim))
		case OpAdd, OpSubtract:
			// (conv ± c₁) ± c₂ on the convolution's channels
			if i == 1 && v.Op == OpSubtract {
				continue // c₂ − (…) is not of this form
			}
			conv, off, dim, ok := convPlusChannels(y, users)
			if !ok {
				continue
			}
			c, ok := channelFactor(f, dim, len(off))
			if !ok {
				continue
			}
			sum := make([]float32, len(off))
			for k := range sum {
				if v.Op == OpAdd {
					sum[k] = off[k] + c[k]
				} else {
					sum[k] = off[k] - c[k]
				}
			}
			return b.binary(OpAdd, conv, channelBroadcast(b, sum, v.Shape, dim))
		}
	}
	return nil
}

// convPlusChannels matches conv + bcast(c), bcast(c) + conv or
// conv − bcast(c) with c constant per output channel, y the convolution's
// only user, and returns the convolution, the per-channel offset (c or −c)
// and the output-feature dimension.
func convPlusChannels(y *Value, users map[*Value][]*Value) (*Value, []float32, int, bool) {
	conv, cv, dim, ok := convPlusBroadcast(y, users, isConstantChannel)
	if !ok {
		return nil, nil, 0, false
	}
	c, _ := channelFactor(cv, dim, conv.Shape.Dims[dim])
	off := make([]float32, len(c))
	for k := range off {
		off[k] = c[k]
		if y.Op == OpSubtract {
			off[k] = -c[k]
		}
	}
	return conv, off, dim, true
}

// isConstantChannel reports whether v is a broadcast channelFactor
// accepts.
func isConstantChannel(v *Value, dim, n int) bool {
	_, ok := channelFactor(v, dim, n)
	return ok
}

// convPlusBroadcast matches conv + cv, cv + conv or conv − cv for a float32
// convolution and an operand cv that channel accepts along its
// output-feature dimension dim, y the convolution's only user, and returns
// them.
func convPlusBroadcast(y *Value, users map[*Value][]*Value, channel func(cv *Value, dim, n int) bool) (conv, cv *Value, dim int, ok bool) {
	if (y.Op != OpAdd && y.Op != OpSubtract) || len(users[y]) != 1 || len(y.Args) != 2 {
		return nil, nil, 0, false
	}
	for j := 0; j < 2; j++ {
		if y.Op == OpSubtract && j == 1 {
			break // only conv − c, not c − conv
		}
		conv, cv := y.Args[j], y.Args[1-j]
		if conv.Op != OpConvolution || conv.Attrs.ConvDims == nil || conv.Shape.Elem != ir.F32 {
			continue
		}
		dim := conv.Attrs.ConvDims.OutputFeature
		if channel(cv, dim, conv.Shape.Dims[dim]) {
			return conv, cv, dim, true
		}
	}
	return nil, nil, 0, false
}

// newConv is convolution c with weights w.
func newConv(b *builder, c, w *Value) *Value {
	conv := b.value(OpConvolution, c.Shape.Clone(), c.Args[0], w)
	conv.Attrs = c.Attrs
	conv.Raw = c.Raw
	return conv
}

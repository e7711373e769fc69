package ssa

import (
	"github.com/kilnml/kiln/ir"
)

// decompose expands composite ops into the elementwise ops, broadcasts and
// reductions the scheduler fuses, with the formulas of XLA's
// BatchNormExpander (how XLA's CPU backend runs them). N is the number of
// elements per feature (all dimensions but feature_index), and per-feature
// values are broadcast along feature_index:
//
//	batch-norm-inference: s = scale · rsqrt(var + ε); y = x · s + (offset - mean · s)
//	batch-norm-training:  mean = Σx / N; var = Σx² / N - mean²;
//	                      y = (x - mean) · rsqrt(var + ε) · scale + offset
//	                      → (y, mean, var)
//	batch-norm-grad:      r = rsqrt(var + ε); d = x - mean;
//	                      grad_scale = Σ(dy · d) · r; grad_offset = Σdy;
//	                      grad_x = (scale · r / N) · (N·dy - Σdy - d · Σ(dy·d) / (var + ε))
//	                      → (grad_x, grad_scale, grad_offset)
//	clamp(lo, x, hi):     minimum(maximum(x, lo), hi), scalars broadcast
//
// The batch-norm formulas are computed in the operand's type (F16, BF16 and
// F8 operands in F32, converted back at the end), each operation rounded, so
// they differ from the evaluator's float64 computation rounded once by a few
// ULP of the operand type, more where the variance is small next to the mean
// (E[x²] - E[x]² cancels, as it does in XLA). The clamp expansion is exact:
// it is the evaluator's definition of clamp.
func decompose(p *Program) error {
	for _, f := range p.Funcs {
		if err := rewriteFunc(f, decomposeValue); err != nil {
			return err
		}
	}
	return nil
}

func decomposeValue(b *builder, v *Value) *Value {
	switch v.Op {
	case OpBatchNormInf:
		return expandBatchNormInference(b, v)
	case OpBatchNormTrain:
		return expandBatchNormTraining(b, v)
	case OpBatchNormGrad:
		return expandBatchNormGrad(b, v)
	case OpClamp:
		return expandClamp(b, v)
	}
	return nil
}

// batchNorm holds what the three expansions share.
type batchNorm struct {
	b        *builder
	t, ct    ir.ElementType // operand type, computation type
	dims     []int          // operand dimensions
	fi       int            // feature index
	features int
	n        float64 // elements per feature
	reduced  []int   // every dimension but fi
	eps      float64
}

func newBatchNorm(b *builder, v *Value) (*batchNorm, bool) {
	x := v.Args[0]
	t := x.Shape.Elem
	fi := v.Attrs.FeatureIndex
	if !t.IsFloat() || x.Shape.IsDynamic() || fi < 0 || fi >= x.Shape.Rank() {
		return nil, false
	}
	bn := &batchNorm{b: b, t: t, ct: t, dims: x.Shape.Dims, fi: fi, features: x.Shape.Dims[fi], eps: float64(v.Attrs.Epsilon)}
	if t != ir.F32 && t != ir.F64 {
		bn.ct = ir.F32
	}
	if bn.features > 0 {
		bn.n = float64(x.Shape.ElementCount() / bn.features)
	}
	for d := range bn.dims {
		if d != fi {
			bn.reduced = append(bn.reduced, d)
		}
	}
	return bn, true
}

// in converts an operand to the computation type.
func (bn *batchNorm) in(v *Value) *Value { return bn.b.convert(v, bn.ct) }

// out converts a result back to the operand type.
func (bn *batchNorm) out(v *Value) *Value { return bn.b.convert(v, bn.t) }

// spread broadcasts a per-feature value to the operand's dimensions.
func (bn *batchNorm) spread(v *Value) *Value { return bn.b.broadcast(v, bn.dims, []int{bn.fi}) }

// perFeature is a per-feature splat of c.
func (bn *batchNorm) perFeature(c float64) *Value {
	return bn.b.splat(bn.ct, c, []int{bn.features})
}

// full is a splat of c of the operand's dimensions.
func (bn *batchNorm) full(c float64) *Value { return bn.b.splat(bn.ct, c, bn.dims) }

// sum reduces an operand-shaped value to one sum per feature.
func (bn *batchNorm) sum(v *Value) *Value {
	g := bn.b.f.Program.reducer(OpAdd, bn.ct)
	return bn.b.reduce(v, bn.b.scalar(bn.ct, 0), bn.reduced, g)
}

func (bn *batchNorm) op(op Op, x, y *Value) *Value { return bn.b.binary(op, x, y) }

// rsqrtVar is rsqrt(var + ε) and var + ε.
func (bn *batchNorm) rsqrtVar(variance *Value) (r, ve *Value) {
	ve = bn.op(OpAdd, variance, bn.perFeature(bn.eps))
	return bn.b.unary(OpRsqrt, ve), ve
}

func expandBatchNormInference(b *builder, v *Value) *Value {
	bn, ok := newBatchNorm(b, v)
	if !ok || len(v.Args) != 5 {
		return nil
	}
	x, scale, offset, mean, variance := bn.in(v.Args[0]), bn.in(v.Args[1]), bn.in(v.Args[2]), bn.in(v.Args[3]), bn.in(v.Args[4])
	r, _ := bn.rsqrtVar(variance)
	s := bn.op(OpMultiply, scale, r)
	shift := bn.op(OpSubtract, offset, bn.op(OpMultiply, mean, s))
	y := bn.op(OpAdd, bn.op(OpMultiply, x, bn.spread(s)), bn.spread(shift))
	return bn.out(y)
}

func expandBatchNormTraining(b *builder, v *Value) *Value {
	bn, ok := newBatchNorm(b, v)
	if !ok || len(v.Args) != 3 {
		return nil
	}
	x, scale, offset := bn.in(v.Args[0]), bn.in(v.Args[1]), bn.in(v.Args[2])
	count := bn.perFeature(bn.n)
	mean := bn.op(OpDivide, bn.sum(x), count)
	meanSq := bn.op(OpDivide, bn.sum(bn.op(OpMultiply, x, x)), count)
	variance := bn.op(OpSubtract, meanSq, bn.op(OpMultiply, mean, mean))
	r, _ := bn.rsqrtVar(variance)
	norm := bn.op(OpMultiply, bn.op(OpSubtract, x, bn.spread(mean)), bn.spread(r))
	y := bn.op(OpAdd, bn.op(OpMultiply, norm, bn.spread(scale)), bn.spread(offset))
	return b.tuple(bn.out(y), bn.out(mean), bn.out(variance))
}

func expandBatchNormGrad(b *builder, v *Value) *Value {
	bn, ok := newBatchNorm(b, v)
	if !ok || len(v.Args) != 5 {
		return nil
	}
	x, scale, mean, variance, dy := bn.in(v.Args[0]), bn.in(v.Args[1]), bn.in(v.Args[2]), bn.in(v.Args[3]), bn.in(v.Args[4])
	r, ve := bn.rsqrtVar(variance)
	d := bn.op(OpSubtract, x, bn.spread(mean))
	sumDyD := bn.sum(bn.op(OpMultiply, dy, d))
	gradOffset := bn.sum(dy)
	gradScale := bn.op(OpMultiply, sumDyD, r)
	i1 := bn.op(OpMultiply, dy, bn.full(bn.n))
	i2 := bn.spread(gradOffset)
	i3 := bn.op(OpMultiply, bn.spread(sumDyD), d)
	i4 := bn.op(OpMultiply, i3, bn.spread(bn.op(OpDivide, bn.perFeature(1), ve)))
	i5 := bn.op(OpSubtract, bn.op(OpSubtract, i1, i2), i4)
	sr := bn.op(OpDivide, bn.op(OpMultiply, scale, r), bn.perFeature(bn.n))
	gradX := bn.op(OpMultiply, bn.spread(sr), i5)
	return b.tuple(bn.out(gradX), bn.out(gradScale), bn.out(gradOffset))
}

func expandClamp(b *builder, v *Value) *Value {
	if len(v.Args) != 3 || !v.Shape.IsArray() {
		return nil
	}
	lo, x, hi := v.Args[0], v.Args[1], v.Args[2]
	dims := v.Shape.Dims
	if !ir.SameDimensions(x.Shape, v.Shape) {
		x = b.broadcast(x, dims, nil)
	}
	if !ir.SameDimensions(lo.Shape, v.Shape) {
		lo = b.broadcast(lo, dims, nil)
	}
	if !ir.SameDimensions(hi.Shape, v.Shape) {
		hi = b.broadcast(hi, dims, nil)
	}
	return b.binary(OpMinimum, b.binary(OpMaximum, x, lo), hi)
}

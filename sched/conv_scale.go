package sched

import "github.com/kilnml/kiln/ssa"

// A convolution's weight scale: weights known only at run time multiplied
// by a per-output-channel vector before the convolution — what ssa's
// batch-norm fold leaves for a model whose parameters are arguments,
// conv(x, W·bcast(s)) — are packed scaled. The product is computed inside
// the convolution's kernel, as the packing reads each weight, instead of
// as a loop writing a scaled copy of the weights for the packing to read
// again (the plan's ConvPlan.Scale).

// weightScale returns the weights and the scale vector of conv's weight
// operand when it is W·bcast(s) — s a rank-1 float32 value broadcast along
// the weights' output-feature dimension, the product read by the
// convolution alone — and the convolution packs its weights on every run.
func weightScale(conv *ssa.Value, users map[*ssa.Value][]*ssa.Value) (prod, w, bcast, s *ssa.Value, ok bool) {
	if conv.Op != ssa.OpConvolution || len(conv.Args) != 2 || conv.Attrs.ConvDims == nil {
		return nil, nil, nil, nil, false
	}
	prod = conv.Args[1]
	if prod.Op != ssa.OpMultiply || len(prod.Args) != 2 || len(users[prod]) != 1 || !prod.Shape.HasDefaultLayout() {
		return nil, nil, nil, nil, false
	}
	pl := convPlanOf(conv)
	if pl == nil || pl.Algo != ConvPacked || !pl.RunTimeWeights {
		return nil, nil, nil, nil, false
	}
	kDim := conv.Attrs.ConvDims.KernelOutputFeature
	for i := 0; i < 2; i++ {
		w, bc := prod.Args[i], prod.Args[1-i]
		if bc.Op != ssa.OpBroadcast || len(bc.Args) != 1 || len(users[bc]) != 1 || w.Op == ssa.OpBroadcast {
			continue
		}
		s := bc.Args[0]
		if s.Shape.Elem != prod.Shape.Elem || s.Shape.Rank() != 1 || s.Shape.Dims[0] != prod.Shape.Dims[kDim] ||
			len(bc.Attrs.Dimensions) != 1 || bc.Attrs.Dimensions[0] != kDim || !w.Shape.EqualIgnoringLayout(prod.Shape) || !w.Shape.HasDefaultLayout() {
			continue
		}
		return prod, w, bc, s, true
	}
	return nil, nil, nil, nil, false
}

// absorbWeightScale makes the kernel of convolution conv compute its
// weights' scaling (weightScale) inside.
func (fu *fuser) absorbWeightScale(g *group, conv *ssa.Value) {
	if fu.noFuse {
		return
	}
	if prod, _, bc, _, ok := weightScale(conv, fu.users); ok {
		fu.absorb(g, prod)
		fu.absorb(g, bc)
	}
}

package ssa

import (
	"slices"

	"github.com/kilnml/kiln/ir"
)

// canonConv rewrites every convolution into the layout the convolution
// kernels take: input [N, spatial…, C] (NHWC), kernel [spatial…, I, O]
// (HWIO), output [N, spatial…, O] (NHWC), that is dim_labels
// b01…f_01…io->b01…f, with spatial dimensions in the window's order.
//
//   - Operands whose dimension labels differ are transposed, and the result is
//     transposed back to the convolution's output labels.
//   - Window reversal (rhs_reversal) is removed by reversing the kernel along
//     those spatial dimensions: a reversed window reading the kernel is the
//     window reading the reversed kernel.
//   - Negative padding (cropping) of a dimension without base dilation becomes
//     a slice of the input, so that the window's padding is explicit and
//     non-negative; with base dilation it stays in the window.
//   - Depthwise convolutions over channel planes (IsPlanarDepthwiseConv)
//     stay as they are: their kernel reads the planes in place.
//   - Window strides, padding, base (lhs) and window (rhs) dilation,
//     feature_group_count and batch_group_count are kept as they are.
//
// Each output element sums the same products as before, in the evaluator's
// order (window positions in row-major order, input features innermost), so
// the rewrite is exact.
func canonConv(p *Program) error {
	for _, f := range p.Funcs {
		if err := rewriteFunc(f, canonicalConv); err != nil {
			return err
		}
	}
	return nil
}

// canonicalConvDims returns the dimension numbers b01…f_01…io->b01…f of a
// convolution with n spatial dimensions.
func canonicalConvDims(n int) ir.ConvDimensionNumbers {
	sp := make([]int, n)
	ksp := make([]int, n)
	for i := range sp {
		sp[i], ksp[i] = i+1, i
	}
	return ir.ConvDimensionNumbers{
		InputBatch: 0, InputSpatial: sp, InputFeature: n + 1,
		KernelSpatial: ksp, KernelInputFeature: n, KernelOutputFeature: n + 1,
		OutputBatch: 0, OutputSpatial: slices.Clone(sp), OutputFeature: n + 1,
	}
}

func sameConvDims(a, c ir.ConvDimensionNumbers) bool {
	return a.InputBatch == c.InputBatch && a.InputFeature == c.InputFeature && slices.Equal(a.InputSpatial, c.InputSpatial) &&
		a.KernelInputFeature == c.KernelInputFeature && a.KernelOutputFeature == c.KernelOutputFeature &&
		slices.Equal(a.KernelSpatial, c.KernelSpatial) &&
		a.OutputBatch == c.OutputBatch && a.OutputFeature == c.OutputFeature && slices.Equal(a.OutputSpatial, c.OutputSpatial)
}

// IsCanonicalConv reports whether v is a convolution in canon-conv's form:
// NHWC input, HWIO kernel, NHWC output, no window reversal.
func IsCanonicalConv(v *Value) bool {
	if v.Op != OpConvolution || v.Attrs.ConvDims == nil {
		return false
	}
	d := *v.Attrs.ConvDims
	if !sameConvDims(d, canonicalConvDims(len(d.InputSpatial))) {
		return false
	}
	if w := v.Attrs.Window; w != nil {
		for _, wd := range w.Dims {
			if wd.Reversal {
				return false
			}
		}
	}
	return true
}

func canonicalConv(b *builder, v *Value) *Value {
	if v.Op != OpConvolution || len(v.Args) != 2 || v.Attrs.ConvDims == nil || v.Shape.IsDynamic() || IsPlanarDepthwiseConv(v) {
		return nil
	}
	lhs, rhs := v.Args[0], v.Args[1]
	if lhs.Shape.IsDynamic() || rhs.Shape.IsDynamic() {
		return nil
	}
	d := *v.Attrs.ConvDims
	n := len(d.InputSpatial)
	var win []ir.WindowDim
	if v.Attrs.Window != nil {
		win = slices.Clone(v.Attrs.Window.Dims)
	}
	if len(win) != n {
		return nil
	}
	in := b.transpose(lhs, slices.Concat([]int{d.InputBatch}, d.InputSpatial, []int{d.InputFeature}))
	kernel := b.transpose(rhs, slices.Concat(d.KernelSpatial, []int{d.KernelInputFeature, d.KernelOutputFeature}))

	var reversed []int
	for i := range win {
		if win[i].Reversal {
			reversed = append(reversed, i)
			win[i].Reversal = false
		}
	}
	kernel = b.reverse(kernel, reversed)

	crop := make([]ir.SliceDim, n+2)
	cropped := false
	for i := range crop {
		crop[i] = ir.SliceDim{Start: 0, Limit: in.Shape.Dims[i], Stride: 1}
	}
	for i, w := range win {
		if (w.PadLow >= 0 && w.PadHigh >= 0) || w.BaseDilation > 1 {
			continue
		}
		start, limit := max(0, -w.PadLow), in.Shape.Dims[i+1]-max(0, -w.PadHigh)
		if limit < start {
			continue
		}
		crop[i+1] = ir.SliceDim{Start: start, Limit: limit, Stride: 1}
		win[i].PadLow, win[i].PadHigh = max(0, w.PadLow), max(0, w.PadHigh)
		cropped = true
	}
	if cropped {
		in = b.slice(in, crop)
	}

	if in == lhs && kernel == rhs && sameConvDims(d, canonicalConvDims(n)) {
		return nil // canonical already
	}
	dims := canonicalConvDims(n)
	window := &ir.Window{Dims: win}
	s, err := ir.InferConvolutionShape(in.Shape, kernel.Shape, max(v.Attrs.FeatureGroupCount, 1),
		max(v.Attrs.BatchGroupCount, 1), *window, dims, v.Shape.Elem)
	b.fail("convolution", err)
	conv := b.value(OpConvolution, s, in, kernel)
	conv.Attrs = v.Attrs
	conv.Attrs.ConvDims = &dims
	conv.Attrs.Window = window
	conv.Raw = v.Raw

	perm := make([]int, n+2)
	perm[d.OutputBatch] = 0
	for i, sd := range d.OutputSpatial {
		perm[sd] = i + 1
	}
	perm[d.OutputFeature] = n + 1
	return b.transpose(conv, perm)
}

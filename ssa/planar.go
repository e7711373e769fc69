package ssa

import "github.com/kilnml/kiln/ir"

// IsPlanarDepthwiseConv reports whether v is a float32, bfloat16 or
// binary16 depthwise convolution (input, weights and result of one type)
// over channel planes, the form NCHW models write
// (dim_labels=bf01_oi01->bf01 with feature_group_count equal to the
// channels): input and output (batch, channel, spatial…), weights
// (channel, 1, spatial…) or (1, channel, spatial…), one or two spatial
// dimensions, minor and in the window's order, unit strides, non-negative
// padding, no base dilation or window reversal, one output channel per
// input channel. Each channel's plane is then a contiguous run of its image
// and each window tap reads the plane shifted by a constant, so the
// scheduler runs it as it is: canon-conv leaves it in this form instead of
// transposing both activations to channels-last and back.
func IsPlanarDepthwiseConv(v *Value) bool {
	dn, w := v.Attrs.ConvDims, v.Attrs.Window
	if v.Op != OpConvolution || dn == nil || w == nil || len(v.Args) != 2 {
		return false
	}
	x, k, y := v.Args[0].Shape, v.Args[1].Shape, v.Shape
	ns := len(dn.InputSpatial)
	if ns < 1 || ns > 2 || len(w.Dims) != ns || !x.IsArray() || !k.IsArray() || !y.IsArray() ||
		x.Rank() != ns+2 || k.Rank() != ns+2 || y.Rank() != ns+2 {
		return false
	}
	if t := x.Elem; t != ir.F32 && t != ir.BF16 && t != ir.F16 || k.Elem != t || y.Elem != t || x.IsDynamic() || k.IsDynamic() || y.IsDynamic() ||
		!x.HasDefaultLayout() || !k.HasDefaultLayout() || !y.HasDefaultLayout() {
		return false
	}
	if dn.InputBatch != 0 || dn.InputFeature != 1 || dn.OutputBatch != 0 || dn.OutputFeature != 1 {
		return false
	}
	if !(dn.KernelOutputFeature == 0 && dn.KernelInputFeature == 1) && !(dn.KernelOutputFeature == 1 && dn.KernelInputFeature == 0) {
		return false
	}
	for i := 0; i < ns; i++ {
		if dn.InputSpatial[i] != i+2 || dn.OutputSpatial[i] != i+2 || dn.KernelSpatial[i] != i+2 {
			return false
		}
	}
	c := x.Dims[1]
	if max(v.Attrs.BatchGroupCount, 1) != 1 || v.Attrs.FeatureGroupCount != c || c == 0 ||
		y.Dims[1] != c || k.Dims[dn.KernelInputFeature] != 1 || k.Dims[dn.KernelOutputFeature] != c {
		return false
	}
	for _, wd := range w.Dims {
		if wd.BaseDilation > 1 || wd.Reversal || max(wd.Stride, 1) != 1 || wd.PadLow < 0 || wd.PadHigh < 0 {
			return false
		}
	}
	return true
}

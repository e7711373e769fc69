package sched

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// ConvGeom is the geometry of a float32 convolution in the canonical form
// the convolution kernels run: NHWC input, HWIO kernel, NHWC output, any
// number of spatial dimensions, strides, explicit (possibly negative)
// padding, kernel dilation and feature groups.
type ConvGeom struct {
	Batch, InChannels, OutChannels int
	In, Out, Kernel                []int // spatial sizes
	Strides, Dilation              []int
	PadLow, PadHigh                []int
	Groups                         int
}

// ConvOf recognises a convolution in canonical form without base
// (lhs) dilation, window reversal or batch groups.
func ConvOf(v *ssa.Value) (ConvGeom, bool) {
	dn, w := v.Attrs.ConvDims, v.Attrs.Window
	if v.Op != ssa.OpConvolution || dn == nil || w == nil {
		return ConvGeom{}, false
	}
	if max(v.Attrs.BatchGroupCount, 1) != 1 {
		return ConvGeom{}, false
	}
	x, k, y := v.Args[0].Shape, v.Args[1].Shape, v.Shape
	ns := len(dn.InputSpatial)
	if x.Rank() != ns+2 || !x.HasDefaultLayout() || !k.HasDefaultLayout() || !y.HasDefaultLayout() || len(w.Dims) != ns {
		return ConvGeom{}, false
	}
	if dn.InputBatch != 0 || dn.InputFeature != ns+1 || dn.OutputBatch != 0 || dn.OutputFeature != ns+1 ||
		dn.KernelInputFeature != ns || dn.KernelOutputFeature != ns+1 {
		return ConvGeom{}, false
	}
	for i := 0; i < ns; i++ {
		if dn.InputSpatial[i] != i+1 || dn.OutputSpatial[i] != i+1 || dn.KernelSpatial[i] != i {
			return ConvGeom{}, false
		}
	}
	g := ConvGeom{Batch: x.Dims[0], InChannels: x.Dims[ns+1], OutChannels: y.Dims[ns+1], Groups: max(v.Attrs.FeatureGroupCount, 1)}
	for i, wd := range w.Dims {
		if wd.BaseDilation > 1 || wd.Reversal {
			return ConvGeom{}, false
		}
		g.In = append(g.In, x.Dims[i+1])
		g.Out = append(g.Out, y.Dims[i+1])
		g.Kernel = append(g.Kernel, k.Dims[i])
		g.Strides = append(g.Strides, max(wd.Stride, 1))
		g.Dilation = append(g.Dilation, max(wd.WindowDilation, 1))
		g.PadLow = append(g.PadLow, wd.PadLow)
		g.PadHigh = append(g.PadHigh, wd.PadHigh)
	}
	return g, x.Elem == ir.F32 && k.Elem == ir.F32 && y.Elem == ir.F32
}

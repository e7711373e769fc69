package sched

import "github.com/kilnml/kiln/ssa"

// planarDepthwiseOf returns the geometry of a depthwise convolution over
// channel planes (ssa.IsPlanarDepthwiseConv): Kernel, PadLow and PadHigh
// per spatial dimension of the planes, unit strides.
func planarDepthwiseOf(v *ssa.Value) (ConvGeom, bool) {
	if !ssa.IsPlanarDepthwiseConv(v) {
		return ConvGeom{}, false
	}
	x, k, y := v.Args[0].Shape, v.Args[1].Shape, v.Shape
	c := x.Dims[1]
	g := ConvGeom{Batch: x.Dims[0], InChannels: c, OutChannels: c, Groups: c}
	for i, wd := range v.Attrs.Window.Dims {
		g.In = append(g.In, x.Dims[i+2])
		g.Out = append(g.Out, y.Dims[i+2])
		g.Kernel = append(g.Kernel, k.Dims[i+2])
		g.Strides = append(g.Strides, 1)
		g.Dilation = append(g.Dilation, max(wd.WindowDilation, 1))
		g.PadLow = append(g.PadLow, wd.PadLow)
		g.PadHigh = append(g.PadHigh, wd.PadHigh)
	}
	return g, true
}

// planeGeometry is the padded plane of a planar depthwise convolution with
// geometry g: its rows and row length (the input's, padded), and the
// output's rows and row length (a spatial dimension missing counts as 1).
func planeGeometry(g ConvGeom) (rows, cols, outRows, outCols int) {
	rows, outRows = 1, 1
	n := len(g.In)
	if n == 2 {
		rows = g.In[0] + g.PadLow[0] + g.PadHigh[0]
		outRows = g.Out[0]
	}
	cols = g.In[n-1] + g.PadLow[n-1] + g.PadHigh[n-1]
	outCols = g.Out[n-1]
	return rows, cols, outRows, outCols
}

// paddedPlane is the float32 scratch one worker needs for a planar
// depthwise convolution: the padded plane and the output rows computed at
// the padded row length.
func paddedPlane(g ConvGeom) int {
	rows, cols, outRows, _ := planeGeometry(g)
	return rows*cols + outRows*cols
}

package sched

import (
	"fmt"
	"strconv"
	"strings"

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

// convOf recognises a float32 convolution in canonical form without base
// (lhs) dilation, window reversal or batch groups.
func convOf(v *ssa.Value) (ConvGeom, bool) {
	g, ok := convGeomOf(v)
	x, k, y := v.Args[0].Shape, v.Args[1].Shape, v.Shape
	return g, ok && x.Elem == ir.F32 && k.Elem == ir.F32 && y.Elem == ir.F32
}

// convGeomOf recognises a convolution in canonical form without base
// (lhs) dilation, window reversal or batch groups, of any element type.
func convGeomOf(v *ssa.Value) (ConvGeom, bool) {
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
	return g, true
}

// ConvAlgo is the algorithm a Conv kernel runs.
type ConvAlgo uint8

// Convolution algorithms.
const (
	// ConvPacked: the weights packed for the convolution kernels
	// (kiln.Conv: an implicit GEMM reading the input in place, a 1×1
	// convolution as the GEMM of the input by the weights, direct kernels
	// vectorised over channels for depthwise layers), which apply the
	// epilogue in their store: once at compile time when they are a
	// constant, on every run into worker scratch when they are known only
	// then (RunTimeWeights; packing reads each weight once, a small part
	// of a convolution that reads it once per output pixel).
	ConvPacked ConvAlgo = iota
	// ConvGEMM: a 1×1, unit-stride, unpadded dense convolution with weights
	// known only at run time and more than four spatial dimensions (which
	// the convolution kernels do not take): the input, as it lies, is the
	// GEMM's A.
	ConvGEMM
	// ConvIm2col: a dense convolution with weights known only at run time
	// and a number of spatial dimensions the convolution kernels do not
	// take (none, or more than four): blocks of Block output pixels have
	// their patches gathered into a worker's scratch, then multiplied by
	// the weights.
	ConvIm2col
	// ConvPlanarDepthwise: a depthwise convolution over channel planes
	// (batch, channel, spatial… input and output; channel, 1, spatial…
	// weights), unit strides: each plane, copied into scratch with a zero
	// border, takes one multiply-add per kernel tap over its whole length
	// (the tap is a constant shift of the padded plane).
	ConvPlanarDepthwise
	// ConvNarrowBands: a bfloat16 or binary16 convolution (weights of the
	// input's type; the result of that type or float32) on the float32
	// convolution kernels: the weights widened and packed once (on every
	// run when they are known only then: RunTimeWeights),
	// the input widened and the output rounded band by band — Block output
	// rows along the first spatial dimension and the input rows they read,
	// about narrowConvBandBytes of float32 in all, so the float32 copies
	// stay in the cache.
	ConvNarrowBands
	// ConvNarrowDepthwise: a bfloat16 or binary16 depthwise convolution
	// with a result of the input's type, on the narrow depthwise kernels
	// (kiln.ConvBF16, kiln.ConvF16): the weights widened and packed once
	// (on every run when they are known only then: RunTimeWeights), the
	// input widened in registers as it is read, every output rounded once
	// as it is stored.
	ConvNarrowDepthwise
	// ConvInt8: an int8 convolution into int32 (s8×s8 or u8×s8, XLA's
	// convolution with a wider result type), dense: blocks of Block output
	// pixels have their int8 patches gathered into a worker's scratch
	// (zeros in the padding, which add nothing to an integer sum), then
	// multiplied by the weights on the int8 GEMM (kiln.GemmS8S8,
	// kiln.GemmU8S8: VNNI or AMX where the CPU has them), exactly, sums
	// wrapping as XLA's do. The weights are packed once when a constant,
	// on every run otherwise (RunTimeWeights).
	ConvInt8
)

var convAlgoNames = [...]string{"packed", "gemm-1x1", "im2col", "planar-depthwise", "narrow-bands", "narrow-depthwise", "int8-im2col"}

// narrowConvBandBytes is about how many bytes of float32 input and output
// one band of a ConvNarrowBands convolution holds.
const narrowConvBandBytes = 512 << 10

func (a ConvAlgo) String() string { return convAlgoNames[a] }

// ConvPlan is how a Conv kernel runs: its geometry and algorithm.
type ConvPlan struct {
	ConvGeom
	Algo ConvAlgo
	// RunTimeWeights (ConvPacked, ConvNarrowBands, ConvNarrowDepthwise):
	// the weights are not a constant, and each run packs them before the
	// kernels run.
	RunTimeWeights bool
	// Scale (ConvPacked with RunTimeWeights), when not nil, is a rank-1
	// value of one factor per output channel by which the kernel scales
	// Weights as it packs them: the convolution's weight operand is
	// Weights·bcast(Scale), computed inside the kernel (conv_scale.go).
	Weights, Scale *ssa.Value
	// Block (ConvIm2col) is the number of output pixels whose patches are
	// gathered at a time; Scratch the bytes of worker scratch the
	// algorithm needs.
	Block, Scratch int
	// Plane (ConvPlanarDepthwise): the padded input plane's rows and row
	// length and the output plane's (a missing spatial dimension counts
	// as 1).
	PlaneRows, PlaneCols, OutRows, OutCols int
}

// String prints the plan for dumps: conv(packed 3x3 s1 64->64 g1), with
// "-per-run" after the algorithm where each run packs the weights.
func (c *ConvPlan) String() string {
	algo := c.Algo.String()
	if c.RunTimeWeights {
		algo += "-per-run"
	}
	if c.Scale != nil {
		algo += "-scaled"
	}
	ks := make([]string, len(c.Kernel))
	for i, k := range c.Kernel {
		ks[i] = strconv.Itoa(k)
	}
	ss := make([]string, len(c.Strides))
	for i, s := range c.Strides {
		ss[i] = strconv.Itoa(s)
	}
	return fmt.Sprintf("conv(%s %s s%s %d->%d g%d)", algo, strings.Join(ks, "x"), strings.Join(ss, "x"), c.InChannels, c.OutChannels, c.Groups)
}

// maxConvKernelDims is the most spatial dimensions the convolution kernels
// take (kiln.PackConv).
const maxConvKernelDims = 4

// im2colBlockBytes bounds the patch block of the im2col algorithm: about
// 1 MiB, within the core's L2.
const im2colBlockBytes = 1 << 20

// convPlanOf decides how convolution v runs, given whether its weights are
// a constant: the planar depthwise kernel for depthwise convolutions over
// channel planes; in canonical form, the packed convolution kernels (the
// weights packed at compile time when a constant, else on every run: the
// kernels apply the epilogue in their store, and a 1×1 layer runs on them
// as the GEMM of the input), except, for a dense layer with weights known
// only at run time and a number of spatial dimensions the kernels do not
// take, a plain GEMM of the input in place (1×1 unit-stride unpadded) or
// im2col; nil when none applies.
func convPlanOf(v *ssa.Value) *ConvPlan {
	if g, ok := planarDepthwiseOf(v); ok {
		pl := &ConvPlan{ConvGeom: g, Algo: ConvPlanarDepthwise}
		pl.PlaneRows, pl.PlaneCols, pl.OutRows, pl.OutCols = planeGeometry(g)
		pl.Scratch = 4 * paddedPlane(g)
		if v.Shape.Elem != ir.F32 {
			// A narrow plane is widened whole, then placed in the padded
			// plane; the output rounded whole, then taken out.
			pl.Scratch += 4*prod(g.In) + 2*pl.OutRows*pl.PlaneCols
		}
		return pl
	}
	if pl := narrowConvPlanOf(v); pl != nil {
		return pl
	}
	if pl := int8ConvPlanOf(v); pl != nil {
		return pl
	}
	g, ok := convOf(v)
	if !ok {
		return nil
	}
	pl := &ConvPlan{ConvGeom: g}
	switch {
	case v.Args[1].IsConstant():
		pl.Algo = ConvPacked
	case len(g.In) >= 1 && len(g.In) <= maxConvKernelDims:
		pl.Algo, pl.RunTimeWeights = ConvPacked, true
	case g.Groups != 1:
		return nil
	case g.isPointwise():
		pl.Algo = ConvGEMM
	default:
		pl.Algo = ConvIm2col
		patch := prod(g.Kernel) * g.InChannels
		pl.Block = max(1, min(prod(g.Out), im2colBlockBytes/(4*max(patch, 1))))
		pl.Scratch = pl.Block * patch * 4
	}
	return pl
}

// isPointwise reports whether every output pixel is the input pixel at the
// same place: a 1×1 window, unit strides, no padding.
func (g *ConvGeom) isPointwise() bool {
	if prod(g.Kernel) != 1 {
		return false
	}
	for i := range g.In {
		if g.Strides[i] != 1 || g.PadLow[i] != 0 || g.PadHigh[i] != 0 || g.Out[i] != g.In[i] {
			return false
		}
	}
	return true
}

// narrowConvPlanOf plans a bfloat16 or binary16 convolution in canonical
// form with weights of its input's type, one to four spatial dimensions
// and a result of the input's type or float32, as ConvNarrowBands, or as
// ConvNarrowDepthwise when it is depthwise and its result has the input's
// type, and an int8 convolution of groups whose sums float32 holds
// exactly (groupedInt8Exact) as ConvNarrowBands (RunTimeWeights where the
// weights are not a constant); nil for any other.
func narrowConvPlanOf(v *ssa.Value) *ConvPlan {
	if v.Op != ssa.OpConvolution || len(v.Args) != 2 {
		return nil
	}
	xt, wt, yt := v.Args[0].Shape.Elem, v.Args[1].Shape.Elem, v.Shape.Elem
	g, ok := convGeomOf(v)
	if !ok || len(g.In) == 0 || len(g.In) > maxConvKernelDims {
		return nil
	}
	switch {
	case (xt == ir.BF16 || xt == ir.F16) && wt == xt && (yt == xt || yt == ir.F32):
	case groupedInt8Exact(g, xt, wt, yt):
	default:
		return nil
	}
	run := !v.Args[1].IsConstant()
	if yt == xt && g.Groups == g.InChannels && g.Groups == g.OutChannels && xt != ir.S8 && xt != ir.U8 {
		return &ConvPlan{ConvGeom: g, Algo: ConvNarrowDepthwise, RunTimeWeights: run}
	}
	inRow := prod(g.In[1:]) * g.InChannels
	outRow := prod(g.Out[1:]) * g.OutChannels
	rowBytes := 4 * (outRow + g.Strides[0]*inRow)
	return &ConvPlan{ConvGeom: g, Algo: ConvNarrowBands, RunTimeWeights: run, Block: max(1, min(g.Out[0], narrowConvBandBytes/max(rowBytes, 1)))}
}

// groupedInt8Exact reports whether a convolution of groups is an int8 one
// into int32 (s8 or u8 input, s8 weights) whose sums float32 holds
// exactly: at most 512 products of magnitude at most 255·128 per output,
// below 2^24. ConvNarrowBands then runs it on the float32 kernels (the
// int8 GEMM has no groups), the integers widened and the exact sums
// converted back.
func groupedInt8Exact(g ConvGeom, xt, wt, yt ir.ElementType) bool {
	return (xt == ir.S8 || xt == ir.U8) && wt == ir.S8 && yt == ir.S32 && g.Groups > 1 &&
		prod(g.Kernel)*(g.InChannels/g.Groups) <= 512
}

// int8ConvPlanOf plans a dense convolution in canonical form of int8 input
// (s8 or u8) and s8 weights into an s32 result as ConvInt8; nil for any
// other.
func int8ConvPlanOf(v *ssa.Value) *ConvPlan {
	if v.Op != ssa.OpConvolution || len(v.Args) != 2 {
		return nil
	}
	xt, wt, yt := v.Args[0].Shape.Elem, v.Args[1].Shape.Elem, v.Shape.Elem
	if xt != ir.S8 && xt != ir.U8 || wt != ir.S8 || yt != ir.S32 {
		return nil
	}
	g, ok := convGeomOf(v)
	if !ok || g.Groups != 1 {
		return nil
	}
	patch := prod(g.Kernel) * g.InChannels
	pl := &ConvPlan{ConvGeom: g, Algo: ConvInt8, RunTimeWeights: !v.Args[1].IsConstant()}
	pl.Block = max(1, min(prod(g.Out), im2colBlockBytes/max(patch, 1)))
	pl.Scratch = pl.Block * patch
	return pl
}

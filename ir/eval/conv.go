package eval

// convolution: XLA's general convolution with window strides, low/high
// padding (negative crops), lhs (base) and rhs (window) dilation, window
// reversal, dimension labels in any order, any number of spatial dimensions
// (0 included), feature_group_count and batch_group_count.
//
// Grouping follows XLA: with feature_group_count G the input features and the
// kernel's output features are split into G contiguous groups and group g of
// the output features convolves group g of the input features; with
// batch_group_count G the input batch is split into G contiguous groups and
// group g of the kernel's output features reads batch group g. Padding and
// dilation holes contribute nothing.
//
// Accumulation is XLA's HloEvaluator's: one accumulator per output element,
// window positions in row-major order, input features innermost, in the same
// accumulation types as dot (see dot.go).

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

func init() { register(evalConvolution, ir.OpConvolution) }

// convPlan holds a convolution normalised to lhs [B, spatial…, IZ], kernel
// [OZ, window…, KI] and output [OB, spatial…, OZ].
type convPlan struct {
	n                    int // spatial dimensions
	batch, inFeatures    int
	outFeatures, kernelI int
	outBatch             int
	featureGroups        int
	batchGroups          int
	inSpatial            []int
	window               []ir.WindowDim
	outSpatial           []int
	lhsPerm, rhsPerm     []int
	outPerm              []int // result dimension d is normalised dimension outPerm[d]
	lhsDims, rhsDims     []int
	resultType           ir.ElementType
	family               computeType
}

func defaultConvDims(rank int) *ir.ConvDimensionNumbers {
	sp := make([]int, rank-2)
	for i := range sp {
		sp[i] = i + 2
	}
	return &ir.ConvDimensionNumbers{InputBatch: 0, InputFeature: 1, InputSpatial: sp,
		KernelOutputFeature: 0, KernelInputFeature: 1, KernelSpatial: sp,
		OutputBatch: 0, OutputFeature: 1, OutputSpatial: sp}
}

// dilatedSize is the size of a dimension of n elements with d-1 holes between
// neighbours.
func dilatedSize(n, d int) int {
	if n == 0 {
		return 0
	}
	return (n-1)*d + 1
}

// windowCount is the number of positions of a window of (dilated) size w
// moved by stride over a (padded, dilated) base of size b.
func windowCount(b, w, stride int) int {
	if b < w || b < 0 {
		return 0
	}
	return (b-w)/stride + 1
}

// normalizeWindowDim fills the defaults of a window dimension.
func normalizeWindowDim(w ir.WindowDim) ir.WindowDim {
	if w.Stride == 0 {
		w.Stride = 1
	}
	if w.BaseDilation == 0 {
		w.BaseDilation = 1
	}
	if w.WindowDilation == 0 {
		w.WindowDilation = 1
	}
	return w
}

// checkWindowDim rejects window dimensions that are not well formed.
func checkWindowDim(i int, w ir.WindowDim) error {
	switch {
	case w.Size < 0:
		return fmt.Errorf("window dimension %d has negative size %d", i, w.Size)
	case w.Stride < 1:
		return fmt.Errorf("window dimension %d has stride %d, expected at least 1", i, w.Stride)
	case w.BaseDilation < 1 || w.WindowDilation < 1:
		return fmt.Errorf("window dimension %d has dilation lhs=%d rhs=%d, expected at least 1", i, w.BaseDilation, w.WindowDilation)
	}
	return nil
}

func planConvolution(in *ir.Instruction, lhs, rhs ir.Shape) (*convPlan, error) {
	if lhs.Rank() != rhs.Rank() || lhs.Rank() < 2 {
		return nil, fmt.Errorf("input has rank %d and kernel rank %d, expected equal ranks of at least 2", lhs.Rank(), rhs.Rank())
	}
	if in.Shape.Rank() != lhs.Rank() {
		return nil, fmt.Errorf("result has rank %d, input rank %d, expected equal", in.Shape.Rank(), lhs.Rank())
	}
	rank := lhs.Rank()
	n := rank - 2
	dn := in.ConvDims
	if dn == nil {
		dn = defaultConvDims(rank)
	}
	if len(dn.InputSpatial) != n || len(dn.KernelSpatial) != n || len(dn.OutputSpatial) != n {
		return nil, fmt.Errorf("dim_labels name %d/%d/%d spatial dimensions, rank %d needs %d",
			len(dn.InputSpatial), len(dn.KernelSpatial), len(dn.OutputSpatial), rank, n)
	}
	for _, side := range []struct {
		what string
		a, b int
		sp   []int
	}{
		{"input", dn.InputBatch, dn.InputFeature, dn.InputSpatial},
		{"kernel", dn.KernelOutputFeature, dn.KernelInputFeature, dn.KernelSpatial},
		{"output", dn.OutputBatch, dn.OutputFeature, dn.OutputSpatial},
	} {
		used := make([]bool, rank)
		if err := checkDimList(side.what, append([]int{side.a, side.b}, side.sp...), rank, used); err != nil {
			return nil, err
		}
	}
	p := &convPlan{n: n, resultType: in.Shape.Elem, lhsDims: lhs.Dims, rhsDims: rhs.Dims}
	fam, ok := computeTypeOf(p.resultType)
	if !ok {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
			Detail: fmt.Sprintf("result element type %v is not numeric", p.resultType)}
	}
	p.family = fam
	for _, t := range []ir.ElementType{lhs.Elem, rhs.Elem} {
		if !convertibleOperand(t, p.resultType) {
			return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
				Detail: fmt.Sprintf("operand type %v with result type %v", t, p.resultType)}
		}
	}
	p.featureGroups = max(in.FeatureGroupCount, 1)
	p.batchGroups = max(in.BatchGroupCount, 1)
	if p.featureGroups > 1 && p.batchGroups > 1 {
		return nil, fmt.Errorf("feature_group_count %d and batch_group_count %d are both above 1", p.featureGroups, p.batchGroups)
	}
	p.batch = lhs.Dims[dn.InputBatch]
	p.inFeatures = lhs.Dims[dn.InputFeature]
	p.outFeatures = rhs.Dims[dn.KernelOutputFeature]
	p.kernelI = rhs.Dims[dn.KernelInputFeature]
	if p.inFeatures%p.featureGroups != 0 {
		return nil, fmt.Errorf("input feature size %d is not divisible by feature_group_count %d", p.inFeatures, p.featureGroups)
	}
	if p.inFeatures/p.featureGroups != p.kernelI {
		return nil, fmt.Errorf("kernel input feature size is %d, expected input feature size %d / feature_group_count %d = %d",
			p.kernelI, p.inFeatures, p.featureGroups, p.inFeatures/p.featureGroups)
	}
	if p.outFeatures%p.featureGroups != 0 {
		return nil, fmt.Errorf("kernel output feature size %d is not divisible by feature_group_count %d", p.outFeatures, p.featureGroups)
	}
	if p.outFeatures%p.batchGroups != 0 || p.batch%p.batchGroups != 0 {
		return nil, fmt.Errorf("kernel output feature size %d and input batch %d must be divisible by batch_group_count %d",
			p.outFeatures, p.batch, p.batchGroups)
	}
	p.outBatch = p.batch / p.batchGroups
	var wdims []ir.WindowDim
	if in.Window != nil {
		wdims = in.Window.Dims
	}
	if wdims == nil && n > 0 {
		for _, d := range dn.KernelSpatial {
			wdims = append(wdims, ir.WindowDim{Size: rhs.Dims[d]})
		}
	}
	if len(wdims) != n {
		return nil, fmt.Errorf("window has %d dimensions, the convolution has %d spatial dimensions", len(wdims), n)
	}
	p.window = make([]ir.WindowDim, n)
	p.inSpatial = pick(lhs.Dims, dn.InputSpatial)
	p.outSpatial = make([]int, n)
	for i, w := range wdims {
		w = normalizeWindowDim(w)
		if err := checkWindowDim(i, w); err != nil {
			return nil, err
		}
		if k := rhs.Dims[dn.KernelSpatial[i]]; w.Size != k {
			return nil, fmt.Errorf("window dimension %d has size %d, kernel spatial dimension %d has size %d", i, w.Size, dn.KernelSpatial[i], k)
		}
		p.window[i] = w
		base := dilatedSize(p.inSpatial[i], w.BaseDilation) + w.PadLow + w.PadHigh
		p.outSpatial[i] = windowCount(base, dilatedSize(w.Size, w.WindowDilation), w.Stride)
	}
	p.lhsPerm = append(append([]int{dn.InputBatch}, dn.InputSpatial...), dn.InputFeature)
	p.rhsPerm = append(append([]int{dn.KernelOutputFeature}, dn.KernelSpatial...), dn.KernelInputFeature)
	p.outPerm = make([]int, rank)
	want := make([]int, rank)
	p.outPerm[dn.OutputBatch] = 0
	want[dn.OutputBatch] = p.outBatch
	p.outPerm[dn.OutputFeature] = n + 1
	want[dn.OutputFeature] = p.outFeatures
	for i, d := range dn.OutputSpatial {
		p.outPerm[d] = i + 1
		want[d] = p.outSpatial[i]
	}
	return p, checkResultDims(in, in.Shape, want)
}

func evalConvolution(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 2 {
		return nil, fmt.Errorf("expected 2 operands, found %d", len(ops))
	}
	p, err := planConvolution(in, ops[0].Shape(), ops[1].Shape())
	if err != nil {
		return nil, err
	}
	lhs, rhs := ops[0], ops[1]
	switch p.family {
	case computeF32:
		out := convRun(p, toFloat32s(wideFloats(lhs)), toFloat32s(wideFloats(rhs)),
			func(acc float32, l, r []float32) float32 {
				for j, x := range l {
					acc += float32(x * r[j])
				}
				return acc
			})
		return storeFloat32s(p.resultType, in.Shape.Dims, out)
	case computeF64:
		out := convRun(p, wideFloats(lhs), wideFloats(rhs),
			func(acc float64, l, r []float64) float64 {
				for j, x := range l {
					acc += float64(x * r[j])
				}
				return acc
			})
		return storeFloat64s(p.resultType, in.Shape.Dims, out)
	case computeC64:
		out := convRun(p, toComplex64s(wideComplex(lhs)), toComplex64s(wideComplex(rhs)),
			func(acc complex64, l, r []complex64) complex64 {
				for j, x := range l {
					acc += mulC64(x, r[j])
				}
				return acc
			})
		wide := make([]complex128, len(out))
		for i, x := range out {
			wide[i] = complex128(x)
		}
		return storeComplex(p.resultType, in.Shape.Dims, wide)
	case computeC128:
		out := convRun(p, wideComplex(lhs), wideComplex(rhs),
			func(acc complex128, l, r []complex128) complex128 {
				for j, x := range l {
					acc += mulC128(x, r[j])
				}
				return acc
			})
		return storeComplex(p.resultType, in.Shape.Dims, out)
	default:
		out := convRun(p, intValues(lhs), intValues(rhs),
			func(acc int64, l, r []int64) int64 {
				for j, x := range l {
					acc += x * r[j]
				}
				return acc
			})
		return storeInts(p.resultType, in.Shape.Dims, out)
	}
}

// convTap is one kernel position along a spatial dimension that lands on an
// input element: kernel index (reversal applied) and input index.
type convTap struct{ k, x int }

// convTaps lists, for each output position along spatial dimension i, the
// kernel positions that read an input element (not padding, not a dilation
// hole), in window order.
func (p *convPlan) convTaps(i int) [][]convTap {
	w := p.window[i]
	taps := make([][]convTap, p.outSpatial[i])
	for o := range taps {
		for k := 0; k < w.Size; k++ {
			u := o*w.Stride - w.PadLow + k*w.WindowDilation
			if u < 0 || u%w.BaseDilation != 0 {
				continue
			}
			x := u / w.BaseDilation
			if x >= p.inSpatial[i] {
				continue
			}
			kk := k
			if w.Reversal {
				kk = w.Size - 1 - k
			}
			taps[o] = append(taps[o], convTap{k: kk, x: x})
		}
	}
	return taps
}

// convRun evaluates the plan on lhs and rhs in the result's dimension order;
// dot accumulates the products of two equal-length feature vectors.
func convRun[T any](p *convPlan, lhsRaw, rhsRaw []T, dot func(acc T, l, r []T) T) []T {
	n := p.n
	lhs := transposeSlice(lhsRaw, p.lhsDims, p.lhsPerm) // [B, spatial…, IZ]
	rhs := transposeSlice(rhsRaw, p.rhsDims, p.rhsPerm) // [OZ, window…, KI]
	lhsSp := append(append([]int{p.batch}, p.inSpatial...), p.inFeatures)
	ls := denseStrides(lhsSp)
	kd := make([]int, n+2)
	kd[0] = p.outFeatures
	for i, w := range p.window {
		kd[i+1] = w.Size
	}
	kd[n+1] = p.kernelI
	ks := denseStrides(kd)
	outNorm := append(append([]int{p.outBatch}, p.outSpatial...), p.outFeatures)
	out := make([]T, numElements(outNorm))
	taps := make([][][]convTap, n)
	for i := range taps {
		taps[i] = p.convTaps(i)
	}
	ozPerFG := p.outFeatures / p.featureGroups
	ozPerBG := p.outFeatures / p.batchGroups
	ki := p.kernelI
	opos := make([]int, n) // output spatial index
	tapIdx := make([]int, n)
	if len(out) > 0 {
		o := 0
		for ob := 0; ob < p.outBatch; ob++ {
			for i := range opos {
				opos[i] = 0
			}
			for {
				for oz := 0; oz < p.outFeatures; oz++ {
					fg, bg := oz/ozPerFG, oz/ozPerBG
					lb := bg*p.outBatch + ob
					var acc T
					// Iterate the cartesian product of the taps of each
					// spatial dimension, last dimension fastest.
					empty := false
					for i := range tapIdx {
						tapIdx[i] = 0
						if len(taps[i][opos[i]]) == 0 {
							empty = true
						}
					}
					for !empty {
						lo := lb*ls[0] + fg*ki
						ro := oz * ks[0]
						for i := 0; i < n; i++ {
							t := taps[i][opos[i]][tapIdx[i]]
							lo += t.x * ls[i+1]
							ro += t.k * ks[i+1]
						}
						acc = dot(acc, lhs[lo:lo+ki], rhs[ro:ro+ki])
						i := n - 1
						for ; i >= 0; i-- {
							tapIdx[i]++
							if tapIdx[i] < len(taps[i][opos[i]]) {
								break
							}
							tapIdx[i] = 0
						}
						if i < 0 {
							break
						}
					}
					out[o] = acc
					o++
				}
				i := n - 1
				for ; i >= 0; i-- {
					opos[i]++
					if opos[i] < p.outSpatial[i] {
						break
					}
					opos[i] = 0
				}
				if i < 0 {
					break
				}
			}
		}
	}
	return transposeSlice(out, outNorm, p.outPerm)
}

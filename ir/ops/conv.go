package ops

// convolution: XLA's general convolution with window strides, low/high
// padding (negative crops), lhs (base) and rhs (window) dilation, window
// reversal, dimension labels in any order, any number of spatial dimensions
// (0 included), feature_group_count and batch_group_count.
//
// Grouping follows XLA: with feature_group_count G the input features and
// the kernel's output features are split into G contiguous groups and group
// g of the output features convolves group g of the input features; with
// batch_group_count G the input batch is split into G contiguous groups and
// group g of the kernel's output features reads batch group g. Padding and
// dilation holes contribute nothing.
//
// Accumulation is XLA's HloEvaluator's: one accumulator per output element,
// window positions in row-major order, input features innermost, in the
// accumulation types of dot (accumulate.go).

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// convTap is a kernel position along one spatial dimension that reads an
// input element: the kernel index (reversal applied) and the input index.
type convTap struct{ k, x int }

// ConvPlan is a convolution normalised to input [batch, spatial…, feature],
// kernel [out feature, window…, in feature].
type ConvPlan struct {
	T            ir.ElementType
	OutDims      []int
	fam          Family
	lload, rload permutedLoad
	rOff, accOff int
	wOff, size   int
	n            int           // spatial dimensions
	taps         [][][]convTap // taps[i][o]
	outBatch     int
	outSpatial   []int
	outFeatures  int
	ozPerFG      int
	ozPerBG      int
	ki           int
	ls, ks       []int // strides of the transposed input and kernel
	obStride     int   // result strides of batch, spatial dims, feature
	spStride     []int
	ozStride     int
}

// DefaultConvDims are the dimension numbers of a convolution written
// without dim_labels: b, f, spatial… on every side.
func DefaultConvDims(rank int) *ir.ConvDimensionNumbers {
	sp := make([]int, max(rank-2, 0))
	for i := range sp {
		sp[i] = i + 2
	}
	return &ir.ConvDimensionNumbers{InputBatch: 0, InputFeature: 1, InputSpatial: sp,
		KernelOutputFeature: 0, KernelInputFeature: 1, KernelSpatial: sp, OutputBatch: 0, OutputFeature: 1, OutputSpatial: sp}
}

// NewConvolution plans a convolution of lhs (type lt, dimensions ld) and
// kernel rhs (rt, rd) with result type t.
func NewConvolution(lt ir.ElementType, ld []int, rt ir.ElementType, rd []int, t ir.ElementType,
	dn *ir.ConvDimensionNumbers, window *ir.Window, featureGroups, batchGroups int) (*ConvPlan, error) {
	if len(ld) != len(rd) || len(ld) < 2 {
		return nil, fmt.Errorf("input has rank %d and kernel rank %d, expected equal ranks of at least 2", len(ld), len(rd))
	}
	if len(ld) > MaxRank {
		return nil, fmt.Errorf("convolution of rank %d, above the limit of %d", len(ld), MaxRank)
	}
	rank := len(ld)
	n := rank - 2
	if dn == nil {
		dn = DefaultConvDims(rank)
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
		if err := CheckDims(side.what, append([]int{side.a, side.b}, side.sp...), rank); err != nil {
			return nil, err
		}
	}
	fam, err := accumulation(ir.OpConvolution, lt, rt, t)
	if err != nil {
		return nil, err
	}
	fg, bg := max(featureGroups, 1), max(batchGroups, 1)
	if fg > 1 && bg > 1 {
		return nil, fmt.Errorf("feature_group_count %d and batch_group_count %d are both above 1", fg, bg)
	}
	p := &ConvPlan{T: t, fam: fam, n: n}
	batch := ld[dn.InputBatch]
	inFeatures := ld[dn.InputFeature]
	p.outFeatures = rd[dn.KernelOutputFeature]
	p.ki = rd[dn.KernelInputFeature]
	if inFeatures%fg != 0 {
		return nil, fmt.Errorf("input feature size %d is not divisible by feature_group_count %d", inFeatures, fg)
	}
	if inFeatures/fg != p.ki {
		return nil, fmt.Errorf("kernel input feature size is %d, expected input feature size %d / feature_group_count %d = %d",
			p.ki, inFeatures, fg, inFeatures/fg)
	}
	if p.outFeatures%fg != 0 {
		return nil, fmt.Errorf("kernel output feature size %d is not divisible by feature_group_count %d", p.outFeatures, fg)
	}
	if p.outFeatures%bg != 0 || batch%bg != 0 {
		return nil, fmt.Errorf("kernel output feature size %d and input batch %d must be divisible by batch_group_count %d", p.outFeatures, batch, bg)
	}
	p.outBatch = batch / bg
	p.ozPerFG, p.ozPerBG = p.outFeatures/fg, p.outFeatures/bg
	var wdims []ir.WindowDim
	if window != nil {
		wdims = window.Dims
	}
	if wdims == nil && n > 0 {
		for _, d := range dn.KernelSpatial {
			wdims = append(wdims, ir.WindowDim{Size: rd[d]})
		}
	}
	if len(wdims) != n {
		return nil, fmt.Errorf("window has %d dimensions, the convolution has %d spatial dimensions", len(wdims), n)
	}
	inSpatial := make([]int, n)
	windowSizes := make([]int, n)
	p.outSpatial = make([]int, n)
	p.taps = make([][][]convTap, n)
	for i, w := range wdims {
		w = NormalizeWindowDim(w)
		if err := CheckWindowDim(i, w); err != nil {
			return nil, err
		}
		if k := rd[dn.KernelSpatial[i]]; w.Size != k {
			return nil, fmt.Errorf("window dimension %d has size %d, kernel spatial dimension %d has size %d", i, w.Size, dn.KernelSpatial[i], k)
		}
		inSpatial[i] = ld[dn.InputSpatial[i]]
		windowSizes[i] = w.Size
		base := Dilated(inSpatial[i], w.BaseDilation) + w.PadLow + w.PadHigh
		p.outSpatial[i] = WindowCount(base, Dilated(w.Size, w.WindowDilation), w.Stride)
		p.taps[i] = make([][]convTap, p.outSpatial[i])
		for o := range p.taps[i] {
			for kk := 0; kk < w.Size; kk++ {
				u := o*w.Stride - w.PadLow + kk*w.WindowDilation
				if u < 0 || u%w.BaseDilation != 0 || u/w.BaseDilation >= inSpatial[i] {
					continue
				}
				k := kk
				if w.Reversal {
					k = w.Size - 1 - kk
				}
				p.taps[i][o] = append(p.taps[i][o], convTap{k: k, x: u / w.BaseDilation})
			}
		}
	}
	p.OutDims = make([]int, rank)
	p.OutDims[dn.OutputBatch], p.OutDims[dn.OutputFeature] = p.outBatch, p.outFeatures
	for i, d := range dn.OutputSpatial {
		p.OutDims[d] = p.outSpatial[i]
	}
	lperm := append(append([]int{dn.InputBatch}, dn.InputSpatial...), dn.InputFeature)
	rperm := append(append([]int{dn.KernelOutputFeature}, dn.KernelSpatial...), dn.KernelInputFeature)
	p.lload = newPermutedLoad(lt, fam, ld, lperm)
	p.rload = newPermutedLoad(rt, fam, rd, rperm)
	p.ls = Strides(append(append([]int{batch}, inSpatial...), inFeatures))
	p.ks = Strides(append(append([]int{p.outFeatures}, windowSizes...), p.ki))
	os := Strides(p.OutDims)
	p.obStride, p.ozStride = os[dn.OutputBatch], os[dn.OutputFeature]
	for _, d := range dn.OutputSpatial {
		p.spStride = append(p.spStride, os[d])
	}
	fb := fam.Bytes()
	p.rOff = roundUp(p.lload.n*fb, 64)
	p.accOff = p.rOff + roundUp(p.rload.n*fb, 64)
	p.wOff = p.accOff + 64
	p.size = p.wOff + FoldTile*WideBytes
	return p, nil
}

// WorkBytes is the work memory Run needs.
func (p *ConvPlan) WorkBytes() int { return p.size }

// Run convolves lhs with the kernel rhs into out.
func (p *ConvPlan) Run(out, lhs, rhs, work []byte) { p.RunUntil(nil, out, lhs, rhs, work) }

// RunUntil is Run polling stop between output elements (see Stop).
func (p *ConvPlan) RunUntil(stop Stop, out, lhs, rhs, work []byte) {
	if Count(p.OutDims) == 0 {
		return
	}
	w := RegAt(work[p.wOff:], 0, FoldTile, FoldTile)
	l, r, acc := work[:p.rOff], work[p.rOff:p.accOff], work[p.accOff:p.wOff]
	p.lload.run(l, lhs, w)
	p.rload.run(r, rhs, w)
	n, ki := p.n, p.ki
	// An output element sums at most the kernel's taps of ki products.
	poll := newPoller(stop, p.ks[0])
	var opos, tapIdx [MaxRank]int
	for ob := 0; ob < p.outBatch; ob++ {
		clear(opos[:n])
		for {
			base := ob * p.obStride
			for i := 0; i < n; i++ {
				base += opos[i] * p.spStride[i]
			}
			for oz := 0; oz < p.outFeatures; oz++ {
				if poll.stopped() {
					return
				}
				fg, bg := oz/p.ozPerFG, oz/p.ozPerBG
				lb := bg*p.outBatch + ob
				clear(acc[:16])
				empty := false
				for i := 0; i < n; i++ {
					tapIdx[i] = 0
					if len(p.taps[i][opos[i]]) == 0 {
						empty = true
					}
				}
				for !empty {
					lo := lb*p.ls[0] + fg*ki
					ro := oz * p.ks[0]
					for i := 0; i < n; i++ {
						t := p.taps[i][opos[i]][tapIdx[i]]
						lo += t.x * p.ls[i+1]
						ro += t.k * p.ks[i+1]
					}
					accumulateRow(p.fam, acc, l, r, lo, ro, ki)
					i := n - 1
					for ; i >= 0; i-- {
						tapIdx[i]++
						if tapIdx[i] < len(p.taps[i][opos[i]]) {
							break
						}
						tapIdx[i] = 0
					}
					if i < 0 {
						break
					}
				}
				storeFamily(out, p.T, base+oz*p.ozStride, p.fam, acc, 0)
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

// accumulateRow adds the products of the feature vectors l[lo:lo+k] and
// r[ro:ro+k] to the accumulator acc[0], in order.
func accumulateRow(fam Family, acc, l, r []byte, lo, ro, k int) {
	if k == 0 {
		return
	}
	switch fam {
	case FamF32:
		a := Elems[float32](acc)[0]
		rr := Elems[float32](r)[ro : ro+k]
		for j, x := range Elems[float32](l)[lo : lo+k] {
			a += float32(x * rr[j])
		}
		Elems[float32](acc)[0] = a
	case FamF64:
		a := Elems[float64](acc)[0]
		rr := Elems[float64](r)[ro : ro+k]
		for j, x := range Elems[float64](l)[lo : lo+k] {
			a += float64(x * rr[j])
		}
		Elems[float64](acc)[0] = a
	case FamC64:
		a := Elems[complex64](acc)[0]
		rr := Elems[complex64](r)[ro : ro+k]
		for j, x := range Elems[complex64](l)[lo : lo+k] {
			a += mulC64(x, rr[j])
		}
		Elems[complex64](acc)[0] = a
	case FamC128:
		a := Elems[complex128](acc)[0]
		rr := Elems[complex128](r)[ro : ro+k]
		for j, x := range Elems[complex128](l)[lo : lo+k] {
			a += mulC128(x, rr[j])
		}
		Elems[complex128](acc)[0] = a
	default:
		a := Elems[int64](acc)[0]
		rr := Elems[int64](r)[ro : ro+k]
		for j, x := range Elems[int64](l)[lo : lo+k] {
			a += x * rr[j]
		}
		Elems[int64](acc)[0] = a
	}
}

package runtime

// convolution in every form the canonical float32 path does not take: any
// dimension numbers, base (lhs) dilation, window reversal, feature and
// batch groups, integer, narrow-float, float64, complex and mixed-precision
// operands. The input is converted to the accumulation type and transposed
// to [batch, spatial…, feature], the kernel to [out feature, window…, in
// feature], in the program's arena; each output element then accumulates
// one feature-vector product per kernel tap that lands on an input element
// (taps planned at compile time), in the evaluator's order and arithmetic,
// so the two agree bit for bit.

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() { genericSteps[ssa.OpConvolution] = buildConvolution }

// convTap is a kernel position along one spatial dimension that reads an
// input element: the kernel index (reversal applied) and the input index.
type convTap struct{ k, x int }

type convGenericStep struct {
	lhs, rhs, out loc
	t             ir.ElementType
	fam           family
	lload, rload  permutedLoad
	area          loc
	lOff, rOff    int
	accOff        int
	wide          int
	n             int           // spatial dimensions
	taps          [][][]convTap // taps[i][o]
	outBatch      int
	outSpatial    []int
	outFeatures   int
	ozPerFG       int
	ozPerBG       int
	ki            int
	ls, ks        []int // strides of the transposed input and kernel
	obStride      int   // result strides of batch, spatial dims, feature
	spStride      []int
	ozStride      int
	empty         bool
}

func buildConvolution(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(k.Values) != 1 || len(v.Args) != 2 || !denseArray(v.Shape) {
		return nil, nil
	}
	lhs, rhs := v.Args[0].Shape, v.Args[1].Shape
	lb, rb := inputBuffer(k, v.Args[0]), inputBuffer(k, v.Args[1])
	if lb == nil || rb == nil || !denseArray(lhs) || !denseArray(rhs) || lhs.Rank() != rhs.Rank() || lhs.Rank() < 2 || v.Shape.Rank() != lhs.Rank() {
		return nil, nil
	}
	t := v.Shape.Elem
	fam, ok := familyOf(t)
	if !ok || !convertibleTo(lhs.Elem, t) || !convertibleTo(rhs.Elem, t) {
		return nil, nil
	}
	rank := lhs.Rank()
	n := rank - 2
	dn := v.Attrs.ConvDims
	if dn == nil {
		sp := make([]int, n)
		for i := range sp {
			sp[i] = i + 2
		}
		dn = &ir.ConvDimensionNumbers{InputBatch: 0, InputFeature: 1, InputSpatial: sp,
			KernelOutputFeature: 0, KernelInputFeature: 1, KernelSpatial: sp, OutputBatch: 0, OutputFeature: 1, OutputSpatial: sp}
	}
	if len(dn.InputSpatial) != n || len(dn.KernelSpatial) != n || len(dn.OutputSpatial) != n {
		return nil, nil
	}
	fg, bg := max(v.Attrs.FeatureGroupCount, 1), max(v.Attrs.BatchGroupCount, 1)
	s := &convGenericStep{lhs: c.loc(lb), rhs: c.loc(rb), out: c.loc(k.Out), t: t, fam: fam, n: n}
	batch := lhs.Dims[dn.InputBatch]
	inFeatures := lhs.Dims[dn.InputFeature]
	s.outFeatures = rhs.Dims[dn.KernelOutputFeature]
	s.ki = rhs.Dims[dn.KernelInputFeature]
	if (fg > 1 && bg > 1) || inFeatures%fg != 0 || inFeatures/fg != s.ki || s.outFeatures%fg != 0 || s.outFeatures%bg != 0 || batch%bg != 0 {
		return nil, nil
	}
	s.outBatch = batch / bg
	s.ozPerFG, s.ozPerBG = s.outFeatures/fg, s.outFeatures/bg
	var wdims []ir.WindowDim
	if v.Attrs.Window != nil {
		wdims = v.Attrs.Window.Dims
	}
	if wdims == nil && n > 0 {
		for _, d := range dn.KernelSpatial {
			wdims = append(wdims, ir.WindowDim{Size: rhs.Dims[d]})
		}
	}
	if len(wdims) != n {
		return nil, nil
	}
	inSpatial := make([]int, n)
	windowSizes := make([]int, n)
	s.outSpatial = make([]int, n)
	s.taps = make([][][]convTap, n)
	for i, w := range wdims {
		if w.Stride == 0 {
			w.Stride = 1
		}
		if w.BaseDilation == 0 {
			w.BaseDilation = 1
		}
		if w.WindowDilation == 0 {
			w.WindowDilation = 1
		}
		inSpatial[i] = lhs.Dims[dn.InputSpatial[i]]
		if w.Size < 0 || w.Stride < 1 || w.BaseDilation < 1 || w.WindowDilation < 1 || rhs.Dims[dn.KernelSpatial[i]] != w.Size {
			return nil, nil
		}
		windowSizes[i] = w.Size
		base := dilated(inSpatial[i], w.BaseDilation) + w.PadLow + w.PadHigh
		if win := dilated(w.Size, w.WindowDilation); base >= win && base >= 0 {
			s.outSpatial[i] = (base-win)/w.Stride + 1
		}
		s.taps[i] = make([][]convTap, s.outSpatial[i])
		for o := range s.taps[i] {
			for kk := 0; kk < w.Size; kk++ {
				u := o*w.Stride - w.PadLow + kk*w.WindowDilation
				if u < 0 || u%w.BaseDilation != 0 || u/w.BaseDilation >= inSpatial[i] {
					continue
				}
				ki := kk
				if w.Reversal {
					ki = w.Size - 1 - kk
				}
				s.taps[i][o] = append(s.taps[i][o], convTap{k: ki, x: u / w.BaseDilation})
			}
		}
	}
	want := make([]int, rank)
	want[dn.OutputBatch], want[dn.OutputFeature] = s.outBatch, s.outFeatures
	for i, d := range dn.OutputSpatial {
		want[d] = s.outSpatial[i]
	}
	for d := range want {
		if want[d] != v.Shape.Dims[d] {
			return nil, nil
		}
	}
	lperm := append(append([]int{dn.InputBatch}, dn.InputSpatial...), dn.InputFeature)
	rperm := append(append([]int{dn.KernelOutputFeature}, dn.KernelSpatial...), dn.KernelInputFeature)
	s.lload = newPermutedLoad(lhs.Elem, fam, lhs.Dims, lperm)
	s.rload = newPermutedLoad(rhs.Elem, fam, rhs.Dims, rperm)
	s.ls = denseStrides(append(append([]int{batch}, inSpatial...), inFeatures))
	s.ks = denseStrides(append(append([]int{s.outFeatures}, windowSizes...), s.ki))
	os := denseStrides(v.Shape.Dims)
	s.obStride, s.ozStride = os[dn.OutputBatch], os[dn.OutputFeature]
	for _, d := range dn.OutputSpatial {
		s.spStride = append(s.spStride, os[d])
	}
	s.empty = v.Shape.ElementCount() == 0
	fb := fam.bytes()
	s.rOff = roundUp(s.lload.n*fb, 64)
	s.accOff = s.rOff + roundUp(s.rload.n*fb, 64)
	s.area = privateArena(p, s.accOff+64)
	var sp scratchPlan
	s.wide = sp.take(foldTile * wideBytes)
	sp.reserve(p)
	return s, nil
}

func (s *convGenericStep) name() string { return "conv-generic" }

func (s *convGenericStep) exec(fr *frame) error {
	if s.empty {
		return nil
	}
	area := fr.bytes(s.area)
	w := regAt(fr.scratch[0][s.wide:], 0, foldTile, foldTile)
	l, r, acc := area[:s.rOff], area[s.rOff:s.accOff], area[s.accOff:]
	s.lload.run(l, fr.bytes(s.lhs), w)
	s.rload.run(r, fr.bytes(s.rhs), w)
	out := fr.bytes(s.out)
	n, ki := s.n, s.ki
	var opos, tapIdx [maxGenericRank]int
	for ob := 0; ob < s.outBatch; ob++ {
		clear(opos[:n])
		for {
			base := ob * s.obStride
			for i := 0; i < n; i++ {
				base += opos[i] * s.spStride[i]
			}
			for oz := 0; oz < s.outFeatures; oz++ {
				fg, bg := oz/s.ozPerFG, oz/s.ozPerBG
				lb := bg*s.outBatch + ob
				s.zero(acc)
				empty := false
				for i := 0; i < n; i++ {
					tapIdx[i] = 0
					if len(s.taps[i][opos[i]]) == 0 {
						empty = true
					}
				}
				for !empty {
					lo := lb*s.ls[0] + fg*ki
					ro := oz * s.ks[0]
					for i := 0; i < n; i++ {
						t := s.taps[i][opos[i]][tapIdx[i]]
						lo += t.x * s.ls[i+1]
						ro += t.k * s.ks[i+1]
					}
					s.accumulate(acc, l, r, lo, ro, ki)
					i := n - 1
					for ; i >= 0; i-- {
						tapIdx[i]++
						if tapIdx[i] < len(s.taps[i][opos[i]]) {
							break
						}
						tapIdx[i] = 0
					}
					if i < 0 {
						break
					}
				}
				storeFamily(out, s.t, base+oz*s.ozStride, s.fam, acc, 0)
			}
			i := n - 1
			for ; i >= 0; i-- {
				opos[i]++
				if opos[i] < s.outSpatial[i] {
					break
				}
				opos[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
	return nil
}

func (s *convGenericStep) zero(acc []byte) { clear(acc[:16]) }

// accumulate adds the product of the feature vectors l[lo:lo+k] and
// r[ro:ro+k] to the accumulator, in order.
func (s *convGenericStep) accumulate(acc, l, r []byte, lo, ro, k int) {
	if k == 0 {
		return
	}
	switch s.fam {
	case famF32:
		a := elems[float32](acc)[0]
		rr := elems[float32](r)[ro : ro+k]
		for j, x := range elems[float32](l)[lo : lo+k] {
			a += float32(x * rr[j])
		}
		elems[float32](acc)[0] = a
	case famF64:
		a := elems[float64](acc)[0]
		rr := elems[float64](r)[ro : ro+k]
		for j, x := range elems[float64](l)[lo : lo+k] {
			a += float64(x * rr[j])
		}
		elems[float64](acc)[0] = a
	case famC64:
		a := elems[complex64](acc)[0]
		rr := elems[complex64](r)[ro : ro+k]
		for j, x := range elems[complex64](l)[lo : lo+k] {
			a += mulC64(x, rr[j])
		}
		elems[complex64](acc)[0] = a
	case famC128:
		a := elems[complex128](acc)[0]
		rr := elems[complex128](r)[ro : ro+k]
		for j, x := range elems[complex128](l)[lo : lo+k] {
			a += mulC128(x, rr[j])
		}
		elems[complex128](acc)[0] = a
	default:
		a := elems[int64](acc)[0]
		rr := elems[int64](r)[ro : ro+k]
		for j, x := range elems[int64](l)[lo : lo+k] {
			a += x * rr[j]
		}
		elems[int64](acc)[0] = a
	}
}

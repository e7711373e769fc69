package runtime

import (
	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// planarDepthwiseStep runs a depthwise convolution over channel planes
// (sched.ConvPlanarDepthwise), the NCHW form, without transposing anything:
// each plane is copied into a worker's scratch with a zero border (or read
// in place when there is no padding), and since the strides are 1, each
// kernel tap reads the padded plane shifted by a constant: the plane's
// convolution is a stencil over it (kiln.DepthwisePlane), the output
// columns the vector lanes, every output's taps summed in registers and
// stored once, straight into the output rows. Planes are split across
// workers as the plan says. A bfloat16 or binary16 plane is widened into
// the scratch as it is copied and its outputs rounded once: the sums are
// float32, as XLA accumulates a narrow convolution.
type planarDepthwiseStep struct {
	x, w, y               loc
	planes, c             int
	inRows, inCols        int // the input plane
	rows, cols            int // the padded plane
	outRows, outCols      int
	padTop, padLeft       int
	taps                  []int // per kernel tap (row-major), its shift in the padded plane
	plain                 bool  // no padding: the input plane is the padded plane
	parts, threads, nTaps int
	ty                    ir.ElementType // F32, BF16 or F16
	// Per worker: the stencil's work memory, and a narrow plane's weights
	// widened.
	works  []*kiln.PlaneWork
	wide32 [][]float32
}

func (c *compiler) planarDepthwiseStep(k *sched.Kernel, p *program) (step, error) {
	cp := k.Conv
	g := cp.ConvGeom
	v := k.Main
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	s := &planarDepthwiseStep{x: c.loc(bufOf(v.Args[0])), w: c.loc(bufOf(v.Args[1])), y: c.loc(k.Out),
		planes: g.Batch * g.InChannels, c: g.InChannels, parts: max(k.Parallel, 1), threads: c.cfg.threads, ty: v.Shape.Elem}
	s.rows, s.cols, s.outRows, s.outCols = cp.PlaneRows, cp.PlaneCols, cp.OutRows, cp.OutCols
	n := len(g.In)
	kh, dh := 1, 1
	s.inRows = 1
	if n == 2 {
		kh, dh = g.Kernel[0], g.Dilation[0]
		s.inRows, s.padTop = g.In[0], g.PadLow[0]
	}
	kw, dw := g.Kernel[n-1], g.Dilation[n-1]
	s.inCols, s.padLeft = g.In[n-1], g.PadLow[n-1]
	for i := 0; i < kh; i++ {
		for j := 0; j < kw; j++ {
			s.taps = append(s.taps, i*dh*s.cols+j*dw)
		}
	}
	s.nTaps = len(s.taps)
	s.plain = s.rows == s.inRows && s.cols == s.inCols
	p.scratch = max(p.scratch, cp.Scratch)
	for range max(s.threads, 1) {
		s.works = append(s.works, kiln.NewPlaneWork(s.nTaps))
		s.wide32 = append(s.wide32, make([]float32, s.nTaps))
	}
	return s, nil
}

func (s *planarDepthwiseStep) name() string { return "conv-planar-depthwise" }

func (s *planarDepthwiseStep) exec(fr *frame) error {
	if s.planes == 0 || s.outRows*s.outCols == 0 {
		return nil
	}
	parallelFor(fr, &fr.task, s, min(s.parts, s.planes), s.threads)
	return nil
}

// part convolves the planes [p·planes/parts, (p+1)·planes/parts).
func (s *planarDepthwiseStep) part(fr *frame, p, w int) {
	if s.ty != ir.F32 {
		s.partNarrow(fr, p, w)
		return
	}
	parts := min(s.parts, s.planes)
	lo, hi := p*s.planes/parts, (p+1)*s.planes/parts
	x, wt, y := f32s(fr.bytes(s.x)), f32s(fr.bytes(s.w)), f32s(fr.bytes(s.y))
	scratch := f32s(fr.scratch[w])
	inSize, outSize := s.inRows*s.inCols, s.outRows*s.outCols
	for pl := lo; pl < hi && !fr.stopped(); pl++ {
		src := x[pl*inSize : (pl+1)*inSize]
		dst := y[pl*outSize : (pl+1)*outSize]
		if s.nTaps == 0 {
			clear(dst)
			continue
		}
		pad := src
		if !s.plain {
			pad = scratch[:s.rows*s.cols]
			s.fillPadded(pad, src)
		}
		ch := pl % s.c
		kiln.DepthwisePlane(dst, s.outCols, pad, s.cols, s.outRows, s.outCols, s.taps, wt[ch*s.nTaps:(ch+1)*s.nTaps], s.works[w])
	}
}

// partNarrow is part for bfloat16 or binary16 planes: each plane widened
// whole into the scratch and placed in the padded plane, the taps summed in
// float32 (the weights widened), the output rounded once, whole.
func (s *planarDepthwiseStep) partNarrow(fr *frame, p, w int) {
	parts := min(s.parts, s.planes)
	lo, hi := p*s.planes/parts, (p+1)*s.planes/parts
	x, wt, y := ops.Elems[uint16](fr.bytes(s.x)), ops.Elems[uint16](fr.bytes(s.w)), ops.Elems[uint16](fr.bytes(s.y))
	inSize, outSize := s.inRows*s.inCols, s.outRows*s.outCols
	scratch := f32s(fr.scratch[w])
	pad := scratch[:s.rows*s.cols]
	acc := scratch[s.rows*s.cols : s.rows*s.cols+outSize]
	off := s.rows*s.cols + s.outRows*s.cols
	wide := scratch[off : off+inSize]
	ws := s.wide32[w]
	for pl := lo; pl < hi && !fr.stopped(); pl++ {
		src := x[pl*inSize : (pl+1)*inSize]
		dst := y[pl*outSize : (pl+1)*outSize]
		if s.nTaps == 0 {
			clear(dst) // zeros: 0 bits in both types
			continue
		}
		if s.plain {
			widen16(s.ty, pad, src)
		} else {
			widen16(s.ty, wide, src)
			s.fillPadded(pad, wide)
		}
		ch := pl % s.c
		widen16(s.ty, ws, wt[ch*s.nTaps:(ch+1)*s.nTaps])
		kiln.DepthwisePlane(acc, s.outCols, pad, s.cols, s.outRows, s.outCols, s.taps, ws, s.works[w])
		narrow16(s.ty, dst, acc)
	}
}

// fillPadded writes the plane src into pad with its zero border.
func (s *planarDepthwiseStep) fillPadded(pad, src []float32) {
	clear(pad[:s.padTop*s.cols])
	clear(pad[(s.padTop+s.inRows)*s.cols:])
	right := s.padLeft + s.inCols
	for r := 0; r < s.inRows; r++ {
		row := pad[(s.padTop+r)*s.cols : (s.padTop+r+1)*s.cols]
		clear(row[:s.padLeft])
		copy(row[s.padLeft:right], src[r*s.inCols:(r+1)*s.inCols])
		clear(row[right:])
	}
}

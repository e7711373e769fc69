package runtime

import (
	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// planarDepthwiseStep runs a depthwise convolution over channel planes
// (sched.ConvPlanarDepthwise), the NCHW form, without transposing anything:
// each plane is copied into a worker's scratch with a zero border (or read
// in place when there is no padding), and since the strides are 1, each
// kernel tap reads the padded plane shifted by a constant, so the
// convolution of a plane is one scaled copy and Kh·Kw−1 multiply-adds over
// its whole length (vector kernels over a plane that stays in L1); the
// output rows are then taken out of the padded row length. Planes are split
// across workers as the plan says.
type planarDepthwiseStep struct {
	x, w, y               loc
	planes, c             int
	inRows, inCols        int // the input plane
	rows, cols            int // the padded plane
	outRows, outCols      int
	padTop, padLeft       int
	taps                  []int // per kernel tap (row-major), its shift in the padded plane
	plain                 bool  // no padding: the input plane is the padded plane
	length                int   // elements of the output computed at the padded row length
	parts, threads, nTaps int
}

func (c *compiler) planarDepthwiseStep(k *sched.Kernel, p *program) (step, error) {
	cp := k.Conv
	g := cp.ConvGeom
	v := k.Main
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	s := &planarDepthwiseStep{x: c.loc(bufOf(v.Args[0])), w: c.loc(bufOf(v.Args[1])), y: c.loc(k.Out),
		planes: g.Batch * g.InChannels, c: g.InChannels, parts: max(k.Parallel, 1), threads: c.cfg.threads}
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
	if s.outRows > 0 && s.outCols > 0 {
		s.length = (s.outRows-1)*s.cols + s.outCols
	}
	p.scratch = max(p.scratch, cp.Scratch)
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
		// The output rows at the padded row length: straight into the
		// output when the lengths agree, else into scratch and copied out.
		acc := dst[:min(s.length, len(dst))]
		direct := s.cols == s.outCols
		if !direct {
			acc = scratch[s.rows*s.cols : s.rows*s.cols+s.length]
		}
		ch := pl % s.c
		taps := wt[ch*s.nTaps : (ch+1)*s.nTaps]
		kiln.MulScalar(acc, pad[s.taps[0]:s.taps[0]+s.length], taps[0])
		for t := 1; t < s.nTaps; t++ {
			kiln.MulScalarAdd(acc, pad[s.taps[t]:s.taps[t]+s.length], taps[t], acc)
		}
		if !direct {
			for r := 0; r < s.outRows; r++ {
				copy(dst[r*s.outCols:(r+1)*s.outCols], acc[r*s.cols:r*s.cols+s.outCols])
			}
		}
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

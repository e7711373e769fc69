package runtime

import (
	"math"

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
// kernel tap reads the padded plane shifted by a constant, so the
// convolution of a plane is one scaled copy and Kh·Kw−1 multiply-adds over
// its whole length (vector kernels over a plane that stays in L1); the
// output rows are then taken out of the padded row length. Planes are split
// across workers as the plan says. A bfloat16 or binary16 plane is widened
// into the scratch as it is copied and its output rows rounded once as
// they are taken out: the sums are float32, as XLA accumulates a narrow
// convolution.
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
	ty                    ir.ElementType // F32, BF16 or F16
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
		// The output rows at the padded row length: straight into the
		// output when the lengths agree, else into scratch and copied out.
		acc := dst[:min(s.length, len(dst))]
		direct := s.cols == s.outCols
		if !direct {
			acc = scratch[s.rows*s.cols : s.rows*s.cols+s.length]
		}
		ch := pl % s.c
		s.taps1(acc, pad, wt[ch*s.nTaps:(ch+1)*s.nTaps])
		if !direct {
			for r := 0; r < s.outRows; r++ {
				copy(dst[r*s.outCols:(r+1)*s.outCols], acc[r*s.cols:r*s.cols+s.outCols])
			}
		}
	}
}

// taps1 sums the taps of one plane into acc: the padded plane shifted by
// each tap times its weight.
func (s *planarDepthwiseStep) taps1(acc, pad, taps []float32) {
	s.tap(acc, pad, 0, taps[0])
	for t := 1; t < s.nTaps; t++ {
		s.tap(acc, pad, t, taps[t])
	}
}

// tapLanes is the multiple of elements tap hands the vector kernels; the
// few past it (a plane's length is rarely a multiple) are multiplied and
// added here, with one fused rounding as the kernels' lanes: the kernels'
// own tails run their pure-Go twins, whose exact float32 FMA costs as much
// as the whole vector pass over a plane.
const tapLanes = 16

// tap adds the padded plane shifted by tap t times w to acc, which tap 0
// first sets to zero: the sums start from +0, as XLA's do (a first product
// of −0 then sums to +0).
func (s *planarDepthwiseStep) tap(acc, pad []float32, t int, w float32) {
	x := pad[s.taps[t] : s.taps[t]+s.length]
	n := s.length &^ (tapLanes - 1)
	if t == 0 {
		clear(acc[:s.length])
	}
	kiln.MulScalarAdd(acc[:n], x[:n], w, acc[:n])
	for i := n; i < s.length; i++ {
		acc[i] = float32(math.FMA(float64(x[i]), float64(w), float64(acc[i])))
	}
}

// partNarrow is part for bfloat16 or binary16 planes: each plane widened
// whole into the scratch and placed in the padded plane, the taps summed in
// float32 (the weights widened one by one), the output rows rounded once —
// whole, then taken out: a call per row of a small plane costs more than
// its work.
func (s *planarDepthwiseStep) partNarrow(fr *frame, p, w int) {
	parts := min(s.parts, s.planes)
	lo, hi := p*s.planes/parts, (p+1)*s.planes/parts
	x, wt, y := ops.Elems[uint16](fr.bytes(s.x)), ops.Elems[uint16](fr.bytes(s.w)), ops.Elems[uint16](fr.bytes(s.y))
	inSize, outSize := s.inRows*s.inCols, s.outRows*s.outCols
	scratch := f32s(fr.scratch[w])
	pad := scratch[:s.rows*s.cols]
	acc := scratch[s.rows*s.cols : s.rows*s.cols+s.length]
	off := s.rows*s.cols + s.outRows*s.cols
	wide := scratch[off : off+inSize]
	rounded := ops.Elems[uint16](fr.scratch[w][4*(off+inSize):])[:s.length]
	var one [1]float32
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
		ws := wt[ch*s.nTaps : (ch+1)*s.nTaps]
		for t := 0; t < s.nTaps; t++ {
			widen16(s.ty, one[:], ws[t:t+1])
			s.tap(acc, pad, t, one[0])
		}
		narrow16(s.ty, rounded, acc)
		if s.cols == s.outCols {
			copy(dst, rounded)
			continue
		}
		for r := 0; r < s.outRows; r++ {
			copy(dst[r*s.outCols:(r+1)*s.outCols], rounded[r*s.cols:r*s.cols+s.outCols])
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

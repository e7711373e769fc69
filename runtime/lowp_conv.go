package runtime

// Convolutions of bfloat16 and binary16 with weights known at compile time,
// on the float32 convolution kernels (kiln.Conv: the implicit GEMM, the
// direct depthwise kernels): the weights are widened and packed once; the
// input is widened and the output rounded block by block — a band of
// output rows along the first spatial dimension and the input rows it
// reads — so the float32 copies stay in the cache and every element of
// input and output crosses memory once, in its own type. XLA accumulates
// narrow convolutions in float32 and rounds the result once, as here.
// Blocks whose window reaches past the image take the padding in their
// geometry (one packed variant per distinct edge), so padding taps are
// skipped as the float32 kernels skip them.

import (
	"fmt"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
)

// convBlock is a band of output rows [o0, o1) and the input rows [i0, i1)
// it reads, with the packed convolution of its edges.
type convBlock struct {
	o0, o1, i0, i1 int
	pack           *kiln.PackedConv
}

// lowpConvStep is a narrow convolution run block by block.
type lowpConvStep struct {
	g          sched.ConvGeom
	xt, yt     ir.ElementType
	x, y       loc
	blocks     []convBlock
	inRow      int // input elements per row of the first spatial dimension
	outRow     int // output elements per output row
	inImage    int
	outImage   int
	slab, outF loc // float32 input rows and output block, in the frame's arena
	in         []int
	// run packs weights known only at run time (nil for a constant's,
	// packed once): every block's layout reads the one packed buffer.
	run *narrowWeights
}

// lowpConvStep carries out a ConvNarrowBands plan: a convolution of
// narrow floats, band by band.
func (c *compiler) lowpConvStep(k *sched.Kernel, p *program) (step, error) {
	v, cp := k.Main, k.Conv
	g := cp.ConvGeom
	if len(k.Epilogue) != 0 {
		return nil, fmt.Errorf("a %s convolution with an epilogue has no narrow-band implementation", v.Shape.Elem)
	}
	xt, wt, yt := v.Args[0].Shape.Elem, v.Args[1].Shape.Elem, v.Shape.Elem
	w := c.loc(inputBuffer(k, v.Args[1]))
	if w.kind != sched.Constant && !cp.RunTimeWeights {
		return nil, fmt.Errorf("the plan packs the %s convolution's weights at compile time, which are not a constant (%v)", xt, inputBuffer(k, v.Args[1]))
	}
	s := &lowpConvStep{g: g, xt: xt, yt: yt, x: c.loc(inputBuffer(k, v.Args[0])), y: c.loc(k.Out), in: g.In}
	s.inRow = prod(g.In[1:]) * g.InChannels
	s.outRow = prod(g.Out[1:]) * g.OutChannels
	s.inImage, s.outImage = g.In[0]*s.inRow, g.Out[0]*s.outRow
	if g.Batch*s.outImage == 0 {
		return s, nil
	}
	var wf []float32
	if !cp.RunTimeWeights {
		wf = make([]float32, len(w.data)/wt.ByteSize())
		widenBytes(wt, wf, w.data)
	}
	stride, dil, kern := g.Strides[0], g.Dilation[0], g.Kernel[0]
	rows := cp.Block // output rows per band
	packs := map[[3]int]*kiln.PackedConv{}
	maxIn := 0
	for o0 := 0; o0 < g.Out[0]; o0 += rows {
		o1 := min(o0+rows, g.Out[0])
		lo := o0*stride - g.PadLow[0]
		hi := (o1-1)*stride - g.PadLow[0] + (kern-1)*dil + 1
		i0, i1 := max(lo, 0), min(hi, g.In[0])
		if i1 < i0 {
			i0, i1 = 0, 0
		}
		padLo, padHi := i0-lo, hi-max(i1, i0)
		if i1 == i0 {
			padLo, padHi = 0, hi-lo
		}
		key := [3]int{padLo, padHi, i1 - i0}
		pc, ok := packs[key]
		if !ok {
			pl, ph := append([]int{padLo}, g.PadLow[1:]...), append([]int{padHi}, g.PadHigh[1:]...)
			edge := convParams(g)
			edge.PadLow, edge.PadHigh = pl, ph
			var err error
			if cp.RunTimeWeights {
				if pc, err = kiln.PackConvLayout(edge); err != nil {
					return nil, fmt.Errorf("the convolution's geometry: %w", err)
				}
				if s.run == nil {
					s.run = newNarrowWeights(p, wt, w, pc)
				}
			} else {
				if pc, err = kiln.PackConv(wf, edge); err != nil {
					return nil, fmt.Errorf("packing the convolution's weights: %w", err)
				}
				c.notePacked(pc.Bytes())
			}
			packs[key] = pc
		}
		if pc.OutSize(0, i1-i0) != o1-o0 {
			return nil, fmt.Errorf("convolution block of output rows [%d, %d) reads rows [%d, %d): %d rows out", o0, o1, i0, i1, pc.OutSize(0, i1-i0))
		}
		s.blocks = append(s.blocks, convBlock{o0: o0, o1: o1, i0: i0, i1: i1, pack: pc})
		maxIn = max(maxIn, i1-i0)
	}
	s.slab = privateArena(p, 4*max(1, maxIn*s.inRow))
	s.outF = privateArena(p, 4*rows*s.outRow)
	return s, nil
}

func (s *lowpConvStep) name() string {
	name := "conv-lowp"
	if s.g.Groups > 1 && s.g.Groups == s.g.InChannels && s.g.Groups == s.g.OutChannels {
		name = "conv-lowp-depthwise"
	}
	if s.run != nil {
		name += "-per-run"
	}
	return name
}

func (s *lowpConvStep) exec(fr *frame) error {
	g := s.g
	if g.Batch*s.outImage == 0 {
		return nil
	}
	x, y := fr.bytes(s.x), fr.bytes(s.y)
	es := s.xt.ByteSize()
	slab, outF := f32s(fr.bytes(s.slab)), f32s(fr.bytes(s.outF))
	var packed []float32
	if s.run != nil {
		packed = s.run.packed(fr)
	}
	var in [4]int
	copy(in[:], s.in)
	nd := len(s.in)
	for b := 0; b < g.Batch; b++ {
		for i := range s.blocks {
			if fr.stopped() {
				return nil
			}
			bl := &s.blocks[i]
			n := (bl.o1 - bl.o0) * s.outRow
			dst := outF[:n]
			if bl.i1 > bl.i0 {
				src := x[es*(b*s.inImage+bl.i0*s.inRow) : es*(b*s.inImage+bl.i1*s.inRow)]
				widenBytes(s.xt, slab[:len(src)/es], src)
				in[0] = bl.i1 - bl.i0
				if s.run != nil {
					kiln.ConvWith(dst, slab[:len(src)/es], 1, in[:nd], bl.pack, packed, kiln.ConvEpilogue{})
				} else {
					kiln.Conv(dst, slab[:len(src)/es], 1, in[:nd], bl.pack, kiln.ConvEpilogue{})
				}
			} else {
				clear(dst) // every tap falls on the padding
			}
			o := b*s.outImage + bl.o0*s.outRow
			switch s.yt {
			case ir.F32:
				copy(f32s(y)[o:o+n], dst)
			case ir.S32: // integer sums below 2^24: exact in float32
				kiln.F32ToS32(ops.Elems[int32](y)[o:o+n], dst)
			default:
				narrow16(s.yt, ops.Elems[uint16](y)[o:o+n], dst)
			}
		}
	}
	return nil
}

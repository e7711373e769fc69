package runtime

import (
	"fmt"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
)

// lowpDepthwiseStep carries out a ConvNarrowDepthwise plan: a bfloat16 or
// binary16 depthwise convolution on the narrow depthwise kernels
// (kiln.ConvBF16, kiln.ConvF16), which read the input and write the output
// in their own type, accumulating in float32 and rounding each output
// once, as XLA does. Constant weights are widened and packed once; weights
// known only at run time on every run (narrowWeights).
type lowpDepthwiseStep struct {
	g    sched.ConvGeom
	bf16 bool
	x, y loc
	pack *kiln.PackedConv
	in   []int
	run  *narrowWeights // weights packed per run, or nil
}

// narrowWeights packs narrow weights known only at run time for a layout
// (kiln.PackConvLayout): widened into the worker's scratch, then packed
// beside them.
type narrowWeights struct {
	t          ir.ElementType
	w          loc
	lay        *kiln.PackedConv
	wide, pack int // scratch offsets (bytes) of the widened and packed weights
}

// newNarrowWeights plans the per-run packing of the weights at w for lay,
// reserving the worker scratch it needs.
func newNarrowWeights(p *program, t ir.ElementType, w loc, lay *kiln.PackedConv) *narrowWeights {
	var sp scratchPlan
	n := &narrowWeights{t: t, w: w, lay: lay}
	n.wide = sp.take(4 * lay.WeightsLen())
	n.pack = sp.take(4 * lay.PackedLen())
	sp.reserve(p)
	return n
}

// packed widens and packs this run's weights and returns them.
func (n *narrowWeights) packed(fr *frame) []float32 {
	s := fr.scratch[0]
	wide := f32s(s[n.wide:])[:n.lay.WeightsLen()]
	packed := f32s(s[n.pack:])[:n.lay.PackedLen()]
	widenBytes(n.t, wide, fr.bytes(n.w)[:len(wide)*n.t.ByteSize()])
	n.lay.PackWeights(packed, wide)
	return packed
}

func (c *compiler) lowpDepthwiseStep(k *sched.Kernel, p *program) (step, error) {
	v, g := k.Main, k.Conv.ConvGeom
	if len(k.Epilogue) != 0 {
		return nil, fmt.Errorf("a %s depthwise convolution with an epilogue has no narrow implementation", v.Shape.Elem)
	}
	xt := v.Args[0].Shape.Elem
	if v.Shape.Elem != xt || xt != ir.BF16 && xt != ir.F16 {
		return nil, fmt.Errorf("the plan runs a %s→%s convolution on the narrow depthwise kernels, which take bf16 or f16 to the same type", xt, v.Shape.Elem)
	}
	w := c.loc(inputBuffer(k, v.Args[1]))
	s := &lowpDepthwiseStep{g: g, bf16: xt == ir.BF16, x: c.loc(inputBuffer(k, v.Args[0])), y: c.loc(k.Out), in: g.In}
	var err error
	if k.Conv.RunTimeWeights {
		if s.pack, err = kiln.PackConvLayout(convParams(g)); err != nil {
			return nil, fmt.Errorf("the convolution's geometry: %w", err)
		}
		s.run = newNarrowWeights(p, xt, w, s.pack)
	} else {
		if w.kind != sched.Constant {
			return nil, fmt.Errorf("the plan packs the %s convolution's weights at compile time, which are not a constant (%v)", xt, inputBuffer(k, v.Args[1]))
		}
		wf := make([]float32, len(w.data)/2)
		widen16(xt, wf, ops.Elems[uint16](w.data))
		if s.pack, err = kiln.PackConv(wf, convParams(g)); err != nil {
			return nil, fmt.Errorf("packing the convolution's weights: %w", err)
		}
		c.notePacked(s.pack.Bytes())
	}
	if !s.pack.Depthwise() {
		return nil, fmt.Errorf("the plan runs a convolution of %d groups, %d input and %d output channels as depthwise", g.Groups, g.InChannels, g.OutChannels)
	}
	return s, nil
}

func (s *lowpDepthwiseStep) name() string {
	if s.run != nil {
		return "conv-lowp-depthwise-per-run"
	}
	return "conv-lowp-depthwise"
}

func (s *lowpDepthwiseStep) exec(fr *frame) error {
	x, y := ops.Elems[uint16](fr.bytes(s.x)), ops.Elems[uint16](fr.bytes(s.y))
	if s.run != nil {
		w := s.run.packed(fr)
		if s.bf16 {
			kiln.ConvBF16With(y, x, s.g.Batch, s.in, s.pack, w, fr.cancel)
		} else {
			kiln.ConvF16With(y, x, s.g.Batch, s.in, s.pack, w, fr.cancel)
		}
		return nil
	}
	if s.bf16 {
		kiln.ConvBF16(y, x, s.g.Batch, s.in, s.pack, fr.cancel)
	} else {
		kiln.ConvF16(y, x, s.g.Batch, s.in, s.pack, fr.cancel)
	}
	return nil
}

// widenBytes widens the elements of type t (bfloat16, binary16, s8, u8)
// in x to float32.
func widenBytes(t ir.ElementType, dst []float32, x []byte) {
	switch t {
	case ir.S8:
		kiln.S8ToF32(dst, ops.Elems[int8](x))
	case ir.U8:
		kiln.U8ToF32(dst, x)
	default:
		widen16(t, dst, ops.Elems[uint16](x))
	}
}

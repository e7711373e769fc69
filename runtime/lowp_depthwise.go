package runtime

import (
	"fmt"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
)

// lowpDepthwiseStep carries out a ConvNarrowDepthwise plan: a bfloat16 or
// binary16 depthwise convolution with constant weights on the narrow
// depthwise kernels (kiln.ConvBF16, kiln.ConvF16), which read the input and
// write the output in their own type, accumulating in float32 and rounding
// each output once, as XLA does.
type lowpDepthwiseStep struct {
	g    sched.ConvGeom
	bf16 bool
	x, y loc
	pack *kiln.PackedConv
	in   []int
}

func (c *compiler) lowpDepthwiseStep(k *sched.Kernel) (step, error) {
	v, g := k.Main, k.Conv.ConvGeom
	if len(k.Epilogue) != 0 {
		return nil, fmt.Errorf("a %s depthwise convolution with an epilogue has no narrow implementation", v.Shape.Elem)
	}
	xt := v.Args[0].Shape.Elem
	if v.Shape.Elem != xt || xt != ir.BF16 && xt != ir.F16 {
		return nil, fmt.Errorf("the plan runs a %s→%s convolution on the narrow depthwise kernels, which take bf16 or f16 to the same type", xt, v.Shape.Elem)
	}
	w := c.loc(inputBuffer(k, v.Args[1]))
	if w.kind != sched.Constant {
		return nil, fmt.Errorf("the plan runs a %s convolution on weights that are not a constant (%v)", xt, inputBuffer(k, v.Args[1]))
	}
	wf := make([]float32, len(w.data)/2)
	widen16(xt, wf, ops.Elems[uint16](w.data))
	pc, err := kiln.PackConv(wf, kiln.ConvParams{InChannels: g.InChannels, OutChannels: g.OutChannels,
		Kernel: g.Kernel, Strides: g.Strides, Dilation: g.Dilation, PadLow: g.PadLow, PadHigh: g.PadHigh, Groups: g.Groups})
	if err != nil {
		return nil, fmt.Errorf("packing the convolution's weights: %w", err)
	}
	if !pc.Depthwise() {
		return nil, fmt.Errorf("the plan runs a convolution of %d groups, %d input and %d output channels as depthwise", g.Groups, g.InChannels, g.OutChannels)
	}
	c.notePacked(pc.Bytes())
	return &lowpDepthwiseStep{g: g, bf16: xt == ir.BF16, x: c.loc(inputBuffer(k, v.Args[0])), y: c.loc(k.Out), pack: pc, in: g.In}, nil
}

func (s *lowpDepthwiseStep) name() string { return "conv-lowp-depthwise" }

func (s *lowpDepthwiseStep) exec(fr *frame) error {
	x, y := ops.Elems[uint16](fr.bytes(s.x)), ops.Elems[uint16](fr.bytes(s.y))
	if s.bf16 {
		kiln.ConvBF16(y, x, s.g.Batch, s.in, s.pack, fr.cancel)
	} else {
		kiln.ConvF16(y, x, s.g.Batch, s.in, s.pack, fr.cancel)
	}
	return nil
}

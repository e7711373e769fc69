package runtime

import (
	"fmt"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
)

// int8ConvStep carries out a ConvInt8 plan: an int8 convolution into int32
// as im2col blocks of int8 patches times the weights on the int8 GEMM,
// exactly (the padding gathered as zeros adds nothing to an integer sum).
// Constant weights are packed once; weights known only at run time are
// packed on every run into a pack the step keeps per run in flight.
type int8ConvStep struct {
	g        sched.ConvGeom
	x, w, y  loc
	unsigned bool // u8 input
	packed   *kiln.PackedS8
	packs    packList[kiln.PackedS8]
	patch    int // KH·KW·CI
	pixels   int // output pixels per image
	block    int // output pixels per im2col block
}

func (c *compiler) int8ConvStep(k *sched.Kernel, p *program) (step, error) {
	v, cp := k.Main, k.Conv
	g := cp.ConvGeom
	if len(k.Epilogue) != 0 {
		return nil, fmt.Errorf("an int8 convolution with an epilogue has no implementation")
	}
	s := &int8ConvStep{g: g, x: c.loc(inputBuffer(k, v.Args[0])), w: c.loc(inputBuffer(k, v.Args[1])), y: c.loc(k.Out),
		unsigned: v.Args[0].Shape.Elem == ir.U8, patch: prod(g.Kernel) * g.InChannels, pixels: prod(g.Out), block: cp.Block}
	if !cp.RunTimeWeights {
		if s.w.kind != sched.Constant {
			return nil, fmt.Errorf("the plan packs the int8 convolution's weights at compile time, which are not a constant (%v)", inputBuffer(k, v.Args[1]))
		}
		if s.patch > 0 && g.OutChannels > 0 {
			s.packed = kiln.PackS8(false, s.patch, g.OutChannels, ops.Elems[int8](s.w.data), g.OutChannels)
			c.notePacked(s.packed.Bytes())
		}
	}
	reserveScratch(p, cp.Scratch)
	return s, nil
}

func (s *int8ConvStep) name() string {
	if s.packed == nil {
		return "conv-int8-per-run"
	}
	return "conv-int8"
}

func (s *int8ConvStep) exec(fr *frame) error {
	g := s.g
	y := ops.Elems[int32](fr.bytes(s.y))
	outImage := s.pixels * g.OutChannels
	if g.Batch*outImage == 0 {
		return nil
	}
	if s.patch == 0 { // no input channels or an empty window: the sums are 0
		clear(y[:g.Batch*outImage])
		return nil
	}
	pb := s.packed
	if pb == nil {
		pb = kiln.RepackS8(s.packs.get(), false, s.patch, g.OutChannels, ops.Elems[int8](fr.bytes(s.w))[:s.patch*g.OutChannels], g.OutChannels)
		defer s.packs.put(pb)
	}
	x := fr.bytes(s.x)
	inImage := prod(g.In) * g.InChannels
	cols := fr.scratch[0]
	for b := 0; b < g.Batch; b++ {
		xb, yb := x[b*inImage:(b+1)*inImage], y[b*outImage:(b+1)*outImage]
		for p0 := 0; p0 < s.pixels && !fr.stopped(); p0 += s.block {
			n := min(s.block, s.pixels-p0)
			a := cols[:n*s.patch]
			im2colOf(&s.g, s.patch, a, xb, p0, n)
			c := yb[p0*g.OutChannels : (p0+n)*g.OutChannels]
			if s.unsigned {
				kiln.GemmU8S8(false, n, a, s.patch, pb, c, g.OutChannels)
			} else {
				kiln.GemmS8S8(false, n, ops.Elems[int8](a), s.patch, pb, c, g.OutChannels)
			}
		}
	}
	return nil
}

package runtime

import (
	"fmt"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// convStep runs a canonical float32 convolution with its fused epilogue
// (bias, residual, activation) by the algorithm of the plan
// (sched.ConvAlgo): weights packed for the convolution kernels (kiln.Conv),
// which apply the epilogue in their store — once at compile time when they
// are a constant, else on every run into the worker's scratch; or, for
// weights known only at run time, a 1×1 unit-stride convolution as the
// GEMM of the input in place, or im2col blocks in a worker's scratch times
// the GEMM, with the epilogue applied after the products.
type convStep struct {
	g       sched.ConvGeom
	x, w, y loc
	packed  *kiln.PackedConv
	// perRun: packed is a layout (kiln.PackConvLayout), and each run packs
	// the weights into the first packedLen float32 of the worker's scratch.
	perRun    bool
	packedLen int
	// scaled: each run packs the weights times the per-output-channel
	// factors at scale (sched.ConvPlan.Scale).
	scale  loc
	scaled bool
	in     []int // input spatial sizes, for kiln.Conv
	patch  int   // KH·KW·CI
	pixels int   // output pixels per image
	block  int   // output pixels per im2col block
	direct bool
	// epilogue
	bias, residual  loc
	hasBias, hasRes bool
	act             kiln.Activation
}

// convStep carries out the convolution plan sched made for a Conv kernel
// (nil: no convolution kernel runs it, and it runs generically).
func (c *compiler) convStep(k *sched.Kernel, p *program) (step, error) {
	cp := k.Conv
	if cp == nil {
		return nil, nil
	}
	switch cp.Algo {
	case sched.ConvPlanarDepthwise:
		return c.planarDepthwiseStep(k, p)
	case sched.ConvNarrowBands:
		return c.lowpConvStep(k, p)
	case sched.ConvNarrowDepthwise:
		return c.lowpDepthwiseStep(k, p)
	case sched.ConvInt8:
		return c.int8ConvStep(k, p)
	}
	v, g := k.Main, cp.ConvGeom
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	s := &convStep{g: g, x: c.loc(bufOf(v.Args[0])), y: c.loc(k.Out), in: g.In}
	if cp.Scale != nil {
		// The kernel scales the weights as it packs them (sched's weight
		// scale): it reads the unscaled weights and the factors.
		if cp.Algo != sched.ConvPacked || !cp.RunTimeWeights {
			return nil, fmt.Errorf("the plan scales the weights of a convolution it does not pack per run (%v)", cp)
		}
		s.w, s.scale, s.scaled = c.loc(bufOf(cp.Weights)), c.loc(bufOf(cp.Scale)), true
	} else {
		s.w = c.loc(bufOf(v.Args[1]))
	}
	for _, st := range k.Epilogue {
		switch st.Kind {
		case sched.EpilogueBias:
			s.bias, s.hasBias = c.loc(bufOf(st.Operand)), true
		case sched.EpilogueResidual:
			s.residual, s.hasRes = c.loc(bufOf(st.Operand)), true
		case sched.EpilogueReLU:
			s.act = kiln.ActReLU
		case sched.EpilogueGelu:
			s.act = kiln.ActGeluErf
			if st.Value.Aux == ssa.GeluTanh {
				s.act = kiln.ActGeluTanh
			}
		case sched.EpilogueSiLU:
			s.act = kiln.ActSiLU
		}
	}
	s.patch = prod(g.Kernel) * g.InChannels
	s.pixels = prod(g.Out)
	switch cp.Algo {
	case sched.ConvPacked:
		if cp.RunTimeWeights {
			lay, err := kiln.PackConvLayout(convParams(g))
			if err != nil {
				return nil, fmt.Errorf("the convolution's geometry: %w", err)
			}
			s.packed, s.perRun, s.packedLen = lay, true, lay.PackedLen()
			reserveScratch(p, 4*s.packedLen)
			break
		}
		if s.w.kind != sched.Constant {
			return nil, fmt.Errorf("the plan packs the weights at compile time, which are not a constant (%v)", bufOf(v.Args[1]))
		}
		pc, err := kiln.PackConv(f32s(s.w.data), convParams(g))
		if err != nil {
			return nil, fmt.Errorf("packing the convolution's weights: %w", err)
		}
		s.packed = pc
		c.notePacked(pc.Bytes())
	case sched.ConvGEMM:
		s.direct = true
	case sched.ConvIm2col:
		s.block = cp.Block
		p.scratch = max(p.scratch, cp.Scratch)
	}
	return s, nil
}

// convParams is the geometry of g as the convolution kernels take it.
func convParams(g sched.ConvGeom) kiln.ConvParams {
	return kiln.ConvParams{InChannels: g.InChannels, OutChannels: g.OutChannels,
		Kernel: g.Kernel, Strides: g.Strides, Dilation: g.Dilation, PadLow: g.PadLow, PadHigh: g.PadHigh, Groups: g.Groups}
}

func (s *convStep) name() string {
	switch {
	case s.scaled:
		return "conv-packed-per-run-scaled"
	case s.perRun:
		return "conv-packed-per-run"
	case s.packed != nil:
		return "conv"
	case s.direct:
		return "conv-gemm"
	}
	return "conv-im2col"
}

func (s *convStep) exec(fr *frame) error {
	g := s.g
	x, y := f32s(fr.bytes(s.x)), f32s(fr.bytes(s.y))
	outCount := g.Batch * prod(g.Out) * g.OutChannels
	if outCount == 0 {
		return nil
	}
	y = y[:outCount]
	var bias, res []float32
	if s.hasBias {
		bias = f32s(fr.bytes(s.bias))
	}
	if s.hasRes {
		res = f32s(fr.bytes(s.residual))[:outCount]
	}
	ep := kiln.ConvEpilogue{Bias: bias, Residual: res, Act: s.act, Cancel: fr.cancel}
	if s.perRun {
		packed := f32s(fr.scratch[0])[:s.packedLen]
		w := f32s(fr.bytes(s.w))[:s.packed.WeightsLen()]
		if s.scaled {
			s.packed.PackWeightsScaled(packed, w, f32s(fr.bytes(s.scale))[:g.OutChannels])
		} else {
			s.packed.PackWeights(packed, w)
		}
		kiln.ConvWith(y, x, g.Batch, s.in, s.packed, packed, ep)
		return nil
	}
	if s.packed != nil {
		kiln.Conv(y, x, g.Batch, s.in, s.packed, ep)
		return nil
	}
	if s.patch == 0 { // no input channels or an empty window: the sum is 0
		clear(y)
		s.epilogue(y, bias, res)
		return nil
	}
	w := f32s(fr.bytes(s.w))
	inImage := prod(g.In) * g.InChannels
	outImage := s.pixels * g.OutChannels
	for b := 0; b < g.Batch; b++ {
		xb, yb := x[b*inImage:], y[b*outImage:(b+1)*outImage]
		if s.direct {
			s.gemm(fr, s.pixels, xb, yb, w)
			continue
		}
		cols := f32s(fr.scratch[0])
		for p0 := 0; p0 < s.pixels && !fr.stopped(); p0 += s.block {
			n := min(s.block, s.pixels-p0)
			s.im2col(cols[:n*s.patch], xb, p0, n)
			s.gemm(fr, n, cols, yb[p0*g.OutChannels:], w)
		}
	}
	if fr.stopped() {
		return nil
	}
	if s.pads() && !allFinite(w) {
		s.skipPaddingTaps(x, y, w, g.Batch)
	}
	s.epilogue(y, bias, res)
	return nil
}

// epilogue applies bias, residual and activation after the im2col path.
func (s *convStep) epilogue(y, bias, res []float32) {
	if res != nil {
		kiln.Add(y, y, res)
	}
	if bias != nil {
		co := s.g.OutChannels
		for o := 0; o < len(y); o += co {
			kiln.Add(y[o:o+co], y[o:o+co], bias[:co])
		}
	}
	switch s.act {
	case kiln.ActReLU:
		kiln.Relu(y, y)
	case kiln.ActGeluErf:
		kiln.Gelu(y, y)
	case kiln.ActGeluTanh:
		kiln.GeluTanh(y, y)
	case kiln.ActSiLU:
		kiln.SiLU(y, y)
	}
}

// gemm computes rows output pixels from their patch matrix a (rows × patch).
func (s *convStep) gemm(fr *frame, rows int, a, y, w []float32) {
	kiln.SgemmEpilogue(false, false, rows, s.g.OutChannels, s.patch, 1, a, s.patch, w, s.g.OutChannels, 0, y, s.g.OutChannels, kiln.Epilogue{Cancel: fr.cancel})
}

// im2col writes the patches of output pixels [p0, p0+n) of one image into
// cols (see im2colOf).
func (s *convStep) im2col(cols, x []float32, p0, n int) { im2colOf(&s.g, s.patch, cols, x, p0, n) }

// im2colOf writes the patches of output pixels [p0, p0+n) of one image x
// of a convolution of geometry g into cols, one row of patch = KH·KW·CI
// elements per pixel (zero where the window falls into the padding).
func im2colOf[T float32 | byte](g *sched.ConvGeom, patch int, cols, x []T, p0, n int) {
	ns := len(g.In)
	var oBuf, kBuf [8]int
	o, kk := oBuf[:ns], kBuf[:ns]
	rem := p0
	for d := ns - 1; d >= 0; d-- {
		o[d] = rem % g.Out[d]
		rem /= g.Out[d]
	}
	taps := prod(g.Kernel)
	for r := 0; r < n; r++ {
		row := cols[r*patch : (r+1)*patch]
		clear(kk)
		for t := 0; t < taps; t++ {
			off, inside := 0, true
			for d := 0; d < ns; d++ {
				i := o[d]*g.Strides[d] - g.PadLow[d] + kk[d]*g.Dilation[d]
				if i < 0 || i >= g.In[d] {
					inside = false
					break
				}
				off = off*g.In[d] + i
			}
			dst := row[t*g.InChannels : (t+1)*g.InChannels]
			if inside {
				copy(dst, x[off*g.InChannels:(off+1)*g.InChannels])
			} else {
				clear(dst)
			}
			ir.NextIndex(g.Kernel, kk)
		}
		ir.NextIndex(g.Out, o)
	}
}

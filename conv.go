package kiln

import (
	"fmt"
	"sync/atomic"
)

// Convolution over channels-last (NHWC) float32 tensors with weights packed
// once, the way a compiled model runs it: PackConv takes the HWIO weights
// and the geometry at compile time, Conv (or Conv2D, Conv1D) runs the
// convolution into a caller-owned output, with the GEMM's epilogue (bias,
// activation) plus a residual add, on up to Threads() goroutines and without
// allocating in steady state.
//
// Dense and grouped convolutions run as an implicit GEMM: each register tile
// of output pixels × output channels reads its rows of the patch matrix in
// place from the input (runs of input channels, one per kernel tap) and
// accumulates over all the taps in registers before one store, so there is
// no im2col buffer and no per-tap store. Padding taps are skipped, not
// multiplied by zeros: the output is cut into boxes within which every pixel
// has the same valid taps, and each box into tiles along one dimension. A
// 1×1 convolution is the GEMM of the input by the weights (one tap). A
// depthwise convolution (one input channel per group and output channel)
// runs a direct kernel vectorised over channels.

// maxConvDims bounds the number of spatial dimensions.
const maxConvDims = 4

// ConvParams is the geometry of a convolution with N spatial dimensions
// (N = len(Kernel), 1 ≤ N ≤ 4). Input and output are channels-last
// (batch, spatial…, channels) and the weights are (spatial…, InChannels/Groups,
// OutChannels) — HWIO for N = 2 — all row-major. Along spatial dimension d the
// output has
//
//	out[d] = (in[d] + PadLow[d] + PadHigh[d] − Dilation[d]·(Kernel[d]−1) − 1) / Strides[d] + 1
//
// elements (at least 0), and output element o reads input element
// o·Strides[d] − PadLow[d] + k·Dilation[d] for kernel element k; input
// elements outside [0, in[d]) are zeros. Padding may be negative (cropping).
// Groups splits the input channels into Groups runs of InChannels/Groups and
// the output channels into Groups runs of OutChannels/Groups, run g of the
// output reading run g of the input (XLA's feature_group_count).
type ConvParams struct {
	InChannels, OutChannels int
	Kernel                  []int // kernel size per spatial dimension
	Strides                 []int // nil: 1 everywhere
	Dilation                []int // kernel (rhs) dilation; nil: 1 everywhere
	PadLow, PadHigh         []int // nil: 0 everywhere
	Groups                  int   // 0 or 1: a dense convolution
}

// ConvEpilogue is what a convolution applies to each output element after the
// sum over the taps: y = Act(conv + Residual + Bias[channel]). The zero
// value does nothing.
type ConvEpilogue struct {
	// Bias, when not nil, has one element per output channel.
	Bias []float32
	// Residual, when not nil, has the output's shape; it may be the output
	// itself (each element is read before it is written).
	Residual []float32
	Act      Activation
	// Cancel, when not nil, is polled between tiles: once it reports
	// stopped, the call returns early with the output partly written.
	Cancel *Cancel
}

// PackedConv is a convolution's weights packed for the kernels, with its
// geometry. It is immutable and safe for concurrent use. It runs on the
// kernels of the instruction-set level that was active when it was packed.
type PackedConv struct {
	nd                  int
	ci, co, groups      int
	ciG, coG            int
	kernel, stride, dil [maxConvDims]int
	padLo, padHi        [maxConvDims]int
	taps                int // Π kernel
	level               isaLevel
	kern                *convKernels
	depthwise           bool
	// Dense: per group, panels of nr output channels, each taps·ciG rows
	// of nr elements (zero past the group's channels); the row of input
	// channel c of tap t is t·ciG + c. Depthwise: the weights as given,
	// taps rows of co elements.
	nr, panels int
	data       []float32
	// narrow: the 16-bit depthwise kernels of the level (ConvBF16), and
	// pairData the weights in pair order when it has pair kernels.
	narrow   *dwNarrowKernels
	pairData []float32
	// dataLen and pairLen are the lengths of data and pairData; owned
	// says that the PackedConv holds its weights (PackConv), not a
	// layout's caller (PackConvLayout).
	dataLen, pairLen int
	owned            bool
	// plan caches the tiling of the last input shape seen.
	plan atomic.Pointer[convPlan]
}

// PackConv packs the weights of a convolution with the given geometry. It
// returns an error naming the parameter when the geometry is invalid or the
// weights do not have Π Kernel · InChannels/Groups · OutChannels elements.
func PackConv(weights []float32, p ConvParams) (*PackedConv, error) {
	pc, err := newPackedConv("PackConv", p)
	if err != nil {
		return nil, err
	}
	if want := pc.WeightsLen(); len(weights) != want {
		return nil, fmt.Errorf("kiln: PackConv: the weights must have %d elements (kernel %v × %d input channels per group × %d output channels), found %d", want, p.Kernel, pc.ciG, pc.co, len(weights))
	}
	buf := make([]float32, pc.PackedLen())
	pc.packInto(buf, weights, nil)
	pc.data, pc.pairData = pc.split(buf)
	pc.owned = true
	return pc, nil
}

// PackConvLayout checks a convolution's geometry as PackConv does and
// returns it without weights, for weights known only when the convolution
// runs: PackWeights packs them into a buffer of PackedLen elements the
// caller owns (one per concurrent call), and ConvWith, ConvBF16With and
// ConvF16With run on that buffer. Conv, ConvBF16 and ConvF16 panic on a
// layout, which holds no weights.
func PackConvLayout(p ConvParams) (*PackedConv, error) {
	return newPackedConv("PackConvLayout", p)
}

// newPackedConv checks the geometry and fills in everything of a
// PackedConv but its weights.
func newPackedConv(name string, p ConvParams) (*PackedConv, error) {
	nd := len(p.Kernel)
	if nd < 1 || nd > maxConvDims {
		return nil, fmt.Errorf("kiln: %s: want 1 to %d spatial dimensions (len(Kernel)), found %d", name, maxConvDims, nd)
	}
	groups := max(p.Groups, 1)
	if p.Groups < 0 {
		return nil, fmt.Errorf("kiln: %s: Groups must not be negative, found %d", name, p.Groups)
	}
	if p.InChannels < 0 || p.OutChannels < 0 {
		return nil, fmt.Errorf("kiln: %s: channel counts must not be negative, found InChannels=%d OutChannels=%d", name, p.InChannels, p.OutChannels)
	}
	if p.InChannels%groups != 0 || p.OutChannels%groups != 0 {
		return nil, fmt.Errorf("kiln: %s: InChannels=%d and OutChannels=%d must both be multiples of Groups=%d", name, p.InChannels, p.OutChannels, groups)
	}
	pc := &PackedConv{nd: nd, ci: p.InChannels, co: p.OutChannels, groups: groups, ciG: p.InChannels / groups, coG: p.OutChannels / groups, taps: 1}
	vec := func(field string, v []int, def int) ([maxConvDims]int, error) {
		var out [maxConvDims]int
		if v != nil && len(v) != nd {
			return out, fmt.Errorf("kiln: %s: %s must have one element per spatial dimension (%d), found %d", name, field, nd, len(v))
		}
		for d := 0; d < nd; d++ {
			out[d] = def
			if v != nil {
				out[d] = v[d]
			}
		}
		return out, nil
	}
	var err error
	if pc.kernel, err = vec("Kernel", p.Kernel, 1); err != nil {
		return nil, err
	}
	if pc.stride, err = vec("Strides", p.Strides, 1); err != nil {
		return nil, err
	}
	if pc.dil, err = vec("Dilation", p.Dilation, 1); err != nil {
		return nil, err
	}
	if pc.padLo, err = vec("PadLow", p.PadLow, 0); err != nil {
		return nil, err
	}
	if pc.padHi, err = vec("PadHigh", p.PadHigh, 0); err != nil {
		return nil, err
	}
	for d := 0; d < nd; d++ {
		switch {
		case pc.kernel[d] < 0:
			return nil, fmt.Errorf("kiln: %s: Kernel[%d] must not be negative, found %d", name, d, pc.kernel[d])
		case pc.stride[d] < 1:
			return nil, fmt.Errorf("kiln: %s: Strides[%d] must be at least 1, found %d", name, d, pc.stride[d])
		case pc.dil[d] < 1:
			return nil, fmt.Errorf("kiln: %s: Dilation[%d] must be at least 1, found %d", name, d, pc.dil[d])
		}
		pc.taps *= pc.kernel[d]
	}
	set := kernels()
	pc.level, pc.kern = set.level, set.conv
	pc.depthwise = pc.ciG == 1 && pc.coG == 1
	if pc.depthwise {
		if pc.narrow = set.dwNarrow; pc.narrow == nil {
			pc.narrow = twinDWNarrowKernels(pc.kern)
		}
		pc.dataLen = pc.taps * pc.co
		if pc.narrow.bf16.pairRow != nil && pc.co >= pairBlock {
			pc.pairLen = pc.dataLen
		}
		return pc, nil
	}
	// The panel width: the widest tile, narrower when a group has fewer
	// output channels (so that zero columns do not cost whole vectors).
	tiles := pc.kern.gemm
	pc.nr = tiles[0].nr
	for _, t := range tiles[1:] {
		if pc.coG <= t.nr {
			pc.nr = t.nr
		}
	}
	pc.panels = (pc.coG + pc.nr - 1) / pc.nr
	pc.dataLen = groups * pc.panels * pc.taps * pc.ciG * pc.nr
	return pc, nil
}

// WeightsLen returns the number of weights the convolution takes:
// Π Kernel · InChannels/Groups · OutChannels.
func (p *PackedConv) WeightsLen() int { return p.taps * p.ciG * p.co }

// PackedLen returns the number of float32 elements PackWeights and
// PackWeightsScaled write.
func (p *PackedConv) PackedLen() int { return p.dataLen + p.pairLen }

// PackWeights packs weights (WeightsLen elements, laid out as PackConv
// takes them) into dst (PackedLen elements) for ConvWith, ConvBF16With and
// ConvF16With. The packed form depends on the channels, groups and kernel
// size, not on strides, dilation or padding: layouts that differ only in
// those run on one packed buffer. Like Conv, it panics on programmer
// errors: slices of other lengths.
func (p *PackedConv) PackWeights(dst, weights []float32) {
	if len(weights) != p.WeightsLen() {
		panic(fmt.Sprintf("kiln: PackWeights: the weights must have %d elements, found %d", p.WeightsLen(), len(weights)))
	}
	if len(dst) != p.PackedLen() {
		panic(fmt.Sprintf("kiln: PackWeights: dst must have PackedLen()=%d elements, found %d", p.PackedLen(), len(dst)))
	}
	p.packInto(dst, weights, nil)
}

// PackWeightsScaled is PackWeights of the weights scaled by one factor per
// output channel: it packs w·scale[c] (each product rounded to float32, as
// the scaled weights would be) for the weights w of output channel c.
// scale has OutChannels elements.
func (p *PackedConv) PackWeightsScaled(dst, weights, scale []float32) {
	if len(scale) != p.co {
		panic(fmt.Sprintf("kiln: PackWeightsScaled: scale must have OutChannels()=%d elements, found %d", p.co, len(scale)))
	}
	if len(weights) != p.WeightsLen() {
		panic(fmt.Sprintf("kiln: PackWeightsScaled: the weights must have %d elements, found %d", p.WeightsLen(), len(weights)))
	}
	if len(dst) != p.PackedLen() {
		panic(fmt.Sprintf("kiln: PackWeightsScaled: dst must have PackedLen()=%d elements, found %d", p.PackedLen(), len(dst)))
	}
	p.packInto(dst, weights, scale)
}

// packInto packs weights into dst (both of the right lengths), each
// multiplied by its output channel's factor when scale is not nil.
func (p *PackedConv) packInto(dst, weights, scale []float32) {
	data, pair := p.split(dst)
	if p.depthwise {
		if scale == nil {
			copy(data, weights)
		} else {
			for t := 0; t < p.taps; t++ {
				Mul(data[t*p.co:(t+1)*p.co], weights[t*p.co:(t+1)*p.co], scale)
			}
		}
		if pair != nil {
			pairWeightsInto(pair, data, p.taps, p.co)
		}
		return
	}
	k := p.taps * p.ciG
	if k == 0 || p.coG == 0 {
		return
	}
	if scale == nil {
		for g := 0; g < p.groups; g++ {
			packB(data[g*p.panels*k*p.nr:], weights, p.co, false, 0, k, g*p.coG, p.coG, p.nr)
		}
		return
	}
	// packB's layout, row by row of the weights (read in order), each row
	// scattered into every panel as products: the level's kernel for the
	// whole panels (one call per row), a vector multiply per row of the
	// last panel when it is partial, zero past the group's channels.
	kern := kernels().scaleRowPanels
	full := p.coG / p.nr
	if kern == nil || p.nr%16 != 0 {
		full = 0
	}
	for g := 0; g < p.groups; g++ {
		panels := data[g*p.panels*k*p.nr:]
		c0 := g * p.coG
		sc := scale[c0 : c0+p.coG]
		for r := 0; r < k; r++ {
			src := weights[r*p.co+c0 : r*p.co+c0+p.coG]
			if full > 0 {
				kern(&panels[r*p.nr], k*p.nr, &src[0], &sc[0], p.nr, full)
			}
			for q := full; q < p.panels; q++ {
				row := panels[(q*k+r)*p.nr : (q*k+r+1)*p.nr]
				n := min(p.nr, p.coG-q*p.nr)
				Mul(row[:n], src[q*p.nr:q*p.nr+n], sc[q*p.nr:q*p.nr+n])
				clear(row[n:])
			}
		}
	}
}

// split cuts a packed buffer into the weights the kernels read and the
// pair-ordered copy (nil when the level has no pair kernels for it).
func (p *PackedConv) split(w []float32) (data, pair []float32) {
	data = w[:p.dataLen:p.dataLen]
	if p.pairLen > 0 {
		pair = w[p.dataLen : p.dataLen+p.pairLen]
	}
	return data, pair
}

// packedOf returns the packed weights a call runs on: p's own, or w where
// the caller packed them (a layout's), checking that they are there.
func (p *PackedConv) packedOf(name string, w []float32, given bool) (data, pair []float32) {
	if !given {
		if !p.owned {
			panic(fmt.Sprintf("kiln: %s: the convolution is a layout without weights (PackConvLayout): pack them with PackWeights and call %sWith", name, name))
		}
		return p.data, p.pairData
	}
	if len(w) != p.PackedLen() {
		panic(fmt.Sprintf("kiln: %sWith: the packed weights must have PackedLen()=%d elements, found %d", name, p.PackedLen(), len(w)))
	}
	return p.split(w)
}

// Dims returns the number of spatial dimensions.
func (p *PackedConv) Dims() int { return p.nd }

// Bytes returns the memory the packed weights hold.
func (p *PackedConv) Bytes() int { return 4 * (len(p.data) + len(p.pairData)) }

// InChannels returns the number of input channels.
func (p *PackedConv) InChannels() int { return p.ci }

// OutChannels returns the number of output channels.
func (p *PackedConv) OutChannels() int { return p.co }

// OutSize returns the output size along spatial dimension d for an input of
// size in along it (see ConvParams), or 0 when the window does not fit.
func (p *PackedConv) OutSize(d, in int) int {
	span := in + p.padLo[d] + p.padHi[d] - p.dil[d]*(p.kernel[d]-1) - 1
	if span < 0 || in < 0 {
		return 0
	}
	return span/p.stride[d] + 1
}

// Conv computes the convolution of x, batch images of spatial size in
// (len(in) = Dims()) and InChannels() channels, into y, batch images of
// spatial size OutSize(d, in[d]) and OutChannels() channels:
//
//	y[n, o…, c] = Act(Σ x[n, o·stride − padLow + k·dilation…, ci]·w[k…, ci, c] + Residual[n, o…, c] + Bias[c])
//
// (see ConvParams and ConvEpilogue). y must not overlap x. Like Sgemm, Conv
// panics on programmer errors: slices shorter than the shapes, a size
// count other than Dims(), a bias shorter than OutChannels().
func Conv(y, x []float32, batch int, in []int, p *PackedConv, ep ConvEpilogue) {
	convSized("Conv", y, x, batch, in, p, nil, false, &ep)
}

// ConvWith is Conv on the layout p (PackConvLayout) with the weights packed
// in w by p.PackWeights. Calls on one layout with their own w may run at
// once.
func ConvWith(y, x []float32, batch int, in []int, p *PackedConv, w []float32, ep ConvEpilogue) {
	convSized("Conv", y, x, batch, in, p, w, true, &ep)
}

// convSized checks the sizes' count and runs the call.
func convSized(name string, y, x []float32, batch int, in []int, p *PackedConv, w []float32, given bool, ep *ConvEpilogue) {
	if p == nil {
		panic("kiln: " + name + ": the packed convolution is nil")
	}
	if len(in) != p.nd {
		panic(fmt.Sprintf("kiln: %s: the convolution has %d spatial dimensions, found %d input sizes", name, p.nd, len(in)))
	}
	var sz [maxConvDims]int
	copy(sz[:], in)
	data, _ := p.packedOf(name, w, given)
	conv(y, x, batch, &sz, p, data, ep)
}

// Conv2D is Conv for two spatial dimensions: x is batch×h×w×InChannels().
func Conv2D(y, x []float32, batch, h, w int, p *PackedConv, ep ConvEpilogue) {
	if p == nil {
		panic("kiln: Conv2D: the packed convolution is nil")
	}
	if p.nd != 2 {
		panic(fmt.Sprintf("kiln: Conv2D: the convolution has %d spatial dimensions, want 2", p.nd))
	}
	sz := [maxConvDims]int{h, w}
	data, _ := p.packedOf("Conv2D", nil, false)
	conv(y, x, batch, &sz, p, data, &ep)
}

// Conv1D is Conv for one spatial dimension: x is batch×w×InChannels().
func Conv1D(y, x []float32, batch, w int, p *PackedConv, ep ConvEpilogue) {
	if p == nil {
		panic("kiln: Conv1D: the packed convolution is nil")
	}
	if p.nd != 1 {
		panic(fmt.Sprintf("kiln: Conv1D: the convolution has %d spatial dimensions, want 1", p.nd))
	}
	sz := [maxConvDims]int{w}
	data, _ := p.packedOf("Conv1D", nil, false)
	conv(y, x, batch, &sz, p, data, &ep)
}

// conv checks the call and runs it.
func conv(y, x []float32, batch int, in *[maxConvDims]int, p *PackedConv, data []float32, ep *ConvEpilogue) {
	if batch < 0 {
		panic(fmt.Sprintf("kiln: Conv: batch must not be negative, found %d", batch))
	}
	inPixels, outPixels := 1, 1
	for d := 0; d < p.nd; d++ {
		if in[d] < 0 {
			panic(fmt.Sprintf("kiln: Conv: input size %d must not be negative, found %d", d, in[d]))
		}
		inPixels *= in[d]
		outPixels *= p.OutSize(d, in[d])
	}
	if need := batch * inPixels * p.ci; len(x) < need {
		dims := *in
		panic(fmt.Sprintf("kiln: Conv: len(x) must be at least %d for %d images of %v×%d, found %d", need, batch, dims[:p.nd], p.ci, len(x)))
	}
	outLen := batch * outPixels * p.co
	if len(y) < outLen {
		panic(fmt.Sprintf("kiln: Conv: len(y) must be at least %d for %d output images of %d pixels × %d channels, found %d", outLen, batch, outPixels, p.co, len(y)))
	}
	if ep.Bias != nil && len(ep.Bias) < p.co {
		panic(fmt.Sprintf("kiln: Conv: len(Bias) must be at least OutChannels()=%d, found %d", p.co, len(ep.Bias)))
	}
	if ep.Residual != nil && len(ep.Residual) < outLen {
		panic(fmt.Sprintf("kiln: Conv: len(Residual) must be at least %d, the output's size, found %d", outLen, len(ep.Residual)))
	}
	if int(ep.Act) >= len(activations) {
		panic(fmt.Sprintf("kiln: Conv: unknown activation %d, want one of 0..%d", ep.Act, len(activations)-1))
	}
	if outLen == 0 {
		return
	}
	plan := p.planFor(in)
	runConv(plan, y[:outLen], x, data, batch, ep)
}

package kiln

import "fmt"

// Depthwise convolutions of bfloat16 and binary16 tensors with float32
// weights packed once (PackConv): the input is widened in registers as the
// kernels load it, the products accumulate in float32 over every tap and
// each output is rounded once on its store, as XLA computes a narrow
// convolution, so that input and output cross memory once each, in their
// own 16-bit type. The plan (boxes of pixels with the same valid taps,
// tiles, channel blocks, the split across threads) is the float32
// convolution's.

// Depthwise reports whether the convolution is depthwise (one input channel
// per group and output channel), the kind ConvBF16 and ConvF16 run.
func (p *PackedConv) Depthwise() bool { return p.depthwise }

// ConvBF16 is Conv for a depthwise convolution (p.Depthwise()) of bfloat16
// input into bfloat16 output, both as their bits: each output is the float32
// sum of its taps' products rounded once to nearest even. It has no
// epilogue; cancel, when not nil, is polled between tiles. It panics on
// programmer errors, as Conv does, and on a convolution that is not
// depthwise.
func ConvBF16(y, x []uint16, batch int, in []int, p *PackedConv, cancel *Cancel) {
	convNarrow("ConvBF16", y, x, batch, in, p, nil, false, cancel, true)
}

// ConvF16 is ConvBF16 for IEEE binary16 input and output.
func ConvF16(y, x []uint16, batch int, in []int, p *PackedConv, cancel *Cancel) {
	convNarrow("ConvF16", y, x, batch, in, p, nil, false, cancel, false)
}

// ConvBF16With is ConvBF16 on the layout p (PackConvLayout) with the
// weights packed in w by p.PackWeights.
func ConvBF16With(y, x []uint16, batch int, in []int, p *PackedConv, w []float32, cancel *Cancel) {
	convNarrow("ConvBF16", y, x, batch, in, p, w, true, cancel, true)
}

// ConvF16With is ConvF16 on the layout p with the weights packed in w by
// p.PackWeights.
func ConvF16With(y, x []uint16, batch int, in []int, p *PackedConv, w []float32, cancel *Cancel) {
	convNarrow("ConvF16", y, x, batch, in, p, w, true, cancel, false)
}

func convNarrow(name string, y, x []uint16, batch int, in []int, p *PackedConv, w []float32, given bool, cancel *Cancel, bf16 bool) {
	if p == nil {
		panic("kiln: " + name + ": the packed convolution is nil")
	}
	if !p.depthwise {
		panic(fmt.Sprintf("kiln: %s: the convolution must be depthwise, found %d input and %d output channels in %d groups", name, p.ci, p.co, p.groups))
	}
	if len(in) != p.nd {
		panic(fmt.Sprintf("kiln: %s: the convolution has %d spatial dimensions, found %d input sizes", name, p.nd, len(in)))
	}
	if batch < 0 {
		panic(fmt.Sprintf("kiln: %s: batch must not be negative, found %d", name, batch))
	}
	var sz [maxConvDims]int
	copy(sz[:], in)
	inPixels, outPixels := 1, 1
	for d := 0; d < p.nd; d++ {
		if sz[d] < 0 {
			panic(fmt.Sprintf("kiln: %s: input size %d must not be negative, found %d", name, d, sz[d]))
		}
		inPixels *= sz[d]
		outPixels *= p.OutSize(d, sz[d])
	}
	if need := batch * inPixels * p.ci; len(x) < need {
		panic(fmt.Sprintf("kiln: %s: len(x) must be at least %d for %d images of %v×%d, found %d", name, need, batch, in, p.ci, len(x)))
	}
	outLen := batch * outPixels * p.co
	if len(y) < outLen {
		panic(fmt.Sprintf("kiln: %s: len(y) must be at least %d for %d output images of %d pixels × %d channels, found %d", name, outLen, batch, outPixels, p.co, len(y)))
	}
	if outLen == 0 {
		return
	}
	data, pair := p.packedOf(name, w, given)
	pl := p.planFor(&sz)
	set := p.narrow.f16
	if bf16 {
		set = p.narrow.bf16
	}
	j := convJobs.get()
	*j = convJob{pl: pl, k: p.kern, w: data, pair: pair, x16: x, y16: y[:outLen], narrow: set, bf16: bf16, batch: batch, scratch: j.scratch, cancel: cancel}
	work := int64(batch) * pl.cost[len(pl.tiles)] * int64(max(p.co, 1))
	j.parts = int(min(int64(Threads()), max(1, work/int64(minConvWork))))
	j.parts = max(1, min(j.parts, batch*len(pl.tiles)))
	runParallel(j, j.parts, &j.done)
	convJobs.put(j)
}

// narrowZero stands in for the data pointer of an empty input the kernels do not read.
var narrowZero [1]uint16

// runDepthwiseNarrow is runDepthwise for 16-bit input and output.
// pairBlocks returns how many blocks of 32 channels one pair kernel call
// computes for tiles of a box and of rows pixels: every block where each
// is a whole, consecutive block the pair kernel takes (else 0).
func (j *convJob) pairBlocks(box *convBox, rows, last int) int {
	pl, s := j.pl, j.narrow
	pr := s.pairRow
	if pr == nil || j.pair == nil || !box.rowTaps || pr.k != last || rows > pr.maxRows() || len(pl.chans) == 0 {
		return 0
	}
	for ci := range pl.chans {
		c := &pl.chans[ci]
		if c.n != pairBlock || c.c0 != pl.chans[0].c0+ci*pairBlock || c.c0%pairBlock != 0 {
			return 0
		}
	}
	return len(pl.chans)
}

func (j *convJob) runDepthwiseNarrow(u0, u1 int) {
	pl := j.pl
	p := pl.p
	s := j.narrow
	t := len(pl.tiles)
	last := p.kernel[p.nd-1]
	poll := workPoller{cancel: j.cancel}
	for u := u0; u < u1; {
		img, tile := u/t, &pl.tiles[u%t]
		n := min(int(pl.span[u%t]), u1-u)
		box := &pl.boxes[tile.box]
		if j.cancel != nil {
			w := int(tile.rows) * box.ntaps * p.co
			if n = min(n, pollSpan(w)); poll.stopped(n * w) {
				return
			}
		}
		u += n
		rows := int(tile.rows)
		if box.ntaps == 0 {
			// Every tap falls on the padding: zeros, whose bits are 0 in
			// both types.
			for i := 0; i < n*rows; i++ {
				off := img*pl.outImage + tile.coff + i*box.ldc
				clear(j.y16[off : off+p.co])
			}
			continue
		}
		a := &narrowZero[0]
		if off := img * pl.inImage; off < len(j.x16) {
			a = &j.x16[off]
		}
		tab := &pl.tabs[2*box.tab0]
		if blocks := j.pairBlocks(box, rows, last); blocks > 0 {
			// Every block of channels is the pair kernel's: one call
			// computes each tile's channels before the next tile's.
			c := &pl.chans[0]
			s.pairRow.rows[rows](n, box.ntaps, tab, a, tile.aoff+c.c0, box.lda, &j.pair[c.c0], &j.y16[img*pl.outImage+tile.coff+c.c0], box.ldc, blocks)
			continue
		}
		for ci := range pl.chans {
			c := &pl.chans[ci]
			off := img*pl.outImage + tile.coff + c.c0
			w := &j.w[c.c0]
			aoff := tile.aoff + c.c0
			set := -1
			if c.set >= 0 {
				set = s.tiles(j.k.dw[c.set].vecs)
			}
			partial := c.n < c.width
			if set < 0 || partial && !s.masked || rows > s.dw[set].maxRows() {
				for m := 0; m < n; m++ {
					r := m * rows
					dwNarrowTwin(rows, c.n, box.ntaps, tab, a, aoff+r*box.lda, box.lda, w, &j.y16[off+r*box.ldc], box.ldc, j.bf16)
				}
				continue
			}
			kern := s.dw[set].rows[rows]
			if box.rowTaps {
				if pr := s.pairRow; pr != nil && j.pair != nil && pr.k == last && c.n == pairBlock && c.c0%pairBlock == 0 && rows <= pr.maxRows() {
					pr.rows[rows](n, box.ntaps, tab, a, aoff, box.lda, &j.pair[c.c0], &j.y16[off], box.ldc, 1)
					continue
				}
				if r := s.rowTiles(last, s.dw[set].vecs); r >= 0 && rows <= s.dwRow[r].maxRows() {
					kern = s.dwRow[r].rows[rows]
				}
			}
			if partial {
				mask := &edgeMasks[maxNR-(c.n-(c.width-s.lanes))]
				kern(n, box.ntaps, tab, a, aoff, box.lda, w, &j.y16[off], box.ldc, mask, flagPartial)
			} else {
				kern(n, box.ntaps, tab, a, aoff, box.lda, w, &j.y16[off], box.ldc, nil, 0)
			}
		}
	}
}

package kiln

import "sync"

// The convolution driver: a call is split into parts that run on the worker
// pool — runs of tiles of similar cost (all images' tiles in raster order),
// or, when there are too few tiles to balance, ranges of column tiles. A
// part walks blocks of column tiles whose packed weights fit in L2, in them
// blocks of taps (for large kernels), and in them its tiles, each tile
// calling the kernel once per column tile while its input rows are in L1.

// minConvWork is the least work (multiply-adds) worth one more thread: as
// for the GEMM (minPartWork), below it handing a part to a worker costs more
// than the part. The example CNN's layers at batch 1 (about 10^6
// multiply-adds each, 6–12 µs on one core) took 80 µs or more each split in
// two on a shared virtual machine.
var minConvWork = 1 << 21

// convJob is one Conv call. Jobs are recycled through convJobs so that a
// call in steady state allocates nothing.
type convJob struct {
	pl              *convPlan
	k               *convKernels
	x, y, res, bias []float32
	w, pair         []float32       // the packed weights (PackedConv.split)
	flags           uint            // epilogue flags of the kernels
	actFn           func([]float32) // an activation applied in Go, or nil
	cancel          *Cancel         // polled between tiles
	batch           int
	parts           int
	splitN          bool
	scratch         [][]float32 // per part: a tile for kernels without masked stores
	done            pending
	// A depthwise convolution of 16-bit floats (conv_narrow.go): its input
	// and output, its kernels, and whether they are bfloat16.
	x16, y16 []uint16
	narrow   *dwNarrowSet
	bf16     bool
}

type convJobList struct {
	mu   sync.Mutex
	free []*convJob
}

var convJobs convJobList

func (l *convJobList) get() *convJob {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		j := l.free[n-1]
		l.free = l.free[:n-1]
		return j
	}
	return new(convJob)
}

func (l *convJobList) put(j *convJob) {
	j.x, j.y, j.res, j.bias, j.pl, j.actFn, j.cancel = nil, nil, nil, nil, nil, nil, nil
	j.w, j.pair = nil, nil
	j.x16, j.y16, j.narrow = nil, nil, nil
	l.mu.Lock()
	l.free = append(l.free, j)
	l.mu.Unlock()
}

// convZero stands in for the data pointer of an empty slice the kernels do not read.
var convZero [maxNR]float32

func runConv(pl *convPlan, y, x, w []float32, batch int, ep *ConvEpilogue) {
	p := pl.p
	j := convJobs.get()
	*j = convJob{pl: pl, k: p.kern, x: x, y: y, w: w, res: ep.Residual, bias: ep.Bias, batch: batch, scratch: j.scratch, cancel: ep.Cancel}
	if ep.Bias != nil {
		j.flags |= flagBias
	}
	if ep.Residual != nil {
		j.flags |= flagResidual
	}
	if ep.Act != ActNone {
		if f := activations[ep.Act].flag; f != 0 {
			j.flags |= f
		} else {
			j.actFn = convActivation(ep.Act)
		}
	}
	// The cost counts multiply-adds per output channel of a group (every
	// channel, for a depthwise convolution).
	channels := p.coG
	if p.depthwise {
		channels = p.co
	}
	work := int64(batch) * pl.cost[len(pl.tiles)] * int64(max(channels, 1))
	j.parts = int(min(int64(Threads()), max(1, work/int64(minConvWork))))
	units := batch * len(pl.tiles)
	if !p.depthwise && units < 4*j.parts && len(pl.cols) >= j.parts {
		j.splitN = true
	} else {
		j.parts = max(1, min(j.parts, units))
	}
	for len(j.scratch) < j.parts {
		j.scratch = append(j.scratch, nil)
	}
	for i := range j.parts {
		j.scratch[i] = grow(j.scratch[i], pl.maxTile)
	}
	runParallel(j, j.parts, &j.done)
	convJobs.put(j)
}

// convActivation returns how the driver applies an activation the kernels
// have no flag for, to each tile's rows while they are in L1: the vector
// kernels for GELU (error within a few ULP, see Gelu and GeluTanh; the
// table's float64 form costs more than the convolution itself), the table's
// function otherwise.
func convActivation(a Activation) func([]float32) {
	switch a {
	case ActGeluErf:
		return geluRow
	case ActGeluTanh:
		return geluTanhRow
	}
	return activations[a].apply32
}

func geluRow(x []float32)     { Gelu(x, x) }
func geluTanhRow(x []float32) { GeluTanh(x, x) }

// tileRange returns the part's tiles as indices into all images' tiles
// (image·len(tiles) + tile), cut where the cumulative cost crosses
// part/parts of the total.
func (j *convJob) tileRange(part int) (int, int) {
	if j.splitN {
		return 0, j.batch * len(j.pl.tiles)
	}
	return j.costIndex(part), j.costIndex(part + 1)
}

// costIndex is the first tile index whose cumulative cost reaches
// part/parts of the whole call's.
func (j *convJob) costIndex(part int) int {
	t := len(j.pl.tiles)
	total := int64(j.batch * t)
	if part >= j.parts {
		return int(total)
	}
	perImage := j.pl.cost[t]
	target := int64(part) * (int64(j.batch) * perImage) / int64(j.parts)
	lo, hi := int64(0), total
	for lo < hi {
		mid := (lo + hi) / 2
		if (mid/int64(t))*perImage+j.pl.cost[mid%int64(t)] < target {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return int(lo)
}

func (j *convJob) runPart(part int) {
	u0, u1 := j.tileRange(part)
	if j.narrow != nil {
		j.runDepthwiseNarrow(u0, u1)
		return
	}
	if j.pl.p.depthwise {
		j.runDepthwise(u0, u1)
		return
	}
	c0, c1 := 0, len(j.pl.cols)
	if j.splitN {
		c0, c1 = part*len(j.pl.cols)/j.parts, (part+1)*len(j.pl.cols)/j.parts
	}
	j.runDense(u0, u1, c0, c1, j.scratch[part])
}

// image returns the address of image n of x (or a stand-in when x has no
// elements, which the kernels then do not read).
func (j *convJob) image(n int) *float32 {
	if off := n * j.pl.inImage; off < len(j.x) {
		return &j.x[off]
	}
	return &convZero[0]
}

func (j *convJob) runDense(u0, u1, c0, c1 int, scratch []float32) {
	pl := j.pl
	p := pl.p
	t := len(pl.tiles)
	k := p.taps * p.ciG
	poll := workPoller{cancel: j.cancel}
	for nb := 0; nb+1 < len(pl.nblocks); nb++ {
		ca, cb := max(pl.nblocks[nb], c0), min(pl.nblocks[nb+1], c1)
		if ca >= cb {
			continue
		}
		for kb := 0; kb < pl.kblocks; kb++ {
			// While this block of weights is swept, the kernels prefetch
			// the next one into L2.
			next, limit := j.nextBlock(nb, kb, c0, c1)
			cursor := 0
			for u := u0; u < u1; {
				img, tile := u/t, &pl.tiles[u%t]
				n := min(int(pl.span[u%t]), u1-u)
				box := &pl.boxes[tile.box]
				starts := pl.kbStart[int(tile.box)*(pl.kblocks+1):]
				ta, tb := starts[kb], starts[kb+1]
				if j.cancel != nil {
					w := int(tile.rows) * (tb - ta) * box.kc * (cb - ca) * p.nr
					if n = min(n, pollSpan(w)); poll.stopped(n * w) {
						return
					}
				}
				u += n
				if ta == tb {
					if box.first < 0 && kb == 0 {
						for ci := ca; ci < cb; ci++ {
							c := &pl.cols[ci]
							j.fill(img, tile, n, box, c.g*p.coG+c.q*p.nr+c.sub, c.cols)
						}
					}
					continue
				}
				// The residual goes in with the first block of taps: the
				// output, which may be the residual itself, holds partial
				// sums after it.
				var flags uint
				if kb != box.first {
					flags |= flagLoadC
				} else {
					flags |= j.flags & flagResidual
				}
				last := kb == box.last
				if last {
					flags |= j.flags &^ flagResidual
				}
				a := j.image(img)
				tab := &pl.tabs[2*(box.tab0+ta)]
				rows := n * int(tile.rows)
				for ci := ca; ci < cb; ci++ {
					c := &pl.cols[ci]
					ch := c.g*p.coG + c.q*p.nr + c.sub
					off := img*pl.outImage + tile.coff + ch
					b := &convZero[0]
					if k > 0 {
						b = &j.w[(c.g*p.panels+c.q)*k*p.nr+c.sub]
					}
					var res, bias *float32
					if flags&flagResidual != 0 {
						res = &j.res[off]
					}
					if flags&flagBias != 0 {
						bias = &j.bias[ch]
					}
					kern := j.k.gemm[c.set].rows[tile.rows]
					aoff := tile.aoff + c.g*p.ciG
					var pf *float32
					if cursor < limit {
						pf = &j.w[next+cursor]
						cursor += n * (tb - ta) * box.kc * 16
					}
					switch {
					case c.cols == c.width:
						kern(n, tb-ta, tab, a, aoff, box.lda, b, p.nr, box.kc, pf, &j.y[off], box.ldc, res, bias, nil, flags)
					case j.k.masked:
						kern(n, tb-ta, tab, a, aoff, box.lda, b, p.nr, box.kc, pf, &j.y[off], box.ldc, res, bias, &edgeMasks[maxNR-c.cols], flags|flagPartial)
					default:
						for m := 0; m < n; m++ {
							r := m * int(tile.rows)
							j.scratchTile(kern, tb-ta, tab, a, aoff+r*box.lda, box, b, int(tile.rows), off+r*box.ldc, ch, c.width, c.cols, flags, scratch)
						}
					}
					if last && j.actFn != nil {
						for i := 0; i < rows; i++ {
							j.actFn(j.y[off+i*box.ldc : off+i*box.ldc+c.cols])
						}
					}
				}
			}
		}
	}
}

// pollSpan is how many tiles of tileWork multiply-adds each one kernel call
// may compute under a Cancel (at least one): a call over a long run of
// tiles (a whole box of pixels) would otherwise be milliseconds between two
// polls.
func pollSpan(tileWork int) int { return max(1, pollWork/max(tileWork, 1)) }

// nextBlock returns where the weights of the sweep after (nb, kb) start in
// the packed data and how many elements of them to prefetch: the next block
// of taps of the same columns, or the first of the next block of columns of
// the part's range [c0, c1). It returns a zero limit when there is none.
func (j *convJob) nextBlock(nb, kb, c0, c1 int) (start, limit int) {
	pl := j.pl
	p := pl.p
	k := p.taps * p.ciG
	if kb++; kb == pl.kblocks {
		kb = 0
		for nb++; nb+1 < len(pl.nblocks) && pl.nblocks[nb+1] <= c0; nb++ {
		}
	}
	if nb+1 >= len(pl.nblocks) || k == 0 {
		return 0, 0
	}
	ca, cb := max(pl.nblocks[nb], c0), min(pl.nblocks[nb+1], c1)
	if ca >= cb {
		return 0, 0
	}
	outer := p.taps / p.kernel[p.nd-1]
	rowsPerOuter := p.kernel[p.nd-1] * p.ciG
	r0 := kb * outer / pl.kblocks * rowsPerOuter
	r1 := (kb + 1) * outer / pl.kblocks * rowsPerOuter
	c := &pl.cols[ca]
	start = (c.g*p.panels+c.q)*k*p.nr + r0*p.nr
	return start, min((r1-r0)*p.nr*(cb-ca), len(j.w)-start)
}

// scratchTile runs a partial tile through a scratch tile, for kernels
// without masked loads and stores, and applies the epilogue in Go.
func (j *convJob) scratchTile(kern convKernel, taps int, tab *int, a *float32, aoff int, box *convBox, b *float32, rows, off, ch, width, cols int, flags uint, s []float32) {
	ldb := j.pl.p.nr
	if flags&flagLoadC != 0 {
		for i := 0; i < rows; i++ {
			copy(s[i*width:i*width+cols], j.y[off+i*box.ldc:])
		}
	}
	kern(1, taps, tab, a, aoff, box.lda, b, ldb, box.kc, nil, &s[0], width, nil, nil, nil, flags&flagLoadC)
	for i := 0; i < rows; i++ {
		j.storeRow(j.y[off+i*box.ldc:off+i*box.ldc+cols], s[i*width:i*width+cols], off+i*box.ldc, ch, flags)
	}
}

// storeRow writes row = act(acc + residual + bias) for the epilogue flags
// given (the part of the epilogue a kernel did not apply).
func (j *convJob) storeRow(row, acc []float32, off, ch int, flags uint) {
	for c := range row {
		v := acc[c]
		if flags&flagResidual != 0 {
			v += j.res[off+c]
		}
		if flags&flagBias != 0 {
			v += j.bias[ch+c]
		}
		if flags&flagReLU != 0 && v < 0 {
			v = 0
		}
		row[c] = v
	}
}

// fill writes the output of the pixels of n tiles that no tap reaches: the
// epilogue of zero.
func (j *convJob) fill(img int, tile *convTileRef, n int, box *convBox, ch, cols int) {
	pl := j.pl
	var zeros [maxNR]float32
	for i := 0; i < n*int(tile.rows); i++ {
		off := img*pl.outImage + tile.coff + i*box.ldc + ch
		for c0 := 0; c0 < cols; c0 += maxNR {
			n := min(maxNR, cols-c0)
			row := j.y[off+c0 : off+c0+n]
			j.storeRow(row, zeros[:n], off+c0, ch+c0, j.flags)
			if j.actFn != nil {
				j.actFn(row)
			}
		}
	}
}

func (j *convJob) runDepthwise(u0, u1 int) {
	pl := j.pl
	p := pl.p
	t := len(pl.tiles)
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
		if box.ntaps == 0 {
			j.fill(img, tile, n, box, 0, p.co)
			continue
		}
		a := j.image(img)
		tab := &pl.tabs[2*box.tab0]
		rows := int(tile.rows)
		for ci := range pl.chans {
			c := &pl.chans[ci]
			off := img*pl.outImage + tile.coff + c.c0
			var res, bias *float32
			if j.flags&flagResidual != 0 {
				res = &j.res[off]
			}
			if j.flags&flagBias != 0 {
				bias = &j.bias[c.c0]
			}
			w := &j.w[c.c0]
			aoff := tile.aoff + c.c0
			switch {
			case c.set < 0:
				for m := 0; m < n; m++ {
					r := m * rows
					dwTwin(rows, c.width, c.width, box.ntaps, tab, a, aoff+r*box.lda, box.lda, w, &j.y[off+r*box.ldc], box.ldc, convAt(res, r*box.ldc), bias, nil, j.flags)
				}
			default:
				kern := j.k.dw[c.set].rows[rows]
				if box.rowTaps && c.row >= 0 && rows <= j.k.dwRow[c.row].maxRows() {
					kern = j.k.dwRow[c.row].rows[rows]
				}
				if c.n == c.width {
					kern(n, box.ntaps, tab, a, aoff, box.lda, w, &j.y[off], box.ldc, res, bias, nil, j.flags)
				} else {
					mask := &edgeMasks[maxNR-(c.n-(c.width-j.k.lanes))]
					kern(n, box.ntaps, tab, a, aoff, box.lda, w, &j.y[off], box.ldc, res, bias, mask, j.flags|flagPartial)
				}
			}
			if j.actFn != nil {
				for i := 0; i < n*rows; i++ {
					j.actFn(j.y[off+i*box.ldc : off+i*box.ldc+c.n])
				}
			}
		}
	}
}

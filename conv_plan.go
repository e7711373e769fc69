package kiln

import "sort"

// A convPlan is how a PackedConv runs on one input shape: the output cut
// into boxes of pixels that have the same valid taps, each box into tiles of
// pixels along one dimension (rows of the implicit GEMM, read at a constant
// stride), the taps of each box as offsets into the input and the packed
// weights, and the output channels cut into column tiles. It is built on the
// first call with a shape and cached on the PackedConv.
type convPlan struct {
	p                   *PackedConv
	in, out             [maxConvDims]int
	inStride, outStride [maxConvDims]int // elements, channels included
	inImage, outImage   int              // elements per image
	boxes               []convBox
	tabs                []int         // tap tables: pairs (input offset, weight offset)
	tiles               []convTileRef // one image's tiles, in raster order
	span                []int32       // tiles i… that one kernel call computes (see convKernel)
	cost                []int64       // cost[i] = work of tiles[:i]
	kbStart             []int         // per box, kblocks+1 tap indices
	kblocks             int           // blocks of taps (dense only)
	cols                []convCol     // dense: column tiles
	nblocks             []int         // dense: cols[nblocks[i]:nblocks[i+1]] share a block of weights
	chans               []dwChan      // depthwise: channel blocks
	maxTile             int           // most rows×width of a tile (scratch size)
}

// convBox is a set of output pixels with the same valid taps.
type convBox struct {
	tab0, ntaps int // its taps are tabs[2*tab0 : 2*(tab0+ntaps)]
	kc          int // input channels per tap (several taps' worth when merged)
	lda, ldc    int // input and output strides between a tile's pixels
	first, last int // the first and last blocks of taps that have taps
	// rowTaps: a depthwise box whose taps are whole kernel rows, each tap
	// of a row lda after the previous (see dwRowTiles).
	rowTaps bool
}

// convTileRef is one tile: rows pixels of a box from the pixel at input
// offset aoff (the virtual position of tap 0; it may be outside the image)
// and output offset coff, both relative to the image.
type convTileRef struct {
	box  int32
	rows int32
	aoff int
	coff int
}

// convCol is a column tile: width output channels from channel sub of panel
// q of group g, of which cols are real, computed by the tile set set.
type convCol struct {
	g, q, sub  int
	set, width int
	cols       int
}

// dwChan is a block of channels of a depthwise convolution: n channels from
// c0, computed by the kernels of set (vecs vectors), or by the Go twin
// (set < 0) for the channels no vector covers.
type dwChan struct {
	c0, n int
	set   int
	width int
	row   int // the dwRow set for rows of taps of this width, or -1
}

// convRun is a run of n pixels of a box along its tile dimension, from the
// pixel at input offset aoff and output offset coff (see convTileRef).
type convRun struct {
	box        int32
	n          int
	aoff, coff int
}

// convSegment is a run of output positions along one dimension whose valid
// kernel positions are the same, [kLo, kHi).
type convSegment struct {
	oLo, oHi, kLo, kHi int
}

// planFor returns the plan of the input shape in, building it when the
// cached one is for another shape.
func (p *PackedConv) planFor(in *[maxConvDims]int) *convPlan {
	if pl := p.plan.Load(); pl != nil && pl.in == *in {
		return pl
	}
	pl := newConvPlan(p, in)
	p.plan.Store(pl)
	return pl
}

// segments cuts [0, out) into runs with the same valid kernel positions.
func segments(out, in, k, stride, dil, padLo int) []convSegment {
	var segs []convSegment
	for o := 0; o < out; o++ {
		base := o*stride - padLo
		lo, hi := 0, k
		if base < 0 {
			lo = min(k, (-base+dil-1)/dil)
		}
		if last := base + (k-1)*dil; last > in-1 {
			// The largest kk with base + kk·dil ≤ in−1, plus one.
			if in-1-base < 0 {
				hi = 0
			} else {
				hi = min(k, (in-1-base)/dil+1)
			}
		}
		if hi < lo {
			hi = lo
		}
		if n := len(segs); n > 0 && segs[n-1].kLo == lo && segs[n-1].kHi == hi {
			segs[n-1].oHi = o + 1
			continue
		}
		segs = append(segs, convSegment{o, o + 1, lo, hi})
	}
	return segs
}

// convBudget is the bytes of packed weights a block of taps and columns may
// take, so that they stay in L2 while the tiles sweep them, beside the
// input rows and the output tiles. (Hypervisors report odd L2 sizes, so the
// size is clamped to what cores have.)
var convBudget = clamp(cpuState.l2, 256<<10, 2<<20) / 4

func newConvPlan(p *PackedConv, in *[maxConvDims]int) *convPlan {
	pl := &convPlan{p: p, in: *in}
	nd := p.nd
	pl.inStride[nd-1], pl.outStride[nd-1] = p.ci, p.co
	for d := 0; d < nd; d++ {
		pl.out[d] = p.OutSize(d, in[d])
	}
	for d := nd - 2; d >= 0; d-- {
		pl.inStride[d] = pl.inStride[d+1] * in[d+1]
		pl.outStride[d] = pl.outStride[d+1] * pl.out[d+1]
	}
	pl.inImage = pl.inStride[0] * in[0]
	pl.outImage = pl.outStride[0] * pl.out[0]

	var segs [maxConvDims][]convSegment
	nboxes := 1
	for d := 0; d < nd; d++ {
		segs[d] = segments(pl.out[d], in[d], p.kernel[d], p.stride[d], p.dil[d], p.padLo[d])
		nboxes *= len(segs[d])
	}
	outerTaps := p.taps / max(p.kernel[nd-1], 1)
	pl.kblocks = 1
	var blockOf []int // outer tap index → block
	if !p.depthwise {
		rowsPerOuter := max(p.kernel[nd-1]*p.ciG, 1)
		if bytes := p.taps * p.ciG * p.nr * 4; bytes > convBudget && outerTaps > 1 {
			perBlock := max(1, convBudget/(rowsPerOuter*p.nr*4))
			pl.kblocks = (outerTaps + perBlock - 1) / perBlock
		}
		blockOf = make([]int, outerTaps)
		for b := 0; b < pl.kblocks; b++ {
			for o := b * outerTaps / pl.kblocks; o < (b+1)*outerTaps/pl.kblocks; o++ {
				blockOf[o] = b
			}
		}
	}
	merge := !p.depthwise && p.groups == 1 && p.dil[nd-1] == 1

	// First the boxes, their taps and their runs of pixels; then the tile
	// height, from the run lengths; then the tiles.
	var runs []convRun
	var idx [maxConvDims]int // segment index per dimension
	for b := 0; b < nboxes; b++ {
		rem := b
		for d := nd - 1; d >= 0; d-- {
			idx[d] = rem % len(segs[d])
			rem /= len(segs[d])
		}
		var seg [maxConvDims]convSegment
		for d := 0; d < nd; d++ {
			seg[d] = segs[d][idx[d]]
		}
		box := convBox{tab0: len(pl.tabs) / 2, kc: p.ciG}
		// The taps: outer kernel positions in row-major order, then the
		// last dimension's positions (one run when merged).
		var outer []int
		empty := false
		for d := 0; d < nd; d++ {
			if seg[d].kLo >= seg[d].kHi {
				empty = true
			}
		}
		if !empty {
			var k [maxConvDims]int
			for d := 0; d < nd; d++ {
				k[d] = seg[d].kLo
			}
			for {
				lin, aRel := 0, 0
				for d := 0; d < nd; d++ {
					lin = lin*p.kernel[d] + k[d]
					aRel += k[d] * p.dil[d] * pl.inStride[d]
				}
				if p.depthwise {
					pl.tabs = append(pl.tabs, aRel, lin*p.co)
				} else {
					pl.tabs = append(pl.tabs, aRel, lin*p.ciG*p.nr)
				}
				outer = append(outer, lin/p.kernel[nd-1])
				// Next position: the last dimension first (all of its run
				// at once when merged).
				d := nd - 1
				if merge {
					box.kc = (seg[d].kHi - seg[d].kLo) * p.ci
					k[d] = seg[d].kHi - 1
				}
				for ; d >= 0; d-- {
					k[d]++
					if k[d] < seg[d].kHi {
						break
					}
					k[d] = seg[d].kLo
				}
				if d < 0 {
					break
				}
			}
		}
		box.ntaps = len(pl.tabs)/2 - box.tab0
		// Blocks of taps: the taps of a box are in order of their outer
		// position, so each block is a contiguous range.
		box.first, box.last = -1, -1
		t := 0
		for kb := 0; kb < pl.kblocks; kb++ {
			pl.kbStart = append(pl.kbStart, t)
			start := t
			for t < box.ntaps && (p.depthwise || blockOf[outer[t]] == kb) {
				t++
			}
			if t > start {
				if box.first < 0 {
					box.first = kb
				}
				box.last = kb
			}
		}
		pl.kbStart = append(pl.kbStart, t)

		// The tile dimension: the longest extent, the last on ties, with
		// dimensions merged when the box spans them whole and the input
		// rows follow one another at the tile stride (a 1×1 convolution
		// with unit stride tiles the whole image as one run).
		td := nd - 1
		for d := nd - 2; d >= 0; d-- {
			if seg[d].oHi-seg[d].oLo > seg[td].oHi-seg[td].oLo {
				td = d
			}
		}
		box.lda = p.stride[td] * pl.inStride[td]
		box.ldc = pl.outStride[td]
		last := nd - 1
		box.rowTaps = p.depthwise && td == last && p.kernel[last] > 1 && box.ntaps > 0 &&
			seg[last].kLo == 0 && seg[last].kHi == p.kernel[last] && p.stride[last] == p.dil[last]
		runDims := 1 // how many dimensions, from td down, one run covers
		for td == nd-1 && td-runDims >= 0 {
			d := td - runDims
			full := func(e int) bool { return seg[e].oLo == 0 && seg[e].oHi == pl.out[e] }
			if !full(d) || !full(d+1) || p.stride[d]*pl.inStride[d] != pl.out[d+1]*p.stride[d+1]*pl.inStride[d+1] {
				break
			}
			runDims++
		}
		runLen := 1
		for d := td - runDims + 1; d <= td; d++ {
			runLen *= seg[d].oHi - seg[d].oLo
		}
		// Every combination of the other dimensions' positions starts a run.
		var o [maxConvDims]int
		for d := 0; d < nd; d++ {
			o[d] = seg[d].oLo
		}
		boxIndex := int32(len(pl.boxes))
		for {
			aoff, coff := 0, 0
			for d := 0; d < nd; d++ {
				aoff += (o[d]*p.stride[d] - p.padLo[d]) * pl.inStride[d]
				coff += o[d] * pl.outStride[d]
			}
			runs = append(runs, convRun{box: boxIndex, n: runLen, aoff: aoff, coff: coff})
			d := nd - 1
			for ; d >= 0; d-- {
				if d > td-runDims && d <= td {
					continue
				}
				o[d]++
				if o[d] < seg[d].oHi {
					break
				}
				o[d] = seg[d].oLo
			}
			if d < 0 {
				break
			}
		}
		pl.boxes = append(pl.boxes, box)
	}

	// The tile height: the rows of the tile set used for whole panels.
	var maxRows int
	if p.depthwise {
		var set int
		pl.chans, set = dwChannels(p)
		maxRows = p.kern.dw[set].maxRows()
		rowBoxes := false
		for _, b := range pl.boxes {
			rowBoxes = rowBoxes || b.rowTaps
		}
		for i := range pl.chans {
			c := &pl.chans[i]
			c.row = -1
			if c.set < 0 || !rowBoxes {
				continue
			}
			for r, t := range p.kern.dwRow {
				if t.k == p.kernel[nd-1] && t.vecs == p.kern.dw[c.set].vecs {
					c.row = r
					if c.set == set {
						maxRows = min(maxRows, t.maxRows())
					}
				}
			}
		}
		for _, c := range pl.chans {
			pl.maxTile = max(pl.maxTile, c.width)
		}
	} else {
		set := denseTileSet(p, pl, runs)
		maxRows = p.kern.gemm[set].maxRows()
		pl.cols = denseCols(p, set)
		for _, c := range pl.cols {
			pl.maxTile = max(pl.maxTile, c.width)
		}
		pl.nblocks = denseBlocks(pl.cols, p.taps*p.ciG/pl.kblocks+p.kernel[nd-1]*p.ciG)
	}
	pl.maxTile *= maxRows
	for _, r := range runs {
		n := (r.n + maxRows - 1) / maxRows
		b := &pl.boxes[r.box]
		for i, start := 0, 0; i < n; i++ {
			rows := r.n / n
			if i < r.n%n {
				rows++
			}
			pl.tiles = append(pl.tiles, convTileRef{box: r.box, rows: int32(rows), aoff: r.aoff + start*b.lda, coff: r.coff + start*b.ldc})
			start += rows
		}
	}
	sort.Slice(pl.tiles, func(i, j int) bool { return pl.tiles[i].coff < pl.tiles[j].coff })
	// A tile continues the previous one when it is the next rows pixels of
	// the same run: a kernel call computes both.
	pl.span = make([]int32, len(pl.tiles))
	for i := len(pl.tiles) - 1; i >= 0; i-- {
		pl.span[i] = 1
		if i+1 < len(pl.tiles) {
			t, u := pl.tiles[i], pl.tiles[i+1]
			b := &pl.boxes[t.box]
			if u.box == t.box && u.rows == t.rows && u.aoff == t.aoff+int(t.rows)*b.lda && u.coff == t.coff+int(t.rows)*b.ldc {
				pl.span[i] = pl.span[i+1] + 1
			}
		}
	}
	pl.cost = make([]int64, len(pl.tiles)+1)
	for i, t := range pl.tiles {
		b := &pl.boxes[t.box]
		pl.cost[i+1] = pl.cost[i] + int64(t.rows)*int64(b.ntaps*b.kc+16)
	}
	return pl
}

// denseTileSet chooses the tile set whose width the whole panels use: the
// one that covers the runs of pixels in the least time, by a model of the
// kernels where a tile of r rows and v vectors runs at min(1, r·v/12) of the
// FMA peak (fewer accumulators than that leave the FMA pipes waiting on
// their latency) plus a fixed cost per tile.
func denseTileSet(p *PackedConv, pl *convPlan, runs []convRun) int {
	tiles := p.kern.gemm
	best, bestCost := 0, -1.0
	for i, t := range tiles {
		if t.nr > p.nr {
			continue
		}
		vecs := float64(t.nr / p.kern.lanes)
		cost := 0.0
		for _, r := range runs {
			b := &pl.boxes[r.box]
			n := (r.n + t.maxRows() - 1) / t.maxRows()
			for j := 0; j < n; j++ {
				rows := r.n / n
				if j < r.n%n {
					rows++
				}
				eff := min(1, float64(rows)*vecs/12)
				// Per column of output: rows·k FMAs of one lane each.
				cost += float64(rows*(b.ntaps*b.kc+8))/eff/float64(t.nr) + 40/float64(t.nr)
			}
		}
		if bestCost < 0 || cost < bestCost {
			best, bestCost = i, cost
		}
	}
	return best
}

// denseCols cuts every group's panels into column tiles of the chosen set's
// width, the last one of each panel into the narrowest width that covers it.
func denseCols(p *PackedConv, set int) []convCol {
	tiles := p.kern.gemm
	w := tiles[set].nr
	var cols []convCol
	for g := 0; g < p.groups; g++ {
		for q := 0; q < p.panels; q++ {
			panelCols := min(p.nr, p.coG-q*p.nr)
			for sub := 0; sub < panelCols; {
				rem := panelCols - sub
				s := set
				if rem < w {
					for i := range tiles {
						if tiles[i].nr <= w && tiles[i].nr >= rem && tiles[i].nr < tiles[s].nr {
							s = i
						}
					}
				}
				cols = append(cols, convCol{g: g, q: q, sub: sub, set: s, width: tiles[s].nr, cols: min(rem, tiles[s].nr)})
				sub += tiles[s].nr
			}
		}
	}
	return cols
}

// denseBlocks groups consecutive column tiles whose weights (rows per block
// of taps, each tile's width) fit the L2 budget together.
func denseBlocks(cols []convCol, rows int) []int {
	blocks := []int{0}
	bytes := 0
	for i, c := range cols {
		b := rows * c.width * 4
		if bytes > 0 && bytes+b > convBudget {
			blocks = append(blocks, i)
			bytes = 0
		}
		bytes += b
	}
	return append(blocks, len(cols))
}

// dwChannels cuts the channels into blocks: of the widest depthwise set
// while they last, then of the narrowest set whose last vector, partial,
// ends the channels (masked kernels), else of the widest set that fits, and
// what no vector covers goes to the Go twin (unmasked kernels). It returns
// the blocks and the set whose tile height the plan uses (the fewest rows).
func dwChannels(p *PackedConv) ([]dwChan, int) {
	k := p.kern
	width := func(s int) int { return k.dw[s].vecs * k.lanes }
	var chans []dwChan
	rowsSet := 0
	for c0 := 0; c0 < p.co; {
		rem := p.co - c0
		fit, cover := -1, -1 // the widest set within rem, the narrowest ending it
		for i := range k.dw {
			w := width(i)
			if w <= rem && (fit < 0 || w > width(fit)) {
				fit = i
			}
			if k.masked && w >= rem && w-k.lanes < rem && (cover < 0 || w < width(cover)) {
				cover = i
			}
		}
		s := fit
		if cover >= 0 && (fit < 0 || width(fit) < rem) {
			s = cover
		}
		if s < 0 {
			chans = append(chans, dwChan{c0: c0, n: rem, set: -1, width: rem})
			break
		}
		chans = append(chans, dwChan{c0: c0, n: min(width(s), rem), set: s, width: width(s)})
		if k.dw[s].maxRows() < k.dw[rowsSet].maxRows() {
			rowsSet = s
		}
		c0 += width(s)
	}
	return chans, rowsSet
}

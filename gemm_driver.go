package kiln

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// The GEMM driver, built the way BLIS and OpenBLAS are: C is split into at
// most Threads() rectangles that run independently on the worker pool; each
// rectangle walks NC-wide column blocks, KC-deep slices of K and MC-tall row
// blocks, packs the blocks of A and B into the micro-kernel's panel layouts,
// and sweeps the register tiles with the micro-kernel. Small M skips the
// packing of A (the kernels read A in place) and of full-width B panels.

// smallM is the largest M that takes the small-shape path.
const smallM = 32

// directKC is the K block of the small-M path when it reads B in place.
const directKC = 256

// minPartWork is the least M·N·K worth one more thread: below it the cost of
// waking a worker exceeds what it saves. 2^21 multiply-adds are about 10 µs
// of one core at the FMA peak — several worker hand-offs even when the other
// core is idle (a batch of attention heads, 128×128×64 each, runs 8× slower
// split in two when it is not).
var minPartWork = 1 << 21

// gemmJob is one GEMM call: its arguments, its split into parts and the
// packing buffers of each part. Jobs are recycled through the kernel set's
// jobList so that a call in steady state allocates nothing.
type gemmJob[T float] struct {
	kern           *gemmKernels[T]
	transA, transB bool
	m, n, k        int
	alpha, beta    T
	a, b, c        []T
	lda, ldb, ldc  int
	pb             []T // prepacked B (see PackedB), or nil
	ep             epilogue[T]
	epFlags        uint
	goAct          bool

	small bool
	gemv  int // gemvNone, gemvDot, gemvAxpy
	// backward: the column-block path reads B's chunks last to first
	// (see gemvSweeps).
	backward bool
	splitN   bool
	parts    int
	bufs     []partBuffers[T]
	done     pending
}

// partBuffers are one part's packing buffers, kept with the job between calls.
type partBuffers[T float] struct {
	a, b, tile []T
}

// jobList is a free list of jobs.
type jobList[T float] struct {
	mu   sync.Mutex
	free []*gemmJob[T]
}

func (l *jobList[T]) get() *gemmJob[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		j := l.free[n-1]
		l.free = l.free[:n-1]
		return j
	}
	return new(gemmJob[T])
}

func (l *jobList[T]) put(j *gemmJob[T]) {
	// Drop the caller's slices so a pooled job does not keep them alive.
	j.a, j.b, j.c, j.pb, j.ep = nil, nil, nil, nil, epilogue[T]{}
	l.mu.Lock()
	l.free = append(l.free, j)
	l.mu.Unlock()
}

// grow returns s with length n, reusing its storage when large enough.
func grow[T float](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// gemm runs C = act(alpha·op(A)·op(B) + beta·C + bias) with validated
// arguments. pb, when not nil, replaces b: B prepacked by PackB into panels
// of nr columns, each k×nr row-major, one after another, the last one
// lastPanelWidth(n) wide (see PackedB); sweeps, when not nil, counts the
// packed-rows calls on pb (see PackedB.sweeps).
func gemm[T float](g *gemmKernels[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, pb []T, sweeps *atomic.Uint32, beta T, c []T, ldc int, ep epilogue[T]) {
	if m == 0 || n == 0 {
		return
	}
	if alpha == 0 || k == 0 {
		scaleC(m, n, beta, c, ldc, &ep)
		return
	}
	if usePackedRows(g, transA, m, lda, pb) {
		backward := sweeps != nil && sweeps.Add(1)%2 == 0
		gemmPackedRows(g, m, n, k, alpha, a, lda, pb, backward, beta, c, ldc, ep)
		return
	}
	j := g.jobs.get()
	*j = gemmJob[T]{
		kern: g, transA: transA, transB: transB, m: m, n: n, k: k,
		alpha: alpha, beta: beta, a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc,
		pb: pb, ep: ep, bufs: j.bufs,
	}
	j.epFlags, j.goAct = j.ep.kernelFlags()
	// A product a few columns wide (a classifier's) also takes the small
	// path: its taller, narrower tile wastes fewer lanes on the columns
	// past n than the main tile's, which would run 64 columns for 10.
	j.small = m <= smallM || g.small != nil && n <= g.small.nr
	j.gemv = gemvPath(g, transA, transB, m, lda, pb)
	if j.gemv == gemvAxpy && g.gemvCols != nil && k > gemvColsDepth && k*n*int(unsafe.Sizeof(alpha)) <= gemvSweepLimit {
		j.backward = gemvBackward(b)
	}
	j.splitN = m <= smallM || n >= m
	j.parts = j.partCount()
	for len(j.bufs) < j.parts {
		j.bufs = append(j.bufs, partBuffers[T]{})
	}
	runParallel(j, j.parts, &j.done)
	g.jobs.put(j)
}

// partCount is how many parts the call is split into: no more than the
// threads, the work allows, or the tiles along the split dimension.
func (j *gemmJob[T]) partCount() int {
	parts := min(Threads(), max(1, j.m*j.n*j.k/minPartWork))
	if j.splitN {
		parts = min(parts, (j.n+j.kern.nr-1)/j.kern.nr)
	} else {
		parts = min(parts, (j.m+j.kern.mr-1)/j.kern.mr)
	}
	return max(parts, 1)
}

// span returns the half-open range of part p when dim is split into parts
// at multiples of unit.
func span(dim, unit, parts, p int) (lo, hi int) {
	units := (dim + unit - 1) / unit
	lo = min(dim, p*units/parts*unit)
	hi = min(dim, (p+1)*units/parts*unit)
	return lo, hi
}

func (j *gemmJob[T]) runPart(p int) {
	m0, m1, n0, n1 := 0, j.m, 0, j.n
	if j.splitN {
		n0, n1 = span(j.n, j.kern.nr, j.parts, p)
	} else {
		m0, m1 = span(j.m, j.kern.mr, j.parts, p)
	}
	if m0 == m1 || n0 == n1 {
		return
	}
	buf := &j.bufs[p]
	tile := j.kern.mr * j.kern.nr
	if s := j.kern.small; s != nil {
		tile = max(tile, s.mr*s.nr)
	}
	if s := j.kern.narrow; s != nil {
		tile = max(tile, s.mr*s.nr)
	}
	buf.tile = grow(buf.tile, tile)
	switch {
	case j.gemv == gemvDot:
		j.runGemv(n0, n1)
	case j.gemv == gemvAxpy:
		j.runGemvAxpy(buf, n0, n1)
	case j.small:
		j.runSmall(buf, m0, m1, n0, n1)
	default:
		j.runLarge(buf, m0, m1, n0, n1)
	}
}

// runLarge computes C(m0:m1, n0:n1) in cache blocks. The row-major kernels
// read A where it lies; a transposed A (or a set without them) has each
// MC×KC block packed into k-major panels. A KC×NC block of B is packed into
// contiguous panels unless B was prepacked or is read in place.
//
// A row-major A is not copied: the copy into a compact buffer cost more than
// it saved. Interleaved runs (M×N×K, prepacked and unpacked B, best and 90th
// percentile of GFLOP/s): in place 2–5 % faster at 128×768×768,
// 128×768×3072, 128×3072×768, 64×512×784, 64×512×512 and 512³ (AVX-512 and
// AVX2), 1–3 % at 128×1024×1024 and 128×1024×4096 (rows of A 4 and 16 KiB
// apart, all on the same L1 sets), no difference above noise at 1024³, 2048³
// and 512×4096×4096, where the copy is a smaller part of the work (it costs
// M·K per NC-wide column block, against 2·M·N·K).
func (j *gemmJob[T]) runLarge(buf *partBuffers[T], m0, m1, n0, n1 int) {
	g := j.kern
	mr, nr := g.mr, g.nr
	rowsA := !j.transA && g.rowMajor != nil
	single := m1-m0 <= g.mc && j.k <= g.kc && n1-n0 <= g.nc
	// A K up to half a block past KC is one block: a second, short block
	// would load and store all of C again for a few k steps (K = 768 as
	// 512 + 256; one block of 768 is 2–3 % faster in A/B runs of BERT's
	// and the MLP's products). The panel of B it streams, 768×64 floats,
	// still sits in L2.
	depth := g.kc
	if j.k <= g.kc+g.kc/2 {
		depth = j.k
	}
	inPlaceB := !j.transB && j.pb == nil &&
		(single && spreadRows(j.ldb, int(unsafe.Sizeof(j.a[0]))) || rowsA && j.streamsBInPlace(m1-m0, depth))
	if !rowsA {
		buf.a = grow(buf.a, depth*min(g.mc, (m1-m0+mr-1)/mr*mr))
	}
	poll := workPoller{cancel: j.ep.cancel}
	prefetched := false // the row tiles of the last panel prefetched all of the next
	for jc := n0; jc < n1; jc += g.nc {
		nc := min(g.nc, n1-jc)
		for pc := 0; pc < j.k; pc += depth {
			kc := min(depth, j.k-pc)
			packedFrom := nc // columns from here on come from buf.b
			switch {
			case j.pb != nil:
			case inPlaceB:
				// Whole panels are read in place, a partial last one
				// packed (the kernels read whole panel rows).
				packedFrom = nc / nr * nr
			default:
				// Rows of B a power of two apart map to the same cache sets,
				// so B is packed into contiguous panels.
				packedFrom = 0
			}
			// With one block of rows, each panel of B is packed right before
			// its row tiles use it: the panel stays in L2 instead of the
			// whole block going to L3 and back. Where the set has a packing
			// kernel, the first row tile packs the panel as it reads it.
			perPanel := packedFrom < nc && m1-m0 <= g.mc
			fused := perPanel && rowsA && !j.transB && g.packing != nil
			// A prepacked B too large to stay in L2 between calls (a
			// model's weights, each product's evicted by the next) streams
			// from L3 or memory: the first row tile of a panel that no
			// tiles prefetched (below) copies it with the packing kernel,
			// whose prefetches run ahead of the loads, into the part's
			// panel buffer, which stays in L1 and L2 for the other row
			// tiles (BERT's products 3 % faster in A/B runs; the MLP's,
			// whose weights stay in L2, 4 % slower copied). A prefetched
			// panel is read where it is: copied, 1–3 % slower at
			// 128×768×768, 128×3072×768 and 128×768×3072.
			copied := j.pb != nil && len(j.pb)*int(unsafe.Sizeof(j.pb[0])) > g.streamedB &&
				m1-m0 <= g.mc && rowsA && g.packing != nil
			if copied {
				buf.b = grow(buf.b, kc*nr)
			}
			// With one block of rows, the row tiles of each panel bring the
			// next one into L2 from L3 or memory, where that panel's first
			// row tile would otherwise wait on it alone. Interleaved runs
			// over six rotating Bs, best, 90th percentile and median
			// GFLOP/s: from a prepacked B 3–6 % faster at 128×768×768,
			// 128×3072×768, 128×768×3072 and 64×512×784 (M×N×K). From a B
			// read where it lies (weights passed as arguments) only with
			// one block of K and rows whose stride spreads a panel over
			// the L2's sets: 5–6 % faster at 128×768×768 (rows 3 KiB
			// apart), 6–8 % at 64×512×512 and 1–2 % at 64×512×784 (2 KiB
			// apart), but 4–7 % slower at 128×768×3072 (several blocks of
			// K) and 1–8 % at 128×3072×768 (rows 12 KiB apart: a panel's
			// 3072 lines on an eighth of the sets); the encoder layer with
			// its weights as arguments 3 % faster (13 of 16 paired runs).
			inPlacePF := !j.transB && depth == j.k && rowAlignment(j.ldb*int(unsafe.Sizeof(j.a[0]))) <= 2048
			prefetch := (j.pb != nil || inPlacePF) && rowsA && g.prefetching != nil && m1-m0 <= g.mc && kc >= g.prefetchSteps
			if perPanel {
				buf.b = grow(buf.b, kc*nr)
			} else if packedFrom < nc {
				buf.b = grow(buf.b, kc*((nc-packedFrom+nr-1)/nr*nr))
				packB(buf.b, j.b, j.ldb, j.transB, pc, kc, jc+packedFrom, nc-packedFrom, nr)
			}
			beta, flags := j.beta, uint(0)
			if pc > 0 {
				beta = 1
			}
			if beta != 0 {
				flags |= flagLoadC
			}
			last := pc+kc == j.k
			if last {
				flags |= j.epFlags
			}
			for ic := m0; ic < m1; ic += g.mc {
				mc := min(g.mc, m1-ic)
				if !rowsA {
					packA(buf.a, j.a, j.lda, j.transA, ic, mc, pc, kc, mr)
				}
				for jr := 0; jr < nc; jr += nr {
					if poll.stopped(mc * kc * nr) {
						return
					}
					cols := min(nr, nc-jr)
					var bp *T
					var ldb int
					first := 0
					// warm: the last panel's row tiles brought this one into L2.
					warm := prefetched
					prefetched = false
					switch {
					case fused && jr >= packedFrom && cols == nr && mc >= mr:
						j.packingTile(kc, &j.a[ic*j.lda+pc], j.lda, &j.b[pc*j.ldb+jc+jr], j.ldb, &buf.b[0], ic, jc+jr, beta, flags, last)
						bp, ldb, first = &buf.b[0], nr, mr
					case copied && !warm && cols == nr && mc >= mr:
						src, ld := j.bPanel(buf, pc, kc, jc+jr, false, 0)
						j.packingTile(kc, &j.a[ic*j.lda+pc], j.lda, src, ld, &buf.b[0], ic, jc+jr, beta, flags, last)
						bp, ldb, first = &buf.b[0], nr, mr
					case perPanel && jr >= packedFrom:
						packB(buf.b, j.b, j.ldb, j.transB, pc, kc, jc+jr, cols, nr)
						bp, ldb = &buf.b[0], nr
					default:
						bp, ldb = j.bPanel(buf, pc, kc, jc+jr, jr >= packedFrom, (jr-packedFrom)/nr)
					}
					// The full row tiles prefetch the next panel into L2 a few
					// rows each (see prefetchingKernel).
					pfAt, pfLD, pfLeft := 0, 0, 0
					if prefetch && cols == nr {
						pfAt, pfLD, pfLeft = j.nextPanel(pc, kc, depth, jc, nc, jr)
					}
					next := pfLeft > 0
					for ir := first; ir < mc; ir += mr {
						rows := min(mr, mc-ir)
						switch {
						case pfLeft > 0 && rows == mr:
							j.prefetchingTile(kc, &j.a[(ic+ir)*j.lda+pc], j.lda, bp, ldb, j.panelRow(pfAt), pfLD, ic+ir, jc+jr, beta, flags, last)
							n := kc / g.prefetchSteps
							pfAt += n * pfLD
							pfLeft -= n
						case rowsA:
							j.tile(g.rowMajor[rows], rows, cols, kc, &j.a[(ic+ir)*j.lda+pc], j.lda, bp, ldb, ic+ir, jc+jr, beta, flags, last, buf)
						default:
							j.tile(g.kmajor[rows], rows, cols, kc, &buf.a[ir*kc], rows, bp, ldb, ic+ir, jc+jr, beta, flags, last, buf)
						}
					}
					prefetched = next && pfLeft <= 0
				}
			}
		}
	}
}

// streamsBInPlace reports whether a product of rows rows of A (row-major)
// reads the whole panels of its untransposed B where they lie instead of
// packing them, though the block is not single: one block of rows (each
// panel swept by all of its row tiles in turn), K up to 1024, a panel of
// depth rows larger than L1 and rows less than 4 KiB apart. Every row tile
// then streams the panel from L2, packed or not (a panel that fits L1
// packed is packed: attention's 128-deep P·V, for one); the copy only
// adds its stores, and the stride prefetcher follows rows this close.
// Rows 4 KiB apart or more alias in L1 and L2, and a longer K's panel no
// longer stays in L2. Measured in interleaved runs (minimum of
// 200–400 calls on four rotating Bs): in place 2–7 % faster at 64×784×512,
// 64×512×512, 64×784×640, 128×768×768, 128×768×256 and 64×2048×512;
// 1.5–2.9× slower at N = 1024 and 3072, 5–11 % slower at 128×1536×768 and
// 128×3072×768; no gain below 32 rows. The example MLP at batch 64 with
// its weights passed as parameters: 646 → 590 µs.
func (j *gemmJob[T]) streamsBInPlace(rows, depth int) bool {
	size := int(unsafe.Sizeof(j.a[0]))
	return rows >= 32 && rows <= j.kern.mc && j.k <= 1024 && depth*j.kern.nr*size > cpuState.l1d && j.ldb*size < 4096
}

// spreadRows reports whether rows ld elements of size bytes apart spread
// over at least 16 of the 64-byte line offsets of a 4 KiB page (the L1's
// set index), so that the rows of a block read in place do not evict each
// other as rows a power of two apart would.
func spreadRows(ld, size int) bool {
	return rowAlignment(ld*size) <= 256
}

// rowAlignment is the largest power of two up to 4096 that divides a row
// stride of b bytes (4096 for b ≤ 0): rows that far apart start on
// 4096/rowAlignment of the line offsets of a 4 KiB page.
func rowAlignment(b int) int {
	if b <= 0 {
		return 4096
	}
	g := 4096
	for b%g != 0 {
		g /= 2
	}
	return g
}

// bPanel returns where the kernels read the kc×nr panel of B at rows pc…,
// column col: the prepacked matrix, B itself, or panel q of the packed block.
func (j *gemmJob[T]) bPanel(buf *partBuffers[T], pc, kc, col int, packed bool, q int) (*T, int) {
	switch {
	case j.pb != nil:
		nr := j.kern.nr
		q, ld := col/nr, nr
		if (q+1)*nr > j.n {
			ld = j.kern.lastPanelWidth(j.n)
		}
		return &j.pb[q*j.k*nr+pc*ld], ld
	case packed:
		return &buf.b[q*kc*j.kern.nr], j.kern.nr
	default:
		return &j.b[pc*j.ldb+col], j.ldb
	}
}

// runSmall computes C(m0:m1, n0:n1) for M ≤ smallM or N within the small-M
// tile's width, reading A in place
// (row-major kernels, or k-major ones when A is transposed) and full-width
// panels of an untransposed B in place. With more than one row tile, K is
// split into KC blocks so that the row tiles after the first find the block
// of B in cache. When M exceeds one row tile and the set has a small-M tile,
// each panel of B is swept in narrower slices by its taller tiles, so that B
// streams from memory once for more rows; a product at most the narrow
// tile's width (a classifier's few columns) takes that tile instead, one
// vector per row rather than the small tile's two.
func (j *gemmJob[T]) runSmall(buf *partBuffers[T], m0, m1, n0, n1 int) {
	g := j.kern
	t := g
	switch {
	case m1-m0 <= g.mr:
	case g.narrow != nil && n1-n0 <= g.narrow.nr:
		t = g.narrow
	case g.small != nil:
		t = g.small
	}
	nr, k := g.nr, j.k
	kernels, packedA := t.kmajor, false
	switch {
	case j.transA:
	case t.rowMajor != nil:
		kernels = t.rowMajor
	default:
		packedA = true
		buf.a = grow(buf.a, k*((m1-m0+t.mr-1)/t.mr*t.mr))
		packA(buf.a, j.a, j.lda, false, m0, m1-m0, 0, k, t.mr)
	}
	kcMax := k
	if m1-m0 > t.mr {
		kcMax = g.kcSmall
	}
	if j.pb == nil && !j.transB && n1-n0 >= nr {
		// B read in place: short K blocks walk its rows nearly in order
		// (each block's rows panel after panel) instead of one panel down
		// all of K, a row stride apart; 10–60 % faster in A/B runs. (B
		// narrower than a panel is packed, and needs no short blocks.)
		kcMax = min(kcMax, directKC)
	}
	poll := workPoller{cancel: j.ep.cancel}
	for pc := 0; pc < k; pc += kcMax {
		kc := min(kcMax, k-pc)
		beta, flags := j.beta, uint(0)
		if pc > 0 {
			beta = 1
		}
		if beta != 0 {
			flags |= flagLoadC
		}
		last := pc+kc == k
		if last {
			flags |= j.epFlags
		}
		for jr := n0; jr < n1; jr += nr {
			if poll.stopped((m1 - m0) * kc * nr) {
				return
			}
			cols := min(nr, n1-jr)
			packed := j.pb == nil && (j.transB || cols < nr)
			var bp *T
			var ldb int
			if packed {
				// A partial panel is packed only as wide as its columns
				// rounded up to the packing tail (as PackB packs the last
				// panel), with nr elements after it: the kernels load
				// whole nr-wide rows and mask the columns past cols.
				ldb = nr
				if cols < nr {
					ldb = g.lastPanelWidth(cols)
				}
				buf.b = grow(buf.b, kc*ldb+nr)
				packB(buf.b, j.b, j.ldb, j.transB, pc, kc, jr, cols, ldb)
				clear(buf.b[kc*ldb : kc*ldb+nr])
				bp = &buf.b[0]
			} else {
				bp, ldb = j.bPanel(buf, pc, kc, jr, false, 0)
			}
			panel := unsafe.Slice(bp, (kc-1)*ldb+nr)
			for sub := 0; sub < cols; sub += t.nr {
				subCols := min(t.nr, cols-sub)
				for ir := m0; ir < m1; ir += t.mr {
					rows := min(t.mr, m1-ir)
					var ap *T
					lda := j.lda
					switch {
					case packedA:
						ap, lda = &buf.a[(ir-m0)*k+pc*rows], rows
					case j.transA:
						ap = &j.a[pc*j.lda+ir]
					default:
						ap = &j.a[ir*j.lda+pc]
					}
					j.tileOf(t, kernels[rows], rows, subCols, kc, ap, lda, &panel[sub], ldb, ir, jr+sub, beta, flags, last, buf)
				}
			}
		}
	}
}

// tile runs one micro-kernel call for the rows×cols tile of C at (i0, j0).
// Edge tiles of kernels without masked stores go through a scratch tile and
// the pure-Go store; activations without a kernel flag are applied here.
func (j *gemmJob[T]) tile(kern microKernel[T], rows, cols, kc int, a *T, lda int, b *T, ldb int, i0, j0 int, beta T, flags uint, last bool, buf *partBuffers[T]) {
	j.tileOf(j.kern, kern, rows, cols, kc, a, lda, b, ldb, i0, j0, beta, flags, last, buf)
}

// tileOf is tile for a kernel of the tile set g (the job's, or its small one).
func (j *gemmJob[T]) tileOf(g *gemmKernels[T], kern microKernel[T], rows, cols, kc int, a *T, lda int, b *T, ldb int, i0, j0 int, beta T, flags uint, last bool, buf *partBuffers[T]) {
	var bias *T
	if flags&flagBias != 0 {
		bias = &j.ep.bias[j0]
	}
	off := i0*j.ldc + j0
	switch {
	case cols == g.nr:
		kern(kc, a, lda, b, ldb, &j.c[off], j.ldc, j.alpha, beta, bias, nil, flags)
	case g.masked:
		kern(kc, a, lda, b, ldb, &j.c[off], j.ldc, j.alpha, beta, bias, &edgeMasks[maxNR-cols], flags|flagPartial)
	default:
		t := buf.tile
		kern(kc, a, lda, b, ldb, &t[0], g.nr, j.alpha, 0, nil, nil, 0)
		for i := 0; i < rows; i++ {
			row := j.c[off+i*j.ldc : off+i*j.ldc+cols]
			trow := t[i*g.nr : i*g.nr+cols]
			for c := range row {
				v := trow[c]
				if flags&flagLoadC != 0 {
					v += beta * row[c]
				}
				if flags&flagBias != 0 {
					v += j.ep.bias[j0+c]
				}
				if flags&flagReLU != 0 && v < 0 {
					v = 0
				}
				row[c] = v
			}
		}
	}
	if last && j.goAct {
		for i := 0; i < rows; i++ {
			j.ep.applyAct(j.c[off+i*j.ldc : off+i*j.ldc+cols])
		}
	}
}

// packingTile runs the set's packing kernel for the full tile of C at
// (i0, j0): it reads the kc×nr panel of B at b (stride ldb) and leaves it
// packed at dst for the row tiles below.
func (j *gemmJob[T]) packingTile(kc int, a *T, lda int, b *T, ldb int, dst *T, i0, j0 int, beta T, flags uint, last bool) {
	bias, off := j.fullTile(i0, j0, flags)
	j.kern.packing(kc, a, lda, b, ldb, &j.c[off], j.ldc, j.alpha, beta, bias, nil, flags, dst)
	j.actFullTile(off, last)
}

// fullTile returns the bias and the offset in C of the full tile at (i0, j0).
func (j *gemmJob[T]) fullTile(i0, j0 int, flags uint) (bias *T, off int) {
	if flags&flagBias != 0 {
		bias = &j.ep.bias[j0]
	}
	return bias, i0*j.ldc + j0
}

// actFullTile applies an activation without a kernel flag to the full tile
// of C at off once the last block of K is in.
func (j *gemmJob[T]) actFullTile(off int, last bool) {
	if last && j.goAct {
		for i := 0; i < j.kern.mr; i++ {
			j.ep.applyAct(j.c[off+i*j.ldc : off+i*j.ldc+j.kern.nr])
		}
	}
}

// nextPanel returns where the row tiles of the panel at column jr of the
// block at (jc, pc) prefetch from: the next panel, or the first of the next
// block of K, as the index of its first row in the prepacked B, or else in
// B (see panelRow), its row stride and its row count (none past the column
// block's last panel and K's last block).
func (j *gemmJob[T]) nextPanel(pc, kc, depth, jc, nc, jr int) (at, ld, rows int) {
	nr := j.kern.nr
	next := jr + nr
	if next >= nc {
		if pc+kc >= j.k {
			return 0, 0, 0
		}
		pc, kc, next = pc+kc, min(depth, j.k-pc-kc), 0
	}
	if j.pb == nil {
		return pc*j.ldb + jc + next, j.ldb, kc
	}
	q := (jc + next) / nr
	ld = nr
	if (q+1)*nr > j.n {
		ld = j.kern.lastPanelWidth(j.n)
	}
	return q*j.k*nr + pc*ld, ld, kc
}

// panelRow is the element at index at of the prepacked B, or else of B.
func (j *gemmJob[T]) panelRow(at int) *T {
	if j.pb != nil {
		return &j.pb[at]
	}
	return &j.b[at]
}

// prefetchingTile runs the set's prefetching kernel for the full tile of C
// at (i0, j0), prefetching the rows of B from pf, ldPF apart.
func (j *gemmJob[T]) prefetchingTile(kc int, a *T, lda int, b *T, ldb int, pf *T, ldPF int, i0, j0 int, beta T, flags uint, last bool) {
	bias, off := j.fullTile(i0, j0, flags)
	j.kern.prefetching(kc, a, lda, b, ldb, &j.c[off], j.ldc, j.alpha, beta, bias, nil, flags, pf, ldPF)
	j.actFullTile(off, last)
}

// scaleC applies C = act(beta·C + bias) when alpha·A·B contributes nothing
// (alpha = 0 or K = 0). beta = 0 writes zeros without reading C.
func scaleC[T float](m, n int, beta T, c []T, ldc int, ep *epilogue[T]) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		switch beta {
		case 0:
			clear(row)
		case 1:
		default:
			for j := range row {
				row[j] *= beta
			}
		}
		if ep.bias != nil {
			for j := range row {
				row[j] += ep.bias[j]
			}
		}
		ep.applyAct(row)
	}
}

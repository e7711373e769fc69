package kiln

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
)

// float is the element type of the generic GEMM driver.
type float interface{ ~float32 | ~float64 }

// microKernel computes one register tile of C = alpha·A·B + beta·C for up to
// MR rows and NR columns, with the epilogue selected by flags:
//
//	A(i,p) = a[p*lda+i] for k-major kernels (packed panels, or A transposed),
//	A(i,p) = a[i*lda+p] for row-major kernels (A used in place),
//	B(p,j) = b[p*ldb+j], C(i,j) = c[i*ldc+j], j < NR,
//
// and C(i,j) = act(alpha·Σp A(i,p)B(p,j) + beta·C(i,j) + bias[j]), where the
// beta term is present only with flagLoadC, the bias only with flagBias, and
// act is chosen by the activation flags. With flagPartial only the columns j
// with mask[j] != 0 are read or written (mask is a prefix of -1s); kernels of
// ISAs without masked stores never see flagPartial (the driver stores edge
// tiles through a scratch tile instead). Every assembly micro-kernel has the
// same signature, so that the pure-Go twin can stand in for any of them.
type microKernel[T float] func(k int, a *T, lda int, b *T, ldb int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint)

// packingKernel is a micro-kernel for a full mr×nr tile with A row-major
// (A(i,p) = a[i*lda+p]) that also copies the k×nr panel of B it reads, at
// stride ldb, into dst, row p at dst[p*nr]. It is the first row tile of a
// block whose B is not packed: it packs the panel for the tiles below it
// while it computes its own, so that B is read from memory once, its
// latency hidden behind the FMAs instead of a copy loop of its own.
type packingKernel[T float] func(k int, a *T, lda int, b *T, ldb int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint, dst *T)

// prefetchingKernel is a micro-kernel for a full mr×nr tile with A
// row-major that also prefetches into L2, after each group of
// gemmKernels.prefetchSteps k steps, the nr elements at pf, advancing pf by
// pfStride elements (the remainder of k prefetches nothing): k/prefetchSteps
// rows of another panel of B, which no load of the kernel touches (a
// prefetch never faults, wherever pf points). The row tiles below a
// panel's first thus bring the next panel into L2 a few rows each, spread
// over their FMAs, for that panel's first tile (see runLarge). Its tile is
// the row-major kernel's, bit for bit.
type prefetchingKernel[T float] func(k int, a *T, lda int, b *T, ldb int, c *T, ldc int, alpha, beta T, bias *T, mask *int32, flags uint, pf *T, pfStride int)

// Epilogue flags understood by every micro-kernel.
const (
	flagLoadC   uint = 1 << iota // add beta·C; without it C is written, never read
	flagBias                     // add bias[j]
	flagReLU                     // max(x, 0), NaN kept
	flagPartial                  // store only the columns enabled in mask
)

// maxNR bounds the register tile width of every kernel set (in elements).
const maxNR = 64

// edgeMasks holds maxNR enabled lanes followed by maxNR disabled ones, so that
// &edgeMasks[maxNR-n] is the mask of an n-column edge tile.
var edgeMasks = func() (m [2 * maxNR]int32) {
	for i := 0; i < maxNR; i++ {
		m[i] = -1
	}
	return
}()

// gemmKernels is one element type's GEMM machinery for one ISA level: the
// register tile, the micro-kernels for every row count, and the cache blocking.
type gemmKernels[T float] struct {
	mr, nr int
	// kmajor[r] and rowMajor[r] handle r rows (index 0 unused). rowMajor is
	// nil when the ISA has no kernel reading A in place; A is then packed.
	kmajor   []microKernel[T]
	rowMajor []microKernel[T]
	// masked reports that the kernels honour flagPartial.
	masked bool
	// packing, when not nil, is the set's packing kernel (mr rows, A
	// row-major); without it B is packed by a copy loop before its tiles.
	packing packingKernel[T]
	// prefetching, when not nil, is the set's prefetching kernel (mr rows,
	// A row-major), prefetchSteps the k steps per row it prefetches.
	prefetching   prefetchingKernel[T]
	prefetchSteps int
	// small, when not nil, is a taller and narrower tile for the small-M
	// path; its nr divides this set's nr (B is packed for this set).
	small *gemmKernels[T]
	// narrow, when not nil, is a one-vector tile for the small path's
	// products at most its nr wide (a classifier's): the small tile would
	// spend two vectors per row on them.
	narrow *gemmKernels[T]
	// kc, mc, nc: the depth of a packed block, the rows of an A block kept
	// in L2, the columns of a B block kept in L3.
	kc, mc, nc int
	// dot4, when not nil, is the four-row dot-product kernel of the single-row
	// transposed-B path (gemv.go), dotLanes its vector width.
	dot4     func(k int, x *T, b *T, ldb int, out *T)
	dotLanes int
	// axpy4, when not nil, is the four-row axpy kernel of the single-row
	// untransposed-B path (gemv.go), of the same vector width.
	axpy4 func(n int, x *T, b *T, ldb int, y *T)
	// gemvCols[nv], when not nil, is the column-block kernel of nv vectors
	// of the same path (gemv_cols.go), which it prefers to axpy4.
	gemvCols []gemvColsKernel[T]
	// kcSmall is the K block of the small-M path when it has several row
	// tiles (C is tiny there, so it could be shorter than kc; measurements
	// on Zen 5 found no gain).
	kcSmall int
	// streamedB is the size in bytes above which a prepacked B cannot stay
	// in L2 from one call to the next (the L2's size): the blocked path then
	// copies each panel on its first row tile (see runLarge).
	streamedB int
	// packedRows[w][r], when not nil, is the packed-rows kernel for r rows
	// and panels w columns wide (gemv_packed.go): w = nr, and the narrower
	// widths PackB gives the last panel, multiples of packTail.
	packedRows map[int][]packedRowsKernel[T]
	packTail   int
	jobs       jobList[T]
	rowJobs    packedRowsJobs[T]
}

// kernelTable is every kernel of one instruction-set level: all families,
// all element types. Dispatch fills one per level this CPU and build can run,
// once, at start-up (the generated kernels_tables_<arch>.go lists the
// assembly levels' entries; genericTable the pure-Go level's), and every
// kernel call reads the entries of the active one. A nil entry means the
// level has no such kernel, and the caller takes its generic path.
type kernelTable struct {
	level isaLevel
	// sgemm and dgemm are the GEMM machinery of float32 and float64.
	sgemm *gemmKernels[float32]
	dgemm *gemmKernels[float64]
	// fmaPeak is the FMA-throughput loop of FMAPeak, fmaLanes its
	// vector width in float32 lanes.
	fmaPeak  func(iters int)
	fmaLanes int
	// conv is the convolution family (conv_kernels.go).
	conv *convKernels
	// dwNarrow is the 16-bit depthwise convolution kernels
	// (conv_narrow_kernels.go); nil: the Go twins.
	dwNarrow *dwNarrowKernels
	// eltwise and reduce are the streaming families (eltwise_twin.go,
	// reduce_twin.go).
	eltwise *eltwiseKernels
	reduce  *reduceKernels
	// bf16Pairs are the AVX512_BF16 passes of a bfloat16 layer-norm's rows
	// that read their elements as even and odd halves (eltwise_rows_bf16.go);
	// nil: the reduce family's.
	bf16Pairs *bf16PairKernels
	// transpose is the strip kernel of the blocked transpose (transpose.go).
	transpose transposeKernel
	// packPairs16 builds one group row of a bfloat16 B packed in pairs
	// across its panels (lowp_pack.go); nil: the Go loop.
	packPairs16 func(dst *uint32, panelStride int, r0, r1 *uint16, nr, panels int)
	// scaleRowPanels scatters a row of convolution weights times their
	// channels' factors into every panel (conv.go, PackWeightsScaled);
	// nil: a vector multiply per panel row.
	scaleRowPanels func(dst *float32, panelStride int, src, scale *float32, nr, panels int)
	// sortU32 sorts a row of 32-bit keys in the order of a key transform
	// by a vector sort (sort_vector.go); nil: the radix passes.
	sortU32 func(row *uint32, n int, keys *uint32, m int, tab *[96]uint32)
	// bdot and idot are the dot kernels of the bfloat16 and int8 products
	// (lowp.go); bdot is nil where the level has no bfloat16 dot product
	// instruction (the products then widen to float32 and use sgemm).
	// amx, when not nil, are the AMX tile kernels.
	bdot *dotTiles
	idot *dotTiles
	amx  *amxKernels
	// s8w are the int8-weight row kernels (lowp_weights.go).
	s8w *s8wKernels
}

// transposeKernel is a transpose strip kernel and its width.
type transposeKernel struct {
	strip func(dst *float32, ldd int, src *float32, lds int, n int)
	width int
}

// features names the ISA extensions the table's kernels use, as Features
// reports them after the architecture.
func (t *kernelTable) features() string { return levelInfo[t.level].features }

// cpuState is what start-up detection found; runnable holds the kernel table
// of every level this CPU and build can run, best first; active is the one in
// use, chosen at start-up (SetISA may change it).
// (active is set by a variable initializer, not init, so that other
// package-level initializers may already use it.)
var (
	cpuState = detectCPU()
	runnable = runnableTables(cpuState)
	active   = newActive(chooseTable(cpuState.chosen))
)

// kernels returns the active level's table.
func kernels() *kernelTable { return active.Load() }

func newActive(t *kernelTable) *atomic.Pointer[kernelTable] {
	p := new(atomic.Pointer[kernelTable])
	p.Store(t)
	return p
}

// runnableTables builds the tables of the levels this CPU and build can
// run, best first, the generic one last, each with its cache blocking.
func runnableTables(info cpuInfo) []*kernelTable {
	var ts []*kernelTable
	for _, t := range archTables() {
		if info.supported[t.level] {
			ts = append(ts, t)
		}
	}
	ts = append(ts, genericTable())
	for _, t := range ts {
		setBlocking(t.sgemm, 4, info)
		setBlocking(t.dgemm, 8, info)
		t.sgemm.packTail = t.sgemm.nr
		for w := range t.sgemm.packedRows {
			t.sgemm.packTail = min(t.sgemm.packTail, w)
		}
	}
	return ts
}

// chooseTable picks the runnable table of a level, or the generic one.
func chooseTable(level isaLevel) *kernelTable {
	for _, t := range runnable {
		if t.level == level {
			return t
		}
	}
	return runnable[len(runnable)-1]
}

// derive returns a copy of the table for another level, which then replaces
// the entries that level does differently (the generated tables build the
// levels that extend a base level this way).
func (t *kernelTable) derive(level isaLevel) *kernelTable {
	c := *t
	c.level = level
	return &c
}

// ISALevels returns the names of the instruction-set levels this CPU and
// build can run, best first ("avx512", "avx2", "generic" on this kind of
// machine), as SetISA and KILN_ISA accept them.
func ISALevels() []string {
	names := make([]string, len(runnable))
	for i, t := range runnable {
		names[i] = t.level.String()
	}
	return names
}

// SetISA switches every kernel to the named level (one of ISALevels) and
// returns the previous level's name. It exists to compare levels in one
// process (benchmarks, tests); kernel calls already running finish on the
// kernels they started with. KILN_ISA does the same at start-up.
func SetISA(name string) (previous string, err error) {
	for _, t := range runnable {
		if t.level.String() == name {
			return active.Swap(t).level.String(), nil
		}
	}
	return kernels().level.String(), fmt.Errorf("kiln: SetISA: level %q is not one this CPU and build can run, want one of %s", name, strings.Join(ISALevels(), ", "))
}

// genericTable is the pure-Go level: the twins of every family.
func genericTable() *kernelTable {
	return &kernelTable{
		level:    levelGeneric,
		sgemm:    genericKernels[float32](),
		dgemm:    genericKernels[float64](),
		fmaPeak:  fmaPeakGo,
		fmaLanes: 1,
		conv:     convGo,
		eltwise:  eltwiseGo,
		reduce:   reduceGo,
	}
}

// twinKernels builds a kernel table of pure-Go twins for an mr×nr tile.
func twinKernels[T float](mr, nr int, rowMajor bool) *gemmKernels[T] {
	g := &gemmKernels[T]{mr: mr, nr: nr, masked: true}
	g.kmajor = make([]microKernel[T], mr+1)
	for r := 1; r <= mr; r++ {
		g.kmajor[r] = twinKernel[T](r, nr, false)
	}
	if rowMajor {
		g.rowMajor = make([]microKernel[T], mr+1)
		for r := 1; r <= mr; r++ {
			g.rowMajor[r] = twinKernel[T](r, nr, true)
		}
		g.packing = packingTwin(g.rowMajor[mr], nr)
		g.prefetching, g.prefetchSteps = prefetchingTwin(g.rowMajor[mr]), 4
	}
	return g
}

// setBlocking derives KC, MC and NC from the cache sizes. The kernels stream
// a KC×NR micro-panel of B from L2 (a tenth of it, leaving room for the A
// block and C), an MC×KC block of A stays in a fifth of L2, and a KC×NC block
// of B in a quarter of L3 (it is shared between cores). On Zen 5 (cpuid
// reports a 2 MiB L2 under this hypervisor) that is KC 512, MC 204: in A/B
// runs, MC 192 beat 384 and 96 by 1–2 %, KC 512 beat 384, 768 and 1024.
//
// Hypervisors report odd sizes (this code has seen a 480 MiB L3), so the
// sizes are first clamped to what real cores have.
func setBlocking[T float](g *gemmKernels[T], size int, info cpuInfo) {
	l2, l3 := clamp(info.l2, 256<<10, 2<<20), clamp(info.l3, 1<<20, 64<<20)
	kc := l2 / 10 / (g.nr * size)
	kc = clamp(kc&^63, 64, 512)
	mc := l2 / 5 / (kc * size)
	mc = clamp(mc/g.mr*g.mr, g.mr, 64*g.mr)
	nc := l3 / 4 / (kc * size)
	nc = clamp(nc/g.nr*g.nr, g.nr, 4096/g.nr*g.nr)
	g.kc, g.mc, g.nc = kc, mc, nc
	g.kcSmall = kc
	g.streamedB = l2
}

// lastPanelWidth is the width of the last panel of a B of n columns packed
// for this set by PackB: nr when n is a multiple of nr, else the columns
// left rounded up to a multiple of packTail.
func (g *gemmKernels[T]) lastPanelWidth(n int) int {
	r := n % g.nr
	if r == 0 || g.packTail == 0 {
		return g.nr
	}
	return (r + g.packTail - 1) / g.packTail * g.packTail
}

func clamp(x, lo, hi int) int {
	return max(lo, min(x, hi))
}

// Features reports the architecture and the instruction-set extensions of the
// kernel set dispatch chose, e.g. "amd64 avx512f avx2 fma", "arm64 neon" or
// "amd64 generic".
func Features() string {
	return runtime.GOARCH + " " + kernels().features()
}

// CPUReport describes what start-up detection found and chose, for `kiln cpu`.
func CPUReport() string {
	var b strings.Builder
	b.WriteString("cpu:       " + cpuState.brand + "\n")
	b.WriteString("found:     " + runtime.GOARCH + " " + strings.Join(cpuState.flags, " ") + "\n")
	b.WriteString("best:      " + cpuState.best.String() + "\n")
	if cpuState.override != "" {
		b.WriteString("KILN_ISA:  " + cpuState.override + "\n")
	}
	if cpuState.note != "" {
		b.WriteString("note:      " + cpuState.note + "\n")
	}
	set := kernels()
	b.WriteString("chosen:    " + set.level.String() + " (" + Features() + ")\n")
	b.WriteString("caches:    L1d " + kib(cpuState.l1d) + ", L2 " + kib(cpuState.l2) + ", L3 " + kib(cpuState.l3) + "\n")
	s, d := set.sgemm, set.dgemm
	b.WriteString("sgemm:     " + itoa(s.mr) + "×" + itoa(s.nr) + " tile, KC " + itoa(s.kc) + " MC " + itoa(s.mc) + " NC " + itoa(s.nc) + "\n")
	b.WriteString("dgemm:     " + itoa(d.mr) + "×" + itoa(d.nr) + " tile, KC " + itoa(d.kc) + " MC " + itoa(d.mc) + " NC " + itoa(d.nc) + "\n")
	b.WriteString("threads:   " + itoa(Threads()) + "\n")
	return b.String()
}

func kib(n int) string { return strconv.Itoa(n>>10) + " KiB" }

func itoa(n int) string { return strconv.Itoa(n) }

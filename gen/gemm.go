package main

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The GEMM family: register-blocked micro-kernels, one per (ISA, element
// type, row count, A layout), all with the root package's microKernel
// signature and epilogue flags. See the root package's dispatch.go.

// Epilogue flags; they must equal the root package's flag constants, which
// the generated tables file asserts at compile time.
const (
	flagLoadC   = 1
	flagBias    = 2
	flagReLU    = 4
	flagPartial = 8
)

// gemmTile parameterises one kernel family member: the vector level, the
// element type, the register tile (mr rows broadcast from A, nr columns of
// B held in vectors) and how many k steps one loop iteration unrolls.
type gemmTile struct {
	v      vecArch
	e      elemType
	mr, nr int
	unroll int
	// rowMajor also emits kernels reading A in place, row by row.
	rowMajor bool
	// embedded uses FMAs with an embedded broadcast of A (AVX-512) instead
	// of a broadcast into a register followed by register FMAs.
	embedded bool
	// small marks a tile used only by the small-M path (setName "…SmallKernels").
	small bool
	// narrow marks a one-vector tile for products at most a vector wide.
	narrow bool
	// prefetch is how many k steps ahead the loop prefetches A and B into L1
	// (0: none); C is prefetched before the loop either way.
	prefetch int
	// packing also emits the full-tile row-major kernel that copies the
	// panel of B it reads into a packed panel (see packingPrefetch), and
	// the one that prefetches the next panel into L2 (see kernelMode).
	packing bool
}

// packingPrefetch is how many k steps ahead a packing kernel prefetches B:
// it reads B where it lies, rows far apart in memory that the hardware
// prefetchers do not follow, so the loads of each row are issued about a
// memory latency (a few hundred cycles, 12 per k step of a 6×64 tile)
// before the FMAs need them.
const packingPrefetch = 32

// gemmAMD64 lists the amd64 tiles: AVX-512 uses 28 of its 32 zmm registers
// as accumulators (14 rows × 2 vectors), AVX2 12 of its 16 ymm (6 × 2).
var gemmAMD64 = []gemmTile{
	{v: avx512, e: f32, mr: 6, nr: 64, unroll: 4, rowMajor: true, packing: true},
	// The small-M tile: 14 rows in one pass, so B streams from memory once
	// for up to 14 rows instead of once per 6.
	{v: avx512, e: f32, mr: 14, nr: 32, unroll: 4, rowMajor: true, prefetch: 16, small: true},
	// The narrow tile, for products at most 16 columns wide (a classifier's):
	// one vector per row instead of the small tile's two. 12 rows: A's rows
	// are read where they lie, and rows a power of two apart fall in one
	// set of the 12-way L1; 20 and 28 rows measured slower than the small
	// tile at 256×16×1024, 12 rows 1.4–1.7× faster than it on 8–256 rows.
	{v: avx512, e: f32, mr: 12, nr: 16, unroll: 4, rowMajor: true, prefetch: 16, narrow: true},
	{v: avx2, e: f32, mr: 6, nr: 16, unroll: 4, rowMajor: true, packing: true},
	{v: avx512, e: f64, mr: 6, nr: 32, unroll: 4, rowMajor: true, prefetch: 16},
	{v: avx2, e: f64, mr: 6, nr: 8, unroll: 4, rowMajor: true},
}

func (t gemmTile) kernelName(rows int, rowMajor bool) string {
	mode := "KMajor"
	if rowMajor {
		mode = "RowMajor"
	}
	return fmt.Sprintf("%sgemm%s%s%dx%d", t.e.prefix, t.v.name, mode, rows, t.nr)
}

// packingName is the name of the tile's packing kernel (full rows, A row-major).
func (t gemmTile) packingName() string {
	return fmt.Sprintf("%sgemm%sRowMajorPacking%dx%d", t.e.prefix, t.v.name, t.mr, t.nr)
}

// prefetchingName is the name of the tile's prefetching kernel (full rows,
// A row-major).
func (t gemmTile) prefetchingName() string {
	return fmt.Sprintf("%sgemm%sRowMajorPrefetching%dx%d", t.e.prefix, t.v.name, t.mr, t.nr)
}

// kernelMode is what a micro-kernel does beside its tile: nothing, copy
// the panel of B it reads (packing), or prefetch into L2 one row of another
// panel per group of unrolled k steps (prefetching): the row tiles of a
// panel spread the next panel's trip from L3 or memory over their FMAs,
// where the panel's first row tile, which packs it, would otherwise wait
// on it alone.
type kernelMode int

const (
	plainKernel kernelMode = iota
	packingKernel
	prefetchingKernel
)

func (t gemmTile) setName() string {
	if t.small {
		return fmt.Sprintf("%sgemm%sSmallKernels", t.e.prefix, t.v.name)
	}
	if t.narrow {
		return fmt.Sprintf("%sgemm%sNarrowKernels", t.e.prefix, t.v.name)
	}
	return fmt.Sprintf("%sgemm%sKernels", t.e.prefix, t.v.name)
}

func generateGEMM(o *output) error {
	f := o.amd64
	for _, t := range gemmAMD64 {
		for rows := 1; rows <= t.mr; rows++ {
			emitGEMMKernel(f, t, rows, false, plainKernel)
			if t.rowMajor {
				emitGEMMKernel(f, t, rows, true, plainKernel)
			}
		}
		if t.packing {
			emitGEMMKernel(f, t, t.mr, true, packingKernel)
			emitGEMMKernel(f, t, t.mr, true, prefetchingKernel)
		}
	}
	for _, v := range []vecArch{avx512, avx2} {
		o.set(v.level, "fmaPeak", emitPeakAMD64(f, v))
		o.set(v.level, "fmaLanes", fmt.Sprint(v.lanes(f32)))
	}
	dots := map[string]string{"levelAVX512": emitDot4(f, avx512), "levelAVX2": emitDot4(f, avx2)}
	axpys := map[string]string{"levelAVX512": emitAxpy4(f, avx512), "levelAVX2": emitAxpy4(f, avx2)}
	lanes := map[string]int{"levelAVX512": avx512.lanes(f32), "levelAVX2": avx2.lanes(f32)}
	cols := map[string][]string{}
	for nv := 1; nv <= gemvColsMax; nv++ {
		cols[avx512.level] = append(cols[avx512.level], emitGemvCols(f, avx512, nv))
	}
	packedRows := map[string][]packedRowsWidth{}
	for _, t := range gemmAMD64 {
		if t.e.goType != "float32" || t.small || t.narrow {
			continue
		}
		for _, nr := range gemvPackedWidths(t.nr, t.v.lanes(f32)) {
			w := packedRowsWidth{width: nr}
			for rows := 1; rows <= gemvPackedRows; rows++ {
				w.names = append(w.names, emitGemvPacked(f, t.v, nr, rows))
			}
			packedRows[t.v.level] = append(packedRows[t.v.level], w)
		}
	}
	// The table entries: each level's float32 and float64 tiles, the small-M
	// tile and the single-row kernels hanging off the float32 one.
	for _, v := range []vecArch{avx512, avx2} {
		for _, e := range []elemType{f32, f64} {
			var main, small, narrow *gemmTile
			for i := range gemmAMD64 {
				t := &gemmAMD64[i]
				if t.v.name != v.name || t.e.goType != e.goType {
					continue
				}
				if t.small {
					small = t
				} else if t.narrow {
					narrow = t
				} else {
					main = t
				}
			}
			te := gemmAMD64Entry(*main)
			if small != nil {
				s := gemmAMD64Entry(*small)
				te.small = &s
			}
			if narrow != nil {
				s := gemmAMD64Entry(*narrow)
				te.narrow = &s
			}
			if e.goType == "float32" {
				te.dot4, te.dotLanes, te.axpy4 = dots[v.level], lanes[v.level], axpys[v.level]
				te.gemvCols = cols[v.level]
				te.packedRows = packedRows[v.level]
			}
			o.set(v.level, e.prefix+"gemm", te.expr())
		}
	}
	return generateGEMMARM64(o)
}

// gemmEntry is one level's GEMM machinery for one element type, as the
// tables file lists it (the root package's gemmKernels).
type gemmEntry struct {
	goType   string
	mr, nr   int
	kmajor   []string
	rowMajor []string
	masked   bool
	small    *gemmEntry
	narrow   *gemmEntry
	// packing and prefetching are the packing and prefetching kernels, or
	// "" (see gemmTile.packing); prefetchSteps is the k steps per row the
	// prefetching kernel prefetches.
	packing, prefetching string
	prefetchSteps        int
	// the single-row kernels (float32 only)
	dot4, axpy4 string
	dotLanes    int
	gemvCols    []string          // by vector count, from one
	packedRows  []packedRowsWidth // widest first
}

// packedRowsWidth is the packed-rows kernels for panels of one width, by row count.
type packedRowsWidth struct {
	width int
	names []string
}

func gemmAMD64Entry(t gemmTile) gemmEntry {
	te := gemmEntry{goType: t.e.goType, mr: t.mr, nr: t.nr, masked: true}
	if t.packing {
		te.packing, te.prefetching, te.prefetchSteps = t.packingName(), t.prefetchingName(), t.unroll
	}
	for rows := 1; rows <= t.mr; rows++ {
		te.kmajor = append(te.kmajor, t.kernelName(rows, false))
		if t.rowMajor {
			te.rowMajor = append(te.rowMajor, t.kernelName(rows, true))
		}
	}
	return te
}

// expr is the Go expression of the entry.
func (t gemmEntry) expr() string {
	var b strings.Builder
	fmt.Fprintf(&b, "&gemmKernels[%s]{\n", t.goType)
	fmt.Fprintf(&b, "mr: %d, nr: %d, masked: %v,\n", t.mr, t.nr, t.masked)
	kernels := fmt.Sprintf("[]microKernel[%s]", t.goType)
	fmt.Fprintf(&b, "kmajor: %s,\n", goList(kernels, true, t.kmajor))
	if t.rowMajor != nil {
		fmt.Fprintf(&b, "rowMajor: %s,\n", goList(kernels, true, t.rowMajor))
	}
	if t.small != nil {
		fmt.Fprintf(&b, "small: %s,\n", t.small.expr())
	}
	if t.narrow != nil {
		fmt.Fprintf(&b, "narrow: %s,\n", t.narrow.expr())
	}
	if t.packing != "" {
		fmt.Fprintf(&b, "packing: %s,\n", t.packing)
	}
	if t.prefetching != "" {
		fmt.Fprintf(&b, "prefetching: %s, prefetchSteps: %d,\n", t.prefetching, t.prefetchSteps)
	}
	if t.dot4 != "" {
		fmt.Fprintf(&b, "dot4: %s, dotLanes: %d,\n", t.dot4, t.dotLanes)
	}
	if t.axpy4 != "" {
		fmt.Fprintf(&b, "axpy4: %s,\n", t.axpy4)
	}
	if t.gemvCols != nil {
		fmt.Fprintf(&b, "gemvCols: %s,\n", goList(fmt.Sprintf("[]gemvColsKernel[%s]", t.goType), true, t.gemvCols))
	}
	if t.packedRows != nil {
		fmt.Fprintf(&b, "packedRows: map[int][]packedRowsKernel[%s]{\n", t.goType)
		for _, w := range t.packedRows {
			fmt.Fprintf(&b, "%d: %s,\n", w.width, goList("", true, w.names))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}")
	return b.String()
}

// rowAddress is how a row-major kernel addresses row i of A: from one of a
// few base registers, plus lda or 3·lda scaled by 1, 2, 4 or 8.
type rowAddress struct {
	base  int // index into the bases
	index int // 0: none, 1: lda, 3: 3·lda
	scale uint8
}

// planRows covers rows 0..rows-1 with as few base registers as possible.
func planRows(rows int) (bases []int, addrs []rowAddress) {
	reach := func(d int) (int, uint8, bool) {
		switch d {
		case 0:
			return 0, 1, true
		case 1, 2, 4, 8:
			return 1, uint8(d), true
		case 3, 6, 12, 24:
			return 3, uint8(d / 3), true
		}
		return 0, 0, false
	}
	for i := 0; i < rows; i++ {
		found := false
		for bi, b := range bases {
			if idx, sc, ok := reach(i - b); ok {
				addrs = append(addrs, rowAddress{bi, idx, sc})
				found = true
				break
			}
		}
		if !found {
			bases = append(bases, i)
			addrs = append(addrs, rowAddress{len(bases) - 1, 0, 1})
		}
	}
	return bases, addrs
}

// emitGEMMKernel writes one micro-kernel: rows×nr accumulators in registers,
// a k loop unrolled t.unroll times, and the epilogue of the flags. A packing
// kernel also stores each row of B it loads into dst, nr elements a row, and
// prefetches B packingPrefetch rows ahead. A prefetching kernel also
// prefetches into L2 the nr elements at pf after each group of unrolled
// steps (not in the remainder), advancing pf by pfStride elements.
func emitGEMMKernel(f *amd64File, t gemmTile, rows int, rowMajor bool, mode kernelMode) {
	packing, prefetching := mode == packingKernel, mode == prefetchingKernel
	v, e := t.v, t.e
	lanes := v.lanes(e)
	nv := t.nr / lanes
	nacc := rows * nv
	if t.mr*nv+nv+1 > v.regs || v.regs-t.mr*nv < 4 {
		panic(fmt.Sprintf("%s: a %d×%d tile does not fit %d registers", v.name, t.mr, t.nr, v.regs))
	}
	name := t.kernelName(rows, rowMajor)
	sig := "func(k int, a *%[1]s, lda int, b *%[1]s, ldb int, c *%[1]s, ldc int, alpha, beta %[1]s, bias *%[1]s, mask *int32, flags uint)"
	switch mode {
	case packingKernel:
		name = t.packingName()
		sig = "func(k int, a *%[1]s, lda int, b *%[1]s, ldb int, c *%[1]s, ldc int, alpha, beta %[1]s, bias *%[1]s, mask *int32, flags uint, dst *%[1]s)"
	case prefetchingKernel:
		name = t.prefetchingName()
		sig = "func(k int, a *%[1]s, lda int, b *%[1]s, ldb int, c *%[1]s, ldc int, alpha, beta %[1]s, bias *%[1]s, mask *int32, flags uint, pf *%[1]s, pfStride int)"
	}
	f.leafFunction(name, fmt.Sprintf(sig, e.goType))
	layout := "A(i,p) = a[p*lda+i]"
	if rowMajor {
		layout = "A(i,p) = a[i*lda+p]"
	}
	switch mode {
	case packingKernel:
		f.Doc(fmt.Sprintf("%s computes a %d×%d tile of C with %s, %s, and copies the k×%d panel of B it reads to dst; see packingKernel.", name, rows, t.nr, v.name, layout, t.nr))
	case prefetchingKernel:
		f.Doc(fmt.Sprintf("%s computes a %d×%d tile of C with %s, %s, and prefetches into L2 a row of %d elements at pf, pfStride apart, per %d k steps; see prefetchingKernel.", name, rows, t.nr, v.name, layout, t.nr, t.unroll))
	default:
		f.Doc(fmt.Sprintf("%s computes a %d×%d tile of C with %s, %s; see microKernel.", name, rows, t.nr, v.name, layout))
	}

	acc := func(i, j int) reg.VecPhysical { return v.vec(i*nv + j) }
	bReg := func(j int) reg.VecPhysical { return v.vec(nacc + j) }
	// With every accumulator of the full tile in use there may be room for
	// only one broadcast register; smaller tiles alternate between two.
	aRegs := []reg.VecPhysical{v.vec(nacc + nv)}
	if nacc+nv+1 < v.regs {
		aRegs = append(aRegs, v.vec(nacc+nv+1))
	}

	k := f.Load(f.Param("k"), f.GP64())
	a := f.Load(f.Param("a"), f.GP64())
	lda := loadStride(f, "lda", e)
	b := f.Load(f.Param("b"), f.GP64())
	ldb := loadStride(f, "ldb", e)

	prefetch := t.prefetch
	var dst reg.Register
	if packing {
		prefetch = packingPrefetch
		dst = f.Load(f.Param("dst"), f.GP64())
	}
	var pf, pfStride reg.Register
	if prefetching {
		pf = f.Load(f.Param("pf"), f.GP64())
		pfStride = loadStride(f, "pfStride", e)
	}
	var pfA, pfB reg.GPVirtual
	if prefetch > 0 {
		pfB = f.GP64()
		f.IMUL3Q(imm(prefetch), ldb, pfB)
		if !rowMajor {
			pfA = f.GP64()
			f.IMUL3Q(imm(prefetch), lda, pfA)
		}
	}
	// Prefetch the C tile so the epilogue does not wait for it.
	{
		c := f.Load(f.Param("c"), f.GP64())
		ldc := loadStride(f, "ldc", e)
		for i := 0; i < rows; i++ {
			for off := 0; off < t.nr*e.size; off += 64 {
				f.PREFETCHT0(mem(c, off))
			}
			if i+1 < rows {
				f.ADDQ(ldc, c)
			}
		}
	}

	// Row-major A: base registers and 3·lda.
	var bases []reg.GPVirtual
	var addrs []rowAddress
	var lda3 reg.GPVirtual
	if rowMajor {
		var baseRows []int
		baseRows, addrs = planRows(rows)
		for _, r := range baseRows {
			bp := f.GP64()
			if r == 0 {
				f.MOVQ(a, bp)
			} else {
				f.IMUL3Q(imm(r), lda, bp)
				f.ADDQ(a, bp)
			}
			bases = append(bases, bp)
		}
		if rows > 3 {
			lda3 = f.GP64()
			f.LEAQ(memIdx(lda, lda, 2, 0), lda3)
		}
	}
	aMem := func(i, u int) operand.Mem {
		if !rowMajor {
			return mem(a, i*e.size)
		}
		ad := addrs[i]
		m := mem(bases[ad.base], u*e.size)
		switch ad.index {
		case 1:
			m.Index, m.Scale = lda, ad.scale
		case 3:
			m.Index, m.Scale = lda3, ad.scale
		}
		return m
	}

	for i := 0; i < nacc; i++ {
		r := v.vec(i)
		if v.kmask {
			f.VPXORD(r, r, r)
		} else {
			f.VXORPS(r, r, r)
		}
	}

	// step emits one k step (u-th of an unrolled group).
	step := func(u int) {
		for j := 0; j < nv; j++ {
			f.VMOVUPS(mem(b, j*v.bytes), bReg(j))
			if packing {
				f.VMOVUPS(bReg(j), mem(dst, u*t.nr*e.size+j*v.bytes))
			}
		}
		if prefetch > 0 {
			for off := 0; off < t.nr*e.size; off += 64 {
				f.PREFETCHT0(memIdx(b, pfB, 1, off))
			}
			if !rowMajor && u%2 == 0 {
				f.PREFETCHT0(memIdx(a, pfA, 1, 0))
			}
		}
		for i := 0; i < rows; i++ {
			if t.embedded {
				for j := 0; j < nv; j++ {
					e.fmaBcast(f.Context, aMem(i, u), bReg(j), acc(i, j))
				}
				continue
			}
			ar := aRegs[i%len(aRegs)]
			e.bcast(f.Context, aMem(i, u), ar)
			for j := 0; j < nv; j++ {
				e.fma(f.Context, bReg(j), ar, acc(i, j))
			}
		}
		if !rowMajor {
			f.ADDQ(lda, a)
		}
		f.ADDQ(ldb, b)
	}
	advanceRows := func(steps int) {
		for _, bp := range bases {
			f.ADDQ(imm(steps*e.size), bp)
		}
	}

	emitStepLoop(f, k, t.unroll, step, func(n int) {
		if rowMajor {
			advanceRows(n)
		}
		if packing {
			f.ADDQ(operand.U32(n*t.nr*e.size), dst)
		}
		if prefetching && n == t.unroll {
			for off := 0; off < t.nr*e.size; off += 64 {
				f.PREFETCHT1(mem(pf, off))
			}
			f.ADDQ(pfStride, pf)
		}
	}, "epilogue")

	f.Label("epilogue")
	emitGEMMEpilogue(f, t, rows, nv, acc)
}

// emitGEMMEpilogue scales the accumulators by alpha, then applies the
// flags' beta·C, bias and ReLU, and stores the tile (masked when partial).
func emitGEMMEpilogue(f *amd64File, t gemmTile, rows, nv int, acc func(i, j int) reg.VecPhysical) {
	v, e := t.v, t.e
	nacc := rows * nv
	free := func(i int) reg.VecPhysical { return v.vec(t.mr*nv + i) }
	alpha, beta := free(0), free(1)
	c := f.Load(f.Param("c"), f.GP64())
	ldc := loadStride(f, "ldc", e)
	flags := f.Load(f.Param("flags"), f.GP64())
	alphaAddr, _ := f.Param("alpha").Resolve()
	betaAddr, _ := f.Param("beta").Resolve()

	e.bcast(f.Context, alphaAddr.Addr, alpha)
	for i := 0; i < nacc; i++ {
		e.mul(f.Context, alpha, v.vec(i), v.vec(i))
	}
	rowsLoop := func(body func(i int, crow reg.Register)) {
		crow := f.GP64()
		f.MOVQ(c, crow)
		for i := 0; i < rows; i++ {
			body(i, crow)
			if i+1 < rows {
				f.ADDQ(ldc, crow)
			}
		}
	}
	flagTest := func(flag int, skip string) {
		f.TESTQ(operand.U32(flag), flags)
		f.JZ(operand.LabelRef(skip))
	}
	relu := func(zero reg.VecPhysical) {
		if v.kmask {
			f.VPXORD(zero, zero, zero)
		} else {
			f.VXORPS(zero, zero, zero)
		}
		for i := 0; i < nacc; i++ {
			// Go operand order: VMAXPS src2, src1, dst; x86 returns src2 when
			// either is NaN, so acc as src2 keeps NaN.
			e.max(f.Context, v.vec(i), zero, v.vec(i))
		}
	}

	if v.kmask {
		// Opmasks: all lanes, or the partial tile's prefix.
		f.TESTQ(operand.U32(flagPartial), flags)
		f.JNZ(operand.LabelRef("partialmask"))
		for j := 0; j < nv; j++ {
			f.KXNORW(opmasks[j], opmasks[j], opmasks[j])
		}
		f.JMP(operand.LabelRef("maskdone"))
		f.Label("partialmask")
		m := f.Load(f.Param("mask"), f.GP64())
		loadMask(f, v, e, m, nv, nil, t.mr*nv+2)
		f.Label("maskdone")

		flagTest(flagLoadC, "nobeta")
		e.bcast(f.Context, betaAddr.Addr, beta)
		rowsLoop(func(i int, crow reg.Register) {
			for j := 0; j < nv; j++ {
				e.fmaZ(f.Context, mem(crow, j*v.bytes), beta, opmasks[j], acc(i, j))
			}
		})
		f.Label("nobeta")
		flagTest(flagBias, "nobias")
		bias := f.Load(f.Param("bias"), f.GP64())
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				e.addZ(f.Context, mem(bias, j*v.bytes), acc(i, j), opmasks[j], acc(i, j))
			}
		}
		f.Label("nobias")
		flagTest(flagReLU, "norelu")
		relu(free(3))
		f.Label("norelu")
		rowsLoop(func(i int, crow reg.Register) {
			for j := 0; j < nv; j++ {
				e.movu(f.Context, acc(i, j), opmasks[j], mem(crow, j*v.bytes))
			}
		})
		f.VZEROUPPER()
		f.RET()
		return
	}

	// AVX2: a full tile uses memory operands; a partial one VMASKMOV.
	f.TESTQ(operand.U32(flagPartial), flags)
	f.JNZ(operand.LabelRef("partial"))
	for _, partial := range []bool{false, true} {
		sfx := ""
		var masks []reg.VecPhysical
		tmp := alpha // free once the tile is scaled
		if partial {
			sfx = "p"
			f.Label("partial")
			masks = []reg.VecPhysical{free(2), free(3)}[:nv]
			m := f.Load(f.Param("mask"), f.GP64())
			loadMask(f, v, e, m, nv, masks, 0)
		}
		flagTest(flagLoadC, "nobeta"+sfx)
		e.bcast(f.Context, betaAddr.Addr, beta)
		rowsLoop(func(i int, crow reg.Register) {
			for j := 0; j < nv; j++ {
				if partial {
					e.maskmov(f.Context, mem(crow, j*v.bytes), masks[j], tmp)
					e.fma(f.Context, tmp, beta, acc(i, j))
				} else {
					e.fma(f.Context, mem(crow, j*v.bytes), beta, acc(i, j))
				}
			}
		})
		f.Label("nobeta" + sfx)
		flagTest(flagBias, "nobias"+sfx)
		bias := f.Load(f.Param("bias"), f.GP64())
		for j := 0; j < nv; j++ {
			src := operand.Op(mem(bias, j*v.bytes))
			if partial {
				e.maskmov(f.Context, mem(bias, j*v.bytes), masks[j], tmp)
				src = tmp
			}
			for i := 0; i < rows; i++ {
				e.add(f.Context, src, acc(i, j), acc(i, j))
			}
		}
		f.Label("nobias" + sfx)
		flagTest(flagReLU, "norelu"+sfx)
		relu(beta)
		f.Label("norelu" + sfx)
		rowsLoop(func(i int, crow reg.Register) {
			for j := 0; j < nv; j++ {
				if partial {
					e.maskmov(f.Context, acc(i, j), masks[j], mem(crow, j*v.bytes))
				} else {
					f.VMOVUPS(acc(i, j), mem(crow, j*v.bytes))
				}
			}
		})
		f.VZEROUPPER()
		f.RET()
	}
}

// loadStride loads the int parameter name, a stride in elements of e,
// into a register as bytes.
func loadStride(f *amd64File, name string, e elemType) reg.Register {
	r := f.Load(f.Param(name), f.GP64())
	f.SHLQ(operand.Imm(e.shift), r)
	return r
}

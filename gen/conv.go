package main

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The convolution family: the micro-kernels of the implicit-GEMM convolution
// and of the direct depthwise convolution, with the root package's
// convKernel and dwKernel signatures (conv_kernels.go).
//
// An implicit-GEMM kernel computes a rows×nr tile of the output: rows output
// pixels, each A row read in place from the NHWC input at a + (aoff+t.a)
// + i*lda for every tap t of a table, nr output channels of the packed
// weights at b + t.b with rows ldb apart, accumulated in registers over all
// the taps before one store. A depthwise kernel does the same with an
// elementwise product over channels instead of an outer product.

// flagResidual asks a convolution kernel to add res(i, j) = res[i*ldc+j]
// before the bias; it must equal the root package's constant.
const flagResidual = 16

// convTile parameterises one implicit-GEMM kernel family member.
type convTile struct {
	v      vecArch
	mr, nr int // most rows, tile width in float32 elements
	unroll int
	// embedded uses FMAs with an embedded broadcast of A, which frees the
	// broadcast registers for a wider tile.
	embedded bool
}

// dwTile parameterises one depthwise kernel family member: up to mr output
// pixels of nv vectors of channels.
type dwTile struct {
	v      vecArch
	mr, nv int
}

// convAMD64 lists the implicit-GEMM tiles, widest first per level. The
// AVX-512 ones keep 28 of the 32 zmm registers as accumulators.
var convAMD64 = []convTile{
	{v: avx512, mr: 6, nr: 64, unroll: 4},
	{v: avx512, mr: 14, nr: 32, unroll: 4},
	{v: avx512, mr: 14, nr: 16, unroll: 4},
	{v: avx2, mr: 6, nr: 16, unroll: 4},
	{v: avx2, mr: 12, nr: 8, unroll: 4},
}

var dwAMD64 = []dwTile{
	{v: avx512, mr: 12, nv: 2},
	{v: avx512, mr: 14, nv: 1},
	{v: avx2, mr: 6, nv: 2},
	{v: avx2, mr: 12, nv: 1},
}

// dwRowTile parameterises a depthwise kernel for a row of k horizontal taps
// at unit stride: each input vector is loaded once and multiplied by the
// weights of every tap that reads it (up to k output pixels), instead of
// once per tap; 512-bit FMAs with a memory operand run at two thirds of
// the peak on Zen 5, a load per FMA at less.
type dwRowTile struct {
	v         vecArch
	k, mr, nv int
}

// dwRowAMD64: accumulators, k·nv weights and nv input vectors in registers.
var dwRowAMD64 = []dwRowTile{
	{v: avx512, k: 3, mr: 12, nv: 2},
	{v: avx512, k: 3, mr: 14, nv: 1},
	{v: avx512, k: 5, mr: 10, nv: 2},
	{v: avx512, k: 5, mr: 14, nv: 1},
	{v: avx512, k: 7, mr: 8, nv: 2},
	{v: avx512, k: 7, mr: 14, nv: 1},
	{v: avx2, k: 3, mr: 3, nv: 2},
	{v: avx2, k: 3, mr: 11, nv: 1},
	{v: avx2, k: 5, mr: 9, nv: 1},
}

func (t dwRowTile) kernelName(rows int) string {
	return fmt.Sprintf("sdepthwise%sRow%dPixels%dx%d", t.v.name, t.k, rows, t.nv*t.v.lanes(f32))
}

func (t convTile) kernelName(rows int) string {
	return fmt.Sprintf("sconv%sTaps%dx%d", t.v.name, rows, t.nr)
}

func (t dwTile) kernelName(rows int) string {
	return fmt.Sprintf("sdepthwise%sPixels%dx%d", t.v.name, rows, t.nv*t.v.lanes(f32))
}

const convSignature = "func(n int, taps int, tab *int, a *float32, aoff int, lda int, b *float32, ldb int, kc int, pf *float32, c *float32, ldc int, res *float32, bias *float32, mask *int32, flags uint)"

const dwSignature = "func(n int, taps int, tab *int, a *float32, aoff int, lda int, w *float32, c *float32, ldc int, res *float32, bias *float32, mask *int32, flags uint)"

func generateConv(o *output) error {
	f := o.amd64
	for _, t := range convAMD64 {
		for rows := 1; rows <= t.mr; rows++ {
			emitConvKernel(f, t, rows)
		}
	}
	for _, t := range dwAMD64 {
		for rows := 1; rows <= t.mr; rows++ {
			emitDepthwiseKernel(f, t, rows)
		}
	}
	for _, t := range dwRowAMD64 {
		for rows := 1; rows <= t.mr; rows++ {
			emitDepthwiseRowKernel(f, t, rows)
		}
	}
	for _, v := range []vecArch{avx512, avx2} {
		l := convLevel{lanes: v.lanes(f32), masked: true}
		for _, t := range convAMD64 {
			if t.v.name == v.name {
				l.gemm = append(l.gemm, convTable{width: t.nr, names: kernelNames(t.mr, t.kernelName)})
			}
		}
		for _, t := range dwAMD64 {
			if t.v.name == v.name {
				l.dw = append(l.dw, convTable{width: t.nv, names: kernelNames(t.mr, t.kernelName)})
			}
		}
		for _, t := range dwRowAMD64 {
			if t.v.name == v.name {
				l.dwRow = append(l.dwRow, convTable{k: t.k, width: t.nv, names: kernelNames(t.mr, t.kernelName)})
			}
		}
		o.set(v.level, "conv", l.expr())
	}
	return generateConvARM64(o)
}

func kernelNames(mr int, name func(rows int) string) []string {
	names := make([]string, mr)
	for r := 1; r <= mr; r++ {
		names[r-1] = name(r)
	}
	return names
}

// convLevel is what the tables list for one ISA level.
type convLevel struct {
	lanes  int
	masked bool
	gemm   []convTable // width: tile width in elements
	dw     []convTable // width: vectors per pixel
	dwRow  []convTable // width: vectors per pixel; k: taps per row
}

type convTable struct {
	k     int
	width int
	names []string // by row count, from 1
}

// expr is the Go expression of a level's convolution kernels.
func (l convLevel) expr() string {
	var b strings.Builder
	fmt.Fprintf(&b, "&convKernels{\nlanes: %d, masked: %v,\n", l.lanes, l.masked)
	b.WriteString("gemm: []convTiles{\n")
	for _, t := range l.gemm {
		fmt.Fprintf(&b, "{nr: %d, rows: %s},\n", t.width, goList("[]convKernel", true, t.names))
	}
	b.WriteString("},\ndw: []dwTiles{\n")
	for _, t := range l.dw {
		fmt.Fprintf(&b, "{vecs: %d, rows: %s},\n", t.width, goList("[]dwKernel", true, t.names))
	}
	b.WriteString("},\n")
	if l.dwRow != nil {
		b.WriteString("dwRow: []dwRowTiles{\n")
		for _, t := range l.dwRow {
			fmt.Fprintf(&b, "{k: %d, vecs: %d, rows: %s},\n", t.k, t.width, goList("[]dwKernel", true, t.names))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}")
	return b.String()
}

// rowBases sets up the base registers of planRows for rows rows of stride
// lda (bytes) starting at base0, and returns the operand of row i at byte
// displacement disp. base0 is the first base register.
type rowBases struct {
	bases []reg.Register
	rows  []int // the row each base starts at
	addrs []rowAddress
	lda   reg.Register
	lda3  reg.Register
}

func newRowBases(f *amd64File, rows int, lda reg.Register) *rowBases {
	rb := &rowBases{lda: lda}
	rb.rows, rb.addrs = planRows(rows)
	for range rb.rows {
		rb.bases = append(rb.bases, f.GP64())
	}
	if rows > 3 {
		rb.lda3 = f.GP64()
		f.LEAQ(memIdx(lda, lda, 2, 0), rb.lda3)
	}
	return rb
}

// set points every base at its row, given the first row's address in bases[0].
func (rb *rowBases) set(f *amd64File) {
	for i, r := range rb.rows {
		if i == 0 {
			continue
		}
		f.IMUL3Q(imm(r), rb.lda, rb.bases[i])
		f.ADDQ(rb.bases[0], rb.bases[i])
	}
}

func (rb *rowBases) at(i, disp int) operand.Mem {
	ad := rb.addrs[i]
	m := mem(rb.bases[ad.base], disp)
	switch ad.index {
	case 1:
		m.Index, m.Scale = rb.lda, ad.scale
	case 3:
		m.Index, m.Scale = rb.lda3, ad.scale
	}
	return m
}

func (rb *rowBases) advance(f *amd64File, bytes int) {
	for _, b := range rb.bases {
		f.ADDQ(imm(bytes), b)
	}
}

// emitConvKernel writes one implicit-GEMM kernel: rows×nr accumulators, a
// loop over the taps of the table, and in it the k loop over kc elements.
func emitConvKernel(f *amd64File, t convTile, rows int) {
	v, e := t.v, f32
	lanes := v.lanes(e)
	nv := t.nr / lanes
	nacc := rows * nv
	nb := 2
	if t.embedded {
		nb = 0
	}
	if t.mr*nv+nv+nb > v.regs {
		panic(fmt.Sprintf("%s: a %d×%d conv tile does not fit %d registers", v.name, t.mr, t.nr, v.regs))
	}
	name := t.kernelName(rows)
	f.leafFunction(name, convSignature, fmt.Sprintf("%s computes n %d×%d convolution tiles with %s over a table of taps; see convKernel.", name, rows, t.nr, v.name))
	// a points at the tile's first pixel (its virtual position), in a
	// register across the tiles of the call.
	a := f.Load(f.Param("a"), f.GP64())
	{
		aoff := f.Load(f.Param("aoff"), f.GP64())
		f.LEAQ(memIdx(a, aoff, 4, 0), a)
	}
	f.Label("top")

	acc := func(i, j int) reg.VecPhysical { return v.vec(i*nv + j) }
	bReg := func(j int) reg.VecPhysical { return v.vec(nacc + j) }
	var aRegs []reg.VecPhysical
	if !t.embedded {
		aRegs = []reg.VecPhysical{v.vec(nacc + nv)}
		if nacc+nv+1 < v.regs {
			aRegs = append(aRegs, v.vec(nacc+nv+1))
		}
	}

	taps := f.Load(f.Param("taps"), f.GP64())
	tab := f.Load(f.Param("tab"), f.GP64())
	lda := f.Load(f.Param("lda"), f.GP64())
	f.SHLQ(operand.Imm(2), lda)
	b := f.Load(f.Param("b"), f.GP64())
	ldb := f.Load(f.Param("ldb"), f.GP64())
	f.SHLQ(operand.Imm(2), ldb)
	kc := f.Load(f.Param("kc"), f.GP64())
	rb := newRowBases(f, rows, lda)
	bp, k := f.GP64(), f.GP64()
	// pf, when not nil, is where the weights of the driver's next block
	// start: one line of them is prefetched into L2 per k step, so that
	// they stream in from L3 while this block is computed.
	pf := f.Load(f.Param("pf"), f.GP64())

	for i := 0; i < nacc; i++ {
		r := v.vec(i)
		if v.kmask {
			f.VPXORD(r, r, r)
		} else {
			f.VXORPS(r, r, r)
		}
	}
	f.TESTQ(taps, taps)
	f.JE(operand.LabelRef("epilogue"))

	step := func(u int, prefetch bool) {
		for j := 0; j < nv; j++ {
			f.VMOVUPS(mem(bp, j*v.bytes), bReg(j))
		}
		if prefetch {
			f.PREFETCHT1(mem(pf, 0))
			f.ADDQ(imm(64), pf)
		}
		for i := 0; i < rows; i++ {
			if t.embedded {
				for j := 0; j < nv; j++ {
					e.fmaBcast(f.Context, rb.at(i, u*e.size), bReg(j), acc(i, j))
				}
				continue
			}
			ar := aRegs[i%len(aRegs)]
			e.bcast(f.Context, rb.at(i, u*e.size), ar)
			for j := 0; j < nv; j++ {
				e.fma(f.Context, bReg(j), ar, acc(i, j))
			}
		}
		f.ADDQ(ldb, bp)
	}

	tapLoop := func(sfx string, prefetch bool) {
		f.Label("tap" + sfx)
		f.MOVQ(mem(tab, 0), rb.bases[0])
		f.LEAQ(memIdx(a, rb.bases[0], 4, 0), rb.bases[0])
		rb.set(f)
		f.MOVQ(mem(tab, 8), bp)
		f.LEAQ(memIdx(b, bp, 4, 0), bp)
		f.ADDQ(imm(16), tab)
		f.MOVQ(kc, k)
		f.Label("loop" + sfx)
		f.CMPQ(k, imm(t.unroll))
		f.JL(operand.LabelRef("tail" + sfx))
		for u := 0; u < t.unroll; u++ {
			step(u, prefetch)
		}
		rb.advance(f, t.unroll*e.size)
		f.SUBQ(imm(t.unroll), k)
		f.JMP(operand.LabelRef("loop" + sfx))
		f.Label("tail" + sfx)
		f.TESTQ(k, k)
		f.JE(operand.LabelRef("next" + sfx))
		step(0, prefetch)
		rb.advance(f, e.size)
		f.DECQ(k)
		f.JMP(operand.LabelRef("tail" + sfx))
		f.Label("next" + sfx)
		f.DECQ(taps)
		f.JNE(operand.LabelRef("tap" + sfx))
		if prefetch {
			// The next tile of the call goes on from here.
			pfArg, err := f.Param("pf").Resolve()
			if err != nil {
				panic(err)
			}
			f.MOVQ(pf, pfArg.Addr)
		}
		f.JMP(operand.LabelRef("epilogue"))
	}
	f.TESTQ(pf, pf)
	f.JNE(operand.LabelRef("tappf"))
	tapLoop("", false)
	tapLoop("pf", true)

	f.Label("epilogue")
	emitConvEpilogue(f, v, rows, nv, acc, func(i int) reg.VecPhysical { return v.vec(t.mr*nv + i) }, v.regs-t.mr*nv)
	emitNextTile(f, rows, a)
}

// emitNextTile ends a kernel's tile: while tiles remain (n), it moves a
// (the register pointing at the tile's input) and the output and residual
// arguments on to the next tile, rows pixels further, and starts again from
// the top.
func emitNextTile(f *amd64File, rows int, a reg.Register) {
	f.Label("nexttile")
	emitTileAdvance(f, rows, 4, a, true)
}

// emitTileAdvance is the end of a tile in a kernel of elemBytes-byte
// elements: while tiles remain (n), a and the output argument c (and, with
// residual, res where the flags say it is read) move rows pixels on, and
// the kernel starts again from the top; then it returns.
func emitTileAdvance(f *amd64File, rows, elemBytes int, a reg.Register, residual bool) {
	arg := func(name string) operand.Mem { return addrOf(f.Param(name)) }
	r := f.GP64()
	f.MOVQ(arg("n"), r)
	f.DECQ(r)
	f.JZ(operand.LabelRef("done"))
	f.MOVQ(r, arg("n"))
	f.MOVQ(arg("lda"), r)
	f.IMUL3Q(imm(rows*elemBytes), r, r)
	f.ADDQ(r, a)
	f.MOVQ(arg("ldc"), r)
	f.IMUL3Q(imm(rows*elemBytes), r, r)
	f.ADDQ(r, arg("c"))
	if residual {
		f.TESTQ(operand.U32(flagResidual), arg("flags"))
		f.JZ(operand.LabelRef("top"))
		f.ADDQ(r, arg("res"))
	}
	f.JMP(operand.LabelRef("top"))
	f.Label("done")
	f.VZEROUPPER()
	f.RET()
}

// emitConvEpilogue adds, as the flags say, C itself, the residual and the
// bias, applies ReLU and stores the rows×nv-vector tile (masked when partial).
// spare(i), i < nspare, are vector registers free after the loop.
func emitConvEpilogue(f *amd64File, v vecArch, rows, nv int, acc func(i, j int) reg.VecPhysical, spare func(i int) reg.VecPhysical, nspare int) {
	e := f32
	c := f.Load(f.Param("c"), f.GP64())
	ldc := f.Load(f.Param("ldc"), f.GP64())
	f.SHLQ(operand.Imm(2), ldc)
	flags := f.Load(f.Param("flags"), f.GP64())
	rowsLoop := func(base reg.Register, body func(i int, row reg.Register)) {
		row := f.GP64()
		f.MOVQ(base, row)
		for i := 0; i < rows; i++ {
			body(i, row)
			if i+1 < rows {
				f.ADDQ(ldc, row)
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
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				// VMAXPS returns its first (Go order) operand when either is
				// NaN, so the accumulator goes first to keep NaN.
				e.max(f.Context, acc(i, j), zero, acc(i, j))
			}
		}
	}

	if v.kmask {
		f.TESTQ(operand.U32(flagPartial), flags)
		f.JNZ(operand.LabelRef("partialmask"))
		for j := 0; j < nv; j++ {
			f.KXNORW(opmasks[j], opmasks[j], opmasks[j])
		}
		f.JMP(operand.LabelRef("maskdone"))
		f.Label("partialmask")
		m := f.Load(f.Param("mask"), f.GP64())
		loadMask(f, v, e, m, nv, nil, regIndex(v, spare(0)))
		f.Label("maskdone")
		flagTest(flagLoadC, "noload")
		rowsLoop(c, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				e.addZ(f.Context, mem(row, j*v.bytes), acc(i, j), opmasks[j], acc(i, j))
			}
		})
		f.Label("noload")
		flagTest(flagResidual, "nores")
		res := f.Load(f.Param("res"), f.GP64())
		rowsLoop(res, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				e.addZ(f.Context, mem(row, j*v.bytes), acc(i, j), opmasks[j], acc(i, j))
			}
		})
		f.Label("nores")
		flagTest(flagBias, "nobias")
		bias := f.Load(f.Param("bias"), f.GP64())
		for j := 0; j < nv; j++ {
			for i := 0; i < rows; i++ {
				e.addZ(f.Context, mem(bias, j*v.bytes), acc(i, j), opmasks[j], acc(i, j))
			}
		}
		f.Label("nobias")
		flagTest(flagReLU, "norelu")
		relu(spare(0))
		f.Label("norelu")
		rowsLoop(c, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				e.movu(f.Context, acc(i, j), opmasks[j], mem(row, j*v.bytes))
			}
		})
		f.JMP(operand.LabelRef("nexttile"))
		return
	}

	// AVX2: full tiles use memory operands, partial ones VMASKMOV.
	if nspare < nv+1 {
		panic(fmt.Sprintf("%s: conv epilogue needs %d spare registers, has %d", v.name, nv+1, nspare))
	}
	f.TESTQ(operand.U32(flagPartial), flags)
	f.JNZ(operand.LabelRef("partial"))
	for _, partial := range []bool{false, true} {
		sfx := ""
		var masks []reg.VecPhysical
		tmp := spare(nv)
		if partial {
			sfx = "p"
			f.Label("partial")
			for j := 0; j < nv; j++ {
				masks = append(masks, spare(j))
			}
			m := f.Load(f.Param("mask"), f.GP64())
			loadMask(f, v, e, m, nv, masks, 0)
		}
		add := func(src operand.Mem, j int, dst reg.VecPhysical) {
			if partial {
				e.maskmov(f.Context, src, masks[j], tmp)
				e.add(f.Context, tmp, dst, dst)
				return
			}
			e.add(f.Context, src, dst, dst)
		}
		flagTest(flagLoadC, "noload"+sfx)
		rowsLoop(c, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				add(mem(row, j*v.bytes), j, acc(i, j))
			}
		})
		f.Label("noload" + sfx)
		flagTest(flagResidual, "nores"+sfx)
		res := f.Load(f.Param("res"), f.GP64())
		rowsLoop(res, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				add(mem(row, j*v.bytes), j, acc(i, j))
			}
		})
		f.Label("nores" + sfx)
		flagTest(flagBias, "nobias"+sfx)
		bias := f.Load(f.Param("bias"), f.GP64())
		for j := 0; j < nv; j++ {
			for i := 0; i < rows; i++ {
				add(mem(bias, j*v.bytes), j, acc(i, j))
			}
		}
		f.Label("nobias" + sfx)
		flagTest(flagReLU, "norelu"+sfx)
		relu(tmp)
		f.Label("norelu" + sfx)
		rowsLoop(c, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				if partial {
					e.maskmov(f.Context, acc(i, j), masks[j], mem(row, j*v.bytes))
				} else {
					f.VMOVUPS(acc(i, j), mem(row, j*v.bytes))
				}
			}
		})
		f.JMP(operand.LabelRef("nexttile"))
	}
}

// regIndex is the number of a physical vector register of v.
func regIndex(v vecArch, r reg.VecPhysical) int {
	for i := 0; i < v.regs; i++ {
		if v.vec(i) == r {
			return i
		}
	}
	panic("not a vector register of " + v.name)
}

// emitDepthwiseKernel writes one depthwise kernel: rows output pixels ×
// nv vectors of channels, the last vector masked when partial, accumulated
// over a table of taps, each tap's weights loaded once into registers.
func emitDepthwiseKernel(f *amd64File, t dwTile, rows int) {
	v, e := t.v, f32
	nv := t.nv
	nacc := rows * nv
	if t.mr*nv+nv+2 > v.regs {
		panic(fmt.Sprintf("%s: a %d-pixel depthwise tile of %d vectors does not fit", v.name, t.mr, nv))
	}
	name := t.kernelName(rows)
	f.leafFunction(name, dwSignature, fmt.Sprintf("%s computes n tiles of %d output pixels × %d channels of a depthwise convolution with %s over a table of taps; see dwKernel.", name, rows, nv*v.lanes(e), v.name))
	// a points at the tile's first pixel (its virtual position), in a
	// register across the tiles of the call.
	a := f.Load(f.Param("a"), f.GP64())
	{
		aoff := f.Load(f.Param("aoff"), f.GP64())
		f.LEAQ(memIdx(a, aoff, 4, 0), a)
	}
	f.Label("top")

	acc := func(i, j int) reg.VecPhysical { return v.vec(i*nv + j) }
	wReg := func(j int) reg.VecPhysical { return v.vec(nacc + j) }
	spare := func(i int) reg.VecPhysical { return v.vec(t.mr*nv + nv + i) }
	last := nv - 1

	taps := f.Load(f.Param("taps"), f.GP64())
	tab := f.Load(f.Param("tab"), f.GP64())
	lda := f.Load(f.Param("lda"), f.GP64())
	f.SHLQ(operand.Imm(2), lda)
	w := f.Load(f.Param("w"), f.GP64())
	flags := f.Load(f.Param("flags"), f.GP64())
	rb := newRowBases(f, rows, lda)
	wp := f.GP64()

	for i := 0; i < nacc; i++ {
		r := v.vec(i)
		if v.kmask {
			f.VPXORD(r, r, r)
		} else {
			f.VXORPS(r, r, r)
		}
	}
	// The last vector's mask: all lanes, or the partial prefix. AVX-512 masks
	// every load of it (a masked load does not fault past the slice); AVX2
	// takes a second loop with VMASKMOV loads.
	var vmask reg.VecPhysical
	if v.kmask {
		f.TESTQ(operand.U32(flagPartial), flags)
		f.JNZ(operand.LabelRef("partialmask"))
		f.KXNORW(opmasks[0], opmasks[0], opmasks[0])
		f.JMP(operand.LabelRef("maskdone"))
		f.Label("partialmask")
		m := f.Load(f.Param("mask"), f.GP64())
		loadMask(f, v, e, m, 1, nil, regIndex(v, spare(0)))
		f.Label("maskdone")
	} else {
		vmask = spare(0)
	}
	f.TESTQ(taps, taps)
	f.JE(operand.LabelRef("epilogue"))

	loop := func(sfx string, partial bool) {
		f.Label("tap" + sfx)
		f.MOVQ(mem(tab, 0), rb.bases[0])
		f.LEAQ(memIdx(a, rb.bases[0], 4, 0), rb.bases[0])
		rb.set(f)
		f.MOVQ(mem(tab, 8), wp)
		f.LEAQ(memIdx(w, wp, 4, 0), wp)
		f.ADDQ(imm(16), tab)
		for j := 0; j < nv; j++ {
			switch {
			case j == last && v.kmask && partial:
				f.VMOVUPS_Z(mem(wp, j*v.bytes), opmasks[0], wReg(j))
			case j == last && partial:
				e.maskmov(f.Context, mem(wp, j*v.bytes), vmask, wReg(j))
			default:
				f.VMOVUPS(mem(wp, j*v.bytes), wReg(j))
			}
		}
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				src := rb.at(i, j*v.bytes)
				switch {
				case j == last && v.kmask && partial:
					f.VFMADD231PS_Z(src, wReg(j), opmasks[0], acc(i, j))
				case j == last && partial:
					tmp := spare(1)
					e.maskmov(f.Context, src, vmask, tmp)
					e.fma(f.Context, tmp, wReg(j), acc(i, j))
				default:
					e.fma(f.Context, src, wReg(j), acc(i, j))
				}
			}
		}
		f.DECQ(taps)
		f.JNE(operand.LabelRef("tap" + sfx))
		f.JMP(operand.LabelRef("epilogue"))
	}
	// Full tiles take a loop without masks; partial ones one with the last
	// vector masked.
	f.TESTQ(operand.U32(flagPartial), flags)
	f.JNZ(operand.LabelRef("partialloop"))
	loop("", false)
	f.Label("partialloop")
	if !v.kmask {
		m := f.Load(f.Param("mask"), f.GP64())
		f.VMOVDQU(mem(m, 0), vmask)
	}
	loop("p", true)

	f.Label("epilogue")
	emitDepthwiseEpilogue(f, v, rows, nv, acc, spare, flags)
	emitNextTile(f, rows, a)
}

// emitDepthwiseEpilogue is emitConvEpilogue for a depthwise tile, where only
// the last vector of a row can be partial (mask in opmasks[0] on AVX-512).
func emitDepthwiseEpilogue(f *amd64File, v vecArch, rows, nv int, acc func(i, j int) reg.VecPhysical, spare func(i int) reg.VecPhysical, flags reg.Register) {
	e := f32
	last := nv - 1
	c := f.Load(f.Param("c"), f.GP64())
	ldc := f.Load(f.Param("ldc"), f.GP64())
	f.SHLQ(operand.Imm(2), ldc)
	rowsLoop := func(base reg.Register, body func(i int, row reg.Register)) {
		row := f.GP64()
		f.MOVQ(base, row)
		for i := 0; i < rows; i++ {
			body(i, row)
			if i+1 < rows {
				f.ADDQ(ldc, row)
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
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				e.max(f.Context, acc(i, j), zero, acc(i, j))
			}
		}
	}
	if v.kmask {
		add := func(src operand.Mem, j int, dst reg.VecPhysical) {
			if j == last {
				e.addZ(f.Context, src, dst, opmasks[0], dst)
				return
			}
			e.add(f.Context, src, dst, dst)
		}
		flagTest(flagLoadC, "noload")
		rowsLoop(c, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				add(mem(row, j*v.bytes), j, acc(i, j))
			}
		})
		f.Label("noload")
		flagTest(flagResidual, "nores")
		res := f.Load(f.Param("res"), f.GP64())
		rowsLoop(res, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				add(mem(row, j*v.bytes), j, acc(i, j))
			}
		})
		f.Label("nores")
		flagTest(flagBias, "nobias")
		bias := f.Load(f.Param("bias"), f.GP64())
		for j := 0; j < nv; j++ {
			for i := 0; i < rows; i++ {
				add(mem(bias, j*v.bytes), j, acc(i, j))
			}
		}
		f.Label("nobias")
		flagTest(flagReLU, "norelu")
		relu(spare(0))
		f.Label("norelu")
		rowsLoop(c, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				if j == last {
					e.movu(f.Context, acc(i, j), opmasks[0], mem(row, j*v.bytes))
				} else {
					f.VMOVUPS(acc(i, j), mem(row, j*v.bytes))
				}
			}
		})
		f.JMP(operand.LabelRef("nexttile"))
		return
	}
	vmask, tmp := spare(0), spare(1)
	f.TESTQ(operand.U32(flagPartial), flags)
	f.JNZ(operand.LabelRef("partial"))
	for _, partial := range []bool{false, true} {
		sfx := ""
		if partial {
			sfx = "p"
			f.Label("partial")
			m := f.Load(f.Param("mask"), f.GP64())
			f.VMOVDQU(mem(m, 0), vmask)
		}
		add := func(src operand.Mem, j int, dst reg.VecPhysical) {
			if partial && j == last {
				e.maskmov(f.Context, src, vmask, tmp)
				e.add(f.Context, tmp, dst, dst)
				return
			}
			e.add(f.Context, src, dst, dst)
		}
		flagTest(flagLoadC, "noload"+sfx)
		rowsLoop(c, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				add(mem(row, j*v.bytes), j, acc(i, j))
			}
		})
		f.Label("noload" + sfx)
		flagTest(flagResidual, "nores"+sfx)
		res := f.Load(f.Param("res"), f.GP64())
		rowsLoop(res, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				add(mem(row, j*v.bytes), j, acc(i, j))
			}
		})
		f.Label("nores" + sfx)
		flagTest(flagBias, "nobias"+sfx)
		bias := f.Load(f.Param("bias"), f.GP64())
		for j := 0; j < nv; j++ {
			for i := 0; i < rows; i++ {
				add(mem(bias, j*v.bytes), j, acc(i, j))
			}
		}
		f.Label("nobias" + sfx)
		flagTest(flagReLU, "norelu"+sfx)
		relu(tmp)
		f.Label("norelu" + sfx)
		rowsLoop(c, func(i int, row reg.Register) {
			for j := 0; j < nv; j++ {
				if partial && j == last {
					e.maskmov(f.Context, acc(i, j), vmask, mem(row, j*v.bytes))
				} else {
					f.VMOVUPS(acc(i, j), mem(row, j*v.bytes))
				}
			}
		})
		f.JMP(operand.LabelRef("nexttile"))
	}
}

// emitDepthwiseRowKernel writes a depthwise kernel whose table lists the
// taps of whole kernel rows, t.k taps per row in order, pixels lda apart in
// the input as consecutive taps are (unit stride and dilation along the
// row). For each row it loads the t.k weight vectors, then each of the
// rows+t.k−1 input pixel vectors once, and adds its product with tap kw to
// output pixel q−kw.
func emitDepthwiseRowKernel(f *amd64File, t dwRowTile, rows int) {
	v, e := t.v, f32
	nv, k := t.nv, t.k
	nacc := rows * nv
	if t.mr*nv+k*nv+nv > v.regs || (!v.kmask && t.mr*nv+k*nv+nv+1 > v.regs) {
		panic(fmt.Sprintf("%s: a %d-pixel depthwise row tile of %d taps and %d vectors does not fit", v.name, t.mr, k, nv))
	}
	name := t.kernelName(rows)
	f.leafFunction(name, dwSignature, fmt.Sprintf("%s computes n tiles of %d output pixels × %d channels of a depthwise convolution with %s over a table of rows of %d taps; see dwKernel.", name, rows, nv*v.lanes(e), v.name, k))
	// a points at the tile's first pixel (its virtual position), in a
	// register across the tiles of the call.
	a := f.Load(f.Param("a"), f.GP64())
	{
		aoff := f.Load(f.Param("aoff"), f.GP64())
		f.LEAQ(memIdx(a, aoff, 4, 0), a)
	}
	f.Label("top")

	acc := func(i, j int) reg.VecPhysical { return v.vec(i*nv + j) }
	wReg := func(kw, j int) reg.VecPhysical { return v.vec(t.mr*nv + kw*nv + j) }
	xReg := func(j int) reg.VecPhysical { return v.vec(t.mr*nv + k*nv + j) }
	var vmask reg.VecPhysical
	if !v.kmask {
		vmask = v.vec(t.mr*nv + k*nv + nv)
	}
	last := nv - 1

	taps := f.Load(f.Param("taps"), f.GP64())
	tab := f.Load(f.Param("tab"), f.GP64())
	lda := f.Load(f.Param("lda"), f.GP64())
	f.SHLQ(operand.Imm(2), lda)
	w := f.Load(f.Param("w"), f.GP64())
	flags := f.Load(f.Param("flags"), f.GP64())
	rb := newRowBases(f, rows+k-1, lda)
	wp := f.GP64()

	for i := 0; i < nacc; i++ {
		r := v.vec(i)
		if v.kmask {
			f.VPXORD(r, r, r)
		} else {
			f.VXORPS(r, r, r)
		}
	}
	// The last vector's mask: all lanes (the epilogue masks it on
	// AVX-512), or the partial prefix.
	f.TESTQ(operand.U32(flagPartial), flags)
	f.JNZ(operand.LabelRef("partialmask"))
	if v.kmask {
		f.KXNORW(opmasks[0], opmasks[0], opmasks[0])
	}
	f.JMP(operand.LabelRef("maskdone"))
	f.Label("partialmask")
	{
		m := f.Load(f.Param("mask"), f.GP64())
		if v.kmask {
			loadMask(f, v, e, m, 1, nil, regIndex(v, xReg(0)))
		} else {
			f.VMOVDQU(mem(m, 0), vmask)
		}
	}
	f.Label("maskdone")
	f.TESTQ(taps, taps)
	f.JE(operand.LabelRef("epilogue"))

	load := func(src operand.Mem, j int, dst reg.VecPhysical, partial bool) {
		switch {
		case j == last && partial && v.kmask:
			f.VMOVUPS_Z(src, opmasks[0], dst)
		case j == last && partial:
			e.maskmov(f.Context, src, vmask, dst)
		default:
			f.VMOVUPS(src, dst)
		}
	}
	loop := func(sfx string, partial bool) {
		f.Label("row" + sfx)
		f.MOVQ(mem(tab, 0), rb.bases[0])
		f.LEAQ(memIdx(a, rb.bases[0], 4, 0), rb.bases[0])
		rb.set(f)
		for kw := 0; kw < k; kw++ {
			f.MOVQ(mem(tab, 16*kw+8), wp)
			f.LEAQ(memIdx(w, wp, 4, 0), wp)
			for j := 0; j < nv; j++ {
				load(mem(wp, j*v.bytes), j, wReg(kw, j), partial)
			}
		}
		f.ADDQ(imm(16*k), tab)
		for q := 0; q < rows+k-1; q++ {
			for j := 0; j < nv; j++ {
				load(rb.at(q, j*v.bytes), j, xReg(j), partial)
			}
			for kw := 0; kw < k; kw++ {
				p := q - kw
				if p < 0 || p >= rows {
					continue
				}
				for j := 0; j < nv; j++ {
					e.fma(f.Context, xReg(j), wReg(kw, j), acc(p, j))
				}
			}
		}
		f.SUBQ(imm(k), taps)
		f.JNE(operand.LabelRef("row" + sfx))
		f.JMP(operand.LabelRef("epilogue"))
	}
	f.TESTQ(operand.U32(flagPartial), flags)
	f.JNZ(operand.LabelRef("partialloop"))
	loop("", false)
	f.Label("partialloop")
	loop("p", true)

	f.Label("epilogue")
	spare := func(i int) reg.VecPhysical { return v.vec(t.mr*nv + i) }
	if !v.kmask {
		// The AVX2 epilogue takes its mask and temporary from spare(0), spare(1).
		spare = func(i int) reg.VecPhysical { return []reg.VecPhysical{vmask, xReg(0)}[i] }
	}
	emitDepthwiseEpilogue(f, v, rows, nv, acc, spare, flags)
	emitNextTile(f, rows, a)
}

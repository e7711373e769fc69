package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The narrow depthwise family: the depthwise kernels of the conv family
// (conv.go) for bfloat16 and binary16 input and output, with the root
// package's dwNarrowKernel signature (conv_narrow_kernels.go). Each input
// vector is widened in registers as it is loaded (bfloat16: VPMOVZXWD and a
// shift by 16, exact; binary16: VCVTPH2PS, exact), multiplied by the
// float32 weights and accumulated in float32 over every tap, and each
// output is rounded once, on its store, to nearest even: VCVTNEPS2BF16
// where AVX512_BF16 exists (its flushing of subnormals undone by a rarely
// taken branch), the integer sequence of XLA's conversion otherwise,
// VCVTPS2PH for binary16. A sum of products is never a signalling NaN (the
// FMA quiets one), and the instruction's quieting of a quiet NaN leaves
// its top half as it is, as XLA's rule does: only subnormal sums need the
// branch.
//
// The tiles are the float32 depthwise tiles' (the same pixel counts and
// vectors, so the float32 plan's tile heights fit them); only the rows of 3
// taps have a row kernel here, other kernel widths take the per-tap ones.
// AVX2 has no 16-bit masked loads: its kernels take whole vectors only and
// the driver gives a partial channel block to the Go twin.

const dwNarrowSignature = "func(n int, taps int, tab *int, a *uint16, aoff int, lda int, w *float32, c *uint16, ldc int, mask *int32, flags uint)"

// dwPairSignature is the pair row kernels': blocks of 32 channels per tile.
const dwPairSignature = "func(n int, taps int, tab *int, a *uint16, aoff int, lda int, w *float32, c *uint16, ldc int, blocks int)"

// dwNarrowType is the element type of a narrow depthwise kernel's input and
// output, and how it rounds.
type dwNarrowType struct {
	name   string // in function names: "BF16", "F16"
	bf16   bool
	native bool // VCVTNEPS2BF16 (AVX512_BF16)
}

var (
	dwBF16       = dwNarrowType{name: "BF16", bf16: true}
	dwBF16Native = dwNarrowType{name: "BF16Native", bf16: true, native: true}
	dwF16        = dwNarrowType{name: "F16"}
)

// dwNarrowTile is a per-tap kernel family member (see dwTile); k > 0 makes
// it a row kernel of k taps (see dwRowTile).
type dwNarrowTile struct {
	v         vecArch
	k, mr, nv int
}

var dwNarrowAMD64 = []dwNarrowTile{
	{v: avx512, mr: 12, nv: 2},
	{v: avx512, mr: 14, nv: 1},
	{v: avx512, k: 3, mr: 12, nv: 2},
	{v: avx512, k: 3, mr: 14, nv: 1},
	{v: avx2, mr: 6, nv: 2},
	{v: avx2, mr: 12, nv: 1},
	{v: avx2, k: 3, mr: 3, nv: 2},
	{v: avx2, k: 3, mr: 11, nv: 1},
}

func (t dwNarrowTile) kernelName(e dwNarrowType, rows int) string {
	if t.k > 0 {
		return fmt.Sprintf("depthwise%s%sRow%dPixels%dx%d", e.name, t.v.name, t.k, rows, t.nv*t.v.lanes(f32))
	}
	return fmt.Sprintf("depthwise%s%sPixels%dx%d", e.name, t.v.name, rows, t.nv*t.v.lanes(f32))
}

// dwNarrowConsts is the family's constants, each in 8 int32 lanes (an AVX2
// operand; AVX-512 broadcasts the first lane).
const dwNarrowConsts = "dwNarrowConsts"

var dwNarrowConstValues = []uint32{1, 0x7fff, 0x7f, 0x40, 0, 0x7fff7fff}

// dwPairIndex is VPERMQ's index that interleaves the quadwords of a
// vector's halves (see emitNarrowPairRowKernel), at dwPairIndexAt in the constants.
var dwPairIndex = []uint64{0, 4, 1, 5, 2, 6, 3, 7}

const dwPairIndexAt = 32 * 6 // past the constants, 64-byte aligned

func dwNarrowConst(v uint32) operand.Mem {
	for i, c := range dwNarrowConstValues {
		if c == v {
			return operand.NewDataAddr(operand.NewStaticSymbol(dwNarrowConsts), 32*i)
		}
	}
	panic(fmt.Sprintf("no constant 0x%x", v))
}

func generateConvNarrow(o *output) error {
	f := o.amd64
	f.StaticGlobal(dwNarrowConsts)
	f.DataAttributes(attr.RODATA | attr.NOPTR)
	for i, c := range dwNarrowConstValues {
		for l := 0; l < 8; l++ {
			f.AddDatum(32*i+4*l, operand.U32(c))
		}
	}
	for i, q := range dwPairIndex {
		f.AddDatum(dwPairIndexAt+8*i, operand.U64(q))
	}
	set := func(v vecArch, e dwNarrowType) string {
		var dw, rows []string
		for _, t := range dwNarrowAMD64 {
			if t.v.name != v.name {
				continue
			}
			names := make([]string, t.mr)
			for r := 1; r <= t.mr; r++ {
				names[r-1] = t.kernelName(e, r)
				emitNarrowDepthwiseKernel(f, t, e, r)
			}
			if t.k > 0 {
				rows = append(rows, fmt.Sprintf("{k: %d, vecs: %d, rows: %s}", t.k, t.nv, goList("[]dwNarrowKernel", true, names)))
			} else {
				dw = append(dw, fmt.Sprintf("{vecs: %d, rows: %s}", t.nv, goList("[]dwNarrowKernel", true, names)))
			}
		}
		s := fmt.Sprintf("&dwNarrowSet{\nlanes: %d, masked: %v,\ndw: []dwNarrowTiles{\n", v.lanes(f32), v.kmask)
		for _, d := range dw {
			s += d + ",\n"
		}
		s += "},\ndwRow: []dwNarrowRowTiles{\n"
		for _, r := range rows {
			s += r + ",\n"
		}
		s += "},\n"
		if e.bf16 && v.kmask {
			for _, t := range dwPairAMD64 {
				names := make([]string, t.mr)
				for r := 1; r <= t.mr; r++ {
					names[r-1] = t.pairName(e, r)
					emitNarrowPairRowKernel(f, t, e, r)
				}
				s += fmt.Sprintf("pairRow: &dwPairRowTiles{k: %d, rows: %s},\n", t.k, goList("[]dwPairKernel", true, names))
			}
		}
		return s + "}"
	}
	bf16, f16 := set(avx512, dwBF16), set(avx512, dwF16)
	o.set(avx512.level, "dwNarrow", fmt.Sprintf("&dwNarrowKernels{\nbf16: %s,\nf16: %s,\n}", bf16, f16))
	o.set("levelAVX512BF16", "dwNarrow", fmt.Sprintf("&dwNarrowKernels{\nbf16: %s,\nf16: %s,\n}", set(avx512, dwBF16Native), f16))
	o.set(avx2.level, "dwNarrow", fmt.Sprintf("&dwNarrowKernels{\nbf16: %s,\nf16: %s,\n}", set(avx2, dwBF16), set(avx2, dwF16)))
	return nil
}

// emitNarrowDepthwiseKernel writes one kernel: rows output pixels × nv
// vectors of channels over a table of taps (t.k == 0: each tap's weights
// loaded once, then each pixel's input), or of rows of t.k taps (each input
// vector loaded once per row and multiplied by every tap that reads it).
func emitNarrowDepthwiseKernel(f *amd64File, t dwNarrowTile, e dwNarrowType, rows int) {
	v := t.v
	nv, k := t.nv, t.k
	nacc := rows * nv
	lanes := v.lanes(f32)
	// Registers: the accumulators, then the weights (nv, or k·nv for a row
	// kernel), then the widened inputs (nv).
	wRegs := nv
	if k > 0 {
		wRegs = k * nv
	}
	if t.mr*nv+wRegs+nv > v.regs {
		panic(fmt.Sprintf("%s: a %d-pixel narrow depthwise tile of %d vectors does not fit", v.name, t.mr, nv))
	}
	name := t.kernelName(e, rows)
	f.leafFunction(name, dwNarrowSignature)
	what := "a table of taps"
	if k > 0 {
		what = fmt.Sprintf("a table of rows of %d taps", k)
	}
	typ := map[bool]string{true: "bfloat16", false: "binary16"}[e.bf16]
	f.Doc(fmt.Sprintf("%s computes n tiles of %d output pixels × %d channels of a %s depthwise convolution with %s over %s; see dwNarrowKernel.", name, rows, nv*lanes, typ, v.name, what))

	a := f.Load(f.Param("a"), f.GP64())
	{
		aoff := f.Load(f.Param("aoff"), f.GP64())
		f.LEAQ(memIdx(a, aoff, 2, 0), a)
	}
	f.Label("top")
	acc := func(i, j int) reg.VecPhysical { return v.vec(i*nv + j) }
	wReg := func(kw, j int) reg.VecPhysical { return v.vec(t.mr*nv + kw*nv + j) }
	xReg := func(j int) reg.VecPhysical { return v.vec(t.mr*nv + wRegs + j) }
	last := nv - 1

	taps := f.Load(f.Param("taps"), f.GP64())
	tab := f.Load(f.Param("tab"), f.GP64())
	lda := f.Load(f.Param("lda"), f.GP64())
	f.SHLQ(operand.Imm(1), lda)
	w := f.Load(f.Param("w"), f.GP64())
	span := rows
	if k > 0 {
		span = rows + k - 1
	}
	rb := newRowBases(f, span, lda)
	wp := f.GP64()

	for i := 0; i < nacc; i++ {
		r := v.vec(i)
		if v.kmask {
			f.VPXORD(r, r, r)
		} else {
			f.VXORPS(r, r, r)
		}
	}
	// The last vector's mask (AVX-512): all lanes, or the partial prefix;
	// its 16 bits mask the 16-bit elements of the input and output as well
	// as the float32 lanes of the weights.
	var flags reg.Register
	if v.kmask {
		flags = f.Load(f.Param("flags"), f.GP64())
		f.TESTQ(operand.U32(flagPartial), flags)
		f.JNZ(operand.LabelRef("partialmask"))
		f.KXNORW(opmasks[0], opmasks[0], opmasks[0])
		f.JMP(operand.LabelRef("maskdone"))
		f.Label("partialmask")
		m := f.Load(f.Param("mask"), f.GP64())
		loadMask(f, v, f32, m, 1, nil, regIndex(v, xReg(0)))
		f.Label("maskdone")
	}
	f.TESTQ(taps, taps)
	f.JE(operand.LabelRef("epilogue"))

	loadW := func(src operand.Mem, j int, dst reg.VecPhysical, partial bool) {
		if j == last && partial {
			f.VMOVUPS_Z(src, opmasks[0], dst)
			return
		}
		f.VMOVUPS(src, dst)
	}
	loadX := func(src operand.Mem, j int, dst reg.VecPhysical, partial bool) {
		var half reg.Register = dst.AsY()
		if v.bytes == 32 {
			half = dst.AsX()
		}
		if j == last && partial {
			f.VMOVDQU16_Z(src, opmasks[0], half)
			src = operand.Mem{}
		}
		switch {
		case !e.bf16 && src.Base == nil:
			f.VCVTPH2PS(half, dst)
		case !e.bf16:
			f.VCVTPH2PS(src, dst)
		case src.Base == nil:
			f.VPMOVZXWD(half, dst)
			f.VPSLLD(imm(16), dst, dst)
		default:
			f.VPMOVZXWD(src, dst)
			f.VPSLLD(imm(16), dst, dst)
		}
	}
	xBytes := lanes * 2 // bytes of one vector of 16-bit input
	loop := func(sfx string, partial bool) {
		f.Label("tap" + sfx)
		f.MOVQ(mem(tab, 0), rb.bases[0])
		f.LEAQ(memIdx(a, rb.bases[0], 2, 0), rb.bases[0])
		rb.set(f)
		if k == 0 {
			f.MOVQ(mem(tab, 8), wp)
			f.LEAQ(memIdx(w, wp, 4, 0), wp)
			f.ADDQ(imm(16), tab)
			for j := 0; j < nv; j++ {
				loadW(mem(wp, j*v.bytes), j, wReg(0, j), partial)
			}
			for i := 0; i < rows; i++ {
				for j := 0; j < nv; j++ {
					loadX(rb.at(i, j*xBytes), j, xReg(j), partial)
					f.VFMADD231PS(xReg(j), wReg(0, j), acc(i, j))
				}
			}
			f.DECQ(taps)
		} else {
			for kw := 0; kw < k; kw++ {
				f.MOVQ(mem(tab, 16*kw+8), wp)
				f.LEAQ(memIdx(w, wp, 4, 0), wp)
				for j := 0; j < nv; j++ {
					loadW(mem(wp, j*v.bytes), j, wReg(kw, j), partial)
				}
			}
			f.ADDQ(imm(16*k), tab)
			for q := 0; q < span; q++ {
				for j := 0; j < nv; j++ {
					loadX(rb.at(q, j*xBytes), j, xReg(j), partial)
				}
				for kw := 0; kw < k; kw++ {
					p := q - kw
					if p < 0 || p >= rows {
						continue
					}
					for j := 0; j < nv; j++ {
						f.VFMADD231PS(xReg(j), wReg(kw, j), acc(p, j))
					}
				}
			}
			f.SUBQ(imm(k), taps)
		}
		f.JNE(operand.LabelRef("tap" + sfx))
		f.JMP(operand.LabelRef("epilogue"))
	}
	if v.kmask {
		f.TESTQ(operand.U32(flagPartial), flags)
		f.JNZ(operand.LabelRef("partialloop"))
		loop("", false)
		f.Label("partialloop")
		loop("p", true)
	} else {
		loop("", false)
	}

	f.Label("epilogue")
	c := f.Load(f.Param("c"), f.GP64())
	ldc := f.Load(f.Param("ldc"), f.GP64())
	f.SHLQ(operand.Imm(1), ldc)
	// Every register past the accumulators is free now.
	spare := func(i int) reg.VecPhysical { return v.vec(nacc + i) }
	labels := 0
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			labels++
			emitNarrowStore(f, v, e, acc(i, j), mem(c, j*xBytes), v.kmask && j == last, spare, fmt.Sprintf("rounded%d", labels))
		}
		if i+1 < rows {
			f.ADDQ(ldc, c)
		}
	}

	// The next tile.
	emitTileAdvance(f, rows, 2, a, false)
}

// emitNarrowStore rounds the float32 lanes of x to the narrow type and
// stores them at m, through the 16-lane mask in K1 when masked (AVX-512).
// spare(0…3) are free vector registers, K6 and K7 free mask registers;
// label names the end of the rarely taken branch.
func emitNarrowStore(f *amd64File, v vecArch, e dwNarrowType, x reg.VecPhysical, m operand.Mem, masked bool, spare func(int) reg.VecPhysical, label string) {
	t, s := spare(0), spare(1)
	half := func(r reg.VecPhysical) reg.Register {
		if v.bytes == 32 {
			return r.AsX()
		}
		return r.AsY()
	}
	if !e.bf16 {
		if !masked {
			f.VCVTPS2PH(imm(0), x, m)
			return
		}
		f.VCVTPS2PH(imm(0), x, half(s))
		f.VMOVDQU16(half(s), opmasks[0], m)
		return
	}
	if !v.kmask {
		// AVX2: XLA's integer rounding, NaN lanes fixed in a branch.
		mk, z := spare(2), spare(3)
		f.VPSRLD(imm(16), x, t)
		f.VPAND(dwNarrowConst(1), t, s)
		f.VPADDD(x, s, s)
		f.VPADDD(dwNarrowConst(0x7fff), s, s)
		f.VPSRLD(imm(16), s, s)
		f.VCMPPS(imm(3), x, x, mk) // unordered: NaN
		g := f.GP32()
		f.VMOVMSKPS(mk, g)
		f.TESTL(g, g)
		f.JZ(operand.LabelRef(label))
		f.VPAND(dwNarrowConst(0x7f), t, z)
		f.VPCMPGTD(dwNarrowConst(0), z, z) // payload bits left in the top half
		f.VPANDN(dwNarrowConst(0x40), z, z)
		f.VPOR(t, z, z)
		f.VBLENDVPS(mk, z, s, s)
		f.Label(label)
		f.VEXTRACTI128(imm(1), s, t.AsX())
		f.VPACKUSDW(t.AsX(), s.AsX(), s.AsX())
		f.VMOVDQU(s.AsX(), m)
		return
	}
	integer := func() { emitBF16Integer(f, x, t, s) }
	nanFix := func() { emitBF16NaNFix(f, x, t, s) }
	if e.native {
		emitRaw(f, vcvtneps2bf16(regIndex(v, s), regIndex(v, x)))
		f.VFPCLASSPSZ(imm(0x20), x, reg.K7) // denormal (see emitNarrowPairRowKernel on NaNs)
		f.KORTESTW(reg.K7, reg.K7)
		f.JZ(operand.LabelRef(label))
		integer()
		nanFix()
		f.VPMOVDW(s, s.AsY())
		f.Label(label)
		if masked {
			f.VMOVDQU16(s.AsY(), opmasks[0], m)
		} else {
			f.VMOVDQU16(s.AsY(), m)
		}
		return
	}
	integer()
	f.VFPCLASSPSZ(imm(0x01|0x80), x, reg.K7)
	f.KORTESTW(reg.K7, reg.K7)
	f.JZ(operand.LabelRef(label))
	nanFix()
	f.Label(label)
	if masked {
		f.VPMOVDW(s, opmasks[0], m)
	} else {
		f.VPMOVDW(s, m)
	}
}

// emitBF16Integer rounds the float32 lanes of x to bfloat16 to nearest even
// with XLA's integer sequence, into the low halves of s's int32 lanes, the
// top half of x left in t (AVX-512).
func emitBF16Integer(f *amd64File, x, t, s reg.VecPhysical) {
	f.VPSRLD(imm(16), x, t)
	f.VPANDD_BCST(dwNarrowConst(1), t, s)
	f.VPADDD(x, s, s)
	f.VPADDD_BCST(dwNarrowConst(0x7fff), s, s)
	f.VPSRLD(imm(16), s, s)
}

// emitBF16NaNFix sets the NaN lanes of s, rounded by emitBF16Integer, as
// XLA converts a NaN: its top half, quieted if no payload bit is left.
func emitBF16NaNFix(f *amd64File, x, t, s reg.VecPhysical) {
	f.VFPCLASSPSZ(imm(0x01|0x80), x, reg.K7)
	f.VMOVDQA32(t, reg.K7, s)
	f.VPTESTNMD_BCST(dwNarrowConst(0x7f), t, reg.K6)
	f.KANDW(reg.K6, reg.K7, reg.K6)
	f.VPORD_BCST(dwNarrowConst(0x40), s, reg.K6, s)
}

// dwPairAMD64 is the bfloat16 row kernel that reads the channels as pairs
// of vectors: each 64-byte load of 32 channels widens into two float32
// vectors with VPUNPCKLWD and VPUNPCKHWD against zero (each word of a
// 128-bit lane's low or high half moved to the top of an int32 lane, which
// is its float32 value), half the widening work of VPMOVZXWD and a shift,
// in an order of the channels that VPACKUSDW undoes (and VPERMQ after
// VCVTNE2PS2BF16). The weights are given in that order (the root package's
// pairWeights); whole blocks of 32 channels only.
var dwPairAMD64 = []dwNarrowTile{{v: avx512, k: 3, mr: 12, nv: 2}}

// pairPrefetch is how far past each input vector a pair row kernel
// prefetches: the next block of 32 channels of the same pixel, which the
// driver's next call reads.
const pairPrefetch = 64

func (t dwNarrowTile) pairName(e dwNarrowType, rows int) string {
	return fmt.Sprintf("depthwise%s%sRow%dPairs%dx%d", e.name, t.v.name, t.k, rows, t.nv*t.v.lanes(f32))
}

// emitNarrowPairRowKernel writes one pair row kernel (see dwPairAMD64).
func emitNarrowPairRowKernel(f *amd64File, t dwNarrowTile, e dwNarrowType, rows int) {
	v, k := t.v, t.k
	const nv = 2
	nacc := rows * nv
	if t.nv != nv || t.mr*nv+k*nv+2 > v.regs || !v.kmask || !e.bf16 {
		panic(fmt.Sprintf("%s: no pair row kernel of %d pixels", v.name, t.mr))
	}
	name := t.pairName(e, rows)
	f.leafFunction(name, dwPairSignature, fmt.Sprintf("%s computes n tiles of %d output pixels × blocks·32 channels of a bfloat16 depthwise convolution with %s over a table of rows of %d taps, the weights in pair order; see dwPairKernel and pairWeights.", name, rows, v.name, k))

	a := f.Load(f.Param("a"), f.GP64())
	{
		aoff := f.Load(f.Param("aoff"), f.GP64())
		f.LEAQ(memIdx(a, aoff, 2, 0), a)
	}
	// Each tile computes its blocks of 32 channels one after another,
	// the next block's input, weights and output 32 elements on, before
	// the next tile: the tile's pixels stay in the caches for all their
	// channels.
	left := f.AllocLocal(8)
	f.Label("top")
	{
		r := f.Load(f.Param("blocks"), f.GP64())
		f.MOVQ(r, left)
	}
	f.Label("block")
	acc := func(i, j int) reg.VecPhysical { return v.vec(i*nv + j) }
	wReg := func(kw, j int) reg.VecPhysical { return v.vec(t.mr*nv + kw*nv + j) }
	x := v.vec(t.mr*nv + k*nv)
	zero := v.vec(t.mr*nv + k*nv + 1)

	taps := f.Load(f.Param("taps"), f.GP64())
	tab := f.Load(f.Param("tab"), f.GP64())
	lda := f.Load(f.Param("lda"), f.GP64())
	f.SHLQ(operand.Imm(1), lda)
	w := f.Load(f.Param("w"), f.GP64())
	span := rows + k - 1
	rb := newRowBases(f, span, lda)
	wp := f.GP64()
	for i := 0; i < nacc; i++ {
		f.VPXORD(acc(i/nv, i%nv), acc(i/nv, i%nv), acc(i/nv, i%nv))
	}
	f.VPXORD(zero, zero, zero)
	f.TESTQ(taps, taps)
	f.JE(operand.LabelRef("epilogue"))
	f.Label("row")
	f.MOVQ(mem(tab, 0), rb.bases[0])
	f.LEAQ(memIdx(a, rb.bases[0], 2, 0), rb.bases[0])
	rb.set(f)
	for kw := 0; kw < k; kw++ {
		f.MOVQ(mem(tab, 16*kw+8), wp)
		f.LEAQ(memIdx(w, wp, 4, 0), wp)
		for j := 0; j < nv; j++ {
			f.VMOVUPS(mem(wp, j*v.bytes), wReg(kw, j))
		}
	}
	f.ADDQ(imm(16*k), tab)
	// Below the family's most pixels a register is free: the 32
	// channels are loaded into it once and both halves unpacked from it
	// (two unpacks from memory, each reading the 64 bytes: 18 % slower per
	// tile on Zen 5).
	loaded := rows < t.mr
	y := v.vec(nacc)
	for q := 0; q < span; q++ {
		f.PREFETCHT0(rb.at(q, pairPrefetch))
		if loaded {
			f.VMOVDQU32(rb.at(q, 0), y)
		}
		for j := 0; j < nv; j++ {
			src := operand.Op(rb.at(q, 0))
			if loaded {
				src = y
			}
			if j == 0 {
				f.VPUNPCKLWD(src, zero, x)
			} else {
				f.VPUNPCKHWD(src, zero, x)
			}
			for kw := 0; kw < k; kw++ {
				if p := q - kw; p >= 0 && p < rows {
					f.VFMADD231PS(x, wReg(kw, j), acc(p, j))
				}
			}
		}
	}
	f.SUBQ(imm(k), taps)
	f.JNE(operand.LabelRef("row"))

	f.Label("epilogue")
	c := f.Load(f.Param("c"), f.GP64())
	ldc := f.Load(f.Param("ldc"), f.GP64())
	f.SHLQ(operand.Imm(1), ldc)
	spare := func(i int) reg.VecPhysical { return v.vec(nacc + i) }
	t0, sLo, sHi, idx, magn := spare(0), spare(1), spare(2), spare(3), spare(4)
	if e.native {
		f.VMOVDQU64(operand.NewDataAddr(operand.NewStaticSymbol(dwNarrowConsts), dwPairIndexAt), idx)
		f.VPBROADCASTD(dwNarrowConst(0x7fff7fff), magn)
	}
	for i := 0; i < rows; i++ {
		lo, hi := acc(i, 0), acc(i, 1)
		slow, done := fmt.Sprintf("slow%d", i), fmt.Sprintf("stored%d", i)
		fast, zero := fmt.Sprintf("fast%d", i), fmt.Sprintf("zero%d", i)
		if e.native {
			// The instruction flushes a subnormal sum to ±0: a word of
			// ±0 (one VPTESTNMW, rarely taken) sends the pixel to the
			// test of its sums for subnormals (a ±0 sum rounds as the
			// instruction does). Only subnormal sums need the integer
			// rounding: a sum of products is never a signalling NaN, and
			// the instruction's quieting of a quiet NaN keeps its bits,
			// as XLA's rule does.
			emitRaw(f, vcvtne2ps2bf16(regIndex(v, sLo), regIndex(v, hi), regIndex(v, lo)))
			f.VPTESTNMW(magn, sLo, reg.K7)
			f.KORTESTD(reg.K7, reg.K7)
			f.JNZ(operand.LabelRef(zero))
			f.Label(fast)
			f.VPERMQ(sLo, idx, sLo)
			f.VMOVDQU16(sLo, mem(c, 0))
			f.JMP(operand.LabelRef(done))
			f.Label(zero)
			f.VFPCLASSPSZ(imm(0x20), lo, reg.K6)
			f.VFPCLASSPSZ(imm(0x20), hi, reg.K7)
			f.KORTESTW(reg.K6, reg.K7)
			f.JZ(operand.LabelRef(fast))
		}
		f.Label(slow)
		emitBF16Integer(f, lo, t0, sLo)
		emitBF16NaNFix(f, lo, t0, sLo)
		emitBF16Integer(f, hi, t0, sHi)
		emitBF16NaNFix(f, hi, t0, sHi)
		f.VPACKUSDW(sHi, sLo, sLo)
		f.VMOVDQU16(sLo, mem(c, 0))
		f.Label(done)
		if i+1 < rows {
			f.ADDQ(ldc, c)
		}
	}
	f.DECQ(left)
	f.JZ(operand.LabelRef("tiled"))
	f.ADDQ(imm(2*pairBlockGen), a)
	f.ADDQ(imm(2*pairBlockGen), addrOf(f.Param("c")))
	f.ADDQ(imm(4*pairBlockGen), addrOf(f.Param("w")))
	f.JMP(operand.LabelRef("block"))
	f.Label("tiled")
	{
		// Back to the first block for the next tile.
		r := f.Load(f.Param("blocks"), f.GP64())
		f.DECQ(r)
		f.SHLQ(imm(6), r)
		f.SUBQ(r, a)
		f.SUBQ(r, addrOf(f.Param("c")))
		f.SHLQ(imm(1), r)
		f.SUBQ(r, addrOf(f.Param("w")))
	}
	emitTileAdvance(f, rows, 2, a, false)
}

// pairBlockGen is the channels of one block of the pair kernels (the
// root package's pairBlock).
const pairBlockGen = 32

// vcvtne2ps2bf16 rounds two float32 vectors to one of bfloat16: d's low
// 16 words from s2, its high ones from s1 (AVX512_BF16).
func vcvtne2ps2bf16(d, s1, s2 int) rawInst {
	return rawInst{fmt.Sprintf("vcvtne2ps2bf16 %s, %s, %s", zmmName(d), zmmName(s1), zmmName(s2)),
		evex(ppF2, map0F38, 0, 0x72, d, s1, s2, nil, false, 0, false)}
}

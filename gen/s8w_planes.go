package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The int8-weight product in integers (AVX512_VNNI): a row of A held
// exactly as a fixed-point integer X = A·2^s split into bytes (planes),
// times the quads of int8 weights with VPDPBUSD, each plane into its own
// int32 accumulators; the planes' sums then combine in int64, exactly, and
// the scale turns the exact dot into float32 (see s8wSplit in the root
// package for when a row has such a form).

const s8wPlanesSignature = "func(groups int, x *uint32, w *int8, panels int, sums *int32, unit float64, scale *float32, c *float32, bias *float32, flags uint)"

// s8wPlanesMax is the most planes a kernel takes: beyond it the planes'
// dot products cost more than widening the weights to float32.
const s8wPlanesMax = 6

// s8wQuadsNR is the quads layout's panel width at the AVX-512 levels: four
// zmm of dword lanes; s8wQuadsNRAVX2 at AVX-VNNI's, two ymm.
const (
	s8wQuadsNR     = 64
	s8wQuadsNRAVX2 = 16
)

// emitS8WPlanes writes the kernel for rows of planes bytes: for every
// panel and column j, the int32 sums S_p(j) = Σ_g Σ_t byte t of x[g·planes+p]
// (unsigned) × W(4g+t, j) (signed), then S = Σ_p S_p·2^(8p) −
// sums[j]·2^(8·planes−1) in int64 and C(j) =
// act(float32(float64(S)·(float64(scale[j])·unit)) + bias[j]).
func emitS8WPlanes(f *amd64File, planes int) string {
	const nv = s8wQuadsNR / 16
	name := fmt.Sprintf("s8wPlanesAVX512P%dx%d", planes, s8wQuadsNR)
	f.leafFunction(name, s8wPlanesSignature, fmt.Sprintf("%s computes C(q*%d+j) = act(scale·(X·W) + bias) for a row held as %d byte planes of the fixed-point X (groups×%[3]d dwords from x) and the panels q < panels of int8 weight quads; see s8wPlanesTwin.", name, s8wQuadsNR, planes))
	acc := func(p, j int) reg.VecPhysical { return zmm[p*nv+j] }
	wv := func(j int) reg.VecPhysical { return zmm[24+j] }
	bc := func(p int) reg.VecPhysical { return zmm[28+p%2] }
	zero, unit := zmm[30], zmm[31]
	if planes*nv > 24 {
		panic(name + ": does not fit the registers")
	}
	w := f.Load(f.Param("w"), f.GP64())
	panels := f.Load(f.Param("panels"), f.GP64())
	sums := f.Load(f.Param("sums"), f.GP64())
	scale := f.Load(f.Param("scale"), f.GP64())
	c := f.Load(f.Param("c"), f.GP64())
	bias := f.Load(f.Param("bias"), f.GP64())
	unitAddr, _ := f.Param("unit").Resolve()
	flagsAddr, _ := f.Param("flags").Resolve()
	f.VBROADCASTSD(unitAddr.Addr, unit)
	f.Label("panel")
	for i := 0; i < planes*nv; i++ {
		f.VPXORD(zmm[i], zmm[i], zmm[i])
	}
	x := f.Load(f.Param("x"), f.GP64())
	g := f.Load(f.Param("groups"), f.GP64())
	f.Label("group")
	for j := 0; j < nv; j++ {
		f.VMOVDQU32(mem(w, 64*j), wv(j))
	}
	// The weights stream from memory: fetch them 16 groups ahead.
	for j := 0; j < nv; j++ {
		f.PREFETCHT0(mem(w, 4096+64*j))
	}
	for p := 0; p < planes; p++ {
		f.VPBROADCASTD(mem(x, 4*p), bc(p))
		for j := 0; j < nv; j++ {
			emitRaw(f, vpdpbusd(regIndex(avx512, acc(p, j)), regIndex(avx512, bc(p)), regIndex(avx512, wv(j))))
		}
	}
	f.ADDQ(imm(4*planes), x)
	f.ADDQ(operand.U32(4*s8wQuadsNR), w)
	f.DECQ(g)
	f.JNZ(operand.LabelRef("group"))
	// Combine: 8 columns at a time in int64 lanes, exactly (wrapping, and
	// the true sum fits: s8wSplit checks it), then float64, scaled, to
	// float32; the 16 columns of block j end in acc(0, j).
	t, u, ext, lo, hi := zmm[24], zmm[25], zmm[26], zmm[27], zmm[28]
	for j := 0; j < nv; j++ {
		for h := 0; h < 2; h++ {
			emitPlanesExact(f, planes, func(p int) operand.Op {
				if h == 1 {
					f.VEXTRACTI64X4(imm(1), acc(p, j), ext.AsY())
					return ext.AsY()
				}
				return acc(p, j).AsY()
			}, t, u, mem(sums, 64*j+32*h))
			f.VCVTQQ2PD(t, t)
			f.VCVTPS2PD(mem(scale, 64*j+32*h), u)
			f.VMULPD(unit, u, u)
			f.VMULPD(u, t, t)
			if h == 0 {
				f.VCVTPD2PS(t, lo.AsY())
			} else {
				f.VCVTPD2PS(t, hi.AsY())
			}
		}
		f.VINSERTF32X8(imm(1), hi.AsY(), lo, acc(0, j))
	}
	emitPlanesTail(f, avx512, nv, s8wQuadsNR, func(j int) reg.VecPhysical { return acc(0, j) }, zero, flagsAddr.Addr, panels, c, bias, scale, sums)
	return name
}

// emitPlanesTail ends a planes kernel: the bias and ReLU as the flags (at
// flagsAt) say on the panel's nv result vectors res(j), their store at c,
// and the next panel (c, bias, scale and sums nr columns on). zero is a
// free register.
func emitPlanesTail(f *amd64File, v vecArch, nv, nr int, res func(j int) reg.VecPhysical, zero reg.VecPhysical, flagsAt operand.Mem, panels, c, bias, scale, sums reg.Register) {
	flags := f.GP64()
	f.MOVQ(flagsAt, flags)
	f.TESTQ(operand.U32(flagBias), flags)
	f.JZ(operand.LabelRef("nobias"))
	for j := 0; j < nv; j++ {
		f.VADDPS(mem(bias, v.bytes*j), res(j), res(j))
	}
	f.Label("nobias")
	f.TESTQ(operand.U32(flagReLU), flags)
	f.JZ(operand.LabelRef("norelu"))
	f.VXORPS(zero, zero, zero)
	for j := 0; j < nv; j++ {
		f.VMAXPS(res(j), zero, res(j)) // NaN kept (x86 returns src2),
		f.VADDPS(zero, res(j), res(j)) // and -0 made +0 (XLA's max)
	}
	f.Label("norelu")
	for j := 0; j < nv; j++ {
		f.VMOVUPS(res(j), mem(c, v.bytes*j))
	}
	for _, r := range []reg.Register{c, bias, scale, sums} {
		f.ADDQ(operand.U32(4*nr), r)
	}
	f.DECQ(panels)
	f.JNZ(operand.LabelRef("panel"))
	f.VZEROUPPER()
	f.RET()
}

// emitPlanesExact sets dst to the exact int64 sums of a half of the planes'
// int32 accumulators: Σp half(p)·2^(8p) − sums·2^(8·planes−1), half(p)
// the int32 lanes of plane p's half (emitting what brings them to a
// register), sumsAt the half's column sums, u a free register.
func emitPlanesExact(f *amd64File, planes int, half func(p int) operand.Op, dst, u reg.VecPhysical, sumsAt operand.Mem) {
	for p := 0; p < planes; p++ {
		src := half(p)
		if p == 0 {
			f.VPMOVSXDQ(src, dst)
			continue
		}
		f.VPMOVSXDQ(src, u)
		f.VPSLLQ(imm(8*p), u, u)
		f.VPADDQ(u, dst, dst)
	}
	f.VPMOVSXDQ(sumsAt, u)
	f.VPSLLQ(imm(8*planes-1), u, u)
	f.VPSUBQ(u, dst, dst)
}

// emitS8WWidenQuads writes the kernel that widens groups of weight quads
// (one panel's, of the level's quads width) into float32 rows:
// dst[(4g+t)·nr+j] = float32(W(4g+t, j)), four rows for every group,
// exactly.
func emitS8WWidenQuads(f *amd64File, v vecArch) string {
	nr := s8wQuadsNR
	if !v.kmask {
		nr = s8wQuadsNRAVX2
	}
	lanes := v.lanes(f32)
	nv := nr / lanes
	name := fmt.Sprintf("s8wWidenQuads%sx%d", v.name, nr)
	f.leafFunction(name, "func(dst *float32, w *int8, groups int)", fmt.Sprintf("%s widens groups of int8 weight quads, %d columns each, into 4·groups float32 rows of the columns; see s8wWidenQuadsTwin.", name, nr))
	dst := f.Load(f.Param("dst"), f.GP64())
	w := f.Load(f.Param("w"), f.GP64())
	g := f.Load(f.Param("groups"), f.GP64())
	f.Label("group")
	for t := range 4 {
		for j := 0; j < nv; j++ {
			r := v.vec(t*nv + j)
			var src operand.Op = mem(w, v.bytes*j)
			if !v.kmask { // the VEX shifts take no memory source
				f.VMOVDQU(src, r)
				src = r
			}
			if t < 3 {
				f.VPSLLD(imm(24-8*t), src, r)
				f.VPSRAD(imm(24), r, r)
			} else {
				f.VPSRAD(imm(24), src, r)
			}
			f.VCVTDQ2PS(r, r)
			f.VMOVUPS(r, mem(dst, 4*(t*nr+lanes*j)))
		}
	}
	f.ADDQ(operand.U32(4*nr), w)
	f.ADDQ(operand.U32(16*nr), dst)
	f.DECQ(g)
	f.JNZ(operand.LabelRef("group"))
	f.VZEROUPPER()
	f.RET()
	return name
}

// emitS8WScan writes the scan of a row before its split: over the nonzero
// elements x = m·2^(e−150) (subnormals as e = 1 without the implicit
// bit), the greatest weight of a leading bit, e + bitlen(m) − 1, and the
// least of a lowest set bit, e + tz(m); minLow 1<<30 when every element
// is zero. An infinity or a NaN makes maxLead 278.
func emitS8WScan(f *amd64File) string {
	name := "s8wScanAVX512"
	f.leafFunction(name, "func(x *float32, n int) (maxLead int32, minLow int32)", name+" finds, over the n elements of x, the greatest weight of a leading bit and the least of a lowest set bit; see s8wScanTwin.")
	x := f.Load(f.Param("x"), f.GP64())
	n := f.Load(f.Param("n"), f.GP64())
	abs, mant, impl, one, zero := zmm[20], zmm[21], zmm[22], zmm[23], zmm[24]
	maxAcc, minAcc := zmm[0], zmm[1]
	v, e, m, l, h := zmm[2], zmm[3], zmm[4], zmm[5], zmm[7]
	bcast := func(c uint32, z reg.VecPhysical) {
		f.MOVL(operand.U32(c), reg.EAX)
		f.VPBROADCASTD(reg.EAX, z)
	}
	bcast(0x7fffffff, abs)
	bcast(0x7fffff, mant)
	bcast(0x800000, impl)
	bcast(1, one)
	bcast(0x7fffffff, minAcc)
	f.VPXORD(zero, zero, zero)
	bcast(127, maxAcc) // 0 when every element is zero, as the twin's
	nz, normal, tail := opmasks[0], opmasks[1], opmasks[2]
	// body folds the 16 elements in v (zero lanes ignored).
	body := func() {
		f.VPANDD(abs, v, v)
		f.VPTESTMD(v, v, nz)
		f.VPSRLD(imm(23), v, e)
		f.VPTESTMD(e, e, normal)
		f.VPANDD(mant, v, m)
		f.VPORD(impl, m, normal, m)
		f.VPMAXSD(one, e, e)
		// Exponents of exact conversions: the leading bit's position
		// (127 + bitlen(m) − 1), the lowest set bit's (127 + tz(m)).
		f.VCVTDQ2PS(m, h)
		f.VPSRLD(imm(23), h, h)
		f.VPADDD(e, h, h)
		f.VPMAXSD(h, maxAcc, nz, maxAcc)
		f.VPSUBD(m, zero, l)
		f.VPANDD(m, l, l) // the lowest set bit, a power of two ≤ 2^23
		f.VCVTDQ2PS(l, l)
		f.VPSRLD(imm(23), l, l)
		f.VPADDD(l, e, e)
		f.VPMINSD(e, minAcc, nz, minAcc)
	}
	f.Label("loop")
	f.CMPQ(n, imm(16))
	f.JL(operand.LabelRef("tail"))
	f.VMOVDQU32(mem(x, 0), v)
	body()
	f.ADDQ(imm(64), x)
	f.SUBQ(imm(16), n)
	f.JMP(operand.LabelRef("loop"))
	f.Label("tail")
	f.TESTQ(n, n)
	f.JZ(operand.LabelRef("reduce"))
	f.MOVQ(n, reg.RCX)
	f.MOVL(operand.U32(1), reg.EAX)
	f.SHLL(reg.CL, reg.EAX)
	f.DECL(reg.EAX)
	f.KMOVW(reg.EAX, tail)
	f.VMOVDQU32_Z(mem(x, 0), tail, v)
	body()
	f.Label("reduce")
	t := zmm[6]
	for _, a := range []struct {
		acc reg.VecPhysical
		op  func(a, b, c operand.Op)
	}{{maxAcc, func(a, b, c operand.Op) { f.VPMAXSD(a, b, c) }}, {minAcc, func(a, b, c operand.Op) { f.VPMINSD(a, b, c) }}} {
		f.VEXTRACTI64X4(imm(1), a.acc, t.AsY())
		a.op(t.AsY(), a.acc.AsY(), a.acc.AsY())
		f.VEXTRACTI128(imm(1), a.acc.AsY(), t.AsX())
		a.op(t.AsX(), a.acc.AsX(), a.acc.AsX())
		f.VPSHUFD(imm(0x4e), a.acc.AsX(), t.AsX())
		a.op(t.AsX(), a.acc.AsX(), a.acc.AsX())
		f.VPSHUFD(imm(0xb1), a.acc.AsX(), t.AsX())
		a.op(t.AsX(), a.acc.AsX(), a.acc.AsX())
	}
	f.VMOVD(maxAcc.AsX(), reg.EAX)
	f.SUBL(operand.U32(127), reg.EAX)
	f.Store(reg.EAX, f.ReturnIndex(0))
	f.VMOVD(minAcc.AsX(), reg.EAX)
	f.MOVL(operand.U32(1<<30), reg.ECX)
	f.CMPL(reg.EAX, operand.U32(0x7fffffff))
	f.JEQ(operand.LabelRef("store"))
	f.SUBL(operand.U32(127), reg.EAX)
	f.MOVL(reg.EAX, reg.ECX)
	f.Label("store")
	f.Store(reg.ECX, f.ReturnIndex(1))
	f.VZEROUPPER()
	f.RET()
	return name
}

// emitS8WSplit writes the split of a row into planes: eight elements at a
// time X = x·sc (exact), U = X + off, the bytes of the eight U shuffled into
// two groups' planes (tab: a VPSHUFB index pairing the bytes of each two
// elements, then a VPERMW index placing the pairs), 64 bytes stored every
// 8·planes bytes (the next store overwriting what lies past the planes).
func emitS8WSplit(f *amd64File) string {
	name := "s8wSplitAVX512"
	f.leafFunction(name, "func(dst *uint32, x *float32, n int, sc float64, off uint64, tab *uint8, planes int)", name+" writes the n elements of x as byte planes of x·sc + off; see s8wSplitTwin.")
	dst := f.Load(f.Param("dst"), f.GP64())
	x := f.Load(f.Param("x"), f.GP64())
	n := f.Load(f.Param("n"), f.GP64())
	tab := f.Load(f.Param("tab"), f.GP64())
	stride := f.Load(f.Param("planes"), f.GP64())
	f.SHLQ(imm(3), stride)
	scAddr, _ := f.Param("sc").Resolve()
	offAddr, _ := f.Param("off").Resolve()
	sc, off, shuf, perm, v := zmm[1], zmm[2], zmm[3], zmm[4], zmm[0]
	f.VBROADCASTSD(scAddr.Addr, sc)
	f.VPBROADCASTQ(offAddr.Addr, off)
	f.VMOVDQU64(mem(tab, 0), shuf)
	f.VMOVDQU64(mem(tab, 64), perm)
	body := func() {
		f.VMULPD(sc, v, v)
		f.VCVTTPD2QQ(v, v)
		f.VPADDQ(off, v, v)
		f.VPSHUFB(shuf, v, v)
		f.VPERMW(v, perm, v)
		f.VMOVDQU32(v, mem(dst, 0))
	}
	f.Label("loop")
	f.CMPQ(n, imm(8))
	f.JL(operand.LabelRef("tail"))
	f.VCVTPS2PD(mem(x, 0), v)
	body()
	f.ADDQ(imm(32), x)
	f.ADDQ(stride, dst)
	f.SUBQ(imm(8), n)
	f.JMP(operand.LabelRef("loop"))
	f.Label("tail")
	f.TESTQ(n, n)
	f.JZ(operand.LabelRef("done"))
	f.MOVQ(n, reg.RCX)
	f.MOVL(operand.U32(1), reg.EAX)
	f.SHLL(reg.CL, reg.EAX)
	f.DECL(reg.EAX)
	tail := opmasks[0]
	f.KMOVW(reg.EAX, tail)
	f.VCVTPS2PD_Z(mem(x, 0), tail, v)
	body()
	f.Label("done")
	f.VZEROUPPER()
	f.RET()
	return name
}

package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The planes kernels in ymm for AVX-VNNI (emitS8WPlanes is the AVX-512
// form): without AVX512DQ's VCVTQQ2PD the exact int64 sums turn into
// float64 in two exact halves, U = S + 2^63 as unsigned, float64(U>>32)
// and float64(U&(2^32−1)) by the 2^52 exponent trick, then
// (hi·2^32 − 2^63) exactly by one FMA and + lo with the one rounding.

const (
	s8wConsts  = "s8wPlanesConsts"
	s8wSignAt  = 0   // 0x8000000000000000 in 4 lanes
	s8wMagicAt = 32  // 0x4330000000000000: 2^52 as float64 bits
	s8wLowAt   = 64  // 0x00000000ffffffff
	s8wNeg63At = 96  // −2^63 as float64
	s8wTwo32At = 128 // 2^32 as float64
)

func s8wConst(off int) operand.Mem {
	return operand.NewDataAddr(operand.NewStaticSymbol(s8wConsts), off)
}

func generateS8WConsts(f *amd64File) {
	f.StaticGlobal(s8wConsts)
	f.DataAttributes(attr.RODATA | attr.NOPTR)
	for _, c := range []struct {
		at   int
		bits uint64
	}{{s8wSignAt, 0x8000000000000000}, {s8wMagicAt, 0x4330000000000000}, {s8wLowAt, 0x00000000ffffffff}, {s8wNeg63At, 0xc3e0000000000000}, {s8wTwo32At, 0x41f0000000000000}} {
		for l := 0; l < 4; l++ {
			f.AddDatum(c.at+8*l, operand.U64(c.bits))
		}
	}
}

// emitS8WPlanesAVX2 writes the AVX-VNNI planes kernel for planes planes
// over panels of 16 columns (see emitS8WPlanes for what it computes).
func emitS8WPlanesAVX2(f *amd64File, planes int) string {
	const nv = s8wQuadsNRAVX2 / 8
	name := fmt.Sprintf("s8wPlanesAVX2P%dx%d", planes, s8wQuadsNRAVX2)
	f.leafFunction(name, s8wPlanesSignature, fmt.Sprintf("%s computes C(q*%d+j) = act(scale·(X·W) + bias) for a row held as %d byte planes of the fixed-point X (groups×%[3]d dwords from x) and the panels q < panels of int8 weight quads, with AVX-VNNI; see s8wPlanesTwin.", name, s8wQuadsNRAVX2, planes))
	acc := func(p, j int) reg.VecPhysical { return ymm[p*nv+j] }
	wv := func(j int) reg.VecPhysical { return ymm[12+j] }
	bc := func(p int) reg.VecPhysical { return ymm[14+p%2] }
	if planes*nv > 12 {
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
	f.Label("panel")
	for i := 0; i < planes*nv; i++ {
		f.VPXOR(acc(i/nv, i%nv), acc(i/nv, i%nv), acc(i/nv, i%nv))
	}
	x := f.Load(f.Param("x"), f.GP64())
	g := f.Load(f.Param("groups"), f.GP64())
	f.Label("group")
	for j := 0; j < nv; j++ {
		f.VMOVDQU(mem(w, 32*j), wv(j))
	}
	f.PREFETCHT0(mem(w, 2048))
	for p := 0; p < planes; p++ {
		f.VPBROADCASTD(mem(x, 4*p), bc(p))
		for j := 0; j < nv; j++ {
			emitRaw(f, vpdpbusdVEX(regIndex(avx2, acc(p, j)), regIndex(avx2, bc(p)), regIndex(avx2, wv(j))))
		}
	}
	f.ADDQ(imm(4*planes), x)
	f.ADDQ(operand.U32(4*s8wQuadsNRAVX2), w)
	f.DECQ(g)
	f.JNZ(operand.LabelRef("group"))
	// Combine each block of 8 columns: its two halves' int64 sums S (in
	// t and x4), then each to float64 and scaled, to float32; the block's
	// 8 results end in acc(0, j).
	t, u, x3, x4 := ymm[12], ymm[13], ymm[14], ymm[15]
	exact := func(j, h int, dst reg.VecPhysical) {
		emitPlanesExact(f, planes, func(p int) operand.Op {
			if h == 1 {
				f.VEXTRACTI128(imm(1), acc(p, j), u.AsX())
				return u.AsX()
			}
			return acc(p, j).AsX()
		}, dst, u, mem(sums, 32*j+16*h))
	}
	// scaled turns the int64 sums in s into float32 in out (xmm), using
	// u, x3 and t.
	scaled := func(j, h int, s, out reg.VecPhysical) {
		f.VPXOR(s8wConst(s8wSignAt), s, u) // U = S + 2^63
		f.VPSRLQ(imm(32), u, x3)
		f.VPOR(s8wConst(s8wMagicAt), x3, x3)
		f.VSUBPD(s8wConst(s8wMagicAt), x3, x3) // float64(U>>32), exactly
		f.VPAND(s8wConst(s8wLowAt), u, u)
		f.VPOR(s8wConst(s8wMagicAt), u, u)
		f.VSUBPD(s8wConst(s8wMagicAt), u, u) // float64(U&(2^32−1)), exactly
		f.VBROADCASTSD(s8wConst(s8wTwo32At), t)
		f.VFMADD213PD(s8wConst(s8wNeg63At), t, x3) // hi·2^32 − 2^63, exactly
		f.VADDPD(u, x3, x3)                        // float64(S), rounded once
		f.VCVTPS2PD(mem(scale, 32*j+16*h), t)
		f.VBROADCASTSD(unitAddr.Addr, u)
		f.VMULPD(u, t, t)
		f.VMULPD(t, x3, x3)
		f.VCVTPD2PSY(x3, out.AsX())
	}
	for j := 0; j < nv; j++ {
		exact(j, 0, t)
		exact(j, 1, x4)
		// acc(·, j) are free now: t's result into acc(0, j)'s low half.
		res := acc(0, j)
		f.VMOVAPD(t, res) // keep S of half 0 while t serves as a temporary
		scaled(j, 0, res, res)
		scaled(j, 1, x4, x4)
		f.VINSERTF128(imm(1), x4.AsX(), res, res)
	}
	emitPlanesTail(f, avx2, nv, s8wQuadsNRAVX2, func(j int) reg.VecPhysical { return acc(0, j) }, t, flagsAddr.Addr, panels, c, bias, scale, sums)
	return name
}

package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The bf16pairs family: the two elementwise passes of a bfloat16
// layer-norm's rows (the root package's eltwise_rows_bf16.go) with
// AVX512_BF16, reading 32 elements at a time as their even and odd
// halves. A 64-byte load of 32 bfloat16 values is 16 int32 lanes; shifting
// each lane left by 16 gives the even elements' float32 values, clearing
// its low half the odd ones'. VCVTNE2PS2BF16 rounds both halves to nearest
// even in one instruction (XLA's rounding; the callers make sure no lane
// it reads is subnormal, which it would flush), and the result widens back
// the same way. The sum of squares and the largest deviation do not care
// in which lanes the elements are; the scaled deviations are put back in
// order by one VPERMW before the store.

const (
	pairsConsts    = "bf16PairsConsts"
	pairsHigh      = 0   // 0xffff0000 in 16 lanes
	pairsMagnitude = 64  // 0x7fff7fff
	pairsOrder     = 128 // VPERMW's index (pairsIndex)
	pairsSplit     = 192 // VPERMW's index for the sums (words j and 16+j into int32 lane j)
)

// pairsIndex is the word each element of a scaled pass's result comes
// from: after the first rounding, word k of the deviations holds element
// 2k (k < 16) or 2(k−16)+1; the even-half widening of those words holds
// in lane j word 2j and the odd-half widening word 2j+1, and the second
// rounding puts the even-half products in words 0–15 and the odd-half
// ones in 16–31. Element 4j+q (j < 8) thus comes from word j+8q.
func pairsIndex() []uint16 {
	idx := make([]uint16, 32)
	for e := range idx {
		idx[e] = uint16(e/4 + 8*(e%4))
	}
	return idx
}

func pairsConst(off int) operand.Mem {
	return operand.NewDataAddr(operand.NewStaticSymbol(pairsConsts), off)
}

func generateRowsPairs(o *output) error {
	f := o.amd64
	f.StaticGlobal(pairsConsts)
	f.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 16; l++ {
		f.AddDatum(pairsHigh+4*l, operand.U32(0xffff0000))
	}
	for l := 0; l < 16; l++ {
		f.AddDatum(pairsMagnitude+4*l, operand.U32(0x7fff7fff))
	}
	for e, k := range pairsIndex() {
		f.AddDatum(pairsOrder+2*e, operand.U16(k))
	}
	for w := range 32 {
		f.AddDatum(pairsSplit+2*w, operand.U16(w/2+16*(w%2)))
	}
	sq := emitSumSqDevMaxPairs(f, false)
	sk := emitSumSqDevMaxPairs(f, true)
	sm := emitScaledPairs(f, false)
	mk := emitScaledPairs(f, true)
	su := emitSumPairsBF16(f)
	o.set("levelAVX512BF16", "bf16Pairs", fmt.Sprintf("&bf16PairKernels{sumSqDevMax: %s, sumSqDevMaxKeep: %s, subMul: %s, mulKept: %s, sum: %s}", sq, sk, sm, mk, su))
	return nil
}

// pairsWiden sets e to the float32 values of the even elements of the 32
// bfloat16 values in w and o to the odd ones'.
func pairsWiden(f *amd64File, w, high, e, o reg.VecPhysical) {
	f.VPSLLD(imm(16), w, e)
	f.VPANDD(high, w, o)
}

// pairsRound rounds e and o to bfloat16 into r: its words 0–15 from e,
// 16–31 from o.
func pairsRound(f *amd64File, r, e, o reg.VecPhysical) {
	emitRaw(f, vcvtne2ps2bf16(regIndex(avx512, r), regIndex(avx512, o), regIndex(avx512, e)))
}

// pairsFunction starts a pair kernel: its name, signature and doc lines.
func pairsFunction(f *amd64File, name, sig string, doc ...string) {
	f.Function(name)
	f.Attributes(attr.NOSPLIT)
	f.Pragma("noescape")
	f.SignatureExpr(sig)
	f.Doc(doc...)
}

// emitSumSqDevMaxPairs writes the sum-of-squares pass: for d = bf16(x[i] −
// s), the sum of bf16(d·d) and the largest |d| (its bits; a NaN d makes
// it a NaN). With keep, it also stores each block's d, as rounded, in
// keep: in pair order (words 0–15 the even elements', 16–31 the odd
// ones'), which emitMulKeptPairs reads.
func emitSumSqDevMaxPairs(f *amd64File, keep bool) string {
	name, sig := "sumSqDevMaxPairsBF16AVX512BF16", "func(x []uint16, s float32) (sum float64, hi uint32)"
	doc := []string{name + " returns the sum of the float32 widenings of bf16(d·d) for d = bf16(x[i] - s) (bf16",
		"rounding to nearest even, s a bfloat16 value) and the largest |d| as bfloat16 bits (a NaN d",
		"gives a NaN's), len(x) a multiple of 32, no non-zero |d| or d·d below 2^-126. Four",
		"float32 partial sums fold into float64 every 2,048 elements."}
	if keep {
		name, sig = "sumSqDevMaxKeepPairsBF16AVX512BF16", "func(x []uint16, keep []uint16, s float32) (sum float64, hi uint32)"
		doc = []string{name + " is sumSqDevMaxPairsBF16AVX512BF16 that also stores each block of 32 d in keep",
			"(len(keep) ≥ len(x)) in pair order: the even elements' in words 0–15, the odd ones' in",
			"16–31 (mulKeptPairsBF16AVX512BF16 reads them)."}
	}
	pairsFunction(f, name, sig, doc...)
	x, n, cnt, kp := reg.RSI, reg.RCX, reg.RAX, reg.RDI
	f.Load(f.Param("x").Base(), x)
	f.Load(f.Param("x").Len(), n)
	if keep {
		f.Load(f.Param("keep").Base(), kp)
	}
	s, high, magn := zmm[31], zmm[30], zmm[29]
	f.VBROADCASTSS(addrOf(f.Param("s")), s)
	f.VMOVDQU32(pairsConst(pairsHigh), high)
	f.VMOVDQU32(pairsConst(pairsMagnitude), magn)
	acc := []reg.VecPhysical{zmm[0], zmm[1], zmm[2], zmm[3]}
	tot0, tot1, hiW := zmm[4], zmm[5], zmm[6]
	for _, a := range acc {
		f.VPXORD(a, a, a)
	}
	f.VPXORD(tot0, tot0, tot0)
	f.VPXORD(tot1, tot1, tot1)
	f.VPXORD(hiW, hiW, hiW)
	// stages are block u's instructions in the order they depend on one
	// another; the main loop runs each stage for its four blocks before
	// the next, so that the core finds independent work ahead instead of
	// each block's chain of roundings. Blocks alternate between the two
	// pairs of accumulators, so each accumulator sums its blocks in the
	// order a block at a time would.
	stages := func(u int) []func() {
		w, e, o, r := zmm[8+4*u], zmm[9+4*u], zmm[10+4*u], zmm[11+4*u]
		a0, a1 := acc[2*(u%2)], acc[2*(u%2)+1]
		return []func(){
			func() { f.VMOVDQU32(mem(x, 64*u), w) },
			func() { pairsWiden(f, w, high, e, o) },
			func() {
				f.VSUBPS(s, e, e)
				f.VSUBPS(s, o, o)
			},
			func() { pairsRound(f, r, e, o) },
			func() {
				if keep {
					f.VMOVDQU32(r, mem(kp, 64*u))
				}
				f.VPANDD(magn, r, w)
				f.VPMAXUW(w, hiW, hiW)
				pairsWiden(f, r, high, e, o)
			},
			func() {
				f.VMULPS(e, e, e)
				f.VMULPS(o, o, o)
			},
			func() { pairsRound(f, r, e, o) },
			func() { pairsWiden(f, r, high, e, o) },
			func() {
				f.VADDPS(e, a0, a0)
				f.VADDPS(o, a1, a1)
			},
		}
	}
	body := func(u int) {
		for _, st := range stages(u) {
			st()
		}
	}
	const unroll = 4
	interleaved := func() {
		var all [unroll][]func()
		for u := range all {
			all[u] = stages(u)
		}
		for k := range all[0] {
			for u := range all {
				all[u][k]()
			}
		}
	}
	flush := func() {
		emitPairsFold(f, acc, tot0, tot1, zmm[7], zmm[24])
		for _, a := range acc {
			f.VPXORD(a, a, a)
		}
	}
	f.Label("main")
	f.MOVQ(operand.U32(2048/(32*unroll)), cnt)
	f.Label("inner")
	f.CMPQ(n, operand.U32(32*unroll))
	f.JL(operand.LabelRef("tail"))
	interleaved()
	f.ADDQ(operand.U32(64*unroll), x)
	if keep {
		f.ADDQ(operand.U32(64*unroll), kp)
	}
	f.SUBQ(operand.U32(32*unroll), n)
	f.DECQ(cnt)
	f.JNZ(operand.LabelRef("inner"))
	flush()
	f.JMP(operand.LabelRef("main"))
	// The last blocks, fewer than unroll, one at a time.
	f.Label("tail")
	for u := range unroll - 1 {
		f.CMPQ(n, operand.U32(32*(u+1)))
		f.JL(operand.LabelRef("done"))
		body(u)
	}
	f.Label("done")
	flush()
	// The float64 total.
	f.VADDPD(tot1, tot0, tot0)
	f.VEXTRACTF64X4(imm(1), tot0, zmm[7].AsY())
	f.VADDPD(zmm[7].AsY(), tot0.AsY(), tot0.AsY())
	f.VEXTRACTF128(imm(1), tot0.AsY(), zmm[7].AsX())
	f.VADDPD(zmm[7].AsX(), tot0.AsX(), tot0.AsX())
	f.VPERMILPD(imm(1), tot0.AsX(), zmm[7].AsX())
	f.VADDSD(zmm[7].AsX(), tot0.AsX(), tot0.AsX())
	f.VMOVSD(tot0.AsX(), addrOf(f.Return("sum")))
	// The largest magnitude's bits: the largest of 32 words.
	f.VEXTRACTI64X4(imm(1), hiW, zmm[7].AsY())
	f.VPMAXUW(zmm[7].AsY(), hiW.AsY(), hiW.AsY())
	f.VEXTRACTI128(imm(1), hiW.AsY(), zmm[7].AsX())
	f.VPMAXUW(zmm[7].AsX(), hiW.AsX(), hiW.AsX())
	f.VPSHUFD(imm(0x4e), hiW.AsX(), zmm[7].AsX())
	f.VPMAXUW(zmm[7].AsX(), hiW.AsX(), hiW.AsX())
	f.VPSHUFD(imm(0xb1), hiW.AsX(), zmm[7].AsX())
	f.VPMAXUW(zmm[7].AsX(), hiW.AsX(), hiW.AsX())
	f.VPSRLD(imm(16), hiW.AsX(), zmm[7].AsX())
	f.VPMAXUW(zmm[7].AsX(), hiW.AsX(), hiW.AsX())
	f.VMOVD(hiW.AsX(), reg.EDX)
	f.ANDL(operand.U32(0xffff), reg.EDX)
	f.SHLL(imm(16), reg.EDX)
	f.MOVL(reg.EDX, addrOf(f.Return("hi")))
	f.VZEROUPPER()
	f.RET()
	return name
}

// emitScaledPairs writes a scaled pass. Without kept: dst[i] =
// bf16(bf16(x[i] − s)·r). With kept: dst[i] = bf16(d·r) for the d of
// element i that a keep pass stored in pair order, so that the deviations
// are neither widened from x nor subtracted and rounded again; after
// widening the kept words and rounding the products, element i sits where
// pairsIndex says (the words went through the pair order twice, as in the
// subtract-and-scale pass). Both prefetch x and dst eight rows on: the
// flat row loop of a row program runs each pass over a batch of eight
// rows, so the next row is already in L1 when it is read; the row a batch
// later comes from L3 or memory (in A/B runs of the bfloat16 layer-norm,
// 4096×768, 6 % less time with its data in memory, 2 % in L3).
func emitScaledPairs(f *amd64File, kept bool) string {
	name, sig := "subMulPairsBF16AVX512BF16", "func(dst []uint16, x []uint16, s float32, r float32)"
	doc := []string{name + " sets dst[i] = bf16(bf16(x[i] - s)·r) (bf16 rounding to nearest even, s a",
		"bfloat16 value), len(dst) a multiple of 32, no non-zero |bf16(x[i] - s)| or product",
		"below 2^-126. It prefetches eight times as many bytes past x (for reading) and past",
		"dst (for writing): the row of a row program eight rows on, which the row loop reaches",
		"a batch of eight rows later."}
	if kept {
		name, sig = "mulKeptPairsBF16AVX512BF16", "func(dst []uint16, keep []uint16, x []uint16, r float32)"
		doc = []string{name + " sets dst[i] = bf16(d·r) (bf16 rounding to nearest even) for the deviations d",
			"sumSqDevMaxKeepPairsBF16AVX512BF16 left in keep (len(keep) ≥ len(dst)), len(dst) a",
			"multiple of 32, no non-zero product below 2^-126. It prefetches eight times as many",
			"bytes past x (for reading; x is not read) and past dst (for writing): the row of a",
			"row program eight rows on."}
	}
	pairsFunction(f, name, sig, doc...)
	dst, x, n, ahead := reg.RDI, reg.RSI, reg.RCX, reg.RDX
	src, ptrs := x, []reg.Register{x, dst}
	if kept {
		x, src = reg.RBX, reg.RSI
		ptrs = []reg.Register{src, x, dst}
		f.Load(f.Param("dst").Base(), dst)
		f.Load(f.Param("keep").Base(), src)
		f.Load(f.Param("x").Base(), x)
	} else {
		f.Load(f.Param("dst").Base(), dst)
		f.Load(f.Param("x").Base(), x)
	}
	f.Load(f.Param("dst").Len(), n)
	f.MOVQ(n, ahead)
	f.SHLQ(imm(4), ahead) // 2·8 bytes an element: eight rows ahead
	s, rr, high, order := zmm[31], zmm[30], zmm[29], zmm[28]
	if !kept {
		f.VBROADCASTSS(addrOf(f.Param("s")), s)
	}
	f.VBROADCASTSS(addrOf(f.Param("r")), rr)
	f.VMOVDQU32(pairsConst(pairsHigh), high)
	f.VMOVDQU16(pairsConst(pairsOrder), order)
	body := func(u int) {
		w, e, o, r := zmm[4*u], zmm[4*u+1], zmm[4*u+2], zmm[4*u+3]
		f.PREFETCHT0(memIdx(x, ahead, 1, 64*u))
		f.VMOVDQU32(mem(src, 64*u), w)
		pairsWiden(f, w, high, e, o)
		if !kept {
			f.VSUBPS(s, e, e)
			f.VSUBPS(s, o, o)
			pairsRound(f, r, e, o)
			pairsWiden(f, r, high, e, o)
		}
		f.VMULPS(rr, e, e)
		f.VMULPS(rr, o, o)
		pairsRound(f, r, e, o)
		f.VPERMW(r, order, w)
		emitRaw(f, prefetchwDstAhead(64*u))
		f.VMOVDQU32(w, mem(dst, 64*u))
	}
	emitPairsLoop(f, n, body, ptrs...)
	return name
}

// emitPairsLoop ends a scaled pass: body(u) for four blocks of 32
// elements at a time, then one at a time, the pointers moving on with
// them, while n (the elements left) allows; then it returns.
func emitPairsLoop(f *amd64File, n reg.Register, body func(u int), ptrs ...reg.Register) {
	f.Label("loop")
	f.CMPQ(n, operand.U32(128))
	f.JL(operand.LabelRef("tail"))
	for u := range 4 {
		body(u)
	}
	for _, p := range ptrs {
		f.ADDQ(operand.U32(256), p)
	}
	f.SUBQ(operand.U32(128), n)
	f.JMP(operand.LabelRef("loop"))
	f.Label("tail")
	f.CMPQ(n, operand.U32(32))
	f.JL(operand.LabelRef("done"))
	body(0)
	for _, p := range ptrs {
		f.ADDQ(operand.U32(64), p)
	}
	f.SUBQ(operand.U32(32), n)
	f.JMP(operand.LabelRef("tail"))
	f.Label("done")
	f.VZEROUPPER()
	f.RET()
}

// prefetchwDstAhead is PREFETCHW [rdi+rdx+disp]: the line of a later row
// of dst that this one's line at disp stands for, fetched for writing.
func prefetchwDstAhead(disp int) rawInst {
	return rawInst{fmt.Sprintf("prefetchw [rdi+rdx+%d]", disp),
		[]byte{0x0f, 0x0d, 0x8c, 0x17, byte(disp), byte(disp >> 8), byte(disp >> 16), byte(disp >> 24)}}
}

// emitSumPairsBF16 writes the sum of a bfloat16 row that reads 32
// elements at a time as the float32 reduce family's sumBF16 does not: one
// 64-byte load, a VPERMW that puts element j and element 16+j in the two
// halves of int32 lane j, a shift and a mask that widen them — where the
// family's kernel widens each 16 elements with VPMOVZXWD and a shift.
// Each element goes to the same lane of the same accumulator, in the same
// order, and the folds are the same instructions, so the sum has the bits
// of the AVX-512 sumBF16 (and of Sum over the widened row): four
// accumulators of 16 float32 lanes, folded into two float64 totals every
// 2,048 elements, then 16 elements at a time.
func emitSumPairsBF16(f *amd64File) string {
	name := "sumPairsBF16AVX512BF16"
	pairsFunction(f, name, "func(x []uint16) (sum float64)",
		name+" returns what sumBF16AVX512 returns for x, len(x) a multiple of 16.")
	x, n, cnt := reg.RSI, reg.RCX, reg.RAX
	f.Load(f.Param("x").Base(), x)
	f.Load(f.Param("x").Len(), n)
	acc := []reg.VecPhysical{zmm[31], zmm[30], zmm[29], zmm[28]}
	tot0, tot1, zero, zero64 := zmm[27], zmm[26], zmm[25], zmm[24]
	high, split := zmm[23], zmm[22]
	f.VPXORD(zero.AsX(), zero.AsX(), zero.AsX())
	f.VPXORD(zero64.AsX(), zero64.AsX(), zero64.AsX())
	f.VMOVDQU32(pairsConst(pairsHigh), high)
	f.VMOVDQU16(pairsConst(pairsSplit), split)
	for _, a := range acc {
		f.VMOVAPS(zero, a)
	}
	f.VMOVAPS(zero64, tot0)
	f.VMOVAPS(zero64, tot1)
	f.Label("main")
	f.CMPQ(n, operand.U32(64))
	f.JL(operand.LabelRef("tail"))
	f.MOVQ(operand.U32(32), cnt)
	f.Label("inner")
	for h := range 2 {
		f.VPERMW(mem(x, 64*h), split, zmm[2*h])
	}
	for h := range 2 {
		f.VPSLLD(imm(16), zmm[2*h], zmm[2*h+1])
		f.VPANDD(high, zmm[2*h], zmm[2*h])
	}
	for h := range 2 {
		f.VADDPS(zmm[2*h+1], acc[2*h], acc[2*h])
		f.VADDPS(zmm[2*h], acc[2*h+1], acc[2*h+1])
	}
	f.ADDQ(operand.U32(128), x)
	f.SUBQ(operand.U32(64), n)
	f.DECQ(cnt)
	f.JZ(operand.LabelRef("flush"))
	f.CMPQ(n, operand.U32(64))
	f.JGE(operand.LabelRef("inner"))
	f.Label("flush")
	emitPairsFold(f, acc, tot0, tot1, zmm[0], zmm[1])
	for _, a := range acc {
		f.VMOVAPS(zero, a)
	}
	f.JMP(operand.LabelRef("main"))
	f.Label("tail")
	f.CMPQ(n, operand.U32(16))
	f.JL(operand.LabelRef("done"))
	f.VPMOVZXWD(mem(x, 0), zmm[0])
	f.VPSLLD(imm(16), zmm[0], zmm[0])
	f.VADDPS(zmm[0], acc[0], acc[0])
	f.ADDQ(operand.U32(32), x)
	f.SUBQ(operand.U32(16), n)
	f.JMP(operand.LabelRef("tail"))
	f.Label("done")
	f.VADDPS(acc[1], acc[0], zmm[0])
	f.VADDPS(acc[3], acc[2], zmm[1])
	f.VADDPS(zmm[1], zmm[0], zmm[0])
	f.VCVTPS2PD(zmm[0].AsY(), zmm[1])
	f.VADDPD(zmm[1], tot0, zmm[1])
	f.VEXTRACTF64X4(imm(1), zmm[0], zmm[0].AsY())
	f.VCVTPS2PD(zmm[0].AsY(), zmm[0])
	f.VADDPD(zmm[0], tot1, zmm[0])
	f.VADDPD(zmm[0], zmm[1], zmm[1])
	f.VEXTRACTF64X4(imm(1), zmm[1], zmm[0].AsY())
	f.VADDPD(zmm[0], zmm[1], zmm[1])
	f.VEXTRACTF32X4(imm(1), zmm[1].AsY(), zmm[0].AsX())
	f.VADDPD(zmm[0], zmm[1], zmm[1])
	f.VMOVHLPS(zmm[1].AsX(), zmm[1].AsX(), zmm[0].AsX())
	f.VADDPD(zmm[0], zmm[1], zmm[1])
	f.VMOVSD(zmm[1].AsX(), addrOf(f.Return("sum")))
	f.VZEROUPPER()
	f.RET()
	return name
}

// emitPairsFold folds four float32 accumulators into two float64 totals
// as the reduce family's cascade does: (acc0+acc1)+(acc2+acc3), its low
// eight lanes widened into tot0 and its high eight into tot1; t0 and t1
// are scratch.
func emitPairsFold(f *amd64File, acc []reg.VecPhysical, tot0, tot1, t0, t1 reg.VecPhysical) {
	f.VADDPS(acc[1], acc[0], t0)
	f.VADDPS(acc[3], acc[2], t1)
	f.VADDPS(t1, t0, t0)
	f.VCVTPS2PD(t0.AsY(), t1)
	f.VADDPD(t1, tot0, tot0)
	f.VEXTRACTF64X4(imm(1), t0, t0.AsY())
	f.VCVTPS2PD(t0.AsY(), t0)
	f.VADDPD(t0, tot1, tot1)
}

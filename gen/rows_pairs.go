package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The bf16pairs family: the two elementwise passes of a bfloat16
// layer-norm's rows (the root package's eltwise_rows_bf16.go) with
// AVX512_BF16, 32 elements at a time. A 64-byte load of 32 bfloat16
// values is 16 int32 lanes. Unpacking its words against zero (VPUNPCKLWD,
// VPUNPCKHWD) widens them into two vectors of float32 values, in an order
// of their own (pairsUnpack); VCVTNE2PS2BF16 rounds two vectors to
// nearest even in one instruction (XLA's rounding; the callers make sure
// no lane it reads is subnormal, which it would flush), and the result
// widens back the same way. The sum of squares subtracts with VDPBF16PS
// (below) and sums with it. The sum does not care in which lanes the
// elements are; the scaled deviations are put back in order by one VPERMW
// before the store. Every instruction counts: on Zen 5 these passes are
// bound by the vector pipes, and unpacking and VDPBF16PS run beside the
// adds and roundings where a shift would take their pipes.

const (
	pairsConsts    = "bf16PairsConsts"
	pairsOrder     = 0   // VPERMW's index of the subtract-and-scale pass (pairsIndex(false))
	pairsKeptOrder = 64  // VPERMW's index of the kept pass (pairsIndex(true))
	pairsSplit     = 128 // VPERMW's index for the sums (pairsSplitIndex)
	pairsEvenOne   = 192 // bfloat16 1 in the even word of each int32 lane, 0 in the odd one
	pairsOddOne    = 256 // bfloat16 1 in the odd word, 0 in the even one
	pairsOnes      = 320 // bfloat16 1 in every word
)

// pairsUnpack is the element each int32 lane of a widening holds, given
// the element each word of the widened vector holds: VPUNPCKLWD against
// zero (hi false) puts words 0–3 of each 128-bit lane q in lanes 4q…4q+3,
// VPUNPCKHWD (hi true) words 4–7.
func pairsUnpack(words []int, hi bool) []int {
	lanes := make([]int, 16)
	for q := range 4 {
		for i := range 4 {
			w := 8*q + i
			if hi {
				w += 4
			}
			lanes[4*q+i] = words[w]
		}
	}
	return lanes
}

// pairsRounded is the element each word of VPCVTNE2PS2BF16's result
// holds: words 0–15 the low widening's lanes, 16–31 the high one's.
func pairsRounded(words []int) []int {
	return append(pairsUnpack(words, false), pairsUnpack(words, true)...)
}

// pairsInterleaved is the element each word of VPCVTNE2PS2BF16's result
// holds where its two vectors were the even and the odd elements of a
// block (the sum of squares' subtraction by VDPBF16PS): words 0–15 the
// even elements, 16–31 the odd ones. It is the order the deviations are
// kept in.
func pairsInterleaved() []int {
	words := make([]int, 32)
	for k := range 16 {
		words[k], words[16+k] = 2*k, 2*k+1
	}
	return words
}

// pairsIndex is VPERMW's index that puts the words of a scaled pass's
// result back in element order. Word k of the result holds element
// out[k]: the subtract-and-scale pass widens and rounds twice
// (pairsRounded of pairsRounded of the loaded order); the kept pass widens
// and rounds the deviations in the order the sum of squares kept them
// (pairsRounded of pairsInterleaved).
func pairsIndex(kept bool) []uint16 {
	words := make([]int, 32)
	for e := range words {
		words[e] = e
	}
	out := pairsRounded(pairsRounded(words))
	if kept {
		out = pairsRounded(pairsInterleaved())
	}
	idx := make([]uint16, 32)
	for k, e := range out {
		idx[e] = uint16(k)
	}
	return idx
}

// pairsSplitIndex is VPERMW's index that places 32 loaded elements so
// that the two widenings hold elements 0–15 and 16–31 in order, lane j
// element j (the reduce family's order): word 8q+i takes element 4q+i and
// word 8q+4+i element 16+4q+i.
func pairsSplitIndex() []uint16 {
	idx := make([]uint16, 32)
	for q := range 4 {
		for i := range 4 {
			idx[8*q+i] = uint16(4*q + i)
			idx[8*q+4+i] = uint16(16 + 4*q + i)
		}
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
	for e, k := range pairsIndex(false) {
		f.AddDatum(pairsOrder+2*e, operand.U16(k))
	}
	for e, k := range pairsIndex(true) {
		f.AddDatum(pairsKeptOrder+2*e, operand.U16(k))
	}
	for w, e := range pairsSplitIndex() {
		f.AddDatum(pairsSplit+2*w, operand.U16(e))
	}
	// Each in order: the assembler takes DATA in increasing offsets.
	for _, c := range []struct {
		off  int
		lane uint32
	}{{pairsEvenOne, 0x00003f80}, {pairsOddOne, 0x3f800000}, {pairsOnes, 0x3f803f80}} {
		for l := range 16 {
			f.AddDatum(c.off+4*l, operand.U32(c.lane))
		}
	}
	sq := emitSumSqDevPairs(f, false)
	sk := emitSumSqDevPairs(f, true)
	sm := emitScaledPairs(f, false)
	mk := emitScaledPairs(f, true)
	su := emitSumPairsBF16(f)
	o.set("levelAVX512BF16", "bf16Pairs", fmt.Sprintf("&bf16PairKernels{sumSqDev: %s, sumSqDevKeep: %s, subMul: %s, mulKept: %s, sum: %s}", sq, sk, sm, mk, su))
	return nil
}

// pairsWiden sets e and o to the float32 values of the 32 bfloat16 values
// in w: e to words 0–3 of each 128-bit lane, o to words 4–7
// (pairsUnpack). Unpacking against zero runs on every vector pipe, where
// a shift would take the adder's, which the subtractions, the sums and
// the roundings need.
func pairsWiden(f *amd64File, w, zero, e, o reg.VecPhysical) {
	f.VPUNPCKLWD(w, zero, e)
	f.VPUNPCKHWD(w, zero, o)
}

// pairsRound rounds e and o to bfloat16 into r: its words 0–15 from e,
// 16–31 from o.
func pairsRound(f *amd64File, r, e, o reg.VecPhysical) {
	emitRaw(f, vcvtne2ps2bf16(regIndex(avx512, r), regIndex(avx512, o), regIndex(avx512, e)))
}

// emitSumSqDevPairs writes the sum-of-squares pass: the sum of bf16(d·d)
// for d = bf16(x[i] − s). With keep, it also stores each block's d, as
// rounded, in keep, in pair order (pairsInterleaved), which
// emitScaledPairs' kept pass reads.
//
// VDPBF16PS does the subtraction and the sum. Into a lane holding −s it
// adds x's odd element times 0, then its even one times 1 (pairsEvenOne;
// pairsOddOne the other way): −s + 0 is −s, and the sum rounds once, as
// VSUBPS would. Its inputs are flushed to zero where subnormal, which
// changes nothing while s is at least 2^-55 in magnitude (the callers'
// pairsDeviationsNormal): a subnormal x lies below half a unit of s's
// float32 value, so x − s rounds to −s either way. But where the other
// element of the pair is infinite or NaN, 0 times it is NaN, and the
// lane's d with it: the sum is then NaN, and the caller recomputes the row
// without this kernel (it could only have been infinite or NaN). The
// squares, rounded to bfloat16, are summed by VDPBF16PS against bfloat16
// ones: each lane adds its odd square, then its even one.
func emitSumSqDevPairs(f *amd64File, keep bool) string {
	name, sig := "sumSqDevPairsBF16AVX512BF16", "func(x []uint16, n int, s []float32, sums []float64)"
	doc := []string{name + " sets sums[j], for each of the len(s) rows j of n elements of x (n a multiple",
		"of 32), to the sum of the float32 widenings of bf16(d·d) for d = bf16(x[i] - s[j]) (bf16",
		"rounding to nearest even, s[j] a bfloat16 value with |s[j]| ≥ 2^-55, no non-zero |d| or d·d",
		"below 2^-126) — or to a NaN where some x[i] of the row is infinite or NaN (the sum is then",
		"infinite or NaN, and the kernel computes d wrongly beside such an element). Four float32",
		"partial sums fold into float64 every 2,048 elements."}
	if keep {
		name, sig = "sumSqDevKeepPairsBF16AVX512BF16", "func(x []uint16, keep []uint16, out []uint16, n int, s []float32, sums []float64)"
		doc = []string{name + " is sumSqDevPairsBF16AVX512BF16 that also stores each block of 32 d in keep",
			"(as long as x) in pair order: the even elements' in words 0–15, the odd ones' in 16–31",
			"(mulKeptPairsBF16AVX512BF16 reads them), and fetches out (as long as x: where the rows'",
			"results go next) into the cache for writing. Where a row's sum is NaN, some of the kept",
			"deviations are wrong."}
	}
	f.leafFunction(name, sig, doc...)
	x, n, cnt, kp := reg.RSI, reg.RCX, reg.RAX, reg.RDI
	out := reg.RBX
	params, ptrs := []string{"x"}, []reg.Register{x}
	if keep {
		params, ptrs = append(params, "keep", "out"), append(ptrs, kp, out)
	}
	rl := pairsRowLoop(f, params, ptrs, "s", "sums")
	negS, zero, evenOne, oddOne, ones := zmm[31], zmm[30], zmm[29], zmm[28], zmm[27]
	f.VPXORD(zero, zero, zero)
	f.VMOVDQU32(pairsConst(pairsEvenOne), evenOne)
	f.VMOVDQU32(pairsConst(pairsOddOne), oddOne)
	f.VMOVDQU32(pairsConst(pairsOnes), ones)
	acc := []reg.VecPhysical{zmm[0], zmm[1], zmm[2], zmm[3]}
	tot0, tot1 := zmm[4], zmm[5]
	rl.start(n)
	f.VBROADCASTSS(operand.Mem{Base: rl.scalars}, negS)
	f.MOVL(operand.U32(0x80000000), reg.EDX)
	f.VPBROADCASTD(reg.EDX, zmm[6])
	f.VPXORD(zmm[6], negS, negS)
	for _, a := range acc {
		f.VPXORD(a, a, a)
	}
	f.VPXORD(tot0, tot0, tot0)
	f.VPXORD(tot1, tot1, tot1)
	dp := func(d, s1, s2 reg.VecPhysical) {
		emitRaw(f, vdpbf16ps(regIndex(avx512, d), regIndex(avx512, s1), regIndex(avx512, s2)))
	}
	// stages are block u's instructions in the order they depend on one
	// another; the main loop runs each stage for its four blocks before
	// the next, so that the core finds independent work ahead instead of
	// each block's chain of roundings. Block u sums into accumulator u.
	stages := func(u int) []func() {
		w, e, o, r := zmm[8+4*u], zmm[9+4*u], zmm[10+4*u], zmm[11+4*u]
		a := acc[u%len(acc)]
		return []func(){
			func() {
				f.VMOVDQU32(mem(x, 64*u), w)
				if keep {
					emitRaw(f, prefetchwRBX(64*u))
				}
			},
			func() {
				f.VMOVAPS(negS, e)
				f.VMOVAPS(negS, o)
			},
			func() {
				dp(e, w, evenOne)
				dp(o, w, oddOne)
			},
			func() { pairsRound(f, r, e, o) },
			func() {
				if keep {
					f.VMOVDQU32(r, mem(kp, 64*u))
				}
				pairsWiden(f, r, zero, e, o)
			},
			func() {
				f.VMULPS(e, e, e)
				f.VMULPS(o, o, o)
			},
			func() { pairsRound(f, r, e, o) },
			func() { dp(a, r, ones) },
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
		f.ADDQ(operand.U32(64*unroll), out)
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
	f.VMOVSD(tot0.AsX(), operand.Mem{Base: rl.results})
	rl.next()
	return name
}

// pairsRows is the row loop of a pair kernel that takes a batch of rows
// of n elements, one after another: the rows' base pointers, advanced by
// 2n bytes a row and copied into the working pointers at its start, a
// pointer to the row's float32 scalar and one to its float64 result, each
// advanced by one element a row, and the rows left.
type pairsRows struct {
	f                         *amd64File
	bases, ptrs               []reg.Register
	n, rows, scalars, results reg.Register
}

// pairsRowLoop loads a row kernel's arguments: the slices named params
// (their working pointers ptrs), the elements per row (the parameter n),
// the scalars and the results (names; "" for none). The rows are
// len(scalars), or with none len(results).
func pairsRowLoop(f *amd64File, params []string, ptrs []reg.Register, scalars, results string) *pairsRows {
	rl := &pairsRows{f: f, n: reg.R10, rows: reg.R11, scalars: reg.R12, results: reg.R13}
	bases := []reg.Register{reg.R8, reg.R9, reg.R14}
	for i, p := range params {
		f.Load(f.Param(p).Base(), bases[i])
		rl.bases = append(rl.bases, bases[i])
		rl.ptrs = append(rl.ptrs, ptrs[i])
	}
	f.Load(f.Param("n"), rl.n)
	if scalars != "" {
		f.Load(f.Param(scalars).Base(), rl.scalars)
		f.Load(f.Param(scalars).Len(), rl.rows)
	}
	if results != "" {
		f.Load(f.Param(results).Base(), rl.results)
		if scalars == "" {
			f.Load(f.Param(results).Len(), rl.rows)
		}
	}
	return rl
}

// start begins the row loop: it returns when no row is left, and
// otherwise sets the working pointers to the row's and count to n.
func (rl *pairsRows) start(count reg.Register) {
	f := rl.f
	f.Label("row")
	f.TESTQ(rl.rows, rl.rows)
	f.JZ(operand.LabelRef("rowsdone"))
	for i, b := range rl.bases {
		f.MOVQ(b, rl.ptrs[i])
	}
	f.MOVQ(rl.n, count)
}

// next ends a row: the bases and the scalar and result pointers move on,
// and the loop goes to the next row; after the last, the kernel returns.
func (rl *pairsRows) next() {
	f := rl.f
	for _, b := range rl.bases {
		f.LEAQ(memIdx(b, rl.n, 2, 0), b)
	}
	f.ADDQ(operand.U32(4), rl.scalars)
	f.ADDQ(operand.U32(8), rl.results)
	f.DECQ(rl.rows)
	f.JMP(operand.LabelRef("row"))
	f.Label("rowsdone")
	f.VZEROUPPER()
	f.RET()
}

// emitScaledPairs writes a scaled pass. Without kept: dst[i] =
// bf16(bf16(x[i] − s)·r). With kept: dst[i] = bf16(d·r) for the d of
// element i that a keep pass stored in pair order, so that the deviations
// are neither widened from x nor subtracted and rounded again. Each puts
// the rounded products back in element order with its pairsIndex. Neither
// prefetches: with the row loop's batch of eight rows in L1, fetching the
// next batch's input and output lines from here evicted this batch's (in
// A/B runs of the bfloat16 layer-norm, 4096×768, on Zen 5, 5 % faster
// without).
func emitScaledPairs(f *amd64File, kept bool) string {
	name, sig := "subMulPairsBF16AVX512BF16", "func(dst []uint16, x []uint16, s float32, r float32)"
	doc := []string{name + " sets dst[i] = bf16(bf16(x[i] - s)·r) (bf16 rounding to nearest even, s a",
		"bfloat16 value), len(dst) a multiple of 32, no non-zero |bf16(x[i] - s)| or product",
		"below 2^-126."}
	if kept {
		name, sig = "mulKeptPairsBF16AVX512BF16", "func(dst []uint16, keep []uint16, next []uint16, n int, r []float32)"
		doc = []string{name + " sets, for each of the len(r) rows j of n elements (n a multiple of 32),",
			"dst[i] = bf16(d·r[j]) (bf16 rounding to nearest even) for the deviations d",
			"sumSqDevKeepPairsBF16AVX512BF16 left in keep (as long as dst), no non-zero product below",
			"2^-126, and fetches next (as long as dst: what the next pass reads) into the cache."}
	}
	f.leafFunction(name, sig, doc...)
	dst, src, n := reg.RDI, reg.RSI, reg.RCX
	s, rr, zero, order := zmm[31], zmm[30], zmm[29], zmm[28]
	var rl *pairsRows
	if kept {
		rl = pairsRowLoop(f, []string{"dst", "keep", "next"}, []reg.Register{dst, src, reg.RBX}, "r", "")
	} else {
		f.Load(f.Param("dst").Base(), dst)
		f.Load(f.Param("x").Base(), src)
		f.Load(f.Param("dst").Len(), n)
		f.VBROADCASTSS(addrOf(f.Param("s")), s)
		f.VBROADCASTSS(addrOf(f.Param("r")), rr)
	}
	f.VPXORD(zero, zero, zero)
	if kept {
		f.VMOVDQU16(pairsConst(pairsKeptOrder), order)
		rl.start(n)
		f.VBROADCASTSS(operand.Mem{Base: rl.scalars}, rr)
	} else {
		f.VMOVDQU16(pairsConst(pairsOrder), order)
	}
	body := func(u int) {
		w, e, o, r := zmm[4*u], zmm[4*u+1], zmm[4*u+2], zmm[4*u+3]
		f.VMOVDQU32(mem(src, 64*u), w)
		if kept {
			f.PREFETCHT0(mem(reg.RBX, 64*u))
		}
		pairsWiden(f, w, zero, e, o)
		if !kept {
			f.VSUBPS(s, e, e)
			f.VSUBPS(s, o, o)
			pairsRound(f, r, e, o)
			pairsWiden(f, r, zero, e, o)
		}
		f.VMULPS(rr, e, e)
		f.VMULPS(rr, o, o)
		pairsRound(f, r, e, o)
		f.VPERMW(r, order, w)
		f.VMOVDQU32(w, mem(dst, 64*u))
	}
	end := func() {
		f.VZEROUPPER()
		f.RET()
	}
	ptrs := []reg.Register{src, dst}
	if kept {
		end = rl.next
		ptrs = append(ptrs, reg.RBX)
	}
	emitPairsLoop(f, n, body, end, ptrs...)
	return name
}

// prefetchwRBX is PREFETCHW [rbx+disp]: a line fetched for writing.
func prefetchwRBX(disp int) rawInst {
	return rawInst{fmt.Sprintf("prefetchw [rbx+%d]", disp),
		[]byte{0x0f, 0x0d, 0x8b, byte(disp), byte(disp >> 8), byte(disp >> 16), byte(disp >> 24)}}
}

// emitPairsLoop ends a scaled pass: body(u) for four blocks of 32
// elements at a time, then one at a time, the pointers moving on with
// them, while n (the elements left) allows; then end.
func emitPairsLoop(f *amd64File, n reg.Register, body func(u int), end func(), ptrs ...reg.Register) {
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
	end()
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
	f.leafFunction(name, "func(x []uint16, n int, sums []float64)",
		name+" sets sums[j] to what sumBF16AVX512 returns for row j of the len(sums) rows of n",
		"elements of x, n a multiple of 16.")
	x, n, cnt := reg.RSI, reg.RCX, reg.RAX
	rl := pairsRowLoop(f, []string{"x"}, []reg.Register{x}, "", "sums")
	acc := []reg.VecPhysical{zmm[31], zmm[30], zmm[29], zmm[28]}
	tot0, tot1, zero, zero64 := zmm[27], zmm[26], zmm[25], zmm[24]
	split := zmm[22]
	f.VPXORD(zero.AsX(), zero.AsX(), zero.AsX())
	f.VPXORD(zero64.AsX(), zero64.AsX(), zero64.AsX())
	f.VMOVDQU16(pairsConst(pairsSplit), split)
	rl.start(n)
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
		pairsWiden(f, zmm[2*h], zero, zmm[2*h+1], zmm[2*h])
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
	f.VMOVSD(zmm[1].AsX(), operand.Mem{Base: rl.results})
	rl.next()
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

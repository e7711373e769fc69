package main

import (
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The sort family: a bitonic sort of unsigned 32-bit keys in 16-lane
// AVX-512 vectors, for the row sorts of keys alone (sort_vector.go). The
// row is a power of two of at least 256 keys. Each block of 256 keys (16
// vectors) is sorted in registers: each vector by a ten-step network
// (partner lanes by a shuffle, then the minimum and, in the upper lanes of
// each pair, the maximum by a masked move), then the vectors merged by
// steps between registers. Larger blocks are then merged in place: the
// first step of a merge pairs each vector of the lower half with the
// mirrored one of the upper half (lanes reversed), the next ones pair
// vectors a power of two apart, and the steps within a block of 256 keys
// run in registers again. Every step puts the smaller key at the lower
// position, so the row ends ascending.

const sortSig = "func(row *uint32, n int, keys *uint32, m int, tab *[96]uint32)"

// sortNet emits the register steps of the bitonic network on a block of
// 16 vectors held in r (renamed as steps complete), with the free vector
// registers free.
type sortNet struct {
	f      *amd64File
	r      []reg.VecPhysical
	free   []reg.VecPhysical
	rev    reg.VecPhysical // the lane indices 15…0
	xor7   reg.VecPhysical // the lane indices i^7
	kUp    map[int]reg.OpmaskPhysical
	rs, ws int
}

func (s *sortNet) take() reg.VecPhysical {
	t := s.free[len(s.free)-1]
	s.free = s.free[:len(s.free)-1]
	return t
}

func (s *sortNet) give(t reg.VecPhysical) { s.free = append(s.free, t) }

// partner writes to t vector v with each lane i replaced by lane p(i):
// p is i^1, i^2, i^3, i^4, i^7, i^8 or i^15 (by its code).
func (s *sortNet) partner(code int, v, t reg.VecPhysical) {
	f := s.f
	switch code {
	case 1:
		f.VPSHUFD(imm(0xb1), v, t)
	case 2:
		f.VPSHUFD(imm(0x4e), v, t)
	case 3:
		f.VPSHUFD(imm(0x1b), v, t)
	case 4:
		f.VSHUFI32X4(imm(0xb1), v, v, t)
	case 8:
		f.VSHUFI32X4(imm(0x4e), v, v, t)
	case 7:
		f.VPERMD(v, s.xor7, t)
	case 15:
		f.VPERMD(v, s.rev, t)
	default:
		panic("gen: sort: no partner permutation")
	}
}

// lanes is one step within each vector: lane i against lane i^code, the
// lanes with bit set in their index keep the larger key.
func (s *sortNet) lanes(code, bit int) {
	f := s.f
	for i, v := range s.r {
		t := s.take()
		s.partner(code, v, t)
		u := s.take()
		f.VPMINUD(t, v, u)
		f.VPMAXUD(t, v, s.kUp[bit], u)
		s.give(t)
		s.give(v)
		s.r[i] = u
	}
}

// vectors is one step between vectors a distance d apart within blocks of
// 2d vectors; with flip, the first step of a merge, vector q of a block of
// 2d pairs with vector 2d-1-q, lanes reversed.
func (s *sortNet) vectors(d int, flip bool) {
	f := s.f
	for b := 0; b < len(s.r); b += 2 * d {
		for q := 0; q < d; q++ {
			lo, hi := b+q, b+d+q
			if flip {
				hi = b + 2*d - 1 - q
			}
			a, c := s.r[lo], s.r[hi]
			if flip {
				t := s.take()
				f.VPERMD(c, s.rev, t)
				u := s.take()
				f.VPMINUD(t, a, u)
				f.VPMAXUD(t, a, t)
				f.VPERMD(t, s.rev, c)
				s.give(t)
				s.give(a)
				s.r[lo] = u
				continue
			}
			u := s.take()
			f.VPMINUD(c, a, u)
			f.VPMAXUD(c, a, c)
			s.give(a)
			s.r[lo] = u
		}
	}
}

// inVector is the end of a merge within each vector: the steps of
// distance 8, 4, 2 and 1.
func (s *sortNet) inVector() {
	for _, d := range []int{8, 4, 2, 1} {
		s.lanes(d, d)
	}
}

func emitSortU32AVX512(f *amd64File) string {
	name := "sortU32AVX512"
	f.leafFunction(name, sortSig)
	f.Doc(name+" sorts the n 32-bit keys of row in the order of a key transform, in keys (m of them,",
		"m a power of two of at least 256, m ≥ n). tab holds the lane indices 15…0 and i^7 (0…31),",
		"the transform k = b ^ (tab[80] & sar(b, 31)) ^ tab[81] and its inverse",
		"b = k ^ tab[82] ^ (tab[83] & sar(k, 31)), and row[0] (tab[84]). It leaves in tab[32:48]",
		"the OR of every b ^ row[0], in tab[48:64] the largest b & 0x7fffffff and in tab[64:80] the",
		"least b ^ 0x80000000; where tab[85] is not zero and row holds a -0 or a NaN, it sets",
		"tab[86] to 1 and leaves row as it was.")
	keys, n, end := reg.RDI, reg.RSI, reg.RDX
	row, nr, pp := reg.R13, reg.R14, reg.RAX
	f.Load(f.Param("row"), row)
	f.Load(f.Param("n"), nr)
	f.Load(f.Param("keys"), keys)
	f.Load(f.Param("m"), n)
	f.Load(f.Param("tab"), pp)
	f.SHLQ(imm(2), n) // bytes
	f.LEAQ(memIdx(keys, n, 1, 0), end)
	// The keys of row, transformed, to keys; the rest of keys the largest
	// key. Z16 = m1, Z17 = c, Z18 = m0, Z19 = dm, Z20 = row[0], Z21 the
	// OR of the differences, Z22 all ones; K5 the tail's lanes.
	m1, c, m0, dm, v0, acc, ones := zmm[16], zmm[17], zmm[18], zmm[19], zmm[20], zmm[21], zmm[22]
	f.VPBROADCASTD(mem(pp, 4*80), m1)
	f.VPBROADCASTD(mem(pp, 4*81), c)
	f.VPBROADCASTD(mem(pp, 4*82), m0)
	f.VPBROADCASTD(mem(pp, 4*83), dm)
	f.VPBROADCASTD(mem(pp, 4*84), v0)
	f.VPXORD(acc, acc, acc)
	f.VPTERNLOGD(imm(0xff), ones, ones, ones)
	// Z23 the largest magnitude, Z24 the least key with its sign flipped
	// (zero for a -0); Z25 = 0x7fffffff, Z26 = 0x80000000, Z27 = +Inf.
	maxAbs, minFlip, absMask, sign, inf := zmm[23], zmm[24], zmm[25], zmm[26], zmm[27]
	f.VPXORD(maxAbs, maxAbs, maxAbs)
	f.VMOVDQA32(ones, minFlip)
	f.VPSRLD(imm(1), ones, absMask)
	f.VPSLLD(imm(31), ones, sign)
	f.MOVL(operand.U32(0x7f800000), reg.ECX)
	f.VPBROADCASTD(reg.ECX, inf)
	tail := opmasks[4]
	f.MOVL(nr.As32(), reg.ECX)
	f.ANDL(imm(15), reg.ECX)
	f.MOVL(operand.U32(1), reg.EBX)
	f.SHLL(reg.CL, reg.EBX)
	f.DECL(reg.EBX)
	f.KMOVW(reg.EBX, tail)
	specials := func(v, t reg.VecPhysical) {
		f.VPANDD(absMask, v, t)
		f.VPMAXUD(t, maxAbs, maxAbs)
		f.VPXORD(sign, v, t)
		f.VPMINUD(t, minFlip, minFlip)
	}
	fwd := func(v, t reg.VecPhysical) {
		specials(v, t)
		f.VPXORD(v0, v, t)
		f.VPORD(t, acc, acc)
		f.VPSRAD(imm(31), v, t)
		f.VPANDD(m1, t, t)
		f.VPXORD(t, v, v)
		f.VPXORD(c, v, v)
	}
	src, dst, cnt := reg.R8, reg.R9, reg.R10
	f.MOVQ(row, src)
	f.MOVQ(keys, dst)
	f.MOVQ(nr, cnt)
	f.SHRQ(imm(4), cnt)
	f.JZ(operand.LabelRef("inTail"))
	f.Label("inLoop")
	f.VMOVDQU32(mem(src, 0), zmm[0])
	fwd(zmm[0], zmm[1])
	f.VMOVDQU32(zmm[0], mem(dst, 0))
	f.ADDQ(imm(64), src)
	f.ADDQ(imm(64), dst)
	f.DECQ(cnt)
	f.JNZ(operand.LabelRef("inLoop"))
	f.Label("inTail")
	f.KORTESTW(tail, tail)
	f.JZ(operand.LabelRef("pad"))
	f.VMOVDQU32_Z(mem(src, 0), tail, zmm[0])
	specials(zmm[0], zmm[1]) // the tail's zero lanes are neither
	f.VPXORD(v0, zmm[0], zmm[1])
	f.VPORD(zmm[1], acc, tail, acc)
	f.VPSRAD(imm(31), zmm[0], zmm[1])
	f.VPANDD(m1, zmm[1], zmm[1])
	f.VPXORD(zmm[1], zmm[0], zmm[0])
	f.VPXORD(c, zmm[0], zmm[0])
	f.VMOVDQA32(ones, zmm[2])
	f.VMOVDQA32(zmm[0], tail, zmm[2])
	f.VMOVDQU32(zmm[2], mem(dst, 0))
	f.ADDQ(imm(64), dst)
	f.Label("pad")
	f.CMPQ(dst, end)
	f.JAE(operand.LabelRef("sorted"))
	f.VMOVDQU32(ones, mem(dst, 0))
	f.ADDQ(imm(64), dst)
	f.JMP(operand.LabelRef("pad"))
	f.Label("sorted")
	f.VMOVDQU32(acc, mem(pp, 4*32))
	f.VMOVDQU32(maxAbs, mem(pp, 4*48))
	f.VMOVDQU32(minFlip, mem(pp, 4*64))
	f.CMPL(mem(pp, 4*85), operand.U32(0))
	f.JE(operand.LabelRef("sort"))
	f.VPCMPUD(imm(6), inf, maxAbs, opmasks[5])
	f.VPTESTNMD(minFlip, minFlip, opmasks[6])
	f.KORTESTW(opmasks[5], opmasks[6])
	f.JZ(operand.LabelRef("sort"))
	f.MOVL(operand.U32(1), mem(pp, 4*86))
	f.JMP(operand.LabelRef("ret"))
	f.Label("sort")
	s := &sortNet{f: f, rev: zmm[30], xor7: zmm[31], kUp: map[int]reg.OpmaskPhysical{}}
	f.VMOVDQU32(mem(pp, 0), s.rev)
	f.VMOVDQU32(mem(pp, 64), s.xor7)
	for i, bit := range []int{1, 2, 4, 8} {
		m := 0
		for l := 0; l < 16; l++ {
			if l&bit != 0 {
				m |= 1 << l
			}
		}
		f.MOVL(operand.U32(uint32(m)), reg.ECX)
		f.KMOVW(reg.ECX, opmasks[i])
		s.kUp[bit] = opmasks[i]
	}
	reset := func() {
		s.r = append([]reg.VecPhysical(nil), zmm[:16]...)
		s.free = append([]reg.VecPhysical(nil), zmm[16:30]...)
	}
	load := func(p reg.Register) {
		for i, v := range s.r {
			f.VMOVDQU32(mem(p, 64*i), v)
		}
	}
	store := func(p reg.Register) {
		for i, v := range s.r {
			f.VMOVDQU32(v, mem(p, 64*i))
		}
	}

	// Each block of 256 keys, sorted in registers.
	p := reg.RBX
	f.MOVQ(keys, p)
	f.Label("block")
	reset()
	load(p)
	s.lanes(1, 1)
	s.lanes(3, 2)
	s.lanes(1, 1)
	s.lanes(7, 4)
	s.lanes(2, 2)
	s.lanes(1, 1)
	s.lanes(15, 8)
	s.lanes(4, 4)
	s.lanes(2, 2)
	s.lanes(1, 1)
	for k := 2; k <= 16; k *= 2 {
		s.vectors(k/2, true)
		for d := k / 4; d >= 1; d /= 2 {
			s.vectors(d, false)
		}
		s.inVector()
	}
	store(p)
	f.ADDQ(operand.U32(1024), p)
	f.CMPQ(p, end)
	f.JB(operand.LabelRef("block"))

	// Merges of blocks of sz bytes, 2048 and up.
	sz, base, lo, hi, d := reg.R8, reg.R9, reg.R10, reg.R11, reg.R12
	f.MOVQ(operand.U32(2048), sz)
	f.Label("merge")
	f.CMPQ(sz, n)
	f.JA(operand.LabelRef("done"))
	// The first step: mirrored vectors, four pairs at a time.
	f.MOVQ(keys, base)
	f.Label("flipBlock")
	f.MOVQ(base, lo)
	f.LEAQ(memIdx(base, sz, 1, -64), hi)
	f.Label("flipPair")
	for u := 0; u < 4; u++ {
		a, b, t := zmm[3*u], zmm[3*u+1], zmm[3*u+2]
		f.VMOVDQU32(mem(lo, 64*u), a)
		f.VPERMD(mem(hi, -64*u), s.rev, b)
		f.VPMINUD(b, a, t)
		f.VPMAXUD(b, a, b)
		f.VPERMD(b, s.rev, b)
		f.VMOVDQU32(t, mem(lo, 64*u))
		f.VMOVDQU32(b, mem(hi, -64*u))
	}
	f.ADDQ(operand.U32(256), lo)
	f.SUBQ(operand.U32(256), hi)
	f.CMPQ(lo, hi)
	f.JB(operand.LabelRef("flipPair"))
	f.ADDQ(sz, base)
	f.CMPQ(base, end)
	f.JB(operand.LabelRef("flipBlock"))
	// The steps of distance d from sz/4 down to 1024 bytes.
	f.MOVQ(sz, d)
	f.SHRQ(imm(1), d)
	f.Label("half")
	f.SHRQ(imm(1), d)
	f.CMPQ(d, operand.U32(1024))
	f.JB(operand.LabelRef("inBlock"))
	f.MOVQ(keys, base)
	f.Label("halfBlock")
	f.MOVQ(base, lo)
	f.LEAQ(memIdx(base, d, 1, 0), hi)
	f.Label("halfPair")
	for u := 0; u < 4; u++ {
		a, b, t := zmm[3*u], zmm[3*u+1], zmm[3*u+2]
		f.VMOVDQU32(mem(lo, 64*u), a)
		f.VMOVDQU32(memIdx(lo, d, 1, 64*u), b)
		f.VPMINUD(b, a, t)
		f.VPMAXUD(b, a, b)
		f.VMOVDQU32(t, mem(lo, 64*u))
		f.VMOVDQU32(b, memIdx(lo, d, 1, 64*u))
	}
	f.ADDQ(operand.U32(256), lo)
	f.CMPQ(lo, hi)
	f.JB(operand.LabelRef("halfPair"))
	f.LEAQ(memIdx(hi, d, 1, 0), base)
	f.CMPQ(base, end)
	f.JB(operand.LabelRef("halfBlock"))
	f.JMP(operand.LabelRef("half"))
	// The steps within each block of 256 keys, in registers.
	f.Label("inBlock")
	f.MOVQ(keys, p)
	f.Label("inBlockLoop")
	reset()
	load(p)
	for dv := 8; dv >= 1; dv /= 2 {
		s.vectors(dv, false)
	}
	s.inVector()
	store(p)
	f.ADDQ(operand.U32(1024), p)
	f.CMPQ(p, end)
	f.JB(operand.LabelRef("inBlockLoop"))
	f.SHLQ(imm(1), sz)
	f.JMP(operand.LabelRef("merge"))
	// The first n keys back to row, mapped back.
	f.Label("done")
	f.VPBROADCASTD(mem(pp, 4*82), m0)
	f.VPBROADCASTD(mem(pp, 4*83), dm)
	bwd := func(v, t reg.VecPhysical) {
		f.VPSRAD(imm(31), v, t)
		f.VPANDD(dm, t, t)
		f.VPXORD(m0, t, t)
		f.VPXORD(t, v, v)
	}
	f.MOVQ(keys, src)
	f.MOVQ(row, dst)
	f.MOVQ(nr, cnt)
	f.SHRQ(imm(4), cnt)
	f.JZ(operand.LabelRef("outTail"))
	f.Label("outLoop")
	f.VMOVDQU32(mem(src, 0), zmm[0])
	bwd(zmm[0], zmm[1])
	f.VMOVDQU32(zmm[0], mem(dst, 0))
	f.ADDQ(imm(64), src)
	f.ADDQ(imm(64), dst)
	f.DECQ(cnt)
	f.JNZ(operand.LabelRef("outLoop"))
	f.Label("outTail")
	f.KORTESTW(tail, tail)
	f.JZ(operand.LabelRef("ret"))
	f.VMOVDQU32(mem(src, 0), zmm[0])
	bwd(zmm[0], zmm[1])
	f.VMOVDQU32(zmm[0], tail, mem(dst, 0))
	f.Label("ret")
	f.VZEROUPPER()
	f.RET()
	return name
}

func generateSort(o *output) error {
	name := emitSortU32AVX512(o.amd64)
	o.set("levelAVX512", "sortU32", name)
	return nil
}

package main

import (
	"fmt"
	"sort"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The amd64 backend of the vector programs: AVX-512 (zmm, opmask registers)
// and AVX2 (ymm, masks in vector registers) from the same code, through avo
// with physical registers chosen by the allocator.

func init() {
	for _, t := range []*target{tAVX512, tAVX512BF16, tAVX2} {
		t := t
		t.destructive = func(in *inst) []int {
			switch in.op {
			case opFMA, opFNMA:
				return []int{0, 1, 2}
			}
			return nil
		}
		t.scratch = func(in *inst) int { return x86Scratch(t, in) }
	}
}

func x86Scratch(t *target, in *inst) int {
	switch in.op {
	case opPack32, opMNot:
		return 1
	case opLoad:
		if in.el == eMask {
			return 1
		}
	case opStore:
		switch {
		case in.el == eMask:
			if t == tAVX2 {
				return 2
			}
			return 1
		case elemSize[in.el] < 4 && t == tAVX2:
			return 1
		case in.el == eBF16 && t.nativeBF16:
			return 2
		}
	}
	return 0
}

// x86Gen writes one kernel for one vector level.
type x86Gen struct {
	labels int // local labels made so far
	f      *amd64File
	t      *target
	v      vecArch
	k      *vkernel
	a      *allocation
	pool   *constPool
	ptr    map[int]reg.GPPhysical
	frame  map[string]operand.Mem
}

// gpStreams are the registers holding the slice pointers; CX counts.
var gpStreams = []reg.GPPhysical{reg.RSI, reg.RDI, reg.RDX, reg.RBX, reg.R8, reg.R9, reg.R10, reg.R11, reg.R12, reg.R13}

func vecArchOf(t *target) vecArch {
	if t.vecBytes == 64 {
		return avx512
	}
	return avx2
}

// emitX86VKernel writes k for the target and returns the function's name.
func emitX86VKernel(f *amd64File, pool *constPool, k *vkernel, t *target) (string, error) {
	a, u, err := k.compile(t)
	if err != nil {
		return "", err
	}
	name := k.name + t.name
	g := &x86Gen{f: f, t: t, v: vecArchOf(t), k: k, a: a, pool: pool, ptr: map[int]reg.GPPhysical{}}
	f.leafFunction(name, "func"+k.signature(), fmt.Sprintf("%s %s, with %s (whole vectors of %d lanes; see the Go twin %sGo).", name, k.doc, t.name, t.lanes(k.lane), k.name))

	lanes := t.lanes(k.lane)
	count := reg.RCX
	first := true
	si := 0
	for i, arg := range k.args {
		if arg.kind != aSlice {
			continue
		}
		if first {
			f.Load(f.Param(arg.name).Len(), count)
			first = false
		}
		if si >= len(gpStreams) {
			return "", fmt.Errorf("%s: too many slices", name)
		}
		g.ptr[i] = gpStreams[si]
		f.Load(f.Param(arg.name).Base(), gpStreams[si])
		si++
	}
	g.code(a.pro)
	advance := func(copies int) {
		for i, arg := range k.args {
			if arg.kind == aSlice {
				f.ADDQ(operand.U32(copies*lanes*elemSize[arg.elem]), g.ptr[i])
			}
		}
		f.SUBQ(operand.U32(copies*lanes), count)
	}
	switch {
	case k.flushEvery > 0:
		// main: up to flushEvery iterations, then the flush.
		f.Label("main")
		f.CMPQ(count, operand.U32(u*lanes))
		f.JL(operand.LabelRef("tail"))
		f.MOVQ(operand.U32(k.flushEvery), reg.RAX)
		f.Label("inner")
		g.code(a.body)
		g.code(a.bodyMoves)
		advance(u)
		f.DECQ(reg.RAX)
		f.JZ(operand.LabelRef("flush"))
		f.CMPQ(count, operand.U32(u*lanes))
		f.JGE(operand.LabelRef("inner"))
		f.Label("flush")
		g.code(a.flush)
		g.code(a.flushMoves)
		f.JMP(operand.LabelRef("main"))
	case u > 1:
		f.Label("main")
		f.CMPQ(count, operand.U32(u*lanes))
		f.JL(operand.LabelRef("tail"))
		g.code(a.body)
		g.code(a.bodyMoves)
		advance(u)
		f.JMP(operand.LabelRef("main"))
	default:
		// With one copy the tail loop is the main loop.
		a.tail, a.tailMoves = a.body, a.bodyMoves
	}
	f.Label("tail")
	f.CMPQ(count, operand.U32(lanes))
	f.JL(operand.LabelRef("done"))
	g.code(a.tail)
	g.code(a.tailMoves)
	advance(1)
	f.JMP(operand.LabelRef("tail"))
	f.Label("done")
	g.code(a.epi)
	if k.nt {
		f.SFENCE() // order the non-temporal stores before the caller's
	}
	f.VZEROUPPER()
	f.RET()
	return name, nil
}

func (g *x86Gen) vec(r int) reg.VecPhysical { return g.v.vec(r) }

func (g *x86Gen) kr(r int) reg.OpmaskPhysical { return opmasks[r-1] }

func (g *x86Gen) code(code []pinst) {
	for i := range code {
		g.inst(&code[i])
	}
}

func (g *x86Gen) isMask(k vkind) bool { return g.t.isMaskReg(k) }

func (g *x86Gen) move(k vkind, from, to int) {
	if from == to {
		return
	}
	if g.isMask(k) {
		g.f.KMOVW(g.kr(from), g.kr(to))
		return
	}
	g.f.VMOVAPS(g.vec(from), g.vec(to))
}

func (g *x86Gen) inst(in *pinst) {
	f, t := g.f, g.t
	avx512 := t.vecBytes == 64
	d := in.rd
	ra := in.ra
	a := func(i int) reg.VecPhysical { return g.vec(ra[i]) }
	var dst reg.VecPhysical
	if d >= 0 && !g.isMask(g.a.p.kind(in.res)) {
		dst = g.vec(d)
	}
	f64 := in.kind == vF64
	pick := func(ps, pd op) op {
		if f64 {
			return pd
		}
		return ps
	}
	c := f.Context
	switch in.op {
	case opConst:
		bits := g.a.p.vals[in.res].bits
		switch {
		case bits == 0 && avx512:
			f.VPXORD(dst.AsX(), dst.AsX(), dst.AsX()) // zeroes the whole register
		case bits == 0:
			f.VPXOR(dst, dst, dst)
		case in.kind == vF64:
			f.VBROADCASTSD(g.pool.addr64(bits), dst)
		default:
			f.VBROADCASTSS(g.pool.addr32(uint32(bits)), dst)
		}
	case opIota:
		if avx512 {
			f.VMOVDQU32(g.pool.iota(16), dst)
		} else {
			f.VMOVDQU(g.pool.iota(8), dst)
		}
	case opParam:
		b, err := f.Param(g.k.args[in.imm].name).Resolve()
		if err != nil {
			panic(err)
		}
		if in.kind == vF64 {
			f.VBROADCASTSD(b.Addr, dst)
		} else {
			f.VBROADCASTSS(b.Addr, dst)
		}
	case opMove, opCast:
		g.move(in.kind, ra[0], d)
	case opLoad:
		g.load(in, dst)
	case opStore:
		g.store(in)
	case opAdd:
		pick((*build.Context).VADDPS, (*build.Context).VADDPD)(c, a(1), a(0), dst)
	case opSub:
		pick((*build.Context).VSUBPS, (*build.Context).VSUBPD)(c, a(1), a(0), dst)
	case opMul:
		pick((*build.Context).VMULPS, (*build.Context).VMULPD)(c, a(1), a(0), dst)
	case opDiv:
		pick((*build.Context).VDIVPS, (*build.Context).VDIVPD)(c, a(1), a(0), dst)
	case opSqrt:
		pick((*build.Context).VSQRTPS, (*build.Context).VSQRTPD)(c, a(0), dst)
	case opMaxC: // (x, c): MAXPS(src1=c, src2=x) returns src2 on NaN
		pick((*build.Context).VMAXPS, (*build.Context).VMAXPD)(c, a(0), a(1), dst)
	case opMinC:
		pick((*build.Context).VMINPS, (*build.Context).VMINPD)(c, a(0), a(1), dst)
	case opFMA, opFNMA:
		f231 := pick((*build.Context).VFMADD231PS, (*build.Context).VFMADD231PD)
		f213 := pick((*build.Context).VFMADD213PS, (*build.Context).VFMADD213PD)
		if in.op == opFNMA {
			f231 = pick((*build.Context).VFNMADD231PS, (*build.Context).VFNMADD231PD)
			f213 = pick((*build.Context).VFNMADD213PS, (*build.Context).VFNMADD213PD)
		}
		switch in.dst {
		case 2: // c = a·b + c
			f231(c, a(1), a(0), dst)
		case 0: // a = b·a + c
			f213(c, a(2), a(1), dst)
		case 1: // b = a·b + c
			f213(c, a(2), a(0), dst)
		default:
			g.move(in.kind, ra[2], d)
			f231(c, a(1), a(0), dst)
		}
	case opLdexp: // (p, n): VSCALEFPS computes src2·2^floor(src3)
		f.VSCALEFPS(a(1), a(0), dst)
	case opRound:
		mode := imm(0x08 | roundImm[in.imm])
		switch {
		case avx512:
			pick((*build.Context).VRNDSCALEPS, (*build.Context).VRNDSCALEPD)(c, mode, a(0), dst)
		case f64:
			f.VROUNDPD(mode, a(0), dst)
		default:
			f.VROUNDPS(mode, a(0), dst)
		}
	case opAnd, opOr, opXor, opAndNot:
		var o op
		if avx512 {
			o = map[vop]op{opAnd: (*build.Context).VPANDD, opOr: (*build.Context).VPORD, opXor: (*build.Context).VPXORD, opAndNot: (*build.Context).VPANDND}[in.op]
			if f64 {
				o = map[vop]op{opAnd: (*build.Context).VPANDQ, opOr: (*build.Context).VPORQ, opXor: (*build.Context).VPXORQ, opAndNot: (*build.Context).VPANDNQ}[in.op]
			}
		} else {
			o = map[vop]op{opAnd: (*build.Context).VANDPS, opOr: (*build.Context).VORPS, opXor: (*build.Context).VXORPS, opAndNot: (*build.Context).VANDNPS}[in.op]
		}
		if in.op == opAndNot { // a &^ b = ANDN(src1=b, src2=a)
			o(c, a(0), a(1), dst)
		} else {
			o(c, a(1), a(0), dst)
		}
	case opAddI:
		f.VPADDD(a(1), a(0), dst)
	case opSubI:
		f.VPSUBD(a(1), a(0), dst)
	case opShl:
		f.VPSLLD(imm(in.imm), a(0), dst)
	case opShr:
		f.VPSRLD(imm(in.imm), a(0), dst)
	case opSar:
		f.VPSRAD(imm(in.imm), a(0), dst)
	case opCvtIF:
		f.VCVTDQ2PS(a(0), dst)
	case opCvtFI:
		f.VCVTTPS2DQ(a(0), dst)
	case opCvtFIR:
		f.VCVTPS2DQ(a(0), dst)
	case opLoF64:
		if avx512 {
			f.VCVTPS2PD(a(0).AsY(), dst)
		} else {
			f.VCVTPS2PD(a(0).AsX(), dst)
		}
	case opHiF64:
		if avx512 {
			f.VEXTRACTF64X4(imm(1), a(0), dst.AsY())
			f.VCVTPS2PD(dst.AsY(), dst)
		} else {
			f.VEXTRACTF128(imm(1), a(0), dst.AsX())
			f.VCVTPS2PD(dst.AsX(), dst)
		}
	case opCvtF16:
		if avx512 {
			f.VCVTPS2PH(imm(0), a(0), dst.AsY())
			f.VPMOVZXWD(dst.AsY(), dst)
		} else {
			f.VCVTPS2PH(imm(0), a(0), dst.AsX())
			f.VPMOVZXWD(dst.AsX(), dst)
		}
	case opPack32:
		s := g.vec(in.rs[0])
		if avx512 {
			f.VCVTPD2PS(a(1), s.AsY())
			f.VCVTPD2PS(a(0), dst.AsY())
			f.VINSERTF64X4(imm(1), s.AsY(), dst, dst)
		} else {
			f.VCVTPD2PSY(a(1), s.AsX())
			f.VCVTPD2PSY(a(0), dst.AsX())
			f.VINSERTF128(imm(1), s.AsX(), dst, dst)
		}
	case opCmp:
		cmp := pick((*build.Context).VCMPPS, (*build.Context).VCMPPD)
		if avx512 {
			cmp(c, imm(cmpImm[in.imm]), a(1), a(0), g.kr(d))
		} else {
			cmp(c, imm(cmpImm[in.imm]), a(1), a(0), dst)
		}
	case opCmpGt:
		if avx512 {
			f.VPCMPGTD(a(1), a(0), g.kr(d))
		} else {
			f.VPCMPGTD(a(1), a(0), dst)
		}
	case opCmpEq:
		if avx512 {
			f.VPCMPEQD(a(1), a(0), g.kr(d))
		} else {
			f.VPCMPEQD(a(1), a(0), dst)
		}
	case opMAnd, opMOr:
		if avx512 {
			if in.op == opMAnd {
				f.KANDW(g.kr(ra[1]), g.kr(ra[0]), g.kr(d))
			} else {
				f.KORW(g.kr(ra[1]), g.kr(ra[0]), g.kr(d))
			}
		} else if in.op == opMAnd {
			f.VPAND(a(1), a(0), dst)
		} else {
			f.VPOR(a(1), a(0), dst)
		}
	case opMNot:
		if avx512 {
			f.KNOTW(g.kr(ra[0]), g.kr(d))
		} else {
			s := g.vec(in.rs[0])
			f.VPCMPEQD(s, s, s)
			f.VPXOR(s, a(0), dst)
		}
	case opBlend: // (m, x, y): m ? x : y
		if avx512 {
			blend := (*build.Context).VBLENDMPS
			if f64 {
				blend = (*build.Context).VBLENDMPD
			}
			blend(c, a(1), a(2), g.kr(ra[0]), dst)
		} else {
			blend := (*build.Context).VBLENDVPS
			if f64 {
				blend = (*build.Context).VBLENDVPD
			}
			blend(c, a(0), a(1), a(2), dst)
		}
	case opShuf:
		g.shuf(in, a(0), dst)
	case opRet:
		b, err := f.ReturnIndex(in.imm).Resolve()
		if err != nil {
			panic(err)
		}
		if f64 {
			f.VMOVSD(a(0).AsX(), b.Addr)
		} else {
			f.VMOVSS(a(0).AsX(), b.Addr)
		}
	case opRetVec:
		b, err := f.ReturnIndex(in.imm).Index(0).Resolve()
		if err != nil {
			panic(err)
		}
		f.VMOVUPS(a(0), b.Addr)
	default:
		panic(fmt.Sprintf("%s: no x86 code for %v", g.k.name, in.op))
	}
}

// roundImm maps the rounding modes to ROUNDPS/VRNDSCALEPS immediates.
var roundImm = [...]int{roundNearest: 0, roundFloor: 1, roundCeil: 2, roundTrunc: 3}

// cmpImm maps the predicates to CMPPS immediates: ordered and signalling
// where it does not matter (exceptions are masked), unordered for ≠.
var cmpImm = [...]int{cmpEQ: 0x00, cmpNE: 0x04, cmpLT: 0x01, cmpLE: 0x02, cmpGT: 0x0e, cmpGE: 0x0d, cmpUnord: 0x03}

func (g *x86Gen) shuf(in *pinst, x, dst reg.VecPhysical) {
	f := g.f
	w := in.imm
	if in.kind == vF64 {
		w *= 2 // in float32 lanes
	}
	switch w {
	case 16:
		f.VEXTRACTF64X4(imm(1), x, dst.AsY())
	case 8:
		if g.t.vecBytes == 64 {
			f.VEXTRACTF32X4(imm(1), x.AsY(), dst.AsX())
		} else {
			f.VEXTRACTF128(imm(1), x, dst.AsX())
		}
	case 4:
		f.VMOVHLPS(x.AsX(), x.AsX(), dst.AsX())
	case 2:
		f.VMOVSHDUP(x.AsX(), dst.AsX())
	default:
		panic(fmt.Sprintf("shuffle of width %d", in.imm))
	}
}

func (g *x86Gen) memAt(in *pinst) operand.Mem {
	arg := g.k.args[in.imm]
	lanes := g.t.lanes(g.k.lane)
	return mem(g.ptr[in.imm], in.imm2*lanes*elemSize[arg.elem])
}

func (g *x86Gen) load(in *pinst, dst reg.VecPhysical) {
	f := g.f
	m := g.memAt(in)
	avx512 := g.t.vecBytes == 64
	switch e := in.el; e {
	case eF32, eI32:
		f.VMOVUPS(m, dst)
	case eF64:
		f.VMOVUPD(m, dst)
	case eU16:
		f.VPMOVZXWD(m, dst)
	case eS16:
		f.VPMOVSXWD(m, dst)
	case eF16:
		f.VCVTPH2PS(m, dst)
	case eU8:
		f.VPMOVZXBD(m, dst)
	case eS8:
		f.VPMOVSXBD(m, dst)
	case eMask:
		s := g.vec(in.rs[0])
		if avx512 {
			f.VMOVDQU8(m, s.AsX())
			f.VPTESTMB(s.AsX(), s.AsX(), g.kr(in.rd))
		} else {
			f.VPMOVZXBD(m, dst)
			f.VPXOR(s, s, s)
			f.VPCMPGTD(s, dst, dst) // dst > 0
		}
	default:
		panic(fmt.Sprintf("no x86 load of %v", e))
	}
}

func (g *x86Gen) store(in *pinst) {
	f := g.f
	m := g.memAt(in)
	avx512 := g.t.vecBytes == 64
	x := g.vec(in.ra[0])
	switch e := g.k.args[in.imm].elem; {
	case e == eBF16 && g.t.nativeBF16:
		g.storeBF16(x, m, g.vec(in.rs[0]), g.vec(in.rs[1]))
	case g.k.nt && (e == eF32 || e == eI32):
		f.VMOVNTPS(x, m)
	case e == eF32, e == eI32:
		f.VMOVUPS(x, m)
	case e == eF64:
		f.VMOVUPD(x, m)
	case elemSize[e] == 2: // the low 16 bits (on AVX2, kctx.out cleared the others)
		if avx512 {
			f.VPMOVDW(x, m)
		} else {
			s := g.vec(in.rs[0])
			f.VEXTRACTI128(imm(1), x, s.AsX())
			f.VPACKUSDW(s.AsX(), x.AsX(), s.AsX())
			f.VMOVDQU(s.AsX(), m)
		}
	case elemSize[e] == 1 && e != eMask: // the low 8 bits (on AVX2, kctx.out cleared the others)
		if avx512 {
			f.VPMOVDB(x, m)
		} else {
			s := g.vec(in.rs[0])
			f.VEXTRACTI128(imm(1), x, s.AsX())
			f.VPACKUSDW(s.AsX(), x.AsX(), s.AsX())
			f.VPACKUSWB(s.AsX(), s.AsX(), s.AsX())
			f.VMOVQ(s.AsX(), m)
		}
	case e == eMask:
		s := g.vec(in.rs[0])
		if avx512 {
			f.VPMOVM2D(g.kr(in.ra[0]), s)
			f.VPSRLD(imm(31), s, s)
			f.VPMOVDB(s, m)
		} else {
			s2 := g.vec(in.rs[1])
			f.VPSRLD(imm(31), x, s)
			f.VEXTRACTI128(imm(1), s, s2.AsX())
			f.VPACKUSDW(s2.AsX(), s.AsX(), s.AsX())
			f.VPACKUSWB(s.AsX(), s.AsX(), s.AsX())
			f.VMOVQ(s.AsX(), m)
		}
	default:
		panic(fmt.Sprintf("no x86 store of %v", e))
	}
}

// storeBF16 rounds the float32 lanes of x to bfloat16 with VCVTNEPS2BF16
// and stores them. The instruction rounds to nearest even as XLA does, but
// treats subnormal inputs as zero and quiets every NaN; when any lane is a
// NaN or subnormal (VFPCLASSPS, a branch taken rarely) the whole vector is
// rounded again with XLA's integer sequence (vf32ToBF16's), into s with t
// as scratch, K6 and K7 the masks the allocator leaves to this target.
func (g *x86Gen) storeBF16(x reg.VecPhysical, m operand.Mem, s, t reg.VecPhysical) {
	f := g.f
	g.labels++
	ok := fmt.Sprintf("bf16ok%d", g.labels)
	emitRaw(f, vcvtneps2bf16(regIndex(g.v, s), regIndex(g.v, x)))
	f.VFPCLASSPSZ(imm(0x01|0x80|0x20), x, reg.K7) // QNaN, SNaN, denormal
	f.KORTESTW(reg.K7, reg.K7)
	f.JZ(operand.LabelRef(ok))
	f.VPSRLD(imm(16), x, t)
	f.VPANDD_BCST(g.pool.addr32(1), t, s)
	f.VPADDD(x, s, s)
	f.VPADDD_BCST(g.pool.addr32(0x7fff), s, s)
	f.VPSRLD(imm(16), s, s)
	f.VFPCLASSPSZ(imm(0x01|0x80), x, reg.K7) // NaN lanes: their top half,
	f.VMOVDQA32(t, reg.K7, s)
	f.VPTESTNMD_BCST(g.pool.addr32(0x7f), t, reg.K6) // quieted if no payload bit is left
	f.KANDW(reg.K6, reg.K7, reg.K6)
	f.VPORD_BCST(g.pool.addr32(0x40), s, reg.K6, s)
	f.VPMOVDW(s, s.AsY())
	f.Label(ok)
	f.VMOVDQU(s.AsY(), m)
}

// ntClone is the non-temporal variant of a kernel (see vkernel.ntVariant).
func ntClone(k *vkernel) *vkernel {
	c := *k
	c.name, c.nt = k.name+"NT", true
	c.doc = k.doc + ", storing non-temporally to an aligned dst"
	return &c
}

// constPool is a family's read-only constants: 32- and 64-bit lane values
// (broadcast on load) and the lane numbers.
type constPool struct {
	name   string
	offs   map[uint64]int
	datums []datum
	size   int
	base   operand.Mem
	iotaAt int
}

type datum struct {
	off  int
	size int
	v    uint64
}

func newConstPool(f *amd64File, name string) *constPool {
	p := &constPool{name: name, offs: map[uint64]int{}, iotaAt: -1}
	p.base = operand.NewDataAddr(operand.NewStaticSymbol(name), 0)
	return p
}

func (p *constPool) at(off int) operand.Mem {
	m := p.base
	m.Disp = off
	return m
}

func (p *constPool) addr32(bits uint32) operand.Mem {
	key := uint64(bits) | 1<<63 | 1<<62
	if off, ok := p.offs[key]; ok {
		return p.at(off)
	}
	off := p.size
	p.datums = append(p.datums, datum{off, 4, uint64(bits)})
	p.size += 4
	p.offs[key] = off
	return p.at(off)
}

func (p *constPool) addr64(bits uint64) operand.Mem {
	// 64-bit values are kept apart from 32-bit ones by their own map.
	key := bits ^ 0x6a09e667f3bcc908
	if off, ok := p.offs[key]; ok && p.datums[p.find(off)].size == 8 {
		return p.at(off)
	}
	p.size = (p.size + 7) &^ 7
	off := p.size
	p.datums = append(p.datums, datum{off, 8, bits})
	p.size += 8
	p.offs[key] = off
	return p.at(off)
}

func (p *constPool) find(off int) int {
	for i, d := range p.datums {
		if d.off == off {
			return i
		}
	}
	return -1
}

// iota is n int32 lane numbers 0…n-1 (at most 16).
func (p *constPool) iota(n int) operand.Mem {
	if p.iotaAt < 0 {
		p.size = (p.size + 63) &^ 63
		p.iotaAt = p.size
		for i := 0; i < maxVecLanes; i++ {
			p.datums = append(p.datums, datum{p.size, 4, uint64(i)})
			p.size += 4
		}
	}
	return p.at(p.iotaAt)
}

// emit writes the pool's data section.
func (p *constPool) emit(f *amd64File) {
	if p.size == 0 {
		return
	}
	f.StaticGlobal(p.name)
	f.DataAttributes(attr.RODATA | attr.NOPTR)
	ds := append([]datum(nil), p.datums...)
	sort.Slice(ds, func(i, j int) bool { return ds[i].off < ds[j].off })
	for _, d := range ds {
		if d.size == 8 {
			f.AddDatum(d.off, operand.U64(d.v))
		} else {
			f.AddDatum(d.off, operand.U32(uint32(d.v)))
		}
	}
	// Pad to whole vectors so that no load reads past the section.
	for off := p.size; off%64 != 0; off += 4 {
		f.AddDatum(off, operand.U32(0))
	}
}

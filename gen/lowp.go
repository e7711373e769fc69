package main

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The low-precision GEMM family (the root package's lowp.go): register-tile
// kernels that multiply a few rows of A by a panel of B packed in groups of
// consecutive k (bfloat16 pairs, int8 quads, int16 pairs), accumulating in
// float32 or int32 lanes over all of K, and the AMX tile kernels.
//
// A dot kernel computes, for rows ≤ mr and the nr columns of one panel,
//
//	C(i,j) = Σ_q Σ_t A(i, q·g+t)·B(q·g+t, j)   (+ aux[j] or − aux[j], ReLU)
//
// where A's group q of row i is the 4 bytes at a + i·lda + 4q, the panel's
// group row q is nr groups of 4 bytes at b + q·nr·4, and C(i,j) =
// c[i*ldc+j] (float32 or int32). Its signature is dotSignature. The
// instruction that forms the products: VDPBF16PS (bfloat16 pairs, AVX512_BF16),
// VPDPBUSD (unsigned × signed byte quads; AVX512_VNNI, and the VEX form of
// AVX-VNNI), or VPMADDWD and VPADDD (int16 pairs, the levels without VNNI).

const dotSignature = "func(kg int, a *byte, lda int, b *byte, c *byte, ldc int, aux *byte, mask *int32, flags uint)"

const amxSignature = "func(kb int, a *byte, lda int, b *byte, ldb int, c *byte, cfg *[64]byte)"

// dotOp is the instruction a dot kernel accumulates with.
type dotOp int

const (
	dotBF16    dotOp = iota // VDPBF16PS zmm, embedded broadcast of A's pair (float32 lanes)
	dotVNNI                 // VPDPBUSD zmm (int32 lanes)
	dotVNNIVEX              // VPDPBUSD ymm, VEX (AVX-VNNI)
	dotMaddWD               // VPMADDWD + VPADDD (int32 lanes)
)

// dotTile parameterises one dot kernel family member.
type dotTile struct {
	v      vecArch
	op     dotOp
	mr, nr int
	name   string // the kernels' name stem: "bdotAVX512BF16"
}

func (t dotTile) kernelName(rows int) string { return fmt.Sprintf("%s%dx%d", t.name, rows, t.nr) }

func (t dotTile) float() bool { return t.op == dotBF16 }

var (
	dotBF16AVX512  = dotTile{v: avx512, op: dotBF16, mr: 6, nr: 64, name: "bdotAVX512BF16"}
	dotVNNIAVX512  = dotTile{v: avx512, op: dotVNNI, mr: 6, nr: 64, name: "idotAVX512VNNI"}
	dotMaddAVX512  = dotTile{v: avx512, op: dotMaddWD, mr: 6, nr: 64, name: "idotAVX512Madd"}
	dotVNNIVEXAVX2 = dotTile{v: avx2, op: dotVNNIVEX, mr: 6, nr: 16, name: "idotAVXVNNI"}
	dotMaddAVX2    = dotTile{v: avx2, op: dotMaddWD, mr: 6, nr: 16, name: "idotAVX2Madd"}
)

// Physical registers of the dot kernels.
var (
	rKG, rA, rLda, rA3, rB = reg.RCX, reg.RSI, reg.RDX, reg.RBX, reg.RDI
	rC, rLdc, rAux, rFlags = reg.R8, reg.R9, reg.R10, reg.R11
	rMask                  = reg.R12
)

// emitDotKernel writes one dot kernel for rows rows.
func emitDotKernel(f *amd64File, t dotTile, rows int) string {
	v := t.v
	nv := t.nr / (v.bytes / 4)
	name := t.kernelName(rows)
	f.leafFunction(name, dotSignature)
	what := map[dotOp]string{dotBF16: "bfloat16 pairs with VDPBF16PS", dotVNNI: "unsigned×signed byte quads with VPDPBUSD", dotVNNIVEX: "unsigned×signed byte quads with AVX-VNNI's VPDPBUSD", dotMaddWD: "int16 pairs with VPMADDWD"}[t.op]
	f.Doc(fmt.Sprintf("%s computes a %d×%d tile of C from %s (see dotKernel).", name, rows, t.nr, what))
	nacc := rows * nv
	acc := func(i, j int) int { return i*nv + j }
	bReg := func(j int) int { return t.mr*nv + j }
	aReg := t.mr*nv + nv // the broadcast A group (not with dotBF16)
	tmp := aReg + 1      // VPMADDWD's products
	if t.op == dotMaddWD && tmp >= v.regs || t.op != dotBF16 && aReg >= v.regs || t.mr*nv+nv > v.regs {
		panic(fmt.Sprintf("%s: the tile does not fit the registers", name))
	}
	vec := func(i int) reg.VecPhysical { return v.vec(i) }

	f.Load(f.Param("kg"), rKG)
	f.Load(f.Param("a"), rA)
	f.Load(f.Param("lda"), rLda)
	f.Load(f.Param("b"), rB)
	if rows > 3 {
		f.LEAQ(memIdx(rLda, rLda, 2, 0), rA3)
		f.ADDQ(rA, rA3)
	}
	for i := 0; i < nacc; i++ {
		if v.kmask {
			f.VPXORD(vec(i), vec(i), vec(i))
		} else {
			f.VPXOR(vec(i), vec(i), vec(i))
		}
	}
	aMem := func(i, disp int) xmem {
		base, idx, scale := rA, reg.Register(nil), 1
		switch i {
		case 1:
			idx = rLda
		case 2:
			idx, scale = rLda, 2
		case 3:
			base = rA3
		case 4:
			base, idx = rA3, rLda
		case 5:
			base, idx, scale = rA3, rLda, 2
		}
		m := xmem{base: gpNum(base), index: -1, scale: 1, disp: disp}
		if idx != nil {
			m.index, m.scale = gpNum(idx), scale
		}
		return m
	}
	toMem := func(m xmem) operand.Mem {
		gps := []reg.Register{reg.RAX, reg.RCX, reg.RDX, reg.RBX, reg.RSP, reg.RBP, reg.RSI, reg.RDI, reg.R8, reg.R9, reg.R10, reg.R11, reg.R12, reg.R13, reg.R14, reg.R15}
		o := operand.Mem{Base: gps[m.base], Disp: m.disp}
		if m.index >= 0 {
			o.Index, o.Scale = gps[m.index], uint8(m.scale)
		}
		return o
	}
	groupBytes := t.nr * 4
	step := func(u int) {
		for j := 0; j < nv; j++ {
			if v.kmask {
				f.VMOVDQU32(mem(rB, u*groupBytes+j*v.bytes), vec(bReg(j)))
			} else {
				f.VMOVDQU(mem(rB, u*groupBytes+j*v.bytes), vec(bReg(j)))
			}
		}
		for i := 0; i < rows; i++ {
			am := aMem(i, 4*u)
			switch t.op {
			case dotBF16:
				for j := 0; j < nv; j++ {
					emitRaw(f, vdpbf16psBcst(acc(i, j), bReg(j), am))
				}
			case dotVNNI:
				f.VPBROADCASTD(toMem(am), vec(aReg))
				for j := 0; j < nv; j++ {
					emitRaw(f, vpdpbusd(acc(i, j), aReg, bReg(j)))
				}
			case dotVNNIVEX:
				f.VPBROADCASTD(toMem(am), vec(aReg))
				for j := 0; j < nv; j++ {
					emitRaw(f, vpdpbusdVEX(acc(i, j), aReg, bReg(j)))
				}
			case dotMaddWD:
				f.VPBROADCASTD(toMem(am), vec(aReg))
				for j := 0; j < nv; j++ {
					f.VPMADDWD(vec(bReg(j)), vec(aReg), vec(tmp))
					f.VPADDD(vec(tmp), vec(acc(i, j)), vec(acc(i, j)))
				}
			}
		}
	}
	const unroll = 2
	f.Label("loop")
	f.CMPQ(rKG, imm(unroll))
	f.JL(operand.LabelRef("tail"))
	for u := 0; u < unroll; u++ {
		step(u)
	}
	f.ADDQ(imm(4*unroll), rA)
	if rows > 3 {
		f.ADDQ(imm(4*unroll), rA3)
	}
	f.ADDQ(operand.U32(unroll*groupBytes), rB)
	f.SUBQ(imm(unroll), rKG)
	f.JMP(operand.LabelRef("loop"))
	f.Label("tail")
	f.TESTQ(rKG, rKG)
	f.JE(operand.LabelRef("epilogue"))
	step(0)

	f.Label("epilogue")
	emitDotEpilogue(f, t, rows, nv, acc, bReg(0))
	return name
}

// emitDotEpilogue applies the flags (flagBias: add aux[j] to a float tile,
// subtract it from an integer one; flagReLU; flagPartial: only the columns
// of the mask) and stores the tile. free is the first register free.
func emitDotEpilogue(f *amd64File, t dotTile, rows, nv int, acc func(i, j int) int, free int) {
	v := t.v
	vec := func(i int) reg.VecPhysical { return v.vec(i) }
	f.Load(f.Param("c"), rC)
	f.Load(f.Param("ldc"), rLdc)
	f.SHLQ(imm(2), rLdc)
	f.Load(f.Param("flags"), rFlags)
	flagTest := func(flag int, skip string) {
		f.TESTQ(operand.U32(flag), rFlags)
		f.JZ(operand.LabelRef(skip))
	}
	rowsLoop := func(body func(i int)) {
		for i := 0; i < rows; i++ {
			body(i)
			if i+1 < rows {
				f.ADDQ(rLdc, rC)
			}
		}
	}
	if v.kmask {
		f.TESTQ(operand.U32(flagPartial), rFlags)
		f.JNZ(operand.LabelRef("partialmask"))
		for j := 0; j < nv; j++ {
			f.KXNORW(opmasks[j], opmasks[j], opmasks[j])
		}
		f.JMP(operand.LabelRef("maskdone"))
		f.Label("partialmask")
		f.Load(f.Param("mask"), rMask)
		for j := 0; j < nv; j++ {
			f.VMOVDQU32(mem(rMask, j*v.bytes), vec(free))
			f.VPMOVD2M(vec(free), opmasks[j])
		}
		f.Label("maskdone")
		flagTest(flagBias, "noaux")
		f.Load(f.Param("aux"), rAux)
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				m := mem(rAux, j*v.bytes)
				switch {
				case t.float():
					f.VADDPS_Z(m, vec(acc(i, j)), opmasks[j], vec(acc(i, j)))
				default:
					f.VPSUBD_Z(m, vec(acc(i, j)), opmasks[j], vec(acc(i, j)))
				}
			}
		}
		f.Label("noaux")
		if t.float() {
			flagTest(flagReLU, "norelu")
			f.VPXORD(vec(free), vec(free), vec(free))
			for i := 0; i < rows*nv; i++ {
				// NaN kept (x86 returns src2); adding +0 makes -0 +0, as
				// XLA's max(x, 0) gives.
				f.VMAXPS(vec(i), vec(free), vec(i))
				f.VADDPS(vec(free), vec(i), vec(i))
			}
			f.Label("norelu")
		}
		rowsLoop(func(i int) {
			for j := 0; j < nv; j++ {
				f.VMOVDQU32(vec(acc(i, j)), opmasks[j], mem(rC, j*v.bytes))
			}
		})
		f.VZEROUPPER()
		f.RET()
		return
	}
	// AVX2: integer tiles only (no bfloat16 dot instruction there).
	masks := []reg.VecPhysical{vec(free), vec(free + 1)}[:nv]
	tmpReg := vec(free + 2)
	f.TESTQ(operand.U32(flagPartial), rFlags)
	f.JNZ(operand.LabelRef("partial"))
	for _, partial := range []bool{false, true} {
		sfx := ""
		if partial {
			sfx = "p"
			f.Label("partial")
			f.Load(f.Param("mask"), rMask)
			for j := 0; j < nv; j++ {
				f.VMOVDQU(mem(rMask, j*v.bytes), masks[j])
			}
		}
		flagTest(flagBias, "noaux"+sfx)
		f.Load(f.Param("aux"), rAux)
		for j := 0; j < nv; j++ {
			var src operand.Op = mem(rAux, j*v.bytes)
			if partial {
				f.VPMASKMOVD(mem(rAux, j*v.bytes), masks[j], tmpReg)
				src = tmpReg
			}
			for i := 0; i < rows; i++ {
				f.VPSUBD(src, vec(acc(i, j)), vec(acc(i, j)))
			}
		}
		f.Label("noaux" + sfx)
		rowsLoop(func(i int) {
			for j := 0; j < nv; j++ {
				if partial {
					f.VPMASKMOVD(vec(acc(i, j)), masks[j], mem(rC, j*v.bytes))
				} else {
					f.VMOVDQU(vec(acc(i, j)), mem(rC, j*v.bytes))
				}
			}
		})
		f.VZEROUPPER()
		f.RET()
	}
}

// amxKind is one AMX tile product.
type amxKind struct {
	name string // kernel name
	tdp  string // the tile instruction
	doc  string
}

var amxKinds = []amxKind{
	{"amxBF16", "tdpbf16ps", "bfloat16 pairs into float32 (TDPBF16PS)"},
	{"amxS8S8", "tdpbssd", "signed×signed byte quads into int32 (TDPBSSD)"},
	{"amxU8S8", "tdpbusd", "unsigned×signed byte quads into int32 (TDPBUSD)"},
}

// emitAMXKernel writes the 32×32 tile-block kernel of one product: C tiles
// tmm0–tmm3 (rows 0–15 and 16–31, columns 0–15 and 16–31), A tiles tmm4 and
// tmm5 (its two 16-row halves), B tiles tmm6 and tmm7 (the two 16-column
// halves). Each of the kb steps loads 16 groups of K (64 bytes of each row
// of A; 16 group rows of B, row stride ldb) and issues four tile products;
// the result goes to c, 32 rows of 128 bytes. cfg is the tile
// configuration (every tile 16 rows of 64 bytes), loaded first; the tiles
// are released at the end, so that no tile state outlives the call.
func emitAMXKernel(f *amd64File, k amxKind) string {
	f.leafFunction(k.name, amxSignature, fmt.Sprintf("%s computes a 32×32 block of C from %s with AMX (see amxKernel).", k.name, k.doc))
	rKB, rA0, rLdaA, rA16, rB0, rLdb, rB16 := reg.RCX, reg.RSI, reg.RDX, reg.RDI, reg.R8, reg.R9, reg.R10
	rCfg, rCOut, rStride := reg.R11, reg.R12, reg.RAX
	f.Load(f.Param("cfg"), rCfg)
	emitRaw(f, ldtilecfg(memOf(mem(rCfg, 0))))
	f.Load(f.Param("kb"), rKB)
	f.Load(f.Param("a"), rA0)
	f.Load(f.Param("lda"), rLdaA)
	f.Load(f.Param("b"), rB0)
	f.Load(f.Param("ldb"), rLdb)
	f.MOVQ(rLdaA, rA16)
	f.SHLQ(imm(4), rA16)
	f.ADDQ(rA0, rA16)
	f.MOVQ(rLdb, rB16)
	f.SHLQ(imm(4), rB16)
	for t := 0; t < 4; t++ {
		emitRaw(f, tilezero(t))
	}
	f.Label("loop")
	f.TESTQ(rKB, rKB)
	f.JE(operand.LabelRef("store"))
	emitRaw(f, tileloadd(4, memOf(operand.Mem{Base: rA0, Index: rLdaA, Scale: 1})))
	emitRaw(f, tileloadd(6, memOf(operand.Mem{Base: rB0, Index: rLdb, Scale: 1})))
	emitRaw(f, tdp(k.tdp, 0, 4, 6))
	emitRaw(f, tileloadd(7, memOf(operand.Mem{Base: rB0, Index: rLdb, Scale: 1, Disp: 64})))
	emitRaw(f, tdp(k.tdp, 1, 4, 7))
	emitRaw(f, tileloadd(5, memOf(operand.Mem{Base: rA16, Index: rLdaA, Scale: 1})))
	emitRaw(f, tdp(k.tdp, 2, 5, 6))
	emitRaw(f, tdp(k.tdp, 3, 5, 7))
	f.ADDQ(imm(64), rA0)
	f.ADDQ(imm(64), rA16)
	f.ADDQ(rB16, rB0)
	f.DECQ(rKB)
	f.JMP(operand.LabelRef("loop"))
	f.Label("store")
	f.Load(f.Param("c"), rCOut)
	f.MOVQ(operand.U32(128), rStride)
	emitRaw(f, tilestored(memOf(operand.Mem{Base: rCOut, Index: rStride, Scale: 1}), 0))
	emitRaw(f, tilestored(memOf(operand.Mem{Base: rCOut, Index: rStride, Scale: 1, Disp: 64}), 1))
	emitRaw(f, tilestored(memOf(operand.Mem{Base: rCOut, Index: rStride, Scale: 1, Disp: 2048}), 2))
	emitRaw(f, tilestored(memOf(operand.Mem{Base: rCOut, Index: rStride, Scale: 1, Disp: 2048 + 64}), 3))
	emitRaw(f, tilerelease())
	f.RET()
	return k.name
}

// dotEntry is the Go expression of a dotTiles table entry.
func dotEntry(t dotTile, names []string) string {
	group, elem, kind := 2, 2, "dotInt"
	unsignedA := false
	switch t.op {
	case dotVNNI, dotVNNIVEX:
		group, elem, unsignedA = 4, 1, true
	case dotBF16:
		kind = "dotPairsBF16"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "&dotTiles{mr: %d, nr: %d, group: %d, elem: %d, unsignedA: %v, masked: true, kind: %s,\nrows: %s}",
		t.mr, t.nr, group, elem, unsignedA, kind, goList("[]dotKernel", true, names))
	return b.String()
}

func generateLowp(o *output) error {
	f := o.amd64
	emit := func(t dotTile) string {
		var names []string
		for rows := 1; rows <= t.mr; rows++ {
			names = append(names, emitDotKernel(f, t, rows))
		}
		return dotEntry(t, names)
	}
	bf16 := emit(dotBF16AVX512)
	vnni := emit(dotVNNIAVX512)
	madd512 := emit(dotMaddAVX512)
	vnniVEX := emit(dotVNNIVEXAVX2)
	madd2 := emit(dotMaddAVX2)
	var amx []string
	for _, k := range amxKinds {
		amx = append(amx, emitAMXKernel(f, k))
	}
	o.set("levelAVX2", "idot", madd2)
	o.set("levelAVXVNNI", "idot", vnniVEX)
	o.set("levelAVX512", "idot", madd512)
	o.set("levelAVX512VNNI", "idot", vnni)
	o.set("levelAVX512BF16", "bdot", bf16)
	o.set("levelAMX", "amx", fmt.Sprintf("&amxKernels{bf16: %s, s8s8: %s, u8s8: %s}", amx[0], amx[1], amx[2]))
	return generateLowpNEON(o)
}

// The int8-weight products (the root package's GemmF32S8): float32 rows of
// A times int8 weights W widened in registers, scale[j]·Σp A(i,p)·float32(W(p,j))
// (the per-channel scale applied to each column's sum), for the dense layers
// of batch-1 inference whose weights stream from memory at a quarter of
// float32's bytes.

const s8wRowsSignature = "func(k int, a *float32, lda int, w *int8, panels int, scale *float32, c *float32, ldc int, bias *float32, flags uint)"

// s8wRowsMax is the most rows of A the int8-weight row kernels take.
const s8wRowsMax = 4

// s8wPrefetch is how many k steps ahead the row kernels prefetch weights.
const s8wPrefetch = 64

// emitS8WRows writes the kernel for rows rows and panels of nr columns:
// each panel is k rows of nr int8 weights (quads: ⌈k/4⌉ groups of four
// rows, column j's four bytes in dword j, see s8wLayout), its scales nr
// float32.
func emitS8WRows(f *amd64File, v vecArch, nr, rows int, quads bool) string {
	nv := nr / v.lanes(f32)
	kind := "Rows"
	if quads {
		kind = "Quads"
	}
	name := fmt.Sprintf("s8w%s%s%dx%d", kind, v.name, rows, nr)
	f.leafFunction(name, s8wRowsSignature, fmt.Sprintf("%s computes C(i, q*%d+j) = act(scale[q*%[2]d+j]·Σp A(i,p)·float32(W(p, q*%[2]d+j)) + bias) for the %d rows of A and the panels q < panels of int8 weights (k×%[2]d bytes each); see GemmF32S8.", name, nr, rows))
	// One row has too few accumulators to hide the FMAs' latency: it
	// keeps two sets, the even k steps' and the odd ones', added at the
	// end (s8wTwin sums in the same order).
	sets := 1
	if rows == 1 {
		sets = 2
	}
	acc := func(i, j int) reg.VecPhysical { return v.vec(i*nv + j) }
	nacc := rows * nv * sets
	sc := func(j int) reg.VecPhysical { return v.vec(nacc + j) }
	tmp := func(j int) reg.VecPhysical { return v.vec(nacc + nv + j) }
	ar := v.vec(nacc + (1+sets)*nv)
	ar2 := v.vec(nacc + (1+sets)*nv + sets - 1)
	zero := v.vec(nacc + (1+sets)*nv + sets)
	if nacc+(1+sets)*nv+sets+1 > v.regs {
		panic(name + ": does not fit the registers")
	}
	zeroReg := func(r reg.VecPhysical) {
		if v.kmask {
			f.VPXORD(r, r, r)
		} else {
			f.VXORPS(r, r, r)
		}
	}
	var lda reg.Register
	if rows > 1 {
		lda = f.Load(f.Param("lda"), f.GP64())
		f.SHLQ(imm(2), lda)
	}
	var lda3 reg.GPVirtual
	if rows > 3 {
		lda3 = f.GP64()
		f.LEAQ(memIdx(lda, lda, 2, 0), lda3)
	}
	w := f.Load(f.Param("w"), f.GP64())
	panels := f.Load(f.Param("panels"), f.GP64())
	scale := f.Load(f.Param("scale"), f.GP64())
	c := f.Load(f.Param("c"), f.GP64())
	var ldc reg.Register
	if rows > 1 {
		ldc = f.Load(f.Param("ldc"), f.GP64())
		f.SHLQ(imm(2), ldc)
	}
	bias := f.Load(f.Param("bias"), f.GP64())
	flagsAddr, _ := f.Param("flags").Resolve()
	zeroReg(zero)
	aMem := func(base reg.Register, i int) operand.Mem {
		m := mem(base, 0)
		switch i {
		case 1, 2:
			m.Index, m.Scale = lda, uint8(i)
		case 3:
			m.Index, m.Scale = lda3, 1
		}
		return m
	}
	f.Label("panel")
	for i := 0; i < nacc; i++ {
		zeroReg(v.vec(i))
	}
	for j := 0; j < nv; j++ {
		f.VMOVUPS(mem(scale, j*v.bytes), sc(j))
	}
	base := f.Load(f.Param("a"), f.GP64())
	kk := f.Load(f.Param("k"), f.GP64())
	lanes := v.lanes(f32)
	// fmas adds A(i, t)·tmp(s, j) (A's element t on from base, the widened
	// weights in set s's registers) into the accumulator set s.
	fmas := func(t, s int) {
		for i := 0; i < rows; i++ {
			r := ar
			if s == 1 {
				r = ar2
			}
			m := aMem(base, i)
			m.Disp += 4 * t
			f.VBROADCASTSS(m, r)
			for j := 0; j < nv; j++ {
				f.VFMADD231PS(tmp(s*nv+j), r, acc(s*rows+i, j))
			}
		}
	}
	// step computes k steps 0…steps-1 from w and base: step t into the
	// accumulator set t.
	step := func(steps int) {
		// The weights stream from memory one line per step (64 columns):
		// fetch them well ahead, the hardware prefetcher alone keeps too
		// few lines in flight for a stream consumed this fast.
		for off := 0; off < steps*nr; off += 64 {
			f.PREFETCHT0(mem(w, s8wPrefetch*nr+off))
		}
		for t := range steps {
			for j := 0; j < nv; j++ {
				f.VPMOVSXBD(mem(w, t*nr+j*lanes), tmp(t*nv+j))
				f.VCVTDQ2PS(tmp(t*nv+j), tmp(t*nv+j))
			}
		}
		for t := range steps {
			fmas(t, t)
		}
		f.ADDQ(imm(4*steps), base)
		f.ADDQ(operand.U32(steps*nr), w)
	}
	// quadStep computes k step t of a group of four from w and base
	// (t+4·u from base): the bytes of dword lanes shifted to the top,
	// then arithmetically back, widen each column's byte t exactly.
	quadStep := func(t int) {
		s := t % sets
		for j := 0; j < nv; j++ {
			var src operand.Op = mem(w, j*v.bytes)
			if !v.kmask { // the VEX shifts take no memory source
				f.VMOVDQU(src, tmp(s*nv+j))
				src = tmp(s*nv + j)
			}
			if t < 3 {
				f.VPSLLD(imm(24-8*t), src, tmp(s*nv+j))
				f.VPSRAD(imm(24), tmp(s*nv+j), tmp(s*nv+j))
			} else {
				f.VPSRAD(imm(24), src, tmp(s*nv+j))
			}
			f.VCVTDQ2PS(tmp(s*nv+j), tmp(s*nv+j))
		}
		fmas(t, s)
	}
	switch {
	case quads:
		// Whole groups, then the last group's k mod 4 steps (its padding
		// weights are zero, but A past k may hold anything).
		f.CMPQ(kk, imm(4))
		f.JL(operand.LabelRef("ktail"))
		f.Label("kloop")
		for off := 0; off < 4*nr; off += 64 {
			f.PREFETCHT0(mem(w, s8wPrefetch*nr+off))
		}
		for t := range 4 {
			quadStep(t)
		}
		f.ADDQ(imm(16), base)
		f.ADDQ(operand.U32(4*nr), w)
		f.SUBQ(imm(4), kk)
		f.CMPQ(kk, imm(4))
		f.JGE(operand.LabelRef("kloop"))
		f.Label("ktail")
		f.TESTQ(kk, kk)
		f.JZ(operand.LabelRef("ksum"))
		for t := range 3 {
			if t > 0 {
				f.CMPQ(kk, imm(t+1))
				f.JL(operand.LabelRef("kpast"))
			}
			quadStep(t)
		}
		f.Label("kpast")
		f.ADDQ(operand.U32(4*nr), w) // past the last group
		f.Label("ksum")
		if sets == 2 {
			for j := 0; j < nv; j++ {
				f.VADDPS(acc(1, j), acc(0, j), acc(0, j))
			}
		}
	case sets == 1:
		f.Label("kloop")
		step(1)
		f.DECQ(kk)
		f.JNZ(operand.LabelRef("kloop"))
	default:
		f.CMPQ(kk, imm(2))
		f.JL(operand.LabelRef("kodd"))
		f.Label("kloop")
		step(2)
		f.SUBQ(imm(2), kk)
		f.CMPQ(kk, imm(2))
		f.JGE(operand.LabelRef("kloop"))
		f.Label("kodd")
		f.TESTQ(kk, kk)
		f.JZ(operand.LabelRef("ksum"))
		step(1)
		f.Label("ksum")
		for j := 0; j < nv; j++ {
			f.VADDPS(acc(1, j), acc(0, j), acc(0, j))
		}
	}
	// Epilogue: the scales, bias, ReLU, store.
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			f.VMULPS(sc(j), acc(i, j), acc(i, j))
		}
	}
	flags := f.GP64()
	f.MOVQ(flagsAddr.Addr, flags)
	f.TESTQ(operand.U32(flagBias), flags)
	f.JZ(operand.LabelRef("nobias"))
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			f.VADDPS(mem(bias, j*v.bytes), acc(i, j), acc(i, j))
		}
	}
	f.Label("nobias")
	f.TESTQ(operand.U32(flagReLU), flags)
	f.JZ(operand.LabelRef("norelu"))
	for i := 0; i < rows*nv; i++ {
		f.VMAXPS(v.vec(i), zero, v.vec(i)) // NaN kept (x86 returns src2),
		f.VADDPS(zero, v.vec(i), v.vec(i)) // and -0 made +0 (XLA's max)
	}
	f.Label("norelu")
	crow := f.GP64()
	f.MOVQ(c, crow)
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			f.VMOVUPS(acc(i, j), mem(crow, j*v.bytes))
		}
		if i+1 < rows {
			f.ADDQ(ldc, crow)
		}
	}
	f.ADDQ(operand.U32(4*nr), c)
	f.ADDQ(operand.U32(4*nr), bias)
	f.ADDQ(operand.U32(4*nr), scale)
	f.DECQ(panels)
	f.JNZ(operand.LabelRef("panel"))
	f.VZEROUPPER()
	f.RET()
	return name
}

func generateS8W(o *output) error {
	for _, v := range []vecArch{avx512, avx2} {
		nr := 64
		if v.name == "AVX2" {
			nr = 16
		}
		var names []string
		for rows := 1; rows <= s8wRowsMax; rows++ {
			names = append(names, emitS8WRows(o.amd64, v, nr, rows, false))
		}
		o.set(v.level, "s8w", fmt.Sprintf("&s8wKernels{nr: %d, rows: %s}", nr, goList("[]s8wRowsKernel", true, names)))
	}
	// AVX512_VNNI: the weights in quads, for the planes' integer dot
	// products; the float32 row kernels and the widening read them too.
	var quads, planes []string
	for rows := 1; rows <= s8wRowsMax; rows++ {
		quads = append(quads, emitS8WRows(o.amd64, avx512, s8wQuadsNR, rows, true))
	}
	for p := 1; p <= s8wPlanesMax; p++ {
		planes = append(planes, emitS8WPlanes(o.amd64, p))
	}
	widen := emitS8WWidenQuads(o.amd64, avx512)
	scan, split := emitS8WScan(o.amd64), emitS8WSplit(o.amd64)
	o.set("levelAVX512VNNI", "s8w", fmt.Sprintf("&s8wKernels{nr: %d, quads: true, rows: %s, planes: %s, widen: %s, scan: %s, split: %s}", s8wQuadsNR,
		goList("[]s8wRowsKernel", true, quads), goList("[]s8wPlanesKernel", true, planes), widen, scan, split))
	// AVX-VNNI: the same in ymm, panels of 16 columns (the row's split
	// runs on its Go twin).
	generateS8WConsts(o.amd64)
	quads, planes = nil, nil
	for rows := 1; rows <= s8wRowsMax; rows++ {
		quads = append(quads, emitS8WRows(o.amd64, avx2, s8wQuadsNRAVX2, rows, true))
	}
	for p := 1; p <= s8wPlanesMax; p++ {
		planes = append(planes, emitS8WPlanesAVX2(o.amd64, p))
	}
	widen = emitS8WWidenQuads(o.amd64, avx2)
	o.set("levelAVXVNNI", "s8w", fmt.Sprintf("&s8wKernels{nr: %d, quads: true, rows: %s, planes: %s, widen: %s}", s8wQuadsNRAVX2,
		goList("[]s8wRowsKernel", true, quads), goList("[]s8wPlanesKernel", true, planes), widen))
	return nil
}

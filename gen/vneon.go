package main

import (
	"fmt"

	"github.com/kilnml/kiln/asm"
)

// The arm64 backend of the vector programs: NEON through the asm package.
// Every vector data instruction is a WORD with its GNU text (checked by the
// decoder test); loads, stores and scalar code use Go's mnemonics.

func init() {
	tNEON.destructive = func(in *inst) []int {
		switch in.op {
		case opFMA, opFNMA:
			return []int{2}
		case opBlend:
			return []int{0, 1, 2}
		}
		return nil
	}
	tNEON.scratch = func(in *inst) int {
		switch in.op {
		case opPack32:
			return 1
		case opCmp:
			if in.imm == cmpUnord {
				return 1
			}
		case opStore:
			if elemSize[in.el] < 4 {
				return 1
			}
		}
		return 0
	}
}

// neonFrame lays out a kernel's arguments and results as Go's ABI0 does:
// each at its alignment, the results from the next multiple of 8.
type neonFrame struct {
	off  map[string]int
	size int
}

func newNeonFrame(k *vkernel) *neonFrame {
	f := &neonFrame{off: map[string]int{}}
	at := func(name string, size, align int) {
		f.size = (f.size + align - 1) / align * align
		f.off[name] = f.size
		f.size += size
	}
	for _, a := range k.args {
		switch a.kind {
		case aSlice:
			at(a.name+"_base", 8, 8)
			at(a.name+"_len", 8, 8)
			at(a.name+"_cap", 8, 8)
		case aF32, aI32:
			at(a.name, 4, 4)
		case aF64:
			at(a.name, 8, 8)
		}
	}
	if len(k.res) > 0 {
		f.size = (f.size + 7) &^ 7
	}
	for _, r := range k.res {
		align := 4
		if r.goType == "float64" {
			align = 8
		}
		at(r.name, r.size(), align)
	}
	return f
}

func (f *neonFrame) arg(name string) string {
	off, ok := f.off[name]
	if !ok {
		panic(fmt.Sprintf("frame has no argument %q", name))
	}
	return fmt.Sprintf("%s+%d(FP)", name, off)
}

type neonGen struct {
	fn *asm.Func
	k  *vkernel
	a  *allocation
	fr *neonFrame
	// ptr holds the register of each slice argument's pointer.
	ptr map[int]asm.Reg
}

// Registers: R0 counts elements, R1… hold the slice pointers, R14 is a
// temporary for constants.
const neonTmp = "R14"

// emitNEONVKernel writes k to the file and returns the function's name.
func emitNEONVKernel(file *asm.File, k *vkernel) (string, error) {
	t := tNEON
	a, u, err := k.compile(t)
	if err != nil {
		return "", err
	}
	name := k.name + t.name
	fr := newNeonFrame(k)
	fn := file.Func(name, k.signature(), fr.size,
		fmt.Sprintf("%s %s, with NEON (whole vectors of %d lanes; see the Go twin %sGo).", name, k.doc, t.lanes(k.lane), k.name))
	g := &neonGen{fn: fn, k: k, a: a, fr: fr, ptr: map[int]asm.Reg{}}
	lanes := t.lanes(k.lane)
	first := true
	next := 1
	for i, arg := range k.args {
		if arg.kind != aSlice {
			continue
		}
		if first {
			fn.Op("MOVD %s, R0", fr.arg(arg.name+"_len"))
			first = false
		}
		if next > 12 {
			return "", fmt.Errorf("%s: too many slices", name)
		}
		g.ptr[i] = asm.R(next)
		fn.Op("MOVD %s, %s", fr.arg(arg.name+"_base"), asm.R(next))
		next++
	}
	g.code(a.pro)
	advance := func(copies int) {
		for i, arg := range k.args {
			if arg.kind == aSlice {
				fn.Op("ADD $%d, %s, %s", copies*lanes*elemSize[arg.elem], g.ptr[i], g.ptr[i])
			}
		}
		fn.Op("SUB $%d, R0, R0", copies*lanes)
	}
	switch {
	case k.flushEvery > 0:
		// main: up to flushEvery iterations, then the flush.
		fn.Label("main")
		fn.Op("CMP $%d, R0", u*lanes)
		fn.Op("BLT tail")
		fn.Op("MOVD $%d, R15", k.flushEvery)
		fn.Label("inner")
		g.code(a.body)
		g.code(a.bodyMoves)
		advance(u)
		fn.Op("SUBS $1, R15, R15")
		fn.Op("BEQ flush")
		fn.Op("CMP $%d, R0", u*lanes)
		fn.Op("BGE inner")
		fn.Label("flush")
		g.code(a.flush)
		g.code(a.flushMoves)
		fn.Op("B main")
	case u > 1:
		fn.Label("main")
		fn.Op("CMP $%d, R0", u*lanes)
		fn.Op("BLT tail")
		g.code(a.body)
		g.code(a.bodyMoves)
		advance(u)
		fn.Op("B main")
	default:
		a.tail, a.tailMoves = a.body, a.bodyMoves
	}
	fn.Label("tail")
	fn.Op("CMP $%d, R0", lanes)
	fn.Op("BLT done")
	g.code(a.tail)
	g.code(a.tailMoves)
	advance(1)
	fn.Op("B tail")
	fn.Label("done")
	g.code(a.epi)
	fn.Op("RET")
	return name, nil
}

func (g *neonGen) code(code []pinst) {
	for i := range code {
		g.inst(&code[i])
	}
}

func (g *neonGen) w(w asm.Word) { g.fn.Word(w) }

func (g *neonGen) inst(in *pinst) {
	V := asm.V
	d := in.rd
	var D asm.VReg
	if d >= 0 {
		D = V(d)
	}
	A := func(i int) asm.VReg { return V(in.ra[i]) }
	arr := asm.S4
	if in.kind == vF64 || in.kind == vM64 {
		arr = asm.D2
	}
	fn := g.fn
	switch in.op {
	case opConst:
		bits := g.a.p.vals[in.res].bits
		switch {
		case bits == 0:
			g.w(asm.EOR(D, D, D))
		case in.kind == vF64:
			fn.Op("MOVD $0x%016x, %s", bits, neonTmp)
			fn.Op("VDUP %s, %s", neonTmp, D.D2())
		default:
			fn.Op("MOVW $0x%08x, %s", uint32(bits), neonTmp)
			fn.Op("VDUP %s, %s", neonTmp, D.S4())
		}
	case opIota:
		fn.Op("MOVD $0x0000000100000000, %s", neonTmp)
		fn.Op("VMOV %s, V%d.D[0]", neonTmp, d)
		fn.Op("MOVD $0x0000000300000002, %s", neonTmp)
		fn.Op("VMOV %s, V%d.D[1]", neonTmp, d)
	case opParam:
		name := g.k.args[in.imm].name
		if in.kind == vF64 {
			fn.Op("FMOVD %s, %s", g.fr.arg(name), D.F())
			g.w(asm.DUPElem(asm.D2, D, D, 0))
		} else {
			fn.Op("FMOVS %s, %s", g.fr.arg(name), D.F())
			g.w(asm.DUPElem(asm.S4, D, D, 0))
		}
	case opMove, opCast:
		if in.ra[0] != d {
			g.w(asm.MOV(D, A(0)))
		}
	case opLoad:
		g.load(in, D)
	case opStore:
		g.store(in)
	case opAdd:
		g.w(asm.FADD(arr, D, A(0), A(1)))
	case opSub:
		g.w(asm.FSUB(arr, D, A(0), A(1)))
	case opMul:
		g.w(asm.FMUL(arr, D, A(0), A(1)))
	case opDiv:
		g.w(asm.FDIV(arr, D, A(0), A(1)))
	case opSqrt:
		g.w(asm.FSQRT(arr, D, A(0)))
	case opMax, opMaxC:
		g.w(asm.FMAX(arr, D, A(0), A(1)))
	case opMin, opMinC:
		g.w(asm.FMIN(arr, D, A(0), A(1)))
	case opFMA, opFNMA:
		if in.dst != 2 {
			g.w(asm.MOV(D, A(2)))
		}
		if in.op == opFMA {
			g.w(asm.FMLA(arr, D, A(0), A(1)))
		} else {
			g.w(asm.FMLS(arr, D, A(0), A(1)))
		}
	case opRound:
		r := map[int]func(asm.Arrangement, asm.VReg, asm.VReg) asm.Word{
			roundNearest: asm.FRINTN, roundFloor: asm.FRINTM, roundCeil: asm.FRINTP, roundTrunc: asm.FRINTZ,
		}[in.imm]
		g.w(r(arr, D, A(0)))
	case opAnd, opMAnd:
		g.w(asm.AND(D, A(0), A(1)))
	case opOr, opMOr:
		g.w(asm.ORR(D, A(0), A(1)))
	case opXor:
		g.w(asm.EOR(D, A(0), A(1)))
	case opAndNot:
		g.w(asm.BIC(D, A(0), A(1)))
	case opMNot:
		g.w(asm.NOT(D, A(0)))
	case opAddI:
		g.w(asm.ADD(asm.S4, D, A(0), A(1)))
	case opSubI:
		g.w(asm.SUB(asm.S4, D, A(0), A(1)))
	case opShl:
		g.w(asm.SHL(asm.S4, D, A(0), in.imm))
	case opShr:
		g.w(asm.USHR(asm.S4, D, A(0), in.imm))
	case opSar:
		g.w(asm.SSHR(asm.S4, D, A(0), in.imm))
	case opCvtIF:
		g.w(asm.SCVTF(asm.S4, D, A(0)))
	case opCvtFI:
		g.w(asm.FCVTZS(asm.S4, D, A(0)))
	case opCvtFIR:
		g.w(asm.FCVTNS(asm.S4, D, A(0)))
	case opLoF64:
		g.w(asm.FCVTL(asm.D2, D, A(0), false))
	case opHiF64:
		g.w(asm.FCVTL(asm.D2, D, A(0), true))
	case opCvtF16:
		g.w(asm.FCVTN(asm.S4, D, A(0), false))
		g.w(asm.UXTL(asm.S4, D, D))
	case opPack32:
		t := D
		if in.ra[1] == d {
			t = V(in.rs[0])
		}
		g.w(asm.FCVTN(asm.D2, t, A(0), false))
		g.w(asm.FCVTN(asm.D2, t, A(1), true))
		if t != D {
			g.w(asm.MOV(D, t))
		}
	case opCmp:
		x, y := A(0), A(1)
		switch in.imm {
		case cmpEQ:
			g.w(asm.FCMEQ(arr, D, x, y))
		case cmpNE:
			g.w(asm.FCMEQ(arr, D, x, y))
			g.w(asm.NOT(D, D))
		case cmpLT:
			g.w(asm.FCMGT(arr, D, y, x))
		case cmpLE:
			g.w(asm.FCMGE(arr, D, y, x))
		case cmpGT:
			g.w(asm.FCMGT(arr, D, x, y))
		case cmpGE:
			g.w(asm.FCMGE(arr, D, x, y))
		case cmpUnord:
			if in.ra[0] == in.ra[1] {
				g.w(asm.FCMEQ(arr, D, x, x))
			} else {
				s := V(in.rs[0])
				g.w(asm.FCMEQ(arr, s, x, x))
				g.w(asm.FCMEQ(arr, D, y, y))
				g.w(asm.AND(D, D, s))
			}
			g.w(asm.NOT(D, D))
		}
	case opCmpGt:
		g.w(asm.CMGT(asm.S4, D, A(0), A(1)))
	case opCmpEq:
		g.w(asm.CMEQ(asm.S4, D, A(0), A(1)))
	case opBlend: // (m, x, y): m ? x : y
		switch in.dst {
		case 0:
			g.w(asm.BSL(D, A(1), A(2)))
		case 1:
			g.w(asm.BIF(D, A(2), A(0)))
		case 2:
			g.w(asm.BIT(D, A(1), A(0)))
		default:
			g.w(asm.MOV(D, A(0)))
			g.w(asm.BSL(D, A(1), A(2)))
		}
	case opShuf:
		w := in.imm
		if in.kind == vF64 {
			w *= 2
		}
		switch w {
		case 4:
			g.w(asm.EXT(D, A(0), A(0), 8))
		case 2:
			g.w(asm.EXT(D, A(0), A(0), 4))
		default:
			panic(fmt.Sprintf("NEON shuffle of width %d", in.imm))
		}
	case opRet:
		r := g.k.res[in.imm]
		if in.kind == vF64 {
			fn.Op("FMOVD %s, %s", A(0).F(), g.fr.arg(r.name))
		} else {
			fn.Op("FMOVS %s, %s", A(0).F(), g.fr.arg(r.name))
		}
	case opRetVec:
		r := g.k.res[in.imm]
		fn.Op("MOVD $%s, %s", g.fr.arg(r.name), neonTmp)
		fn.Op("FMOVQ %s, (%s)", A(0).F(), neonTmp)
	default:
		panic(fmt.Sprintf("%s: no NEON code for %v", g.k.name, in.op))
	}
}

func (g *neonGen) addr(in *pinst) string {
	arg := g.k.args[in.imm]
	off := in.imm2 * tNEON.lanes(g.k.lane) * elemSize[arg.elem]
	return fmt.Sprintf("%d(%s)", off, g.ptr[in.imm])
}

func (g *neonGen) load(in *pinst, D asm.VReg) {
	m := g.addr(in)
	switch in.el {
	case eF32, eI32, eF64:
		g.fn.Op("FMOVQ %s, %s", m, D.F())
	case eU16:
		g.fn.Op("FMOVD %s, %s", m, D.F())
		g.w(asm.UXTL(asm.S4, D, D))
	case eS16:
		g.fn.Op("FMOVD %s, %s", m, D.F())
		g.w(asm.SXTL(asm.S4, D, D))
	case eF16:
		g.fn.Op("FMOVD %s, %s", m, D.F())
		g.w(asm.FCVTL(asm.S4, D, D, false))
	case eU8, eMask:
		g.fn.Op("FMOVS %s, %s", m, D.F())
		g.w(asm.UXTL(asm.H8, D, D))
		g.w(asm.UXTL(asm.S4, D, D))
		if in.el == eMask {
			g.w(asm.CMTST(asm.S4, D, D, D))
		}
	case eS8:
		g.fn.Op("FMOVS %s, %s", m, D.F())
		g.w(asm.SXTL(asm.H8, D, D))
		g.w(asm.SXTL(asm.S4, D, D))
	default:
		panic(fmt.Sprintf("no NEON load of %v", in.el))
	}
}

func (g *neonGen) store(in *pinst) {
	m := g.addr(in)
	x := asm.V(in.ra[0])
	switch in.el {
	case eF32, eI32, eF64:
		g.fn.Op("FMOVQ %s, %s", x.F(), m)
	case eU16, eS16, eBF16, eF16:
		s := asm.V(in.rs[0])
		g.w(asm.XTN(asm.S4, s, x))
		g.fn.Op("FMOVD %s, %s", s.F(), m)
	case eU8, eS8, eE4M3, eE5M2:
		s := asm.V(in.rs[0])
		g.w(asm.XTN(asm.S4, s, x))
		g.w(asm.XTN(asm.H8, s, s))
		g.fn.Op("FMOVS %s, %s", s.F(), m)
	case eMask:
		s := asm.V(in.rs[0])
		g.w(asm.USHR(asm.S4, s, x, 31))
		g.w(asm.XTN(asm.S4, s, s))
		g.w(asm.XTN(asm.H8, s, s))
		g.fn.Op("FMOVS %s, %s", s.F(), m)
	default:
		panic(fmt.Sprintf("no NEON store of %v", in.el))
	}
}

package main

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// An encoder for the amd64 instructions neither Go's assembler nor avo
// spells: AVX512_BF16 (VDPBF16PS), AVX-VNNI (the VEX forms of VPDPBUSD and
// VPDPWSSD) and the AMX tile instructions. The generators emit them as BYTE
// directives preceded by a comment with the instruction in Intel syntax;
// gen's tests check the encodings against LLVM's assembler. The kernels
// that use them name only physical registers.

// gpNum is the encoding number of a 64-bit general-purpose register.
func gpNum(r reg.Register) int {
	names := []string{"AX", "CX", "DX", "BX", "SP", "BP", "SI", "DI", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"}
	n := strings.TrimPrefix(r.Asm(), "R")
	if strings.HasPrefix(r.Asm(), "R") && len(r.Asm()) > 1 && r.Asm()[1] >= '0' && r.Asm()[1] <= '9' {
		n = r.Asm()
	}
	for i, s := range names {
		if s == n {
			return i
		}
	}
	panic("gpNum: not a 64-bit register: " + r.Asm())
}

var gpIntel = []string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}

// xmem is a memory operand [base + index*scale + disp].
type xmem struct {
	base  int // gp number
	index int // gp number, -1 for none
	scale int
	disp  int
}

func (m xmem) intel(size string) string {
	s := gpIntel[m.base]
	if m.index >= 0 {
		s += fmt.Sprintf(" + %d*%s", m.scale, gpIntel[m.index])
	}
	if m.disp > 0 {
		s += fmt.Sprintf(" + %d", m.disp)
	} else if m.disp < 0 {
		s += fmt.Sprintf(" - %d", -m.disp)
	}
	if size != "" {
		return size + " ptr [" + s + "]"
	}
	return "[" + s + "]"
}

func memOf(m operand.Mem) xmem {
	x := xmem{base: gpNum(m.Base), index: -1, scale: 1, disp: m.Disp}
	if m.Index != nil {
		x.index, x.scale = gpNum(m.Index), int(m.Scale)
	}
	return x
}

// modrm encodes the ModRM byte, SIB and displacement of a register field r
// and a memory operand; disp8 is scaled by n (EVEX compressed displacement;
// 1 for VEX).
func modrmMem(r int, m xmem, n int) []byte {
	var out []byte
	mod := 0
	var disp []byte
	switch {
	case m.disp == 0 && m.base&7 != 5:
	case m.disp%n == 0 && m.disp/n >= -128 && m.disp/n <= 127:
		mod = 1
		disp = []byte{byte(int8(m.disp / n))}
	default:
		mod = 2
		d := uint32(int32(m.disp))
		disp = []byte{byte(d), byte(d >> 8), byte(d >> 16), byte(d >> 24)}
	}
	needSIB := m.index >= 0 || m.base&7 == 4
	if needSIB {
		out = append(out, byte(mod<<6|(r&7)<<3|4))
		ss := map[int]int{1: 0, 2: 1, 4: 2, 8: 3}[m.scale]
		idx := 4 // none
		if m.index >= 0 {
			if m.index == 4 {
				panic("rsp cannot be an index")
			}
			idx = m.index & 7
		}
		out = append(out, byte(ss<<6|idx<<3|m.base&7))
	} else {
		out = append(out, byte(mod<<6|(r&7)<<3|m.base&7))
	}
	return append(out, disp...)
}

// vexPP and vexMap are the VEX/EVEX pp (implied prefix) and map fields.
const (
	ppNone, pp66, ppF3, ppF2 = 0, 1, 2, 3
	map0F38                  = 2
)

// vex encodes a three-byte VEX instruction: reg is ModRM.reg, vvvv the
// extra source (0 when unused), rmReg a register operand (or -1 with mem).
func vex(pp, mmmmm, w, l int, opcode byte, regf, vvvv, rmReg int, mem *xmem) []byte {
	r := ^(regf >> 3) & 1
	x, b := 1, 1
	if mem != nil {
		b = ^(mem.base >> 3) & 1
		if mem.index >= 0 {
			x = ^(mem.index >> 3) & 1
		}
	} else {
		b = ^(rmReg >> 3) & 1
	}
	out := []byte{0xc4, byte(r<<7 | x<<6 | b<<5 | mmmmm), byte(w<<7 | (^vvvv&15)<<3 | l<<2 | pp), opcode}
	if mem != nil {
		return append(out, modrmMem(regf, *mem, 1)...)
	}
	return append(out, byte(0xc0|(regf&7)<<3|rmReg&7))
}

// evex encodes an EVEX instruction on 512-bit vectors (L'L = 2): regf is
// ModRM.reg (a zmm), vvvv the first source, rm a zmm register or memory
// (bcst: a broadcast of a 32-bit element), aaa the opmask (0 none).
func evex(pp, mm, w int, opcode byte, regf, vvvv, rmReg int, mem *xmem, bcst bool, aaa int, z bool) []byte {
	r := ^(regf >> 3) & 1
	r2 := ^(regf >> 4) & 1
	x, b := 1, 1
	if mem != nil {
		b = ^(mem.base >> 3) & 1
		if mem.index >= 0 {
			x = ^(mem.index >> 3) & 1
		}
	} else {
		b = ^(rmReg >> 3) & 1
		x = ^(rmReg >> 4) & 1
	}
	p0 := byte(r<<7 | x<<6 | b<<5 | r2<<4 | mm)
	p1 := byte(w<<7 | (^vvvv&15)<<3 | 1<<2 | pp)
	vp := ^(vvvv >> 4) & 1
	zb, bb := 0, 0
	if z {
		zb = 1
	}
	if bcst {
		bb = 1
	}
	p2 := byte(zb<<7 | 2<<5 | bb<<4 | vp<<3 | aaa)
	out := []byte{0x62, p0, p1, p2, opcode}
	if mem != nil {
		n := 64
		if bcst {
			n = 4
		}
		return append(out, modrmMem(regf, *mem, n)...)
	}
	return append(out, byte(0xc0|(regf&7)<<3|rmReg&7))
}

// rawInst is one encoded instruction and its Intel-syntax text.
type rawInst struct {
	text  string
	bytes []byte
}

// emitRaw writes an encoded instruction: its text as a comment, then its
// bytes (as LONG, WORD and BYTE directives, little-endian).
func emitRaw(f *amd64File, in rawInst) {
	f.Comment(in.text)
	b := in.bytes
	for len(b) > 0 {
		switch {
		case len(b) >= 4:
			f.Instruction(&ir.Instruction{Opcode: "LONG", Operands: []operand.Op{operand.U32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)}})
			b = b[4:]
		case len(b) >= 2:
			f.Instruction(&ir.Instruction{Opcode: "WORD", Operands: []operand.Op{operand.U16(uint16(b[0]) | uint16(b[1])<<8)}})
			b = b[2:]
		default:
			f.Instruction(&ir.Instruction{Opcode: "BYTE", Operands: []operand.Op{operand.U8(b[0])}})
			b = b[1:]
		}
	}
}

func zmmName(i int) string { return fmt.Sprintf("zmm%d", i) }
func ymmName(i int) string { return fmt.Sprintf("ymm%d", i) }
func tmmName(i int) string { return fmt.Sprintf("tmm%d", i) }

// vdpbf16ps is VDPBF16PS zmm(d), zmm(s1), zmm(s2): d += the dot product of
// the bfloat16 pairs of s1 and s2 in each float32 lane.
func vdpbf16ps(d, s1, s2 int) rawInst {
	return rawInst{fmt.Sprintf("vdpbf16ps %s, %s, %s", zmmName(d), zmmName(s1), zmmName(s2)),
		evex(ppF3, map0F38, 0, 0x52, d, s1, s2, nil, false, 0, false)}
}

// vdpbf16psBcst is VDPBF16PS zmm(d), zmm(s1), dword bcst [m]: the pair at m
// broadcast to every lane.
func vdpbf16psBcst(d, s1 int, m xmem) rawInst {
	return rawInst{fmt.Sprintf("vdpbf16ps %s, %s, %s {1to16}", zmmName(d), zmmName(s1), m.intel("dword")),
		evex(ppF3, map0F38, 0, 0x52, d, s1, 0, &m, true, 0, false)}
}

// vpdpbusdVEX is the AVX-VNNI VPDPBUSD ymm(d), ymm(s1), ymm(s2): d += the
// sums of the four products of the unsigned bytes of s1 and the signed
// bytes of s2 in each int32 lane.
func vpdpbusdVEX(d, s1, s2 int) rawInst {
	return rawInst{fmt.Sprintf("{vex} vpdpbusd %s, %s, %s", ymmName(d), ymmName(s1), ymmName(s2)),
		vex(pp66, map0F38, 0, 1, 0x50, d, s1, s2, nil)}
}

// vpdpwssdVEX is the AVX-VNNI VPDPWSSD ymm(d), ymm(s1), ymm(s2).
func vpdpwssdVEX(d, s1, s2 int) rawInst {
	return rawInst{fmt.Sprintf("{vex} vpdpwssd %s, %s, %s", ymmName(d), ymmName(s1), ymmName(s2)),
		vex(pp66, map0F38, 0, 1, 0x52, d, s1, s2, nil)}
}

// The AMX instructions.

func ldtilecfg(m xmem) rawInst {
	return rawInst{"ldtilecfg " + m.intel(""), vex(ppNone, map0F38, 0, 0, 0x49, 0, 0, -1, &m)}
}

func tilerelease() rawInst {
	return rawInst{"tilerelease", vex(ppNone, map0F38, 0, 0, 0x49, 0, 0, 0, nil)}
}

func tilezero(t int) rawInst {
	return rawInst{"tilezero " + tmmName(t), vex(ppF2, map0F38, 0, 0, 0x49, t, 0, 0, nil)}
}

// tileloadd loads tile t from rows at [base + disp], stride in index.
func tileloadd(t int, m xmem) rawInst {
	return rawInst{"tileloadd " + tmmName(t) + ", " + m.intel(""), vex(ppF2, map0F38, 0, 0, 0x4b, t, 0, -1, &m)}
}

// tilestored stores tile t to rows at [base + disp], stride in index.
func tilestored(m xmem, t int) rawInst {
	return rawInst{"tilestored " + m.intel("") + ", " + tmmName(t), vex(ppF3, map0F38, 0, 0, 0x4b, t, 0, -1, &m)}
}

// tdp is a tile dot product d += s1·s2: TDPBF16PS (pp F3, 5C), TDPBSSD (F2,
// 5E), TDPBUSD (66, 5E), TDPBSUD (F3, 5E), TDPBUUD (none, 5E).
func tdp(name string, d, s1, s2 int) rawInst {
	pp, op := map[string]int{"tdpbf16ps": ppF3, "tdpbssd": ppF2, "tdpbusd": pp66, "tdpbsud": ppF3, "tdpbuud": ppNone}[name], byte(0x5e)
	if name == "tdpbf16ps" {
		op = 0x5c
	}
	return rawInst{fmt.Sprintf("%s %s, %s, %s", name, tmmName(d), tmmName(s1), tmmName(s2)), vex(pp, map0F38, 0, 0, op, d, s2, s1, nil)}
}

// vpdpbusd is the AVX512_VNNI VPDPBUSD zmm(d), zmm(s1), zmm(s2): d += the
// sums of the four products of the unsigned bytes of s1 and the signed
// bytes of s2 in each int32 lane.
func vpdpbusd(d, s1, s2 int) rawInst {
	return rawInst{fmt.Sprintf("vpdpbusd %s, %s, %s", zmmName(d), zmmName(s1), zmmName(s2)),
		evex(pp66, map0F38, 0, 0x50, d, s1, s2, nil, false, 0, false)}
}

// vcvtneps2bf16 is VCVTNEPS2BF16 ymm(d), zmm(s): the float32 lanes of s
// rounded to bfloat16 (to nearest even; subnormal inputs as zero, NaNs
// quieted) into the 16 words of d.
func vcvtneps2bf16(d, s int) rawInst {
	return rawInst{fmt.Sprintf("vcvtneps2bf16 %s, %s", ymmName(d), zmmName(s)),
		evex(ppF3, map0F38, 0, 0x72, d, 0, s, nil, false, 0, false)}
}

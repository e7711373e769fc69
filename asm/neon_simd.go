package asm

import "fmt"

// Encoders for the Advanced SIMD instructions the streaming kernels use
// (elementwise arithmetic, comparisons, conversions, bitwise selects, lane
// movement) that Go's assembler does not spell. Each returns the encoding
// and the instruction in GNU syntax, as arm64asm prints it.

// The integer and half-width arrangements.
var (
	B16 = Arrangement{goName: "B16", gnuName: "16b", elem: "b", Lanes: 16, Size: 1}
	B8  = Arrangement{goName: "B8", gnuName: "8b", elem: "b", Lanes: 8, Size: 1}
	H8  = Arrangement{goName: "H8", gnuName: "8h", elem: "h", Lanes: 8, Size: 2}
	H4  = Arrangement{goName: "H4", gnuName: "4h", elem: "h", Lanes: 4, Size: 2}
	S2  = Arrangement{goName: "S2", gnuName: "2s", elem: "s", Lanes: 2, Size: 4}
)

// full reports a 128-bit arrangement (the Q bit).
func (a Arrangement) full() bool { return a.Lanes*a.Size == 16 }

// sizeField is the log2 of the element size, the "size" field of integer forms.
func (a Arrangement) sizeField() uint32 {
	switch a.Size {
	case 1:
		return 0
	case 2:
		return 1
	case 4:
		return 2
	}
	return 3
}

func q(a Arrangement) uint32 {
	if a.full() {
		return 1 << 30
	}
	return 0
}

func text3(name string, a Arrangement, d, n, m VReg) string {
	return fmt.Sprintf("%s %s, %s, %s", name, vec(d, a), vec(n, a), vec(m, a))
}

func text2(name string, ad Arrangement, d VReg, an Arrangement, n VReg) string {
	return fmt.Sprintf("%s %s, %s", name, vec(d, ad), vec(n, an))
}

// fp3 is a floating-point "three same" instruction: 0 Q U 01110 a sz 1 Rm
// opcode 1 Rn Rd (base holds U, a and opcode).
func fp3(name string, base uint32, a Arrangement, d, n, m VReg) Word {
	enc := base | q(a) | uint32(m)<<16 | uint32(n)<<5 | uint32(d)
	if a.sz {
		enc |= 1 << 22
	}
	return Word{enc, text3(name, a, d, n, m)}
}

// FSUB is d = n − m.
func FSUB(a Arrangement, d, n, m VReg) Word { return fp3("fsub", 0x0ea0d400, a, d, n, m) }

// FMUL is d = n · m.
func FMUL(a Arrangement, d, n, m VReg) Word { return fp3("fmul", 0x2e20dc00, a, d, n, m) }

// FDIV is d = n / m.
func FDIV(a Arrangement, d, n, m VReg) Word { return fp3("fdiv", 0x2e20fc00, a, d, n, m) }

// FMIN is d = min(n, m), NaN if either is NaN, −0 < +0.
func FMIN(a Arrangement, d, n, m VReg) Word { return fp3("fmin", 0x0ea0f400, a, d, n, m) }

// FMLA is d += n · m, rounded once.
func FMLA(a Arrangement, d, n, m VReg) Word { return fp3("fmla", 0x0e20cc00, a, d, n, m) }

// FMLS is d −= n · m, rounded once.
func FMLS(a Arrangement, d, n, m VReg) Word { return fp3("fmls", 0x0ea0cc00, a, d, n, m) }

// FCMEQ sets the lanes where n == m to all ones.
func FCMEQ(a Arrangement, d, n, m VReg) Word { return fp3("fcmeq", 0x0e20e400, a, d, n, m) }

// FCMGE sets the lanes where n ≥ m to all ones.
func FCMGE(a Arrangement, d, n, m VReg) Word { return fp3("fcmge", 0x2e20e400, a, d, n, m) }

// FCMGT sets the lanes where n > m to all ones.
func FCMGT(a Arrangement, d, n, m VReg) Word { return fp3("fcmgt", 0x2ea0e400, a, d, n, m) }

// fp2 is a floating-point "two-register miscellaneous" instruction:
// 0 Q U 01110 a sz 10000 opcode 10 Rn Rd.
func fp2(name string, base uint32, a Arrangement, d, n VReg) Word {
	enc := base | q(a) | uint32(n)<<5 | uint32(d)
	if a.sz {
		enc |= 1 << 22
	}
	return Word{enc, text2(name, a, d, a, n)}
}

// FABS is d = |n|.
func FABS(a Arrangement, d, n VReg) Word { return fp2("fabs", 0x0ea0f800, a, d, n) }

// FNEG is d = −n.
func FNEG(a Arrangement, d, n VReg) Word { return fp2("fneg", 0x2ea0f800, a, d, n) }

// FSQRT is d = √n.
func FSQRT(a Arrangement, d, n VReg) Word { return fp2("fsqrt", 0x2ea1f800, a, d, n) }

// FRINTN rounds to the nearest integer, ties to even.
func FRINTN(a Arrangement, d, n VReg) Word { return fp2("frintn", 0x0e218800, a, d, n) }

// FRINTM rounds toward −∞.
func FRINTM(a Arrangement, d, n VReg) Word { return fp2("frintm", 0x0e219800, a, d, n) }

// FRINTP rounds toward +∞.
func FRINTP(a Arrangement, d, n VReg) Word { return fp2("frintp", 0x0ea18800, a, d, n) }

// FRINTZ rounds toward zero.
func FRINTZ(a Arrangement, d, n VReg) Word { return fp2("frintz", 0x0ea19800, a, d, n) }

// FCVTZS converts to signed integers toward zero, saturating (NaN → 0).
func FCVTZS(a Arrangement, d, n VReg) Word { return fp2("fcvtzs", 0x0ea1b800, a, d, n) }

// FCVTNS converts to signed integers to nearest, ties to even, saturating.
func FCVTNS(a Arrangement, d, n VReg) Word { return fp2("fcvtns", 0x0e21a800, a, d, n) }

// SCVTF converts signed integers to floating point (to nearest even).
func SCVTF(a Arrangement, d, n VReg) Word { return fp2("scvtf", 0x0e21d800, a, d, n) }

// FCVTL widens the lower half: 4h → 4s (to S4) or 2s → 2d (to D2); FCVTL2
// (upper true) the upper half.
func FCVTL(to Arrangement, d, n VReg, upper bool) Word {
	enc := uint32(0x0e217800) | uint32(n)<<5 | uint32(d)
	from, name := H4, "fcvtl"
	if to.sz {
		enc |= 1 << 22
		from = S2
	}
	if upper {
		enc |= 1 << 30
		name = "fcvtl2"
		from = Arrangement{gnuName: map[bool]string{false: "8h", true: "4s"}[to.sz]}
	}
	return Word{enc, text2(name, to, d, from, n)}
}

// FCVTN narrows to the lower half of d (4s → 4h, or 2d → 2s), clearing the
// upper half; FCVTN2 (upper true) writes the upper half and keeps the lower.
func FCVTN(from Arrangement, d, n VReg, upper bool) Word {
	enc := uint32(0x0e216800) | uint32(n)<<5 | uint32(d)
	to, name := H4, "fcvtn"
	if from.sz {
		enc |= 1 << 22
		to = S2
	}
	if upper {
		enc |= 1 << 30
		name = "fcvtn2"
		to = Arrangement{gnuName: map[bool]string{false: "8h", true: "4s"}[from.sz]}
	}
	return Word{enc, text2(name, to, d, from, n)}
}

// int3 is an integer "three same" instruction: 0 Q U 01110 size 1 Rm opcode 1 Rn Rd.
func int3(name string, base uint32, a Arrangement, d, n, m VReg) Word {
	enc := base | q(a) | a.sizeField()<<22 | uint32(m)<<16 | uint32(n)<<5 | uint32(d)
	return Word{enc, text3(name, a, d, n, m)}
}

// ADD is the lane-wise integer sum.
func ADD(a Arrangement, d, n, m VReg) Word { return int3("add", 0x0e208400, a, d, n, m) }

// SUB is the lane-wise integer difference n − m.
func SUB(a Arrangement, d, n, m VReg) Word { return int3("sub", 0x2e208400, a, d, n, m) }

// CMGT sets the lanes where n > m (signed) to all ones.
func CMGT(a Arrangement, d, n, m VReg) Word { return int3("cmgt", 0x0e203400, a, d, n, m) }

// CMTST sets the lanes where n & m is not zero to all ones.
func CMTST(a Arrangement, d, n, m VReg) Word { return int3("cmtst", 0x0e208c00, a, d, n, m) }

// CMEQ sets the lanes where n == m to all ones.
func CMEQ(a Arrangement, d, n, m VReg) Word { return int3("cmeq", 0x2e208c00, a, d, n, m) }

// logic is a bitwise instruction on 16 bytes: 0 1 U 01110 opc 1 Rm 00011 1 Rn Rd.
func logic(name string, base uint32, d, n, m VReg) Word {
	enc := base | uint32(m)<<16 | uint32(n)<<5 | uint32(d)
	return Word{enc, text3(name, B16, d, n, m)}
}

// AND is d = n & m.
func AND(d, n, m VReg) Word { return logic("and", 0x4e201c00, d, n, m) }

// BIC is d = n &^ m.
func BIC(d, n, m VReg) Word { return logic("bic", 0x4e601c00, d, n, m) }

// ORR is d = n | m (printed as mov when n is m).
func ORR(d, n, m VReg) Word {
	if n == m {
		return MOV(d, n)
	}
	return logic("orr", 0x4ea01c00, d, n, m)
}

// EOR is d = n ^ m.
func EOR(d, n, m VReg) Word { return logic("eor", 0x6e201c00, d, n, m) }

// BSL selects bitwise by d: d = d&n | ^d&m.
func BSL(d, n, m VReg) Word { return logic("bsl", 0x6e601c00, d, n, m) }

// BIT inserts n into d where m is set: d = m&n | ^m&d.
func BIT(d, n, m VReg) Word { return logic("bit", 0x6ea01c00, d, n, m) }

// BIF inserts n into d where m is clear: d = ^m&n | m&d.
func BIF(d, n, m VReg) Word { return logic("bif", 0x6ee01c00, d, n, m) }

// MOV copies a register (ORR d, n, n).
func MOV(d, n VReg) Word {
	w := logic("orr", 0x4ea01c00, d, n, n)
	w.Text = fmt.Sprintf("mov %s, %s", vec(d, B16), vec(n, B16))
	return w
}

// NOT is d = ^n.
func NOT(d, n VReg) Word {
	return Word{0x6e205800 | uint32(n)<<5 | uint32(d), fmt.Sprintf("mvn %s, %s", vec(d, B16), vec(n, B16))}
}

// shiftImm is a "shift by immediate" instruction: 0 Q U 011110 immh:immb opcode 1 Rn Rd.
func shiftImm(name string, base uint32, a Arrangement, d, n VReg, immhb uint32, shift int) Word {
	enc := base | q(a) | immhb<<16 | uint32(n)<<5 | uint32(d)
	return Word{enc, fmt.Sprintf("%s %s, %s, #%d", name, vec(d, a), vec(n, a), shift)}
}

func checkShift(a Arrangement, s, lo, hi int) {
	if s < lo || s > hi {
		panic(fmt.Sprintf("asm: shift %d out of range for .%s", s, a.gnuName))
	}
}

// SHL shifts each lane left by s.
func SHL(a Arrangement, d, n VReg, s int) Word {
	bits := a.Size * 8
	checkShift(a, s, 0, bits-1)
	return shiftImm("shl", 0x0f005400, a, d, n, uint32(bits+s), s)
}

// USHR shifts each lane right by s, filling with zeros.
func USHR(a Arrangement, d, n VReg, s int) Word {
	bits := a.Size * 8
	checkShift(a, s, 1, bits)
	return shiftImm("ushr", 0x2f000400, a, d, n, uint32(2*bits-s), s)
}

// SSHR shifts each lane right by s, copying the sign.
func SSHR(a Arrangement, d, n VReg, s int) Word {
	bits := a.Size * 8
	checkShift(a, s, 1, bits)
	return shiftImm("sshr", 0x0f000400, a, d, n, uint32(2*bits-s), s)
}

// UXTL zero-extends the lower half's lanes to twice their width (8b → 8h,
// 4h → 4s, 2s → 2d); SXTL sign-extends.
func UXTL(to Arrangement, d, n VReg) Word { return xtl("uxtl", 0x2f00a400, to, d, n) }

// SXTL sign-extends the lower half's lanes to twice their width.
func SXTL(to Arrangement, d, n VReg) Word { return xtl("sxtl", 0x0f00a400, to, d, n) }

func xtl(name string, base uint32, to Arrangement, d, n VReg) Word {
	from := map[int]Arrangement{2: B8, 4: H4, 8: S2}[to.Size]
	if from.Lanes == 0 {
		panic("asm: " + name + " to ." + to.gnuName)
	}
	enc := base | uint32(from.Size*8)<<16 | uint32(n)<<5 | uint32(d)
	return Word{enc, text2(name, to, d, from, n)}
}

// XTN narrows each lane to half its width into the lower half (4s → 4h,
// 8h → 8b), clearing the upper half.
func XTN(from Arrangement, d, n VReg) Word {
	to := map[int]Arrangement{2: B8, 4: H4}[from.Size]
	if to.Lanes == 0 {
		panic("asm: xtn from ." + from.gnuName)
	}
	enc := 0x0e212800 | to.sizeField()<<22 | uint32(n)<<5 | uint32(d)
	return Word{enc, text2("xtn", to, d, from, n)}
}

// perm is a permute instruction: 0 Q 0 01110 size 0 Rm 0 opcode 10 Rn Rd.
func perm(name string, op uint32, a Arrangement, d, n, m VReg) Word {
	enc := 0x0e000800 | q(a) | a.sizeField()<<22 | uint32(m)<<16 | op<<12 | uint32(n)<<5 | uint32(d)
	return Word{enc, text3(name, a, d, n, m)}
}

// UZP1 takes the even lanes of n:m.
func UZP1(a Arrangement, d, n, m VReg) Word { return perm("uzp1", 1, a, d, n, m) }

// TRN1 interleaves the even lanes of n and m.
func TRN1(a Arrangement, d, n, m VReg) Word { return perm("trn1", 2, a, d, n, m) }

// ZIP1 interleaves the lower halves of n and m.
func ZIP1(a Arrangement, d, n, m VReg) Word { return perm("zip1", 3, a, d, n, m) }

// UZP2 takes the odd lanes of n:m.
func UZP2(a Arrangement, d, n, m VReg) Word { return perm("uzp2", 5, a, d, n, m) }

// TRN2 interleaves the odd lanes of n and m.
func TRN2(a Arrangement, d, n, m VReg) Word { return perm("trn2", 6, a, d, n, m) }

// ZIP2 interleaves the upper halves of n and m.
func ZIP2(a Arrangement, d, n, m VReg) Word { return perm("zip2", 7, a, d, n, m) }

// EXT extracts 16 bytes from the pair m:n starting at byte b of n.
func EXT(d, n, m VReg, b int) Word {
	if b < 0 || b > 15 {
		panic(fmt.Sprintf("asm: ext index %d", b))
	}
	enc := 0x6e000000 | uint32(m)<<16 | uint32(b)<<11 | uint32(n)<<5 | uint32(d)
	return Word{enc, fmt.Sprintf("ext %s, %s, %s, #%d", vec(d, B16), vec(n, B16), vec(m, B16), b)}
}

// DUPElem sets every lane of d to lane i of n.
func DUPElem(a Arrangement, d, n VReg, i int) Word {
	if i < 0 || i >= a.Lanes {
		panic(fmt.Sprintf("asm: lane %d out of range for .%s", i, a.gnuName))
	}
	imm5 := uint32(a.Size) | uint32(i)<<(a.sizeField()+1)
	enc := 0x0e000400 | q(a) | imm5<<16 | uint32(n)<<5 | uint32(d)
	return Word{enc, fmt.Sprintf("dup %s, %s", vec(d, a), elem(n, a, i))}
}

// SMLAL multiplies the signed 16-bit lanes of the lower halves of n and m
// and adds the 32-bit products to d (4h × 4h + 4s); SMLAL2 (upper true)
// takes the upper halves (8h).
func SMLAL(d, n, m VReg, upper bool) Word {
	enc := uint32(0x0e608000) | uint32(m)<<16 | uint32(n)<<5 | uint32(d)
	name, from := "smlal", H4
	if upper {
		enc |= 1 << 30
		name, from = "smlal2", H8
	}
	return Word{enc, fmt.Sprintf("%s %s, %s, %s", name, vec(d, S4), vec(n, from), vec(m, from))}
}

// ADDP adds adjacent pairs of lanes of n, then of m, into d.
func ADDP(a Arrangement, d, n, m VReg) Word { return int3("addp", 0x0e20bc00, a, d, n, m) }

// The dot-product extensions, vector forms into 32-bit lanes: each lane of
// d accumulates the dot product of four bytes (SDOT: signed × signed; USDOT:
// unsigned bytes of n × signed bytes of m, I8MM) or of two bfloat16 values
// (BFDOT, BF16) of n and m. arm64asm does not decode them; gen's tests check
// them against LLVM's assembler.

// SDOT is the signed byte dot product (ASIMDDP).
func SDOT(d, n, m VReg) Word {
	return Word{0x4e809400 | uint32(m)<<16 | uint32(n)<<5 | uint32(d), fmt.Sprintf("sdot %s, %s, %s", vec(d, S4), vec(n, B16), vec(m, B16))}
}

// USDOT is the unsigned × signed byte dot product (I8MM).
func USDOT(d, n, m VReg) Word {
	return Word{0x4e809c00 | uint32(m)<<16 | uint32(n)<<5 | uint32(d), fmt.Sprintf("usdot %s, %s, %s", vec(d, S4), vec(n, B16), vec(m, B16))}
}

// BFDOT is the bfloat16 pair dot product into float32 lanes (BF16).
func BFDOT(d, n, m VReg) Word {
	return Word{0x6e40fc00 | uint32(m)<<16 | uint32(n)<<5 | uint32(d), fmt.Sprintf("bfdot %s, %s, %s", vec(d, S4), vec(n, H8), vec(m, H8))}
}

// SXTL2 sign-extends the upper half's lanes to twice their width (16b → 8h,
// 8h → 4s, 4s → 2d).
func SXTL2(to Arrangement, d, n VReg) Word {
	from := map[int]Arrangement{2: B16, 4: H8, 8: S4}[to.Size]
	if from.Lanes == 0 {
		panic("asm: sxtl2 to ." + to.gnuName)
	}
	enc := 0x4f00a400 | uint32(from.Size*8)<<16 | uint32(n)<<5 | uint32(d)
	return Word{enc, text2("sxtl2", to, d, from, n)}
}

package asm

import "fmt"

// Word is an instruction as its 32-bit encoding and its GNU-syntax text.
type Word struct {
	Enc  uint32
	Text string
}

func vec(v VReg, a Arrangement) string { return fmt.Sprintf("v%d.%s", uint8(v), a.gnuName) }

func elem(v VReg, a Arrangement, lane int) string {
	return fmt.Sprintf("v%d.%s[%d]", uint8(v), a.elem, lane)
}

// byElement encodes the "vector by element" forms (FMLA, FMUL …):
// 0 Q U 0 1 1 1 1 1 sz L M Rm opcode H 0 Rn Rd, with Q = 1.
func byElement(base uint32, a Arrangement, d, n, m VReg, lane int) uint32 {
	if lane < 0 || lane >= a.Lanes {
		panic(fmt.Sprintf("asm: lane %d out of range for .%s", lane, a.gnuName))
	}
	enc := base | uint32(m&15)<<16 | uint32(m>>4)<<20 | uint32(n)<<5 | uint32(d)
	if a.sz {
		enc |= 1<<22 | uint32(lane)<<11 // index = H
	} else {
		enc |= uint32(lane&1)<<21 | uint32(lane>>1)<<11 // index = H:L
	}
	return enc
}

// threeSame encodes the "three registers of the same type" floating-point
// forms (FADD, FMAX …): 0 Q U 0 1 1 1 0 0 sz 1 Rm opcode 1 Rn Rd, with Q = 1.
func threeSame(base uint32, a Arrangement, d, n, m VReg) uint32 {
	enc := base | uint32(m)<<16 | uint32(n)<<5 | uint32(d)
	if a.sz {
		enc |= 1 << 22
	}
	return enc
}

// FMLAElem is d += n * m[lane], each lane of d: fmla vd.4s, vn.4s, vm.s[lane].
func FMLAElem(a Arrangement, d, n, m VReg, lane int) Word {
	return Word{byElement(0x4f801000, a, d, n, m, lane), fmt.Sprintf("fmla %s, %s, %s", vec(d, a), vec(n, a), elem(m, a, lane))}
}

// FMULElem is d = n * m[lane]: fmul vd.4s, vn.4s, vm.s[lane].
func FMULElem(a Arrangement, d, n, m VReg, lane int) Word {
	return Word{byElement(0x4f809000, a, d, n, m, lane), fmt.Sprintf("fmul %s, %s, %s", vec(d, a), vec(n, a), elem(m, a, lane))}
}

// FADD is d = n + m: fadd vd.4s, vn.4s, vm.4s.
func FADD(a Arrangement, d, n, m VReg) Word {
	return Word{threeSame(0x4e20d400, a, d, n, m), fmt.Sprintf("fadd %s, %s, %s", vec(d, a), vec(n, a), vec(m, a))}
}

// FMAX is d = max(n, m), NaN if either is NaN: fmax vd.4s, vn.4s, vm.4s.
func FMAX(a Arrangement, d, n, m VReg) Word {
	return Word{threeSame(0x4e20f400, a, d, n, m), fmt.Sprintf("fmax %s, %s, %s", vec(d, a), vec(n, a), vec(m, a))}
}

package asm

import "fmt"

// Reg is a general-purpose register R0…R30.
type Reg uint8

// R returns general-purpose register i.
func R(i int) Reg {
	if i < 0 || i > 30 {
		panic(fmt.Sprintf("asm: no general-purpose register R%d", i))
	}
	return Reg(i)
}

func (r Reg) String() string { return fmt.Sprintf("R%d", uint8(r)) }

// VReg is a SIMD&FP register V0…V31.
type VReg uint8

// V returns SIMD register i.
func V(i int) VReg {
	if i < 0 || i > 31 {
		panic(fmt.Sprintf("asm: no SIMD register V%d", i))
	}
	return VReg(i)
}

func (v VReg) String() string { return fmt.Sprintf("V%d", uint8(v)) }

// F is the scalar view of the register as Go's FMOVS/FMOVD spell it.
func (v VReg) F() string { return fmt.Sprintf("F%d", uint8(v)) }

// As is the register with an arrangement in Go syntax, e.g. "V3.S4".
func (v VReg) As(a Arrangement) string { return fmt.Sprintf("V%d.%s", uint8(v), a.goName) }

// S4 is v.As(S4).
func (v VReg) S4() string { return v.As(S4) }

// D2 is v.As(D2).
func (v VReg) D2() string { return v.As(D2) }

// B16 is the register as 16 bytes, for bitwise instructions.
func (v VReg) B16() string { return fmt.Sprintf("V%d.B16", uint8(v)) }

// Arrangement is the element layout of a 128-bit vector.
type Arrangement struct {
	goName  string // Go assembler suffix: "S4"
	gnuName string // GNU syntax: "4s"
	elem    string // element letter in GNU syntax: "s"
	Lanes   int
	Size    int  // element size in bytes
	sz      bool // the sz bit of the floating-point encodings
}

// The floating-point arrangements of a full vector.
var (
	S4 = Arrangement{goName: "S4", gnuName: "4s", elem: "s", Lanes: 4, Size: 4}
	D2 = Arrangement{goName: "D2", gnuName: "2d", elem: "d", Lanes: 2, Size: 8, sz: true}
)

package main

import (
	"fmt"

	"github.com/kilnml/kiln/asm"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The transpose family: the strip kernels of the blocked 2-D transpose. A
// strip is n rows of the source (row stride lds, n a multiple of L) and L
// columns; the kernel writes its transpose, L rows of n elements (row stride
// ldd), walking down the source one L×L block at a time with register
// shuffles: 8×8 with ymm registers on amd64 (AVX2, and the AVX-512 level
// uses the same kernel), 4×4 with NEON. Walking down a strip keeps only L
// destination rows in flight, which matters when the strides are powers of
// two and every row maps to the same cache set.

const transposeSig = "func(dst *float32, ldd int, src *float32, lds int, n int)"

// emitTransposeAVX2 writes the 8-column strip kernel.
func emitTransposeAVX2(f *amd64File) string {
	name := "transposeStrip8AVX2"
	f.leafFunction(name, transposeSig, name+" transposes an n×8 strip of src into 8 rows of n in dst (n a multiple of 8).")
	dst, ldd := reg.RDI, reg.RDX
	src, lds := reg.RSI, reg.RBX
	n := reg.RCX
	f.Load(f.Param("dst"), dst)
	f.Load(f.Param("ldd"), ldd)
	f.SHLQ(imm(2), ldd)
	f.Load(f.Param("src"), src)
	f.Load(f.Param("lds"), lds)
	f.SHLQ(imm(2), lds)
	f.Load(f.Param("n"), n)
	lds3, ldd3 := reg.R8, reg.R9
	f.LEAQ(memIdx(lds, lds, 2, 0), lds3)
	f.LEAQ(memIdx(ldd, ldd, 2, 0), ldd3)
	src4, dst4 := reg.R10, reg.R11
	y := ymm
	f.Label("loop")
	f.CMPQ(n, operand.U32(8))
	f.JL(operand.LabelRef("done"))
	f.LEAQ(memIdx(src, lds, 4, 0), src4)
	// Rows 0-3 and 4-7 of the block.
	rowAddr := func(base, ld, ld3 reg.Register, i int) operand.Mem {
		switch i {
		case 0:
			return mem(base, 0)
		case 1:
			return memIdx(base, ld, 1, 0)
		case 2:
			return memIdx(base, ld, 2, 0)
		}
		return memIdx(base, ld3, 1, 0)
	}
	for i := 0; i < 8; i++ {
		base := reg.Register(src)
		if i >= 4 {
			base = src4
		}
		f.VMOVUPS(rowAddr(base, lds, lds3, i%4), y[i])
	}
	// Interleave pairs of rows, then pairs of pairs, then the 128-bit halves.
	for i := 0; i < 8; i += 2 {
		f.VUNPCKLPS(y[i+1], y[i], y[8+i])
		f.VUNPCKHPS(y[i+1], y[i], y[8+i+1])
	}
	for i := 0; i < 8; i += 4 {
		f.VSHUFPS(imm(0x44), y[8+i+2], y[8+i], y[i])
		f.VSHUFPS(imm(0xee), y[8+i+2], y[8+i], y[i+1])
		f.VSHUFPS(imm(0x44), y[8+i+3], y[8+i+1], y[i+2])
		f.VSHUFPS(imm(0xee), y[8+i+3], y[8+i+1], y[i+3])
	}
	for i := 0; i < 4; i++ {
		f.VPERM2F128(imm(0x20), y[i+4], y[i], y[8+i])
		f.VPERM2F128(imm(0x31), y[i+4], y[i], y[12+i])
	}
	f.LEAQ(memIdx(dst, ldd, 4, 0), dst4)
	for i := 0; i < 8; i++ {
		base := reg.Register(dst)
		if i >= 4 {
			base = dst4
		}
		f.VMOVUPS(y[8+i], rowAddr(base, ldd, ldd3, i%4))
	}
	f.LEAQ(memIdx(src4, lds, 4, 0), src)
	f.ADDQ(imm(32), dst)
	f.SUBQ(imm(8), n)
	f.JMP(operand.LabelRef("loop"))
	f.Label("done")
	f.VZEROUPPER()
	f.RET()
	return name
}

// emitTransposeNEON writes the 4-column strip kernel.
func emitTransposeNEON(file *asm.File) string {
	name := "transposeStrip4NEON"
	fr := newFrame("dst", 8, "ldd", 8, "src", 8, "lds", 8, "n", 8)
	fn := file.Func(name, "(dst *float32, ldd int, src *float32, lds int, n int)", fr.size,
		name+" transposes an n×4 strip of src into 4 rows of n in dst (n a multiple of 4).")
	fn.Op("MOVD %s, R0", fr.arg("dst"))
	fn.Op("MOVD %s, R1", fr.arg("ldd"))
	fn.Op("LSL $2, R1, R1")
	fn.Op("MOVD %s, R2", fr.arg("src"))
	fn.Op("MOVD %s, R3", fr.arg("lds"))
	fn.Op("LSL $2, R3, R3")
	fn.Op("MOVD %s, R4", fr.arg("n"))
	V := asm.V
	fn.Label("loop")
	fn.Op("CMP $4, R4")
	fn.Op("BLT done")
	// Load rows 0-3 (4 floats each); R2 walks down the strip.
	for i := 0; i < 4; i++ {
		fn.Op("FMOVQ (R2), F%d", i)
		fn.Op("ADD R3, R2, R2")
	}
	// 4×4 transpose: TRN1/TRN2 on 32-bit lanes, then on 64-bit lanes.
	fn.Word(asm.TRN1(asm.S4, V(4), V(0), V(1)))
	fn.Word(asm.TRN2(asm.S4, V(5), V(0), V(1)))
	fn.Word(asm.TRN1(asm.S4, V(6), V(2), V(3)))
	fn.Word(asm.TRN2(asm.S4, V(7), V(2), V(3)))
	fn.Word(asm.TRN1(asm.D2, V(0), V(4), V(6)))
	fn.Word(asm.TRN1(asm.D2, V(1), V(5), V(7)))
	fn.Word(asm.TRN2(asm.D2, V(2), V(4), V(6)))
	fn.Word(asm.TRN2(asm.D2, V(3), V(5), V(7)))
	// Store the four columns as rows of dst; R5 walks across them.
	fn.Op("MOVD R0, R5")
	for i := 0; i < 4; i++ {
		fn.Op("FMOVQ F%d, (R5)", i)
		if i < 3 {
			fn.Op("ADD R1, R5, R5")
		}
	}
	fn.Op("ADD $16, R0, R0")
	fn.Op("SUB $4, R4, R4")
	fn.Op("B loop")
	fn.Label("done")
	fn.Op("RET")
	return name
}

func generateTranspose(o *output) error {
	avx := emitTransposeAVX2(o.amd64)
	neon := emitTransposeNEON(o.arm64)
	for _, c := range [][3]string{{"levelAVX512", avx, "8"}, {"levelAVX2", avx, "8"}, {"levelNEON", neon, "4"}} {
		o.set(c[0], "transpose", fmt.Sprintf("transposeKernel{strip: %s, width: %s}", c[1], c[2]))
	}
	return nil
}

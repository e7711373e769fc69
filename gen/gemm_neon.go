package main

import (
	"fmt"
	"strings"

	"github.com/kilnml/kiln/asm"
)

// neonTile parameterises the NEON GEMM kernels like gemmTile does the amd64
// ones: rows of A broadcast by lane (FMLA by element), nr columns of B in
// vectors, k unrolled.
type neonTile struct {
	e      neonElem
	mr, nr int
	unroll int
}

// gemmNEON: 8×12 float32 (24 accumulators, 3 vectors of B, 2 of A) and
// 8×6 float64 (24 accumulators, 3 of B, 4 of A) within the 32 V registers.
var gemmNEON = []neonTile{
	{e: neonF32, mr: 8, nr: 12, unroll: 4},
	{e: neonF64, mr: 8, nr: 6, unroll: 4},
}

func (t neonTile) kernelName(rows int) string {
	return fmt.Sprintf("%sgemmNEONKMajor%dx%d", t.e.prefix, rows, t.nr)
}

func generateGEMMARM64(o *output) error {
	f := o.arm64
	for _, t := range gemmNEON {
		te := gemmEntry{goType: t.e.goType, mr: t.mr, nr: t.nr}
		for rows := 1; rows <= t.mr; rows++ {
			emitNEONKernel(f, t, rows)
			te.kmajor = append(te.kmajor, t.kernelName(rows))
		}
		if t.e.goType == "float32" {
			for _, nr := range gemvPackedWidths(t.nr, neonF32.arr.Lanes) {
				w := packedRowsWidth{width: nr}
				for rows := 1; rows <= gemvPackedRows; rows++ {
					w.names = append(w.names, emitGemvPackedNEON(f, nr, rows))
				}
				te.packedRows = append(te.packedRows, w)
			}
		}
		o.set("levelNEON", t.e.prefix+"gemm", te.expr())
	}
	o.set("levelNEON", "fmaPeak", emitPeakNEON(f))
	o.set("levelNEON", "fmaLanes", "4")
	return nil
}

// emitNEONKernel writes one k-major micro-kernel (see the root package's
// microKernel). Partial tiles never reach it: NEON has no masked store, so
// the driver stores edge tiles through a scratch tile.
func emitNEONKernel(f *asm.File, t neonTile, rows int) {
	e := t.e
	es := e.arr.Size
	nv := t.nr / e.arr.Lanes
	fr := newFrame("k", 8, "a", 8, "lda", 8, "b", 8, "ldb", 8, "c", 8, "ldc", 8, "alpha", es, "beta", es, "bias", 8, "mask", 8, "flags", 8)
	name := t.kernelName(rows)
	sig := fmt.Sprintf("(k int, a *%[1]s, lda int, b *%[1]s, ldb int, c *%[1]s, ldc int, alpha, beta %[1]s, bias *%[1]s, mask *int32, flags uint)", e.goType)
	fn := f.Func(name, sig, fr.size, fmt.Sprintf("%s computes a %d×%d tile of C with NEON, A(i,p) = a[p*lda+i]; see microKernel.", name, rows, t.nr))

	acc := func(i, j int) asm.VReg { return asm.V(i*nv + j) }
	bReg := asm.V(24) // B vectors: V24…
	aReg := asm.V(24 + nv)
	if 24+nv+(t.mr+e.arr.Lanes-1)/e.arr.Lanes > 32 || t.mr*nv > 24 {
		panic(fmt.Sprintf("NEON: a %d×%d tile does not fit the registers", t.mr, t.nr))
	}
	shift := map[int]int{4: 2, 8: 3}[es]
	R0, R1, R2, R3, R4 := asm.R(0), asm.R(1), asm.R(2), asm.R(3), asm.R(4)
	fn.Op("MOVD %s, %s", fr.arg("k"), R0)
	fn.Op("MOVD %s, %s", fr.arg("a"), R1)
	fn.Op("MOVD %s, %s", fr.arg("lda"), R2)
	fn.Op("LSL $%d, %s, %s", shift, R2, R2)
	fn.Op("MOVD %s, %s", fr.arg("b"), R3)
	fn.Op("MOVD %s, %s", fr.arg("ldb"), R4)
	fn.Op("LSL $%d, %s, %s", shift, R4, R4)
	for i := 0; i < rows*nv; i++ {
		fn.Op("VEOR %s, %s, %s", asm.V(i).B16(), asm.V(i).B16(), asm.V(i).B16())
	}
	bList := make([]string, nv)
	for j := range bList {
		bList[j] = (bReg + asm.VReg(j)).As(e.arr)
	}
	step := func() {
		fn.Op("VLD1 (%s), [%s]", R3, strings.Join(bList, ", "))
		aRegs, aLanes := loadRows(fn, e, R1, rows, aReg)
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				fn.Word(asm.FMLAElem(e.arr, acc(i, j), bReg+asm.VReg(j), aRegs[i], aLanes[i]))
			}
		}
		fn.Op("ADD %s, %s, %s", R2, R1, R1)
		fn.Op("ADD %s, %s, %s", R4, R3, R3)
	}
	fn.Label("loop")
	fn.Op("CMP $%d, %s", t.unroll, R0)
	fn.Op("BLT tail")
	for u := 0; u < t.unroll; u++ {
		step()
	}
	fn.Op("SUB $%d, %s, %s", t.unroll, R0, R0)
	fn.Op("B loop")
	fn.Label("tail")
	fn.Op("CBZ %s, epilogue", R0)
	step()
	fn.Op("SUB $1, %s, %s", R0, R0)
	fn.Op("B tail")

	fn.Label("epilogue")
	R5, R6, R7, R8 := asm.R(5), asm.R(6), asm.R(7), asm.R(8)
	alpha, beta, zero := asm.V(29), asm.V(30), asm.V(31)
	tmp := asm.V(24) // nv consecutive registers for a row of C or the bias
	tmpList := make([]string, nv)
	for j := range tmpList {
		tmpList[j] = (tmp + asm.VReg(j)).As(e.arr)
	}
	fn.Op("MOVD %s, %s", fr.arg("c"), R5)
	fn.Op("MOVD %s, %s", fr.arg("ldc"), R6)
	fn.Op("LSL $%d, %s, %s", shift, R6, R6)
	fn.Op("MOVD %s, %s", fr.arg("flags"), R7)
	fn.Op("%s %s, %s", e.fmov, fr.arg("alpha"), alpha.F())
	for i := 0; i < rows*nv; i++ {
		fn.Word(asm.FMULElem(e.arr, asm.V(i), asm.V(i), alpha, 0))
	}
	fn.Op("TBZ $0, %s, nobeta", R7) // flagLoadC
	fn.Op("%s %s, %s", e.fmov, fr.arg("beta"), beta.F())
	fn.Op("MOVD %s, %s", R5, R8)
	for i := 0; i < rows; i++ {
		fn.Op("VLD1 (%s), [%s]", R8, strings.Join(tmpList, ", "))
		for j := 0; j < nv; j++ {
			fn.Word(asm.FMLAElem(e.arr, acc(i, j), tmp+asm.VReg(j), beta, 0))
		}
		fn.Op("ADD %s, %s, %s", R6, R8, R8)
	}
	fn.Label("nobeta")
	fn.Op("TBZ $1, %s, nobias", R7) // flagBias
	fn.Op("MOVD %s, %s", fr.arg("bias"), R8)
	fn.Op("VLD1 (%s), [%s]", R8, strings.Join(tmpList, ", "))
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			fn.Word(asm.FADD(e.arr, acc(i, j), acc(i, j), tmp+asm.VReg(j)))
		}
	}
	fn.Label("nobias")
	fn.Op("TBZ $2, %s, norelu", R7) // flagReLU
	fn.Op("VEOR %s, %s, %s", zero.B16(), zero.B16(), zero.B16())
	for i := 0; i < rows*nv; i++ {
		fn.Word(asm.FMAX(e.arr, asm.V(i), asm.V(i), zero))
	}
	fn.Label("norelu")
	for i := 0; i < rows; i++ {
		regs := make([]string, nv)
		for j := range regs {
			regs[j] = acc(i, j).As(e.arr)
		}
		fn.Op("VST1 [%s], (%s)", strings.Join(regs, ", "), R5)
		if i+1 < rows {
			fn.Op("ADD %s, %s, %s", R6, R5, R5)
		}
	}
	fn.Op("RET")
}

// emitPeakNEON writes the NEON FMA-throughput loop (see the peak family).
func emitPeakNEON(f *asm.File) string {
	name := "fmaPeakNEON"
	fn := f.Func(name, "(iters int)", 8, fmt.Sprintf("%s runs iters iterations of %d independent 4-lane float32 FMAs.", name, peakAccumulators))
	fn.Op("MOVD iters+0(FP), R0")
	for i := 0; i < peakAccumulators+2; i++ {
		fn.Op("VEOR %s, %s, %s", asm.V(i).B16(), asm.V(i).B16(), asm.V(i).B16())
	}
	x, y := asm.V(peakAccumulators), asm.V(peakAccumulators+1)
	fn.Label("loop")
	fn.Op("CBZ R0, done")
	for i := 0; i < peakAccumulators; i++ {
		fn.Op("VFMLA %s, %s, %s", x.S4(), y.S4(), asm.V(i).S4())
	}
	fn.Op("SUB $1, R0, R0")
	fn.Op("B loop")
	fn.Label("done")
	fn.Op("RET")
	return name
}

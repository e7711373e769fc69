package main

import (
	"fmt"
	"strings"

	"github.com/kilnml/kiln/asm"
)

// The NEON members of the convolution family: the same tables of taps and
// epilogue flags as the amd64 kernels. NEON has no masked stores, so the
// driver never passes flagPartial: partial tiles go through a scratch tile
// and channel tails through the Go twin.

// neonConvTile is an implicit-GEMM tile: mr rows (each A element replicated
// with LD1R), nr columns in 4-lane vectors.
type neonConvTile struct {
	mr, nr int
}

// neonDWTile is a depthwise tile: mr pixels of nv 4-lane vectors.
type neonDWTile struct {
	mr, nv int
}

// convNEON: 6×16 uses 24 accumulators, 4 B vectors and 4 A registers.
var convNEON = []neonConvTile{{mr: 6, nr: 16}, {mr: 8, nr: 8}}

var dwNEON = []neonDWTile{{mr: 6, nv: 4}, {mr: 8, nv: 2}, {mr: 8, nv: 1}}

func (t neonConvTile) kernelName(rows int) string {
	return fmt.Sprintf("sconvNEONTaps%dx%d", rows, t.nr)
}

func (t neonDWTile) kernelName(rows int) string {
	return fmt.Sprintf("sdepthwiseNEONPixels%dx%d", rows, 4*t.nv)
}

func generateConvARM64(o *output) error {
	f := o.arm64
	l := convLevel{lanes: 4, masked: false}
	for _, t := range convNEON {
		for rows := 1; rows <= t.mr; rows++ {
			emitNEONConvKernel(f, t, rows)
		}
		l.gemm = append(l.gemm, convTable{width: t.nr, names: kernelNames(t.mr, t.kernelName)})
	}
	for _, t := range dwNEON {
		for rows := 1; rows <= t.mr; rows++ {
			emitNEONDepthwiseKernel(f, t, rows)
		}
		l.dw = append(l.dw, convTable{width: t.nv, names: kernelNames(t.mr, t.kernelName)})
	}
	o.set("levelNEON", "conv", l.expr())
	return nil
}

func vlist(first asm.VReg, n int) string {
	regs := make([]string, n)
	for i := range regs {
		regs[i] = (first + asm.VReg(i)).As(asm.S4)
	}
	return "[" + strings.Join(regs, ", ") + "]"
}

func emitNEONConvKernel(f *asm.File, t neonConvTile, rows int) {
	nv := t.nr / 4
	if t.mr*nv+nv+4 > 32 || t.mr > 8 {
		panic(fmt.Sprintf("NEON: a %d×%d conv tile does not fit the registers", t.mr, t.nr))
	}
	fr := newFrame("n", 8, "taps", 8, "tab", 8, "a", 8, "aoff", 8, "lda", 8, "b", 8, "ldb", 8, "kc", 8, "pf", 8, "c", 8, "ldc", 8, "res", 8, "bias", 8, "mask", 8, "flags", 8)
	name := t.kernelName(rows)
	sig := "(n int, taps int, tab *int, a *float32, aoff int, lda int, b *float32, ldb int, kc int, pf *float32, c *float32, ldc int, res *float32, bias *float32, mask *int32, flags uint)"
	fn := f.Func(name, sig, fr.size, fmt.Sprintf("%s computes n %d×%d convolution tiles with NEON over a table of taps; see convKernel.", name, rows, t.nr))
	fn.Label("top")

	acc := func(i, j int) asm.VReg { return asm.V(i*nv + j) }
	bReg := asm.V(t.mr * nv)
	aReg := func(i int) asm.VReg { return bReg + asm.VReg(nv+i%4) }
	row := func(i int) asm.Reg { return asm.R(9 + i) }
	R0, R1, R2, R3, R4, R5, R6, R7, R8, R17 := asm.R(0), asm.R(1), asm.R(2), asm.R(3), asm.R(4), asm.R(5), asm.R(6), asm.R(7), asm.R(8), asm.R(17)

	fn.Op("MOVD %s, %s", fr.arg("taps"), R0)
	fn.Op("MOVD %s, %s", fr.arg("tab"), R1)
	fn.Op("MOVD %s, %s", fr.arg("a"), R2)
	fn.Op("MOVD %s, %s", fr.arg("aoff"), R17)
	fn.Op("ADD %s<<2, %s, %s", R17, R2, R2)
	fn.Op("MOVD %s, %s", fr.arg("lda"), R3)
	fn.Op("LSL $2, %s, %s", R3, R3)
	fn.Op("MOVD %s, %s", fr.arg("b"), R4)
	fn.Op("MOVD %s, %s", fr.arg("ldb"), R5)
	fn.Op("LSL $2, %s, %s", R5, R5)
	fn.Op("MOVD %s, %s", fr.arg("kc"), R6)
	for i := 0; i < rows*nv; i++ {
		fn.Op("VEOR %s, %s, %s", asm.V(i).B16(), asm.V(i).B16(), asm.V(i).B16())
	}
	fn.Op("CBZ %s, epilogue", R0)
	fn.Label("tap")
	fn.Op("MOVD (%s), %s", R1, R17)
	fn.Op("ADD %s<<2, %s, %s", R17, R2, row(0))
	for i := 1; i < rows; i++ {
		fn.Op("ADD %s, %s, %s", R3, row(i-1), row(i))
	}
	fn.Op("MOVD 8(%s), %s", R1, R17)
	fn.Op("ADD %s<<2, %s, %s", R17, R4, R8)
	fn.Op("ADD $16, %s, %s", R1, R1)
	fn.Op("MOVD %s, %s", R6, R7)
	fn.Label("loop")
	fn.Op("CBZ %s, next", R7)
	fn.Op("VLD1.P (%s)(%s), %s", R8, R5, vlist(bReg, nv))
	for i := 0; i < rows; i++ {
		fn.Op("VLD1R.P 4(%s), [%s]", row(i), aReg(i).As(asm.S4))
		for j := 0; j < nv; j++ {
			fn.Op("VFMLA %s, %s, %s", (bReg + asm.VReg(j)).As(asm.S4), aReg(i).As(asm.S4), acc(i, j).As(asm.S4))
		}
	}
	fn.Op("SUB $1, %s, %s", R7, R7)
	fn.Op("B loop")
	fn.Label("next")
	fn.Op("SUB $1, %s, %s", R0, R0)
	fn.Op("CBNZ %s, tap", R0)
	fn.Label("epilogue")
	emitNEONConvEpilogue(fn, fr, rows, nv, acc, bReg, aReg(0))
}

// emitNEONConvEpilogue adds C, the residual and the bias as the flags say,
// applies ReLU and stores the tile. tmp is the first of nv free registers,
// zero one more.
func emitNEONConvEpilogue(fn *asm.Func, fr *frame, rows, nv int, acc func(i, j int) asm.VReg, tmp, zero asm.VReg) {
	R0, R1, R3, R4, R5, R17 := asm.R(0), asm.R(1), asm.R(3), asm.R(4), asm.R(5), asm.R(17)
	fn.Op("MOVD %s, %s", fr.arg("flags"), R0)
	fn.Op("MOVD %s, %s", fr.arg("c"), R1)
	fn.Op("MOVD %s, %s", fr.arg("ldc"), R3)
	fn.Op("LSL $2, %s, %s", R3, R3)
	addRows := func(base asm.Reg) {
		fn.Op("MOVD %s, %s", base, R17)
		for i := 0; i < rows; i++ {
			fn.Op("VLD1 (%s), %s", R17, vlist(tmp, nv))
			for j := 0; j < nv; j++ {
				fn.Word(asm.FADD(asm.S4, acc(i, j), acc(i, j), tmp+asm.VReg(j)))
			}
			if i+1 < rows {
				fn.Op("ADD %s, %s, %s", R3, R17, R17)
			}
		}
	}
	fn.Op("TBZ $0, %s, noload", R0) // flagLoadC
	addRows(R1)
	fn.Label("noload")
	fn.Op("TBZ $4, %s, nores", R0) // flagResidual
	fn.Op("MOVD %s, %s", fr.arg("res"), R4)
	addRows(R4)
	fn.Label("nores")
	fn.Op("TBZ $1, %s, nobias", R0) // flagBias
	fn.Op("MOVD %s, %s", fr.arg("bias"), R5)
	fn.Op("VLD1 (%s), %s", R5, vlist(tmp, nv))
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			fn.Word(asm.FADD(asm.S4, acc(i, j), acc(i, j), tmp+asm.VReg(j)))
		}
	}
	fn.Label("nobias")
	fn.Op("TBZ $2, %s, norelu", R0) // flagReLU
	fn.Op("VEOR %s, %s, %s", zero.B16(), zero.B16(), zero.B16())
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			fn.Word(asm.FMAX(asm.S4, acc(i, j), acc(i, j), zero))
		}
	}
	fn.Label("norelu")
	for i := 0; i < rows; i++ {
		fn.Op("VST1 %s, (%s)", vlist(acc(i, 0), nv), R1)
		if i+1 < rows {
			fn.Op("ADD %s, %s, %s", R3, R1, R1)
		}
	}
	// The next tile, while n says there is one: rows pixels further in the
	// input, the output and the residual.
	R2 := asm.R(2)
	fn.Op("MOVD %s, %s", fr.arg("n"), R1)
	fn.Op("SUBS $1, %s, %s", R1, R1)
	fn.Op("BEQ done")
	fn.Op("MOVD %s, %s", R1, fr.arg("n"))
	fn.Op("MOVD %s, %s", fr.arg("lda"), R1)
	fn.Op("MOVD $%d, %s", rows, R2)
	fn.Op("MUL %s, %s, %s", R2, R1, R1)
	fn.Op("MOVD %s, %s", fr.arg("aoff"), R2)
	fn.Op("ADD %s, %s, %s", R1, R2, R2)
	fn.Op("MOVD %s, %s", R2, fr.arg("aoff"))
	fn.Op("MOVD %s, %s", fr.arg("ldc"), R1)
	fn.Op("MOVD $%d, %s", rows*4, R2)
	fn.Op("MUL %s, %s, %s", R2, R1, R1)
	fn.Op("MOVD %s, %s", fr.arg("c"), R2)
	fn.Op("ADD %s, %s, %s", R1, R2, R2)
	fn.Op("MOVD %s, %s", R2, fr.arg("c"))
	fn.Op("TBZ $4, %s, top", R0) // flagResidual
	fn.Op("MOVD %s, %s", fr.arg("res"), R2)
	fn.Op("ADD %s, %s, %s", R1, R2, R2)
	fn.Op("MOVD %s, %s", R2, fr.arg("res"))
	fn.Op("B top")
	fn.Label("done")
	fn.Op("RET")
}

func emitNEONDepthwiseKernel(f *asm.File, t neonDWTile, rows int) {
	nv := t.nv
	if t.mr*nv+2*nv > 32 {
		panic(fmt.Sprintf("NEON: a %d-pixel depthwise tile of %d vectors does not fit", t.mr, nv))
	}
	fr := newFrame("n", 8, "taps", 8, "tab", 8, "a", 8, "aoff", 8, "lda", 8, "w", 8, "c", 8, "ldc", 8, "res", 8, "bias", 8, "mask", 8, "flags", 8)
	name := t.kernelName(rows)
	sig := "(n int, taps int, tab *int, a *float32, aoff int, lda int, w *float32, c *float32, ldc int, res *float32, bias *float32, mask *int32, flags uint)"
	fn := f.Func(name, sig, fr.size, fmt.Sprintf("%s computes n tiles of %d output pixels × %d channels of a depthwise convolution with NEON over a table of taps; see dwKernel.", name, rows, 4*nv))
	fn.Label("top")

	acc := func(i, j int) asm.VReg { return asm.V(i*nv + j) }
	wReg := asm.V(t.mr * nv)
	xReg := wReg + asm.VReg(nv)
	R0, R1, R2, R3, R4, R8, R9, R17 := asm.R(0), asm.R(1), asm.R(2), asm.R(3), asm.R(4), asm.R(8), asm.R(9), asm.R(17)
	fn.Op("MOVD %s, %s", fr.arg("taps"), R0)
	fn.Op("MOVD %s, %s", fr.arg("tab"), R1)
	fn.Op("MOVD %s, %s", fr.arg("a"), R2)
	fn.Op("MOVD %s, %s", fr.arg("aoff"), R17)
	fn.Op("ADD %s<<2, %s, %s", R17, R2, R2)
	fn.Op("MOVD %s, %s", fr.arg("lda"), R3)
	fn.Op("LSL $2, %s, %s", R3, R3)
	fn.Op("MOVD %s, %s", fr.arg("w"), R4)
	for i := 0; i < rows*nv; i++ {
		fn.Op("VEOR %s, %s, %s", asm.V(i).B16(), asm.V(i).B16(), asm.V(i).B16())
	}
	fn.Op("CBZ %s, epilogue", R0)
	fn.Label("tap")
	fn.Op("MOVD (%s), %s", R1, R17)
	fn.Op("ADD %s<<2, %s, %s", R17, R2, R9)
	fn.Op("MOVD 8(%s), %s", R1, R17)
	fn.Op("ADD %s<<2, %s, %s", R17, R4, R8)
	fn.Op("ADD $16, %s, %s", R1, R1)
	fn.Op("VLD1 (%s), %s", R8, vlist(wReg, nv))
	for i := 0; i < rows; i++ {
		if i+1 < rows {
			fn.Op("VLD1.P (%s)(%s), %s", R9, R3, vlist(xReg, nv))
		} else {
			fn.Op("VLD1 (%s), %s", R9, vlist(xReg, nv))
		}
		for j := 0; j < nv; j++ {
			fn.Op("VFMLA %s, %s, %s", (wReg + asm.VReg(j)).As(asm.S4), (xReg + asm.VReg(j)).As(asm.S4), acc(i, j).As(asm.S4))
		}
	}
	fn.Op("SUB $1, %s, %s", R0, R0)
	fn.Op("CBNZ %s, tap", R0)
	fn.Label("epilogue")
	emitNEONConvEpilogue(fn, fr, rows, nv, acc, wReg, xReg)
}

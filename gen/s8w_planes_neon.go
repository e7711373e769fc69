package main

import (
	"fmt"

	"github.com/kilnml/kiln/asm"
)

// The int8-weight kernels of the NEON level with I8MM (neonbf16): the
// weights in quads of rows, sixteen columns per panel (four vectors of
// four dword lanes), read by the float32 row kernels, by the widening and
// by the planes kernels, which multiply the row's byte planes by the
// weights with USDOT (unsigned × signed byte quads, as VPDPBUSD) and
// combine the planes' sums exactly in int64 before one scaled rounding
// (see emitS8WPlanes).

// neonQuadWiden sets d to float32(byte t of each dword lane of g).
func neonQuadWiden(fn *asm.Func, d, g asm.VReg, t int) {
	if t < 3 {
		fn.Word(asm.SHL(asm.S4, d, g, 24-8*t))
		fn.Word(asm.SSHR(asm.S4, d, d, 24))
	} else {
		fn.Word(asm.SSHR(asm.S4, d, g, 24))
	}
	fn.Word(asm.SCVTF(asm.S4, d, d))
}

// emitNEONS8WQuads writes the float32 row kernel for rows rows over
// weights in quads (s8wTwin's order: one row sums its even and its odd k
// steps apart).
func emitNEONS8WQuads(f *asm.File, rows int) string {
	fr := newFrame("k", 8, "a", 8, "lda", 8, "w", 8, "panels", 8, "scale", 8, "c", 8, "ldc", 8, "bias", 8, "flags", 8)
	name := fmt.Sprintf("s8wQuadsNEON%dx%d", rows, neonS8WColumns)
	fn := f.Func(name, "(k int, a *float32, lda int, w *int8, panels int, scale *float32, c *float32, ldc int, bias *float32, flags uint)", fr.size,
		fmt.Sprintf("%s computes C(i, q*16+j) = act(scale[q*16+j]·Σp A(i,p)·float32(W(p, q*16+j)) + bias) for the %d rows of A and the panels q < panels of int8 weights in quads of rows; see GemmF32S8.", name, rows))
	const nv = 4
	sets := 1
	if rows == 1 {
		sets = 2
	}
	acc := func(i, j int) asm.VReg { return asm.V(i*nv + j) }
	g := func(j int) asm.VReg { return asm.V(16 + j) }           // the group's four vectors
	wt := func(s, j int) asm.VReg { return asm.V(20 + 4*s + j) } // a step's widened weights
	aReg := func(s int) asm.VReg { return asm.V(28 + s) }
	R2, R3, R4, R9, R10, R11, R12, R13 := neonS8WRowsPrologue(fn, fr)
	rowPtr := neonS8WPanelStart(fn, fr, rows, sets*rows*nv, R2)
	step := func(t int) {
		s := t % sets
		for j := 0; j < nv; j++ {
			neonQuadWiden(fn, wt(s, j), g(j), t)
		}
		for i := 0; i < rows; i++ {
			fn.Op("VLD1R.P 4(%s), [%s]", rowPtr(i), aReg(s).S4())
			for j := 0; j < nv; j++ {
				fn.Word(asm.FMLA(asm.S4, acc(s*rows+i, j), wt(s, j), aReg(s)))
			}
		}
	}
	// Whole groups, then the last group's k mod 4 steps (its padding
	// weights are zero, but A past k may hold anything).
	fn.Op("CMP $4, R0")
	fn.Op("BLT ktail")
	fn.Label("kloop")
	fn.Op("VLD1.P 64(%s), %s", R3, vlist(g(0), nv))
	for t := range 4 {
		step(t)
	}
	fn.Op("SUB $4, R0, R0")
	fn.Op("CMP $4, R0")
	fn.Op("BGE kloop")
	fn.Label("ktail")
	fn.Op("CBZ R0, ksum")
	fn.Op("VLD1.P 64(%s), %s", R3, vlist(g(0), nv))
	for t := range 3 {
		if t > 0 {
			fn.Op("CMP $%d, R0", t+1)
			fn.Op("BLT ksum")
		}
		step(t)
	}
	fn.Label("ksum")
	if sets == 2 {
		for j := 0; j < nv; j++ {
			fn.Word(asm.FADD(asm.S4, acc(0, j), acc(0, j), acc(1, j)))
		}
	}
	emitNEONS8WEpilogue(fn, rows, g(0), aReg(0), R4, R9, R10, R11, R12, R13)
	return name
}

// neonS8WRowsPrologue loads a float32 int8-weight row kernel's arguments
// (fr: s8wRowsKernel's): lda in bytes into R2, w R3, panels R4, scale R9,
// c R10, ldc in bytes R11, bias R12, flags R13, and returns them.
func neonS8WRowsPrologue(fn *asm.Func, fr *frame) (R2, R3, R4, R9, R10, R11, R12, R13 asm.Reg) {
	R2, R3, R4, R9, R10, R11, R12, R13 = asm.R(2), asm.R(3), asm.R(4), asm.R(9), asm.R(10), asm.R(11), asm.R(12), asm.R(13)
	fn.Op("MOVD %s, %s", fr.arg("lda"), R2)
	fn.Op("LSL $2, %s, %s", R2, R2)
	fn.Op("MOVD %s, %s", fr.arg("w"), R3)
	fn.Op("MOVD %s, %s", fr.arg("panels"), R4)
	fn.Op("MOVD %s, %s", fr.arg("scale"), R9)
	fn.Op("MOVD %s, %s", fr.arg("c"), R10)
	fn.Op("MOVD %s, %s", fr.arg("ldc"), R11)
	fn.Op("LSL $2, %s, %s", R11, R11)
	fn.Op("MOVD %s, %s", fr.arg("bias"), R12)
	fn.Op("MOVD %s, %s", fr.arg("flags"), R13)
	return
}

// neonS8WPanelStart starts a float32 int8-weight row kernel's panel: the
// label, nacc accumulators V0… cleared, the rows' pointers into A (R5…,
// row stride R2 bytes) and k in R0. It returns the row pointers.
func neonS8WPanelStart(fn *asm.Func, fr *frame, rows, nacc int, R2 asm.Reg) func(i int) asm.Reg {
	rowPtr := func(i int) asm.Reg { return asm.R(5 + i) }
	fn.Label("panel")
	for i := 0; i < nacc; i++ {
		fn.Op("VEOR %s, %s, %s", asm.V(i).B16(), asm.V(i).B16(), asm.V(i).B16())
	}
	fn.Op("MOVD %s, %s", fr.arg("a"), rowPtr(0))
	for i := 1; i < rows; i++ {
		fn.Op("ADD %s, %s, %s", R2, rowPtr(i-1), rowPtr(i))
	}
	fn.Op("MOVD %s, R0", fr.arg("k"))
	return rowPtr
}

// emitNEONS8WEpilogue ends a float32 int8-weight row kernel: the scales,
// the bias and ReLU as flags (R13) say, the store of the rows' 16 columns
// (at R10, row stride R11), and the next panel (R4 panels left; scales
// at R9, bias at R12). tmp…tmp+3 and zero are free vector registers.
func emitNEONS8WEpilogue(fn *asm.Func, rows int, tmp, zero asm.VReg, R4, R9, R10, R11, R12, R13 asm.Reg) {
	const nv = 4
	fn.Op("VLD1.P 64(%s), %s", R9, vlist(tmp, nv))
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			fn.Word(asm.FMUL(asm.S4, asm.V(i*nv+j), asm.V(i*nv+j), tmp+asm.VReg(j)))
		}
	}
	fn.Op("TBZ $1, %s, nobias", R13)
	fn.Op("VLD1 (%s), %s", R12, vlist(tmp, nv))
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			fn.Word(asm.FADD(asm.S4, asm.V(i*nv+j), asm.V(i*nv+j), tmp+asm.VReg(j)))
		}
	}
	fn.Label("nobias")
	fn.Op("TBZ $2, %s, norelu", R13)
	fn.Op("VEOR %s, %s, %s", zero.B16(), zero.B16(), zero.B16())
	for i := 0; i < rows*nv; i++ {
		fn.Word(asm.FMAX(asm.S4, asm.V(i), asm.V(i), zero))
	}
	fn.Label("norelu")
	fn.Op("MOVD %s, R14", R10)
	for i := 0; i < rows; i++ {
		fn.Op("VST1 %s, (R14)", vlist(asm.V(i*nv), nv))
		if i+1 < rows {
			fn.Op("ADD %s, R14, R14", R11)
		}
	}
	fn.Op("ADD $64, %s, %s", R10, R10)
	fn.Op("ADD $64, %s, %s", R12, R12)
	fn.Op("SUB $1, %s, %s", R4, R4)
	fn.Op("CBNZ %s, panel", R4)
	fn.Op("RET")
}

// emitNEONS8WPlanes writes the planes kernel for planes planes with USDOT.
func emitNEONS8WPlanes(f *asm.File, planes int) string {
	fr := newFrame("groups", 8, "x", 8, "w", 8, "panels", 8, "sums", 8, "unit", 8, "scale", 8, "c", 8, "bias", 8, "flags", 8)
	name := fmt.Sprintf("s8wPlanesNEONP%dx%d", planes, neonS8WColumns)
	fn := f.Func(name, "(groups int, x *uint32, w *int8, panels int, sums *int32, unit float64, scale *float32, c *float32, bias *float32, flags uint)", fr.size,
		fmt.Sprintf("%s computes C(q*16+j) = act(scale·(X·W) + bias) for a row held as %d byte planes of the fixed-point X (groups×%[2]d dwords from x) and the panels q < panels of int8 weight quads, with USDOT; see s8wPlanesTwin.", name, planes))
	const nv = 4
	if planes*nv > 24 {
		panic(name + ": does not fit the registers")
	}
	acc := func(p, j int) asm.VReg { return asm.V(p*nv + j) }
	wv := func(j int) asm.VReg { return asm.V(24 + j) }
	aReg := func(p int) asm.VReg { return asm.V(28 + p%2) }
	unit := asm.V(30)
	R0, R1, R3, R4, R5, R9, R10, R12, R13, R14 := asm.R(0), asm.R(1), asm.R(3), asm.R(4), asm.R(5), asm.R(9), asm.R(10), asm.R(12), asm.R(13), asm.R(14)
	fn.Op("MOVD %s, %s", fr.arg("w"), R3)
	fn.Op("MOVD %s, %s", fr.arg("panels"), R4)
	fn.Op("MOVD %s, %s", fr.arg("sums"), R5)
	fn.Op("MOVD %s, %s", fr.arg("scale"), R9)
	fn.Op("MOVD %s, %s", fr.arg("c"), R10)
	fn.Op("MOVD %s, %s", fr.arg("bias"), R12)
	fn.Op("MOVD %s, %s", fr.arg("flags"), R13)
	fn.Op("MOVD $%s, %s", fr.arg("unit"), R14)
	fn.Op("VLD1R (%s), [%s]", R14, unit.D2())
	fn.Label("panel")
	for i := 0; i < planes*nv; i++ {
		fn.Op("VEOR %s, %s, %s", asm.V(i).B16(), asm.V(i).B16(), asm.V(i).B16())
	}
	fn.Op("MOVD %s, %s", fr.arg("x"), R1)
	fn.Op("MOVD %s, %s", fr.arg("groups"), R0)
	fn.Label("group")
	fn.Op("VLD1.P 64(%s), %s", R3, vlist(wv(0), nv))
	for p := 0; p < planes; p++ {
		fn.Op("VLD1R.P 4(%s), [%s]", R1, aReg(p).S4())
		for j := 0; j < nv; j++ {
			fn.Word(asm.USDOT(acc(p, j), aReg(p), wv(j)))
		}
	}
	fn.Op("SUB $1, %s, %s", R0, R0)
	fn.Op("CBNZ %s, group", R0)
	// Combine each vector of 4 columns in two int64 halves, exactly
	// (wrapping, the true sum fits), then float64, scaled, to float32
	// into acc(0, j).
	lo, hi, u, sv, sc := asm.V(24), asm.V(25), asm.V(26), asm.V(27), asm.V(28)
	for j := 0; j < nv; j++ {
		for p := 0; p < planes; p++ {
			if p == 0 {
				fn.Word(asm.SXTL(asm.D2, lo, acc(0, j)))
				fn.Word(asm.SXTL2(asm.D2, hi, acc(0, j)))
				continue
			}
			fn.Word(asm.SXTL(asm.D2, u, acc(p, j)))
			fn.Word(asm.SHL(asm.D2, u, u, 8*p))
			fn.Word(asm.ADD(asm.D2, lo, lo, u))
			fn.Word(asm.SXTL2(asm.D2, u, acc(p, j)))
			fn.Word(asm.SHL(asm.D2, u, u, 8*p))
			fn.Word(asm.ADD(asm.D2, hi, hi, u))
		}
		fn.Op("VLD1.P 16(%s), [%s]", R5, sv.S4())
		fn.Word(asm.SXTL(asm.D2, u, sv))
		fn.Word(asm.SHL(asm.D2, u, u, 8*planes-1))
		fn.Word(asm.SUB(asm.D2, lo, lo, u))
		fn.Word(asm.SXTL2(asm.D2, u, sv))
		fn.Word(asm.SHL(asm.D2, u, u, 8*planes-1))
		fn.Word(asm.SUB(asm.D2, hi, hi, u))
		fn.Word(asm.SCVTF(asm.D2, lo, lo))
		fn.Word(asm.SCVTF(asm.D2, hi, hi))
		fn.Op("VLD1.P 16(%s), [%s]", R9, sc.S4())
		fn.Word(asm.FCVTL(asm.D2, u, sc, false))
		fn.Word(asm.FMUL(asm.D2, u, u, unit))
		fn.Word(asm.FMUL(asm.D2, lo, lo, u))
		fn.Word(asm.FCVTL(asm.D2, u, sc, true))
		fn.Word(asm.FMUL(asm.D2, u, u, unit))
		fn.Word(asm.FMUL(asm.D2, hi, hi, u))
		fn.Word(asm.FCVTN(asm.D2, acc(0, j), lo, false))
		fn.Word(asm.FCVTN(asm.D2, acc(0, j), hi, true))
	}
	fn.Op("TBZ $1, %s, nobias", R13)
	fn.Op("VLD1 (%s), %s", R12, vlist(wv(0), nv))
	for j := 0; j < nv; j++ {
		fn.Word(asm.FADD(asm.S4, acc(0, j), acc(0, j), wv(j)))
	}
	fn.Label("nobias")
	fn.Op("TBZ $2, %s, norelu", R13)
	zero := asm.V(29)
	fn.Op("VEOR %s, %s, %s", zero.B16(), zero.B16(), zero.B16())
	for j := 0; j < nv; j++ {
		fn.Word(asm.FMAX(asm.S4, acc(0, j), acc(0, j), zero))
	}
	fn.Label("norelu")
	fn.Op("VST1.P %s, 64(%s)", vlist(acc(0, 0), nv), R10)
	fn.Op("ADD $64, %s, %s", R12, R12)
	fn.Op("SUB $1, %s, %s", R4, R4)
	fn.Op("CBNZ %s, panel", R4)
	fn.Op("RET")
	return name
}

// emitNEONS8WWidenQuads writes the widening of groups of weight quads
// into float32 rows (see emitS8WWidenQuads).
func emitNEONS8WWidenQuads(f *asm.File) string {
	fr := newFrame("dst", 8, "w", 8, "groups", 8)
	name := fmt.Sprintf("s8wWidenQuadsNEONx%d", neonS8WColumns)
	fn := f.Func(name, "(dst *float32, w *int8, groups int)", fr.size,
		fmt.Sprintf("%s widens groups of int8 weight quads, %d columns each, into 4·groups float32 rows of the columns; see s8wWidenQuadsTwin.", name, neonS8WColumns))
	const nv = 4
	R0, R1, R2 := asm.R(0), asm.R(1), asm.R(2)
	fn.Op("MOVD %s, %s", fr.arg("dst"), R0)
	fn.Op("MOVD %s, %s", fr.arg("w"), R1)
	fn.Op("MOVD %s, %s", fr.arg("groups"), R2)
	fn.Label("group")
	fn.Op("VLD1.P 64(%s), %s", R1, vlist(asm.V(0), nv))
	for t := range 4 {
		for j := 0; j < nv; j++ {
			neonQuadWiden(fn, asm.V(4+4*t+j), asm.V(j), t)
		}
		fn.Op("VST1.P %s, 64(%s)", vlist(asm.V(4+4*t), nv), R0)
	}
	fn.Op("SUB $1, %s, %s", R2, R2)
	fn.Op("CBNZ %s, group", R2)
	fn.Op("RET")
	return name
}

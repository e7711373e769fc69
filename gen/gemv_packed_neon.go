package main

import (
	"fmt"
	"strings"

	"github.com/kilnml/kiln/asm"
)

// emitGemvPackedNEON writes the NEON member of the packed-rows family (see
// gemv_packed.go): the same arguments and semantics, with the k loop
// unrolled four times so that each row of A is loaded four elements at once
// and used by lane (FMLA by element).
func emitGemvPackedNEON(f *asm.File, nr, rows int) string {
	e := neonF32
	es := e.arr.Size
	nv := nr / e.arr.Lanes
	// Accumulators V0…, rows of A V16…, spare V20…V22 for C and the bias,
	// B V24…, alpha V29, beta V30, zero V31.
	sets := gemvPackedSets(rows, nv, 16+nv+2+3)
	if sets*rows*nv > 16 || rows > 4 || nv > 3 {
		panic(fmt.Sprintf("NEON: %d packed rows of %d columns do not fit the registers", rows, nr))
	}
	fr := newFrame("k", 8, "a", 8, "lda", 8, "b", 8, "panels", 8, "c", 8, "ldc", 8, "alpha", es, "beta", es, "bias", 8, "flags", 8)
	name := gemvPackedName("NEON", rows, nr)
	sig := "(k int, a *float32, lda int, b *float32, panels int, c *float32, ldc int, alpha, beta float32, bias *float32, flags uint)"
	fn := f.Func(name, sig, fr.size, fmt.Sprintf("%s computes C(i, q*%d+j) = act(alpha·Σp A(i,p)·B(p, q*%[2]d+j) + beta·C + bias) for the %d rows of A (A(i,p) = a[i*lda+p]) and the panels q < panels (a k×%[2]d row-major panel each, one after another from b); see gemv_packed.go.", name, nr, rows))

	acc := func(s, i, j int) asm.VReg { return asm.V((s*rows+i)*nv + j) }
	aReg := func(i int) asm.VReg { return asm.V(16 + i) }
	tmp, bReg := asm.V(20), asm.V(24)
	alpha, beta, zero := asm.V(29), asm.V(30), asm.V(31)
	list := func(first asm.VReg) string {
		regs := make([]string, nv)
		for j := range regs {
			regs[j] = (first + asm.VReg(j)).As(e.arr)
		}
		return strings.Join(regs, ", ")
	}
	kk, a, lda, b, panels, c, ldc, flags, bias, crow := asm.R(0), asm.R(1), asm.R(2), asm.R(3), asm.R(4), asm.R(5), asm.R(6), asm.R(7), asm.R(8), asm.R(13)
	rowBase := func(i int) asm.Reg {
		if i == 0 {
			return a
		}
		return asm.R(9 + i) // R10…R12
	}

	fn.Op("MOVD %s, %s", fr.arg("lda"), lda)
	fn.Op("LSL $2, %s, %s", lda, lda)
	fn.Op("MOVD %s, %s", fr.arg("b"), b)
	fn.Op("MOVD %s, %s", fr.arg("panels"), panels)
	fn.Op("MOVD %s, %s", fr.arg("c"), c)
	fn.Op("MOVD %s, %s", fr.arg("ldc"), ldc)
	fn.Op("LSL $2, %s, %s", ldc, ldc)
	fn.Op("MOVD %s, %s", fr.arg("flags"), flags)
	fn.Op("MOVD %s, %s", fr.arg("bias"), bias)
	fn.Op("FMOVS %s, %s", fr.arg("alpha"), alpha.F())
	fn.Op("FMOVS %s, %s", fr.arg("beta"), beta.F())
	fn.Op("VEOR %s, %s, %s", zero.B16(), zero.B16(), zero.B16())

	fn.Label("panel")
	for s := 0; s < sets; s++ {
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				r := acc(s, i, j)
				fn.Op("VEOR %s, %s, %s", r.B16(), r.B16(), r.B16())
			}
		}
	}
	fn.Op("MOVD %s, %s", fr.arg("k"), kk)
	fn.Op("MOVD %s, %s", fr.arg("a"), a)
	for i := 1; i < rows; i++ {
		fn.Op("ADD %s, %s, %s", lda, rowBase(i-1), rowBase(i))
	}
	// step is k step u of a group: B's row into V24…, then each row's FMAs
	// with its element in lane u of its A register.
	step := func(s, lane int) {
		fn.Op("VLD1 (%s), [%s]", b, list(bReg))
		fn.Op("ADD $%d, %s, %s", nr*es, b, b)
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				fn.Word(asm.FMLAElem(e.arr, acc(s, i, j), bReg+asm.VReg(j), aReg(i), lane))
			}
		}
	}
	advance := func(steps int) {
		for i := 0; i < rows; i++ {
			fn.Op("ADD $%d, %s, %s", steps*es, rowBase(i), rowBase(i))
		}
	}
	fn.Label("loop")
	fn.Op("CMP $4, %s", kk)
	fn.Op("BLT tail")
	for i := 0; i < rows; i++ {
		fn.Op("VLD1 (%s), [%s]", rowBase(i), aReg(i).As(e.arr))
	}
	for u := 0; u < 4; u++ {
		step(u%sets, u)
	}
	advance(4)
	fn.Op("SUB $4, %s, %s", kk, kk)
	fn.Op("B loop")
	fn.Label("tail")
	fn.Op("CBZ %s, epilogue", kk)
	for i := 0; i < rows; i++ {
		fn.Op("FMOVS (%s), %s", rowBase(i), aReg(i).F())
	}
	step(0, 0)
	advance(1)
	fn.Op("SUB $1, %s, %s", kk, kk)
	fn.Op("B tail")

	fn.Label("epilogue")
	for s := 1; s < sets; s++ {
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				fn.Word(asm.FADD(e.arr, acc(0, i, j), acc(0, i, j), acc(s, i, j)))
			}
		}
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			fn.Word(asm.FMULElem(e.arr, acc(0, i, j), acc(0, i, j), alpha, 0))
		}
	}
	fn.Op("TBZ $0, %s, nobeta", flags) // flagLoadC
	fn.Op("MOVD %s, %s", c, crow)
	for i := 0; i < rows; i++ {
		fn.Op("VLD1 (%s), [%s]", crow, list(tmp))
		for j := 0; j < nv; j++ {
			fn.Word(asm.FMLAElem(e.arr, acc(0, i, j), tmp+asm.VReg(j), beta, 0))
		}
		if i+1 < rows {
			fn.Op("ADD %s, %s, %s", ldc, crow, crow)
		}
	}
	fn.Label("nobeta")
	fn.Op("TBZ $1, %s, nobias", flags) // flagBias
	fn.Op("VLD1 (%s), [%s]", bias, list(tmp))
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			fn.Word(asm.FADD(e.arr, acc(0, i, j), acc(0, i, j), tmp+asm.VReg(j)))
		}
	}
	fn.Label("nobias")
	fn.Op("TBZ $2, %s, norelu", flags) // flagReLU
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			fn.Word(asm.FMAX(e.arr, acc(0, i, j), acc(0, i, j), zero))
		}
	}
	fn.Label("norelu")
	fn.Op("MOVD %s, %s", c, crow)
	for i := 0; i < rows; i++ {
		regs := make([]string, nv)
		for j := range regs {
			regs[j] = acc(0, i, j).As(e.arr)
		}
		fn.Op("VST1 [%s], (%s)", strings.Join(regs, ", "), crow)
		if i+1 < rows {
			fn.Op("ADD %s, %s, %s", ldc, crow, crow)
		}
	}
	fn.Op("ADD $%d, %s, %s", nr*es, c, c)
	fn.Op("ADD $%d, %s, %s", nr*es, bias, bias)
	fn.Op("SUBS $1, %s, %s", panels, panels)
	fn.Op("BNE panel")
	fn.Op("RET")
	return name
}

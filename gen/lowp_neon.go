package main

import (
	"fmt"
	"strings"

	"github.com/kilnml/kiln/asm"
)

// The NEON members of the low-precision family: the same dot kernels (see
// gen/lowp.go and the root package's dotKernel) and int8-weight rows.
//
//   - neonbf16 (BF16, I8MM): BFDOT for bfloat16 pairs and USDOT for
//     unsigned × signed byte quads, each group of A replicated across a
//     register (LD1R) against four columns of B: an 8×12 tile.
//   - neon: int8 as int16 pairs, SMLAL and SMLAL2 into two accumulators
//     per four columns whose adjacent lanes ADDP sums in the epilogue: a
//     4×8 tile. (bfloat16 products widen to float32 at this level.)
//   - both: the int8-weight rows, widened with SXTL and SCVTF.

// neonDotKind is the instruction of a NEON dot kernel.
type neonDotKind int

const (
	neonBFDOT neonDotKind = iota
	neonUSDOT
	neonMadd
)

type neonDotTile struct {
	kind   neonDotKind
	mr, nr int
	name   string
}

func (t neonDotTile) kernelName(rows int) string { return fmt.Sprintf("%s%dx%d", t.name, rows, t.nr) }

var (
	neonDotBF16 = neonDotTile{neonBFDOT, 8, 12, "bdotNEONBF16"}
	neonDotI8MM = neonDotTile{neonUSDOT, 8, 12, "idotNEONI8MM"}
	neonDotMadd = neonDotTile{neonMadd, 4, 8, "idotNEONMadd"}
)

// emitNEONDot writes one dot kernel for rows rows (see dotKernel). NEON has
// no masked stores: the driver stores partial tiles through a scratch tile.
func emitNEONDot(f *asm.File, t neonDotTile, rows int) string {
	nv := t.nr / 4 // B vectors: four columns each
	fr := newFrame("kg", 8, "a", 8, "lda", 8, "b", 8, "c", 8, "ldc", 8, "aux", 8, "mask", 8, "flags", 8)
	name := t.kernelName(rows)
	what := map[neonDotKind]string{neonBFDOT: "bfloat16 pairs with BFDOT", neonUSDOT: "unsigned×signed byte quads with USDOT", neonMadd: "int16 pairs with SMLAL"}[t.kind]
	fn := f.Func(name, "(kg int, a *byte, lda int, b *byte, c *byte, ldc int, aux *byte, mask *int32, flags uint)", fr.size,
		fmt.Sprintf("%s computes a %d×%d tile of C from %s (see dotKernel).", name, rows, t.nr, what))
	// Accumulators: V0… (two per B vector for the int16 pairs), B: V24…,
	// the replicated groups of A: V28, V29.
	perB := 1
	if t.kind == neonMadd {
		perB = 2
	}
	acc := func(i, j, h int) asm.VReg { return asm.V((i*perB+h)*nv + j) } // a row's first accumulators consecutive
	if t.mr*nv*perB > 24 || nv > 4 {
		panic(name + ": the tile does not fit the registers")
	}
	bReg := func(j int) asm.VReg { return asm.V(24 + j) }
	aRegs := []asm.VReg{asm.V(28), asm.V(29)}
	R0, R1, R2, R3 := asm.R(0), asm.R(1), asm.R(2), asm.R(3)
	rowPtr := func(i int) asm.Reg { return asm.R(5 + i) }
	fn.Op("MOVD %s, %s", fr.arg("kg"), R0)
	fn.Op("MOVD %s, %s", fr.arg("a"), R1)
	fn.Op("MOVD %s, %s", fr.arg("lda"), R2)
	fn.Op("MOVD %s, %s", fr.arg("b"), R3)
	fn.Op("MOVD %s, %s", R1, rowPtr(0))
	for i := 1; i < rows; i++ {
		fn.Op("ADD %s, %s, %s", R2, rowPtr(i-1), rowPtr(i))
	}
	for i := 0; i < rows*nv*perB; i++ {
		fn.Op("VEOR %s, %s, %s", asm.V(i).B16(), asm.V(i).B16(), asm.V(i).B16())
	}
	bList := make([]string, nv)
	for j := range bList {
		bList[j] = bReg(j).S4()
	}
	fn.Label("loop")
	fn.Op("CBZ %s, epilogue", R0)
	fn.Op("VLD1.P %d(%s), [%s]", 16*nv, R3, strings.Join(bList, ", "))
	for i := 0; i < rows; i++ {
		a := aRegs[i%2]
		fn.Op("VLD1R.P 4(%s), [%s]", rowPtr(i), a.S4())
		for j := 0; j < nv; j++ {
			switch t.kind {
			case neonBFDOT:
				fn.Word(asm.BFDOT(acc(i, j, 0), bReg(j), a))
			case neonUSDOT:
				fn.Word(asm.USDOT(acc(i, j, 0), a, bReg(j)))
			case neonMadd:
				fn.Word(asm.SMLAL(acc(i, j, 0), bReg(j), a, false))
				fn.Word(asm.SMLAL(acc(i, j, 1), bReg(j), a, true))
			}
		}
	}
	fn.Op("SUB $1, %s, %s", R0, R0)
	fn.Op("B loop")

	fn.Label("epilogue")
	if t.kind == neonMadd {
		// Each pair of lanes holds the two products of a column: sum them.
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				fn.Word(asm.ADDP(asm.S4, acc(i, j, 0), acc(i, j, 0), acc(i, j, 1)))
			}
		}
	}
	R5, R6, R7, R8 := asm.R(5), asm.R(6), asm.R(7), asm.R(8)
	fn.Op("MOVD %s, %s", fr.arg("c"), R5)
	fn.Op("MOVD %s, %s", fr.arg("ldc"), R6)
	fn.Op("LSL $2, %s, %s", R6, R6)
	fn.Op("MOVD %s, %s", fr.arg("flags"), R7)
	tmpList := make([]string, nv)
	for j := range tmpList {
		tmpList[j] = bReg(j).S4()
	}
	fn.Op("TBZ $1, %s, noaux", R7) // flagBias
	fn.Op("MOVD %s, %s", fr.arg("aux"), R8)
	fn.Op("VLD1 (%s), [%s]", R8, strings.Join(tmpList, ", "))
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			if t.kind == neonBFDOT {
				fn.Word(asm.FADD(asm.S4, acc(i, j, 0), acc(i, j, 0), bReg(j)))
			} else {
				fn.Word(asm.SUB(asm.S4, acc(i, j, 0), acc(i, j, 0), bReg(j)))
			}
		}
	}
	fn.Label("noaux")
	if t.kind == neonBFDOT {
		zero := asm.V(31)
		fn.Op("TBZ $2, %s, norelu", R7) // flagReLU
		fn.Op("VEOR %s, %s, %s", zero.B16(), zero.B16(), zero.B16())
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				fn.Word(asm.FMAX(asm.S4, acc(i, j, 0), acc(i, j, 0), zero))
			}
		}
		fn.Label("norelu")
	}
	for i := 0; i < rows; i++ {
		regs := make([]string, nv)
		for j := range regs {
			regs[j] = acc(i, j, 0).S4()
		}
		fn.Op("VST1 [%s], (%s)", strings.Join(regs, ", "), R5)
		if i+1 < rows {
			fn.Op("ADD %s, %s, %s", R6, R5, R5)
		}
	}
	fn.Op("RET")
	return name
}

// neonS8WColumns is the panel width of the NEON int8-weight rows.
const neonS8WColumns = 16

// emitNEONS8WRows writes the int8-weight row kernel for rows rows (see the
// root package's s8wRowsKernel): sixteen columns per panel.
func emitNEONS8WRows(f *asm.File, rows int) string {
	fr := newFrame("k", 8, "a", 8, "lda", 8, "w", 8, "panels", 8, "scale", 8, "c", 8, "ldc", 8, "bias", 8, "flags", 8)
	name := fmt.Sprintf("s8wRowsNEON%dx%d", rows, neonS8WColumns)
	fn := f.Func(name, "(k int, a *float32, lda int, w *int8, panels int, scale *float32, c *float32, ldc int, bias *float32, flags uint)", fr.size,
		fmt.Sprintf("%s computes C(i, q*16+j) = act(scale[q*16+j]·Σp A(i,p)·float32(W(p, q*16+j)) + bias) for the %d rows of A and the panels q < panels of int8 weights (k×16 bytes each); see GemmF32S8.", name, rows))
	const nv = 4
	acc := func(i, j int) asm.VReg { return asm.V(i*nv + j) }
	wv := func(j int) asm.VReg { return asm.V(16 + j) } // the widened weights
	h0, h1 := asm.V(20), asm.V(21)                      // the 16 bytes, as two 8h halves
	aReg := asm.V(22)
	R2, R3, R4, R9, R10, R11, R12, R13 := neonS8WRowsPrologue(fn, fr)
	rowPtr := neonS8WPanelStart(fn, fr, rows, rows*nv, R2)
	// step computes one k step into accumulator set t: one row keeps two
	// sets, the even k steps' and the odd ones' (s8wTwin's order), so that
	// its FMLAs do not wait on each other's latency; the second set's
	// weights and A element take registers of their own.
	step := func(t int) {
		wt := func(j int) asm.VReg { return wv(j) + asm.VReg(8*t) }
		g0, g1, ar := h0+asm.VReg(8*t), h1+asm.VReg(8*t), aReg+asm.VReg(t)
		if t == 1 {
			ar = asm.V(23)
		}
		fn.Op("VLD1.P 16(%s), [%s]", R3, g0.B16())
		fn.Word(asm.SXTL2(asm.H8, g1, g0))
		fn.Word(asm.SXTL(asm.H8, g0, g0))
		fn.Word(asm.SXTL(asm.S4, wt(0), g0))
		fn.Word(asm.SXTL2(asm.S4, wt(1), g0))
		fn.Word(asm.SXTL(asm.S4, wt(2), g1))
		fn.Word(asm.SXTL2(asm.S4, wt(3), g1))
		for j := 0; j < nv; j++ {
			fn.Word(asm.SCVTF(asm.S4, wt(j), wt(j)))
		}
		for i := 0; i < rows; i++ {
			fn.Op("VLD1R.P 4(%s), [%s]", rowPtr(i), ar.S4())
			for j := 0; j < nv; j++ {
				fn.Word(asm.FMLA(asm.S4, acc(t*rows+i, j), wt(j), ar))
			}
		}
	}
	if rows == 1 {
		for j := 0; j < nv; j++ {
			fn.Op("VEOR %s, %s, %s", acc(1, j).B16(), acc(1, j).B16(), acc(1, j).B16())
		}
		fn.Op("CMP $2, R0")
		fn.Op("BLT kodd")
		fn.Label("kloop")
		step(0)
		step(1)
		fn.Op("SUB $2, R0, R0")
		fn.Op("CMP $2, R0")
		fn.Op("BGE kloop")
		fn.Label("kodd")
		fn.Op("CBZ R0, ksum")
		step(0)
		fn.Label("ksum")
		for j := 0; j < nv; j++ {
			fn.Word(asm.FADD(asm.S4, acc(0, j), acc(0, j), acc(1, j)))
		}
	} else {
		fn.Label("kloop")
		step(0)
		fn.Op("SUB $1, R0, R0")
		fn.Op("CBNZ R0, kloop")
	}
	// The scales, the bias, ReLU, the store.
	emitNEONS8WEpilogue(fn, rows, wv(0), aReg, R4, R9, R10, R11, R12, R13)
	return name
}

func neonDotEntry(t neonDotTile, names []string) string {
	group, elem, kind, unsignedA := 2, 2, "dotInt", false
	switch t.kind {
	case neonBFDOT:
		kind = "dotPairsBF16"
	case neonUSDOT:
		group, elem, unsignedA = 4, 1, true
	}
	return fmt.Sprintf("&dotTiles{mr: %d, nr: %d, group: %d, elem: %d, unsignedA: %v, masked: false, kind: %s,\nrows: %s}",
		t.mr, t.nr, group, elem, unsignedA, kind, goList("[]dotKernel", true, names))
}

func generateLowpNEON(o *output) error {
	f := o.arm64
	emit := func(t neonDotTile) string {
		var names []string
		for rows := 1; rows <= t.mr; rows++ {
			names = append(names, emitNEONDot(f, t, rows))
		}
		return neonDotEntry(t, names)
	}
	o.set("levelNEONBF16", "bdot", emit(neonDotBF16))
	o.set("levelNEONBF16", "idot", emit(neonDotI8MM))
	o.set("levelNEON", "idot", emit(neonDotMadd))
	var rowsNames []string
	for rows := 1; rows <= s8wRowsMax; rows++ {
		rowsNames = append(rowsNames, emitNEONS8WRows(f, rows))
	}
	o.set("levelNEON", "s8w", fmt.Sprintf("&s8wKernels{nr: %d, rows: %s}", neonS8WColumns, goList("[]s8wRowsKernel", true, rowsNames)))
	// I8MM: the weights in quads, for USDOT's planes.
	var quads, planes []string
	for rows := 1; rows <= s8wRowsMax; rows++ {
		quads = append(quads, emitNEONS8WQuads(f, rows))
	}
	for p := 1; p <= s8wPlanesMax; p++ {
		planes = append(planes, emitNEONS8WPlanes(f, p))
	}
	o.set("levelNEONBF16", "s8w", fmt.Sprintf("&s8wKernels{nr: %d, quads: true, rows: %s, planes: %s, widen: %s}", neonS8WColumns,
		goList("[]s8wRowsKernel", true, quads), goList("[]s8wPlanesKernel", true, planes), emitNEONS8WWidenQuads(f)))
	return nil
}

package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The packed-rows family: C = act(alpha·A·B + beta·C + bias) for one to four
// rows of a row-major A against a run of whole panels of a B packed by PackB
// (panels of nr columns, each k×nr row-major, one after another), in one
// call; a kernel for each narrower width takes PackB's last panel. With one to four rows a GEMM is a stream of B: every element of B is
// read once and used for a few FMAs, so the kernel is built to read the
// panels as one sequential stream. Each panel is swept down all of K with
// enough independent accumulators to keep both FMA pipes busy (eight
// chains: two sets of k steps for one row, one set for two rows and more),
// and its epilogue runs in registers before the next panel starts; the call
// walks as many panels as the driver gives it, so the driver pays one call
// per chunk of columns instead of one per panel.

// gemvPackedWidths are the panel widths of a level whose full panels are
// nr columns wide: nr, and every multiple of the vector width below it,
// the widths PackB gives the last panel (the columns it needs, rounded up to
// whole vectors).
func gemvPackedWidths(nr, lanes int) []int {
	var ws []int
	for w := nr; w > 0; w -= lanes {
		ws = append(ws, w)
	}
	return ws
}

// gemvPackedRows is the largest row count of the family.
const gemvPackedRows = 4

// gemvPackedChains is the number of independent FMA chains a kernel aims
// for: two pipes times four cycles of latency.
const gemvPackedChains = 8

// gemvPackedName names the kernel of one level, row count and panel width.
func gemvPackedName(level string, rows, nr int) string {
	return fmt.Sprintf("sgemvPacked%s%dx%d", level, rows, nr)
}

// gemvPackedSets is how many sets of accumulators a rows×(nv vectors) kernel
// alternates between, within room regs (besides the B vectors, two
// broadcast registers and three epilogue constants).
func gemvPackedSets(rows, nv, regs int) int {
	// One set per k step of an unrolled loop iteration at most.
	sets := min(gemvPackedUnroll, max(1, (gemvPackedChains+rows*nv-1)/(rows*nv)))
	for sets > 1 && sets*rows*nv+nv+2+3 > regs {
		sets--
	}
	return sets
}

// gemvPackedUnroll is how many k steps one loop iteration of the amd64
// kernels runs.
const gemvPackedUnroll = 4

// emitGemvPacked writes sgemvPacked<level><rows>x<nr>(k int, a *float32, lda int,
// b *float32, panels int, c *float32, ldc int, alpha, beta float32, bias *float32, flags uint).
func emitGemvPacked(f *amd64File, v vecArch, nr, rows int) string {
	e := f32
	nv := nr / v.lanes(e)
	sets := gemvPackedSets(rows, nv, v.regs)
	nacc := sets * rows * nv
	if nacc+nv+2+3 > v.regs {
		panic(fmt.Sprintf("%s: %d packed rows of %d columns do not fit the registers", v.name, rows, nr))
	}
	name := gemvPackedName(v.name, rows, nr)
	f.leafFunction(name, "func(k int, a *float32, lda int, b *float32, panels int, c *float32, ldc int, alpha, beta float32, bias *float32, flags uint)", fmt.Sprintf("%s computes C(i, q*%d+j) = act(alpha·Σp A(i,p)·B(p, q*%[2]d+j) + beta·C + bias) for the %d rows of A (A(i,p) = a[i*lda+p]) and the panels q < panels (a k×%[2]d row-major panel each, one after another from b); see gemv_packed.go.", name, nr, rows))

	acc := func(s, i, j int) reg.VecPhysical { return v.vec((s*rows+i)*nv + j) }
	bReg := func(j int) reg.VecPhysical { return v.vec(nacc + j) }
	aRegs := []reg.VecPhysical{v.vec(nacc + nv), v.vec(nacc + nv + 1)}
	alpha, beta, zero := v.vec(v.regs-3), v.vec(v.regs-2), v.vec(v.regs-1)
	panelRow := nr * e.size // bytes of one k step of a panel

	var lda reg.Register
	if rows > 1 {
		lda = loadStride(f, "lda", e)
	}
	var lda3 reg.GPVirtual
	if rows > 3 {
		lda3 = f.GP64()
		f.LEAQ(memIdx(lda, lda, 2, 0), lda3)
	}
	b := f.Load(f.Param("b"), f.GP64())
	panels := f.Load(f.Param("panels"), f.GP64())
	c := f.Load(f.Param("c"), f.GP64())
	var ldc reg.Register
	if rows > 1 {
		ldc = loadStride(f, "ldc", e)
	}
	bias := f.Load(f.Param("bias"), f.GP64())
	alphaAddr, _ := f.Param("alpha").Resolve()
	betaAddr, _ := f.Param("beta").Resolve()
	flagsAddr, _ := f.Param("flags").Resolve()
	e.bcast(f.Context, alphaAddr.Addr, alpha)
	e.bcast(f.Context, betaAddr.Addr, beta)
	zeroReg := func(r reg.VecPhysical) {
		if v.kmask {
			f.VPXORD(r, r, r)
		} else {
			f.VXORPS(r, r, r)
		}
	}
	zeroReg(zero)

	// Row i of A is base + i·lda (rows 1, 2 scaled, row 3 through 3·lda).
	aMem := func(base reg.Register, i, u int) operand.Mem {
		m := mem(base, u*e.size)
		switch i {
		case 1, 2:
			m.Index, m.Scale = lda, uint8(i)
		case 3:
			m.Index, m.Scale = lda3, 1
		}
		return m
	}

	f.Label("panel")
	for i := 0; i < nacc; i++ {
		zeroReg(v.vec(i))
	}
	base := f.Load(f.Param("a"), f.GP64())
	kk := f.Load(f.Param("k"), f.GP64())
	step := func(u int) {
		s := u % sets
		if rows == 1 {
			// One row: B straight from memory into the FMAs.
			ar := aRegs[u%2]
			e.bcast(f.Context, aMem(base, 0, u), ar)
			for j := 0; j < nv; j++ {
				e.fma(f.Context, mem(b, u*panelRow+j*v.bytes), ar, acc(s, 0, j))
			}
			return
		}
		for j := 0; j < nv; j++ {
			f.VMOVUPS(mem(b, u*panelRow+j*v.bytes), bReg(j))
		}
		for i := 0; i < rows; i++ {
			ar := aRegs[i%2]
			e.bcast(f.Context, aMem(base, i, u), ar)
			for j := 0; j < nv; j++ {
				e.fma(f.Context, bReg(j), ar, acc(s, i, j))
			}
		}
	}
	emitStepLoop(f, kk, gemvPackedUnroll, step, func(n int) {
		f.ADDQ(operand.U32(n*panelRow), b)
		f.ADDQ(imm(n*e.size), base)
	}, "epilogue")

	// The epilogue of one panel: fold the sets, then alpha, beta·C, bias,
	// ReLU and the store, as the micro-kernels do (see emitGEMMEpilogue).
	f.Label("epilogue")
	for s := 1; s < sets; s++ {
		for i := 0; i < rows; i++ {
			for j := 0; j < nv; j++ {
				e.add(f.Context, acc(s, i, j), acc(0, i, j), acc(0, i, j))
			}
		}
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			e.mul(f.Context, alpha, acc(0, i, j), acc(0, i, j))
		}
	}
	eachRow := func(body func(i int, crow reg.Register)) {
		if rows == 1 {
			body(0, c)
			return
		}
		crow := f.GP64()
		f.MOVQ(c, crow)
		for i := 0; i < rows; i++ {
			body(i, crow)
			if i+1 < rows {
				f.ADDQ(ldc, crow)
			}
		}
	}
	flagTest := func(flag int, skip string) {
		f.TESTQ(operand.U32(flag), flagsAddr.Addr)
		f.JZ(operand.LabelRef(skip))
	}
	flagTest(flagLoadC, "nobeta")
	eachRow(func(i int, crow reg.Register) {
		for j := 0; j < nv; j++ {
			e.fma(f.Context, mem(crow, j*v.bytes), beta, acc(0, i, j))
		}
	})
	f.Label("nobeta")
	flagTest(flagBias, "nobias")
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			e.add(f.Context, mem(bias, j*v.bytes), acc(0, i, j), acc(0, i, j))
		}
	}
	f.Label("nobias")
	flagTest(flagReLU, "norelu")
	for i := 0; i < rows; i++ {
		for j := 0; j < nv; j++ {
			// acc as the first source keeps NaN (see emitGEMMEpilogue).
			e.max(f.Context, acc(0, i, j), zero, acc(0, i, j))
		}
	}
	f.Label("norelu")
	eachRow(func(i int, crow reg.Register) {
		for j := 0; j < nv; j++ {
			f.VMOVUPS(acc(0, i, j), mem(crow, j*v.bytes))
		}
	})
	f.ADDQ(operand.U32(nr*e.size), c)
	f.ADDQ(operand.U32(nr*e.size), bias)
	f.DECQ(panels)
	f.JNZ(operand.LabelRef("panel"))
	f.VZEROUPPER()
	f.RET()
	return name
}

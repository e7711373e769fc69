package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/reg"
)

// The column-block family: y = x·B for a single row x and an untransposed B
// read in place, a block of up to gemvColsMax vectors of columns at a time.
// Each row of the block is folded into accumulators that stay in registers
// for the whole of k, so B streams through the FMAs with nothing else per
// row but the broadcast of x[p]; the four-row axpy kernel (gemv.go) loads
// and stores the row accumulator once per four rows of B instead. The last
// vector of a block reads only the lanes its mask enables, so a block may
// end anywhere in the row (a ten-column classifier is one masked vector).

// gemvColsPrefetchRows is how many rows ahead a kernel prefetches B.
const gemvColsPrefetchRows = 0

// gemvColsMax is the widest block, in vectors.
const gemvColsMax = 16

// gemvColsName is the name of the kernel of nv vectors.
func gemvColsName(v vecArch, nv int) string {
	return fmt.Sprintf("sgemvCols%sx%d", v.name, nv)
}

// gemvColsSets is how many sets of accumulators a kernel of nv vectors
// alternates rows between: enough independent FMA chains to cover the
// FMA's latency when the block is narrow.
func gemvColsSets(nv int) int {
	return max(1, min(8, gemvColsMax/nv))
}

// emitGemvCols writes sgemvCols<level>x<nv>(k int, x *float32, b *float32, ldb int, y *float32, mask *int32):
// y[j] += Σp x[p]·b[p*ldb+j] over p < k, for j < nv·lanes, the last
// vector's lanes limited to those mask enables (lanes int32s, -1 or 0: an
// edgeMasks window); y is read and written whole.
func emitGemvCols(f *amd64File, v vecArch, nv int) string {
	e := f32
	if !v.kmask || nv < 1 || nv > gemvColsMax {
		panic(fmt.Sprintf("%s: no column-block kernel of %d vectors", v.name, nv))
	}
	sets := gemvColsSets(nv)
	name := gemvColsName(v, nv)
	f.leafFunction(name, "func(k int, x *float32, b *float32, ldb int, y *float32, mask *int32)", fmt.Sprintf("%s adds x[p]·b[p*ldb+j] over p < k to y[j] for j < %d, reading from the last vector of b only the lanes mask enables; see gemv_cols.go.", name, nv*v.lanes(e)))

	acc := func(s, j int) reg.VecPhysical { return v.vec(s*nv + j) }
	xRegs := []reg.VecPhysical{v.vec(sets * nv), v.vec(sets*nv + 1)}
	last := opmasks[0]
	k := f.Load(f.Param("k"), f.GP64())
	x := f.Load(f.Param("x"), f.GP64())
	b := f.Load(f.Param("b"), f.GP64())
	ldb := loadStride(f, "ldb", e)
	y := f.Load(f.Param("y"), f.GP64())
	m := f.Load(f.Param("mask"), f.GP64())
	loadMask(f, v, e, m, 1, nil, regIndex(v, xRegs[0]))
	var pf reg.Register
	if d := gemvColsPrefetchRows; d > 0 {
		pf = f.GP64()
		f.IMUL3Q(imm(d), ldb, pf)
	}
	for j := 0; j < nv; j++ {
		f.VMOVUPS(mem(y, j*v.bytes), acc(0, j))
	}
	for s := 1; s < sets; s++ {
		for j := 0; j < nv; j++ {
			f.VPXORD(acc(s, j), acc(s, j), acc(s, j))
		}
	}
	// row folds row p of the block (b) into the accumulators of set s.
	row := func(s, u int) {
		xr := xRegs[u%2]
		e.bcast(f.Context, mem(x, u*e.size), xr)
		for j := 0; j < nv; j++ {
			if pf != nil {
				f.PREFETCHT0(memIdx(b, pf, 1, j*v.bytes))
			}
			if j == nv-1 {
				f.VFMADD231PS(mem(b, j*v.bytes), xr, last, acc(s, j))
			} else {
				e.fma(f.Context, mem(b, j*v.bytes), xr, acc(s, j))
			}
		}
		f.ADDQ(ldb, b)
	}
	emitStepLoop(f, k, sets, func(u int) { row(u, u) }, func(n int) { f.ADDQ(imm(n*e.size), x) }, "fold")
	f.Label("fold")
	for s := 1; s < sets; s++ {
		for j := 0; j < nv; j++ {
			f.VADDPS(acc(s, j), acc(0, j), acc(0, j))
		}
	}
	for j := 0; j < nv; j++ {
		f.VMOVUPS(acc(0, j), mem(y, j*v.bytes))
	}
	f.VZEROUPPER()
	f.RET()
	return name
}

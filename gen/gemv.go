package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The GEMV family: dot products of four rows of a row-major matrix with one
// vector, for y = x·Bᵀ (a single row times a transposed B), where packing B
// into panels would cost more than the product. The kernel leaves the four
// partial-sum vectors in out (four vectors, lanes apart); the root package
// adds their lanes and the k % lanes tail.

// emitDot4 writes sdot4<level>(k int, x *float32, b *float32, ldb int, out *float32),
// k a multiple of the vector width.
func emitDot4(f *amd64File, v vecArch) string {
	e := f32
	name := "sdot4" + v.name
	f.leafFunction(name, "func(k int, x *float32, b *float32, ldb int, out *float32)", fmt.Sprintf("%s adds x[p]·b[r*ldb+p] over p < k (a multiple of %d) into four vectors of partial sums, out[r*%d:], r < 4.", name, v.lanes(e), v.lanes(e)))
	k := f.Load(f.Param("k"), f.GP64())
	x := f.Load(f.Param("x"), f.GP64())
	b := f.Load(f.Param("b"), f.GP64())
	ldb := loadStride(f, "ldb", e)
	ldb3 := f.GP64()
	f.LEAQ(memIdx(ldb, ldb, 2, 0), ldb3)
	// Two sets of four accumulators, alternating k steps, so each FMA chain
	// waits on its previous result only every other step.
	acc := func(set, r int) reg.VecPhysical { return v.vec(set*4 + r) }
	xv := v.vec(8)
	for i := 0; i < 8; i++ {
		f.VXORPS(v.vec(i), v.vec(i), v.vec(i))
	}
	row := func(r, disp int) operand.Mem {
		switch r {
		case 0:
			return mem(b, disp)
		case 1:
			return memIdx(b, ldb, 1, disp)
		case 2:
			return memIdx(b, ldb, 2, disp)
		}
		return memIdx(b, ldb3, 1, disp)
	}
	step := func(set, disp int) {
		f.VMOVUPS(mem(x, disp), xv)
		for r := 0; r < 4; r++ {
			e.fma(f.Context, row(r, disp), xv, acc(set, r))
		}
	}
	lanes := v.lanes(e)
	f.Label("loop")
	f.CMPQ(k, imm(2*lanes))
	f.JL(operand.LabelRef("tail"))
	step(0, 0)
	step(1, v.bytes)
	f.ADDQ(imm(2*v.bytes), x)
	f.ADDQ(imm(2*v.bytes), b)
	f.SUBQ(imm(2*lanes), k)
	f.JMP(operand.LabelRef("loop"))
	f.Label("tail")
	f.TESTQ(k, k)
	f.JE(operand.LabelRef("done"))
	step(0, 0)
	f.Label("done")
	out := f.Load(f.Param("out"), f.GP64())
	for r := 0; r < 4; r++ {
		f.VADDPS(acc(1, r), acc(0, r), acc(0, r))
		f.VMOVUPS(acc(0, r), mem(out, r*v.bytes))
	}
	f.VZEROUPPER()
	f.RET()
	return name
}

// emitAxpy4 writes saxpy4<level>(n int, x *float32, b *float32, ldb int, y *float32):
// y[j] += x[0]·b[j] + x[1]·b[ldb+j] + x[2]·b[2·ldb+j] + x[3]·b[3·ldb+j] for
// j < n, a multiple of the vector width: four rows of an untransposed B
// folded into a row accumulator, the single-row product read row by row.
func emitAxpy4(f *amd64File, v vecArch) string {
	e := f32
	name := "saxpy4" + v.name
	f.leafFunction(name, "func(n int, x *float32, b *float32, ldb int, y *float32)", fmt.Sprintf("%s adds x[r]·b[r*ldb+j] over r < 4 to y[j] for j < n (a multiple of %d).", name, v.lanes(e)))
	n := f.Load(f.Param("n"), f.GP64())
	x := f.Load(f.Param("x"), f.GP64())
	b := f.Load(f.Param("b"), f.GP64())
	ldb := loadStride(f, "ldb", e)
	ldb3 := f.GP64()
	f.LEAQ(memIdx(ldb, ldb, 2, 0), ldb3)
	y := f.Load(f.Param("y"), f.GP64())
	coef := func(r int) reg.VecPhysical { return v.vec(r) }
	for r := 0; r < 4; r++ {
		e.bcast(f.Context, mem(x, r*e.size), coef(r))
	}
	row := func(r, disp int) operand.Mem {
		switch r {
		case 0:
			return mem(b, disp)
		case 1:
			return memIdx(b, ldb, 1, disp)
		case 2:
			return memIdx(b, ldb, 2, disp)
		}
		return memIdx(b, ldb3, 1, disp)
	}
	// Two independent vectors of y per iteration, each with two partial
	// chains, so no FMA waits on the one before it.
	step := func(set, disp int) {
		acc, acc2 := v.vec(4+2*set), v.vec(5+2*set)
		f.VMOVUPS(mem(y, disp), acc)
		e.fma(f.Context, row(0, disp), coef(0), acc)
		f.VMULPS(row(1, disp), coef(1), acc2)
		e.fma(f.Context, row(2, disp), coef(2), acc)
		e.fma(f.Context, row(3, disp), coef(3), acc2)
		f.VADDPS(acc2, acc, acc)
		f.VMOVUPS(acc, mem(y, disp))
	}
	lanes := v.lanes(e)
	f.Label("loop")
	f.CMPQ(n, imm(2*lanes))
	f.JL(operand.LabelRef("tail"))
	step(0, 0)
	step(1, v.bytes)
	f.ADDQ(imm(2*v.bytes), b)
	f.ADDQ(imm(2*v.bytes), y)
	f.SUBQ(imm(2*lanes), n)
	f.JMP(operand.LabelRef("loop"))
	f.Label("tail")
	f.TESTQ(n, n)
	f.JE(operand.LabelRef("done"))
	step(0, 0)
	f.Label("done")
	f.VZEROUPPER()
	f.RET()
	return name
}

package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
)

// The peak family: a loop of independent FMAs that measures the core's
// floating-point peak at each vector level, so benchmarks can report GEMM
// speed as a fraction of what the hardware can do, measured in the same run.

// peakAccumulators is how many independent FMA chains the loop keeps in
// flight: more than latency × pipes on every core the kernels target.
const peakAccumulators = 12 // the root package's peakChains

func emitPeakAMD64(f *amd64File, v vecArch) string {
	name := "fmaPeak" + v.name
	f.Function(name)
	f.Attributes(attr.NOSPLIT)
	f.SignatureExpr("func(iters int)")
	f.Doc(fmt.Sprintf("%s runs iters iterations of %d independent %d-byte float32 FMAs.", name, peakAccumulators, v.bytes))
	n := f.Load(f.Param("iters"), f.GP64())
	x, y := v.vec(peakAccumulators), v.vec(peakAccumulators+1)
	for i := 0; i < peakAccumulators+2; i++ {
		f.VXORPS(v.vec(i).AsX(), v.vec(i).AsX(), v.vec(i).AsX())
	}
	f.Label("loop")
	f.TESTQ(n, n)
	f.JE(operand.LabelRef("done"))
	for i := 0; i < peakAccumulators; i++ {
		f.VFMADD231PS(x, y, v.vec(i))
	}
	f.DECQ(n)
	f.JMP(operand.LabelRef("loop"))
	f.Label("done")
	f.VZEROUPPER()
	f.RET()
	return name
}

package eval

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

func TestDotGeneralSeedContractingExample(t *testing.T) {
	out := runHLO(t, `HloModule m
ENTRY e {
  lhs = f32[2,3] parameter(0)
  rhs = f32[2,3] parameter(1)
  ROOT d = f32[2,2] dot(lhs, rhs), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
`, lit([]int{2, 3}, float32(1), 2, 3, 4, 5, 6), lit([]int{2, 3}, float32(1), 1, 1, 2, 2, 2))
	expectClose(t, out[0], "f32[2,2]", reals(6, 12, 15, 30), 0)
}

func TestDotGeneralSeedBatchExample(t *testing.T) {
	out := runHLO(t, `HloModule m
ENTRY e {
  lhs = f32[2,2,2] parameter(0)
  rhs = f32[2,2,2] parameter(1)
  ROOT d = f32[2,2,2] dot(lhs, rhs), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}
`, lit([]int{2, 2, 2}, float32(1), 2, 3, 4, 5, 6, 7, 8), lit([]int{2, 2, 2}, float32(1), 0, 0, 1, 1, 0, 0, 1))
	expectClose(t, out[0], "f32[2,2,2]", reals(1, 2, 3, 4, 5, 6, 7, 8), 0)
}

// naiveDot is an independent reference: it walks the output and contracting
// index spaces with multi-indices and accumulates in float64/complex128.
func naiveDot(lhs, rhs *ir.Literal, lb, rb, lc, rc []int) ([]complex128, []int) {
	ld, rd := lhs.Shape().Dims, rhs.Shape().Dims
	isIn := func(d int, s []int) bool {
		for _, x := range s {
			if x == d {
				return true
			}
		}
		return false
	}
	var lf, rf []int
	for d := range ld {
		if !isIn(d, lb) && !isIn(d, lc) {
			lf = append(lf, d)
		}
	}
	for d := range rd {
		if !isIn(d, rb) && !isIn(d, rc) {
			rf = append(rf, d)
		}
	}
	var outDims []int
	for _, d := range lb {
		outDims = append(outDims, ld[d])
	}
	for _, d := range lf {
		outDims = append(outDims, ld[d])
	}
	for _, d := range rf {
		outDims = append(outDims, rd[d])
	}
	var cdims []int
	for _, d := range lc {
		cdims = append(cdims, ld[d])
	}
	L, R := wideOf(lhs), wideOf(rhs)
	out := make([]complex128, numElements(outDims))
	oi := make([]int, len(outDims))
	for o := range out {
		ci := make([]int, len(cdims))
		var acc complex128
		for {
			li, ri := make([]int, len(ld)), make([]int, len(rd))
			for k := range lb {
				li[lb[k]], ri[rb[k]] = oi[k], oi[k]
			}
			for k, d := range lf {
				li[d] = oi[len(lb)+k]
			}
			for k, d := range rf {
				ri[d] = oi[len(lb)+len(lf)+k]
			}
			for k := range lc {
				li[lc[k]], ri[rc[k]] = ci[k], ci[k]
			}
			if numElements(cdims) > 0 {
				acc += L[ir.RowMajorIndex(ld, li)] * R[ir.RowMajorIndex(rd, ri)]
			}
			if len(cdims) == 0 || !ir.NextIndex(cdims, ci) {
				break
			}
		}
		out[o] = acc
		ir.NextIndex(outDims, oi)
	}
	return out, outDims
}

func dimList(ds []int) string {
	s := ""
	for i, d := range ds {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(d)
	}
	return s
}

// TestDotAgainstNaiveLoop checks dot_general with batch and contracting
// dimensions in unusual orders against the naive float64 loop, for every
// element-type family.
func TestDotAgainstNaiveLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type dotCase struct {
		ld, rd         []int
		lb, rb, lc, rc []int
	}
	cases := []dotCase{
		{[]int{3, 4}, []int{4, 5}, nil, nil, []int{1}, []int{0}},
		{[]int{4}, []int{4}, nil, nil, []int{0}, []int{0}},
		{[]int{2, 3, 4, 5}, []int{4, 5, 6, 2, 3}, []int{2, 0}, []int{0, 3}, []int{3, 1}, []int{1, 4}},
		{[]int{3, 2, 4}, []int{4, 3}, []int{}, []int{}, []int{2, 0}, []int{0, 1}},
		{[]int{2, 0, 3}, []int{3, 2}, nil, nil, []int{2}, []int{0}},
		{[]int{2, 3}, []int{4}, nil, nil, []int{}, []int{}},
		{[]int{17, 33}, []int{33, 9}, nil, nil, []int{1}, []int{0}},
	}
	types := []ir.ElementType{ir.F32, ir.F64, ir.F16, ir.BF16, ir.C64, ir.C128, ir.S8, ir.S32, ir.S64, ir.U8, ir.U32, ir.U64, ir.PRED}
	for ci, c := range cases {
		for _, ty := range types {
			lhs, rhs := randLiteral(r, ty, c.ld...), randLiteral(r, ty, c.rd...)
			want, outDims := naiveDot(lhs, rhs, c.lb, c.rb, c.lc, c.rc)
			text := fmt.Sprintf(`HloModule m
ENTRY e {
  lhs = %s parameter(0)
  rhs = %s parameter(1)
  ROOT d = %s dot(lhs, rhs), lhs_batch_dims={%s}, rhs_batch_dims={%s}, lhs_contracting_dims={%s}, rhs_contracting_dims={%s}
}
`, shapeText(ty, c.ld...), shapeText(ty, c.rd...), shapeText(ty, outDims...), dimList(c.lb), dimList(c.rb), dimList(c.lc), dimList(c.rc))
			out := runHLO(t, text, lhs, rhs)
			tol := 0.0
			switch ty {
			case ir.F32, ir.C64:
				tol = 1e-5
			case ir.F64, ir.C128:
				tol = 1e-12
			case ir.F16:
				tol = 2e-3
			case ir.BF16:
				tol = 1e-2
			case ir.PRED:
				for i, w := range want {
					if w != 0 {
						want[i] = 1
					}
				}
			case ir.S8, ir.U8:
				for i, w := range want {
					want[i] = complex(float64(wrapInt(ty, int64(real(w)))), 0)
				}
			}
			t.Run(fmt.Sprintf("case%d/%v", ci, ty), func(t *testing.T) {
				expectClose(t, out[0], shapeText(ty, outDims...), want, tol)
			})
		}
	}
}

func TestDotIntegerWrapsAndMixedTypes(t *testing.T) {
	// s8 dot wraps at 8 bits: 100*2 + 100*1 = 300 ≡ 44.
	out := runHLO(t, `HloModule m
ENTRY e {
  a = s8[2] parameter(0)
  b = s8[2] parameter(1)
  ROOT d = s8[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
`, vec[int8](100, 100), vec[int8](2, 1))
	expectClose(t, out[0], "s8[]", reals(44), 0)
	// s8 × s8 → s32 (preferred element type) does not wrap.
	out = runHLO(t, `HloModule m
ENTRY e {
  a = s8[2] parameter(0)
  b = s8[2] parameter(1)
  ROOT d = s32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
`, vec[int8](100, 100), vec[int8](2, 1))
	expectClose(t, out[0], "s32[]", reals(300), 0)
	// bf16 × bf16 → f32 accumulates exactly what bf16 inputs hold.
	out = runHLO(t, `HloModule m
ENTRY e {
  a = bf16[2] parameter(0)
  b = bf16[2] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
`, vec(ir.BFloat16FromFloat32(1.5), ir.BFloat16FromFloat32(3)), vec(ir.BFloat16FromFloat32(0.25), ir.BFloat16FromFloat32(-1)))
	expectClose(t, out[0], "f32[]", reals(-2.625), 0)
}

func TestDotF16AccumulatesInF32(t *testing.T) {
	// 2048 + 1 + 1 in F16 steps would stay 2048 (spacing 2); accumulated
	// in F32 and rounded once it is 2050.
	out := runHLO(t, `HloModule m
ENTRY e {
  a = f16[3] parameter(0)
  b = f16[3] parameter(1)
  ROOT d = f16[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
`, vec(ir.Float16FromFloat32(2048), ir.Float16FromFloat32(1), ir.Float16FromFloat32(1)),
		vec(ir.Float16FromFloat32(1), ir.Float16FromFloat32(1), ir.Float16FromFloat32(1)))
	expectClose(t, out[0], "f16[]", reals(2050), 0)
}

func TestDotErrors(t *testing.T) {
	err := runErr(t, `HloModule m
ENTRY e {
  a = f32[2,784] parameter(0)
  b = f32[512,3] parameter(1)
  ROOT d = f32[2,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`, ir.MustNewLiteral(ir.MakeShape(ir.F32, 2, 784)), ir.MustNewLiteral(ir.MakeShape(ir.F32, 512, 3)))
	wantErr(t, err, "lhs contracting dimension 1 has size 784", "rhs contracting dimension 0 has size 512")
	err = runErr(t, `HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`, ir.MustNewLiteral(ir.MakeShape(ir.F32, 2, 3)), ir.MustNewLiteral(ir.MakeShape(ir.F32, 3, 4)))
	wantErr(t, err, "[2 4]", "[2 5]")
}

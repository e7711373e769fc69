package runtime

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// indexLiteral is an index array of type t with values mostly inside
// [0, hi) and some outside it (negative or beyond), to hit the clamping
// and skipping rules.
func indexLiteral(r *rand.Rand, t ir.ElementType, hi int, dims ...int) *ir.Literal {
	l := ir.MustNewLiteral(ir.MakeShape(t, dims...))
	for i := 0; i < l.ElementCount(); i++ {
		v := int64(r.IntN(hi + 1))
		switch r.IntN(8) {
		case 0:
			v = -int64(r.IntN(3) + 1)
		case 1:
			v = int64(hi + r.IntN(3))
		}
		l.SetInt64At(i, v)
	}
	return l
}

// gatherForms are gather shapes and dimension numbers: operand dims, index
// dims, result dims and the attribute text.
var gatherForms = []struct {
	x, idx, out []int
	attrs       string
}{
	{[]int{5, 4}, []int{3, 1}, []int{3, 4}, "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}"},
	{[]int{2, 5, 4}, []int{2, 3, 1}, []int{2, 3, 4}, "offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,4}"},
	{[]int{6, 7}, []int{4, 2}, []int{4, 2, 3}, "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,3}"},
	{[]int{6, 7}, []int{2, 5}, []int{5, 2}, "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={1,0}, index_vector_dim=0, slice_sizes={1,2}"},
	{[]int{6, 7}, []int{3}, []int{3, 7}, "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,7}"},
	{[]int{6, 7}, []int{0, 1}, []int{0, 7}, "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,7}"},
	{[]int{3, 4, 5}, []int{2, 2, 2}, []int{2, 2, 3, 2}, "offset_dims={2,3}, collapsed_slice_dims={1}, start_index_map={1,2}, index_vector_dim=2, slice_sizes={3,1,2}"},
	{[]int{4}, []int{}, []int{2}, "offset_dims={0}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=0, slice_sizes={2}"},
}

func TestGenericGatherAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for _, typ := range movementTypes {
		for _, it := range []ir.ElementType{ir.S32, ir.S64, ir.U8} {
			for _, f := range gatherForms {
				x := ir.MakeShape(typ, f.x...)
				hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  i = %s parameter(1)\n  ROOT r = %s gather(p, i), %s\n}\n",
					x.StringWithoutLayout(), shapeText(it, f.idx...), shapeText(typ, f.out...), f.attrs)
				if !validModule(hlo) {
					t.Fatalf("invalid module\n%s", hlo)
				}
				checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{randomLiteral(r, x), indexLiteral(r, it, 7, f.idx...)}})
			}
		}
	}
}

// scatterForms are scatter shapes and dimension numbers: operand, index and
// update dims and the attribute text.
var scatterForms = []struct {
	x, idx, upd []int
	attrs       string
}{
	{[]int{5, 4}, []int{3, 1}, []int{3, 4}, "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1"},
	{[]int{5, 4}, []int{6}, []int{6, 4}, "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1"},
	{[]int{2, 5, 4}, []int{2, 3, 1}, []int{2, 3, 4}, "update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2"},
	{[]int{6, 7}, []int{4, 2}, []int{4, 2, 3}, "update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1"},
	{[]int{6, 7}, []int{2, 5}, []int{5}, "update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={1,0}, index_vector_dim=0"},
	{[]int{6, 7}, []int{0, 1}, []int{0, 7}, "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1"},
}

// updateComputations are scatter update computations of two scalars of
// type T (written as the placeholder), by name.
var updateComputations = map[string]string{
	"add":       "ROOT r = T[] add(a, b)",
	"max":       "ROOT r = T[] maximum(a, b)",
	"min":       "ROOT r = T[] minimum(b, a)",
	"mul":       "ROOT r = T[] multiply(a, b)",
	"overwrite": "ROOT r = T[] parameter(1)",
	"keep":      "ROOT r = T[] parameter(0)",
	"general":   "s = T[] subtract(b, a)\n  m = T[] multiply(s, b)\n  ROOT r = T[] maximum(m, a)",
}

func TestGenericScatterAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for _, typ := range []ir.ElementType{ir.F32, ir.S32, ir.F64, ir.F16, ir.U8, ir.PRED, ir.C64} {
		ts := ir.Scalar(typ).StringWithoutLayout()
		ts = ts[:len(ts)-2]
		for name, body := range updateComputations {
			for _, f := range scatterForms {
				x, u := ir.MakeShape(typ, f.x...), ir.MakeShape(typ, f.upd...)
				hlo := fmt.Sprintf("HloModule m\nupd {\n  a = T[] parameter(0)\n  b = T[] parameter(1)\n  %s\n}\nENTRY e {\n  p = %s parameter(0)\n  i = s32%s parameter(1)\n  u = %s parameter(2)\n  ROOT r = %s scatter(p, i, u), %s, to_apply=upd\n}\n",
					body, x.StringWithoutLayout(), strings.TrimPrefix(shapeText(ir.S32, f.idx...), "s32"), u.StringWithoutLayout(), x.StringWithoutLayout(), f.attrs)
				hlo = strings.ReplaceAll(hlo, "T[]", ts+"[]")
				if !validModule(hlo) {
					continue // e.g. no maximum on complex
				}
				checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{randomLiteral(r, x), indexLiteral(r, ir.S32, 6, f.idx...), randomLiteral(r, u)}})
				_ = name
			}
		}
	}
}

func TestGenericVariadicScatterAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	// An argmax-style update: keep the larger value and its index.
	hlo := `HloModule m
upd {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(b, a), direction=GT
  v = f32[] select(gt, b, a)
  i = s32[] select(gt, bi, ai)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  p = f32[5,4] parameter(0)
  pi = s32[5,4] parameter(1)
  i = s32[6,1] parameter(2)
  u = f32[6,4] parameter(3)
  ui = s32[6,4] parameter(4)
  ROOT r = (f32[5,4], s32[5,4]) scatter(p, pi, i, u, ui), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=upd
}`
	for trial := 0; trial < 4; trial++ {
		checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{
			randomLiteral(r, ir.MakeShape(ir.F32, 5, 4)), randomLiteral(r, ir.MakeShape(ir.S32, 5, 4)),
			indexLiteral(r, ir.S32, 5, 6, 1), randomLiteral(r, ir.MakeShape(ir.F32, 6, 4)), randomLiteral(r, ir.MakeShape(ir.S32, 6, 4))}})
	}
}

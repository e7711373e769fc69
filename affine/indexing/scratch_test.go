package indexing

import (
	"fmt"
	"testing"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

func TestScratch(t *testing.T) {
	for _, src := range []string{
		"HloModule m\nENTRY e {\n p0 = f32[10, 20] parameter(0)\n ROOT b = f32[10,20,30] broadcast(p0), dimensions={0,1}\n}",
		"ENTRY e {\n p0 = f32[10, 20] parameter(0)\n ROOT b = f32[10,20,30] broadcast(p0), dimensions={0,1}\n}",
		"HloModule m\nENTRY e {\n src = s32[2,2,258] parameter(0)\n of1 = s32[] parameter(1)\n of2 = s32[] parameter(2)\n of3 = s32[] parameter(3)\n ROOT ds = s32[1,2,32] dynamic-slice(s32[2,2,258] src, s32[] of1, s32[] of2, s32[] of3), dynamic_slice_sizes={1, 2, 32}\n}",
	} {
		m, err := ir.ParseModule(src)
		fmt.Println(m != nil, err)
	}
	for _, s := range []string{
		"(d0, d1)[s0, s1] -> (d0 + s0, d1 * 1 + s1), domain: d0 in [0, 1023], d1 in [0, 2], s0 in [0, 0], s1 in [0,511]",
		"(d0, d1, d2) -> ((d0 * 16 + d1 * 4 + d2) floordiv 8, (d0 * 16 + d1 * 4 + d2) mod 8), domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]",
		"(d0, d1, d2) -> ((d0 * 12 + d1 * 4 + d2) floordiv 96, ((d0 * 12 + d1 * 4 + d2) mod 96) floordiv 12, (d0 * 12 + d1 * 4 + d2) mod 12), domain: d0 in [0, 31], d1 in [0, 2], d2 in [0, 3]",
		"(d0, d1)[s0, s1] -> (s0, s1), domain: d0 in [5, 9], d1 in [3, 19], s0 in [0, 4], s1 in [0, 2], d0 - s0 - 5 in [0, 0], d1 - s1 * 7 - 3 in [0, 0]",
		"(d0)[s0] -> (s0), domain: d0 in [3, 19], s0 in [0, 2], d0 - s0 * 7 - 3 in [0, 0]",
		"(d0) -> ((d0 - 3) floordiv 7), domain: d0 in [0, 19], (d0 - 3) mod 7 in [0, 0], (d0 - 3) floordiv 7 in [0, 2]",
	} {
		m := affine.MustParse(s)
		fmt.Println(affine.Simplify(m))
		r, _ := affine.Simplify(m).RemoveUnusedSymbols()
		fmt.Println(r)
	}
}

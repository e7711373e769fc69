package ssa

import "testing"

// A transposed convolution (base dilation 2 along both dimensions) becomes
// convolutions without base dilation, one per pair of output residues,
// whose interleaved outputs are the original's; one with a window stride
// beside its base dilation is left as it is.
func TestConvPhases(t *testing.T) {
	m, p := lowerText(t, `HloModule tconv
ENTRY main {
  x = f32[1,5,4,3] parameter(0)
  w = f32[3,4,3,2] parameter(1)
  ROOT y = f32[1,10,8,2] convolution(x, w), window={size=3x4 pad=1_2x2_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f
}`)
	if err := Optimize(p, Options{Verify: true}); err != nil {
		t.Fatal(err)
	}
	convs := 0
	for _, v := range p.Entry.Values {
		if v.Op != OpConvolution {
			continue
		}
		convs++
		for _, wd := range v.Attrs.Window.Dims {
			if wd.BaseDilation > 1 {
				t.Fatalf("a convolution keeps base dilation %d:\n%s", wd.BaseDilation, p)
			}
		}
	}
	if convs != 4 {
		t.Fatalf("%d convolutions, want one per pair of residues (4):\n%s", convs, p)
	}
	checkEquivalent(t, m, p, tolerance{1e-5, 1e-5})

	_, q := lowerText(t, `HloModule strided
ENTRY main {
  x = f32[1,5,3] parameter(0)
  w = f32[3,3,2] parameter(1)
  ROOT y = f32[1,5,2] convolution(x, w), window={size=3 stride=2 pad=1_1 lhs_dilate=2}, dim_labels=b0f_0io->b0f
}`)
	if err := Optimize(q, Options{Verify: true}); err != nil {
		t.Fatal(err)
	}
	if n := opCounts(q)["convolution"]; n != 1 {
		t.Fatalf("the strided transposed convolution became %d convolutions:\n%s", n, q)
	}
}

package ssa

import "testing"

func TestCanonConv(t *testing.T) {
	runPassCases(t, []passCase{
		{name: "NHWC/HWIO stays", passes: []string{"canon-conv", "dce"}, in: `
			x = f32[1,6,6,3] parameter(0)
			k = f32[3,3,3,4] parameter(1)
			ROOT c = f32[1,6,6,4] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f`,
			want: `
			x = f32[1,6,6,3] parameter(0)
			k = f32[3,3,3,4] parameter(1)
			ROOT c = f32[1,6,6,4] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f`},
		{name: "NCHW/OIHW is transposed", passes: []string{"canon-conv", "dce"}, in: `
			x = f32[2,3,6,5] parameter(0)
			k = f32[4,3,3,2] parameter(1)
			ROOT c = f32[2,4,2,4] convolution(x, k), window={size=3x2 stride=2x1}, dim_labels=bf01_oi01->bf01`,
			want: `
			x = f32[2,3,6,5] parameter(0)
			k = f32[4,3,3,2] parameter(1)
			transpose.1 = f32[2,6,5,3] transpose(x), dimensions={0,2,3,1}
			transpose.2 = f32[3,2,3,4] transpose(k), dimensions={2,3,1,0}
			convolution.1 = f32[2,2,4,4] convolution(transpose.1, transpose.2), window={size=3x2 stride=2x1}, dim_labels=b01f_01io->b01f
			ROOT transpose.3 = f32[2,4,2,4] transpose(convolution.1), dimensions={0,3,1,2}`},
		{name: "window reversal moves into the kernel", passes: []string{"canon-conv", "dce"}, in: `
			x = f32[1,7,2] parameter(0)
			k = f32[3,2,5] parameter(1)
			ROOT c = f32[1,5,5] convolution(x, k), window={size=3 rhs_reversal=1}, dim_labels=b0f_0io->b0f`,
			want: `
			x = f32[1,7,2] parameter(0)
			k = f32[3,2,5] parameter(1)
			reverse.1 = f32[3,2,5] reverse(k), dimensions={0}
			ROOT convolution.1 = f32[1,5,5] convolution(x, reverse.1), window={size=3}, dim_labels=b0f_0io->b0f`},
		{name: "negative padding becomes a slice; dilations and groups stay", passes: []string{"canon-conv", "dce"}, in: `
			x = f32[1,9,4] parameter(0)
			k = f32[2,2,6] parameter(1)
			ROOT c = f32[1,2,6] convolution(x, k), window={size=2 stride=2 pad=-1_-2 rhs_dilate=2}, dim_labels=b0f_0io->b0f, feature_group_count=2`,
			want: `
			x = f32[1,9,4] parameter(0)
			k = f32[2,2,6] parameter(1)
			slice.1 = f32[1,6,4] slice(x), slice={[0:1], [1:7], [0:4]}
			ROOT convolution.1 = f32[1,2,6] convolution(slice.1, k), window={size=2 stride=2 rhs_dilate=2}, dim_labels=b0f_0io->b0f, feature_group_count=2`},
		{name: "batch group count and output labels in another order", passes: []string{"canon-conv", "dce"}, in: `
			x = f32[4,5,2] parameter(0)
			k = f32[2,2,6] parameter(1)
			ROOT c = f32[6,4,2] convolution(x, k), window={size=2}, dim_labels=b0f_0io->f0b, batch_group_count=2`,
			want: `
			x = f32[4,5,2] parameter(0)
			k = f32[2,2,6] parameter(1)
			convolution.1 = f32[2,4,6] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f, batch_group_count=2
			ROOT transpose.1 = f32[6,4,2] transpose(convolution.1), dimensions={2,1,0}`},
	})
}

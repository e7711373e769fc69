package ssa

import "testing"

func TestCanonDot(t *testing.T) {
	runPassCases(t, []passCase{
		{name: "matrix product", passes: []string{"canon-dot", "dce"}, in: `
			x = f32[4,6] parameter(0)
			w = f32[6,5] parameter(1)
			ROOT d = f32[4,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}`,
			want: `
			x = f32[4,6] parameter(0)
			w = f32[6,5] parameter(1)
			reshape.1 = f32[1,4,6] reshape(x)
			reshape.2 = f32[1,6,5] reshape(w)
			dot.1 = f32[1,4,5] dot(reshape.1, reshape.2), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
			ROOT reshape.3 = f32[4,5] reshape(dot.1)`},
		{name: "dense layer of a batch of sequences", passes: []string{"canon-dot", "dce"}, in: `
			x = f32[2,8,6] parameter(0)
			w = f32[6,5] parameter(1)
			ROOT d = f32[2,8,5] dot(x, w), lhs_contracting_dims={2}, rhs_contracting_dims={0}`,
			want: `
			x = f32[2,8,6] parameter(0)
			w = f32[6,5] parameter(1)
			reshape.1 = f32[1,16,6] reshape(x)
			reshape.2 = f32[1,6,5] reshape(w)
			dot.1 = f32[1,16,5] dot(reshape.1, reshape.2), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
			ROOT reshape.3 = f32[2,8,5] reshape(dot.1)`},
		{name: "attention scores: batch dims not leading, rhs contracting last", passes: []string{"canon-dot", "dce"}, in: `
			q = f32[1,8,2,4] parameter(0)
			k = f32[1,8,2,4] parameter(1)
			ROOT s = f32[1,2,8,8] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}`,
			want: `
			q = f32[1,8,2,4] parameter(0)
			k = f32[1,8,2,4] parameter(1)
			transpose.1 = f32[1,2,8,4] transpose(q), dimensions={0,2,1,3}
			reshape.1 = f32[2,8,4] reshape(transpose.1)
			transpose.2 = f32[1,2,4,8] transpose(k), dimensions={0,2,3,1}
			reshape.2 = f32[2,4,8] reshape(transpose.2)
			dot.1 = f32[2,8,8] dot(reshape.1, reshape.2), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
			ROOT reshape.3 = f32[1,2,8,8] reshape(dot.1)`},
		{name: "attention values: batch dims in different positions", passes: []string{"canon-dot", "dce"}, in: `
			p = f32[1,2,8,8] parameter(0)
			v = f32[1,8,2,4] parameter(1)
			ROOT o = f32[1,2,8,4] dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={1}`,
			want: `
			p = f32[1,2,8,8] parameter(0)
			v = f32[1,8,2,4] parameter(1)
			reshape.1 = f32[2,8,8] reshape(p)
			transpose.1 = f32[1,2,8,4] transpose(v), dimensions={0,2,1,3}
			reshape.2 = f32[2,8,4] reshape(transpose.1)
			dot.1 = f32[2,8,4] dot(reshape.1, reshape.2), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
			ROOT reshape.3 = f32[1,2,8,4] reshape(dot.1)`},
		{name: "matrix times vector and vector times vector", passes: []string{"canon-dot", "dce"}, in: `
			a = s32[3,4] parameter(0)
			x = s32[4] parameter(1)
			mv = s32[3] dot(a, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
			vv = s32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
			ROOT t = (s32[3], s32[]) tuple(mv, vv)`,
			want: `
			a = s32[3,4] parameter(0)
			x = s32[4] parameter(1)
			reshape.1 = s32[1,3,4] reshape(a)
			reshape.2 = s32[1,4,1] reshape(x)
			dot.1 = s32[1,3,1] dot(reshape.1, reshape.2), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
			reshape.3 = s32[3] reshape(dot.1)
			reshape.4 = s32[1,1,4] reshape(x)
			reshape.5 = s32[1,4,1] reshape(x)
			dot.2 = s32[1,1,1] dot(reshape.4, reshape.5), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
			reshape.6 = s32[] reshape(dot.2)
			ROOT t = (s32[3], s32[]) tuple(reshape.3, reshape.6)`},
		{name: "two contracting dimensions paired in the lhs order, mixed types", passes: []string{"canon-dot", "dce"}, in: `
			a = s8[3,5,2] parameter(0)
			b = s8[2,4,5] parameter(1)
			ROOT d = s32[3,4] dot(a, b), lhs_contracting_dims={2,1}, rhs_contracting_dims={0,2}`,
			want: `
			a = s8[3,5,2] parameter(0)
			b = s8[2,4,5] parameter(1)
			transpose.1 = s8[3,2,5] transpose(a), dimensions={0,2,1}
			reshape.1 = s8[1,3,10] reshape(transpose.1)
			transpose.2 = s8[2,5,4] transpose(b), dimensions={0,2,1}
			reshape.2 = s8[1,10,4] reshape(transpose.2)
			dot.1 = s32[1,3,4] dot(reshape.1, reshape.2), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
			ROOT reshape.3 = s32[3,4] reshape(dot.1)`},
		{name: "float accumulation order is kept (row-major over the lhs contracting order)", passes: []string{"canon-dot", "dce"}, in: `
			a = f32[3,5,7] parameter(0)
			b = f32[7,4,5] parameter(1)
			ROOT d = f32[3,4] dot(a, b), lhs_contracting_dims={2,1}, rhs_contracting_dims={0,2}`,
			want: `
			a = f32[3,5,7] parameter(0)
			b = f32[7,4,5] parameter(1)
			transpose.1 = f32[3,7,5] transpose(a), dimensions={0,2,1}
			reshape.1 = f32[1,3,35] reshape(transpose.1)
			transpose.2 = f32[7,5,4] transpose(b), dimensions={0,2,1}
			reshape.2 = f32[1,35,4] reshape(transpose.2)
			dot.1 = f32[1,3,4] dot(reshape.1, reshape.2), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
			ROOT reshape.3 = f32[3,4] reshape(dot.1)`},
		{name: "canonical dots stay", passes: []string{"canon-dot", "dce"}, in: `
			a = f32[2,3,4] parameter(0)
			b = f32[2,4,5] parameter(1)
			ROOT d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}`,
			want: `
			a = f32[2,3,4] parameter(0)
			b = f32[2,4,5] parameter(1)
			ROOT d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}`},
	})
}

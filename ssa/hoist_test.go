package ssa

import "testing"

func TestHoist(t *testing.T) {
	runPassCases(t, []passCase{
		{name: "batch-norm's per-channel rsqrt, scale and shift are computed per channel", passes: []string{"hoist", "dce"}, in: `
			x = f32[1,4,4,8] parameter(0)
			var = f32[8] parameter(1)
			scale = f32[8] parameter(2)
			eps = f32[] constant(0.001)
			bv = f32[1,4,4,8] broadcast(var), dimensions={3}
			be = f32[1,4,4,8] broadcast(eps), dimensions={}
			ve = f32[1,4,4,8] add(bv, be)
			r = f32[1,4,4,8] rsqrt(ve)
			bs = f32[1,4,4,8] broadcast(scale), dimensions={3}
			s = f32[1,4,4,8] multiply(r, bs)
			ROOT y = f32[1,4,4,8] multiply(x, s)`,
			want: `
			x = f32[1,4,4,8] parameter(0)
			var = f32[8] parameter(1)
			scale = f32[8] parameter(2)
			eps = f32[] constant(0.001)
			broadcast.1 = f32[8] broadcast(eps), dimensions={}
			add.1 = f32[8] add(var, broadcast.1)
			rsqrt.1 = f32[8] rsqrt(add.1)
			multiply.1 = f32[8] multiply(rsqrt.1, scale)
			broadcast.2 = f32[1,4,4,8] broadcast(multiply.1), dimensions={3}
			ROOT y = f32[1,4,4,8] multiply(x, broadcast.2)`},
		{name: "keepdims reshapes sink below elementwise ops and meet", passes: []string{"hoist", "simplify", "dce"}, in: `
			r = f32[1,16] parameter(0)
			n = f32[] constant(768)
			k = f32[1,16,1] reshape(r)
			bn = f32[1,16,1] broadcast(n), dimensions={}
			d = f32[1,16,1] divide(k, bn)
			ROOT back = f32[1,16] reshape(d)`,
			want: `
			r = f32[1,16] parameter(0)
			n = f32[] constant(768)
			broadcast.1 = f32[1,16] broadcast(n), dimensions={}
			ROOT divide.1 = f32[1,16] divide(r, broadcast.1)`},
		{name: "transposes sink below elementwise ops and cancel", passes: []string{"hoist", "simplify", "dce"}, in: `
			x = f32[1,6,6,8] parameter(0)
			b = f32[8] parameter(1)
			z = f32[] constant(0)
			t = f32[1,8,6,6] transpose(x), dimensions={0,3,1,2}
			bb = f32[1,8,6,6] broadcast(b), dimensions={1}
			a = f32[1,8,6,6] add(t, bb)
			bz = f32[1,8,6,6] broadcast(z), dimensions={}
			m = f32[1,8,6,6] maximum(a, bz)
			ROOT back = f32[1,6,6,8] transpose(m), dimensions={0,2,3,1}`,
			want: `
			x = f32[1,6,6,8] parameter(0)
			b = f32[8] parameter(1)
			z = f32[] constant(0)
			broadcast.1 = f32[1,6,6,8] broadcast(b), dimensions={3}
			add.1 = f32[1,6,6,8] add(x, broadcast.1)
			broadcast.2 = f32[1,6,6,8] broadcast(z), dimensions={}
			ROOT maximum.1 = f32[1,6,6,8] maximum(add.1, broadcast.2)`},
		{name: "broadcasts along different dimensions stay", passes: []string{"hoist"}, in: `
			a = f32[4] parameter(0)
			b = f32[4] parameter(1)
			ba = f32[4,4] broadcast(a), dimensions={0}
			bb = f32[4,4] broadcast(b), dimensions={1}
			ROOT s = f32[4,4] add(ba, bb)`,
			want: `
			a = f32[4] parameter(0)
			b = f32[4] parameter(1)
			ba = f32[4,4] broadcast(a), dimensions={0}
			bb = f32[4,4] broadcast(b), dimensions={1}
			ROOT s = f32[4,4] add(ba, bb)`},
	})
}

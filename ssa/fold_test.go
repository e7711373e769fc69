package ssa

import "testing"

func TestFold(t *testing.T) {
	runPassCases(t, []passCase{
		{name: "arithmetic", passes: []string{"fold"}, in: `
			a = f32[3] constant({1, 2, 3})
			b = f32[3] constant({10, 20, 30})
			s = f32[3] add(a, b)
			x = f32[3] parameter(0)
			ROOT m = f32[3] multiply(x, s)`,
			want: `
			x = f32[3] parameter(0)
			constant.1 = f32[3] constant({11, 22, 33})
			ROOT m = f32[3] multiply(x, constant.1)`},
		{name: "chain and iota", passes: []string{"fold"}, in: `
			i = s32[4] iota(), iota_dimension=0
			c = s32[] constant(3)
			b = s32[4] broadcast(c), dimensions={}
			m = s32[4] multiply(i, b)
			r = s32[2,2] reshape(m)
			x = s32[2,2] parameter(0)
			ROOT y = s32[2,2] add(x, r)`,
			want: `
			x = s32[2,2] parameter(0)
			constant.1 = s32[2,2] constant({{0, 3}, {6, 9}})
			ROOT y = s32[2,2] add(x, constant.1)`},
		{name: "large broadcast stays symbolic", passes: []string{"fold"}, in: `
			c = f32[] constant(2)
			n = f32[] negate(c)
			b = f32[64,64] broadcast(n), dimensions={}
			x = f32[64,64] parameter(0)
			ROOT y = f32[64,64] add(x, b)`,
			want: `
			x = f32[64,64] parameter(0)
			constant.1 = f32[] constant(-2)
			b = f32[64,64] broadcast(constant.1), dimensions={}
			ROOT y = f32[64,64] add(x, b)`},
		{name: "reduce through its region", passes: []string{"fold"}, in: `
			sum {
			  a = f32[] parameter(0)
			  b = f32[] parameter(1)
			  ROOT s = f32[] add(a, b)
			}
			ENTRY main {
			  c = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
			  z = f32[] constant(0)
			  r = f32[2] reduce(c, z), dimensions={1}, to_apply=sum
			  x = f32[2] parameter(0)
			  ROOT y = f32[2] add(x, r)
			}`,
			want: `
			x = f32[2] parameter(0)
			constant.1 = f32[2] constant({6, 15})
			ROOT y = f32[2] add(x, constant.1)`},
	})
}

func TestFoldSkips(t *testing.T) {
	_, p := lowerText(t, moduleText(`
		c = f32[2] constant({1, 2})
		cc = f32[2] custom-call(c), custom_call_target="foo"
		z = f32[] constant(0)
		r = f32[2] rng(z, z), distribution=rng_uniform
		ROOT t = (f32[2], f32[2]) tuple(cc, r)`))
	f := p.Entry
	k := f.Append(OpSoftmax, f.Values[0].Shape, f.Values[0])
	for _, v := range []*Value{f.Values[1], f.Values[3], f.Values[4], k} {
		if foldable(v) {
			t.Errorf("%s is foldable; ops with side effects, tuples and Kiln ops must not be", v.Op)
		}
	}
	if !foldable(f.Append(OpNegate, f.Values[0].Shape, f.Values[0])) {
		t.Errorf("negate of a constant is not foldable")
	}
}

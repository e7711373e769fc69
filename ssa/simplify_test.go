package ssa

import "testing"

func TestSimplifyIdentities(t *testing.T) {
	runPassCases(t, []passCase{
		{name: "x + -0 is x, x + 0 is not (for floats)", passes: []string{"simplify"}, in: `
			x = f32[4] parameter(0)
			nz = f32[] constant(-0)
			z = f32[] constant(0)
			bnz = f32[4] broadcast(nz), dimensions={}
			bz = f32[4] broadcast(z), dimensions={}
			a = f32[4] add(bnz, x)
			ROOT b = f32[4] add(a, bz)`,
			want: `
			x = f32[4] parameter(0)
			z = f32[] constant(0)
			bz = f32[4] broadcast(z), dimensions={}
			ROOT b = f32[4] add(x, bz)`},
		{name: "integer identities", passes: []string{"simplify"}, in: `
			x = s32[4] parameter(0)
			z = s32[] constant(0)
			one = s32[] constant(1)
			bz = s32[4] broadcast(z), dimensions={}
			b1 = s32[4] broadcast(one), dimensions={}
			a = s32[4] add(x, bz)
			m = s32[4] multiply(b1, a)
			d = s32[4] divide(m, b1)
			s = s32[4] subtract(d, bz)
			ROOT t = s32[4] maximum(s, s)`,
			want: `ROOT x = s32[4] parameter(0)`},
		{name: "float identities that hold", passes: []string{"simplify"}, in: `
			x = f32[4] parameter(0)
			z = f32[] constant(0)
			one = f32[] constant(1)
			ninf = f32[] constant(-inf)
			bz = f32[4] broadcast(z), dimensions={}
			b1 = f32[4] broadcast(one), dimensions={}
			bn = f32[4] broadcast(ninf), dimensions={}
			m = f32[4] multiply(x, b1)
			d = f32[4] divide(m, b1)
			s = f32[4] subtract(d, bz)
			n = f32[4] negate(s)
			nn = f32[4] negate(n)
			ROOT mx = f32[4] maximum(bn, nn)`,
			want: `ROOT x = f32[4] parameter(0)`},
		{name: "float rewrites that would change NaN, -0 or inf results are not made", passes: []string{"simplify"}, in: `
			x = f32[4] parameter(0)
			z = f32[] constant(0)
			nz = f32[] constant(-0)
			bz = f32[4] broadcast(z), dimensions={}
			bnz = f32[4] broadcast(nz), dimensions={}
			m = f32[4] multiply(x, bz)
			s = f32[4] subtract(x, x)
			s2 = f32[4] subtract(x, bnz)
			ROOT t = (f32[4], f32[4], f32[4]) tuple(m, s, s2)`,
			want: `
			x = f32[4] parameter(0)
			z = f32[] constant(0)
			nz = f32[] constant(-0)
			bz = f32[4] broadcast(z), dimensions={}
			bnz = f32[4] broadcast(nz), dimensions={}
			m = f32[4] multiply(x, bz)
			s = f32[4] subtract(x, x)
			s2 = f32[4] subtract(x, bnz)
			ROOT t = (f32[4], f32[4], f32[4]) tuple(m, s, s2)`},
		{name: "integer absorbing elements", passes: []string{"simplify", "dce"}, in: `
			x = s32[4] parameter(0)
			z = s32[] constant(0)
			bz = s32[4] broadcast(z), dimensions={}
			m = s32[4] multiply(x, bz)
			s = s32[4] subtract(x, x)
			ROOT r = s32[4] add(m, s)`,
			want: `
			x = s32[4] parameter(0)
			z = s32[] constant(0)
			ROOT bz = s32[4] broadcast(z), dimensions={}`},
		{name: "negations fold into subtractions", passes: []string{"simplify"}, in: `
			x = f32[4] parameter(0)
			y = f32[4] parameter(1)
			n = f32[4] negate(y)
			a = f32[4] add(n, x)
			ROOT s = f32[4] subtract(a, n)`,
			want: `
			x = f32[4] parameter(0)
			y = f32[4] parameter(1)
			subtract.1 = f32[4] subtract(x, y)
			ROOT add.1 = f32[4] add(subtract.1, y)`},
		{name: "multiply by -1 is negate", passes: []string{"simplify"}, in: `
			x = f32[4] parameter(0)
			c = f32[] constant(-1)
			b = f32[4] broadcast(c), dimensions={}
			ROOT m = f32[4] multiply(b, x)`,
			want: `
			x = f32[4] parameter(0)
			ROOT negate.1 = f32[4] negate(x)`},
		{name: "unsigned times all-ones is not negate", passes: []string{"simplify"}, in: `
			x = u32[4] parameter(0)
			c = u32[] constant(4294967295)
			b = u32[4] broadcast(c), dimensions={}
			ROOT m = u32[4] multiply(b, x)`,
			want: `
			x = u32[4] parameter(0)
			c = u32[] constant(4294967295)
			b = u32[4] broadcast(c), dimensions={}
			ROOT m = u32[4] multiply(b, x)`},
		{name: "logic", passes: []string{"simplify"}, in: `
			p = pred[4] parameter(0)
			q = pred[4] parameter(1)
			t = pred[] constant(true)
			f = pred[] constant(false)
			bt = pred[4] broadcast(t), dimensions={}
			bf = pred[4] broadcast(f), dimensions={}
			a = pred[4] and(p, bt)
			o = pred[4] or(bf, a)
			x = pred[4] xor(o, bf)
			n = pred[4] not(x)
			nn = pred[4] not(n)
			ROOT s = pred[4] and(nn, nn)`,
			want: `
			ROOT p = pred[4] parameter(0)
			q = pred[4] parameter(1)`},
		{name: "select", passes: []string{"simplify"}, in: `
			p = pred[4] parameter(0)
			a = f32[4] parameter(1)
			b = f32[4] parameter(2)
			t = pred[] constant(true)
			bt = pred[4] broadcast(t), dimensions={}
			np = pred[4] not(p)
			s1 = f32[4] select(bt, a, b)
			s2 = f32[4] select(p, s1, s1)
			ROOT s3 = f32[4] select(np, s2, b)`,
			want: `
			p = pred[4] parameter(0)
			a = f32[4] parameter(1)
			b = f32[4] parameter(2)
			ROOT select.1 = f32[4] select(p, b, a)`},
		{name: "abs", passes: []string{"simplify"}, in: `
			x = f32[4] parameter(0)
			n = f32[4] negate(x)
			a = f32[4] abs(n)
			ROOT aa = f32[4] abs(a)`,
			want: `
			x = f32[4] parameter(0)
			ROOT abs.1 = f32[4] abs(x)`},
	})
}

func TestSimplifyConversions(t *testing.T) {
	runPassCases(t, []passCase{
		{name: "exact round trips", passes: []string{"simplify"}, in: `
			x = f32[4] parameter(0)
			i = s8[4] parameter(1)
			d = f64[4] convert(x)
			xx = f32[4] convert(d)
			w = s32[4] convert(i)
			ii = s8[4] convert(w)
			f = f32[4] convert(ii)
			s = f32[4] add(xx, f)
			ROOT c = f32[4] convert(s)`,
			want: `
			x = f32[4] parameter(0)
			i = s8[4] parameter(1)
			f = f32[4] convert(i)
			ROOT s = f32[4] add(x, f)`},
		{name: "lossy round trips stay", passes: []string{"simplify"}, in: `
			x = f32[4] parameter(0)
			i = s32[4] parameter(1)
			h = f16[4] convert(x)
			xx = f32[4] convert(h)
			w = s8[4] convert(i)
			ii = s32[4] convert(w)
			f = f32[4] convert(i)
			fi = s32[4] convert(f)
			ROOT t = (f32[4], s32[4], s32[4]) tuple(xx, ii, fi)`,
			want: `
			x = f32[4] parameter(0)
			i = s32[4] parameter(1)
			h = f16[4] convert(x)
			xx = f32[4] convert(h)
			w = s8[4] convert(i)
			ii = s32[4] convert(w)
			f = f32[4] convert(i)
			fi = s32[4] convert(f)
			ROOT t = (f32[4], s32[4], s32[4]) tuple(xx, ii, fi)`},
		{name: "widening then another conversion", passes: []string{"simplify"}, in: `
			x = u8[4] parameter(0)
			w = s16[4] convert(x)
			ROOT f = f32[4] convert(w)`,
			want: `
			x = u8[4] parameter(0)
			ROOT convert.1 = f32[4] convert(x)`},
	})
}

func TestSimplifyMovement(t *testing.T) {
	runPassCases(t, []passCase{
		{name: "transpose of transpose", passes: []string{"simplify"}, in: `
			x = f32[2,3,4] parameter(0)
			a = f32[3,4,2] transpose(x), dimensions={1,2,0}
			ROOT b = f32[4,3,2] transpose(a), dimensions={1,0,2}`,
			want: `
			x = f32[2,3,4] parameter(0)
			ROOT transpose.1 = f32[4,3,2] transpose(x), dimensions={2,1,0}`},
		{name: "transposes that cancel", passes: []string{"simplify"}, in: `
			x = f32[2,3,4] parameter(0)
			a = f32[3,4,2] transpose(x), dimensions={1,2,0}
			ROOT b = f32[2,3,4] transpose(a), dimensions={2,0,1}`,
			want: `ROOT x = f32[2,3,4] parameter(0)`},
		{name: "reshape chain proved identity", passes: []string{"simplify"}, in: `
			x = f32[2,3,4] parameter(0)
			a = f32[6,4] reshape(x)
			b = f32[24] reshape(a)
			ROOT c = f32[2,3,4] reshape(b)`,
			want: `ROOT x = f32[2,3,4] parameter(0)`},
		{name: "reshape and transpose chain that is the identity", passes: []string{"simplify"}, in: `
			x = f32[1,128,12,64] parameter(0)
			a = f32[1,12,128,64] transpose(x), dimensions={0,2,1,3}
			b = f32[12,128,64] reshape(a)
			c = f32[128,12,64] transpose(b), dimensions={1,0,2}
			ROOT d = f32[1,128,12,64] reshape(c)`,
			want: `ROOT x = f32[1,128,12,64] parameter(0)`},
		{name: "a transpose of unit dimensions is a reshape", passes: []string{"simplify"}, in: `
			x = f32[1,5,1,7] parameter(0)
			ROOT t = f32[5,1,7,1] transpose(x), dimensions={1,0,3,2}`,
			want: `
			x = f32[1,5,1,7] parameter(0)
			ROOT reshape.1 = f32[5,1,7,1] reshape(x)`},
		{name: "reshape, transpose, reshape that is a transpose", passes: []string{"simplify"}, in: `
			x = f32[6,4] parameter(0)
			a = f32[6,1,4] reshape(x)
			b = f32[4,1,6] transpose(a), dimensions={2,1,0}
			ROOT c = f32[4,6] reshape(b)`,
			want: `
			x = f32[6,4] parameter(0)
			ROOT transpose.1 = f32[4,6] transpose(x), dimensions={1,0}`},
		{name: "a real transpose between reshapes stays", passes: []string{"simplify"}, in: `
			x = f32[6,4] parameter(0)
			a = f32[2,3,4] reshape(x)
			b = f32[3,2,4] transpose(a), dimensions={1,0,2}
			ROOT c = f32[6,4] reshape(b)`,
			want: `
			x = f32[6,4] parameter(0)
			a = f32[2,3,4] reshape(x)
			b = f32[3,2,4] transpose(a), dimensions={1,0,2}
			ROOT c = f32[6,4] reshape(b)`},
		{name: "bitcast with default layouts is a reshape", passes: []string{"simplify"}, in: `
			x = f32[6,4] parameter(0)
			ROOT b = f32[24] bitcast(x)`,
			want: `
			x = f32[6,4] parameter(0)
			ROOT reshape.1 = f32[24] reshape(x)`},
		{name: "bitcast to a column-major layout is a transpose", passes: []string{"simplify"}, in: `
			x = f32[6,4]{1,0} parameter(0)
			ROOT b = f32[4,6]{0,1} bitcast(x)`,
			want: `
			x = f32[6,4]{1,0} parameter(0)
			ROOT transpose.1 = f32[4,6]{0,1} transpose(x), dimensions={1,0}`},
		{name: "broadcast of broadcast", passes: []string{"simplify"}, in: `
			x = f32[3] parameter(0)
			a = f32[3,4] broadcast(x), dimensions={0}
			ROOT b = f32[2,3,4] broadcast(a), dimensions={1,2}`,
			want: `
			x = f32[3] parameter(0)
			ROOT broadcast.1 = f32[2,3,4] broadcast(x), dimensions={1}`},
		{name: "a broadcast inserting unit dimensions stays a broadcast", passes: []string{"simplify"}, in: `
			x = f32[3,4] parameter(0)
			ROOT b = f32[1,3,1,4] broadcast(x), dimensions={1,3}`,
			want: `
			x = f32[3,4] parameter(0)
			ROOT b = f32[1,3,1,4] broadcast(x), dimensions={1,3}`},
		{name: "keepdims broadcast", passes: []string{"simplify"}, in: `
			x = f32[2,3] parameter(0)
			r = f32[2,3,1] reshape(x)
			ROOT b = f32[2,3,5] broadcast(r), dimensions={0,1,2}`,
			want: `
			x = f32[2,3] parameter(0)
			ROOT broadcast.1 = f32[2,3,5] broadcast(x), dimensions={0,1}`},
		{name: "movement of a splat", passes: []string{"simplify"}, in: `
			c = f32[] constant(2)
			b = f32[4,6] broadcast(c), dimensions={}
			t = f32[6,4] transpose(b), dimensions={1,0}
			r = f32[24] reshape(t)
			s = f32[10] slice(r), slice={[2:12]}
			x = f32[10] parameter(0)
			ROOT a = f32[10] add(x, s)`,
			want: `
			x = f32[10] parameter(0)
			c = f32[] constant(2)
			broadcast.1 = f32[10] broadcast(c), dimensions={}
			ROOT a = f32[10] add(x, broadcast.1)`},
		{name: "elementwise op of broadcasts", passes: []string{"simplify"}, in: `
			x = f32[3] parameter(0)
			y = f32[3] parameter(1)
			bx = f32[3,5] broadcast(x), dimensions={0}
			by = f32[3,5] broadcast(y), dimensions={0}
			m = f32[3,5] multiply(bx, by)
			ROOT e = f32[3,5] exponential(m)`,
			want: `
			x = f32[3] parameter(0)
			y = f32[3] parameter(1)
			multiply.1 = f32[3] multiply(x, y)
			exponential.1 = f32[3] exponential(multiply.1)
			ROOT broadcast.1 = f32[3,5] broadcast(exponential.1), dimensions={0}`},
		{name: "reshape of a constant", passes: []string{"simplify"}, in: `
			c = f32[2,2] constant({{1, 2}, {3, 4}})
			r = f32[4] reshape(c)
			x = f32[4] parameter(0)
			ROOT a = f32[4] add(x, r)`,
			want: `
			x = f32[4] parameter(0)
			constant.1 = f32[4] constant({1, 2, 3, 4})
			ROOT a = f32[4] add(x, constant.1)`},
	})
}

func TestSimplifySlices(t *testing.T) {
	runPassCases(t, []passCase{
		{name: "whole slice, slice of slice", passes: []string{"simplify"}, in: `
			x = f32[20,3] parameter(0)
			a = f32[20,3] slice(x), slice={[0:20], [0:3]}
			b = f32[9,3] slice(a), slice={[2:20:2], [0:3]}
			ROOT c = f32[3,1] slice(b), slice={[1:9:3], [1:2]}`,
			want: `
			x = f32[20,3] parameter(0)
			ROOT slice.1 = f32[3,1] slice(x), slice={[4:17:6], [1:2:1]}`},
		{name: "slice of concatenate", passes: []string{"simplify"}, in: `
			x = f32[4,3] parameter(0)
			y = f32[5,3] parameter(1)
			z = f32[2,3] parameter(2)
			c = f32[11,3] concatenate(x, y, z), dimensions={0}
			a = f32[5,3] slice(c), slice={[4:9], [0:3]}
			b = f32[2,2] slice(c), slice={[5:8:2], [1:3]}
			d = f32[3,3] slice(c), slice={[3:6], [0:3]}
			ROOT t = (f32[5,3], f32[2,2], f32[3,3]) tuple(a, b, d)`,
			want: `
			x = f32[4,3] parameter(0)
			y = f32[5,3] parameter(1)
			z = f32[2,3] parameter(2)
			c = f32[11,3] concatenate(x, y, z), dimensions={0}
			d = f32[3,3] slice(c), slice={[3:6], [0:3]}
			slice.1 = f32[2,2] slice(y), slice={[1:4:2], [1:3:1]}
			ROOT t = (f32[5,3], f32[2,2], f32[3,3]) tuple(y, slice.1, d)`},
		{name: "dynamic-slice with constant starts, clamped", passes: []string{"simplify"}, in: `
			x = f32[8,6] parameter(0)
			i = s32[] constant(7)
			j = s32[] constant(-2)
			ROOT d = f32[3,2] dynamic-slice(x, i, j), dynamic_slice_sizes={3,2}`,
			want: `
			x = f32[8,6] parameter(0)
			ROOT slice.1 = f32[3,2] slice(x), slice={[5:8], [0:2]}`},
		{name: "trivial pad, concatenate, reverse", passes: []string{"simplify"}, in: `
			x = f32[4,1] parameter(0)
			e = f32[0,1] parameter(1)
			z = f32[] constant(0)
			p = f32[4,1] pad(x, z), padding=0_0x0_0
			c = f32[4,1] concatenate(p, e), dimensions={0}
			r = f32[4,1] reverse(c), dimensions={0,1}
			ROOT rr = f32[4,1] reverse(r), dimensions={0}`,
			want: `
			ROOT x = f32[4,1] parameter(0)
			e = f32[0,1] parameter(1)`},
		{name: "reduce over no dimensions; +0 is not the identity of add", passes: []string{"simplify"}, in: `
			max {
			  a = f32[] parameter(0)
			  b = f32[] parameter(1)
			  ROOT m = f32[] maximum(a, b)
			}
			sum {
			  a = f32[] parameter(0)
			  b = f32[] parameter(1)
			  ROOT s = f32[] add(a, b)
			}
			ENTRY main {
			  x = f32[4,1] parameter(0)
			  ninf = f32[] constant(-inf)
			  z = f32[] constant(0)
			  r = f32[4,1] reduce(x, ninf), dimensions={}, to_apply=max
			  s = f32[4] reduce(r, z), dimensions={1}, to_apply=sum
			  ROOT q = f32[4] reduce(s, ninf), dimensions={}, to_apply=max
			}`,
			want: `
			x = f32[4,1] parameter(0)
			z = f32[] constant(0)
			ROOT s = f32[4] reduce(x, z), dimensions={1}, to_apply=sum`},
		{name: "reduce over dimensions of size 1 with the identity as init; over none with another init", passes: []string{"simplify"}, in: `
			sum {
			  a = s32[] parameter(0)
			  b = s32[] parameter(1)
			  ROOT s = s32[] add(a, b)
			}
			ENTRY main {
			  x = s32[4,1,3] parameter(0)
			  z = s32[] constant(0)
			  five = s32[] constant(5)
			  r = s32[4,3] reduce(x, z), dimensions={1}, to_apply=sum
			  ROOT q = s32[4,3] reduce(r, five), dimensions={}, to_apply=sum
			}`,
			want: `
			x = s32[4,1,3] parameter(0)
			five = s32[] constant(5)
			reshape.1 = s32[4,3] reshape(x)
			broadcast.1 = s32[4,3] broadcast(five), dimensions={}
			ROOT add.1 = s32[4,3] add(broadcast.1, reshape.1)`},
		{name: "dynamic-update-slice of the whole operand", passes: []string{"simplify"}, in: `
			x = f32[3,2] parameter(0)
			u = f32[3,2] parameter(1)
			i = s32[] parameter(2)
			ROOT d = f32[3,2] dynamic-update-slice(x, u, i, i)`,
			want: `
			x = f32[3,2] parameter(0)
			ROOT u = f32[3,2] parameter(1)
			i = s32[] parameter(2)`},
		{name: "a replacement must keep the layout", passes: []string{"simplify"}, in: `
			x = f32[2,3]{1,0} parameter(0)
			ROOT c = f32[2,3]{0,1} copy(x)`,
			want: `
			x = f32[2,3]{1,0} parameter(0)
			ROOT c = f32[2,3]{0,1} copy(x)`},
		{name: "tuples", passes: []string{"simplify"}, in: `
			x = f32[4] parameter(0)
			y = s32[2] parameter(1)
			t = (f32[4], s32[2]) tuple(x, y)
			a = f32[4] get-tuple-element(t), index=0
			b = s32[2] get-tuple-element(t), index=1
			ROOT u = (f32[4], s32[2]) tuple(a, b)`,
			want: `
			x = f32[4] parameter(0)
			y = s32[2] parameter(1)
			ROOT u = (f32[4], s32[2]) tuple(x, y)`},
	})
}

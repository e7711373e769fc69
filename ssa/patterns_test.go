package ssa

import "testing"

// Softmax, layer-norm and GELU in the forms JAX exports (the encoder example
// has them at full size), on small shapes.

const softmaxHLO = `
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
  x = f32[2,3,5] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[2,3] reduce(x, ninf), dimensions={2}, to_apply=max
  bmx = f32[2,3,5] broadcast(mx), dimensions={0,1}
  s = f32[2,3,5] subtract(x, bmx)
  e = f32[2,3,5] exponential(s)
  z = f32[] constant(0)
  sm = f32[2,3] reduce(e, z), dimensions={2}, to_apply=sum
  bsm = f32[2,3,5] broadcast(sm), dimensions={0,1}
  ROOT y = f32[2,3,5] divide(e, bsm)
}`

func TestPatterns(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
		tol  tolerance
	}{
		{"softmax", softmaxHLO, `
			x = f32[2,3,5] parameter(0)
			ROOT softmax.1 = f32[2,3,5] custom-call(x), custom_call_target="kiln.softmax", called_computations={}, backend_config="0"`,
			tolerance{1e-7, 1e-6}},
		{"softmax with keepdims broadcasts", `
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
			  x = f32[4,6] parameter(0)
			  ninf = f32[] constant(-inf)
			  mx = f32[4] reduce(x, ninf), dimensions={1}, to_apply=max
			  rmx = f32[4,1] reshape(mx)
			  bmx = f32[4,6] broadcast(rmx), dimensions={0,1}
			  s = f32[4,6] subtract(x, bmx)
			  e = f32[4,6] exponential(s)
			  z = f32[] constant(0)
			  sm = f32[4] reduce(e, z), dimensions={1}, to_apply=sum
			  rsm = f32[4,1] reshape(sm)
			  bsm = f32[4,6] broadcast(rsm), dimensions={0,1}
			  ROOT y = f32[4,6] divide(e, bsm)
			}`, `
			x = f32[4,6] parameter(0)
			ROOT softmax.1 = f32[4,6] custom-call(x), custom_call_target="kiln.softmax", called_computations={}, backend_config="0"`,
			tolerance{1e-7, 1e-6}},
		{"layer-norm, flax form with scale and bias", `
			sum {
			  a = f32[] parameter(0)
			  b = f32[] parameter(1)
			  ROOT s = f32[] add(a, b)
			}
			ENTRY main {
			  x = f32[1,3,8] parameter(0)
			  scale = f32[8] parameter(1)
			  bias = f32[8] parameter(2)
			  z = f32[] constant(0)
			  s1 = f32[1,3] reduce(x, z), dimensions={2}, to_apply=sum
			  inv = f32[] constant(0.125)
			  binv = f32[1,3] broadcast(inv), dimensions={}
			  mean = f32[1,3] multiply(s1, binv)
			  sq = f32[1,3,8] multiply(x, x)
			  s2 = f32[1,3] reduce(sq, z), dimensions={2}, to_apply=sum
			  mean2 = f32[1,3] multiply(s2, binv)
			  mm = f32[1,3] multiply(mean, mean)
			  d = f32[1,3] subtract(mean2, mm)
			  bz = f32[1,3] broadcast(z), dimensions={}
			  var = f32[1,3] maximum(d, bz)
			  eps = f32[] constant(1e-06)
			  beps = f32[1,3] broadcast(eps), dimensions={}
			  ve = f32[1,3] add(var, beps)
			  r = f32[1,3] rsqrt(ve)
			  bmean = f32[1,3,8] broadcast(mean), dimensions={0,1}
			  xc = f32[1,3,8] subtract(x, bmean)
			  br = f32[1,3,8] broadcast(r), dimensions={0,1}
			  n = f32[1,3,8] multiply(xc, br)
			  bscale = f32[1,3,8] broadcast(scale), dimensions={2}
			  y1 = f32[1,3,8] multiply(n, bscale)
			  bbias = f32[1,3,8] broadcast(bias), dimensions={2}
			  ROOT y = f32[1,3,8] add(y1, bbias)
			}`, `
			x = f32[1,3,8] parameter(0)
			scale = f32[8] parameter(1)
			bias = f32[8] parameter(2)
			ROOT layer-norm.1 = f32[1,3,8] custom-call(x, scale, bias), epsilon=1e-06, feature_index=0, custom_call_target="kiln.layer-norm", called_computations={}, backend_config="0"`,
			tolerance{1e-5, 1e-5}},
		{"layer-norm, centred form, scale folded into the rsqrt, no bias", `
			sum {
			  a = f32[] parameter(0)
			  b = f32[] parameter(1)
			  ROOT s = f32[] add(a, b)
			}
			ENTRY main {
			  x = f32[5,6] parameter(0)
			  scale = f32[6] parameter(1)
			  z = f32[] constant(0)
			  s1 = f32[5] reduce(x, z), dimensions={1}, to_apply=sum
			  six = f32[] constant(6)
			  bsix = f32[5] broadcast(six), dimensions={}
			  mean = f32[5] divide(s1, bsix)
			  bmean = f32[5,6] broadcast(mean), dimensions={0}
			  xc = f32[5,6] subtract(x, bmean)
			  sq = f32[5,6] multiply(xc, xc)
			  s2 = f32[5] reduce(sq, z), dimensions={1}, to_apply=sum
			  var = f32[5] divide(s2, bsix)
			  eps = f32[] constant(1e-05)
			  beps = f32[5] broadcast(eps), dimensions={}
			  ve = f32[5] add(beps, var)
			  r = f32[5] rsqrt(ve)
			  br = f32[5,6] broadcast(r), dimensions={0}
			  bscale = f32[5,6] broadcast(scale), dimensions={1}
			  mul = f32[5,6] multiply(br, bscale)
			  ROOT y = f32[5,6] multiply(xc, mul)
			}`, `
			x = f32[5,6] parameter(0)
			scale = f32[6] parameter(1)
			constant.1 = f32[] constant(0)
			broadcast.1 = f32[6] broadcast(constant.1), dimensions={}
			ROOT layer-norm.1 = f32[5,6] custom-call(x, scale, broadcast.1), epsilon=1e-05, feature_index=0, custom_call_target="kiln.layer-norm", called_computations={}, backend_config="0"`,
			tolerance{1e-5, 1e-5}},
		{"gelu tanh, jax.nn.gelu's association", `
			ENTRY main {
			  x = f32[4,8] parameter(0)
			  x2 = f32[4,8] multiply(x, x)
			  x3 = f32[4,8] multiply(x, x2)
			  c = f32[] constant(0.044715)
			  bc = f32[4,8] broadcast(c), dimensions={}
			  t = f32[4,8] multiply(bc, x3)
			  u = f32[4,8] add(x, t)
			  k = f32[] constant(0.797884583)
			  bk = f32[4,8] broadcast(k), dimensions={}
			  w = f32[4,8] multiply(bk, u)
			  th = f32[4,8] tanh(w)
			  one = f32[] constant(1)
			  b1 = f32[4,8] broadcast(one), dimensions={}
			  p = f32[4,8] add(b1, th)
			  half = f32[] constant(0.5)
			  bh = f32[4,8] broadcast(half), dimensions={}
			  cdf = f32[4,8] multiply(bh, p)
			  ROOT y = f32[4,8] multiply(x, cdf)
			}`, `
			x = f32[4,8] parameter(0)
			ROOT gelu.1 = f32[4,8] custom-call(x), custom_call_target="kiln.gelu", called_computations={}, backend_config="1"`,
			tolerance{1e-6, 1e-5}},
		{"gelu erf, x · (erf(x / √2) + 1) / 2", `
			ENTRY main {
			  x = f32[3,5] parameter(0)
			  s2 = f32[] constant(1.41421354)
			  bs2 = f32[3,5] broadcast(s2), dimensions={}
			  z = f32[3,5] divide(x, bs2)
			  e = f32[3,5] erf(z)
			  one = f32[] constant(1)
			  b1 = f32[3,5] broadcast(one), dimensions={}
			  p = f32[3,5] add(e, b1)
			  m = f32[3,5] multiply(x, p)
			  two = f32[] constant(2)
			  b2 = f32[3,5] broadcast(two), dimensions={}
			  ROOT y = f32[3,5] divide(m, b2)
			}`, `
			x = f32[3,5] parameter(0)
			ROOT gelu.1 = f32[3,5] custom-call(x), custom_call_target="kiln.gelu", called_computations={}, backend_config="0"`,
			tolerance{1e-6, 1e-5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, p := lowerText(t, moduleText(c.in))
			runPasses(t, p, "patterns", "dce")
			if got, want := entryText(t, p), trimLines(c.want); got != want {
				t.Errorf("after patterns:\n%s\nwant:\n%s", got, want)
			}
			checkEquivalent(t, m, p, c.tol)
		})
	}
}

// TestPatternsNearMisses checks subgraphs that look like the patterns but
// compute something else stay as they are.
func TestPatternsNearMisses(t *testing.T) {
	regions := `
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
		`
	for _, c := range []struct{ name, body string }{
		{"softmax without the max subtraction", `
			x = f32[4,6] parameter(0)
			e = f32[4,6] exponential(x)
			z = f32[] constant(0)
			sm = f32[4] reduce(e, z), dimensions={1}, to_apply=sum
			bsm = f32[4,6] broadcast(sm), dimensions={0}
			ROOT y = f32[4,6] divide(e, bsm)`},
		{"softmax whose max is of another tensor", `
			x = f32[4,6] parameter(0)
			x2 = f32[4,6] parameter(1)
			ninf = f32[] constant(-inf)
			mx = f32[4] reduce(x2, ninf), dimensions={1}, to_apply=max
			bmx = f32[4,6] broadcast(mx), dimensions={0}
			s = f32[4,6] subtract(x, bmx)
			e = f32[4,6] exponential(s)
			z = f32[] constant(0)
			sm = f32[4] reduce(e, z), dimensions={1}, to_apply=sum
			bsm = f32[4,6] broadcast(sm), dimensions={0}
			ROOT y = f32[4,6] divide(e, bsm)`},
		{"softmax whose max starts at 0", `
			x = f32[4,6] parameter(0)
			z = f32[] constant(0)
			mx = f32[4] reduce(x, z), dimensions={1}, to_apply=max
			bmx = f32[4,6] broadcast(mx), dimensions={0}
			s = f32[4,6] subtract(x, bmx)
			e = f32[4,6] exponential(s)
			sm = f32[4] reduce(e, z), dimensions={1}, to_apply=sum
			bsm = f32[4,6] broadcast(sm), dimensions={0}
			ROOT y = f32[4,6] divide(e, bsm)`},
		{"layer-norm dividing by the wrong count", `
			x = f32[5,6] parameter(0)
			z = f32[] constant(0)
			s1 = f32[5] reduce(x, z), dimensions={1}, to_apply=sum
			seven = f32[] constant(7)
			b7 = f32[5] broadcast(seven), dimensions={}
			mean = f32[5] divide(s1, b7)
			bmean = f32[5,6] broadcast(mean), dimensions={0}
			xc = f32[5,6] subtract(x, bmean)
			sq = f32[5,6] multiply(xc, xc)
			s2 = f32[5] reduce(sq, z), dimensions={1}, to_apply=sum
			var = f32[5] divide(s2, b7)
			eps = f32[] constant(1e-05)
			beps = f32[5] broadcast(eps), dimensions={}
			ve = f32[5] add(var, beps)
			r = f32[5] rsqrt(ve)
			br = f32[5,6] broadcast(r), dimensions={0}
			ROOT y = f32[5,6] multiply(xc, br)`},
		{"flax layer-norm variance without the clamp at 0", `
			x = f32[5,6] parameter(0)
			z = f32[] constant(0)
			s1 = f32[5] reduce(x, z), dimensions={1}, to_apply=sum
			six = f32[] constant(6)
			b6 = f32[5] broadcast(six), dimensions={}
			mean = f32[5] divide(s1, b6)
			sq = f32[5,6] multiply(x, x)
			s2 = f32[5] reduce(sq, z), dimensions={1}, to_apply=sum
			mean2 = f32[5] divide(s2, b6)
			mm = f32[5] multiply(mean, mean)
			var = f32[5] subtract(mean2, mm)
			eps = f32[] constant(1e-05)
			beps = f32[5] broadcast(eps), dimensions={}
			ve = f32[5] add(var, beps)
			r = f32[5] rsqrt(ve)
			br = f32[5,6] broadcast(r), dimensions={0}
			bmean = f32[5,6] broadcast(mean), dimensions={0}
			xc = f32[5,6] subtract(x, bmean)
			ROOT y = f32[5,6] multiply(xc, br)`},
		{"gelu with another cubic coefficient", `
			x = f32[4,8] parameter(0)
			x2 = f32[4,8] multiply(x, x)
			x3 = f32[4,8] multiply(x, x2)
			c = f32[] constant(0.04)
			bc = f32[4,8] broadcast(c), dimensions={}
			t = f32[4,8] multiply(bc, x3)
			u = f32[4,8] add(x, t)
			k = f32[] constant(0.797884583)
			bk = f32[4,8] broadcast(k), dimensions={}
			w = f32[4,8] multiply(bk, u)
			th = f32[4,8] tanh(w)
			one = f32[] constant(1)
			b1 = f32[4,8] broadcast(one), dimensions={}
			p = f32[4,8] add(b1, th)
			half = f32[] constant(0.5)
			bh = f32[4,8] broadcast(half), dimensions={}
			cdf = f32[4,8] multiply(bh, p)
			ROOT y = f32[4,8] multiply(x, cdf)`},
		{"gelu erf without the halving", `
			x = f32[3,5] parameter(0)
			s2 = f32[] constant(1.41421354)
			bs2 = f32[3,5] broadcast(s2), dimensions={}
			z = f32[3,5] divide(x, bs2)
			e = f32[3,5] erf(z)
			one = f32[] constant(1)
			b1 = f32[3,5] broadcast(one), dimensions={}
			p = f32[3,5] add(e, b1)
			ROOT m = f32[3,5] multiply(x, p)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, p := lowerText(t, moduleText(regions+"ENTRY main {\n"+c.body+"\n}"))
			runPasses(t, p, "patterns")
			for _, v := range p.Entry.Values {
				if _, ok := v.Op.IR(); !ok {
					t.Errorf("matched %s:\n%s", v.Op, p)
				}
			}
		})
	}
}

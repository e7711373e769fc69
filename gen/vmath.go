package main

import (
	"math"
	"math/big"
)

// Elementary functions as vector programs. Each is a range reduction, a
// polynomial (Horner's rule with FMAs) and a reconstruction, written once for
// every backend. The error bounds are stated on the root package's exported
// functions and checked by its tests against float64 math.

// horner evaluates c[0] + c[1]·x + c[2]·x² + … with FMAs.
func horner(b *vb, x val, c ...float64) val {
	k := b.p.kind(x)
	acc := b.fconst(k, c[len(c)-1])
	for i := len(c) - 2; i >= 0; i-- {
		acc = b.fma(acc, x, b.fconst(k, c[i]))
	}
	return acc
}

// pow2i is 2^n for int32 lanes n with −126 ≤ n ≤ 127, built in the exponent field.
func pow2i(b *vb, n val) val {
	return b.asF32(b.shl(b.addi(n, b.i32(127)), 23))
}

// ldexp is p·2^n for float lanes n holding integers in [−252, 254] and p a
// normal number near 1: the scale is applied in two halves, each a normal
// power of two, so that overflow gives ±Inf and underflow a correctly
// rounded subnormal (the second multiplication is the only rounding).
func ldexp(b *vb, p, n val) val {
	if b.t.nativeLdexp {
		return b.emit(opLdexp, vF32, vF32, p, n)
	}
	ni := b.cvtfi(n)
	h := b.sar(ni, 1)
	return b.mul(b.mul(p, pow2i(b, h)), pow2i(b, b.subi(ni, h)))
}

// Cody–Waite split of ln 2: ln2Hi has few enough bits that n·ln2Hi is exact
// for the |n| ≤ 256 the reductions produce.
const (
	ln2Hi = 0.693359375
	ln2Lo = -2.12194440e-4
)

// expReduce splits x = n·ln2 + r with n integral, |r| ≤ ln2/2 (x already
// clamped to a range where n fits ldexp). With FMAs the first step is exact.
func expReduce(b *vb, x val) (n, r val) {
	n = b.round(b.mul(x, b.f32(math.Log2E)), roundNearest)
	r = b.fnma(n, b.f32(ln2Hi), x)
	r = b.fnma(n, b.f32(ln2Lo), r)
	return n, r
}

// expm1Small is e^r − 1 for |r| ≤ ln2/2: r + r²·P(r), with Cephes' expf
// coefficients (relative error of the polynomial 1.1e-9).
func expm1Small(b *vb, r val) val {
	p := horner(b, r, 5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2, 8.3334519073e-3, 1.3981999507e-3, 1.9875691500e-4)
	return b.fma(p, b.mul(r, r), r)
}

// vexpParts is e^x as p·2^n, p in [½√2, √2], n integral (as float32), for
// ldexp: callers that multiply e^x by something apply the power of two last,
// so that a subnormal result is rounded once.
func vexpParts(b *vb, x val) (p, n val) {
	// Below −110 the result is 0 (even times 2^6), above 89 +Inf; a NaN
	// passes the clamps.
	xc := b.minc(b.maxc(x, b.f32(-110)), b.f32(89))
	n, r := expReduce(b, xc)
	// 1 + r + r²·P(r) with 1 + r split exactly (Fast2Sum, |r| < 1), so that
	// only the last addition rounds.
	one := b.f32(1)
	hi := b.add(one, r)
	lo := b.sub(r, b.sub(hi, one))
	p = horner(b, r, 5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2, 8.3334519073e-3, 1.3981999507e-3, 1.9875691500e-4)
	return b.add(hi, b.fma(p, b.mul(r, r), lo)), n
}

// vexp is e^x.
func vexp(b *vb, x val) val {
	p, n := vexpParts(b, x)
	return ldexp(b, p, n)
}

// vexpm1 is e^x − 1: the polynomial alone near 0, else
// 2^n·(e^r − 1) + (2^n − 1), evaluated as 2·(s·t + (s − ½)) with s = 2^(n−1)
// so that s stays a normal number up to the overflow threshold.
func vexpm1(b *vb, x val) val {
	xc := b.minc(b.maxc(x, b.f32(-40)), b.f32(89))
	n, r := expReduce(b, xc)
	t := expm1Small(b, r)
	s := pow2i(b, b.subi(b.cvtfi(n), b.i32(1)))
	big := b.mul(b.fma(s, t, b.sub(s, b.f32(0.5))), b.f32(2))
	ax := b.abs(x)
	small := expm1Small(b, x)
	res := b.blend(b.cmp(cmpLT, ax, b.f32(0.34657359)), small, big)
	// Below 2^-24 the result is x itself (this keeps −0).
	return b.blend(b.cmp(cmpLT, ax, b.f32(0x1p-24)), x, res)
}

// logCore is log(x) for finite x > 0 (subnormals included); other inputs
// give unspecified values.
func logCore(b *vb, x val) val {
	// Scale subnormals into the normal range.
	sub := b.cmp(cmpLT, x, b.f32(0x1p-126))
	xs := b.blend(sub, b.mul(x, b.f32(0x1p23)), x)
	kAdj := b.blend(sub, b.f32(-23), b.f32(0))
	// x = 2^k·m with m in [√½, √2): shift the bits so that the exponent
	// field carries past √2.
	ix := b.addi(b.asI32(xs), b.i32(0x3f800000-0x3f3504f3))
	k := b.add(b.cvtif(b.subi(b.shr(ix, 23), b.i32(127))), kAdj)
	m := b.asF32(b.addi(b.and(ix, b.i32(0x007fffff)), b.i32(0x3f3504f3)))
	f := b.sub(m, b.f32(1))
	// log(1+f) = f − f²/2 + f³·P(f) (Cephes' logf coefficients).
	z := b.mul(f, f)
	p := horner(b, f, 3.3333331174e-1, -2.4999993993e-1, 2.0000714765e-1, -1.6668057665e-1, 1.4249322787e-1, -1.2420140846e-1, 1.1676998740e-1, -1.1514610310e-1, 7.0376836292e-2)
	y := b.mul(b.mul(p, f), z)
	y = b.fma(k, b.f32(ln2Lo), y)
	y = b.fma(b.f32(-0.5), z, y)
	return b.fma(k, b.f32(ln2Hi), b.add(f, y))
}

var (
	nan32    = math.Float32frombits(0x7fc00000)
	posInf32 = float32(math.Inf(1))
	negInf32 = float32(math.Inf(-1))
)

// vlog is the natural logarithm: −Inf at ±0, NaN below 0, +Inf at +Inf.
func vlog(b *vb, x val) val {
	r := logCore(b, x)
	r = b.blend(b.cmp(cmpEQ, x, b.f32(posInf32)), x, r)
	r = b.blend(b.cmp(cmpEQ, x, b.f32(0)), b.f32(negInf32), r)
	r = b.blend(b.cmp(cmpLT, x, b.f32(0)), b.f32(nan32), r)
	return b.blend(b.isNaN(x), x, r)
}

// vlog1p is log(1 + x): log(u) for u = 1 + x rounded, corrected by the
// rounding error of u, (x − (u − 1))/u.
func vlog1p(b *vb, x val) val {
	one := b.f32(1)
	u := b.add(x, one)
	c := b.div(b.sub(x, b.sub(u, one)), u)
	r := b.add(logCore(b, u), c)
	r = b.blend(b.cmp(cmpEQ, x, b.f32(posInf32)), x, r)
	r = b.blend(b.cmp(cmpEQ, x, b.f32(-1)), b.f32(negInf32), r)
	r = b.blend(b.cmp(cmpLT, x, b.f32(-1)), b.f32(nan32), r)
	// Below |x| = 2^-10, x − x²/2 + x³/3 (the next term is below 2^-30·|x|),
	// which does not go through the rounding of 1 + x; the FMA keeps ±0.
	series := b.fma(b.mul(x, x), b.fma(x, b.f32(1.0/3), b.f32(-0.5)), x)
	r = b.blend(b.cmp(cmpLT, b.abs(x), b.f32(0x1p-10)), series, r)
	return b.blend(b.isNaN(x), x, r)
}

// vtanh is tanh(x): below |x| = 0.625 x + x³·P(x²) (Cephes' tanhf
// coefficients, relative error 4.4e-9), above t/(t + 2) with
// t = e^(2|x|) − 1 and x's sign. Beyond |x| = 9 the result rounds to ±1.
func vtanh(b *vb, x val) val {
	ax := b.abs(x)
	a := b.minc(ax, b.f32(9))
	t := vexpm1(b, b.add(a, a))
	big := b.copySign(b.div(t, b.add(t, b.f32(2))), x)
	z := b.mul(x, x)
	p := horner(b, z, -3.33332819422e-1, 1.33314422036e-1, -5.37397155531e-2, 2.06390887954e-2, -5.70498872745e-3)
	small := b.fma(b.mul(x, z), p, x)
	small = b.blend(b.cmp(cmpEQ, x, b.f32(0)), x, small) // tanh(±0) = ±0
	return b.blend(b.cmp(cmpLT, ax, b.f32(0.625)), small, big)
}

// vlogistic is 1/(1 + e^−x): with e = e^−|x| ≤ 1, it is 1/(1+e) for x ≥ 0
// and e/(1+e) below, so that no intermediate overflows and tiny results
// keep their precision.
func vlogistic(b *vb, x val) val {
	p, n := vexpParts(b, b.neg(b.abs(x)))
	one := b.f32(1)
	// e = p·2^n. The numerator is 1 or e, scaled in one step so that it is
	// subnormal only when the result is; in the denominator a scale below
	// 2^-100 leaves 1 + e at 1, and the clamp keeps e normal (subnormal
	// arithmetic is slow).
	pos := b.cmp(cmpGE, x, b.f32(0))
	num := ldexp(b, b.blend(pos, one, p), b.blend(pos, b.f32(0), n))
	den := b.add(one, ldexp(b, p, b.maxc(n, b.f32(-100))))
	return b.div(num, den)
}

// vsilu is x·logistic(x) = x/(1 + e^−x) (SiLU): with e = e^−|x| = p·2^n,
// it is x/(1+e) for x ≥ 0 and (x·p/(1+e))·2^n below, the power of two
// applied last so that a result whose logistic is subnormal (x below about
// −87) keeps its precision, and a subnormal result is rounded once. Below
// −110 it is x·0: −0, and NaN at −Inf (−Inf·0, as the formula gives).
func vsilu(b *vb, x val) val {
	p, n := vexpParts(b, b.neg(b.abs(x)))
	den := b.add(b.f32(1), ldexp(b, p, b.maxc(n, b.f32(-100))))
	pos := b.cmp(cmpGE, x, b.f32(0))
	q := b.div(b.blend(pos, x, b.mul(x, p)), den)
	r := ldexp(b, q, b.blend(pos, b.f32(0), n))
	return b.blend(b.cmp(cmpLT, x, b.f32(-110)), b.mul(x, b.f32(0)), r)
}

// erfcP are the coefficients of P in erfcCore: a least-squares fit,
// reweighted toward minimax (Lawson), of ln(erfc(z)/t) + z² as a polynomial
// in t on [1/6.25, 1] (z in [0, 10.5]), the form of Numerical Recipes'
// erfcc with two more terms. The relative error of erfc is 2.7e-9 with these
// coefficients in float64 and 3.9e-8 rounded to float32 (gen's
// TestErfcCoefficients checks it).
var erfcP = []float64{-1.265540686035884, 1.0008191004256926, 0.36483581636168283, 0.15500397837247762,
	-0.40215957741445457, 0.75680700652861488, -1.7153653133260995, 1.6895132435538205,
	-0.39663049806722378, -0.47747314430084026, 0.37033129156764266, -0.080141220406031721}

// erfcCore is erfc(z) for z ≥ 0 given z² as zz + zzLo (exactly, or
// closer than z·z rounded): t·e^(−z² + P(t)) with t = 1/(1 + z/2) (see
// erfcP). The sum −z² + P(t) is carried with its rounding error (TwoSum) so
// that the large exponent loses nothing. Beyond z = 10.5 the result is 0.
func erfcCore(b *vb, z, zz, zzLo val) val {
	m, n := erfcParts(b, z, zz, zzLo)
	return ldexp(b, m, n)
}

// erfcParts is erfcCore's result as m·2^n (m near 1, n integral, as
// float32), for callers that multiply it by something first.
func erfcParts(b *vb, z, zz, zzLo val) (m, n val) {
	zc := b.minc(z, b.f32(10.5))
	t := b.div(b.f32(1), b.fma(zc, b.f32(0.5), b.f32(1)))
	p := horner(b, t, erfcP...)
	nz := b.neg(b.minc(zz, b.f32(10.5*10.5)))
	s := b.add(nz, p)
	bb := b.sub(s, nz)
	err := b.add(b.sub(nz, b.sub(s, bb)), b.sub(p, bb))
	err = b.sub(err, zzLo)
	p, n = vexpParts(b, s)
	m = b.mul(t, b.fma(p, err, p))
	return b.blend(b.cmp(cmpGT, z, b.f32(10.5)), b.f32(0), m), n
}

// square returns x² as hi + lo exactly.
func square(b *vb, x val) (hi, lo val) {
	hi = b.mul(x, x)
	lo = b.fma(x, x, b.neg(hi))
	return hi, lo
}

// erfSmall is erf(x) for |x| ≤ 1: x·P(x²) from the Taylor series
// 2/√π·Σ (−1)^k x^(2k+1)/(k!(2k+1)), truncated after the x^23 term. The
// leading term x·2/√π is added last, in an FMA, with 2/√π split in two, so
// that it carries no rounding of its own.
func erfSmall(b *vb, x val) val { return erfSeries(b, x, 12) }

func erfSeries(b *vb, x val, terms int) val {
	c := make([]float64, terms)
	fact := 1.0
	for k := range c {
		if k > 0 {
			fact *= float64(k)
		}
		c[k] = 2 / math.Sqrt(math.Pi) / (fact * float64(2*k+1))
		if k%2 == 1 {
			c[k] = -c[k]
		}
	}
	c0 := c[0]
	c0hi := float64(float32(c0))
	xx := b.mul(x, x)
	rest := b.fma(xx, horner(b, xx, c[1:]...), b.f32(float32(c0-c0hi)))
	r := b.fma(x, b.f32(float32(c0hi)), b.mul(x, rest))
	return b.blend(b.cmp(cmpEQ, x, b.f32(0)), x, r) // erf(±0) = ±0
}

// verf is the error function: the series below |x| = 1, 1 − erfc(|x|) with
// x's sign above.
func verf(b *vb, x val) val {
	// From |x| = 3.92 on erf is ±1 in float32: clamping at 4 keeps erfc (and
	// its scaling) away from subnormal results, which are slow.
	a := b.minc(b.abs(x), b.f32(4))
	hi, lo := square(b, a)
	big := b.copySign(b.sub(b.f32(1), erfcCore(b, a, hi, lo)), x)
	return b.blend(b.cmp(cmpLT, a, b.f32(1)), erfSmall(b, x), big)
}

// exp64Parts is e^s = m·2^k for float64 lanes s in [−710, 0]: k = round(s·log2 e)
// (integral, as float64), m = e^f for f = s − k·ln2 (ln2 in two parts, the
// first exact in k·ln2Hi64), |f| ≤ ln2/2, from the Taylor series to f^9
// (relative error below 1e-11, far below float32's precision).
func exp64Parts(b *vb, s val) (m, k val) {
	k = b.round(b.mul(s, b.f64(math.Log2E)), roundNearest)
	const ln2Hi64 = 6.93147180369123816490e-01 // fdlibm's split of ln 2
	const ln2Lo64 = 1.90821492927058770002e-10
	f := b.fnma(k, b.f64(ln2Hi64), s)
	f = b.fnma(k, b.f64(ln2Lo64), f)
	c := make([]float64, 10)
	fact := 1.0
	for i := range c {
		if i > 0 {
			fact *= float64(i)
		}
		c[i] = 1 / fact
	}
	return horner(b, f, c...), k
}

// pow2f64 is 2^k for float32 lanes k holding integers in [−252, 0], as
// float64 lanes of the lower (lo true) or upper half: 2^k1·2^k2 with both
// factors normal float32, whose product is exact in float64.
func pow2f64(b *vb, k val, lo bool) val {
	ki := b.cvtfi(k)
	h := b.sar(ki, 1)
	cv := b.lo64
	if !lo {
		cv = b.hi64
	}
	return b.mul(cv(pow2i(b, h)), cv(pow2i(b, b.subi(ki, h))))
}

// vgelu is x·Φ(x) = x/2·erfc(−x/√2), evaluated in float64 lanes: with
// z = |x|/√2 and erfc(z) = t·e^(−z²+P(t)) = m·2^k (erfcP's approximation,
// relative error 2.7e-9 in float64), the result is x/2·m·2^k below 0 (its
// mantissa rounded to float32 once, the power of two applied last so that
// tiny results are rounded once) and x·(1 − m·2^k/2) above, rounded once.
func vgelu(b *vb, x val) val {
	type half struct{ neg, pos, k val }
	halves := make([]half, 2)
	// t = 1/(1 + z/2): a float32 division for all lanes, refined by one
	// Newton step in float64 (relative error 2^-48).
	t32 := b.div(b.f32(1), b.fma(b.abs(x), b.f32(0.5/math.Sqrt2), b.f32(1)))
	for i, cv := range []func(val) val{b.lo64, b.hi64} {
		x64 := cv(x)
		z := b.mul(b.abs(x64), b.f64(1/math.Sqrt2))
		zz := b.mul(b.mul(x64, x64), b.f64(0.5)) // exact: x has 24 bits
		d := b.fma(z, b.f64(0.5), b.f64(1))
		t := cv(t32)
		t = b.fma(t, b.fnma(d, t, b.f64(1)), t)
		p := horner(b, t, erfcP...)
		// Below −700 every erfc here is 0 in float32; the clamp keeps k
		// in ldexp's range (a NaN passes).
		sArg := b.maxc(b.sub(p, zz), b.f64(-700))
		em, k := exp64Parts(b, sArg)
		m := b.mul(t, em)
		halves[i] = half{neg: b.mul(b.mul(x64, b.f64(0.5)), m), k: k}
		halves[i].pos = m // completed below, once 2^k is known per half
	}
	k := b.pack32(halves[0].k, halves[1].k)
	kc := b.maxc(k, b.f32(-252))
	for i := range halves {
		// x·(1 − m·2^k/2); below 2^-100 the term cannot change the result,
		// and the clamp keeps the scale a float32 power of two.
		scale := pow2f64(b, b.maxc(kc, b.f32(-100)), i == 0)
		x64 := []func(val) val{b.lo64, b.hi64}[i](x)
		halves[i].pos = b.mul(x64, b.fnma(b.mul(halves[i].pos, b.f64(0.5)), scale, b.f64(1)))
	}
	pos := b.pack32(halves[0].pos, halves[1].pos)
	neg := ldexp(b, b.pack32(halves[0].neg, halves[1].neg), kc)
	r := b.blend(b.cmp(cmpGE, x, b.f32(0)), pos, neg)
	return geluSpecials(b, x, r)
}

// vgeluFast is x·Φ(x) = x/2·erfc(−x/√2) in float32 lanes, for GEMM
// epilogues: z = |x|/√2, z² = x²/2 exactly (x² as the sum of two floats,
// halved), erfc(z) = t·e^(−z²+P(t)) = m·2^n (erfcParts, the large exponent
// carried with its rounding error), then x/2·m·2^n below 0 (the power of
// two applied last) and x·(1 − m·2^n/2) above; below |x| = 1, erf's series.
func vgeluFast(b *vb, x val) val {
	z := b.mul(b.abs(x), b.f32(1/math.Sqrt2))
	hi, lo := square(b, x)
	half := b.f32(0.5)
	m, n := erfcParts(b, z, b.mul(hi, half), b.mul(lo, half))
	neg := ldexp(b, b.mul(b.mul(x, half), m), n)
	e := ldexp(b, m, b.maxc(n, b.f32(-100)))
	pos := b.mul(x, b.fnma(e, half, b.f32(1)))
	r := b.blend(b.cmp(cmpGE, x, b.f32(0)), pos, neg)
	// Below |x| = 1, x/2·(1 + erf(x/√2)) with erf's series: 1 − erfc/2
	// there would carry erfc's error into a result near x/2.
	small := b.mul(b.mul(x, half), b.add(b.f32(1), erfSmall(b, b.mul(x, b.f32(1/math.Sqrt2)))))
	r = b.blend(b.cmp(cmpLT, b.abs(x), b.f32(1)), small, r)
	return geluSpecials(b, x, r)
}

// vgeluTanh is x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³))) = x/(1 + e^−z) with
// z = x·(c₁ + c₂·x²), c₁ = 2√(2/π), c₂ = 2·0.044715·√(2/π). z is computed
// in double-float arithmetic in the float32 lanes (x² and each product split
// exactly with an FMA, c₁ and c₂ as two floats each, the sum by Fast2Sum)
// and passed on as z₁ + z₂, e^−z as e^−z₁·(1 − z₂): the error of a float32
// z, |z|·2^−24, would otherwise become relative error of the result for
// negative x. As in vlogistic, e^−|z| avoids overflow.
func vgeluTanh(b *vb, x val) val {
	c1 := 2 * math.Sqrt(2/math.Pi)
	c2 := c1 * 0.044715
	c1h, c2h := float32(c1), float32(c2)
	c1l, c2l := float32(c1-float64(c1h)), float32(c2-float64(c2h))
	xc := b.minc(b.maxc(x, b.f32(-1e5)), b.f32(1e5)) // keeps z finite
	// x² = h − nl and c₂h·h = ph − npl exactly.
	h := b.mul(xc, xc)
	nl := b.fnma(xc, xc, h)
	ph := b.mul(b.f32(c2h), h)
	npl := b.fnma(b.f32(c2h), h, ph)
	// ph + c₁h = s + se exactly (both positive; the larger first).
	big, small := b.maxc(ph, b.f32(c1h)), b.minc(ph, b.f32(c1h))
	s := b.add(big, small)
	se := b.sub(small, b.sub(s, big))
	// c₁ + c₂·x² = s + tl: tl gathers se, c₁l, c₂l·x², −c₂h·nl and −npl.
	u := b.fma(b.f32(c2l), h, b.f32(c1l))
	u = b.fnma(b.f32(c2h), nl, u)
	tl := b.add(b.sub(u, npl), se)
	// z = x·(s + tl) = z₁ − nz₂: z₁ = x·s rounded, nz₂ = z₁ − x·s − x·tl.
	z1 := b.mul(xc, s)
	nz2 := b.fnma(xc, tl, b.fnma(xc, s, z1))
	// e = e^−|z| = e^−|z₁|·(1 + sign(z₁)·nz₂) = p·2^n
	p, n := vexpParts(b, b.neg(b.abs(z1)))
	p = b.fma(p, b.xor(nz2, b.and(z1, b.fsign(vF32))), p)
	// 1 + e is 1 once e is below 2^-100; the clamp keeps e normal.
	e := ldexp(b, p, b.maxc(n, b.f32(-100)))
	q := b.div(x, b.add(b.f32(1), e))
	// For z < 0 the result is q·e, scaled last so that a subnormal result
	// is rounded once.
	// Below z = −110 (x < −10.8) the result is below 2e-47: −0.
	neg := ldexp(b, b.mul(q, p), n)
	neg = b.blend(b.cmp(cmpLT, z1, b.f32(-110)), b.u32(1<<31), neg)
	r := b.blend(b.cmp(cmpGE, z1, b.f32(0)), q, neg)
	return geluSpecials(b, x, r)
}

// geluSpecials gives both GELUs the values their defining formulas give at
// ±Inf: +Inf at +Inf, and NaN at −Inf (−Inf·0: that is what XLA computes for
// x/2·(1 + tanh(…)) and x/2·(1 + erf(…)), whose limit would be −0); NaN
// stays NaN.
func geluSpecials(b *vb, x, r val) val {
	r = b.blend(b.cmp(cmpEQ, x, b.f32(negInf32)), b.f32(nan32), r)
	r = b.blend(b.cmp(cmpEQ, x, b.f32(posInf32)), x, r)
	return b.blend(b.isNaN(x), x, r)
}

// trigLimit bounds the arguments sin and cos reduce in float64 (k·π/2 with
// k < 2^27 keeps the reduction's error far below float32 precision); larger
// ones are left in place for the Go side to finish (see Sin).
const trigLimit = 0x1p28

// pio2Parts splits π/2 into two 24-bit parts and a float64 remainder.
var pio2Parts = func() [3]float64 {
	pi, _, err := big.ParseFloat("1.570796326794896619231321691639751442098584699687552910487472296153908203143104499314017412671058533991074043256641153323546922304775291115862679704064240558725142051350969260552779822311474477465191", 10, 400, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	var parts [3]float64
	rest := new(big.Float).SetPrec(400).Set(pi)
	for i := 0; i < 2; i++ {
		f, _ := rest.Float64()
		parts[i] = float64(float32(f))
		rest.Sub(rest, new(big.Float).SetFloat64(parts[i]))
	}
	parts[2], _ = rest.Float64()
	return parts
}()

// sinCosHalf computes sin (cos false) or cos of float64 lanes x, |x| < trigLimit.
func sinCosHalf(b *vb, x val, cos bool) val {
	k := b.round(b.mul(x, b.f64(2/math.Pi)), roundNearest)
	// x − k·π/2 in three steps: π/2 = p1 + p2 + p3 with p1 and p2 of 24
	// bits, so that k·p1 and k·p2 (k < 2^29) and the first two differences
	// are exact; only the last step rounds.
	r := b.fnma(k, b.f64(pio2Parts[0]), x)
	r = b.fnma(k, b.f64(pio2Parts[1]), r)
	r = b.fnma(k, b.f64(pio2Parts[2]), r)
	// quadrant q = k mod 4
	q := b.sub(k, b.mul(b.round(b.mul(k, b.f64(0.25)), roundFloor), b.f64(4)))
	rr := b.mul(r, r)
	// Taylor series, ample for |r| ≤ π/4 at float64 precision ~1e-13.
	sc := make([]float64, 7)
	cc := make([]float64, 8)
	fact := 1.0
	for i := 1; i <= 15; i++ {
		fact *= float64(i)
		sign := 1.0
		if (i/2)%2 == 1 {
			sign = -1
		}
		if i%2 == 1 && i/2 < len(sc) {
			sc[i/2] = sign / fact
		} else if i%2 == 0 && i/2 < len(cc) {
			cc[i/2] = sign / fact
		}
	}
	cc[0] = 1
	s := b.mul(r, horner(b, rr, sc...))
	c := horner(b, rr, cc...)
	if cos {
		q = b.add(q, b.f64(1)) // cos x = sin(x + π/2)
		q = b.blend(b.cmp(cmpEQ, q, b.f64(4)), b.f64(0), q)
	}
	odd := b.or(b.cmp(cmpEQ, q, b.f64(1)), b.cmp(cmpEQ, q, b.f64(3)))
	v := b.blend(odd, c, s)
	return b.blend(b.cmp(cmpGE, q, b.f64(2)), b.neg(v), v)
}

// vsinCos is sin or cos in float64, rounded once to float32. Lanes with
// |x| ≥ trigLimit (finite) are left holding x, which no result (in [−1, 1])
// can be, for the caller to finish.
func vsinCos(b *vb, x val, cos bool) val {
	big := b.cmp(cmpGE, b.abs(x), b.f32(trigLimit))
	xr := b.blend(big, b.f32(0), x)
	r := b.pack32(sinCosHalf(b, b.lo64(xr), cos), sinCosHalf(b, b.hi64(xr), cos))
	inf := b.cmp(cmpEQ, b.abs(x), b.f32(posInf32))
	r = b.blend(b.mand(big, b.mnot(inf)), x, r)
	if !cos {
		r = b.blend(b.cmp(cmpEQ, x, b.f32(0)), x, r) // sin(±0) = ±0
	}
	return b.blend(b.or(inf, b.isNaN(x)), b.f32(nan32), r)
}

func vsin(b *vb, x val) val { return vsinCos(b, x, false) }
func vcos(b *vb, x val) val { return vsinCos(b, x, true) }

// log2Half is log2 of float64 lanes m (in [√½, √2)) plus e: 2·atanh(s)/ln 2
// with s = (m−1)/(m+1), |s| ≤ 0.172, series to s^17.
func log2Half(b *vb, m, e val) val {
	f := b.sub(m, b.f64(1))
	s := b.div(f, b.add(f, b.f64(2)))
	ss := b.mul(s, s)
	c := make([]float64, 9)
	for i := range c {
		c[i] = 2 / float64(2*i+1) / math.Ln2
	}
	return b.fma(s, horner(b, ss, c...), e)
}

// exp2Frac is 2^f for float64 lanes |f| ≤ ½: Taylor series of e^(f·ln2) to
// the 11th power (relative error below 1e-12).
func exp2Frac(b *vb, f val) val {
	c := make([]float64, 12)
	fact := 1.0
	for i := range c {
		if i > 0 {
			fact *= float64(i)
		}
		c[i] = math.Pow(math.Ln2, float64(i)) / fact
	}
	return horner(b, f, c...)
}

// vpow is x^y with XLA's (C's) special cases: |x|^y through a float64
// log2, product and exp2, the sign for negative x and odd integer y, NaN
// for negative x and non-integer finite y, 1 for x = 1 or y = 0.
func vpow(b *vb, x, y val) val {
	ax := b.abs(x)
	// ax = 2^e·m, m in [√½, √2), subnormals scaled first.
	sub := b.cmp(cmpLT, ax, b.f32(0x1p-126))
	xs := b.blend(sub, b.mul(ax, b.f32(0x1p23)), ax)
	adj := b.blend(sub, b.f32(-23), b.f32(0))
	ix := b.addi(b.asI32(xs), b.i32(0x3f800000-0x3f3504f3))
	e := b.add(b.cvtif(b.subi(b.shr(ix, 23), b.i32(127))), adj)
	m := b.asF32(b.addi(b.and(ix, b.i32(0x007fffff)), b.i32(0x3f3504f3)))
	// t = y·log2|x| in float64, clamped to where 2^t is finite and non-zero
	// in float32 (an infinite or NaN t passes through as such).
	half := func(lo bool) (k, p val) {
		cv := b.lo64
		if !lo {
			cv = b.hi64
		}
		l := log2Half(b, cv(m), cv(e))
		l = b.blend(b.cmp(cmpEQ, cv(ax), b.f64(0)), b.f64(math.Inf(-1)), l)
		l = b.blend(b.cmp(cmpEQ, cv(ax), b.f64(math.Inf(1))), b.f64(math.Inf(1)), l)
		t := b.mul(cv(y), l)
		t = b.minc(b.maxc(t, b.f64(-160)), b.f64(130))
		k = b.round(t, roundNearest)
		p = exp2Frac(b, b.sub(t, k))
		return k, p
	}
	kl, pl := half(true)
	kh, ph := half(false)
	k := b.pack32(kl, kh)
	p := b.pack32(pl, ph)
	// A NaN t left k and p NaN: keep the NaN out of the integer scale.
	tNaN := b.isNaN(k)
	r := ldexp(b, p, b.blend(tNaN, b.f32(0), k))
	r = b.blend(tNaN, b.f32(nan32), r)
	// Signs and special cases, in increasing precedence.
	yInt := b.mand(b.cmp(cmpEQ, b.round(y, roundTrunc), y), b.cmp(cmpLT, b.abs(y), b.f32(posInf32)))
	yHalf := b.mul(y, b.f32(0.5))
	yOdd := b.mand(yInt, b.cmp(cmpNE, b.round(yHalf, roundTrunc), yHalf))
	negX := b.cmpgt(b.i32(0), b.asI32(x)) // sign bit set, −0 included
	r = b.blend(b.mand(negX, yOdd), b.neg(r), r)
	notInt := b.mand(b.mnot(yInt), b.cmp(cmpLT, b.abs(y), b.f32(posInf32)))
	negFinite := b.mand(b.cmp(cmpLT, x, b.f32(0)), b.cmp(cmpGT, x, b.f32(negInf32)))
	r = b.blend(b.mand(negFinite, notInt), b.f32(nan32), r)
	r = b.blend(b.mand(b.cmp(cmpEQ, ax, b.f32(1)), b.cmp(cmpEQ, b.abs(y), b.f32(posInf32))), b.f32(1), r)
	r = b.blend(b.isNaN(x), x, r)
	one := b.f32(1)
	return b.blend(b.or(b.cmp(cmpEQ, x, one), b.cmp(cmpEQ, y, b.f32(0))), one, r)
}

// vroundAway rounds to the nearest integer, halves away from zero.
func vroundAway(b *vb, x val) val {
	t := b.round(x, roundTrunc)
	d := b.sub(x, t)
	up := b.cmp(cmpGE, b.abs(d), b.f32(0.5))
	return b.blend(up, b.add(t, b.copySign(b.f32(1), x)), t)
}

// vsign is 1 for x > 0, −1 for x < 0, and x itself for ±0 and NaN.
func vsign(b *vb, x val) val {
	r := b.blend(b.cmp(cmpLT, x, b.f32(0)), b.f32(-1), x)
	return b.blend(b.cmp(cmpGT, x, b.f32(0)), b.f32(1), r)
}

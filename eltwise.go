package kiln

import "math"

// Elementwise kernels on float32 slices. Every function writes dst[i] from
// the elements at index i of its operands, for every i; dst may be the same
// slice as an operand (in place) but must not otherwise overlap one. The
// lengths of dst and the operands must be equal: a mismatch is a programmer
// error, and the function panics with a message naming the lengths. No
// function allocates.
//
// The elementary functions are polynomial approximations after a range
// reduction, vectorised; each documents its largest error in units in the
// last place (ULP) of the float32 result, measured against float64 math over
// float32 inputs, and its values at the special inputs. Subnormal inputs and
// results are computed, not flushed to zero.

// unaryNT is unary with a non-temporal variant for large outputs.
func unaryNT(k, knt, twin func(dst, x []float32), lanes int, dst, x []float32) {
	if len(dst) >= ntMinElems {
		h := alignedHead(dst, lanes)
		unary(k, twin, lanes, dst[:h], x[:h])
		dst, x, k = dst[h:], x[h:], knt
	}
	unary(k, twin, lanes, dst, x)
}

// binaryNT is binary with a non-temporal variant for large outputs.
func binaryNT(k, knt, twin func(dst, x, y []float32), lanes int, dst, x, y []float32) {
	if len(dst) >= ntMinElems {
		h := alignedHead(dst, lanes)
		binary(k, twin, lanes, dst[:h], x[:h], y[:h])
		dst, x, y, k = dst[h:], x[h:], y[h:], knt
	}
	binary(k, twin, lanes, dst, x, y)
}

// withScalarNT is withScalar with a non-temporal variant for large outputs.
func withScalarNT(k, knt, twin func(dst, x []float32, s float32), lanes int, dst, x []float32, s float32) {
	if len(dst) >= ntMinElems {
		h := alignedHead(dst, lanes)
		withScalar(k, twin, lanes, dst[:h], x[:h], s)
		dst, x, k = dst[h:], x[h:], knt
	}
	withScalar(k, twin, lanes, dst, x, s)
}

// unary runs a unary kernel: whole vectors in assembly, the rest in Go.
func unary(k func(dst, x []float32), twin func(dst, x []float32), lanes int, dst, x []float32) {
	m := vectorPart(len(dst), lanes)
	if m > 0 {
		k(dst[:m], x[:m])
	}
	if m < len(dst) {
		twin(dst[m:], x[m:])
	}
}

// binary runs a binary kernel: whole vectors in assembly, the rest in Go.
func binary(k func(dst, x, y []float32), twin func(dst, x, y []float32), lanes int, dst, x, y []float32) {
	m := vectorPart(len(dst), lanes)
	if m > 0 {
		k(dst[:m], x[:m], y[:m])
	}
	if m < len(dst) {
		twin(dst[m:], x[m:], y[m:])
	}
}

// withScalar runs a kernel of a slice and a scalar.
func withScalar(k func(dst, x []float32, s float32), twin func(dst, x []float32, s float32), lanes int, dst, x []float32, s float32) {
	m := vectorPart(len(dst), lanes)
	if m > 0 {
		k(dst[:m], x[:m], s)
	}
	if m < len(dst) {
		twin(dst[m:], x[m:], s)
	}
}

// withScalars runs a kernel of a slice and two scalars.
func withScalars(k func(dst, x []float32, a, b float32), twin func(dst, x []float32, a, b float32), lanes int, dst, x []float32, a, b float32) {
	m := vectorPart(len(dst), lanes)
	if m > 0 {
		k(dst[:m], x[:m], a, b)
	}
	if m < len(dst) {
		twin(dst[m:], x[m:], a, b)
	}
}

// Add sets dst[i] = x[i] + y[i].
func Add(dst, x, y []float32) {
	checkLen("Add", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binaryNT(k.addF32, k.addF32NT, addF32Go, k.lanes, dst, x, y)
}

// Sub sets dst[i] = x[i] - y[i].
func Sub(dst, x, y []float32) {
	checkLen("Sub", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binaryNT(k.subF32, k.subF32NT, subF32Go, k.lanes, dst, x, y)
}

// Mul sets dst[i] = x[i] * y[i].
func Mul(dst, x, y []float32) {
	checkLen("Mul", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binaryNT(k.mulF32, k.mulF32NT, mulF32Go, k.lanes, dst, x, y)
}

// Div sets dst[i] = x[i] / y[i].
func Div(dst, x, y []float32) {
	checkLen("Div", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binaryNT(k.divF32, k.divF32NT, divF32Go, k.lanes, dst, x, y)
}

// Maximum sets dst[i] = max(x[i], y[i]), XLA's maximum (Max is the reduction).
// XLA's maximum: NaN if either operand is NaN, and -0 < +0.
func Maximum(dst, x, y []float32) {
	checkLen("Maximum", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binary(k.maxF32, maxF32Go, k.lanes, dst, x, y)
}

// Minimum sets dst[i] = min(x[i], y[i]), XLA's minimum (Min is the reduction).
// XLA's minimum: NaN if either operand is NaN, and -0 < +0.
func Minimum(dst, x, y []float32) {
	checkLen("Minimum", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binary(k.minF32, minF32Go, k.lanes, dst, x, y)
}

// Pow sets dst[i] = x[i]^y[i].
// XLA's (and C's) special cases: 1 when x[i] is 1 or y[i] is 0 (even NaN);
// NaN for a finite negative x[i] and a finite non-integer y[i]; a negative
// x[i] with an odd integer y[i] keeps its sign; ±0 and ±Inf follow C's pow
// (0^negative = +Inf, Inf^negative = +0, x^±Inf by |x| against 1, and
// (-1)^±Inf = 1). |x|^y is exp2(y·log2|x|) in float64, rounded once to
// float32 after the scaling by 2^n: within 1 ULP (0.5 plus the float64
// error) for normal results, subnormal results rounded twice.
func Pow(dst, x, y []float32) {
	checkLen("Pow", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binary(k.powF32, powF32Go, k.lanes, dst, x, y)
}

// AddScalar sets dst[i] = x[i] + s.
func AddScalar(dst, x []float32, s float32) {
	checkLen("AddScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalarNT(k.addScalarF32, k.addScalarF32NT, addScalarF32Go, k.lanes, dst, x, s)
}

// SubScalar sets dst[i] = x[i] - s.
// RSubScalar is the reverse order.
func SubScalar(dst, x []float32, s float32) {
	checkLen("SubScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalar(k.subScalarF32, subScalarF32Go, k.lanes, dst, x, s)
}

// RSubScalar sets dst[i] = s - x[i].
// This is SubScalar with the operands reversed.
func RSubScalar(dst, x []float32, s float32) {
	checkLen("RSubScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalar(k.rsubScalarF32, rsubScalarF32Go, k.lanes, dst, x, s)
}

// MulScalar sets dst[i] = x[i] * s.
func MulScalar(dst, x []float32, s float32) {
	checkLen("MulScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalarNT(k.mulScalarF32, k.mulScalarF32NT, mulScalarF32Go, k.lanes, dst, x, s)
}

// DivScalar sets dst[i] = x[i] / s.
// RDivScalar is the reverse order.
func DivScalar(dst, x []float32, s float32) {
	checkLen("DivScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalar(k.divScalarF32, divScalarF32Go, k.lanes, dst, x, s)
}

// RDivScalar sets dst[i] = s / x[i].
// This is DivScalar with the operands reversed.
func RDivScalar(dst, x []float32, s float32) {
	checkLen("RDivScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalar(k.rdivScalarF32, rdivScalarF32Go, k.lanes, dst, x, s)
}

// MaximumScalar sets dst[i] = max(x[i], s).
// With Maximum's (XLA's) semantics.
func MaximumScalar(dst, x []float32, s float32) {
	checkLen("MaximumScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalar(k.maxScalarF32, maxScalarF32Go, k.lanes, dst, x, s)
}

// MinimumScalar sets dst[i] = min(x[i], s).
// With Minimum's (XLA's) semantics.
func MinimumScalar(dst, x []float32, s float32) {
	checkLen("MinimumScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalar(k.minScalarF32, minScalarF32Go, k.lanes, dst, x, s)
}

// PowScalar sets dst[i] = x[i]^s.
// With Pow's semantics and error bound. RPowScalar is the reverse order.
func PowScalar(dst, x []float32, s float32) {
	checkLen("PowScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalar(k.powScalarF32, powScalarF32Go, k.lanes, dst, x, s)
}

// RPowScalar sets dst[i] = s^x[i].
// This is PowScalar with the operands reversed.
func RPowScalar(dst, x []float32, s float32) {
	checkLen("RPowScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalar(k.rpowScalarF32, rpowScalarF32Go, k.lanes, dst, x, s)
}

// Neg sets dst[i] = -x[i].
// The sign bit flips, NaN included.
func Neg(dst, x []float32) {
	checkLen("Neg", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.negF32, negF32Go, k.lanes, dst, x)
}

// Abs sets dst[i] = |x[i]|.
// The sign bit clears, NaN included.
func Abs(dst, x []float32) {
	checkLen("Abs", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.absF32, absF32Go, k.lanes, dst, x)
}

// Sqrt sets dst[i] to the square root of x[i].
// Correctly rounded; sqrt(-0) = -0, NaN below 0.
func Sqrt(dst, x []float32) {
	checkLen("Sqrt", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.sqrtF32, sqrtF32Go, k.lanes, dst, x)
}

// Rsqrt sets dst[i] = 1/sqrt(x[i]).
// 1/sqrt(x[i]) from two correctly rounded operations: error below 1.5 ULP
// (largest 1.490 over all float32 inputs). +0 gives +Inf, -0 gives -Inf,
// negative numbers and NaN give NaN, +Inf gives +0.
func Rsqrt(dst, x []float32) {
	checkLen("Rsqrt", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.rsqrtF32, rsqrtF32Go, k.lanes, dst, x)
}

// Reciprocal sets dst[i] = 1/x[i].
// Correctly rounded.
func Reciprocal(dst, x []float32) {
	checkLen("Reciprocal", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.reciprocalF32, reciprocalF32Go, k.lanes, dst, x)
}

// Exp sets dst[i] = e^x[i].
// Error below 0.8 ULP (largest 0.794 over all float32 inputs). exp(±0) = 1,
// exp(+Inf) = +Inf, exp(-Inf) = +0, NaN gives NaN. Results overflow to +Inf
// above 88.72283 and are subnormal below -87.33655, rounded once (gradual
// underflow), and 0 below -103.97208.
func Exp(dst, x []float32) {
	checkLen("Exp", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unaryNT(k.expF32, k.expF32NT, expF32Go, k.lanes, dst, x)
}

// Expm1 sets dst[i] = e^x[i] - 1.
// Error below 1.5 ULP (largest 1.443 over all float32 inputs). ±0 gives ±0,
// +Inf gives +Inf, -Inf gives -1, NaN gives NaN; overflow to +Inf above
// 88.72283; below about -17.33 the result rounds to -1. Below |x| = 2^-24
// the result is x itself.
func Expm1(dst, x []float32) {
	checkLen("Expm1", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.expm1F32, expm1F32Go, k.lanes, dst, x)
}

// Log sets dst[i] to the natural logarithm of x[i].
// Error below 0.85 ULP (largest 0.827 over all float32 inputs). ±0 gives
// -Inf, negative numbers and NaN give NaN, +Inf gives +Inf; subnormal inputs
// are scaled into the normal range first, so they are as accurate.
func Log(dst, x []float32) {
	checkLen("Log", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.logF32, logF32Go, k.lanes, dst, x)
}

// Log1p sets dst[i] = ln(1 + x[i]).
// Error below 1.3 ULP. Below |x| = 2^-10 it is the series x - x²/2 + x³/3,
// above log(u) + (x - (u-1))/u for u = 1 + x rounded. ±0 gives ±0, -1 gives
// -Inf, below -1 and NaN give NaN, +Inf gives +Inf.
func Log1p(dst, x []float32) {
	checkLen("Log1p", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.log1pF32, log1pF32Go, k.lanes, dst, x)
}

// Tanh sets dst[i] = tanh(x[i]).
// Error below 1.5 ULP. ±0 gives ±0, ±Inf gives ±1, NaN gives NaN; from
// |x| = 9 on the result is ±1. Below |x| = 0.625 it is a polynomial in x,
// above (e^2|x| - 1)/(e^2|x| + 1), so there is no cancellation anywhere.
func Tanh(dst, x []float32) {
	checkLen("Tanh", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.tanhF32, tanhF32Go, k.lanes, dst, x)
}

// Logistic sets dst[i] = 1/(1 + e^-x[i]).
// Error below 2.5 ULP. 0 gives 0.5, +Inf gives 1, -Inf gives +0, NaN gives
// NaN. With e = e^-|x|, the result is 1/(1+e) for x >= 0 and e/(1+e) below,
// so that nothing overflows and results below about 1.2e-38 (x < -87.3) are
// subnormal, rounded once from e.
func Logistic(dst, x []float32) {
	checkLen("Logistic", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.logisticF32, logisticF32Go, k.lanes, dst, x)
}

// SiLU sets dst[i] = x[i]·logistic(x[i]) = x[i]/(1 + e^-x[i]) (the SiLU or
// swish activation). Error below 3 ULP (largest found 2.73). With
// e = e^-|x| = p·2^n it is x/(1+e) for x >= 0 and (x·p/(1+e))·2^n below,
// the power of two applied last, so that results whose logistic is
// subnormal keep their precision and subnormal results are rounded once.
// ±0 gives ±0, +Inf gives +Inf, -Inf gives NaN (-Inf·0, as the formula
// gives), NaN gives NaN; below about -103 the result is -0.
func SiLU(dst, x []float32) {
	checkLen("SiLU", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.siluF32, siluF32Go, k.lanes, dst, x)
}

// Erf sets dst[i] to the error function of x[i].
// Error below 1.5 ULP. ±0 gives ±0, ±Inf gives ±1, NaN gives NaN; from
// |x| = 3.92 on the result is ±1. Below |x| = 1 it is the Taylor series,
// above 1 - erfc(|x|) with erfc(z) = t·e^(-z²+P(t)), t = 1/(1+z/2) (a
// refit of Numerical Recipes' form, see gen/vmath.go), the sum -z²+P(t)
// carried with its rounding error.
func Erf(dst, x []float32) {
	checkLen("Erf", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.erfF32, erfF32Go, k.lanes, dst, x)
}

// Gelu sets dst[i] = x[i]·Φ(x[i]), where Φ is the standard normal
// distribution function (GELU in its exact, erf form).
// Error below 0.8 ULP. It is computed in float64 lanes as x/2·erfc(-x/√2):
// with z = |x|/√2 and erfc(z) = t·e^(-z²+P(t)), t = 1/(1+z/2) (a refit of
// Numerical Recipes' form, relative error 2.7e-9, see gen/vmath.go), the
// result is x/2·erfc(z) below 0 and x·(1 - erfc(z)/2) above, rounded once
// to float32 — below 0 its power of two is applied after the rounding of the
// mantissa, so that tiny results are rounded once too. There is no
// cancellation for negative x, unlike the textbook 0.5·x·(1 + erf(x/√2)).
// ±0 gives ±0, +Inf gives +Inf, -Inf gives NaN (-Inf·0, as XLA computes
// the formula), NaN gives NaN; below about -14 the result is -0.
func Gelu(dst, x []float32) {
	checkLen("Gelu", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.geluF32, geluF32Go, k.lanes, dst, x)
}

// GeluTanh sets dst[i] to x/2·(1 + tanh(sqrt(2/π)·(x + 0.044715·x³))) at x = x[i] (GELU's tanh approximation).
// Error below 4 ULP against that formula evaluated exactly. It is computed
// as x/(1 + e^-z), z = 2·sqrt(2/π)·(x + 0.044715·x³), with z formed in
// float64 and passed on as two float32, so that z's rounding error does not
// become relative error of the result for negative x, and with e^-|z| as in
// Logistic. ±0 gives ±0, +Inf gives +Inf, -Inf gives NaN (-Inf·0, as XLA
// computes the formula), NaN gives NaN; below x = -10.8 the result is -0.
func GeluTanh(dst, x []float32) {
	checkLen("GeluTanh", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.geluTanhF32, geluTanhF32Go, k.lanes, dst, x)
}

// Floor sets dst[i] to the largest integer not above x[i].
// Exact; ±0, ±Inf and NaN are kept.
func Floor(dst, x []float32) {
	checkLen("Floor", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.floorF32, floorF32Go, k.lanes, dst, x)
}

// Ceil sets dst[i] to the smallest integer not below x[i].
// Exact; ±0, ±Inf and NaN are kept (ceil(-0.5) = -0).
func Ceil(dst, x []float32) {
	checkLen("Ceil", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.ceilF32, ceilF32Go, k.lanes, dst, x)
}

// RoundToEven sets dst[i] to x[i] rounded to the nearest integer, ties to even (XLA's round-nearest-even).
// Exact; the sign of zero is kept.
func RoundToEven(dst, x []float32) {
	checkLen("RoundToEven", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.roundToEvenF32, roundToEvenF32Go, k.lanes, dst, x)
}

// Round sets dst[i] to x[i] rounded to the nearest integer, ties away from zero (XLA's round-nearest-afz).
// Exact; the sign of zero is kept.
func Round(dst, x []float32) {
	checkLen("Round", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.roundF32, roundF32Go, k.lanes, dst, x)
}

// Sign sets dst[i] to the sign of x[i]: 1 above 0, -1 below 0, and x[i] itself for ±0 and NaN.
func Sign(dst, x []float32) {
	checkLen("Sign", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.signF32, signF32Go, k.lanes, dst, x)
}

// Relu sets dst[i] = max(x[i], 0).
// With Maximum's (XLA's) semantics: Relu(-0) = +0, NaN is kept.
func Relu(dst, x []float32) {
	checkLen("Relu", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.reluF32, reluF32Go, k.lanes, dst, x)
}

// Clamp sets dst[i] = min(max(x[i], lo), hi), XLA's clamp: with Maximum's and
// Minimum's semantics, so a NaN x[i], lo or hi gives NaN.
func Clamp(dst, x []float32, lo, hi float32) {
	checkLen("Clamp", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalars(k.clampF32, clampF32Go, k.lanes, dst, x, lo, hi)
}

// MulAddScalars sets dst[i] = x[i]*a + b, rounded once (a fused multiply-add).
func MulAddScalars(dst, x []float32, a, b float32) {
	checkLen("MulAddScalars", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	withScalars(k.mulAddScalarsF32, mulAddScalarsF32Go, k.lanes, dst, x, a, b)
}

// MulAdd sets dst[i] = x[i]*y[i] + z[i], rounded once (a fused multiply-add).
func MulAdd(dst, x, y, z []float32) {
	checkLen("MulAdd", "dst, x, y, z", len(dst), len(x), len(y), len(z))
	k := kernels().eltwise
	kern := k.mulAddF32
	if len(dst) >= ntMinElems {
		h := alignedHead(dst, k.lanes)
		mulAddF32Go(dst[:h], x[:h], y[:h], z[:h])
		dst, x, y, z, kern = dst[h:], x[h:], y[h:], z[h:], k.mulAddF32NT
	}
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		kern(dst[:m], x[:m], y[:m], z[:m])
	}
	if m < len(dst) {
		mulAddF32Go(dst[m:], x[m:], y[m:], z[m:])
	}
}

// MulScalarAdd sets dst[i] = x[i]*s + y[i], rounded once (a fused
// multiply-add; BLAS's axpy when dst is y).
func MulScalarAdd(dst, x []float32, s float32, y []float32) {
	checkLen("MulScalarAdd", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	kern := k.mulScalarAddF32
	if len(dst) >= ntMinElems {
		h := alignedHead(dst, k.lanes)
		mulScalarAddF32Go(dst[:h], x[:h], s, y[:h])
		dst, x, y, kern = dst[h:], x[h:], y[h:], k.mulScalarAddF32NT
	}
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		kern(dst[:m], x[:m], s, y[:m])
	}
	if m < len(dst) {
		mulScalarAddF32Go(dst[m:], x[m:], s, y[m:])
	}
}

// Sin sets dst[i] = sin(x[i]).
// Correctly rounded or within 0.5 ULP plus 2^-30 (largest error found 0.5):
// the argument is reduced by π/2 in float64 (exact for |x| < 2^28) and the
// Taylor series evaluated in float64, rounded once. Elements with
// |x| >= 2^28 are finished by Go's math.Sin (Payne–Hanek reduction).
// ±0 gives ±0, ±Inf and NaN give NaN.
func Sin(dst, x []float32) {
	checkLen("Sin", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.sinCoreF32, sinCoreF32Go, k.lanes, dst, x)
	finishTrig(dst, math.Sin)
}

// Cos sets dst[i] = cos(x[i]).
// Accurate as Sin. cos(±0) = 1, ±Inf and NaN give NaN.
func Cos(dst, x []float32) {
	checkLen("Cos", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	unary(k.cosCoreF32, cosCoreF32Go, k.lanes, dst, x)
	finishTrig(dst, math.Cos)
}

// finishTrig computes the elements the kernels left holding their argument
// (|x| ≥ 2^28, beyond their float64 reduction): the only values outside
// [-1, 1] a result can hold. Go's math reduces those exactly (Payne–Hanek).
// A vector pass finds whether there are any.
func finishTrig(dst []float32, f func(float64) float64) {
	if m := maxAbs(dst); m <= 1 {
		return
	}
	for i, v := range dst {
		if v > 1 || v < -1 {
			dst[i] = float32(f(float64(v)))
		}
	}
}

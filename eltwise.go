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
	k := eltwise()
	binary(k.addF32, addF32Go, k.lanes, dst, x, y)
}

// Sub sets dst[i] = x[i] - y[i].
func Sub(dst, x, y []float32) {
	checkLen("Sub", "dst, x, y", len(dst), len(x), len(y))
	k := eltwise()
	binary(k.subF32, subF32Go, k.lanes, dst, x, y)
}

// Mul sets dst[i] = x[i] * y[i].
func Mul(dst, x, y []float32) {
	checkLen("Mul", "dst, x, y", len(dst), len(x), len(y))
	k := eltwise()
	binary(k.mulF32, mulF32Go, k.lanes, dst, x, y)
}

// Div sets dst[i] = x[i] / y[i].
func Div(dst, x, y []float32) {
	checkLen("Div", "dst, x, y", len(dst), len(x), len(y))
	k := eltwise()
	binary(k.divF32, divF32Go, k.lanes, dst, x, y)
}

// Maximum sets dst[i] = max(x[i], y[i]), XLA's maximum (Max is the reduction).
// XLA's maximum: NaN if either operand is NaN, and -0 < +0.
func Maximum(dst, x, y []float32) {
	checkLen("Maximum", "dst, x, y", len(dst), len(x), len(y))
	k := eltwise()
	binary(k.maxF32, maxF32Go, k.lanes, dst, x, y)
}

// Minimum sets dst[i] = min(x[i], y[i]), XLA's minimum (Min is the reduction).
// XLA's minimum: NaN if either operand is NaN, and -0 < +0.
func Minimum(dst, x, y []float32) {
	checkLen("Minimum", "dst, x, y", len(dst), len(x), len(y))
	k := eltwise()
	binary(k.minF32, minF32Go, k.lanes, dst, x, y)
}

// Pow sets dst[i] = x[i]^y[i].
// POWDOC
func Pow(dst, x, y []float32) {
	checkLen("Pow", "dst, x, y", len(dst), len(x), len(y))
	k := eltwise()
	binary(k.powF32, powF32Go, k.lanes, dst, x, y)
}

// AddScalar sets dst[i] = x[i] + s.
func AddScalar(dst, x []float32, s float32) {
	checkLen("AddScalar", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalar(k.addScalarF32, addScalarF32Go, k.lanes, dst, x, s)
}

// SubScalar sets dst[i] = x[i] - s.
// RSubScalar is the reverse order.
func SubScalar(dst, x []float32, s float32) {
	checkLen("SubScalar", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalar(k.subScalarF32, subScalarF32Go, k.lanes, dst, x, s)
}

// RSubScalar sets dst[i] = s - x[i].
// This is SubScalar with the operands reversed.
func RSubScalar(dst, x []float32, s float32) {
	checkLen("RSubScalar", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalar(k.rsubScalarF32, rsubScalarF32Go, k.lanes, dst, x, s)
}

// MulScalar sets dst[i] = x[i] * s.
func MulScalar(dst, x []float32, s float32) {
	checkLen("MulScalar", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalar(k.mulScalarF32, mulScalarF32Go, k.lanes, dst, x, s)
}

// DivScalar sets dst[i] = x[i] / s.
// RDivScalar is the reverse order.
func DivScalar(dst, x []float32, s float32) {
	checkLen("DivScalar", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalar(k.divScalarF32, divScalarF32Go, k.lanes, dst, x, s)
}

// RDivScalar sets dst[i] = s / x[i].
// This is DivScalar with the operands reversed.
func RDivScalar(dst, x []float32, s float32) {
	checkLen("RDivScalar", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalar(k.rdivScalarF32, rdivScalarF32Go, k.lanes, dst, x, s)
}

// MaximumScalar sets dst[i] = max(x[i], s).
// With Maximum's (XLA's) semantics.
func MaximumScalar(dst, x []float32, s float32) {
	checkLen("MaximumScalar", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalar(k.maxScalarF32, maxScalarF32Go, k.lanes, dst, x, s)
}

// MinimumScalar sets dst[i] = min(x[i], s).
// With Minimum's (XLA's) semantics.
func MinimumScalar(dst, x []float32, s float32) {
	checkLen("MinimumScalar", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalar(k.minScalarF32, minScalarF32Go, k.lanes, dst, x, s)
}

// PowScalar sets dst[i] = x[i]^s.
// With Pow's semantics and error bound. RPowScalar is the reverse order.
func PowScalar(dst, x []float32, s float32) {
	checkLen("PowScalar", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalar(k.powScalarF32, powScalarF32Go, k.lanes, dst, x, s)
}

// RPowScalar sets dst[i] = s^x[i].
// This is PowScalar with the operands reversed.
func RPowScalar(dst, x []float32, s float32) {
	checkLen("RPowScalar", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalar(k.rpowScalarF32, rpowScalarF32Go, k.lanes, dst, x, s)
}

// Neg sets dst[i] = -x[i].
// The sign bit flips, NaN included.
func Neg(dst, x []float32) {
	checkLen("Neg", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.negF32, negF32Go, k.lanes, dst, x)
}

// Abs sets dst[i] = |x[i]|.
// The sign bit clears, NaN included.
func Abs(dst, x []float32) {
	checkLen("Abs", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.absF32, absF32Go, k.lanes, dst, x)
}

// Sqrt sets dst[i] to the square root of x[i].
// Correctly rounded; sqrt(-0) = -0, NaN below 0.
func Sqrt(dst, x []float32) {
	checkLen("Sqrt", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.sqrtF32, sqrtF32Go, k.lanes, dst, x)
}

// Rsqrt sets dst[i] = 1/sqrt(x[i]).
// It is the quotient of two correctly rounded operations, within 1 ULP; +Inf at +0, -Inf at -0, NaN below 0, 0 at +Inf.
func Rsqrt(dst, x []float32) {
	checkLen("Rsqrt", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.rsqrtF32, rsqrtF32Go, k.lanes, dst, x)
}

// Reciprocal sets dst[i] = 1/x[i].
// Correctly rounded.
func Reciprocal(dst, x []float32) {
	checkLen("Reciprocal", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.reciprocalF32, reciprocalF32Go, k.lanes, dst, x)
}

// Exp sets dst[i] = e^x[i].
// EXPDOC
func Exp(dst, x []float32) {
	checkLen("Exp", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.expF32, expF32Go, k.lanes, dst, x)
}

// Expm1 sets dst[i] = e^x[i] - 1.
// EXPM1DOC
func Expm1(dst, x []float32) {
	checkLen("Expm1", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.expm1F32, expm1F32Go, k.lanes, dst, x)
}

// Log sets dst[i] to the natural logarithm of x[i].
// LOGDOC
func Log(dst, x []float32) {
	checkLen("Log", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.logF32, logF32Go, k.lanes, dst, x)
}

// Log1p sets dst[i] = ln(1 + x[i]).
// LOG1PDOC
func Log1p(dst, x []float32) {
	checkLen("Log1p", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.log1pF32, log1pF32Go, k.lanes, dst, x)
}

// Tanh sets dst[i] = tanh(x[i]).
// TANHDOC
func Tanh(dst, x []float32) {
	checkLen("Tanh", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.tanhF32, tanhF32Go, k.lanes, dst, x)
}

// Logistic sets dst[i] = 1/(1 + e^-x[i]).
// LOGISTICDOC
func Logistic(dst, x []float32) {
	checkLen("Logistic", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.logisticF32, logisticF32Go, k.lanes, dst, x)
}

// Erf sets dst[i] to the error function of x[i].
// ERFDOC
func Erf(dst, x []float32) {
	checkLen("Erf", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.erfF32, erfF32Go, k.lanes, dst, x)
}

// Gelu sets dst[i] = x[i]·Φ(x[i]), where Φ is the standard normal distribution function (GELU in its exact, erf form).
// GELUDOC
func Gelu(dst, x []float32) {
	checkLen("Gelu", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.geluF32, geluF32Go, k.lanes, dst, x)
}

// GeluTanh sets dst[i] to x/2·(1 + tanh(sqrt(2/π)·(x + 0.044715·x³))) at x = x[i] (GELU's tanh approximation).
// GELUTANHDOC
func GeluTanh(dst, x []float32) {
	checkLen("GeluTanh", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.geluTanhF32, geluTanhF32Go, k.lanes, dst, x)
}

// Floor sets dst[i] to the largest integer not above x[i].
// Exact; ±0, ±Inf and NaN are kept.
func Floor(dst, x []float32) {
	checkLen("Floor", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.floorF32, floorF32Go, k.lanes, dst, x)
}

// Ceil sets dst[i] to the smallest integer not below x[i].
// Exact; ±0, ±Inf and NaN are kept (ceil(-0.5) = -0).
func Ceil(dst, x []float32) {
	checkLen("Ceil", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.ceilF32, ceilF32Go, k.lanes, dst, x)
}

// RoundToEven sets dst[i] to x[i] rounded to the nearest integer, ties to even (XLA's round-nearest-even).
// Exact; the sign of zero is kept.
func RoundToEven(dst, x []float32) {
	checkLen("RoundToEven", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.roundToEvenF32, roundToEvenF32Go, k.lanes, dst, x)
}

// Round sets dst[i] to x[i] rounded to the nearest integer, ties away from zero (XLA's round-nearest-afz).
// Exact; the sign of zero is kept.
func Round(dst, x []float32) {
	checkLen("Round", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.roundF32, roundF32Go, k.lanes, dst, x)
}

// Sign sets dst[i] to the sign of x[i]: 1 above 0, -1 below 0, and x[i] itself for ±0 and NaN.
func Sign(dst, x []float32) {
	checkLen("Sign", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.signF32, signF32Go, k.lanes, dst, x)
}

// Relu sets dst[i] = max(x[i], 0).
// With Maximum's (XLA's) semantics: Relu(-0) = +0, NaN is kept.
func Relu(dst, x []float32) {
	checkLen("Relu", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.reluF32, reluF32Go, k.lanes, dst, x)
}

// Clamp sets dst[i] = min(max(x[i], lo), hi), XLA's clamp: with Maximum's and
// Minimum's semantics, so a NaN x[i], lo or hi gives NaN.
func Clamp(dst, x []float32, lo, hi float32) {
	checkLen("Clamp", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalars(k.clampF32, clampF32Go, k.lanes, dst, x, lo, hi)
}

// MulAddScalars sets dst[i] = x[i]*a + b, rounded once (a fused multiply-add).
func MulAddScalars(dst, x []float32, a, b float32) {
	checkLen("MulAddScalars", "dst, x", len(dst), len(x))
	k := eltwise()
	withScalars(k.mulAddScalarsF32, mulAddScalarsF32Go, k.lanes, dst, x, a, b)
}

// MulAdd sets dst[i] = x[i]*y[i] + z[i], rounded once (a fused multiply-add).
func MulAdd(dst, x, y, z []float32) {
	checkLen("MulAdd", "dst, x, y, z", len(dst), len(x), len(y), len(z))
	k := eltwise()
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		k.mulAddF32(dst[:m], x[:m], y[:m], z[:m])
	}
	if m < len(dst) {
		mulAddF32Go(dst[m:], x[m:], y[m:], z[m:])
	}
}

// MulScalarAdd sets dst[i] = x[i]*s + y[i], rounded once (a fused
// multiply-add; BLAS's axpy when dst is y).
func MulScalarAdd(dst, x []float32, s float32, y []float32) {
	checkLen("MulScalarAdd", "dst, x, y", len(dst), len(x), len(y))
	k := eltwise()
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		k.mulScalarAddF32(dst[:m], x[:m], s, y[:m])
	}
	if m < len(dst) {
		mulScalarAddF32Go(dst[m:], x[m:], s, y[m:])
	}
}

// Sin sets dst[i] = sin(x[i]).
// SINDOC
func Sin(dst, x []float32) {
	checkLen("Sin", "dst, x", len(dst), len(x))
	k := eltwise()
	unary(k.sinCoreF32, sinCoreF32Go, k.lanes, dst, x)
	finishTrig(dst, math.Sin)
}

// Cos sets dst[i] = cos(x[i]).
// COSDOC
func Cos(dst, x []float32) {
	checkLen("Cos", "dst, x", len(dst), len(x))
	k := eltwise()
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

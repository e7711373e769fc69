package kiln

import "math"

// The hyperbolic functions and their inverses, composed from the vector
// kernels of exp, expm1 and log1p: each element's argument to the kernel
// is formed in float64 (no cancellation, rounded once to float32), the
// kernel runs over a chunk of them, and the result is finished in float64
// and rounded once. The rare elements where a float32 intermediate would
// overflow although the result does not (|x| beyond 88.5 for sinh and cosh,
// 2^64 for asinh and acosh) are computed by Go's math in float64.

// hyperChunk is how many elements one pass of a composed kernel holds (on
// the stack).
const hyperChunk = 256

// hyperKernels are the vector kernels a composition calls: the assembly
// ones, or their Go twins.
type hyperKernels struct {
	exp, expm1, log1p func(dst, x []float32)
}

var (
	hyperVector = hyperKernels{exp: Exp, expm1: Expm1, log1p: Log1p}
	hyperTwin   = hyperKernels{exp: expF32Go, expm1: expm1F32Go, log1p: log1pF32Go}
)

// compose runs prep → kernel → finish over x in chunks: prep(x) is the
// kernel's argument, finish(x, k) the result from x and the kernel's value
// k. The kernel runs in place on dst; a copy of the chunk of x (on the
// stack) keeps x's values when dst is x.
func compose(dst, x []float32, kernel func(dst, x []float32), prep func(x float32) float32, finish func(x, k float32) float32) {
	var buf [hyperChunk]float32
	for len(x) > 0 {
		n := min(len(x), hyperChunk)
		in, t := buf[:n], dst[:n]
		copy(in, x[:n])
		for i, v := range in {
			t[i] = prep(v)
		}
		kernel(t, t)
		for i, v := range in {
			t[i] = finish(v, t[i])
		}
		dst, x = dst[n:], x[n:]
	}
}

func absF32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// Sinh sets dst[i] = sinh(x[i]).
// Error below 2.5 ULP (largest 1.808 over every 16th float32). With E = e^|x| − 1 (the expm1 kernel), sinh|x| =
// (E + E/(E+1))/2, which has no cancellation near 0. ±0 gives ±0, ±Inf
// gives ±Inf, NaN gives NaN; overflow to ±Inf beyond |x| = 89.415985.
func Sinh(dst, x []float32) {
	checkLen("Sinh", "dst, x", len(dst), len(x))
	sinhWith(hyperVector, dst, x)
}

func sinhWith(k hyperKernels, dst, x []float32) {
	compose(dst, x, k.expm1, absF32, func(x, e float32) float32 {
		if absF32(x) > 88.5 && !math.IsInf(float64(x), 0) {
			return float32(math.Sinh(float64(x)))
		}
		E := float64(e)
		if math.IsInf(E, 1) {
			return float32(math.Copysign(E, float64(x)))
		}
		return float32(math.Copysign(0.5*(E+E/(E+1)), float64(x)))
	})
}

// Cosh sets dst[i] = cosh(x[i]).
// Error below 1.5 ULP (largest 1.232 over every 16th float32). With e = e^|x| (the exp kernel), cosh x = (e + 1/e)/2.
// ±0 gives 1, ±Inf gives +Inf, NaN gives NaN; overflow to +Inf beyond
// |x| = 89.415985.
func Cosh(dst, x []float32) {
	checkLen("Cosh", "dst, x", len(dst), len(x))
	coshWith(hyperVector, dst, x)
}

func coshWith(k hyperKernels, dst, x []float32) {
	compose(dst, x, k.exp, absF32, func(x, e float32) float32 {
		if absF32(x) > 88.5 && !math.IsInf(float64(x), 0) {
			return float32(math.Cosh(float64(x)))
		}
		E := float64(e)
		return float32(0.5 * (E + 1/E))
	})
}

// Asinh sets dst[i] = asinh(x[i]).
// Error below 2.5 ULP (largest 1.936 over every 16th float32). asinh|x| = log1p(|x| + x²/(1 + √(1+x²))), the argument
// formed in float64 and rounded once, the log1p kernel's error not
// amplified (log1p(u)'s condition number is below 1). ±0 gives ±0, ±Inf
// gives ±Inf, NaN gives NaN.
func Asinh(dst, x []float32) {
	checkLen("Asinh", "dst, x", len(dst), len(x))
	asinhWith(hyperVector, dst, x)
}

func asinhWith(k hyperKernels, dst, x []float32) {
	compose(dst, x, k.log1p, func(x float32) float32 {
		a := float64(absF32(x))
		if math.IsInf(a, 1) {
			return float32(a)
		}
		return float32(a + a*a/(1+math.Sqrt(1+a*a)))
	}, func(x, l float32) float32 {
		if a := absF32(x); a >= 0x1p64 && !math.IsInf(float64(a), 0) {
			return float32(math.Asinh(float64(x)))
		}
		return float32(math.Copysign(float64(l), float64(x)))
	})
}

// Acosh sets dst[i] = acosh(x[i]).
// Error below 2.5 ULP (largest 1.804 over every 16th float32). With t = x − 1, acosh x = log1p(t + √(t(t+2))), the
// argument formed in float64 and rounded once. 1 gives +0, +Inf gives
// +Inf; below 1, -Inf and NaN give NaN.
func Acosh(dst, x []float32) {
	checkLen("Acosh", "dst, x", len(dst), len(x))
	acoshWith(hyperVector, dst, x)
}

func acoshWith(k hyperKernels, dst, x []float32) {
	compose(dst, x, k.log1p, func(x float32) float32 {
		if !(x >= 1) {
			return float32(math.NaN())
		}
		t := float64(x) - 1
		return float32(t + math.Sqrt(t*(t+2)))
	}, func(x, l float32) float32 {
		if x >= 0x1p64 && !math.IsInf(float64(x), 0) {
			return float32(math.Acosh(float64(x)))
		}
		return l
	})
}

// Atanh sets dst[i] = atanh(x[i]).
// Error below 2.5 ULP (largest 1.964 over every 16th float32). atanh|x| = log1p(2|x|/(1−|x|))/2, the argument formed
// in float64 and rounded once. ±0 gives ±0, ±1 gives ±Inf; beyond ±1 and
// NaN give NaN.
func Atanh(dst, x []float32) {
	checkLen("Atanh", "dst, x", len(dst), len(x))
	atanhWith(hyperVector, dst, x)
}

func atanhWith(k hyperKernels, dst, x []float32) {
	compose(dst, x, k.log1p, func(x float32) float32 {
		a := float64(absF32(x))
		return float32(2 * a / (1 - a))
	}, func(x, l float32) float32 {
		return float32(math.Copysign(0.5*float64(l), float64(x)))
	})
}

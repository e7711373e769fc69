package kiln

import (
	"math"
	"math/rand/v2"
)

// fcase describes one float32 → float32 elementwise function for the tests:
// how to call it, its pure-Go twin over a whole slice, its float64
// reference and the largest error allowed against that reference.
type fcase struct {
	name string
	// slices is the number of float32 slice operands; scalars, the number
	// of float32 scalar operands (drawn like the elements).
	slices, scalars int
	fn              func(dst []float32, in [][]float32, s []float32)
	twin            func(dst []float32, in [][]float32, s []float32)
	ref             func(x []float64) float64 // slice operands first, then scalars
	// ulps is the error bound in units in the last place of the result;
	// 0.5 means correctly rounded.
	ulps float64
	// typical draws the operands the function is mostly used on; the tests
	// mix them with special values and random bit patterns.
	typical func(r *rand.Rand) float32
	// zeroSign: a zero result must have the reference's sign.
	zeroSign bool
}

func uniform(lo, hi float32) func(r *rand.Rand) float32 {
	return func(r *rand.Rand) float32 { return lo + (hi-lo)*r.Float32() }
}

// specials are the inputs every function sees.
var specials = []float32{
	0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -0.5, 2, -2, 1.5, -2.5, 3,
	float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001),
	math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
	0x1p-126, -0x1p-126, math.Float32frombits(0x007fffff), math.Float32frombits(0x807fffff),
	88.72284, 88.72283, 89, -87.33655, -103.97208, -104, 0x1p-24, -0x1p-24, 0x1p-25, 1e-10, -1e-10,
	0.34657359, -0.34657359, 9, -9, 10.5, -10.5, 0.625, 1e5, -1e5, 3.92, -3.92, 16777217, 0x1p28, -0x1p28, 1e30, -1e30,
	65504, 65519.99, 65520, 0x1p-14, 0x1p-24, 0x1.8p-25, 2147483520, -2147483648, 2147483648,
}

// operand draws one operand: typical most of the time, else a special
// value or a random bit pattern.
func operand(r *rand.Rand, typical func(r *rand.Rand) float32) float32 {
	switch p := r.IntN(16); {
	case p < 11 && typical != nil:
		return typical(r)
	case p < 13:
		return specials[r.IntN(len(specials))]
	default:
		return math.Float32frombits(r.Uint32())
	}
}

func unaryCase(name string, fn, twin func(dst, x []float32), ref func(float64) float64, ulps float64, typical func(*rand.Rand) float32) fcase {
	return fcase{name: name, slices: 1,
		fn:   func(dst []float32, in [][]float32, _ []float32) { fn(dst, in[0]) },
		twin: func(dst []float32, in [][]float32, _ []float32) { twin(dst, in[0]) },
		ref:  func(x []float64) float64 { return ref(x[0]) }, ulps: ulps, typical: typical, zeroSign: true}
}

func binaryCase(name string, fn, twin func(dst, x, y []float32), ref func(x, y float64) float64, ulps float64, typical func(*rand.Rand) float32) fcase {
	return fcase{name: name, slices: 2,
		fn:   func(dst []float32, in [][]float32, _ []float32) { fn(dst, in[0], in[1]) },
		twin: func(dst []float32, in [][]float32, _ []float32) { twin(dst, in[0], in[1]) },
		ref:  func(x []float64) float64 { return ref(x[0], x[1]) }, ulps: ulps, typical: typical, zeroSign: true}
}

func scalarCase(name string, fn, twin func(dst, x []float32, s float32), ref func(x, s float64) float64, ulps float64, typical func(*rand.Rand) float32) fcase {
	return fcase{name: name, slices: 1, scalars: 1,
		fn:   func(dst []float32, in [][]float32, s []float32) { fn(dst, in[0], s[0]) },
		twin: func(dst []float32, in [][]float32, s []float32) { twin(dst, in[0], s[0]) },
		ref:  func(x []float64) float64 { return ref(x[0], x[1]) }, ulps: ulps, typical: typical, zeroSign: true}
}

// powRef is XLA's power: 1 when x is 1 or y is 0, else C's pow.
func powRef(x, y float64) float64 {
	if x == 1 || y == 0 {
		return 1
	}
	return math.Pow(x, y)
}

func signRef(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x
}

// geluRef is x·Φ(x) in float64; at -Inf, NaN, as XLA's formula
// x/2·(1 + erf(x/√2)) gives (-Inf·0).
func geluRef(x float64) float64 {
	if math.IsInf(x, -1) {
		return math.NaN()
	}
	return x * 0.5 * math.Erfc(-x/math.Sqrt2)
}

// geluTanhRef is x/(1 + e^−z), z = 2√(2/π)(x + 0.044715x³): the tanh form
// without its cancellation, in float64.
func geluTanhRef(x float64) float64 {
	switch {
	case math.IsInf(x, -1):
		return math.NaN() // -Inf·0 in XLA's formula
	case math.IsInf(x, 1):
		return x
	}
	z := 2 * math.Sqrt(2/math.Pi) * (x + 0.044715*x*x*x)
	if z >= 0 {
		return x / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return x * e / (1 + e)
}

func logisticRef(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Error bounds of the elementary functions, in ULPs, as their doc comments
// state them (measured over every float32 input, see TestULPSweep).
const (
	ulpExp      = 0.8
	ulpExpm1    = 1.5
	ulpLog      = 0.85
	ulpLog1p    = 1.3
	ulpTanh     = 1.5
	ulpLogistic = 2.5
	ulpSiLU     = 3
	ulpErf      = 1.5
	ulpGelu     = 0.8
	ulpGeluFast = 6
	ulpGeluTanh = 4
	ulpSinCos   = 0.5 + 0x1p-20
	ulpPow      = 1
	ulpRsqrt    = 1.5
	ulpHyper    = 2.5 // Sinh, Asinh, Acosh, Atanh
	ulpCosh     = 1.5
)

func add64(x, y float64) float64 { return x + y }
func sub64(x, y float64) float64 { return x - y }
func mul64(x, y float64) float64 { return x * y }
func div64(x, y float64) float64 { return x / y }

// floatCases lists every float32 → float32 elementwise function.
func floatCases() []fcase {
	wide := uniform(-100, 100)
	return []fcase{
		binaryCase("Add", Add, addF32Go, add64, 0.5, wide),
		binaryCase("Sub", Sub, subF32Go, sub64, 0.5, wide),
		binaryCase("Mul", Mul, mulF32Go, mul64, 0.5, wide),
		binaryCase("Div", Div, divF32Go, div64, 0.5, wide),
		binaryCase("Maximum", Maximum, maxF32Go, maxXLA64, 0.5, wide),
		binaryCase("Minimum", Minimum, minF32Go, minXLA64, 0.5, wide),
		binaryCase("Pow", Pow, powF32Go, powRef, ulpPow, uniform(-8, 8)),
		scalarCase("AddScalar", AddScalar, addScalarF32Go, add64, 0.5, wide),
		scalarCase("SubScalar", SubScalar, subScalarF32Go, sub64, 0.5, wide),
		scalarCase("RSubScalar", RSubScalar, rsubScalarF32Go, func(x, s float64) float64 { return s - x }, 0.5, wide),
		scalarCase("MulScalar", MulScalar, mulScalarF32Go, mul64, 0.5, wide),
		scalarCase("DivScalar", DivScalar, divScalarF32Go, div64, 0.5, wide),
		scalarCase("RDivScalar", RDivScalar, rdivScalarF32Go, func(x, s float64) float64 { return s / x }, 0.5, wide),
		scalarCase("MaximumScalar", MaximumScalar, maxScalarF32Go, maxXLA64, 0.5, wide),
		scalarCase("MinimumScalar", MinimumScalar, minScalarF32Go, minXLA64, 0.5, wide),
		scalarCase("PowScalar", PowScalar, powScalarF32Go, powRef, ulpPow, uniform(-8, 8)),
		scalarCase("RPowScalar", RPowScalar, rpowScalarF32Go, func(x, s float64) float64 { return powRef(s, x) }, ulpPow, uniform(-8, 8)),
		{name: "Clamp", slices: 1, scalars: 2,
			fn:   func(dst []float32, in [][]float32, s []float32) { Clamp(dst, in[0], s[0], s[1]) },
			twin: func(dst []float32, in [][]float32, s []float32) { clampF32Go(dst, in[0], s[0], s[1]) },
			ref:  func(x []float64) float64 { return minXLA64(maxXLA64(x[0], x[1]), x[2]) }, ulps: 0.5, typical: wide, zeroSign: true},
		{name: "MulAddScalars", slices: 1, scalars: 2,
			fn:   func(dst []float32, in [][]float32, s []float32) { MulAddScalars(dst, in[0], s[0], s[1]) },
			twin: func(dst []float32, in [][]float32, s []float32) { mulAddScalarsF32Go(dst, in[0], s[0], s[1]) },
			ref:  func(x []float64) float64 { return math.FMA(x[0], x[1], x[2]) }, ulps: 0.5, typical: wide},
		{name: "MulAdd", slices: 3,
			fn:   func(dst []float32, in [][]float32, _ []float32) { MulAdd(dst, in[0], in[1], in[2]) },
			twin: func(dst []float32, in [][]float32, _ []float32) { mulAddF32Go(dst, in[0], in[1], in[2]) },
			ref:  func(x []float64) float64 { return math.FMA(x[0], x[1], x[2]) }, ulps: 0.5, typical: wide},
		{name: "MulScalarAdd", slices: 2, scalars: 1,
			fn:   func(dst []float32, in [][]float32, s []float32) { MulScalarAdd(dst, in[0], s[0], in[1]) },
			twin: func(dst []float32, in [][]float32, s []float32) { mulScalarAddF32Go(dst, in[0], s[0], in[1]) },
			ref:  func(x []float64) float64 { return math.FMA(x[0], x[2], x[1]) }, ulps: 0.5, typical: wide},

		unaryCase("Neg", Neg, negF32Go, func(x float64) float64 { return -x }, 0.5, wide),
		unaryCase("Abs", Abs, absF32Go, math.Abs, 0.5, wide),
		unaryCase("Sqrt", Sqrt, sqrtF32Go, math.Sqrt, 0.5, uniform(0, 100)),
		unaryCase("Rsqrt", Rsqrt, rsqrtF32Go, func(x float64) float64 { return 1 / math.Sqrt(x) }, ulpRsqrt, uniform(0, 100)),
		unaryCase("Reciprocal", Reciprocal, reciprocalF32Go, func(x float64) float64 { return 1 / x }, 0.5, wide),
		unaryCase("Exp", Exp, expF32Go, math.Exp, ulpExp, uniform(-90, 90)),
		unaryCase("Expm1", Expm1, expm1F32Go, math.Expm1, ulpExpm1, uniform(-5, 5)),
		unaryCase("Log", Log, logF32Go, math.Log, ulpLog, uniform(0, 10)),
		unaryCase("Log1p", Log1p, log1pF32Go, math.Log1p, ulpLog1p, uniform(-1, 5)),
		unaryCase("Tanh", Tanh, tanhF32Go, math.Tanh, ulpTanh, uniform(-10, 10)),
		unaryCase("Logistic", Logistic, logisticF32Go, logisticRef, ulpLogistic, uniform(-20, 20)),
		unaryCase("SiLU", SiLU, siluF32Go, func(x float64) float64 { return x * logisticRef(x) }, ulpSiLU, uniform(-20, 20)),
		unaryCase("Erf", Erf, erfF32Go, math.Erf, ulpErf, uniform(-5, 5)),
		unaryCase("Gelu", Gelu, geluF32Go, geluRef, ulpGelu, uniform(-10, 10)),
		unaryCase("geluFast", func(dst, x []float32) {
			checkLen("geluFast", "dst, x", len(dst), len(x))
			k := kernels().eltwise
			unary(k.geluFastF32, geluFastF32Go, k.lanes, dst, x)
		}, geluFastF32Go, geluRef, ulpGeluFast, uniform(-10, 10)),
		unaryCase("GeluTanh", GeluTanh, geluTanhF32Go, geluTanhRef, ulpGeluTanh, uniform(-10, 10)),
		unaryCase("Sin", Sin, func(dst, x []float32) { sinCoreF32Go(dst, x); finishTrig(dst, math.Sin) }, math.Sin, ulpSinCos, uniform(-10, 10)),
		unaryCase("Cos", Cos, func(dst, x []float32) { cosCoreF32Go(dst, x); finishTrig(dst, math.Cos) }, math.Cos, ulpSinCos, uniform(-10, 10)),
		unaryCase("Sinh", Sinh, func(dst, x []float32) { sinhWith(hyperTwin, dst, x) }, math.Sinh, ulpHyper, uniform(-10, 10)),
		unaryCase("Cosh", Cosh, func(dst, x []float32) { coshWith(hyperTwin, dst, x) }, math.Cosh, ulpCosh, uniform(-10, 10)),
		unaryCase("Asinh", Asinh, func(dst, x []float32) { asinhWith(hyperTwin, dst, x) }, math.Asinh, ulpHyper, uniform(-100, 100)),
		unaryCase("Acosh", Acosh, func(dst, x []float32) { acoshWith(hyperTwin, dst, x) }, math.Acosh, ulpHyper, uniform(1, 100)),
		unaryCase("Atanh", Atanh, func(dst, x []float32) { atanhWith(hyperTwin, dst, x) }, math.Atanh, ulpHyper, uniform(-1, 1)),
		unaryCase("Floor", Floor, floorF32Go, math.Floor, 0.5, wide),
		unaryCase("Ceil", Ceil, ceilF32Go, math.Ceil, 0.5, wide),
		unaryCase("RoundToEven", RoundToEven, roundToEvenF32Go, math.RoundToEven, 0.5, uniform(-8, 8)),
		unaryCase("Round", Round, roundF32Go, math.Round, 0.5, uniform(-8, 8)),
		unaryCase("Sign", Sign, signF32Go, signRef, 0.5, wide),
		unaryCase("Relu", Relu, reluF32Go, func(x float64) float64 { return maxXLA64(x, 0) }, 0.5, wide),
	}
}

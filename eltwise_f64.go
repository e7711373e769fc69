package kiln

// Float64 forms of the binary elementwise kernels, with the float32 forms'
// semantics (see Add).

// binary64 runs a float64 binary kernel: whole vectors in assembly, the rest in Go.
func binary64(k func(dst, x, y []float64), twin func(dst, x, y []float64), lanes int, dst, x, y []float64) {
	m := vectorPart(len(dst), max(1, lanes/2))
	if m > 0 {
		k(dst[:m], x[:m], y[:m])
	}
	if m < len(dst) {
		twin(dst[m:], x[m:], y[m:])
	}
}

// AddF64 sets dst[i] = x[i] + y[i].
func AddF64(dst, x, y []float64) {
	checkLen("AddF64", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binary64(k.addF64, addF64Go, k.lanes, dst, x, y)
}

// SubF64 sets dst[i] = x[i] - y[i].
func SubF64(dst, x, y []float64) {
	checkLen("SubF64", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binary64(k.subF64, subF64Go, k.lanes, dst, x, y)
}

// MulF64 sets dst[i] = x[i] * y[i].
func MulF64(dst, x, y []float64) {
	checkLen("MulF64", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binary64(k.mulF64, mulF64Go, k.lanes, dst, x, y)
}

// DivF64 sets dst[i] = x[i] / y[i].
func DivF64(dst, x, y []float64) {
	checkLen("DivF64", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binary64(k.divF64, divF64Go, k.lanes, dst, x, y)
}

// MaximumF64 sets dst[i] = max(x[i], y[i]), with Maximum's (XLA's) semantics.
func MaximumF64(dst, x, y []float64) {
	checkLen("MaximumF64", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binary64(k.maxF64, maxF64Go, k.lanes, dst, x, y)
}

// MinimumF64 sets dst[i] = min(x[i], y[i]), with Minimum's (XLA's) semantics.
func MinimumF64(dst, x, y []float64) {
	checkLen("MinimumF64", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	binary64(k.minF64, minF64Go, k.lanes, dst, x, y)
}

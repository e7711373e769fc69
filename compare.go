package kiln

// Comparisons and select. A mask is a []uint8 of 0s and 1s (XLA's PRED
// storage): comparisons write 1 where the relation holds, select reads any
// non-zero byte as true. Comparisons with NaN are false, except NotEqual,
// which is true. Lengths must be equal, as for the elementwise kernels.

// compare runs a comparison kernel: whole vectors in assembly, the rest in Go.
func compare(k, twin func(dst []uint8, x, y []float32), lanes int, dst []uint8, x, y []float32) {
	m := vectorPart(len(dst), lanes)
	if m > 0 {
		k(dst[:m], x[:m], y[:m])
	}
	if m < len(dst) {
		twin(dst[m:], x[m:], y[m:])
	}
}

// compareScalar runs a comparison kernel against a scalar.
func compareScalar(k, twin func(dst []uint8, x []float32, s float32), lanes int, dst []uint8, x []float32, s float32) {
	m := vectorPart(len(dst), lanes)
	if m > 0 {
		k(dst[:m], x[:m], s)
	}
	if m < len(dst) {
		twin(dst[m:], x[m:], s)
	}
}

// Equal sets dst[i] = 1 where x[i] == y[i], else 0.
func Equal(dst []uint8, x, y []float32) {
	checkLen("Equal", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	compare(k.equalF32, equalF32Go, k.lanes, dst, x, y)
}

// NotEqual sets dst[i] = 1 where x[i] != y[i] (true when either is NaN), else 0.
func NotEqual(dst []uint8, x, y []float32) {
	checkLen("NotEqual", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	compare(k.notEqualF32, notEqualF32Go, k.lanes, dst, x, y)
}

// Less sets dst[i] = 1 where x[i] < y[i], else 0.
func Less(dst []uint8, x, y []float32) {
	checkLen("Less", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	compare(k.lessF32, lessF32Go, k.lanes, dst, x, y)
}

// LessEqual sets dst[i] = 1 where x[i] <= y[i], else 0.
func LessEqual(dst []uint8, x, y []float32) {
	checkLen("LessEqual", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	compare(k.lessEqualF32, lessEqualF32Go, k.lanes, dst, x, y)
}

// Greater sets dst[i] = 1 where x[i] > y[i], else 0.
func Greater(dst []uint8, x, y []float32) {
	checkLen("Greater", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	compare(k.greaterF32, greaterF32Go, k.lanes, dst, x, y)
}

// GreaterEqual sets dst[i] = 1 where x[i] >= y[i], else 0.
func GreaterEqual(dst []uint8, x, y []float32) {
	checkLen("GreaterEqual", "dst, x, y", len(dst), len(x), len(y))
	k := kernels().eltwise
	compare(k.greaterEqualF32, greaterEqualF32Go, k.lanes, dst, x, y)
}

// EqualScalar sets dst[i] = 1 where x[i] == s, else 0. For s on the left,
// use the mirrored relation (s < x[i] is GreaterScalar).
func EqualScalar(dst []uint8, x []float32, s float32) {
	checkLen("EqualScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	compareScalar(k.equalScalarF32, equalScalarF32Go, k.lanes, dst, x, s)
}

// NotEqualScalar sets dst[i] = 1 where x[i] != s (true when either is NaN), else 0. For s on the left,
// use the mirrored relation (s < x[i] is GreaterScalar).
func NotEqualScalar(dst []uint8, x []float32, s float32) {
	checkLen("NotEqualScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	compareScalar(k.notEqualScalarF32, notEqualScalarF32Go, k.lanes, dst, x, s)
}

// LessScalar sets dst[i] = 1 where x[i] < s, else 0. For s on the left,
// use the mirrored relation (s < x[i] is GreaterScalar).
func LessScalar(dst []uint8, x []float32, s float32) {
	checkLen("LessScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	compareScalar(k.lessScalarF32, lessScalarF32Go, k.lanes, dst, x, s)
}

// LessEqualScalar sets dst[i] = 1 where x[i] <= s, else 0. For s on the left,
// use the mirrored relation (s < x[i] is GreaterScalar).
func LessEqualScalar(dst []uint8, x []float32, s float32) {
	checkLen("LessEqualScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	compareScalar(k.lessEqualScalarF32, lessEqualScalarF32Go, k.lanes, dst, x, s)
}

// GreaterScalar sets dst[i] = 1 where x[i] > s, else 0. For s on the left,
// use the mirrored relation (s < x[i] is GreaterScalar).
func GreaterScalar(dst []uint8, x []float32, s float32) {
	checkLen("GreaterScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	compareScalar(k.greaterScalarF32, greaterScalarF32Go, k.lanes, dst, x, s)
}

// GreaterEqualScalar sets dst[i] = 1 where x[i] >= s, else 0. For s on the left,
// use the mirrored relation (s < x[i] is GreaterScalar).
func GreaterEqualScalar(dst []uint8, x []float32, s float32) {
	checkLen("GreaterEqualScalar", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	compareScalar(k.greaterEqualScalarF32, greaterEqualScalarF32Go, k.lanes, dst, x, s)
}

// Select sets dst[i] = x[i] where mask[i] != 0, else y[i].
func Select(dst []float32, mask []uint8, x, y []float32) {
	checkLen("Select", "dst, mask, x, y", len(dst), len(mask), len(x), len(y))
	k := kernels().eltwise
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		k.selectF32(dst[:m], mask[:m], x[:m], y[:m])
	}
	if m < len(dst) {
		selectF32Go(dst[m:], mask[m:], x[m:], y[m:])
	}
}

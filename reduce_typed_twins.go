package kiln

import "math"

// The pure-Go twins of the accumulating reduce kernels on bfloat16 and
// binary16 rows (the generator writes the twins of the others): the float32
// twins' computations on the elements widened exactly.

// bf16Widen and f16Widen widen one element exactly (XLA's widening).
func bf16Widen(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
func f16Widen(h uint16) float32  { return f16ToF32(h) }

// expDiffGo is e^(x − m) with the difference's rounding error carried, as
// the kernels compute it (gen/reduce.go's expDiff).
func expDiffGo(v, m float32) float32 {
	d := v - m
	bb := d - v
	err := (v - (d - bb)) + (-m - bb)
	if err != err {
		err = 0 // ±Inf differences
	}
	var e [1]float32
	expF32Go(e[:], []float32{d})
	return fma32(e[0], err, e[0])
}

func sumExpSubF32Go(x []float32, m float32) float64 {
	return cascade(len(x), func(i int, s float32) float32 { return s + expDiffGo(x[i], m) })
}

func sumNarrowGo(x []uint16, w func(uint16) float32) float64 {
	return cascade(len(x), func(i int, s float32) float32 { return s + w(x[i]) })
}

func sumSquaresNarrowGo(x []uint16, w func(uint16) float32) float64 {
	return cascade(len(x), func(i int, s float32) float32 { v := w(x[i]); return fma32(v, v, s) })
}

func sumDevNarrowGo(x []uint16, c float32, w func(uint16) float32) float64 {
	return cascade(len(x), func(i int, s float32) float32 { return s + (w(x[i]) - c) })
}

func sumSqDevNarrowGo(x []uint16, meanHi, meanLo float32, w func(uint16) float32) float64 {
	return cascade(len(x), func(i int, s float32) float32 {
		d := (w(x[i]) - meanHi) - meanLo
		return fma32(d, d, s)
	})
}

func sumExpSubNarrowGo(x []uint16, m float32, w func(uint16) float32) float64 {
	return cascade(len(x), func(i int, s float32) float32 { return s + expDiffGo(w(x[i]), m) })
}

func reduceExtremeNarrowGo(x []uint16, greater bool, w func(uint16) float32) float32 {
	r := float32(math.Inf(1))
	if greater {
		r = float32(math.Inf(-1))
	}
	for _, h := range x {
		if greater {
			r = maxXLA32(r, w(h))
		} else {
			r = minXLA32(r, w(h))
		}
	}
	return r
}

func argExtremeNarrowGo(x []uint16, greater bool, w func(uint16) float32) (vals [16]float32, idx [16]int32) {
	best, bi := float32(math.Inf(1)), int32(math.MaxInt32)
	if greater {
		best = float32(math.Inf(-1))
	}
	for i, h := range x {
		if v := w(h); betterArg(v, int32(i), best, bi, greater) {
			best, bi = v, int32(i)
		}
	}
	vals[0], idx[0] = best, bi
	return vals, idx
}

func sumBF16Go(x []uint16) float64        { return sumNarrowGo(x, bf16Widen) }
func sumF16Go(x []uint16) float64         { return sumNarrowGo(x, f16Widen) }
func sumSquaresBF16Go(x []uint16) float64 { return sumSquaresNarrowGo(x, bf16Widen) }
func sumSquaresF16Go(x []uint16) float64  { return sumSquaresNarrowGo(x, f16Widen) }
func sumDevBF16Go(x []uint16, c float32) float64 {
	return sumDevNarrowGo(x, c, bf16Widen)
}
func sumDevF16Go(x []uint16, c float32) float64 { return sumDevNarrowGo(x, c, f16Widen) }
func sumSqDevBF16Go(x []uint16, meanHi, meanLo float32) float64 {
	return sumSqDevNarrowGo(x, meanHi, meanLo, bf16Widen)
}
func sumSqDevF16Go(x []uint16, meanHi, meanLo float32) float64 {
	return sumSqDevNarrowGo(x, meanHi, meanLo, f16Widen)
}
func sumExpSubBF16Go(x []uint16, m float32) float64 { return sumExpSubNarrowGo(x, m, bf16Widen) }
func sumExpSubF16Go(x []uint16, m float32) float64  { return sumExpSubNarrowGo(x, m, f16Widen) }
func reduceMaxBF16Go(x []uint16) float32            { return reduceExtremeNarrowGo(x, true, bf16Widen) }
func reduceMaxF16Go(x []uint16) float32             { return reduceExtremeNarrowGo(x, true, f16Widen) }
func reduceMinBF16Go(x []uint16) float32            { return reduceExtremeNarrowGo(x, false, bf16Widen) }
func reduceMinF16Go(x []uint16) float32             { return reduceExtremeNarrowGo(x, false, f16Widen) }
func argMaxBF16Go(x []uint16) (vals [16]float32, idx [16]int32) {
	return argExtremeNarrowGo(x, true, bf16Widen)
}
func argMaxF16Go(x []uint16) (vals [16]float32, idx [16]int32) {
	return argExtremeNarrowGo(x, true, f16Widen)
}
func argMinBF16Go(x []uint16) (vals [16]float32, idx [16]int32) {
	return argExtremeNarrowGo(x, false, bf16Widen)
}
func argMinF16Go(x []uint16) (vals [16]float32, idx [16]int32) {
	return argExtremeNarrowGo(x, false, f16Widen)
}

func expSubSumNarrowGo(dst []float32, x []uint16, m float32, w func(uint16) float32) float64 {
	for i, h := range x {
		dst[i] = expDiffGo(w(h), m)
	}
	return cascade(len(dst), func(i int, s float32) float32 { return s + dst[i] })
}

func expSubSumBF16Go(dst []float32, x []uint16, m float32) float64 {
	return expSubSumNarrowGo(dst, x, m, bf16Widen)
}

func expSubSumF16Go(dst []float32, x []uint16, m float32) float64 {
	return expSubSumNarrowGo(dst, x, m, f16Widen)
}

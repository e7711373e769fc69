package kiln

import "math"

// The pure-Go twins of the accumulating kernels of the reduce family (the
// generator writes the twins of its elementwise kernels). The sums follow
// the assembly's scheme — float32 partial sums in twinLanes lanes, folded
// into a float64 total every reduceFlush rounds — so that their error bound
// is the assembly's; they do not match it bit for bit (the lane count
// differs by level).

const (
	twinLanes   = 16
	reduceFlush = 32 // as in the generator (gen/reduce.go)
)

// cascade sums term(i) over i < n the assembly's way.
func cascade(n int, term func(i int, partial float32) float32) float64 {
	var part [twinLanes]float32
	total := 0.0
	for base := 0; base < n; base += twinLanes * reduceFlush {
		end := min(n, base+twinLanes*reduceFlush)
		for i := base; i < end; i++ {
			l := i % twinLanes
			part[l] = term(i, part[l])
		}
		for l := range part {
			total += float64(part[l])
			part[l] = 0
		}
	}
	return total
}

func sumF32Go(x []float32) float64 {
	return cascade(len(x), func(i int, s float32) float32 { return s + x[i] })
}

func sumSquaresF32Go(x []float32) float64 {
	return cascade(len(x), func(i int, s float32) float32 { return fma32(x[i], x[i], s) })
}

func sumDevF32Go(x []float32, c float32) float64 {
	return cascade(len(x), func(i int, s float32) float32 { return s + (x[i] - c) })
}

func sumSqDevF32Go(x []float32, meanHi, meanLo float32) float64 {
	return cascade(len(x), func(i int, s float32) float32 {
		d := (x[i] - meanHi) - meanLo
		return fma32(d, d, s)
	})
}

func expSubSumF32Go(dst, x []float32, m float32) float64 {
	for i, v := range x {
		d := v - m
		bb := d - v
		err := (v - (d - bb)) + (-m - bb)
		if err != err {
			err = 0 // ±Inf differences
		}
		expF32Go(dst[i:i+1], []float32{d})
		dst[i] = fma32(dst[i], err, dst[i])
	}
	return cascade(len(dst), func(i int, s float32) float32 { return s + dst[i] })
}

func reduceMaxF32Go(x []float32) float32 {
	r := float32(math.Inf(-1))
	for _, v := range x {
		r = maxXLA32(r, v)
	}
	return r
}

func reduceMinF32Go(x []float32) float32 {
	r := float32(math.Inf(1))
	for _, v := range x {
		r = minXLA32(r, v)
	}
	return r
}

func reduceProdF32Go(x []float32) float32 {
	r := float32(1)
	for _, v := range x {
		r = float32(r * v)
	}
	return r
}

func maxAbsF32Go(x []float32) float32 {
	r := float32(0)
	for _, v := range x {
		r = maxXLA32(r, float32(math.Abs(float64(v))))
	}
	return r
}

// argMaxF32Go returns the result in lane 0 (the set's lane count is 1).
func argMaxF32Go(x []float32) (vals [16]float32, idx [16]int32) {
	return argExtremeGo(x, true)
}

func argMinF32Go(x []float32) (vals [16]float32, idx [16]int32) {
	return argExtremeGo(x, false)
}

func argExtremeGo(x []float32, greater bool) (vals [16]float32, idx [16]int32) {
	best, bi := float32(math.Inf(1)), int32(math.MaxInt32)
	if greater {
		best = float32(math.Inf(-1))
	}
	for i, v := range x {
		if betterArg(v, int32(i), best, bi, greater) {
			best, bi = v, int32(i)
		}
	}
	vals[0], idx[0] = best, bi
	return vals, idx
}

// betterArg reports whether (v, i) replaces (best, bi) in an argmax (greater)
// or argmin: a strictly more extreme value, an equal one at an earlier index,
// or a NaN (the most extreme), the earliest NaN winning.
func betterArg[I int | int32](v float32, i I, best float32, bi I, greater bool) bool {
	vNaN, bestNaN := v != v, best != best
	switch {
	case vNaN || bestNaN:
		return vNaN && (!bestNaN || i < bi)
	case v == best:
		return i < bi
	case greater:
		return v > best
	}
	return v < best
}

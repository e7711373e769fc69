package main

import "math"

// The reduce family: reductions along a contiguous row (sum, sum of squares,
// max, min, product, argmax/argmin), the passes of a row softmax and a row
// layer norm, and the accumulation of rows into a vector (column
// reductions). Like the eltwise family they are vector programs; the sums
// accumulate in float32 lanes and fold them into float64 totals every
// reduceFlush iterations, so that their error does not grow with n.

// reduceFlush is how many main-loop iterations a float32 partial sum lane
// accumulates before it is folded into the float64 totals.
const reduceFlush = 32

// cascadeFold folds a cascade kernel's per-copy float32 partial sums
// (state 0) as a tree over the copies into its two float64 totals (shared
// states 0 and 1: the low and high halves of the lanes) and clears them.
func cascadeFold(c *kctx) {
	parts := c.all(0)
	for len(parts) > 1 {
		var next []val
		for i := 0; i+1 < len(parts); i += 2 {
			next = append(next, c.b.add(parts[i], parts[i+1]))
		}
		if len(parts)%2 == 1 {
			next = append(next, parts[len(parts)-1])
		}
		parts = next
	}
	c.setShared(0, c.b.add(c.sharedState(0), c.b.lo64(parts[0])))
	c.setShared(1, c.b.add(c.sharedState(1), c.b.hi64(parts[0])))
	zero := c.b.f32(0)
	for u := range c.st {
		c.update(c.st[u][0], zero)
	}
}

// cascadeSum is a kernel returning a float64 sum over the vectors: acc adds
// a vector's terms to a per-copy float32 partial sum; the partial sums are
// folded (as a tree over the copies) into two float64 totals, the low and
// high halves of the lanes.
func cascadeSum(name, doc string, args []karg, acc func(c *kctx, sum val) val) *vkernel {
	fold := cascadeFold
	return &vkernel{name: name, doc: doc, lane: vF32, unroll: 4, args: args, noTwin: true,
		res:        []kres{{"sum", "float64"}},
		states:     1,
		init:       func(c *kctx) []val { return []val{c.b.f32(0)} },
		shared:     2,
		initShared: func(c *kctx) []val { return []val{c.b.f64(0), c.b.f64(0)} },
		body:       func(c *kctx) { c.set(0, acc(c, c.state(0))) },
		flushEvery: reduceFlush,
		flush:      fold,
		finish: func(c *kctx) {
			fold(c)
			c.ret(0, c.b.hadd(c.b.add(c.sharedState(0), c.sharedState(1))))
		},
	}
}

// lanewise is a kernel folding the vectors with op into one accumulator
// per copy, then the copies and the lanes into one float32 result.
func lanewise(name, doc string, init float32, op func(b *vb, x, y val) val, term func(c *kctx) val) *vkernel {
	return &vkernel{name: name, doc: doc, lane: vF32, unroll: 4, noTwin: true,
		args:   []karg{sliceArg("x", eF32)},
		res:    []kres{{"r", "float32"}},
		states: 1,
		init:   func(c *kctx) []val { return []val{c.b.f32(init)} },
		body:   func(c *kctx) { c.set(0, op(c.b, c.state(0), term(c))) },
		finish: func(c *kctx) {
			acc := c.all(0)
			r := acc[0]
			for _, v := range acc[1:] {
				r = op(c.b, r, v)
			}
			c.ret(0, c.b.horizontal(r, func(x, y val) val { return op(c.b, x, y) }))
		},
	}
}

// fastExtreme is a max (greater) or min reduction that folds each lane with
// the hardware's max (opMaxC: ordered, a NaN operand passes through or is
// dropped, ±0 in either order) and ORs a mask of the NaNs seen: the result
// is NaN if any element is NaN, else the extreme value — exact except for
// the sign of a zero result, which the Go side settles (see maxF32).
func fastExtreme(name, doc string, greater bool, term func(c *kctx) val) *vkernel {
	init := float32(math.Inf(1))
	fold := (*vb).minc
	xla := (*vb).min
	if greater {
		init, fold, xla = float32(math.Inf(-1)), (*vb).maxc, (*vb).max
	}
	return &vkernel{name: name, doc: doc, lane: vF32, unroll: 4, noTwin: true,
		args:   []karg{sliceArg("x", eF32)},
		res:    []kres{{"r", "float32"}},
		states: 2,
		init: func(c *kctx) []val {
			z := c.b.f32(0)
			return []val{c.b.f32(init), c.b.cmp(cmpUnord, z, z)}
		},
		body: func(c *kctx) {
			x := term(c)
			c.set(0, fold(c.b, x, c.state(0)))
			c.set(1, c.b.or(c.state(1), c.b.isNaN(x)))
		},
		finish: func(c *kctx) {
			b := c.b
			acc, nan := c.all(0), c.all(1)
			r, m := acc[0], nan[0]
			for u := 1; u < len(acc); u++ {
				r = fold(b, acc[u], r)
				m = b.or(m, nan[u])
			}
			r = b.blend(m, b.f32(nan32), r)
			c.ret(0, b.horizontal(r, func(x, y val) val { return xla(b, x, y) }))
		},
	}
}

// argExtreme is argmax (greater true) or argmin: per lane the extreme value
// and the first index holding it, NaN counting as the extreme; the Go side
// chooses among the lanes.
func argExtreme(name, doc string, greater bool) *vkernel {
	pred := cmpLT
	init := float32(math.Inf(1))
	if greater {
		pred, init = cmpGT, float32(math.Inf(-1))
	}
	// better reports whether (x, i) should replace (best, bi).
	better := func(b *vb, x, i, best, bi val) val {
		earlier := b.cmpgt(bi, i)
		beats := b.or(b.cmp(pred, x, best), b.mand(b.cmp(cmpEQ, x, best), earlier))
		xNaN, bestNaN := b.isNaN(x), b.isNaN(best)
		beats = b.or(beats, b.mand(xNaN, b.mnot(bestNaN)))
		return b.or(beats, b.mand(b.mand(xNaN, bestNaN), earlier))
	}
	return &vkernel{name: name, doc: doc, lane: vF32, unroll: 4, noTwin: true,
		args:   []karg{sliceArg("x", eF32)},
		res:    []kres{{"vals", "[16]float32"}, {"idx", "[16]int32"}},
		states: 2,
		init: func(c *kctx) []val {
			return []val{c.b.f32(init), c.b.i32(math.MaxInt32)}
		},
		shared:     1,
		initShared: func(c *kctx) []val { return []val{c.b.iota()} },
		body: func(c *kctx) {
			b := c.b
			pos := c.sharedState(0)
			idx := pos
			if c.copy > 0 {
				idx = b.addi(pos, b.i32(int32(c.copy*c.lanes())))
			}
			x := c.in(0)
			take := better(b, x, idx, c.state(0), c.state(1))
			c.set(0, b.blend(take, x, c.state(0)))
			c.set(1, b.blend(take, idx, c.state(1)))
			if c.copy == c.copies-1 {
				c.setShared(0, b.addi(pos, b.i32(int32(c.copies*c.lanes()))))
			}
		},
		finish: func(c *kctx) {
			b := c.b
			vals, idx := c.all(0), c.all(1)
			v, i := vals[0], idx[0]
			for u := 1; u < len(vals); u++ {
				take := better(b, vals[u], idx[u], v, i)
				v = b.blend(take, vals[u], v)
				i = b.blend(take, idx[u], i)
			}
			c.retVec(0, v)
			c.retVec(1, i)
		},
	}
}

// colAcc is dst[j] = op(dst[j], op over the rows r0…r7 [j]), the rows
// combined as a balanced tree.
func colAcc(name, doc string, op func(b *vb, x, y val) val) *vkernel {
	args := []karg{sliceArg("dst", eF32)}
	for i := 0; i < 8; i++ {
		args = append(args, sliceArg("r"+string(rune('0'+i)), eF32))
	}
	return &vkernel{name: name, doc: doc, lane: vF32, unroll: 2, args: args,
		body: func(c *kctx) {
			b := c.b
			r := make([]val, 8)
			for i := range r {
				r[i] = c.in(1 + i)
			}
			t := op(b, op(b, op(b, r[0], r[1]), op(b, r[2], r[3])), op(b, op(b, r[4], r[5]), op(b, r[6], r[7])))
			c.out(0, op(b, c.in(0), t))
		},
	}
}

// reduceKernels lists the family's kernels.
func reduceKernels() []*vkernel {
	x := []karg{sliceArg("x", eF32)}
	return []*vkernel{
		cascadeSum("sumF32", "returns the sum of x", x, func(c *kctx, s val) val { return c.b.add(s, c.in(0)) }),
		cascadeSum("sumSquaresF32", "returns the sum of x[i]²", x, func(c *kctx, s val) val {
			v := c.in(0)
			return c.b.fma(v, v, s)
		}),
		cascadeSum("sumDevF32", "returns the sum of x[i] - c",
			[]karg{sliceArg("x", eF32), f32Arg("c")}, func(c *kctx, s val) val {
				return c.b.add(s, c.b.sub(c.in(0), c.scalar(1)))
			}),
		cascadeSum("sumSqDevF32", "returns the sum of (x[i] - mean)² for mean = meanHi + meanLo",
			[]karg{sliceArg("x", eF32), f32Arg("meanHi"), f32Arg("meanLo")}, func(c *kctx, s val) val {
				d := c.b.sub(c.b.sub(c.in(0), c.scalar(1)), c.scalar(2))
				return c.b.fma(d, d, s)
			}),
		cascadeSum("expSubSumF32", "sets dst[i] = e^(x[i] - m) and returns their sum",
			[]karg{sliceArg("dst", eF32), sliceArg("x", eF32), f32Arg("m")}, func(c *kctx, s val) val {
				e := expDiff(c.b, c.in(1), c.scalar(2))
				c.out(0, e)
				return c.b.add(s, e)
			}),
		cascadeSum("sumExpSubF32", "returns the sum of e^(x[i] - m)",
			[]karg{sliceArg("x", eF32), f32Arg("m")}, func(c *kctx, s val) val {
				return c.b.add(s, expDiff(c.b, c.in(0), c.scalar(1)))
			}),
		{name: "scaleF32", doc: "sets dst[i] = x[i] * s", lane: vF32, unroll: 4,
			args: []karg{sliceArg("dst", eF32), sliceArg("x", eF32), f32Arg("s")},
			body: func(c *kctx) { c.out(0, c.b.mul(c.in(1), c.scalar(2))) }},
		{name: "expSubScaleF32", doc: "sets dst[i] = e^(x[i] - m) * s", lane: vF32, unroll: 4,
			args: []karg{sliceArg("dst", eF32), sliceArg("x", eF32), f32Arg("m"), f32Arg("s")},
			body: func(c *kctx) {
				c.out(0, c.b.mul(expDiff(c.b, c.in(1), c.scalar(2)), c.scalar(3)))
			}},
		fastExtreme("reduceMaxF32", "returns the largest element, NaN if any is NaN (a zero result's sign is unspecified)", true, func(c *kctx) val { return c.in(0) }),
		fastExtreme("reduceMinF32", "returns the smallest element, NaN if any is NaN (a zero result's sign is unspecified)", false, func(c *kctx) val { return c.in(0) }),
		lanewise("reduceProdF32", "returns the product of the elements", 1, (*vb).mul, func(c *kctx) val { return c.in(0) }),
		fastExtreme("maxAbsF32", "returns the largest |x[i]|, NaN if any is NaN", true, func(c *kctx) val { return c.b.abs(c.in(0)) }),
		argExtreme("argMaxF32", "returns per lane the largest element and its first index", true),
		argExtreme("argMinF32", "returns per lane the smallest element and its first index", false),
		{name: "normalizeF32", doc: "sets dst[i] = (x[i] - mean) * rstd for mean = meanHi + meanLo", lane: vF32, unroll: 4,
			args: []karg{sliceArg("dst", eF32), sliceArg("x", eF32), f32Arg("meanHi"), f32Arg("meanLo"), f32Arg("rstd")},
			body: func(c *kctx) {
				b := c.b
				c.out(0, b.mul(b.sub(b.sub(c.in(1), c.scalar(2)), c.scalar(3)), c.scalar(4)))
			}},
		{name: "layerNormAffineF32", doc: "sets dst[i] = (x[i] - mean) * rstd * gamma[i] + beta[i] for mean = meanHi + meanLo, the last step fused", lane: vF32, unroll: 4,
			args: []karg{sliceArg("dst", eF32), sliceArg("x", eF32), sliceArg("gamma", eF32), sliceArg("beta", eF32), f32Arg("meanHi"), f32Arg("meanLo"), f32Arg("rstd")},
			body: func(c *kctx) {
				b := c.b
				t := b.mul(b.sub(b.sub(c.in(1), c.scalar(4)), c.scalar(5)), c.scalar(6))
				c.out(0, b.fma(t, c.in(2), c.in(3)))
			}},
		colAcc("colAccSumF32", "adds the sum of the rows r0…r7 to dst", (*vb).add),
		colAcc("colAccMaxF32", "folds the rows r0…r7 into dst with XLA's max", (*vb).max),
		colAcc("colAccMinF32", "folds the rows r0…r7 into dst with XLA's min", (*vb).min),
		colAcc("colAccProdF32", "multiplies dst by the product of the rows r0…r7", (*vb).mul),
	}
}

// expDiff is e^(x − m) with x − m carried exactly (TwoSum): e^d·(1 + δ) for
// d = x − m rounded and δ its rounding error, so that the rounding of a large
// difference does not become relative error of the result.
func expDiff(b *vb, x, m val) val {
	nm := b.neg(m)
	d := b.add(x, nm)
	bb := b.sub(d, x)
	err := b.add(b.sub(x, b.sub(d, bb)), b.sub(nm, bb))
	err = b.blend(b.isNaN(err), b.f32(0), err) // ±Inf differences
	e := vexp(b, d)
	return b.fma(e, err, e)
}

func generateReduce(o *output) error {
	ks := reduceKernels()
	byName := map[string]*vkernel{}
	for _, k := range ks {
		byName[k.name] = k
	}
	for _, nt := range narrowTypes {
		for _, name := range []string{"sum", "sumSquares", "sumDev", "sumSqDev", "sumExpSub", "expSubScale",
			"reduceMax", "reduceMin", "argMax", "argMin", "normalize", "layerNormAffine"} {
			ks = append(ks, typedVariant(byName[name+"F32"], nt, nil))
		}
		// The softmax of short rows keeps its exponentials in a float32
		// row (in L1) and rounds them once scaled.
		ks = append(ks, typedVariant(byName["expSubSumF32"], nt, []int{1}), typedVariant(byName["scaleF32"], nt, []int{0}))
		// The column accumulations keep their float32 accumulator row.
		for _, name := range []string{"colAccSum", "colAccMax", "colAccMin"} {
			ks = append(ks, typedVariant(byName[name+"F32"], nt, []int{1, 2, 3, 4, 5, 6, 7, 8}))
		}
	}
	ks = append(ks, bf16RowKernels()...)
	return generateStreamFamily(o, "reduce", ks)
}

// roundBF16Lanes rounds float32 lanes to the nearest bfloat16 value, kept
// as float32, for a value the program goes on computing with: XLA's
// rounding (vf32ToBF16's) with the shifts folded into one mask. x must be
// a sum, difference or product of bfloat16 values (float32s whose low 16
// bits are zero): a NaN such an op returns (an operand quieted, or the
// default NaN) has its low 16 bits zero as well, so the rounding keeps it
// as XLA's does and needs no NaN case.
func roundBF16Lanes(b *vb, x val) val {
	bits := b.asI32(x)
	inc := b.addi(b.and(b.shr(bits, 16), b.i32(1)), b.i32(0x7fff))
	return b.asF32(b.and(b.addi(bits, inc), b.i32(-0x10000)))
}

// bf16RowKernels are the fused passes of a bfloat16 layer-norm's row
// program, each op rounding its result to bfloat16 in the register (the
// scalars s bfloat16 values): the sum of the rounded squares of the
// rounded deviations d = bf16(x[i] - s), with the least non-zero and the
// largest |d| (which say whether dividing by a row scalar may multiply by
// its reciprocal instead), and the rounded deviations multiplied by a row
// scalar, or divided by one.
func bf16RowKernels() []*vkernel {
	dev := func(c *kctx, x, s int) val {
		return roundBF16Lanes(c.b, c.b.sub(c.in(x), c.scalar(s)))
	}
	fold := cascadeFold
	// lower keeps the smaller (greater: the larger) of acc and v; a NaN v
	// leaves acc as it is.
	extreme := func(b *vb, acc, v val, greater bool) val {
		if greater {
			return b.maxc(acc, v)
		}
		return b.minc(acc, v)
	}
	fuse := func(c *kctx, vs []val, greater bool) val {
		r := vs[0]
		for _, v := range vs[1:] {
			r = extreme(c.b, r, v, greater)
		}
		return c.b.horizontal(r, func(x, y val) val { return extreme(c.b, x, y, greater) })
	}
	return []*vkernel{
		{name: "sumSqDevRoundBF16", doc: "returns the sum of the float32 widenings of bf16(d·d) for d = bf16(x[i] - s) (bf16 rounding to nearest even, s a bfloat16 value), accumulated as sumBF16 accumulates, and the least non-zero |d| (+Inf if none) and the largest (NaNs skipped)",
			lane: vF32, unroll: 4, noTwin: true,
			args:   []karg{sliceArg("x", eBF16), f32Arg("s")},
			res:    []kres{{"sum", "float64"}, {"lo", "float32"}, {"hi", "float32"}},
			states: 3,
			init: func(c *kctx) []val {
				return []val{c.b.f32(0), c.b.f32(float32(math.Inf(1))), c.b.f32(0)}
			},
			shared:     2,
			initShared: func(c *kctx) []val { return []val{c.b.f64(0), c.b.f64(0)} },
			body: func(c *kctx) {
				b := c.b
				d := dev(c, 0, 1)
				c.set(0, b.add(c.state(0), roundBF16Lanes(b, b.mul(d, d))))
				a := b.abs(d)
				c.set(1, b.minc(c.state(1), b.blend(b.cmp(cmpEQ, a, b.f32(0)), b.f32(float32(math.Inf(1))), a)))
				c.set(2, b.maxc(c.state(2), a))
			},
			flushEvery: reduceFlush,
			flush:      fold,
			finish: func(c *kctx) {
				fold(c)
				c.ret(0, c.b.hadd(c.b.add(c.sharedState(0), c.sharedState(1))))
				c.ret(1, fuse(c, c.all(1), false))
				c.ret(2, fuse(c, c.all(2), true))
			}},
		{name: "sumSqDevMaxRoundBF16", doc: "returns the sum of the float32 widenings of bf16(d·d) for d = bf16(x[i] - s) (bf16 rounding to nearest even, s a bfloat16 value), accumulated as sumBF16 accumulates, and the largest |d| (NaNs skipped): sumSqDevRoundBF16 without the least",
			lane: vF32, unroll: 4, noTwin: true,
			args:       []karg{sliceArg("x", eBF16), f32Arg("s")},
			res:        []kres{{"sum", "float64"}, {"hi", "float32"}},
			states:     2,
			init:       func(c *kctx) []val { return []val{c.b.f32(0), c.b.f32(0)} },
			shared:     2,
			initShared: func(c *kctx) []val { return []val{c.b.f64(0), c.b.f64(0)} },
			body: func(c *kctx) {
				b := c.b
				d := dev(c, 0, 1)
				c.set(0, b.add(c.state(0), roundBF16Lanes(b, b.mul(d, d))))
				c.set(1, b.maxc(c.state(1), b.abs(d)))
			},
			flushEvery: reduceFlush,
			flush:      fold,
			finish: func(c *kctx) {
				fold(c)
				c.ret(0, c.b.hadd(c.b.add(c.sharedState(0), c.sharedState(1))))
				c.ret(1, fuse(c, c.all(1), true))
			}},
		{name: "subMulRoundBF16", doc: "sets dst[i] = bf16(bf16(x[i] - s)·r), bf16 rounding to nearest even, s a bfloat16 value", lane: vF32, unroll: 4,
			args: []karg{sliceArg("dst", eBF16), sliceArg("x", eBF16), f32Arg("s"), f32Arg("r")},
			body: func(c *kctx) { c.out(0, c.b.mul(dev(c, 1, 2), c.scalar(3))) }},
		{name: "subDivRoundBF16", doc: "sets dst[i] = bf16(bf16(x[i] - s) / t), bf16 rounding to nearest even, s a bfloat16 value", lane: vF32, unroll: 4,
			args: []karg{sliceArg("dst", eBF16), sliceArg("x", eBF16), f32Arg("s"), f32Arg("t")},
			body: func(c *kctx) { c.out(0, c.b.div(dev(c, 1, 2), c.scalar(3))) }},
	}
}

package ops

// The reducers of argmax and argmin. jnp.argmax and jnp.argmin reduce a
// value and its index together with a reducer of four scalars —
// accumulator (value, index), element (value, index) — that keeps the
// accumulator's value when it is greater (less, for argmin) or a NaN,
// the element's otherwise, and the lower index between equal values. As a
// scalar program per element that costs about a microsecond; recognised,
// it is a compare per element.

import (
	"math"

	"github.com/kilnml/kiln/ir"
)

// argFold is the fold of a recognised argmax (max) or argmin reducer.
type argFold struct {
	max bool
}

// step folds element (xv, xi) into the accumulator (av, ai) as the
// reducer does: the value kept when greater (less) or a NaN, the lower
// index between equal values.
func (f argFold) step(av float64, ai int64, xv float64, xi int64) (float64, int64) {
	keep := av != av || (f.max && av > xv) || (!f.max && av < xv)
	return f.pick(keep, av == xv, av, ai, xv, xi)
}

// stepInt is step for integer values, signed or not.
func (f argFold) stepInt(av, ai, xv, xi int64, unsigned bool) (int64, int64) {
	less, greater := av < xv, av > xv
	if unsigned {
		less, greater = uint64(av) < uint64(xv), uint64(av) > uint64(xv)
	}
	keep := (f.max && greater) || (!f.max && less)
	switch {
	case keep:
		return av, ai
	case av == xv && ai < xi:
		return xv, ai
	}
	return xv, xi
}

func (f argFold) pick(keep, equal bool, av float64, ai int64, xv float64, xi int64) (float64, int64) {
	switch {
	case keep:
		return av, ai
	case equal && ai < xi:
		return xv, ai
	}
	return xv, xi
}

// argForm recognises a two-operand reducer of (value, index) as argmax's or
// argmin's by running it on every pair of probe accumulators and elements
// — NaNs, infinities, both zeros, ties at other indices, small and large
// values of both signs — and comparing with argFold.step.
func (r *Reducer) argForm() {
	vt, it := r.Acc[0], r.Acc[1]
	if r.N != 2 || !(vt.IsFloat() || vt.IsInteger() || vt == ir.PRED) || !it.IsInteger() ||
		r.Elem[0] != vt || r.Elem[1] != it || r.Types[0] != vt || r.Types[1] != it ||
		r.Inits[0] != vt || r.Inits[1] != it || vt != ir.PRED && vt.BitWidth() < 8 {
		return
	}
	var vals []float64
	if vt.IsFloat() {
		for _, v := range []float64{math.NaN(), math.Inf(-1), -1e30, -2.5, -1, math.Copysign(0, -1), 0, 1e-30, 1, 2.5, 1e30, math.Inf(1)} {
			vals = append(vals, RoundFloat(vt, v))
		}
	} else if vt == ir.PRED {
		vals = []float64{0, 1} // jnp.select's argmax over its conditions
	} else {
		lo, hi := IntRange(vt)
		vals = []float64{float64(lo), -3, -1, 0, 1, 2, 100, float64(hi)}
		if vt.IsUnsigned() {
			vals = []float64{0, 1, 2, 100, float64(hi)}
		}
	}
	idx := []int64{0, 1, 7}
	regs := make([]byte, r.Fn.RegBytes())
	r.Fn.LoadConsts(regs)
	buf := make([]byte, 16)
	// put loads parameter i: a value (0, 2) or an index (1, 3).
	put := func(i int, v float64, iv int64) {
		if i%2 == 0 {
			if vt.IsFloat() {
				SetFloatAt(buf, vt, 0, v)
			} else {
				SetIntAt(buf, vt, 0, int64(v))
			}
			r.Fn.LoadAs(regs, i, buf, vt, 0)
			return
		}
		SetIntAt(buf, it, 0, iv)
		r.Fn.LoadAs(regs, i, buf, it, 0)
	}
	read := func(i int) (float64, int64) {
		StoreWide(buf, r.Acc[i], 0, r.Fn.Param(regs, i), 1)
		if i == 0 && vt.IsFloat() {
			return FloatAt(buf, vt, 0), 0
		}
		v := IntAt(buf, r.Acc[i], 0)
		return float64(v), v
	}
	same := func(a, b float64) bool { return a == b && math.Signbit(a) == math.Signbit(b) || a != a && b != b }
	okMax, okMin := true, true
	for _, av := range vals {
		for _, ai := range idx {
			for _, xv := range vals {
				for _, xi := range idx {
					put(0, av, 0)
					put(1, 0, ai)
					put(2, xv, 0)
					put(3, 0, xi)
					if err := r.Fn.Run(regs); err != nil {
						return
					}
					r.Fn.Set(regs, 0, 0)
					r.Fn.Set(regs, 1, 1)
					gv, _ := read(0)
					_, gi := read(1)
					for _, max := range []bool{true, false} {
						f := argFold{max: max}
						var wv float64
						var wi int64
						if vt.IsFloat() {
							wv, wi = f.step(av, ai, xv, xi)
						} else {
							var w int64
							w, wi = f.stepInt(int64(av), ai, int64(xv), xi, vt.IsUnsigned())
							wv = float64(w)
						}
						ok := same(gv, wv) && gi == wi
						if max {
							okMax = okMax && ok
						} else {
							okMin = okMin && ok
						}
					}
					if !okMax && !okMin {
						return
					}
				}
			}
		}
	}
	if okMax || okMin {
		r.arg = &argFold{max: okMax}
	}
}

// foldArg folds the elements at positions pos of the values srcs[0] and
// indices srcs[1] into the accumulator, in order.
func (r *Reducer) foldArg(acc *Acc, srcs [][]byte, pos []int64) {
	f := *r.arg
	vt, it := r.Types[0], r.Types[1]
	if vt == ir.F32 && it == ir.S32 {
		// JAX's argmax over float32 logits: the common case, typed.
		vs, is := Elems[float32](srcs[0]), Elems[int32](srcs[1])
		av, ai := acc.F, acc.X
		for _, p := range pos {
			av, ai = f.step(av, ai, float64(vs[p]), int64(is[p]))
		}
		acc.F, acc.X = av, ai
		return
	}
	if vt.IsFloat() {
		av, ai := acc.F, acc.X
		for _, p := range pos {
			av, ai = f.step(av, ai, FloatAt(srcs[0], vt, int(p)), IntAt(srcs[1], it, int(p)))
		}
		acc.F, acc.X = av, ai
		return
	}
	av, ai := acc.I, acc.X
	for _, p := range pos {
		av, ai = f.stepInt(av, ai, IntAt(srcs[0], vt, int(p)), IntAt(srcs[1], it, int(p)), vt.IsUnsigned())
	}
	acc.I, acc.X = av, ai
}

// foldArgRow folds the n consecutive elements from position base.
func (r *Reducer) foldArgRow(acc *Acc, srcs [][]byte, base, n int) {
	f := *r.arg
	if r.Types[0] == ir.F32 && r.Types[1] == ir.S32 {
		vs, is := Elems[float32](srcs[0])[base:base+n], Elems[int32](srcs[1])[base:base+n]
		is = is[:len(vs)]
		av, ai := acc.F, acc.X
		for j, v := range vs {
			av, ai = f.step(av, ai, float64(v), int64(is[j]))
		}
		acc.F, acc.X = av, ai
		return
	}
	var posBuf [FoldTile]int64
	for start := 0; start < n; start += FoldTile {
		m := min(FoldTile, n-start)
		for j := range m {
			posBuf[j] = int64(base + start + j)
		}
		r.foldArg(acc, srcs, posBuf[:m])
	}
}

// ArgReducer reports whether f, a reducer of (value, index) pairs of the
// given types, is argmax's (max true) or argmin's as JAX writes it, which
// reductions fold with a compare per element.
func ArgReducer(f *Func, value, index ir.ElementType) (max, ok bool) {
	r, err := NewReducer(f, []ir.ElementType{value, index}, nil)
	if err != nil || r.arg == nil {
		return false, false
	}
	return r.arg.max, true
}

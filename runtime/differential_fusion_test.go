package runtime_test

import (
	"github.com/kilnml/kiln/ir"
)

// Generators of random graphs for the scheduler: elementwise DAGs whose
// values are used several times (by one op, x·x, and by several), read
// through transposes, broadcasts, slices and reshapes, mixed with
// conversions, iotas and row reductions broadcast back, with one or two
// outputs; and a loop whose body is a small recurrent layer.

func fusionGens() []*opGen {
	return []*opGen{dagGen(), rnnGen(), scanGen()}
}

// scanGen writes row i of an accumulator from row i of the input in each
// iteration of a while loop (dynamic-slice, an update, dynamic-update-slice
// into the loop-carried state, which the runtime updates in place), for a
// run-time number of rows that may stop short of the end.
func scanGen() *opGen {
	return &opGen{name: "while-scan", hlo: "while", types: anyType, variant: true, build: func(g *gen, t ir.ElementType) ir.Op {
		rows := g.between(1, 6)
		row := g.dims(g.between(0, 2))
		full := ir.MakeShape(t, append([]int{rows}, row...)...)
		state := ir.MakeTuple(ir.Scalar(ir.S32), ir.Scalar(ir.S32), full, full)
		cb := g.b.CreateSubBuilder("rows_left")
		cs := cb.Parameter(0, state, "state")
		cond, err := cb.BuildWithRoot(cb.Lt(cb.GetTupleElement(cs, 0), cb.GetTupleElement(cs, 1)))
		if err != nil {
			panic(err)
		}
		bb := g.b.CreateSubBuilder("scan_row")
		st := bb.Parameter(0, state, "state")
		i := bb.GetTupleElement(st, 0)
		acc, in := bb.GetTupleElement(st, 2), bb.GetTupleElement(st, 3)
		starts := []ir.Op{i}
		for range row {
			starts = append(starts, bb.Constant(ir.ScalarLiteral(int32(0))))
		}
		sizes := append([]int{1}, row...)
		prev := bb.DynamicSlice(acc, starts, sizes)
		cur := bb.DynamicSlice(in, starts, sizes)
		next := bb.DynamicUpdateSlice(acc, step(bb, t, cur, prev), starts)
		body, err := bb.BuildWithRoot(bb.Tuple(bb.Add(i, bb.Constant(ir.ScalarLiteral(int32(1)))), bb.GetTupleElement(st, 1), next, in))
		if err != nil {
			panic(err)
		}
		limit := g.paramOf(g.indices(ir.Scalar(ir.S32), 0, rows))
		loop := g.b.While(cond, body, g.b.Tuple(g.b.Constant(ir.ScalarLiteral(int32(0))), limit, g.param(full, niceValues), g.param(full, niceValues)))
		return g.b.GetTupleElement(loop, 2)
	}}
}

// dagGen draws a random DAG of twelve ops over the operands, every op
// taking its arguments from all the values so far (the same one twice at
// times), all of type t; it returns the last value, or it and an earlier
// one.
func dagGen() *opGen {
	return &opGen{name: "fused-dag", hlo: "add", types: dagTypes, variant: true, fusion: true, huge: true, cases: 8, build: func(g *gen, t ir.ElementType) ir.Op {
		b := g.b
		s := ir.MakeShape(t, g.mainDims()...)
		r := s.Rank()
		pool := []ir.Op{g.operand(s, unitValues), g.operand(s, unitValues)}
		pick := func() ir.Op {
			if g.coin() {
				return pool[len(pool)-1]
			}
			return pool[g.intn(len(pool))]
		}
		ordered := !t.IsComplex()
		for range 12 {
			x, y := pick(), pick()
			var v ir.Op
			switch g.intn(10) {
			case 0:
				v = b.Add(x, y)
			case 1:
				v = b.Sub(x, y)
			case 2:
				v = b.Mul(x, x)
			case 3:
				v = b.Mul(x, y)
			case 4:
				v = b.Neg(x)
			case 5:
				if ordered {
					v = b.Select(b.Gt(x, y), x, y)
				} else {
					v = b.Select(b.Eq(x, y), x, b.Neg(y))
				}
			case 6:
				if ordered {
					v = b.Max(x, b.Min(y, x))
				} else {
					v = b.Add(x, b.Add(y, y))
				}
			case 7: // a round trip through another type
				other := pickOne(g, ir.F32, ir.S32, ir.F16, ir.F64)
				if t.IsComplex() {
					other = ir.C128
				}
				v = b.ConvertElementType(b.ConvertElementType(x, other), t)
			case 8: // plus an iota along a dimension
				if r > 0 && !t.IsComplex() {
					v = b.Add(x, b.Iota(s, g.intn(r)))
				} else {
					v = b.Sub(y, x)
				}
			default: // a row reduction broadcast back
				if r > 0 && ordered {
					lowest := ir.MustNewLiteral(ir.Scalar(t))
					setLowest(lowest)
					d := g.intn(r)
					red := b.Reduce(x, b.Constant(lowest), g.reducerNamed(t, "maximum").comp, []int{d})
					keep := make([]int, 0, r-1)
					for i := range r {
						if i != d {
							keep = append(keep, i)
						}
					}
					v = b.Sub(y, b.BroadcastInDim(red, s.Dims, keep))
				} else {
					v = b.Mul(x, y)
				}
			}
			pool = append(pool, v)
		}
		last := pool[len(pool)-1]
		if g.coin() {
			return b.Tuple(last, pool[2+g.intn(len(pool)-3)])
		}
		return last
	}}
}

// dagTypes are the types the DAG's ops all take: numbers but the 4-bit
// integers (whose wrapping makes the round trips dull) and the F8 types
// (where nearly every product overflows).
func dagTypes(t ir.ElementType) bool {
	return numeric(t) && t.BitWidth() > 4 && t != ir.F8E5M2 && t != ir.F8E4M3FN
}

// rnnGen runs a small recurrent layer in a while loop: h = tanh(h·W + x_i·U
// + b) for a run-time number of steps, with x_i a dynamic slice of the
// input sequence: a body of dot, epilogue, transcendental and dynamic
// slicing, compiled as a subplan.
func rnnGen() *opGen {
	return &opGen{name: "while-rnn", hlo: "while", types: f32f64, variant: true, build: func(g *gen, t ir.ElementType) ir.Op {
		batch, hidden, in := g.between(1, 4), g.between(1, 9), g.between(1, 6)
		steps := g.between(0, 5)
		h0 := ir.MakeShape(t, batch, hidden)
		xs := ir.MakeShape(t, max(steps, 1), batch, in)
		w, u, bias := ir.MakeShape(t, hidden, hidden), ir.MakeShape(t, in, hidden), ir.MakeShape(t, hidden)
		state := ir.MakeTuple(ir.Scalar(ir.S32), ir.Scalar(ir.S32), h0, xs, w, u, bias)
		cb := g.b.CreateSubBuilder("steps_left")
		cs := cb.Parameter(0, state, "state")
		cond, err := cb.BuildWithRoot(cb.Lt(cb.GetTupleElement(cs, 0), cb.GetTupleElement(cs, 1)))
		if err != nil {
			panic(err)
		}
		bb := g.b.CreateSubBuilder("cell")
		st := bb.Parameter(0, state, "state")
		i := bb.GetTupleElement(st, 0)
		zero := bb.Constant(ir.ScalarLiteral(int32(0)))
		xi := bb.Reshape(bb.DynamicSlice(bb.GetTupleElement(st, 3), []ir.Op{i, zero, zero}, []int{1, batch, in}), []int{batch, in})
		pre := bb.Add(bb.Add(bb.Dot(bb.GetTupleElement(st, 2), bb.GetTupleElement(st, 4)), bb.Dot(xi, bb.GetTupleElement(st, 5))),
			bb.BroadcastInDim(bb.GetTupleElement(st, 6), []int{batch, hidden}, []int{1}))
		body, err := bb.BuildWithRoot(bb.Tuple(bb.Add(i, bb.Constant(ir.ScalarLiteral(int32(1)))), bb.GetTupleElement(st, 1),
			bb.Tanh(pre), bb.GetTupleElement(st, 3), bb.GetTupleElement(st, 4), bb.GetTupleElement(st, 5), bb.GetTupleElement(st, 6)))
		if err != nil {
			panic(err)
		}
		limit := g.paramOf(g.indices(ir.Scalar(ir.S32), 0, steps))
		init := g.b.Tuple(g.b.Constant(ir.ScalarLiteral(int32(0))), limit, g.param(h0, niceValues), g.param(xs, niceValues),
			g.param(w, niceValues), g.param(u, niceValues), g.param(bias, niceValues))
		g.c.terms = (hidden + in + 1) * max(steps, 1)
		g.c.bnd = &bound{kind: boundNorm, n: 8}
		return g.b.GetTupleElement(g.b.While(cond, body, init), 2)
	}}
}

package runtime_test

import (
	"github.com/kilnml/kiln/ir"
)

// Generators of the elementwise ops: unary, binary (with the builder's
// implicit broadcasts), compare, select, clamp, the conversions,
// reduce-precision, map, and a fused chain of ten.

type unaryFn = func(x ir.Op) ir.Op
type binaryFn = func(x, y ir.Op, bdims ...int) ir.Op

// unaryGen applies f to an operand (maybe a transposed/broadcast/sliced view
// of a parameter), and sometimes feeds the result through a negate or copy
// so the op sits inside a fused chain.
func unaryGen(name string, types func(ir.ElementType) bool, d dist, f func(b *ir.Builder) unaryFn) *opGen {
	return &opGen{name: name, types: types, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		y := f(g.b)(g.operand(s, d))
		if g.intn(4) == 0 {
			y = g.b.Copy(y)
		}
		return y
	}}
}

// binaryGen applies f to two operands: same shape (each maybe a view), a
// scalar on either side, a lower-rank rhs mapped with broadcast dimensions,
// or an rhs with degenerate (size-1) dimensions.
func binaryGen(name string, types func(ir.ElementType) bool, dl, dr dist, f func(b *ir.Builder) binaryFn) *opGen {
	return &opGen{name: name, types: types, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		x, y, bdims := g.binaryOperands(s, dl, dr)
		return f(g.b)(x, y, bdims...)
	}}
}

func (g *gen) binaryOperands(s ir.Shape, dl, dr dist) (x, y ir.Op, bdims []int) {
	t := s.Elem
	switch g.intn(5) {
	case 0:
		if g.coin() {
			return g.param(ir.Scalar(t), dl), g.operand(s, dr), nil
		}
		return g.operand(s, dl), g.param(ir.Scalar(t), dr), nil
	case 1:
		if s.Rank() > 0 {
			kept := g.subset(s.Rank())
			in := make([]int, len(kept))
			for i, k := range kept {
				in[i] = s.Dims[k]
			}
			if len(kept) < s.Rank() {
				return g.operand(s, dl), g.param(ir.MakeShape(t, in...), dr), kept
			}
		}
	case 2:
		if s.Rank() > 0 {
			in := append([]int(nil), s.Dims...)
			for i := range in {
				if g.coin() {
					in[i] = 1
				}
			}
			return g.operand(s, dl), g.param(ir.MakeShape(t, in...), dr), nil
		}
	}
	return g.operand(s, dl), g.operand(s, dr), nil
}

func elementwiseGens() []*opGen {
	un := func(name string, types func(ir.ElementType) bool, d dist, f func(b *ir.Builder) unaryFn) *opGen {
		return unaryGen(name, types, d, f)
	}
	bin := func(name string, types func(ir.ElementType) bool, dl, dr dist, f func(b *ir.Builder) binaryFn) *opGen {
		return binaryGen(name, types, dl, dr, f)
	}
	gens := []*opGen{
		un("abs", signedOrC, anyValues, func(b *ir.Builder) unaryFn { return b.Abs }),
		un("cbrt", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Cbrt }),
		un("ceil", floatOnly, anyValues, func(b *ir.Builder) unaryFn { return b.Ceil }),
		un("count-leading-zeros", integers, anyValues, func(b *ir.Builder) unaryFn { return b.Clz }),
		un("cosine", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Cos }),
		un("erf", floatOnly, anyValues, func(b *ir.Builder) unaryFn { return b.Erf }),
		un("exponential", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Exp }),
		un("exponential-minus-one", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Expm1 }),
		un("floor", floatOnly, anyValues, func(b *ir.Builder) unaryFn { return b.Floor }),
		un("imag", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Imag }),
		un("is-finite", floatOnly, anyValues, func(b *ir.Builder) unaryFn { return b.IsFinite }),
		un("log", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Log }),
		un("log-plus-one", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Log1p }),
		un("logistic", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Logistic }),
		un("negate", numeric, anyValues, func(b *ir.Builder) unaryFn { return b.Neg }),
		un("not", predOrInt, anyValues, func(b *ir.Builder) unaryFn { return b.Not }),
		un("popcnt", integers, anyValues, func(b *ir.Builder) unaryFn { return b.PopulationCount }),
		un("real", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Real }),
		un("round-nearest-afz", floatOnly, anyValues, func(b *ir.Builder) unaryFn { return b.Round }),
		un("round-nearest-even", floatOnly, anyValues, func(b *ir.Builder) unaryFn { return b.RoundNearestEven }),
		un("rsqrt", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Rsqrt }),
		un("sign", signedOrC, anyValues, func(b *ir.Builder) unaryFn { return b.Sign }),
		un("sine", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Sin }),
		un("sqrt", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Sqrt }),
		un("tan", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Tan }),
		un("tanh", floatOrCplx, anyValues, func(b *ir.Builder) unaryFn { return b.Tanh }),
		un("copy", anyType, anyValues, func(b *ir.Builder) unaryFn { return b.Copy }),

		bin("add", numeric, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Add }),
		bin("subtract", numeric, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Sub }),
		bin("multiply", numeric, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Mul }),
		bin("divide", numeric, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Div }),
		bin("remainder", intOrFloat, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Rem }),
		bin("power", numeric, anyValues, smallValues, func(b *ir.Builder) binaryFn { return b.Pow }),
		bin("atan2", floatOrCplx, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Atan2 }),
		bin("maximum", anyType, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Max }),
		bin("minimum", anyType, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Min }),
		bin("and", predOrInt, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.And }),
		bin("or", predOrInt, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Or }),
		bin("xor", predOrInt, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Xor }),
		bin("shift-left", integers, anyValues, shiftValues, func(b *ir.Builder) binaryFn { return b.ShiftLeft }),
		bin("shift-right-arithmetic", integers, anyValues, shiftValues, func(b *ir.Builder) binaryFn { return b.ShiftRightArithmetic }),
		bin("shift-right-logical", integers, anyValues, shiftValues, func(b *ir.Builder) binaryFn { return b.ShiftRightLogical }),
		bin("complex", f32f64, anyValues, anyValues, func(b *ir.Builder) binaryFn { return b.Complex }),
	}
	// power with any exponent (the generator above keeps integer exponents
	// small so integer powers do not all wrap to 0).
	gens = append(gens, &opGen{name: "power-any", hlo: "power", types: floatOrCplx, fusion: true, variant: true, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		g.c.boundKey = "power"
		return g.b.Pow(g.operand(s, anyValues), g.operand(s, anyValues))
	}})
	gens = append(gens, compareGen(), selectGen(), clampGen(), convertGen(), bitcastConvertGen(), bitcastToPredGen(),
		reducePrecisionGen(), mapGen(), chainGen())
	return gens
}

// compareGen compares two operands in every direction with the default
// comparison type (and TOTALORDER for floats), as one tuple.
func compareGen() *opGen {
	return &opGen{name: "compare", types: anyType, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		x, y, bdims := g.binaryOperands(s, anyValues, anyValues)
		if g.intn(3) == 0 {
			y = x // equal operands: EQ/LE/GE hold, except for NaN
			bdims = nil
		}
		var outs []ir.Op
		types := []ir.ComparisonType{ir.CmpTypeDefault}
		if t.IsFloatOrComplex() {
			types = append(types, ir.CmpTypeTotalOrder)
		}
		for _, ct := range types {
			for d := ir.CmpEQ; d <= ir.CmpLT; d++ {
				if t.IsComplex() && d != ir.CmpEQ && d != ir.CmpNE {
					continue // complex numbers are not ordered
				}
				if g.mode == modeHuge && g.intn(4) != 0 {
					continue // a few directions suffice to test the split
				}
				outs = append(outs, g.b.Compare(x, y, d, ct, bdims...))
			}
		}
		if len(outs) == 0 {
			outs = append(outs, g.b.Compare(x, y, ir.CmpEQ, ir.CmpTypeDefault, bdims...))
		}
		return g.b.Tuple(outs...)
	}}
}

func selectGen() *opGen {
	return &opGen{name: "select", types: anyType, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		var p ir.Op
		if g.intn(4) == 0 {
			p = g.param(ir.Scalar(ir.PRED), anyValues)
		} else {
			p = g.operand(s.WithElem(ir.PRED), anyValues)
		}
		return g.b.Select(p, g.operand(s, anyValues), g.operand(s, anyValues))
	}}
}

func clampGen() *opGen {
	return &opGen{name: "clamp", types: anyType, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		bound := func() ir.Op {
			if g.coin() {
				return g.param(ir.Scalar(t), anyValues)
			}
			return g.operand(s, anyValues)
		}
		return g.b.Clamp(bound(), g.operand(s, anyValues), bound())
	}}
}

// convertGen converts one operand to every element type (but real from
// complex, which XLA refuses), as one tuple.
func convertGen() *opGen {
	return &opGen{name: "convert", types: anyType, fusion: true, huge: true, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		x := g.operand(s, anyValues)
		var outs []ir.Op
		for _, to := range ir.ElementTypes {
			if t.IsComplex() && !to.IsComplex() {
				continue
			}
			if g.mode == modeHuge && g.intn(6) != 0 {
				continue // a few targets suffice to test the split
			}
			outs = append(outs, g.b.ConvertElementType(x, to))
		}
		if len(outs) == 0 {
			outs = append(outs, g.b.ConvertElementType(x, t))
		}
		return g.b.Tuple(outs...)
	}}
}

// bitcastConvertGen reinterprets an operand as every type of the same
// width, and as a type of half or twice the width (adding or removing a
// minor dimension).
func bitcastConvertGen() *opGen {
	return &opGen{name: "bitcast-convert", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		x := g.operand(s, anyValues)
		var outs []ir.Op
		for _, to := range ir.ElementTypes {
			if to.BitWidth() != t.BitWidth() || t.IsComplex() != to.IsComplex() || t.BitWidth() < 8 {
				continue
			}
			if to == ir.PRED && t != ir.PRED {
				continue // ir/eval refuses it (bitcastToPredGen checks both refuse)
			}
			outs = append(outs, g.b.BitcastConvertType(x, to))
		}
		w := t.BitWidth()
		if t.IsComplex() {
			w = 0 // complex values bitcast only to complex types of their width
		}
		if w >= 16 && w <= 64 && t != ir.PRED {
			narrow := map[int]ir.ElementType{16: ir.U8, 32: ir.S16, 64: ir.F32, 128: ir.F64}[w]
			outs = append(outs, g.b.BitcastConvertType(x, narrow))
		}
		if w >= 8 && w <= 32 && t != ir.PRED && s.Rank() > 0 {
			wide := map[int]ir.ElementType{8: ir.S16, 16: ir.F32, 32: ir.U64}[w]
			ratio := wide.BitWidth() / w
			d := append(append([]int(nil), s.Dims...), ratio)
			y := g.param(ir.MakeShape(t, d...), anyValues)
			outs = append(outs, g.b.BitcastConvertType(y, wide))
		}
		if len(outs) == 0 {
			return g.b.BitcastConvertType(x, t)
		}
		return g.b.Tuple(outs...)
	}}
}

// bitcastToPredGen bitcasts bytes to PRED, which ir/eval refuses (a byte
// may hold other values than 0 and 1): the compiled path must refuse too.
func bitcastToPredGen() *opGen {
	return &opGen{name: "bitcast-convert-to-pred", hlo: "bitcast-convert", variant: true,
		types: func(t ir.ElementType) bool { return t != ir.PRED && t.BitWidth() == 8 },
		build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.intn(3))...)
			bits := ir.MustNewLiteral(s)
			for i := range bits.Bytes() {
				bits.Bytes()[i] = byte(g.intn(2))
			}
			return g.b.BitcastConvertType(g.paramOf(bits), ir.PRED)
		}}
}

func reducePrecisionGen() *opGen {
	return &opGen{name: "reduce-precision", types: floatOnly, fusion: true, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		e := g.between(1, t.ExponentBits()+2)
		m := g.between(0, t.MantissaBits()+2)
		return g.b.ReducePrecision(g.operand(s, anyValues), e, m)
	}}
}

// mapGen maps a computation of two operands and a scalar: max(x, y)+x for
// numbers, x and not y for PRED.
func mapGen() *opGen {
	return &opGen{name: "map", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		comp := g.binaryComputation("mapped", t, func(b *ir.Builder, x, y ir.Op) ir.Op {
			switch {
			case t == ir.PRED:
				return b.And(x, b.Not(y))
			case t.IsComplex():
				return b.Add(b.Mul(x, y), x)
			}
			return b.Add(b.Max(x, y), x)
		})
		g.c.terms = 2
		dims := make([]int, s.Rank())
		for i := range dims {
			dims[i] = i
		}
		return g.b.Map([]ir.Op{g.operand(s, niceValues), g.operand(s, niceValues)}, comp, dims)
	}}
}

// chainGen builds a chain of ten elementwise ops over views of parameters:
// the fusion the scheduler must get right, compared with and without it.
func chainGen() *opGen {
	return &opGen{name: "fused-chain", hlo: "add", types: floatOnly, fusion: true, variant: true, huge: true, cases: 8, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		b := g.b
		x := g.operand(s, niceValues)
		for range 10 {
			switch g.intn(8) {
			case 0:
				x = b.Add(x, g.operand(s, niceValues))
			case 1:
				x = b.Mul(x, g.param(ir.Scalar(t), niceValues))
			case 2:
				x = b.Max(x, g.operand(s, niceValues))
			case 3:
				x = b.Neg(x)
			case 4:
				x = b.Select(b.Gt(x, g.operand(s, niceValues)), x, b.Abs(x))
			case 5:
				x = b.Sub(g.operand(s, niceValues), x)
			case 6:
				x = b.Floor(x)
			default:
				if s.Rank() >= 2 {
					p := g.perm(s.Rank())
					x = b.Transpose(b.Transpose(x, p), inversePerm(p))
				} else {
					x = b.Abs(x)
				}
			}
		}
		return x
	}}
}

func inversePerm(p []int) []int {
	q := make([]int, len(p))
	for i, x := range p {
		q[x] = i
	}
	return q
}

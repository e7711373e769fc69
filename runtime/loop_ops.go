package runtime

import (
	"math"
	"unsafe"

	kiln "github.com/kilnml/kiln"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// loopOpSupported reports whether the loop executor implements op for its
// operand and result types.
func loopOpSupported(op sched.LoopOp) bool {
	switch op.Op {
	case ssa.OpAdd, ssa.OpSubtract, ssa.OpMultiply, ssa.OpDivide, ssa.OpMaximum, ssa.OpMinimum,
		ssa.Op(ir.OpPower), ssa.Op(ir.OpAtan2), ssa.Op(ir.OpRemainder),
		ssa.OpNegate, ssa.Op(ir.OpAbs), ssa.OpExp, ssa.Op(ir.OpExpm1), ssa.Op(ir.OpLog), ssa.Op(ir.OpLog1p),
		ssa.OpTanh, ssa.Op(ir.OpLogistic), ssa.Op(ir.OpSqrt), ssa.OpRsqrt, ssa.Op(ir.OpCbrt),
		ssa.Op(ir.OpSin), ssa.Op(ir.OpCos), ssa.Op(ir.OpTan), ssa.Op(ir.OpFloor), ssa.Op(ir.OpCeil),
		ssa.Op(ir.OpRoundNearestAfz), ssa.Op(ir.OpRoundNearestEven), ssa.Op(ir.OpSign), ssa.OpErf,
		ssa.Op(ir.OpCosh), ssa.Op(ir.OpSinh), ssa.Op(ir.OpAsinh), ssa.Op(ir.OpAcosh), ssa.Op(ir.OpAtanh),
		ssa.Op(ir.OpAsin), ssa.Op(ir.OpAcos), ssa.Op(ir.OpAtan),
		ssa.OpSelect, ssa.OpClamp, ssa.OpGelu, ssa.OpCopy:
		return op.Type == ir.F32 || op.Op == ssa.OpSelect
	case ssa.OpConvert:
		return true // F32/PRED to F32/PRED
	case ssa.OpCompare, ssa.Op(ir.OpIsFinite):
		return op.Type == ir.PRED
	case ssa.Op(ir.OpAnd), ssa.Op(ir.OpOr), ssa.Op(ir.OpXor), ssa.Op(ir.OpNot):
		return op.Type == ir.PRED
	}
	return false
}

// unaryF32 returns the function of float unary op as ir/ops defines it
// (in float64; the float32 loop rounds each result to float32).
func unaryF32(op ssa.Op) func(float64) float64 {
	switch op {
	case ssa.OpConvert:
		return ops.FloatUnary(ir.OpCopy)
	case ssa.OpRsqrt:
		return ops.FloatUnary(ir.OpRsqrt)
	}
	irOp, _ := op.IR()
	return ops.FloatUnary(irOp)
}

// geluErf and geluTanh are the two forms of GELU, in float64.
func geluErf(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }

func geluTanh(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(0.7978845608028654*(x+0.044715*x*x*x)))
}

// maxF32 and minF32 are XLA's maximum and minimum (ir/ops' FloatMax and
// FloatMin) on float32 values.
func maxF32(a, b float32) float32 { return float32(ops.FloatMax(float64(a), float64(b))) }

func minF32(a, b float32) float32 { return float32(ops.FloatMin(float64(a), float64(b))) }

// binaryF32 returns a float binary op as ir/ops defines it, on float32
// values (computed in float64 and rounded).
func binaryF32(op ir.Opcode) func(x, y float32) float32 {
	f := ops.FloatBinary(op)
	return func(x, y float32) float32 { return float32(f(float64(x), float64(y))) }
}

// fillF32 sets every element of dst to v.
func fillF32(dst []float32, v float32) {
	for i := range dst {
		dst[i] = v
	}
}

// compareBits compares 32-bit integers held as the bits of float32 lanes
// or scalars (intCompare's order); a scalar operand is spread over a tile
// of dst's length first.
func compareBits(in *loopInstr, dst []bool, a, b val, n int) {
	x, y := laneBits(a, n), laneBits(b, n)
	if x == nil && y == nil {
		var one [1]bool
		intCompare(in.dir, in.signed, false, one[:], []uint32{math.Float32bits(a.s)}, []uint32{math.Float32bits(b.s)})
		for i := range dst[:n] {
			dst[i] = one[0]
		}
		return
	}
	if x == nil || y == nil {
		var tile [loopTile]uint32
		sx, sy := math.Float32bits(a.s), math.Float32bits(b.s)
		for i := range tile[:n] {
			tile[i] = sy
			if x == nil {
				tile[i] = sx
			}
		}
		if x == nil {
			x = tile[:n]
		} else {
			y = tile[:n]
		}
	}
	intCompare(in.dir, in.signed, false, dst[:n], x, y)
}

// laneBits returns a slice operand's lanes as 32-bit integers, or nil for
// a scalar.
func laneBits(v val, n int) []uint32 {
	if v.f == nil {
		return nil
	}
	return u32sOf(v.f[:n])
}

// at returns element i of a slice operand or the scalar.
func (v val) at(i int) float32 {
	if v.f != nil {
		return v.f[i]
	}
	return v.s
}

func (v val) mask(i int) bool {
	if v.m != nil {
		return v.m[i]
	}
	return v.sm
}

// vectorUnary maps unary ops to the root package's vector kernels.
var vectorUnary = map[ssa.Op]func(dst, x []float32){
	ssa.OpExp:                     kiln.Exp,
	ssa.Op(ir.OpExpm1):            kiln.Expm1,
	ssa.Op(ir.OpLog):              kiln.Log,
	ssa.Op(ir.OpLog1p):            kiln.Log1p,
	ssa.OpTanh:                    kiln.Tanh,
	ssa.Op(ir.OpLogistic):         kiln.Logistic,
	ssa.Op(ir.OpSqrt):             kiln.Sqrt,
	ssa.OpRsqrt:                   kiln.Rsqrt,
	ssa.Op(ir.OpSin):              kiln.Sin,
	ssa.Op(ir.OpCos):              kiln.Cos,
	ssa.Op(ir.OpFloor):            kiln.Floor,
	ssa.Op(ir.OpCeil):             kiln.Ceil,
	ssa.Op(ir.OpRoundNearestAfz):  kiln.Round,
	ssa.Op(ir.OpRoundNearestEven): kiln.RoundToEven,
	ssa.Op(ir.OpSign):             kiln.Sign,
	ssa.OpErf:                     kiln.Erf,
	ssa.Op(ir.OpAbs):              kiln.Abs,
	ssa.OpNegate:                  kiln.Neg,
	ssa.Op(ir.OpCosh):             kiln.Cosh,
	ssa.Op(ir.OpSinh):             kiln.Sinh,
	ssa.Op(ir.OpAsinh):            kiln.Asinh,
	ssa.Op(ir.OpAcosh):            kiln.Acosh,
	ssa.Op(ir.OpAtanh):            kiln.Atanh,
}

// vectorBinary maps binary ops to their vector kernels: both operands
// slices (vv), a slice and a scalar (vs: x op s) and a scalar and a slice
// (sv: s op x).
var vectorBinary = map[ssa.Op]struct {
	vv     func(dst, x, y []float32)
	vs, sv func(dst, x []float32, s float32)
}{
	ssa.OpAdd:          {kiln.Add, kiln.AddScalar, kiln.AddScalar},
	ssa.OpSubtract:     {kiln.Sub, kiln.SubScalar, kiln.RSubScalar},
	ssa.OpMultiply:     {kiln.Mul, kiln.MulScalar, kiln.MulScalar},
	ssa.OpDivide:       {kiln.Div, kiln.DivScalar, kiln.RDivScalar},
	ssa.OpMaximum:      {kiln.Maximum, kiln.MaximumScalar, kiln.MaximumScalar},
	ssa.OpMinimum:      {kiln.Minimum, kiln.MinimumScalar, kiln.MinimumScalar},
	ssa.Op(ir.OpPower): {kiln.Pow, kiln.PowScalar, kiln.RPowScalar},
}

// opF32 computes a float32-valued op over a tile, with the vector kernels
// where they exist and Go loops (through float64, as the evaluator
// computes) for the rest.
func opF32(in *loopInstr, dst []float32, a, b, c val, n int) {
	if f, ok := vectorUnary[in.op]; ok && a.f != nil {
		f(dst, a.f[:n])
		return
	}
	if k, ok := vectorBinary[in.op]; ok {
		switch {
		case a.f != nil && b.f != nil:
			k.vv(dst, a.f[:n], b.f[:n])
			return
		case a.f != nil:
			k.vs(dst, a.f[:n], b.s)
			return
		case b.f != nil:
			k.sv(dst, b.f[:n], a.s)
			return
		}
	}
	switch in.op {
	case ssa.OpAdd:
		binF32(dst, a, b, func(x, y float32) float32 { return x + y })
	case ssa.OpSubtract:
		binF32(dst, a, b, func(x, y float32) float32 { return x - y })
	case ssa.OpMultiply:
		binF32(dst, a, b, func(x, y float32) float32 { return x * y })
	case ssa.OpDivide:
		binF32(dst, a, b, func(x, y float32) float32 { return x / y })
	case ssa.OpMaximum:
		binF32(dst, a, b, maxF32)
	case ssa.OpMinimum:
		binF32(dst, a, b, minF32)
	case ssa.Op(ir.OpPower), ssa.Op(ir.OpAtan2), ssa.Op(ir.OpRemainder):
		op, _ := in.op.IR()
		binF32(dst, a, b, binaryF32(op))
	case ssa.OpSelect:
		if a.m != nil && b.f != nil && c.f != nil {
			kiln.Select(dst, u8s(a.m[:n]), b.f[:n], c.f[:n])
			return
		}
		if a.m != nil && (b.f != nil) != (c.f != nil) && n > 0 {
			// One branch a scalar (a mask's fill value: -inf, 0): spread
			// over dst, then the vector select in place — unless dst is
			// the other branch's own memory (an output written over its
			// input), which spreading would overwrite first.
			m := a.m[:n]
			if x := b.f; x != nil && &x[0] != &dst[0] {
				fillF32(dst, c.s)
				kiln.Select(dst, u8s(m), x[:n], dst)
				return
			}
			if y := c.f; y != nil && &y[0] != &dst[0] {
				fillF32(dst, b.s)
				kiln.Select(dst, u8s(m), dst, y[:n])
				return
			}
			if b.f != nil {
				x, s := b.f[:n], c.s
				for i := range dst {
					v := s
					if m[i] {
						v = x[i]
					}
					dst[i] = v
				}
				return
			}
			s, y := b.s, c.f[:n]
			for i := range dst {
				v := y[i]
				if m[i] {
					v = s
				}
				dst[i] = v
			}
			return
		}
		for i := range dst {
			if a.mask(i) {
				dst[i] = b.at(i)
			} else {
				dst[i] = c.at(i)
			}
		}
	case ssa.OpClamp: // clamp(lo, x, hi) = min(max(x, lo), hi)
		if a.f == nil && b.f != nil && c.f == nil {
			kiln.Clamp(dst, b.f[:n], a.s, c.s)
			return
		}
		for i := range dst {
			dst[i] = minF32(maxF32(b.at(i), a.at(i)), c.at(i))
		}
	case ssa.OpConvert:
		if in.fromMask && a.m != nil {
			// A mask's bytes are 0 and 1: converted as uint8.
			kiln.U8ToF32(dst, u8s(a.m[:n]))
			return
		}
		if in.fromMask {
			for i := range dst {
				if a.mask(i) {
					dst[i] = 1
				} else {
					dst[i] = 0
				}
			}
			return
		}
		unaryF32Loop(dst, a, unaryF32(ssa.OpCopy))
	case ssa.OpGelu:
		switch {
		case a.f != nil && in.value.Aux == ssa.GeluTanh:
			kiln.GeluTanh(dst, a.f[:n])
		case a.f != nil:
			kiln.Gelu(dst, a.f[:n])
		case in.value.Aux == ssa.GeluTanh:
			unaryF32Loop(dst, a, geluTanh)
		default:
			unaryF32Loop(dst, a, geluErf)
		}
	default:
		unaryF32Loop(dst, a, unaryF32(in.op))
	}
}

// u8s views PRED storage as the uint8 masks of the vector kernels.
func u8s(m []bool) []uint8 {
	if len(m) == 0 {
		return nil
	}
	return unsafe.Slice((*uint8)(unsafe.Pointer(&m[0])), len(m))
}

func unaryF32Loop(dst []float32, a val, f func(float64) float64) {
	if a.f == nil {
		v := float32(f(float64(a.s)))
		for i := range dst {
			dst[i] = v
		}
		return
	}
	for i, x := range a.f[:len(dst)] {
		dst[i] = float32(f(float64(x)))
	}
}

func binF32(dst []float32, a, b val, f func(x, y float32) float32) {
	switch {
	case a.f != nil && b.f != nil:
		x, y := a.f[:len(dst)], b.f[:len(dst)]
		for i := range dst {
			dst[i] = f(x[i], y[i])
		}
	case a.f != nil:
		x, s := a.f[:len(dst)], b.s
		for i := range dst {
			dst[i] = f(x[i], s)
		}
	case b.f != nil:
		s, y := a.s, b.f[:len(dst)]
		for i := range dst {
			dst[i] = f(s, y[i])
		}
	default:
		v := f(a.s, b.s)
		for i := range dst {
			dst[i] = v
		}
	}
}

// opMask computes a PRED-valued op over a tile.
func opMask(in *loopInstr, dst []bool, a, b, c val, n int) {
	switch in.op {
	case ssa.OpCompare:
		if in.intCmp {
			compareBits(in, dst, a, b, n)
			return
		}
		if !in.total && a.f != nil && (b.f != nil || b.m == nil) {
			if k := vectorCompare[in.dir]; k.vv != nil {
				if b.f != nil {
					k.vv(u8s(dst), a.f[:n], b.f[:n])
				} else {
					k.vs(u8s(dst), a.f[:n], b.s)
				}
				return
			}
		}
		for i := range dst {
			dst[i] = compareF32(in.dir, in.total, a.at(i), b.at(i))
		}
	case ssa.Op(ir.OpIsFinite):
		for i := range dst {
			x := float64(a.at(i))
			dst[i] = !math.IsInf(x, 0) && !math.IsNaN(x)
		}
	case ssa.Op(ir.OpAnd):
		for i := range dst {
			dst[i] = a.mask(i) && b.mask(i)
		}
	case ssa.Op(ir.OpOr):
		for i := range dst {
			dst[i] = a.mask(i) || b.mask(i)
		}
	case ssa.Op(ir.OpXor):
		for i := range dst {
			dst[i] = a.mask(i) != b.mask(i)
		}
	case ssa.Op(ir.OpNot):
		for i := range dst {
			dst[i] = !a.mask(i)
		}
	case ssa.OpSelect:
		for i := range dst {
			if a.mask(i) {
				dst[i] = b.mask(i)
			} else {
				dst[i] = c.mask(i)
			}
		}
	case ssa.OpConvert: // F32 or PRED to PRED: x != 0
		for i := range dst {
			if in.fromMask {
				dst[i] = a.mask(i)
			} else {
				dst[i] = a.at(i) != 0
			}
		}
	}
}

// vectorCompare maps IEEE comparisons to their vector kernels (slice with
// slice, and slice with scalar).
var vectorCompare = map[ir.ComparisonDirection]struct {
	vv func(dst []uint8, x, y []float32)
	vs func(dst []uint8, x []float32, s float32)
}{
	ir.CmpEQ: {kiln.Equal, kiln.EqualScalar},
	ir.CmpNE: {kiln.NotEqual, kiln.NotEqualScalar},
	ir.CmpLT: {kiln.Less, kiln.LessScalar},
	ir.CmpLE: {kiln.LessEqual, kiln.LessEqualScalar},
	ir.CmpGT: {kiln.Greater, kiln.GreaterScalar},
	ir.CmpGE: {kiln.GreaterEqual, kiln.GreaterEqualScalar},
}

// compareF32 is XLA's compare (ir/ops' rules): IEEE for FLOAT (NaN
// unordered, so only NE is true), or the total order -NaN < -Inf < … < -0
// < +0 < … < +Inf < +NaN.
func compareF32(d ir.ComparisonDirection, total bool, x, y float32) bool {
	if total {
		return ops.CompareResult(d, ops.Cmp3(ops.TotalOrderKey(uint64(math.Float32bits(x)), 32), ops.TotalOrderKey(uint64(math.Float32bits(y)), 32)))
	}
	return ops.CompareResult(d, ops.Cmp3(float64(x), float64(y)))
}

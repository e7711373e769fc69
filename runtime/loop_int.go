package runtime

// Integer loops: a fused loop whose values are 32-bit integers (s32, u32)
// and PRED masks — the bit mixing of JAX's random numbers (threefry's adds,
// rotations and xors), index arithmetic, comparisons and selects on
// integers — runs tile by tile like the float32 loop, each op a tight loop
// over the tile's uint32 lanes (signedness matters only to compare,
// maximum, minimum, abs and the arithmetic shift, which reinterpret them),
// instead of the generic loop's per-element interpretation. Each op
// computes what ir/ops' IntBinary and IntUnary define for the type (the
// tests check every op against them at the edges: shifts of 32 and more,
// the most negative value, wrapping).

import (
	"math"
	"unsafe"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// intLoopStep evaluates a LoopProgram over 32-bit integers and PRED masks.
type intLoopStep struct {
	out     loc
	outSize int
	dims    []int
	instrs  []intInstr
	loads   []loc
	regs    int
	loopTiles
}

// intInstr is one op of an integer loop.
type intInstr struct {
	op     ssa.Op
	typ    ir.ElementType // S32, U32 or PRED
	kind   instrKind
	args   []int
	reg    int // its register; the last instruction writes the output
	acc    *sched.Access
	linear bool // a load of a contiguous run of the input, read in place
	c      uint32
	cmask  bool
	dir    ir.ComparisonDirection
	signed bool // the operands are signed (compare, maximum, minimum, abs)
	// float: a compare of float32 operands (their bits in the lanes), in
	// the total order when total.
	float, total bool
}

func intLoopTypeOK(t ir.ElementType) bool { return t == ir.S32 || t == ir.U32 || t == ir.PRED }

func isInt32(t ir.ElementType) bool { return t == ir.S32 || t == ir.U32 }

// intLoopOpOK reports whether the integer loop computes op of the program.
func intLoopOpOK(lp *sched.LoopProgram, op sched.LoopOp) bool {
	arg := func(i int) ir.ElementType { return lp.Ops[op.Args[i]].Type }
	same := func() bool {
		for i := range op.Args {
			if arg(i) != op.Type {
				return false
			}
		}
		return true
	}
	switch op.Op {
	case ssa.OpAdd, ssa.OpSubtract, ssa.OpMultiply, ssa.OpMaximum, ssa.OpMinimum,
		ssa.OpDivide, ssa.Op(ir.OpRemainder),
		ssa.Op(ir.OpShiftLeft), ssa.Op(ir.OpShiftRightLogical), ssa.Op(ir.OpShiftRightArithmetic),
		ssa.OpNegate, ssa.Op(ir.OpAbs), ssa.Op(ir.OpSign):
		return isInt32(op.Type) && same()
	case ssa.Op(ir.OpAnd), ssa.Op(ir.OpOr), ssa.Op(ir.OpXor), ssa.Op(ir.OpNot):
		return same()
	case ssa.OpCompare:
		return op.Type == ir.PRED && (isInt32(arg(0)) || arg(0) == ir.F32 || arg(0) == ir.PRED) && arg(1) == arg(0)
	case ssa.OpSelect:
		return arg(0) == ir.PRED && arg(1) == op.Type && arg(2) == op.Type
	case ssa.OpConvert:
		// Between s32 and u32 (the same bits), and to and from PRED.
		return op.Type != arg(0) && arg(0) != ir.F32 && (isInt32(op.Type) || isInt32(arg(0)))
	}
	return false
}

// intLoopValueOK reports whether the integer loop holds op's value: a
// 32-bit integer or a mask, or float32 bits a load or a constant gives
// (which only compares read: intLoopOpOK).
func intLoopValueOK(op sched.LoopOp) bool {
	switch {
	case intLoopTypeOK(op.Type):
		return true
	case op.Type == ir.F32:
		return op.Op == ssa.OpParameter || op.Op == ssa.OpConstant
	}
	return false
}

// intLoopStep compiles a Loop kernel over 32-bit integers and PRED, or
// returns nil when a type or an op is outside what it computes.
func (c *compiler) intLoopStep(k *sched.Kernel, p *program) step {
	lp := k.Loop
	if lp == nil || lp.Rows || len(lp.Ops) > maxLoopOps || !intLoopTypeOK(k.Root.Shape.Elem) {
		return nil
	}
	for _, in := range k.Inputs {
		if !in.Shape.IsArray() || !(intLoopTypeOK(in.Shape.Elem) || in.Shape.Elem == ir.F32) || !in.Shape.HasDefaultLayout() {
			return nil
		}
	}
	ints := false
	s := &intLoopStep{loopTiles: loopTiles{threads: c.cfg.threads}}
	for _, b := range k.In {
		s.loads = append(s.loads, c.loc(b))
	}
	dims, strides := collapseDims(lp)
	s.dims, s.total = dims, prod(dims)
	for i, op := range lp.Ops {
		if !intLoopValueOK(op) {
			return nil
		}
		ints = ints || isInt32(op.Type)
		in := intInstr{op: op.Op, typ: op.Type, args: op.Args, reg: -1}
		switch op.Op {
		case ssa.OpParameter, ssa.OpIota:
			in.kind = instrLoad
			if op.Op == ssa.OpIota {
				in.kind = instrIota
			}
			in.acc = &sched.Access{Input: op.Access.Input, Strides: strides[i], Offset: op.Access.Offset}
			in.linear = op.Op == ssa.OpParameter && in.acc.IsLinear(dims) && !in.acc.IsScalar()
		case ssa.OpConstant:
			in.kind = instrConst
			switch op.Type {
			case ir.PRED:
				in.cmask = op.Scalar.Bools()[0]
			case ir.S32:
				in.c = uint32(ir.Values[int32](op.Scalar)[0])
			case ir.F32:
				in.c = math.Float32bits(ir.Values[float32](op.Scalar)[0])
			default:
				in.c = ir.Values[uint32](op.Scalar)[0]
			}
		default:
			if !intLoopOpOK(lp, op) {
				return nil
			}
			if len(op.Args) > 0 {
				in.signed = lp.Ops[op.Args[0]].Type == ir.S32
			}
			if op.Op == ssa.OpCompare {
				in.dir = op.Value.Attrs.Direction
				if lp.Ops[op.Args[0]].Type == ir.F32 {
					ct := op.Value.Attrs.CompareType
					if ct != ir.CmpTypeDefault && ct != ir.CmpTypeFloat && ct != ir.CmpTypeTotalOrder {
						return nil
					}
					in.float, in.total = true, ct == ir.CmpTypeTotalOrder
				}
			}
		}
		s.instrs = append(s.instrs, in)
	}
	if !ints {
		return nil // PRED alone: the float32 loop's
	}
	s.assignRegisters()
	p.scratch = max(p.scratch, (s.regs+1)*loopTile*4)
	s.out, s.outSize = c.loc(k.Out), k.Root.Shape.Elem.ByteSize()
	s.split(k.Parallel)
	return s
}

// assignRegisters gives each instruction but the last and the in-place
// loads a register (assignLoopRegisters).
func (s *intLoopStep) assignRegisters() {
	s.regs = assignLoopRegisters(len(s.instrs), func(i int) ([]int, *int, bool) {
		in := &s.instrs[i]
		return in.args, &in.reg, !in.linear
	})
}

func (s *intLoopStep) name() string { return "loop-int" }

func (s *intLoopStep) exec(fr *frame) error { return s.run(fr, s) }

// ival is a tile's value: 32-bit lanes or a mask.
type ival struct {
	u []uint32
	m []bool
}

func (s *intLoopStep) part(fr *frame, p, w int) {
	scratch := fr.scratch[w]
	var small [maxLoopOps]ival
	vs := small[:len(s.instrs)]
	out := fr.bytes(s.out)
	s.tiles(fr, p, func(start, n int) {
		dst := out[start*s.outSize : (start+n)*s.outSize]
		for i := range s.instrs {
			s.eval(fr, i, vs, start, n, scratch, dst)
		}
	})
}

func regU32(scratch []byte, r, n int) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(&scratch[r*loopTile*4])), n)
}

func u32s(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// eval computes instruction i for the tile [start, start+n).
func (s *intLoopStep) eval(fr *frame, i int, vs []ival, start, n int, scratch, out []byte) {
	in := &s.instrs[i]
	var dst ival
	switch {
	case i == len(s.instrs)-1 && in.typ == ir.PRED:
		dst.m = bools(out)[:n]
	case i == len(s.instrs)-1:
		dst.u = u32s(out)[:n]
	case in.linear:
	case in.typ == ir.PRED:
		dst.m = regBool(scratch, in.reg, n)
	default:
		dst.u = regU32(scratch, in.reg, n)
	}
	switch in.kind {
	case instrConst:
		for j := range dst.u {
			dst.u[j] = in.c
		}
		for j := range dst.m {
			dst.m[j] = in.cmask
		}
	case instrIota:
		iotaInt(dst.u, s.dims, in.acc.Strides, in.acc.Offset, start)
	case instrLoad:
		src := fr.bytes(s.loads[in.acc.Input])
		switch {
		case in.linear && i != len(s.instrs)-1:
			if in.typ == ir.PRED {
				dst.m = bools(src)[in.acc.Offset+start : in.acc.Offset+start+n]
			} else {
				dst.u = u32s(src)[in.acc.Offset+start : in.acc.Offset+start+n]
			}
		case in.typ == ir.PRED:
			gather(dst.m, bools(src), s.dims, in.acc.Strides, in.acc.Offset, start)
		default:
			gather(dst.u, u32s(src), s.dims, in.acc.Strides, in.acc.Offset, start)
		}
	default:
		a, b, c := operands(vs, in.args)
		intOp(in, dst, a, b, c)
	}
	vs[i] = dst
}

// iotaInt writes offset + Σ strides[d]·idx[d] for the output indices
// start, start+1, … (wrapped to 32 bits).
func iotaInt(dst []uint32, dims, strides []int, offset, start int) {
	forRuns(len(dst), dims, strides, offset, start, func(i, pos, run, step int) {
		x := uint32(pos)
		for j := i; j < i+run; j++ {
			dst[j] = x
			x += uint32(step)
		}
	})
}

// intOp runs one op over a tile into dst. Operands are resliced to the
// tile's length first, so that the loops carry no bounds checks.
func intOp(in *intInstr, dst, a, b, c ival) {
	if in.typ == ir.PRED || in.op == ssa.OpCompare {
		maskOp(in, dst.m, a, b, c)
		return
	}
	d := dst.u
	n := len(d)
	x := a.u
	if x != nil {
		x = x[:n]
	}
	var y []uint32
	if b.u != nil {
		y = b.u[:n]
	}
	switch in.op {
	case ssa.OpAdd:
		for j := range d {
			d[j] = x[j] + y[j]
		}
	case ssa.OpSubtract:
		for j := range d {
			d[j] = x[j] - y[j]
		}
	case ssa.OpMultiply:
		for j := range d {
			d[j] = x[j] * y[j]
		}
	case ssa.OpDivide:
		// XLA's: x/0 is all ones, the most negative value over -1 itself.
		for j := range d {
			u, v := x[j], y[j]
			switch {
			case v == 0:
				d[j] = ^uint32(0)
			case in.signed && v == ^uint32(0):
				d[j] = -u // wraps for the most negative value
			case in.signed:
				d[j] = uint32(int32(u) / int32(v))
			default:
				d[j] = u / v
			}
		}
	case ssa.Op(ir.OpRemainder):
		// XLA's: x rem 0 is x, the most negative value rem -1 is 0; the
		// sign of the dividend.
		for j := range d {
			u, v := x[j], y[j]
			switch {
			case v == 0:
				d[j] = u
			case in.signed && v == ^uint32(0):
				d[j] = 0
			case in.signed:
				d[j] = uint32(int32(u) % int32(v))
			default:
				d[j] = u % v
			}
		}
	case ssa.Op(ir.OpAnd):
		for j := range d {
			d[j] = x[j] & y[j]
		}
	case ssa.Op(ir.OpOr):
		for j := range d {
			d[j] = x[j] | y[j]
		}
	case ssa.Op(ir.OpXor):
		for j := range d {
			d[j] = x[j] ^ y[j]
		}
	case ssa.Op(ir.OpNot):
		for j := range d {
			d[j] = ^x[j]
		}
	case ssa.OpNegate:
		for j := range d {
			d[j] = -x[j]
		}
	case ssa.Op(ir.OpSign):
		for j := range d {
			v := x[j]
			switch {
			case v == 0:
				d[j] = 0
			case in.signed && int32(v) < 0:
				d[j] = ^uint32(0) // -1
			default:
				d[j] = 1
			}
		}
	case ssa.Op(ir.OpAbs):
		for j := range d {
			if v := x[j]; in.signed && int32(v) < 0 {
				d[j] = -v // abs of the most negative value wraps to itself
			} else {
				d[j] = v
			}
		}
	case ssa.Op(ir.OpShiftLeft):
		for j := range d {
			// A count of 32 or more shifts every bit out (Go's shifts
			// give 0 there too; the mask keeps the lane's count in
			// range for the compiler's shift).
			d[j] = x[j] << y[j]
		}
	case ssa.Op(ir.OpShiftRightLogical):
		for j := range d {
			d[j] = x[j] >> y[j]
		}
	case ssa.Op(ir.OpShiftRightArithmetic):
		for j := range d {
			d[j] = uint32(int32(x[j]) >> y[j]) // 32 or more: all sign bits
		}
	case ssa.OpMaximum, ssa.OpMinimum:
		max := in.op == ssa.OpMaximum
		for j := range d {
			u, v := x[j], y[j]
			less := u < v
			if in.signed {
				less = int32(u) < int32(v)
			}
			if less == max {
				d[j] = v
			} else {
				d[j] = u
			}
		}
	case ssa.OpSelect:
		p, z := a.m[:n], c.u[:n]
		y = b.u[:n]
		for j := range d {
			if p[j] {
				d[j] = y[j]
			} else {
				d[j] = z[j]
			}
		}
	case ssa.OpConvert:
		if a.m != nil { // PRED to 0 or 1
			p := a.m[:n]
			for j := range d {
				d[j] = 0
				if p[j] {
					d[j] = 1
				}
			}
			return
		}
		copy(d, x) // s32 and u32: the same bits
	}
}

// intCompare compares 32-bit lanes, as signed or unsigned integers, or
// (total) float32 bits in the total order: their keys, negative floats'
// magnitudes flipped, compared signed. Each direction has its own loop.
func intCompare(d ir.ComparisonDirection, signed, total bool, m []bool, x, y []uint32) {
	y = y[:len(x)]
	m = m[:len(x)]
	if d == ir.CmpEQ || d == ir.CmpNE {
		ne := d == ir.CmpNE
		for j := range m {
			m[j] = (x[j] == y[j]) != ne
		}
		return
	}
	// a < b as unsigned after flipping the sign bit is a < b signed.
	var flip uint32
	if signed {
		flip = 1 << 31
	}
	key := func(u uint32) uint32 {
		if total {
			u ^= uint32(int32(u)>>31) >> 1
		}
		return u ^ flip
	}
	switch d {
	case ir.CmpLT:
		for j := range m {
			m[j] = key(x[j]) < key(y[j])
		}
	case ir.CmpLE:
		for j := range m {
			m[j] = key(x[j]) <= key(y[j])
		}
	case ir.CmpGT:
		for j := range m {
			m[j] = key(x[j]) > key(y[j])
		}
	default:
		for j := range m {
			m[j] = key(x[j]) >= key(y[j])
		}
	}
}

// floatCompare compares the float32 lanes x and y (their bits) as IEEE
// does: a NaN is unordered, so only NE holds with it.
func floatCompare(d ir.ComparisonDirection, m []bool, x, y []uint32) {
	y = y[:len(x)]
	m = m[:len(x)]
	f := func(u uint32) float32 { return math.Float32frombits(u) }
	switch d {
	case ir.CmpEQ:
		for j := range m {
			m[j] = f(x[j]) == f(y[j])
		}
	case ir.CmpNE:
		for j := range m {
			m[j] = f(x[j]) != f(y[j])
		}
	case ir.CmpLT:
		for j := range m {
			m[j] = f(x[j]) < f(y[j])
		}
	case ir.CmpLE:
		for j := range m {
			m[j] = f(x[j]) <= f(y[j])
		}
	case ir.CmpGT:
		for j := range m {
			m[j] = f(x[j]) > f(y[j])
		}
	default:
		for j := range m {
			m[j] = f(x[j]) >= f(y[j])
		}
	}
}

// maskOp runs an op with a PRED result: logical ops and selects on masks,
// comparisons of integers and their conversion to PRED.
func maskOp(in *intInstr, m []bool, a, b, c ival) {
	n := len(m)
	switch in.op {
	case ssa.OpCompare:
		if a.m != nil { // masks: false < true
			p, q := a.m[:n], b.m[:n]
			for j := range m {
				u, v := p[j], q[j]
				switch in.dir {
				case ir.CmpEQ:
					m[j] = u == v
				case ir.CmpNE:
					m[j] = u != v
				case ir.CmpLT:
					m[j] = !u && v
				case ir.CmpLE:
					m[j] = !u || v
				case ir.CmpGT:
					m[j] = u && !v
				default:
					m[j] = u || !v
				}
			}
			return
		}
		x, y := a.u[:n], b.u[:n]
		switch {
		case in.float && !in.total:
			floatCompare(in.dir, m, x, y)
		case in.total:
			intCompare(in.dir, true, true, m, x, y)
		default:
			intCompare(in.dir, in.signed, false, m, x, y)
		}
	case ssa.OpConvert:
		x := a.u[:n]
		for j := range m {
			m[j] = x[j] != 0
		}
	case ssa.Op(ir.OpNot):
		p := a.m[:n]
		for j := range m {
			m[j] = !p[j]
		}
	case ssa.OpSelect:
		p, t, f := a.m[:n], b.m[:n], c.m[:n]
		for j := range m {
			if p[j] {
				m[j] = t[j]
			} else {
				m[j] = f[j]
			}
		}
	default:
		p, q := a.m[:n], b.m[:n]
		for j := range m {
			switch in.op {
			case ssa.Op(ir.OpAnd):
				m[j] = p[j] && q[j]
			case ssa.Op(ir.OpOr):
				m[j] = p[j] || q[j]
			default: // xor
				m[j] = p[j] != q[j]
			}
		}
	}
}

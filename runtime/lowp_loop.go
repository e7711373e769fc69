package runtime

// Fused loops over the narrow float types. A loop program whose values are
// bfloat16, binary16, float32 or PRED runs tile by tile, each value of a
// tile held in one of three forms:
//
//   - narrow: the value's own 16-bit encoding, computed by the typed
//     kernels (AddBF16, ExpF16, SubScalarBF16, …), which widen their
//     operands in registers, compute in float32 and round each result
//     once — ir/ops' definition of narrow arithmetic;
//   - float32: values widened exactly (every bfloat16 and binary16 value is
//     a float32 value), computed by the float32 kernels; an op whose type is
//     narrow but which has no typed kernel rounds its float32 result to the
//     type in the register (RoundBF16F32, RoundF16F32), the same rounding;
//   - PRED masks.
//
// The compiler picks each op's form from the kernels that exist and
// converts an operand between forms only where an op needs the other one
// (widening is exact; narrowing a value already rounded to its type is
// exact too), so a chain of narrow ops never leaves the narrow form, and
// the last op writes the output directly. int8, uint8, int16 and uint16
// inputs that only feed conversions to floats are widened by their
// conversion kernels. No value is ever held in memory beyond a tile.
//
// When the innermost output dimension is long and some op depends only on
// the outer indices (a row statistic broadcast along the row: layer-norm's
// mean and scale, softmax's maximum and sum), tiles stay within one row and
// those ops are computed once per tile, as scalars (rounded to their type
// as well).

import (
	"math"
	"unsafe"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// lowpForm is the form of a tile's values.
type lowpForm uint8

const (
	formF32    lowpForm = iota // float32 (the value's type may be narrow: it is rounded to it)
	formNarrow                 // 16-bit encodings of the value's type
	formMask                   // PRED
)

// lowpInstr kinds beyond the float32 loop's.
const (
	instrWiden     instrKind = iota + 16 // narrow form to float32 (exact)
	instrNarrow                          // float32 to the narrow form (rounds; exact for values of the type)
	instrConv16                          // bfloat16 ↔ binary16 in the narrow form
	instrRowReduce                       // a row program's reduction: the row's tile folded into a scalar
)

// lowpInstr is one instruction of a compiled narrow loop.
type lowpInstr struct {
	loopInstr
	typ     ir.ElementType // the value's type (loads: the input's element type)
	form    lowpForm
	round   ir.ElementType // float32 form of a narrow op without a typed kernel: round the result
	uniform bool           // one value per tile, computed once as a scalar
	alias   bool           // the value is its operand's tile (a conversion that changes nothing)
	toDst   bool           // the instruction writes the tile's output directly
	reducer ssa.Op         // instrRowReduce: the standard reducer
	fused   rowFusion      // a row program's fused pass (args: see rowFusion)
	// Kernels, resolved once.
	unary  func(dst, x []float32)
	vv     func(dst, x, y []float32)
	vs, sv func(dst, x []float32, s float32)
	h1     func(dst, x []uint16)
	hvv    func(dst, x, y []uint16)
	hvs    func(dst, x []uint16, s float32)
	hsv    func(dst, x []uint16, s float32)
	hcmpVV func(dst []uint8, x, y []uint16)
	hcmpVS func(dst []uint8, x []uint16, s float32)
	hsel   func(dst []uint16, m []uint8, x, y []uint16)
	f1     func(float64) float64
	f2     func(x, y float32) float32
}

// lval is a tile operand: a slice of one of the forms, or a scalar.
type lval struct {
	f  []float32
	h  []uint16
	m  []bool
	s  float32
	sm bool
	// lo, hi: a fused sum of squared deviations' least non-zero and
	// largest deviation (rowSqDev).
	lo, hi float32
}

func (v lval) val() val { return val{f: v.f, m: v.m, s: v.s, sm: v.sm} }

// lowpLoop is a compiled narrow loop program. The Loop step below and the
// reductions that compute their operand on the fly run it.
type lowpLoop struct {
	dims    []int // collapsed output dimensions
	total   int
	rowLen  int // tiles stay within rows of this many elements (0: any tile)
	tileLen int // the most elements of a tile: loopTile, or a whole row of a row program
	instrs  []lowpInstr
	loads   []loc
	regs    int // registers per worker (of tileLen float32s)
	staging int // scratch offset of the staging area of narrow gathers
	// stagingLen is the staging area's bytes: a tile of float32, or a
	// row program's batch of kept deviations (runFlat) where larger.
	stagingLen int
	scratch    int // bytes of scratch per worker
	outT       ir.ElementType
}

// lowpTypeOK reports whether a value of type t can live in a narrow loop.
func lowpTypeOK(t ir.ElementType) bool {
	return t == ir.F32 || t == ir.BF16 || t == ir.F16 || t == ir.PRED
}

// lowpNarrow reports whether t is one of the narrow float types.
func lowpNarrow(t ir.ElementType) bool { return t == ir.BF16 || t == ir.F16 }

// lowpIntLoad reports whether an input of type t can be widened into
// float32 by a conversion kernel.
func lowpIntLoad(t ir.ElementType) bool {
	return t == ir.S8 || t == ir.U8 || t == ir.S16 || t == ir.U16
}

// hasNarrow reports whether a loop program touches a narrow float or a
// narrow integer type (the programs this file runs; the float32 loop runs
// the rest).
func hasNarrow(lp *sched.LoopProgram, out ir.ElementType) bool {
	if lowpNarrow(out) {
		return true
	}
	for _, op := range lp.Ops {
		if lowpNarrow(op.Type) || lowpIntLoad(op.Type) {
			return true
		}
	}
	return false
}

// lowpLoopBuilder lowers a loop program to instructions.
type lowpLoopBuilder struct {
	lp      *sched.LoopProgram
	l       *lowpLoop
	of      []int              // lowered instruction of each program op
	conv    []map[lowpForm]int // lowered conversions of each lowered instruction
	uniform []bool             // per program op
}

// compileLowpLoop compiles a loop program reading kernel k's inputs into
// values of type out (its last op's type; a reduction passes F32), or
// returns nil when a type or op is outside what it handles. With
// narrowResult, a result that is the widening of a narrow value is left in
// the narrow form (a reduction folds it with the narrow kernels).
func (c *compiler) compileLowpLoop(lp *sched.LoopProgram, k *sched.Kernel, p *program, narrowResult bool) *lowpLoop {
	if len(lp.Ops) == 0 || len(lp.Ops) > maxLoopOps {
		return nil
	}
	for _, in := range k.Inputs {
		if !in.Shape.IsArray() || !in.Shape.HasDefaultLayout() || !in.Shape.IsStatic() {
			return nil
		}
	}
	users := make([][]int, len(lp.Ops))
	for i, op := range lp.Ops {
		for _, a := range op.Args {
			users[a] = append(users[a], i)
		}
	}
	for i, op := range lp.Ops {
		switch {
		case op.Op == ssa.OpParameter && lowpIntLoad(op.Type), op.Op == ssa.OpIota && op.Type.IsInteger():
			// An integer input (or index) only feeds conversions to floats.
			for _, u := range users[i] {
				if lp.Ops[u].Op != ssa.OpConvert || lp.Ops[u].Type == ir.PRED || !lowpTypeOK(lp.Ops[u].Type) {
					return nil
				}
			}
		case !lowpTypeOK(op.Type):
			return nil
		case op.Op == ssa.OpIota && op.Type == ir.PRED:
			return nil
		case op.Op != ssa.OpParameter && op.Op != ssa.OpIota && op.Op != ssa.OpConstant && !lowpOpSupported(lp, op):
			return nil
		}
	}
	l := &lowpLoop{outT: lp.Ops[len(lp.Ops)-1].Type, tileLen: loopTile}
	for _, b := range k.In {
		l.loads = append(l.loads, c.loc(b))
	}
	dims, strides := collapseDims(lp)
	if lp.Rows {
		dims, strides = collapseRowDims(lp)
	}
	l.dims, l.total = dims, prod(dims)
	b := &lowpLoopBuilder{lp: lp, l: l, of: make([]int, len(lp.Ops))}
	b.uniform = l.chooseTiles(lp, strides)
	for i, op := range lp.Ops {
		b.of[i] = b.lower(i, op, strides[i])
	}
	last := b.of[len(lp.Ops)-1]
	if a, ok := b.widened(last); ok && narrowResult {
		// The reduction folds the narrow operand itself.
		l.outT = l.instrs[a].typ
		last = a
	}
	switch {
	case lowpNarrow(l.outT):
		last = b.need(last, formNarrow)
	case l.outT == ir.F32:
		last = b.need(last, formF32)
	}
	l.instrs = l.instrs[:last+1]
	if lp.Rows {
		l.fuseBF16Rows()
		last = l.dropDead()
	}
	fin := &l.instrs[last]
	fin.toDst = !fin.uniform && !fin.alias
	l.assignRegisters()
	var sp scratchPlan
	sp.take(l.regs * l.tileLen * 4)
	l.stagingLen = l.tileLen * 4
	if lp.Rows {
		// The flat row loop keeps a batch of rows' deviations there.
		l.stagingLen = max(l.stagingLen, flatKeepRows*l.tileLen*2)
	}
	l.staging = sp.take(l.stagingLen)
	l.scratch = sp.size
	reserveScratch(p, l.scratch)
	return l
}

// widened reports whether lowered instruction j is the conversion to
// float32 of a tile of narrow values, and returns that tile's instruction.
func (b *lowpLoopBuilder) widened(j int) (int, bool) {
	in := &b.l.instrs[j]
	if !in.alias || in.kind != instrOp || in.op != ssa.OpConvert {
		return 0, false
	}
	a := in.args[0]
	if b.l.instrs[a].kind == instrWiden {
		a = b.l.instrs[a].args[0]
	}
	src := &b.l.instrs[a]
	return a, src.form == formNarrow && !src.uniform
}

// emit appends a lowered instruction and returns its index.
func (b *lowpLoopBuilder) emit(in lowpInstr) int {
	in.reg = -1
	b.l.instrs = append(b.l.instrs, in)
	b.conv = append(b.conv, nil)
	return len(b.l.instrs) - 1
}

// need returns a lowered instruction holding instruction j's value in form
// f, emitting the conversion the first time it is asked for. Uniform
// values are scalars of every form.
func (b *lowpLoopBuilder) need(j int, f lowpForm) int {
	src := &b.l.instrs[j]
	if src.uniform || src.form == f || src.form == formMask {
		return j
	}
	if k, ok := b.conv[j][f]; ok {
		return k
	}
	in := lowpInstr{typ: src.typ, form: f, loopInstr: loopInstr{args: []int{j}}}
	if f == formF32 {
		in.kind = instrWiden
	} else {
		in.kind = instrNarrow
	}
	k := b.emit(in)
	if b.conv[j] == nil {
		b.conv[j] = map[lowpForm]int{}
	}
	b.conv[j][f] = k
	return k
}

// lower lowers program op i.
func (b *lowpLoopBuilder) lower(i int, op sched.LoopOp, strides []int) int {
	lp, l := b.lp, b.l
	in := lowpInstr{loopInstr: loopInstr{op: op.Op, value: op.Value}, typ: op.Type, uniform: b.uniform[i]}
	in.form = formF32
	if op.Type == ir.PRED {
		in.form = formMask
	}
	in.loopInstr.typ = ir.F32
	if op.Type == ir.PRED {
		in.loopInstr.typ = ir.PRED
	}
	switch op.Op {
	case ssa.OpParameter, ssa.OpIota:
		in.kind = instrLoad
		if op.Op == ssa.OpIota {
			in.kind = instrIota
			in.round = roundOf(op.Type)
		} else if lowpNarrow(op.Type) {
			in.form = formNarrow
		}
		in.acc = &sched.Access{Input: op.Access.Input, Strides: strides, Offset: op.Access.Offset}
		in.scalar = in.acc.IsScalar()
		in.linear = op.Op == ssa.OpParameter && in.acc.IsLinear(l.dims)
		return b.emit(in)
	case ssa.OpReduce:
		return b.lowerRowReduce(in, op)
	case ssa.OpConstant:
		in.kind = instrConst
		if op.Type == ir.PRED {
			in.cmask = op.Scalar.Bools()[0]
		} else {
			var f [1]float64
			ops.LoadFloats(f[:], op.Scalar.Bytes(), op.Type, 0)
			in.c = float32(f[0])
		}
		return b.emit(in)
	}
	in.kind = instrOp
	argT := make([]ir.ElementType, len(op.Args))
	for j, a := range op.Args {
		argT[j] = lp.Ops[a].Type
	}
	if op.Op == ssa.OpConvert {
		in.fromMask = argT[0] == ir.PRED
	}
	if op.Op == ssa.OpCompare {
		in.dir = op.Value.Attrs.Direction
		in.total = op.Value.Attrs.CompareType == ir.CmpTypeTotalOrder
	}
	if in.uniform {
		in.resolveScalar(op)
		if lowpNarrow(op.Type) && !exactInType(lp, op) {
			in.round = op.Type
		}
		for _, a := range op.Args {
			in.args = append(in.args, b.of[a])
		}
		return b.emit(in)
	}
	uni := func(j int) bool { return b.l.instrs[b.of[op.Args[j]]].uniform }
	args := func(f ...lowpForm) {
		for j, a := range op.Args {
			in.args = append(in.args, b.need(b.of[a], f[min(j, len(f)-1)]))
		}
	}
	switch {
	case op.Op == ssa.OpConvert && !in.fromMask && op.Type != ir.PRED:
		from := argT[0]
		switch {
		case op.Type == from || op.Type == ir.F32:
			in.alias = true
			in.form = formF32
			if op.Type == from {
				in.form = b.l.instrs[b.of[op.Args[0]]].form
			}
			args(in.form)
		case lowpNarrow(from): // bfloat16 ↔ binary16
			in.kind, in.form = instrConv16, formNarrow
			args(formNarrow)
		default: // float32 (or a widened integer) to a narrow type: rounds
			in.kind, in.form = instrNarrow, formNarrow
			args(formF32)
		}
		return b.emit(in)
	case lowpNarrow(op.Type) && in.resolveNarrow(op, uni):
		in.form = formNarrow
		switch op.Op {
		case ssa.OpSelect:
			args(formMask, formNarrow)
		default:
			args(formNarrow)
		}
		return b.emit(in)
	case op.Type == ir.PRED && op.Op == ssa.OpCompare && lowpNarrow(argT[0]) && in.resolveNarrowCompare(op, uni):
		args(formNarrow)
		return b.emit(in)
	}
	in.resolve(op)
	if lowpNarrow(op.Type) && !exactInType(lp, op) {
		in.round = op.Type
	}
	for j, a := range op.Args {
		f := formF32
		if argT[j] == ir.PRED {
			f = formMask
		}
		in.args = append(in.args, b.need(b.of[a], f))
	}
	return b.emit(in)
}

// roundOf is the rounding a value of type t needs in float32 form.
func roundOf(t ir.ElementType) ir.ElementType {
	if lowpNarrow(t) {
		return t
	}
	return 0
}

// lowpOpSupported reports whether the narrow loop computes op: the float32
// loop's ops, with float operands of any of the loop's types.
func lowpOpSupported(lp *sched.LoopProgram, op sched.LoopOp) bool {
	if op.Op == ssa.OpReduce {
		return rowReduceSupported(lp, op)
	}
	probe := op
	if op.Type != ir.PRED {
		probe.Type = ir.F32
	}
	if !loopOpSupported(probe) {
		return false
	}
	for i, a := range op.Args {
		t := lp.Ops[a].Type
		switch {
		case op.Op == ssa.OpConvert:
			if lowpIntLoad(t) && op.Type == ir.PRED {
				return false
			}
		case op.Op == ssa.OpSelect && i == 0:
			if t != ir.PRED {
				return false
			}
		case op.Op == ssa.OpSelect:
			if t != op.Type {
				return false
			}
		case op.Type == ir.PRED && op.Op != ssa.OpCompare && op.Op != ssa.Op(ir.OpIsFinite):
			if t != ir.PRED {
				return false
			}
		default:
			if t == ir.PRED || !lowpTypeOK(t) {
				return false
			}
		}
	}
	return true
}

// exactInType reports whether op's result is already a value of its narrow
// type whenever its float operands are of that type (selections, sign
// changes, maximum and minimum pick or negate an operand), so it needs no
// rounding.
func exactInType(lp *sched.LoopProgram, op sched.LoopOp) bool {
	switch op.Op {
	case ssa.OpSelect, ssa.OpMaximum, ssa.OpMinimum, ssa.OpNegate, ssa.Op(ir.OpAbs), ssa.OpCopy, ssa.OpClamp,
		ssa.OpConvert:
	default:
		return false
	}
	for i, a := range op.Args {
		t := lp.Ops[a].Type
		if op.Op == ssa.OpSelect && i == 0 {
			continue
		}
		if op.Op == ssa.OpConvert && (t == ir.PRED || t == ir.S8 || t == ir.U8) {
			continue // 0 and 1, and 8-bit integers, are values of both narrow types
		}
		if t != op.Type {
			return false
		}
	}
	return true
}

// chooseTiles keeps tiles within rows when the innermost dimension is long
// enough and some op or load depends only on the outer indices (a row
// statistic, or its value broadcast along the rows: read once per tile
// rather than gathered element by element), and returns which program ops
// are uniform over a tile.
func (l *lowpLoop) chooseTiles(lp *sched.LoopProgram, strides [][]int) []bool {
	r := len(l.dims)
	uniform := func(rowTiles bool) []bool {
		u := make([]bool, len(lp.Ops))
		for i, op := range lp.Ops {
			switch op.Op {
			case ssa.OpConstant, ssa.OpReduce:
				u[i] = true // a row reduction: one value per row, and tiles are rows
			case ssa.OpParameter, ssa.OpIota:
				u[i] = true
				for d, st := range strides[i] {
					if st != 0 && (!rowTiles || d == r-1) {
						u[i] = false
					}
				}
			default:
				u[i] = true
				for _, a := range op.Args {
					u[i] = u[i] && u[a]
				}
			}
		}
		return u
	}
	if lp.Rows {
		// A row program computes each row whole.
		l.rowLen, l.tileLen = l.dims[r-1], max(l.dims[r-1], 1)
		return uniform(true)
	}
	if r >= 2 && l.dims[r-1] >= 64 {
		u, any := uniform(true), uniform(false)
		for i, op := range lp.Ops {
			if u[i] && op.Op != ssa.OpConstant && (!any[i] || op.Op != ssa.OpParameter && op.Op != ssa.OpIota) {
				l.rowLen = l.dims[r-1]
				return u
			}
		}
	}
	return uniform(false)
}

// assignRegisters gives each instruction whose value is a tile a register,
// reusing registers after their last use. Uniform values need none, nor do
// contiguous loads read in place, aliases, or the instruction that writes
// the output.
func (l *lowpLoop) assignRegisters() {
	last := make([]int, len(l.instrs))
	for i := range last {
		last[i] = -1
	}
	for i, in := range l.instrs {
		for _, a := range in.args {
			last[a] = i
		}
	}
	// An alias lives as long as its users: its operand's register is held
	// until the alias's last use.
	for i := len(l.instrs) - 1; i >= 0; i-- {
		if in := l.instrs[i]; in.alias && len(in.args) == 1 && last[i] > last[in.args[0]] {
			last[in.args[0]] = last[i]
		}
	}
	dies := make([][]int, len(l.instrs))
	for j, i := range last {
		if i >= 0 {
			dies[i] = append(dies[i], j)
		}
	}
	var free []int
	for i := range l.instrs {
		in := &l.instrs[i]
		inPlace := in.kind == instrLoad && in.linear && !in.toDst && (in.form == formNarrow || in.typ == ir.F32 || in.typ == ir.PRED)
		if !in.uniform && !inPlace && !in.alias && !in.toDst {
			if len(free) > 0 {
				in.reg, free = free[len(free)-1], free[:len(free)-1]
			} else {
				in.reg = l.regs
				l.regs++
			}
		}
		// The result took its register before the operands' registers are
		// freed, so it never overlays an operand.
		for _, j := range dies[i] {
			if l.instrs[j].reg >= 0 {
				free = append(free, l.instrs[j].reg)
			}
		}
	}
}

// segment returns the length of the tile starting at output element start
// and ending at most at hi.
func (l *lowpLoop) segment(start, hi int) int {
	n := min(l.tileLen, hi-start)
	if l.rowLen > 0 {
		n = min(n, l.rowLen-start%l.rowLen)
	}
	return n
}

// tileIndex holds the outer index of a tile (the row it lies in).
type tileIndex struct {
	idx [ops.MaxRank]int
}

// tile evaluates the program for output elements [start, start+n),
// leaving each instruction's value in vs; the instruction marked toDst
// writes into dst (n elements of the result's type and form).
func (l *lowpLoop) tile(fr *frame, vs []lval, start, n int, scratch, dst []byte) {
	var ti tileIndex
	if l.rowLen > 0 {
		rem := start
		for d := len(l.dims) - 1; d >= 0; d-- {
			ti.idx[d] = rem % l.dims[d]
			rem /= l.dims[d]
		}
	}
	for i := range l.instrs {
		l.eval(fr, &l.instrs[i], vs, i, start, n, scratch, dst, &ti)
	}
}

// uniformPos is the position an access reads for every element of a tile.
func (l *lowpLoop) uniformPos(acc *sched.Access, ti *tileIndex) int {
	pos := acc.Offset
	if l.rowLen > 0 {
		for d := 0; d < len(l.dims)-1; d++ {
			pos += acc.Strides[d] * ti.idx[d]
		}
	}
	return pos
}

// eval computes instruction i over the tile.
func (l *lowpLoop) eval(fr *frame, in *lowpInstr, vs []lval, i, start, n int, scratch, dst []byte, ti *tileIndex) {
	if in.kind == instrRowReduce {
		if in.fused == rowSqDev {
			s, lo, hi := l.rowSqDev(in, vs, n)
			vs[i] = lval{s: s, lo: lo, hi: hi}
			return
		}
		vs[i] = lval{s: l.rowReduce(in, vs, n, f32s(scratch[l.staging:l.staging+l.tileLen*4]))}
		return
	}
	if in.uniform {
		vs[i] = lval{}
		l.evalUniform(fr, in, vs, ti, &vs[i])
		return
	}
	var mem []byte
	switch {
	case in.toDst:
		mem = dst
	case in.reg >= 0:
		mem = scratch[in.reg*l.tileLen*4 : (in.reg+1)*l.tileLen*4]
	}
	dstF := func() []float32 { return f32s(mem)[:n] }
	dstH := func() []uint16 { return ops.Elems[uint16](mem)[:n] }
	switch in.kind {
	case instrIota:
		d := dstF()
		iota32(d, l.dims, in.acc.Strides, in.acc.Offset, start)
		roundInPlace(in.round, d, d)
		vs[i] = lval{f: d}
		return
	case instrLoad:
		src := fr.bytes(l.loads[in.acc.Input])
		vs[i] = l.load(in, mem, src, scratch[l.staging:l.staging+l.tileLen*4], start, n)
		return
	}
	if in.fused != 0 {
		d := ops.Elems[uint16](mem)[:n]
		l.evalFusedRow(in, vs, d)
		vs[i] = lval{h: d}
		return
	}
	a, b, c := operands(vs, in.args)
	switch in.kind {
	case instrWiden:
		d := dstF()
		widen16(in.typ, d, a.h[:n])
		vs[i] = lval{f: d}
		return
	case instrNarrow:
		d := dstH()
		narrow16(in.typ, d, a.f[:n])
		vs[i] = lval{h: d}
		return
	case instrConv16:
		d := dstH()
		if in.typ == ir.BF16 {
			kiln.F16ToBF16(d, a.h[:n])
		} else {
			kiln.BF16ToF16(d, a.h[:n])
		}
		vs[i] = lval{h: d}
		return
	}
	if in.alias {
		vs[i] = a
		return
	}
	switch in.form {
	case formMask:
		m := bools(mem)[:n]
		switch {
		case in.hcmpVV != nil && a.h != nil && b.h != nil:
			in.hcmpVV(u8s(m), a.h[:n], b.h[:n])
		case in.hcmpVS != nil && a.h != nil:
			in.hcmpVS(u8s(m), a.h[:n], b.s)
		case in.hcmpVS != nil:
			in.hcmpVS(u8s(m), b.h[:n], a.s) // the direction was swapped when resolved
		default:
			opMask(&in.loopInstr, m, a.val(), b.val(), c.val(), n)
		}
		vs[i] = lval{m: m}
	case formNarrow:
		d := dstH()
		switch {
		case in.h1 != nil:
			in.h1(d, a.h[:n])
		case in.hsel != nil:
			in.hsel(d, u8s(a.m[:n]), b.h[:n], c.h[:n])
		case a.h != nil && b.h != nil:
			in.hvv(d, a.h[:n], b.h[:n])
		case a.h != nil:
			in.hvs(d, a.h[:n], b.s)
		default:
			in.hsv(d, b.h[:n], a.s)
		}
		vs[i] = lval{h: d}
	default:
		d := dstF()
		switch {
		case in.unary != nil:
			in.unary(d, a.f[:n])
		case in.vv != nil && a.f != nil && b.f != nil:
			in.vv(d, a.f[:n], b.f[:n])
		case in.vv != nil && a.f != nil:
			in.vs(d, a.f[:n], b.s)
		case in.vv != nil:
			in.sv(d, b.f[:n], a.s)
		default:
			opF32(&in.loopInstr, d, a.val(), b.val(), c.val(), n)
		}
		roundInPlace(in.round, d, d)
		vs[i] = lval{f: d}
	}
}

// load reads a tile of an input: a contiguous float32, PRED or narrow run
// in place, anything else gathered (and integers widened) into mem.
func (l *lowpLoop) load(in *lowpInstr, mem, src, stage []byte, start, n int) lval {
	acc := in.acc
	dims := l.dims
	switch {
	case in.typ == ir.PRED:
		if in.linear && !in.toDst {
			return lval{m: bools(src)[acc.Offset+start : acc.Offset+start+n]}
		}
		d := bools(mem)[:n]
		gather(d, bools(src), dims, acc.Strides, acc.Offset, start)
		return lval{m: d}
	case in.typ == ir.F32:
		if in.linear && !in.toDst {
			return lval{f: f32s(src)[acc.Offset+start : acc.Offset+start+n]}
		}
		d := f32s(mem)[:n]
		gather(d, f32s(src), dims, acc.Strides, acc.Offset, start)
		return lval{f: d}
	case in.form == formNarrow:
		x := ops.Elems[uint16](src)
		if in.linear && !in.toDst {
			return lval{h: x[acc.Offset+start : acc.Offset+start+n]}
		}
		d := ops.Elems[uint16](mem)[:n]
		gather(d, x, dims, acc.Strides, acc.Offset, start)
		return lval{h: d}
	}
	d := f32s(mem)[:n]
	if in.typ.ByteSize() == 2 {
		x := ops.Elems[uint16](src)
		run := x[min(acc.Offset+start, len(x)):min(acc.Offset+start+n, len(x))]
		if !in.linear {
			run = ops.Elems[uint16](stage)[:n]
			gather(run, x, dims, acc.Strides, acc.Offset, start)
		}
		widen16(in.typ, d, run)
		return lval{f: d}
	}
	run := src[min(acc.Offset+start, len(src)):min(acc.Offset+start+n, len(src))]
	if !in.linear {
		run = stage[:n]
		gather(run, src, dims, acc.Strides, acc.Offset, start)
	}
	if in.typ == ir.S8 {
		kiln.S8ToF32(d, unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(run))), len(run)))
	} else {
		kiln.U8ToF32(d, run)
	}
	return lval{f: d}
}

// widen16 widens 16-bit elements of type t to float32.
func widen16(t ir.ElementType, dst []float32, x []uint16) {
	switch t {
	case ir.BF16:
		kiln.BF16ToF32(dst, x)
	case ir.F16:
		kiln.F16ToF32(dst, x)
	case ir.S16:
		kiln.S16ToF32(dst, unsafe.Slice((*int16)(unsafe.Pointer(unsafe.SliceData(x))), len(x)))
	default:
		kiln.U16ToF32(dst, x)
	}
}

// narrow16 rounds float32 values to bfloat16 or binary16 bits.
func narrow16(t ir.ElementType, dst []uint16, x []float32) {
	if t == ir.BF16 {
		kiln.F32ToBF16(dst, x)
	} else {
		kiln.F32ToF16(dst, x)
	}
}

// roundInPlace rounds float32 values x to the narrow type t into dst (0:
// none).
func roundInPlace(t ir.ElementType, dst, x []float32) {
	switch t {
	case ir.BF16:
		kiln.RoundBF16F32(dst, x)
	case ir.F16:
		kiln.RoundF16F32(dst, x)
	}
}

// roundScalar rounds one float32 value to the narrow type t (0: none).
func roundScalar(t ir.ElementType, x float32) float32 {
	switch t {
	case ir.BF16:
		return ir.BFloat16FromFloat32(x).Float32()
	case ir.F16:
		return ir.Float16FromFloat32(x).Float32()
	}
	return x
}

// narrowBits is the encoding of a float32 value of a narrow type.
func narrowBits(t ir.ElementType, x float32) uint16 {
	if t == ir.BF16 {
		return uint16(ir.BFloat16FromFloat32(x))
	}
	return uint16(ir.Float16FromFloat32(x))
}

// scalarAt reads element pos of src (of type t) as a float32 or PRED value.
func scalarAt(t ir.ElementType, src []byte, pos int) lval {
	switch t {
	case ir.PRED:
		return lval{sm: bools(src)[pos]}
	case ir.F32:
		return lval{s: f32s(src)[pos]}
	case ir.BF16:
		return lval{s: ir.BFloat16(ops.Elems[uint16](src)[pos]).Float32()}
	case ir.F16:
		return lval{s: ir.Float16(ops.Elems[uint16](src)[pos]).Float32()}
	case ir.S8:
		return lval{s: float32(int8(src[pos]))}
	case ir.U8:
		return lval{s: float32(src[pos])}
	case ir.S16:
		return lval{s: float32(ops.Elems[int16](src)[pos])}
	}
	return lval{s: float32(ops.Elems[uint16](src)[pos])}
}

// evalUniform computes an instruction whose value is the same for the
// whole tile, into v (the operands by reference: a tile operand is a large
// value, and the scalar path runs once per row).
func (l *lowpLoop) evalUniform(fr *frame, in *lowpInstr, vs []lval, ti *tileIndex, v *lval) {
	switch in.kind {
	case instrConst:
		v.s, v.sm = in.c, in.cmask
		return
	case instrLoad:
		*v = scalarAt(in.typ, fr.bytes(l.loads[in.acc.Input]), l.uniformPos(in.acc, ti))
		return
	case instrIota:
		v.s = roundScalar(in.round, float32(l.uniformPos(in.acc, ti)))
		return
	}
	var none lval
	a, b, c := &none, &none, &none
	if len(in.args) > 0 {
		a = &vs[in.args[0]]
	}
	if len(in.args) > 1 {
		b = &vs[in.args[1]]
	}
	if len(in.args) > 2 {
		c = &vs[in.args[2]]
	}
	if in.loopInstr.typ == ir.F32 {
		v.s = roundScalar(in.round, in.scalarF32(a, b, c))
		return
	}
	v.sm = in.scalarMask(a, b, c)
}

// resolve looks up the float32 kernels of an op.
func (in *lowpInstr) resolve(op sched.LoopOp) {
	in.resolveScalar(op)
	if op.Type == ir.PRED {
		return
	}
	switch op.Op {
	case ssa.OpGelu:
		in.unary = kiln.Gelu
		if op.Value.Aux == ssa.GeluTanh {
			in.unary = kiln.GeluTanh
		}
	default:
		in.unary = vectorUnary[op.Op]
	}
	if k, ok := vectorBinary[op.Op]; ok {
		in.vv, in.vs, in.sv = k.vv, k.vs, k.sv
	}
}

// resolveScalar looks up the float64 definitions of an op computed on
// scalars.
func (in *lowpInstr) resolveScalar(op sched.LoopOp) {
	if op.Type == ir.PRED {
		return
	}
	switch op.Op {
	case ssa.Op(ir.OpPower), ssa.Op(ir.OpAtan2), ssa.Op(ir.OpRemainder):
		irOp, _ := op.Op.IR()
		in.f2 = binaryF32(irOp)
	case ssa.OpAdd, ssa.OpSubtract, ssa.OpMultiply, ssa.OpDivide, ssa.OpMaximum, ssa.OpMinimum,
		ssa.OpSelect, ssa.OpClamp, ssa.OpNegate, ssa.Op(ir.OpAbs), ssa.OpConvert, ssa.OpGelu, ssa.OpCopy:
	default:
		in.f1 = unaryF32(op.Op)
	}
}

// narrowKernels are the typed kernels of one narrow type.
type narrowKernels struct {
	unary  map[ssa.Op]func(dst, x []uint16)
	binary map[ssa.Op]narrowBinary
	cmpVV  map[ir.ComparisonDirection]func(dst []uint8, x, y []uint16)
	cmpVS  map[ir.ComparisonDirection]func(dst []uint8, x []uint16, s float32)
	sel    func(dst []uint16, m []uint8, x, y []uint16)
}

// narrowBinary is a binary typed kernel: both operands tiles (vv), a tile
// and a scalar (vs: x op s), a scalar and a tile (sv: s op x).
type narrowBinary struct {
	vv     func(dst, x, y []uint16)
	vs, sv func(dst, x []uint16, s float32)
}

var bf16Kernels = narrowKernels{
	unary: map[ssa.Op]func(dst, x []uint16){
		ssa.OpNegate: kiln.NegBF16, ssa.Op(ir.OpAbs): kiln.AbsBF16, ssa.Op(ir.OpSqrt): kiln.SqrtBF16,
		ssa.OpRsqrt: kiln.RsqrtBF16, ssa.OpExp: kiln.ExpBF16, ssa.Op(ir.OpExpm1): kiln.Expm1BF16,
		ssa.Op(ir.OpLog): kiln.LogBF16, ssa.Op(ir.OpLog1p): kiln.Log1pBF16, ssa.OpTanh: kiln.TanhBF16,
		ssa.Op(ir.OpLogistic): kiln.LogisticBF16, ssa.OpErf: kiln.ErfBF16,
		ssa.Op(ir.OpFloor): kiln.FloorBF16, ssa.Op(ir.OpCeil): kiln.CeilBF16,
		ssa.Op(ir.OpRoundNearestEven): kiln.RoundToEvenBF16, ssa.Op(ir.OpRoundNearestAfz): kiln.RoundBF16,
		ssa.Op(ir.OpSign): kiln.SignBF16,
	},
	binary: map[ssa.Op]narrowBinary{
		ssa.OpAdd:          {kiln.AddBF16, kiln.AddScalarBF16, kiln.AddScalarBF16},
		ssa.OpSubtract:     {kiln.SubBF16, kiln.SubScalarBF16, kiln.RSubScalarBF16},
		ssa.OpMultiply:     {kiln.MulBF16, kiln.MulScalarBF16, kiln.MulScalarBF16},
		ssa.OpDivide:       {kiln.DivBF16, kiln.DivScalarBF16, kiln.RDivScalarBF16},
		ssa.OpMaximum:      {kiln.MaximumBF16, kiln.MaximumScalarBF16, kiln.MaximumScalarBF16},
		ssa.OpMinimum:      {kiln.MinimumBF16, kiln.MinimumScalarBF16, kiln.MinimumScalarBF16},
		ssa.Op(ir.OpPower): {kiln.PowBF16, kiln.PowScalarBF16, kiln.RPowScalarBF16},
	},
	cmpVV: map[ir.ComparisonDirection]func(dst []uint8, x, y []uint16){
		ir.CmpEQ: kiln.EqualBF16, ir.CmpNE: kiln.NotEqualBF16, ir.CmpLT: kiln.LessBF16,
		ir.CmpLE: kiln.LessEqualBF16, ir.CmpGT: kiln.GreaterBF16, ir.CmpGE: kiln.GreaterEqualBF16,
	},
	cmpVS: map[ir.ComparisonDirection]func(dst []uint8, x []uint16, s float32){
		ir.CmpEQ: kiln.EqualScalarBF16, ir.CmpNE: kiln.NotEqualScalarBF16, ir.CmpLT: kiln.LessScalarBF16,
		ir.CmpLE: kiln.LessEqualScalarBF16, ir.CmpGT: kiln.GreaterScalarBF16, ir.CmpGE: kiln.GreaterEqualScalarBF16,
	},
	sel: kiln.SelectBF16,
}

var f16Kernels = narrowKernels{
	unary: map[ssa.Op]func(dst, x []uint16){
		ssa.OpNegate: kiln.NegF16, ssa.Op(ir.OpAbs): kiln.AbsF16, ssa.Op(ir.OpSqrt): kiln.SqrtF16,
		ssa.OpRsqrt: kiln.RsqrtF16, ssa.OpExp: kiln.ExpF16, ssa.Op(ir.OpExpm1): kiln.Expm1F16,
		ssa.Op(ir.OpLog): kiln.LogF16, ssa.Op(ir.OpLog1p): kiln.Log1pF16, ssa.OpTanh: kiln.TanhF16,
		ssa.Op(ir.OpLogistic): kiln.LogisticF16, ssa.OpErf: kiln.ErfF16,
		ssa.Op(ir.OpFloor): kiln.FloorF16, ssa.Op(ir.OpCeil): kiln.CeilF16,
		ssa.Op(ir.OpRoundNearestEven): kiln.RoundToEvenF16, ssa.Op(ir.OpRoundNearestAfz): kiln.RoundF16,
		ssa.Op(ir.OpSign): kiln.SignF16,
	},
	binary: map[ssa.Op]narrowBinary{
		ssa.OpAdd:          {kiln.AddF16, kiln.AddScalarF16, kiln.AddScalarF16},
		ssa.OpSubtract:     {kiln.SubF16, kiln.SubScalarF16, kiln.RSubScalarF16},
		ssa.OpMultiply:     {kiln.MulF16, kiln.MulScalarF16, kiln.MulScalarF16},
		ssa.OpDivide:       {kiln.DivF16, kiln.DivScalarF16, kiln.RDivScalarF16},
		ssa.OpMaximum:      {kiln.MaximumF16, kiln.MaximumScalarF16, kiln.MaximumScalarF16},
		ssa.OpMinimum:      {kiln.MinimumF16, kiln.MinimumScalarF16, kiln.MinimumScalarF16},
		ssa.Op(ir.OpPower): {kiln.PowF16, kiln.PowScalarF16, kiln.RPowScalarF16},
	},
	cmpVV: map[ir.ComparisonDirection]func(dst []uint8, x, y []uint16){
		ir.CmpEQ: kiln.EqualF16, ir.CmpNE: kiln.NotEqualF16, ir.CmpLT: kiln.LessF16,
		ir.CmpLE: kiln.LessEqualF16, ir.CmpGT: kiln.GreaterF16, ir.CmpGE: kiln.GreaterEqualF16,
	},
	cmpVS: map[ir.ComparisonDirection]func(dst []uint8, x []uint16, s float32){
		ir.CmpEQ: kiln.EqualScalarF16, ir.CmpNE: kiln.NotEqualScalarF16, ir.CmpLT: kiln.LessScalarF16,
		ir.CmpLE: kiln.LessEqualScalarF16, ir.CmpGT: kiln.GreaterScalarF16, ir.CmpGE: kiln.GreaterEqualScalarF16,
	},
	sel: kiln.SelectF16,
}

func narrowKernelsOf(t ir.ElementType) *narrowKernels {
	if t == ir.BF16 {
		return &bf16Kernels
	}
	return &f16Kernels
}

// resolveNarrow looks up the typed kernel of a narrow op over the given
// operand pattern (uni(j): operand j is a scalar), reporting whether there
// is one.
func (in *lowpInstr) resolveNarrow(op sched.LoopOp, uni func(int) bool) bool {
	k := narrowKernelsOf(op.Type)
	switch {
	case op.Op == ssa.OpSelect:
		if uni(0) || uni(1) || uni(2) {
			return false
		}
		in.hsel = k.sel
		return true
	case len(op.Args) == 1:
		if op.Op == ssa.OpGelu {
			if op.Value.Aux == ssa.GeluTanh {
				in.h1 = kiln.GeluTanhBF16
				if op.Type == ir.F16 {
					in.h1 = kiln.GeluTanhF16
				}
			} else {
				in.h1 = kiln.GeluBF16
				if op.Type == ir.F16 {
					in.h1 = kiln.GeluF16
				}
			}
			return true
		}
		in.h1 = k.unary[op.Op]
		return in.h1 != nil
	case len(op.Args) == 2:
		bk, ok := k.binary[op.Op]
		if !ok {
			return false
		}
		in.hvv, in.hvs, in.hsv = bk.vv, bk.vs, bk.sv
		return true
	}
	return false
}

// resolveNarrowCompare looks up the typed comparison of narrow operands
// (IEEE comparisons only; the total order goes through float32).
func (in *lowpInstr) resolveNarrowCompare(op sched.LoopOp, uni func(int) bool) bool {
	if in.total {
		return false
	}
	k := narrowKernelsOf(op.Value.Args[0].Shape.Elem)
	switch {
	case !uni(0) && !uni(1):
		in.hcmpVV = k.cmpVV[in.dir]
		return in.hcmpVV != nil
	case !uni(0):
		in.hcmpVS = k.cmpVS[in.dir]
	default:
		in.hcmpVS = k.cmpVS[swapDirection(in.dir)]
	}
	return in.hcmpVS != nil
}

// swapDirection is the direction d with its operands exchanged.
func swapDirection(d ir.ComparisonDirection) ir.ComparisonDirection {
	switch d {
	case ir.CmpLT:
		return ir.CmpGT
	case ir.CmpLE:
		return ir.CmpGE
	case ir.CmpGT:
		return ir.CmpLT
	case ir.CmpGE:
		return ir.CmpLE
	}
	return d
}

// scalarF32 computes a float-valued op on one value of each operand.
func (in *lowpInstr) scalarF32(a, b, c *lval) float32 {
	switch in.op {
	case ssa.OpAdd:
		return a.s + b.s
	case ssa.OpSubtract:
		return a.s - b.s
	case ssa.OpMultiply:
		return a.s * b.s
	case ssa.OpDivide:
		return a.s / b.s
	case ssa.OpMaximum:
		return maxF32(a.s, b.s)
	case ssa.OpMinimum:
		return minF32(a.s, b.s)
	case ssa.OpNegate:
		return -a.s
	case ssa.Op(ir.OpAbs):
		return math.Float32frombits(math.Float32bits(a.s) &^ (1 << 31))
	case ssa.OpCopy:
		return a.s
	case ssa.OpSelect:
		if a.sm {
			return b.s
		}
		return c.s
	case ssa.OpClamp:
		return minF32(maxF32(b.s, a.s), c.s)
	case ssa.OpConvert:
		if in.fromMask {
			if a.sm {
				return 1
			}
			return 0
		}
		return a.s
	case ssa.OpGelu:
		if in.value.Aux == ssa.GeluTanh {
			return float32(geluTanh(float64(a.s)))
		}
		return float32(geluErf(float64(a.s)))
	}
	if in.f2 != nil {
		return in.f2(a.s, b.s)
	}
	return float32(in.f1(float64(a.s)))
}

// scalarMask computes a PRED-valued op on one value of each operand.
func (in *lowpInstr) scalarMask(a, b, c *lval) bool {
	switch in.op {
	case ssa.OpCompare:
		return compareF32(in.dir, in.total, a.s, b.s)
	case ssa.Op(ir.OpIsFinite):
		return !math.IsInf(float64(a.s), 0) && !math.IsNaN(float64(a.s))
	case ssa.Op(ir.OpAnd):
		return a.sm && b.sm
	case ssa.Op(ir.OpOr):
		return a.sm || b.sm
	case ssa.Op(ir.OpXor):
		return a.sm != b.sm
	case ssa.Op(ir.OpNot):
		return !a.sm
	case ssa.OpSelect:
		if a.sm {
			return b.sm
		}
		return c.sm
	}
	if in.fromMask { // convert to PRED
		return a.sm
	}
	return a.s != 0
}

// fill writes n copies of a uniform result of type t into dst.
func fillUniform(t ir.ElementType, dst []byte, v lval, n int) {
	switch t {
	case ir.PRED:
		m := bools(dst)[:n]
		for i := range m {
			m[i] = v.sm
		}
	case ir.F32:
		f := f32s(dst)[:n]
		for i := range f {
			f[i] = v.s
		}
	default:
		h := ops.Elems[uint16](dst)[:n]
		y := narrowBits(t, v.s)
		for i := range h {
			h[i] = y
		}
	}
}

// finish stores the tile's result into dst unless its last instruction
// wrote it there.
func (l *lowpLoop) finish(vs []lval, dst []byte, n int) {
	last := &l.instrs[len(l.instrs)-1]
	v := vs[len(l.instrs)-1]
	switch {
	case last.toDst:
	case last.uniform:
		fillUniform(l.outT, dst, v, n)
	case v.m != nil:
		copy(bools(dst)[:n], v.m[:n])
	case v.h != nil:
		copy(ops.Elems[uint16](dst)[:n], v.h[:n])
	default:
		copy(f32s(dst)[:n], v.f[:n])
	}
}

// lowpLoopStep is a Loop kernel run by a narrow loop.
type lowpLoopStep struct {
	l       *lowpLoop
	out     loc
	parts   int
	perPart int
	threads int
	// A row program rowSchedule accepts: its row loop (runRows).
	quickRows bool
	consts    []int
	perRow    []rowInstr
	// flat, when not nil, is the flat row loop of a quick row program.
	flat []flatStep
}

// lowpLoopStep compiles a Loop kernel that touches narrow types, or
// returns nil.
func (c *compiler) lowpLoopStep(k *sched.Kernel, p *program) step {
	t := k.Root.Shape.Elem
	if k.Loop == nil || !lowpTypeOK(t) || !hasNarrow(k.Loop, t) || !k.Root.Shape.HasDefaultLayout() {
		return nil
	}
	l := c.compileLowpLoop(k.Loop, k, p, false)
	if l == nil || l.outT != t {
		return nil
	}
	s := &lowpLoopStep{l: l, out: c.loc(k.Out), threads: c.cfg.threads}
	s.consts, s.perRow, s.quickRows = l.rowSchedule()
	if s.quickRows {
		s.flat = l.flatSchedule(s.perRow)
	}
	s.parts, s.perPart = 1, l.total
	if s.threads > 1 && l.total >= 1<<15 {
		unit := loopTile
		if l.rowLen > 0 {
			unit = l.rowLen
		}
		units := (l.total + unit - 1) / unit
		s.parts = min(units, s.threads*4)
		s.perPart = (units + s.parts - 1) / s.parts * unit
		s.parts = (l.total + s.perPart - 1) / s.perPart
	}
	return s
}

func (s *lowpLoopStep) name() string {
	if s.l.rows() {
		if s.l.hasFusedRow() {
			return "loop-lowp-row-program-fused"
		}
		return "loop-lowp-row-program"
	}
	if s.l.rowLen > 0 {
		return "loop-lowp-rows"
	}
	return "loop-lowp"
}

func (s *lowpLoopStep) exec(fr *frame) error {
	if s.l.total == 0 {
		return nil
	}
	parallelFor(fr, &fr.task, s, s.parts, s.threads)
	return nil
}

func (s *lowpLoopStep) part(fr *frame, p, w int) {
	lo := p * s.perPart
	hi := min(lo+s.perPart, s.l.total)
	scratch := fr.scratch[w]
	var small [2 * maxLoopOps]lval
	vs := small[:len(s.l.instrs)]
	out := fr.bytes(s.out)
	if s.flat != nil {
		s.runFlat(fr, lo, hi, vs, scratch, out)
		return
	}
	if s.quickRows {
		s.runRows(fr, lo, hi, vs, scratch, out)
		return
	}
	es := s.l.outT.ByteSize()
	var poll loopPoll
	for start := lo; start < hi; {
		if poll.stopped(fr) {
			return
		}
		n := s.l.segment(start, hi)
		dst := out[start*es : (start+n)*es]
		s.l.tile(fr, vs, start, n, scratch, dst)
		s.l.finish(vs, dst, n)
		start += n
		poll.since += n
	}
}

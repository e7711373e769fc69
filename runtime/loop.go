package runtime

import (
	"math"
	"slices"
	"unsafe"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// maxLoopOps bounds the ops of one compiled loop (the scheduler keeps
// fusions below it), so a tile's operands fit in a fixed array.
const maxLoopOps = 64

// loopTile is the number of elements a fused loop computes at a time
// (sched decides it, as the unit of a loop's parallel parts).
const loopTile = sched.LoopTile

// loopStep evaluates a LoopProgram over float32 values and PRED masks, tile
// by tile: loads are resolved to slices of the input (no copy) when the
// input is traversed in the output's order, to scalars when it is constant
// across the loop, and gathered into a register otherwise; each op then runs
// over the tile with a vector kernel, the last one writing straight into the
// output.
type loopStep struct {
	out     loc
	outSize int   // bytes per output element
	dims    []int // collapsed output dimensions
	instrs  []loopInstr
	loads   []loc // input buffers, by sched.Access.Input
	regs    int   // scratch registers per worker
	// store, when set, is the integer type the result is converted to as
	// it is stored (a quantization's final convert: s8, u8, s16 or u16),
	// from the float32 tile the program leaves in register storeReg.
	store    ir.ElementType
	storeReg int
	loopTiles
}

// loopTiles is a fused loop's elements split into parallel parts of whole
// tiles.
type loopTiles struct {
	total   int
	parts   int // parallel parts (whole tiles each)
	perPart int // elements per part
	threads int
}

// split divides the elements into at most parallel parts of whole tiles.
func (t *loopTiles) split(parallel int) {
	tiles := (t.total + loopTile - 1) / loopTile
	t.parts = min(max(parallel, 1), max(tiles, 1))
	tilesPer := (tiles + t.parts - 1) / max(t.parts, 1)
	t.perPart = tilesPer * loopTile
	if t.perPart > 0 {
		t.parts = (t.total + t.perPart - 1) / t.perPart
	}
}

// run runs job's parts (the loop whose tiles these are) on the pool.
func (t *loopTiles) run(fr *frame, job partsJob) error {
	if t.total > 0 {
		parallelFor(fr, &fr.task, job, t.parts, t.threads)
	}
	return nil
}

// tiles calls tile for each tile of part p — the elements [start,
// start+n) — until the run is stopped.
func (t *loopTiles) tiles(fr *frame, p int, tile func(start, n int)) {
	lo := p * t.perPart
	hi := min(lo+t.perPart, t.total)
	for start := lo; start < hi; start += loopTile {
		if (start-lo)%pollLoopElements == 0 && fr.stopped() {
			return
		}
		tile(start, min(loopTile, hi-start))
	}
}

// loopInstr is one op of the compiled program.
type loopInstr struct {
	op    ssa.Op
	typ   ir.ElementType // F32 or PRED
	kind  instrKind
	args  []int // earlier instructions
	reg   int   // register holding the result for tiles (-1: none needed)
	value *ssa.Value
	// loads and iotas
	acc    *sched.Access
	linear bool // load is a contiguous run of the input
	scalar bool // load or constant is one value for the whole loop
	c      float32
	cmask  bool
	// compare
	dir   ir.ComparisonDirection
	total bool // TOTALORDER
	// intCmp: a compare of 32-bit integers (signed: s32), whose values the
	// loop holds as their bits in float32 lanes (jax.nn.one_hot's compare
	// of labels with an iota, a causal mask's of two iotas).
	intCmp, signed bool
	// convert
	fromMask bool // the operand is PRED
}

type instrKind uint8

const (
	instrOp instrKind = iota
	instrLoad
	instrConst
	instrIota
)

// val is an operand of a tile op: a slice of the tile's length, or a scalar.
type val struct {
	f  []float32
	m  []bool
	s  float32
	sm bool
}

// loopStep compiles a Loop kernel, or returns nil when its types are outside
// what the executor handles (float32 values and PRED masks).
func (c *compiler) loopStep(k *sched.Kernel, p *program) (step, error) {
	if k.Loop == nil {
		return nil, nil
	}
	lp, store := k.Loop, narrowingStore(k.Loop)
	if store != ir.InvalidType {
		// The program up to the final convert, whose float32 result the
		// tile converts on its store.
		cut := *lp
		cut.Ops = lp.Ops[:len(lp.Ops)-1]
		lp = &cut
	} else if !loopTypeOK(k.Root.Shape.Elem) {
		return nil, nil
	}
	s := c.compileLoop(lp, k, p)
	if s == nil {
		return nil, nil
	}
	if store != ir.InvalidType {
		s.store, s.storeReg = store, s.regs
		s.regs++
		p.scratch = max(p.scratch, (s.regs+1)*loopTile*4)
	}
	s.out, s.outSize = c.loc(k.Out), k.Root.Shape.Elem.ByteSize()
	s.split(k.Parallel)
	return s, nil
}

// compileLoop compiles a loop program reading kernel k's inputs (its
// result's destination is set by the caller), or returns nil when its types
// or ops are outside what the executor handles.
func (c *compiler) compileLoop(lp *sched.LoopProgram, k *sched.Kernel, p *program) *loopStep {
	if len(lp.Ops) > maxLoopOps {
		return nil
	}
	for _, in := range k.Inputs {
		if !in.Shape.IsArray() || !(loopTypeOK(in.Shape.Elem) || isInt32(in.Shape.Elem)) || !in.Shape.HasDefaultLayout() {
			return nil
		}
	}
	s := &loopStep{loopTiles: loopTiles{threads: c.cfg.threads}}
	for _, b := range k.In {
		s.loads = append(s.loads, c.loc(b))
	}
	dims, strides := collapseDims(lp)
	s.dims = dims
	s.total = prod(dims)
	for i, op := range lp.Ops {
		// 32-bit integers only as the loads, constants and iotas that
		// integer compares read (loopIntCompare).
		leaf := op.Op == ssa.OpParameter || op.Op == ssa.OpConstant || op.Op == ssa.OpIota
		if !loopTypeOK(op.Type) && !(isInt32(op.Type) && leaf) {
			return nil
		}
		in := loopInstr{op: op.Op, typ: op.Type, args: op.Args, value: op.Value, reg: -1}
		for _, a := range op.Args {
			if isInt32(lp.Ops[a].Type) && op.Op != ssa.OpCompare {
				return nil // integers' bits: read by integer compares only
			}
		}
		switch op.Op {
		case ssa.OpParameter, ssa.OpIota:
			in.kind = instrLoad
			if op.Op == ssa.OpIota {
				in.kind = instrIota
			}
			in.acc = &sched.Access{Input: op.Access.Input, Strides: strides[i], Offset: op.Access.Offset}
			in.scalar = in.acc.IsScalar()
			in.linear = op.Op == ssa.OpParameter && in.acc.IsLinear(dims)
			if in.scalar && op.Op == ssa.OpIota {
				in.kind, in.c = instrConst, float32(in.acc.Offset)
				if isInt32(op.Type) {
					in.c = math.Float32frombits(uint32(in.acc.Offset))
				}
			}
		case ssa.OpConstant:
			in.kind, in.scalar = instrConst, true
			switch op.Type {
			case ir.F32:
				in.c = op.Scalar.Float32s()[0]
			case ir.PRED:
				in.cmask = op.Scalar.Bools()[0]
			case ir.S32:
				in.c = math.Float32frombits(uint32(ir.Values[int32](op.Scalar)[0]))
			case ir.U32:
				in.c = math.Float32frombits(ir.Values[uint32](op.Scalar)[0])
			}
		case ssa.OpCompare:
			if t := lp.Ops[op.Args[0]].Type; isInt32(t) {
				ct := op.Value.Attrs.CompareType
				if lp.Ops[op.Args[1]].Type != t || op.Type != ir.PRED || ct != ir.CmpTypeDefault && ct != ir.DefaultComparisonType(t) {
					return nil
				}
				in.intCmp, in.signed, in.dir = true, t == ir.S32, op.Value.Attrs.Direction
				break
			}
			if !loopOpSupported(op) || !loopArgTypesOK(lp, op) {
				return nil
			}
			in.dir = op.Value.Attrs.Direction
			in.total = op.Value.Attrs.CompareType == ir.CmpTypeTotalOrder
		default:
			if !loopOpSupported(op) || !loopArgTypesOK(lp, op) {
				return nil
			}
			if op.Op == ssa.OpConvert {
				in.fromMask = lp.Ops[op.Args[0]].Type == ir.PRED
			}
		}
		s.instrs = append(s.instrs, in)
	}
	s.assignRegisters()
	p.scratch = max(p.scratch, (s.regs+1)*loopTile*4)
	return s
}

func loopTypeOK(t ir.ElementType) bool { return t == ir.F32 || t == ir.PRED }

// narrowingStore returns the integer type a loop program's last op
// converts its float32 operand to, when it is s8, u8, s16 or u16 (the
// store of a quantization: scale, round, clamp, convert), and
// ir.InvalidType otherwise.
func narrowingStore(lp *sched.LoopProgram) ir.ElementType {
	n := len(lp.Ops)
	if n < 2 || lp.Rows {
		return ir.InvalidType
	}
	last := lp.Ops[n-1]
	if last.Op != ssa.OpConvert || len(last.Args) != 1 || lp.Ops[last.Args[0]].Type != ir.F32 || last.Args[0] != n-2 {
		return ir.InvalidType
	}
	switch last.Type {
	case ir.S8, ir.U8, ir.S16, ir.U16:
		return last.Type
	}
	return ir.InvalidType
}

// storeNarrow converts the float32 tile f into dst, n elements of type t,
// as XLA converts float to integers (toward zero, saturating, NaN to 0).
func storeNarrow(t ir.ElementType, dst []byte, f []float32) {
	n := len(f)
	switch t {
	case ir.S8:
		kiln.F32ToS8(unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(dst))), n), f)
	case ir.U8:
		kiln.F32ToU8(dst[:n], f)
	case ir.S16:
		kiln.F32ToS16(unsafe.Slice((*int16)(unsafe.Pointer(unsafe.SliceData(dst))), n), f)
	case ir.U16:
		kiln.F32ToU16(unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(dst))), n), f)
	}
}

// loopArgTypesOK checks the operand types the executor assumes: PRED for
// logical ops and for select's predicate, float32 for the rest (convert
// takes either).
func loopArgTypesOK(lp *sched.LoopProgram, op sched.LoopOp) bool {
	for i, a := range op.Args {
		t := lp.Ops[a].Type
		want := ir.F32
		switch {
		case op.Op == ssa.OpConvert:
			continue
		case op.Op == ssa.OpSelect && i == 0:
			want = ir.PRED
		case op.Op == ssa.OpSelect:
			want = op.Type
		case op.Type == ir.PRED && op.Op != ssa.OpCompare && op.Op != ssa.Op(ir.OpIsFinite):
			want = ir.PRED
		}
		if t != want {
			return false
		}
	}
	return true
}

// collapseDims merges neighbouring output dimensions that every access
// walks contiguously (and drops dimensions of size 1), returning the
// collapsed dimensions and each op's strides over them.
func collapseDims(lp *sched.LoopProgram) ([]int, [][]int) {
	var dims []int
	strides := make([][]int, len(lp.Ops))
	// keep[d] is the index of the collapsed dim that absorbs original dim d.
	for d, n := range lp.Dims {
		if n == 1 {
			continue
		}
		merge := len(dims) > 0
		if merge {
			// The previous kept dimension p merges with d when every
			// access has stride[p] == stride[d]·dims[d].
			p := lastKept(lp.Dims, d)
			for _, op := range lp.Ops {
				if op.Access == nil {
					continue
				}
				if op.Access.Strides[p] != op.Access.Strides[d]*n {
					merge = false
					break
				}
			}
		}
		if merge {
			dims[len(dims)-1] *= n
			for i, op := range lp.Ops {
				if op.Access != nil {
					strides[i][len(strides[i])-1] = op.Access.Strides[d]
				}
			}
			continue
		}
		dims = append(dims, n)
		for i, op := range lp.Ops {
			if op.Access != nil {
				strides[i] = append(strides[i], op.Access.Strides[d])
			}
		}
	}
	if len(dims) == 0 {
		dims = []int{1}
		for i, op := range lp.Ops {
			if op.Access != nil {
				strides[i] = []int{0}
			}
		}
	}
	return dims, strides
}

// lastKept is the last dimension before d whose size is not 1.
func lastKept(dims []int, d int) int {
	for p := d - 1; p >= 0; p-- {
		if dims[p] != 1 {
			return p
		}
	}
	return -1
}

// assignRegisters gives each instruction whose result is a tile-sized value
// a scratch register, reusing registers after their last use. Linear loads
// and scalars need none; the last instruction writes to the output.
func (s *loopStep) assignRegisters() {
	s.regs = assignLoopRegisters(len(s.instrs), func(i int) ([]int, *int, bool) {
		in := &s.instrs[i]
		return in.args, &in.reg, !in.scalar && !(in.kind == instrLoad && in.linear)
	})
}

// assignLoopRegisters gives each of n instructions that needs one (op(i)
// returns its arguments, where its register goes and whether it needs
// one; the last never does: it writes the output) a scratch register,
// reusing registers after their last use, and returns the registers used.
// A result gets its register before its arguments' are freed, so it never
// overlays an argument: a PRED mask and a 32-bit value share a register's
// bytes at different widths, and select(mask, x, y) writing its values
// over the mask it is still reading got the mask wrong.
func assignLoopRegisters(n int, op func(i int) (args []int, reg *int, needs bool)) int {
	last := make([]int, n)
	for i := range n {
		args, _, _ := op(i)
		for _, a := range args {
			last[a] = i
		}
	}
	var free []int
	regs := 0
	for i := range n {
		args, reg, needs := op(i)
		if needs && i != n-1 {
			if len(free) > 0 {
				*reg, free = free[len(free)-1], free[:len(free)-1]
			} else {
				*reg = regs
				regs++
			}
		}
		for j, a := range args {
			// A value read twice by one op (x·x) frees its register once.
			if _, ra, _ := op(a); last[a] == i && *ra >= 0 && !slices.Contains(args[:j], a) {
				free = append(free, *ra)
			}
		}
	}
	return regs
}

func (s *loopStep) name() string { return "loop" }

func (s *loopStep) exec(fr *frame) error { return s.run(fr, s) }

// part computes the elements [p·perPart, min((p+1)·perPart, total)).
func (s *loopStep) part(fr *frame, p, w int) {
	scratch := fr.scratch[w]
	var small [maxLoopOps]val
	vs := small[:len(s.instrs)]
	out := fr.bytes(s.out)
	s.tiles(fr, p, func(start, n int) {
		s.tile(fr, vs, start, n, scratch, out[start*s.outSize:(start+n)*s.outSize])
	})
}

// tile evaluates the program for the output elements [start, start+n),
// writing the result into dst (n elements of the result type).
func (s *loopStep) tile(fr *frame, vs []val, start, n int, scratch, dst []byte) {
	for i := range s.instrs {
		s.eval(fr, &s.instrs[i], vs, i, start, n, scratch, dst)
	}
	if s.store != ir.InvalidType {
		storeNarrow(s.store, dst, regF32(scratch, s.storeReg, n))
	}
}

// reg returns register r of a worker's scratch as float32s or bools.
func regF32(scratch []byte, r, n int) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(&scratch[r*loopTile*4])), n)
}

func regBool(scratch []byte, r, n int) []bool {
	return unsafe.Slice((*bool)(unsafe.Pointer(&scratch[r*loopTile*4])), n)
}

// eval computes instruction i for the tile [start, start+n); the last
// instruction writes into out, the tile's destination.
func (s *loopStep) eval(fr *frame, in *loopInstr, vs []val, i, start, n int, scratch, out []byte) {
	isLast := i == len(s.instrs)-1
	var dstF []float32
	var dstM []bool
	switch {
	case isLast && s.store != ir.InvalidType:
		dstF = regF32(scratch, s.storeReg, n) // converted on the store
	case isLast && in.typ == ir.F32:
		dstF = f32s(out)[:n]
	case isLast:
		dstM = bools(out)[:n]
	case in.reg >= 0 && in.typ != ir.PRED: // float32, or 32-bit integers' bits
		dstF = regF32(scratch, in.reg, n)
	case in.reg >= 0:
		dstM = regBool(scratch, in.reg, n)
	}
	switch in.kind {
	case instrConst:
		vs[i] = val{s: in.c, sm: in.cmask}
		if isLast {
			fillVal(dstF, dstM, vs[i])
		}
		return
	case instrIota:
		if isInt32(in.typ) {
			iotaInt(u32sOf(dstF), s.dims, in.acc.Strides, in.acc.Offset, start)
		} else {
			iota32(dstF, s.dims, in.acc.Strides, in.acc.Offset, start)
		}
		vs[i] = val{f: dstF}
		return
	case instrLoad:
		src := fr.bytes(s.loads[in.acc.Input])
		switch {
		case in.scalar:
			if in.typ != ir.PRED {
				vs[i] = val{s: f32s(src)[in.acc.Offset]}
			} else {
				vs[i] = val{sm: bools(src)[in.acc.Offset]}
			}
			if isLast {
				fillVal(dstF, dstM, vs[i])
			}
		case in.linear && !isLast:
			if in.typ != ir.PRED {
				vs[i] = val{f: f32s(src)[in.acc.Offset+start : in.acc.Offset+start+n]}
			} else {
				vs[i] = val{m: bools(src)[in.acc.Offset+start : in.acc.Offset+start+n]}
			}
		case in.typ != ir.PRED:
			gather(dstF, f32s(src), s.dims, in.acc.Strides, in.acc.Offset, start)
			vs[i] = val{f: dstF}
		default:
			gather(dstM, bools(src), s.dims, in.acc.Strides, in.acc.Offset, start)
			vs[i] = val{m: dstM}
		}
		return
	}
	a, b, c := operands(vs, in.args)
	if in.typ == ir.F32 {
		opF32(in, dstF, a, b, c, n)
		vs[i] = val{f: dstF}
	} else {
		opMask(in, dstM, a, b, c, n)
		vs[i] = val{m: dstM}
	}
}

// u32sOf views float32 lanes as the 32-bit integers whose bits they hold.
func u32sOf(f []float32) []uint32 {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&f[0])), len(f))
}

func fillVal(f []float32, m []bool, v val) {
	for i := range f {
		f[i] = v.s
	}
	for i := range m {
		m[i] = v.sm
	}
}

// gather copies the elements of src at offset + Σ strides[d]·idx[d] for the
// output indices start, start+1, … (row-major over dims) into dst, in runs
// along the innermost dimension.
func gather[T any](dst, src []T, dims, strides []int, offset, start int) {
	forRuns(len(dst), dims, strides, offset, start, func(i, pos, run, step int) {
		switch step {
		case 1:
			copy(dst[i:i+run], src[pos:pos+run])
		case 0:
			v := src[pos]
			for j := i; j < i+run; j++ {
				dst[j] = v
			}
		default:
			q := pos
			for j := i; j < i+run; j++ {
				dst[j] = src[q]
				q += step
			}
		}
	})
}

// forRuns walks the positions offset + Σ strides[d]·idx[d] of the n output
// indices from start (row-major over dims) in runs along the innermost
// dimension, calling f with each run's first output index i (from 0), its
// first position, its length and the step between its positions.
func forRuns(n int, dims, strides []int, offset, start int, f func(i, pos, run, step int)) {
	r := len(dims)
	var idxBuf [16]int
	idx := idxBuf[:r]
	if r > len(idxBuf) {
		idx = make([]int, r)
	}
	pos, rem := offset, start
	for d := r - 1; d >= 0; d-- {
		idx[d] = rem % dims[d]
		rem /= dims[d]
		pos += idx[d] * strides[d]
	}
	inner, is := dims[r-1], strides[r-1]
	for i := 0; i < n; {
		run := min(inner-idx[r-1], n-i)
		f(i, pos, run, is)
		i += run
		pos += run * is
		idx[r-1] += run
		if idx[r-1] == inner {
			pos -= inner * is
			idx[r-1] = 0
			for d := r - 2; d >= 0; d-- {
				idx[d]++
				pos += strides[d]
				if idx[d] < dims[d] {
					break
				}
				pos -= dims[d] * strides[d]
				idx[d] = 0
			}
		}
	}
}

// operands are an op's first three arguments' values (zero past its
// arguments), for the loops' evaluators.
func operands[V any](vs []V, args []int) (a, b, c V) {
	if len(args) > 0 {
		a = vs[args[0]]
	}
	if len(args) > 1 {
		b = vs[args[1]]
	}
	if len(args) > 2 {
		c = vs[args[2]]
	}
	return a, b, c
}

// iota32 writes offset + Σ strides[d]·idx[d] as float32 for the output
// indices start, start+1, ….
func iota32(dst []float32, dims, strides []int, offset, start int) {
	r := len(dims)
	var idxBuf [16]int
	idx := idxBuf[:r]
	if r > len(idxBuf) {
		idx = make([]int, r)
	}
	rem := start
	for d := r - 1; d >= 0; d-- {
		idx[d] = rem % dims[d]
		rem /= dims[d]
	}
	for i := range dst {
		v := offset
		for d := range idx {
			v += idx[d] * strides[d]
		}
		dst[i] = float32(v)
		ir.NextIndex(dims, idx)
	}
}

func bools(b []byte) []bool {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*bool)(unsafe.Pointer(&b[0])), len(b))
}

package runtime

// Reductions over the narrow float types: reduce(convert(x)) of bfloat16 or
// binary16 x into float32 — the form JAX exports, which upcasts before
// summing — reads x in place with the narrow row and column kernels
// (RowSumBF16, ColMaxF16, …: widened in registers, accumulated in float32
// as the float32 kernels accumulate); any other operand a fused narrow loop
// computes (reduce(convert(x·x)), …) is computed tile by tile and folded
// with the float32 reductions. A reduce of bfloat16 or binary16 by maximum
// or minimum (exact in the type) runs on the same kernels.

import (
	"slices"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// reduceShape is how a reduce's operand splits: rows (the reduced
// dimensions innermost: count rows of rowLen), columns (the reduced
// dimensions outermost: rowLen rows of count), or neither.
type reduceShape uint8

const (
	reduceRows reduceShape = iota
	reduceCols
	reduceOther
)

// lowpReduceStep is a reduce with a standard reducer whose operand is, or
// is computed from, narrow floats.
type lowpReduceStep struct {
	op       ssa.Op
	outT     ir.ElementType // F32, or the narrow type of a narrow maximum/minimum
	narrowT  ir.ElementType // BF16 or F16 when the operand is read in place as that type
	in       loc            // the operand (read in place)
	out      loc
	init     loc
	loop     *lowpLoop // the fused producer of the operand, or nil
	shape    reduceShape
	rowLen   int // rows: elements per row; cols: rows
	count    int // output elements
	xDims    []int
	outStr   []int
	parts    int
	threads  int
	scratchF int // scratch offset of a tile of results
	wideF    int // scratch offset of a tile of widened elements
	tileOut  int // scratch offset of the tile the fused loop writes
}

// lowpReduceStep compiles a Reduce kernel over narrow floats, or returns nil.
func (c *compiler) lowpReduceStep(k *sched.Kernel, p *program) step {
	v := k.Root
	if len(v.Args) != 2 || !v.Args[0].Shape.HasDefaultLayout() || !v.Shape.HasDefaultLayout() || len(v.Funcs) != 1 {
		return nil
	}
	op := k.Reducer
	if op == 0 {
		return nil
	}
	xT, outT := v.Args[0].Shape.Elem, v.Shape.Elem
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	s := &lowpReduceStep{op: op, outT: outT, count: v.Shape.ElementCount(), xDims: v.Args[0].Shape.Dims, threads: c.cfg.threads}
	switch {
	case len(k.Values) == 1 && lowpNarrow(xT) && outT == xT && (op == ssa.OpMaximum || op == ssa.OpMinimum):
		s.narrowT, s.in = xT, c.loc(bufOf(v.Args[0]))
	case len(k.Values) > 1 && outT == ir.F32 && xT == ir.F32 && k.Loop != nil && hasNarrow(k.Loop, ir.F32):
		if t, input, ok := convertedInput(k.Loop); ok && k.Inputs[input].Shape.ElementCount() == v.Args[0].Shape.ElementCount() {
			s.narrowT, s.in = t, c.loc(k.In[input])
			break
		}
		if s.loop = c.compileLowpLoop(k.Loop, k, p, true); s.loop == nil {
			return nil
		}
	default:
		return nil
	}
	s.init = c.loc(bufOf(v.Args[1]))
	s.out = c.loc(k.Out)
	x := v.Args[0].Shape
	dims := v.Attrs.Dimensions
	s.outStr = make([]int, x.Rank())
	st := 1
	for d := x.Rank() - 1; d >= 0; d-- {
		if !slices.Contains(dims, d) {
			s.outStr[d] = st
			st *= x.Dims[d]
		}
	}
	nr := len(dims)
	inner, outer := true, true
	for d := 0; d < x.Rank(); d++ {
		red := slices.Contains(dims, d)
		if d >= x.Rank()-nr && !red {
			inner = false
		}
		if d < nr && !red {
			outer = false
		}
	}
	switch {
	case inner:
		s.shape, s.rowLen = reduceRows, prod(x.Dims[x.Rank()-nr:])
	case outer && s.loop == nil:
		s.shape, s.rowLen = reduceCols, prod(x.Dims[:nr])
	default:
		s.shape = reduceOther
		if s.loop == nil {
			return nil // a narrow operand read in place walks rows or columns only
		}
	}
	s.parts = 1
	if s.shape == reduceRows && s.threads > 1 && s.count*s.rowLen >= 1<<15 {
		s.parts = min(s.count, s.threads*4)
	}
	var sp scratchPlan
	if s.loop != nil {
		sp.take(s.loop.scratch)
	}
	s.scratchF = sp.take(loopTile * 4)
	s.wideF = sp.take(loopTile * 4)
	s.tileOut = sp.take(loopTile * 4)
	sp.reserve(p)
	return s
}

// convertedInput recognises the loop program convert(x) of a bfloat16 or
// binary16 input read in order, returning x's type and input number.
func convertedInput(lp *sched.LoopProgram) (ir.ElementType, int, bool) {
	if len(lp.Ops) != 2 {
		return 0, 0, false
	}
	ld, cv := lp.Ops[0], lp.Ops[1]
	if ld.Op != ssa.OpParameter || !lowpNarrow(ld.Type) || cv.Op != ssa.OpConvert || cv.Type != ir.F32 ||
		len(cv.Args) != 1 || cv.Args[0] != 0 || ld.Access.Offset != 0 || !ld.Access.IsLinear(lp.Dims) {
		return 0, 0, false
	}
	return ld.Type, ld.Access.Input, true
}

func (s *lowpReduceStep) name() string {
	switch {
	case s.loop != nil:
		return "reduce-lowp-fused-" + s.op.String()
	case s.shape == reduceCols:
		return "reduce-lowp-cols-" + s.op.String()
	}
	return "reduce-lowp-" + s.op.String()
}

// initValue reads the reduce's initial value as float32.
func (s *lowpReduceStep) initValue(fr *frame) float32 {
	t := s.outT
	return scalarAt(t, fr.bytes(s.init), 0).s
}

func (s *lowpReduceStep) exec(fr *frame) error {
	if s.count == 0 {
		return nil
	}
	switch s.shape {
	case reduceRows:
		parallelFor(fr, &fr.task, s, s.parts, s.threads)
	case reduceCols:
		s.cols(fr)
	default:
		s.walk(fr)
	}
	return nil
}

// part folds the rows [p·count/parts, (p+1)·count/parts).
func (s *lowpReduceStep) part(fr *frame, p, w int) {
	r0, r1 := p*s.count/s.parts, (p+1)*s.count/s.parts
	init := s.initValue(fr)
	scratch := fr.scratch[w]
	acc := f32s(scratch[s.scratchF : s.scratchF+loopTile*4])
	for b0 := r0; b0 < r1 && !fr.stopped(); b0 += loopTile {
		b1 := min(b0+loopTile, r1)
		res := acc[:b1-b0]
		if s.loop == nil {
			s.rowsInPlace(fr, res, b0, b1, f32s(scratch[s.wideF:s.wideF+loopTile*4]))
		} else {
			s.rowsFused(fr, res, b0, b1, scratch)
		}
		for i, r := range res {
			res[i] = applyF32(s.op, init, r)
		}
		s.storeOut(fr, res, b0)
	}
}

// rowsInPlace reduces rows [r0, r1) of a narrow operand into res.
func (s *lowpReduceStep) rowsInPlace(fr *frame, res []float32, r0, r1 int, buf []float32) {
	n := s.rowLen
	x := ops.Elems[uint16](fr.bytes(s.in))[r0*n : r1*n]
	bf := s.narrowT == ir.BF16
	if n == 0 {
		for i := range res {
			res[i] = identityF32(s.op)
		}
		return
	}
	switch {
	case s.op == ssa.OpAdd && bf:
		kiln.RowSumBF16(res, x, n)
	case s.op == ssa.OpAdd:
		kiln.RowSumF16(res, x, n)
	case s.op == ssa.OpMaximum && bf:
		kiln.RowMaxBF16(res, x, n)
	case s.op == ssa.OpMaximum:
		kiln.RowMaxF16(res, x, n)
	default:
		for i := range res {
			row := x[i*n : (i+1)*n]
			switch {
			case s.op == ssa.OpMinimum && bf:
				res[i] = kiln.MinBF16(row)
			case s.op == ssa.OpMinimum:
				res[i] = kiln.MinF16(row)
			default: // multiply
				res[i] = prodNarrow(s.narrowT, row, buf)
			}
		}
	}
}

// prodNarrow is the float32 product of a row of narrow floats, widened a
// tile at a time.
func prodNarrow(t ir.ElementType, row []uint16, buf []float32) float32 {
	acc := float32(1)
	for i := 0; i < len(row); i += len(buf) {
		n := min(len(buf), len(row)-i)
		widen16(t, buf[:n], row[i:i+n])
		acc *= kiln.Prod(buf[:n])
	}
	return acc
}

// identityF32 is the reducer's neutral start, for empty rows.
func identityF32(op ssa.Op) float32 {
	switch op {
	case ssa.OpAdd:
		return 0
	case ssa.OpMultiply:
		return 1
	case ssa.OpMaximum:
		return float32(negInf)
	}
	return float32(posInf)
}

// rowsFused reduces rows [r0, r1) of an operand the fused loop computes.
func (s *lowpReduceStep) rowsFused(fr *frame, res []float32, r0, r1 int, scratch []byte) {
	var small [2 * maxLoopOps]lval
	vs := small[:len(s.loop.instrs)]
	last := len(s.loop.instrs) - 1
	dst := scratch[s.tileOut : s.tileOut+loopTile*4]
	buf := f32s(scratch[s.wideF : s.wideF+loopTile*4])
	for i := range res {
		r := r0 + i
		acc := identityF32(s.op)
		for start, end := r*s.rowLen, (r+1)*s.rowLen; start < end; {
			n := s.loop.segment(start, end)
			s.loop.tile(fr, vs, start, n, scratch, dst)
			acc = s.fold(acc, s.tileValue(vs[last], dst, n), n, buf)
			start += n
		}
		res[i] = acc
	}
}

// tileValue is the loop's result for a tile: its value, or the tile it
// wrote into dst.
func (s *lowpReduceStep) tileValue(v lval, dst []byte, n int) lval {
	if !s.loop.instrs[len(s.loop.instrs)-1].toDst {
		return v
	}
	if lowpNarrow(s.loop.outT) {
		return lval{h: ops.Elems[uint16](dst)[:n]}
	}
	return lval{f: f32s(dst)[:n]}
}

// fold folds n values of a tile (or one value n times) onto acc: float32
// values with the float32 reductions, narrow ones with the narrow kernels
// (buf holds a widened tile where none applies).
func (s *lowpReduceStep) fold(acc float32, v lval, n int, buf []float32) float32 {
	return foldTile(s.op, s.loop.outT, acc, v, n, buf)
}

// foldTile folds n values of a tile (or one value n times) onto acc by op:
// float32 values with the float32 reductions, narrow ones of type t with
// the narrow kernels (buf holds a widened tile where none applies).
func foldTile(op ssa.Op, t ir.ElementType, acc float32, v lval, n int, buf []float32) float32 {
	switch {
	case v.f != nil:
		return foldF32(op, acc, v.f[:n])
	case v.h != nil:
		bf := t == ir.BF16
		switch {
		case op == ssa.OpAdd && bf:
			return acc + kiln.SumBF16(v.h[:n])
		case op == ssa.OpAdd:
			return acc + kiln.SumF16(v.h[:n])
		case op == ssa.OpMaximum && bf:
			return maxF32(acc, kiln.MaxBF16(v.h[:n]))
		case op == ssa.OpMaximum:
			return maxF32(acc, kiln.MaxF16(v.h[:n]))
		case op == ssa.OpMinimum && bf:
			return minF32(acc, kiln.MinBF16(v.h[:n]))
		case op == ssa.OpMinimum:
			return minF32(acc, kiln.MinF16(v.h[:n]))
		}
		widen16(t, buf[:n], v.h[:n])
		return foldF32(op, acc, buf[:n])
	}
	for range n {
		acc = applyF32(op, acc, v.s)
	}
	return acc
}

// storeOut writes float32 results for output elements [o, o+len(res)).
func (s *lowpReduceStep) storeOut(fr *frame, res []float32, o int) {
	out := fr.bytes(s.out)
	if s.outT == ir.F32 {
		copy(f32s(out)[o:o+len(res)], res)
		return
	}
	narrow16(s.outT, ops.Elems[uint16](out)[o:o+len(res)], res)
}

// cols folds a narrow operand [rowLen, count] down its columns.
func (s *lowpReduceStep) cols(fr *frame) {
	init := s.initValue(fr)
	x := ops.Elems[uint16](fr.bytes(s.in))[:s.rowLen*s.count]
	bf := s.narrowT == ir.BF16
	for j0 := 0; j0 < s.count && !fr.stopped(); j0 += loopTile {
		j1 := min(j0+loopTile, s.count)
		res := f32s(fr.scratch[0][s.scratchF : s.scratchF+loopTile*4])[:j1-j0]
		wide := f32s(fr.scratch[0][s.wideF : s.wideF+loopTile*4])
		if s.rowLen == 0 {
			for i := range res {
				res[i] = identityF32(s.op)
			}
		} else if j0 == 0 && j1 == s.count {
			colReduceNarrow(s.op, bf, res, x, wide)
		} else {
			s.colsStrided(res, x, j0, bf, wide)
		}
		for i, r := range res {
			res[i] = applyF32(s.op, init, r)
		}
		s.storeOut(fr, res, j0)
	}
}

// colReduceNarrow folds the rows of x ([rows, len(dst)]) into dst.
func colReduceNarrow(op ssa.Op, bf bool, dst []float32, x []uint16, buf []float32) {
	switch {
	case op == ssa.OpAdd && bf:
		kiln.ColSumBF16(dst, x)
	case op == ssa.OpAdd:
		kiln.ColSumF16(dst, x)
	case op == ssa.OpMaximum && bf:
		kiln.ColMaxBF16(dst, x)
	case op == ssa.OpMaximum:
		kiln.ColMaxF16(dst, x)
	case op == ssa.OpMinimum && bf:
		kiln.ColMinBF16(dst, x)
	case op == ssa.OpMinimum:
		kiln.ColMinF16(dst, x)
	default:
		t := ir.F16
		if bf {
			t = ir.BF16
		}
		n := len(dst)
		for i := range dst {
			dst[i] = 1
		}
		for r := 0; r < len(x)/max(n, 1); r++ {
			widen16(t, buf[:n], x[r*n:(r+1)*n])
			kiln.Mul(dst, dst, buf[:n])
		}
	}
}

// colsStrided folds columns [j0, j0+len(res)) of x ([rowLen, count]) row
// by row.
func (s *lowpReduceStep) colsStrided(res []float32, x []uint16, j0 int, bf bool, buf []float32) {
	t := ir.F16
	if bf {
		t = ir.BF16
	}
	n := len(res)
	for i := range res {
		res[i] = identityF32(s.op)
	}
	for r := 0; r < s.rowLen; r++ {
		widen16(t, buf[:n], x[r*s.count+j0:r*s.count+j0+n])
		for i, e := range buf[:n] {
			res[i] = applyF32(s.op, res[i], e)
		}
	}
}

// walk folds an operand computed by the fused loop in its row-major order
// into the output elements each belongs to.
func (s *lowpReduceStep) walk(fr *frame) {
	out := f32s(fr.bytes(s.out))[:s.count]
	init := s.initValue(fr)
	for i := range out {
		out[i] = init
	}
	total := prod(s.xDims)
	var idxBuf [ops.MaxRank]int
	idx := idxBuf[:len(s.xDims)]
	var small [2 * maxLoopOps]lval
	vs := small[:len(s.loop.instrs)]
	last := len(s.loop.instrs) - 1
	scratch := fr.scratch[0]
	dst := scratch[s.tileOut : s.tileOut+loopTile*4]
	buf := f32s(scratch[s.wideF : s.wideF+loopTile*4])
	for start := 0; start < total; {
		n := s.loop.segment(start, total)
		s.loop.tile(fr, vs, start, n, scratch, dst)
		v := s.tileValue(vs[last], dst, n)
		if v.h != nil {
			widen16(s.loop.outT, buf[:n], v.h[:n])
			v = lval{f: buf[:n]}
		}
		for i := range n {
			o := 0
			for d, j := range idx {
				o += j * s.outStr[d]
			}
			x := v.s
			if v.f != nil {
				x = v.f[i]
			}
			out[o] = applyF32(s.op, out[o], x)
			ir.NextIndex(s.xDims, idx)
		}
		start += n
	}
}

package runtime

import (
	"slices"

	kiln "github.com/kilnml/kiln"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// reduceStep is a float32 reduce with a standard reducer, reading its
// operand from memory or computing it on the fly with a fused loop program
// (input fusion). Each output element folds its reduced elements, in
// row-major order of the reduced dimensions, onto the initial value — the
// order the reference evaluator uses, so the two agree exactly.
//
// When the reduced dimensions are the innermost ones, every output element
// folds one contiguous run of the operand (a row): rows are split across
// workers. Otherwise the operand is walked in its row-major order and each
// element folded into the output element it belongs to.
type reduceStep struct {
	op      ssa.Op
	in, out loc
	init    loc
	loop    *loopStep // the fused producer of the operand, or nil
	rows    bool      // reduced dimensions are the innermost ones
	rowLen  int
	count   int // output elements
	xDims   []int
	outStr  []int // per operand dimension, its stride in the output (0 for reduced dims)
	parts   int
	threads int
}

func (c *compiler) reduceStep(k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Args) != 2 || v.Shape.Elem != ir.F32 || v.Args[0].Shape.Elem != ir.F32 || v.Args[1].Shape.Elem != ir.F32 || !v.Args[0].Shape.HasDefaultLayout() {
		return nil, nil
	}
	op := k.Reducer
	if op == 0 {
		return nil, nil
	}
	x := v.Args[0].Shape
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	s := &reduceStep{op: op, init: c.loc(bufOf(v.Args[1])), out: c.loc(k.Out), count: v.Shape.ElementCount(),
		xDims: x.Dims, threads: c.cfg.threads}
	if len(k.Values) > 1 {
		if k.Loop == nil {
			return nil, nil
		}
		if s.loop = c.compileLoop(k.Loop, k, p); s.loop == nil {
			return nil, nil
		}
	} else {
		s.in = c.loc(bufOf(v.Args[0]))
	}
	// Output strides of the kept dimensions, in operand order.
	s.outStr = make([]int, x.Rank())
	st := 1
	for d := x.Rank() - 1; d >= 0; d-- {
		if !slices.Contains(v.Attrs.Dimensions, d) {
			s.outStr[d] = st
			st *= x.Dims[d]
		}
	}
	nr := len(v.Attrs.Dimensions)
	s.rows = true
	for d := x.Rank() - nr; d < x.Rank(); d++ {
		if !slices.Contains(v.Attrs.Dimensions, d) {
			s.rows = false
		}
	}
	s.rowLen = prod(x.Dims[x.Rank()-nr:])
	s.parts = 1
	if s.rows {
		s.parts = max(k.Parallel, 1)
	}
	return s, nil
}

func (s *reduceStep) name() string {
	if s.loop != nil {
		return "reduce-fused-" + s.op.String()
	}
	return "reduce-" + s.op.String()
}

func (s *reduceStep) exec(fr *frame) error {
	if s.count == 0 {
		return nil
	}
	if s.rows {
		parallelFor(fr, &fr.task, s, s.parts, s.threads)
		return nil
	}
	out := f32s(fr.bytes(s.out))[:s.count]
	init := f32s(fr.bytes(s.init))[0]
	for i := range out {
		out[i] = init
	}
	total := prod(s.xDims)
	var idxBuf [16]int
	idx := idxBuf[:len(s.xDims)]
	var x []float32
	if s.loop == nil {
		x = f32s(fr.bytes(s.in))
	}
	var vs [maxLoopOps]val
	for start := 0; start < total; start += loopTile {
		if start%pollLoopElements == 0 && fr.stopped() {
			return nil
		}
		n := min(loopTile, total-start)
		tile := x[min(start, len(x)):min(start+n, len(x))]
		if s.loop != nil {
			buf := fr.scratch[0][s.loop.regs*loopTile*4:]
			s.loop.tile(fr, vs[:len(s.loop.instrs)], start, n, fr.scratch[0], buf)
			tile = f32s(buf)[:n]
		}
		for _, e := range tile {
			o := 0
			for d, i := range idx {
				o += i * s.outStr[d]
			}
			out[o] = applyF32(s.op, out[o], e)
			ir.NextIndex(s.xDims, idx)
		}
	}
	return nil
}

// part folds the rows of part p: rows [p·count/parts, (p+1)·count/parts).
func (s *reduceStep) part(fr *frame, p, w int) {
	r0, r1 := p*s.count/s.parts, (p+1)*s.count/s.parts
	out := f32s(fr.bytes(s.out))
	init := f32s(fr.bytes(s.init))[0]
	if s.loop == nil {
		x := f32s(fr.bytes(s.in))
		rowsPerPoll := max(1, pollElements/max(s.rowLen, 1))
		for r := r0; r < r1; r++ {
			if (r-r0)%rowsPerPoll == 0 && fr.stopped() {
				return
			}
			out[r] = foldRow(fr, s.op, init, x[r*s.rowLen:(r+1)*s.rowLen])
		}
		return
	}
	var vs [maxLoopOps]val
	scratch := fr.scratch[w]
	buf := scratch[s.loop.regs*loopTile*4:]
	tiles := 0
	for r := r0; r < r1; r++ {
		acc := init
		for start := r * s.rowLen; start < (r+1)*s.rowLen; start += loopTile {
			if tiles++; tiles%(pollLoopElements/loopTile) == 0 && fr.stopped() {
				return
			}
			n := min(loopTile, (r+1)*s.rowLen-start)
			s.loop.tile(fr, vs[:len(s.loop.instrs)], start, n, scratch, buf)
			acc = foldF32(s.op, acc, f32s(buf)[:n])
		}
		out[r] = acc
	}
}

// foldRow folds a row onto acc, in runs of pollElements between polls of
// the run's cancellation when the row is longer (it then returns acc
// unfinished once the run is cancelled).
func foldRow(fr *frame, op ssa.Op, acc float32, row []float32) float32 {
	for len(row) > pollElements {
		if fr.stopped() {
			return acc
		}
		acc = foldF32(op, acc, row[:pollElements])
		row = row[pollElements:]
	}
	return foldF32(op, acc, row)
}

func applyF32(op ssa.Op, acc, x float32) float32 {
	switch op {
	case ssa.OpAdd:
		return acc + x
	case ssa.OpMultiply:
		return acc * x
	case ssa.OpMaximum:
		return maxF32(acc, x)
	}
	return minF32(acc, x)
}

// foldF32 folds xs onto acc with the vector reductions: exactly for max
// and min; for sums, Sum's accumulation (float32 lanes folded into float64)
// is more accurate than the evaluator's left-to-right float32 order, and the
// two agree within the bound of the sequential sum (K·ε·Σ|x|); products
// likewise within K·ε relative error.
func foldF32(op ssa.Op, acc float32, xs []float32) float32 {
	if len(xs) == 0 {
		return acc
	}
	switch op {
	case ssa.OpAdd:
		return acc + kiln.Sum(xs)
	case ssa.OpMultiply:
		return acc * kiln.Prod(xs)
	case ssa.OpMaximum:
		return maxF32(acc, kiln.Max(xs))
	}
	return minF32(acc, kiln.Min(xs))
}

package runtime

// Row programs in the narrow loop: a loop program sched fused from a chain
// of kernels over the same rows (sched's rows stage: a layer-norm's or a
// softmax's reductions, the scalar arithmetic on their results and the
// elementwise loops reading them along the row) runs one whole row per
// tile. Each reduction folds its operand's tile (a float32 tile with the
// float32 reductions, a narrow one with the narrow kernels, as the narrow
// reductions do) into a scalar of the row, and every op depending only on
// such scalars is computed once per row as a scalar, rounded to its type:
// the row's values live in the worker's registers (the first-level cache)
// from the first read of the input to the write of the result.

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// rows reports whether l is a row program.
func (l *lowpLoop) rows() bool {
	return l.rowLen > 0 && l.tileLen == max(l.rowLen, 1) && l.hasRowReduce()
}

func (l *lowpLoop) hasRowReduce() bool {
	for i := range l.instrs {
		if l.instrs[i].kind == instrRowReduce {
			return true
		}
	}
	return false
}

// collapseRowDims collapses a row program's dimensions as collapseDims
// does, keeping the last one (the row) apart: the result has two or more
// dimensions, the last the row.
func collapseRowDims(lp *sched.LoopProgram) ([]int, [][]int) {
	r := len(lp.Dims)
	outer := &sched.LoopProgram{Dims: lp.Dims[:r-1], Ops: make([]sched.LoopOp, len(lp.Ops))}
	for i, op := range lp.Ops {
		if op.Access != nil {
			a := *op.Access
			a.Strides = a.Strides[:r-1]
			op.Access = &a
		}
		outer.Ops[i] = op
	}
	dims, strides := collapseDims(outer)
	dims = append(dims, lp.Dims[r-1])
	for i, op := range lp.Ops {
		if op.Access != nil {
			strides[i] = append(strides[i], op.Access.Strides[r-1])
		}
	}
	return dims, strides
}

// rowReduceSupported reports whether the narrow loop folds a row
// reduction: a standard reducer over a float operand, a float32 result or
// the exact maximum or minimum of a narrow type.
func rowReduceSupported(lp *sched.LoopProgram, op sched.LoopOp) bool {
	if len(op.Args) != 2 {
		return false
	}
	switch op.Reducer {
	case ssa.OpAdd, ssa.OpMultiply, ssa.OpMaximum, ssa.OpMinimum:
	default:
		return false
	}
	for _, a := range op.Args {
		if t := lp.Ops[a].Type; t == ir.PRED || !lowpTypeOK(t) {
			return false
		}
	}
	switch {
	case op.Type == ir.F32:
	case lowpNarrow(op.Type) && (op.Reducer == ssa.OpMaximum || op.Reducer == ssa.OpMinimum):
	default:
		return false
	}
	return true
}

// lowerRowReduce lowers a row reduction: its operand as a narrow tile where
// the program widens one (the narrow kernels fold it in registers), as a
// float32 tile otherwise; its initial value a scalar.
func (b *lowpLoopBuilder) lowerRowReduce(in lowpInstr, op sched.LoopOp) int {
	in.kind, in.reducer, in.uniform = instrRowReduce, op.Reducer, true
	in.form = formF32
	x := b.of[op.Args[0]]
	switch a, ok := b.widened(x); {
	case ok:
		x = a
	case b.l.instrs[x].form == formNarrow && !b.l.instrs[x].uniform:
	default:
		x = b.need(x, formF32)
	}
	in.args = []int{x, b.of[op.Args[1]]}
	return b.emit(in)
}

// rowReduce folds the row's tile of n elements: the reducer's identity,
// then every element, then the initial value, as the narrow reductions
// fold a row.
func (l *lowpLoop) rowReduce(in *lowpInstr, vs []lval, n int, buf []float32) float32 {
	x := &vs[in.args[0]]
	acc := foldTile(in.reducer, l.instrs[in.args[0]].typ, identityF32(in.reducer), *x, n, buf)
	return applyF32(in.reducer, vs[in.args[1]].s, acc)
}

// dropDead removes the instructions the result does not depend on (the
// widening a row reduction folded narrow in its place) and returns the
// index of the last.
func (l *lowpLoop) dropDead() int {
	last := len(l.instrs) - 1
	live := make([]bool, len(l.instrs))
	live[last] = true
	for i := last; i >= 0; i-- {
		if live[i] {
			for _, a := range l.instrs[i].args {
				live[a] = true
			}
		}
	}
	remap := make([]int, len(l.instrs))
	kept := l.instrs[:0:0]
	for i, in := range l.instrs {
		if !live[i] {
			continue
		}
		remap[i] = len(kept)
		args := make([]int, len(in.args))
		for j, a := range in.args {
			args[j] = remap[a]
		}
		in.args = args
		kept = append(kept, in)
	}
	l.instrs = kept
	return len(kept) - 1
}

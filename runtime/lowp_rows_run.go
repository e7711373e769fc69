package runtime

// The row loop of a row program whose instructions are all of the few
// kinds a layer-norm's rows are made of: contiguous narrow loads of the
// row, constants, row reductions, scalar arithmetic on their results and
// fused passes. It computes exactly what tile and eval compute, without
// their per-instruction dispatch over every kind of instruction: the
// constants once per part, and per row only the instructions that depend
// on it, each through the one routine of its kind. A row of a few hundred
// elements takes a few hundred nanoseconds in the kernels, so the
// per-instruction overhead of the general loop is a large share of it.

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// rowOp is how the row loop computes one instruction per row.
type rowOp uint8

const (
	rowOpLoad       rowOp = iota // a contiguous narrow run of an input
	rowOpReduce                  // a row reduction (rowReduce, or rowSqDev where fused)
	rowOpScalar                  // a scalar op on row scalars (evalUniform)
	rowOpScalarLoad              // an input's element for the row (evalUniform)
	rowOpFused                   // a fused pass over the row (evalFusedRow)
)

// rowInstr is one instruction of the row loop: instruction i of the
// program, computed as op says.
type rowInstr struct {
	op rowOp
	i  int
}

// rowSchedule returns the row loop of a row program: the constants,
// computed once, and the instructions computed per row, in order; ok is
// false where some instruction has no quick form (the general loop runs
// the program).
func (l *lowpLoop) rowSchedule() (consts []int, perRow []rowInstr, ok bool) {
	if !l.rows() {
		return nil, nil, false
	}
	for i := range l.instrs {
		in := &l.instrs[i]
		switch {
		case in.kind == instrConst && in.uniform, in.kind == instrLoad && in.uniform && l.rowInvariant(in):
			consts = append(consts, i)
		case in.kind == instrLoad && in.uniform:
			perRow = append(perRow, rowInstr{rowOpScalarLoad, i})
		case in.kind == instrLoad && !in.uniform && in.linear && !in.toDst && in.form == formNarrow && in.typ != ir.PRED && in.typ != ir.F32:
			perRow = append(perRow, rowInstr{rowOpLoad, i})
		case in.kind == instrRowReduce:
			perRow = append(perRow, rowInstr{rowOpReduce, i})
		case in.kind == instrOp && in.uniform:
			perRow = append(perRow, rowInstr{rowOpScalar, i})
		case in.kind == instrOp && in.fused != rowUnfused && in.form == formNarrow && (in.toDst || in.reg >= 0):
			perRow = append(perRow, rowInstr{rowOpFused, i})
		default:
			return nil, nil, false
		}
	}
	return consts, perRow, true
}

// rowInvariant reports whether a uniform load reads the same element for
// every row.
func (l *lowpLoop) rowInvariant(in *lowpInstr) bool {
	for d := 0; d < len(l.dims)-1; d++ {
		if in.acc.Strides[d] != 0 && l.dims[d] != 1 {
			return false
		}
	}
	return true
}

// runRows computes output elements [lo, hi) (whole rows) of a row program
// rowSchedule accepts, into out.
func (s *lowpLoopStep) runRows(fr *frame, lo, hi int, vs []lval, scratch, out []byte) {
	l := s.l
	var ti tileIndex // the row's index, where a load reads an element per row
	for _, i := range s.consts {
		vs[i] = lval{}
		l.evalUniform(fr, &l.instrs[i], vs, &ti, &vs[i])
	}
	rowIndex := false
	for _, r := range s.perRow {
		rowIndex = rowIndex || r.op == rowOpScalarLoad
	}
	es := l.outT.ByteSize()
	var poll loopPoll
	for start := lo; start < hi; {
		if poll.stopped(fr) {
			return
		}
		n := l.segment(start, hi)
		dst := out[start*es : (start+n)*es]
		if rowIndex {
			l.rowIndexOf(&ti, start)
		}
		for _, r := range s.perRow {
			in := &l.instrs[r.i]
			switch r.op {
			case rowOpLoad:
				x := ops.Elems[uint16](fr.bytes(l.loads[in.acc.Input]))
				vs[r.i] = lval{h: x[in.acc.Offset+start : in.acc.Offset+start+n]}
			case rowOpReduce:
				if in.fused == rowSqDev {
					sum, lo, hi := l.rowSqDev(in, vs, n)
					vs[r.i] = lval{s: sum, lo: lo, hi: hi}
				} else {
					vs[r.i] = lval{s: l.rowReduce(in, vs, n, f32s(scratch[l.staging:l.staging+l.tileLen*4]))}
				}
			case rowOpScalar, rowOpScalarLoad:
				vs[r.i] = lval{}
				l.evalUniform(fr, in, vs, &ti, &vs[r.i])
			case rowOpFused:
				var d []uint16
				if in.toDst {
					d = ops.Elems[uint16](dst)[:n]
				} else {
					d = ops.Elems[uint16](scratch[in.reg*l.tileLen*4 : (in.reg+1)*l.tileLen*4])[:n]
				}
				l.evalFusedRow(in, vs, d)
				vs[r.i] = lval{h: d}
			}
		}
		l.finish(vs, dst, n)
		start += n
		poll.since += n
	}
}

// rowIndexOf sets ti to the index of element start's row.
func (l *lowpLoop) rowIndexOf(ti *tileIndex, start int) {
	rem := start
	for d := len(l.dims) - 1; d >= 0; d-- {
		ti.idx[d] = rem % l.dims[d]
		rem /= l.dims[d]
	}
}

// loopPoll polls a frame for cancellation every pollLoopElements elements
// a loop computes: since counts those computed since the last poll.
type loopPoll struct{ since int }

// stopped reports whether the loop must stop, polling the frame once
// enough elements have been computed since the last poll.
func (p *loopPoll) stopped(fr *frame) bool {
	if p.since < pollLoopElements {
		return false
	}
	p.since = 0
	return fr.stopped()
}

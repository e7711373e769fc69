package runtime

// The fused passes of bfloat16 row programs. A layer-norm's row program
// computes, per row, d = x − mean rounded to bfloat16, then the sum of the
// rounded squares d·d, then d divided (or multiplied) by the row's scale,
// rounded: as separate typed kernels each op goes through a tile in
// memory, widening and rounding again. The compiler recognises those
// chains in the lowered program and runs each as one kernel
// (kiln.SumSqDevBF16, kiln.SubDivScalarBF16, kiln.SubMulScalarBF16),
// which keeps d in registers, rounded as the separate kernels round it:
// the result is bit for bit the same. Dividing by the row's scale
// multiplies by its reciprocal where kiln.BF16Reciprocal shows, from the
// range of the deviations the sum pass saw (the least bounded from below
// by the row's mean where it is a normal value), that this rounds alike.

import (
	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// rowFusion is the fused pass an instruction of a row program runs.
type rowFusion uint8

const (
	rowUnfused rowFusion = iota
	// rowSqDev: a row reduction (sum) of bf16(d·d) for d = bf16(x − s);
	// args x (a bfloat16 tile), s, the initial value.
	rowSqDev
	// rowSubDiv: bf16(bf16(x − s) / t); args x, s, t and, where a
	// rowSqDev pass saw the same deviations, that pass (their range).
	rowSubDiv
	// rowSubMul: bf16(bf16(x − s) · t); args x, s, t.
	rowSubMul
)

// fuseBF16Rows rewrites the chains of a bfloat16 row program that a fused
// pass computes, leaving the instructions only they read dead (dropDead
// removes them).
func (l *lowpLoop) fuseBF16Rows() {
	in := l.instrs
	narrowTile := func(j int) bool {
		return in[j].typ == ir.BF16 && in[j].form == formNarrow && !in[j].uniform
	}
	scalar := func(j int) bool { return in[j].uniform && in[j].typ == ir.BF16 }
	// dev reports whether instruction j is bf16(x − s) of a bfloat16 tile
	// x and a bfloat16 row scalar s, and returns x and s.
	dev := func(j int) (x, s int, ok bool) {
		d := &in[j]
		if d.kind != instrOp || d.op != ssa.OpSubtract || !narrowTile(j) || d.hvs == nil || len(d.args) != 2 {
			return 0, 0, false
		}
		x, s = d.args[0], d.args[1]
		return x, s, narrowTile(x) && scalar(s)
	}
	type devKey struct{ x, s int }
	sqDev := map[devKey]int{}
	for i := range in {
		r := &in[i]
		if r.kind != instrRowReduce || r.reducer != ssa.OpAdd || len(r.args) != 2 {
			continue
		}
		m := &in[r.args[0]]
		if m.kind != instrOp || m.op != ssa.OpMultiply || !narrowTile(r.args[0]) || len(m.args) != 2 || m.args[0] != m.args[1] {
			continue
		}
		if x, s, ok := dev(m.args[0]); ok {
			r.fused, r.args = rowSqDev, []int{x, s, r.args[1]}
			sqDev[devKey{x, s}] = i
		}
	}
	for i := range in {
		f := &in[i]
		if f.kind != instrOp || !narrowTile(i) || len(f.args) != 2 || f.alias {
			continue
		}
		switch f.op {
		case ssa.OpDivide:
			x, s, ok := dev(f.args[0])
			if !ok || !scalar(f.args[1]) {
				continue
			}
			f.fused, f.args = rowSubDiv, []int{x, s, f.args[1]}
			if r, ok := sqDev[devKey{x, s}]; ok && r < i {
				f.args = append(f.args, r)
			}
		case ssa.OpMultiply:
			d, t := f.args[0], f.args[1]
			if in[d].uniform {
				d, t = t, d
			}
			x, s, ok := dev(d)
			if !ok || !scalar(t) {
				continue
			}
			f.fused, f.args = rowSubMul, []int{x, s, t}
		}
	}
}

// rowSqDev folds a row's bf16(d·d) in one pass, keeping bounds on |d|:
// where the row's scalar allows, kiln.BF16DevFloor below its least
// non-zero value and kiln.SumSqDevBoundBF16's bound above (the pass then
// tracks at most the largest), the least and the largest otherwise.
func (l *lowpLoop) rowSqDev(in *lowpInstr, vs []lval, n int) (s, lo, hi float32) {
	return sqDevRow(vs[in.args[0]].h[:n], vs[in.args[1]].s, vs[in.args[2]].s, nil)
}

// sqDevRow is rowSqDev of row x, scalar c and initial value init; where
// keep is not nil, it keeps the deviations there for fusedRow
// (kiln.SumSqDevBoundKeepBF16). Its hi bounds the deviations from above
// (the largest, or a bound on it the row's sum gives).
func sqDevRow(x []uint16, c, init float32, keep []uint16) (s, lo, hi float32) {
	if f, ok := kiln.BF16DevFloor(c); ok {
		var sum float32
		if keep != nil {
			sum, hi = kiln.SumSqDevBoundKeepBF16(x, keep, c)
		} else {
			sum, hi = kiln.SumSqDevBoundBF16(x, c)
		}
		return init + sum, f, hi
	}
	sum, lo, hi := kiln.SumSqDevBF16(x, c)
	return init + sum, lo, hi
}

// evalFusedRow runs a fused elementwise pass into dst.
func (l *lowpLoop) evalFusedRow(in *lowpInstr, vs []lval, dst []uint16) {
	x, s, t := vs[in.args[0]].h[:len(dst)], vs[in.args[1]].s, vs[in.args[2]].s
	ranged, lo, hi := false, float32(0), float32(0)
	if len(in.args) > 3 {
		st := vs[in.args[3]]
		ranged, lo, hi = true, st.lo, st.hi
	}
	fusedRow(in.fused, dst, x, s, t, ranged, lo, hi, nil)
}

// fusedRow runs fused pass kind into dst from row x and scalars s and t;
// ranged says that lo and hi bound the deviations (a rowSqDev pass's),
// and keep, when not nil, holds them as that pass kept them (sqDevRow).
func fusedRow(kind rowFusion, dst, x []uint16, s, t float32, ranged bool, lo, hi float32, keep []uint16) {
	switch kind {
	case rowSubMul:
		kiln.SubMulScalarBF16(dst, x, s, t)
	default:
		if ranged {
			if r, ok := kiln.BF16Reciprocal(t, lo, hi); ok {
				if keep != nil {
					kiln.SubMulKeptBF16(dst, x, keep, s, r)
				} else {
					kiln.SubMulScalarBF16(dst, x, s, r)
				}
				return
			}
		}
		kiln.SubDivScalarBF16(dst, x, s, t)
	}
}

// hasFusedRow reports whether a row program runs some fused pass.
func (l *lowpLoop) hasFusedRow() bool {
	for i := range l.instrs {
		if l.instrs[i].fused != rowUnfused {
			return true
		}
	}
	return false
}

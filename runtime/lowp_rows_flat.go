package runtime

// The flat row loop: the row loop of a row program whose per-row
// instructions are all contiguous 16-bit loads, sums of 16-bit rows, fused
// bfloat16 passes and float32 arithmetic on the row scalars, ending in a
// fused pass that writes the result. It keeps the row's values in plain
// arrays (a float32 per scalar, a slice per row) instead of the general
// loop's operand records, and computes each instruction by a switch on a
// compact step: a layer-norm row takes a few hundred nanoseconds in its
// kernels, and the general records' copies and dispatch added a third to
// that. The values are the general row loop's (the same routines compute
// them).

import (
	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/ssa"
	"math"
)

// flatKind is how the flat row loop computes a step.
type flatKind uint8

const (
	flatLoad   flatKind = iota // tiles[i] = the row of load slot
	flatSum                    // sc[i] = sc[b] + (0 + the sum of tiles[a]) (kiln.SumRowsBF16)
	flatSqDev                  // sc[i], lo[i], hi[i] = sqDevRow(tiles[a], sc[b], sc[c]) (kiln.SqDevRowsBF16), the deviations kept where keep
	flatArith                  // sc[i] = op(sc[a], sc[b]) rounded to round
	flatFused                  // the result row = fusedRow(tiles[a], sc[b], sc[c], the range of d) (a division: kiln.SubDivRowsBF16)
	flatScalar                 // sc[i] = an input's element for the row (evalUniform)
)

// flatStep is one per-row instruction of the flat row loop.
type flatStep struct {
	kind       flatKind
	i, a, b, c int
	d          int // flatFused: the rowSqDev instruction whose range bounds the deviations, or -1
	slot       int // flatLoad: the load; off: its first element
	off        int
	bf16       bool // flatSum: the row is bfloat16 (else binary16)
	keep       bool // flatSqDev: the fused pass divides the same deviations (rowSubDiv)
	op         ssa.Op
	round      ir.ElementType
	f1         func(float64) float64
	fused      rowFusion
}

// flatSchedule returns the flat row loop's steps for a row program whose
// row schedule is perRow, or nil where some instruction has no flat form.
func (l *lowpLoop) flatSchedule(perRow []rowInstr) []flatStep {
	last := len(l.instrs) - 1
	if len(l.instrs) > 2*maxLoopOps || !l.instrs[last].toDst || l.instrs[last].fused == rowUnfused || l.outT != ir.BF16 {
		return nil
	}
	tile := func(j int) bool { return l.instrs[j].kind == instrLoad && !l.instrs[j].uniform }
	steps := make([]flatStep, 0, len(perRow))
	for _, r := range perRow {
		in := &l.instrs[r.i]
		st := flatStep{i: r.i, d: -1}
		switch r.op {
		case rowOpLoad:
			st.kind, st.slot, st.off = flatLoad, in.acc.Input, in.acc.Offset
		case rowOpReduce:
			switch {
			case in.fused == rowSqDev && tile(in.args[0]):
				st.kind, st.a, st.b, st.c = flatSqDev, in.args[0], in.args[1], in.args[2]
			case in.reducer == ssa.OpAdd && tile(in.args[0]) && (l.instrs[in.args[0]].typ == ir.BF16 || l.instrs[in.args[0]].typ == ir.F16):
				st.kind, st.a, st.b, st.bf16 = flatSum, in.args[0], in.args[1], l.instrs[in.args[0]].typ == ir.BF16
			default:
				return nil
			}
		case rowOpScalar:
			if !flatArithOp(in) {
				return nil
			}
			st.kind, st.op, st.round, st.f1, st.a = flatArith, in.op, in.round, in.f1, in.args[0]
			if len(in.args) > 1 {
				st.b = in.args[1]
			}
		case rowOpFused:
			if !in.toDst || r.i != last || !tile(in.args[0]) {
				return nil
			}
			st.kind, st.fused, st.a, st.b, st.c = flatFused, in.fused, in.args[0], in.args[1], in.args[2]
			if len(in.args) > 3 {
				st.d = in.args[3]
			}
		case rowOpScalarLoad:
			if in.typ == ir.PRED {
				return nil
			}
			st.kind = flatScalar
		default:
			return nil
		}
		steps = append(steps, st)
	}
	// The division by the row's scale reads the deviations its sum of
	// squares kept, where that pass is the last such before it.
	if len(steps) == 0 {
		return nil
	}
	if f := &steps[len(steps)-1]; f.kind == flatFused && f.fused == rowSubDiv && f.d >= 0 {
		for k := len(steps) - 2; k >= 0; k-- {
			if steps[k].kind == flatSqDev {
				steps[k].keep = steps[k].i == f.d
				break
			}
		}
	}
	return steps
}

// flatArithOp reports whether a per-row scalar instruction is float32
// arithmetic the flat loop computes as evalUniform does: the four
// operations, a conversion between float types, or a unary op scalarF32
// computes by its float64 definition.
func flatArithOp(in *lowpInstr) bool {
	if in.kind != instrOp || in.loopInstr.typ != ir.F32 || in.f2 != nil {
		return false
	}
	switch in.op {
	case ssa.OpAdd, ssa.OpSubtract, ssa.OpMultiply, ssa.OpDivide:
		return len(in.args) == 2
	case ssa.OpConvert:
		return !in.fromMask && len(in.args) == 1
	case ssa.OpMaximum, ssa.OpMinimum, ssa.OpNegate, ssa.Op(ir.OpAbs), ssa.OpCopy, ssa.OpSelect, ssa.OpClamp, ssa.OpGelu:
		return false
	}
	return in.f1 != nil && len(in.args) == 1
}

// flatBatch is the most rows the flat row loop computes a step for before
// the next step: the rows' scalar chains are independent, so the core
// overlaps one row's reductions, divisions and square roots with the
// others' instead of waiting on each in turn, and a step's dispatch is
// paid once per batch.
const flatBatch = 8

// flatKeepRows is how many rows of kept deviations the staging area of a
// row program holds: a batch's.
const flatKeepRows = flatBatch

// runFlat computes output elements [lo, hi) (whole rows) of a row program
// with flat steps, into out, a batch of rows at a time.
func (s *lowpLoopStep) runFlat(fr *frame, lo, hi int, vs []lval, scratch, out []byte) {
	l := s.l
	n := l.rowLen
	if n == 0 {
		return
	}
	// The kept deviations of a batch's rows: the staging area, which the
	// flat loop does not otherwise use.
	keep := ops.Elems[uint16](scratch[l.staging : l.staging+l.stagingLen])
	kept := false // some pass keeps the deviations the fused pass reads
	for k := range s.flat {
		kept = kept || s.flat[k].keep
	}
	batch := flatBatch
	if kept && len(keep) < flatBatch*n {
		batch = 1
	}
	var sc, dlo, dhi [2 * maxLoopOps][flatBatch]float32
	var tiles, nexts [2 * maxLoopOps][]uint16 // a load's rows for the batch, and for the next one
	var ti tileIndex
	for _, i := range s.consts {
		vs[i] = lval{}
		l.evalUniform(fr, &l.instrs[i], vs, &ti, &vs[i])
		for j := range sc[i] {
			sc[i][j] = vs[i].s
		}
	}
	var inputs [2 * maxLoopOps][]uint16
	for k := range s.flat {
		if st := &s.flat[k]; st.kind == flatLoad {
			inputs[k] = ops.Elems[uint16](fr.bytes(l.loads[st.slot]))
		}
	}
	y := ops.Elems[uint16](out)
	var poll loopPoll
	for start := lo; start < hi; {
		if poll.stopped(fr) {
			return
		}
		g := min(batch, (hi-start)/n)
		for k := range s.flat {
			st := &s.flat[k]
			switch st.kind {
			case flatLoad:
				in := inputs[k][st.off+start:]
				tiles[st.i], nexts[st.i] = in[:g*n], nil
				if len(in) >= 2*g*n {
					nexts[st.i] = in[g*n : 2*g*n]
				}
			case flatSum:
				x := tiles[st.a]
				r, b := &sc[st.i], &sc[st.b]
				if st.bf16 {
					kiln.SumRowsBF16(r[:g], x, n)
					for j := range g {
						r[j] = b[j] + (0 + r[j])
					}
				} else {
					for j := range g {
						r[j] = b[j] + (0 + kiln.SumF16(x[j*n:j*n+n]))
					}
				}
			case flatSqDev:
				x := tiles[st.a]
				r, rlo, rhi, b, c := &sc[st.i], &dlo[st.i], &dhi[st.i], &sc[st.b], &sc[st.c]
				var kp []uint16
				if st.keep {
					kp = keep[:g*n]
				}
				kiln.SqDevRowsBF16(r[:g], rlo[:g], rhi[:g], x, kp, y[start:start+g*n], n, b[:g])
				for j := range g {
					r[j] = c[j] + r[j]
				}
			case flatArith:
				// As evalUniform computes a float32 scalar op (scalarF32,
				// roundScalar), written out: a call per step cost a tenth
				// of the loop's time.
				a, b, r := &sc[st.a], &sc[st.b], &sc[st.i]
				switch st.op {
				case ssa.OpAdd:
					for j := range g {
						r[j] = a[j] + b[j]
					}
				case ssa.OpSubtract:
					for j := range g {
						r[j] = a[j] - b[j]
					}
				case ssa.OpMultiply:
					for j := range g {
						r[j] = a[j] * b[j]
					}
				case ssa.OpDivide:
					for j := range g {
						r[j] = a[j] / b[j]
					}
				case ssa.OpConvert:
					for j := range g {
						r[j] = a[j]
					}
				case ssa.Op(ir.OpSqrt):
					// ops.FloatUnary(OpSqrt), math.Sqrt, without the
					// indirect call.
					for j := range g {
						r[j] = float32(math.Sqrt(float64(a[j])))
					}
				case ssa.OpRsqrt:
					for j := range g {
						r[j] = float32(1 / math.Sqrt(float64(a[j])))
					}
				default:
					for j := range g {
						r[j] = float32(st.f1(float64(a[j])))
					}
				}
				switch st.round {
				case ir.BF16:
					for j := range g {
						r[j] = ir.BFloat16FromFloat32(r[j]).Float32()
					}
				case ir.F16:
					for j := range g {
						r[j] = ir.Float16FromFloat32(r[j]).Float32()
					}
				}
			case flatScalar:
				// An input's element for each row, by the row's index.
				for j := range g {
					var v lval
					l.rowIndexOf(&ti, start+j*n)
					l.evalUniform(fr, &l.instrs[st.i], vs, &ti, &v)
					sc[st.i][j] = v.s
				}
			case flatFused:
				x := tiles[st.a]
				b, c, kind, ranged := &sc[st.b], &sc[st.c], st.fused, st.d >= 0
				var los, his *[flatBatch]float32
				if ranged {
					los, his = &dlo[st.d], &dhi[st.d]
				}
				if ranged && kind == rowSubDiv {
					var kp []uint16
					if kept {
						kp = keep[:g*n]
					}
					kiln.SubDivRowsBF16(y[start:start+g*n], x, kp, nexts[st.a], n, b[:g], c[:g], los[:g], his[:g])
					break
				}
				for j := range g {
					var rlo, rhi float32
					var kp []uint16
					if ranged {
						rlo, rhi = los[j], his[j]
						if kept {
							kp = keep[j*n : j*n+n]
						}
					}
					o := start + j*n
					fusedRow(kind, y[o:o+n], x[j*n:j*n+n], b[j], c[j], ranged, rlo, rhi, kp)
				}
			}
		}
		start += g * n
		poll.since += g * n
	}
}

package runtime

import (
	"fmt"
	"unsafe"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// dotStep is a float32 or float64 dot run as batched GEMM calls as the plan
// says (sched.GemmPlan): each operand read in place with its own leading
// dimension, offset and batch strides (through the transposes and
// reshapes the plan folded into them), the constant right-hand side of an
// unbatched float32 dot packed at compile time, a fused epilogue (bias,
// residual, activation) applied in the GEMM's store.
type dotStep struct {
	g       sched.GemmShape
	elem    ir.ElementType
	a, b, c loc
	opA     sched.GemmOperand
	opB     sched.GemmOperand
	batch   []int // the batch split
	alpha   float64
	packed  *kiln.PackedB
	// epilogue
	bias     loc
	hasBias  bool
	residual loc
	hasRes   bool
	act      kiln.Activation
	// batchParts is the plan's split of the batch across workers (1: each
	// product splits itself across the kernels' threads).
	batchParts, threads int
}

// dotStep carries out the GEMM plan sched made for a Dot kernel (nil: the
// dot is not a GEMM and runs generically).
func (c *compiler) dotStep(k *sched.Kernel, p *program) (step, error) {
	gp := k.Gemm
	if gp == nil {
		return nil, nil
	}
	v, g := k.Main, gp.GemmShape
	if gp.Narrow {
		return c.lowpDotStep(k, p)
	}
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	if indexOf(k.Inputs, gp.A.Value) < 0 || indexOf(k.Inputs, gp.B.Value) < 0 {
		return nil, fmt.Errorf("the GEMM's operands %v and %v are not inputs of the kernel", gp.A.Value, gp.B.Value)
	}
	s := &dotStep{g: g, elem: v.Shape.Elem, a: c.loc(bufOf(gp.A.Value)), b: c.loc(bufOf(gp.B.Value)), c: c.loc(k.Out),
		opA: gp.A, opB: gp.B, batch: gp.BatchDims, alpha: gp.Alpha}
	for _, st := range k.Epilogue {
		switch st.Kind {
		case sched.EpilogueBias:
			s.bias, s.hasBias = c.loc(bufOf(st.Operand)), true
		case sched.EpilogueResidual:
			s.residual, s.hasRes = c.loc(bufOf(st.Operand)), true
		case sched.EpilogueReLU:
			s.act = kiln.ActReLU
		case sched.EpilogueGelu:
			s.act = kiln.ActGeluErf
			if st.Value.Aux == ssa.GeluTanh {
				s.act = kiln.ActGeluTanh
			}
		case sched.EpilogueSiLU:
			s.act = kiln.ActSiLU
		default:
			return nil, fmt.Errorf("epilogue stage %d has no GEMM implementation", st.Kind)
		}
	}
	s.threads = c.cfg.threads
	s.batchParts = max(k.Parallel, 1)
	if gp.PackB {
		if s.b.kind != sched.Constant {
			return nil, fmt.Errorf("the plan packs B, which is not a constant (%v)", bufOf(gp.B.Value))
		}
		s.packed = kiln.PackB(g.TransB, g.K, g.N, f32s(s.b.data)[gp.B.Offset:], gp.B.LD)
		c.notePacked(s.packed.Bytes())
	}
	return s, nil
}

func (s *dotStep) name() string {
	if s.packed != nil {
		return "gemm-packed"
	}
	return "gemm"
}

// offset is the element offset of batch i's matrix of an operand.
func (s *dotStep) offset(op *sched.GemmOperand, i int) int {
	off := op.Offset
	for d := len(s.batch) - 1; d >= 0; d-- {
		off += (i % s.batch[d]) * op.BatchStrides[d]
		i /= s.batch[d]
	}
	return off
}

func (s *dotStep) exec(fr *frame) error {
	g := s.g
	if g.M == 0 || g.N == 0 || g.Batch == 0 {
		return nil
	}
	switch s.elem {
	case ir.F32:
		if s.batchParts > 1 {
			parallelFor(fr, &fr.task, s, s.batchParts, s.threads)
		} else {
			s.batchesF32(fr, 0, g.Batch)
		}
	case ir.F64:
		// BLAS wants leading dimensions of at least 1, even for an empty K
		// (where C is just the epilogue of zero).
		lda, ldb := max(s.opA.LD, 1), max(s.opB.LD, 1)
		a, b, c := f64s(fr.bytes(s.a)), f64s(fr.bytes(s.b)), f64s(fr.bytes(s.c))
		for i := 0; i < g.Batch && !fr.stopped(); i++ {
			s.dgemmRows(fr, a[s.offset(&s.opA, i):], lda, b[s.offset(&s.opB, i):], ldb, c[i*g.M*g.N:])
		}
	}
	return nil
}

// part runs the float32 products of batch part p on one worker.
func (s *dotStep) part(fr *frame, p, w int) {
	b := s.g.Batch
	s.batchesF32(fr, p*b/s.batchParts, (p+1)*b/s.batchParts)
}

// batchesF32 computes the float32 products of batches [lo, hi).
func (s *dotStep) batchesF32(fr *frame, lo, hi int) {
	g := s.g
	lda, ldb := max(s.opA.LD, 1), max(s.opB.LD, 1)
	a, b, c := f32s(fr.bytes(s.a)), f32s(fr.bytes(s.b)), f32s(fr.bytes(s.c))
	var ep kiln.Epilogue
	ep.Act = s.act
	ep.Cancel = fr.cancel
	if s.hasBias {
		ep.Bias = f32s(fr.bytes(s.bias))
	}
	beta := float32(0)
	if s.hasRes {
		// C = A·B + residual: start C as the residual and accumulate.
		r := f32s(fr.bytes(s.residual))
		copy(c[lo*g.M*g.N:hi*g.M*g.N], r[lo*g.M*g.N:hi*g.M*g.N])
		beta = 1
	}
	alpha := float32(s.alpha)
	if s.packed != nil {
		kiln.SgemmPackedEpilogue(g.TransA, g.M, alpha, a[s.opA.Offset:], lda, s.packed, beta, c, g.N, ep)
		return
	}
	for i := lo; i < hi && !fr.stopped(); i++ {
		kiln.SgemmEpilogue(g.TransA, g.TransB, g.M, g.N, g.K, alpha, a[s.offset(&s.opA, i):], lda, b[s.offset(&s.opB, i):], ldb, beta, c[i*g.M*g.N:], g.N, ep)
	}
}

// dgemmRows runs one float64 product in blocks of rows of C, polling the
// run's cancellation between them (Dgemm takes no Cancel): each block is
// about pollFlops multiply-adds.
func (s *dotStep) dgemmRows(fr *frame, a []float64, lda int, b []float64, ldb int, c []float64) {
	g := s.g
	step := max(1, pollFlops/max(g.N*g.K, 1))
	for r := 0; r < g.M; r += step {
		if r > 0 && fr.stopped() {
			return
		}
		rows := min(step, g.M-r)
		ar := a[r*lda:]
		if g.TransA {
			ar = a[r:]
		}
		kiln.Dgemm(g.TransA, g.TransB, rows, g.N, g.K, s.alpha, ar, lda, b, ldb, 0, c[r*g.N:], g.N)
	}
}

// f32s views bytes as float32s (the buffer must be 4-byte aligned).
func f32s(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// f64s views bytes as float64s (the buffer must be 4-byte aligned).
func f64s(b []byte) []float64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)/8)
}

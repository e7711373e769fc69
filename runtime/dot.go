package runtime

import (
	"fmt"
	"unsafe"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// dotStep is a float32 or float64 dot run as batched GEMM calls as the
// plan says (sched.GemmPlan): the constant right-hand side of an unbatched
// float32 dot packed at compile time, a fused epilogue (bias, residual,
// activation) applied in the GEMM's store.
type dotStep struct {
	g       sched.GemmShape
	elem    ir.ElementType
	a, b, c loc
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
func (c *compiler) dotStep(k *sched.Kernel) (step, error) {
	if k.Gemm == nil {
		return nil, nil
	}
	v, g := k.Main, k.Gemm.GemmShape
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	s := &dotStep{g: g, elem: v.Shape.Elem, a: c.loc(bufOf(v.Args[0])), b: c.loc(bufOf(v.Args[1])), c: c.loc(k.Out)}
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
		default:
			return nil, fmt.Errorf("epilogue stage %d has no GEMM implementation", st.Kind)
		}
	}
	s.threads = c.cfg.threads
	s.batchParts = k.Parallel
	if k.Gemm.PackB {
		if s.b.kind != sched.Constant {
			return nil, fmt.Errorf("the plan packs B, which is not a constant (%v)", bufOf(v.Args[1]))
		}
		ldb := g.N
		if g.TransB {
			ldb = g.K
		}
		s.packed = kiln.PackB(g.TransB, g.K, g.N, f32s(s.b.data), ldb)
	}
	return s, nil
}

func (s *dotStep) name() string {
	if s.packed != nil {
		return "gemm-packed"
	}
	return "gemm"
}

func (s *dotStep) exec(fr *frame) error {
	g := s.g
	lda, ldb := g.K, g.N
	if g.TransA {
		lda = g.M
	}
	if g.TransB {
		ldb = g.K
	}
	// BLAS wants leading dimensions of at least 1, even for an empty K
	// (where C is just the epilogue of zero).
	lda, ldb = max(lda, 1), max(ldb, 1)
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
		a, b, c := f64s(fr.bytes(s.a)), f64s(fr.bytes(s.b)), f64s(fr.bytes(s.c))
		for i := 0; i < g.Batch; i++ {
			kiln.Dgemm(g.TransA, g.TransB, g.M, g.N, g.K, 1, a[i*g.M*g.K:], lda, b[i*g.K*g.N:], ldb, 0, c[i*g.M*g.N:], g.N)
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
	lda, ldb := g.K, g.N
	if g.TransA {
		lda = g.M
	}
	if g.TransB {
		ldb = g.K
	}
	lda, ldb = max(lda, 1), max(ldb, 1)
	a, b, c := f32s(fr.bytes(s.a)), f32s(fr.bytes(s.b)), f32s(fr.bytes(s.c))
	var ep kiln.Epilogue
	ep.Act = s.act
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
	if s.packed != nil {
		kiln.SgemmPackedEpilogue(g.TransA, g.M, 1, a, lda, s.packed, beta, c, g.N, ep)
		return
	}
	for i := lo; i < hi; i++ {
		kiln.SgemmEpilogue(g.TransA, g.TransB, g.M, g.N, g.K, 1, a[i*g.M*g.K:], lda, b[i*g.K*g.N:], ldb, beta, c[i*g.M*g.N:], g.N, ep)
	}
}

// f32s views bytes as float32s (the buffer must be 4-byte aligned).
func f32s(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// f64s views bytes as float64s (the buffer must be 8-byte aligned).
func f64s(b []byte) []float64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)/8)
}

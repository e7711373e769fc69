package runtime

// Low-precision dots on the low-precision GEMMs: bfloat16 and binary16
// operands accumulated in float32 (a bfloat16 or binary16 result rounded
// once, XLA's accumulation), int8 operands (s8×s8, u8×s8) into int32 —
// XLA's integer dot with a wider result type. A B known at compile time is
// packed then; a B computed at run time (attention's keys and values) is
// packed per call into storage the step keeps, one pack per concurrent run.
// Where the level has no bfloat16 product (B would be widened when packed),
// for binary16, and for products of few rows, a run-time B is widened into
// the frame's arena with A and the float32 GEMM multiplies them.

import (
	"sync"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
)

// lowpPackRows is the fewest rows of A for which a bfloat16 B computed at
// run time is packed in pairs rather than widened.
const lowpPackRows = 32

// lowpDotStep is a batched low-precision GEMM.
type lowpDotStep struct {
	g           sched.GemmShape
	at, bt, ct  ir.ElementType
	a, b, c     loc
	lda, ldb    int
	packedBF16  *kiln.PackedBF16
	packedF16   *kiln.PackedF16
	packedS8    *kiln.PackedS8
	wide        bool // widen A and B into the arena and run the float32 GEMM
	wideA       loc  // float32 A of one batch
	wideB       loc  // float32 B of one batch
	wideC       loc  // float32 C of one batch (narrow results)
	packsBF16   packList[kiln.PackedBF16]
	packsS8     packList[kiln.PackedS8]
	constPacked bool
}

// packList holds the packs of a run-time B, one per run in flight.
type packList[T any] struct {
	mu   sync.Mutex
	free []*T
}

func (l *packList[T]) get() *T {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		p := l.free[n-1]
		l.free = l.free[:n-1]
		return p
	}
	return nil
}

func (l *packList[T]) put(p *T) {
	l.mu.Lock()
	l.free = append(l.free, p)
	l.mu.Unlock()
}

// lowpDotTypes reports whether a dot of these operand and result types has
// a low-precision GEMM.
func lowpDotTypes(at, bt, ct ir.ElementType) bool {
	switch {
	case at == ir.BF16 && bt == ir.BF16:
		return ct == ir.BF16 || ct == ir.F32
	case at == ir.F16 && bt == ir.F16:
		return ct == ir.F16 || ct == ir.F32
	case (at == ir.S8 || at == ir.U8) && bt == ir.S8:
		return ct == ir.S32
	}
	return false
}

// lowpDotStep compiles a low-precision dot, or returns nil.
func (c *compiler) lowpDotStep(k *sched.Kernel, p *program) step {
	v := k.Root
	if k.Main != nil || len(k.Values) != 1 || len(v.Args) != 2 {
		return nil
	}
	at, bt, ct := v.Args[0].Shape.Elem, v.Args[1].Shape.Elem, v.Shape.Elem
	if !lowpDotTypes(at, bt, ct) {
		return nil
	}
	g, ok := sched.GemmOf(v)
	if !ok {
		return nil
	}
	s := &lowpDotStep{g: g, at: at, bt: bt, ct: ct, a: c.loc(inputBuffer(k, v.Args[0])), b: c.loc(inputBuffer(k, v.Args[1])), c: c.loc(k.Out)}
	s.lda, s.ldb = max(g.K, 1), max(g.N, 1)
	if g.TransA {
		s.lda = max(g.M, 1)
	}
	if g.TransB {
		s.ldb = max(g.K, 1)
	}
	if g.M == 0 || g.N == 0 || g.Batch == 0 || g.K == 0 {
		return s
	}
	if s.b.kind == sched.Constant && g.Batch == 1 {
		s.constPacked = true
		switch bt {
		case ir.BF16:
			s.packedBF16 = kiln.PackBF16(g.TransB, g.K, g.N, ops.Elems[uint16](s.b.data), s.ldb)
		case ir.F16:
			s.packedF16 = kiln.PackF16(g.TransB, g.K, g.N, ops.Elems[uint16](s.b.data), s.ldb)
		default:
			s.packedS8 = kiln.PackS8(g.TransB, g.K, g.N, ops.Elems[int8](s.b.data), s.ldb)
		}
		return s
	}
	// A B packed per call costs K·N; with few rows of A the float32 GEMM
	// on widened operands (which packs B as it goes) does better.
	if bt == ir.F16 || bt == ir.BF16 && (!kiln.BF16Pairs() || g.M < lowpPackRows) {
		s.wide = true
		s.wideA = privateArena(p, 4*g.M*g.K)
		s.wideB = privateArena(p, 4*g.K*g.N)
		if ct != ir.F32 {
			s.wideC = privateArena(p, 4*g.M*g.N)
		}
	}
	return s
}

func (s *lowpDotStep) name() string {
	prefix := "gemm-" + s.at.String()
	switch {
	case s.constPacked:
		return prefix + "-packed"
	case s.wide:
		return prefix + "-widened"
	}
	return prefix
}

func (s *lowpDotStep) exec(fr *frame) error {
	g := s.g
	if g.M == 0 || g.N == 0 || g.Batch == 0 {
		return nil
	}
	a, b, c := fr.bytes(s.a), fr.bytes(s.b), fr.bytes(s.c)
	if g.K == 0 {
		clear(c[:g.Batch*g.M*g.N*s.ct.ByteSize()])
		return nil
	}
	ea, eb, ec := s.at.ByteSize(), s.bt.ByteSize(), s.ct.ByteSize()
	for i := 0; i < g.Batch; i++ {
		ai := a[i*g.M*g.K*ea : (i+1)*g.M*g.K*ea]
		bi := b[i*g.K*g.N*eb : (i+1)*g.K*g.N*eb]
		ci := c[i*g.M*g.N*ec : (i+1)*g.M*g.N*ec]
		switch {
		case s.wide:
			s.widened(fr, ai, bi, ci)
		case s.bt == ir.BF16:
			s.bf16(ai, bi, ci)
		case s.bt == ir.F16:
			s.f16(ai, ci)
		default:
			s.s8(ai, bi, ci)
		}
	}
	return nil
}

// bf16 multiplies one batch of bfloat16 operands.
func (s *lowpDotStep) bf16(a, b, c []byte) {
	g := s.g
	pb := s.packedBF16
	if pb == nil {
		pb = kiln.RepackBF16(s.packsBF16.get(), g.TransB, g.K, g.N, ops.Elems[uint16](b), s.ldb)
		defer s.packsBF16.put(pb)
	}
	if s.ct == ir.F32 {
		kiln.GemmBF16(g.TransA, g.M, ops.Elems[uint16](a), s.lda, pb, ops.Elems[float32](c), g.N, kiln.Epilogue{})
	} else {
		kiln.GemmBF16ToBF16(g.TransA, g.M, ops.Elems[uint16](a), s.lda, pb, ops.Elems[uint16](c), g.N, kiln.Epilogue{})
	}
}

// f16 multiplies one batch of binary16 operands with a constant B.
func (s *lowpDotStep) f16(a, c []byte) {
	g := s.g
	if s.ct == ir.F32 {
		kiln.GemmF16(g.TransA, g.M, ops.Elems[uint16](a), s.lda, s.packedF16, ops.Elems[float32](c), g.N, kiln.Epilogue{})
	} else {
		kiln.GemmF16ToF16(g.TransA, g.M, ops.Elems[uint16](a), s.lda, s.packedF16, ops.Elems[uint16](c), g.N, kiln.Epilogue{})
	}
}

// s8 multiplies one batch of int8 operands into int32.
func (s *lowpDotStep) s8(a, b, c []byte) {
	g := s.g
	pb := s.packedS8
	if pb == nil {
		pb = kiln.RepackS8(s.packsS8.get(), g.TransB, g.K, g.N, ops.Elems[int8](b), s.ldb)
		defer s.packsS8.put(pb)
	}
	if s.at == ir.S8 {
		kiln.GemmS8S8(g.TransA, g.M, ops.Elems[int8](a), s.lda, pb, ops.Elems[int32](c), g.N)
	} else {
		kiln.GemmU8S8(g.TransA, g.M, a, s.lda, pb, ops.Elems[int32](c), g.N)
	}
}

// widened multiplies one batch through float32: A and B widened into the
// arena, the float32 GEMM, C rounded to its type.
func (s *lowpDotStep) widened(fr *frame, a, b, c []byte) {
	g := s.g
	wa := f32s(fr.bytes(s.wideA))[:g.M*g.K]
	wb := f32s(fr.bytes(s.wideB))[:g.K*g.N]
	widen16(s.at, wa, ops.Elems[uint16](a)[:g.M*g.K])
	widen16(s.bt, wb, ops.Elems[uint16](b)[:g.K*g.N])
	wc := f32s(c)
	if s.ct != ir.F32 {
		wc = f32s(fr.bytes(s.wideC))
	}
	kiln.Sgemm(g.TransA, g.TransB, g.M, g.N, g.K, 1, wa, s.lda, wb, s.ldb, 0, wc, g.N)
	if s.ct != ir.F32 {
		narrow16(s.ct, ops.Elems[uint16](c)[:g.M*g.N], wc[:g.M*g.N])
	}
}

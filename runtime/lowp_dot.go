package runtime

// Low-precision dots on the low-precision GEMMs: bfloat16 and binary16
// operands accumulated in float32 (a bfloat16 or binary16 result rounded
// once, XLA's accumulation), int8 operands (s8×s8, u8×s8) into int32 —
// XLA's integer dot with a wider result type. A B known at compile time is
// packed then; a B computed at run time (attention's keys and values) is
// packed per call into storage the step keeps, one pack per concurrent run.
// Where the plan says so (binary16, and products of few rows) and where the
// level has no bfloat16 product (B would be widened when packed), a
// run-time B is widened into the frame's arena with A and the float32 GEMM
// multiplies them.

import (
	"fmt"
	"sync"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
)

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

// lowpDotStep carries out the GEMM plan sched made for a dot of narrow
// operands (sched.NarrowGemmTypes): B packed at compile time (PackB), per
// call, or widened with A for the float32 GEMM (Widen, and wherever the
// level has no bfloat16 product).
func (c *compiler) lowpDotStep(k *sched.Kernel, p *program) (step, error) {
	gp := k.Gemm
	at, bt, ct := gp.A.Value.Shape.Elem, gp.B.Value.Shape.Elem, k.Main.Shape.Elem
	if len(k.Epilogue) != 0 || gp.Alpha != 1 || gp.A.Offset != 0 || gp.B.Offset != 0 {
		return nil, fmt.Errorf("the plan of a %s×%s dot reads its operands at an offset, scaled or with an epilogue (%v)", at, bt, gp)
	}
	g := gp.GemmShape
	s := &lowpDotStep{g: g, at: at, bt: bt, ct: ct, a: c.loc(inputBuffer(k, gp.A.Value)), b: c.loc(inputBuffer(k, gp.B.Value)), c: c.loc(k.Out)}
	s.lda, s.ldb = max(gp.A.LD, 1), max(gp.B.LD, 1)
	if g.M == 0 || g.N == 0 || g.Batch == 0 || g.K == 0 {
		return s, nil
	}
	if gp.PackB {
		if s.b.kind != sched.Constant {
			return nil, fmt.Errorf("the plan packs B, which is not a constant (%v)", inputBuffer(k, gp.B.Value))
		}
		s.constPacked = true
		switch bt {
		case ir.BF16:
			s.packedBF16 = kiln.PackBF16(g.TransB, g.K, g.N, ops.Elems[uint16](s.b.data), s.ldb)
		case ir.F16:
			s.packedF16 = kiln.PackF16(g.TransB, g.K, g.N, ops.Elems[uint16](s.b.data), s.ldb)
		default:
			s.packedS8 = kiln.PackS8(g.TransB, g.K, g.N, ops.Elems[int8](s.b.data), s.ldb)
		}
		c.notePacked(s.packedBytes())
		return s, nil
	}
	if bt == ir.F16 && !gp.Widen {
		return nil, fmt.Errorf("the plan multiplies a binary16 B computed at run time unwidened (%v)", gp)
	}
	if gp.Widen || bt == ir.BF16 && !kiln.BF16Pairs() {
		s.wide = true
		s.wideA = privateArena(p, 4*g.M*g.K)
		s.wideB = privateArena(p, 4*g.K*g.N)
		if ct != ir.F32 {
			s.wideC = privateArena(p, 4*g.M*g.N)
		}
	}
	return s, nil
}

// packedBytes is the memory of B packed at compile time.
func (s *lowpDotStep) packedBytes() int {
	switch {
	case s.packedBF16 != nil:
		return s.packedBF16.Bytes()
	case s.packedF16 != nil:
		return s.packedF16.Bytes()
	case s.packedS8 != nil:
		return s.packedS8.Bytes()
	}
	return 0
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
	for i := 0; i < g.Batch && !fr.stopped(); i++ {
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

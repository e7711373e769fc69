package runtime

import (
	"slices"
	"unsafe"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// gemmShape is a dot as a batch of row-major matrix products
// C[b] = op(A[b])·op(B[b]), C[b] being m×n.
type gemmShape struct {
	batch          int
	m, n, k        int
	transA, transB bool
}

// gemmOf decides whether dot v is a batched GEMM over its operands' bytes as
// they are: batch dimensions leading in both operands in the same order,
// then each operand's free and contracting dimensions as two contiguous
// groups (either order: the other order is a transposed operand), contracting
// dimensions in the order they pair up.
func gemmOf(v *ssa.Value) (gemmShape, bool) {
	dn := v.Attrs.DotDims
	if dn == nil {
		return gemmShape{}, false
	}
	ls, rs := v.Args[0].Shape, v.Args[1].Shape
	if !ls.HasDefaultLayout() || !rs.HasDefaultLayout() || !v.Shape.HasDefaultLayout() {
		return gemmShape{}, false
	}
	nb := len(dn.LhsBatch)
	for i := 0; i < nb; i++ {
		if dn.LhsBatch[i] != i || dn.RhsBatch[i] != i {
			return gemmShape{}, false
		}
	}
	g := gemmShape{batch: prod(ls.Dims[:nb])}
	var ok bool
	// lhs: [batch, M…, K…] or [batch, K…, M…].
	if g.m, g.k, g.transA, ok = splitOperand(ls.Dims, nb, dn.LhsContracting, false); !ok {
		return gemmShape{}, false
	}
	// rhs: [batch, K…, N…] or [batch, N…, K…].
	var k2 int
	if g.n, k2, g.transB, ok = splitOperand(rs.Dims, nb, dn.RhsContracting, true); !ok || k2 != g.k {
		return gemmShape{}, false
	}
	return g, true
}

// splitOperand checks that the non-batch dimensions of an operand are its
// free dimensions and its contracting dimensions (in listed order) as two
// contiguous groups, and returns the free size, the contracting size and
// whether the operand is transposed relative to GEMM's natural layout
// (A: m×k, B: k×n). rhs says which operand it is.
func splitOperand(dims []int, nb int, contracting []int, rhs bool) (free, k int, trans, ok bool) {
	rank, nc := len(dims), len(contracting)
	free, k = 1, 1
	for d := nb; d < rank; d++ {
		if slices.Contains(contracting, d) {
			k *= dims[d]
		} else {
			free *= dims[d]
		}
	}
	isSeq := func(start int) bool {
		for i, d := range contracting {
			if d != start+i {
				return false
			}
		}
		return true
	}
	switch {
	case isSeq(rank - nc): // contracting last: A as m×k, or B transposed (n×k)
		return free, k, rhs, true
	case isSeq(nb): // contracting first: A transposed (k×m), or B as k×n
		return free, k, !rhs, true
	}
	return 0, 0, false, false
}

func prod(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// dotStep is a float32 or float64 dot run as batched GEMM calls, with the
// constant right-hand side of an unbatched float32 dot packed at compile time.
type dotStep struct {
	g       gemmShape
	elem    ir.ElementType
	a, b, c loc
	packed  *kiln.PackedB
}

func (c *compiler) dotStep(k *sched.Kernel) (step, error) {
	v := k.Root
	if len(k.Values) != 1 || (v.Shape.Elem != ir.F32 && v.Shape.Elem != ir.F64) ||
		v.Args[0].Shape.Elem != v.Shape.Elem || v.Args[1].Shape.Elem != v.Shape.Elem {
		return nil, nil
	}
	g, ok := gemmOf(v)
	if !ok {
		return nil, nil
	}
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	s := &dotStep{g: g, elem: v.Shape.Elem, a: c.loc(bufOf(v.Args[0])), b: c.loc(bufOf(v.Args[1])), c: c.loc(k.Out)}
	if s.elem == ir.F32 && g.batch == 1 && s.b.kind == sched.Constant && g.k > 0 && g.n > 0 {
		ldb := g.n
		if g.transB {
			ldb = g.k
		}
		s.packed = kiln.PackB(g.transB, g.k, g.n, f32s(s.b.data), ldb)
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
	lda, ldb := g.k, g.n
	if g.transA {
		lda = g.m
	}
	if g.transB {
		ldb = g.k
	}
	if g.m == 0 || g.n == 0 || g.batch == 0 {
		return nil
	}
	switch s.elem {
	case ir.F32:
		a, b, c := f32s(fr.bytes(s.a)), f32s(fr.bytes(s.b)), f32s(fr.bytes(s.c))
		if s.packed != nil {
			kiln.SgemmPacked(g.transA, g.m, 1, a, lda, s.packed, 0, c, g.n)
			return nil
		}
		for i := 0; i < g.batch; i++ {
			kiln.Sgemm(g.transA, g.transB, g.m, g.n, g.k, 1, a[i*g.m*g.k:], lda, b[i*g.k*g.n:], ldb, 0, c[i*g.m*g.n:], g.n)
		}
	case ir.F64:
		a, b, c := f64s(fr.bytes(s.a)), f64s(fr.bytes(s.b)), f64s(fr.bytes(s.c))
		for i := 0; i < g.batch; i++ {
			kiln.Dgemm(g.transA, g.transB, g.m, g.n, g.k, 1, a[i*g.m*g.k:], lda, b[i*g.k*g.n:], ldb, 0, c[i*g.m*g.n:], g.n)
		}
	}
	return nil
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

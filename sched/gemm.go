package sched

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ssa"
)

// GemmShape is a dot as a batch of row-major matrix products
// C[b] = op(A[b])·op(B[b]), C[b] being m×n.
type GemmShape struct {
	Batch          int
	M, N, K        int
	TransA, TransB bool
}

// GemmPlan is how a Dot kernel runs: its GEMM shape, and whether B (a
// constant of an unbatched float32 product) is packed once at compile time.
type GemmPlan struct {
	GemmShape
	PackB bool
}

// String prints the plan for dumps: gemm(b=1 m=128 n=768 k=768 tb packed).
func (g *GemmPlan) String() string {
	s := fmt.Sprintf("gemm(b=%d m=%d n=%d k=%d", g.Batch, g.M, g.N, g.K)
	if g.TransA {
		s += " ta"
	}
	if g.TransB {
		s += " tb"
	}
	if g.PackB {
		s += " packed-b"
	}
	return s + ")"
}

// gemmOf decides whether dot v is a batched GEMM over its operands' bytes as
// they are: batch dimensions leading in both operands in the same order,
// then each operand's free and contracting dimensions as two contiguous
// groups (either order: the other order is a transposed operand), contracting
// dimensions in the order they pair up.
func gemmOf(v *ssa.Value) (GemmShape, bool) {
	dn := v.Attrs.DotDims
	if dn == nil {
		return GemmShape{}, false
	}
	ls, rs := v.Args[0].Shape, v.Args[1].Shape
	if !ls.HasDefaultLayout() || !rs.HasDefaultLayout() || !v.Shape.HasDefaultLayout() {
		return GemmShape{}, false
	}
	nb := len(dn.LhsBatch)
	for i := 0; i < nb; i++ {
		if dn.LhsBatch[i] != i || dn.RhsBatch[i] != i {
			return GemmShape{}, false
		}
	}
	g := GemmShape{Batch: prod(ls.Dims[:nb])}
	var ok bool
	// lhs: [batch, M…, K…] or [batch, K…, M…].
	if g.M, g.K, g.TransA, ok = splitOperand(ls.Dims, nb, dn.LhsContracting, false); !ok {
		return GemmShape{}, false
	}
	// rhs: [batch, K…, N…] or [batch, N…, K…].
	var k2 int
	if g.N, k2, g.TransB, ok = splitOperand(rs.Dims, nb, dn.RhsContracting, true); !ok || k2 != g.K {
		return GemmShape{}, false
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

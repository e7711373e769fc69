package sched

import (
	"fmt"
	"math"
	"slices"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// GemmShape is a dot as a batch of row-major matrix products
// C[b] = op(A[b])·op(B[b]), C[b] being m×n.
type GemmShape struct {
	Batch          int
	M, N, K        int
	TransA, TransB bool
}

// GemmPlan is how a Dot kernel runs: its GEMM shape, its batch split into
// BatchDims (outer first; Π BatchDims = Batch), where it reads A and B
// (in place, through the movement values of their chains), the factor
// Alpha the product is scaled by (splats the operands were multiplied by),
// and whether B (a constant of an unbatched product) is packed once at
// compile time. C is written as a dense [Batch, M, N] array.
//
// A dot of narrow operands (bfloat16, binary16 or int8: NarrowGemmTypes)
// is Narrow: it reads its operands as they are, dense, and runs on the
// low-precision GEMMs; Widen says its floating operands are instead widened to float32
// and multiplied by the float32 GEMM (a B computed at run time that is
// binary16, or bfloat16 with fewer than NarrowPackRows rows of A: packing B
// per call costs K·N, which few rows do not repay).
type GemmPlan struct {
	GemmShape
	BatchDims []int
	A, B      GemmOperand
	Alpha     float64
	PackB     bool
	Narrow    bool
	Widen     bool
}

// NarrowPackRows is the fewest rows of A for which a bfloat16 B computed at
// run time is packed for the bfloat16 GEMM rather than widened.
const NarrowPackRows = 32

// NarrowGemmTypes reports whether a dot of these operand and result types
// runs on a low-precision GEMM: bfloat16 or binary16 operands accumulated in
// float32 (a narrow result rounded once), int8 operands (s8×s8, u8×s8) into
// int32.
func NarrowGemmTypes(at, bt, ct ir.ElementType) bool {
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
	if g.Narrow {
		s += " narrow"
	}
	if g.Widen {
		s += " widened"
	}
	if len(g.BatchDims) > 1 {
		s += fmt.Sprintf(" batch=%v", g.BatchDims)
	}
	if g.Alpha != 1 {
		s += fmt.Sprintf(" alpha=%g", g.Alpha)
	}
	for i, op := range []GemmOperand{g.A, g.B} {
		if op.Offset != 0 || !g.dense(op, i == 1) {
			s += fmt.Sprintf(" %c@ld=%d,off=%d,batch=%v", "ab"[i], op.LD, op.Offset, op.BatchStrides)
		}
	}
	return s + ")"
}

// dense reports whether operand op is a dense [Batch, rows, cols] array
// as the GEMM shape lays it out.
func (g *GemmPlan) dense(op GemmOperand, isB bool) bool {
	rows, cols := g.M, g.K
	if isB {
		rows, cols = g.K, g.N
	}
	if op.Trans {
		rows, cols = cols, rows
	}
	stride := rows * cols
	for i := len(op.BatchStrides) - 1; i >= 0; i-- {
		if g.BatchDims[i] > 1 && op.BatchStrides[i] != stride {
			return false
		}
		stride *= g.BatchDims[i]
	}
	return op.LD == max(cols, 1) || rows <= 1
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

// GemmOperand is where a GEMM reads one of its operands: from Value (an
// input of the kernel), the matrix of batch b starting at element
// Offset + Σ BatchStrides[i]·b_i (b_i the batch index split along
// GemmPlan.BatchDims), stored row-major with leading dimension LD, or
// transposed (Trans: stored as its transpose, LD the stride of its
// columns). The movement values between the dot and Value (transposes,
// reshapes, slices) are computed inside the kernel by these strides.
type GemmOperand struct {
	Value        *ssa.Value
	Trans        bool
	LD, Offset   int
	BatchStrides []int
}

// chainNext is the value a GEMM operand may read cur through: the operand
// of a movement value or of a reshape that keeps the bytes (the map
// composes), or the other factor of a float32 product with a finite splat
// (elementwise: the map is unchanged, and the splat multiplies the GEMM's
// alpha). It returns the next value, the factor, and the splat value read
// (nil for movement).
func chainNext(cur *ssa.Value, cls classes) (next *ssa.Value, factor float64, splat *ssa.Value, ok bool) {
	switch {
	case len(cur.Args) == 1 && (cls.of(cur) == Movement || isByteReinterpretation(cur)):
		return cur.Args[0], 1, nil, true
	case cur.Op == ssa.OpMultiply && cur.Shape.Elem == ir.F32 && len(cur.Args) == 2:
		for i := 0; i < 2; i++ {
			if f, ok := splatValue(cur.Args[1-i]); ok && !math.IsInf(f, 0) && !math.IsNaN(f) && ir.SameDimensions(cur.Args[i].Shape, cur.Shape) {
				return cur.Args[i], f, cur.Args[1-i], true
			}
		}
	}
	return nil, 0, nil, false
}

// gemmSource finds where a canonical dot operand x — a [B, R, C] batch of
// R×C matrices — can be read in place: the deepest value below x, through
// chainNext, whose elements the operand reaches by strides over
// (b_1, …, b_n, r, c), the batch index split along split. It returns the
// operand, the values read through (and the splats they multiply by), and
// the product of those splats (1 when none).
func gemmSource(x *ssa.Value, split []int, cls classes) (GemmOperand, []*ssa.Value, float64, bool) {
	r, c := x.Shape.Dims[1], x.Shape.Dims[2]
	dims := append(slices.Clone(split), r, c)
	sizes := make([]int64, len(dims))
	for i, d := range dims {
		sizes[i] = int64(d)
	}
	// (b_1, …, b_n, r, c) ↦ (Σ b_i·Π split[i+1:], r, c).
	batch := affine.Const(0)
	stride := int64(1)
	for i := len(split) - 1; i >= 0; i-- {
		batch = batch.Add(affine.Dim(i).Mul(stride))
		stride *= int64(split[i])
	}
	n := len(split)
	m, err := affine.NewIndexingMap([]affine.Expr{batch, affine.Dim(n), affine.Dim(n + 1)}, intervals(sizes), nil, nil)
	if err != nil {
		return GemmOperand{}, nil, 0, false
	}
	best, ok := gemmStrides(m, x, split, r, c)
	var chain, bestChain []*ssa.Value
	alpha, bestAlpha := 1.0, 1.0
	for cur := x; ; {
		next, f, splat, more := chainNext(cur, cls)
		if !more {
			break
		}
		if splat == nil {
			am, ok := operandMap(cur, 0, m)
			if !ok {
				break
			}
			m = am
		} else {
			chain = append(chain, splat)
			alpha *= f
		}
		chain = append(chain, cur)
		cur = next
		if g, found := gemmStrides(m, cur, split, r, c); found {
			best, ok = g, true
			bestChain = slices.Clone(chain)
			bestAlpha = alpha
		}
	}
	return best, bestChain, bestAlpha, ok
}

// gemmStrides lays a strided map from (batch…, r, c) onto the row-major
// storage of v as a GEMM operand.
func gemmStrides(m affine.IndexingMap, v *ssa.Value, split []int, r, c int) (GemmOperand, bool) {
	if !v.Shape.IsArray() || !v.Shape.HasDefaultLayout() || v.Shape.IsDynamic() {
		return GemmOperand{}, false
	}
	acc, ok := access(m, 0, v.Shape)
	if !ok || acc.Offset < 0 {
		return GemmOperand{}, false
	}
	n := len(split)
	sr, sc := acc.Strides[n], acc.Strides[n+1]
	op := GemmOperand{Value: v, Offset: acc.Offset, BatchStrides: acc.Strides[:n:n]}
	for i, s := range op.BatchStrides {
		if s < 0 || (s == 0 && split[i] > 1) {
			return GemmOperand{}, false
		}
	}
	switch {
	case sc == 1 || c == 1:
		op.LD = sr
		if r == 1 {
			op.LD = max(c, 1)
		}
		if op.LD < max(c, 1) {
			return GemmOperand{}, false
		}
	case sr == 1 || r == 1:
		op.Trans, op.LD = true, sc
		if op.LD < max(r, 1) {
			return GemmOperand{}, false
		}
	default:
		return GemmOperand{}, false
	}
	return op, true
}

func intervals(sizes []int64) []affine.Interval {
	out := make([]affine.Interval, len(sizes))
	for i, s := range sizes {
		out[i] = affine.Interval{Lo: 0, Hi: max(s-1, 0)}
	}
	return out
}

// splatValue returns the value of a float32 splat (a broadcast scalar
// constant, or the scalar itself).
func splatValue(v *ssa.Value) (float64, bool) {
	if v.Op == ssa.OpBroadcast && v.Args[0].Shape.IsScalar() {
		v = v.Args[0]
	}
	if !v.IsConstant() || !v.Shape.IsScalar() || v.Shape.Elem != ir.F32 {
		return 0, false
	}
	return float64(v.Attrs.Literal.Float32s()[0]), true
}

// batchSplits lists the ways of splitting a canonical dot's batch that its
// operands suggest: the batch whole, and the leading dimensions of any
// value its operands read through whose product is the batch (the batch
// dimensions canon-dot merged).
func batchSplits(v *ssa.Value, cls classes) [][]int {
	b := v.Shape.Dims[0]
	splits := [][]int{{b}}
	seen := map[string]bool{fmt.Sprint([]int{b}): true}
	for _, x := range v.Args[:2] {
		for cur := x; cur != nil; {
			if cur.Shape.IsArray() {
				p := 1
				for i, d := range cur.Shape.Dims {
					p *= d
					if p > b {
						break
					}
					if p == b && i > 0 {
						s := slices.Clone(cur.Shape.Dims[:i+1])
						if key := fmt.Sprint(s); !seen[key] {
							seen[key] = true
							splits = append(splits, s)
						}
						break
					}
				}
			}
			next, _, _, ok := chainNext(cur, cls)
			if !ok {
				break
			}
			cur = next
		}
	}
	return splits
}

// gemmOperands decides how canonical dot v reads its operands: for each
// batch split, each operand's deepest in-place source; the split reading
// through the most values wins. With noFuse every operand is read as it
// is. It returns the plan (without PackB, which select decides) and the
// values the kernel reads through, or nil when the dot is not a GEMM.
func gemmOperands(v *ssa.Value, cls classes, noFuse bool) (*GemmPlan, []*ssa.Value) {
	t := v.Shape.Elem
	narrow := NarrowGemmTypes(v.Args[0].Shape.Elem, v.Args[1].Shape.Elem, t)
	if !narrow && ((t != ir.F32 && t != ir.F64) || v.Args[0].Shape.Elem != t || v.Args[1].Shape.Elem != t) {
		return nil, nil
	}
	g, ok := gemmOf(v)
	if !ok {
		return nil, nil
	}
	if !ssa.IsCanonicalDot(v) || noFuse || narrow {
		a := GemmOperand{Value: v.Args[0], Trans: g.TransA, LD: max(g.K, 1), BatchStrides: []int{g.M * g.K}}
		if g.TransA {
			a.LD = max(g.M, 1)
		}
		b := GemmOperand{Value: v.Args[1], Trans: g.TransB, LD: max(g.N, 1), BatchStrides: []int{g.K * g.N}}
		if g.TransB {
			b.LD = max(g.K, 1)
		}
		return &GemmPlan{GemmShape: g, BatchDims: []int{g.Batch}, A: a, B: b, Alpha: 1, Narrow: narrow}, nil
	}
	var best *GemmPlan
	var bestChain []*ssa.Value
	for _, split := range batchSplits(v, cls) {
		a, ca, fa, okA := gemmSource(v.Args[0], split, cls)
		b, cb, fb, okB := gemmSource(v.Args[1], split, cls)
		if !okA || !okB || (t != ir.F32 && fa*fb != 1) {
			continue
		}
		if best == nil || len(ca)+len(cb) > len(bestChain) {
			gs := g
			gs.TransA, gs.TransB = a.Trans, b.Trans
			best = &GemmPlan{GemmShape: gs, BatchDims: split, A: a, B: b, Alpha: fa * fb}
			bestChain = append(slices.Clone(ca), cb...)
		}
	}
	return best, bestChain
}

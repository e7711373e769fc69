package sched

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// AttentionPlan is how an Attention kernel runs. For each batch b (the
// scores' batch, split as Scores.BatchDims) and each block of RowBlock
// query rows, into a worker's scratch: the block of scores
// S = Scores (the GEMM q·kᵀ with its alpha), plus the mask, then softmax
// along each row, then the block of context rows S·v (Context, whose A is
// the scratch block). The scores never go to memory beyond the block, which
// stays in the core's caches.
type AttentionPlan struct {
	Scores, Context *GemmPlan
	// Mask, when not nil, is added to the scores before the softmax: the
	// element for (batch index split along MaskBatch, row, column) is at
	// MaskOffset + Σ MaskBatchStrides·b + row·MaskRowStride +
	// column·MaskColStride of Mask's storage.
	Mask                         *ssa.Value
	MaskBatch, MaskBatchStrides  []int
	MaskRowStride, MaskColStride int
	MaskOffset                   int
	// RowBlock is the number of query rows per tile; Scratch the bytes of
	// worker scratch a tile takes.
	RowBlock, Scratch int
}

// String prints the plan for dumps.
func (a *AttentionPlan) String() string {
	s := fmt.Sprintf("attention(scores %s, context %s, rows %d", a.Scores, a.Context, a.RowBlock)
	if a.Mask != nil {
		s += fmt.Sprintf(", mask@row=%d,col=%d,batch=%v", a.MaskRowStride, a.MaskColStride, a.MaskBatchStrides)
	}
	return s + ")"
}

// attentionScratchFloats bounds the tile of scores: 64 KiB, within L2.
const attentionScratchFloats = 16 << 10

// matchAttention recognises dot2 as the end of the attention chain
//
//	s = dot(q, k) [+ mask]; p = kiln.softmax(s); o = dot(p, v)
//
// in float32, with the scores and the probabilities used only along the
// chain (so that they need no memory), and returns its plan and the
// values the kernel computes inside (besides dot2).
func (fu *fuser) matchAttention(dot2 *ssa.Value) (*AttentionPlan, []*ssa.Value) {
	if dot2.Op != ssa.OpDot || dot2.Shape.Elem != ir.F32 || !ssa.IsCanonicalDot(dot2) {
		return nil, nil
	}
	ctx, chain2 := gemmOperands(dot2, fu.cls, false)
	if ctx == nil || ctx.A.Trans || ctx.A.Offset != 0 || !ctx.dense(ctx.A, false) {
		return nil, nil
	}
	sm := ctx.A.Value
	if sm.Op != ssa.OpSoftmax || sm.Shape.Elem != ir.F32 || !fu.onlyUsedBy(sm, chain2) {
		return nil, nil
	}
	inside := append([]*ssa.Value{sm}, chain2...)
	x := sm.Args[0]
	var mask *ssa.Value
	add := x
	if x.Op == ssa.OpAdd && len(fu.users[x]) == 1 {
		for i := 0; i < 2; i++ {
			if d := reachDot(x.Args[i], fu); d != nil {
				mask, x = x.Args[1-i], x.Args[i]
				inside = append(inside, add)
				break
			}
		}
	}
	dot1 := reachDot(x, fu)
	if dot1 == nil {
		return nil, nil
	}
	for v := x; v != dot1; v = v.Args[0] {
		inside = append(inside, v)
	}
	scores, chain1 := gemmOperands(dot1, fu.cls, false)
	if scores == nil || scores.Batch != ctx.Batch || scores.M != ctx.M || scores.N != ctx.K {
		return nil, nil
	}
	plan := &AttentionPlan{Scores: scores, Context: ctx}
	if mask != nil {
		through, ok := plan.maskStrides(add, mask, sm.Shape, ctx.Batch, fu.cls)
		if !ok {
			return nil, nil
		}
		inside = append(inside, through...)
	}
	n := scores.N
	plan.RowBlock = max(1, min(scores.M, attentionScratchFloats/max(n, 1)))
	plan.Scratch = 4 * plan.RowBlock * n
	inside = append(inside, dot1)
	inside = append(inside, chain1...)
	return plan, inside
}

// reachDot follows reshapes that keep the bytes, each used once, from x to
// a float32 canonical dot used once, or returns nil.
func reachDot(x *ssa.Value, fu *fuser) *ssa.Value {
	for x.Op != ssa.OpDot {
		if !isByteReinterpretation(x) || len(fu.users[x]) != 1 {
			return nil
		}
		x = x.Args[0]
	}
	if len(fu.users[x]) != 1 || x.Shape.Elem != ir.F32 || !ssa.IsCanonicalDot(x) {
		return nil
	}
	return x
}

// onlyUsedBy reports whether every user of v is among vs.
func (fu *fuser) onlyUsedBy(v *ssa.Value, vs []*ssa.Value) bool {
	for _, u := range fu.users[v] {
		found := false
		for _, w := range vs {
			if u == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return len(fu.users[v]) > 0
}

// maskStrides lays the mask operand of add (of shape s, the scores with
// their batch dimensions leading and rows and columns last) over
// (batch…, row, column) as strides, reading it through movement values
// (a broadcast over the heads) down to the deepest value it can; it
// returns the values read through.
func (a *AttentionPlan) maskStrides(add, mask *ssa.Value, s ir.Shape, batch int, cls classes) ([]*ssa.Value, bool) {
	r := s.Rank()
	if r < 2 || mask.Shape.Elem != ir.F32 {
		return nil, false
	}
	lead := s.Dims[:r-2]
	if prod(lead) != batch {
		return nil, false
	}
	arg := 0
	if add.Args[1] == mask {
		arg = 1
	}
	m, ok := operandMap(add, arg, identityMap(s.Dims))
	if !ok {
		return nil, false
	}
	var through, chain []*ssa.Value
	found := false
	for cur := mask; ; {
		if acc, ok := access(m, 0, cur.Shape); ok && acc.Offset >= 0 && cur.Shape.IsArray() && cur.Shape.HasDefaultLayout() && !slices.ContainsFunc(acc.Strides, func(x int) bool { return x < 0 }) {
			a.Mask = cur
			a.MaskBatch = append([]int(nil), lead...)
			a.MaskBatchStrides = acc.Strides[: r-2 : r-2]
			a.MaskRowStride, a.MaskColStride, a.MaskOffset = acc.Strides[r-2], acc.Strides[r-1], acc.Offset
			through, found = slices.Clone(chain), true
		}
		if len(cur.Args) != 1 || !(cls.of(cur) == Movement || isByteReinterpretation(cur)) {
			break
		}
		next, ok := operandMap(cur, 0, m)
		if !ok {
			break
		}
		chain = append(chain, cur)
		m, cur = next, cur.Args[0]
	}
	return through, found
}

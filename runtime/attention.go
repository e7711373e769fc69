package runtime

import (
	"fmt"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// attentionStep runs an Attention kernel as the plan says
// (sched.AttentionPlan): per batch and block of query rows, the scores
// block q·kᵀ (scaled) into a worker's scratch, the mask added, softmax
// along each row in place, and the context rows block·v written to the
// output. The blocks are the parts split across workers.
type attentionStep struct {
	plan           *sched.AttentionPlan
	q, k, v, out   loc
	mask           loc
	hasMask        bool
	blocks, parts  int // row blocks per batch; parallel parts
	threads, total int // total: batch × blocks
}

func (c *compiler) attentionStep(k *sched.Kernel, p *program) (step, error) {
	a := k.Attn
	bufOf := func(v *ssa.Value) (loc, error) {
		i := indexOf(k.Inputs, v)
		if i < 0 {
			return loc{}, fmt.Errorf("%v (%s) is not an input of the attention kernel", v, v.Op)
		}
		return c.loc(k.In[i]), nil
	}
	s := &attentionStep{plan: a, out: c.loc(k.Out), threads: c.cfg.threads}
	var err error
	if s.q, err = bufOf(a.Scores.A.Value); err != nil {
		return nil, err
	}
	if s.k, err = bufOf(a.Scores.B.Value); err != nil {
		return nil, err
	}
	if s.v, err = bufOf(a.Context.B.Value); err != nil {
		return nil, err
	}
	if a.Mask != nil {
		if s.mask, err = bufOf(a.Mask); err != nil {
			return nil, err
		}
		s.hasMask = true
	}
	s.blocks = (a.Scores.M + a.RowBlock - 1) / a.RowBlock
	s.total = a.Scores.Batch * s.blocks
	s.parts = max(1, min(k.Parallel, s.total))
	p.scratch = max(p.scratch, a.Scratch)
	return s, nil
}

func (s *attentionStep) name() string { return "attention" }

func (s *attentionStep) exec(fr *frame) error {
	g := s.plan.Scores
	if s.total == 0 || g.N == 0 || s.plan.Context.N == 0 {
		return nil
	}
	parallelFor(fr, &fr.task, s, s.parts, s.threads)
	return nil
}

// batchOffset is the element offset of batch i of an operand whose batch
// is split along dims with the given strides.
func batchOffset(dims, strides []int, off, i int) int {
	for d := len(dims) - 1; d >= 0; d-- {
		off += (i % dims[d]) * strides[d]
		i /= dims[d]
	}
	return off
}

// part runs the tiles [p·total/parts, (p+1)·total/parts).
func (s *attentionStep) part(fr *frame, p, w int) {
	for t := p * s.total / s.parts; t < (p+1)*s.total/s.parts && !fr.stopped(); t++ {
		s.tile(fr, w, t/s.blocks, t%s.blocks)
	}
}

// tile computes query rows [blk·RowBlock, …) of batch b.
func (s *attentionStep) tile(fr *frame, w, b, blk int) {
	a := s.plan
	sc, cx := a.Scores, a.Context
	r0 := blk * a.RowBlock
	rows := min(a.RowBlock, sc.M-r0)
	n := sc.N
	q, k, v, out := f32s(fr.bytes(s.q)), f32s(fr.bytes(s.k)), f32s(fr.bytes(s.v)), f32s(fr.bytes(s.out))
	scores := f32s(fr.scratch[w])[:rows*n]

	offQ := batchOffset(sc.BatchDims, sc.A.BatchStrides, sc.A.Offset, b)
	if sc.A.Trans {
		offQ += r0 // A stored as K×M: the block is a run of columns
	} else {
		offQ += r0 * sc.A.LD
	}
	offK := batchOffset(sc.BatchDims, sc.B.BatchStrides, sc.B.Offset, b)
	ep := kiln.Epilogue{Cancel: fr.cancel}
	kiln.SgemmEpilogue(sc.A.Trans, sc.B.Trans, rows, n, sc.K, float32(sc.Alpha), q[offQ:], max(sc.A.LD, 1), k[offK:], max(sc.B.LD, 1), 0, scores, n, ep)

	if s.hasMask {
		mask := f32s(fr.bytes(s.mask))
		mo := batchOffset(a.MaskBatch, a.MaskBatchStrides, a.MaskOffset, b)
		for i := 0; i < rows; i++ {
			row := scores[i*n : (i+1)*n]
			base := mo + (r0+i)*a.MaskRowStride
			switch a.MaskColStride {
			case 0:
				kiln.AddScalar(row, row, mask[base])
			case 1:
				kiln.Add(row, row, mask[base:base+n])
			default:
				for j := range row {
					row[j] += mask[base+j*a.MaskColStride]
				}
			}
		}
	}
	kiln.Softmax(scores, scores, n)

	offV := batchOffset(cx.BatchDims, cx.B.BatchStrides, cx.B.Offset, b)
	e := cx.N
	c := out[b*cx.M*e+r0*e : b*cx.M*e+(r0+rows)*e]
	kiln.SgemmEpilogue(false, cx.B.Trans, rows, e, n, float32(cx.Alpha), scores, n, v[offV:], max(cx.B.LD, 1), 0, c, e, ep)
}

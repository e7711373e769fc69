package runtime

// Steps over arrays whose sizes follow the entry parameters' dynamic
// dimensions (dynamic_sizes.go). The fast steps — fused loops, GEMM (with
// packed weights and its epilogue), softmax, layer-norm, reductions,
// convolution, copies — are compiled at the bounds, as for a static
// program; each frame holds its own copy of such a step, whose extents
// (loop length, GEMM rows and batch, rows of a row kernel, the parallel
// split) are set from the symbols' values before it runs. The data of a
// value of run-time size sits densely at its actual sizes, so a step reads
// and writes a prefix of its buffers; a fused loop, which addresses its
// operands with strides computed at the bounds, is resized only when every
// array it touches keeps its valid elements where the bounds put them (the
// run-time dimension leads). Other kernels run a plan made for each value
// of their symbols (dynamic_generic.go).

import (
	"slices"

	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// frameSizes is a frame's run-time sizes: the symbols' values for this run
// (shared by every frame of the tree) and this program's resized steps.
type frameSizes struct {
	syms  []int
	insts []step
}

// programSizes is what a program's frames need for run-time sizes: the
// number of symbols (on every program of a tree that has them) and the
// steps resized at each run.
type programSizes struct {
	symbols int
	resized []resizer
}

// attachSizes gives the frames of a program tree their run-time sizes when
// any program has resized steps or the tree has symbols.
func attachSizes(progs []*program, frames []*frame) {
	n := 0
	need := false
	for _, q := range progs {
		need = need || len(q.sized.resized) > 0 || q.sized.symbols > 0
		n = max(n, q.sized.symbols)
	}
	if !need {
		return
	}
	syms := make([]int, n)
	for i, q := range progs {
		fs := &frameSizes{syms: syms}
		for _, r := range q.sized.resized {
			fs.insts = append(fs.insts, r.instance())
		}
		frames[i].sizes = fs
	}
}

// resizer makes a frame's copy of a step compiled at the bounds and sets
// the copy's extents for a run.
type resizer interface {
	instance() step
	resize(inst step, syms []int)
}

// resizedStep runs the frame's copy of a step after resizing it.
type resizedStep struct {
	slot  int
	r     resizer
	proto step
}

func (s *resizedStep) name() string { return implName(s.proto) }

func (s *resizedStep) exec(fr *frame) error {
	inst := fr.sizes.insts[s.slot]
	s.r.resize(inst, fr.sizes.syms)
	return inst.exec(fr)
}

// runtimeSized reports whether kernel k reads or computes a value of
// run-time size.
func (c *compiler) runtimeSized(k *sched.Kernel) bool {
	if c.sizes == nil {
		return dynamicKernel(k)
	}
	for _, v := range k.Values {
		if c.sizes.isDynamic(v) || c.sizes.unknown[v] {
			return true
		}
	}
	for _, v := range k.Inputs {
		if c.sizes.isDynamic(v) || c.sizes.unknown[v] {
			return true
		}
	}
	return dynamicKernel(k)
}

// symbolic reports whether every value k touches has its sizes in the
// table (none travels in arena slots).
func (c *compiler) symbolic(k *sched.Kernel) bool {
	if c.sizes == nil {
		return false
	}
	for _, vs := range [][]*ssa.Value{k.Values, k.Inputs} {
		for _, v := range vs {
			if c.sizes.unknown[v] || (v.Shape.IsDynamic() && !c.sizes.isDynamic(v)) {
				return false
			}
		}
	}
	return true
}

// sizedKernel compiles a kernel that touches values of run-time size.
func (c *compiler) sizedKernel(plan *sched.Plan, k *sched.Kernel, p *program) (step, error) {
	switch {
	case (k.Kind == sched.While || k.Kind == sched.Conditional) && c.symbolic(k):
		// The loop and branch programs size their own steps; the state
		// copies move whole buffers.
		return c.staticKernel(plan, k, p)
	case !c.symbolic(k) || c.sizes.checkFlags:
		return c.dynamicStep(plan, k, p)
	}
	s, err := c.staticKernel(plan, k, p)
	if err != nil {
		return nil, err
	}
	if r := c.resizerOf(k, s); r != nil {
		rs := &resizedStep{slot: len(p.sized.resized), r: r, proto: s}
		p.sized.resized = append(p.sized.resized, r)
		return rs, nil
	}
	return c.perSizeStep(plan, k, p)
}

// resizerOf returns how to resize step s (compiled for kernel k at the
// bounds), or nil when s cannot run at other sizes.
func (c *compiler) resizerOf(k *sched.Kernel, s step) resizer {
	t := c.sizes
	prefix := func() bool {
		for _, vs := range [][]*ssa.Value{{k.Root}, k.Inputs} {
			for _, v := range vs {
				if !v.Shape.IsArray() || !prefixForm(t.leafOf(v), v.Shape) {
					return false
				}
			}
		}
		return true
	}
	switch st := s.(type) {
	case *loopStep:
		n, ok := t.leafOf(k.Root).count()
		if !ok || !prefix() {
			return nil
		}
		return &loopResizer{proto: st, count: n, k: k}
	case *genericLoopStep:
		n, ok := t.leafOf(k.Root).count()
		if !ok || !prefix() {
			return nil
		}
		return &genericLoopResizer{proto: st, count: n}
	case *reduceStep:
		x := t.leafOf(k.Root.Args[0])
		n, ok := t.leafOf(k.Root).count()
		if !ok || !prefix() || !prefixForm(x, k.Root.Args[0].Shape) {
			return nil
		}
		nr := len(k.Root.Attrs.Dimensions)
		row, ok := x[len(x)-nr:].count()
		if !ok {
			return nil
		}
		return &reduceResizer{proto: st, x: x, count: n, row: row, k: k}
	case *dotStep:
		return c.dotResizer(k, st)
	case *attentionStep:
		return c.attentionResizer(k, st)
	case *softmaxStep:
		r, ok := rowsResizerOf(k, t.leafOf(k.Root.Args[0]))
		if !ok {
			return nil
		}
		return &softmaxResizer{proto: st, rows: r}
	case *layerNormStep:
		r, ok := rowsResizerOf(k, t.leafOf(k.Root.Args[0]))
		if !ok || !r.n.isStatic() {
			return nil
		}
		return &layerNormResizer{proto: st, rows: r}
	case *copyStep:
		var leaves []sizeExpr
		for i, l := range leafShapes(k.Root.Shape) {
			n, ok := t.sizesOf(k.Root)[i].count()
			if !ok {
				return nil
			}
			leaves = append(leaves, sizeExpr{sym: n.sym, coef: n.coef * l.Elem.ByteSize()})
		}
		return &copyResizer{proto: st, bytes: leaves}
	case *convStep:
		main := k.Main
		if main == nil {
			main = k.Root
		}
		x := t.leafOf(main.Args[0])
		cd := main.Attrs.ConvDims
		if cd == nil || !t.staticExcept(main.Args[0], cd.InputBatch) || t.isDynamic(main.Args[1]) {
			return nil
		}
		return &convResizer{proto: st, batch: x[cd.InputBatch]}
	}
	return nil
}

// loopResizer sets a fused loop's length and split.
type loopResizer struct {
	proto *loopStep
	count sizeExpr
	k     *sched.Kernel // its split rule
}

func (r *loopResizer) instance() step { s := *r.proto; return &s }

func (r *loopResizer) resize(inst step, syms []int) {
	s := inst.(*loopStep)
	s.total = r.count.eval(syms)
	s.parts, s.perPart = tileSplit(s.total, loopTile, r.k.LoopParts(s.total))
}

// genericLoopResizer sets a generic fused loop's length and split.
type genericLoopResizer struct {
	proto *genericLoopStep
	count sizeExpr
}

func (r *genericLoopResizer) instance() step { s := *r.proto; return &s }

func (r *genericLoopResizer) resize(inst step, syms []int) {
	s := inst.(*genericLoopStep)
	s.total = r.count.eval(syms)
	s.parts, s.perPart = splitTiles(s.total, genericLoopTile, s.threads)
}

// reduceResizer sets a reduction's operand extents, output count and row
// length.
type reduceResizer struct {
	proto *reduceStep
	x     leafSizes
	count sizeExpr
	row   sizeExpr
	k     *sched.Kernel // its split rule
}

func (r *reduceResizer) instance() step {
	s := *r.proto
	s.xDims = append([]int(nil), r.proto.xDims...)
	return &s
}

func (r *reduceResizer) resize(inst step, syms []int) {
	s := inst.(*reduceStep)
	r.x.eval(syms, s.xDims)
	s.count = r.count.eval(syms)
	s.rowLen = r.row.eval(syms)
	s.parts = 1
	if s.rows {
		s.parts = r.k.RowParts(s.count, s.rowLen)
	}
}

// dotResizer sets a GEMM's batch, rows, columns and depth.
type dotResizer struct {
	proto          *dotStep
	batch, m, n, k sizeExpr
	kernel         *sched.Kernel // its split rule
}

// gemmSizes are the batch, rows, columns and depth of dot v as multiples
// of the symbols (ok false when one is a product of two).
func (t *sizeTable) gemmSizes(v *ssa.Value) (batch, m, n, k sizeExpr, ok bool) {
	dn := v.Attrs.DotDims
	if dn == nil {
		return
	}
	l, r := t.leafOf(v.Args[0]), t.leafOf(v.Args[1])
	group := func(l leafSizes, skip, in []int, want bool) (sizeExpr, bool) {
		var g leafSizes
		for d := range l {
			if !slices.Contains(skip, d) && slices.Contains(in, d) == want {
				g = append(g, l[d])
			}
		}
		return g.count()
	}
	var bs leafSizes
	for _, d := range dn.LhsBatch {
		bs = append(bs, l[d])
	}
	batch, ok1 := bs.count()
	m, ok2 := group(l, dn.LhsBatch, dn.LhsContracting, false)
	k, ok3 := group(l, dn.LhsBatch, dn.LhsContracting, true)
	n, ok4 := group(r, dn.RhsBatch, dn.RhsContracting, false)
	return batch, m, n, k, ok1 && ok2 && ok3 && ok4
}

// stridedPrefix reports whether the values a GEMM plan reads through
// strided views keep their valid elements where the bounds put them, so
// that the plan's leading dimensions, offsets and batch strides hold at
// every size; a run-time batch dimension must then be the outermost of
// the batch split (its stride is never multiplied by a bound).
func (t *sizeTable) stridedPrefix(vs ...*ssa.Value) bool {
	for _, v := range vs {
		if v != nil && (!v.Shape.IsArray() || !prefixForm(t.leafOf(v), v.Shape)) {
			return false
		}
	}
	return true
}

func (c *compiler) dotResizer(k *sched.Kernel, s *dotStep) resizer {
	t := c.sizes
	v := k.Main
	if v == nil || k.Gemm == nil {
		return nil
	}
	batch, m, n, kk, ok := t.gemmSizes(v)
	if !ok || !t.stridedPrefix(k.Gemm.A.Value, k.Gemm.B.Value) {
		return nil
	}
	if s.packed != nil && (!n.isStatic() || !kk.isStatic()) {
		return nil
	}
	for _, st := range k.Epilogue {
		if st.Kind == sched.EpilogueBias && t.isDynamic(st.Operand) {
			return nil
		}
	}
	return &dotResizer{proto: s, batch: batch, m: m, n: n, k: kk, kernel: k}
}

func (r *dotResizer) instance() step { s := *r.proto; return &s }

func (r *dotResizer) resize(inst step, syms []int) {
	s := inst.(*dotStep)
	g := &s.g
	g.Batch, g.M, g.N, g.K = r.batch.eval(syms), r.m.eval(syms), r.n.eval(syms), r.k.eval(syms)
	s.batchParts = r.kernel.BatchParts(*g)
}

// attentionResizer sets a fused attention's batch, query rows, keys and
// head size, and its tiling.
type attentionResizer struct {
	proto  *attentionStep
	scores [4]sizeExpr   // batch, m, n, k of q·kᵀ
	ctx    [4]sizeExpr   // of p·v
	k      *sched.Kernel // its split rule
}

func (c *compiler) attentionResizer(k *sched.Kernel, s *attentionStep) resizer {
	t := c.sizes
	a := k.Attn
	var dots []*ssa.Value
	for _, v := range k.Values {
		if v.Op == ssa.OpDot {
			dots = append(dots, v)
		}
	}
	if a == nil || len(dots) != 2 || !t.stridedPrefix(a.Scores.A.Value, a.Scores.B.Value, a.Context.B.Value, a.Mask) {
		return nil
	}
	r := &attentionResizer{proto: s, k: k}
	var ok1, ok2 bool
	r.scores[0], r.scores[1], r.scores[2], r.scores[3], ok1 = t.gemmSizes(dots[0])
	r.ctx[0], r.ctx[1], r.ctx[2], r.ctx[3], ok2 = t.gemmSizes(dots[1])
	if !ok1 || !ok2 {
		return nil
	}
	return r
}

// instance copies the step and its plan (the copy's extents change).
func (r *attentionResizer) instance() step {
	s := *r.proto
	plan := *r.proto.plan
	scores, ctx := *plan.Scores, *plan.Context
	plan.Scores, plan.Context = &scores, &ctx
	s.plan = &plan
	return &s
}

func (r *attentionResizer) resize(inst step, syms []int) {
	s := inst.(*attentionStep)
	sc, cx := s.plan.Scores, s.plan.Context
	sc.Batch, sc.M, sc.N, sc.K = r.scores[0].eval(syms), r.scores[1].eval(syms), r.scores[2].eval(syms), r.scores[3].eval(syms)
	cx.Batch, cx.M, cx.N, cx.K = r.ctx[0].eval(syms), r.ctx[1].eval(syms), r.ctx[2].eval(syms), r.ctx[3].eval(syms)
	s.blocks = (sc.M + s.plan.RowBlock - 1) / s.plan.RowBlock
	s.total = sc.Batch * s.blocks
	s.parts = r.k.TileParts(s.total)
}

// rowsResizer sets the rows (and row length) of a row kernel's operand.
type rowsResizer struct {
	rows, n sizeExpr
	k       *sched.Kernel // its split rule
}

func rowsResizerOf(k *sched.Kernel, x leafSizes) (rowsResizer, bool) {
	if len(x) == 0 {
		return rowsResizer{}, false
	}
	rows, ok := x[:len(x)-1].count()
	return rowsResizer{rows: rows, n: x[len(x)-1], k: k}, ok
}

func (r *rowsResizer) apply(s *rowsStep, syms []int) {
	s.rows, s.n = r.rows.eval(syms), r.n.eval(syms)
	s.parts = r.k.RowParts(s.rows, s.n)
}

type softmaxResizer struct {
	proto *softmaxStep
	rows  rowsResizer
}

func (r *softmaxResizer) instance() step { s := *r.proto; return &s }

func (r *softmaxResizer) resize(inst step, syms []int) {
	r.rows.apply(&inst.(*softmaxStep).rowsStep, syms)
}

type layerNormResizer struct {
	proto *layerNormStep
	rows  rowsResizer
}

func (r *layerNormResizer) instance() step { s := *r.proto; return &s }

func (r *layerNormResizer) resize(inst step, syms []int) {
	r.rows.apply(&inst.(*layerNormStep).rowsStep, syms)
}

// copyResizer sets the bytes each leaf of a copy moves.
type copyResizer struct {
	proto *copyStep
	bytes []sizeExpr
}

func (r *copyResizer) instance() step {
	return &copyStep{src: append([]loc(nil), r.proto.src...), dst: append([]loc(nil), r.proto.dst...)}
}

func (r *copyResizer) resize(inst step, syms []int) {
	s := inst.(*copyStep)
	for i, b := range r.bytes {
		n := b.eval(syms)
		s.src[i].size = min(n, r.proto.src[i].size)
		s.dst[i].size = min(n, r.proto.dst[i].size)
		if s.src[i].kind == sched.Constant {
			s.src[i].data = r.proto.src[i].data[:s.src[i].size]
		}
	}
}

// convResizer sets a convolution's batch.
type convResizer struct {
	proto *convStep
	batch sizeExpr
}

func (r *convResizer) instance() step { s := *r.proto; return &s }

func (r *convResizer) resize(inst step, syms []int) {
	inst.(*convStep).g.Batch = r.batch.eval(syms)
}

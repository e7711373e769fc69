package runtime

import (
	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// rowsStep is the shared part of the row kernels (softmax, layer-norm): an
// operand viewed as rows of n contiguous float32 values, split across
// workers by rows.
type rowsStep struct {
	x, y    loc
	rows, n int
	parts   int
	threads int
}

func (c *compiler) rowsOf(k *sched.Kernel) (rowsStep, bool) {
	v := k.Root
	x := v.Args[0].Shape
	if v.Shape.Elem != ir.F32 || x.Elem != ir.F32 || x.Rank() == 0 || !x.HasDefaultLayout() || !v.Shape.HasDefaultLayout() {
		return rowsStep{}, false
	}
	r := rowsStep{x: c.loc(k.In[indexOf(k.Inputs, v.Args[0])]), y: c.loc(k.Out), n: x.Dims[x.Rank()-1], threads: c.cfg.threads}
	r.rows = x.ElementCount() / max(r.n, 1)
	r.parts = max(k.Parallel, 1)
	return r, true
}

func (r *rowsStep) span(p int) (int, int) { return p * r.rows / r.parts, (p + 1) * r.rows / r.parts }

// pollRows is how many rows a part computes between two polls of the run's
// cancellation.
func (r *rowsStep) pollRows() int { return max(1, pollElements/max(r.n, 1)) }

// softmaxStep computes softmax along the last dimension with the vector
// row kernel: m = max(row), e = exp(x - m), y = e / Σe.
type softmaxStep struct{ rowsStep }

func (c *compiler) softmaxStep(k *sched.Kernel) (step, error) {
	if len(k.Values) != 1 || k.Root.Op != ssa.OpSoftmax {
		return nil, nil
	}
	r, ok := c.rowsOf(k)
	if !ok {
		return nil, nil
	}
	return &softmaxStep{r}, nil
}

func (s *softmaxStep) name() string { return "softmax" }

func (s *softmaxStep) exec(fr *frame) error {
	if s.rows*s.n == 0 {
		return nil
	}
	parallelFor(fr, &fr.task, s, s.parts, s.threads)
	return nil
}

func (s *softmaxStep) part(fr *frame, p, w int) {
	x, y := f32s(fr.bytes(s.x)), f32s(fr.bytes(s.y))
	r0, r1 := s.span(p)
	for ; r0 < r1 && !fr.stopped(); r0 += s.pollRows() {
		r := min(r1, r0+s.pollRows())
		kiln.Softmax(y[r0*s.n:r*s.n], x[r0*s.n:r*s.n], s.n)
	}
}

// layerNormStep computes (x - mean)·rsqrt(var + ε)·scale + bias along the
// last dimension with the vector row kernel (two-pass centred variance, more
// accurate than the E[x²] − E[x]² form the pattern may have replaced; the
// compiler's tests bound the difference).
type layerNormStep struct {
	rowsStep
	scale, bias loc
	eps         float32
}

func (c *compiler) layerNormStep(k *sched.Kernel) (step, error) {
	v := k.Root
	if len(k.Values) != 1 || v.Op != ssa.OpLayerNorm || len(v.Args) != 3 {
		return nil, nil
	}
	r, ok := c.rowsOf(k)
	if !ok {
		return nil, nil
	}
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	return &layerNormStep{rowsStep: r, scale: c.loc(bufOf(v.Args[1])), bias: c.loc(bufOf(v.Args[2])), eps: v.Attrs.Epsilon}, nil
}

func (s *layerNormStep) name() string { return "layer-norm" }

func (s *layerNormStep) exec(fr *frame) error {
	if s.rows*s.n == 0 {
		return nil
	}
	parallelFor(fr, &fr.task, s, s.parts, s.threads)
	return nil
}

func (s *layerNormStep) part(fr *frame, p, w int) {
	x, y := f32s(fr.bytes(s.x)), f32s(fr.bytes(s.y))
	scale, bias := f32s(fr.bytes(s.scale)), f32s(fr.bytes(s.bias))
	r0, r1 := s.span(p)
	for ; r0 < r1 && !fr.stopped(); r0 += s.pollRows() {
		r := min(r1, r0+s.pollRows())
		kiln.LayerNorm(y[r0*s.n:r*s.n], x[r0*s.n:r*s.n], s.n, scale[:s.n], bias[:s.n], s.eps)
	}
}

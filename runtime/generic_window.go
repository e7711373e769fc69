package runtime

// reduce-window and select-and-scatter over strided, padded and dilated
// windows. For each output position the window's base elements are listed
// in window order (row-major over the window dimensions), skipping those in
// padding or between base-dilated elements — the evaluator's rule — and
// folded (reduce-window) or searched for the selected element
// (select-and-scatter) exactly as the evaluator does. The per-dimension tap
// lists are computed at compile time.

import (
	"slices"

	"github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.OpReduceWindow] = buildReduceWindow
	genericSteps[ssa.OpSelectAndScatter] = buildSelectAndScatter
}

// maxWindowElems bounds the elements of one window (its position list
// lives in scratch).
const maxWindowElems = 1 << 20

// windowPlan maps each output position to the base positions its window
// covers.
type windowPlan struct {
	out      []int     // output dimensions
	taps     [][][]int // taps[d][o]: base indices along d for output index o, in window order
	strides  []int     // base strides
	maxElems int
}

func newWindowPlan(w *ir.Window, base []int) (*windowPlan, bool) {
	if w == nil || len(w.Dims) != len(base) || len(base) > maxGenericRank {
		return nil, false
	}
	p := &windowPlan{out: make([]int, len(base)), taps: make([][][]int, len(base)), strides: denseStrides(base), maxElems: 1}
	for d, wd := range w.Dims {
		if wd.Stride == 0 {
			wd.Stride = 1
		}
		if wd.BaseDilation == 0 {
			wd.BaseDilation = 1
		}
		if wd.WindowDilation == 0 {
			wd.WindowDilation = 1
		}
		if wd.Size < 0 || wd.Stride < 1 || wd.BaseDilation < 1 || wd.WindowDilation < 1 || wd.Reversal {
			return nil, false
		}
		padded := dilated(base[d], wd.BaseDilation) + wd.PadLow + wd.PadHigh
		if padded < 0 {
			return nil, false
		}
		win := dilated(wd.Size, wd.WindowDilation)
		if padded >= win {
			p.out[d] = (padded-win)/wd.Stride + 1
		}
		p.taps[d] = make([][]int, p.out[d])
		for o := range p.taps[d] {
			for k := 0; k < wd.Size; k++ {
				u := o*wd.Stride - wd.PadLow + k*wd.WindowDilation
				if u < 0 || u%wd.BaseDilation != 0 || u/wd.BaseDilation >= base[d] {
					continue
				}
				p.taps[d][o] = append(p.taps[d][o], u/wd.BaseDilation)
			}
		}
		p.maxElems *= max(wd.Size, 1)
		if p.maxElems > maxWindowElems {
			return nil, false
		}
	}
	return p, true
}

func dilated(n, d int) int {
	if n == 0 {
		return 0
	}
	return (n-1)*d + 1
}

// positions writes the base positions of the window of output position
// opos (window order) into buf and returns them.
func (p *windowPlan) positions(opos []int, buf []int64) []int64 {
	rank := len(p.out)
	if rank == 0 {
		buf[0] = 0
		return buf[:1]
	}
	var tap [maxGenericRank]int
	for d := 0; d < rank; d++ {
		if len(p.taps[d][opos[d]]) == 0 {
			return buf[:0]
		}
	}
	n := 0
	for {
		lin := 0
		for d := 0; d < rank; d++ {
			lin += p.taps[d][opos[d]][tap[d]] * p.strides[d]
		}
		buf[n] = int64(lin)
		n++
		d := rank - 1
		for ; d >= 0; d-- {
			tap[d]++
			if tap[d] < len(p.taps[d][opos[d]]) {
				break
			}
			tap[d] = 0
		}
		if d < 0 {
			return buf[:n]
		}
	}
}

// reduceWindowStep folds each window onto the init values.
type reduceWindowStep struct {
	n          int
	ins, inits []loc
	outs       []loc
	fold       *folder
	plan       *windowPlan
	count      int
	win        loc // the position list (in the arena)
}

func buildReduceWindow(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Args) == 0 || len(v.Args)%2 != 0 || len(v.Funcs) != 1 {
		return nil, nil
	}
	n := len(v.Args) / 2
	if n > maxVariadic {
		return nil, nil
	}
	x := v.Args[0].Shape
	s := &reduceWindowStep{n: n, outs: c.leaves(k.Out)}
	ts := make([]ir.ElementType, n)
	for i := 0; i < n; i++ {
		a, init := v.Args[i], v.Args[n+i]
		ab, ib := inputBuffer(k, a), inputBuffer(k, init)
		if ab == nil || ib == nil || !denseArray(a.Shape) || !slices.Equal(a.Shape.Dims, x.Dims) || !init.Shape.IsScalar() || init.Shape.Elem != a.Shape.Elem {
			return nil, nil
		}
		s.ins = append(s.ins, c.loc(ab))
		s.inits = append(s.inits, c.loc(ib))
		ts[i] = a.Shape.Elem
	}
	plan, ok := newWindowPlan(v.Attrs.Window, x.Dims)
	if !ok || len(s.outs) != n {
		return nil, nil
	}
	for i, os := range leafShapes(v.Shape) {
		if !denseArray(os) || os.Elem != ts[i] || !slices.Equal(os.Dims, plan.out) {
			return nil, nil
		}
	}
	s.plan, s.count = plan, prod(plan.out)
	var sp scratchPlan
	if s.fold = newFolder(v.Funcs[0], ts, &sp); s.fold == nil {
		if s.count == 0 || plan.maxElems == 0 {
			return &initFillStep{inits: s.inits, outs: s.outs, es: ts}, nil
		}
		return nil, nil
	}
	if f := s.fold; f.f32op != 0 && s.count > 0 {
		if fast := newReduceWindowF32(v.Attrs.Window, x.Dims, plan.out, f, s.ins[0], s.inits[0], s.outs[0], c.cfg.threads); fast != nil {
			return fast, nil
		}
	}
	s.win = privateArena(p, plan.maxElems*8)
	sp.reserve(p)
	return s, nil
}

func (s *reduceWindowStep) name() string { return "reduce-window" }

// reduceWindowF32Step is a float32 reduce-window with a standard reducer
// and no base dilation (pooling). It fills the output with the init value,
// then, for each window offset in row-major window order, folds the shifted
// input block into the outputs that offset reaches: every output still
// folds its taps in window order, as the evaluator does, and each pass is a
// strided loop over contiguous rows. When the window does not reach across
// the outermost dimension (a batch of images), the images are split into
// parts that run on the workers, each with passes of its own.
type reduceWindowF32Step struct {
	in, init, out loc
	op            ir.Opcode
	swap          bool
	parts         []windowPart
	threads       int
}

// windowPart is the outputs [outLo, outHi) of a reduce-window and the passes
// that fold them.
type windowPart struct {
	outLo, outHi int
	passes       []strided // per window offset: out (dst) ← in (src) block
	// When every pass has the same shape and strides (no padding clips
	// them), dOffs and sOffs are their bases relative to the first pass's,
	// and the passes are folded tile by tile (foldPassesF32).
	dOffs, sOffs []int
}

// sharePasses sets the part's offsets when its passes differ only in their
// bases.
func (pt *windowPart) sharePasses() {
	if len(pt.passes) < 2 {
		return
	}
	p0 := &pt.passes[0]
	for i := range pt.passes {
		q := &pt.passes[i]
		if !slices.Equal(q.dims, p0.dims) || !slices.Equal(q.dst, p0.dst) || !slices.Equal(q.src, p0.src) {
			return
		}
	}
	for i := range pt.passes {
		q := &pt.passes[i]
		pt.dOffs = append(pt.dOffs, q.dstBase-p0.dstBase)
		pt.sOffs = append(pt.sOffs, q.srcBase-p0.srcBase)
	}
}

// minWindowSplit is the least number of input elements per part worth one
// more thread.
const minWindowSplit = 1 << 16

func newReduceWindowF32(w *ir.Window, base, out []int, f *folder, in, init, outLoc loc, threads int) *reduceWindowF32Step {
	for _, wd := range w.Dims {
		if wd.BaseDilation > 1 {
			return nil
		}
	}
	size := 1
	for _, wd := range w.Dims {
		size *= wd.Size
	}
	if size > 1<<12 {
		return nil
	}
	s := &reduceWindowF32Step{in: in, init: init, out: outLoc, op: f.f32op, swap: f.swap, threads: threads}
	parts := 1
	if len(base) > 0 {
		d0 := w.Dims[0]
		if d0.Size == 1 && max(d0.Stride, 1) == 1 && d0.PadLow == 0 && d0.PadHigh == 0 && max(d0.WindowDilation, 1) == 1 {
			parts = max(1, min(threads, base[0], prod(base)/minWindowSplit))
		}
	}
	if parts == 1 {
		s.parts = []windowPart{{outLo: 0, outHi: prod(out), passes: windowPasses(w, base, out, 0, 0)}}
		s.parts[0].sharePasses()
		return s
	}
	// Image ranges: the window maps output image i to input image i.
	inImage, outImage := prod(base[1:]), prod(out[1:])
	b, o := slices.Clone(base), slices.Clone(out)
	for p := range parts {
		lo, hi := p*base[0]/parts, (p+1)*base[0]/parts
		b[0], o[0] = hi-lo, hi-lo
		s.parts = append(s.parts, windowPart{outLo: lo * outImage, outHi: hi * outImage,
			passes: windowPasses(w, b, o, lo*inImage, lo*outImage)})
		s.parts[p].sharePasses()
	}
	return s
}

// windowPasses returns the passes of a reduce-window of an input of shape
// base, at element inOff of the operand, into outputs of shape out, at
// element outOff of the result: one strided block per window offset that
// reaches an output, in row-major window order.
func windowPasses(w *ir.Window, base, out []int, inOff, outOff int) []strided {
	rank := len(base)
	xs, os := denseStrides(base), denseStrides(out)
	sizes := make([]int, rank)
	for d, wd := range w.Dims {
		sizes[d] = wd.Size
	}
	var passes []strided
	var k [maxGenericRank]int
	for n := prod(sizes); n > 0; n-- {
		dims := make([]int, rank)
		inBase, outBase := inOff, outOff
		empty := false
		for d, wd := range w.Dims {
			stride, dil := max(wd.Stride, 1), max(wd.WindowDilation, 1)
			off := k[d]*dil - wd.PadLow // input index of output 0
			// Outputs o with 0 <= o*stride + off < base[d].
			lo := 0
			if off < 0 {
				lo = (-off + stride - 1) / stride
			}
			hi := out[d]
			if last := base[d] - 1 - off; last < 0 {
				hi = 0
			} else {
				hi = min(hi, last/stride+1)
			}
			if hi <= lo {
				empty = true
				break
			}
			dims[d] = hi - lo
			outBase += lo * os[d]
			inBase += (lo*stride + off) * xs[d]
		}
		if !empty {
			src := make([]int, rank)
			for d, wd := range w.Dims {
				src[d] = xs[d] * max(wd.Stride, 1)
			}
			passes = append(passes, newStrided(4, dims, os, src, outBase, inBase))
		}
		ir.NextIndex(sizes, k[:rank])
	}
	return passes
}

func (s *reduceWindowF32Step) name() string { return "reduce-window-f32" }

func (s *reduceWindowF32Step) exec(fr *frame) error {
	parallelFor(fr, &fr.task, s, len(s.parts), s.threads)
	return nil
}

// part fills and folds the outputs of part p.
func (s *reduceWindowF32Step) part(fr *frame, p, w int) {
	out, x := f32s(fr.bytes(s.out)), f32s(fr.bytes(s.in))
	pt := &s.parts[p]
	fillT(out[pt.outLo:pt.outHi], f32s(fr.bytes(s.init))[0])
	if pt.dOffs != nil {
		q := &pt.passes[0]
		foldPassesF32(s.op, s.swap, out, x, q.dims, q.dst, q.src, pt.dOffs, pt.sOffs, q.dstBase, q.srcBase)
		return
	}
	for i := range pt.passes {
		q := &pt.passes[i]
		foldBlockF32(s.op, s.swap, out, x, q.dims, q.dst, q.src, q.dstBase, q.srcBase)
	}
}

// foldBlockF32 folds x into out over a strided block: out[d] = f(out[d],
// x[s]) (f(x[s], out[d]) when swapped), the innermost dimension as a run.
func foldBlockF32(op ir.Opcode, swap bool, out, x []float32, dims, ds, ss []int, db, sb int) {
	foldPassesF32(op, swap, out, x, dims, ds, ss, []int{0}, []int{0}, db, sb)
}

// foldPassesF32 folds several blocks of the same shape and strides, at the
// bases db+dOffs[i] and sb+sOffs[i], tile by tile: at each position of the
// outer dimensions it folds the tile (the two innermost dimensions) of every
// block in turn, so that a pooling's output row stays in L1 while all its
// window offsets are folded into it, each output still in window order.
func foldPassesF32(op ir.Opcode, swap bool, out, x []float32, dims, ds, ss, dOffs, sOffs []int, db, sb int) {
	rank := len(dims)
	if rank == 0 {
		for i := range dOffs {
			out[db+dOffs[i]] = applyF32Op(op, swap, out[db+dOffs[i]], x[sb+sOffs[i]])
		}
		return
	}
	t := windowTile{op: op, swap: swap, inner: dims[rank-1], di: ds[rank-1], si: ss[rank-1], rows: 1}
	// The two innermost dimensions run in place; the counter walks the rest.
	outerRank := rank - 1
	if rank >= 2 {
		t.rows, t.dr, t.sr = dims[rank-2], ds[rank-2], ss[rank-2]
		outerRank = rank - 2
	}
	// Contiguous runs of a vector or more fold all the rows in one call.
	t.vectorRows = t.di == 1 && t.si == 1 && !swap && t.inner >= minVectorRun && t.dr >= t.inner && t.sr >= t.inner
	var idx [maxGenericRank]int
	d, s := db, sb
	for {
		for i := range dOffs {
			t.fold(out, x, d+dOffs[i], s+sOffs[i])
		}
		k := outerRank - 1
		for ; k >= 0; k-- {
			idx[k]++
			d += ds[k]
			s += ss[k]
			if idx[k] < dims[k] {
				break
			}
			d -= dims[k] * ds[k]
			s -= dims[k] * ss[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// windowTile is the two innermost dimensions of a fold: rows of inner
// elements.
type windowTile struct {
	op               ir.Opcode
	swap, vectorRows bool
	rows, inner      int
	dr, sr, di, si   int
}

// fold folds the tile at out[d…] ← x[s…].
func (t *windowTile) fold(out, x []float32, d, s int) {
	rows, inner, dr, sr, di, si := t.rows, t.inner, t.dr, t.sr, t.di, t.si
	if t.vectorRows {
		foldRowsF32(t.op, out[d:d+(rows-1)*dr+inner], x[s:s+(rows-1)*sr+inner], rows, inner, dr, sr)
		return
	}
	for r, dd, sd := 0, d, s; r < rows; r, dd, sd = r+1, dd+dr, sd+sr {
		if di == 1 && si == 1 && !t.swap {
			foldRunF32(t.op, out[dd:dd+inner], x[sd:sd+inner])
			continue
		}
		for j, dj, sj := 0, dd, sd; j < inner; j, dj, sj = j+1, dj+di, sj+si {
			out[dj] = applyF32Op(t.op, t.swap, out[dj], x[sj])
		}
	}
}

// minVectorRun is the shortest run that folds go to the vector kernels
// (foldRunF32, and the row kernels for a tile's rows): one AVX-512 vector,
// below which the call costs more than the scalar loop.
const minVectorRun = 16

// foldRowsF32 folds rows of x into rows of out (see kiln.MaximumRows).
func foldRowsF32(op ir.Opcode, out, x []float32, rows, cols, ldo, ldx int) {
	switch op {
	case ir.OpAdd:
		kiln.AddRows(out, x, rows, cols, ldo, ldx)
	case ir.OpMultiply:
		kiln.MulRows(out, x, rows, cols, ldo, ldx)
	case ir.OpMaximum:
		kiln.MaximumRows(out, x, rows, cols, ldo, ldx)
	default:
		kiln.MinimumRows(out, x, rows, cols, ldo, ldx)
	}
}

// foldRunF32 folds a contiguous run: o[j] = f(o[j], v[j]). Runs of a vector
// or more (the channels of an NHWC pooling window's row) go to the vector
// kernels, whose maximum and minimum are XLA's; shorter ones to Go's max and
// min, which are XLA's too (a NaN operand gives NaN, -0 < +0) and compile
// without branches.
func foldRunF32(op ir.Opcode, o, v []float32) {
	v = v[:len(o)]
	if len(o) >= minVectorRun {
		switch op {
		case ir.OpAdd:
			kiln.Add(o, o, v)
		case ir.OpMultiply:
			kiln.Mul(o, o, v)
		case ir.OpMaximum:
			kiln.Maximum(o, o, v)
		default:
			kiln.Minimum(o, o, v)
		}
		return
	}
	switch op {
	case ir.OpAdd:
		for j, b := range v {
			o[j] += b
		}
	case ir.OpMultiply:
		for j, b := range v {
			o[j] *= b
		}
	case ir.OpMaximum:
		for j, b := range v {
			o[j] = max(o[j], b)
		}
	default:
		for j, b := range v {
			o[j] = min(o[j], b)
		}
	}
}

// applyF32Op is a standard float32 reducer step f(acc, x), or f(x, acc)
// when swapped (which matters only for which NaN maximum/minimum return).
func applyF32Op(op ir.Opcode, swap bool, acc, x float32) float32 {
	if swap {
		acc, x = x, acc
	}
	switch op {
	case ir.OpAdd:
		return acc + x
	case ir.OpMultiply:
		return acc * x
	case ir.OpMaximum:
		return maxF32(acc, x)
	}
	return minF32(acc, x)
}

func (s *reduceWindowStep) exec(fr *frame) error {
	var ins, inits, outs [maxVariadic][]byte
	for i := 0; i < s.n; i++ {
		ins[i], inits[i], outs[i] = fr.bytes(s.ins[i]), fr.bytes(s.inits[i]), fr.bytes(s.outs[i])
	}
	buf := elems[int64](fr.bytes(s.win))
	var opos [maxGenericRank]int
	rank := len(s.plan.out)
	for o := 0; o < s.count; o++ {
		var st foldState
		s.fold.start(fr, &st, &inits)
		pos := s.plan.positions(opos[:rank], buf)
		for start := 0; start < len(pos); start += foldTile {
			s.fold.fold(fr, &st, &ins, pos[start:min(start+foldTile, len(pos))])
		}
		s.fold.finish(fr, &st, &outs, o)
		ir.NextIndex(s.plan.out, opos[:rank])
	}
	return nil
}

// selectAndScatterStep fills the result with the init value, then, window
// by window in row-major order, selects one element of the operand's
// window and combines the window's source value into that position.
type selectAndScatterStep struct {
	operand, source, init, out loc
	t, st                      ir.ElementType // operand and source/result types
	plan                       *windowPlan
	count                      int
	win                        loc // the position list (in the arena)
	// selection: compare of the two parameters, or a scalar function
	cmpDir   ir.ComparisonDirection
	cmpTotal bool
	cmpSwap  bool
	sel      *scalarFunc
	selRegs  int
	comb     *combiner
}

func buildSelectAndScatter(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Args) != 3 || len(v.Funcs) != 2 {
		return nil, nil
	}
	op, src, init := v.Args[0], v.Args[1], v.Args[2]
	ob, sb, ib := inputBuffer(k, op), inputBuffer(k, src), inputBuffer(k, init)
	if ob == nil || sb == nil || ib == nil || !denseArray(op.Shape) || !denseArray(src.Shape) || !denseArray(v.Shape) ||
		!init.Shape.IsScalar() || init.Shape.Elem != src.Shape.Elem || v.Shape.Elem != src.Shape.Elem || !slices.Equal(v.Shape.Dims, op.Shape.Dims) {
		return nil, nil
	}
	plan, ok := newWindowPlan(v.Attrs.Window, op.Shape.Dims)
	if !ok || !slices.Equal(src.Shape.Dims, plan.out) {
		return nil, nil
	}
	s := &selectAndScatterStep{operand: c.loc(ob), source: c.loc(sb), init: c.loc(ib), out: c.loc(k.Out),
		t: op.Shape.Elem, st: src.Shape.Elem, plan: plan, count: prod(plan.out)}
	var sp scratchPlan
	if !s.standardSelect(v.Funcs[0]) {
		fn := compileScalarFunc(v.Funcs[0])
		if fn == nil || len(fn.params) != 2 || fn.paramT[0] != s.t || fn.paramT[1] != s.t || len(fn.results) != 1 || fn.resultT[0] != ir.PRED {
			return nil, nil
		}
		s.sel = fn
		s.selRegs = sp.take(fn.size())
	}
	if s.comb = newCombiner(v.Funcs[1], []ir.ElementType{s.st}, &sp); s.comb == nil {
		return nil, nil
	}
	s.win = privateArena(p, plan.maxElems*8)
	sp.reserve(p)
	return s, nil
}

// standardSelect recognises a select computation that is one compare of
// its two parameters.
func (s *selectAndScatterStep) standardSelect(f *ssa.Func) bool {
	r := f.Root
	if len(f.Params) != 2 || r.Op != ssa.OpCompare || len(r.Args) != 2 || !f.Params[0].Shape.IsScalar() ||
		f.Params[0].Shape.Elem != s.t || f.Params[1].Shape.Elem != s.t || r.Attrs.Direction == ir.CmpInvalid {
		return false
	}
	switch {
	case r.Args[0] == f.Params[0] && r.Args[1] == f.Params[1]:
	case r.Args[0] == f.Params[1] && r.Args[1] == f.Params[0]:
		s.cmpSwap = true
	default:
		return false
	}
	ct := r.Attrs.CompareType
	if ct == ir.CmpTypeDefault {
		ct = ir.DefaultComparisonType(s.t)
	}
	switch {
	case s.t.IsFloat():
		if ct != ir.CmpTypeFloat && ct != ir.CmpTypeTotalOrder {
			return false
		}
	case s.t.IsSigned():
		if ct != ir.CmpTypeSigned {
			return false
		}
	case s.t.IsUnsigned() || s.t == ir.PRED:
		// PRED's 0 and 1 order alike either way; unsigned types must compare
		// unsigned for the wide int64 form to order as the values do.
		if ct != ir.CmpTypeUnsigned && s.t != ir.PRED {
			return false
		}
	default:
		return false
	}
	s.cmpDir, s.cmpTotal = r.Attrs.Direction, ct == ir.CmpTypeTotalOrder
	return true
}

func (s *selectAndScatterStep) name() string { return "select-and-scatter" }

func (s *selectAndScatterStep) exec(fr *frame) error {
	operand, source, out := fr.bytes(s.operand), fr.bytes(s.source), fr.bytes(s.out)
	fillElements(out, fr.bytes(s.init)[:s.st.ByteSize()])
	buf := elems[int64](fr.bytes(s.win))
	var selRegs []byte
	if s.sel != nil {
		selRegs = fr.scratch[0][s.selRegs:]
		s.sel.loadConsts(selRegs)
	}
	s.comb.begin(fr)
	var cur, upd [maxVariadic][]byte
	cur[0], upd[0] = out, source
	var opos [maxGenericRank]int
	rank := len(s.plan.out)
	for o := 0; o < s.count; o++ {
		pos := s.plan.positions(opos[:rank], buf)
		ir.NextIndex(s.plan.out, opos[:rank])
		if len(pos) == 0 {
			continue
		}
		sel := int(pos[0])
		for _, x := range pos[1:] {
			if !s.keep(operand, selRegs, sel, int(x)) {
				sel = int(x)
			}
		}
		s.comb.apply(fr, &cur, sel, &upd, o)
	}
	return nil
}

// keep evaluates select(operand[cur], operand[cand]): true keeps the
// current selection.
func (s *selectAndScatterStep) keep(operand, regs []byte, cur, cand int) bool {
	if s.sel != nil {
		s.sel.load(regs, 0, operand, cur)
		s.sel.load(regs, 1, operand, cand)
		s.sel.run(regs)
		return s.sel.truth(regs, 0)
	}
	a, b := cur, cand
	if s.cmpSwap {
		a, b = b, a
	}
	t := s.t
	switch {
	case s.cmpTotal:
		var x, y [1]uint64
		loadBits(x[:], operand, t, a)
		loadBits(y[:], operand, t, b)
		w := t.BitWidth()
		return compareResult(s.cmpDir, cmp3(totalOrderKey(x[0], w), totalOrderKey(y[0], w)))
	case t.IsFloat():
		var x, y [1]float64
		loadFloats(x[:], operand, t, a)
		loadFloats(y[:], operand, t, b)
		return compareResult(s.cmpDir, cmp3(x[0], y[0]))
	case t.IsUnsigned():
		var x, y [1]int64
		loadInts(x[:], operand, t, a)
		loadInts(y[:], operand, t, b)
		return compareResult(s.cmpDir, cmp3(uint64(x[0]), uint64(y[0])))
	}
	var x, y [1]int64
	loadInts(x[:], operand, t, a)
	loadInts(y[:], operand, t, b)
	return compareResult(s.cmpDir, cmp3(x[0], y[0]))
}

package runtime

// gather and scatter with every form of dimension numbers (batching
// dimensions included), as the reference evaluator runs them: gather clamps
// each start index so the slice fits; scatter skips an update window that
// would leave the operand anywhere, applies the windows in row-major order
// of the scatter indices and each window in row-major order, so repeated
// indices combine in that order. The update computation runs as a direct
// loop for the common forms (keep, overwrite, and one binary op of the two
// values) and as a compiled scalar function otherwise.

import (
	"math"
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.Op(ir.OpGather)] = buildGather
	genericSteps[ssa.OpScatter] = buildScatter
}

// complementDims returns the integers in [0, n) in none of the lists.
func complementDims(n int, lists ...[]int) []int {
	var out []int
	for i := 0; i < n; i++ {
		found := false
		for _, l := range lists {
			found = found || slices.Contains(l, i)
		}
		if !found {
			out = append(out, i)
		}
	}
	return out
}

// indexBatch describes an index array walked over its batch dimensions
// (all but index_vector_dim): the batch sizes, the position step of each
// batch dimension, and the step between the components of one vector.
type indexBatch struct {
	dims      []int
	idxStride []int
	vecStride int
	vecLen    int
}

func newIndexBatch(id []int, ivd int) (indexBatch, bool) {
	if ivd < 0 || ivd > len(id) {
		return indexBatch{}, false
	}
	is := denseStrides(id)
	b := indexBatch{vecStride: 1, vecLen: 1}
	for i, n := range id {
		if i == ivd {
			b.vecStride, b.vecLen = is[i], n
			continue
		}
		b.dims = append(b.dims, n)
		b.idxStride = append(b.idxStride, is[i])
	}
	return b, len(b.dims) <= maxGenericRank
}

// batchPos maps a batching dimension of the indices to its position among
// the batch dimensions (index_vector_dim removed).
func batchPos(d, ivd int) int {
	if d > ivd {
		return d - 1
	}
	return d
}

// gatherStep copies one slice of the operand per index vector.
type gatherStep struct {
	x, idx, out loc
	idxT        ir.ElementType
	batch       indexBatch
	outStride   []int // per batch dimension: output element step
	srcStride   []int // per batch dimension: operand step (batching dimensions)
	startDims   []int // start_index_map: operand dimension of each component
	startStride []int // their operand strides
	startMax    []int // their largest start (dimension size minus slice size)
	block       strided
	empty       bool
}

func buildGather(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	dn := v.Attrs.GatherDims
	if dn == nil || len(v.Args) != 2 || !denseArray(v.Shape) || !denseArray(v.Args[0].Shape) || !denseArray(v.Args[1].Shape) ||
		!v.Args[1].Shape.Elem.IsInteger() || v.Args[0].Shape.Elem != v.Shape.Elem {
		return nil, nil
	}
	x, ind := v.Args[0].Shape, v.Args[1].Shape
	xb, ib := inputBuffer(k, v.Args[0]), inputBuffer(k, v.Args[1])
	if xb == nil || ib == nil {
		return nil, nil
	}
	xd, id := x.Dims, ind.Dims
	rank := len(xd)
	sizes := v.Attrs.GatherSliceSizes
	batch, ok := newIndexBatch(id, dn.IndexVectorDim)
	if !ok || len(sizes) != rank || len(dn.StartIndexMap) != batch.vecLen || len(dn.OperandBatchingDims) != len(dn.StartIndicesBatchingDims) {
		return nil, nil
	}
	offsetOperandDims := complementDims(rank, dn.CollapsedSliceDims, dn.OperandBatchingDims)
	if len(offsetOperandDims) != len(dn.OffsetDims) {
		return nil, nil
	}
	outDims := v.Shape.Dims
	outBatchDims := complementDims(len(outDims), dn.OffsetDims)
	if len(outBatchDims) != len(batch.dims) {
		return nil, nil
	}
	xs, os := denseStrides(xd), denseStrides(outDims)
	s := &gatherStep{x: c.loc(xb), idx: c.loc(ib), out: c.loc(k.Out), idxT: ind.Elem, batch: batch,
		outStride: make([]int, len(batch.dims)), srcStride: make([]int, len(batch.dims))}
	for j, d := range outBatchDims {
		if outDims[d] != batch.dims[j] {
			return nil, nil
		}
		s.outStride[j] = os[d]
	}
	for i, d := range dn.OperandBatchingDims {
		sd := dn.StartIndicesBatchingDims[i]
		if sd == dn.IndexVectorDim || d < 0 || d >= rank || sd < 0 || sd >= len(id) || xd[d] != id[sd] {
			return nil, nil
		}
		s.srcStride[batchPos(sd, dn.IndexVectorDim)] += xs[d]
	}
	for i, n := range sizes {
		if n < 0 || n > xd[i] {
			return nil, nil
		}
	}
	for _, d := range dn.StartIndexMap {
		if d < 0 || d >= rank {
			return nil, nil
		}
		s.startDims = append(s.startDims, d)
		s.startStride = append(s.startStride, xs[d])
		s.startMax = append(s.startMax, xd[d]-sizes[d])
	}
	blockDims := make([]int, len(dn.OffsetDims))
	dst := make([]int, len(dn.OffsetDims))
	src := make([]int, len(dn.OffsetDims))
	for j, d := range dn.OffsetDims {
		if d < 0 || d >= len(outDims) || outDims[d] != sizes[offsetOperandDims[j]] {
			return nil, nil
		}
		blockDims[j], dst[j], src[j] = outDims[d], os[d], xs[offsetOperandDims[j]]
	}
	s.block = newStrided(x.Elem.ByteSize(), blockDims, dst, src, 0, 0)
	s.empty = v.Shape.ElementCount() == 0
	return s, nil
}

func (s *gatherStep) name() string { return "gather" }

func (s *gatherStep) exec(fr *frame) error {
	if s.empty {
		return nil
	}
	x, idx, out := fr.bytes(s.x), fr.bytes(s.idx), fr.bytes(s.out)
	var g [maxGenericRank]int
	b := &s.batch
	nb := len(b.dims)
	pos, dstBase, srcBatch := 0, 0, 0
	for {
		srcBase := srcBatch
		for k, d := range s.startStride {
			v := indexAt(idx, s.idxT, pos+k*b.vecStride)
			srcBase += int(min(max(v, 0), int64(s.startMax[k]))) * d
		}
		s.block.run(out, x, dstBase, srcBase)
		// Next batch index, row-major.
		k := nb - 1
		for ; k >= 0; k-- {
			g[k]++
			pos += b.idxStride[k]
			dstBase += s.outStride[k]
			srcBatch += s.srcStride[k]
			if g[k] < b.dims[k] {
				break
			}
			pos -= b.dims[k] * b.idxStride[k]
			dstBase -= b.dims[k] * s.outStride[k]
			srcBatch -= b.dims[k] * s.srcStride[k]
			g[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

// maxVariadic bounds the operands of variadic scatter, sort and reduce
// steps, so per-run operand lists live in fixed arrays.
const maxVariadic = 8

// combineKind is how an update computation is applied.
type combineKind uint8

const (
	combineKeep      combineKind = iota // f(cur, upd) = cur
	combineOverwrite                    // f(cur, upd) = upd
	combineAddF32                       // float32 add
	combineBinary                       // one binary op on wide values
	combineFunc                         // a compiled scalar function
)

// combiner applies an update computation of 2N scalar parameters (N
// current values, then N update values) returning N values, in place:
// cur[j][ci] = f(cur…[ci], upd…[ui])[j].
type combiner struct {
	kind   combineKind
	n      int
	t      ir.ElementType // binary: the element type
	swap   bool           // binary: the root reads (update, current)
	floats func(a, b float64) float64
	ints   func(a, b int64) int64
	cplx   func(a, b complex128) complex128
	fn     *scalarFunc
	regs   int // scratch offset of the function's registers
}

// newCombiner compiles update computation f for operands of types ts, or
// returns nil when it is outside what combiners cover.
func newCombiner(f *ssa.Func, ts []ir.ElementType, sp *scratchPlan) *combiner {
	n := len(ts)
	if f == nil || len(f.Params) != 2*n || n > maxVariadic {
		return nil
	}
	for i, prm := range f.Params {
		if !prm.Shape.IsScalar() || prm.Shape.Elem != ts[i%n] {
			return nil
		}
	}
	c := &combiner{n: n, t: ts[0]}
	if n == 1 && fastCombiner(c, f) {
		return c
	}
	fn := compileScalarFunc(f)
	if fn == nil || len(fn.results) != n {
		return nil
	}
	for j, t := range fn.resultT {
		if t != ts[j] {
			return nil
		}
	}
	c.kind, c.fn = combineFunc, fn
	c.regs = sp.take(fn.size())
	return c
}

// fastCombiner recognises a root that is one of the two parameters or one
// binary elementwise op of both (the evaluator's fast path, same rules).
func fastCombiner(c *combiner, f *ssa.Func) bool {
	r, t := f.Root, c.t
	if !r.Shape.IsScalar() || r.Shape.Elem != t {
		return false
	}
	switch r {
	case f.Params[0]:
		c.kind = combineKeep
		return true
	case f.Params[1]:
		c.kind = combineOverwrite
		return true
	}
	op, ok := r.Op.IR()
	if !ok || !op.IsElementwiseBinary() || len(r.Args) != 2 {
		return false
	}
	switch {
	case r.Args[0] == f.Params[0] && r.Args[1] == f.Params[1]:
	case r.Args[0] == f.Params[1] && r.Args[1] == f.Params[0]:
		c.swap = true
	default:
		return false
	}
	c.kind = combineBinary
	switch {
	case t.IsFloat():
		c.floats = floatBinaryFns[op]
		if op == ir.OpAdd && t == ir.F32 {
			c.kind = combineAddF32
		}
		return c.floats != nil
	case t.IsComplex():
		c.cplx = complexBinaryFns[op]
		return c.cplx != nil
	case t == ir.PRED && !predBinary[op]:
		return false
	}
	c.ints = intBinaryFn(op, t)
	return c.ints != nil
}

// begin prepares the combiner for one run (constants of its function).
func (c *combiner) begin(fr *frame) {
	if c.kind == combineFunc {
		c.fn.loadConsts(fr.scratch[0][c.regs:])
	}
}

// apply combines update element ui into current element ci.
func (c *combiner) apply(fr *frame, cur *[maxVariadic][]byte, ci int, upd *[maxVariadic][]byte, ui int) {
	switch c.kind {
	case combineKeep:
	case combineOverwrite:
		es := c.t.ByteSize()
		copy(cur[0][ci*es:ci*es+es], upd[0][ui*es:ui*es+es])
	case combineAddF32:
		elems[float32](cur[0])[ci] += elems[float32](upd[0])[ui]
	case combineBinary:
		c.binary(cur[0], ci, upd[0], ui)
	default:
		regs := fr.scratch[0][c.regs:]
		for j := 0; j < c.n; j++ {
			c.fn.load(regs, j, cur[j], ci)
			c.fn.load(regs, c.n+j, upd[j], ui)
		}
		c.fn.run(regs)
		for j := 0; j < c.n; j++ {
			c.fn.store(regs, j, cur[j], ci)
		}
	}
}

func (c *combiner) binary(cur []byte, ci int, upd []byte, ui int) {
	t := c.t
	switch {
	case c.floats != nil:
		var x, y [1]float64
		loadFloats(x[:], cur, t, ci)
		loadFloats(y[:], upd, t, ui)
		if c.swap {
			x, y = y, x
		}
		x[0] = c.floats(x[0], y[0])
		storeFloats(cur, t, ci, x[:])
	case c.cplx != nil:
		var x, y [1]complex128
		loadComplex(x[:], cur, t, ci)
		loadComplex(y[:], upd, t, ui)
		if c.swap {
			x, y = y, x
		}
		x[0] = c.cplx(x[0], y[0])
		storeComplex(cur, t, ci, x[:])
	default:
		var x, y [1]int64
		loadInts(x[:], cur, t, ci)
		loadInts(y[:], upd, t, ui)
		if c.swap {
			x, y = y, x
		}
		x[0] = c.ints(x[0], y[0])
		storeInts(cur, t, ci, x[:])
	}
}

// scatterStep copies the operands into the results, then combines each
// in-bounds update window into them.
type scatterStep struct {
	n          int
	xs, us     []loc // operands and updates
	outs       []loc
	idx        loc
	idxT       ir.ElementType
	batch      indexBatch // the scatter indices over the update scatter dims
	updStride  []int      // per batch dimension: update element step
	startDims  []int      // scatter_dims_to_operand_dims
	batchDims  []int      // per operand dimension: batch position of a batching dimension, or -1
	xDims      []int
	xStride    []int
	windowSize []int
	winDims    []int // update window dimension sizes
	winX       []int // their operand strides
	winU       []int // their update strides
	comb       *combiner
	none       bool // no update windows at all
}

func buildScatter(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	dn := v.Attrs.ScatterDims
	if dn == nil || len(v.Args) < 3 || len(v.Args)%2 == 0 || len(v.Funcs) != 1 {
		return nil, nil
	}
	n := (len(v.Args) - 1) / 2
	if n > maxVariadic {
		return nil, nil
	}
	ops, ind, upds := v.Args[:n], v.Args[n], v.Args[n+1:]
	if !denseArray(ind.Shape) || !ind.Shape.Elem.IsInteger() {
		return nil, nil
	}
	s := &scatterStep{n: n, idxT: ind.Shape.Elem, outs: c.leaves(k.Out)}
	xd, ud := ops[0].Shape.Dims, upds[0].Shape.Dims
	ts := make([]ir.ElementType, n)
	for i := 0; i < n; i++ {
		xb, ub := inputBuffer(k, ops[i]), inputBuffer(k, upds[i])
		if xb == nil || ub == nil || !denseArray(ops[i].Shape) || !denseArray(upds[i].Shape) ||
			!slices.Equal(ops[i].Shape.Dims, xd) || !slices.Equal(upds[i].Shape.Dims, ud) || ops[i].Shape.Elem != upds[i].Shape.Elem {
			return nil, nil
		}
		s.xs = append(s.xs, c.loc(xb))
		s.us = append(s.us, c.loc(ub))
		ts[i] = ops[i].Shape.Elem
	}
	if len(s.outs) != n {
		return nil, nil
	}
	ib := inputBuffer(k, ind)
	if ib == nil {
		return nil, nil
	}
	s.idx = c.loc(ib)
	rank := len(xd)
	id := ind.Shape.Dims
	batch, ok := newIndexBatch(id, dn.IndexVectorDim)
	if !ok || len(dn.ScatterDimsToOperandDims) != batch.vecLen || len(dn.InputBatchingDims) != len(dn.ScatterIndicesBatchingDims) {
		return nil, nil
	}
	s.batch = batch
	windowOperandDims := complementDims(rank, dn.InsertedWindowDims, dn.InputBatchingDims)
	updateScatterDims := complementDims(len(ud), dn.UpdateWindowDims)
	if len(windowOperandDims) != len(dn.UpdateWindowDims) || len(updateScatterDims) != len(batch.dims) {
		return nil, nil
	}
	us := denseStrides(ud)
	s.xDims, s.xStride = xd, denseStrides(xd)
	for j, d := range updateScatterDims {
		if ud[d] != batch.dims[j] {
			return nil, nil
		}
		s.updStride = append(s.updStride, us[d])
		if ud[d] == 0 {
			s.none = true
		}
	}
	s.windowSize = make([]int, rank)
	for i := range s.windowSize {
		s.windowSize[i] = 1
	}
	for j, d := range dn.UpdateWindowDims {
		od := windowOperandDims[j]
		if d < 0 || d >= len(ud) || ud[d] > xd[od] {
			return nil, nil
		}
		s.windowSize[od] = ud[d]
		s.winDims = append(s.winDims, ud[d])
		s.winX = append(s.winX, s.xStride[od])
		s.winU = append(s.winU, us[d])
	}
	for _, d := range dn.ScatterDimsToOperandDims {
		if d < 0 || d >= rank {
			return nil, nil
		}
	}
	s.startDims = dn.ScatterDimsToOperandDims
	s.batchDims = make([]int, rank)
	for i := range s.batchDims {
		s.batchDims[i] = -1
	}
	for i, d := range dn.InputBatchingDims {
		sd := dn.ScatterIndicesBatchingDims[i]
		if sd == dn.IndexVectorDim || d < 0 || d >= rank || sd < 0 || sd >= len(id) || xd[d] != id[sd] {
			return nil, nil
		}
		s.batchDims[d] = batchPos(sd, dn.IndexVectorDim)
	}
	if len(s.winDims) > maxGenericRank {
		return nil, nil
	}
	var sp scratchPlan
	if s.comb = newCombiner(v.Funcs[0], ts, &sp); s.comb == nil && !s.none {
		return nil, nil
	}
	sp.reserve(p)
	return s, nil
}

func (s *scatterStep) name() string { return "scatter" }

func (s *scatterStep) exec(fr *frame) error {
	var cur, upd [maxVariadic][]byte
	for i := 0; i < s.n; i++ {
		cur[i] = fr.bytes(s.outs[i])
		copy(cur[i], fr.bytes(s.xs[i]))
		upd[i] = fr.bytes(s.us[i])
	}
	if s.none {
		return nil
	}
	s.comb.begin(fr)
	idx := fr.bytes(s.idx)
	b := &s.batch
	nb := len(b.dims)
	var g, w [maxGenericRank]int
	var start [maxGenericRank]int
	pos, uBatch := 0, 0
	for {
		clear(start[:len(s.xDims)])
		for k, d := range s.startDims {
			v := indexAt(idx, s.idxT, pos+k*b.vecStride)
			start[d] = int(max(min(v, math.MaxInt>>1), math.MinInt>>1))
		}
		for d, p := range s.batchDims {
			if p >= 0 {
				start[d] = g[p]
			}
		}
		inBounds := true
		xBase := 0
		for d, st := range start[:len(s.xDims)] {
			if st < 0 || st > s.xDims[d]-s.windowSize[d] {
				inBounds = false
			}
			xBase += st * s.xStride[d]
		}
		if inBounds {
			s.window(fr, &cur, &upd, xBase, uBatch, w[:len(s.winDims)])
		}
		k := nb - 1
		for ; k >= 0; k-- {
			g[k]++
			pos += b.idxStride[k]
			uBatch += s.updStride[k]
			if g[k] < b.dims[k] {
				break
			}
			pos -= b.dims[k] * b.idxStride[k]
			uBatch -= b.dims[k] * s.updStride[k]
			g[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

// window combines one update window, in row-major order of its indices.
func (s *scatterStep) window(fr *frame, cur, upd *[maxVariadic][]byte, xBase, uBase int, w []int) {
	for _, n := range s.winDims {
		if n == 0 {
			return
		}
	}
	clear(w)
	xi, ui := xBase, uBase
	for {
		s.comb.apply(fr, cur, xi, upd, ui)
		k := len(w) - 1
		for ; k >= 0; k-- {
			w[k]++
			xi += s.winX[k]
			ui += s.winU[k]
			if w[k] < s.winDims[k] {
				break
			}
			xi -= s.winDims[k] * s.winX[k]
			ui -= s.winDims[k] * s.winU[k]
			w[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

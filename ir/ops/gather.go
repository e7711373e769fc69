package ops

// gather and scatter with every form of dimension numbers (batching
// dimensions included), as XLA's HloEvaluator runs them:
//   - gather clamps each start index so that the slice fits: per
//     start_index_map dimension, into [0, operand_dim - slice_size].
//   - scatter skips a whole update window when any part of it would fall
//     outside the operand; it applies the windows in row-major order of the
//     scatter indices and each window in row-major order, so duplicate
//     indices combine in that order.

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// indexBatch describes an index array walked over its batch dimensions
// (all but index_vector_dim): the batch sizes, the position step of each
// batch dimension, and the step between the components of one vector.
type indexBatch struct {
	dims      []int
	idxStride []int
	vecStride int
	vecLen    int
}

func newIndexBatch(id []int, ivd int) (indexBatch, error) {
	if ivd < 0 || ivd > len(id) {
		return indexBatch{}, fmt.Errorf("index_vector_dim %d is out of range for indices of rank %d", ivd, len(id))
	}
	is := Strides(id)
	b := indexBatch{vecStride: 1, vecLen: 1, dims: []int{}}
	for i, n := range id {
		if i == ivd {
			b.vecStride, b.vecLen = is[i], n
			continue
		}
		b.dims = append(b.dims, n)
		b.idxStride = append(b.idxStride, is[i])
	}
	if len(b.dims) > MaxRank {
		return indexBatch{}, fmt.Errorf("indices of rank %d, above the limit of %d", len(id), MaxRank)
	}
	return b, nil
}

// batchPos maps a batching dimension of the indices to its position among
// the batch dimensions (index_vector_dim removed).
func batchPos(d, ivd int) int {
	if d > ivd {
		return d - 1
	}
	return d
}

// GatherPlan copies one slice of the operand per index vector.
type GatherPlan struct {
	OutDims     []int
	idxT        ir.ElementType
	batch       indexBatch
	outStride   []int // per batch dimension: output element step
	srcStride   []int // per batch dimension: operand step (batching dimensions)
	startStride []int // per start_index_map component: its operand stride
	startMax    []int // its largest start (dimension size minus slice size)
	block       Strided
}

// NewGather plans gather of an operand of dims (elements of es bytes) with
// indices of type idxT and dimensions id.
func NewGather(es int, xd []int, idxT ir.ElementType, id []int, dn *ir.GatherDimensionNumbers, sizes []int) (*GatherPlan, error) {
	if dn == nil {
		return nil, fmt.Errorf("gather has no dimension numbers")
	}
	if !idxT.IsInteger() {
		return nil, fmt.Errorf("indices have element type %v, expected an integer type", idxT)
	}
	if err := checkRank("gather", len(xd)); err != nil {
		return nil, err
	}
	rank := len(xd)
	if len(sizes) != rank {
		return nil, fmt.Errorf("slice_sizes=%v has %d entries for an operand of rank %d", sizes, len(sizes), rank)
	}
	batch, err := newIndexBatch(id, dn.IndexVectorDim)
	if err != nil {
		return nil, err
	}
	if len(dn.StartIndexMap) != batch.vecLen {
		return nil, fmt.Errorf("start_index_map=%v has %d entries, the index vectors have %d components", dn.StartIndexMap, len(dn.StartIndexMap), batch.vecLen)
	}
	if len(dn.OperandBatchingDims) != len(dn.StartIndicesBatchingDims) {
		return nil, fmt.Errorf("operand_batching_dims=%v and start_indices_batching_dims=%v differ in length", dn.OperandBatchingDims, dn.StartIndicesBatchingDims)
	}
	outRank := len(batch.dims) + len(dn.OffsetDims)
	for _, c := range []struct {
		name string
		dims []int
		rank int
	}{{"start_index_map", dn.StartIndexMap, rank}, {"collapsed_slice_dims", dn.CollapsedSliceDims, rank},
		{"operand_batching_dims", dn.OperandBatchingDims, rank}, {"start_indices_batching_dims", dn.StartIndicesBatchingDims, len(id)},
		{"offset_dims", dn.OffsetDims, outRank}} {
		if err := CheckDims(c.name, c.dims, c.rank); err != nil {
			return nil, err
		}
	}
	for i, d := range dn.OperandBatchingDims {
		if sd := dn.StartIndicesBatchingDims[i]; xd[d] != id[sd] {
			return nil, fmt.Errorf("operand batching dimension %d has size %d, start indices batching dimension %d has size %d", d, xd[d], sd, id[sd])
		}
	}
	for _, d := range append(slices.Clone(dn.CollapsedSliceDims), dn.OperandBatchingDims...) {
		if sizes[d] > 1 {
			return nil, fmt.Errorf("collapsed or batching operand dimension %d has slice size %d, expected 1", d, sizes[d])
		}
	}
	for i, s := range sizes {
		if s < 0 || s > xd[i] {
			return nil, fmt.Errorf("slice size %d is out of range for operand dimension %d of size %d", s, i, xd[i])
		}
	}
	offsetOperandDims := Complement(rank, dn.CollapsedSliceDims, dn.OperandBatchingDims)
	if len(offsetOperandDims) != len(dn.OffsetDims) {
		return nil, fmt.Errorf("offset_dims=%v has %d entries, the slice has %d uncollapsed dimensions", dn.OffsetDims, len(dn.OffsetDims), len(offsetOperandDims))
	}
	outBatchDims := Complement(outRank, dn.OffsetDims)
	out := make([]int, outRank)
	for k, d := range dn.OffsetDims {
		out[d] = sizes[offsetOperandDims[k]]
	}
	for k, d := range outBatchDims {
		out[d] = batch.dims[k]
	}
	xs, os := Strides(xd), Strides(out)
	p := &GatherPlan{OutDims: out, idxT: idxT, batch: batch,
		outStride: make([]int, len(batch.dims)), srcStride: make([]int, len(batch.dims))}
	for j, d := range outBatchDims {
		p.outStride[j] = os[d]
	}
	for i, d := range dn.OperandBatchingDims {
		sd := dn.StartIndicesBatchingDims[i]
		if sd == dn.IndexVectorDim {
			return nil, fmt.Errorf("start_indices_batching_dims=%v contains index_vector_dim %d", dn.StartIndicesBatchingDims, sd)
		}
		p.srcStride[batchPos(sd, dn.IndexVectorDim)] += xs[d]
	}
	for _, d := range dn.StartIndexMap {
		p.startStride = append(p.startStride, xs[d])
		p.startMax = append(p.startMax, xd[d]-sizes[d])
	}
	blockDims := make([]int, len(dn.OffsetDims))
	dst := make([]int, len(dn.OffsetDims))
	src := make([]int, len(dn.OffsetDims))
	for j, d := range dn.OffsetDims {
		blockDims[j], dst[j], src[j] = sizes[offsetOperandDims[j]], os[d], xs[offsetOperandDims[j]]
	}
	p.block = NewStrided(es, blockDims, dst, src, 0, 0)
	return p, nil
}

// Run gathers from x at the indices idx into out.
func (p *GatherPlan) Run(out, x, idx []byte) {
	if Count(p.OutDims) == 0 || p.block.Count() == 0 {
		return
	}
	var g [MaxRank]int
	b := &p.batch
	nb := len(b.dims)
	pos, dstBase, srcBatch := 0, 0, 0
	for {
		srcBase := srcBatch
		for k, d := range p.startStride {
			v := IndexAt(idx, p.idxT, pos+k*b.vecStride)
			srcBase += int(min(max(v, 0), int64(p.startMax[k]))) * d
		}
		p.block.Run(out, x, dstBase, srcBase)
		k := nb - 1
		for ; k >= 0; k-- {
			g[k]++
			pos += b.idxStride[k]
			dstBase += p.outStride[k]
			srcBatch += p.srcStride[k]
			if g[k] < b.dims[k] {
				break
			}
			pos -= b.dims[k] * b.idxStride[k]
			dstBase -= b.dims[k] * p.outStride[k]
			srcBatch -= b.dims[k] * p.srcStride[k]
			g[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// ScatterPlan combines update windows into copies of N operands.
type ScatterPlan struct {
	N          int
	Types      []ir.ElementType
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
	comb       *Combiner
	none       bool // no update windows at all
}

// NewScatter plans scatter into operands of types ts and dimensions xd,
// with indices of type idxT and dimensions id, updates of dimensions ud and
// update computation f.
func NewScatter(ts []ir.ElementType, xd []int, idxT ir.ElementType, id, ud []int, dn *ir.ScatterDimensionNumbers, f *Func) (*ScatterPlan, error) {
	if dn == nil {
		return nil, fmt.Errorf("scatter has no dimension numbers")
	}
	if !idxT.IsInteger() {
		return nil, fmt.Errorf("indices have element type %v, expected an integer type", idxT)
	}
	if err := checkRank("scatter", max(len(xd), len(ud))); err != nil {
		return nil, err
	}
	rank := len(xd)
	batch, err := newIndexBatch(id, dn.IndexVectorDim)
	if err != nil {
		return nil, err
	}
	if len(dn.ScatterDimsToOperandDims) != batch.vecLen {
		return nil, fmt.Errorf("scatter_dims_to_operand_dims=%v has %d entries, the index vectors have %d components",
			dn.ScatterDimsToOperandDims, len(dn.ScatterDimsToOperandDims), batch.vecLen)
	}
	if len(dn.InputBatchingDims) != len(dn.ScatterIndicesBatchingDims) {
		return nil, fmt.Errorf("input_batching_dims=%v and scatter_indices_batching_dims=%v differ in length", dn.InputBatchingDims, dn.ScatterIndicesBatchingDims)
	}
	for _, c := range []struct {
		name string
		dims []int
		rank int
	}{{"scatter_dims_to_operand_dims", dn.ScatterDimsToOperandDims, rank}, {"inserted_window_dims", dn.InsertedWindowDims, rank},
		{"input_batching_dims", dn.InputBatchingDims, rank}, {"scatter_indices_batching_dims", dn.ScatterIndicesBatchingDims, len(id)},
		{"update_window_dims", dn.UpdateWindowDims, len(ud)}} {
		if err := CheckDims(c.name, c.dims, c.rank); err != nil {
			return nil, err
		}
	}
	for i, d := range dn.InputBatchingDims {
		if sd := dn.ScatterIndicesBatchingDims[i]; xd[d] != id[sd] {
			return nil, fmt.Errorf("input batching dimension %d has size %d, scatter indices batching dimension %d has size %d", d, xd[d], sd, id[sd])
		}
	}
	windowOperandDims := Complement(rank, dn.InsertedWindowDims, dn.InputBatchingDims)
	if len(windowOperandDims) != len(dn.UpdateWindowDims) {
		return nil, fmt.Errorf("update_window_dims=%v has %d entries, the operand has %d dimensions that are neither inserted nor batching",
			dn.UpdateWindowDims, len(dn.UpdateWindowDims), len(windowOperandDims))
	}
	updateScatterDims := Complement(len(ud), dn.UpdateWindowDims)
	if len(updateScatterDims) != len(batch.dims) {
		return nil, fmt.Errorf("updates of rank %d have %d scatter dimensions, the indices have %d", len(ud), len(updateScatterDims), len(batch.dims))
	}
	p := &ScatterPlan{N: len(ts), Types: ts, idxT: idxT, batch: batch, xDims: xd, xStride: Strides(xd)}
	us := Strides(ud)
	for j, d := range updateScatterDims {
		if ud[d] != batch.dims[j] {
			return nil, fmt.Errorf("update scatter dimension %d has size %d, the indices' batch dimension %d", d, ud[d], batch.dims[j])
		}
		p.updStride = append(p.updStride, us[d])
		if ud[d] == 0 {
			p.none = true
		}
	}
	p.windowSize = make([]int, rank)
	for i := range p.windowSize {
		p.windowSize[i] = 1
	}
	for j, d := range dn.UpdateWindowDims {
		od := windowOperandDims[j]
		if ud[d] > xd[od] {
			return nil, fmt.Errorf("update window dimension %d has size %d, larger than operand dimension %d of size %d", d, ud[d], od, xd[od])
		}
		p.windowSize[od] = ud[d]
		p.winDims = append(p.winDims, ud[d])
		p.winX = append(p.winX, p.xStride[od])
		p.winU = append(p.winU, us[d])
		if ud[d] == 0 {
			p.none = true
		}
	}
	p.startDims = dn.ScatterDimsToOperandDims
	p.batchDims = make([]int, rank)
	for i := range p.batchDims {
		p.batchDims[i] = -1
	}
	for i, d := range dn.InputBatchingDims {
		sd := dn.ScatterIndicesBatchingDims[i]
		if sd == dn.IndexVectorDim {
			return nil, fmt.Errorf("scatter_indices_batching_dims=%v contains index_vector_dim %d", dn.ScatterIndicesBatchingDims, sd)
		}
		p.batchDims[d] = batchPos(sd, dn.IndexVectorDim)
	}
	if p.comb, err = NewCombiner(f, ts); err != nil && !p.none {
		return nil, err
	}
	return p, nil
}

// ScratchBytes is the scratch Run needs.
func (p *ScatterPlan) ScratchBytes() int {
	if p.comb == nil {
		return 0
	}
	return p.comb.ScratchBytes()
}

// Run writes the operands xs into outs (which may be the operands
// themselves), then combines the updates us at the indices idx.
func (p *ScatterPlan) Run(outs, xs [][]byte, idx []byte, us [][]byte, scratch []byte) error {
	n := Count(p.xDims)
	for i := range outs {
		es := p.Types[i].ByteSize()
		if n > 0 && &outs[i][0] != &xs[i][0] {
			copy(outs[i][:n*es], xs[i][:n*es])
		}
	}
	if p.none || n == 0 {
		return nil
	}
	p.comb.Begin(scratch)
	b := &p.batch
	nb := len(b.dims)
	var g, w [MaxRank]int
	var start [MaxRank]int
	pos, uBatch := 0, 0
	for {
		clear(start[:len(p.xDims)])
		for k, d := range p.startDims {
			v := IndexAt(idx, p.idxT, pos+k*b.vecStride)
			start[d] = int(max(min(v, 1<<40), -1<<40))
		}
		for d, bp := range p.batchDims {
			if bp >= 0 {
				start[d] = g[bp]
			}
		}
		inBounds := true
		xBase := 0
		for d, st := range start[:len(p.xDims)] {
			if st < 0 || st > p.xDims[d]-p.windowSize[d] {
				inBounds = false
			}
			xBase += st * p.xStride[d]
		}
		if inBounds {
			if err := p.window(outs, us, xBase, uBatch, w[:len(p.winDims)], scratch); err != nil {
				return err
			}
		}
		k := nb - 1
		for ; k >= 0; k-- {
			g[k]++
			pos += b.idxStride[k]
			uBatch += p.updStride[k]
			if g[k] < b.dims[k] {
				break
			}
			pos -= b.dims[k] * b.idxStride[k]
			uBatch -= b.dims[k] * p.updStride[k]
			g[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

// window combines one update window, in row-major order of its indices.
func (p *ScatterPlan) window(cur, upd [][]byte, xBase, uBase int, w []int, scratch []byte) error {
	clear(w)
	xi, ui := xBase, uBase
	for {
		if err := p.comb.Apply(scratch, cur, xi, upd, ui); err != nil {
			return err
		}
		k := len(w) - 1
		for ; k >= 0; k-- {
			w[k]++
			xi += p.winX[k]
			ui += p.winU[k]
			if w[k] < p.winDims[k] {
				break
			}
			xi -= p.winDims[k] * p.winX[k]
			ui -= p.winDims[k] * p.winU[k]
			w[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

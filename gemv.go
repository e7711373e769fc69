package kiln

import (
	"sync/atomic"
	"unsafe"
)

// The single-row products, y = x·B and y = x·Bᵀ, read B once, in place: with
// Bᵀ each element of y is the dot product of x with a row of B (where the
// GEMM path would first transpose all of B into panels); with B, the
// column-block kernels fold chunks of rows of B into register accumulators
// a block of columns at a time (gemvColumns), or, on levels without them,
// four rows at a time are scaled by their x and added into y.

// Single-row paths (gemmJob.gemv).
const (
	gemvNone = iota
	gemvDot  // y = x·Bᵀ, dot4
	gemvAxpy // y = x·B, axpy4
)

// gemvPath chooses a call's single-row path: M = 1 with A a contiguous row,
// B not prepacked, and the level's kernel present.
func gemvPath[T float](g *gemmKernels[T], transA, transB bool, m, lda int, pb []T) int {
	switch {
	case m != 1 || pb != nil || transA && lda != 1:
		return gemvNone
	case transB && g.dot4 != nil:
		return gemvDot
	case !transB && g.axpy4 != nil:
		return gemvAxpy
	}
	return gemvNone
}

// runGemvAxpy computes C(0, n0:n1) = act(alpha·Σp a[p]·B(p,n) + beta·C + bias)
// from an accumulator row of the sums.
func (j *gemmJob[T]) runGemvAxpy(buf *partBuffers[T], n0, n1 int) {
	var acc []T
	if j.kern.gemvCols != nil {
		if acc = j.gemvColumns(buf, n0, n1); acc == nil {
			return
		}
	} else if acc = j.gemvAxpyRows(buf, n0, n1); acc == nil {
		return
	}
	for c, s := range acc {
		j.c[n0+c] = j.rowResult(n0+c, s)
	}
	if j.goAct {
		j.ep.applyAct(j.c[n0:n1])
	}
}

// gemvColsDepth is the rows of B in one chunk of the column-block path:
// each chunk's sums go to a row of their own, added in chunk order at the
// end, so that the chunks may be read in either order with the same result.
const gemvColsDepth = 128

// gemvSweepLimit bounds the B, in bytes, whose chunks a call reads back to
// front every second call (gemvSweeps): beyond it too little of B is left
// in the caches from the call before to be worth the rows of partial sums.
const gemvSweepLimit = 16 << 20

// gemvSweeps counts the calls of the column-block path on each B, by a hash
// of its address. A service runs its model again and again on the same
// weights, and B is often a little larger than L2: every second call on a B
// reads its chunks last to first, starting on those the call before read
// last, which are still in the caches (as the packed-rows path sweeps its
// panels; on the example MLP's weights read in place the chunks came 14 %
// faster). Two Bs that share a counter only disturb each other's order;
// the result does not depend on it.
var gemvSweeps [64]atomic.Uint32

// gemvBackward reports whether this call on B reads its chunks back to front.
func gemvBackward[T float](b []T) bool {
	h := uint32(uintptr(unsafe.Pointer(&b[0]))>>6) * 0x9e3779b1
	return gemvSweeps[h>>26].Add(1)%2 == 0
}

// gemvColumns returns Σp a[p]·B(p, n0:n1) in an accumulator row, or nil
// when cancelled: the column-block kernels sweep each chunk of
// gemvColsDepth rows of B a block of columns at a time, into a row of
// partial sums per chunk when there are several, which are then added in
// chunk order.
func (j *gemmJob[T]) gemvColumns(buf *partBuffers[T], n0, n1 int) []T {
	g := j.kern
	k, cols, lanes := j.k, n1-n0, g.dotLanes
	// Whole vectors per row: a block's last vector is stored whole.
	width := (cols + lanes - 1) / lanes * lanes
	chunks := (k + gemvColsDepth - 1) / gemvColsDepth
	rows := 1
	if chunks > 1 {
		rows = 1 + chunks
	}
	buf.b = grow(buf.b, rows*width)
	acc := buf.b[:width]
	part := buf.b[:rows*width]
	if rows > 1 {
		part = part[width:]
	}
	clear(part)
	block := (len(g.gemvCols) - 1) * lanes
	poll := workPoller{cancel: j.ep.cancel}
	for i := 0; i < chunks; i++ {
		q := i
		if j.backward {
			q = chunks - 1 - i
		}
		p0 := q * gemvColsDepth
		kc := min(gemvColsDepth, k-p0)
		sums := acc // one chunk: its sums are the result
		if rows > 1 {
			sums = part[q*width:]
		}
		for c0 := 0; c0 < cols; c0 += block {
			w := min(block, cols-c0)
			if poll.stopped(kc * w) {
				return nil
			}
			nv := (w + lanes - 1) / lanes
			g.gemvCols[nv](kc, &j.a[p0], &j.b[p0*j.ldb+n0+c0], j.ldb, &sums[c0], &edgeMasks[maxNR-(w-(nv-1)*lanes)])
		}
	}
	if rows > 1 {
		copy(acc, part[:width])
		for q := 1; q < chunks; q++ {
			addRow(acc, part[q*width:(q+1)*width])
		}
	}
	return acc[:cols]
}

// addRow adds y to x, element by element (the vector kernel for float32).
func addRow[T float](x, y []T) {
	if len(x) > 0 && unsafe.Sizeof(x[0]) == 4 {
		x32 := unsafe.Slice((*float32)(unsafe.Pointer(&x[0])), len(x))
		Add(x32, x32, unsafe.Slice((*float32)(unsafe.Pointer(&y[0])), len(y)))
		return
	}
	for i, v := range y {
		x[i] += v
	}
}

// gemvAxpyRows returns Σp a[p]·B(p, n0:n1) in an accumulator row, four
// rows of B at a time with the axpy kernel, or nil when cancelled.
func (j *gemmJob[T]) gemvAxpyRows(buf *partBuffers[T], n0, n1 int) []T {
	g := j.kern
	k, cols := j.k, n1-n0
	nv := cols / g.dotLanes * g.dotLanes
	buf.b = grow(buf.b, cols)
	acc := buf.b
	clear(acc)
	x := j.a[:k]
	k4 := k / 4 * 4
	poll := workPoller{cancel: j.ep.cancel}
	if nv > 0 {
		for p := 0; p < k4; p += 4 {
			if poll.stopped(4 * nv) {
				return nil
			}
			g.axpy4(nv, &x[p], &j.b[p*j.ldb+n0], j.ldb, &acc[0])
		}
	}
	for p := 0; p < k; p++ {
		lo := nv
		if p >= k4 {
			lo = 0
		}
		xp := x[p]
		row := j.b[p*j.ldb+n0+lo : p*j.ldb+n1]
		for c, bv := range row {
			acc[lo+c] += xp * bv
		}
	}
	return acc[:cols]
}

// runGemv computes C(0, n0:n1) = act(alpha·Σp a[p]·B(n,p) + beta·C + bias).
func (j *gemmJob[T]) runGemv(n0, n1 int) {
	g := j.kern
	k, lanes := j.k, g.dotLanes
	kv := k / lanes * lanes
	x := j.a[:k] // A is 1×k: a row, or a column with lda 1
	var out [4 * 16]T
	row := j.c[n0:n1]
	poll := workPoller{cancel: j.ep.cancel}
	for jj := n0; jj < n1; jj += 4 {
		if poll.stopped(4 * k) {
			return
		}
		rows := min(4, n1-jj)
		var dots [4]T
		if rows == 4 && kv > 0 {
			g.dot4(kv, &x[0], &j.b[jj*j.ldb], j.ldb, &out[0])
			for r := 0; r < 4; r++ {
				var s T
				for _, v := range out[r*lanes : (r+1)*lanes] {
					s += v
				}
				dots[r] = s
			}
		}
		start := kv
		if rows < 4 {
			start = 0
		}
		for r := 0; r < rows; r++ {
			brow := j.b[(jj+r)*j.ldb+start : (jj+r)*j.ldb+k]
			s := dots[r]
			for p, bv := range brow {
				s += x[start+p] * bv
			}
			j.c[jj+r] = j.rowResult(jj+r, s)
		}
	}
	if j.goAct {
		j.ep.applyAct(row)
	}
}

// rowResult is element col of a single-row C for the sum s: alpha·s, plus
// beta·C and the bias, and ReLU, as the epilogue flags say (the other
// activations follow in Go over the row).
func (j *gemmJob[T]) rowResult(col int, s T) T {
	v := j.alpha * s
	if j.beta != 0 {
		v += j.beta * j.c[col]
	}
	if j.epFlags&flagBias != 0 {
		v += j.ep.bias[col]
	}
	if j.epFlags&flagReLU != 0 && v < 0 {
		v = 0
	}
	return v
}

package kiln

import (
	"fmt"
	"sync"
	"unsafe"
)

// The int8-weight product: float32 activations times int8 weights with a
// float32 scale per output column — the pattern JAX exports for weight-only
// quantisation, convert(W) × broadcast(scale) feeding a dot. The weights
// stay int8 in memory; the kernels widen them in registers (exactly: every
// int8 is a float32) and accumulate A(i,p)·float32(W(p,j)) in float32, then
// multiply each column's sum by its scale: the dot of A with the
// dequantised weights, reassociated (XLA rounds each product
// float32(W)·scale before the dot; here the scale multiplies the sum once,
// which moves the result by no more than the dot's own rounding). For a few
// rows of A (batch-1 inference) the row kernels stream the weights, a
// quarter of float32's bytes; for more rows each panel is widened once per
// call into a float32 buffer the float32 micro-kernels read.

// s8wRowsKernel computes, for the panels q < panels of int8 weights
// (k×nr bytes each, one after another from w) and their scales,
// C(i, q·nr+j) = act(scale[q·nr+j]·Σp A(i,p)·float32(W(p,q·nr+j)) + bias[q·nr+j])
// for its rows of A (A(i,p) = a[i*lda+p]), the terms as flags say
// (flagBias, flagReLU). k ≥ 1.
type s8wRowsKernel func(k int, a *float32, lda int, w *int8, panels int, scale *float32, c *float32, ldc int, bias *float32, flags uint)

// s8wKernels is a level's int8-weight row kernels by row count, for panels
// nr columns wide.
type s8wKernels struct {
	nr   int
	rows []s8wRowsKernel
}

// s8wTwin is the pure-Go twin of the row kernels.
func s8wTwin(rows, nr int) s8wRowsKernel {
	return func(k int, a *float32, lda int, w *int8, panels int, scale *float32, c *float32, ldc int, bias *float32, flags uint) {
		as := unsafe.Slice(a, (rows-1)*lda+k)
		ws := unsafe.Slice(w, panels*k*nr)
		ss := unsafe.Slice(scale, panels*nr)
		cs := unsafe.Slice(c, (rows-1)*ldc+panels*nr)
		var bs []float32
		if flags&flagBias != 0 {
			bs = unsafe.Slice(bias, panels*nr)
		}
		for q := 0; q < panels; q++ {
			for i := 0; i < rows; i++ {
				for j := 0; j < nr; j++ {
					col := q*nr + j
					// One row sums its even and its odd k steps apart
					// (the kernels keep two sets of accumulators), then
					// adds the two; more rows sum in one chain.
					var acc, odd float32
					for p := 0; p < k; p++ {
						if rows == 1 && p%2 == 1 {
							odd = fma32(as[i*lda+p], float32(ws[q*k*nr+p*nr+j]), odd)
						} else {
							acc = fma32(as[i*lda+p], float32(ws[q*k*nr+p*nr+j]), acc)
						}
					}
					if rows == 1 {
						acc += odd
					}
					acc = float32(acc * ss[col])
					if bs != nil {
						acc += bs[col]
					}
					if flags&flagReLU != 0 && acc <= 0 {
						acc = 0 // XLA's max(x, 0): +0 for -0 too; NaN kept
					}
					cs[i*ldc+col] = acc
				}
			}
		}
	}
}

// genericS8W is the generic level's row kernels: the twins.
var genericS8W = func() *s8wKernels {
	s := &s8wKernels{nr: 16, rows: make([]s8wRowsKernel, s8wRowsMax+1)}
	for r := 1; r <= s8wRowsMax; r++ {
		s.rows[r] = s8wTwin(r, s.nr)
	}
	return s
}()

// rowsKernels returns the level's row kernels (the twins where it has none).
func (t *kernelTable) rowsKernels() *s8wKernels {
	if t.s8w != nil {
		return t.s8w
	}
	return genericS8W
}

// PackedS8Weights is a k×n int8 weight matrix with a float32 scale per
// column, packed once for GemmF32S8: panels of the level's width, k rows of
// int8 each, the last one padded with zero weights and scales.
type PackedS8Weights struct {
	k, n  int
	nr    int
	level isaLevel
	w     []int8
	scale []float32
}

// Bytes is the memory the packed weights and scales hold.
func (p *PackedS8Weights) Bytes() int { return len(p.w) + 4*len(p.scale) }

// PackS8Weights packs op(W), a k×n int8 matrix (W, or Wᵀ when transW), and
// the n scales of its columns. It panics on the programmer errors PackB
// panics on, and unless len(scale) = n.
func PackS8Weights(transW bool, k, n int, w []int8, ldw int, scale []float32) *PackedS8Weights {
	checkPack("PackS8Weights", transW, k, n, len(w), ldw)
	if len(scale) != n {
		panic(fmt.Sprintf("kiln: PackS8Weights: len(scale) must be n = %d, found %d", n, len(scale)))
	}
	t := kernels()
	nr := t.rowsKernels().nr
	panels := (n + nr - 1) / nr
	p := &PackedS8Weights{k: k, n: n, nr: nr, level: t.level, w: make([]int8, panels*k*nr+64), scale: make([]float32, panels*nr)}
	copy(p.scale, scale)
	for q := 0; q < panels; q++ {
		panel := p.w[q*k*nr:]
		for pk := 0; pk < k; pk++ {
			row := panel[pk*nr : pk*nr+nr]
			for j0 := range row {
				j := q*nr + j0
				if j >= n {
					break
				}
				if transW {
					row[j0] = w[j*ldw+pk]
				} else {
					row[j0] = w[pk*ldw+j]
				}
			}
		}
	}
	return p
}

// K returns the number of rows of the packed matrix.
func (p *PackedS8Weights) K() int { return p.k }

// N returns the number of columns of the packed matrix.
func (p *PackedS8Weights) N() int { return p.n }

// s8wJob is one GemmF32S8 call.
type s8wJob struct {
	m        int
	transA   bool
	a        []float32
	lda      int
	w        *PackedS8Weights
	c        []float32
	ldc      int
	ep       epilogue[float32]
	flags    uint
	goAct    bool
	t        *kernelTable
	parts    int
	scratch  [][]float32
	tiles    [][]float32
	rowsPath bool
	done     pending
}

var s8wJobs = sync.Pool{New: func() any { return new(s8wJob) }}

// GemmF32S8 computes C = act(op(A)·W + ep.Bias) for float32 A (op(A) is
// m×K(), leading dimension lda, transposed when transA) and the int8
// weights of w dequantised, W(p,j) = float32(w(p,j))·scale[j]: C(i,j) =
// act(scale[j]·Σp op(A)(i,p)·float32(w(p,j)) + bias[j]), the float32 dot
// reassociated to scale each sum once. It panics on the programmer errors
// Sgemm panics on, or when w was packed for another level's panel width
// (pack again after SetISA).
func GemmF32S8(transA bool, m int, a []float32, lda int, w *PackedS8Weights, c []float32, ldc int, ep Epilogue) {
	checkLowp("GemmF32S8", transA, m, w.k, w.n, len(a), lda, len(c), ldc)
	checkEpilogue("GemmF32S8", w.n, ep)
	t := kernels()
	if t.rowsKernels().nr != w.nr {
		panic(fmt.Sprintf("kiln: GemmF32S8: the weights were packed in panels of %d columns for the %s kernels, the %s kernels use %d; pack them again after SetISA", w.nr, w.level, t.level, t.rowsKernels().nr))
	}
	if m == 0 || w.n == 0 {
		return
	}
	j := s8wJobs.Get().(*s8wJob)
	*j = s8wJob{m: m, transA: transA, a: a, lda: lda, w: w, c: c, ldc: ldc, ep: epilogue32(ep), t: t, scratch: j.scratch, tiles: j.tiles}
	j.flags, j.goAct = j.ep.kernelFlags()
	j.rowsPath = m <= s8wRowsMax && !transA && w.k > 0
	panels := (w.n + w.nr - 1) / w.nr
	work := m * w.n * max(w.k, 1)
	if j.rowsPath {
		work = 16 * w.n * w.k // bound by the weights' bytes
	}
	j.parts = max(1, min(Threads(), panels, work/minLowpPartWork))
	for len(j.scratch) < j.parts {
		j.scratch = append(j.scratch, nil)
		j.tiles = append(j.tiles, nil)
	}
	runParallel(j, j.parts, &j.done)
	j.a, j.c, j.w, j.ep, j.t = nil, nil, nil, epilogue[float32]{}, nil
	s8wJobs.Put(j)
}

func (j *s8wJob) runPart(p int) {
	w := j.w
	nr, k := w.nr, w.k
	panels := (w.n + nr - 1) / nr
	q0, q1 := p*panels/j.parts, (p+1)*panels/j.parts
	full := min(q1, w.n/nr) // the panels with every column in C
	if j.rowsPath && !j.goAct && full > q0 {
		rk := j.t.rowsKernels()
		var bias *float32
		if j.ep.bias != nil {
			bias = &j.ep.bias[q0*nr]
		}
		rk.rows[j.m](k, &j.a[0], j.lda, &w.w[q0*k*nr], full-q0, &w.scale[q0*nr], &j.c[q0*nr], j.ldc, bias, j.flags)
		q0 = full
	}
	if q0 < q1 {
		j.dequantised(p, q0, q1)
	}
}

// dequantised computes panels q0…q1-1 by dequantising each panel into a
// float32 buffer and running the float32 micro-kernels over all of A.
func (j *s8wJob) dequantised(p, q0, q1 int) {
	w, g := j.w, j.t.sgemm
	nr, k := w.nr, w.k
	// The float32 panel has the micro-kernels' width (a multiple of nr or
	// its divisor): dequantise nr-column panels one at a time and run the
	// kernels with ldb = nr, masking what lies past it.
	buf := grow(j.scratch[p], max(k, 1)*nr+maxNR)
	j.scratch[p] = buf
	mr := g.mr
	tile := grow(j.tiles[p], mr*maxNR)
	j.tiles[p] = tile
	var wideA []float32
	rowMajor := g.rowMajor != nil && !j.transA
	for q := q0; q < q1; q++ {
		for pk := 0; pk < k; pk++ {
			S8ToF32(buf[pk*nr:pk*nr+nr], w.w[q*k*nr+pk*nr:q*k*nr+pk*nr+nr])
		}
		col := q * nr
		cols := min(nr, w.n-col)
		for i0 := 0; i0 < j.m; i0 += mr {
			rows := min(mr, j.m-i0)
			var a *float32
			var lda int
			kern := g.rowMajor
			if rowMajor && k > 0 {
				a, lda = &j.a[i0*j.lda], j.lda
			} else {
				kern = g.kmajor
				wideA = grow(wideA, max(k, 1)*rows)
				for i := 0; i < rows; i++ {
					for pk := 0; pk < k; pk++ {
						wideA[pk*rows+i] = opA(j.a, j.lda, j.transA, i0+i, pk)
					}
				}
				a, lda = &wideA[0], rows
			}
			// The micro-kernels' tile is g.nr wide, which may differ from
			// nr: run it over nr columns in steps of its width, into the
			// tile, then scale, shift and activate each row into C.
			for c0 := 0; c0 < cols; c0 += g.nr {
				cw := min(g.nr, cols-c0)
				if k > 0 {
					kern[rows](k, a, lda, &buf[c0], nr, &tile[0], g.nr, 1, 0, nil, &edgeMasks[0], 0)
				}
				for i := 0; i < rows; i++ {
					row := tile[i*g.nr : i*g.nr+cw]
					if k == 0 {
						clear(row)
					}
					Mul(row, row, w.scale[col+c0:col+c0+cw])
					if j.ep.bias != nil {
						Add(row, row, j.ep.bias[col+c0:col+c0+cw])
					}
					j.ep.applyAct(row)
					copy(j.c[(i0+i)*j.ldc+col+c0:], row)
				}
			}
		}
	}
}

// s8wRowsMax is the most rows of A the row kernels take.
const s8wRowsMax = 4

// opA returns element (i, p) of op(A).
func opA[T any](a []T, lda int, transA bool, i, p int) T {
	if transA {
		return a[p*lda+i]
	}
	return a[i*lda+p]
}

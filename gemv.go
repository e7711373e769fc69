package kiln

// The single-row products, y = x·B and y = x·Bᵀ, read B once, row by row, in
// place: with Bᵀ each element of y is the dot product of x with a row of B
// (where the GEMM path would first transpose all of B into panels); with B,
// four rows at a time are scaled by their x and added into y (where the GEMM
// path would walk B in narrow panels, a row stride apart).

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
// into an accumulator row, four rows of B at a time.
func (j *gemmJob[T]) runGemvAxpy(buf *partBuffers[T], n0, n1 int) {
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
				return
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
	flags := j.epFlags
	for c, s := range acc {
		v := j.alpha * s
		if j.beta != 0 {
			v += j.beta * j.c[n0+c]
		}
		if flags&flagBias != 0 {
			v += j.ep.bias[n0+c]
		}
		if flags&flagReLU != 0 && v < 0 {
			v = 0
		}
		j.c[n0+c] = v
	}
	if j.goAct {
		j.ep.applyAct(j.c[n0:n1])
	}
}

// runGemv computes C(0, n0:n1) = act(alpha·Σp a[p]·B(n,p) + beta·C + bias).
func (j *gemmJob[T]) runGemv(n0, n1 int) {
	g := j.kern
	k, lanes := j.k, g.dotLanes
	kv := k / lanes * lanes
	x := j.a[:k] // A is 1×k: a row, or a column with lda 1
	var out [4 * 16]T
	flags := j.epFlags
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
			v := j.alpha * s
			if j.beta != 0 {
				v += j.beta * j.c[jj+r]
			}
			if flags&flagBias != 0 {
				v += j.ep.bias[jj+r]
			}
			if flags&flagReLU != 0 && v < 0 {
				v = 0
			}
			j.c[jj+r] = v
		}
	}
	if j.goAct {
		j.ep.applyAct(row)
	}
}

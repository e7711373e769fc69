package kiln

// The single-row product with a transposed B, y = x·Bᵀ: each element is the
// dot product of x with a row of B, so B is read once, row by row, in place,
// by a kernel that takes four rows at a time — where the GEMM path would
// first transpose all of B into panels.

// dot4Lanes is the vector width (in float32s) of each level's sdot4 kernel.
var dot4Lanes = map[isaLevel]int{levelAVX512: 16, levelAVX2: 8}

// useGemv reports whether a call takes the dot-product path.
func useGemv[T float](g *gemmKernels[T], transA, transB bool, m, lda int, pb []T) bool {
	return m == 1 && transB && pb == nil && g.dot4 != nil && (!transA || lda == 1)
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
	for jj := n0; jj < n1; jj += 4 {
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

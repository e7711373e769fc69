package kiln

import (
	"fmt"
	"math"
	"math/bits"
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

// s8wPlanesKernel computes, for one row held as planes byte planes of a
// fixed-point integer X (x: ⌈k/4⌉ = groups dwords per plane, interleaved:
// plane p of group g at x[g·planes+p], its four bytes those of X(4g…4g+3)
// offset by 2^(8·planes−1), see s8wSplit) and the panels q < panels of
// int8 weights in quads, C(q·nr+j) = act(float32(float64(S(j))·
// float64(scale[j])·unit) + bias[j]) where S(j) = Σp X(p)·W(p, j), summed
// exactly in integers (sums[j] = Σp W(p, j) removes the offset).
type s8wPlanesKernel func(groups int, x *uint32, w *int8, panels int, sums *int32, unit float64, scale *float32, c *float32, bias *float32, flags uint)

// s8wKernels is a level's int8-weight kernels, for panels nr columns wide:
// the row kernels by row count, and where the level has AVX512_VNNI
// (quads) the weights' layout in quads, the planes' integer kernels by
// plane count and the widening of a panel's quads.
type s8wKernels struct {
	nr     int
	quads  bool
	rows   []s8wRowsKernel
	planes []s8wPlanesKernel
	widen  func(dst *float32, w *int8, groups int)
	// scan and split are s8wSplit's two passes (nil: their twins).
	scan  func(x *float32, n int) (maxLead, minLow int32)
	split func(dst *uint32, x *float32, n int, sc float64, off uint64, tab *uint8, planes int)
}

// The weights' layouts. Rows: a panel is k rows of nr int8, W(p, q·nr+j)
// at p·nr+j. Quads: a panel is ⌈k/4⌉ groups of four rows, column j's four
// bytes together, W(p, q·nr+j) at (p/4)·4·nr + 4·j + p%4 (the last group's
// missing rows zero) — the dword lanes VPDPBUSD multiplies.

// s8wPanelBytes is the bytes of one panel of k rows.
func s8wPanelBytes(quads bool, k, nr int) int {
	if quads {
		return (k + 3) / 4 * 4 * nr
	}
	return k * nr
}

// s8wAt is the offset of W(p, j) in a panel of nr columns.
func s8wAt(quads bool, nr, p, j int) int {
	if quads {
		return p/4*4*nr + 4*j + p%4
	}
	return p*nr + j
}

// s8wTwin is the pure-Go twin of the row kernels, for weights in the
// layout quads says.
func s8wTwin(rows, nr int, quads bool) s8wRowsKernel {
	return func(k int, a *float32, lda int, w *int8, panels int, scale *float32, c *float32, ldc int, bias *float32, flags uint) {
		pb := s8wPanelBytes(quads, k, nr)
		as := unsafe.Slice(a, (rows-1)*lda+k)
		ws := unsafe.Slice(w, panels*pb)
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
							odd = fma32(as[i*lda+p], float32(ws[q*pb+s8wAt(quads, nr, p, j)]), odd)
						} else {
							acc = fma32(as[i*lda+p], float32(ws[q*pb+s8wAt(quads, nr, p, j)]), acc)
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

// s8wTwins returns the twins of the kernels for panels nr wide in a
// layout: the generic level's kernels, and those that run weights packed
// for a level other than the active one.
func s8wTwins(nr int, quads bool) *s8wKernels {
	key := [2]int{nr, 0}
	if quads {
		key[1] = 1
	}
	if s, ok := s8wTwinSets.Load(key); ok {
		return s.(*s8wKernels)
	}
	s := &s8wKernels{nr: nr, quads: quads, rows: make([]s8wRowsKernel, s8wRowsMax+1)}
	for r := 1; r <= s8wRowsMax; r++ {
		s.rows[r] = s8wTwin(r, nr, quads)
	}
	if quads {
		s.widen = s8wWidenQuadsTwin(nr)
	}
	got, _ := s8wTwinSets.LoadOrStore(key, s)
	return got.(*s8wKernels)
}

var s8wTwinSets sync.Map // [2]int{nr, quads} → *s8wKernels

// rowsKernels returns the level's int8-weight kernels (the twins where it
// has none).
func (t *kernelTable) rowsKernels() *s8wKernels {
	if t.s8w != nil {
		return t.s8w
	}
	return s8wTwins(16, false)
}

// s8wPlanesTwin is the pure-Go twin of the planes kernels: the same
// integer sums (wrapping as the kernels' do), combined and scaled in the
// same float64 operations.
func s8wPlanesTwin(planes, nr int) s8wPlanesKernel {
	return func(groups int, x *uint32, w *int8, panels int, sums *int32, unit float64, scale *float32, c *float32, bias *float32, flags uint) {
		pb := groups * 4 * nr
		xs := unsafe.Slice(x, groups*planes)
		ws := unsafe.Slice(w, panels*pb)
		ss := unsafe.Slice(sums, panels*nr)
		sc := unsafe.Slice(scale, panels*nr)
		cs := unsafe.Slice(c, panels*nr)
		var bs []float32
		if flags&flagBias != 0 {
			bs = unsafe.Slice(bias, panels*nr)
		}
		for q := 0; q < panels; q++ {
			for j := 0; j < nr; j++ {
				col := q*nr + j
				var sum int64
				for p := 0; p < planes; p++ {
					var sp int32
					for g := 0; g < groups; g++ {
						d := xs[g*planes+p]
						for t := 0; t < 4; t++ {
							sp += int32(uint8(d>>(8*t))) * int32(ws[q*pb+g*4*nr+4*j+t])
						}
					}
					sum += int64(sp) << (8 * p)
				}
				sum -= int64(ss[col]) << (8*planes - 1)
				y := float32(float64(sum) * (float64(sc[col]) * unit))
				if bs != nil {
					y += bs[col]
				}
				if flags&flagReLU != 0 && y <= 0 {
					y = 0 // XLA's max(x, 0): +0 for -0 too; NaN kept
				}
				cs[col] = y
			}
		}
	}
}

// s8wWidenQuadsTwin is the pure-Go twin of the quads' widening.
func s8wWidenQuadsTwin(nr int) func(dst *float32, w *int8, groups int) {
	return func(dst *float32, w *int8, groups int) {
		ds := unsafe.Slice(dst, groups*4*nr)
		ws := unsafe.Slice(w, groups*4*nr)
		for g := 0; g < groups; g++ {
			for t := 0; t < 4; t++ {
				for j := 0; j < nr; j++ {
					ds[(4*g+t)*nr+j] = float32(ws[g*4*nr+4*j+t])
				}
			}
		}
	}
}

// s8wSplitLen is the dwords s8wSplit writes for k elements.
func s8wSplitLen(k int) int { return (k+3)/4*s8wPlanesMax + 16 }

// s8wSplit writes the row x (k = len(x) floats) for the planes kernels:
// X = x·2^s, the exact integer the fewest planes hold (s the least that
// makes every element an integer), offset by 2^(8·planes−1) and cut into
// byte planes (plane p of group g at dst[g·planes+p], its byte t that of
// element 4g+t; the last group's missing elements are X = 0). It returns
// the plane count and unit = 2^−s, or ok false where x has no such form
// in at most maxPlanes planes — a NaN, an infinity, a spread of
// magnitudes wider than the planes hold — or the integer sums could
// overflow (the int32 plane sums when k > 2^16, the int64 total when
// 2^7·Σ|X| ≥ 2^62). dst holds s8wSplitLen(k) dwords; ks gives the passes.
func s8wSplit(ks *s8wKernels, dst []uint32, x []float32, maxPlanes int) (planes int, unit float64, ok bool) {
	k := len(x)
	if k > 1<<16 || len(dst) < s8wSplitLen(k) {
		return 0, 0, false
	}
	scan, split := s8wScanTwin, s8wSplitTwin
	if ks.scan != nil {
		scan, split = ks.scan, ks.split
	}
	maxLead, minLow := scan(&x[0], k)
	if maxLead > s8wFiniteLead {
		return 0, 0, false
	}
	s, magnitude := 0, 0 // |X| < 2^magnitude
	if minLow != s8wNoLow {
		s = 150 - int(minLow)
		magnitude = int(maxLead-minLow) + 1
	}
	planes = max(1, (magnitude+8)/8) // magnitude ≤ 8·planes − 1
	if planes > maxPlanes {
		return 0, 0, false
	}
	sc := math.Ldexp(1, s)
	if bits.Len(uint(k))+7+magnitude > 62 {
		var sum float64
		for _, v := range x {
			sum += math.Abs(float64(v))
		}
		if sum*sc >= 0x1p55 {
			return 0, 0, false
		}
	}
	split(&dst[0], &x[0], k, sc, uint64(1)<<(8*planes-1), s8wSplitTables[planes].start(), planes)
	return planes, 1 / sc, true
}

// s8wNoLow is the scan's minLow when every element is zero; past
// s8wFiniteLead a leading bit is an infinity's or a NaN's.
const (
	s8wNoLow      = 1 << 30
	s8wFiniteLead = 254 + 23
)

// s8wScanTwin is the pure-Go twin of the scan: over the nonzero elements
// x = m·2^(e−150), m < 2^24 (subnormals as e = 1 without the implicit
// bit), the greatest weight of a leading bit, e + bitlen(m) − 1 (past
// s8wFiniteLead for an infinity or a NaN), and the least of a lowest set
// bit, e + tz(m); s8wNoLow when every element is zero.
func s8wScanTwin(x *float32, n int) (maxLead, minLow int32) {
	minLow = s8wNoLow
	for _, v := range unsafe.Slice(x, n) {
		b := math.Float32bits(v) & 0x7fffffff
		if b == 0 {
			continue
		}
		e := int32(b >> 23)
		m := b & 0x7fffff
		if e != 0 {
			m |= 1 << 23
		}
		e = max(e, 1)
		maxLead = max(maxLead, e+int32(bits.Len32(m))-1)
		minLow = min(minLow, e+int32(bits.TrailingZeros32(m)))
	}
	return maxLead, minLow
}

// s8wSplitTable is the split kernel's shuffles for one plane count: a
// VPSHUFB index pairing the bytes of each two elements in a 128-bit lane
// (word p of lane L: byte p of elements 2L and 2L+1), and a VPERMW index
// placing the pairs as two groups' planes.
type s8wSplitTable struct {
	shuf [64]uint8
	perm [32]uint16
}

// start is the table as the kernel reads it: the shuffle's 64 bytes, then
// the permutation's.
func (t *s8wSplitTable) start() *uint8 { return &t.shuf[0] }

// s8wSplitTables is the split's shuffles by plane count.
var s8wSplitTables = func() (t [s8wPlanesMax + 1]s8wSplitTable) {
	for planes := range t {
		for i := range t[planes].shuf {
			b := i % 16 // VPSHUFB indexes within the lane
			t[planes].shuf[i] = uint8(b/2 + 8*(b%2))
		}
		for g := 0; g < 2; g++ {
			for p := 0; p < planes; p++ {
				d := g*planes + p
				t[planes].perm[2*d] = uint16(16*g + p)
				t[planes].perm[2*d+1] = uint16(16*g + 8 + p)
			}
		}
	}
	return t
}()

// s8wSplitTwin is the pure-Go twin of the split: dst gets the planes of
// U = x·sc + off for the n elements of x, four elements a group, the last
// group's missing ones U = off, and past the planes of each group what
// the next group's overwrite (tab is the kernel's).
func s8wSplitTwin(dst *uint32, x *float32, n int, sc float64, off uint64, _ *uint8, planes int) {
	xs := unsafe.Slice(x, n)
	groups := (n + 3) / 4
	ds := unsafe.Slice(dst, s8wSplitLen(n))
	fixed := func(i int) uint64 { return uint64(int64(float64(xs[i])*sc)) + off }
	for g := 0; g < groups; g++ {
		var u0, u1, u2, u3 uint64
		if i := 4 * g; i+3 < n {
			u0, u1, u2, u3 = fixed(i), fixed(i+1), fixed(i+2), fixed(i+3)
		} else {
			u := [4]uint64{off, off, off, off}
			for t := range n - i {
				u[t] = fixed(i + t)
			}
			u0, u1, u2, u3 = u[0], u[1], u[2], u[3]
		}
		// Transpose the four elements' bytes into the planes: byte pairs,
		// then 16-bit pairs, each 64-bit word two planes (p, p+4).
		const m8, m16 = 0x00ff00ff00ff00ff, 0x0000ffff0000ffff
		t0 := u0&m8 | (u1&m8)<<8
		t1 := u0>>8&m8 | u1&^m8
		t2 := u2&m8 | (u3&m8)<<8
		t3 := u2>>8&m8 | u3&^m8
		p04 := t0&m16 | (t2&m16)<<16
		p26 := t0>>16&m16 | t2&^m16
		p15 := t1&m16 | (t3&m16)<<16
		p37 := t1>>16&m16 | t3&^m16
		d := ds[g*planes : g*planes+8 : g*planes+8]
		d[0], d[1], d[2], d[3] = uint32(p04), uint32(p15), uint32(p26), uint32(p37)
		d[4], d[5], d[6], d[7] = uint32(p04>>32), uint32(p15>>32), uint32(p26>>32), uint32(p37>>32)
	}
}

// PackedS8Weights is a k×n int8 weight matrix with a float32 scale per
// column, packed once for GemmF32S8: panels of the level's width in its
// layout (s8wAt), the last one padded with zero weights and scales, and
// each column's sum of weights.
type PackedS8Weights struct {
	k, n  int
	nr    int
	quads bool
	level isaLevel
	w     []int8
	scale []float32
	sums  []int32
}

// Bytes is the memory the packed weights, scales and sums hold.
func (p *PackedS8Weights) Bytes() int { return len(p.w) + 4*len(p.scale) + 4*len(p.sums) }

// PackS8Weights packs op(W), a k×n int8 matrix (W, or Wᵀ when transW), and
// the n scales of its columns. It panics on the programmer errors PackB
// panics on, and unless len(scale) = n.
func PackS8Weights(transW bool, k, n int, w []int8, ldw int, scale []float32) *PackedS8Weights {
	checkPack("PackS8Weights", transW, k, n, len(w), ldw)
	if len(scale) != n {
		panic(fmt.Sprintf("kiln: PackS8Weights: len(scale) must be n = %d, found %d", n, len(scale)))
	}
	t := kernels()
	rk := t.rowsKernels()
	nr, quads := rk.nr, rk.quads
	panels := (n + nr - 1) / nr
	pb := s8wPanelBytes(quads, k, nr)
	p := &PackedS8Weights{k: k, n: n, nr: nr, quads: quads, level: t.level, w: make([]int8, panels*pb+64),
		scale: make([]float32, panels*nr), sums: make([]int32, panels*nr)}
	copy(p.scale, scale)
	put := func(pk, j int, x int8) {
		p.w[j/nr*pb+s8wAt(quads, nr, pk, j%nr)] = x
		p.sums[j] += int32(x)
	}
	// Read W along its rows in memory.
	if transW {
		for j := 0; j < n; j++ {
			for pk := 0; pk < k; pk++ {
				put(pk, j, w[j*ldw+pk])
			}
		}
	} else {
		for pk := 0; pk < k; pk++ {
			for j := 0; j < n; j++ {
				put(pk, j, w[pk*ldw+j])
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
	// planes > 0: the row of A split into planes in x (s8wSplit), for the
	// planes kernels; unit = 2^−s.
	planes int
	unit   float64
	x      []uint32
	done   pending
}

// s8wLayoutName names a weights layout in messages.
func s8wLayoutName(quads bool) string {
	if quads {
		return "in quads of rows"
	}
	return "in rows"
}

var s8wJobs = sync.Pool{New: func() any { return new(s8wJob) }}

// GemmF32S8 computes C = act(op(A)·W + ep.Bias) for float32 A (op(A) is
// m×K(), leading dimension lda, transposed when transA) and the int8
// weights of w dequantised, W(p,j) = float32(w(p,j))·scale[j]: C(i,j) =
// act(scale[j]·Σp op(A)(i,p)·float32(w(p,j)) + bias[j]), the float32 dot
// reassociated to scale each sum once. One row of A whose elements are
// exact fixed-point numbers of at most 47 bits (any row without NaNs,
// infinities and subnormals whose magnitudes span less than about 2^23)
// is multiplied exactly in integers where the level has AVX512_VNNI (see
// s8wSplit): the result is then the exact dot, scaled and rounded once.
// It panics on the programmer errors Sgemm panics on, or when w was packed
// for another level's panels (pack again after SetISA).
func GemmF32S8(transA bool, m int, a []float32, lda int, w *PackedS8Weights, c []float32, ldc int, ep Epilogue) {
	checkLowp("GemmF32S8", transA, m, w.k, w.n, len(a), lda, len(c), ldc)
	checkEpilogue("GemmF32S8", w.n, ep)
	t := kernels()
	if rk := t.rowsKernels(); rk.nr != w.nr || rk.quads != w.quads {
		panic(fmt.Sprintf("kiln: GemmF32S8: the weights were packed for the %s kernels' panels (%d columns, %s), the %s kernels read %d columns, %s; pack them again after SetISA",
			w.level, w.nr, s8wLayoutName(w.quads), t.level, rk.nr, s8wLayoutName(rk.quads)))
	}
	if m == 0 || w.n == 0 {
		return
	}
	j := s8wJobs.Get().(*s8wJob)
	*j = s8wJob{m: m, transA: transA, a: a, lda: lda, w: w, c: c, ldc: ldc, ep: epilogue32(ep), t: t, scratch: j.scratch, tiles: j.tiles, x: j.x}
	j.flags, j.goAct = j.ep.kernelFlags()
	j.rowsPath = m <= s8wRowsMax && !transA && w.k > 0
	if rk := t.rowsKernels(); j.rowsPath && m == 1 && !j.goAct && rk.planes != nil {
		if n := s8wSplitLen(w.k); cap(j.x) < n {
			j.x = make([]uint32, n)
		}
		j.x = j.x[:s8wSplitLen(w.k)]
		if p, unit, ok := s8wSplit(rk, j.x, a[:w.k], len(rk.planes)-1); ok {
			j.planes, j.unit = p, unit
		}
	}
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
	pb := s8wPanelBytes(w.quads, k, nr)
	if j.rowsPath && !j.goAct && full > q0 {
		rk := j.t.rowsKernels()
		var bias *float32
		if j.ep.bias != nil {
			bias = &j.ep.bias[q0*nr]
		}
		if j.planes > 0 {
			rk.planes[j.planes]((k+3)/4, &j.x[0], &w.w[q0*pb], full-q0, &w.sums[q0*nr], j.unit, &w.scale[q0*nr], &j.c[q0*nr], bias, j.flags)
		} else {
			rk.rows[j.m](k, &j.a[0], j.lda, &w.w[q0*pb], full-q0, &w.scale[q0*nr], &j.c[q0*nr], j.ldc, bias, j.flags)
		}
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
	pb := s8wPanelBytes(w.quads, k, nr)
	buf := grow(j.scratch[p], max(pb, nr)+maxNR)
	j.scratch[p] = buf
	mr := g.mr
	tile := grow(j.tiles[p], mr*maxNR)
	j.tiles[p] = tile
	var wideA []float32
	rowMajor := g.rowMajor != nil && !j.transA
	for q := q0; q < q1; q++ {
		if w.quads {
			if k > 0 {
				j.t.rowsKernels().widen(&buf[0], &w.w[q*pb], (k+3)/4)
			}
		} else {
			for pk := 0; pk < k; pk++ {
				S8ToF32(buf[pk*nr:pk*nr+nr], w.w[q*pb+pk*nr:q*pb+pk*nr+nr])
			}
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

// s8wPlanesMax is the most planes the planes kernels take (gen's
// s8wPlanesMax): beyond it their dot products cost more than widening the
// weights to float32.
const s8wPlanesMax = 6

// opA returns element (i, p) of op(A).
func opA[T any](a []T, lda int, transA bool, i, p int) T {
	if transA {
		return a[p*lda+i]
	}
	return a[i*lda+p]
}

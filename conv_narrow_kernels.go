package kiln

import (
	"math"
	"unsafe"
)

// dwNarrowKernel is dwKernel for bfloat16 or binary16 input and output
// (their bits, uint16) with float32 weights: it computes n tiles of rows
// output pixels × vecs vectors of channels of a depthwise convolution,
//
//	c[i*ldc+j] = round(Σ_t widen(a[aoff + tab[2t] + i*lda + j])·w[tab[2t+1] + j]),
//
// accumulated in float32 over the taps in table order and rounded once to
// nearest even, with XLA's conversion rules (convert.go), tile m moved on
// from tile 0 by m·rows·lda input and m·rows·ldc output elements. With
// flagPartial only the lanes of the last vector enabled in mask are read
// and written; no other flag applies. Row kernels (dwNarrowRowTiles) take a
// table of whole rows of k taps, as dwRowTiles.
type dwNarrowKernel func(n, taps int, tab *int, a *uint16, aoff, lda int, w *float32, c *uint16, ldc int, mask *int32, flags uint)

// dwNarrowTiles is the narrow depthwise kernels of one vector count by pixel count.
type dwNarrowTiles struct {
	vecs int
	rows []dwNarrowKernel
}

func (t dwNarrowTiles) maxRows() int { return len(t.rows) - 1 }

// dwNarrowRowTiles is the narrow depthwise kernels for kernel rows of k
// taps at unit stride, by pixel count (see dwRowTiles).
type dwNarrowRowTiles struct {
	k, vecs int
	rows    []dwNarrowKernel
}

func (t dwNarrowRowTiles) maxRows() int { return len(t.rows) - 1 }

// dwNarrowSet is one level's narrow depthwise kernels of one element type.
type dwNarrowSet struct {
	lanes int // float32 elements per vector
	// masked reports that the kernels honour flagPartial; without it the
	// driver gives partial channel blocks to the Go twin.
	masked bool
	dw     []dwNarrowTiles
	dwRow  []dwNarrowRowTiles
	// pairRow, when not nil, is the bfloat16 row kernels of whole blocks
	// of 32 channels that take the weights in pair order (pairWeights).
	pairRow *dwPairRowTiles
}

// dwPairKernel is a bfloat16 row kernel of whole blocks of 32 channels
// (dwNarrowRowTiles' kernel without a partial block): each of the n tiles
// computes blocks consecutive blocks of 32 channels, one after another,
// the input, the weights' columns and the output moving on by 32 elements
// from one block to the next, before the next tile.
type dwPairKernel func(n, taps int, tab *int, a *uint16, aoff, lda int, w *float32, c *uint16, ldc int, blocks int)

// dwPairRowTiles is the pair row kernels for kernel rows of k taps at
// unit stride, by pixel count.
type dwPairRowTiles struct {
	k    int
	rows []dwPairKernel
}

func (t dwPairRowTiles) maxRows() int { return len(t.rows) - 1 }

// pairBlock is the channels of one block of the pair kernels.
const pairBlock = 32

// pairWeights returns depthwise weights (taps rows of co channels) with
// each whole block of 32 channels in the order the pair kernels widen the
// input: for each 128-bit lane L of a 64-byte vector of 32 bfloat16
// values, channels 8L…8L+3 go to the first float32 vector's lane L and
// 8L+4…8L+7 to the second's (VPUNPCKLWD and VPUNPCKHWD).
func pairWeights(w []float32, taps, co int) []float32 {
	pw := make([]float32, len(w))
	pairWeightsInto(pw, w, taps, co)
	return pw
}

// pairWeightsInto is pairWeights into pw (of w's length).
func pairWeightsInto(pw, w []float32, taps, co int) {
	copy(pw, w)
	for t := 0; t < taps; t++ {
		for c0 := 0; c0+pairBlock <= co; c0 += pairBlock {
			row := w[t*co+c0 : t*co+c0+pairBlock]
			out := pw[t*co+c0 : t*co+c0+pairBlock]
			for l := 0; l < 16; l++ {
				out[l] = row[8*(l/4)+l%4]
				out[16+l] = row[8*(l/4)+4+l%4]
			}
		}
	}
}

// dwNarrowKernels is one level's narrow depthwise kernels.
type dwNarrowKernels struct {
	bf16, f16 *dwNarrowSet
}

// tiles returns the index of the per-tap kernels of vecs vectors, or -1.
func (s *dwNarrowSet) tiles(vecs int) int {
	for i, t := range s.dw {
		if t.vecs == vecs {
			return i
		}
	}
	return -1
}

// rowTiles returns the index of the row kernels of k taps and vecs
// vectors, or -1.
func (s *dwNarrowSet) rowTiles(k, vecs int) int {
	for i, t := range s.dwRow {
		if t.k == k && t.vecs == vecs {
			return i
		}
	}
	return -1
}

// twinDWNarrowKernels is the narrow depthwise kernels of a level without
// assembly ones: the Go twins, in the tiles of its float32 kernels.
func twinDWNarrowKernels(k *convKernels) *dwNarrowKernels {
	set := func(bf16 bool) *dwNarrowSet {
		s := &dwNarrowSet{lanes: k.lanes, masked: true}
		for _, t := range k.dw {
			ks := make([]dwNarrowKernel, len(t.rows))
			for r := 1; r < len(t.rows); r++ {
				ks[r] = twinDWNarrowKernel(r, t.vecs*k.lanes, k.lanes, bf16)
			}
			s.dw = append(s.dw, dwNarrowTiles{vecs: t.vecs, rows: ks})
		}
		return s
	}
	return &dwNarrowKernels{bf16: set(true), f16: set(false)}
}

func twinDWNarrowKernel(rows, width, lanes int, bf16 bool) dwNarrowKernel {
	return func(n, taps int, tab *int, a *uint16, aoff, lda int, w *float32, c *uint16, ldc int, mask *int32, flags uint) {
		cols := width
		if flags&flagPartial != 0 {
			cols = width - lanes + convMaskWidth(mask, lanes)
		}
		for m := 0; m < n; m++ {
			dwNarrowTwin(rows, cols, taps, tab, a, aoff+m*rows*lda, lda, w, narrowAt(c, m*rows*ldc), ldc, bf16)
		}
	}
}

// narrowAt returns p moved on by off elements.
func narrowAt(p *uint16, off int) *uint16 {
	return (*uint16)(unsafe.Add(unsafe.Pointer(p), off*2))
}

// narrowElems returns the n elements at p + off (off in elements, ≥ 0).
func narrowElems(p *uint16, off, n int) []uint16 {
	return unsafe.Slice(narrowAt(p, off), n)
}

// dwNarrowTwin computes one tile of rows pixels × cols channels of a narrow
// depthwise convolution (see dwNarrowKernel): the pure-Go twin of the
// kernels, and the path of the channels no vector kernel covers.
func dwNarrowTwin(rows, cols, taps int, tab *int, a *uint16, aoff, lda int, w *float32, c *uint16, ldc int, bf16 bool) {
	var t []int
	if taps > 0 {
		t = unsafe.Slice(tab, 2*taps)
	}
	var acc [64]float32
	for i := 0; i < rows; i++ {
		for c0 := 0; c0 < cols; c0 += len(acc) {
			n := min(len(acc), cols-c0)
			row := acc[:n]
			clear(row)
			for q := 0; q < taps; q++ {
				ws := convElems(w, t[2*q+1]+c0, n)
				xs := narrowElems(a, aoff+t[2*q]+i*lda+c0, n)
				for j, wv := range ws {
					row[j] += widenNarrow(xs[j], bf16) * wv
				}
			}
			out := narrowElems(c, i*ldc+c0, n)
			for j, v := range row {
				out[j] = roundNarrow(v, bf16)
			}
		}
	}
}

// widenNarrow is the float32 value of bfloat16 or binary16 bits.
func widenNarrow(x uint16, bf16 bool) float32 {
	if bf16 {
		return math.Float32frombits(uint32(x) << 16)
	}
	return f16ToF32(x)
}

// roundNarrow rounds f to bfloat16 or binary16 bits.
func roundNarrow(f float32, bf16 bool) uint16 {
	if bf16 {
		return f32ToBF16(f)
	}
	return f32ToF16(f)
}

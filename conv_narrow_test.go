package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// narrowRand returns n random narrow values (bits) of about unit size, with
// NaN and ±Inf at a few places when special is set.
func narrowRand(r *rand.Rand, n int, bf16, special bool) []uint16 {
	return narrowRandScaled(r, n, bf16, special, 1)
}

// narrowRandScaled is narrowRand with the values multiplied by scale
// (subnormal results for a small one).
func narrowRandScaled(r *rand.Rand, n int, bf16, special bool, scale float64) []uint16 {
	s := make([]uint16, n)
	for i := range s {
		s[i] = roundNarrow(float32(r.NormFloat64()*scale), bf16)
	}
	if special && n > 0 {
		inf, nan := f32ToF16(float32(math.Inf(1))), uint16(0x7e01)
		if bf16 {
			inf, nan = f32ToBF16(float32(math.Inf(1))), 0x7fc1
		}
		s[r.IntN(n)] = nan
		s[r.IntN(n)] = inf
		s[r.IntN(n)] = inf | 0x8000
	}
	return s
}

// narrowDepthwiseRef is the definition: each output the float32 sum, in
// row-major tap order, of its valid taps' products, each product rounded
// to float32 (as XLA's evaluator), rounded once to the narrow type; with
// the sum of the products' magnitudes, which bounds the error of another
// order of additions or of fused multiply-adds.
func narrowDepthwiseRef(x []uint16, w []float32, c, h, wd, kh, kw, stride, pad int, bf16 bool) (y []uint16, mag []float64, oh, ow int) {
	if h+2*pad >= kh && wd+2*pad >= kw {
		oh, ow = (h+2*pad-kh)/stride+1, (wd+2*pad-kw)/stride+1
	}
	y = make([]uint16, oh*ow*c)
	mag = make([]float64, len(y))
	for i := 0; i < oh; i++ {
		for j := 0; j < ow; j++ {
			for ch := 0; ch < c; ch++ {
				var s float32
				var m float64
				for p := 0; p < kh; p++ {
					for q := 0; q < kw; q++ {
						yi, xj := i*stride-pad+p, j*stride-pad+q
						if yi < 0 || yi >= h || xj < 0 || xj >= wd {
							continue
						}
						prod := float32(widenNarrow(x[(yi*wd+xj)*c+ch], bf16) * w[(p*kw+q)*c+ch])
						s += prod
						m += math.Abs(float64(prod))
					}
				}
				y[(i*ow+j)*c+ch] = roundNarrow(s, bf16)
				mag[(i*ow+j)*c+ch] = m
			}
		}
	}
	return
}

// narrowClose reports whether got is want up to one unit in the last place
// of the narrow type and the float32 rounding of a sum of magnitude mag.
func narrowClose(got, want uint16, mag float64, bf16 bool) bool {
	g, w := float64(widenNarrow(got, bf16)), float64(widenNarrow(want, bf16))
	if math.IsNaN(g) || math.IsNaN(w) {
		return math.IsNaN(g) && math.IsNaN(w)
	}
	if math.IsInf(w, 0) || math.IsInf(g, 0) {
		return g == w
	}
	// The relative spacing of normal values, and the spacing of subnormals.
	ulp, sub := 0x1p-7, 0x1p-133
	if !bf16 {
		ulp, sub = 0x1p-10, 0x1p-24
	}
	return math.Abs(g-w) <= ulp*math.Abs(w)+1e-6*mag+sub
}

// TestConvNarrowAgainstReference runs ConvBF16 and ConvF16 at every
// runnable level over channel counts at every vector tail, small and odd
// images, padding 0 and 1, strides 1 and 2, kernels 3×3, 1×3 and 5×5, with
// NaN and ±Inf in the input, against the definition.
func TestConvNarrowAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 41))
	channels := []int{1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 256}
	sizes := [][2]int{{1, 1}, {2, 2}, {3, 3}, {5, 5}, {7, 5}, {4, 13}}
	kernels := [][2]int{{3, 3}, {1, 3}, {5, 5}}
	if testing.Short() {
		channels = []int{1, 17, 64}
	}
	forEachLevel(t, func(level string) {
		for _, bf16 := range []bool{true, false} {
			run := func(c, h, wd, kh, kw, stride, pad int, special bool, scale, zeros float64) {
				name := fmt.Sprintf("%s bf16=%v c=%d %dx%d kernel %dx%d stride %d pad %d special=%v scale=%g zeros=%g", level, bf16, c, h, wd, kh, kw, stride, pad, special, scale, zeros)
				x := narrowRandScaled(r, h*wd*c, bf16, special, scale)
				for i := range x {
					if r.Float64() < zeros {
						x[i] = 0
					}
				}
				w := make([]float32, kh*kw*c)
				for i := range w {
					w[i] = widenNarrow(roundNarrow(float32(r.NormFloat64()), bf16), bf16)
				}
				pc, err := PackConv(w, ConvParams{InChannels: c, OutChannels: c, Kernel: []int{kh, kw}, Strides: []int{stride, stride},
					PadLow: []int{pad, pad}, PadHigh: []int{pad, pad}, Groups: c})
				if err != nil {
					t.Fatal(err)
				}
				want, mag, oh, ow := narrowDepthwiseRef(x, w, c, h, wd, kh, kw, stride, pad, bf16)
				got := make([]uint16, len(want)+3)
				for i := range got {
					got[i] = 0x1234
				}
				if bf16 {
					ConvBF16(got, x, 1, []int{h, wd}, pc, nil)
				} else {
					ConvF16(got, x, 1, []int{h, wd}, pc, nil)
				}
				for i := range want {
					if !narrowClose(got[i], want[i], mag[i], bf16) {
						t.Fatalf("%s: output (%d, %d) channel %d = %#04x (%v), want %#04x (%v)", name, i/c/ow, i/c%ow, i%c,
							got[i], widenNarrow(got[i], bf16), want[i], widenNarrow(want[i], bf16))
					}
				}
				for i := len(want); i < len(got); i++ {
					if got[i] != 0x1234 {
						t.Fatalf("%s: element %d past the output (%d×%d×%d) was written", name, i, oh, ow, c)
					}
				}
			}
			for _, c := range channels {
				for _, s := range sizes {
					for _, k := range kernels {
						for _, stride := range []int{1, 2} {
							for _, pad := range []int{0, 1} {
								run(c, s[0], s[1], k[0], k[1], stride, pad, false, 1, 0)
							}
						}
					}
				}
			}
			for _, c := range []int{32, 33, 256} {
				run(c, 56, 56, 3, 3, 1, 1, false, 1, 0)
				run(c, 56, 56, 3, 3, 1, 1, true, 1, 0)
				run(c, 17, 23, 3, 3, 2, 1, true, 1, 0)
				// Subnormal results, which VCVTNEPS2BF16 would flush to zero.
				tiny := 0x1p-130
				if !bf16 {
					tiny = 0x1p-18
				}
				run(c, 7, 9, 3, 3, 1, 1, false, tiny, 0)
				// Zero sums (all nine inputs zero) beside others, and beside
				// subnormal ones: the stores that test for flushed words.
				run(c, 9, 13, 3, 3, 1, 1, false, 1, 0.8)
				run(c, 9, 13, 3, 3, 1, 1, true, tiny, 0.8)
			}
		}
	})
}

// TestDepthwiseNarrowKernelsAgainstTwin runs every narrow depthwise kernel
// of every runnable level, for every row count, full and partial last
// vectors (where the level masks) and several tiles per call, against the
// Go twin over the same table.
func TestDepthwiseNarrowKernelsAgainstTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tb := range runnable {
		nk := tb.dwNarrow
		if nk == nil {
			continue
		}
		for _, bf16 := range []bool{true, false} {
			s := nk.f16
			if bf16 {
				s = nk.bf16
			}
			check := func(kind string, k int, vecs int, kerns []dwNarrowKernel) {
				width := vecs * s.lanes
				for rows := 1; rows < len(kerns); rows++ {
					lasts := []int{s.lanes}
					if s.masked {
						lasts = append(lasts, 1+r.IntN(s.lanes-1))
					}
					for _, last := range lasts {
						for _, kernelRows := range []int{0, 1, 3} {
							n := width - s.lanes + last
							name := fmt.Sprintf("%s %s bf16=%v k=%d %d pixels × %d channels, n=%d, %d kernel rows", tb.level, kind, bf16, k, rows, width, n, kernelRows)
							checkDWNarrowKernel(t, name, r, kerns[rows], 1+(rows+kernelRows)%3, rows, width, s.lanes, n, max(k, 1), kernelRows, bf16, false)
						}
					}
				}
			}
			for _, d := range s.dw {
				check("per-tap", 0, d.vecs, d.rows)
			}
			for _, d := range s.dwRow {
				check("row", d.k, d.vecs, d.rows)
			}
			if pr := s.pairRow; pr != nil {
				for rows := 1; rows <= pr.maxRows(); rows++ {
					for _, kernelRows := range []int{0, 1, 3} {
						// One block of 32 channels, and several: each
						// tile computes its blocks one after another.
						for _, blocks := range []int{1, 2, 3} {
							name := fmt.Sprintf("%s pair row bf16 k=%d %d pixels, %d kernel rows, %d blocks", tb.level, pr.k, rows, kernelRows, blocks)
							kern := func(n, taps int, tab *int, a *uint16, aoff, lda int, w *float32, c *uint16, ldc int, _ *int32, _ uint) {
								pr.rows[rows](n, taps, tab, a, aoff, lda, w, c, ldc, blocks)
							}
							width := blocks * pairBlock
							checkDWNarrowKernel(t, name, r, kern, 1+(rows+kernelRows)%3, rows, width, s.lanes, width, pr.k, kernelRows, bf16, true)
						}
					}
				}
			}
		}
	}
}

// checkDWNarrowKernel runs kern over a table of kernelRows rows of k taps
// (rows of one tap for the per-tap kernels) and compares it with the twin;
// pairs: the kernel takes the weights in pair order (pairWeights).
func checkDWNarrowKernel(t *testing.T, name string, r *rand.Rand, kern dwNarrowKernel, tiles, rows, width, lanes, n, k, kernelRows int, bf16, pairs bool) {
	t.Helper()
	lda, ldc := width+5, width+3
	taps := k * kernelRows
	tab := make([]int, 2*taps)
	span := (tiles*rows + k - 1) * lda
	aSize, wSize := 1, 1
	for q := 0; q < kernelRows; q++ {
		for kw := 0; kw < k; kw++ {
			tab[2*(q*k+kw)] = 11 + q*(span+3) + kw*lda
			tab[2*(q*k+kw)+1] = (q*k + kw) * (width + 1)
		}
		aSize = 11 + q*(span+3) + span
		wSize = (q*k+k-1)*(width+1) + n
	}
	a := narrowRand(r, aSize, bf16, true)
	w := make([]float32, wSize)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	outLen := (tiles*rows-1)*ldc + width + 2
	got, want := make([]uint16, outLen), make([]uint16, outLen)
	for i := range got {
		got[i], want[i] = 0x1234, 0x1234
	}
	var mask *int32
	var flags uint
	if n < width {
		mask, flags = &edgeMasks[maxNR-(n-(width-lanes))], flagPartial
	}
	tp := &tab0
	if taps > 0 {
		tp = &tab[0]
	}
	kw := w
	if pairs {
		// Each tap's weights start at a multiple of width+1: lay them out
		// as rows of width+1 channels, in pair order within each row.
		kw = pairWeights(append(w, make([]float32, (width+1)-len(w)%(width+1))...), len(w)/(width+1)+1, width+1)
	}
	kern(tiles, taps, tp, &a[0], -11, lda, &kw[0], &got[0], ldc, mask, flags)
	for m := 0; m < tiles; m++ {
		dwNarrowTwin(rows, n, taps, tp, &a[0], -11+m*rows*lda, lda, &w[0], &want[m*rows*ldc], ldc, bf16)
	}
	for i := range got {
		// A bfloat16 NaN keeps its bits: the input's NaNs share theirs,
		// and a rounding of a sum's NaN that quiets it as the hardware
		// does, not as XLA's rule does, would show here.
		if bf16 && got[i]&0x7fff > 0x7f80 && got[i] != want[i] {
			t.Fatalf("%s: c[%d] (pixel %d channel %d) = NaN %#04x, twin gives %#04x", name, i, i/ldc, i%ldc, got[i], want[i])
		}
		// The products of normal values rarely exceed 16 in magnitude.
		if !narrowClose(got[i], want[i], 16*float64(taps), bf16) {
			t.Fatalf("%s: c[%d] (pixel %d channel %d) = %#04x, twin gives %#04x", name, i, i/ldc, i%ldc, got[i], want[i])
		}
	}
}

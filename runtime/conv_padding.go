package runtime

import "math"

// Padding taps with weights that are not finite. XLA's convolution (its
// evaluator, and ir/eval after it) adds up only the window taps that fall
// on the input: a tap on the padding contributes nothing, whatever its
// weight. The im2col path multiplies such taps as zeros, which is the same
// sum while every weight is finite, but 0·Inf and 0·NaN are NaN. When a run
// has a weight that is not finite, the output pixels whose windows reach
// into the padding are computed again over their valid taps only.

// pads reports whether the convolution has padding.
func (s *convStep) pads() bool {
	for i := range s.g.PadLow {
		if s.g.PadLow[i] > 0 || s.g.PadHigh[i] > 0 {
			return true
		}
	}
	return false
}

// allFinite reports whether every value of w is finite.
func allFinite(w []float32) bool {
	for _, v := range w {
		if math.IsInf(float64(v), 0) || v != v {
			return false
		}
	}
	return true
}

// skipPaddingTaps recomputes, for every image, the output pixels whose
// window has a tap on the padding, as sums over the taps on the input.
func (s *convStep) skipPaddingTaps(x, y, w []float32, batch int) {
	g := s.g
	ns := len(g.In)
	ci, co := g.InChannels, g.OutChannels
	inImage := prod(g.In) * ci
	var oBuf, kBuf [8]int
	o, kk := oBuf[:ns], kBuf[:ns]
	taps := prod(g.Kernel)
	for b := 0; b < batch; b++ {
		xb, yb := x[b*inImage:], y[b*s.pixels*co:]
		clear(o)
		for p := 0; p < s.pixels; p++ {
			if s.reachesPadding(o) {
				out := yb[p*co : (p+1)*co]
				clear(out)
				clear(kk)
				for t := 0; t < taps; t++ {
					if off, inside := s.tapOffset(o, kk); inside {
						xs := xb[off*ci : (off+1)*ci]
						ws := w[t*ci*co : (t+1)*ci*co]
						for c, xv := range xs {
							row := ws[c*co : (c+1)*co]
							for j, wv := range row {
								out[j] += xv * wv
							}
						}
					}
					nextIndex(g.Kernel, kk)
				}
			}
			nextIndex(g.Out, o)
		}
	}
}

// reachesPadding reports whether the window of output pixel o has a tap
// outside the input.
func (s *convStep) reachesPadding(o []int) bool {
	g := s.g
	for d := range o {
		lo := o[d]*g.Strides[d] - g.PadLow[d]
		hi := lo + (g.Kernel[d]-1)*g.Dilation[d]
		if lo < 0 || hi >= g.In[d] {
			return true
		}
	}
	return false
}

// tapOffset is the input pixel (row-major over the spatial dimensions) that
// tap kk of output pixel o reads, and whether it is inside the input.
func (s *convStep) tapOffset(o, kk []int) (int, bool) {
	g := s.g
	off := 0
	for d := range o {
		i := o[d]*g.Strides[d] - g.PadLow[d] + kk[d]*g.Dilation[d]
		if i < 0 || i >= g.In[d] {
			return 0, false
		}
		off = off*g.In[d] + i
	}
	return off, true
}

// nextIndex advances a row-major index over dims.
func nextIndex(dims, idx []int) {
	for d := len(idx) - 1; d >= 0; d-- {
		idx[d]++
		if idx[d] < dims[d] {
			return
		}
		idx[d] = 0
	}
}

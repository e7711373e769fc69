package kiln

import "fmt"

// PlaneWork is the memory DepthwisePlane needs for a kernel of some number
// of taps: the kernels' tap table and each tap's weight spread over a
// vector tile. One goroutine uses one at a time.
type PlaneWork struct {
	tab []int
	wv  []float32
}

// NewPlaneWork returns the work memory of DepthwisePlane for up to taps
// taps.
func NewPlaneWork(taps int) *PlaneWork {
	return &PlaneWork{tab: make([]int, 2*taps), wv: make([]float32, taps*maxNR)}
}

// DepthwisePlane computes rows × cols outputs of the depthwise convolution
// of one padded plane at unit stride (an NCHW channel):
//
//	y[r·ldy + c] = Σ_t x[r·ldx + c + taps[t]]·w[t],
//
// summed over the taps in order from +0 with one fused multiply-add each,
// in registers: the output columns are the vector lanes, each tap one
// load and one multiply-add per vector (the depthwise convolution kernels,
// the tap's weight spread over the lanes). x must hold every element the
// taps read.
func DepthwisePlane(y []float32, ldy int, x []float32, ldx, rows, cols int, taps []int, w []float32, work *PlaneWork) {
	nt := len(taps)
	switch {
	case rows < 0 || cols < 0 || ldy < cols || ldx < cols:
		panic(fmt.Sprintf("kiln: DepthwisePlane: %d×%d outputs with ldy %d and ldx %d", rows, cols, ldy, ldx))
	case len(w) < nt || work == nil || len(work.tab) < 2*nt || len(work.wv) < nt*maxNR:
		panic(fmt.Sprintf("kiln: DepthwisePlane: %d taps, %d weights, work for fewer taps", nt, len(w)))
	case rows == 0 || cols == 0:
		return
	}
	if len(y) < (rows-1)*ldy+cols {
		panic(fmt.Sprintf("kiln: DepthwisePlane: len(y) = %d, %d×%d outputs at ldy %d need %d", len(y), rows, cols, ldy, (rows-1)*ldy+cols))
	}
	hi := 0
	for _, t := range taps {
		if t < 0 {
			panic(fmt.Sprintf("kiln: DepthwisePlane: tap offset %d is negative", t))
		}
		hi = max(hi, t)
	}
	if need := (rows-1)*ldx + cols + hi; len(x) < need {
		panic(fmt.Sprintf("kiln: DepthwisePlane: len(x) = %d, the taps read %d elements", len(x), need))
	}
	if nt == 0 {
		for r := 0; r < rows; r++ {
			clear(y[r*ldy : r*ldy+cols])
		}
		return
	}
	tab, wv := work.tab[:2*nt], work.wv[:nt*maxNR]
	for t, off := range taps {
		tab[2*t], tab[2*t+1] = off, t*maxNR
		for j := t * maxNR; j < (t+1)*maxNR; j++ {
			wv[j] = w[t]
		}
	}
	k := kernels().conv
	for c0 := 0; c0 < cols; {
		// The widest tile the columns left fill at least partly.
		set := len(k.dw) - 1
		for i, d := range k.dw {
			if width := d.vecs * k.lanes; cols-c0 > width-k.lanes || i == len(k.dw)-1 {
				set = i
				break
			}
		}
		d := k.dw[set]
		width := d.vecs * k.lanes
		n := min(width, cols-c0)
		var mask *int32
		flags := uint(0)
		if n < width {
			if !k.masked {
				// Kernels without masks: the twin for the last columns.
				for r := 0; r < rows; r++ {
					dwTwin(1, n, n, nt, &tab[0], &x[0], c0+r*ldx, ldx, &wv[0], &y[r*ldy+c0], ldy, nil, nil, nil, 0)
				}
				break
			}
			mask, flags = &edgeMasks[maxNR-(n-(width-k.lanes))], flagPartial
		}
		mr := d.maxRows()
		if full := rows / mr; full > 0 {
			d.rows[mr](full, nt, &tab[0], &x[0], c0, ldx, &wv[0], &y[c0], ldy, nil, nil, mask, flags)
		}
		if rem := rows % mr; rem > 0 {
			r0 := rows - rem
			d.rows[rem](1, nt, &tab[0], &x[0], c0+r0*ldx, ldx, &wv[0], &y[r0*ldy+c0], ldy, nil, nil, mask, flags)
		}
		c0 += n
	}
}

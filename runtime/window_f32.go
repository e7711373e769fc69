package runtime

// The float32 pooling path of reduce-window: a standard reducer over a
// window without base dilation, folded pass by pass with the vector
// kernels; every output still folds its taps in window order, as ir/ops
// defines reduce-window.

import (
	"slices"

	"github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// reduceWindowF32Step is a float32 reduce-window with a standard reducer
// and no base dilation (pooling). It fills the output with the init value,
// then, for each window offset in row-major window order, folds the shifted
// input block into the outputs that offset reaches: every output still
// folds its taps in window order, as the evaluator does, and each pass is a
// strided loop over contiguous rows. When the window does not reach across
// the outermost dimension (a batch of images), the images are split into
// parts that run on the workers, each with passes of its own.
type reduceWindowF32Step struct {
	in, init, out loc
	op            ir.Opcode
	swap          bool
	parts         []windowPart
	threads       int
	// round, when set, rounds every fold's results to that narrow float
	// type (a bfloat16 or binary16 sum pooling), through roundBuf:
	// roundChunk 16-bit elements per worker.
	round    ir.ElementType
	roundBuf loc
}

// roundChunk is the elements a rounding converts at a time.
const roundChunk = 256

// runRounding rounds runs of float32 values to a narrow float type in
// place, through a buffer of its bits.
type runRounding struct {
	t   ir.ElementType
	buf []uint16
}

// run rounds x in place.
func (rd *runRounding) run(x []float32) {
	for len(x) > 0 {
		n := min(len(x), len(rd.buf))
		b := rd.buf[:n]
		if rd.t == ir.BF16 {
			kiln.F32ToBF16(b, x[:n])
			kiln.BF16ToF32(x[:n], b)
		} else {
			kiln.F32ToF16(b, x[:n])
			kiln.F16ToF32(x[:n], b)
		}
		x = x[n:]
	}
}

// windowPart is the outputs [outLo, outHi) of a reduce-window and the passes
// that fold them.
type windowPart struct {
	outLo, outHi int
	passes       []ops.Strided // per window offset: out (dst) ← in (src) block
	// When every pass has the same shape and strides (no padding clips
	// them), dOffs and sOffs are their bases relative to the first pass's,
	// and the passes are folded tile by tile (foldPassesF32).
	dOffs, sOffs []int
}

// sharePasses sets the part's offsets when its passes differ only in their
// bases.
func (pt *windowPart) sharePasses() {
	if len(pt.passes) < 2 {
		return
	}
	p0 := &pt.passes[0]
	for i := range pt.passes {
		q := &pt.passes[i]
		if !slices.Equal(q.Dims, p0.Dims) || !slices.Equal(q.Dst, p0.Dst) || !slices.Equal(q.Src, p0.Src) {
			return
		}
	}
	for i := range pt.passes {
		q := &pt.passes[i]
		pt.dOffs = append(pt.dOffs, q.DstBase-p0.DstBase)
		pt.sOffs = append(pt.sOffs, q.SrcBase-p0.SrcBase)
	}
}

// minWindowSplit is the least number of input elements per part worth one
// more thread.
const minWindowSplit = 1 << 16

func newReduceWindowF32(w *ir.Window, base, out []int, op ir.Opcode, swap bool, in, init, outLoc loc, threads int) *reduceWindowF32Step {
	for _, wd := range w.Dims {
		if wd.BaseDilation > 1 {
			return nil
		}
	}
	size := 1
	for _, wd := range w.Dims {
		size *= wd.Size
	}
	if size > 1<<16 {
		return nil
	}
	s := &reduceWindowF32Step{in: in, init: init, out: outLoc, op: op, swap: swap, threads: threads}
	parts := 1
	if len(base) > 0 {
		d0 := w.Dims[0]
		if d0.Size == 1 && max(d0.Stride, 1) == 1 && d0.PadLow == 0 && d0.PadHigh == 0 && max(d0.WindowDilation, 1) == 1 {
			parts = max(1, min(threads, base[0], prod(base)/minWindowSplit))
		}
	}
	if parts == 1 {
		s.parts = []windowPart{{outLo: 0, outHi: prod(out), passes: windowPasses(w, base, out, 0, 0)}}
		s.parts[0].sharePasses()
		return s
	}
	// Image ranges: the window maps output image i to input image i.
	inImage, outImage := prod(base[1:]), prod(out[1:])
	b, o := slices.Clone(base), slices.Clone(out)
	for p := range parts {
		lo, hi := p*base[0]/parts, (p+1)*base[0]/parts
		b[0], o[0] = hi-lo, hi-lo
		s.parts = append(s.parts, windowPart{outLo: lo * outImage, outHi: hi * outImage,
			passes: windowPasses(w, b, o, lo*inImage, lo*outImage)})
		s.parts[p].sharePasses()
	}
	return s
}

// windowPasses returns the passes of a reduce-window of an input of shape
// base, at element inOff of the operand, into outputs of shape out, at
// element outOff of the result: one strided block per window offset that
// reaches an output, in row-major window order.
func windowPasses(w *ir.Window, base, out []int, inOff, outOff int) []ops.Strided {
	rank := len(base)
	xs, os := ops.Strides(base), ops.Strides(out)
	sizes := make([]int, rank)
	for d, wd := range w.Dims {
		sizes[d] = wd.Size
	}
	var passes []ops.Strided
	var k [ops.MaxRank]int
	for n := prod(sizes); n > 0; n-- {
		dims := make([]int, rank)
		inBase, outBase := inOff, outOff
		empty := false
		for d, wd := range w.Dims {
			stride, dil := max(wd.Stride, 1), max(wd.WindowDilation, 1)
			off := k[d]*dil - wd.PadLow // input index of output 0
			// Outputs o with 0 <= o*stride + off < base[d].
			lo := 0
			if off < 0 {
				lo = (-off + stride - 1) / stride
			}
			hi := out[d]
			if last := base[d] - 1 - off; last < 0 {
				hi = 0
			} else {
				hi = min(hi, last/stride+1)
			}
			if hi <= lo {
				empty = true
				break
			}
			dims[d] = hi - lo
			outBase += lo * os[d]
			inBase += (lo*stride + off) * xs[d]
		}
		if !empty {
			src := make([]int, rank)
			for d, wd := range w.Dims {
				src[d] = xs[d] * max(wd.Stride, 1)
			}
			passes = append(passes, ops.NewStrided(4, dims, os, src, outBase, inBase))
		}
		ir.NextIndex(sizes, k[:rank])
	}
	return passes
}

func (s *reduceWindowF32Step) name() string { return "reduce-window-f32" }

func (s *reduceWindowF32Step) exec(fr *frame) error {
	parallelFor(fr, &fr.task, s, len(s.parts), s.threads)
	return nil
}

// part fills and folds the outputs of part p.
func (s *reduceWindowF32Step) part(fr *frame, p, w int) {
	out, x := f32s(fr.bytes(s.out)), f32s(fr.bytes(s.in))
	pt := &s.parts[p]
	init := f32s(fr.bytes(s.init))[0]
	for i := pt.outLo; i < pt.outHi; i++ {
		out[i] = init
	}
	var rd *runRounding
	if s.round != 0 {
		rd = &runRounding{t: s.round, buf: ops.Elems[uint16](fr.bytes(s.roundBuf))[w*roundChunk : (w+1)*roundChunk]}
	}
	if pt.dOffs != nil {
		q := &pt.passes[0]
		foldPassesF32(s.op, s.swap, rd, out, x, q.Dims, q.Dst, q.Src, pt.dOffs, pt.sOffs, q.DstBase, q.SrcBase)
		return
	}
	for i := range pt.passes {
		q := &pt.passes[i]
		foldBlockF32(s.op, s.swap, rd, out, x, q.Dims, q.Dst, q.Src, q.DstBase, q.SrcBase)
	}
}

// foldBlockF32 folds x into out over a strided block: out[d] = f(out[d],
// x[s]) (f(x[s], out[d]) when swapped), the innermost dimension as a run,
// each result rounded by rd when it is not nil.
func foldBlockF32(op ir.Opcode, swap bool, rd *runRounding, out, x []float32, dims, ds, ss []int, db, sb int) {
	foldPassesF32(op, swap, rd, out, x, dims, ds, ss, []int{0}, []int{0}, db, sb)
}

// foldPassesF32 folds several blocks of the same shape and strides, at the
// bases db+dOffs[i] and sb+sOffs[i], tile by tile: at each position of the
// outer dimensions it folds the tile (the two innermost dimensions) of every
// block in turn, so that a pooling's output row stays in L1 while all its
// window offsets are folded into it, each output still in window order.
func foldPassesF32(op ir.Opcode, swap bool, rd *runRounding, out, x []float32, dims, ds, ss, dOffs, sOffs []int, db, sb int) {
	rank := len(dims)
	if rank == 0 {
		for i := range dOffs {
			o := out[db+dOffs[i] : db+dOffs[i]+1]
			o[0] = applyF32Op(op, swap, o[0], x[sb+sOffs[i]])
			if rd != nil {
				rd.run(o)
			}
		}
		return
	}
	t := windowTile{op: op, swap: swap, rd: rd, inner: dims[rank-1], di: ds[rank-1], si: ss[rank-1], rows: 1}
	// The two innermost dimensions run in place; the counter walks the rest.
	outerRank := rank - 1
	if rank >= 2 {
		t.rows, t.dr, t.sr = dims[rank-2], ds[rank-2], ss[rank-2]
		outerRank = rank - 2
	}
	// Contiguous runs of a vector or more fold all the rows in one call.
	t.vectorRows = t.di == 1 && t.si == 1 && !swap && t.inner >= minVectorRun && t.dr >= t.inner && t.sr >= t.inner
	var idx [ops.MaxRank]int
	d, s := db, sb
	for {
		for i := range dOffs {
			t.fold(out, x, d+dOffs[i], s+sOffs[i])
		}
		k := outerRank - 1
		for ; k >= 0; k-- {
			idx[k]++
			d += ds[k]
			s += ss[k]
			if idx[k] < dims[k] {
				break
			}
			d -= dims[k] * ds[k]
			s -= dims[k] * ss[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// windowTile is the two innermost dimensions of a fold: rows of inner
// elements.
type windowTile struct {
	op               ir.Opcode
	swap, vectorRows bool
	rd               *runRounding // rounds each fold's results, when not nil
	rows, inner      int
	dr, sr, di, si   int
}

// fold folds the tile at out[d…] ← x[s…].
func (t *windowTile) fold(out, x []float32, d, s int) {
	rows, inner, dr, sr, di, si := t.rows, t.inner, t.dr, t.sr, t.di, t.si
	if t.vectorRows {
		foldRowsF32(t.op, out[d:d+(rows-1)*dr+inner], x[s:s+(rows-1)*sr+inner], rows, inner, dr, sr)
		if t.rd != nil {
			for r, dd := 0, d; r < rows; r, dd = r+1, dd+dr {
				t.rd.run(out[dd : dd+inner])
			}
		}
		return
	}
	for r, dd, sd := 0, d, s; r < rows; r, dd, sd = r+1, dd+dr, sd+sr {
		if di == 1 && si == 1 && !t.swap {
			foldRunF32(t.op, out[dd:dd+inner], x[sd:sd+inner])
		} else {
			for j, dj, sj := 0, dd, sd; j < inner; j, dj, sj = j+1, dj+di, sj+si {
				out[dj] = applyF32Op(t.op, t.swap, out[dj], x[sj])
			}
		}
		if t.rd != nil {
			if di == 1 {
				t.rd.run(out[dd : dd+inner])
				continue
			}
			for j, dj := 0, dd; j < inner; j, dj = j+1, dj+di {
				t.rd.run(out[dj : dj+1])
			}
		}
	}
}

// minVectorRun is the shortest run that folds go to the vector kernels
// (foldRunF32, and the row kernels for a tile's rows): one AVX-512 vector,
// below which the call costs more than the scalar loop.
const minVectorRun = 16

// foldRowsF32 folds rows of x into rows of out (see kiln.MaximumRows).
func foldRowsF32(op ir.Opcode, out, x []float32, rows, cols, ldo, ldx int) {
	switch op {
	case ir.OpAdd:
		kiln.AddRows(out, x, rows, cols, ldo, ldx)
	case ir.OpMultiply:
		kiln.MulRows(out, x, rows, cols, ldo, ldx)
	case ir.OpMaximum:
		kiln.MaximumRows(out, x, rows, cols, ldo, ldx)
	default:
		kiln.MinimumRows(out, x, rows, cols, ldo, ldx)
	}
}

// foldRunF32 folds a contiguous run: o[j] = f(o[j], v[j]). Runs of a vector
// or more (the channels of an NHWC pooling window's row) go to the vector
// kernels, whose maximum and minimum are XLA's; shorter ones to Go's max and
// min, which are XLA's too (a NaN operand gives NaN, -0 < +0) and compile
// without branches.
func foldRunF32(op ir.Opcode, o, v []float32) {
	v = v[:len(o)]
	if len(o) >= minVectorRun {
		switch op {
		case ir.OpAdd:
			kiln.Add(o, o, v)
		case ir.OpMultiply:
			kiln.Mul(o, o, v)
		case ir.OpMaximum:
			kiln.Maximum(o, o, v)
		default:
			kiln.Minimum(o, o, v)
		}
		return
	}
	switch op {
	case ir.OpAdd:
		for j, b := range v {
			o[j] += b
		}
	case ir.OpMultiply:
		for j, b := range v {
			o[j] *= b
		}
	case ir.OpMaximum:
		for j, b := range v {
			o[j] = max(o[j], b)
		}
	default:
		for j, b := range v {
			o[j] = min(o[j], b)
		}
	}
}

// applyF32Op is a standard float32 reducer step f(acc, x), or f(x, acc)
// when swapped (which matters only for which NaN maximum/minimum return).
func applyF32Op(op ir.Opcode, swap bool, acc, x float32) float32 {
	if swap {
		acc, x = x, acc
	}
	switch op {
	case ir.OpAdd:
		return acc + x
	case ir.OpMultiply:
		return acc * x
	case ir.OpMaximum:
		return maxF32(acc, x)
	}
	return minF32(acc, x)
}

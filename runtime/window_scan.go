package runtime

// The float32 path of reduce-window as a prefix scan (JAX's cumsum,
// cummax, cumprod: a window that covers every element up to the output's
// own along one dimension). Each output is the previous output folded with
// one more element, the same folds in the same order as the window's, so
// the scan is one pass over the operand instead of one window per output.

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// scanF32Step is a float32 prefix scan with a standard reducer: lines of n
// elements, inner apart, in outer blocks.
type scanF32Step struct {
	in, init, out   loc
	op              ir.Opcode
	swap            bool
	outer, n, inner int
	parts, threads  int
}

// minScanSplit is the least number of elements per part worth one more
// thread.
const minScanSplit = 1 << 15

func newScanF32(p *ops.ReduceWindowPlan, f *ops.Reducer, in, init, out loc, threads int) *scanF32Step {
	outer, n, inner, ok := p.Scan()
	if !ok {
		return nil
	}
	s := &scanF32Step{in: in, init: init, out: out, op: f.Op, swap: f.Swapped, outer: outer, n: n, inner: inner, threads: threads}
	s.parts = max(1, min(threads, outer*inner/minVectorRun, outer*n*inner/minScanSplit))
	return s
}

func (s *scanF32Step) name() string { return "reduce-window-scan" }

func (s *scanF32Step) exec(fr *frame) error {
	parallelFor(fr, &fr.task, s, s.parts, s.threads)
	return nil
}

// part scans the lines of part p: a range of outer blocks, or of columns
// when there is one block.
func (s *scanF32Step) part(fr *frame, p, _ int) {
	out, x := f32s(fr.bytes(s.out)), f32s(fr.bytes(s.in))
	init := f32s(fr.bytes(s.init))[0]
	oLo, oHi, cLo, cHi := 0, s.outer, 0, s.inner
	if s.outer >= s.parts {
		oLo, oHi = p*s.outer/s.parts, (p+1)*s.outer/s.parts
	} else {
		cLo, cHi = p*s.inner/s.parts, (p+1)*s.inner/s.parts
	}
	block := s.n * s.inner
	for o := oLo; o < oHi; o++ {
		base := o * block
		if s.inner == 1 {
			s.line(out[base:base+s.n], x[base:base+s.n], init)
			continue
		}
		// A row of columns at a time: row i is row i-1 folded with x's.
		cols := cHi - cLo
		for i := 0; i < s.n; i++ {
			r := base + i*s.inner + cLo
			dst, src := out[r:r+cols], x[r:r+cols]
			if i == 0 {
				for j := range dst {
					dst[j] = init
				}
			} else {
				copy(dst, out[r-s.inner:r-s.inner+cols])
			}
			if s.swap || cols < minVectorRun {
				for j := range dst {
					dst[j] = applyF32Op(s.op, s.swap, dst[j], src[j])
				}
				continue
			}
			foldRunF32(s.op, dst, src)
		}
	}
}

// line scans one contiguous line.
func (s *scanF32Step) line(out, x []float32, acc float32) {
	x = x[:len(out)]
	switch {
	case s.swap:
		for i, v := range x {
			acc = applyF32Op(s.op, true, acc, v)
			out[i] = acc
		}
	case s.op == ir.OpAdd:
		for i, v := range x {
			acc += v
			out[i] = acc
		}
	case s.op == ir.OpMultiply:
		for i, v := range x {
			acc *= v
			out[i] = acc
		}
	case s.op == ir.OpMaximum:
		for i, v := range x {
			acc = maxF32(acc, v)
			out[i] = acc
		}
	default:
		for i, v := range x {
			acc = minF32(acc, v)
			out[i] = acc
		}
	}
}

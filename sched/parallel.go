package sched

import "slices"

// LoopTile is the number of elements a loop kernel computes at a time (the
// runtime's tile, and the unit a loop's parallel parts are made of): small
// enough that a tile's live registers stay in L1, large enough that the
// per-tile overhead and the vector kernels' setup vanish.
const LoopTile = 1024

// minParallelElems is the work below which a kernel runs on one worker:
// waking helpers costs about as much as computing 2^15 elements.
const minParallelElems = 1 << 15

// partsPerThread cuts work into more parts than threads so that a worker
// that starts late, or is slowed by another tenant, finds less left to do.
const partsPerThread = 4

// Batched products are run one per worker when each is too small to split
// across threads itself (below minSplitGemm multiply-adds) and the batch
// holds enough work (minBatchGemm).
const (
	minSplitGemm = 1 << 21
	minBatchGemm = 1 << 20
)

// splitParallel is the parallel stage: it decides how many parts each
// kernel's work is cut into, for Options.Threads workers. Loops split their
// tiles, row kernels and reductions over rows their rows, batched products
// their batch when each product is too small to split itself; GEMM and
// convolution calls split themselves across the kernels' threads.
func splitParallel(s *scheduler) error {
	t := s.opts.Threads
	for _, k := range s.plan.Kernels {
		k.Parallel = 1
		if t <= 1 {
			continue
		}
		switch k.Kind {
		case Loop:
			if k.Loop != nil {
				k.Parallel = loopParts(prod(k.Loop.Dims), t)
			}
		case Reduce:
			if rows, n, ok := reduceRows(k); ok && rows*n >= minParallelElems {
				k.Parallel = min(rows, t*partsPerThread)
			}
		case Softmax, LayerNorm:
			x := k.Root.Args[0].Shape
			if n := lastDim(x.Dims); n > 0 && x.ElementCount() >= minParallelElems {
				k.Parallel = min(x.ElementCount()/n, t*partsPerThread)
			}
		case Dot:
			if g := k.Gemm; g != nil && g.Batch > 1 && g.M*g.N*g.K < minSplitGemm && g.Batch*g.M*g.N*g.K >= minBatchGemm {
				k.Parallel = min(g.Batch, t)
			}
		case Attention:
			a := k.Attn
			tiles := a.Scores.Batch * ((a.Scores.M + a.RowBlock - 1) / a.RowBlock)
			k.Parallel = min(tiles, t*partsPerThread)
		case Conv:
			if c := k.Conv; c != nil && c.Algo == ConvPlanarDepthwise {
				planes := c.Batch * c.InChannels
				if planes*prod(c.Out) >= minParallelElems {
					k.Parallel = min(planes, t*partsPerThread)
				}
			}
		}
	}
	return nil
}

// noSplit replaces the parallel stage when it is disabled: every kernel
// runs as one part.
func noSplit(s *scheduler) error {
	for _, k := range s.plan.Kernels {
		k.Parallel = 1
	}
	return nil
}

// loopParts cuts total elements into parts of whole tiles for t threads.
func loopParts(total, t int) int {
	if total < minParallelElems {
		return 1
	}
	tiles := (total + LoopTile - 1) / LoopTile
	parts := min(tiles, t*partsPerThread)
	perPart := (tiles + parts - 1) / parts * LoopTile
	return (total + perPart - 1) / perPart
}

// reduceRows reports whether a reduction folds rows, its reduced dimensions
// being its operand's innermost ones, and returns the rows (the output's
// elements) and their length.
func reduceRows(k *Kernel) (rows, n int, ok bool) {
	v := k.Root
	if len(v.Args) != 2 {
		return 0, 0, false
	}
	x := v.Args[0].Shape
	nr := len(v.Attrs.Dimensions)
	for d := x.Rank() - nr; d < x.Rank(); d++ {
		if !slices.Contains(v.Attrs.Dimensions, d) {
			return 0, 0, false
		}
	}
	return v.Shape.ElementCount(), prod(x.Dims[x.Rank()-nr:]), true
}

func lastDim(dims []int) int {
	if len(dims) == 0 {
		return 0
	}
	return dims[len(dims)-1]
}

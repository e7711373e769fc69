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
		k.Parallel, k.Threads = 1, t
		if t <= 1 {
			continue
		}
		switch k.Kind {
		case Loop:
			if k.Loop != nil {
				k.Parallel = k.LoopParts(prod(k.Loop.Dims))
			}
		case Reduce:
			if rows, n, ok := reduceRows(k); ok {
				k.Parallel = k.RowParts(rows, n)
			}
		case Softmax, LayerNorm:
			x := k.Root.Args[0].Shape
			if n := lastDim(x.Dims); n > 0 {
				k.Parallel = k.RowParts(x.ElementCount()/n, n)
			}
		case Dot:
			if g := k.Gemm; g != nil {
				k.Parallel = k.BatchParts(g.GemmShape)
			}
		case Attention:
			a := k.Attn
			k.Parallel = k.TileParts(a.Scores.Batch * ((a.Scores.M + a.RowBlock - 1) / a.RowBlock))
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

// The split rules of a kernel, one per kind of work, for the kernel's
// workers (Threads). Parallel is the rule applied to the plan's extents;
// a run whose sizes are below the bounds the plan was made for (run-time
// sizes) applies the same rule to its own extents.

// LoopParts cuts total elements into parts of whole tiles.
func (k *Kernel) LoopParts(total int) int {
	if k.Threads <= 1 {
		return 1
	}
	return loopParts(total, k.Threads)
}

// RowParts splits rows of n elements (row kernels, reductions over rows).
func (k *Kernel) RowParts(rows, n int) int {
	if k.Threads <= 1 || rows*n < minParallelElems {
		return 1
	}
	return max(1, min(rows, k.Threads*partsPerThread))
}

// BatchParts splits a batch of products across workers when each is too
// small to split itself across threads and the batch holds enough work.
func (k *Kernel) BatchParts(g GemmShape) int {
	if k.Threads <= 1 || g.Batch <= 1 || g.M*g.N*g.K >= minSplitGemm || g.Batch*g.M*g.N*g.K < minBatchGemm {
		return 1
	}
	return min(g.Batch, k.Threads)
}

// TileParts splits independent tiles (an attention's row blocks).
func (k *Kernel) TileParts(tiles int) int {
	if k.Threads <= 1 {
		return 1
	}
	return max(1, min(tiles, k.Threads*partsPerThread))
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

package runtime

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// KernelTime is one kernel of the plan with the median time it took per
// run in Profile.
type KernelTime struct {
	Kernel KernelStat
	Time   time.Duration
}

// Profile runs the plan `runs` times on args, timing every kernel of the
// entry plan (subplans count within the while or conditional kernel that
// runs them), and returns the kernels in plan order with their median time.
// It is for finding where time goes; RunInto is the way to run.
func (e *Executable) Profile(ctx context.Context, runs int, outs []*Tensor, args ...*Tensor) ([]KernelTime, error) {
	if len(args) != len(e.params) || len(outs) != len(e.results) {
		return nil, fmt.Errorf("runtime: Profile takes %d arguments and %d result tensors, got %d and %d",
			len(e.params), len(e.results), len(args), len(outs))
	}
	fr, err := e.bind(ctx, outs, args)
	if err != nil {
		return nil, err
	}
	defer e.release(fr)
	steps := e.entry.steps
	samples := make([][]time.Duration, len(steps))
	for r := 0; r < max(runs, 1); r++ {
		for i, s := range steps {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			start := time.Now()
			if err := s.exec(fr); err != nil {
				return nil, err
			}
			samples[i] = append(samples[i], time.Since(start))
		}
	}
	out := make([]KernelTime, len(steps))
	for i := range steps {
		slices.Sort(samples[i])
		out[i] = KernelTime{Kernel: e.stats.Kernels[i], Time: samples[i][len(samples[i])/2]}
	}
	return out, nil
}

package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/kilnml/kiln"
	"github.com/kilnml/kiln/bench"
)

// reportScaling times the selected cases compiled for one thread and for
// two, round by round, with the FMA loop on one goroutine and on two in
// the same rounds, and prints the per-round throughput ratios' medians
// and ranges.
func reportScaling(rounds int, only string) error {
	runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	selected := func(threads int) ([]bench.InferenceCase, error) {
		kiln.SetThreads(threads)
		cases, err := bench.InferenceCases(threads)
		if err != nil {
			return nil, err
		}
		return selectCases(cases, only), nil
	}
	one, err := selected(1)
	if err != nil {
		return err
	}
	two, err := selected(2)
	if err != nil {
		return err
	}
	ratios := make([][]float64, len(one))
	times := make([][2][]float64, len(one))
	var fma []float64
	for r := 0; r < rounds; r++ {
		fmt.Fprintf(os.Stderr, "round %d/%d\n", r+1, rounds)
		kiln.SetThreads(1)
		f1 := fmaRate(1)
		var t1 []float64
		for i := range one {
			t1 = append(t1, one[i].Median())
		}
		kiln.SetThreads(2)
		f2 := fmaRate(2)
		for i := range two {
			t2 := two[i].Median()
			times[i][0] = append(times[i][0], t1[i])
			times[i][1] = append(times[i][1], t2)
			ratios[i] = append(ratios[i], t1[i]/t2)
		}
		fma = append(fma, f2/f1)
	}
	kiln.SetThreads(1)
	span := func(xs []float64) string {
		return fmt.Sprintf("%.2f× (%.2f–%.2f)", median(xs), slices.Min(xs), slices.Max(xs))
	}
	fmt.Printf("# %s, two threads against one, medians over %d rounds (µs); throughput ratios per round\n\n", kiln.Features(), rounds)
	fmt.Println("| case | 1 thread | 2 threads | 2T / 1T (range) | FMA loop 2T / 1T (range) | 2T / 1T where the loop's ≥ 1.8× |")
	fmt.Println("|---|---|---|---|---|---|")
	for i, c := range one {
		var free []float64 // the rounds that had a second core
		for r, f := range fma {
			if f >= 1.8 {
				free = append(free, ratios[i][r])
			}
		}
		fr := "— (no such round)"
		if len(free) > 0 {
			fr = fmt.Sprintf("%s in %d of %d rounds", span(free), len(free), rounds)
		}
		fmt.Printf("| %s | %.1f | %.1f | %s | %s | %s |\n", c.Name, median(times[i][0]), median(times[i][1]), span(ratios[i]), span(fma), fr)
	}
	return nil
}

// fmaRate is the FMA loop's FLOP rate over about 50 ms on g goroutines at
// once (the rate of all together).
func fmaRate(g int) float64 {
	const iters = 1 << 20
	kiln.FMAPeak(iters) // warm up
	var flops int
	start := time.Now()
	for time.Since(start) < 50*time.Millisecond {
		var wg sync.WaitGroup
		per := make([]int, g)
		for i := range g {
			wg.Add(1)
			go func() {
				defer wg.Done()
				per[i] = kiln.FMAPeak(iters)
			}()
		}
		wg.Wait()
		for _, f := range per {
			flops += f
		}
	}
	return float64(flops) / time.Since(start).Seconds()
}

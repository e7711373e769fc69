// Command gemmreport measures Kiln's Sgemm beside its peers with the
// implementations interleaved round by round, so that a shared or throttled
// machine slows them alike, and prints median GFLOP/s with the ratios to the
// FMA peak (measured in the same rounds), OpenBLAS and gonum as a Markdown
// table. By default each window is timed in the process's CPU time, so that
// on a shared machine the time slices given to other tenants do not count
// (their use of shared caches, memory and FP units still does).
//
//	go run ./gemmreport -rounds 15                      # kiln (each level) and gonum
//	OPENBLAS_CORETYPE=SkylakeX go run -tags openblas ./gemmreport   # AVX-512 CPUs
//
// Debian's OpenBLAS picks its kernels from the CPU it detects and falls
// back to SSE3 ("Prescott") kernels on the Intel Xeons it does not know
// (Emerald Rapids): set OPENBLAS_CORETYPE=SkylakeX on any CPU with AVX-512
// (Haswell on AVX2-only ones), as peers/run.sh does.
//
// go test -bench in this module gives the same cases in benchstat's format.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/kilnml/kiln"
	"github.com/kilnml/kiln/bench"
	"golang.org/x/sys/unix"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

type shape struct{ m, n, k int }

func (s shape) String() string { return fmt.Sprintf("%dx%dx%d", s.m, s.n, s.k) }
func (s shape) flops() float64 { return 2 * float64(s.m) * float64(s.n) * float64(s.k) }

var shapes = []shape{
	{64, 64, 64}, {128, 128, 128}, {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048},
	{1, 768, 768}, {1, 4096, 4096}, {8, 768, 3072}, {32, 768, 3072}, {128, 768, 768}, {512, 512, 2048},
	// The encoder layer's feed-forward products and the MLP's first layer
	// at batch 64 (M×N×K).
	{128, 3072, 768}, {128, 768, 3072}, {64, 512, 784}, {64, 784, 512},
}

// impl is one contender for one shape: setup selects it (ISA level,
// threads), run does one call.
type impl struct {
	name  string
	setup func()
	run   func()
}

func main() {
	rounds := flag.Int("rounds", 11, "interleaved rounds per shape; the median is reported")
	window := flag.Duration("window", 20*time.Millisecond, "time each contender runs per round")
	threadList := flag.String("threads", "1,2", "thread counts")
	only := flag.String("shapes", "", "comma-separated shapes (MxNxK) to run instead of all")
	clock := flag.String("clock", "cpu", "cpu: time windows in this process's CPU time divided by the threads, so that other tenants' time slices do not count; wall: elapsed time")
	flag.Parse()
	useCPUClock = *clock == "cpu"

	var threads []int
	for _, t := range strings.Split(*threadList, ",") {
		var n int
		fmt.Sscan(t, &n)
		threads = append(threads, n)
	}
	levels := kiln.ISALevels()
	fmt.Printf("# Sgemm, median GFLOP/s over %d interleaved rounds of %v (%s clock); %s\n\n", *rounds, *window, *clock, kiln.Features())
	header := []string{"shape", "thr", "FMA peak"}
	for _, l := range levels {
		if l != "generic" {
			header = append(header, "kiln "+l, "kiln "+l+" packed")
		}
	}
	header = append(header, "gonum")
	for _, p := range bench.Peers {
		header = append(header, p.Name)
	}
	header = append(header, "best kiln / peak", "/ gonum")
	if len(bench.Peers) > 0 {
		header = append(header, "/ "+bench.Peers[0].Name)
	}
	fmt.Println("| " + strings.Join(header, " | ") + " |")
	fmt.Println("|" + strings.Repeat("---|", len(header)))

	for _, s := range shapes {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), s.String()) {
			continue
		}
		r := rand.New(rand.NewPCG(1, 2))
		fill := func(n int) []float32 {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.Float64()*2 - 1)
			}
			return x
		}
		a, b, c := fill(s.m*s.k), fill(s.k*s.n), fill(s.m*s.n)
		packed := map[string]*kiln.PackedB{}
		for _, l := range levels {
			kiln.SetISA(l)
			packed[l] = kiln.PackB(false, s.k, s.n, b, s.n)
		}
		for _, t := range threads {
			setThreads := func(l string) func() {
				return func() {
					kiln.SetISA(l)
					kiln.SetThreads(t)
					runtime.GOMAXPROCS(max(2, t))
				}
			}
			var impls []impl
			impls = append(impls, impl{name: "peak", setup: setThreads(levels[0]), run: func() { peakRun(t) }})
			for _, l := range levels {
				if l == "generic" {
					continue
				}
				pb := packed[l]
				impls = append(impls,
					impl{"kiln " + l, setThreads(l), func() { kiln.Sgemm(false, false, s.m, s.n, s.k, 1, a, s.k, b, s.n, 0, c, s.n) }},
					impl{"kiln " + l + " packed", setThreads(l), func() { kiln.SgemmPacked(false, s.m, 1, a, s.k, pb, 0, c, s.n) }})
			}
			impls = append(impls, impl{"gonum", func() { runtime.GOMAXPROCS(t) }, func() {
				gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, s.m, s.n, s.k, 1, a, s.k, b, s.n, 0, c, s.n)
			}})
			for _, p := range bench.Peers {
				impls = append(impls, impl{p.Name, func() { p.SetThreads(t); runtime.GOMAXPROCS(2) }, func() { p.Sgemm(s.m, s.n, s.k, a, b, c) }})
			}
			res := measure(impls, s.flops(), *rounds, *window, t)
			row := []string{s.String(), fmt.Sprint(t), f1(res["peak"])}
			best := 0.0
			for _, l := range levels {
				if l == "generic" {
					continue
				}
				row = append(row, f1(res["kiln "+l]), f1(res["kiln "+l+" packed"]))
				if l == levels[0] {
					best = max(res["kiln "+l], res["kiln "+l+" packed"])
				}
			}
			row = append(row, f1(res["gonum"]))
			for _, p := range bench.Peers {
				row = append(row, f1(res[p.Name]))
			}
			row = append(row, fmt.Sprintf("%.2f", best/res["peak"]), fmt.Sprintf("%.1f×", best/res["gonum"]))
			if len(bench.Peers) > 0 {
				row = append(row, fmt.Sprintf("%.2f×", best/res[bench.Peers[0].Name]))
			}
			fmt.Println("| " + strings.Join(row, " | ") + " |")
		}
	}
	os.Stdout.Sync()
}

func f1(x float64) string { return fmt.Sprintf("%.1f", x) }

const peakIters = 1 << 14

// peakRun runs the FMA loop on t goroutines at once.
func peakRun(t int) {
	done := make(chan int, t)
	for w := 0; w < t; w++ {
		go func() { done <- kiln.FMAPeak(peakIters) }()
	}
	for w := 0; w < t; w++ {
		<-done
	}
}

// measure runs every contender for window in each round, in turn, and
// returns each one's median GFLOP/s.
func measure(impls []impl, flops float64, rounds int, window time.Duration, threads int) map[string]float64 {
	rates := map[string][]float64{}
	for _, im := range impls { // warm up: first-touch, pools, caches
		im.setup()
		im.run()
	}
	for r := 0; r < rounds; r++ {
		for _, im := range impls {
			im.setup()
			work := flops
			if im.name == "peak" {
				work = peakFlops(threads)
			}
			start := now(threads)
			n := 0
			for now(threads)-start < window.Seconds() || n == 0 {
				im.run()
				n++
			}
			rates[im.name] = append(rates[im.name], work*float64(n)/(now(threads)-start)/1e9)
		}
	}
	med := map[string]float64{}
	for k, v := range rates {
		slices.Sort(v)
		med[k] = v[len(v)/2]
	}
	return med
}

// useCPUClock selects now's clock.
var useCPUClock bool

// now is the time in seconds by the chosen clock: the process's CPU time
// divided by the threads at work (the time the call would take on that many
// cores of its own), or the wall clock.
func now(threads int) float64 {
	if !useCPUClock {
		return float64(time.Now().UnixNano()) * 1e-9
	}
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts)
	return (float64(ts.Sec) + float64(ts.Nsec)*1e-9) / float64(threads)
}

// peakFlops is the work of one peakRun at the chosen level: FMAPeak(1)
// runs one iteration and returns its operation count.
func peakFlops(threads int) float64 {
	return float64(threads) * float64(kiln.FMAPeak(1)) * peakIters
}

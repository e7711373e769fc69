package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"time"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

func init() {
	register(&command{
		name: "bench",
		summary: "bench FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--fill-elided] [--inputs N] [--runs N] [--threads N] [--json] [--profile]\n" +
			"                 compile once, run many times; print compile time, latency percentiles, throughput and allocations",
		run: runBench,
	})
}

// benchOptions are the parsed arguments of kiln bench.
type benchOptions struct {
	moduleArgs
	json    bool
	profile bool
	runs    int // 0: as many as fit in about a second
	threads int // 0: the default (GOMAXPROCS)
	inputs  int // -1: every parameter not bound by --weights is a run-time argument
}

const benchUsage = "kiln bench FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--fill-elided] [--inputs N] [--runs N] [--threads N] [--json] [--profile] [--timeout DURATION] [--memory-limit BYTES]"

const benchAbout = `
Compiles the module once and runs it many times, printing the compile time,
latency percentiles, throughput (and GFLOP/s where the FLOPs of its dots and
convolutions are known) and allocations per run; --json prints the same as one
JSON object.

Parameters are given as for kiln run (--arg, --npy, --weights); those left over
get deterministic values (the ones kiln examples uses). With --inputs N only the
first N of them are passed at run time; the rest are bound at compile time, as
weights are. Tuple parameters are passed as their array leaves.

Exit status: 0 on success, 1 on an error, 124 when --timeout stops the
command, 130 on SIGINT, 143 on SIGTERM.`

func parseBenchArgs(args []string, stdout io.Writer) (benchOptions, error) {
	o := benchOptions{inputs: -1}
	fs := newFlagSet("bench", strings.TrimPrefix(benchUsage, "kiln "), benchAbout)
	o.register(fs)
	fs.BoolVar(&o.json, "json", false, "print the results as one JSON object")
	fs.BoolVar(&o.profile, "profile", false, "also time each kernel of the plan (medians)")
	fs.Var(countFlag{&o.runs, 1}, "runs", "timed runs (default: as many as take about a second)")
	fs.Var(countFlag{&o.threads, 1}, "threads", "threads for the kernels (default: GOMAXPROCS)")
	fs.Var(countFlag{&o.inputs, 0}, "inputs", "pass only the first N free parameters at run time; bind the rest at compile time")
	err := parseModuleFlags(fs, args, &o.moduleArgs, stdout, strings.TrimPrefix(benchUsage, "kiln "))
	return o, err
}

// benchResult is what `kiln bench` measures; --json prints it as one object.
type benchResult struct {
	File      string  `json:"file"`
	Threads   int     `json:"threads"`
	CompileMS float64 `json:"compile_ms"`
	Runs      int     `json:"runs"`
	P50US     float64 `json:"p50_us"`
	P90US     float64 `json:"p90_us"`
	P99US     float64 `json:"p99_us"`
	MinUS     float64 `json:"min_us"`
	MeanUS    float64 `json:"mean_us"`
	RunsPerS  float64 `json:"runs_per_s"`
	// GFLOP is the work of one run in dots and convolutions, GFLOPS the rate
	// at the mean latency; both are 0 when the module's FLOPs are not known.
	Profile      []kernelTime `json:"profile,omitempty"`
	GFLOP        float64      `json:"gflop"`
	GFLOPS       float64      `json:"gflops"`
	AllocsPerRun float64      `json:"allocs_per_run"`
	BytesPerRun  float64      `json:"bytes_per_run"`
	// Arguments is the number of tensors each run takes; Bound names the
	// parameters fixed at compile time (by --weights, or by --inputs).
	Arguments int      `json:"arguments"`
	Bound     []string `json:"bound_parameters"`
	Kernels   int      `json:"kernels"`
	// ReferenceKernels counts kernels run by the reference evaluator (slow,
	// and allocating).
	ReferenceKernels int `json:"reference_kernels"`
}

// runBench compiles the module once and runs it many times. Parameters not
// bound by --weights take the --arg and --npy values in order, and those
// left over get the deterministic values `kiln examples` uses. With
// --inputs N only the first N of them are passed at run time; the rest are
// bound at compile time like weights.
func runBench(args []string, stdout, stderr io.Writer) error {
	o, err := parseBenchArgs(args, stdout)
	if err != nil {
		return err
	}
	// Read under the limits, as kiln run does (--fill-elided allocates).
	return o.runLimited(func(ctx context.Context) error {
		m, err := readModule(o.moduleArgs)
		if err != nil {
			return err
		}
		return bench(ctx, m, o, stdout)
	})
}

func bench(ctx context.Context, m *ir.Module, o benchOptions, stdout io.Writer) error {
	var w *weightFile
	var err error
	if o.weights != "" {
		if w, err = loadWeightFile(m, o.weights); err != nil {
			return err
		}
	}
	params := m.Entry.Parameters
	lits, err := entryArguments(m, o.moduleArgs, w, deterministicFill(m, o.file))
	if err != nil {
		return err
	}
	if o.threads > 0 {
		defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(o.threads))
		defer kiln.SetThreads(kiln.SetThreads(o.threads))
	}
	opts := []runtime.Option{runtime.WithMemoryLimit(int64(o.memoryLimit))}
	if o.threads > 0 {
		opts = append(opts, runtime.WithThreads(o.threads))
	}
	res := benchResult{File: o.file, Threads: kiln.Threads(), Bound: []string{}}
	if w != nil {
		opts = append(opts, runtime.WithWeights(w.tensors))
	}
	var runArgs []*runtime.Tensor
	free := 0
	for i, p := range params {
		switch {
		case boundBy(w, i):
			res.Bound = append(res.Bound, p.Name)
		case o.inputs >= 0 && free >= o.inputs && p.Shape.IsArray():
			opts = append(opts, runtime.WithParameter(i, runtime.TensorFromLiteral(lits[i])))
			res.Bound = append(res.Bound, p.Name)
		default:
			leaves, err := arrayLeaves(p, lits[i])
			if err != nil {
				return err
			}
			for _, l := range leaves {
				runArgs = append(runArgs, runtime.TensorFromLiteral(l))
			}
			free++
		}
	}
	if o.inputs > free {
		return fmt.Errorf("--inputs %d: %s has only %d parameters not bound by --weights", o.inputs, o.file, free)
	}

	start := time.Now()
	exe, err := runtime.Compile(m, opts...)
	if err != nil {
		return err
	}
	res.CompileMS = float64(time.Since(start).Nanoseconds()) / 1e6
	if err := checkBoundByRuntime(exe, runArgs, w); err != nil {
		return err
	}
	res.Arguments = len(runArgs)
	st := exe.Stats()
	res.Kernels = len(st.Kernels)
	for _, k := range st.Kernels {
		if k.Impl == "reference" {
			res.ReferenceKernels++
		}
	}

	outs := make([]*runtime.Tensor, len(exe.ResultShapes()))
	for i, s := range exe.ResultShapes() {
		if outs[i], err = runtime.NewTensor(s); err != nil {
			return err
		}
	}
	times, allocs, bytes, err := timeRuns(ctx, exe, outs, runArgs, o.runs)
	if err != nil {
		return err
	}
	res.Runs = len(times)
	var total time.Duration
	for _, t := range times {
		total += t
	}
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	res.P50US, res.P90US, res.P99US = us(percentile(times, 50)), us(percentile(times, 90)), us(percentile(times, 99))
	res.MinUS = us(slices.Min(times))
	res.MeanUS = us(total) / float64(len(times))
	res.RunsPerS = float64(len(times)) / total.Seconds()
	res.AllocsPerRun = allocs
	res.BytesPerRun = bytes
	if f, ok := moduleFLOPs(m); ok && f > 0 {
		res.GFLOP = f / 1e9
		res.GFLOPS = res.GFLOP * res.RunsPerS
	}
	if o.profile {
		prof, err := exe.Profile(ctx, min(max(o.runs, 10), 100), outs, runArgs...)
		if err != nil {
			return err
		}
		for _, k := range prof {
			res.Profile = append(res.Profile, kernelTime{Kernel: k.Kernel.String(), US: us(k.Time)})
		}
	}
	if o.json {
		return json.NewEncoder(stdout).Encode(res)
	}
	printBench(stdout, res)
	if o.profile {
		printProfile(stdout, res.Profile, res.P50US)
	}
	return nil
}

// kernelTime is one kernel's median time in `kiln bench --profile`.
type kernelTime struct {
	Kernel string  `json:"kernel"`
	US     float64 `json:"us"`
}

// printProfile prints the kernels from the slowest, with their share of the
// summed time, and why the sum is not the latency.
func printProfile(w io.Writer, ks []kernelTime, p50 float64) {
	total := 0.0
	for _, k := range ks {
		total += k.US
	}
	sorted := slices.Clone(ks)
	slices.SortStableFunc(sorted, func(a, b kernelTime) int { return cmp.Compare(b.US, a.US) })
	fmt.Fprintf(w, "kernels (median per run, slowest first; %.1f µs in all, p50 latency %.1f µs):\n", total, p50)
	for _, k := range sorted {
		fmt.Fprintf(w, "  %10.1f µs %5.1f%%  %s\n", k.US, 100*k.US/max(total, 1e-9), k.Kernel)
	}
	fmt.Fprintf(w, "note: the sum differs from the latency: each kernel's time is its own median, timed alone around\n"+
		"  its call (a clock read before and after each), and the sum of medians is not the median of the sums;\n"+
		"  a run also takes a frame and binds its arguments before the first kernel, and the profile leaves\n"+
		"  that out; a while or conditional kernel counts the subplans it runs.\n")
}

// deterministicFill returns the values of m's entry parameters that
// kiln examples uses, seeded by the file's base name without its suffix (a
// tuple parameter's leaves are seeded by their position), refusing one
// larger than the literal limit (the memory limit) by name.
func deterministicFill(m *ir.Module, file string) func(i int) (*ir.Literal, error) {
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	return func(i int) (*ir.Literal, error) {
		p := m.Entry.Parameters[i]
		var fill func(s ir.Shape, seed uint64) (*ir.Literal, error)
		fill = func(s ir.Shape, seed uint64) (*ir.Literal, error) {
			if s.IsTuple() {
				elems := make([]*ir.Literal, len(s.Tuple))
				for k, e := range s.Tuple {
					var err error
					if elems[k], err = fill(e, seed*31+uint64(k)+1); err != nil {
						return nil, err
					}
				}
				return ir.NewTupleLiteral(elems...), nil
			}
			if !s.IsArray() {
				return nil, fmt.Errorf("parameter %d (%s) has a %v leaf, which cannot be filled", i, p.Name, s)
			}
			if n := s.ByteSize(); n < 0 || n > ir.MaxLiteralBytes {
				return nil, fmt.Errorf("parameter %d (%s) is %v, %d bytes, above the limit of %d (--memory-limit)", i, p.Name, s.StringWithoutLayout(), n, ir.MaxLiteralBytes)
			}
			return detrand.Literal(s, seed), nil
		}
		return fill(p.Shape, detrand.Seed(name, i))
	}
}

func boundBy(w *weightFile, i int) bool {
	if w == nil {
		return false
	}
	_, ok := w.bound[i]
	return ok
}

// checkBoundByRuntime checks that the executable takes exactly the arguments
// the tool prepared: the runtime's name matching (runtime.WithWeights) must
// have bound the same parameters as the tool's.
func checkBoundByRuntime(exe *runtime.Executable, args []*runtime.Tensor, w *weightFile) error {
	shapes := exe.ParameterShapes()
	ok := len(shapes) == len(args)
	for i := 0; ok && i < len(args); i++ {
		ok = shapes[i].EqualIgnoringLayout(args[i].Shape())
	}
	if ok {
		return nil
	}
	bound := 0
	if w != nil {
		bound = len(w.bound)
	}
	return fmt.Errorf("the compiled module takes %d arguments, kiln bench prepared %d (the runtime bound other parameters by name than the %d the tool matched)",
		len(shapes), len(args), bound)
}

// timeRuns runs exe a few times to warm up, then runs times (or, for 0, as
// many as take about a second, at least 10) timing each run, and counts the
// allocations of the timed runs the way testing.AllocsPerRun does: the
// difference of runtime.MemStats' Mallocs (and TotalAlloc) over the loop,
// divided by the number of runs.
func timeRuns(ctx context.Context, exe *runtime.Executable, outs, args []*runtime.Tensor, runs int) (times []time.Duration, allocs, bytes float64, err error) {
	warm := time.Now()
	const warmups = 3
	for i := 0; i < warmups; i++ {
		if err := exe.RunInto(ctx, outs, args...); err != nil {
			return nil, 0, 0, err
		}
	}
	if runs == 0 {
		per := time.Since(warm) / warmups
		runs = int(min(max(time.Second/max(per, 1), 10), 100000))
	}
	times = make([]time.Duration, runs)
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	for i := range times {
		t := time.Now()
		err = exe.RunInto(ctx, outs, args...)
		times[i] = time.Since(t)
		if err != nil {
			return nil, 0, 0, err
		}
	}
	goruntime.ReadMemStats(&after)
	n := float64(runs)
	return times, float64(after.Mallocs-before.Mallocs) / n, float64(after.TotalAlloc-before.TotalAlloc) / n, nil
}

func printBench(w io.Writer, r benchResult) {
	dur := func(us float64) string {
		return time.Duration(math.Round(us * 1e3)).Round(10 * time.Nanosecond).String()
	}
	fmt.Fprintf(w, "%s: compiled in %.2f ms, %d kernels", r.File, r.CompileMS, r.Kernels)
	if r.ReferenceKernels > 0 {
		fmt.Fprintf(w, " (%d run by the reference evaluator)", r.ReferenceKernels)
	}
	fmt.Fprintf(w, "; %d arguments per run, %d parameters bound at compile time; %d threads\n", r.Arguments, len(r.Bound), r.Threads)
	fmt.Fprintf(w, "latency over %d runs: p50 %s  p90 %s  p99 %s  (min %s, mean %s)\n",
		r.Runs, dur(r.P50US), dur(r.P90US), dur(r.P99US), dur(r.MinUS), dur(r.MeanUS))
	fmt.Fprintf(w, "throughput: %.1f runs/s", r.RunsPerS)
	if r.GFLOP > 0 {
		fmt.Fprintf(w, ", %.2f GFLOP/s (%.4g GFLOP per run in dots and convolutions)", r.GFLOPS, r.GFLOP)
	}
	fmt.Fprintf(w, "\nallocations: %.2f per run (%.0f bytes per run)\n", r.AllocsPerRun, r.BytesPerRun)
}

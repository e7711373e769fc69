package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
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
		usage: "bench FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--fill-elided] [--inputs N] [--runs N] [--threads N] [--json] [--profile]\n" +
			"                 compile once, run many times; print compile time, latency percentiles, throughput and allocations",
		run: runBench,
	})
}

// benchOptions are the parsed arguments of `kiln bench`.
type benchOptions struct {
	moduleArgs
	json    bool
	profile bool
	runs    int // 0: as many as fit in about a second
	threads int // 0: the default (GOMAXPROCS)
	inputs  int // -1: every parameter not bound by --weights is a run-time argument
}

const benchUsage = "kiln bench FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--inputs N] [--runs N] [--threads N] [--json] [--profile]"

func parseBenchArgs(args []string) (benchOptions, error) {
	o := benchOptions{inputs: -1}
	count := func(flag string, value func() (string, error), min int) (int, error) {
		v, err := value()
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < min {
			return 0, fmt.Errorf("--%s wants an integer ≥ %d, found %q", flag, min, v)
		}
		return n, nil
	}
	err := parseModuleArgs(args, &o.moduleArgs, "--arg, --npy, --weights, --fill-elided, --inputs, --runs, --threads, --json or --profile",
		func(name string, hasValue bool, value func() (string, error)) (known bool, err error) {
			switch name {
			case "json", "profile":
				if hasValue {
					return true, fmt.Errorf("--%s takes no value", name)
				}
				if name == "json" {
					o.json = true
				} else {
					o.profile = true
				}
			case "runs":
				o.runs, err = count(name, value, 1)
			case "threads":
				o.threads, err = count(name, value, 1)
			case "inputs":
				o.inputs, err = count(name, value, 0)
			default:
				return false, nil
			}
			return true, err
		})
	if err != nil {
		return o, err
	}
	if o.file == "" {
		return o, errors.New("no module file: usage: " + benchUsage)
	}
	return o, nil
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
	o, err := parseBenchArgs(args)
	if err != nil {
		return err
	}
	text, err := os.ReadFile(o.file)
	if err != nil {
		return err
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		return fmt.Errorf("%s: %w", o.file, err)
	}
	if err := fillElided(m, o.moduleArgs); err != nil {
		return err
	}
	if err := m.Verify(); err != nil {
		return fmt.Errorf("%s: %w", o.file, err)
	}
	var w *weightFile
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
	for i, p := range params {
		if !p.Shape.IsArray() && !boundBy(w, i) {
			return fmt.Errorf("%s: parameter %d (%s) is a %v; kiln bench takes array parameters only", o.file, i, p.Name, p.Shape)
		}
	}

	if o.threads > 0 {
		defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(o.threads))
		defer kiln.SetThreads(kiln.SetThreads(o.threads))
	}
	var opts []runtime.Option
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
		case o.inputs >= 0 && free >= o.inputs:
			opts = append(opts, runtime.WithParameter(i, runtime.TensorFromLiteral(lits[i])))
			res.Bound = append(res.Bound, p.Name)
		default:
			runArgs = append(runArgs, runtime.TensorFromLiteral(lits[i]))
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
	times, allocs, bytes, err := timeRuns(exe, outs, runArgs, o.runs)
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
		prof, err := exe.Profile(context.Background(), min(o.runs, 100), outs, runArgs...)
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
		printProfile(stdout, res.Profile)
	}
	return nil
}

// kernelTime is one kernel's median time in `kiln bench --profile`.
type kernelTime struct {
	Kernel string  `json:"kernel"`
	US     float64 `json:"us"`
}

// printProfile prints the kernels from the slowest, with their share of the
// summed time.
func printProfile(w io.Writer, ks []kernelTime) {
	total := 0.0
	for _, k := range ks {
		total += k.US
	}
	sorted := slices.Clone(ks)
	slices.SortStableFunc(sorted, func(a, b kernelTime) int { return cmp.Compare(b.US, a.US) })
	fmt.Fprintf(w, "kernels (median per run, slowest first; %.1f µs in all):\n", total)
	for _, k := range sorted {
		fmt.Fprintf(w, "  %10.1f µs %5.1f%%  %s\n", k.US, 100*k.US/max(total, 1e-9), k.Kernel)
	}
}

// deterministicFill returns the values of m's entry parameters that
// `kiln examples` uses, seeded by the file's base name without its suffix.
func deterministicFill(m *ir.Module, file string) func(i int) *ir.Literal {
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	return func(i int) *ir.Literal {
		return detrand.Literal(m.Entry.Parameters[i].Shape, detrand.Seed(name, i))
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
func timeRuns(exe *runtime.Executable, outs, args []*runtime.Tensor, runs int) (times []time.Duration, allocs, bytes float64, err error) {
	ctx := context.Background()
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

package main

import (
	"fmt"
	kiln "github.com/kilnml/kiln"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

func init() {
	register(&command{
		name:    "examples",
		summary: "examples [--dir DIR] [--runs N]   run the bundled example models (make run)",
		run:     runExamples,
	})
}

// exampleModels are the models `make run` runs, relative to the examples directory.
var exampleModels = []string{"mlp/mlp_b1.hlo", "cnn/cnn_b1.hlo", "transformer/encoder_b1.hlo"}

// exampleArgs returns deterministic arguments for every parameter of m: the
// same values on every machine, seeded by the model's file name.
func exampleArgs(m *ir.Module, name string) []*ir.Literal {
	args := make([]*ir.Literal, len(m.Entry.Parameters))
	for i, p := range m.Entry.Parameters {
		args[i] = detrand.Literal(p.Shape, detrand.Seed(name, i))
	}
	return args
}

func runExamples(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("examples", "examples [--dir DIR] [--runs N]", `
Runs the bundled example models (an MLP, a CNN and a transformer encoder layer,
batch 1) on deterministic inputs: prints each output's checksum beside the
reference evaluator's, and the compiled plan's latency with the CPU, the kernel
set and the thread count it ran on, and its GFLOP/s. make run runs this.`)
	dir := fs.String("dir", "examples", "directory holding the example models")
	runs := fs.Int("runs", 200, "timed runs of the compiled plan per model")
	rest, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("takes no arguments besides its flags, found %q", rest)
	}
	for _, rel := range exampleModels {
		if err := runExample(filepath.Join(*dir, rel), *runs, stdout); err != nil {
			return err
		}
	}
	return nil
}

func runExample(path string, runs int, w io.Writer) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := m.Verify(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".hlo")
	args := exampleArgs(m, name)

	start := time.Now()
	ref, err := eval.Run(m, args...)
	if err != nil {
		return fmt.Errorf("%s: reference evaluator: %w", path, err)
	}
	refTime := time.Since(start)

	out, times, how, err := runCompiled(m, args, runs)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(w, "%s (%s)\n", name, path)
	for i, o := range out {
		diff := maxAbsDiff(o, ref[i])
		fmt.Fprintf(w, "  output %d: %v  checksum %.6g (reference %.6g, max |diff| %.3g)\n",
			i, o.Shape().StringWithoutLayout(), checksum(o), checksum(ref[i]), diff)
		fmt.Fprintf(w, "    %s\n", abbreviate(o.String(), 160))
	}
	if len(times) > 0 {
		p50 := percentile(times, 50)
		fmt.Fprintf(w, "  latency (%s; %s; %d runs): p50 %v  p90 %v  p99 %v   reference evaluator: %v\n",
			how, machineSummary(), len(times), p50, percentile(times, 90), percentile(times, 99), refTime.Round(time.Microsecond))
		if f, ok := moduleFLOPs(m); ok && f > 0 && p50 > 0 {
			fmt.Fprintf(w, "  %.2f GFLOP/s at the p50 latency (%.4g GFLOP per run in dots and convolutions)\n", f/1e9/p50.Seconds(), f/1e9)
		}
	} else {
		fmt.Fprintf(w, "  %s: %v\n", how, refTime.Round(time.Microsecond))
	}
	return nil
}

// checksum is the sum of the output's elements, in float64.
func checksum(l *ir.Literal) float64 {
	s := 0.0
	for i := 0; i < l.ElementCount(); i++ {
		s += l.Float64At(i)
	}
	return s
}

func maxAbsDiff(a, b *ir.Literal) float64 {
	if a.ElementCount() != b.ElementCount() {
		return math.Inf(1)
	}
	d := 0.0
	for i := 0; i < a.ElementCount(); i++ {
		d = math.Max(d, math.Abs(a.Float64At(i)-b.Float64At(i)))
	}
	return d
}

func percentile(ts []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ts...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s) - 1) * p / 100
	return s[i].Round(10 * time.Nanosecond)
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + " …"
}

// machineSummary names what a latency was measured on: the CPU, the kernel
// set dispatch chose (the ISA level) and the threads the kernels use.
func machineSummary() string {
	cpu, level := "unknown CPU", "unknown ISA level"
	for _, line := range strings.Split(kiln.CPUReport(), "\n") {
		if v, ok := strings.CutPrefix(line, "cpu:"); ok && strings.TrimSpace(v) != "" {
			cpu = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "chosen:"); ok {
			level, _, _ = strings.Cut(strings.TrimSpace(v), " ")
		}
	}
	return fmt.Sprintf("%s, %s kernels, %d threads", cpu, level, kiln.Threads())
}

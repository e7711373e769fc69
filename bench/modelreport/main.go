// Command modelreport times whole models and XLA's CPU benchmark blocks on
// Kiln beside PyTorch and GoMLX in the same run: each round runs Kiln's
// cases in this process, then the peers' benchmark programs from
// ../shared/peers (torch_bench.py under Debian's python3 with OpenBLAS's
// AVX-512 kernels forced where the CPU has AVX-512, and the newest GoMLX
// build, gomlxbench_next_simd, that peers/run.sh --only gomlxnext builds),
// so that a shared machine slows every contender alike. It prints, per
// case, the median over rounds of each contender's median time, and the
// median and range over rounds of the per-round ratios, as a Markdown
// table.
//
//	go run ./modelreport -rounds 3             # from bench/, one thread
//	go run ./modelreport -rounds 3 -threads 2
//	go run ./modelreport -rounds 9 -scaling -only bert
//
// With -scaling it compares Kiln with itself instead: each round runs the
// cases compiled for one thread and for two, and the FMA loop on one
// goroutine and on two, and it prints per case the median of the per-round
// throughput ratios (two threads over one) beside the FMA loop's in the
// same rounds: on a shared machine the loop's ratio says how much of a
// second core the round had.
//
// Kiln's cases: the BERT-base encoder layer (seq 128, batch 1), the MLP
// 784-512-512-10 at batch 64 and 1, ResNet-50 at batch 1 as Flax writes it
// (bench's resnetHLO), each with the weights bound at compile time and
// passed as arguments; XLA's depthwise 3×3 NCHW block over 1×256×56×56 and
// its layer-norm block over 1×4096×768 in f32, beside a copy of 256 MiB
// (STREAM's copy) measured in the same process.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/kilnml/kiln"
	"github.com/kilnml/kiln/bench"
)

func main() {
	rounds := flag.Int("rounds", 3, "rounds; each contender's median over rounds is reported")
	threads := flag.Int("threads", 1, "threads for Kiln and the peers")
	peers := flag.String("peers", "../../shared/peers", "the peers' directory (torch/torch_bench.py, .build/gomlxbench_next_simd)")
	only := flag.String("only", "", "comma-separated case-name substrings to run (default: all)")
	noPeers := flag.Bool("nopeers", false, "run Kiln's cases only")
	scaling := flag.Bool("scaling", false, "compare two threads with one, beside the FMA loop's ratio (no peers)")
	flag.Parse()
	if *scaling {
		if err := reportScaling(*rounds, *only); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	runtime.GOMAXPROCS(max(2, *threads))
	kiln.SetThreads(*threads)

	cases, err := bench.InferenceCases(*threads)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	selected := selectCases(cases, *only)
	// samples[case][impl] holds one median per round.
	samples := map[string]map[string][]float64{}
	add := func(cas, impl string, us float64) {
		if samples[cas] == nil {
			samples[cas] = map[string][]float64{}
		}
		samples[cas][impl] = append(samples[cas][impl], us)
	}
	for r := 0; r < *rounds; r++ {
		fmt.Fprintf(os.Stderr, "round %d/%d: kiln\n", r+1, *rounds)
		for _, c := range selected {
			add(c.Name, "kiln", c.Median())
		}
		if *noPeers {
			continue
		}
		fmt.Fprintf(os.Stderr, "round %d/%d: torch\n", r+1, *rounds)
		for _, row := range runPeer(torchCmd(*peers, *threads)) {
			add(row.cas, "torch", row.us)
		}
		fmt.Fprintf(os.Stderr, "round %d/%d: gomlx\n", r+1, *rounds)
		for _, row := range runPeer(gomlxCmd(*peers, *threads)) {
			add(row.cas, "gomlx", row.us)
		}
	}
	printTable(selected, samples, *rounds, *threads)
}

// selectCases returns the cases whose names contain one of the
// comma-separated substrings in only (all of them when only is empty).
func selectCases(cases []bench.InferenceCase, only string) []bench.InferenceCase {
	var out []bench.InferenceCase
	for _, c := range cases {
		if only == "" || slices.ContainsFunc(strings.Split(only, ","), func(s string) bool { return strings.Contains(c.Name, s) }) {
			out = append(out, c)
		}
	}
	return out
}

type peerRow struct {
	cas string
	us  float64
}

// runPeer runs a peer's benchmark and parses its TSV rows
// (group, case, impl, threads, median µs, value, unit).
func runPeer(cmd *exec.Cmd) []peerRow {
	if cmd == nil {
		return nil
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n%s", cmd.Path, err, errb.String())
		return nil
	}
	var rows []peerRow
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 7 || strings.HasPrefix(f[0], "#") {
			continue
		}
		us, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			continue
		}
		rows = append(rows, peerRow{cas: f[1], us: us})
	}
	return rows
}

// torchCmd runs torch_bench.py as peers/run.sh does: one process per thread
// count, OpenBLAS's AVX-512 kernels forced where the CPU has AVX-512
// (Debian's OpenBLAS picks SSE3 kernels on CPUs it does not know).
func torchCmd(peers string, threads int) *exec.Cmd {
	script := filepath.Join(peers, "torch", "torch_bench.py")
	if _, err := os.Stat(script); err != nil {
		return nil
	}
	cmd := exec.Command("/usr/bin/python3", script, strconv.Itoa(threads))
	env := withoutVars(os.Environ(), "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OMP_WAIT_POLICY")
	if cpuHas("avx512f") {
		env = append(env, "OPENBLAS_CORETYPE=SkylakeX")
	}
	cmd.Env = append(env, "OPENBLAS_NUM_THREADS="+strconv.Itoa(threads), "OMP_NUM_THREADS="+strconv.Itoa(threads))
	return cmd
}

// gomlxCmd runs the newest GoMLX build (peers/run.sh --only gomlxnext
// builds it) on the MLP and the BERT layer.
func gomlxCmd(peers string, threads int) *exec.Cmd {
	bin := filepath.Join(peers, ".build", "gomlxbench_next_simd")
	if _, err := os.Stat(bin); err != nil {
		return nil
	}
	cmd := exec.Command(bin, "-threads", strconv.Itoa(threads), "-only", "mlp,bert")
	cmd.Env = append(withoutVars(os.Environ(), "GOMAXPROCS"), "GOMAXPROCS="+strconv.Itoa(threads))
	return cmd
}

func withoutVars(env []string, names ...string) []string {
	var out []string
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		if !slices.Contains(names, k) {
			out = append(out, e)
		}
	}
	return out
}

func cpuHas(flag string) bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	return err == nil && bytes.Contains(b, []byte(" "+flag+" "))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func printTable(cases []bench.InferenceCase, samples map[string]map[string][]float64, rounds, threads int) {
	fmt.Printf("# %s, %d thread(s), medians over %d rounds (µs)\n\n", kiln.Features(), threads, rounds)
	fmt.Println("| case | kiln | torch | gomlx | kiln / torch (range) | kiln / gomlx (range) | note |")
	fmt.Println("|---|---|---|---|---|---|---|")
	cell := func(x float64) string {
		if x == 0 {
			return "—"
		}
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	// ratio is the median over rounds of the per-round ratio kiln/peer
	// (each round measures both within a minute of each other), with the
	// range over rounds.
	ratio := func(k, p []float64) string {
		if len(k) == 0 || len(p) == 0 {
			return "—"
		}
		var rs []float64
		for i := 0; i < min(len(k), len(p)); i++ {
			if p[i] > 0 {
				rs = append(rs, k[i]/p[i])
			}
		}
		if len(rs) == 0 {
			return "—"
		}
		lo, hi := slices.Min(rs), slices.Max(rs)
		return fmt.Sprintf("%.2f× (%.2f–%.2f)", median(rs), lo, hi)
	}
	for _, c := range cases {
		ks := samples[c.Name]["kiln"]
		k := median(ks)
		var ts, gs []float64
		if c.Peer != "" {
			ts = samples[c.Peer]["torch"]
			gs = samples[c.Peer]["gomlx"]
			if c.GoMLXPeer != "" {
				gs = samples[c.GoMLXPeer]["gomlx"]
			}
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s |\n", c.Name, cell(k), cell(median(ts)), cell(median(gs)), ratio(ks, ts), ratio(ks, gs), c.Note(k))
	}
}

// Command gemvreport measures batch-1 inference's products — a single row
// times a weight matrix packed once (kiln.SgemmPacked) — beside their peers,
// with the contenders interleaved round by round so that a shared machine
// slows them alike, and prints Markdown tables of median figures:
//
//   - the single-row shapes (M×K×N), GFLOP/s and GB/s of B (K·N·4 bytes per
//     call), Kiln at each level beside gonum's Sgemv and, with -tags
//     openblas, OpenBLAS's sgemv and sgemm;
//   - the example MLP at batch 1 (784-512-512-10, bias and ReLU), compiled
//     by Kiln with its weights bound, its three packed products alone, and
//     the same three layers with gonum's and OpenBLAS's sgemv;
//   - PackB of the transformer layer's weights, and the layer's compile
//     with its weights bound.
//
// Every call is timed on its own and the median call is reported: these
// calls take microseconds, so the time slices other tenants take from a
// shared machine hit few of them and move the median little (they move the
// mean a lot). At two threads the figure is what the machine gave while it
// ran, as Kiln's helper needs the second core free.
//
//	go run ./gemvreport -rounds 15
//	env -u OPENBLAS_CORETYPE go run -tags openblas ./gemvreport
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"time"

	"github.com/kilnml/kiln"
	"github.com/kilnml/kiln/bench"
	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// shape is a single-row product: x (1×K) times B (K×N).
type shape struct{ k, n int }

func (s shape) String() string { return fmt.Sprintf("1×%d×%d", s.k, s.n) }

var shapes = []shape{{784, 512}, {512, 512}, {768, 768}, {4096, 4096}, {768, 3072}}

// contender is one implementation of one case: setup selects it (level,
// threads), run does one call.
type contender struct {
	name  string
	setup func()
	run   func()
}

func main() {
	rounds := flag.Int("rounds", 15, "interleaved rounds; the median call over all rounds is reported")
	window := flag.Duration("window", 10*time.Millisecond, "time each contender runs per round")
	threadList := flag.String("threads", "1,2", "thread counts")
	parts := flag.String("parts", "gemv,mlp,pack", "which tables to print")
	examples := flag.String("examples", "../examples", "directory of the example models")
	flag.Parse()
	var threads []int
	for _, t := range strings.Split(*threadList, ",") {
		var n int
		fmt.Sscan(t, &n)
		threads = append(threads, n)
	}
	goruntime.GOMAXPROCS(max(goruntime.GOMAXPROCS(0), slices.Max(threads)))
	fmt.Printf("# median calls over %d interleaved rounds of %v; %s\n", *rounds, *window, kiln.Features())
	if strings.Contains(*parts, "gemv") {
		gemvTable(threads, *rounds, *window)
	}
	if strings.Contains(*parts, "mlp") {
		mlpTable(threads, *rounds, *window, *examples)
	}
	if strings.Contains(*parts, "pack") {
		packTable(threads, *rounds, *examples)
	}
	os.Stdout.Sync()
}

func levels() []string {
	var ls []string
	for _, l := range kiln.ISALevels() {
		if l != "generic" {
			ls = append(ls, l)
		}
	}
	return ls
}

// setLevel selects an ISA level and the threads of Kiln (and of OpenBLAS).
func setLevel(level string, t int) func() {
	return func() {
		kiln.SetISA(level)
		kiln.SetThreads(t)
		for _, p := range bench.Peers {
			p.SetThreads(t)
		}
	}
}

func randSlice(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.Float64()*2 - 1)
	}
	return x
}

func gemvTable(threads []int, rounds int, window time.Duration) {
	ls := levels()
	var header []string
	header = append(header, "M×K×N", "thr")
	for _, l := range ls {
		header = append(header, "kiln "+l+" packed")
	}
	header = append(header, "kiln "+ls[0]+" (B unpacked)", "gonum sgemv")
	for _, p := range bench.Peers {
		header = append(header, p.Name+" sgemv", p.Name+" sgemm")
	}
	header = append(header, "packed / gonum")
	if len(bench.Peers) > 0 {
		header = append(header, "packed / "+bench.Peers[0].Name+" sgemv")
	}
	fmt.Println("\n## Single-row products: median GFLOP/s (GB/s of B)")
	fmt.Println()
	printRow(header)
	fmt.Println("|" + strings.Repeat("---|", len(header)))
	for _, s := range shapes {
		r := rand.New(rand.NewPCG(uint64(s.k), uint64(s.n)))
		x, b, y := randSlice(r, s.k), randSlice(r, s.k*s.n), make([]float32, s.n)
		packed := map[string]*kiln.PackedB{}
		for _, l := range ls {
			kiln.SetISA(l)
			packed[l] = kiln.PackB(false, s.k, s.n, b, s.n)
		}
		for _, t := range threads {
			var cs []contender
			for _, l := range ls {
				pb := packed[l]
				cs = append(cs, contender{"kiln " + l + " packed", setLevel(l, t), func() { kiln.SgemmPacked(false, 1, 1, x, s.k, pb, 0, y, s.n) }})
			}
			cs = append(cs, contender{"kiln unpacked", setLevel(ls[0], t), func() { kiln.Sgemm(false, false, 1, s.n, s.k, 1, x, s.k, b, s.n, 0, y, s.n) }})
			cs = append(cs, contender{"gonum", setLevel(ls[0], t), func() {
				gonum.Implementation{}.Sgemv(blas.Trans, s.k, s.n, 1, b, s.n, x, 1, 0, y, 1)
			}})
			for _, p := range bench.Peers {
				cs = append(cs,
					contender{p.Name + " sgemv", setLevel(ls[0], t), func() { p.Sgemv(s.k, s.n, x, b, y) }},
					contender{p.Name + " sgemm", setLevel(ls[0], t), func() { p.Sgemm(1, s.n, s.k, x, b, y) }})
			}
			med := measure(cs, rounds, window)
			flops, bytes := 2*float64(s.k*s.n), 4*float64(s.k*s.n)
			cell := func(name string) string {
				sec := med[name].Seconds()
				return fmt.Sprintf("%.1f (%.0f)", flops/sec/1e9, bytes/sec/1e9)
			}
			row := []string{s.String(), fmt.Sprint(t)}
			for _, l := range ls {
				row = append(row, cell("kiln "+l+" packed"))
			}
			row = append(row, cell("kiln unpacked"), cell("gonum"))
			for _, p := range bench.Peers {
				row = append(row, cell(p.Name+" sgemv"), cell(p.Name+" sgemm"))
			}
			best := med["kiln "+ls[0]+" packed"]
			row = append(row, fmt.Sprintf("%.1f×", med["gonum"].Seconds()/best.Seconds()))
			if len(bench.Peers) > 0 {
				row = append(row, fmt.Sprintf("%.2f×", med[bench.Peers[0].Name+" sgemv"].Seconds()/best.Seconds()))
			}
			printRow(row)
		}
	}
}

// mlpLayers are the example MLP's layers (K, N); each adds a bias, and all
// but the last apply ReLU.
var mlpLayers = []shape{{784, 512}, {512, 512}, {512, 10}}

func mlpTable(threads []int, rounds int, window time.Duration, examples string) {
	r := rand.New(rand.NewPCG(3, 4))
	x := randSlice(r, 784)
	var ws, bs, acts [][]float32
	acts = append(acts, x)
	for _, l := range mlpLayers {
		ws = append(ws, randSlice(r, l.k*l.n))
		bs = append(bs, randSlice(r, l.n))
		acts = append(acts, make([]float32, l.n))
	}
	var pbs []*kiln.PackedB
	for i, l := range mlpLayers {
		pbs = append(pbs, kiln.PackB(false, l.k, l.n, ws[i], l.n))
	}
	exe, in, outs := compileExample(filepath.Join(examples, "mlp/mlp_b1.hlo"))
	fmt.Println("\n## MLP 784-512-512-10, batch 1: median µs per forward pass (p10 in brackets)")
	fmt.Println()
	header := []string{"thr", "kiln (compiled, weights bound)", "kiln (3 × SgemmPackedEpilogue)", "gonum (3 × sgemv)"}
	for _, p := range bench.Peers {
		header = append(header, p.Name+" (3 × sgemv)")
	}
	printRow(header)
	fmt.Println("|" + strings.Repeat("---|", len(header)))
	// dense runs the three layers with a peer's sgemv, then bias and ReLU.
	dense := func(gemv func(k, n int, x, b, y []float32)) func() {
		return func() {
			for i, l := range mlpLayers {
				y := acts[i+1]
				gemv(l.k, l.n, acts[i], ws[i], y)
				for j := range y {
					y[j] += bs[i][j]
					if i < 2 && y[j] < 0 {
						y[j] = 0
					}
				}
			}
		}
	}
	ls := levels()
	for _, t := range threads {
		cs := []contender{
			{"compiled", setLevel(ls[0], t), func() {
				if err := exe.RunInto(context.Background(), outs, in); err != nil {
					panic(err)
				}
			}},
			{"packed", setLevel(ls[0], t), func() {
				for i, l := range mlpLayers {
					act := kiln.ActReLU
					if i == 2 {
						act = kiln.ActNone
					}
					kiln.SgemmPackedEpilogue(false, 1, 1, acts[i], l.k, pbs[i], 0, acts[i+1], l.n, kiln.Epilogue{Bias: bs[i], Act: act})
				}
			}},
			{"gonum", setLevel(ls[0], t), dense(func(k, n int, x, b, y []float32) {
				gonum.Implementation{}.Sgemv(blas.Trans, k, n, 1, b, n, x, 1, 0, y, 1)
			})},
		}
		for _, p := range bench.Peers {
			cs = append(cs, contender{p.Name, setLevel(ls[0], t), dense(p.Sgemv)})
		}
		var all map[string][]time.Duration
		med := measureAll(cs, rounds, window, &all)
		cell := func(name string) string {
			return fmt.Sprintf("%.1f (%.1f)", us(med[name]), us(quantile(all[name], 0.1)))
		}
		row := []string{fmt.Sprint(t), cell("compiled"), cell("packed"), cell("gonum")}
		for _, p := range bench.Peers {
			row = append(row, cell(p.Name))
		}
		printRow(row)
	}
}

// compileExample compiles a bundled model with every parameter but the
// first bound to the deterministic values `kiln bench` uses.
func compileExample(path string, opts ...runtime.Option) (*runtime.Executable, *runtime.Tensor, []*runtime.Tensor) {
	m, args := loadExample(path)
	for i := 1; i < len(args); i++ {
		opts = append(opts, runtime.WithParameter(i, runtime.TensorFromLiteral(args[i])))
	}
	exe, err := runtime.Compile(m, opts...)
	if err != nil {
		fail(err)
	}
	var outs []*runtime.Tensor
	for _, s := range exe.ResultShapes() {
		t, err := runtime.NewTensor(s)
		if err != nil {
			fail(err)
		}
		outs = append(outs, t)
	}
	return exe, runtime.TensorFromLiteral(args[0]), outs
}

func loadExample(path string) (*ir.Module, []*ir.Literal) {
	text, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		fail(err)
	}
	seed := strings.TrimSuffix(filepath.Base(path), ".hlo")
	var args []*ir.Literal
	for i, p := range m.Entry.Parameters {
		args = append(args, detrand.Literal(p.Shape, detrand.Seed(seed, i)))
	}
	return m, args
}

// packTable times PackB of the transformer layer's six weight matrices (on
// fresh memory each time, as a compile packs them) and the layer's compile
// with its weights bound.
func packTable(threads []int, rounds int, examples string) {
	path := filepath.Join(examples, "transformer/encoder_b1.hlo")
	m, args := loadExample(path)
	var mats []*ir.Literal
	var dims [][2]int
	for _, a := range args[1:] {
		if d := a.Shape().Dims; len(d) == 2 {
			mats = append(mats, a)
			dims = append(dims, [2]int{d[0], d[1]})
		}
	}
	var bytes float64
	srcs := make([][]float32, len(mats))
	for i, l := range mats {
		srcs[i] = l.Float32s()
		bytes += 4 * float64(len(srcs[i]))
	}
	fmt.Printf("\n## Transformer layer (%s): PackB of its %d weight matrices (%.1f MB), and Compile with the weights bound\n\n", filepath.Base(path), len(mats), bytes/1e6)
	printRow([]string{"thr", "PackB, all matrices: median ms (p10)", "GB/s (median)", "Compile: median ms (p10)"})
	fmt.Println("|---|---|---|---|")
	ls := levels()
	for _, t := range threads {
		setLevel(ls[0], t)()
		var packs, compiles []time.Duration
		for r := 0; r < rounds; r++ {
			goruntime.GC() // the previous round's matrices are unmapped by their finalizers
			start := time.Now()
			keep := make([]*kiln.PackedB, len(mats))
			for i, d := range dims {
				keep[i] = kiln.PackB(false, d[0], d[1], srcs[i], d[1])
			}
			packs = append(packs, time.Since(start))
			keep = nil
			goruntime.GC()
			opts := []runtime.Option{runtime.WithThreads(t)}
			for i := 1; i < len(args); i++ {
				opts = append(opts, runtime.WithParameter(i, runtime.TensorFromLiteral(args[i])))
			}
			start = time.Now()
			if _, err := runtime.Compile(m, opts...); err != nil {
				fail(err)
			}
			compiles = append(compiles, time.Since(start))
		}
		slices.Sort(packs)
		slices.Sort(compiles)
		pm := packs[len(packs)/2]
		printRow([]string{fmt.Sprint(t), fmt.Sprintf("%.2f (%.2f)", ms(pm), ms(quantile(packs, 0.1))), fmt.Sprintf("%.1f", bytes/pm.Seconds()/1e9),
			fmt.Sprintf("%.1f (%.1f)", ms(compiles[len(compiles)/2]), ms(quantile(compiles, 0.1)))})
	}
}

// measure runs every contender for window in each round, in turn, timing
// each call, and returns each one's median call.
func measure(cs []contender, rounds int, window time.Duration) map[string]time.Duration {
	return measureAll(cs, rounds, window, nil)
}

func measureAll(cs []contender, rounds int, window time.Duration, all *map[string][]time.Duration) map[string]time.Duration {
	times := map[string][]time.Duration{}
	for _, c := range cs { // warm up: pools, helpers, caches
		c.setup()
		for i := 0; i < 3; i++ {
			c.run()
		}
	}
	for r := 0; r < rounds; r++ {
		for _, c := range cs {
			c.setup()
			c.run()
			end := time.Now().Add(window)
			for {
				start := time.Now()
				c.run()
				now := time.Now()
				times[c.name] = append(times[c.name], now.Sub(start))
				if now.After(end) {
					break
				}
			}
		}
	}
	med := map[string]time.Duration{}
	for k, v := range times {
		slices.Sort(v)
		med[k] = v[len(v)/2]
	}
	if all != nil {
		*all = times
	}
	return med
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	return sorted[int(q*float64(len(sorted)-1))]
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func printRow(cells []string) { fmt.Println("| " + strings.Join(cells, " | ") + " |") }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gemvreport:", err)
	os.Exit(1)
}

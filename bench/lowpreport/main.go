// Command lowpreport measures Kiln's low-precision kernels beside their
// float32 counterparts and peers, with the contenders interleaved round by
// round and each window timed in the process's CPU time (as eltreport and
// gemmreport do: other tenants' time slices do not count; their use of the
// shared caches, memory and FP units still does), and prints the medians
// and the ratios the targets are stated in as Markdown tables. One thread.
//
//	go run ./lowpreport -rounds 7
//
// Tables: gemm (bfloat16 and int8 products against float32 and the FMA
// loop, at every level that has them), weights (int8 weights at batch 1
// against float32's packed rows), stream (the bandwidth-bound bfloat16
// kernels against STREAM-style copies of the same footprint and against the
// same kernels in float32), sort (row sorts and argsorts against NumPy's,
// Debian's python3-numpy run as a child process in the same rounds) and
// topk.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kilnml/kiln"
	"golang.org/x/sys/unix"
)

// impl is one contender of a case: level selects it ("" for none), run does
// one call.
type impl struct {
	name  string
	level string
	run   func()
}

var (
	rounds = flag.Int("rounds", 7, "interleaved rounds per case; the median is reported")
	window = flag.Duration("window", 40*time.Millisecond, "time each contender runs per round")
	only   = flag.String("tables", "gemm,weights,stream,sort,topk", "tables to print")
	python = flag.String("python", "/usr/bin/python3", "the Python with NumPy (Debian's python3-numpy) for the sort peer")
)

func main() {
	flag.Parse()
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread()
	kiln.SetThreads(1)
	fmt.Printf("# Kiln low-precision kernels: medians over %d interleaved rounds of %v (CPU clock), one thread; %s; levels %s\n\n",
		*rounds, *window, kiln.Features(), strings.Join(kiln.ISALevels(), ", "))
	tables := strings.Split(*only, ",")
	if slices.Contains(tables, "gemm") {
		gemm()
	}
	if slices.Contains(tables, "weights") {
		weights()
	}
	if slices.Contains(tables, "stream") {
		stream()
	}
	if slices.Contains(tables, "sort") {
		sorts()
	}
	if slices.Contains(tables, "topk") {
		topk()
	}
}

// has reports whether the CPU and build run a level.
func has(level string) bool { return slices.Contains(kiln.ISALevels(), level) }

// rate runs every contender for a window in each round, in turn (the order
// rotating), and returns each one's median calls per second.
func rate(impls []impl) map[string]float64 {
	rates := map[string][]float64{}
	batch := map[string]int{}
	for _, im := range impls {
		if im.level != "" {
			kiln.SetISA(im.level)
		}
		im.run()
		t := time.Now()
		n := 0
		for time.Since(t) < time.Millisecond || n == 0 {
			im.run()
			n++
		}
		batch[im.name] = n
	}
	for r := 0; r < *rounds; r++ {
		for j := range impls {
			im := impls[(j+r)%len(impls)]
			if im.level != "" {
				kiln.SetISA(im.level)
			}
			k := batch[im.name]
			start := now()
			n := 0
			for now()-start < window.Seconds() || n == 0 {
				for i := 0; i < k; i++ {
					im.run()
				}
				n += k
			}
			rates[im.name] = append(rates[im.name], float64(n)/(now()-start))
		}
	}
	med := map[string]float64{}
	for k, v := range rates {
		slices.Sort(v)
		med[k] = v[len(v)/2]
	}
	return med
}

func now() float64 {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func randF32(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, seed+1))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

func toBF16(x []float32) []uint16 {
	h := make([]uint16, len(x))
	kiln.F32ToBF16(h, x)
	return h
}

func randS8(n int, seed uint64) []int8 {
	r := rand.New(rand.NewPCG(seed, seed+1))
	x := make([]int8, n)
	for i := range x {
		x[i] = int8(r.Uint32())
	}
	return x
}

func row(cells ...string) { fmt.Println("| " + strings.Join(cells, " | ") + " |") }

func header(cells ...string) {
	row(cells...)
	fmt.Println("|" + strings.Repeat("---|", len(cells)))
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// gemm: C = A·B at 512, 1024, 2048, float32 (B packed) against the
// bfloat16 and int8 products at each level that has its own kernels.
func gemm() {
	fmt.Printf("## Products, GFLOP/s (int8: GOP/s), B packed once\n\n")
	fmt.Printf("FMA loop: 12 independent FMA chains at the level's width (kiln.FMAPeak), in the same rounds. f32 is SgemmPacked at the best float32 level; the bfloat16 and int8 products at each level that has its own kernels (amx: AMX tiles; avx512bf16: VDPBF16PS; avx512vnni: VPDPBUSD; avx512: widened to float32 or int16 pairs).\n\n")
	header("M=N=K", "FMA loop", "f32", "bf16 amx", "bf16 avx512bf16", "bf16 avx512", "s8 amx", "s8 avx512vnni", "s8 avx512", "u8·s8 best", "best bf16 / f32", "best s8 / f32")
	for _, s := range []int{512, 1024, 2048} {
		af, bf := randF32(s*s, 1), randF32(s*s, 2)
		ab, bb := toBF16(af), toBF16(bf)
		a8, b8 := randS8(s*s, 3), randS8(s*s, 4)
		au := make([]uint8, len(a8))
		for i, v := range a8 {
			au[i] = uint8(v)
		}
		c := make([]float32, s*s)
		ci := make([]int32, s*s)
		best := kiln.ISALevels()[0]
		kiln.SetISA(best)
		pb := kiln.PackB(false, s, s, bf, s)
		impls := []impl{
			{"peak", best, func() { kiln.FMAPeak(1 << 16) }},
			{"f32", best, func() { kiln.SgemmPacked(false, s, 1, af, s, pb, 0, c, s) }},
		}
		for _, l := range []string{"amx", "avx512bf16", "avx512"} {
			if !has(l) {
				continue
			}
			kiln.SetISA(l)
			p := kiln.PackBF16(false, s, s, bb, s)
			impls = append(impls, impl{"bf16 " + l, l, func() { kiln.GemmBF16(false, s, ab, s, p, c, s, kiln.Epilogue{}) }})
		}
		for _, l := range []string{"amx", "avx512vnni", "avx512"} {
			if !has(l) {
				continue
			}
			kiln.SetISA(l)
			p := kiln.PackS8(false, s, s, b8, s)
			impls = append(impls, impl{"s8 " + l, l, func() { kiln.GemmS8S8(false, s, a8, s, p, ci, s) }})
			if l == best {
				impls = append(impls, impl{"u8 " + l, l, func() { kiln.GemmU8S8(false, s, au, s, p, ci, s) }})
			}
		}
		res := rate(impls)
		flops := 2 * float64(s) * float64(s) * float64(s)
		g := func(name string) float64 { return res[name] * flops / 1e9 }
		kiln.SetISA(best)
		peak := res["peak"] * float64(kiln.FMAPeak(1<<16)) / 1e9
		cell := func(name string) string {
			if _, ok := res[name]; !ok {
				return "—"
			}
			return f1(g(name))
		}
		bestBF, bestS8 := 0.0, 0.0
		for k := range res {
			if strings.HasPrefix(k, "bf16 ") {
				bestBF = max(bestBF, g(k))
			}
			if strings.HasPrefix(k, "s8 ") {
				bestS8 = max(bestS8, g(k))
			}
		}
		row(fmt.Sprint(s), f1(peak), f1(g("f32")), cell("bf16 amx"), cell("bf16 avx512bf16"), cell("bf16 avx512"), cell("s8 amx"), cell("s8 avx512vnni"), cell("s8 avx512"), cell("u8 "+best), f2(bestBF/g("f32"))+"×", f2(bestS8/g("f32"))+"×")
	}
	fmt.Println()
}

// weights: one row of A times a k×n matrix of weights larger than L2, as
// float32 packed rows and as int8 weights.
func weights() {
	fmt.Printf("## Batch-1 products with int8 weights (GemmF32S8) against float32's packed rows (SgemmPacked, M = 1)\n\n")
	header("K×N", "weights f32 / int8", "f32 packed rows GB/s", "int8 weights GB/s (int8 bytes)", "int8 / f32 time ratio")
	for _, s := range [][2]int{{4096, 4096}, {4096, 11008}, {768, 3072}} {
		k, n := s[0], s[1]
		a := randF32(k, 5)
		bf := randF32(k*n, 6)
		w := randS8(k*n, 7)
		scale := randF32(n, 8)
		for i := range scale {
			scale[i] = float32(math.Abs(float64(scale[i]))) / 64
		}
		c := make([]float32, n)
		best := kiln.ISALevels()[0]
		kiln.SetISA(best)
		pb := kiln.PackB(false, k, n, bf, n)
		pw := kiln.PackS8Weights(false, k, n, w, n, scale)
		res := rate([]impl{
			{"f32", best, func() { kiln.SgemmPacked(false, 1, 1, a, k, pb, 0, c, n) }},
			{"s8w", best, func() { kiln.GemmF32S8(false, 1, a, k, pw, c, n, kiln.Epilogue{}) }},
		})
		row(fmt.Sprintf("%d×%d", k, n), fmt.Sprintf("%.1f / %.1f MB", float64(4*k*n)/1e6, float64(k*n)/1e6),
			f1(res["f32"]*float64(4*k*n)/1e9), f1(res["s8w"]*float64(k*n)/1e9), f2(res["s8w"]/res["f32"])+"×")
	}
	fmt.Println()
}

// stream: the bandwidth-bound bfloat16 kernels of XLA's CPU benchmark
// blocks, against a STREAM-style copy of the same bytes (Go's copy(), in
// the same rounds) and against the same kernel in float32.
func stream() {
	fmt.Printf("## Bandwidth-bound bfloat16 kernels, GB/s counting the bytes read and written once\n\n")
	fmt.Printf("STREAM copy: Go's copy() of a buffer of the kernel's footprint (read + write), in the same rounds. f32: the same computation on float32 data (the module with the element type replaced), its time against the bfloat16 kernel's.\n\n")
	header("block", "bf16 GB/s", "STREAM copy GB/s (same bytes)", "bf16 / STREAM", "f32 time / bf16 time")
	type blk struct {
		name     string
		elems    int
		bytesB16 float64 // bytes the bf16 kernel must move
		b16, f32 func()
	}
	var sink float32
	mk := func(name string, rows, cols int) []blk {
		n := rows * cols
		x := randF32(n, 9)
		xb := toBF16(x)
		yb := make([]uint16, n)
		y := make([]float32, n)
		gamma, beta := randF32(cols, 10), randF32(cols, 11)
		gb, bb := toBF16(gamma), toBF16(beta)
		dst := make([]float32, rows)
		switch name {
		case "sum":
			return []blk{{fmt.Sprintf("sum %d×%d", rows, cols), n, 2 * float64(n),
				func() { sink += kiln.SumBF16(xb) }, func() { sink += kiln.Sum(x) }}}
		case "mean":
			return []blk{{fmt.Sprintf("mean of rows %d×%d", rows, cols), n, 2 * float64(n),
				func() {
					kiln.RowSumBF16(dst, xb, cols)
					kiln.MulScalar(dst, dst, 1/float32(cols))
				}, func() {
					kiln.RowSum(dst, x, cols)
					kiln.MulScalar(dst, dst, 1/float32(cols))
				}}}
		case "layernorm":
			return []blk{{fmt.Sprintf("layer norm %d×%d", rows, cols), n, 4 * float64(n),
				func() { kiln.LayerNormBF16(yb, xb, cols, gb, bb, 1e-5) }, func() { kiln.LayerNorm(y, x, cols, gamma, beta, 1e-5) }}}
		case "softmax":
			return []blk{{fmt.Sprintf("softmax %d×%d", rows, cols), n, 4 * float64(n),
				func() { kiln.SoftmaxBF16(yb, xb, cols) }, func() { kiln.Softmax(y, x, cols) }}}
		case "add":
			zb := toBF16(randF32(n, 12))
			z := randF32(n, 12)
			return []blk{{fmt.Sprintf("add %d×%d", rows, cols), n, 6 * float64(n),
				func() { kiln.AddBF16(yb, xb, zb) }, func() { kiln.Add(y, x, z) }}}
		}
		return nil
	}
	var blocks []blk
	blocks = append(blocks, mk("sum", 4096, 1024)...)
	blocks = append(blocks, mk("mean", 4096, 1024)...)
	blocks = append(blocks, mk("layernorm", 4096, 768)...)
	blocks = append(blocks, mk("softmax", 12*128, 128)...)
	blocks = append(blocks, mk("add", 4096, 1024)...)
	blocks = append(blocks, mk("sum", 16384, 4096)...) // 128 MiB of bfloat16: beyond the caches
	best := kiln.ISALevels()[0]
	for _, b := range blocks {
		src := make([]byte, int(b.bytesB16)/2)
		dstb := make([]byte, len(src))
		res := rate([]impl{
			{"bf16", best, b.b16},
			{"f32", best, b.f32},
			{"copy", "", func() { copy(dstb, src) }},
		})
		gb := res["bf16"] * b.bytesB16 / 1e9
		cp := res["copy"] * float64(2*len(src)) / 1e9
		row(b.name, f1(gb), f1(cp), f2(gb/cp), f2(res["bf16"]/res["f32"])+"×")
	}
	fmt.Println()
	_ = sink
}

// sorts: per-row sort and argsort of 1024×4096 float32 and bfloat16 keys,
// beside NumPy's np.sort and np.argsort (stable) on the same data (the
// bfloat16 keys as the float32 values they are, NumPy having no bfloat16).
func sorts() {
	const rows, n = 1024, 4096
	fmt.Printf("## Row sorts of %d×%d keys, ms per call (thread CPU time; NumPy in a child process, the same rounds)\n\n", rows, n)
	x := randF32(rows*n, 13)
	xb := toBF16(x)
	keys := make([]float32, len(x))
	kb := make([]uint16, len(x))
	idx := make([]int32, len(x))
	iota := func() {
		for i := range idx {
			idx[i] = int32(i % n)
		}
	}
	cases := []struct {
		name string
		run  func()
	}{
		{"f32 sort", func() { copy(keys, x); kiln.SortF32(keys, nil, n, kiln.SortAscending) }},
		{"f32 argsort", func() { copy(keys, x); iota(); kiln.SortF32(keys, idx, n, kiln.SortAscending) }},
		{"bf16 sort", func() { copy(kb, xb); kiln.SortBF16(kb, nil, n, kiln.SortAscending) }},
		{"bf16 argsort", func() { copy(kb, xb); iota(); kiln.SortBF16(kb, idx, n, kiln.SortAscending) }},
	}
	script := fmt.Sprintf(`
import numpy as np, time
r = np.random.default_rng(13)
x = r.standard_normal((%[1]d, %[2]d)).astype(np.float32)
xb = (x.view(np.uint32) + 0x7fff + ((x.view(np.uint32) >> 16) & 1)) >> 16 << 16
xb = xb.astype(np.uint32).view(np.float32)
def best(f):
    ts = []
    for i in range(3):
        t = time.thread_time(); f(); ts.append(time.thread_time() - t)
    return min(ts) * 1e3
print(best(lambda: np.sort(x, axis=1)), best(lambda: np.argsort(x, axis=1, kind='stable')),
      best(lambda: np.sort(xb, axis=1)), best(lambda: np.argsort(xb, axis=1, kind='stable')))
`, rows, n)
	times := map[string][]float64{}
	for r := 0; r < *rounds; r++ {
		for _, c := range cases {
			bestT := math.Inf(1)
			for i := 0; i < 3; i++ {
				t := threadNow()
				c.run()
				bestT = min(bestT, threadNow()-t)
			}
			times[c.name] = append(times[c.name], bestT*1e3)
		}
		out, err := exec.Command(*python, "-c", script).CombinedOutput()
		if err != nil {
			fmt.Printf("NumPy peer failed: %v\n%s\n", err, out)
			return
		}
		f := strings.Fields(string(out))
		for i, name := range []string{"numpy f32 sort", "numpy f32 argsort", "numpy bf16 sort", "numpy bf16 argsort"} {
			v, _ := strconv.ParseFloat(f[i], 64)
			times[name] = append(times[name], v)
		}
	}
	med := func(name string) float64 {
		v := times[name]
		slices.Sort(v)
		return v[len(v)/2]
	}
	header("case", "kiln ms", "numpy ms", "kiln / numpy time")
	for _, c := range cases {
		k, p := med(c.name), med("numpy "+c.name)
		row(c.name, f1(k), f1(p), f2(k/p)+"×")
	}
	fmt.Println()
}

func threadNow() float64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return float64(ts.Nano()) / 1e9
}

// topk: the 10 largest of 50,000 logits against a full sort of the row.
func topk() {
	const n, k = 50000, 10
	fmt.Printf("## Top-%d of %d float32 logits, µs per call\n\n", k, n)
	x := randF32(n, 14)
	keys := make([]float32, n)
	idx := make([]int32, n)
	vals := make([]float32, k)
	ti := make([]int32, k)
	best := kiln.ISALevels()[0]
	res := rate([]impl{
		{"topk", best, func() { kiln.TopKF32(vals, ti, x, n, k, true) }},
		{"argsort", best, func() {
			copy(keys, x)
			for i := range idx {
				idx[i] = int32(i)
			}
			kiln.SortF32(keys, idx, n, kiln.SortDescending)
		}},
		{"sort", best, func() { copy(keys, x); kiln.SortF32(keys, nil, n, kiln.SortDescending) }},
	})
	header("TopKF32", "full argsort (SortF32 with indices)", "full sort", "top-k time / argsort time", "top-k time / sort time")
	row(f1(1e6/res["topk"]), f1(1e6/res["argsort"]), f1(1e6/res["sort"]), f2(res["argsort"]/res["topk"]), f2(res["sort"]/res["topk"]))
	fmt.Println()
}

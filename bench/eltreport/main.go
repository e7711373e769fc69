// Command eltreport measures Kiln's elementwise, reduction, softmax,
// layer-norm and data-movement kernels beside STREAM-style copies and scalar
// Go loops, with the contenders interleaved round by round (as gemmreport
// does), and prints the medians and the ratios the targets are stated in as
// Markdown tables. Each window is timed in the process's CPU time by
// default, so that on a shared machine other tenants' time slices do not
// count (their use of the shared caches, memory and FP units still does).
// One thread throughout.
//
//	go run ./eltreport -rounds 9
//
// go test -bench 'Stream|L1|Call1024|Softmax|LayerNorm|Movement' in this
// module gives the same cases in benchstat's format.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
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
	rounds = flag.Int("rounds", 9, "interleaved rounds per case; the median is reported")
	window = flag.Duration("window", 30*time.Millisecond, "time each contender runs per round")
	clock  = flag.String("clock", "cpu", "cpu: time windows in the process's CPU time; wall: elapsed time")
	only   = flag.String("tables", "stream,l1,calls,rows,movement", "tables to print")
)

// Peer figures from shared/peers/RESULTS.md (PyTorch 1.13 on this machine,
// one thread).
const (
	torchExp16M    = 2.54  // Gelem/s
	torchSoftmaxUS = 264.5 // [128, 3072]
	torchLNormUS   = 44.8  // [128, 768]
	torchAdd16M    = 37.0  // GB/s
	torchSum16M    = 36.4  // GB/s
)

func main() {
	flag.Parse()
	runtime.GOMAXPROCS(1)
	kiln.SetThreads(1)
	levels := slices.DeleteFunc(kiln.ISALevels(), func(l string) bool { return l == "generic" })
	fmt.Printf("# Kiln elementwise kernels: medians over %d interleaved rounds of %v (%s clock), one thread; %s\n\n",
		*rounds, *window, *clock, kiln.Features())
	tables := strings.Split(*only, ",")
	if slices.Contains(tables, "stream") {
		stream(levels)
	}
	if slices.Contains(tables, "l1") {
		l1(levels)
	}
	if slices.Contains(tables, "calls") {
		calls(levels)
	}
	if slices.Contains(tables, "rows") {
		rows(levels)
	}
	if slices.Contains(tables, "movement") {
		movement(levels)
	}
}

// rate runs every contender for a window in each round, in turn (the order
// rotating), and returns each one's median calls per second. The clock is
// read around batches of calls that take about a millisecond: reading the
// CPU clock is a system call (0.6 µs here), longer than the small kernels.
func rate(impls []impl) map[string]float64 {
	rates := map[string][]float64{}
	batch := map[string]int{}
	for _, im := range impls { // warm up (first touch, caches) and size the batches
		if im.level != "" {
			kiln.SetISA(im.level)
		}
		im.run()
		t := time.Now()
		n := 0
		for time.Since(t) < time.Millisecond {
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
	if *clock == "wall" {
		return float64(time.Now().UnixNano()) / 1e9
	}
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func randSlice(n int, scale float64, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, seed+1))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32((r.Float64()*2 - 1) * scale)
	}
	return x
}

func row(cells ...string) { fmt.Println("| " + strings.Join(cells, " | ") + " |") }

func header(cells ...string) {
	row(cells...)
	fmt.Println("|" + strings.Repeat("---|", len(cells)))
}

func f1(x float64) string { return fmt.Sprintf("%.1f", x) }
func f2(x float64) string { return fmt.Sprintf("%.2f", x) }

// stream: 16M float32 (64 MiB per array). Bytes as STREAM counts them.
func stream(levels []string) {
	const n = 16 << 20
	a, b, c := randSlice(n, 2, 1), randSlice(n, 2, 2), randSlice(n, 2, 3)
	var sink float32
	type op struct {
		name   string
		bytes  float64
		kernel func()
		loop   func() // a plain Go loop, when there is one
	}
	ops := []op{
		{"copy", 8, nil, func() {
			for i := range a {
				a[i] = b[i]
			}
		}},
		{"scale x·s", 8, func() { kiln.MulScalar(a, b, 3) }, nil},
		{"add x+y", 12, func() { kiln.Add(a, b, c) }, func() {
			for i := range a {
				a[i] = b[i] + c[i]
			}
		}},
		{"triad x·s+y", 12, func() { kiln.MulScalarAdd(a, b, 3, c) }, nil},
		{"fma x·y+z", 16, func() { kiln.MulAdd(a, b, c, a) }, nil},
		{"relu", 8, func() { kiln.Relu(a, b) }, nil},
		{"sum", 4, func() { sink += kiln.Sum(b) }, nil},
		{"max", 4, func() { sink += kiln.Max(b) }, nil},
		{"exp", 8, func() { kiln.Exp(a, b) }, nil},
		{"tanh", 8, func() { kiln.Tanh(a, b) }, nil},
		{"f32→bf16", 6, func() { kiln.F32ToBF16(u16(n), b) }, nil},
	}
	var impls []impl
	impls = append(impls, impl{"go copy()", "", func() { copy(a, b) }})
	for _, o := range ops {
		if o.loop != nil {
			impls = append(impls, impl{o.name + "/go-loop", "", o.loop})
		}
		for _, l := range levels {
			if o.kernel != nil {
				impls = append(impls, impl{o.name + "/" + l, l, o.kernel})
			}
		}
	}
	res := rate(impls)
	cp, loop := 8*n*res["go copy()"]/1e9, 8*n*res["copy/go-loop"]/1e9
	fmt.Printf("## 16M float32 (64 MiB per array), GB/s as STREAM counts bytes\n\n")
	fmt.Printf("STREAM-style copies in the same rounds: Go's copy() (memmove, non-temporal stores at this size) %.1f GB/s, a plain Go loop (ordinary stores) %.1f GB/s.\n\n", cp, loop)
	cells := []string{"op", "bytes/elem"}
	for _, l := range levels {
		cells = append(cells, "kiln "+l)
	}
	cells = append(cells, "go loop", "best / copy()", "best / loop copy", "Gelem/s (best)")
	header(cells...)
	for _, o := range ops[1:] {
		r := []string{o.name, fmt.Sprint(o.bytes)}
		best := 0.0
		for _, l := range levels {
			g := o.bytes * n * res[o.name+"/"+l] / 1e9
			best = max(best, g)
			r = append(r, f1(g))
		}
		if o.loop != nil {
			r = append(r, f1(o.bytes*n*res[o.name+"/go-loop"]/1e9))
		} else {
			r = append(r, "")
		}
		r = append(r, f2(best/cp), f2(best/loop), f2(best/o.bytes))
		row(r...)
	}
	fmt.Printf("\nPyTorch 1.13 (RESULTS.md, one thread): add 37.0 GB/s, sum 36.4 GB/s, exp %.2f Gelem/s; the exp target is 1.6× that, %.2f Gelem/s.\n\n", torchExp16M, 1.6*torchExp16M)
	_ = sink
}

var u16buf []uint16

func u16(n int) []uint16 {
	if len(u16buf) != n {
		u16buf = make([]uint16, n)
	}
	return u16buf
}

// l1: 1024 elements in L1, against a scalar Go loop calling math in float64
// (direct calls, which the compiler can inline and schedule best).
func l1(levels []string) {
	const n = 1024
	x := randSlice(n, 10, 4)
	dst := make([]float32, n)
	fns := []struct {
		name string
		k    func(dst, x []float32)
		loop func()
	}{
		{"exp", kiln.Exp, func() {
			for i, v := range x {
				dst[i] = float32(math.Exp(float64(v)))
			}
		}},
		{"tanh", kiln.Tanh, func() {
			for i, v := range x {
				dst[i] = float32(math.Tanh(float64(v)))
			}
		}},
		{"logistic", kiln.Logistic, func() {
			for i, v := range x {
				dst[i] = float32(1 / (1 + math.Exp(-float64(v))))
			}
		}},
		{"log", kiln.Log, func() {
			for i, v := range x {
				dst[i] = float32(math.Log(math.Abs(float64(v))))
			}
		}},
		{"erf", kiln.Erf, func() {
			for i, v := range x {
				dst[i] = float32(math.Erf(float64(v)))
			}
		}},
		{"gelu", kiln.Gelu, func() {
			for i, v := range x {
				dst[i] = float32(float64(v) * 0.5 * math.Erfc(-float64(v)/math.Sqrt2))
			}
		}},
		{"gelu (tanh)", kiln.GeluTanh, func() {
			for i, v := range x {
				u := float64(v)
				dst[i] = float32(0.5 * u * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(u+0.044715*u*u*u))))
			}
		}},
		{"sin", kiln.Sin, func() {
			for i, v := range x {
				dst[i] = float32(math.Sin(float64(v)))
			}
		}},
	}
	xa := make([]float32, n) // log's operand: |x|
	for i, v := range x {
		xa[i] = float32(math.Abs(float64(v)))
	}
	var impls []impl
	for _, f := range fns {
		impls = append(impls, impl{f.name + "/go", "", f.loop})
		arg := x
		if f.name == "log" {
			arg = xa
		}
		for _, l := range levels {
			impls = append(impls, impl{f.name + "/" + l, l, func() { f.k(dst, arg) }})
		}
	}
	res := rate(impls)
	fmt.Printf("## 1024 float32 in L1: Gelem/s against a scalar Go loop calling math in float64\n\n")
	cells := []string{"function", "go math"}
	for _, l := range levels {
		cells = append(cells, "kiln "+l)
	}
	cells = append(cells, "best / go math")
	header(cells...)
	for _, f := range fns {
		g := n * res[f.name+"/go"] / 1e9
		r := []string{f.name, f2(g)}
		best := 0.0
		for _, l := range levels {
			v := n * res[f.name+"/"+l] / 1e9
			best = max(best, v)
			r = append(r, f2(v))
		}
		row(append(r, fmt.Sprintf("%.1f×", best/g))...)
	}
	fmt.Println()
}

// calls: ns per call on 1024 L1-resident elements, the compiler's tile.
func calls(levels []string) {
	const n = 1024
	x, y, z := randSlice(n, 1, 5), randSlice(n, 1, 6), randSlice(n, 1, 7)
	for i := range y {
		y[i] += 2
	}
	dst := make([]float32, n)
	mask := make([]uint8, n)
	h := make([]uint16, n)
	idx := make([]int32, n)
	var sink float32
	cs := []struct {
		name string
		f    func()
	}{
		{"Add", func() { kiln.Add(dst, x, y) }},
		{"MulScalar", func() { kiln.MulScalar(dst, x, 3) }},
		{"MulAdd", func() { kiln.MulAdd(dst, x, y, z) }},
		{"Maximum", func() { kiln.Maximum(dst, x, y) }},
		{"Relu", func() { kiln.Relu(dst, x) }},
		{"Less", func() { kiln.Less(mask, x, y) }},
		{"Select", func() { kiln.Select(dst, mask, x, y) }},
		{"Exp", func() { kiln.Exp(dst, x) }},
		{"Tanh", func() { kiln.Tanh(dst, x) }},
		{"Logistic", func() { kiln.Logistic(dst, x) }},
		{"Gelu", func() { kiln.Gelu(dst, x) }},
		{"GeluTanh", func() { kiln.GeluTanh(dst, x) }},
		{"Log", func() { kiln.Log(dst, y) }},
		{"Pow", func() { kiln.Pow(dst, y, x) }},
		{"Sin", func() { kiln.Sin(dst, x) }},
		{"F32ToF16", func() { kiln.F32ToF16(h, x) }},
		{"F16ToF32", func() { kiln.F16ToF32(dst, h) }},
		{"F32ToS32", func() { kiln.F32ToS32(idx, x) }},
		{"Sum", func() { sink += kiln.Sum(x) }},
		{"Max", func() { sink += kiln.Max(x) }},
		{"ArgMax", func() { sink += float32(kiln.ArgMax(x)) }},
		{"Softmax 1×1024", func() { kiln.Softmax(dst, x, n) }},
		{"LayerNorm 1×1024", func() { kiln.LayerNorm(dst, x, n, y, z, 1e-5) }},
		{"Transpose 32×32", func() { kiln.Transpose(dst, x, 32, 32) }},
		{"Fill", func() { kiln.Fill(dst, 1) }},
	}
	var impls []impl
	for _, c := range cs {
		for _, l := range levels {
			impls = append(impls, impl{c.name + "/" + l, l, c.f})
		}
	}
	res := rate(impls)
	fmt.Printf("## ns per call on 1024 float32 (L1-resident)\n\n")
	cells := []string{"kernel"}
	for _, l := range levels {
		cells = append(cells, "kiln "+l)
	}
	header(cells...)
	for _, c := range cs {
		r := []string{c.name}
		for _, l := range levels {
			r = append(r, f1(1e9/res[c.name+"/"+l]))
		}
		row(r...)
	}
	fmt.Println()
	_ = sink
}

// rows: softmax over [128, 3072] and layer norm over [128, 768].
func rows(levels []string) {
	x := randSlice(128*3072, 4, 8)
	dst := make([]float32, len(x))
	xl := randSlice(128*768, 1, 9)
	dl := make([]float32, len(xl))
	g, b := randSlice(768, 1, 10), randSlice(768, 1, 11)
	var impls []impl
	for _, l := range levels {
		impls = append(impls,
			impl{"softmax/" + l, l, func() { kiln.Softmax(dst, x, 3072) }},
			impl{"layernorm/" + l, l, func() { kiln.LayerNorm(dl, xl, 768, g, b, 1e-12) }})
	}
	res := rate(impls)
	fmt.Printf("## Softmax and layer norm rows (BERT-base shapes)\n\n")
	header("case", "level", "µs", "Gelem/s", "GB/s of the passes", "PyTorch µs", "PyTorch / kiln")
	for _, l := range levels {
		us := 1e6 / res["softmax/"+l]
		row("softmax [128, 3072]", l, f1(us), f2(128*3072/us/1e3), f1(20*128*3072/us/1e3), f1(torchSoftmaxUS), fmt.Sprintf("%.1f×", torchSoftmaxUS/us))
	}
	for _, l := range levels {
		us := 1e6 / res["layernorm/"+l]
		row("layer norm [128, 768]", l, f1(us), f2(128*768/us/1e3), f1(16*128*768/us/1e3), f1(torchLNormUS), fmt.Sprintf("%.1f×", torchLNormUS/us))
	}
	fmt.Println("\nThe passes: softmax reads x twice and writes dst, then reads and writes dst again (20 B per element); layer norm reads x three times and writes dst (16 B per element; gamma and beta stay in cache).")
	fmt.Println()
}

// movement: transposes and permutations, GB/s (read and write once).
func movement(levels []string) {
	cases := []struct {
		name  string
		shape []int
		perm  []int
	}{
		{"transpose 1024×1024", []int{1024, 1024}, []int{1, 0}},
		{"NCHW→NHWC 1×64×56×56", []int{1, 64, 56, 56}, []int{0, 2, 3, 1}},
		{"NHWC→NCHW 1×56×56×64", []int{1, 56, 56, 64}, []int{0, 3, 1, 2}},
		{"split heads 1×128×12×64", []int{1, 128, 12, 64}, []int{0, 2, 1, 3}},
	}
	type data struct{ x, dst []float32 }
	ds := make([]data, len(cases))
	var impls []impl
	for i, c := range cases {
		n := 1
		for _, d := range c.shape {
			n *= d
		}
		ds[i] = data{randSlice(n, 1, uint64(20+i)), make([]float32, n)}
		d := ds[i]
		impls = append(impls, impl{c.name + "/go", "", func() { permuteLoop(d.dst, d.x, c.shape, c.perm) }})
		for _, l := range levels {
			impls = append(impls, impl{c.name + "/" + l, l, func() { kiln.Permute(d.dst, d.x, c.shape, c.perm) }})
		}
	}
	res := rate(impls)
	fmt.Printf("## Transposes and permutations, GB/s (8 B per element: read and write once)\n\n")
	cells := []string{"case", "go loop"}
	for _, l := range levels {
		cells = append(cells, "kiln "+l)
	}
	cells = append(cells, "best / go loop")
	header(cells...)
	for i, c := range cases {
		bytes := 8 * float64(len(ds[i].x))
		gl := bytes * res[c.name+"/go"] / 1e9
		r := []string{c.name, f1(gl)}
		best := 0.0
		for _, l := range levels {
			v := bytes * res[c.name+"/"+l] / 1e9
			best = max(best, v)
			r = append(r, f1(v))
		}
		row(append(r, fmt.Sprintf("%.1f×", best/gl))...)
	}
	fmt.Println()
}

// permuteLoop is the plain loop: for every output index, the input index.
func permuteLoop(dst, x []float32, shape, perm []int) {
	r := len(shape)
	var in, out [8]int
	st := 1
	for i := r - 1; i >= 0; i-- {
		in[i] = st
		st *= shape[i]
	}
	for o := 0; o < r; o++ {
		out[o] = in[perm[o]]
	}
	var idx [8]int
	src := 0
	for i := range dst {
		dst[i] = x[src]
		for k := r - 1; k >= 0; k-- {
			idx[k]++
			src += out[k]
			if idx[k] < shape[perm[k]] {
				break
			}
			src -= out[k] * idx[k]
			idx[k] = 0
		}
	}
}

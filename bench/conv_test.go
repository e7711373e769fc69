package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln"
	"golang.org/x/sys/unix"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// convLayer is an NHWC batch-1 convolution with SAME padding, named as the
// peers' table names it (../shared/peers/RESULTS.md).
type convLayer struct {
	name         string
	h, w, ci, co int
	k, stride    int
	depthwise    bool
}

var convLayers = []convLayer{
	{name: "conv3x3_56x56x64->64", h: 56, w: 56, ci: 64, co: 64, k: 3, stride: 1},
	{name: "conv3x3_28x28x128->128", h: 28, w: 28, ci: 128, co: 128, k: 3, stride: 1},
	{name: "conv3x3_14x14x256->256", h: 14, w: 14, ci: 256, co: 256, k: 3, stride: 1},
	{name: "conv3x3_7x7x512->512", h: 7, w: 7, ci: 512, co: 512, k: 3, stride: 1},
	{name: "conv7x7s2_224x224x3->64", h: 224, w: 224, ci: 3, co: 64, k: 7, stride: 2},
	{name: "conv1x1_56x56x256->64", h: 56, w: 56, ci: 256, co: 64, k: 1, stride: 1},
	{name: "dwconv3x3_112x112x32", h: 112, w: 112, ci: 32, co: 32, k: 3, stride: 1, depthwise: true},
}

// same returns XLA's SAME padding of one dimension: the output has
// ⌈in/stride⌉ elements, the padding is split with the extra element after.
func same(in, k, stride int) (out, lo, hi int) {
	out = (in + stride - 1) / stride
	total := max((out-1)*stride+k-in, 0)
	return out, total / 2, total - total/2
}

func (l convLayer) params() kiln.ConvParams {
	_, lo0, hi0 := same(l.h, l.k, l.stride)
	_, lo1, hi1 := same(l.w, l.k, l.stride)
	p := kiln.ConvParams{InChannels: l.ci, OutChannels: l.co, Kernel: []int{l.k, l.k}, Strides: []int{l.stride, l.stride},
		PadLow: []int{lo0, lo1}, PadHigh: []int{hi0, hi1}}
	if l.depthwise {
		p.Groups = l.ci
	}
	return p
}

func (l convLayer) outSize() (int, int) {
	oh, _, _ := same(l.h, l.k, l.stride)
	ow, _, _ := same(l.w, l.k, l.stride)
	return oh, ow
}

// flops is the nominal count the peers use: 2·Ho·Wo·Co·(Ci/groups)·Kh·Kw,
// padding taps included.
func (l convLayer) flops() float64 {
	oh, ow := l.outSize()
	ciG := l.ci
	if l.depthwise {
		ciG = 1
	}
	return 2 * float64(oh*ow*l.co*ciG*l.k*l.k)
}

// convOperands are a layer's input, HWIO weights and output.
type convOperands struct {
	x, w, y []float32
}

func newConvOperands(l convLayer) convOperands {
	r := rand.New(rand.NewPCG(uint64(l.h*l.ci), uint64(l.co*l.k)))
	fill := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(r.Float64()*2 - 1)
		}
		return s
	}
	oh, ow := l.outSize()
	ciG := l.ci
	if l.depthwise {
		ciG = 1
	}
	return convOperands{x: fill(l.h * l.w * l.ci), w: fill(l.k * l.k * ciG * l.co), y: make([]float32, oh*ow*l.co)}
}

// naiveConv is the plain Go loop: for each output pixel and channel, the sum
// over the window, skipping the padding.
func naiveConv(l convLayer, x, w, y []float32) {
	oh, ow := l.outSize()
	_, padH, _ := same(l.h, l.k, l.stride)
	_, padW, _ := same(l.w, l.k, l.stride)
	ciG := l.ci
	if l.depthwise {
		ciG = 1
	}
	for oy := 0; oy < oh; oy++ {
		for ox := 0; ox < ow; ox++ {
			out := y[(oy*ow+ox)*l.co:][:l.co]
			clear(out)
			for ky := 0; ky < l.k; ky++ {
				iy := oy*l.stride - padH + ky
				if iy < 0 || iy >= l.h {
					continue
				}
				for kx := 0; kx < l.k; kx++ {
					ix := ox*l.stride - padW + kx
					if ix < 0 || ix >= l.w {
						continue
					}
					in := x[(iy*l.w+ix)*l.ci:][:l.ci]
					wt := w[(ky*l.k+kx)*ciG*l.co:]
					if l.depthwise {
						for c := range out {
							out[c] += in[c] * wt[c]
						}
						continue
					}
					for ci, xv := range in {
						for c, wv := range wt[ci*l.co : ci*l.co+l.co] {
							out[c] += xv * wv
						}
					}
				}
			}
		}
	}
}

// im2colGonum is the usual pure-Go convolution: the patches of every output
// pixel copied into a matrix (zeros for padding), times the HWIO weights with
// gonum's Sgemm.
type im2colGonum struct {
	l    convLayer
	cols []float32
}

func newIm2colGonum(l convLayer) *im2colGonum {
	oh, ow := l.outSize()
	return &im2colGonum{l: l, cols: make([]float32, oh*ow*l.k*l.k*l.ci)}
}

func (g *im2colGonum) run(x, w, y []float32) {
	l := g.l
	oh, ow := l.outSize()
	_, padH, _ := same(l.h, l.k, l.stride)
	_, padW, _ := same(l.w, l.k, l.stride)
	k := l.k * l.k * l.ci
	for oy := 0; oy < oh; oy++ {
		for ox := 0; ox < ow; ox++ {
			row := g.cols[(oy*ow+ox)*k:][:k]
			for ky := 0; ky < l.k; ky++ {
				for kx := 0; kx < l.k; kx++ {
					dst := row[(ky*l.k+kx)*l.ci:][:l.ci]
					iy, ix := oy*l.stride-padH+ky, ox*l.stride-padW+kx
					if iy < 0 || iy >= l.h || ix < 0 || ix >= l.w {
						clear(dst)
						continue
					}
					copy(dst, x[(iy*l.w+ix)*l.ci:][:l.ci])
				}
			}
		}
	}
	gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, oh*ow, l.co, k, 1, g.cols, k, w, l.co, 0, y, l.co)
}

// processCPU returns the CPU time this process has used, user and system.
func processCPU() float64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// timed runs f b.N times and reports GFLOP/s of wall time and, as
// cpu-GFLOP/s, per second of the process's CPU time divided by the
// threads: on a machine shared with other work the second is what the
// cores did while the kernel had them.
func timed(b *testing.B, flops float64, threads int, f func()) {
	b.ReportAllocs()
	c0 := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f()
	}
	b.StopTimer()
	cpu := processCPU() - c0
	report(b, flops)
	if cpu > 0 {
		b.ReportMetric(flops*float64(b.N)/(cpu/float64(threads))/1e9, "cpu-GFLOP/s")
	}
}

// peakLanes is the float32 lanes of the vector level in use, as FMAPeak
// counts them: it returns 2·iters·chains·lanes FLOPs.
func peakLanes() int { return kiln.FMAPeak(1) / (2 * 12) }

// BenchmarkConv times the ResNet-like layers at each ISA level with the
// weights packed once, beside gonum (im2col + Sgemm, dense layers) and a
// plain Go loop (one thread), at one and two threads. GFLOP/s counts the
// nominal FLOPs of the peers' table. Compare with benchstat -col /impl.
func BenchmarkConv(b *testing.B) {
	for _, l := range convLayers {
		ops := newConvOperands(l)
		for _, t := range []int{1, 2} {
			for _, level := range kiln.ISALevels() {
				if level == "generic" && l.flops() > slowLimit {
					continue
				}
				prev, err := kiln.SetISA(level)
				if err != nil {
					b.Fatal(err)
				}
				pc, err := kiln.PackConv(ops.w, l.params())
				if err != nil {
					b.Fatal(err)
				}
				withThreads(t, func() {
					b.Run(fmt.Sprintf("layer=%s/threads=%d/impl=kiln-%s", l.name, t, level), func(b *testing.B) {
						timed(b, l.flops(), t, func() { kiln.Conv2D(ops.y, ops.x, 1, l.h, l.w, pc, kiln.ConvEpilogue{}) })
					})
				})
				kiln.SetISA(prev)
			}
			if !l.depthwise {
				g := newIm2colGonum(l)
				withThreads(t, func() {
					b.Run(fmt.Sprintf("layer=%s/threads=%d/impl=gonum-im2col", l.name, t), func(b *testing.B) {
						timed(b, l.flops(), t, func() { g.run(ops.x, ops.w, ops.y) })
					})
				})
			}
			withThreads(t, func() {
				b.Run(fmt.Sprintf("layer=%s/threads=%d/impl=fma-peak", l.name, t), func(b *testing.B) {
					// The core's FMA peak at the chosen level, measured beside each
					// layer so that ratios to it are taken under the same load.
					const iters = 1 << 16
					done := make(chan struct{}, t)
					timed(b, float64(t)*float64(2*iters*12*peakLanes()), t, func() {
						for w := 1; w < t; w++ {
							go func() { kiln.FMAPeak(iters); done <- struct{}{} }()
						}
						kiln.FMAPeak(iters)
						for w := 1; w < t; w++ {
							<-done
						}
					})
				})
			})
			if t == 1 {
				b.Run(fmt.Sprintf("layer=%s/threads=%d/impl=go-loop", l.name, t), func(b *testing.B) {
					timed(b, l.flops(), t, func() { naiveConv(l, ops.x, ops.w, ops.y) })
				})
			}
		}
	}
}

// TestConvMatchesLoop checks, at every level, that Kiln's convolution of
// each benchmarked layer (in small: the same kernel, stride, padding and
// channels on a smaller image) agrees with the plain loop, so the suite
// times correct code.
func TestConvMatchesLoop(t *testing.T) {
	for _, level := range kiln.ISALevels() {
		prev, _ := kiln.SetISA(level)
		for _, l := range convLayers {
			l.h, l.w = min(l.h, 11), min(l.w, 13)
			ops := newConvOperands(l)
			want := make([]float32, len(ops.y))
			naiveConv(l, ops.x, ops.w, want)
			pc, err := kiln.PackConv(ops.w, l.params())
			if err != nil {
				t.Fatal(err)
			}
			kiln.Conv2D(ops.y, ops.x, 1, l.h, l.w, pc, kiln.ConvEpilogue{})
			ciG := l.ci
			if l.depthwise {
				ciG = 1
			}
			bound := float64(l.k*l.k*ciG) * 0x1p-22
			for i := range want {
				if d := math.Abs(float64(ops.y[i] - want[i])); d > bound {
					t.Fatalf("%s %s: y[%d] = %v, loop %v", level, l.name, i, ops.y[i], want[i])
				}
			}
			if !l.depthwise {
				g := newIm2colGonum(l)
				g.run(ops.x, ops.w, ops.y)
				for i := range want {
					if d := math.Abs(float64(ops.y[i] - want[i])); d > bound {
						t.Fatalf("gonum-im2col %s: y[%d] = %v, loop %v", l.name, i, ops.y[i], want[i])
					}
				}
			}
		}
		kiln.SetISA(prev)
	}
}

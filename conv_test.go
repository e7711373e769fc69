package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// convCase is one convolution checked against the float64 reference.
type convCase struct {
	batch  int
	in     []int
	p      ConvParams
	bias   bool
	res    bool
	act    Activation
	offset int // elements by which x, y and the residual are misaligned
}

func (c convCase) String() string {
	return fmt.Sprintf("batch=%d in=%v ci=%d co=%d k=%v s=%v d=%v pad=%v/%v g=%d bias=%v res=%v act=%v off=%d",
		c.batch, c.in, c.p.InChannels, c.p.OutChannels, c.p.Kernel, c.p.Strides, c.p.Dilation, c.p.PadLow, c.p.PadHigh, c.p.Groups, c.bias, c.res, c.act, c.offset)
}

// convRef computes the convolution in float64 straight from its definition
// (ConvParams), with the epilogue, and the sum of the magnitudes of the
// terms of each output element (for the error bound).
func convRef(x []float32, batch int, in []int, w []float32, p ConvParams, bias, res []float32, act Activation) (want, mag []float64, out []int) {
	nd := len(p.Kernel)
	get := func(v []int, d, def int) int {
		if v == nil {
			return def
		}
		return v[d]
	}
	out = make([]int, nd)
	outPixels, inPixels, taps := 1, 1, 1
	for d := 0; d < nd; d++ {
		span := in[d] + get(p.PadLow, d, 0) + get(p.PadHigh, d, 0) - get(p.Dilation, d, 1)*(p.Kernel[d]-1) - 1
		if span >= 0 {
			out[d] = span/get(p.Strides, d, 1) + 1
		}
		outPixels *= out[d]
		inPixels *= in[d]
		taps *= p.Kernel[d]
	}
	groups := max(p.Groups, 1)
	ciG, coG := p.InChannels/groups, p.OutChannels/groups
	want = make([]float64, batch*outPixels*p.OutChannels)
	mag = make([]float64, len(want))
	o := make([]int, nd)
	k := make([]int, nd)
	for n := 0; n < batch; n++ {
		for op := 0; op < outPixels; op++ {
			rem := op
			for d := nd - 1; d >= 0; d-- {
				o[d] = rem % out[d]
				rem /= out[d]
			}
			for c := 0; c < p.OutChannels; c++ {
				g := c / coG
				var s, m float64
				for t := 0; t < taps; t++ {
					rem := t
					for d := nd - 1; d >= 0; d-- {
						k[d] = rem % p.Kernel[d]
						rem /= p.Kernel[d]
					}
					ip, inside := 0, true
					for d := 0; d < nd; d++ {
						i := o[d]*get(p.Strides, d, 1) - get(p.PadLow, d, 0) + k[d]*get(p.Dilation, d, 1)
						if i < 0 || i >= in[d] {
							inside = false
							break
						}
						ip = ip*in[d] + i
					}
					if !inside {
						continue
					}
					for ci := 0; ci < ciG; ci++ {
						xv := float64(x[(n*inPixels+ip)*p.InChannels+g*ciG+ci])
						wv := float64(w[(t*ciG+ci)*p.OutChannels+c])
						s += xv * wv
						m += math.Abs(xv * wv)
					}
				}
				idx := (n*outPixels+op)*p.OutChannels + c
				if res != nil {
					s += float64(res[idx])
					m += math.Abs(float64(res[idx]))
				}
				if bias != nil {
					s += float64(bias[c])
					m += math.Abs(float64(bias[c]))
				}
				switch act {
				case ActReLU:
					s = max(s, 0)
				case ActGeluTanh:
					s = 0.5 * s * (1 + math.Tanh(0.7978845608028654*(s+0.044715*s*s*s)))
				case ActGeluErf:
					s = 0.5 * s * (1 + math.Erf(s/math.Sqrt2))
				case ActSiLU:
					s = s / (1 + math.Exp(-s))
				}
				want[idx], mag[idx] = s, m
			}
		}
	}
	return want, mag, out
}

// checkConv packs and runs one case and compares every output element with
// the reference, and that nothing outside the output was written.
func checkConv(t *testing.T, r *rand.Rand, c convCase) {
	t.Helper()
	nd := len(c.p.Kernel)
	groups := max(c.p.Groups, 1)
	taps, inPixels := 1, 1
	for d := 0; d < nd; d++ {
		taps *= c.p.Kernel[d]
		inPixels *= c.in[d]
	}
	w := convRand(r, taps*c.p.InChannels/groups*c.p.OutChannels)
	xbuf := convRand(r, c.offset+c.batch*inPixels*c.p.InChannels+1)
	x := xbuf[c.offset : len(xbuf)-1]
	var bias, res []float32
	if c.bias {
		bias = convRand(r, c.p.OutChannels)
	}
	pc, err := PackConv(w, c.p)
	if err != nil {
		t.Fatalf("%v: PackConv: %v", c, err)
	}
	outPixels := 1
	for d := 0; d < nd; d++ {
		outPixels *= pc.OutSize(d, c.in[d])
	}
	n := c.batch * outPixels * c.p.OutChannels
	ybuf := convRand(r, c.offset+n+3)
	guard := append([]float32(nil), ybuf...)
	y := ybuf[c.offset : c.offset+n]
	if c.res {
		res = convRand(r, n)
	}
	want, mag, out := convRef(x, c.batch, c.in, w, c.p, bias, res, c.act)
	for d := range out {
		if out[d] != pc.OutSize(d, c.in[d]) {
			t.Fatalf("%v: OutSize(%d) = %d, reference %d", c, d, pc.OutSize(d, c.in[d]), out[d])
		}
	}
	switch nd {
	case 1:
		Conv1D(y, x, c.batch, c.in[0], pc, ConvEpilogue{Bias: bias, Residual: res, Act: c.act})
	case 2:
		Conv2D(y, x, c.batch, c.in[0], c.in[1], pc, ConvEpilogue{Bias: bias, Residual: res, Act: c.act})
	default:
		Conv(y, x, c.batch, c.in, pc, ConvEpilogue{Bias: bias, Residual: res, Act: c.act})
	}
	for i := range ybuf {
		if i >= c.offset && i < c.offset+n {
			continue
		}
		if ybuf[i] != guard[i] {
			t.Fatalf("%v: element %d outside the output was written", c, i-c.offset)
		}
	}
	for i, g := range y {
		bound := 2e-6*mag[i] + 1e-6
		if d := math.Abs(float64(g) - want[i]); !(d <= bound) {
			t.Fatalf("%v: y[%d] = %v, want %v (|error| %.3g > %.3g)", c, i, g, want[i], d, bound)
		}
	}
}

// TestConvAgainstReference checks every combination of stride, padding and
// dilation on small 2-D shapes, odd channel counts, batches of 1 and 2,
// groups and every epilogue, against the float64 definition.
func TestConvAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pads := [][2]int{{0, 0}, {1, 1}, {2, 1}, {0, 2}, {-1, 1}}
	for _, k := range []int{1, 2, 3} {
		for _, s := range []int{1, 2, 3} {
			for _, d := range []int{1, 2} {
				for pi, pad := range pads {
					chans := [][2]int{{1, 1}, {3, 5}, {5, 17}, {17, 3}}
					ch := chans[(k+s+d+pi)%len(chans)]
					c := convCase{
						batch: 1 + (k+pi)%2,
						in:    []int{4 + (pi+s)%4, 5 + (k+d)%5},
						p: ConvParams{InChannels: ch[0], OutChannels: ch[1], Kernel: []int{k, 1 + (k+pi)%3},
							Strides: []int{s, 1 + (s+d)%2}, Dilation: []int{d, 1 + (d+pi)%2},
							PadLow: []int{pad[0], pad[1]}, PadHigh: []int{pad[1], pad[0]}},
						bias:   (k+s+pi)%2 == 0,
						res:    (s+d+pi)%3 == 0,
						act:    Activation((k + s + d + pi) % len(activations)),
						offset: (k + pi) % 3,
					}
					checkConv(t, r, c)
				}
			}
		}
	}
}

// TestConvChannels covers channel counts around the vector widths and tile
// widths (partial columns, several panels) and the ResNet-like shapes in small.
func TestConvChannels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, co := range []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 100, 130} {
		ci := []int{1, 3, 5, 16, 17, 64}[co%6]
		checkConv(t, r, convCase{batch: 1, in: []int{5, 7}, p: ConvParams{InChannels: ci, OutChannels: co, Kernel: []int{3, 3},
			PadLow: []int{1, 1}, PadHigh: []int{1, 1}}, bias: co%2 == 0, res: co%3 == 0, act: ActReLU})
	}
	// Wide images, long runs split into several tiles, 1×1 with and without stride.
	checkConv(t, r, convCase{batch: 2, in: []int{3, 61}, p: ConvParams{InChannels: 7, OutChannels: 40, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}}, bias: true})
	checkConv(t, r, convCase{batch: 2, in: []int{5, 23}, p: ConvParams{InChannels: 19, OutChannels: 70, Kernel: []int{1, 1}}, bias: true, res: true})
	checkConv(t, r, convCase{batch: 1, in: []int{9, 11}, p: ConvParams{InChannels: 19, OutChannels: 33, Kernel: []int{1, 1}, Strides: []int{2, 2}}, act: ActReLU})
	checkConv(t, r, convCase{batch: 1, in: []int{17, 17}, p: ConvParams{InChannels: 3, OutChannels: 16, Kernel: []int{7, 7}, Strides: []int{2, 2}, PadLow: []int{2, 2}, PadHigh: []int{3, 3}}, bias: true, act: ActReLU})
}

// TestConvGroups checks grouped convolutions, depthwise ones (direct
// kernels) and depthwise ones with a channel multiplier (per-group GEMMs).
func TestConvGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, g := range []int{2, 3, 4} {
		checkConv(t, r, convCase{batch: 2, in: []int{5, 6}, p: ConvParams{InChannels: 6 * g / 2, OutChannels: 5 * g, Kernel: []int{3, 2},
			Strides: []int{1, 2}, PadLow: []int{1, 0}, PadHigh: []int{1, 1}, Groups: g}, bias: true, res: g == 3, act: ActReLU, offset: g % 2})
	}
	for _, ch := range []int{1, 3, 5, 8, 16, 17, 31, 32, 33, 48, 50, 64, 70} {
		for _, k := range []int{3, 5} {
			checkConv(t, r, convCase{batch: 1 + ch%2, in: []int{7, 9 + k}, p: ConvParams{InChannels: ch, OutChannels: ch, Kernel: []int{k, k},
				Strides: []int{1 + ch%2, 1}, PadLow: []int{k / 2, k / 2}, PadHigh: []int{k / 2, k / 2}, Groups: ch}, bias: ch%3 != 0, res: ch%2 == 0, act: Activation(ch % len(activations)), offset: ch % 3})
		}
	}
	// Dilated depthwise and a channel multiplier of 2.
	checkConv(t, r, convCase{batch: 1, in: []int{9, 9}, p: ConvParams{InChannels: 20, OutChannels: 20, Kernel: []int{3, 3}, Dilation: []int{2, 2}, PadLow: []int{2, 2}, PadHigh: []int{2, 2}, Groups: 20}, bias: true})
	checkConv(t, r, convCase{batch: 1, in: []int{6, 7}, p: ConvParams{InChannels: 5, OutChannels: 10, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}, Groups: 5}, bias: true, act: ActReLU})
}

// TestConvDims checks 1-D and 3-D convolutions and degenerate shapes.
func TestConvDims(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, s := range []int{1, 2} {
		checkConv(t, r, convCase{batch: 2, in: []int{29}, p: ConvParams{InChannels: 5, OutChannels: 33, Kernel: []int{4}, Strides: []int{s}, PadLow: []int{2}, PadHigh: []int{1}}, bias: true, act: ActGeluTanh})
		checkConv(t, r, convCase{batch: 1, in: []int{4, 5, 6}, p: ConvParams{InChannels: 3, OutChannels: 9, Kernel: []int{2, 3, 3}, Strides: []int{s, 1, s}, PadLow: []int{1, 1, 1}, PadHigh: []int{0, 1, 1}}, res: true, act: ActReLU})
		checkConv(t, r, convCase{batch: 1, in: []int{3, 4, 5, 3}, p: ConvParams{InChannels: 2, OutChannels: 3, Kernel: []int{2, 2, 2, 2}, Strides: []int{1, s, 1, 1}, PadLow: []int{0, 1, 0, 1}, PadHigh: []int{1, 0, 1, 0}}, bias: true})
	}
	// Kernels larger than the input, windows outside it, no input channels,
	// a zero-sized kernel dimension, an empty batch.
	checkConv(t, r, convCase{batch: 1, in: []int{2, 3}, p: ConvParams{InChannels: 3, OutChannels: 5, Kernel: []int{5, 5}, PadLow: []int{3, 3}, PadHigh: []int{3, 3}}, bias: true, res: true, act: ActReLU})
	checkConv(t, r, convCase{batch: 1, in: []int{4, 4}, p: ConvParams{InChannels: 2, OutChannels: 3, Kernel: []int{1, 1}, PadLow: []int{2, 0}, PadHigh: []int{2, 0}}, bias: true})
	checkConv(t, r, convCase{batch: 2, in: []int{3, 3}, p: ConvParams{InChannels: 0, OutChannels: 4, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}}, bias: true, res: true})
	checkConv(t, r, convCase{batch: 1, in: []int{3, 3}, p: ConvParams{InChannels: 2, OutChannels: 4, Kernel: []int{0, 1}, PadLow: []int{1, 0}, PadHigh: []int{1, 0}}, bias: true})
	checkConv(t, r, convCase{batch: 0, in: []int{3, 3}, p: ConvParams{InChannels: 2, OutChannels: 4, Kernel: []int{3, 3}}})
	checkConv(t, r, convCase{batch: 1, in: []int{2, 2}, p: ConvParams{InChannels: 2, OutChannels: 4, Kernel: []int{3, 3}}})
}

// TestConvThreads runs a call big enough to split, over tiles and over
// columns, with several threads, against one thread.
func TestConvThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	prev, prevWork := SetThreads(3), minConvWork
	minConvWork = 1 << 10
	defer func() { SetThreads(prev); minConvWork = prevWork }()
	checkConv(t, r, convCase{batch: 2, in: []int{12, 14}, p: ConvParams{InChannels: 16, OutChannels: 48, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}}, bias: true, res: true, act: ActReLU})
	checkConv(t, r, convCase{batch: 1, in: []int{3, 3}, p: ConvParams{InChannels: 64, OutChannels: 200, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}}, bias: true})
	checkConv(t, r, convCase{batch: 1, in: []int{20, 20}, p: ConvParams{InChannels: 24, OutChannels: 24, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}, Groups: 24}, bias: true, act: ActReLU})
}

// TestConvBlocksOfTaps runs convolutions whose weights exceed the L2
// budget, so that their taps are split into blocks accumulated through the
// output, with a residual that is the output itself.
func TestConvBlocksOfTaps(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	ci, co := 64, 72
	prev := convBudget
	defer func() { convBudget = prev }()
	for _, inPlace := range []bool{false, true} {
		p := ConvParams{InChannels: ci, OutChannels: co, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}}
		w := convRand(r, 9*ci*co)
		x := convRand(r, 4*5*ci)
		bias := convRand(r, co)
		pc, err := PackConv(w, p)
		if err != nil {
			t.Fatal(err)
		}
		convBudget = 3 * ci * pc.nr * 4 // one row of taps
		if pl := pc.planFor(&[maxConvDims]int{4, 5}); pl.kblocks < 2 {
			t.Fatalf("expected several blocks of taps, plan has %d", pl.kblocks)
		}
		res := convRand(r, 4*5*co)
		want, mag, _ := convRef(x, 1, []int{4, 5}, w, p, bias, res, ActReLU)
		y := make([]float32, len(res))
		if inPlace {
			copy(y, res)
			Conv2D(y, x, 1, 4, 5, pc, ConvEpilogue{Bias: bias, Residual: y, Act: ActReLU})
		} else {
			Conv2D(y, x, 1, 4, 5, pc, ConvEpilogue{Bias: bias, Residual: res, Act: ActReLU})
		}
		for i, g := range y {
			if d := math.Abs(float64(g) - want[i]); !(d <= 2e-6*mag[i]+1e-6) {
				t.Fatalf("in place %v: y[%d] = %v, want %v", inPlace, i, g, want[i])
			}
		}
	}
}

// TestConvAllocs checks that a call in steady state allocates nothing, on
// one thread and on two.
func TestConvAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	r := rand.New(rand.NewPCG(17, 18))
	for _, p := range []ConvParams{
		{InChannels: 8, OutChannels: 24, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}},
		{InChannels: 24, OutChannels: 24, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}, Groups: 24},
	} {
		pc, err := PackConv(convRand(r, 9*p.InChannels/max(p.Groups, 1)*p.OutChannels), p)
		if err != nil {
			t.Fatal(err)
		}
		x := convRand(r, 2*24*24*p.InChannels)
		y := make([]float32, 2*24*24*p.OutChannels)
		bias := convRand(r, p.OutChannels)
		for _, threads := range []int{1, 2} {
			prev := SetThreads(threads)
			run := func() { Conv2D(y, x, 2, 24, 24, pc, ConvEpilogue{Bias: bias, Residual: y, Act: ActReLU}) }
			run()
			if a := testing.AllocsPerRun(20, run); a != 0 {
				t.Errorf("groups=%d threads=%d: %v allocations per call, want 0", p.Groups, threads, a)
			}
			SetThreads(prev)
		}
	}
}

// TestPackConvErrors checks that bad geometry is an error naming the parameter.
func TestPackConvErrors(t *testing.T) {
	for _, c := range []struct {
		p    ConvParams
		n    int
		want string
	}{
		{ConvParams{InChannels: 3, OutChannels: 4}, 0, "spatial dimensions"},
		{ConvParams{InChannels: 3, OutChannels: 4, Kernel: []int{3, 3}}, 10, "must have 108 elements"},
		{ConvParams{InChannels: 3, OutChannels: 4, Kernel: []int{3, 3}, Groups: 2}, 0, "multiples of Groups=2"},
		{ConvParams{InChannels: 3, OutChannels: 4, Kernel: []int{3, 3}, Strides: []int{1}}, 108, "Strides must have one element per spatial dimension (2), found 1"},
		{ConvParams{InChannels: 3, OutChannels: 4, Kernel: []int{3, 3}, Strides: []int{1, 0}}, 108, "Strides[1] must be at least 1"},
		{ConvParams{InChannels: 3, OutChannels: 4, Kernel: []int{3, 3}, Dilation: []int{0, 1}}, 108, "Dilation[0] must be at least 1"},
		{ConvParams{InChannels: 3, OutChannels: 4, Kernel: []int{-1, 3}}, 0, "Kernel[0] must not be negative"},
		{ConvParams{InChannels: -3, OutChannels: 4, Kernel: []int{3, 3}}, 0, "must not be negative"},
		{ConvParams{InChannels: 3, OutChannels: 4, Kernel: []int{1, 1, 1, 1, 1}}, 12, "want 1 to 4 spatial dimensions"},
	} {
		_, err := PackConv(make([]float32, c.n), c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PackConv(%+v): error %v, want one containing %q", c.p, err, c.want)
		}
	}
}

// TestConvPanics checks the programmer errors Conv panics on.
func TestConvPanics(t *testing.T) {
	pc, err := PackConv(make([]float32, 9*2*3), ConvParams{InChannels: 2, OutChannels: 3, Kernel: []int{3, 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { Conv2D(make([]float32, 27), make([]float32, 49), 1, 5, 5, pc, ConvEpilogue{}) }, "len(x) must be at least 50"},
		{func() { Conv2D(make([]float32, 26), make([]float32, 50), 1, 5, 5, pc, ConvEpilogue{}) }, "len(y) must be at least 27"},
		{func() {
			Conv2D(make([]float32, 27), make([]float32, 50), 1, 5, 5, pc, ConvEpilogue{Bias: []float32{1}})
		}, "len(Bias) must be at least OutChannels()=3"},
		{func() { Conv1D(make([]float32, 27), make([]float32, 50), 1, 5, pc, ConvEpilogue{}) }, "want 1"},
		{func() { Conv(make([]float32, 27), make([]float32, 50), 1, []int{5}, pc, ConvEpilogue{}) }, "found 1 input sizes"},
		{func() { Conv2D(make([]float32, 27), make([]float32, 50), 1, 5, 5, pc, ConvEpilogue{Act: 99}) }, "unknown activation"},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Errorf("panic %v, want one containing %q", r, c.want)
				}
			}()
			c.f()
		}()
	}
}

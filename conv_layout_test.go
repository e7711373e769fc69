package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// layoutCases are geometries for the run-time weights path: dense, grouped
// and depthwise, one to three spatial dimensions, channel counts around the
// tile widths and the pair kernels' block of 32.
func layoutCases() []convCase {
	pad := func(n, v int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	var cs []convCase
	for _, ch := range [][3]int{{3, 5, 1}, {16, 17, 1}, {64, 64, 1}, {8, 24, 4}, {32, 64, 2}, {7, 7, 7}, {32, 32, 32}, {33, 33, 33}, {64, 64, 64}, {96, 96, 96}} {
		cs = append(cs, convCase{batch: 2, in: []int{9, 11}, p: ConvParams{InChannels: ch[0], OutChannels: ch[1], Kernel: []int{3, 3},
			PadLow: pad(2, 1), PadHigh: pad(2, 1), Groups: ch[2]}, bias: true, act: ActReLU, offset: 1})
		cs = append(cs, convCase{batch: 1, in: []int{12, 7}, p: ConvParams{InChannels: ch[0], OutChannels: ch[1], Kernel: []int{3, 2},
			Strides: []int{2, 1}, Dilation: []int{1, 2}, PadLow: []int{0, 2}, PadHigh: []int{1, 0}, Groups: ch[2]}, res: true})
	}
	cs = append(cs,
		convCase{batch: 1, in: []int{13}, p: ConvParams{InChannels: 5, OutChannels: 9, Kernel: []int{5}, PadLow: pad(1, 2), PadHigh: pad(1, 2)}},
		convCase{batch: 1, in: []int{5, 6, 4}, p: ConvParams{InChannels: 6, OutChannels: 6, Kernel: []int{3, 3, 3}, PadLow: pad(3, 1), PadHigh: pad(3, 1), Groups: 6}, act: ActGeluTanh},
		convCase{batch: 1, in: []int{4, 4}, p: ConvParams{InChannels: 0, OutChannels: 4, Kernel: []int{3, 3}}},
		convCase{batch: 1, in: []int{4, 4}, p: ConvParams{InChannels: 4, OutChannels: 4, Kernel: []int{0, 3}}},
	)
	return cs
}

// TestConvWithAgainstReference runs every case on a layout with weights
// packed by PackWeights into an unaligned caller's buffer, at every level,
// against the float64 definition, and the bfloat16 and binary16 depthwise
// forms (ConvBF16With, ConvF16With) over channel counts around the pair
// kernels' block against theirs.
func TestConvWithAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	forEachLevel(t, func(level string) {
		for _, c := range layoutCases() {
			name := fmt.Sprintf("%s %v", level, c)
			lay, w, packed := layoutOf(t, r, c.p, nil)
			inPixels, outPixels := 1, 1
			for d := range c.in {
				inPixels *= c.in[d]
				outPixels *= lay.OutSize(d, c.in[d])
			}
			x := convRand(r, c.batch*inPixels*c.p.InChannels)
			n := c.batch * outPixels * c.p.OutChannels
			var bias, res []float32
			if c.bias {
				bias = convRand(r, c.p.OutChannels)
			}
			if c.res {
				res = convRand(r, n)
			}
			want, mag, _ := convRef(x, c.batch, c.in, w, c.p, bias, res, c.act)
			got := make([]float32, n)
			ConvWith(got, x, c.batch, c.in, lay, packed, ConvEpilogue{Bias: bias, Residual: res, Act: c.act})
			for i, g := range got {
				bound := 2e-6*mag[i] + 1e-6
				if d := math.Abs(float64(g) - want[i]); !(d <= bound) {
					t.Fatalf("%s: y[%d] = %v, want %v (|error| %.3g > %.3g)", name, i, g, want[i], d, bound)
				}
			}
		}
		for _, bf16 := range []bool{true, false} {
			for _, ch := range []int{7, 32, 33, 64, 96} {
				for _, stride := range []int{1, 2} {
					for _, pad := range []int{0, 1} {
						h, wd := 9, 13
						name := fmt.Sprintf("%s bf16=%v c=%d stride %d pad %d", level, bf16, ch, stride, pad)
						p := ConvParams{InChannels: ch, OutChannels: ch, Kernel: []int{3, 3}, Strides: []int{stride, stride},
							PadLow: []int{pad, pad}, PadHigh: []int{pad, pad}, Groups: ch}
						lay, w, packed := layoutOf(t, r, p, func(f float32) float32 { return widenNarrow(roundNarrow(f, bf16), bf16) })
						x := narrowRand(r, h*wd*ch, bf16, true)
						want, mag, _, _ := narrowDepthwiseRef(x, w, ch, h, wd, 3, 3, stride, pad, bf16)
						got := make([]uint16, len(want))
						if bf16 {
							ConvBF16With(got, x, 1, []int{h, wd}, lay, packed, nil)
						} else {
							ConvF16With(got, x, 1, []int{h, wd}, lay, packed, nil)
						}
						for i := range want {
							if !narrowClose(got[i], want[i], mag[i], bf16) {
								t.Fatalf("%s: y[%d] = %#04x, want %#04x", name, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	})
}

// layoutOf makes a layout for p and random weights (passed through round
// when not nil), packed by PackWeights into a buffer that starts one
// element into its array, and checks that the layout packs as many
// elements as PackConv.
func layoutOf(t *testing.T, r *rand.Rand, p ConvParams, round func(float32) float32) (lay *PackedConv, w, packed []float32) {
	t.Helper()
	lay, err := PackConvLayout(p)
	if err != nil {
		t.Fatalf("PackConvLayout(%+v): %v", p, err)
	}
	w = convRand(r, lay.WeightsLen())
	if round != nil {
		for i := range w {
			w[i] = round(w[i])
		}
	}
	pc, err := PackConv(w, p)
	if err != nil {
		t.Fatalf("PackConv(%+v): %v", p, err)
	}
	if lay.PackedLen() != pc.PackedLen() {
		t.Fatalf("%+v: the layout packs %d elements, PackConv %d", p, lay.PackedLen(), pc.PackedLen())
	}
	buf := convRand(r, lay.PackedLen()+1)
	packed = buf[1:]
	lay.PackWeights(packed, w)
	return lay, w, packed
}

// TestConvWithSharedAcrossPadding runs one packed buffer on layouts that
// differ in padding, strides and dilation (as a narrow convolution's bands
// do) and checks each against PackConv's weights for that geometry.
func TestConvWithSharedAcrossPadding(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	for _, groups := range []int{1, 2, 48} {
		base := ConvParams{InChannels: 48, OutChannels: 48, Kernel: []int{3, 3}, Groups: groups}
		lay, w, packed := layoutOf(t, r, base, nil)
		for _, g := range []ConvParams{
			{PadLow: []int{1, 1}, PadHigh: []int{1, 1}},
			{PadLow: []int{0, 1}, PadHigh: []int{2, 1}, Strides: []int{2, 2}},
			{PadLow: []int{1, 0}, PadHigh: []int{0, 0}, Dilation: []int{2, 1}},
		} {
			p := base
			p.PadLow, p.PadHigh, p.Strides, p.Dilation = g.PadLow, g.PadHigh, g.Strides, g.Dilation
			other, err := PackConvLayout(p)
			if err != nil {
				t.Fatal(err)
			}
			if other.PackedLen() != lay.PackedLen() {
				t.Fatalf("groups=%d %+v: PackedLen %d, the base layout's %d", groups, g, other.PackedLen(), lay.PackedLen())
			}
			pc, err := PackConv(w, p)
			if err != nil {
				t.Fatal(err)
			}
			in := []int{10, 9}
			n := pc.OutSize(0, in[0]) * pc.OutSize(1, in[1]) * p.OutChannels
			x := convRand(r, in[0]*in[1]*p.InChannels)
			want, got := make([]float32, n), make([]float32, n)
			Conv(want, x, 1, in, pc, ConvEpilogue{})
			ConvWith(got, x, 1, in, other, packed, ConvEpilogue{})
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("groups=%d %+v: y[%d] = %v, want %v", groups, g, i, got[i], want[i])
				}
			}
		}
	}
}

// TestConvLayoutMisuse checks the errors and panics of the run-time
// weights path: geometry errors name PackConvLayout, a layout has no
// weights of its own, and buffers of the wrong length are refused.
func TestConvLayoutMisuse(t *testing.T) {
	if _, err := PackConvLayout(ConvParams{InChannels: 3, OutChannels: 4, Kernel: []int{3, 3}, Groups: 2}); err == nil ||
		!strings.Contains(err.Error(), "PackConvLayout: InChannels=3 and OutChannels=4 must both be multiples of Groups=2") {
		t.Errorf("PackConvLayout with bad groups: error %v", err)
	}
	p := ConvParams{InChannels: 2, OutChannels: 3, Kernel: []int{3, 3}}
	lay, err := PackConvLayout(p)
	if err != nil {
		t.Fatal(err)
	}
	dw, err := PackConvLayout(ConvParams{InChannels: 4, OutChannels: 4, Kernel: []int{3, 3}, Groups: 4})
	if err != nil {
		t.Fatal(err)
	}
	if lay.WeightsLen() != 54 {
		t.Errorf("WeightsLen = %d, want 54", lay.WeightsLen())
	}
	y, x, w := make([]float32, 27), make([]float32, 50), make([]float32, lay.PackedLen())
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { Conv(y, x, 1, []int{5, 5}, lay, ConvEpilogue{}) }, "layout without weights (PackConvLayout): pack them with PackWeights and call ConvWith"},
		{func() { Conv2D(y, x, 1, 5, 5, lay, ConvEpilogue{}) }, "Conv2D: the convolution is a layout without weights"},
		{func() { ConvBF16(make([]uint16, 36), make([]uint16, 36), 1, []int{3, 3}, dw, nil) }, "ConvBF16: the convolution is a layout without weights"},
		{func() { ConvWith(y, x, 1, []int{5, 5}, lay, w[1:], ConvEpilogue{}) }, fmt.Sprintf("ConvWith: the packed weights must have PackedLen()=%d elements, found %d", len(w), len(w)-1)},
		{func() { lay.PackWeights(w, make([]float32, 53)) }, "PackWeights: the weights must have 54 elements, found 53"},
		{func() { lay.PackWeights(w[1:], make([]float32, 54)) }, "PackWeights: dst must have PackedLen()"},
		{func() { lay.PackWeightsScaled(w, make([]float32, 54), make([]float32, 2)) }, "PackWeightsScaled: scale must have OutChannels()=3 elements, found 2"},
		{func() { lay.PackWeightsScaled(w, make([]float32, 53), make([]float32, 3)) }, "PackWeightsScaled: the weights must have 54 elements, found 53"},
		{func() { ConvWith(y, x, 1, []int{5}, lay, w, ConvEpilogue{}) }, "found 1 input sizes"},
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

// TestConvWithAllocs checks that packing and running on a layout allocate
// nothing in steady state.
func TestConvWithAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	r := rand.New(rand.NewPCG(75, 76))
	for _, p := range []ConvParams{
		{InChannels: 8, OutChannels: 24, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}},
		{InChannels: 64, OutChannels: 64, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}, Groups: 64},
	} {
		lay, w, packed := layoutOf(t, r, p, nil)
		x := convRand(r, 24*24*p.InChannels)
		y := make([]float32, 24*24*p.OutChannels)
		run := func() {
			lay.PackWeights(packed, w)
			ConvWith(y, x, 1, []int{24, 24}, lay, packed, ConvEpilogue{Act: ActReLU})
		}
		run()
		if a := testing.AllocsPerRun(20, run); a != 0 {
			t.Errorf("groups=%d: %v allocations per call, want 0", p.Groups, a)
		}
	}
}

// TestPackWeightsScaled checks PackWeightsScaled against PackWeights of the
// weights scaled first (each product rounded to float32), bit for bit, for
// dense, grouped and depthwise layouts with partial panels, and that an
// infinite factor leaves the panels' padding columns zero.
func TestPackWeightsScaled(t *testing.T) {
	r := rand.New(rand.NewPCG(79, 80))
	forEachLevel(t, func(level string) {
		for _, p := range []ConvParams{
			{InChannels: 5, OutChannels: 17, Kernel: []int{3, 3}},
			{InChannels: 16, OutChannels: 70, Kernel: []int{1, 1}},
			{InChannels: 8, OutChannels: 200, Kernel: []int{3, 3}},
			{InChannels: 12, OutChannels: 256, Kernel: []int{1, 3}, Groups: 2},
			{InChannels: 12, OutChannels: 36, Kernel: []int{3, 2}, Groups: 3},
			{InChannels: 33, OutChannels: 33, Kernel: []int{3, 3}, Groups: 33},
			{InChannels: 64, OutChannels: 64, Kernel: []int{3, 3}, Groups: 64},
		} {
			lay, err := PackConvLayout(p)
			if err != nil {
				t.Fatal(err)
			}
			w := convRand(r, lay.WeightsLen())
			scale := convRand(r, p.OutChannels)
			scale[p.OutChannels-1] = float32(math.Inf(1))
			scaled := make([]float32, len(w))
			for i, x := range w {
				scaled[i] = x * scale[i%p.OutChannels]
			}
			want, got := make([]float32, lay.PackedLen()), make([]float32, lay.PackedLen())
			lay.PackWeights(want, scaled)
			lay.PackWeightsScaled(got, w, scale)
			for i := range want {

				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s %+v: packed element %d = %v, want %v", level, p, i, got[i], want[i])
				}
			}
		}
	})
}

// BenchmarkPackWeights times packing a ResNet layer's run-time weights,
// plain and scaled by per-channel factors (a batch-norm folded in).
func BenchmarkPackWeights(b *testing.B) {
	r := rand.New(rand.NewPCG(81, 82))
	for _, p := range []ConvParams{
		{InChannels: 256, OutChannels: 256, Kernel: []int{3, 3}},
		{InChannels: 1024, OutChannels: 256, Kernel: []int{1, 1}},
		{InChannels: 512, OutChannels: 512, Kernel: []int{3, 3}},
	} {
		lay, err := PackConvLayout(p)
		if err != nil {
			b.Fatal(err)
		}
		w, scale := convRand(r, lay.WeightsLen()), convRand(r, p.OutChannels)
		dst := make([]float32, lay.PackedLen())
		name := fmt.Sprintf("%dx%dx%dx%d", p.Kernel[0], p.Kernel[1], p.InChannels, p.OutChannels)
		b.Run(name+"/plain", func(b *testing.B) {
			for b.Loop() {
				lay.PackWeights(dst, w)
			}
			b.ReportMetric(float64(8*len(w))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
		b.Run(name+"/scaled", func(b *testing.B) {
			for b.Loop() {
				lay.PackWeightsScaled(dst, w, scale)
			}
			b.ReportMetric(float64(8*len(w))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

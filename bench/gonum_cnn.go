package bench

import (
	"fmt"
	"math"
)

// gonumCNN is the example CNN written directly with gonum: each block is a
// 3×3 SAME convolution as im2col plus one GEMM, then bias and ReLU, then a
// 2×2 max-pool, all NHWC; a dense layer gives the 10 logits.
type gonumCNN struct {
	batch  int
	blocks []cnnBlock
	dw, db []float32
	out    []float32
}

// cnnBlock is one conv3x3-bias-relu-maxpool2x2 block on a size×size×cin
// input.
type cnnBlock struct {
	size, cin, cout int
	w, b            []float32 // HWIO kernel (3·3·cin × cout row-major), bias
	cols            []float32 // im2col matrix: (batch·size·size) × (9·cin)
	conv            []float32 // convolution output, batch·size·size × cout
	pooled          []float32 // batch × size/2 × size/2 × cout
}

func newGonumCNN(m *model) *gonumCNN {
	g := &gonumCNN{batch: m.Batch}
	size, cin := 32, 3
	for i, cout := range []int{16, 32, 64} {
		layer := fmt.Sprintf("Conv_%d", i)
		n := m.Batch * size * size
		g.blocks = append(g.blocks, cnnBlock{
			size: size, cin: cin, cout: cout,
			w: m.f32(layer + "/kernel"), b: m.f32(layer + "/bias"),
			cols: make([]float32, n*9*cin), conv: make([]float32, n*cout),
			pooled: make([]float32, n/4*cout),
		})
		size, cin = size/2, cout
	}
	g.dw, g.db = m.f32("Dense_0/kernel"), m.f32("Dense_0/bias")
	g.out = make([]float32, m.Batch*10)
	return g
}

// forward computes the logits of x (batch×32×32×3) into g.out.
func (g *gonumCNN) forward(x []float32) []float32 {
	for i := range g.blocks {
		x = g.blocks[i].forward(x, g.batch)
	}
	last := g.blocks[len(g.blocks)-1]
	flat := last.size / 2 * last.size / 2 * last.cout
	denseInto(g.out, x, g.dw, g.db, g.batch, flat, 10, false)
	return g.out
}

func (c *cnnBlock) forward(x []float32, batch int) []float32 {
	s, cin, cout := c.size, c.cin, c.cout
	// im2col: row (n, y, x) holds the 3×3×cin window around (y, x) in the
	// kernel's (ky, kx, ci) order, zeros outside the image (padding 1).
	k := 9 * cin
	for n := 0; n < batch; n++ {
		for y := 0; y < s; y++ {
			for xx := 0; xx < s; xx++ {
				row := c.cols[((n*s+y)*s+xx)*k:][:k]
				for ky := 0; ky < 3; ky++ {
					for kx := 0; kx < 3; kx++ {
						dst := row[(ky*3+kx)*cin:][:cin]
						iy, ix := y+ky-1, xx+kx-1
						if iy < 0 || iy >= s || ix < 0 || ix >= s {
							clear(dst)
							continue
						}
						copy(dst, x[((n*s+iy)*s+ix)*cin:][:cin])
					}
				}
			}
		}
	}
	denseInto(c.conv, c.cols, c.w, c.b, batch*s*s, k, cout, true)
	// 2×2 max-pool with stride 2.
	h := s / 2
	for n := 0; n < batch; n++ {
		for y := 0; y < h; y++ {
			for xx := 0; xx < h; xx++ {
				dst := c.pooled[((n*h+y)*h+xx)*cout:][:cout]
				for ch := range dst {
					dst[ch] = float32(math.Inf(-1))
				}
				for dy := 0; dy < 2; dy++ {
					for dx := 0; dx < 2; dx++ {
						src := c.conv[((n*s+2*y+dy)*s+2*xx+dx)*cout:][:cout]
						for ch, v := range src {
							dst[ch] = max(dst[ch], v)
						}
					}
				}
			}
		}
	}
	return c.pooled
}

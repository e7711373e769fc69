package bench

// gonumMLP is the example MLP (784-512-512-10, ReLU) written directly with
// gonum: three dense layers over preallocated activations.
type gonumMLP struct {
	batch  int
	w, b   [3][]float32
	sizes  [4]int
	h1, h2 []float32
	out    []float32
}

func newGonumMLP(m *model) *gonumMLP {
	g := &gonumMLP{batch: m.Batch, sizes: [4]int{784, 512, 512, 10}}
	for i, layer := range []string{"Dense_0", "Dense_1", "Dense_2"} {
		g.w[i], g.b[i] = m.f32(layer+"/kernel"), m.f32(layer+"/bias")
	}
	g.h1 = make([]float32, m.Batch*512)
	g.h2 = make([]float32, m.Batch*512)
	g.out = make([]float32, m.Batch*10)
	return g
}

// forward computes the logits of x (batch×784) into g.out.
func (g *gonumMLP) forward(x []float32) []float32 {
	s := g.sizes
	denseInto(g.h1, x, g.w[0], g.b[0], g.batch, s[0], s[1], true)
	denseInto(g.h2, g.h1, g.w[1], g.b[1], g.batch, s[1], s[2], true)
	denseInto(g.out, g.h2, g.w[2], g.b[2], g.batch, s[2], s[3], false)
	return g.out
}

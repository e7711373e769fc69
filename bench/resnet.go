package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
)

// resnetConfig sizes a ResNet with bottleneck blocks, as Flax's ImageNet
// example defines it (flax/examples/imagenet/models.py): ResNet-50 is
// stages [3, 4, 6, 3], 64 filters, 224×224 images, 1000 classes.
type resnetConfig struct {
	Batch, Image, Filters, Classes int
	Stages                         []int
}

var resnet50 = resnetConfig{Batch: 1, Image: 224, Filters: 64, Classes: 1000, Stages: []int{3, 4, 6, 3}}

// resnetModel is a ResNet's module with deterministic values for its
// parameters (weights scaled by 1/√fan-in, running variances in
// [0.5, 1)), as loadModel gives the bundled models.
func resnetModel(cfg resnetConfig) (*model, float64, error) {
	text, flops, kinds := resnetHLO(cfg)
	m, err := ir.ParseModule(text)
	if err != nil {
		return nil, 0, fmt.Errorf("bench: resnet: %w", err)
	}
	if err := m.Verify(); err != nil {
		return nil, 0, fmt.Errorf("bench: resnet: %w", err)
	}
	md := &model{Name: "resnet", Batch: cfg.Batch, Module: m, ByPath: map[string]*ir.Literal{}}
	for i, p := range m.Entry.Parameters {
		l := detrand.Literal(p.Shape, detrand.Seed("resnet", i))
		if kinds[i] == varianceParam {
			xs := l.Float32s()
			for j, x := range xs {
				xs[j] = 0.5 + float32(math.Abs(float64(x)))
			}
		}
		md.Args = append(md.Args, l)
		md.ByPath[p.Name] = l
	}
	return md, flops, nil
}

// resnetHLO is a ResNet in the HLO form jax.jit(model.apply).lower(...)
// .as_text(dialect="hlo") gives for Flax's ResNet in inference mode
// (BatchNorm(use_running_average=True)): NHWC activations, HWIO weights,
// convolutions without bias and with SAME padding, the batch norm written
// out as Flax computes it — per-channel statistics reshaped to [1,1,1,C],
// (x − mean)·(scale·rsqrt(var + ε)) + bias with the per-channel factors
// reshaped and broadcast as jnp broadcasting does —, max pooling as a
// reduce-window over −inf padding, the mean over the spatial dimensions,
// then a dense layer. Parameter 0 is the image; the others are the
// weights, in the order of use. It returns the text, the multiply-adds of
// its convolutions and dense layer counted twice (FLOPs), and what each
// parameter holds.
func resnetHLO(cfg resnetConfig) (string, float64, []paramKind) {
	g := &resnetGen{cfg: cfg}
	g.param(fmt.Sprintf("f32[%d,%d,%d,3]", cfg.Batch, cfg.Image, cfg.Image))
	x := "Arg_0.1"
	h := cfg.Image
	x, h = g.conv(x, h, 3, cfg.Filters, 7, 2, &[2]int{3, 3})
	x = g.batchNorm(x, h, cfg.Filters)
	x = g.relu(x, h, cfg.Filters)
	x, h = g.maxPool(x, h, cfg.Filters)
	c := cfg.Filters
	for i, blocks := range cfg.Stages {
		filters := cfg.Filters << i
		for j := 0; j < blocks; j++ {
			stride := 1
			if i > 0 && j == 0 {
				stride = 2
			}
			x, h, c = g.bottleneck(x, h, c, filters, stride)
		}
	}
	x = g.spatialMean(x, h, c)
	g.dense(x, c, cfg.Classes)
	last := len(g.body) - 1
	g.body[last] = "  ROOT " + strings.TrimPrefix(g.body[last], "  ")
	var b strings.Builder
	fmt.Fprintf(&b, "HloModule jit_resnet_apply\n\n")
	b.WriteString(`region_max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

region_add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
`)
	for i, p := range g.params {
		fmt.Fprintf(&b, "  Arg_%d.%d = %s parameter(%d)\n", i, i+1, p, i)
	}
	b.WriteString(strings.Join(g.body, "\n"))
	b.WriteString("\n}\n")
	return b.String(), g.flops, g.kinds
}

type resnetGen struct {
	cfg    resnetConfig
	params []string
	kinds  []paramKind
	body   []string
	next   int
	flops  float64
}

// paramKind says what a ResNet parameter holds, for filling it with values
// of the right range.
type paramKind uint8

const (
	plainParam    paramKind = iota // the image, weights, means, scales, biases
	varianceParam                  // a batch norm's running variance: positive
)

// param adds a parameter of the given shape and returns its name.
func (g *resnetGen) param(shape string) string {
	return g.paramOf(shape, plainParam)
}

func (g *resnetGen) paramOf(shape string, k paramKind) string {
	g.kinds = append(g.kinds, k)
	g.params = append(g.params, shape)
	i := len(g.params) - 1
	return fmt.Sprintf("Arg_%d.%d", i, i+1)
}

// line appends `name = text` with a fresh name and returns the name.
func (g *resnetGen) line(format string, args ...any) string {
	g.next++
	name := fmt.Sprintf("v.%d", g.next)
	g.body = append(g.body, "  "+name+" = "+fmt.Sprintf(format, args...))
	return name
}

func (g *resnetGen) act(h, c int) string {
	return fmt.Sprintf("f32[%d,%d,%d,%d]", g.cfg.Batch, h, h, c)
}

// samePad is SAME padding along a dimension of size n: output ⌈n/s⌉.
func samePad(n, k, s int) (lo, hi, out int) {
	out = (n + s - 1) / s
	total := max((out-1)*s+k-n, 0)
	return total / 2, total - total/2, out
}

// conv is a bias-free convolution with a k×k kernel and stride s, with
// explicit padding (low, high) or, for nil, SAME padding.
func (g *resnetGen) conv(x string, h, ci, co, k, s int, pad *[2]int) (string, int) {
	w := g.param(fmt.Sprintf("f32[%d,%d,%d,%d]", k, k, ci, co))
	lo, hi, out := samePad(h, k, s)
	if pad != nil {
		lo, hi = pad[0], pad[1]
		out = (h+lo+hi-k)/s + 1
	}
	g.flops += 2 * float64(g.cfg.Batch*out*out*ci*co*k*k)
	y := g.line("%s convolution(%s, %s), window={size=%dx%d stride=%dx%d pad=%d_%dx%d_%d}, dim_labels=b01f_01io->b01f",
		g.act(out, co), x, w, k, k, s, s, lo, hi, lo, hi)
	return y, out
}

// batchNorm is Flax's BatchNorm(use_running_average=True) over the last
// dimension, in the form JAX exports it.
func (g *resnetGen) batchNorm(x string, h, c int) string {
	vec := fmt.Sprintf("f32[%d]", c)
	ch := fmt.Sprintf("f32[1,1,1,%d]", c)
	full := g.act(h, c)
	mean := g.line("%s reshape(%s)", ch, g.param(vec))
	variance := g.line("%s reshape(%s)", ch, g.paramOf(vec, varianceParam))
	scale := g.param(vec)
	bias := g.param(vec)
	mr := g.line("%s reshape(%s)", vec, mean)
	mb := g.line("%s broadcast(%s), dimensions={3}", full, mr)
	d := g.line("%s subtract(%s, %s)", full, x, mb)
	eps := g.line("f32[] constant(1e-05)")
	eb := g.line("%s broadcast(%s), dimensions={}", ch, eps)
	ve := g.line("%s add(%s, %s)", ch, variance, eb)
	r := g.line("%s rsqrt(%s)", ch, ve)
	s4 := g.line("%s reshape(%s)", ch, scale)
	k := g.line("%s multiply(%s, %s)", ch, r, s4)
	kr := g.line("%s reshape(%s)", vec, k)
	kb := g.line("%s broadcast(%s), dimensions={3}", full, kr)
	y := g.line("%s multiply(%s, %s)", full, d, kb)
	b4 := g.line("%s reshape(%s)", ch, bias)
	br := g.line("%s reshape(%s)", vec, b4)
	bb := g.line("%s broadcast(%s), dimensions={3}", full, br)
	return g.line("%s add(%s, %s)", full, y, bb)
}

func (g *resnetGen) relu(x string, h, c int) string {
	z := g.line("f32[] constant(0)")
	zb := g.line("%s broadcast(%s), dimensions={}", g.act(h, c), z)
	return g.line("%s maximum(%s, %s)", g.act(h, c), x, zb)
}

// maxPool is nn.max_pool(x, (3, 3), strides=(2, 2), padding='SAME').
func (g *resnetGen) maxPool(x string, h, c int) (string, int) {
	lo, hi, out := samePad(h, 3, 2)
	ninf := g.line("f32[] constant(-inf)")
	return g.line("%s reduce-window(%s, %s), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x%d_%dx%d_%dx0_0}, to_apply=region_max",
		g.act(out, c), x, ninf, lo, hi, lo, hi), out
}

// bottleneck is Flax's BottleneckResNetBlock.
func (g *resnetGen) bottleneck(x string, h, ci, filters, stride int) (string, int, int) {
	var none *[2]int
	y, _ := g.conv(x, h, ci, filters, 1, 1, none)
	y = g.relu(g.batchNorm(y, h, filters), h, filters)
	y, ho := g.conv(y, h, filters, filters, 3, stride, none)
	y = g.relu(g.batchNorm(y, ho, filters), ho, filters)
	y, _ = g.conv(y, ho, filters, 4*filters, 1, 1, none)
	y = g.batchNorm(y, ho, 4*filters)
	res := x
	if ci != 4*filters || stride != 1 {
		res, _ = g.conv(x, h, ci, 4*filters, 1, stride, none)
		res = g.batchNorm(res, ho, 4*filters)
	}
	sum := g.line("%s add(%s, %s)", g.act(ho, 4*filters), res, y)
	return g.relu(sum, ho, 4*filters), ho, 4 * filters
}

// spatialMean is jnp.mean(x, axis=(1, 2)).
func (g *resnetGen) spatialMean(x string, h, c int) string {
	z := g.line("f32[] constant(0)")
	s := g.line("f32[%d,%d] reduce(%s, %s), dimensions={1,2}, to_apply=region_add", g.cfg.Batch, c, x, z)
	n := g.line("f32[] constant(%d)", h*h)
	nb := g.line("f32[%d,%d] broadcast(%s), dimensions={}", g.cfg.Batch, c, n)
	return g.line("f32[%d,%d] divide(%s, %s)", g.cfg.Batch, c, s, nb)
}

// dense is nn.Dense: x·kernel + bias.
func (g *resnetGen) dense(x string, ci, co int) string {
	w := g.param(fmt.Sprintf("f32[%d,%d]", ci, co))
	b := g.param(fmt.Sprintf("f32[%d]", co))
	g.flops += 2 * float64(g.cfg.Batch*ci*co)
	d := g.line("f32[%d,%d] dot(%s, %s), lhs_contracting_dims={1}, rhs_contracting_dims={0}", g.cfg.Batch, co, x, w)
	bb := g.line("f32[%d,%d] broadcast(%s), dimensions={1}", g.cfg.Batch, co, b)
	return g.line("f32[%d,%d] add(%s, %s)", g.cfg.Batch, co, d, bb)
}

// Package examplemodels writes the example models of examples/ as HLO text
// in the form `jax.jit(f).lower(...).as_text(dialect="hlo")` produces:
// weights are parameters, shapes are static (one module per batch size),
// instructions are named `op.N`, and metadata records the JAX primitive each
// one came from. The command examples/gen writes the bundled files; tests
// and benchmarks build the same models at any batch size.
package examplemodels

import (
	"fmt"
	"math"
	"strings"
)

// hlo accumulates one module's text in JAX's style.
type hlo struct {
	name   string
	next   int
	params []string // parameter shapes in order
	comps  []string // sub-computations, callees first
	body   []string
	jaxFn  string
}

func newHLO(name string) *hlo { return &hlo{name: name, next: 1, jaxFn: name} }

// id returns the next instruction number.
func (h *hlo) id() int { n := h.next; h.next++; return n }

func (h *hlo) meta(prim string) string {
	return fmt.Sprintf(`, metadata={op_name="jit(%s)/jit(main)/%s" source_file="%s.py" source_line=%d}`, h.jaxFn, prim, h.jaxFn, 10+h.next%40)
}

// param declares parameter i with the given shape and JAX argument path.
func (h *hlo) param(shape, path string) string {
	i := len(h.params)
	name := fmt.Sprintf("Arg_%d.%d", i, h.id())
	h.params = append(h.params, shape)
	h.body = append(h.body, fmt.Sprintf("  %s = %s parameter(%d), metadata={op_name=%q}", name, layoutOf(shape), i, path))
	return name
}

// op appends `name = shape opcode(operands), attrs` and returns the name.
func (h *hlo) op(opcode, shape, operands, attrs, prim string) string {
	name := fmt.Sprintf("%s.%d", opcode, h.id())
	line := fmt.Sprintf("  %s = %s %s(%s)", name, layoutOf(shape), opcode, operands)
	if attrs != "" {
		line += ", " + attrs
	}
	if prim != "" {
		line += h.meta(prim)
	}
	h.body = append(h.body, line)
	return name
}

func (h *hlo) constant(shape, value string) string {
	name := fmt.Sprintf("constant.%d", h.id())
	h.body = append(h.body, fmt.Sprintf("  %s = %s constant(%s)", name, layoutOf(shape), value))
	return name
}

// scalarComp adds a binary scalar computation (a reducer) and returns its name.
func (h *hlo) scalarComp(kind, opcode string) string {
	n := h.id()
	a, b, r := h.id(), h.id(), h.id()
	name := fmt.Sprintf("region_%d.%d", len(h.comps), n)
	h.comps = append(h.comps, fmt.Sprintf(`%s {
  Arg_0.%d = f32[] parameter(0)
  Arg_1.%d = f32[] parameter(1)
  ROOT %s.%d = f32[] %s(Arg_0.%d, Arg_1.%d), metadata={op_name="jit(%s)/jit(main)/%s"}
}
`, name, a, b, opcode, r, opcode, a, b, h.jaxFn, kind))
	return name
}

func (h *hlo) text(result string) string {
	var b strings.Builder
	params := make([]string, len(h.params))
	for i, p := range h.params {
		params[i] = layoutOf(p)
	}
	fmt.Fprintf(&b, "HloModule jit_%s, entry_computation_layout={(%s)->%s}\n\n", h.name, strings.Join(params, ", "), layoutOf(result))
	for _, c := range h.comps {
		b.WriteString(c)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "ENTRY main.%d {\n", h.next)
	last := len(h.body) - 1
	for i, l := range h.body {
		if i == last {
			l = "  ROOT " + strings.TrimPrefix(l, "  ")
		}
		b.WriteString(l)
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// layoutOf appends the default layout to an array shape: f32[2,3] → f32[2,3]{1,0}.
func layoutOf(shape string) string {
	open := strings.IndexByte(shape, '[')
	dims := shape[open+1 : len(shape)-1]
	if dims == "" {
		return shape
	}
	n := strings.Count(dims, ",") + 1
	order := make([]string, n)
	for i := range order {
		order[i] = fmt.Sprint(n - 1 - i)
	}
	return shape + "{" + strings.Join(order, ",") + "}"
}

func f32(dims ...int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = fmt.Sprint(d)
	}
	return "f32[" + strings.Join(s, ",") + "]"
}

// dense appends x·w + b for x of shape [rows…, in] (contracting its last dimension).
func (h *hlo) dense(x string, lead []int, in, out int, layer string) string {
	w := h.param(f32(in, out), fmt.Sprintf("params['%s']['kernel']", layer))
	b := h.param(f32(out), fmt.Sprintf("params['%s']['bias']", layer))
	rank := len(lead) + 1
	shape := f32(append(append([]int{}, lead...), out)...)
	d := h.op("dot", shape, x+", "+w,
		fmt.Sprintf("lhs_contracting_dims={%d}, rhs_contracting_dims={0}", rank-1),
		fmt.Sprintf("dot_general[dimension_numbers=(([%d], [0]), ([], [])) precision=None preferred_element_type=float32]", rank-1))
	bb := h.op("broadcast", shape, b, fmt.Sprintf("dimensions={%d}", rank-1), "add")
	return h.op("add", shape, d+", "+bb, "", "add")
}

func (h *hlo) relu(x, shape string) string {
	zero := h.constant("f32[]", "0")
	z := h.op("broadcast", shape, zero, "dimensions={}", "")
	return h.op("maximum", shape, x+", "+z, "", "max")
}

// MLP is a 784-512-512-10 perceptron with ReLU at the given batch size.
func MLP(batch int) string {
	h := newHLO("mlp")
	x := h.param(f32(batch, 784), "x")
	a := h.relu(h.dense(x, []int{batch}, 784, 512, "Dense_0"), f32(batch, 512))
	a = h.relu(h.dense(a, []int{batch}, 512, 512, "Dense_1"), f32(batch, 512))
	h.dense(a, []int{batch}, 512, 10, "Dense_2")
	return h.text(f32(batch, 10))
}

// CNN is three conv3x3(SAME)-bias-relu-maxpool2x2 blocks on a 32×32×3 NHWC
// image (16, 32, 64 channels) and a dense layer to 10 classes.
func CNN(batch int) string {
	h := newHLO("cnn")
	max := h.scalarComp("reduce_window_max", "maximum")
	x := h.param(f32(batch, 32, 32, 3), "x")
	size, cin := 32, 3
	for i, cout := range []int{16, 32, 64} {
		w := h.param(f32(3, 3, cin, cout), fmt.Sprintf("params['Conv_%d']['kernel']", i))
		b := h.param(f32(cout), fmt.Sprintf("params['Conv_%d']['bias']", i))
		shape := f32(batch, size, size, cout)
		c := h.op("convolution", shape, x+", "+w, "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
			"conv_general_dilated[window_strides=(1, 1) padding=((1, 1), (1, 1)) lhs_dilation=(1, 1) rhs_dilation=(1, 1) dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2)) feature_group_count=1 batch_group_count=1 precision=None preferred_element_type=None]")
		bb := h.op("broadcast", shape, b, "dimensions={3}", "add")
		a := h.relu(h.op("add", shape, c+", "+bb, "", "add"), shape)
		ninf := h.constant("f32[]", "-inf")
		size /= 2
		x = h.op("reduce-window", f32(batch, size, size, cout), a+", "+ninf,
			"window={size=1x2x2x1 stride=1x2x2x1}, to_apply="+max, "reduce_window_max[window_dimensions=(1, 2, 2, 1) window_strides=(1, 2, 2, 1) padding=((0, 0), (0, 0), (0, 0), (0, 0)) base_dilation=(1, 1, 1, 1) window_dilation=(1, 1, 1, 1)]")
		cin = cout
	}
	flat := h.op("reshape", f32(batch, size*size*cin), x, "", "reshape[new_sizes=(-1,) dimensions=None]")
	h.dense(flat, []int{batch}, size*size*cin, 10, "Dense_0")
	return h.text(f32(batch, 10))
}

// EncoderSizes are the sizes of an encoder layer: sequence length, hidden
// width, attention heads (of Hidden/Heads each) and feed-forward width.
type EncoderSizes struct {
	Seq, Hidden, Heads, FFN int
}

// BERTBase is the size of the bundled encoder: BERT-base's layer on a
// sequence of 128.
var BERTBase = EncoderSizes{Seq: 128, Hidden: 768, Heads: 12, FFN: 3072}

// Encoder is one post-LN transformer encoder layer of BERT-base's sizes
// (hidden 768, 12 heads of 64, feed-forward 3072, GELU with the tanh
// approximation, layer-norm epsilon 1e-6 as flax computes it) on a
// sequence of 128, at the given batch size.
func Encoder(batch int) string { return EncoderOf(batch, BERTBase) }

// EncoderOf is the encoder layer of Encoder with other sizes (tests use
// small ones).
func EncoderOf(batch int, z EncoderSizes) string {
	seq, hidden, heads, ffn := z.Seq, z.Hidden, z.Heads, z.FFN
	dh := hidden / heads
	h := newHLO("encoder")
	add := h.scalarComp("reduce_sum", "add")
	max := h.scalarComp("reduce_max", "maximum")
	x := h.param(f32(batch, seq, hidden), "x")
	lead := []int{batch, seq}
	xs := f32(batch, seq, hidden)

	proj := func(name string) string {
		p := h.dense(x, lead, hidden, hidden, "attention']['"+name)
		return h.op("reshape", f32(batch, seq, heads, dh), p, "", fmt.Sprintf("reshape[new_sizes=(%d, %d, %d, %d) dimensions=None]", batch, seq, heads, dh))
	}
	q, k, v := proj("query"), proj("key"), proj("value")
	scale := h.constant("f32[]", fmt.Sprint(1/math.Sqrt(float64(dh))))
	qs := h.op("multiply", f32(batch, seq, heads, dh), q+", "+h.op("broadcast", f32(batch, seq, heads, dh), scale, "dimensions={}", ""), "", "mul")
	scoreShape := f32(batch, heads, seq, seq)
	s := h.op("dot", scoreShape, qs+", "+k,
		"lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}",
		"dot_general[dimension_numbers=(([3], [3]), ([0, 2], [0, 2])) precision=None preferred_element_type=float32]")
	// softmax over the last dimension, as jax.nn.softmax lowers it.
	ninf := h.constant("f32[]", "-inf")
	redShape := f32(batch, heads, seq)
	m := h.op("reduce", redShape, s+", "+ninf, "dimensions={3}, to_apply="+max, "reduce_max[axes=(3,)]")
	mb := h.op("broadcast", scoreShape, m, "dimensions={0,1,2}", "sub")
	sub := h.op("subtract", scoreShape, s+", "+mb, "", "sub")
	e := h.op("exponential", scoreShape, sub, "", "exp")
	zero := h.constant("f32[]", "0")
	sum := h.op("reduce", redShape, e+", "+zero, "dimensions={3}, to_apply="+add, "reduce_sum[axes=(3,)]")
	sb := h.op("broadcast", scoreShape, sum, "dimensions={0,1,2}", "div")
	p := h.op("divide", scoreShape, e+", "+sb, "", "div")
	ctx := h.op("dot", f32(batch, heads, seq, dh), p+", "+v,
		"lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={1}",
		"dot_general[dimension_numbers=(([3], [1]), ([0, 1], [0, 2])) precision=None preferred_element_type=float32]")
	ct := h.op("transpose", f32(batch, seq, heads, dh), ctx, "dimensions={0,2,1,3}", "transpose[permutation=(0, 2, 1, 3)]")
	cr := h.op("reshape", xs, ct, "", fmt.Sprintf("reshape[new_sizes=(%d, %d, %d) dimensions=None]", batch, seq, hidden))
	attn := h.dense(cr, lead, hidden, hidden, "attention']['out")
	r1 := h.op("add", xs, x+", "+attn, "", "add")
	ln1 := h.layerNorm(r1, batch, seq, hidden, "LayerNorm_0", add)
	f1 := h.dense(ln1, lead, hidden, ffn, "Dense_0")
	g := h.gelu(f1, f32(batch, seq, ffn))
	f2 := h.dense(g, lead, ffn, hidden, "Dense_1")
	r2 := h.op("add", xs, ln1+", "+f2, "", "add")
	h.layerNorm(r2, batch, seq, hidden, "LayerNorm_1", add)
	return h.text(xs)
}

// layerNorm appends flax's LayerNorm: mean and mean of squares over the last
// dimension, var = max(0, E[x²] - E[x]²), (x - mean)·rsqrt(var + eps)·scale + bias.
func (h *hlo) layerNorm(x string, batch, seq, hidden int, name, add string) string {
	xs, rs := f32(batch, seq, hidden), f32(batch, seq)
	zero := h.constant("f32[]", "0")
	sum := h.op("reduce", rs, x+", "+zero, "dimensions={2}, to_apply="+add, "reduce_sum[axes=(2,)]")
	inv := h.constant("f32[]", fmt.Sprint(1.0/float32(hidden)))
	mean := h.op("multiply", rs, sum+", "+h.op("broadcast", rs, inv, "dimensions={}", ""), "", "div")
	sq := h.op("multiply", xs, x+", "+x, "", "integer_pow[y=2]")
	sum2 := h.op("reduce", rs, sq+", "+zero, "dimensions={2}, to_apply="+add, "reduce_sum[axes=(2,)]")
	mean2 := h.op("multiply", rs, sum2+", "+h.op("broadcast", rs, inv, "dimensions={}", ""), "", "div")
	msq := h.op("multiply", rs, mean+", "+mean, "", "integer_pow[y=2]")
	v := h.op("subtract", rs, mean2+", "+msq, "", "sub")
	v = h.op("maximum", rs, v+", "+h.op("broadcast", rs, zero, "dimensions={}", ""), "", "max")
	eps := h.constant("f32[]", "1e-06")
	ve := h.op("add", rs, v+", "+h.op("broadcast", rs, eps, "dimensions={}", ""), "", "add")
	rstd := h.op("rsqrt", rs, ve, "", "rsqrt")
	mb := h.op("broadcast", xs, mean, "dimensions={0,1}", "sub")
	centered := h.op("subtract", xs, x+", "+mb, "", "sub")
	rb := h.op("broadcast", xs, rstd, "dimensions={0,1}", "mul")
	norm := h.op("multiply", xs, centered+", "+rb, "", "mul")
	scale := h.param(f32(hidden), fmt.Sprintf("params['%s']['scale']", name))
	bias := h.param(f32(hidden), fmt.Sprintf("params['%s']['bias']", name))
	scaled := h.op("multiply", xs, norm+", "+h.op("broadcast", xs, scale, "dimensions={2}", "mul"), "", "mul")
	return h.op("add", xs, scaled+", "+h.op("broadcast", xs, bias, "dimensions={2}", "add"), "", "add")
}

// gelu appends jax.nn.gelu(x, approximate=True):
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
func (h *hlo) gelu(x, shape string) string {
	c := func(v string) string { return h.op("broadcast", shape, h.constant("f32[]", v), "dimensions={}", "") }
	x3 := h.op("multiply", shape, x+", "+h.op("multiply", shape, x+", "+x, "", "integer_pow[y=3]"), "", "integer_pow[y=3]")
	inner := h.op("add", shape, x+", "+h.op("multiply", shape, x3+", "+c("0.044715"), "", "mul"), "", "add")
	t := h.op("tanh", shape, h.op("multiply", shape, inner+", "+c("0.797884583"), "", "mul"), "", "tanh")
	one := h.op("add", shape, t+", "+c("1"), "", "add")
	return h.op("multiply", shape, h.op("multiply", shape, x+", "+c("0.5"), "", "mul")+", "+one, "", "mul")
}

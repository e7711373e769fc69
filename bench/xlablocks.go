package bench

import (
	"fmt"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

// depthwiseNCHW is XLA's CPU benchmark block of a depthwise 3×3
// convolution over 1×256×56×56 in NCHW form, in f32.
const depthwiseNCHW = `HloModule depthwise_conv_nchw
ENTRY main {
  input = f32[1,256,56,56] parameter(0)
  kernel = f32[256,1,3,3] parameter(1)
  ROOT conv = f32[1,256,56,56] convolution(input, kernel), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=256
}`

// layerNormJAX is XLA's CPU benchmark block layer_norm_1x4096x768 written
// as JAX's layer_norm exports it, with its bf16 element type replaced by
// f32 (the converts then convert f32 to f32).
const layerNormJAX = `HloModule jit_layer_norm, entry_computation_layout={(f32[1,4096,768]{2,1,0})->f32[1,4096,768]{2,1,0}}

region_0.1 {
  reduce_sum.3 = f32[] parameter(0)
  reduce_sum.4 = f32[] parameter(1)
  ROOT reduce_sum.5 = f32[] add(reduce_sum.3, reduce_sum.4)
}

region_1.2 {
  reduce_sum.10 = f32[] parameter(0)
  reduce_sum.11 = f32[] parameter(1)
  ROOT reduce_sum.12 = f32[] add(reduce_sum.10, reduce_sum.11)
}

ENTRY main.3 {
  x.1 = f32[1,4096,768]{2,1,0} parameter(0)
  convert_element_type.4 = f32[1,4096,768]{2,1,0} convert(x.1)
  constant.5 = f32[] constant(0)
  reduce_sum.14 = f32[1,4096]{1,0} reduce(convert_element_type.4, constant.5), dimensions={2}, to_apply=region_0.1
  broadcast_in_dim.2 = f32[1,4096,1]{2,1,0} reshape(reduce_sum.14)
  constant.4 = f32[] constant(768)
  broadcast.1 = f32[1,4096,1]{2,1,0} broadcast(constant.4), dimensions={}
  div.6 = f32[1,4096,1]{2,1,0} divide(broadcast_in_dim.2, broadcast.1)
  convert_element_type.5 = f32[1,4096,1]{2,1,0} convert(div.6)
  sub.12 = f32[1,4096,1]{2,1,0} broadcast(convert_element_type.5), dimensions={0,1,2}
  sub.13 = f32[1,4096]{1,0} reshape(sub.12)
  sub.14 = f32[1,4096,768]{2,1,0} broadcast(sub.13), dimensions={0,1}
  sub.15 = f32[1,4096,768]{2,1,0} subtract(x.1, sub.14)
  sub.8 = f32[1,4096,1]{2,1,0} broadcast(convert_element_type.5), dimensions={0,1,2}
  sub.9 = f32[1,4096]{1,0} reshape(sub.8)
  sub.10 = f32[1,4096,768]{2,1,0} broadcast(sub.9), dimensions={0,1}
  sub.11 = f32[1,4096,768]{2,1,0} subtract(x.1, sub.10)
  integer_pow.1 = f32[1,4096,768]{2,1,0} multiply(sub.11, sub.11)
  convert_element_type.6 = f32[1,4096,768]{2,1,0} convert(integer_pow.1)
  reduce_sum.15 = f32[1,4096]{1,0} reduce(convert_element_type.6, constant.5), dimensions={2}, to_apply=region_1.2
  broadcast_in_dim.3 = f32[1,4096,1]{2,1,0} reshape(reduce_sum.15)
  div.7 = f32[1,4096,1]{2,1,0} divide(broadcast_in_dim.3, broadcast.1)
  convert_element_type.7 = f32[1,4096,1]{2,1,0} convert(div.7)
  constant.3 = f32[] constant(1.001e-05)
  add.2 = f32[1,4096,1]{2,1,0} broadcast(constant.3), dimensions={}
  add.3 = f32[1,4096,1]{2,1,0} add(convert_element_type.7, add.2)
  sqrt.1 = f32[1,4096,1]{2,1,0} sqrt(add.3)
  div.8 = f32[1,4096,1]{2,1,0} broadcast(sqrt.1), dimensions={0,1,2}
  div.9 = f32[1,4096]{1,0} reshape(div.8)
  div.10 = f32[1,4096,768]{2,1,0} broadcast(div.9), dimensions={0,1}
  ROOT div.11 = f32[1,4096,768]{2,1,0} divide(sub.15, div.10)
}`

// copyBytes is the size of the arrays of the copy that measures memory
// bandwidth (STREAM's copy) in the same process.
const copyBytes = 256 << 20

// xlaBlocks are the depthwise and layer-norm blocks, with the weights of
// the convolution passed and bound, and the copy they are measured against.
func xlaBlocks(threads int) ([]InferenceCase, error) {
	var cases []InferenceCase
	for _, b := range []struct {
		name, text string
		bound      bool
	}{
		{"xla-depthwise3x3-nchw-1x256x56x56/weights-args", depthwiseNCHW, false},
		{"xla-depthwise3x3-nchw-1x256x56x56/weights-bound", depthwiseNCHW, true},
		{"xla-layer-norm-jax-1x4096x768-f32", layerNormJAX, false},
	} {
		m, err := ir.ParseModule(b.text)
		if err != nil {
			return nil, fmt.Errorf("bench: %s: %w", b.name, err)
		}
		var args []*ir.Literal
		for i, p := range m.Entry.Parameters {
			args = append(args, detrand.Literal(p.Shape, detrand.Seed(b.name, i)))
		}
		opts := []runtime.Option{runtime.WithThreads(threads)}
		if b.bound {
			for i := 1; i < len(args); i++ {
				opts = append(opts, runtime.WithParameter(i, runtime.TensorFromLiteral(args[i])))
			}
			args = args[:1]
		}
		_, run, err := kilnRunner(m, args, opts...)
		if err != nil {
			return nil, fmt.Errorf("bench: %s: %w", b.name, err)
		}
		bytes := 0
		for _, p := range m.Entry.Parameters {
			bytes += p.Shape.ByteSize()
		}
		bytes += m.Entry.Root.Shape.ByteSize()
		cases = append(cases, InferenceCase{Name: b.name, Bytes: float64(bytes), run: run})
	}
	src, dst := make([]byte, copyBytes), make([]byte, copyBytes)
	for i := range src {
		src[i] = byte(i)
	}
	cases = append(cases, InferenceCase{Name: "copy-256MiB (STREAM copy)", Bytes: 2 * copyBytes, run: func() { copy(dst, src) }})
	return cases, nil
}

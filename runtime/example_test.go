package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

// dense is y = relu(x·W + b) as JAX exports it: the weights' op_name
// metadata is their path in the parameter tree.
const dense = `HloModule dense
ENTRY main {
  x = f32[1,3] parameter(0), metadata={op_name="x"}
  w = f32[3,2] parameter(1), metadata={op_name="params['Dense_0']['kernel']"}
  b = f32[2] parameter(2), metadata={op_name="params['Dense_0']['bias']"}
  d = f32[1,2] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[1,2] broadcast(b), dimensions={1}
  s = f32[1,2] add(d, bb)
  z = f32[] constant(0)
  zb = f32[1,2] broadcast(z), dimensions={}
  ROOT r = f32[1,2] maximum(s, zb)
}
`

// Compile once with the weights bound by name, then Run (or RunInto, which
// allocates nothing) from any number of goroutines.
func Example() {
	m, err := ir.ParseModule(dense)
	if err != nil {
		panic(err)
	}
	kernel, _ := runtime.TensorFromSlice([]float32{1, -1, 2, 0, 0, 3}, 3, 2)
	bias, _ := runtime.TensorFromSlice([]float32{0.5, -10}, 2)
	exe, err := runtime.Compile(m, runtime.WithWeights(map[string]*runtime.Tensor{
		"Dense_0/kernel": kernel, // a name runtime.ParameterNames lists for w
		"Dense_0/bias":   bias,
	}))
	if err != nil {
		panic(err)
	}
	fmt.Println("takes", exe.Parameters(), "returns", exe.Results())
	x, _ := runtime.TensorFromSlice([]float32{1, 2, 3}, 1, 3)
	outs, err := exe.Run(context.Background(), x)
	if err != nil {
		panic(err)
	}
	fmt.Println(outs[0].Float32s())
	// Output:
	// takes [x: f32[1,3]] returns [r: f32[1,2]]
	// [5.5 0]
}

// A weights tensor that binds to no parameter fails Compile, naming it.
func ExampleWithWeights_misnamed() {
	m, _ := ir.ParseModule(dense)
	kernel, _ := runtime.TensorFromSlice([]float32{1, -1, 2, 0, 0, 3}, 3, 2)
	_, err := runtime.Compile(m, runtime.WithWeights(map[string]*runtime.Tensor{"dense_0/kernel": kernel}))
	fmt.Println(errors.Is(err, runtime.ErrArgument))
	fmt.Println(strings.Contains(err.Error(), `tensor "dense_0/kernel" f32[3,2] binds to no parameter (did you mean "Dense_0/kernel"?`))
	// Output:
	// true
	// true
}

// Weights come from a file path, an fs.FS (embed.FS, os.DirFS) or any
// io.ReaderAt, in the safetensors, .npz or .npy format.
func ExampleReadSafetensors() {
	var file bytes.Buffer
	w, _ := runtime.TensorFromSlice([]float32{1, 2, 3, 4}, 2, 2)
	if err := runtime.WriteSafetensors(&file, map[string]*runtime.Tensor{"Dense_0/kernel": w}); err != nil {
		panic(err)
	}
	weights, err := runtime.ReadSafetensors(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		panic(err)
	}
	defer weights.Close()
	for _, name := range weights.Names() {
		fmt.Println(name, weights.Tensors()[name])
	}
	// Output: Dense_0/kernel f32[2,2] {{1, 2}, {3, 4}}
}

// A custom-call target runs a Go function, on the compiled path and in the
// reference evaluator.
func ExampleRegisterCustomCall() {
	runtime.RegisterCustomCall("example_clamp", func(operands, results []*runtime.Tensor, backendConfig string) error {
		var limit float32
		if _, err := fmt.Sscan(backendConfig, &limit); err != nil {
			return fmt.Errorf("backend_config %q: %w", backendConfig, err)
		}
		for i, v := range operands[0].Float32s() {
			results[0].Float32s()[i] = min(max(v, -limit), limit)
		}
		return nil
	})
	m, _ := ir.ParseModule(`HloModule clamp
ENTRY main {
  x = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(x), custom_call_target="example_clamp", backend_config="2"
}
`)
	exe, err := runtime.Compile(m)
	if err != nil {
		panic(err)
	}
	x, _ := runtime.TensorFromSlice([]float32{-5, -1, 1, 5})
	outs, _ := exe.Run(context.Background(), x)
	fmt.Println(outs[0].Float32s())
	// Output: [-2 -1 1 2]
}

// Bounded memory: at most two runs in flight (the others wait for a frame,
// or for their context), frames beyond one released when idle, and a limit
// on what the plan may need.
func ExampleWithMaxConcurrentRuns() {
	m, _ := ir.ParseModule(dense)
	exe, err := runtime.Compile(m,
		runtime.WithMaxConcurrentRuns(2),
		runtime.WithIdleFrames(1),
		runtime.WithMemoryLimit(64<<20))
	if err != nil {
		panic(err)
	}
	st := exe.Stats()
	fmt.Println(st.MaxFrames, st.FramesHeld)
	// Output: 2 0
}

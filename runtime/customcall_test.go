package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

func parse(t testing.TB, hlo string) *ir.Module {
	t.Helper()
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func init() {
	// test_scale multiplies its f32 operand by the number in its
	// backend_config and adds its second operand, if any.
	RegisterCustomCall("test_scale", func(operands, results []*Tensor, config string) error {
		k, err := strconv.ParseFloat(config, 32)
		if err != nil {
			return fmt.Errorf("backend_config %q is not a number", config)
		}
		x, out := operands[0].Float32s(), results[0].Float32s()
		for i, v := range x {
			out[i] = v * float32(k)
			if len(operands) > 1 {
				out[i] += operands[1].Float32s()[i]
			}
		}
		return nil
	})
}

const scaleModule = `HloModule scale
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  s = f32[4] custom-call(x, y), custom_call_target="test_scale", backend_config="2.5"
  ROOT r = f32[4] add(s, x)
}
`

func TestRegisteredCustomCallRunsConcurrently(t *testing.T) {
	m := parse(t, scaleModule)
	e, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := float32(g)
			x, _ := TensorFromSlice([]float32{f, 1, 2, 3})
			y, _ := TensorFromSlice([]float32{1, 1, 1, 1})
			for range 20 {
				outs, err := e.Run(context.Background(), x, y)
				if err != nil {
					errs <- err
					return
				}
				for i, v := range outs[0].Float32s() {
					xi := x.Float32s()[i]
					if want := xi*2.5 + 1 + xi; v != want {
						errs <- fmt.Errorf("goroutine %d: element %d is %v, want %v", g, i, v, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The reference evaluator runs the same function.
	x := ir.MustLiteralFromSlice([]float32{1, 2, 3, 4})
	y := ir.MustLiteralFromSlice([]float32{0, 0, 0, 1})
	outs, err := eval.Run(m, x, y)
	if err != nil {
		t.Fatal(err)
	}
	if got := outs[0].String(); got != "f32[4] {3.5, 7, 10.5, 15}" {
		t.Errorf("reference evaluator: %s", got)
	}
}

func TestCustomCallErrorFailsTheRun(t *testing.T) {
	m := parse(t, strings.Replace(scaleModule, `backend_config="2.5"`, `backend_config="two"`, 1))
	e, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := TensorFromSlice([]float32{1, 2, 3, 4})
	_, err = e.Run(context.Background(), x, x)
	if err == nil || !strings.Contains(err.Error(), `custom-call "test_scale" (instruction s): backend_config "two" is not a number`) {
		t.Fatalf("got %v, want the custom call's error", err)
	}
}

func TestUnknownCustomCallIsUnsupported(t *testing.T) {
	m := parse(t, `HloModule unknown
ENTRY main {
  x = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(x), custom_call_target="no_such_target"
}
`)
	_, err := Compile(m)
	if err == nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `custom-call target "no_such_target"`) {
		t.Fatalf("got %v, want ErrUnsupported naming the target", err)
	}
}

// TestAnnotationCustomCallsAreIdentities runs JAX's single-device
// annotations (sharding, SPMD shard shape conversions, device placement,
// host offloading) on the compiled path and the reference evaluator.
func TestAnnotationCustomCallsAreIdentities(t *testing.T) {
	m := parse(t, `HloModule annotated
ENTRY main {
  x = f32[2,3] parameter(0)
  a = f32[2,3] custom-call(x), custom_call_target="Sharding", sharding={replicated}
  b = f32[2,3] custom-call(a), custom_call_target="SPMDFullToShardShape", sharding={manual}
  n = f32[2,3] negate(b)
  c = f32[2,3] custom-call(n), custom_call_target="SPMDShardToFullShape", sharding={replicated}
  d = f32[2,3] custom-call(c), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  e = f32[2,3] custom-call(d), custom_call_target="MoveToHost"
  ROOT f = f32[2,3] custom-call(e), custom_call_target="MoveToDevice"
}
`)
	e, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range e.Stats().Kernels {
		if k.Impl == "reference" {
			t.Errorf("kernel %v runs on the reference evaluator", k)
		}
	}
	x, _ := TensorFromSlice([]float32{1, -2, 3, -4, 5, -6}, 2, 3)
	outs, err := e.Run(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	want := "f32[2,3] {{-1, 2, -3}, {4, -5, 6}}"
	if got := outs[0].String(); got != want {
		t.Errorf("compiled: %s, want %s", got, want)
	}
	ref, err := eval.Run(m, x.Literal())
	if err != nil {
		t.Fatal(err)
	}
	if got := ref[0].String(); got != want {
		t.Errorf("reference evaluator: %s, want %s", got, want)
	}
}

// An annotation that changes the shape belongs to a partitioned program: it
// is not the identity, and stays an error naming the target.
func TestShapeChangingAnnotationIsUnsupported(t *testing.T) {
	m := parse(t, `HloModule partitioned
ENTRY main {
  x = f32[8] parameter(0)
  ROOT s = f32[4] custom-call(x), custom_call_target="SPMDFullToShardShape", sharding={manual}
}
`)
	_, err := Compile(m)
	if err == nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `custom-call "SPMDFullToShardShape" (instruction s) turns f32[8] into f32[4]`) {
		t.Fatalf("got %v, want ErrUnsupported naming SPMDFullToShardShape", err)
	}
}

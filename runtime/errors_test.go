package runtime

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestRunArgumentErrorsAreErrArgument(t *testing.T) {
	e, in := exampleModel(t, "mlp/mlp_b1")
	wrongShape, _ := NewTensor(e.ParameterShapes()[0].WithoutLayout())
	wrongShape.shape.Dims = []int{784, 1}
	ints, _ := TensorFromSlice(make([]int32, 784), 1, 784)
	for name, run := range map[string]func() error{
		"no arguments":    func() error { _, err := e.Run(context.Background()); return err },
		"two arguments":   func() error { _, err := e.Run(context.Background(), in, in); return err },
		"nil argument":    func() error { _, err := e.Run(context.Background(), nil); return err },
		"wrong shape":     func() error { _, err := e.Run(context.Background(), wrongShape); return err },
		"wrong type":      func() error { _, err := e.Run(context.Background(), ints); return err },
		"no result slots": func() error { return e.RunInto(context.Background(), nil, in) },
	} {
		err := run()
		if err == nil || !errors.Is(err, ErrArgument) {
			t.Errorf("%s: got %v, want ErrArgument", name, err)
		}
	}
	_, err := e.Run(context.Background())
	if !strings.Contains(err.Error(), "0 arguments given, the executable takes 1 (Arg_0.1: f32[1,784])") {
		t.Errorf("error %q does not list the parameters", err)
	}
}

// TestEndlessWhileStopsAtItsDeadline runs a while loop that never ends: the
// run returns context.DeadlineExceeded promptly, and the executable stays
// usable.
func TestEndlessWhileStopsAtItsDeadline(t *testing.T) {
	m := parse(t, `HloModule endless
cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
`)
	e, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := TensorFromSlice([]int32{0}, []int{}...)
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start := time.Now()
		_, err := e.Run(ctx, x)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("the run returned %v after its 20 ms deadline", d)
		}
	}
}

func TestLoggerReportsEachCompileStage(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	exampleModel(t, "mlp/mlp_b1", WithLogger(log))
	out := buf.String()
	for _, stage := range []string{"verify", "lower", "bind", "optimize", "schedule", "steps"} {
		if !strings.Contains(out, "stage="+stage+" duration=") {
			t.Errorf("no line for stage %s in:\n%s", stage, out)
		}
	}
	if !strings.Contains(out, "kiln compile done") {
		t.Errorf("no summary line in:\n%s", out)
	}
	// At info level nothing is printed.
	buf.Reset()
	exampleModel(t, "mlp/mlp_b1", WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	if buf.Len() != 0 {
		t.Errorf("at info level the compile printed:\n%s", buf.String())
	}
}

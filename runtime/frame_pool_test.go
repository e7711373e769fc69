package runtime

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gate holds runs inside a custom call until released, so that a test
// controls how many runs are in flight at once.
type gate struct {
	entered chan struct{} // receives a value each time a run enters
	release chan struct{} // closed to let every run through
}

var testGate atomic.Pointer[gate]

func init() {
	RegisterCustomCall("test_gate", func(operands, results []*Tensor, _ string) error {
		if g := testGate.Load(); g != nil {
			g.entered <- struct{}{}
			<-g.release
		}
		copy(results[0].Bytes(), operands[0].Bytes())
		return nil
	})
}

const gateModule = `HloModule gated
ENTRY main {
  x = f32[256] parameter(0)
  y = f32[256] exponential(x)
  g = f32[256] custom-call(y), custom_call_target="test_gate"
  ROOT r = f32[256] add(g, x)
}
`

// withGate installs a fresh gate for the duration of a test (tests using it
// do not run in parallel).
func withGate(t *testing.T, runs int) *gate {
	g := &gate{entered: make(chan struct{}, runs), release: make(chan struct{})}
	testGate.Store(g)
	t.Cleanup(func() { testGate.Store(nil) })
	return g
}

// countFrames makes the executable count the frames it allocates.
func countFrames(e *Executable) *atomic.Int32 {
	var n atomic.Int32
	orig := e.frames.newFrame
	e.frames.newFrame = func() *frame { n.Add(1); return orig() }
	return &n
}

func TestMaxConcurrentRunsBoundsFrames(t *testing.T) {
	e, in := exampleModel(t, "mlp/mlp_b1", WithMaxConcurrentRuns(2))
	made := countFrames(e)
	want, err := e.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				outs, err := e.Run(context.Background(), in)
				if err != nil {
					errs <- err
					return
				}
				for i, v := range outs[0].Float32s() {
					if v != want[0].Float32s()[i] {
						errs <- errors.New("a bounded run gave another result")
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := made.Load(); n > 2 {
		t.Errorf("%d frames were made, want at most 2", n)
	}
	if st := e.Stats(); st.FramesHeld > 2 || st.MaxFrames != 2 {
		t.Errorf("Stats: %d frames held, bound %d; want at most 2, bound 2", st.FramesHeld, st.MaxFrames)
	}
}

// TestRunWaitingForAFrameHonoursItsContext fills the only frame with a run
// held in a custom call: a second run waits, and returns its context's
// error at the deadline; once the first finishes, runs go on.
func TestRunWaitingForAFrameHonoursItsContext(t *testing.T) {
	g := withGate(t, 2)
	e, err := Compile(parse(t, gateModule), WithMaxConcurrentRuns(1))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := NewTensor(e.ParameterShapes()[0])
	first := make(chan error, 1)
	go func() { _, err := e.Run(context.Background(), x); first <- err }()
	<-g.entered
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = e.Run(ctx, x)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting run: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("waiting run returned %v after its 30 ms deadline", d)
	}
	close(g.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), x); err != nil {
		t.Fatal(err)
	}
}

// TestIdleFramesAreReleased holds 32 runs in flight at once, then lets them
// finish: after the idle timeout the frames held drop to WithIdleFrames's k,
// while an executable without it keeps all 32.
func TestIdleFramesAreReleased(t *testing.T) {
	for _, keep := range []int{2, -1} {
		g := withGate(t, 32)
		opts := []Option{WithIdleTimeout(20 * time.Millisecond)}
		if keep >= 0 {
			opts = append(opts, WithIdleFrames(keep))
		}
		e, err := Compile(parse(t, gateModule), opts...)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := NewTensor(e.ParameterShapes()[0])
		var wg sync.WaitGroup
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := e.Run(context.Background(), x); err != nil {
					t.Error(err)
				}
			}()
		}
		for range 32 {
			<-g.entered
		}
		if n := e.Stats().FramesHeld; n != 32 {
			t.Errorf("keep %d: %d frames held with 32 runs in flight, want 32", keep, n)
		}
		close(g.release)
		wg.Wait()
		want := 32
		if keep >= 0 {
			want = keep
		}
		deadline := time.Now().Add(2 * time.Second)
		for e.Stats().FramesHeld != want && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(60 * time.Millisecond) // three more idle timeouts: nothing else is released
		if n := e.Stats().FramesHeld; n != want {
			t.Errorf("keep %d: %d frames held after the burst, want %d", keep, n, want)
		}
		if _, err := e.Run(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStatsCountConstantsAndFrames(t *testing.T) {
	e, in := exampleModel(t, "mlp/mlp_b1")
	if n := e.Stats().FramesHeld; n != 0 {
		t.Errorf("%d frames held before any run", n)
	}
	if _, err := e.Run(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	st := e.Stats()
	// The MLP's weights are 784·512 + 512·512 + 512·10 floats, packed for
	// the GEMM (at least their size) and bound as constants (the biases at
	// least, read by the epilogues).
	weights := 4 * (784*512 + 512*512 + 512*10)
	if st.PackedBytes < weights {
		t.Errorf("PackedBytes %d, want at least the weights' %d", st.PackedBytes, weights)
	}
	if st.ConstantBytes < 4*(512+512+10) {
		t.Errorf("ConstantBytes %d, want at least the biases' %d", st.ConstantBytes, 4*(512+512+10))
	}
	if st.FrameBytes < st.ArenaBytes || st.FramesHeld != 1 {
		t.Errorf("FrameBytes %d (arena %d), %d frames held after one run; want ≥ arena, 1", st.FrameBytes, st.ArenaBytes, st.FramesHeld)
	}
}

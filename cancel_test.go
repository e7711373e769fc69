package kiln

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestCancelWatchAndStop(t *testing.T) {
	var nilCancel *Cancel
	if nilCancel.Stopped() {
		t.Fatal("a nil Cancel reports stopped")
	}
	var c Cancel
	if c.Stopped() {
		t.Fatal("the zero Cancel reports stopped")
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.Watch(ctx)
	if c.Stopped() {
		t.Fatal("stopped before its context was cancelled")
	}
	cancel()
	if !c.Stopped() || !c.Stopped() {
		t.Fatal("not stopped after its context was cancelled")
	}
	// A deadline stops it when it passes, whether or not the context's
	// timer has fired.
	// (The deadline leaves room for a slow, emulated or loaded machine
	// between setting it and the first check.)
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(50*time.Millisecond))
	defer cancel()
	c.Watch(ctx)
	if c.Stopped() {
		t.Fatal("stopped before its deadline")
	}
	time.Sleep(60 * time.Millisecond)
	if !c.Stopped() {
		t.Fatal("not stopped after its deadline")
	}
	c.Watch(nil)
	if c.Stopped() {
		t.Fatal("Watch did not reset a stop")
	}
	c.Stop()
	if !c.Stopped() {
		t.Fatal("not stopped after Stop")
	}
}

// randomF32 returns n values in [-1, 1).
func randomF32(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = 2*r.Float32() - 1
	}
	return x
}

// TestCancelLeavesProductsUnchanged runs every path of the GEMM driver
// (single-row, small-M, blocked, prepacked, packed rows) and the
// convolution with a Cancel that never stops: the results are exactly
// those of the calls without one.
func TestCancelLeavesProductsUnchanged(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var c Cancel
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	c.Watch(ctx)
	shapes := [][3]int{{1, 300, 517}, {7, 65, 300}, {33, 129, 70}, {200, 300, 600}, {64, 1000, 300}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, transB := range []bool{false, true} {
			a, b := randomF32(r, m*k), randomF32(r, k*n)
			ldb := n
			if transB {
				ldb = k
			}
			want, got := make([]float32, m*n), make([]float32, m*n)
			SgemmEpilogue(false, transB, m, n, k, 1, a, k, b, ldb, 0, want, n, Epilogue{Act: ActGeluTanh})
			SgemmEpilogue(false, transB, m, n, k, 1, a, k, b, ldb, 0, got, n, Epilogue{Act: ActGeluTanh, Cancel: &c})
			if !slices.Equal(got, want) {
				t.Errorf("%d×%d×%d transB=%v: the product with a Cancel differs", m, n, k, transB)
			}
		}
		b := randomF32(r, k*n)
		pb := PackB(false, k, n, b, n)
		a := randomF32(r, m*k)
		want, got := make([]float32, m*n), make([]float32, m*n)
		SgemmPackedEpilogue(false, m, 1, a, k, pb, 0, want, n, Epilogue{})
		SgemmPackedEpilogue(false, m, 1, a, k, pb, 0, got, n, Epilogue{Cancel: &c})
		if !slices.Equal(got, want) {
			t.Errorf("%d×%d×%d packed: the product with a Cancel differs", m, n, k)
		}
	}
	for _, groups := range []int{1, 16} {
		p := ConvParams{InChannels: 16, OutChannels: 16, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}, Groups: groups}
		pc, err := PackConv(randomF32(r, 9*16/groups*16), p)
		if err != nil {
			t.Fatal(err)
		}
		x := randomF32(r, 2*20*20*16)
		want, got := make([]float32, 2*20*20*16), make([]float32, 2*20*20*16)
		Conv2D(want, x, 2, 20, 20, pc, ConvEpilogue{Act: ActReLU})
		Conv2D(got, x, 2, 20, 20, pc, ConvEpilogue{Act: ActReLU, Cancel: &c})
		if !slices.Equal(got, want) {
			t.Errorf("groups %d: the convolution with a Cancel differs", groups)
		}
	}
}

// TestCancelStopsLongCalls stops a GEMM and a convolution, each tens of
// milliseconds of work or more, at a deadline 5 ms after they start, and single-row
// products before they start: each returns promptly (a generous bound, as
// the machine may be loaded; the runtime's benchmarks measure the latency)
// with part of its output never written or not yet its value.
func TestCancelStopsLongCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates about 100 MB")
	}
	r := rand.New(rand.NewPCG(3, 4))
	const n = 1536
	a, b, c := randomF32(r, n*n), randomF32(r, n*n), make([]float32, n*n)
	row := randomF32(r, 4096)
	p := ConvParams{InChannels: 64, OutChannels: 64, Kernel: []int{3, 3}, PadLow: []int{1, 1}, PadHigh: []int{1, 1}}
	pc, err := PackConv(randomF32(r, 9*64*64), p)
	if err != nil {
		t.Fatal(err)
	}
	x, y := randomF32(r, 8*96*96*64), make([]float32, 8*96*96*64)
	calls := []struct {
		name  string
		out   []float32
		run   func(*Cancel)
		early bool // stopped before it starts only
	}{
		{"gemm", c, func(s *Cancel) { SgemmEpilogue(false, false, n, n, n, 1, a, n, b, n, 0, c, n, Epilogue{Cancel: s}) }, false},
		{"gemv", c[:n], func(s *Cancel) {
			SgemmEpilogue(false, false, 1, n, 1024, 1, row, 1024, b, n, 0, c, n, Epilogue{Cancel: s})
		}, true},
		{"gemv-transposed", c[:512], func(s *Cancel) {
			SgemmEpilogue(false, true, 1, 512, 4096, 1, row, 4096, b, 4096, 0, c, 512, Epilogue{Cancel: s})
		}, true},
		{"conv", y, func(s *Cancel) { Conv2D(y, x, 8, 96, 96, pc, ConvEpilogue{Cancel: s}) }, false},
	}
	nan := float32(math.NaN())
	unwritten := func(out []float32) int {
		k := 0
		for _, v := range out {
			if v != v {
				k++
			}
		}
		return k
	}
	for _, call := range calls {
		var s Cancel
		s.Stop()
		fill(call.out, nan)
		start := time.Now()
		call.run(&s)
		if d := time.Since(start); d > 50*time.Millisecond {
			t.Errorf("%s: a call given a stopped Cancel took %v", call.name, d)
		}
		if k := unwritten(call.out); k != len(call.out) {
			t.Errorf("%s: a call given a stopped Cancel wrote %d of its %d outputs", call.name, len(call.out)-k, len(call.out))
		}
		if call.early {
			continue
		}
		// The whole result, to tell a stopped call's from: a GEMM blocked
		// along K writes every output in its first block's pass and adds
		// the later blocks' sums to them, so a call stopped after that
		// pass has written every output, but not its value.
		var full Cancel
		call.run(&full)
		want := slices.Clone(call.out)
		// A deadline, read from the clock by the polls: a timer calling
		// Stop needs a processor, which a loaded machine may not give it
		// before the call ends.
		ctx, stop := context.WithTimeout(context.Background(), 5*time.Millisecond)
		s.Watch(ctx)
		fill(call.out, nan)
		start = time.Now()
		call.run(&s)
		took := time.Since(start)
		stop()
		// A generous bound, as runtime's tests use: at the slower levels a
		// whole call is not much longer than 150 ms, and a loaded machine
		// can keep a thread off the processors for a hundred; that the call
		// stopped early is shown by the output it never wrote.
		if took > time.Second {
			t.Errorf("%s: stopped after 5 ms, the call returned after %v", call.name, took)
		}
		if unwritten(call.out) == 0 && slices.Equal(call.out, want) {
			t.Errorf("%s: stopped after 5 ms, the call finished its whole output (in %v)", call.name, took)
		}
	}
}

func fill(x []float32, v float32) {
	for i := range x {
		x[i] = v
	}
}

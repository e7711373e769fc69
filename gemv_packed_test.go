package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestPackedRowsKernelsAgainstReference runs the packed-rows kernels of
// every runnable level (assembly or twin) and their Go twins for every panel
// width, row count, K around the unroll, one to three panels and every
// epilogue flag, against
// the float64 reference and its error bound; C around the window must stay
// untouched.
func TestPackedRowsKernelsAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, set := range testedSets() {
		g := set.sgemm
		if g.packedRows == nil {
			t.Errorf("%s: no packed-rows kernels", set.level)
			continue
		}
		ks := []int{1, 2, 3, 4, 5, 7, 8, 9, 17, 64}
		if raceEnabled {
			ks = []int{1, 5, 9}
		}
		for w := g.packTail; w <= g.nr; w += g.packTail {
			kernels := g.packedRows[w]
			if kernels == nil {
				t.Errorf("%s: no packed-rows kernels for panels %d wide", set.level, w)
				continue
			}
			twins := packedRowsTwins[float32](w)
			for rows := 1; rows <= packedRowsMax; rows++ {
				for _, k := range ks {
					for panels := 1; panels <= 3; panels++ {
						for flags := uint(0); flags < 8; flags++ {
							for i, kern := range []packedRowsKernel[float32]{kernels[rows], twins[rows]} {
								name := fmt.Sprintf("%s %s rows=%d width=%d k=%d panels=%d flags=%03b", set.level, []string{"kernel", "twin"}[i], rows, w, k, panels, flags)
								checkPackedRowsKernel(t, name, r, w, kern, rows, k, panels, flags)
							}
						}
					}
				}
			}
		}
	}
}

func checkPackedRowsKernel(t *testing.T, name string, r *rand.Rand, nr int, kern packedRowsKernel[float32], rows, k, panels int, flags uint) {
	t.Helper()
	n := panels * nr
	beta := float32(0)
	if flags&flagLoadC != 0 {
		beta = -0.75
	}
	tc := newCase[float32](r, false, false, rows, n, k, 1.5, beta, 3, 1)
	if flags&flagBias != 0 {
		tc.bias = randMatrix[float32](r, 1, n, n, 1)
	}
	if flags&flagReLU != 0 {
		tc.act = ActReLU
	}
	pb := make([]float32, k*n)
	packB(pb, tc.b, tc.ldb, false, 0, k, 0, n, nr)
	var bias *float32
	if tc.bias != nil {
		bias = &tc.bias[0]
	}
	c := slices.Clone(tc.c0)
	kern(k, &tc.a[0], tc.lda, &pb[0], panels, &c[0], tc.ldc, tc.alpha, tc.beta, bias, flags)
	tc.check(t, name, c)
}

// packedRowsSizes returns the N values of the packed-rows tests for panels
// of nr columns: around one, two and five panels, and primes.
func packedRowsSizes(nr int) []int {
	v := []int{1, 2, 3, nr - 1, nr, nr + 1, 2*nr - 1, 2*nr + 3, 5*nr - 1, 5 * nr, 67, 131}
	if raceEnabled {
		v = []int{1, nr + 1, 3*nr - 1}
	}
	slices.Sort(v)
	return slices.Compact(slices.DeleteFunc(v, func(x int) bool { return x < 1 }))
}

// TestSgemmPackedRows drives the packed-rows path through SgemmPackedEpilogue
// at every runnable level: M = 1…4 (and 5, just past it), every N tail, K
// around the unroll, beta, bias and ReLU, A transposed as a column, one to
// three threads with every call split into chunks of one panel, so that
// parts steal from each other.
func TestSgemmPackedRows(t *testing.T) {
	orig := active.Load().level.String()
	oldSplit, oldChunk, oldThreads := minPackedRowsSplit, packedRowsChunk, Threads()
	minPackedRowsSplit, packedRowsChunk = 1, 1
	defer func() {
		SetISA(orig)
		minPackedRowsSplit, packedRowsChunk = oldSplit, oldChunk
		SetThreads(oldThreads)
	}()
	r := rand.New(rand.NewPCG(33, 34))
	ks := []int{1, 2, 3, 4, 5, 7, 17, 64, 129}
	if raceEnabled {
		ks = []int{1, 5, 17}
	}
	for _, level := range ISALevels() {
		SetISA(level)
		nr := active.Load().sgemm.nr
		idx := 0
		for _, m := range []int{1, 2, 3, 4, 5} {
			for _, n := range packedRowsSizes(nr) {
				for _, k := range ks {
					idx++
					SetThreads(1 + idx%3)
					transA := m == 1 && idx%4 == 0
					beta := []float32{0, 0.5, 1}[idx%3]
					tc := newCase[float32](r, transA, false, m, n, k, []float32{1, -0.5}[idx%2], beta, idx%3, idx%2)
					if transA {
						tc.lda = 1
					}
					ep := Epilogue{}
					if idx%5 != 0 {
						tc.bias = randMatrix[float32](r, 1, n, n, idx%2)
						tc.act = ActReLU
						ep = Epilogue{Bias: tc.bias, Act: ActReLU}
					}
					pb := PackB(false, k, n, tc.b, tc.ldb)
					c := slices.Clone(tc.c0)
					SgemmPackedEpilogue(tc.transA, m, tc.alpha, tc.a, tc.lda, pb, tc.beta, c, tc.ldc, ep)
					tc.check(t, fmt.Sprintf("%s threads=%d %v", level, Threads(), tc), c)
					// The next call on the same B sweeps its panels the other
					// way; every column is computed the same either way.
					again := slices.Clone(tc.c0)
					SgemmPackedEpilogue(tc.transA, m, tc.alpha, tc.a, tc.lda, pb, tc.beta, again, tc.ldc, ep)
					for i := range c {
						if math.Float32bits(again[i]) != math.Float32bits(c[i]) {
							t.Fatalf("%s threads=%d %v: element %d is %v on the second call, %v on the first", level, Threads(), tc, i, again[i], c[i])
						}
					}
				}
			}
		}
	}
}

// TestSgemmPackedRowsConcurrent runs split packed-rows calls from several
// goroutines at once, more parts than cores, with a Go activation (applied
// chunk by chunk); under -race it checks the claims and the recycling of
// jobs whose workers start after the call has returned.
func TestSgemmPackedRowsConcurrent(t *testing.T) {
	double := func(x []float32) {
		for i := range x {
			x[i] *= 2
		}
	}
	activations = append(activations, activationInfo{name: "double", apply32: double})
	act := Activation(len(activations) - 1)
	oldSplit, oldChunk, oldThreads := minPackedRowsSplit, packedRowsChunk, SetThreads(4)
	minPackedRowsSplit, packedRowsChunk = 1, 1
	defer func() {
		activations = activations[:len(activations)-1]
		minPackedRowsSplit, packedRowsChunk = oldSplit, oldChunk
		SetThreads(oldThreads)
	}()
	nr := active.Load().sgemm.nr
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 35))
			calls := 30
			if raceEnabled {
				calls = 8
			}
			for i := 0; i < calls; i++ {
				m, n, k := 1+i%packedRowsMax, 3*nr+i%7, 20+i
				tc := newCase[float32](r, false, false, m, n, k, 1, 0.5, 1, 1)
				tc.bias = randMatrix[float32](r, 1, n, n, 0)
				pb := PackB(false, k, n, tc.b, tc.ldb)
				c := slices.Clone(tc.c0)
				SgemmPackedEpilogue(false, m, tc.alpha, tc.a, tc.lda, pb, tc.beta, c, tc.ldc, Epilogue{Bias: tc.bias, Act: act})
				// double(αAB + βC + bias) is the reference with α, β and bias doubled.
				tc.alpha, tc.beta = 2*tc.alpha, 2*tc.beta
				for j := range tc.bias {
					tc.bias[j] *= 2
				}
				tc.check(t, "concurrent "+tc.String(), c)
			}
		}(uint64(g))
	}
	wg.Wait()
}

// TestPackedRowsNoAllocs: a split packed-rows call allocates nothing once
// its job and scratch tile exist.
func TestPackedRowsNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	oldSplit, oldThreads := minPackedRowsSplit, SetThreads(2)
	minPackedRowsSplit = 1
	defer func() { minPackedRowsSplit = oldSplit; SetThreads(oldThreads) }()
	r := rand.New(rand.NewPCG(36, 37))
	for _, m := range []int{1, 3} {
		tc := newCase[float32](r, false, false, m, 1000, 300, 1, 0, 0, 0)
		pb := PackB(false, tc.k, tc.n, tc.b, tc.ldb)
		bias := make([]float32, tc.n)
		c := slices.Clone(tc.c0)
		if n := testing.AllocsPerRun(20, func() {
			SgemmPackedEpilogue(false, m, 1, tc.a, tc.lda, pb, 0, c, tc.ldc, Epilogue{Bias: bias, Act: ActReLU})
		}); n != 0 {
			t.Errorf("m=%d: %v allocations per call, want 0", m, n)
		}
	}
}

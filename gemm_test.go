package kiln

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestRequiredISA fails when KILN_TEST_REQUIRE_ISA names a level that
// dispatch did not choose, so CI notices a silent fallback (for example the
// generic kernels running under qemu instead of NEON).
func TestRequiredISA(t *testing.T) {
	want := os.Getenv("KILN_TEST_REQUIRE_ISA")
	if want == "" {
		t.Skip("KILN_TEST_REQUIRE_ISA not set")
	}
	if got := active.Load().level.String(); got != want {
		t.Fatalf("KILN_TEST_REQUIRE_ISA=%s but dispatch chose %s (Features() = %q)", want, got, Features())
	}
}

func TestFeaturesNamesChosenLevel(t *testing.T) {
	f := Features()
	if !strings.HasPrefix(f, "amd64 ") && !strings.HasPrefix(f, "arm64 ") && !strings.Contains(f, "generic") {
		t.Fatalf("Features() = %q, want the architecture first", f)
	}
	if env := os.Getenv("KILN_ISA"); env != "" && cpuState.note == "" && active.Load().level.String() != env {
		t.Fatalf("KILN_ISA=%s honoured without a note, but dispatch chose %s", env, active.Load().level)
	}
	if active.Load().level > cpuState.best {
		t.Fatalf("chose %s above the best level the CPU offers, %s", active.Load().level, cpuState.best)
	}
}

// sizeValues is every size each axis must see: the small ones, one around
// each tile edge, the primes up to 67 and two around 256.
func sizeValues[T float](g *gemmKernels[T]) []int {
	v := []int{0, 1, 2, 3, g.mr - 1, g.mr, g.mr + 1, g.nr - 1, g.nr, g.nr + 1,
		5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 255, 257}
	for _, s := range []*gemmKernels[T]{g.small, g.narrow} {
		if s != nil {
			v = append(v, s.mr-1, s.mr, s.mr+1, s.nr-1, s.nr, s.nr+1)
		}
	}
	if raceEnabled {
		// Under the race detector (for the threaded paths) the full matrix
		// takes minutes; the sizes around the tiles are kept.
		v = slices.DeleteFunc(v, func(x int) bool { return x > 67 || x%2 == 1 && x > 11 && x != g.mr+1 && x != g.nr+1 })
	}
	slices.Sort(v)
	return slices.Compact(v)
}

var alphaBetas = [][2]float64{{1, 0}, {1, 1}, {0, 1}, {-1.5, 0.5}, {0.5, 0}, {0, 0}, {2, -1}, {1, 0.25}}

// shapeMatrix walks each value of sizeValues on each axis, pairing it with
// partners drawn from the same list (capped so that the big values do not
// meet each other), every transpose combination and an alpha/beta pair.
func forEachShape(vals []int, f func(transA, transB bool, m, n, k int, alpha, beta float64, extra, offset int)) {
	small := slices.DeleteFunc(slices.Clone(vals), func(x int) bool { return x > 67 })
	idx := 0
	for axis := 0; axis < 3; axis++ {
		for vi, v := range vals {
			for tr := 0; tr < 4; tr++ {
				p := small[(vi*7+tr*3+axis*5)%len(small)]
				q := small[(vi*3+tr*11+axis*2+1)%len(small)]
				dims := [3]int{p, q, p}
				dims[axis] = v
				dims[(axis+1)%3] = p
				dims[(axis+2)%3] = q
				ab := alphaBetas[idx%len(alphaBetas)]
				f(tr&1 != 0, tr&2 != 0, dims[0], dims[1], dims[2], ab[0], ab[1], []int{0, 1, 3, 17}[idx%4], []int{0, 1, 3}[idx%3])
				idx++
			}
		}
	}
}

// TestSgemmShapes checks Sgemm (the chosen kernels, whole driver) and the
// pure-Go twin driver against the float64 reference over the shape matrix.
func TestSgemmShapes(t *testing.T) {
	twin := twinKernels[float32](4, 8, true)
	setBlocking(twin, 4, cpuState)
	r := rand.New(rand.NewPCG(1, 2))
	for _, th := range []int{1, 2} {
		old := SetThreads(th)
		forEachShape(sizeValues(active.Load().sgemm), func(tA, tB bool, m, n, k int, alpha, beta float64, extra, offset int) {
			tc := newCase[float32](r, tA, tB, m, n, k, float32(alpha), float32(beta), extra, offset)
			c := slices.Clone(tc.c0)
			Sgemm(tA, tB, m, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc)
			tc.check(t, "Sgemm "+tc.String(), c)
			if th == 1 {
				c = slices.Clone(tc.c0)
				gemm(twin, tA, tB, m, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, nil, nil, tc.beta, c, tc.ldc, epilogue[float32]{})
				tc.check(t, "Go twin "+tc.String(), c)
			}
		})
		SetThreads(old)
	}
}

func TestDgemmShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	forEachShape(sizeValues(active.Load().dgemm), func(tA, tB bool, m, n, k int, alpha, beta float64, extra, offset int) {
		tc := newCase[float64](r, tA, tB, m, n, k, alpha, beta, extra, offset)
		c := slices.Clone(tc.c0)
		Dgemm(tA, tB, m, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc)
		tc.check(t, "Dgemm "+tc.String(), c)
	})
}

// TestSgemmBlocking runs the driver with tiny cache blocks so that every
// loop (NC, KC, MC, partial blocks, K split with beta) runs several times.
func TestSgemmBlocking(t *testing.T) {
	a := active.Load().sgemm
	g := gemmKernels[float32]{mr: a.mr, nr: a.nr, kmajor: a.kmajor, rowMajor: a.rowMajor, masked: a.masked,
		packing: a.packing, kc: 8, mc: 2 * a.mr, nc: 2 * a.nr, kcSmall: 8}
	r := rand.New(rand.NewPCG(5, 6))
	for _, shape := range [][3]int{{33, 65, 17}, {2*g.mr + 1, 4*g.nr + 3, 3*8 + 5}, {97, 131, 67}, {g.mr + 1, 2*g.nr + 1, 29}} {
		for tr := 0; tr < 4; tr++ {
			for _, ab := range alphaBetas[:4] {
				tc := newCase[float32](r, tr&1 != 0, tr&2 != 0, shape[0], shape[1], shape[2], float32(ab[0]), float32(ab[1]), 2, 1)
				c := slices.Clone(tc.c0)
				gemm(&g, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, nil, nil, tc.beta, c, tc.ldc, epilogue[float32]{})
				tc.check(t, "blocked "+tc.String(), c)
			}
		}
	}
}

// TestSgemmPackingKernel runs the blocked path where the first row tile of
// each block packs the panels of B (one block of rows, B not packed) at every
// runnable level and with the Go twins: M past the small-M path with partial
// row tiles, N at and around the panel width (the partial last panel is
// packed by the copy loop), K over several short KC blocks with a tail, B and
// A transposed or not, unaligned, with bias and ReLU. It counts the packing
// kernel's calls, so that a change of the driver cannot leave it unused.
func TestSgemmPackingKernel(t *testing.T) {
	orig := active.Load().level.String()
	defer SetISA(orig)
	sets := map[string]*gemmKernels[float32]{"twin": twinKernels[float32](4, 8, true)}
	for _, level := range ISALevels() {
		if _, err := SetISA(level); err != nil {
			t.Fatal(err)
		}
		sets[level] = active.Load().sgemm
	}
	r := rand.New(rand.NewPCG(41, 42))
	for name, a := range sets {
		if a.packing == nil {
			continue
		}
		calls := 0
		g := gemmKernels[float32]{mr: a.mr, nr: a.nr, kmajor: a.kmajor, rowMajor: a.rowMajor, masked: a.masked,
			kc: 16, mc: 20 * a.mr, nc: 3 * a.nr, kcSmall: 16}
		g.packing = func(k int, ap *float32, lda int, bp *float32, ldb int, c *float32, ldc int, alpha, beta float32, bias *float32, mask *int32, flags uint, dst *float32) {
			calls++
			a.packing(k, ap, lda, bp, ldb, c, ldc, alpha, beta, bias, mask, flags, dst)
		}
		idx := 0
		for _, m := range []int{33, 41, 5*a.mr + 1} {
			for _, n := range []int{a.nr - 1, a.nr, a.nr + 1, 4*a.nr + 3} {
				for _, k := range []int{1, 15, 16, 17, 53} {
					for tr := 0; tr < 4; tr++ {
						ab := alphaBetas[idx%4]
						tc := newCase[float32](r, tr&1 != 0, tr&2 != 0, m, n, k, float32(ab[0]), float32(ab[1]), []int{0, 1, 3}[idx%3], idx%2)
						var ep epilogue[float32]
						if idx%3 == 1 {
							tc.bias = randMatrix[float32](r, 1, n, n, 0)
							tc.act = ActReLU
							ep = epilogue32(Epilogue{Bias: tc.bias, Act: ActReLU})
						}
						c := slices.Clone(tc.c0)
						gemm(&g, tc.transA, tc.transB, m, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, nil, nil, tc.beta, c, tc.ldc, ep)
						tc.check(t, name+" "+tc.String(), c)
						idx++
					}
				}
			}
		}
		if calls == 0 {
			t.Errorf("%s: the packing kernel was never called", name)
		}
	}
}

// TestSgemmPrefetchingKernel runs the blocked path with a prepacked B and
// with B read where it lies, one block of rows, at every runnable level,
// where the row tiles prefetch the next panel (see nextPanel): M past the
// small-M path with partial row tiles, N across several panels and two column
// blocks with a partial last panel or one column block of whole panels (B
// then read in place), K over several short KC blocks with a tail (the last
// panel of each block prefetches the next block's first), A transposed or
// not, unaligned, with bias and ReLU or GELU, and with B taken as streamed
// from beyond L2 or not (the first tile of a panel nothing prefetched copies
// it). Each result must be the one the same set gives without the prefetching
// kernel, bit for bit, and within the reference's bound; every pf passed must
// lie in the B the product reads. It counts the prefetching kernel's calls on
// either B, so that a change of the driver cannot leave it unused.
func TestSgemmPrefetchingKernel(t *testing.T) {
	orig := active.Load().level.String()
	defer SetISA(orig)
	r := rand.New(rand.NewPCG(43, 44))
	for _, level := range ISALevels() {
		if _, err := SetISA(level); err != nil {
			t.Fatal(err)
		}
		a := active.Load().sgemm
		if a.prefetching == nil {
			continue
		}
		var src []float32 // the B the product reads: prepacked or not
		calls := map[bool]int{}
		prepacked := false
		set := func() *gemmKernels[float32] {
			return &gemmKernels[float32]{mr: a.mr, nr: a.nr, kmajor: a.kmajor, rowMajor: a.rowMajor, masked: a.masked,
				packing: a.packing, prefetchSteps: a.prefetchSteps, packTail: a.packTail,
				kc: 16, mc: 20 * a.mr, nc: 3 * a.nr, kcSmall: 16}
		}
		g, plain := set(), set()
		g.prefetching = func(k int, ap *float32, lda int, bp *float32, ldb int, c *float32, ldc int, alpha, beta float32, bias *float32, mask *int32, flags uint, pf *float32, stride int) {
			calls[prepacked]++
			if p := uintptr(unsafe.Pointer(pf)); p < uintptr(unsafe.Pointer(&src[0])) || p > uintptr(unsafe.Pointer(&src[len(src)-1])) {
				t.Fatalf("%s: pf %#x outside the B read (prepacked %v)", level, p, prepacked)
			}
			a.prefetching(k, ap, lda, bp, ldb, c, ldc, alpha, beta, bias, mask, flags, pf, stride)
		}
		idx := 0
		for _, m := range []int{33, 7*a.mr + 5, 20 * a.mr} {
			for _, n := range []int{2*a.nr + 1, 3 * a.nr, 4*a.nr + 3} {
				for _, k := range []int{4, 17, 53} {
					for _, tA := range []bool{false, true} {
						for _, pre := range []bool{true, false} {
							// alpha ≠ 0: alpha = 0 never reaches the kernels.
							ab := [][2]float64{{1, 0}, {1, 1}, {-1.5, 0.5}, {2, -1}}[idx%4]
							tc := newCase[float32](r, tA, idx/4%2 == 1, m, n, k, float32(ab[0]), float32(ab[1]), []int{0, 1, 3}[idx%3], idx%2)
							var pb []float32
							src, prepacked = tc.b, pre
							if prepacked {
								pb = PackB(tc.transB, k, n, tc.b, tc.ldb).data
								src = pb
							}
							var ep epilogue[float32]
							switch idx % 3 {
							case 1:
								tc.bias = randMatrix[float32](r, 1, n, n, 0)
								tc.act = ActReLU
								ep = epilogue32(Epilogue{Bias: tc.bias, Act: ActReLU})
							case 2:
								ep = epilogue32(Epilogue{Act: ActGeluTanh})
							}
							streamed := []int{a.streamedB, 0}[idx/3%2]
							g.streamedB, plain.streamedB = streamed, streamed
							got, want := slices.Clone(tc.c0), slices.Clone(tc.c0)
							gemm(g, tc.transA, tc.transB, m, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, pb, nil, tc.beta, got, tc.ldc, ep)
							gemm(plain, tc.transA, tc.transB, m, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, pb, nil, tc.beta, want, tc.ldc, ep)
							for i := range got {
								if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
									t.Fatalf("%s %v: C[%d] = %v with the prefetching kernel, %v without", level, tc, i, got[i], want[i])
								}
							}
							if idx%3 != 2 {
								tc.check(t, level+" prefetching "+tc.String(), got)
							}
							idx++
						}
					}
				}
			}
		}
		for _, p := range []bool{true, false} {
			if calls[p] == 0 {
				t.Errorf("%s: the prefetching kernel was never called with prepacked %v", level, p)
			}
		}
	}
}

// TestSgemmEpilogue checks bias and ReLU on both paths, with beta.
func TestSgemmEpilogue(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, shape := range [][3]int{{1, 77, 33}, {7, active.Load().sgemm.nr*2 + 5, 64}, {31, 100, 50}, {70, 129, 300}} {
		for _, act := range []Activation{ActNone, ActReLU} {
			for _, beta := range []float32{0, 0.5} {
				tc := newCase[float32](r, false, shape[0]%2 == 1, shape[0], shape[1], shape[2], 1.25, beta, 1, 1)
				tc.bias = randMatrix[float32](r, 1, tc.n, tc.n, 0)
				tc.act = act
				c := slices.Clone(tc.c0)
				SgemmEpilogue(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc, Epilogue{Bias: tc.bias, Act: act})
				tc.check(t, "SgemmEpilogue "+tc.String(), c)
				// ReLU must have clipped something for the check to mean anything.
				if act == ActReLU && !slices.Contains(c, 0) {
					t.Errorf("SgemmEpilogue %v: no element clipped to 0", tc)
				}
			}
		}
	}
}

func TestSgemmPacked(t *testing.T) {
	// Every case runs twice: with B held in L2 between calls, and with B
	// taken as streamed from beyond it (each panel copied on its first row
	// tile).
	g := active.Load().sgemm
	defer func(old int) { g.streamedB = old }(g.streamedB)
	for _, streamed := range []int{g.streamedB, 0} {
		g.streamedB = streamed
		testSgemmPacked(t)
	}
}

func testSgemmPacked(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	// The N values end in a last panel of every width PackB gives one (see
	// PackedB), read by each path: the packed-rows path (M ≤ 4), the small-M
	// tiles (M ≤ 32 or N ≤ 32, in slices of the panel) and the blocked path.
	for _, shape := range [][3]int{{1, 1, 1}, {1, 300, 129}, {8, 768, 67}, {32, 97, 200}, {33, 65, 17}, {100, 131, 150}, {5, 0, 3}, {3, 4, 0},
		{40, 90, 70}, {20, 90, 33}, {14, 112, 45}, {3, 90, 21}, {7, 48, 64}, {2, 113, 9},
		{64, 10, 512}, {100, 32, 70}, {45, 17, 33}, {33, 1, 9}, {71, 31, 600}, {70, 300, 700}, {50, 128, 1100}} {
		for _, tB := range []bool{false, true} {
			for _, tA := range []bool{false, true} {
				tc := newCase[float32](r, tA, tB, shape[0], shape[1], shape[2], 0.75, 0.5, 3, 1)
				tc.bias = randMatrix[float32](r, 1, tc.n, tc.n, 0)
				tc.act = ActReLU
				pb := PackB(tB, tc.k, tc.n, tc.b, tc.ldb)
				if pb.K() != tc.k || pb.N() != tc.n {
					t.Fatalf("PackB: K()=%d N()=%d, want %d %d", pb.K(), pb.N(), tc.k, tc.n)
				}
				c := slices.Clone(tc.c0)
				SgemmPackedEpilogue(tA, tc.m, tc.alpha, tc.a, tc.lda, pb, tc.beta, c, tc.ldc, Epilogue{Bias: tc.bias, Act: ActReLU})
				tc.check(t, "SgemmPackedEpilogue "+tc.String(), c)
				tc.bias, tc.act = nil, ActNone
				c = slices.Clone(tc.c0)
				SgemmPacked(tA, tc.m, tc.alpha, tc.a, tc.lda, pb, tc.beta, c, tc.ldc)
				tc.check(t, "SgemmPacked "+tc.String(), c)
			}
		}
	}
}

// TestSgemmThreaded splits even small calls over several goroutines, from
// several callers at once; run under -race it checks the worker pool.
func TestSgemmThreaded(t *testing.T) {
	old, oldWork := SetThreads(3), minPartWork
	minPartWork = 1
	defer func() { SetThreads(old); minPartWork = oldWork }()
	// {300, 10, 90} and {130, 32, 41}: narrow products, split by rows on the
	// small-M tiles.
	shapes := [][3]int{{5, 200, 31}, {100, 37, 64}, {64, 64, 64}, {257, 129, 70}, {300, 10, 90}, {130, 32, 41}}
	done := make(chan bool)
	for g := 0; g < 3; g++ {
		go func(seed uint64) {
			r := rand.New(rand.NewPCG(seed, 11))
			for i, s := range shapes {
				tc := newCase[float32](r, i%2 == 0, i%3 == 0, s[0], s[1], s[2], 1, 0.5, 1, 1)
				c := slices.Clone(tc.c0)
				Sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc)
				tc.check(t, "threaded "+tc.String(), c)
			}
			done <- true
		}(uint64(g))
	}
	for g := 0; g < 3; g++ {
		<-done
	}
}

// TestGemmNoAllocs: the steady state of every entry point allocates nothing.
func TestGemmNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	r := rand.New(rand.NewPCG(12, 13))
	for _, th := range []int{1, 2} {
		old := SetThreads(th)
		for _, s := range [][3]int{{1, 300, 200}, {8, 300, 200}, {100, 150, 70}, {64, 64, 64}} {
			tc := newCase[float32](r, false, false, s[0], s[1], s[2], 1, 0, 0, 0)
			c := slices.Clone(tc.c0)
			if n := testing.AllocsPerRun(5, func() {
				Sgemm(false, false, tc.m, tc.n, tc.k, 1, tc.a, tc.lda, tc.b, tc.ldb, 0, c, tc.ldc)
			}); n != 0 {
				t.Errorf("Sgemm %v threads=%d: %v allocations per call, want 0", s, th, n)
			}
			pb := PackB(false, tc.k, tc.n, tc.b, tc.ldb)
			bias := make([]float32, tc.n)
			if n := testing.AllocsPerRun(5, func() {
				SgemmPackedEpilogue(false, tc.m, 1, tc.a, tc.lda, pb, 0, c, tc.ldc, Epilogue{Bias: bias, Act: ActReLU})
			}); n != 0 {
				t.Errorf("SgemmPackedEpilogue %v threads=%d: %v allocations per call, want 0", s, th, n)
			}
			d := make([]float64, s[0]*s[1])
			da, db := make([]float64, s[0]*s[2]), make([]float64, s[2]*s[1])
			if n := testing.AllocsPerRun(5, func() {
				Dgemm(false, false, s[0], s[1], s[2], 1, da, s[2], db, s[1], 0, d, s[1])
			}); n != 0 {
				t.Errorf("Dgemm %v threads=%d: %v allocations per call, want 0", s, th, n)
			}
		}
		SetThreads(old)
	}
}

func TestGemmArgumentPanics(t *testing.T) {
	a, b, c := make([]float32, 12), make([]float32, 12), make([]float32, 12)
	cases := []struct {
		name string
		call func()
		want string
	}{
		{"negative m", func() { Sgemm(false, false, -1, 3, 4, 1, a, 4, b, 3, 0, c, 3) }, "must not be negative"},
		{"short lda", func() { Sgemm(false, false, 3, 3, 4, 1, a, 3, b, 3, 0, c, 3) }, "lda must be at least max(1, 4)"},
		{"short lda transposed", func() { Sgemm(true, false, 3, 3, 4, 1, a, 2, b, 3, 0, c, 3) }, "lda must be at least max(1, 3)"},
		{"short a", func() { Sgemm(false, false, 3, 3, 4, 1, a[:11], 4, b, 3, 0, c, 3) }, "len(a) must be at least 12"},
		{"short c", func() { Sgemm(false, false, 4, 3, 3, 1, a, 3, b, 3, 0, c[:10], 3) }, "len(c) must be at least 12"},
		{"short bias", func() {
			SgemmEpilogue(false, false, 3, 3, 4, 1, a, 4, b, 3, 0, c, 3, Epilogue{Bias: make([]float32, 2)})
		}, "len(ep.Bias) must be at least n=3"},
		{"nil packed", func() { SgemmPacked(false, 1, 1, a, 4, nil, 0, c, 3) }, "packed B is nil"},
	}
	for _, tc := range cases {
		func() {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.Contains(msg, tc.want) {
					t.Errorf("%s: panic %v, want one containing %q", tc.name, r, tc.want)
				}
			}()
			tc.call()
		}()
	}
}

// TestSetISA switches to every runnable level, runs Sgemm and SgemmPacked
// (with a matrix packed under another level) and checks the results.
func TestSetISA(t *testing.T) {
	orig := active.Load().level.String()
	defer SetISA(orig)
	r := rand.New(rand.NewPCG(14, 15))
	tc := newCase[float32](r, false, true, 37, 131, 70, 1, 0.5, 1, 1)
	stale := PackB(tc.transB, tc.k, tc.n, tc.b, tc.ldb)
	for _, name := range ISALevels() {
		if _, err := SetISA(name); err != nil {
			t.Fatal(err)
		}
		if got := active.Load().level.String(); got != name {
			t.Fatalf("SetISA(%q) left %s active", name, got)
		}
		c := slices.Clone(tc.c0)
		Sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc)
		tc.check(t, name+" Sgemm "+tc.String(), c)
		pb := PackB(tc.transB, tc.k, tc.n, tc.b, tc.ldb)
		c = slices.Clone(tc.c0)
		SgemmPacked(tc.transA, tc.m, tc.alpha, tc.a, tc.lda, pb, tc.beta, c, tc.ldc)
		tc.check(t, name+" SgemmPacked "+tc.String(), c)
		if stale.nr != pb.nr {
			func() {
				defer func() {
					if msg, _ := recover().(string); !strings.Contains(msg, "pack it again after SetISA") {
						t.Errorf("%s: SgemmPacked with a matrix packed for other tiles: panic %q", name, msg)
					}
				}()
				SgemmPacked(tc.transA, tc.m, tc.alpha, tc.a, tc.lda, stale, tc.beta, c, tc.ldc)
			}()
		}
	}
	if _, err := SetISA("sse9"); err == nil || !strings.Contains(err.Error(), `level "sse9" is not one`) {
		t.Errorf("SetISA(sse9): error %v, want one naming the level", err)
	}
}

// TestEpilogueGoActivation covers activations without a kernel flag, which
// the driver applies in Go right after each tile is stored: a test-only
// entry (x ↦ 2x) appended to the table.
func TestEpilogueGoActivation(t *testing.T) {
	double := func(x []float32) {
		for i := range x {
			x[i] *= 2
		}
	}
	activations = append(activations, activationInfo{name: "double", apply32: double})
	act := Activation(len(activations) - 1)
	defer func() { activations = activations[:len(activations)-1] }()
	r := rand.New(rand.NewPCG(16, 17))
	// 40×130×600: K beyond any KC, so B is packed by the packing kernel.
	for _, s := range [][3]int{{3, 70, 20}, {40, 130, 90}, {40, 130, 600}} {
		tc := newCase[float32](r, false, false, s[0], s[1], s[2], 1, 0.5, 1, 1)
		tc.bias = randMatrix[float32](r, 1, tc.n, tc.n, 0)
		c := slices.Clone(tc.c0)
		SgemmEpilogue(false, false, tc.m, tc.n, tc.k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc, Epilogue{Bias: tc.bias, Act: act})
		// double(αAB + βC + bias) is the reference with α, β and bias doubled.
		tc.alpha, tc.beta = 2*tc.alpha, 2*tc.beta
		for j := range tc.bias {
			tc.bias[j] *= 2
		}
		tc.check(t, "double "+tc.String(), c)
	}
	if act.String() != "double" || ActReLU.String() != "relu" {
		t.Errorf("names: %q %q", act, ActReLU)
	}
}

// TestGemvSingleRow covers the single-row paths (gemv.go) at every runnable
// level, B transposed or not: n and k around the 4-row kernels and the vector
// widths, the epilogue, and A as a row or as a column with lda 1 (the paths)
// or lda > 1 (the GEMM path).
func TestGemvSingleRow(t *testing.T) {
	orig := active.Load().level.String()
	defer SetISA(orig)
	r := rand.New(rand.NewPCG(18, 19))
	for _, level := range ISALevels() {
		SetISA(level)
		for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 65} {
			for _, k := range []int{1, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 100} {
				for i, tA := range []bool{false, true, true, false} {
					tB := i != 3
					tc := newCase[float32](r, tA, tB, 1, n, k, 1.5, []float32{0, 0.5, 1, 0.25}[i], 0, 1)
					if tA && i == 2 {
						tc.lda = 3 // a column of A with a stride: not the dot path
						tc.a = randMatrix[float32](r, k, 1, 3, 1)
					}
					tc.bias = randMatrix[float32](r, 1, n, n, 0)
					tc.act = ActReLU
					c := slices.Clone(tc.c0)
					SgemmEpilogue(tc.transA, tB, 1, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc, Epilogue{Bias: tc.bias, Act: ActReLU})
					tc.check(t, level+" gemv "+tc.String(), c)
				}
			}
		}
	}
}

// TestDot4AgainstLoop checks each level's four-row dot kernel on its own.
func TestDot4AgainstLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 21))
	for _, set := range runnable {
		g := set.sgemm
		if g.dot4 == nil {
			continue
		}
		for _, k := range []int{g.dotLanes, 2 * g.dotLanes, 3 * g.dotLanes, 16 * g.dotLanes} {
			ldb := k + 5
			x := randMatrix[float32](r, 1, k, k, 1)
			b := randMatrix[float32](r, 4, k, ldb, 3)
			var out [64]float32
			g.dot4(k, &x[0], &b[0], ldb, &out[0])
			for row := 0; row < 4; row++ {
				var got, want, abs float64
				for l := 0; l < g.dotLanes; l++ {
					got += float64(out[row*g.dotLanes+l])
				}
				for p := 0; p < k; p++ {
					want += float64(x[p]) * float64(b[row*ldb+p])
					abs += math.Abs(float64(x[p]) * float64(b[row*ldb+p]))
				}
				if d := math.Abs(got - want); d > float64(k+g.dotLanes)*0x1p-24*abs {
					t.Errorf("%s sdot4 k=%d row %d: %g, want %g", set.level, k, row, got, want)
				}
			}
		}
	}
}

// TestPackedBOutsideHeap runs SgemmPacked on a large packed matrix (mapped
// outside the Go heap on Linux) that nothing else references, while the
// collector runs: the call must keep it alive until the kernels are done.
func TestPackedBOutsideHeap(t *testing.T) {
	const k, n = 1024, 1024 // 4 MiB: above hugeAlloc's threshold
	r := rand.New(rand.NewPCG(22, 23))
	b := randMatrix[float32](r, k, n, n, 0)
	a := randMatrix[float32](r, 1, k, k, 0)
	stop := make(chan bool)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer close(stop)
	want, abs := make([]float64, n), make([]float64, n)
	for p := 0; p < k; p++ {
		for j := 0; j < n; j++ {
			want[j] += float64(a[p]) * float64(b[p*n+j])
			abs[j] += math.Abs(float64(a[p]) * float64(b[p*n+j]))
		}
	}
	for i := 0; i < 3; i++ {
		c := make([]float32, n)
		SgemmPacked(false, 1, 1, a, k, PackB(false, k, n, b, n), 0, c, n)
		for j := range c {
			if d := math.Abs(float64(c[j]) - want[j]); d > float64(k+3)*0x1p-24*abs[j] {
				t.Fatalf("C[%d] = %v, want %v", j, c[j], want[j])
			}
		}
	}
}

// TestSgemmBInPlace covers products whose untransposed B is read in place
// by the blocked path though the block is not single (streamsBInPlace):
// several depth blocks, whole panels and a packed partial one, ldb wider
// than n, B unaligned, bias and ReLU, at every runnable level — and shapes
// just outside the rule, which pack B.
func TestSgemmBInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 67))
	forEachLevel(t, func(level string) {
		for _, sh := range [][3]int{{40, 780, 130}, {33, 1024, 64}, {64, 800, 96}, {48, 1025, 64}} {
			m, k, n := sh[0], sh[1], sh[2]
			for _, extra := range []int{0, 5} {
				tc := newCase[float32](r, false, false, m, n, k, 1, 0.5, extra, 1)
				tc.bias = randMatrix[float32](r, 1, n, n, 0)
				tc.act = ActReLU
				c := slices.Clone(tc.c0)
				SgemmEpilogue(false, false, m, n, k, tc.alpha, tc.a, tc.lda, tc.b, tc.ldb, tc.beta, c, tc.ldc, Epilogue{Bias: tc.bias, Act: ActReLU})
				tc.check(t, level+" B in place "+tc.String(), c)
			}
		}
	})
}

package kiln

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestS8WPlanesKernelsAgainstTwin runs the planes kernels of every runnable
// level against their twin, bit for bit, over random planes (any bytes),
// weights, sums and scales, every plane count and epilogue.
func TestS8WPlanesKernelsAgainstTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(171, 172))
	for _, set := range runnable {
		s := set.s8w
		if s == nil || s.planes == nil {
			continue
		}
		for planes := 1; planes < len(s.planes); planes++ {
			twin := s8wPlanesTwin(planes, s.nr)
			for _, groups := range []int{1, 2, 3, 17, 40} {
				for _, panels := range []int{1, 2, 3} {
					for flags := uint(0); flags < 4; flags++ {
						f := flags * flagBias // flagBias, flagReLU
						n := panels * s.nr
						x := make([]uint32, groups*planes)
						for i := range x {
							x[i] = r.Uint32()
						}
						w := make([]int8, panels*groups*4*s.nr)
						for i := range w {
							w[i] = int8(r.Uint32())
						}
						sums := make([]int32, n)
						for i := range sums {
							sums[i] = int32(r.IntN(1<<16)) - 1<<15
						}
						scale := randMatrix[float32](r, 1, n, n, 1)
						bias := randMatrix[float32](r, 1, n, n, 1)
						unit := math.Ldexp(1, -r.IntN(60))
						got, want := make([]float32, n), make([]float32, n)
						s.planes[planes](groups, &x[0], &w[0], panels, &sums[0], unit, &scale[0], &got[0], &bias[0], f)
						twin(groups, &x[0], &w[0], panels, &sums[0], unit, &scale[0], &want[0], &bias[0], f)
						for i := range got {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s planes=%d groups=%d panels=%d flags=%b: column %d = %v, twin %v", set.level, planes, groups, panels, f, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestS8WWidenQuads checks the quads' widening of every runnable level
// against the weights it was packed from.
func TestS8WWidenQuads(t *testing.T) {
	r := rand.New(rand.NewPCG(173, 174))
	for _, set := range runnable {
		s := set.s8w
		if s == nil || !s.quads {
			continue
		}
		for _, k := range []int{1, 4, 5, 30} {
			w := make([]int8, k*s.nr)
			for i := range w {
				w[i] = int8(r.Uint32())
			}
			groups := (k + 3) / 4
			packed := make([]int8, groups*4*s.nr)
			for p := 0; p < k; p++ {
				for j := 0; j < s.nr; j++ {
					packed[s8wAt(true, s.nr, p, j)] = w[p*s.nr+j]
				}
			}
			got := make([]float32, groups*4*s.nr)
			s.widen(&got[0], &packed[0], groups)
			for i := range got {
				want := float32(0) // the last group's missing rows
				if i < k*s.nr {
					want = float32(w[i])
				}
				if got[i] != want {
					t.Fatalf("%s k=%d: element %d = %v, want %v", set.level, k, i, got[i], want)
				}
			}
		}
	}
}

// planesValue reads element i of a row split by s8wSplit back from its
// planes: X(i), the integer the planes hold less the offset.
func planesValue(dst []uint32, planes, i int) int64 {
	var u uint64
	for p := 0; p < planes; p++ {
		u |= uint64(dst[i/4*planes+p]>>(8*(i%4))&0xff) << (8 * p)
	}
	return int64(u - 1<<(8*planes-1))
}

// TestS8WSplit checks that the planes hold every element exactly, X(i) =
// x(i)·2^s with unit = 2^−s, in the fewest planes and with the least s,
// and that rows without such a form, or whose sums could overflow, are
// refused.
func TestS8WSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(175, 176))
	rows := map[string][]float32{
		"zeros":       make([]float32, 9),
		"one":         {-3},
		"small ints":  {1, -2, 3, 0, 127, -128},
		"byte edge":   {-129, 128},
		"signed zero": {float32(math.Copysign(0, -1)), 1},
		"large int":   {1 << 30, -(1 << 30), 3},
		"top plane":   {0x1p45, -0x1p45, 1},
		"subnormals":  {0x1p-140, 3 * 0x1p-149, 0},
	}
	for _, k := range []int{1, 2, 3, 4, 5, 13, 768} {
		normal := make([]float32, k)
		dyadic := make([]float32, k)
		bf16 := make([]float32, k)
		for i := range normal {
			normal[i] = float32(r.NormFloat64())
			dyadic[i] = float32(math.Ldexp(float64(r.IntN(1<<20)-1<<19), -r.IntN(20)))
			bf16[i] = math.Float32frombits(math.Float32bits(normal[i]) &^ 0xffff)
		}
		rows["normal/"+strconv.Itoa(k)] = normal
		rows["dyadic/"+strconv.Itoa(k)] = dyadic
		rows["bf16/"+strconv.Itoa(k)] = bf16
	}
	for level, ks := range splitKernelSets() {
		for name, x := range rows {
			dst := make([]uint32, s8wSplitLen(len(x)))
			planes, unit, ok := s8wSplit(ks, dst, x, s8wPlanesMax)
			if !ok {
				t.Fatalf("%s %s: refused", level, name)
			}
			var maxAbs int64
			odd := false
			for i := 0; i < (len(x)+3)/4*4; i++ {
				X := planesValue(dst, planes, i)
				want := 0.0
				if i < len(x) {
					want = float64(x[i])
				}
				if float64(X)*unit != want {
					t.Fatalf("%s %s: element %d holds %d·%g, want %v", level, name, i, X, unit, want)
				}
				maxAbs = max(maxAbs, X, -X)
				odd = odd || X%2 != 0
			}
			if maxAbs != 0 && !odd {
				t.Errorf("%s %s: every element even: s is not the least", level, name)
			}
			if planes > 1 && maxAbs < 1<<(8*(planes-1)-1) {
				t.Errorf("%s %s: %d planes hold max |X| = %d in fewer", level, name, planes, maxAbs)
			}
		}
		refused := map[string][]float32{
			"NaN":         {1, float32(math.NaN())},
			"Inf":         {float32(math.Inf(-1))},
			"subnormal":   {1, 0x1p-140},
			"spread":      {1 << 20, 0x1p-30},
			"wide planes": {1, 0x1p-46 * 1.5}, // 48 bits: seven planes
		}
		// Six planes whose int64 total could overflow are refused, fewer
		// elements of the same sizes not.
		big := make([]float32, 4096)
		for i := range big {
			big[i] = 1.5 * (1 << 20)
		}
		big[0] = 1.5 * 0x1p-25
		refused["sum overflow"] = big
		for name, x := range refused {
			if _, _, ok := s8wSplit(ks, make([]uint32, s8wSplitLen(len(x))), x, s8wPlanesMax); ok {
				t.Errorf("%s %s: not refused", level, name)
			}
		}
		if planes, _, ok := s8wSplit(ks, make([]uint32, s8wSplitLen(64)), big[:64], s8wPlanesMax); !ok || planes != 6 {
			t.Errorf("%s 64 elements of 2^20 and one of 2^-25: planes %d, ok %v; want 6 planes", level, planes, ok)
		}
		if _, _, ok := s8wSplit(ks, make([]uint32, s8wSplitLen(1<<16+1)), make([]float32, 1<<16+1), s8wPlanesMax); ok {
			t.Errorf("%s k = 2^16+1: not refused", level)
		}
	}
}

// splitKernelSets is s8wSplit's passes at every runnable level with its
// own, and the twins.
func splitKernelSets() map[string]*s8wKernels {
	sets := map[string]*s8wKernels{"twins": s8wTwins(16, false)}
	for _, set := range runnable {
		if set.s8w != nil && set.s8w.scan != nil {
			sets[set.level.String()] = set.s8w
		}
	}
	return sets
}

// TestS8WScanSplitKernels runs the scan and split kernels against their
// twins over rows of every length to 40 and of 768, with zeros,
// subnormals and special values: the same scan, the same planes.
func TestS8WScanSplitKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(179, 180))
	specials := []float32{0, float32(math.Copysign(0, -1)), 0x1p-149, -0x1p-130, float32(math.Inf(1)), float32(math.NaN()), 1 << 24}
	for level, ks := range splitKernelSets() {
		if ks.scan == nil {
			continue
		}
		for n := 1; n <= 41; n++ {
			if n == 41 {
				n = 768
			}
			for trial := 0; trial < 4; trial++ {
				x := make([]float32, n+1)[1:] // unaligned
				for i := range x {
					x[i] = float32(r.NormFloat64() * math.Ldexp(1, r.IntN(9)-4))
					if r.IntN(8) == 0 {
						x[i] = specials[r.IntN(len(specials))]
					}
				}
				if trial == 3 {
					clear(x)
				}
				gotE, gotL := ks.scan(&x[0], n)
				wantE, wantL := s8wScanTwin(&x[0], n)
				if gotE != wantE || gotL != wantL {
					t.Fatalf("%s scan n=%d: (%d, %d), twin (%d, %d)", level, n, gotE, gotL, wantE, wantL)
				}
				for i := range x {
					if b := math.Float32bits(x[i]); b&0x7f800000 == 0x7f800000 {
						x[i] = 1 // the split takes finite rows
					}
				}
				for planes := 1; planes <= s8wPlanesMax; planes++ {
					got, want := make([]uint32, s8wSplitLen(n)), make([]uint32, s8wSplitLen(n))
					sc := math.Ldexp(1, 8*planes-12)
					off := uint64(1) << (8*planes - 1)
					ks.split(&got[0], &x[0], n, sc, off, s8wSplitTables[planes].start(), planes)
					s8wSplitTwin(&want[0], &x[0], n, sc, off, s8wSplitTables[planes].start(), planes)
					for i := 0; i < (n+3)/4*planes; i++ {
						if got[i] != want[i] {
							t.Fatalf("%s split n=%d planes=%d: dword %d = %#x, twin %#x", level, n, planes, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestGemmF32S8ExactRow checks one row of A whose elements are dyadic
// rationals (the sums of their products with the weights exact in
// float64): at levels with the planes kernels the columns of whole panels
// are the exact dot, scaled and rounded once (float32(Σ x·w · scale), the
// sum exact in float64 here), bias and ReLU after; elsewhere, and in the
// last partial panel, within the float32 dot's rounding. Rows with a NaN,
// an infinity or a subnormal take the float32 kernels, whose results they
// must keep.
func TestGemmF32S8ExactRow(t *testing.T) {
	r := rand.New(rand.NewPCG(177, 178))
	defer SetThreads(SetThreads(2)) // 768×1024 splits its panels in two parts
	forEachLevel(t, func(level string) {
		s := kernels().rowsKernels()
		for _, k := range []int{1, 3, 4, 5, 63, 768} {
			for _, n := range []int{1, 64, 65, 130, 200, 1024} {
				if n == 1024 && k != 768 {
					continue
				}
				x := make([]float32, k)
				for i := range x {
					x[i] = float32(math.Ldexp(float64(r.IntN(1<<16)-1<<15), -r.IntN(13)))
				}
				w := make([]int8, k*n)
				for i := range w {
					w[i] = int8(r.Uint32())
				}
				scale := make([]float32, n)
				for j := range scale {
					scale[j] = float32(r.Float64()) / 64
				}
				var ep Epilogue
				if r.IntN(2) == 0 {
					ep.Bias = randMatrix[float32](r, 1, n, n, 1)
				}
				if r.IntN(2) == 0 {
					ep.Act = ActReLU
				}
				pw := PackS8Weights(false, k, n, w, n, scale)
				c := make([]float32, n)
				GemmF32S8(false, 1, x, k, pw, c, n, ep)
				for j := 0; j < n; j++ {
					var sum, abs float64
					for p := 0; p < k; p++ {
						sum += float64(x[p]) * float64(w[p*n+j])
						abs += math.Abs(float64(x[p]) * float64(w[p*n+j]))
					}
					want := float32(sum * float64(scale[j]))
					if ep.Bias != nil {
						want += ep.Bias[j]
					}
					if ep.Act == ActReLU && want <= 0 {
						want = 0
					}
					exact := s.planes != nil && j < n/s.nr*s.nr
					got := c[j]
					if exact && math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("%s k=%d n=%d column %d = %v, want the exact %v", level, k, n, j, got, want)
					}
					tol := float64(k+2)*0x1p-23*(abs*float64(scale[j])) + 0x1p-22*math.Abs(float64(want)) + 1e-30
					if ep.Bias != nil {
						tol += 0x1p-23 * math.Abs(float64(ep.Bias[j]))
					}
					if math.Abs(float64(got-want)) > tol {
						t.Fatalf("%s k=%d n=%d column %d = %v, want %v ± %g", level, k, n, j, got, want, tol)
					}
				}
				// A NaN makes every column NaN; a subnormal or an
				// infinity takes the float32 kernels.
				x[k/2] = float32(math.NaN())
				GemmF32S8(false, 1, x, k, pw, c, n, Epilogue{})
				for j := range c {
					if !math.IsNaN(float64(c[j])) {
						t.Fatalf("%s k=%d n=%d: NaN in A, column %d = %v", level, k, n, j, c[j])
					}
				}
			}
		}
	})
}

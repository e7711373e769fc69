package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// TestDotKernelsAgainstTwin runs every dot kernel of every runnable level,
// for every row count, K around the unroll and every flag, against its
// pure-Go twin: integer tiles exactly, bfloat16 tiles exactly too (the
// operands keep every product and partial sum normal, and the twin adds in
// VDPBF16PS's order).
func TestDotKernelsAgainstTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, set := range runnable {
		for _, d := range []*dotTiles{set.bdot, set.idot} {
			if d == nil {
				continue
			}
			for rows := 1; rows <= d.mr; rows++ {
				twin := dotTwin(d.kind, d.group, d.elem, rows, d.nr, d.unsignedA)
				for _, kg := range []int{0, 1, 2, 3, 4, 5, 17, 64} {
					for flags := uint(0); flags < 8; flags++ {
						if flags&flagReLU != 0 && d.kind != dotPairsBF16 {
							continue
						}
						if flags&flagPartial != 0 && !d.masked {
							continue
						}
						lda := kg*4 + 4*r.IntN(3)
						a := make([]byte, rows*lda+4)
						b := make([]byte, kg*d.nr*4+4)
						fill := func(s []byte) {
							for i := 0; i < len(s); i += 2 {
								if d.kind == dotPairsBF16 {
									v := f32ToBF16(float32(r.NormFloat64()))
									s[i], s[i+1] = byte(v), byte(v>>8)
								} else if d.elem == 2 {
									v := int16(int8(r.Uint32()))
									s[i], s[i+1] = byte(v), byte(uint16(v)>>8)
								} else {
									s[i], s[i+1] = byte(r.Uint32()), byte(r.Uint32())
								}
							}
						}
						fill(a)
						fill(b)
						aux := make([]int32, d.nr)
						for j := range aux {
							if d.kind == dotPairsBF16 {
								aux[j] = int32(math.Float32bits(float32(r.NormFloat64())))
							} else {
								aux[j] = int32(r.Uint32() >> 8)
							}
						}
						cols := d.nr
						if flags&flagPartial != 0 {
							cols = 1 + r.IntN(d.nr-1)
						}
						ldc := d.nr + 3
						got, want := make([]int32, rows*ldc), make([]int32, rows*ldc)
						for i := range got {
							got[i], want[i] = 7, 7
						}
						mask := &edgeMasks[maxNR-cols]
						d.rows[rows](kg, &a[0], lda, &b[0], (*byte)(unsafe.Pointer(&got[0])), ldc, (*byte)(unsafe.Pointer(&aux[0])), mask, flags)
						twin(kg, &a[0], lda, &b[0], (*byte)(unsafe.Pointer(&want[0])), ldc, (*byte)(unsafe.Pointer(&aux[0])), mask, flags)
						for i := range got {
							if got[i] != want[i] && !bfdotClose(d, got[i], want[i], kg) {
								t.Fatalf("%s dot kind %d %d×%d kg=%d flags=%03b cols=%d: element %d (row %d col %d) = %#x, twin %#x",
									set.level, d.kind, rows, d.nr, kg, flags, cols, i, i/ldc, i%ldc, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// bfdotClose allows a bfloat16 dot instruction its own rounding: arm64's
// BFDOT sums each pair's products before one rounding (round-to-odd
// inside), and vendors may order VDPBF16PS's two additions otherwise than
// Intel's pseudo-code, which the twin follows (and this machine matches bit
// for bit); the operands here are normal and of order 1, so the results
// stay within kg+2 ulps.
func bfdotClose(d *dotTiles, got, want int32, kg int) bool {
	if d.kind != dotPairsBF16 {
		return false
	}
	g, w := math.Float32frombits(uint32(got)), math.Float32frombits(uint32(want))
	return math.Abs(float64(g-w)) <= float64(kg+2)*0x1p-23*math.Max(1, math.Abs(float64(w)))
}

// lowpShapes are the sizes the products are tested at: around the tiles
// (6×64 and 6×16 dot tiles, 32×32 AMX blocks, 14/6×64/16 float32 tiles),
// the groups of K (2, 4, 32, 64) and a few primes.
var (
	lowpMs = []int{0, 1, 2, 5, 6, 7, 13, 16, 17, 31, 32, 33, 70}
	lowpNs = []int{1, 15, 16, 17, 31, 33, 63, 64, 65, 100, 130}
	lowpKs = []int{0, 1, 2, 3, 4, 7, 31, 32, 33, 63, 64, 65, 130}
)

// forLowpShapes calls f for a random quarter of the shape matrix (a
// sixteenth under emulation), always including 33×65.
func forLowpShapes(r *rand.Rand, f func(m, n, k int, transA bool)) {
	keep := 4 // one case in keep
	if testing.Short() || runtime.GOARCH != "amd64" {
		keep = 16 // under emulation
	}
	for _, m := range lowpMs {
		for _, n := range lowpNs {
			for _, k := range lowpKs {
				if r.IntN(keep) != 0 && !(m == 33 && n == 65) {
					continue
				}
				f(m, n, k, r.IntN(2) == 0)
			}
		}
	}
}

func randBF16s(r *rand.Rand, n int) []uint16 {
	s := make([]uint16, n)
	for i := range s {
		s[i] = f32ToBF16(float32(r.NormFloat64()))
	}
	return s
}

func randF16s(r *rand.Rand, n int) []uint16 {
	s := make([]uint16, n)
	for i := range s {
		s[i] = f32ToF16(float32(r.NormFloat64()))
	}
	return s
}

// TestGemmBF16F16 checks GemmBF16, GemmBF16ToBF16, GemmF16 and GemmF16ToF16
// at every level against a float64 reference, over the shape matrix, both
// layouts of A, unaligned and strided operands, and each epilogue.
func TestGemmBF16F16(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	acts := []Activation{ActNone, ActReLU, ActGeluTanh}
	forEachLevel(t, func(level string) {
		forLowpShapes(r, func(m, n, k int, transA bool) {
			for _, f16 := range []bool{false, true} {
				rowsA, colsA := m, k
				if transA {
					rowsA, colsA = k, m
				}
				lda := max(1, colsA+r.IntN(3))
				gen := randBF16s
				widen := bf16Widen
				if f16 {
					gen, widen = randF16s, f16Widen
				}
				a := gen(r, rowsA*lda+1)[1:]
				b := gen(r, k*n)
				var ep Epilogue
				if r.IntN(2) == 0 {
					ep.Bias = make([]float32, n)
					for j := range ep.Bias {
						ep.Bias[j] = float32(r.NormFloat64())
					}
				}
				ep.Act = acts[r.IntN(len(acts))]
				ldc := max(1, n+r.IntN(3))
				cF := make([]float32, m*ldc+1)[1:]
				cH := make([]uint16, m*ldc+1)[1:]
				if f16 {
					pb := PackF16(false, k, n, b, max(1, n))
					GemmF16(transA, m, a, lda, pb, cF, ldc, ep)
					GemmF16ToF16(transA, m, a, lda, pb, cH, ldc, ep)
				} else {
					pb := PackBF16(false, k, n, b, max(1, n))
					GemmBF16(transA, m, a, lda, pb, cF, ldc, ep)
					GemmBF16ToBF16(transA, m, a, lda, pb, cH, ldc, ep)
				}
				narrow := f32ToBF16
				if f16 {
					narrow = f32ToF16
				}
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						var want, abs float64
						for p := 0; p < k; p++ {
							x := float64(widen(opA(a, lda, transA, i, p))) * float64(widen(b[p*n+j]))
							want += x
							abs += math.Abs(x)
						}
						if ep.Bias != nil {
							want += float64(ep.Bias[j])
							abs += math.Abs(float64(ep.Bias[j]))
						}
						tol := float64(k+2)*0x1p-23*abs + 1e-30
						switch ep.Act {
						case ActReLU:
							want = math.Max(want, 0)
						case ActGeluTanh:
							want = 0.5 * want * (1 + math.Tanh(0.7978845608028654*(want+0.044715*want*want*want)))
							tol = 2*tol + 4*0x1p-23*math.Abs(want)
						}
						got := float64(cF[i*ldc+j])
						name := fmt.Sprintf("%s f16=%v m=%d n=%d k=%d transA=%v bias=%v act=%v (%d,%d)", level, f16, m, n, k, transA, ep.Bias != nil, ep.Act, i, j)
						if math.Abs(got-want) > tol {
							t.Fatalf("%s: float32 C = %v, want %v ± %g", name, got, want, tol)
						}
						if h := cH[i*ldc+j]; h != narrow(float32(got)) {
							t.Fatalf("%s: narrow C = %#04x, the float32 C %v rounds to %#04x", name, h, got, narrow(float32(got)))
						}
					}
				}
			}
		})
	})
}

// TestGemmInt8 checks GemmS8S8 and GemmU8S8 at every level, exactly, over
// the shape matrix, including the extreme values (-128·-128 sums).
func TestGemmInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 66))
	forEachLevel(t, func(level string) {
		forLowpShapes(r, func(m, n, k int, transA bool) {
			rowsA, colsA := m, k
			if transA {
				rowsA, colsA = k, m
			}
			lda := max(1, colsA+r.IntN(3))
			a := make([]int8, rowsA*lda+1)[1:]
			au := make([]uint8, len(a))
			for i := range a {
				a[i] = int8(r.Uint32())
				if r.IntN(8) == 0 {
					a[i] = -128
				}
				au[i] = uint8(r.Uint32())
			}
			b := make([]int8, k*n)
			for i := range b {
				b[i] = int8(r.Uint32())
				if r.IntN(8) == 0 {
					b[i] = -128
				}
			}
			pb := PackS8(false, k, n, b, max(1, n))
			ldc := max(1, n+r.IntN(3))
			cs, cu := make([]int32, m*ldc), make([]int32, m*ldc)
			GemmS8S8(transA, m, a, lda, pb, cs, ldc)
			GemmU8S8(transA, m, au, lda, pb, cu, ldc)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					var ws, wu int32
					for p := 0; p < k; p++ {
						ws += int32(opA(a, lda, transA, i, p)) * int32(b[p*n+j])
						wu += int32(opA(au, lda, transA, i, p)) * int32(b[p*n+j])
					}
					if cs[i*ldc+j] != ws || cu[i*ldc+j] != wu {
						t.Fatalf("%s m=%d n=%d k=%d transA=%v (%d,%d): s8·s8 %d (want %d), u8·s8 %d (want %d)", level, m, n, k, transA, i, j, cs[i*ldc+j], ws, cu[i*ldc+j], wu)
					}
				}
			}
		})
	})
}

// TestLowpAgainstEval compares the int8 products with ir/eval's dot of s8
// operands into s32 (exact), and the bfloat16 product with its dot into
// f32 (within the sums' rounding), at every level.
func TestLowpAgainstEval(t *testing.T) {
	r := rand.New(rand.NewPCG(67, 68))
	const m, n, k = 37, 45, 71
	a, b := make([]int8, m*k), make([]int8, k*n)
	for i := range a {
		a[i] = int8(r.Uint32())
	}
	for i := range b {
		b[i] = int8(r.Uint32())
	}
	ab, bb := randBF16s(r, m*k), randBF16s(r, k*n)
	run := func(hlo string, x, y []byte, tx, ty ir.ElementType) []byte {
		mod, err := ir.ParseModule(hlo)
		if err != nil {
			t.Fatal(err)
		}
		lx, err := ir.NewLiteralView(ir.MakeShape(tx, m, k), x)
		if err != nil {
			t.Fatal(err)
		}
		ly, err := ir.NewLiteralView(ir.MakeShape(ty, k, n), y)
		if err != nil {
			t.Fatal(err)
		}
		res, err := eval.Run(mod, lx, ly)
		if err != nil {
			t.Fatal(err)
		}
		return res[0].Bytes()
	}
	dot := func(in, out string) string {
		return fmt.Sprintf("HloModule d\n\nENTRY e {\n  x = %[1]s[%[3]d,%[4]d] parameter(0)\n  y = %[1]s[%[4]d,%[5]d] parameter(1)\n  ROOT r = %[2]s[%[3]d,%[5]d] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n", in, out, m, k, n)
	}
	wantS := asSlice[int32](run(dot("s8", "s32"), bytesOf(a), bytesOf(b), ir.S8, ir.S8), m*n)
	wantF := asSlice[float32](run(dot("bf16", "f32"), bytesOf(ab), bytesOf(bb), ir.BF16, ir.BF16), m*n)
	forEachLevel(t, func(level string) {
		c := make([]int32, m*n)
		GemmS8S8(false, m, a, k, PackS8(false, k, n, b, n), c, n)
		for i := range c {
			if c[i] != wantS[i] {
				t.Fatalf("%s GemmS8S8 element %d = %d, ir/eval %d", level, i, c[i], wantS[i])
			}
		}
		cf := make([]float32, m*n)
		GemmBF16(false, m, ab, k, PackBF16(false, k, n, bb, n), cf, n, Epilogue{})
		for i := range cf {
			if d := math.Abs(float64(cf[i] - wantF[i])); d > float64(k)*0x1p-23*float64(k) {
				t.Fatalf("%s GemmBF16 element %d = %v, ir/eval %v", level, i, cf[i], wantF[i])
			}
		}
	})
}

// TestS8WRowsKernelsAgainstTwin runs the int8-weight row kernels of every
// runnable level against their twin: the same FMAs in the same order, so
// bit for bit.
func TestS8WRowsKernelsAgainstTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(69, 70))
	for _, set := range runnable {
		s := set.s8w
		if s == nil {
			continue
		}
		for rows := 1; rows <= s8wRowsMax; rows++ {
			twin := s8wTwin(rows, s.nr, s.quads)
			for _, k := range []int{1, 2, 3, 4, 6, 7, 17, 64} {
				for _, panels := range []int{1, 2, 3} {
					for flags := uint(0); flags < 4; flags++ {
						f := flags * flagBias // flagBias, flagReLU
						lda, ldc := k+3, panels*s.nr+5
						a := randMatrix[float32](r, rows, k, lda, 1)
						w := make([]int8, panels*s8wPanelBytes(s.quads, k, s.nr))
						for i := range w {
							w[i] = int8(r.Uint32())
						}
						scale := randMatrix[float32](r, 1, panels*s.nr, panels*s.nr, 1)
						bias := randMatrix[float32](r, 1, panels*s.nr, panels*s.nr, 1)
						got, want := make([]float32, rows*ldc), make([]float32, rows*ldc)
						s.rows[rows](k, &a[0], lda, &w[0], panels, &scale[0], &got[0], ldc, &bias[0], f)
						twin(k, &a[0], lda, &w[0], panels, &scale[0], &want[0], ldc, &bias[0], f)
						for i := range got {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s s8w rows=%d k=%d panels=%d flags=%b: element %d = %v, twin %v", set.level, rows, k, panels, f, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestGemmF32S8 checks GemmF32S8 at every level against the float64 dot
// of A with the weights dequantised as XLA does (float32(w)·scale, rounded
// once), over the shape matrix and each epilogue.
func TestGemmF32S8(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	acts := []Activation{ActNone, ActReLU, ActGeluErf}
	forEachLevel(t, func(level string) {
		forLowpShapes(r, func(m, n, k int, transA bool) {
			rowsA, colsA := m, k
			if transA {
				rowsA, colsA = k, m
			}
			lda := max(1, colsA+r.IntN(3))
			a := make([]float32, rowsA*lda+1)[1:]
			for i := range a {
				a[i] = float32(r.NormFloat64())
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
				ep.Bias = make([]float32, n)
				for j := range ep.Bias {
					ep.Bias[j] = float32(r.NormFloat64())
				}
			}
			ep.Act = acts[r.IntN(len(acts))]
			ldc := max(1, n+r.IntN(3))
			c := make([]float32, m*ldc)
			transW := r.IntN(2) == 0
			wStored, ldw := w, max(1, n)
			if transW {
				wStored, ldw = make([]int8, n*k), max(1, k)
				for p := 0; p < k; p++ {
					for j := 0; j < n; j++ {
						wStored[j*k+p] = w[p*n+j]
					}
				}
			}
			GemmF32S8(transA, m, a, lda, PackS8Weights(transW, k, n, wStored, ldw, scale), c, ldc, ep)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					var want, abs float64
					for p := 0; p < k; p++ {
						x := float64(opA(a, lda, transA, i, p)) * float64(float32(float32(w[p*n+j])*scale[j]))
						want += x
						abs += math.Abs(x)
					}
					if ep.Bias != nil {
						want += float64(ep.Bias[j])
						abs += math.Abs(float64(ep.Bias[j]))
					}
					tol := float64(k+2)*0x1p-23*abs + 1e-30
					switch ep.Act {
					case ActReLU:
						want = math.Max(want, 0)
					case ActGeluErf:
						want = 0.5 * want * (1 + math.Erf(want/math.Sqrt2))
						tol = 2*tol + 4*0x1p-23*math.Abs(want)
					}
					if got := float64(c[i*ldc+j]); math.Abs(got-want) > tol {
						t.Fatalf("%s m=%d n=%d k=%d transA=%v transW=%v bias=%v act=%v (%d,%d): %v, want %v ± %g", level, m, n, k, transA, transW, ep.Bias != nil, ep.Act, i, j, got, want, tol)
					}
				}
			}
		})
	})
}

// TestRepackReusesStorage checks that RepackBF16 and RepackS8 give the
// products PackBF16 and PackS8 give, and allocate nothing once the storage
// is large enough.
func TestRepackReusesStorage(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	const m, n, k = 9, 40, 33
	a, b := randBF16s(r, m*k), randBF16s(r, k*n)
	a8, b8 := make([]int8, m*k), make([]int8, k*n)
	for i := range a8 {
		a8[i] = int8(r.Uint32())
	}
	for i := range b8 {
		b8[i] = int8(r.Uint32())
	}
	forEachLevel(t, func(level string) {
		want, got := make([]float32, m*n), make([]float32, m*n)
		GemmBF16(false, m, a, k, PackBF16(false, k, n, b, n), want, n, Epilogue{})
		p := RepackBF16(nil, false, 2*k, n, randBF16s(r, 2*k*n), n) // larger storage
		p = RepackBF16(p, false, k, n, b, n)
		GemmBF16(false, m, a, k, p, got, n, Epilogue{})
		wantI, gotI := make([]int32, m*n), make([]int32, m*n)
		GemmS8S8(false, m, a8, k, PackS8(false, k, n, b8, n), wantI, n)
		q := RepackS8(nil, false, k, n, b8, n)
		q = RepackS8(q, false, k, n, b8, n)
		GemmS8S8(false, m, a8, k, q, gotI, n)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) || gotI[i] != wantI[i] {
				t.Fatalf("%s: element %d: repacked %v / %d, packed %v / %d", level, i, got[i], gotI[i], want[i], wantI[i])
			}
		}
		if kernels().bdot != nil && !raceEnabled {
			if allocs := testing.AllocsPerRun(10, func() { RepackBF16(p, false, k, n, b, n) }); allocs != 0 {
				t.Errorf("%s: RepackBF16 allocates %v times per call", level, allocs)
			}
			if allocs := testing.AllocsPerRun(10, func() { RepackS8(q, false, k, n, b8, n) }); allocs != 0 {
				t.Errorf("%s: RepackS8 allocates %v times per call", level, allocs)
			}
		}
	})
}

// TestPackPairsLayout packs bfloat16 B and Bᵀ of many shapes and leading
// dimensions (odd ones too, which the transposed kernels leave to the Go
// loop) at every level that packs pairs and checks every word of the pack
// against the layout's definition: panel q, group row g, column jj holds
// B(2g, j) | B(2g+1, j)<<16 for j = q·nr + jj inside B, and zero elsewhere
// (odd K's missing half, the columns past n, AMX's padding groups).
func TestPackPairsLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(75, 76))
	forEachLevel(t, func(level string) {
		if kernels().bdot == nil {
			return
		}
		for _, k := range []int{1, 2, 3, 16, 31, 33, 64, 130} {
			for _, n := range []int{1, 15, 16, 63, 64, 65, 128, 200} {
				for _, transB := range []bool{false, true} {
					for _, pad := range []int{0, 1, 2} {
						rows, cols := k, n
						if transB {
							rows, cols = n, k
						}
						ldb := cols + pad
						b := randBF16s(r, rows*ldb+1)[1:]
						at := func(p, j int) uint32 {
							if p >= k || j >= n {
								return 0
							}
							if transB {
								return uint32(b[j*ldb+p])
							}
							return uint32(b[p*ldb+j])
						}
						for _, fresh := range []bool{true, false} {
							var p *PackedBF16
							if !fresh { // storage reused from a larger pack, whose values lie where the padding goes
								k2, n2 := k+37, n+70
								p = RepackBF16(nil, false, k2, n2, randBF16s(r, k2*n2), n2)
							}
							p = RepackBF16(p, transB, k, n, b, ldb)
							lp := p.p
							words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(lp.data))), len(lp.data)/4)
							for q := 0; q < lp.panels(); q++ {
								for g := 0; g < lp.kg; g++ {
									for jj := 0; jj < lp.nr; jj++ {
										j := q*lp.nr + jj
										want := at(2*g, j) | at(2*g+1, j)<<16
										if got := words[(q*lp.kg+g)*lp.nr+jj]; got != want {
											t.Fatalf("%s k=%d n=%d transB=%v ldb=%d fresh=%v: panel %d group %d column %d = %#08x, want %#08x",
												level, k, n, transB, ldb, fresh, q, g, jj, got, want)
										}
									}
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestPackQuadsLayout packs int8 B and Bᵀ of many shapes and leading
// dimensions at every level and, where the level packs quads of K (group
// 4, a byte each), checks every word of the pack against the layout's
// definition — panel q, group row g, column jj holds B(4g+t, j) in byte t
// for j = q·nr + jj inside B, zero elsewhere — and the column sums the
// signed products subtract (128·Σ_p B(p, j)).
func TestPackQuadsLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(79, 80))
	forEachLevel(t, func(level string) {
		if d := kernels().intDot(); d.group != 4 || d.elem != 1 {
			return
		}
		for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 31, 33, 64, 130} {
			for _, n := range []int{1, 15, 16, 63, 64, 65, 200} {
				for _, transB := range []bool{false, true} {
					for _, pad := range []int{0, 1, 3} {
						rows, cols := k, n
						if transB {
							rows, cols = n, k
						}
						ldb := cols + pad
						b := make([]int8, rows*ldb+1)
						for i := range b {
							b[i] = int8(r.Uint32())
						}
						b = b[1:]
						at := func(p, j int) int8 {
							if p >= k || j >= n {
								return 0
							}
							if transB {
								return b[j*ldb+p]
							}
							return b[p*ldb+j]
						}
						for _, fresh := range []bool{true, false} {
							var p *PackedS8
							if !fresh { // storage reused from a larger pack, whose values lie where the padding goes
								k2, n2 := k+37, n+70
								big := make([]int8, k2*n2)
								for i := range big {
									big[i] = int8(r.Uint32())
								}
								p = RepackS8(nil, false, k2, n2, big, n2)
							}
							p = RepackS8(p, transB, k, n, b, ldb)
							lp := p.p
							words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(lp.data))), len(lp.data)/4)
							for q := 0; q < lp.panels(); q++ {
								for g := 0; g < lp.kg; g++ {
									for jj := 0; jj < lp.nr; jj++ {
										j := q*lp.nr + jj
										var want uint32
										for t := 0; t < 4; t++ {
											want |= uint32(uint8(at(4*g+t, j))) << (8 * t)
										}
										if got := words[(q*lp.kg+g)*lp.nr+jj]; got != want {
											t.Fatalf("%s k=%d n=%d transB=%v ldb=%d fresh=%v: panel %d group %d column %d = %#08x, want %#08x",
												level, k, n, transB, ldb, fresh, q, g, jj, got, want)
										}
									}
								}
							}
							for j := 0; j < lp.panels()*lp.nr; j++ {
								var want int32
								for p := 0; p < k; p++ {
									want += int32(at(p, j))
								}
								if got := lp.colSum128[j]; got != 128*want {
									t.Fatalf("%s k=%d n=%d transB=%v ldb=%d fresh=%v: column %d sum %d, want %d", level, k, n, transB, ldb, fresh, j, got, 128*want)
								}
							}
						}
					}
				}
			}
		}
	})
}

// BenchmarkRepackS8 times packing an int8 B known only at run time (a
// 3×3×64→64 convolution's weights as the int8 product takes them, and a
// 768×768 layer's, B and Bᵀ).
func BenchmarkRepackS8(b *testing.B) {
	r := rand.New(rand.NewPCG(81, 82))
	for _, sz := range [][2]int{{576, 64}, {768, 768}} {
		k, n := sz[0], sz[1]
		w := make([]int8, k*n)
		for i := range w {
			w[i] = int8(r.Uint32())
		}
		for _, transB := range []bool{false, true} {
			ldb := n
			if transB {
				ldb = k
			}
			p := RepackS8(nil, transB, k, n, w, ldb)
			b.Run(fmt.Sprintf("%dx%d/transB=%v", k, n, transB), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					p = RepackS8(p, transB, k, n, w, ldb)
				}
				b.ReportMetric(float64(k*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}

// BenchmarkRepackBF16 times packing a bfloat16 B known only at run time
// (a 768×768 layer's weights passed as arguments, B and Bᵀ) beside the
// product it feeds at 128 rows.
func BenchmarkRepackBF16(b *testing.B) {
	r := rand.New(rand.NewPCG(77, 78))
	const m, k, n = 128, 768, 768
	w := randBF16s(r, k*n)
	a := randBF16s(r, m*k)
	c := make([]float32, m*n)
	prev := SetThreads(1)
	defer SetThreads(prev)
	for _, transB := range []bool{false, true} {
		p := RepackBF16(nil, transB, k, n, w, 768)
		b.Run(fmt.Sprintf("transB=%v/op=pack", transB), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p = RepackBF16(p, transB, k, n, w, 768)
			}
			b.ReportMetric(float64(2*k*n)/b.Elapsed().Seconds()*float64(b.N)/1e9, "GB/s")
		})
		b.Run(fmt.Sprintf("transB=%v/op=gemm", transB), func(b *testing.B) {
			for b.Loop() {
				GemmBF16(false, m, a, k, p, c, n, Epilogue{})
			}
		})
	}
}

// TestFlipSignBits checks the word-at-a-time offset of int8 rows against
// the byte-at-a-time definition, at every length to 40 and unaligned.
func TestFlipSignBits(t *testing.T) {
	r := rand.New(rand.NewPCG(181, 182))
	for n := 0; n <= 40; n++ {
		src := make([]byte, n+3)[3:]
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		dst := make([]byte, n+1)[1:]
		flipSignBits(dst, src)
		for i := range src {
			if dst[i] != src[i]^0x80 {
				t.Fatalf("n=%d: byte %d = %#x, want %#x", n, i, dst[i], src[i]^0x80)
			}
		}
	}
}

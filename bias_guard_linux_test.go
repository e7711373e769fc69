//go:build linux

package kiln

import (
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"
)

// TestBiasAtPageEnd runs the bfloat16 and binary16 GEMMs, float32 and
// narrow results, and the float32 ones (B as given and prepacked: the
// packed-rows, small-M and blocked paths), with a partial last panel whose
// biases end a page that an inaccessible page follows: a kernel reading a
// whole tile's biases past the slice faults. The results must equal those
// with the same biases in an ordinary slice, bit for bit.
func TestBiasAtPageEnd(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	r := rand.New(rand.NewPCG(51, 52))
	forEachLevel(t, func(level string) {
		for _, n := range []int{1, 5, 17, 33, 70, 131} {
			m, k := 7, 9
			guarded := unsafe.Slice((*float32)(unsafe.Pointer(&mem[page-4*n])), n)
			plain := make([]float32, n)
			for j := range plain {
				plain[j] = float32(r.NormFloat64())
			}
			copy(guarded, plain)
			a := make([]uint16, m*k)
			for i := range a {
				a[i] = uint16(math.Float32bits(float32(r.NormFloat64())) >> 16)
			}
			b := make([]uint16, k*n)
			for i := range b {
				b[i] = uint16(math.Float32bits(float32(r.NormFloat64())) >> 16)
			}
			pbBF, pbF16 := PackBF16(false, k, n, b, n), PackF16(false, k, n, b, n)
			bf := make([]float32, k*n)
			for i := range bf {
				bf[i] = float32(r.NormFloat64())
			}
			pb := PackB(false, k, n, bf, n)
			for _, rows := range []int{1, 3, 7, 40} {
				af := make([]float32, rows*k)
				for i := range af {
					af[i] = float32(r.NormFloat64())
				}
				for _, packed := range []bool{false, true} {
					got, want := make([]float32, rows*n), make([]float32, rows*n)
					for _, c := range []struct {
						bias []float32
						out  []float32
					}{{guarded, got}, {plain, want}} {
						ep := Epilogue{Bias: c.bias, Act: ActReLU}
						if packed {
							SgemmPackedEpilogue(false, rows, 1, af, k, pb, 0, c.out, n, ep)
						} else {
							SgemmEpilogue(false, false, rows, n, k, 1, af, k, bf, n, 0, c.out, n, ep)
						}
					}
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s float32 m=%d n=%d packed %v: element %d differs with the biases at a page's end", level, rows, n, packed, i)
						}
					}
				}
			}
			narrow := []func(ep Epilogue, f []float32, h []uint16){
				func(ep Epilogue, f []float32, _ []uint16) { GemmBF16(false, m, a, k, pbBF, f, n, ep) },
				func(ep Epilogue, _ []float32, h []uint16) { GemmBF16ToBF16(false, m, a, k, pbBF, h, n, ep) },
				func(ep Epilogue, f []float32, _ []uint16) { GemmF16(false, m, a, k, pbF16, f, n, ep) },
				func(ep Epilogue, _ []float32, h []uint16) { GemmF16ToF16(false, m, a, k, pbF16, h, n, ep) },
			}
			for _, act := range []Activation{ActNone, ActReLU} {
				for run, gemm := range narrow {
					gotF, wantF := make([]float32, m*n), make([]float32, m*n)
					gotH, wantH := make([]uint16, m*n), make([]uint16, m*n)
					gemm(Epilogue{Bias: guarded, Act: act}, gotF, gotH)
					gemm(Epilogue{Bias: plain, Act: act}, wantF, wantH)
					for i := range gotF {
						if math.Float32bits(gotF[i]) != math.Float32bits(wantF[i]) || gotH[i] != wantH[i] {
							t.Fatalf("%s n=%d run %d act %v: element %d differs with the biases at a page's end", level, n, run, act, i)
						}
					}
				}
			}
		}
	})
}

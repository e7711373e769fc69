package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/kilnml/kiln/ir"
)

// The conversion kernels against ir's conversions (the definition ir/eval
// applies): every conversion, at every level, bit for bit — every bit
// pattern of the 8- and 16-bit sources, and for float32 sources a stride
// through all patterns plus every float32 next to a rounding boundary of the
// target.

// elemConvCase is one conversion kernel seen as bytes.
type elemConvCase struct {
	name     string
	from, to ir.ElementType
	run      func(dst, src []byte, n int) // n elements
}

func asSlice[T any](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

func convOf[D, S any](name string, from, to ir.ElementType, f func([]D, []S)) elemConvCase {
	return elemConvCase{name, from, to, func(dst, src []byte, n int) { f(asSlice[D](dst, n), asSlice[S](src, n)) }}
}

var elemConvCases = []elemConvCase{
	convOf("F32ToBF16", ir.F32, ir.BF16, F32ToBF16),
	convOf("BF16ToF32", ir.BF16, ir.F32, BF16ToF32),
	convOf("F32ToF16", ir.F32, ir.F16, F32ToF16),
	convOf("F16ToF32", ir.F16, ir.F32, F16ToF32),
	convOf("F32ToE4M3", ir.F32, ir.F8E4M3FN, F32ToE4M3),
	convOf("E4M3ToF32", ir.F8E4M3FN, ir.F32, E4M3ToF32),
	convOf("F32ToE5M2", ir.F32, ir.F8E5M2, F32ToE5M2),
	convOf("E5M2ToF32", ir.F8E5M2, ir.F32, E5M2ToF32),
	convOf("BF16ToF16", ir.BF16, ir.F16, BF16ToF16),
	convOf("F16ToBF16", ir.F16, ir.BF16, F16ToBF16),
	convOf("F32ToS8", ir.F32, ir.S8, F32ToS8),
	convOf("F32ToU8", ir.F32, ir.U8, F32ToU8),
	convOf("F32ToS16", ir.F32, ir.S16, F32ToS16),
	convOf("F32ToU16", ir.F32, ir.U16, F32ToU16),
	convOf("F32ToS32", ir.F32, ir.S32, F32ToS32),
	convOf("S8ToF32", ir.S8, ir.F32, S8ToF32),
	convOf("U8ToF32", ir.U8, ir.F32, U8ToF32),
	convOf("S16ToF32", ir.S16, ir.F32, S16ToF32),
	convOf("U16ToF32", ir.U16, ir.F32, U16ToF32),
	convOf("S32ToF32", ir.S32, ir.F32, S32ToF32),
}

// convInputs returns the test inputs of a source type as bytes.
func convInputs(from ir.ElementType) ([]byte, int) {
	switch from.ByteSize() {
	case 1:
		b := make([]byte, 256)
		for i := range b {
			b[i] = byte(i)
		}
		return b, 256
	case 2:
		b := make([]byte, 2<<16)
		for i := 0; i < 1<<16; i++ {
			b[2*i], b[2*i+1] = byte(i), byte(i>>8)
		}
		return b, 1 << 16
	}
	if from == ir.S32 {
		r := rand.New(rand.NewPCG(3, 4))
		xs := []int32{0, 1, -1, math.MaxInt32, math.MinInt32, 1 << 24, 1<<24 + 1, 1<<24 + 3, -(1<<24 + 1)}
		for len(xs) < 1<<16 {
			xs = append(xs, int32(r.Uint32())>>(r.IntN(32)))
		}
		return unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), 4*len(xs)), len(xs)
	}
	xs := interestingF32(sampleStride() * 8)
	// Every float32 next to the rounding boundaries of the narrow types:
	// their values and the midpoints between neighbours, ±1 ulp.
	for _, t := range []ir.ElementType{ir.BF16, ir.F8E4M3FN, ir.F8E5M2} {
		var vals []float32
		src := make([]byte, 4)
		for bits := 0; bits < 1<<(8*t.ByteSize()); bits++ {
			v := make([]byte, 2)
			v[0], v[1] = byte(bits), byte(bits>>8)
			ir.ConvertElement(src, ir.F32, v[:t.ByteSize()], t)
			f := *(*float32)(unsafe.Pointer(&src[0]))
			if f == f && !math.IsInf(float64(f), 0) && f >= 0 {
				vals = append(vals, f)
			}
			if t == ir.BF16 && bits%97 != 0 {
				continue // a sample of bfloat16's 65536 values suffices
			}
		}
		for i, v := range vals {
			cands := []float32{v}
			if i+1 < len(vals) {
				cands = append(cands, float32((float64(v)+float64(vals[i+1]))/2))
			}
			for _, c := range cands {
				for d := int32(-1); d <= 1; d++ {
					y := math.Float32frombits(uint32(int32(math.Float32bits(c)) + d))
					xs = append(xs, y, -y)
				}
			}
		}
	}
	// Beyond the finite ranges, the integer bounds and their neighbours.
	for _, v := range []float32{448, 464, 465, 480, 57344, 61440, 61439, 65504, 65520, 127.5, 128, -128.5, -129, 255.5, 256, 32767.5, 32768, -32768.5, 65535.5, 65536, 0x1p31, -0x1p31} {
		for d := int32(-1); d <= 1; d++ {
			y := math.Float32frombits(uint32(int32(math.Float32bits(v)) + d))
			xs = append(xs, y, -y)
		}
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), 4*len(xs)), len(xs)
}

// TestConversionsAgainstIR checks every conversion kernel at every level
// against ir.ConvertElement, bit for bit.
func TestConversionsAgainstIR(t *testing.T) {
	for _, c := range elemConvCases {
		src, n := convInputs(c.from)
		fs, ts := c.from.ByteSize(), c.to.ByteSize()
		want := make([]byte, n*ts)
		for i := 0; i < n; i++ {
			ir.ConvertElement(want[i*ts:(i+1)*ts], c.to, src[i*fs:(i+1)*fs], c.from)
		}
		forEachLevel(t, func(level string) {
			got := make([]byte, n*ts)
			c.run(got, src, n)
			for i := 0; i < n; i++ {
				g, w := got[i*ts:(i+1)*ts], want[i*ts:(i+1)*ts]
				if string(g) != string(w) {
					t.Fatalf("%s %s: input %s: got %s, want %s", level, c.name, hexBytes(src[i*fs:(i+1)*fs]), hexBytes(g), hexBytes(w))
				}
			}
		})
	}
}

// TestConversionTails runs every conversion on every tail length at an
// odd offset, at every level, against ir.
func TestConversionTails(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range elemConvCases {
		fs, ts := c.from.ByteSize(), c.to.ByteSize()
		forEachLevel(t, func(level string) {
			for _, n := range testLengths() {
				src := make([]byte, (n+1)*fs)[fs:]
				for i := range src {
					src[i] = byte(r.Uint32())
				}
				if c.from == ir.F32 { // values in the targets' ranges too
					for i := 0; i < n; i++ {
						*(*float32)(unsafe.Pointer(&src[4*i])) = float32(r.NormFloat64() * 300)
					}
				}
				got := make([]byte, (n+1)*ts)[ts:]
				c.run(got, src, n)
				w := make([]byte, ts)
				for i := 0; i < n; i++ {
					ir.ConvertElement(w, c.to, src[i*fs:(i+1)*fs], c.from)
					if string(got[i*ts:(i+1)*ts]) != string(w) {
						t.Fatalf("%s %s n=%d element %d: input %s: got %s, want %s", level, c.name, n, i, hexBytes(src[i*fs:(i+1)*fs]), hexBytes(got[i*ts:(i+1)*ts]), hexBytes(w))
					}
				}
			}
		})
	}
}

// TestRoundToNarrowF32 checks RoundBF16F32 and RoundF16F32 against the
// round trip through ir's conversions.
func TestRoundToNarrowF32(t *testing.T) {
	xs := interestingF32(sampleStride() * 8)
	for _, c := range []struct {
		name string
		f    func(dst, x []float32)
		t    ir.ElementType
	}{{"RoundBF16F32", RoundBF16F32, ir.BF16}, {"RoundF16F32", RoundF16F32, ir.F16}} {
		want := make([]float32, len(xs))
		narrow, back := make([]byte, 2), make([]byte, 4)
		for i := range xs {
			ir.ConvertElement(narrow, c.t, unsafe.Slice((*byte)(unsafe.Pointer(&xs[i])), 4), ir.F32)
			ir.ConvertElement(back, ir.F32, narrow, c.t)
			want[i] = *(*float32)(unsafe.Pointer(&back[0]))
		}
		forEachLevel(t, func(level string) {
			got := make([]float32, len(xs))
			c.f(got, xs)
			for i, x := range xs {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s %s(%#08x) = %#08x, want %#08x", level, c.name, math.Float32bits(x), math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		})
	}
}

func hexBytes(b []byte) string {
	s := "0x"
	for i := len(b) - 1; i >= 0; i-- {
		s += fmt.Sprintf("%02x", b[i])
	}
	return s
}

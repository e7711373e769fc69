package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln"
)

// The elementwise, reduction, softmax/layer-norm and data-movement kernels,
// beside STREAM-style references in the same run:
//
//	go test -run '^$' -bench 'Stream|L1|Call|Softmax|LayerNorm|Movement' -count 6 . | tee elt.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl elt.txt
//
// Bandwidth is counted as STREAM counts it: the bytes a kernel must read and
// write once (copy and scale 8 B per element, add and triad 12, sum 4), not
// the write-allocate traffic of the caches.

const (
	bigN   = 16 << 20 // 64 MiB per float32 array: far beyond the caches
	smallN = 1024     // L1-resident, the compiler's tile size
)

type bigArrays struct{ a, b, c []float32 }

var bigs *bigArrays

func bigOperands() *bigArrays {
	if bigs == nil {
		r := rand.New(rand.NewPCG(1, 2))
		fill := func() []float32 {
			x := make([]float32, bigN)
			for i := range x {
				x[i] = float32(r.Float64()*4 - 2)
			}
			return x
		}
		bigs = &bigArrays{fill(), fill(), fill()}
	}
	return bigs
}

func reportGBs(b *testing.B, bytesPerOp float64) {
	b.ReportMetric(bytesPerOp*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

func reportGelems(b *testing.B, elemsPerOp float64) {
	b.ReportMetric(elemsPerOp*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
}

// atLevels runs f once per kernel level this machine has, as sub-benchmarks
// named impl=kiln-<level>, with one thread.
func atLevels(b *testing.B, name string, skipGeneric bool, f func(b *testing.B)) {
	defer kiln.SetThreads(kiln.SetThreads(1))
	for _, level := range kiln.ISALevels() {
		if skipGeneric && level == "generic" {
			continue
		}
		prev, err := kiln.SetISA(level)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/impl=kiln-"+level, f)
		kiln.SetISA(prev)
	}
}

// BenchmarkStream times the STREAM kernels on 16M float32: the copy two ways
// (Go's copy, which is memmove with non-temporal stores for large sizes, and
// a plain loop with ordinary stores), then Kiln's scale, add, triad (x·s + y)
// and sum, and exp (8 B per element, like copy).
func BenchmarkStream(b *testing.B) {
	o := bigOperands()
	b.Run("op=copy/impl=go-copy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(o.a, o.b)
		}
		reportGBs(b, 8*bigN)
	})
	b.Run("op=copy/impl=go-loop", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			a, c := o.a, o.b[:len(o.a)]
			for j := range a {
				a[j] = c[j]
			}
		}
		reportGBs(b, 8*bigN)
	})
	b.Run("op=add/impl=go-loop", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			a, x, y := o.a, o.b[:len(o.a)], o.c[:len(o.a)]
			for j := range a {
				a[j] = x[j] + y[j]
			}
		}
		reportGBs(b, 12*bigN)
	})
	atLevels(b, "op=scale", true, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			kiln.MulScalar(o.a, o.b, 3)
		}
		reportGBs(b, 8*bigN)
	})
	atLevels(b, "op=add", true, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			kiln.Add(o.a, o.b, o.c)
		}
		reportGBs(b, 12*bigN)
	})
	atLevels(b, "op=triad", true, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			kiln.MulScalarAdd(o.a, o.b, 3, o.c)
		}
		reportGBs(b, 12*bigN)
	})
	atLevels(b, "op=sum", true, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink = kiln.Sum(o.b)
		}
		reportGBs(b, 4*bigN)
	})
	atLevels(b, "op=max", true, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink = kiln.Max(o.b)
		}
		reportGBs(b, 4*bigN)
	})
	atLevels(b, "op=exp", true, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			kiln.Exp(o.a, o.b)
		}
		reportGBs(b, 8*bigN)
		reportGelems(b, bigN)
	})
}

var sink float32

// BenchmarkL1 times exp, tanh and logistic on L1-resident data against a
// scalar Go loop calling math in float64, in elements per second.
func BenchmarkL1(b *testing.B) {
	x := make([]float32, smallN)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range x {
		x[i] = float32(r.Float64()*20 - 10)
	}
	dst := make([]float32, smallN)
	fns := []struct {
		name string
		kiln func(dst, x []float32)
		math func(float64) float64
	}{
		{"exp", kiln.Exp, math.Exp},
		{"tanh", kiln.Tanh, math.Tanh},
		{"logistic", kiln.Logistic, func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }},
		{"gelu", kiln.Gelu, func(v float64) float64 { return v * 0.5 * math.Erfc(-v/math.Sqrt2) }},
		{"log", kiln.Log, math.Log},
	}
	for _, f := range fns {
		b.Run("op="+f.name+"/impl=go-math", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for j, v := range x {
					dst[j] = float32(f.math(float64(v)))
				}
			}
			reportGelems(b, smallN)
		})
		atLevels(b, "op="+f.name, false, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				f.kiln(dst, x)
			}
			reportGelems(b, smallN)
		})
	}
}

// BenchmarkCall1024 times one call on 1024 elements (L1-resident), the
// compiler's tile: for the cheap kernels this is mostly the cost of a call.
func BenchmarkCall1024(b *testing.B) {
	x := make([]float32, smallN)
	y := make([]float32, smallN)
	z := make([]float32, smallN)
	for i := range x {
		x[i], y[i], z[i] = float32(i)/smallN+0.5, 1.5, 0.25
	}
	dst := make([]float32, smallN)
	mask := make([]uint8, smallN)
	h := make([]uint16, smallN)
	calls := []struct {
		name string
		f    func()
	}{
		{"add", func() { kiln.Add(dst, x, y) }},
		{"mulscalar", func() { kiln.MulScalar(dst, x, 3) }},
		{"muladd", func() { kiln.MulAdd(dst, x, y, z) }},
		{"maximum", func() { kiln.Maximum(dst, x, y) }},
		{"relu", func() { kiln.Relu(dst, x) }},
		{"less", func() { kiln.Less(mask, x, y) }},
		{"select", func() { kiln.Select(dst, mask, x, y) }},
		{"exp", func() { kiln.Exp(dst, x) }},
		{"tanh", func() { kiln.Tanh(dst, x) }},
		{"logistic", func() { kiln.Logistic(dst, x) }},
		{"gelu", func() { kiln.Gelu(dst, x) }},
		{"gelutanh", func() { kiln.GeluTanh(dst, x) }},
		{"erf", func() { kiln.Erf(dst, x) }},
		{"log", func() { kiln.Log(dst, x) }},
		{"sin", func() { kiln.Sin(dst, x) }},
		{"pow", func() { kiln.Pow(dst, x, y) }},
		{"f32tof16", func() { kiln.F32ToF16(h, x) }},
		{"f16tof32", func() { kiln.F16ToF32(dst, h) }},
		{"sum", func() { sink = kiln.Sum(x) }},
		{"max", func() { sink = kiln.Max(x) }},
		{"argmax", func() { sink = float32(kiln.ArgMax(x)) }},
		{"softmax1x1024", func() { kiln.Softmax(dst, x, smallN) }},
		{"layernorm1x1024", func() { kiln.LayerNorm(dst, x, smallN, y, z, 1e-5) }},
		{"transpose32x32", func() { kiln.Transpose(dst, x, 32, 32) }},
	}
	for _, c := range calls {
		atLevels(b, "op="+c.name, false, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.f()
			}
		})
	}
}

// BenchmarkSoftmax times a softmax over the rows of [128, 3072] (a BERT-base
// attention score block), reporting µs and the bandwidth of its passes
// (read x twice, write dst, read and write dst: 20 B per element).
func BenchmarkSoftmax(b *testing.B) {
	const rows, n = 128, 3072
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, rows*n)
	for i := range x {
		x[i] = float32(r.NormFloat64() * 3)
	}
	dst := make([]float32, len(x))
	atLevels(b, "shape=128x3072", false, func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			kiln.Softmax(dst, x, n)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/op")
		reportGBs(b, 20*rows*n)
		reportGelems(b, rows*n)
	})
}

// BenchmarkLayerNorm times a layer norm over the rows of [128, 768] with
// affine weights (BERT-base), reporting µs and the bandwidth of its passes
// (read x three times, write dst: 16 B per element).
func BenchmarkLayerNorm(b *testing.B) {
	const rows, n = 128, 768
	r := rand.New(rand.NewPCG(7, 8))
	x := make([]float32, rows*n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	gamma, beta := make([]float32, n), make([]float32, n)
	for i := range gamma {
		gamma[i], beta[i] = 1+float32(i)/n, float32(i)/n
	}
	dst := make([]float32, len(x))
	atLevels(b, "shape=128x768", false, func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			kiln.LayerNorm(dst, x, n, gamma, beta, 1e-12)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/op")
		reportGBs(b, 16*rows*n)
		reportGelems(b, rows*n)
	})
}

// BenchmarkMovement times the transposes and permutations models use, in
// GB/s (read and write once: 8 B per element), beside a plain Go loop.
func BenchmarkMovement(b *testing.B) {
	cases := []struct {
		name  string
		shape []int
		perm  []int
	}{
		{"transpose1024x1024", []int{1024, 1024}, []int{1, 0}},
		{"nchw2nhwc_1x64x56x56", []int{1, 64, 56, 56}, []int{0, 2, 3, 1}},
		{"nhwc2nchw_1x56x56x64", []int{1, 56, 56, 64}, []int{0, 3, 1, 2}},
		{"splitheads_1x128x12x64", []int{1, 128, 12, 64}, []int{0, 2, 1, 3}},
	}
	for _, c := range cases {
		n := 1
		for _, d := range c.shape {
			n *= d
		}
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i)
		}
		dst := make([]float32, n)
		if len(c.shape) == 2 {
			rows, cols := c.shape[0], c.shape[1]
			b.Run(fmt.Sprintf("op=%s/impl=go-loop", c.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					for r := 0; r < rows; r++ {
						for k := 0; k < cols; k++ {
							dst[k*rows+r] = x[r*cols+k]
						}
					}
				}
				reportGBs(b, 8*float64(n))
			})
		}
		atLevels(b, "op="+c.name, false, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				kiln.Permute(dst, x, c.shape, c.perm)
			}
			reportGBs(b, 8*float64(n))
		})
	}
}

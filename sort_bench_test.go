package kiln

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
)

// benchRows are 64 rows of 4096 normal keys: float32 with full mantissas,
// float32 rounded to bfloat16 (the low half zero), and bfloat16 bits.
func benchRows() (f32, f32bf []float32, bf []uint16) {
	r := rand.New(rand.NewPCG(1, 2))
	const size = 64 * 4096
	f32, f32bf, bf = make([]float32, size), make([]float32, size), make([]uint16, size)
	for i := range f32 {
		v := float32(r.NormFloat64())
		f32[i] = v
		b := math.Float32bits(v) + 0x7fff + math.Float32bits(v)>>16&1
		f32bf[i] = math.Float32frombits(b &^ 0xffff)
		bf[i] = uint16(b >> 16)
	}
	return
}

func BenchmarkSortRows(b *testing.B) {
	f32, f32bf, bf := benchRows()
	keys := make([]float32, len(f32))
	kb := make([]uint16, len(bf))
	idx := make([]int32, len(f32))
	iota := func() {
		for i := range idx {
			idx[i] = int32(i % 4096)
		}
	}
	prev := SetThreads(1)
	defer SetThreads(prev)
	for _, c := range []struct {
		name string
		run  func()
	}{
		{"f32", func() { copy(keys, f32); SortF32(keys, nil, 4096, SortCanonicalNaN) }},
		{"f32bf", func() { copy(keys, f32bf); SortF32(keys, nil, 4096, SortCanonicalNaN) }},
		{"bf16", func() { copy(kb, bf); SortBF16(kb, nil, 4096, SortCanonicalNaN) }},
		{"f32/arg", func() { copy(keys, f32); iota(); SortF32(keys, idx, 4096, SortCanonicalNaN) }},
		{"f32bf/arg", func() { copy(keys, f32bf); iota(); SortF32(keys, idx, 4096, SortCanonicalNaN) }},
		{"bf16/arg", func() { copy(kb, bf); iota(); SortBF16(kb, idx, 4096, SortCanonicalNaN) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.run()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(f32)), "ns/key")
		})
	}
}

// BenchmarkSortRowsVector times rows of full-width float32 keys alone at
// several lengths on the active level and on AVX2 (the radix passes; the
// vector sort is AVX-512's), in one process, and reports the process's
// CPU time per key beside the wall time.
func BenchmarkSortRowsVector(b *testing.B) {
	f32, _, _ := benchRows()
	keys := make([]float32, len(f32))
	prev := SetThreads(1)
	defer SetThreads(prev)
	for _, n := range []int{64, 256, 1000, 4096, 8192} {
		for _, isa := range []string{"", "avx2"} {
			name := fmt.Sprintf("n=%d/isa=%s", n, cmp.Or(isa, "active"))
			b.Run(name, func(b *testing.B) {
				if isa != "" {
					old, err := SetISA(isa)
					if err != nil {
						b.Skip(err)
					}
					defer SetISA(old)
				}
				m := len(f32) / n * n
				c0 := cpuNanos()
				for b.Loop() {
					copy(keys, f32[:m])
					SortF32(keys[:m], nil, n, SortCanonicalNaN)
				}
				b.ReportMetric(float64(cpuNanos()-c0)/float64(b.N)/float64(m), "cpu-ns/key")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m), "ns/key")
			})
		}
	}
}

// cpuNanos is the process's user and system CPU time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

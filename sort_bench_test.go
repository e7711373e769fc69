package kiln

import (
	"math"
	"math/rand/v2"
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

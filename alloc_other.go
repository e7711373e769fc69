//go:build !linux

package kiln

// hugeAlloc returns n float32s of zeroed memory for long-lived packed
// matrices (huge pages are requested on Linux only).
func hugeAlloc(n int, owner any) []float32 { return make([]float32, n) }

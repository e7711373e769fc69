//go:build !(amd64 || arm64) || purego

package kiln

// archKernelSets lists the assembly kernel sets of this build: none.
func archKernelSets() []*kernelSet { return nil }

// fmaPeakKernels are the FMA-throughput loops by level: none.
var fmaPeakKernels = map[isaLevel]func(iters int){}

// sdot4Kernels are the four-row dot-product kernels by level: none.
var sdot4Kernels = map[isaLevel]func(k int, x *float32, b *float32, ldb int, out *float32){}

// saxpy4Kernels are the four-row axpy kernels by level: none.
var saxpy4Kernels = map[isaLevel]func(n int, x *float32, b *float32, ldb int, y *float32){}

// sgemvPackedKernels are the packed-rows kernels by level: none.
var sgemvPackedKernels = map[isaLevel]map[int][]packedRowsKernel[float32]{}

//go:build !(amd64 || arm64) || purego

package kiln

// archKernelSets lists the assembly kernel sets of this build: none.
func archKernelSets() []*kernelSet { return nil }

// fmaPeakKernels are the FMA-throughput loops by level: none.
var fmaPeakKernels = map[isaLevel]func(iters int){}

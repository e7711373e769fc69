//go:build !(amd64 || arm64) || purego

package kiln

// archKernelSets lists the assembly kernel sets of this build: none.
func archKernelSets() []*kernelSet { return nil }

//go:build !purego

package kiln

// archKernelSets lists the assembly kernel sets of this build.
func archKernelSets() []*kernelSet { return nil }

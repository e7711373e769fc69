//go:build !purego

package kiln

// archKernelSets lists the arm64 kernel sets, from gemm_tables_arm64.go.
func archKernelSets() []*kernelSet {
	return []*kernelSet{
		{level: levelNEON, features: "neon", s: sgemmNEONKernels(), d: dgemmNEONKernels()},
	}
}

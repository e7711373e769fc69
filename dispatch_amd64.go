//go:build !purego

package kiln

// archKernelSets lists the amd64 kernel sets, best first. Each uses the
// generated tables of gemm_tables_amd64.go.
func archKernelSets() []*kernelSet {
	avx512 := sgemmAVX512Kernels()
	avx512.small = sgemmAVX512SmallKernels()
	return []*kernelSet{
		{level: levelAVX512, features: "avx512f avx2 fma", s: avx512, d: dgemmAVX512Kernels()},
		{level: levelAVX2, features: "avx2 fma", s: sgemmAVX2Kernels(), d: dgemmAVX2Kernels()},
	}
}

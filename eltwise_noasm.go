//go:build !(amd64 || arm64) || purego

package kiln

// eltwiseArch returns the assembly eltwise kernels of a level: none in this build.
func eltwiseArch(level isaLevel) *eltwiseKernels { return nil }

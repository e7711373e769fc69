//go:build !(amd64 || arm64) || purego

package kiln

// reduceArch returns the assembly reduce kernels of a level: none in this build.
func reduceArch(level isaLevel) *reduceKernels { return nil }

//go:build !(amd64 || arm64) || purego

package kiln

// convArch returns the assembly convolution kernels of a level: none in this build.
func convArch(level isaLevel) *convKernels { return nil }
